"""The long property-based run over the API: schemathesis on the app's own schema against a running server.

The test suite runs a short, deterministic version of the same checks (tests/api/test_schemathesis.py).
Like the benchmarks it prints what it found and asserts nothing itself; the exit code is schemathesis's.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from ...api.schema import generate_schema

CHECKS = "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance"


class Command(BaseCommand):
    help = ("Fuzz every endpoint of the running API with schemathesis (dev extra): no 5xx, only documented "
            "status codes, bodies conforming to the schema. Example: agentmemory_fuzz_api "
            "--url http://127.0.0.1:8000 --key am_... --examples 200")

    def add_arguments(self, parser):
        parser.add_argument("--url", required=True, help="Base URL of the server (scheme, host and port).")
        parser.add_argument("--key", required=True, help="An API key with every scope, for a throwaway database.")
        parser.add_argument("--examples", type=int, default=200, help="Examples per operation (default 200).")
        parser.add_argument("--seed", type=int, default=1, help="Seed, for a reproducible run (default 1).")
        parser.add_argument("--workers", type=int, default=1)

    def handle(self, *args, url: str, key: str, examples: int, seed: int, workers: int, **options):
        beside = Path(sys.executable).parent / "schemathesis"  # the same virtualenv, even when not on PATH
        binary = str(beside) if beside.exists() else shutil.which("schemathesis")
        if binary is None:
            raise CommandError("schemathesis is not installed: pip install 'agentmemory[dev]'.")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(generate_schema(), handle)
        command = [binary, "run", handle.name, "--url", url.rstrip("/"), "-H", f"Authorization: Bearer {key}",
                   "--checks", CHECKS, "--max-examples", str(examples), "--seed", str(seed),
                   "--workers", str(workers)]
        self.stdout.write(f"schemathesis: {examples} examples per operation, seed {seed}, against {url}")
        self.stdout.flush()
        code = subprocess.call(command)
        if code:
            raise CommandError(f"schemathesis found failures (exit {code}); see above.")
