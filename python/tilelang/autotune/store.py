"""The persistent autotuning store: one JSON file, ``autotune.json``, in the
cache directory (``tilelang.cache.directory()``).

Layout::

    {"format": "tilelang-autotune-1",
     "entries": {ENTRY_ID: {"kernel": ..., "kernel_hash": ..., "key": {...},
                            "dtypes": [...], "device": ..., "arch": ...,
                            "compiler": {"version": ..., "build_id": ...},
                            "best": {"id": ..., "config": ..., "time_ms": ...} or None,
                            "updated": ..., "records": [RECORD, ...]}}}

and a record is ``{"id", "config", "kwargs", "num_warps", "num_stages",
"time_ms", "status" ("ok", "pruned", "failed"), "reason", "timestamp"}``,
with ``"maxnreg"`` too when the config sets a register cap; schema.py says
exactly what is valid.

Reading never changes anything: no lock, no directory, no rename. Only a
regular file is opened (a FIFO or a device is refused before it is opened),
at most ``MAX_BYTES`` are read, and the contents are validated in full; a
file that does not validate is :class:`CorruptStore`, never used.

Writers take ``fcntl.flock`` on the sidecar ``autotune.json.lock``, read the
file, change it, write a temporary file next to it and ``os.replace`` it into
place, so readers never see half a file and concurrent writers never lose
each other's entries. A writer moves a corrupt file aside, within its
folder, to ``autotune.json.corrupt-<timestamp>-<pid>`` (with a warning) and
rebuilds the store; it refuses a store path that is something other than a
regular file, and touches nothing then.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import time
import warnings
from typing import Callable, Dict, Iterator, Optional

from tilelang.autotune import schema
from tilelang.autotune.schema import FORMAT

FILE_NAME = "autotune.json"

#: The most a store may hold. Records take about 400 bytes, so this is some
#: 150,000 configs; a larger file is treated as corrupt rather than parsed.
MAX_BYTES = 64 << 20


class StoreError(Exception):
    """The store cannot be read or written; the message is one line naming
    the file and why."""


class CorruptStore(StoreError):
    """The file exists but is not a valid store."""


def default_path() -> Optional[str]:
    """``<cache dir>/autotune.json``, or None when the cache is off."""
    from tilelang import cache

    root = cache.directory()
    return os.path.join(root, FILE_NAME) if root else None


def timestamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _empty() -> dict:
    return {"format": FORMAT, "entries": {}}


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _regular_or_missing(path: str) -> bool:
    """True for a regular file (links followed), False when nothing is
    there; StoreError for anything else, which is never opened."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StoreError(f"cannot read the autotuning store {path}: {exc.strerror}") from None
    if not stat.S_ISREG(mode):
        raise StoreError(f"the autotuning store {path} is {_kind(mode)}, not a regular file")
    return True


def _read_bytes(path: str) -> Optional[bytes]:
    """The file's bytes, or None when there is none; at most MAX_BYTES."""
    if not _regular_or_missing(path):
        return None
    try:
        # Non-blocking: the file may have been swapped for a FIFO since the stat.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot read the autotuning store {path}: {exc.strerror}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise StoreError(f"the autotuning store {path} is {_kind(mode)}, not a regular file")
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise StoreError(f"cannot read the autotuning store {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        raise CorruptStore(f"the autotuning store {path} is corrupt (larger than {MAX_BYTES >> 20} MiB)")
    return b"".join(chunks)


def parse(text: bytes, path: str) -> dict:
    """The validated store in ``text``; CorruptStore otherwise."""
    try:
        data = json.loads(text.decode("utf-8"))
        schema.validate(data)
    except RecursionError:
        raise CorruptStore(f"the autotuning store {path} is corrupt (nested too deeply)") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError and schema.Invalid are ValueErrors
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CorruptStore(f"the autotuning store {path} is corrupt ({reason})") from None
    return data


def load(path: str) -> Optional[dict]:
    """The validated store at ``path``, or None when there is no file.
    Changes nothing; raises StoreError (CorruptStore: invalid contents)."""
    text = _read_bytes(path)
    return None if text is None else parse(text, path)


class Store:
    """The store file at ``path`` (default: :func:`default_path`)."""

    def __init__(self, path: Optional[str] = None):
        self.path = path or default_path()
        if self.path is None:
            raise ValueError("the tilelang cache is off (TILELANG_CACHE=0): no autotuning store")

    @property
    def lock_path(self) -> str:
        return self.path + ".lock"

    # -- reading: never changes anything --------------------------------------------------

    def exists(self) -> bool:
        """Whether a regular file is there (StoreError for anything else)."""
        return _regular_or_missing(self.path)

    def entries(self) -> Dict[str, dict]:
        """Every entry, by entry id; {} when there is no file. Raises
        StoreError, CorruptStore when the file does not validate."""
        data = load(self.path)
        return data["entries"] if data is not None else {}

    def get(self, entry_id: str) -> Optional[dict]:
        return self.entries().get(entry_id)

    # -- writing --------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        import fcntl

        # Something other than a file where the store goes is not ours to
        # replace (as root, a store path of /dev/null would be the system's).
        _regular_or_missing(self.path)
        # The cache directory, private as the kernel cache makes it (which
        # refuses a directory others may write).
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), mode=0o700, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read_for_update(self) -> dict:
        """The store (caller holds the lock); a corrupt file is warned of,
        moved aside in its folder and replaced by an empty store."""
        try:
            data = load(self.path)
        except CorruptStore as exc:
            backup = f"{self.path}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
            try:
                os.replace(self.path, backup)
                moved = f"moved to {backup}"
            except OSError as move_error:
                moved = f"could not be moved aside ({move_error.strerror})"
            warnings.warn(f"tilelang: {exc}; it was {moved} and is rebuilt", RuntimeWarning, stacklevel=4)
            return _empty()
        return data if data is not None else _empty()

    def _write(self, data: dict) -> None:
        # What is written must read back: a violation here is a bug of the writer.
        schema.validate(data)
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

    def update(self, entry_id: str, change: Callable[[Optional[dict]], dict]) -> dict:
        """Replaces the entry with ``change(current entry or None)`` under the
        lock (read, modify, write); returns the new entry. Raises StoreError
        or OSError when the store cannot be written."""
        with self._locked():
            data = self._read_for_update()
            entry = change(data["entries"].get(entry_id))
            data["entries"][entry_id] = entry
            self._write(data)
            return entry

    def clear(self, kernel: Optional[str] = None) -> int:
        """Removes every entry (or those of ``kernel``); returns how many."""
        if not self.exists():
            return 0
        with self._locked():
            data = self._read_for_update()
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
