"""A progress bar over the configs of a sweep: tqdm when it is importable,
otherwise a one-line bar redrawn with ``\\r`` on stderr."""

from __future__ import annotations

import sys


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


def progress(total: int, desc: str):
    """An object with ``update(n=1)`` and ``close()``."""
    try:
        from tqdm import tqdm
    except ImportError:
        return _PlainBar(total, desc)
    return tqdm(total=total, desc=desc, unit="config", file=sys.stderr, leave=False)
