"""The store fault injector's faults: ways an autotune.json can be broken,
replaced or made hostile, each drawn from a seeded random generator so that
a run is replayed from its seed (test_store_fuzz.py checks what the tuner and
the inspector do with each).

A fault is applied to a case folder laid out as

    store/autotune.json   the store (a file, or what replaces it)
    outside/              what links may point to: a FIFO, a folder, a valid
                          store and (as root) a private null device

Kinds: ``truncate``, ``bytes`` (random bytes overwritten), ``splice`` (JSON
or junk inserted: deep nesting, huge numbers, NaN, lone surrogates),
``tree`` (the parsed store edited: fields dropped, retyped, added,
duplicated, best pointed elsewhere), ``hostile`` (a valid store whose free
text is terminal escapes, formulas and long lines) and ``special`` (the
store replaced by a FIFO, a folder, a socket, links, an empty or an
oversized file, a device).
"""

from __future__ import annotations

import json
import os
import random
import socket
import stat
from typing import Any, Callable, List, NamedTuple, Tuple

HOSTILE_TEXT = ["\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\u202eevil", "\ud800", "\x00", "a\nb\r\nc", "=1+2",
                "+cmd|' /C calc'!A0", "-2", "@SUM(A1)", '"quoted, comma"', "\t=tab", "x" * 100_000, "\u2028"]
DEEP = "__DEEP__"  # replaced by nesting far past the recursion limit once serialized


def _random_value(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 1, 2 ** 64, -(2 ** 63), 1e308, float("nan"), float("inf"),
                       -0.5, "", "x", rng.choice(HOSTILE_TEXT), [], {}, [1, "a", None], {"a": {"b": []}},
                       DEEP, "ok", "pruned", "{}"])


def _nodes(data: Any, out: List[Tuple[Any, Any]]) -> List[Tuple[Any, Any]]:
    """Every (container, key) pair of the tree, iteratively."""
    stack = [data]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            stack.append(value)
    return out


def _edit_tree(data: dict, rng: random.Random) -> str:
    """One structural edit of the parsed store; says which."""
    nodes = _nodes(data, [])
    container, key = rng.choice(nodes)
    op = rng.randrange(6)
    if op == 0:
        del container[key]
        return f"deleted {key!r}"
    if op == 1:
        value = _random_value(rng)
        container[key] = value
        return f"{key!r} := {value!r:.40}"
    if op == 2 and isinstance(container, dict):
        container[rng.choice(["extra", "kernel ", "\x1b", "records"])] = _random_value(rng)
        return "added a field"
    if op == 3 and isinstance(container, list):
        container.append(container[key])
        return "duplicated a list item"
    entries = list(data.get("entries", {}).values()) if isinstance(data.get("entries"), dict) else []
    entries = [e for e in entries if isinstance(e, dict) and isinstance(e.get("records"), list) and e["records"]
               and isinstance(e.get("best"), dict)]
    if op == 4 and entries:
        entry = rng.choice(entries)
        record = rng.choice(entry["records"])
        if isinstance(record, dict):
            entry["best"]["id"] = record.get("id")
            return "best pointed at another record"
    if op == 5 and entries:
        entry = rng.choice(entries)
        record = rng.choice(entry["records"])
        if isinstance(record, dict):
            record.update(status=rng.choice(["pruned", "failed", "ok", "OK"]),
                          time_ms=rng.choice([None, 0.5, -1.0]), reason=rng.choice([None, "edited"]))
            return "a record's status edited"
    container[key] = DEEP
    return f"{key!r} nested deeply"


def _serialize(data: Any) -> bytes:
    text = json.dumps(data)
    return text.replace(json.dumps(DEEP), "[" * 200_000 + "]" * 200_000).encode()


SPLICES = [b"[" * 100_000, b"{\"a\":" * 50_000, b"1" * 5000, b"NaN", b"-Infinity", b"1e99999", b"\"\\ud800\"",
           b"\"\\u001b[2J\"", b",", b"}", b"]", b"\"", b"\\", b"\xff\xfe", b"\x00", b"null", b"{}", b"[]"]


class Fault(NamedTuple):
    kind: str
    description: str
    apply: Callable[[str], None]  # (case folder) -> None
    regular: bool  # the store stays a regular file (links followed)


def _write(data: bytes) -> Callable[[str], None]:
    def apply(case: str) -> None:
        with open(os.path.join(case, "store", "autotune.json"), "wb") as handle:
            handle.write(data)
    return apply


def _special(rng: random.Random) -> Tuple[str, Callable[[str], None], bool]:
    kinds = ["fifo", "folder", "socket", "link to a fifo", "link to a folder", "dangling link",
             "link to a valid store", "empty", "oversized", "device", "link to a device"]
    kind = rng.choice(kinds)
    if kind in ("device", "link to a device") and os.geteuid() != 0:
        kind = "fifo"

    def apply(case: str) -> None:
        path = os.path.join(case, "store", "autotune.json")
        outside = os.path.join(case, "outside")
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "folder":
            os.mkdir(path)
        elif kind == "socket":
            server = socket.socket(socket.AF_UNIX)
            try:
                server.bind(path)
            finally:
                server.close()
        elif kind == "empty":
            open(path, "wb").close()
        elif kind == "oversized":  # sparse: past the 64 MiB bound without using the disk
            with open(path, "wb") as handle:
                handle.truncate((64 << 20) + 1)
        elif kind == "device":
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        else:
            target = {"link to a fifo": "fifo", "link to a folder": "folder", "dangling link": "nothing",
                      "link to a valid store": "valid.json", "link to a device": "null"}[kind]
            os.symlink(os.path.join(outside, target), path)

    regular = kind in ("empty", "oversized", "link to a valid store")
    return kind, apply, regular


def make_outside(case: str, valid_store: bytes) -> None:
    """The things links may point to, which no command may change."""
    outside = os.path.join(case, "outside")
    os.makedirs(os.path.join(outside, "folder"))
    os.mkfifo(os.path.join(outside, "fifo"))
    with open(os.path.join(outside, "valid.json"), "wb") as handle:
        handle.write(valid_store)
    if os.geteuid() == 0:
        os.mknod(os.path.join(outside, "null"), stat.S_IFCHR | 0o666, os.makedev(1, 3))


def make_fault(rng: random.Random, base: bytes, hostile: Callable[[random.Random], bytes]) -> Fault:
    """One fault of a random kind, applied to the valid store ``base``;
    ``hostile(rng)`` gives a valid store with hostile free text."""
    kind = rng.choices(["truncate", "bytes", "splice", "tree", "hostile", "special"], [2, 2, 2, 5, 1, 2])[0]
    if kind == "truncate":
        cut = rng.randrange(len(base))
        return Fault(kind, f"cut at byte {cut}", _write(base[:cut]), True)
    if kind == "bytes":
        data = bytearray(base)
        spots = sorted(rng.randrange(len(data)) for _ in range(rng.randint(1, 8)))
        for spot in spots:
            data[spot] = rng.choice([0, 0x1B, 0x22, 0x5C, 0x7B, 0x7D, 0xFF, rng.randrange(256)])
        return Fault(kind, f"bytes at {spots}", _write(bytes(data)), True)
    if kind == "splice":
        spot, junk = rng.randrange(len(base) + 1), rng.choice(SPLICES)
        return Fault(kind, f"{junk[:12]!r} at byte {spot}", _write(base[:spot] + junk + base[spot:]), True)
    if kind == "tree":
        data = json.loads(base)
        edits = [_edit_tree(data, rng) for _ in range(rng.randint(1, 3))]
        return Fault(kind, "; ".join(edits), _write(_serialize(data)), True)
    if kind == "hostile":
        return Fault(kind, "valid, hostile text", _write(hostile(rng)), True)
    name, apply, regular = _special(rng)
    return Fault(kind, name, apply, regular)
