"""The disk cache fault injector's faults (test_cache_fuzz.py): ways a kernel
cache can be damaged, raced or made hostile, each drawn from a seeded random
generator so that a run is replayed from its seed.

A fault is applied to a case folder laid out as

    cache/<2 hex>/<key>/   a valid cache: the entry under test and others
    outside/               what links may point to: a file and a folder
                           whose contents must survive, and a FIFO

``apply(rng, case)`` damages the case and returns ``(description, scope)``:
scope ``"entry"`` when the damage is to the entry or beside it (it must be
used only if it is intact, else be removed and rebuilt), ``"shard"`` when
the folder holding it is replaced (the cache must not act through it; it
need not be rebuilt) and ``"root"`` when the cache directory itself is
replaced or made untrusted (the cache must not be used at all), and
``"linked"`` when the directory named is a link to a folder (the cache lives
in the folder, beside what it holds). Nothing outside the cache directory
may change, and in the linked folder nothing that was there before.

Kinds: bytes truncated or flipped in any file of the entry, files deleted,
added or replaced (by links out of the cache, to /dev/zero, dangling, by
FIFOs, folders, empty or oversized files), ``metadata.json`` edited as JSON
(fields dropped, retyped, added, nested past the recursion limit), another
entry's files copied in (an entry not bound to its key), permissions opened
to others or closed, owners changed (as root), the entry or the cache
directory replaced by a file or a link, stale staging directories of killed
writers.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import stat
from typing import List, Tuple

OUTSIDE_FILE = "victim.txt"
OUTSIDE_DIR = "victim-dir"
OUTSIDE_FIFO = "fifo"
VICTIM_TEXT = b"outside the cache: must survive\n"


def prepare_outside(outside: str) -> None:
    os.makedirs(os.path.join(outside, OUTSIDE_DIR), exist_ok=True)
    with open(os.path.join(outside, OUTSIDE_FILE), "wb") as handle:
        handle.write(VICTIM_TEXT)
    with open(os.path.join(outside, OUTSIDE_DIR, "kernel.ptx"), "wb") as handle:
        handle.write(VICTIM_TEXT)
    with open(os.path.join(outside, OUTSIDE_DIR, "metadata.json"), "wb") as handle:
        handle.write(VICTIM_TEXT)
    fifo = os.path.join(outside, OUTSIDE_FIFO)
    if not os.path.exists(fifo):
        os.mkfifo(fifo, 0o600)


def outside_snapshot(outside: str) -> dict:
    """What must not change: every name below ``outside`` with its bytes
    (or its kind, for special files) and mode."""
    seen = {}
    for folder, dirs, files in os.walk(outside):
        for name in dirs + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            body = None
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    body = handle.read()
            seen[os.path.relpath(path, outside)] = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode), body)
    return seen


def _entries(root: str) -> List[str]:
    return sorted(os.path.join(root, shard, key) for shard in os.listdir(root) if len(shard) == 2
                  for key in os.listdir(os.path.join(root, shard)))


def _replace(path: str, rng: random.Random, outside: str) -> str:
    """``path`` (a file or folder) replaced by something else; says what."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)
    choice = rng.randrange(8)
    if choice == 0:
        os.symlink(os.path.join(outside, OUTSIDE_FILE), path)
        return "a link to a file outside"
    if choice == 1:
        os.symlink(os.path.join(outside, OUTSIDE_DIR), path)
        return "a link to a folder outside"
    if choice == 2:
        os.symlink("/dev/zero", path)
        return "a link to /dev/zero"
    if choice == 3:
        os.symlink(os.path.join(outside, "missing"), path)
        return "a dangling link"
    if choice == 4:
        os.mkfifo(path, 0o600)
        return "a FIFO"
    if choice == 5:
        os.symlink(os.path.join(outside, OUTSIDE_FIFO), path)
        return "a link to a FIFO outside"
    if choice == 6:
        os.mkdir(path, 0o700)
        return "a folder"
    with open(path, "wb") as handle:
        handle.truncate(rng.choice([0, 1 << 30]))  # empty, or 1 GiB of holes
    return "an empty or oversized file"


def _edit_metadata(path: str, rng: random.Random) -> str:
    with open(path, "rb") as handle:
        try:
            data = json.loads(handle.read())
        except (ValueError, RecursionError):  # an earlier fault's
            data = None
    if not isinstance(data, dict):
        return "metadata.json not an object (left)"
    container = data
    inner = [v for v in data.values() if isinstance(v, dict)]
    if inner and rng.random() < 0.5:
        container = rng.choice(inner)
    keys = sorted(container) or ["x"]
    key = rng.choice(keys)
    op = rng.randrange(4)
    value = rng.choice([None, -1, 0, 2**32 - 1, 2**64, "x", [], {}, 1e308, True, "kernel"])
    if op == 0:
        container.pop(key, None)
        what = f"dropped {key!r}"
    elif op == 1:
        container[key] = value
        what = f"{key!r} set to {value!r}"
    elif op == 2:
        container[f"extra{rng.randrange(9)}"] = value
        what = "an extra field"
    else:
        container[key] = "__DEEP__"
        what = f"{key!r} nested 100,000 deep"
    text = json.dumps(data).replace('"__DEEP__"', "[" * 100_000 + "]" * 100_000)
    with open(path, "w") as handle:
        handle.write(text)
    return f"metadata.json edited: {what}"


def apply(rng: random.Random, root: str, outside: str, target: str) -> Tuple[str, str]:
    """Damages the cache at ``root`` (whose entry ``target`` is the one the
    test looks up); returns (description, scope)."""
    entries = _entries(root)
    files = sorted(os.listdir(target))
    kind = rng.randrange(14)
    if not files:  # an earlier fault emptied it
        kind = 3
    name = rng.choice(files or ["metadata.json"])
    path = os.path.join(target, name)
    metadata = os.path.join(target, "metadata.json")
    # A file an earlier fault replaced (a FIFO would block the injector) is
    # replaced again instead of edited.
    if kind in (0, 1) and not stat.S_ISREG(os.lstat(path).st_mode):
        kind = 4
    if kind == 5 and not (os.path.lexists(metadata) and stat.S_ISREG(os.lstat(metadata).st_mode)):
        kind = 4
    if kind == 0:
        size = os.path.getsize(path)
        with open(path, "r+b") as handle:
            handle.truncate(rng.randrange(size) if size else 0)
        return f"{name} truncated", "entry"
    if kind == 1:
        with open(path, "r+b") as handle:
            data = bytearray(handle.read())
            for _ in range(rng.randint(1, 4)):
                if data:
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            handle.seek(0)
            handle.write(data)
        return f"bits flipped in {name}", "entry"
    if kind == 2:
        os.unlink(path)
        return f"{name} deleted", "entry"
    if kind == 3:
        extra = rng.choice(["kernel.cubin", "extra.txt", "tile.mlir.bak", ".hidden"])
        if extra not in files:
            with open(os.path.join(target, extra), "wb") as handle:
                handle.write(os.urandom(rng.randrange(64)))
        return f"{extra} added", "entry"
    if kind == 4:
        return f"{name} replaced by {_replace(path, rng, outside)}", "entry"
    if kind == 5:
        return _edit_metadata(metadata, rng), "entry"
    if kind == 6:  # another kernel's entry under this key
        other = rng.choice([e for e in entries if e != target])
        for item in os.listdir(target):
            victim = os.path.join(target, item)
            if os.path.isdir(victim) and not os.path.islink(victim):
                shutil.rmtree(victim)
            else:
                os.unlink(victim)
        for item in os.listdir(other):
            shutil.copy2(os.path.join(other, item), os.path.join(target, item))
        return "another entry's files copied in", "entry"
    if kind == 7:  # writable by others, or unreadable
        mode = rng.choice([0o666, 0o622, 0o000, 0o400])
        if rng.random() < 0.5:
            os.chmod(path, mode)
            return f"{name} chmod {mode:o}", "entry"
        mode = rng.choice([0o777, 0o707, 0o500])
        os.chmod(target, mode)
        return f"the entry folder chmod {mode:o}", "entry"
    if kind == 8 and os.geteuid() == 0:
        uid = rng.choice([1, 65534, 12345])
        os.lchown(rng.choice([path, target]), uid, uid)
        return f"owner changed to {uid}", "entry"
    if kind == 9:
        return f"the entry replaced by {_replace(target, rng, outside)}", "entry"
    if kind == 10:  # a writer killed while staging (old enough to be swept)
        staging = os.path.join(os.path.dirname(target), f".tmp-{rng.getrandbits(64):016x}-{rng.randrange(10**6)}")
        os.mkdir(staging, 0o700)
        with open(os.path.join(staging, "kernel.ptx"), "wb") as handle:
            handle.write(b"half")
        if rng.random() < 0.3:  # with a link out: sweeping must not follow it
            os.symlink(os.path.join(outside, OUTSIDE_DIR), os.path.join(staging, "link"))
        age = rng.choice([0, 7200, 86400 * 30])
        os.utime(staging, (os.path.getatime(staging) - age, os.path.getmtime(staging) - age))
        shard = os.path.dirname(target)
        os.utime(shard, (os.path.getatime(shard), os.path.getmtime(shard)))
        return f"a staging folder {age} s old", "entry"
    if kind == 11:  # the shard folder
        shard = os.path.dirname(target)
        if rng.random() < 0.5:
            os.chmod(shard, 0o777)
            return "the shard folder chmod 777", "entry"
        return f"the shard folder replaced by {_replace(shard, rng, outside)}", "shard"
    if kind == 12:  # the cache directory itself
        if rng.random() < 0.5:
            os.chmod(root, rng.choice([0o777, 0o757, 0o770]))
            return "the cache directory writable by others", "root"
        shutil.rmtree(root)
        if rng.random() < 0.5:
            # The directory a user names may be a link (~/.cache on another
            # disk): the cache lives in its target, beside what is there.
            os.symlink(os.path.join(outside, OUTSIDE_DIR), root)
            return "the cache directory a link to a folder", "linked"
        with open(root, "wb") as handle:
            handle.write(VICTIM_TEXT)
        return "the cache directory a file", "root"
    # two at once
    descriptions, scope = [], "entry"
    for _ in range(2):
        # Only through real folders: the injector must not write outside either.
        if not all(os.path.isdir(p) and not os.path.islink(p) for p in (root, os.path.dirname(target), target)):
            break
        what, part = apply(rng, root, outside, target)
        descriptions.append(what)
        if part == "linked":  # the directory replaced: what was done to it is gone
            scope = part
            continue
        for kind in ("root", "shard", "entry"):
            if kind in (scope, part):
                scope = kind
                break
    return "; ".join(descriptions) or "nothing", scope


def unlock(case: str) -> None:
    """Makes every folder below ``case`` the user's and searchable again (no
    link followed), so that the case can be removed."""
    for folder, dirs, _ in os.walk(case):
        for name in dirs:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                if os.geteuid() == 0:
                    os.lchown(path, 0, 0)
                os.chmod(path, 0o700)
