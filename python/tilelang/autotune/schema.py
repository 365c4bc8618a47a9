"""What a valid autotuning store holds, and the identities it is keyed by.

The store (store.py) checks a file in full with :func:`validate` before
anything in it is used, and checks what it is about to write the same way,
so that a file the tuner wrote always reads back. The schema is closed: a
field that is not listed here, a value of another type, or a fact that does
not hold together (a record whose id is not its config, an entry whose id is
not its key, a best config that was not timed) makes the whole file invalid.
Adding a field to an entry or a record means adding it here.

The walk follows the schema, never the data: however deep a file nests, the
checks below descend a fixed number of levels (json.loads itself stops
nesting at the interpreter's recursion limit, with RecursionError).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any, Dict, List, Optional

FORMAT = "tilelang-autotune-1"
STATUSES = ("ok", "pruned", "failed")

_ENTRY_ID = re.compile(r"[0-9a-f]{64}")
_ENTRY_REQUIRED = ("kernel", "kernel_hash", "key", "dtypes", "device", "arch", "compiler", "best", "updated",
                   "records")
_ENTRY_OPTIONAL = ("work", "peak")
_RECORD_REQUIRED = ("id", "config", "kwargs", "num_warps", "num_stages", "time_ms", "status", "reason",
                    "timestamp")
_RECORD_OPTIONAL = ("maxnreg",)


class Invalid(ValueError):
    """What is wrong and where, in one line."""


# -- identities ---------------------------------------------------------------------------


def config_ident(kwargs: Dict[str, Any], num_warps: int, num_stages: int, maxnreg: Optional[int] = None) -> str:
    """A config's identity in the store (a record's ``id``); ``kwargs``
    values are already JSON scalars."""
    options = {"num_warps": num_warps, "num_stages": num_stages}
    if maxnreg is not None:
        options["maxnreg"] = maxnreg
    return json.dumps({"kwargs": dict(sorted(kwargs.items())), **options}, sort_keys=True)


def entry_id(kernel_hash: str, key: Dict[str, Any], dtypes: List[str], device: str,
             compiler: Dict[str, str]) -> str:
    """An entry's id: what the tuner looks results up by."""
    text = json.dumps([FORMAT, kernel_hash, key, dtypes, device, compiler], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


# -- validation ---------------------------------------------------------------------------


def _shown(value: Any) -> str:
    """A value in a message: ASCII only (never a raw terminal escape), short."""
    text = ascii(value) if value is None or type(value) in (bool, int, float, str) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _fail(where: str, what: str):
    raise Invalid(f"{where}: {what}")


def _is_str(value) -> bool:
    return type(value) is str


def _is_int(value) -> bool:
    return type(value) is int  # not bool


def _is_scalar(value) -> bool:
    return value is None or type(value) in (bool, int, float, str)


def _is_time(value) -> bool:
    return type(value) in (int, float) and math.isfinite(value) and value >= 0


def _expect(ok: bool, where: str, what: str, value: Any) -> None:
    if not ok:
        _fail(where, f"expected {what}, got {_shown(value)}")


def _fields(obj: Any, required, optional, where: str) -> None:
    _expect(isinstance(obj, dict), where, "an object", obj)
    missing = [name for name in required if name not in obj]
    if missing:
        _fail(where, f"missing {', '.join(missing)}")
    extra = sorted(name for name in obj if name not in required and name not in optional)
    if extra:
        _fail(where, f"unknown field {_shown(extra[0])}")


def _scalars(obj: Any, where: str) -> None:
    """An object of names to JSON scalars (key values, kwargs)."""
    _expect(isinstance(obj, dict), where, "an object", obj)
    for name, value in obj.items():
        _expect(_is_scalar(value), f"{where}[{_shown(name)}]", "a number, string, boolean or null", value)


def _strings(obj: Any, where: str) -> None:
    _expect(isinstance(obj, list), where, "a list", obj)
    for index, value in enumerate(obj):
        _expect(_is_str(value), f"{where}[{index}]", "a string", value)


def _numbers(obj: Any, names, where: str, allow_none: bool) -> None:
    """An object of some of ``names`` to finite non-negative numbers (work,
    peaks), or None where allowed."""
    _fields(obj, (), names, where)
    for name, value in obj.items():
        _expect(_is_time(value) or (allow_none and value is None), f"{where}.{name}", "a number >= 0", value)


def _record(record: Any, where: str) -> None:
    _fields(record, _RECORD_REQUIRED, _RECORD_OPTIONAL, where)
    for name in ("id", "config", "timestamp"):
        _expect(_is_str(record[name]), f"{where}.{name}", "a string", record[name])
    _scalars(record["kwargs"], f"{where}.kwargs")
    for name in ("num_warps", "num_stages"):
        _expect(_is_int(record[name]), f"{where}.{name}", "an integer", record[name])
    maxnreg = record.get("maxnreg")
    if "maxnreg" in record:
        _expect(_is_int(maxnreg), f"{where}.maxnreg", "an integer", maxnreg)
    status = record["status"]
    _expect(status in STATUSES, f"{where}.status", "one of " + ", ".join(STATUSES), status)
    # A timed config has a time and no reason; the others a reason and no time.
    if status == "ok":
        _expect(_is_time(record["time_ms"]), f"{where}.time_ms", "a number >= 0 (status ok)", record["time_ms"])
        _expect(record["reason"] is None, f"{where}.reason", "null (status ok)", record["reason"])
    else:
        _expect(record["time_ms"] is None, f"{where}.time_ms", f"null (status {status})", record["time_ms"])
        _expect(_is_str(record["reason"]), f"{where}.reason", f"a string (status {status})", record["reason"])
    if record["id"] != config_ident(record["kwargs"], record["num_warps"], record["num_stages"], maxnreg):
        _fail(f"{where}.id", "does not match the record's kwargs and options")


def _entry(eid: str, entry: Any, where: str) -> None:
    _fields(entry, _ENTRY_REQUIRED, _ENTRY_OPTIONAL, where)
    for name in ("kernel", "kernel_hash", "device", "updated"):
        _expect(_is_str(entry[name]), f"{where}.{name}", "a string", entry[name])
    _expect(entry["arch"] is None or _is_str(entry["arch"]), f"{where}.arch", "a string or null", entry["arch"])
    _scalars(entry["key"], f"{where}.key")
    _strings(entry["dtypes"], f"{where}.dtypes")
    compiler = entry["compiler"]
    _expect(isinstance(compiler, dict) and "version" in compiler and "build_id" in compiler,
            f"{where}.compiler", "an object with version and build_id", compiler)
    for name, value in compiler.items():
        _expect(_is_str(value), f"{where}.compiler[{_shown(name)}]", "a string", value)
    if "work" in entry:
        _numbers(entry["work"], ("flops", "bytes"), f"{where}.work", allow_none=False)
    if entry.get("peak") is not None:
        _numbers(entry["peak"], ("tflops", "gbps"), f"{where}.peak", allow_none=True)
    if eid != entry_id(entry["kernel_hash"], entry["key"], entry["dtypes"], entry["device"], compiler):
        _fail(where, "the entry id is not the hash of its kernel, key, dtypes, device and compiler")

    records = entry["records"]
    _expect(isinstance(records, list), f"{where}.records", "a list", records)
    by_id = {}
    for index, record in enumerate(records):
        _record(record, f"{where}.records[{index}]")
        if record["id"] in by_id:
            _fail(f"{where}.records[{index}]", "a second record of the same config")
        by_id[record["id"]] = record

    best = entry["best"]
    if best is not None:
        _fields(best, ("id", "config", "time_ms"), (), f"{where}.best")
        _expect(_is_str(best["id"]), f"{where}.best.id", "a string", best["id"])
        _expect(_is_str(best["config"]), f"{where}.best.config", "a string", best["config"])
        chosen = by_id.get(best["id"])
        if chosen is None:
            _fail(f"{where}.best", "names no record of the entry")
        if chosen["status"] != "ok":
            _fail(f"{where}.best", f"names a config whose status is {chosen['status']}, not ok")
        if best["time_ms"] != chosen["time_ms"]:
            _fail(f"{where}.best.time_ms", "is not its record's time")


def validate(data: Any) -> None:
    """Raises :class:`Invalid` unless ``data`` is a whole, consistent store."""
    _fields(data, ("format", "entries"), (), "store")
    if data["format"] != FORMAT:
        _fail("store.format", f"expected {FORMAT!r}, got {_shown(data['format'])}")
    entries = data["entries"]
    _expect(isinstance(entries, dict), "store.entries", "an object", entries)
    for eid, entry in entries.items():
        where = f"entry {_shown(eid[:12])}"
        if not _ENTRY_ID.fullmatch(eid):
            _fail(f"entry {_shown(eid)}", "an entry id is 64 hexadecimal digits")
        _entry(eid, entry, where)
