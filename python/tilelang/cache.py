"""The on-disk kernel cache, seen from Python.

libtilelang's ``DiskCache`` (include/tilelang/Runtime/Cache.h) does the
file work: content-hashed entries, published by an atomic directory rename,
with a SHA-256 of every file and of the fields in a ``metadata.json`` bound
to the entry's key; it follows no links, reads only the user's own regular
files, and refuses a directory others own or may write. This module decides
what goes into a key and an entry, and checks that an entry holds what a
launch uses (:func:`lookup`):

* key: the entry format, the compiler library's version and build ID (a
  hash of the library, so a rebuilt compiler never reuses), the verified tile
  IR, the target architecture, ``num_warps``, ``num_stages``, the CUDA
  driver's version (0 without a driver: PTX-only entries), and ``maxnreg``,
  a disabled occupancy search, and the ptxas of the search's whole-program
  step (its path, size and modification time) when they apply;
* entry: the IR of every stage (``tile.mlir``, ``tilegpu.mlir``,
  ``llvm.mlir``, ``llvm-ir.ll``), ``kernel.ptx``, ``kernel.cubin`` when a
  driver linked it, and fields: kernel name, shared memory, warps, arch.

``stats`` counts hits, misses, corrupt and untrusted entries (with the
reasons) and stores in this process. An entry that does not validate is
warned of once, removed and rebuilt; the kernel is compiled either way.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence

from tilelang import knobs
from tilelang.native import extension as _native

#: Bumped when the key's parts or the entry's files change meaning.
FORMAT = "tilelang-kernel-2"

#: Stage name in ``CompiledIR.asm`` -> file name in an entry.
STAGE_FILES = {"tile": "tile.mlir", "tilegpu": "tilegpu.mlir", "llvm": "llvm.mlir",
               "llvm-ir": "llvm-ir.ll", "ptx": "kernel.ptx"}
CUBIN_FILE = "kernel.cubin"
#: What a launch reads of an entry: the cubin and the PTX (the kernel's
#: entry, checked by _invalid). The other stages' IR (megabytes for a
#: tensor-core kernel) is read when first asked for (read_stages), so that
#: a warm start does not read and checksum it.
LAUNCH_FILES = (STAGE_FILES["ptx"], CUBIN_FILE)


@dataclass
class Stats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    stores: int = 0
    corrupt_reasons: list = field(default_factory=list)
    #: Entries, or the cache directory, owned by another user or writable
    #: by others: not used.
    untrusted: int = 0
    untrusted_reasons: list = field(default_factory=list)


stats = Stats()


@dataclass
class Entry:
    """One cache entry: its key, files (bytes by file name) and fields."""

    key: str
    files: Dict[str, bytes]
    fields: dict

    def stage_texts(self) -> Dict[str, str]:
        return {stage: self.files[name].decode() for stage, name in STAGE_FILES.items() if name in self.files}


_driver_version = []


def driver_version() -> int:
    """The CUDA driver's version (0 without one), read once per process."""
    if not _driver_version:
        _driver_version.append(int(_native().driver_version()))
    return _driver_version[0]


# The setting -> the absolute directory it named when first used.
_resolved: Dict[str, str] = {}


def directory() -> Optional[str]:
    """The cache directory in use (absolute), or None when the cache is off.
    A relative setting is resolved once, at its first use: a later
    ``os.chdir`` does not move the cache."""
    if not knobs.cache_enabled():
        return None
    setting = knobs.cache_dir() or _native().DiskCache.default_directory()
    if setting not in _resolved:
        _resolved[setting] = os.path.abspath(setting)
    return _resolved[setting]


_warned = set()


def _warn_once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, RuntimeWarning, stacklevel=4)


# Cache directories whose last lookup was refused (not the user's, or
# writable by others): nothing is stored there either.
_refused = set()


# whole_program_ptxas's answers by the settings it reads: a process asks for
# every key it looks up.
_ptxas_found: Dict[tuple, Optional[tuple]] = {}


def whole_program_ptxas() -> Optional[tuple]:
    """(path, "size:mtime_ns") of the ptxas the occupancy search's
    whole-program step runs (``_C.find_ptxas``'s search), or None where the
    step is off (TILELANG_WHOLE_PROGRAM=0, or the occupancy search it ends
    is) or no ptxas is found."""
    if not (knobs.whole_program() and knobs.occupancy_search()):
        return None
    settings = tuple(map(os.environ.get, ("TILELANG_PTXAS", "CUDA_HOME", "PATH")))
    if settings not in _ptxas_found:
        path = _native().find_ptxas()
        found = None
        if path:
            try:
                status = os.stat(path)
                found = (path, f"{status.st_size}:{status.st_mtime_ns}")
            except OSError:
                # Only $TILELANG_PTXAS is returned unchecked: a path the user
                # gave, whose failure the step reports.
                found = (path, "missing")
        _ptxas_found[settings] = found
    return _ptxas_found[settings]


def kernel_key(tile_ir: str, arch: str, num_warps: int, num_stages: int, maxnreg: Optional[int] = None) -> str:
    from tilelang.ir import compiler_version

    parts = [FORMAT, compiler_version(), _native().build_id(), tile_ir, arch, str(num_warps), str(num_stages), str(driver_version())]
    if maxnreg:
        parts.append(f"maxnreg={maxnreg}")
    l2_hints = knobs.l2_reuse_hints()
    if l2_hints is not None:
        # The compiler reads it: other PTX for the same tile IR (see knobs).
        parts.append(f"l2-reuse-hints={int(l2_hints)}")
    if knobs.overlap_products():
        # The compiler reads it too: other PTX for the same tile IR.
        parts.append("overlap-products=1")
    if not knobs.occupancy_search():
        # Another cubin for the same PTX (see knobs): kept apart.
        parts.append("occupancy-search=0")
    elif driver_version():
        ptxas = whole_program_ptxas()
        if ptxas:
            # The whole-program step may give another cubin, which another
            # ptxas may compile differently (see knobs).
            parts.append(f"whole-program={ptxas[0]}:{ptxas[1]}")
    return _native().DiskCache.hash_key(parts)


def lookup(key: str, expect: Optional[dict] = None, only: Optional[Sequence[str]] = None) -> Optional[Entry]:
    """The entry under ``key``, or None (missing, disabled, forced
    recompilation, or unusable). An entry that is corrupt, incomplete or
    not the user's alone is counted in ``stats``, warned of once and
    removed, so that the caller's store rebuilds it; a cache directory that
    is not the user's alone is warned of and neither read nor written.

    ``expect`` holds what the caller knows the entry must say: ``arch``,
    ``num_warps``, ``num_stages``, and ``descriptor_ranks`` (the block rank
    of each tensor descriptor argument); an entry that says otherwise is
    corrupt. ``only`` names the files to read (e.g. LAUNCH_FILES); the
    others are neither read nor checked, and are absent from the entry."""
    root = directory()
    if root is None:
        return None
    if knobs.always_compile():
        stats.misses += 1
        return None
    disk = _native().DiskCache(root)
    state, files, fields, reason = disk.lookup(key, None if only is None else list(only))
    if state == "refused":
        _refused.add(root)
    else:
        _refused.discard(root)
    if state == "hit":
        try:
            entry = Entry(key, dict(files), json.loads(fields) if fields else {})
            reason = _invalid(entry, expect or {})
        except (ValueError, TypeError, RecursionError) as exc:
            reason = f"the fields do not parse: {exc}"
        if reason is None:
            stats.hits += 1
            return entry
        disk.discard(key)
        state = "corrupt"
    if state in ("corrupt", "untrusted"):
        if state == "corrupt":
            stats.corrupt += 1
            stats.corrupt_reasons.append(reason)
        else:
            stats.untrusted += 1
            stats.untrusted_reasons.append(reason)
        _warn_once(f"tilelang: the cache entry {key[:16]}... in {root} was {state} ({reason}); "
                   f"it has been removed and the kernel is recompiled")
    elif state == "refused":
        stats.untrusted += 1
        stats.untrusted_reasons.append(reason)
        _warn_once(f"tilelang: the kernel cache is not used: {reason}; kernels are compiled and not cached "
                   f"(make the directory the user's alone, or set TILELANG_CACHE_DIR to another one)")
    stats.misses += 1
    return None


def read_stages(key: str) -> Optional[Dict[str, str]]:
    """The IR of each stage stored in entry ``key`` (tile, tilegpu, llvm,
    llvm-ir, ptx), read and checked now; None when the entry is gone or
    no longer validates (it is then removed, and the caller compiles the
    text again). Not counted as a lookup in ``stats``."""
    root = directory()
    if root is None:
        return None
    state, files, _, _ = _native().DiskCache(root).lookup(key, list(STAGE_FILES.values()))
    if state != "hit":
        return None
    try:
        return {stage: files[name].decode() for stage, name in STAGE_FILES.items() if name in files}
    except UnicodeDecodeError:
        return None


_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
#: The kernel entries of a PTX text (one pattern for every name: compiling
#: one per kernel cost a warm start a millisecond).
_ENTRY = re.compile(rb"\.entry\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*\(")
#: Shared memory a block may have: more than any GPU gives one.
MAX_SHARED_BYTES = 1 << 20


def _is_int(value, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _invalid(entry: Entry, expect: dict) -> Optional[str]:
    """What makes ``entry`` unusable for a launch, or None: everything that
    ``jit`` reads from it must be there, with the type and range it needs
    (checksums only say the entry is as written, not that it is whole)."""
    files, fields = entry.files, entry.fields
    ptx = files.get(STAGE_FILES["ptx"])
    if not ptx:
        return f"'{STAGE_FILES['ptx']}' is missing"
    for name in STAGE_FILES.values():
        if name in files:
            try:
                files[name].decode()
            except UnicodeDecodeError:
                return f"'{name}' is not UTF-8 text"
    if CUBIN_FILE in files and not files[CUBIN_FILE]:
        return f"'{CUBIN_FILE}' is empty"
    name = fields.get("name")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        return "the kernel name is missing or malformed"
    if name.encode() not in _ENTRY.findall(ptx):
        return f"the PTX has no kernel '{name}'"
    if not _is_int(fields.get("shared_bytes"), 0, MAX_SHARED_BYTES):
        return f"shared_bytes is {fields.get('shared_bytes')!r}"
    if not _is_int(fields.get("num_warps"), 1, 32):
        return f"num_warps is {fields.get('num_warps')!r}"
    for field_name in ("arch", "num_warps", "num_stages"):
        if field_name in expect and fields.get(field_name) != expect[field_name]:
            return f"{field_name} is {fields.get(field_name)!r}, the key is for {expect[field_name]!r}"
    if ("links" in fields) != ("min_blocks_per_sm" in fields) or (
            "links" in fields and not (_is_int(fields["links"], 1, 64)
                                       and _is_int(fields["min_blocks_per_sm"], 0, 64))):
        return "the link information is malformed"
    if "whole_program" in fields and not ("links" in fields and _is_int(fields["whole_program"], 0, 1)):
        return "the link information is malformed"
    problem = _invalid_tensor_maps(fields.get("tensor_maps"), expect.get("descriptor_ranks"))
    if problem:
        return problem
    return None


def _invalid_tensor_maps(maps, ranks: Optional[List[int]]) -> Optional[str]:
    """What is wrong with the tensor map encodings the launcher reads, or
    None (see ``CompiledIR.tensor_maps``)."""
    if not isinstance(maps, list):
        return "tensor_maps is missing or not a list"
    seen = set()
    for encoding in maps:
        if not isinstance(encoding, dict) or set(encoding) != {"descriptor", "element", "box", "swizzle"}:
            return f"a tensor map encoding is malformed: {encoding!r}"
        descriptor, box = encoding["descriptor"], encoding["box"]
        count = len(ranks) if ranks is not None else 64
        if not _is_int(descriptor, 0, count - 1) or descriptor in seen:
            return f"a tensor map is for descriptor {descriptor!r}"
        seen.add(descriptor)
        if (encoding["element"] not in ("f16", "bf16") or encoding["swizzle"] not in (0, 32, 64, 128)
                or not isinstance(box, list) or not 2 <= len(box) <= 5
                or not all(_is_int(extent, 1, 256) for extent in box)
                or (ranks is not None and len(box) != ranks[descriptor])):
            return f"a tensor map encoding is malformed: {encoding!r}"
    return None


def store(key: str, stages: Dict[str, str], cubin: Optional[bytes], fields: dict, replace: bool = False) -> None:
    """Publishes an entry (no-op when the cache is off). Failing to write the
    cache is a warning, never an error: the kernel is compiled either way."""
    root = directory()
    if root is None or root in _refused:
        return
    files = {STAGE_FILES[stage]: text.encode() for stage, text in stages.items() if stage in STAGE_FILES}
    if cubin is not None:
        files[CUBIN_FILE] = bytes(cubin)
    fields = dict(fields, created=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    try:
        _native().DiskCache(root).publish(key, files, json.dumps(fields), replace or knobs.always_compile())
        stats.stores += 1
    except RuntimeError as exc:
        warnings.warn(f"tilelang: could not write the kernel cache: {exc}", RuntimeWarning, stacklevel=3)


def ptx_override(key: str) -> Optional[str]:
    """The PTX text of ``$TILELANG_OVERRIDE_IR/<name>-<key>/kernel.ptx`` (the
    layout dump_ir writes) for the kernel of cache key ``key``, or None. Each
    file used is announced once on stderr: a kernel that runs edited PTX
    should never go unnoticed."""
    root = knobs.override_ir_dir()
    if not root:
        return None
    if not os.path.isdir(root):
        # A typo must not leave the compiled PTX running unannounced.
        _warn_once(f"tilelang: TILELANG_OVERRIDE_IR={root!r} is not a directory: no kernel's PTX is overridden")
        return None
    matches = sorted(glob.glob(os.path.join(glob.escape(root), f"*-{key[:12]}", STAGE_FILES["ptx"])))
    if not matches:
        return None
    if matches[0] not in _ANNOUNCED_OVERRIDES:
        _ANNOUNCED_OVERRIDES.add(matches[0])
        print(f"tilelang: TILELANG_OVERRIDE_IR: linking {matches[0]} instead of the compiled PTX",
              file=sys.stderr)
    with open(matches[0], encoding="utf-8") as handle:
        return handle.read()


_ANNOUNCED_OVERRIDES: set = set()


def dump_ir(name: str, key: str, stages: Dict[str, str]) -> None:
    """Writes every stage to ``$TILELANG_DUMP_IR/<name>-<key>/`` when set."""
    root = knobs.dump_ir_dir()
    if not root:
        return
    folder = os.path.join(root, f"{name}-{key[:12]}")
    try:
        os.makedirs(folder, exist_ok=True)
        for stage, text in stages.items():
            if stage in STAGE_FILES:
                with open(os.path.join(folder, STAGE_FILES[stage]), "w", encoding="utf-8") as handle:
                    handle.write(text)
    except OSError as exc:
        # The kernel compiled: its launch goes on, without the dump.
        _warn_once(f"tilelang: TILELANG_DUMP_IR: cannot write {folder}: {exc.strerror or exc}")
