"""A short version of agentmemory_bench_load: concurrent clients, 0 errors, every acknowledged turn kept."""
from __future__ import annotations

import pytest

from agentmemory.api_keys import create_api_key
from benchmarks.management.commands.agentmemory_bench_load import ENDPOINTS, run_load


@pytest.mark.django_db(transaction=True)
def test_concurrent_clients_lose_nothing(live_server):
    _key, raw = create_api_key("load-smoke")
    result = run_load(f"{live_server.url}/api/agentmemory", raw, clients=6, seconds=6)
    errors = [e for log in result.logs for name in ENDPOINTS for e in log.errors[name]]
    assert errors == []
    assert all(result.count(name) > 0 for name in ENDPOINTS), {n: result.count(n) for n in ENDPOINTS}
    assert sum(len(log.acknowledged) for log in result.logs) >= 12
    assert (result.lost_turns, result.duplicated_turns, result.misordered_sessions) == (0, 0, 0)
