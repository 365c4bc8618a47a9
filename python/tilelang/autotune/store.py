"""The persistent autotuning store: one JSON file, ``autotune.json``, in the
cache directory (``tilelang.cache.directory()``).

Layout::

    {"format": "tilelang-autotune-1",
     "entries": {ENTRY_ID: {"kernel": ..., "kernel_hash": ..., "key": {...},
                            "dtypes": [...], "device": ..., "arch": ...,
                            "compiler": {"version": ..., "build_id": ...},
                            "best": {"config": ..., "time_ms": ...} or None,
                            "updated": ..., "records": [RECORD, ...]}}}

and a record is ``{"id", "config", "kwargs", "num_warps", "num_stages",
"time_ms", "status" ("ok", "pruned", "failed"), "reason", "timestamp"}``,
with ``"maxnreg"`` too when the config sets a register cap.

Writers take ``fcntl.flock`` on the sidecar ``autotune.json.lock``, read the
file, change it, write a temporary file next to it and ``os.replace`` it into
place, so readers never see half a file and concurrent writers never lose
each other's entries. A file that does not parse is reported with a warning,
moved aside to ``autotune.json.corrupt-<timestamp>`` and rebuilt.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import warnings
from typing import Callable, Dict, Iterator, Optional

FORMAT = "tilelang-autotune-1"
FILE_NAME = "autotune.json"


def default_path() -> Optional[str]:
    """``<cache dir>/autotune.json``, or None when the cache is off."""
    from tilelang import cache

    root = cache.directory()
    return os.path.join(root, FILE_NAME) if root else None


def timestamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _empty() -> dict:
    return {"format": FORMAT, "entries": {}}


class Store:
    """The store file at ``path`` (default: :func:`default_path`)."""

    def __init__(self, path: Optional[str] = None):
        self.path = path or default_path()
        if self.path is None:
            raise ValueError("the tilelang cache is off (TILELANG_CACHE=0): no autotuning store")

    @property
    def lock_path(self) -> str:
        return self.path + ".lock"

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl

        # The cache directory, private as the kernel cache makes it (which
        # refuses a directory others may write).
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read(self) -> dict:
        """The file's contents (caller holds the lock); a corrupt file is
        warned of, moved aside and replaced by an empty store."""
        try:
            with open(self.path, "r", encoding="utf-8") as handle:
                text = handle.read()
        except FileNotFoundError:
            return _empty()
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or not isinstance(data.get("entries"), dict):
                raise ValueError("no 'entries' object")
            if data.get("format") != FORMAT:
                raise ValueError(f"unknown format {data.get('format')!r}")
            for entry in data["entries"].values():
                if not isinstance(entry, dict) or not isinstance(entry.get("records"), list):
                    raise ValueError("an entry without 'records'")
            return data
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            backup = f"{self.path}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            try:
                os.replace(self.path, backup)
                moved = f"moved to {backup}"
            except OSError as move_error:
                moved = f"could not be moved aside ({move_error})"
            warnings.warn(f"tilelang: the autotuning store {self.path} is corrupt ({exc}); it was {moved} "
                          f"and is rebuilt", RuntimeWarning, stacklevel=4)
            return _empty()

    def _write(self, data: dict) -> None:
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".autotune-", suffix=".json", dir=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=1, sort_keys=True)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    # -- public --------------------------------------------------------------------------

    def entries(self) -> Dict[str, dict]:
        """Every entry, by entry id."""
        if not os.path.exists(self.path):
            return {}
        with self._locked():
            return self._read()["entries"]

    def get(self, entry_id: str) -> Optional[dict]:
        return self.entries().get(entry_id)

    def update(self, entry_id: str, change: Callable[[Optional[dict]], dict]) -> dict:
        """Replaces the entry with ``change(current entry or None)`` under the
        lock (read, modify, write); returns the new entry."""
        with self._locked():
            data = self._read()
            entry = change(data["entries"].get(entry_id))
            data["entries"][entry_id] = entry
            self._write(data)
            return entry

    def clear(self, kernel: Optional[str] = None) -> int:
        """Removes every entry (or those of ``kernel``); returns how many."""
        if not os.path.exists(self.path):
            return 0
        with self._locked():
            data = self._read()
            doomed = [k for k, e in data["entries"].items() if kernel is None or matches(e, k, kernel)]
            for k in doomed:
                del data["entries"][k]
            self._write(data)
            return len(doomed)


def matches(entry: dict, entry_id: str, name: str) -> bool:
    """Whether ``name`` selects this entry: its kernel name, or a prefix (at
    least 6 characters) of its entry id."""
    return entry.get("kernel") == name or (len(name) >= 6 and entry_id.startswith(name))


def achieved(work: Optional[dict], peak: Optional[dict], time_ms: Optional[float]) -> Dict[str, float]:
    """TFLOP/s and GB/s of ``work`` ({"flops", "bytes"}) done in ``time_ms``,
    with their percentages of ``peak`` where known."""
    result: Dict[str, float] = {}
    if not work or not time_ms:
        return result
    seconds = time_ms / 1e3
    for unit, amount, scale, peak_key in (("TFLOP/s", work.get("flops"), 1e12, "tflops"),
                                          ("GB/s", work.get("bytes"), 1e9, "gbps")):
        if amount:
            value = amount / seconds / scale
            result[unit] = value
            if peak and peak.get(peak_key):
                result[f"% of peak {unit}"] = 100 * value / peak[peak_key]
    return result


def achieved_text(work: Optional[dict], peak: Optional[dict], time_ms: Optional[float]) -> str:
    """``achieved`` as "520.3 TFLOP/s (53%)" (empty without declared work)."""
    values = achieved(work, peak, time_ms)
    parts = []
    for unit in ("TFLOP/s", "GB/s"):
        if unit in values:
            percent = values.get(f"% of peak {unit}")
            parts.append(f"{values[unit]:.1f} {unit}" + (f" ({percent:.0f}%)" if percent is not None else ""))
    return ", ".join(parts)
