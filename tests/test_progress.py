"""The progress line of long commands: bar, percentage, rate and ETA from a clock the test controls."""
from __future__ import annotations

from agentmemory.progress import ProgressMeter, format_eta, progress_bar


def test_bar_rate_and_eta():
    now = [100.0]
    meter = ProgressMeter("chunks", width=10, clock=lambda: now[0])
    assert meter.line(0, 300) == "[----------]   0/300   0%"  # no rate before any work is timed
    now[0] += 10
    line = meter.line(100, 300)
    assert line.startswith("[###-------] 100/300  33%") and "10.0 chunks/s" in line and "ETA 0:20" in line
    now[0] += 20
    assert meter.line(300, 300).endswith("ETA 0:00") and "[##########] 300/300 100%" in meter.line(300, 300)


def test_eta_format_and_empty_totals():
    assert format_eta(59.6) == "1:00" and format_eta(3725) == "1:02:05"
    assert progress_bar(0, 0, width=4) == "[####] 0/0"
