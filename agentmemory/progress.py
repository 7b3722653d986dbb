"""Progress of long operations (imports, re-embedding) as commands show it: a bar, the rate and an ETA."""
from __future__ import annotations

import time
from collections.abc import Callable

#: (done, total): what services report as they go; commands and jobs decide how to show it.
Progress = Callable[[int, int], None]


def format_eta(seconds: float) -> str:
    seconds = max(0, round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def progress_bar(done: int, total: int, width: int = 24) -> str:
    """``[#########---------------]  120/300``."""
    filled = width if total <= 0 else min(width, round(width * done / total))
    return f"[{'#' * filled}{'-' * (width - filled)}] {done:>{len(str(total))}}/{total}"


class ProgressMeter:
    """A bar with rate and ETA since the meter started: ``[####----] 120/300 40% 12.3 chunks/s ETA 0:15``.

    The rate is measured from the first report that shows work done, so time spent before the work
    starts (loading the model, parsing the first file) does not lower it.
    """

    def __init__(self, unit: str = "items", *, width: int = 24, clock: Callable[[], float] = time.monotonic) -> None:
        self.unit, self.width, self.clock = unit, width, clock
        self._origin: tuple[float, int] | None = None

    def rate(self, done: int) -> float | None:
        now = self.clock()
        if self._origin is None:
            self._origin = (now, done)
            return None
        started, base = self._origin
        elapsed = now - started
        return (done - base) / elapsed if elapsed > 0 and done > base else None

    def line(self, done: int, total: int) -> str:
        rate = self.rate(done)
        percent = f"{100 * done / total:3.0f}%" if total > 0 else "   "
        text = f"{progress_bar(done, total, self.width)} {percent}"
        if rate:
            text += f" {rate:.1f} {self.unit}/s ETA {format_eta((total - done) / rate)}"
        return text
