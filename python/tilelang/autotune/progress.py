"""A progress bar over the configs of a sweep. On a terminal: tqdm when it
is importable, otherwise a one-line bar redrawn with ``\\r`` on stderr.
Elsewhere (a log file, a pipe, CI) nothing is redrawn: one line when the
sweep ends says how many configs it went through and how long it took."""

from __future__ import annotations

import sys
import time


class _PlainBar:
    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.n = total, desc, 0
        self._draw()

    def _draw(self) -> None:
        width = 30
        filled = width * self.n // max(self.total, 1)
        sys.stderr.write(f"\r{self.desc} [{'#' * filled}{'.' * (width - filled)}] {self.n}/{self.total}")
        sys.stderr.flush()

    def update(self, count: int = 1) -> None:
        self.n += count
        self._draw()

    def close(self) -> None:
        sys.stderr.write("\n")
        sys.stderr.flush()


class _LogLine:
    """No drawing while the sweep runs; one line at the end."""

    def __init__(self, total: int, desc: str):
        self.total, self.desc, self.n = total, desc, 0
        self._start = time.perf_counter()

    def update(self, count: int = 1) -> None:
        self.n += count

    def close(self) -> None:
        sys.stderr.write(f"{self.desc}: {self.n}/{self.total} configs in {time.perf_counter() - self._start:.1f} s\n")
        sys.stderr.flush()


def _on_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or closed
        return False


def progress(total: int, desc: str):
    """An object with ``update(n=1)`` and ``close()``."""
    if not _on_terminal(sys.stderr):
        return _LogLine(total, desc)
    try:
        from tqdm import tqdm
    except ImportError:
        return _PlainBar(total, desc)
    return tqdm(total=total, desc=desc, unit="config", file=sys.stderr, leave=False)
