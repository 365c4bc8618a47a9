"""The on-disk kernel cache, seen from Python.

libtilelang's ``DiskCache`` (include/tilelang/Runtime/Cache.h) does the
file work: content-hashed entries, published by an atomic directory rename,
with a SHA-256 of every file in ``metadata.json``. This module decides what
goes into a key and an entry:

* key: the entry format, the compiler library's version and build ID (a
  hash of the library, so a rebuilt compiler never reuses), the verified tile
  IR, the target architecture, ``num_warps``, ``num_stages``, the CUDA
  driver's version (0 without a driver: PTX-only entries), and ``maxnreg``
  and a disabled occupancy search when they apply;
* entry: the IR of every stage (``tile.mlir``, ``tilegpu.mlir``,
  ``llvm.mlir``, ``llvm-ir.ll``), ``kernel.ptx``, ``kernel.cubin`` when a
  driver linked it, and fields: kernel name, shared memory, warps, arch.

``stats`` counts hits, misses, corrupt entries and stores in this process.
"""

from __future__ import annotations

import json
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Dict, Optional

from tilelang import knobs

#: Bumped when the key's parts or the entry's files change meaning.
FORMAT = "tilelang-kernel-1"

#: Stage name in ``CompiledIR.asm`` -> file name in an entry.
STAGE_FILES = {"tile": "tile.mlir", "tilegpu": "tilegpu.mlir", "llvm": "llvm.mlir",
               "llvm-ir": "llvm-ir.ll", "ptx": "kernel.ptx"}
CUBIN_FILE = "kernel.cubin"


@dataclass
class Stats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    stores: int = 0
    corrupt_reasons: list = field(default_factory=list)


stats = Stats()


@dataclass
class Entry:
    """One cache entry: its key, files (bytes by file name) and fields."""

    key: str
    files: Dict[str, bytes]
    fields: dict

    def stage_texts(self) -> Dict[str, str]:
        return {stage: self.files[name].decode() for stage, name in STAGE_FILES.items() if name in self.files}


def _native():
    from tilelang import _C

    return _C


_driver_version = []


def driver_version() -> int:
    """The CUDA driver's version (0 without one), read once per process."""
    if not _driver_version:
        _driver_version.append(int(_native().driver_version()))
    return _driver_version[0]


def directory() -> Optional[str]:
    """The cache directory in use, or None when the cache is off."""
    if not knobs.cache_enabled():
        return None
    return knobs.cache_dir() or _native().DiskCache.default_directory()


def kernel_key(tile_ir: str, arch: str, num_warps: int, num_stages: int, maxnreg: Optional[int] = None) -> str:
    from tilelang.ir import compiler_version

    parts = [FORMAT, compiler_version(), _native().build_id(), tile_ir, arch, str(num_warps), str(num_stages), str(driver_version())]
    if maxnreg:
        parts.append(f"maxnreg={maxnreg}")
    if not knobs.occupancy_search():
        # Another cubin for the same PTX (see knobs): kept apart.
        parts.append("occupancy-search=0")
    return _native().DiskCache.hash_key(parts)


def lookup(key: str) -> Optional[Entry]:
    """The entry under ``key``, or None (missing, disabled, forced
    recompilation, or corrupt: a corrupt entry is removed and warned of)."""
    root = directory()
    if root is None:
        return None
    if knobs.always_compile():
        stats.misses += 1
        return None
    state, files, fields, reason = _native().DiskCache(root).lookup(key)
    if state == "hit":
        stats.hits += 1
        return Entry(key, dict(files), json.loads(fields) if fields else {})
    if state == "corrupt":
        stats.corrupt += 1
        stats.corrupt_reasons.append(reason)
        warnings.warn(f"tilelang: the cache entry {key[:16]}... in {root} was corrupt ({reason}); "
                      f"it has been removed and the kernel is recompiled", RuntimeWarning, stacklevel=3)
    stats.misses += 1
    return None


def store(key: str, stages: Dict[str, str], cubin: Optional[bytes], fields: dict, replace: bool = False) -> None:
    """Publishes an entry (no-op when the cache is off). Failing to write the
    cache is a warning, never an error: the kernel is compiled either way."""
    root = directory()
    if root is None:
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


def dump_ir(name: str, key: str, stages: Dict[str, str]) -> None:
    """Writes every stage to ``$TILELANG_DUMP_IR/<name>-<key>/`` when set."""
    root = knobs.dump_ir_dir()
    if not root:
        return
    folder = os.path.join(root, f"{name}-{key[:12]}")
    os.makedirs(folder, exist_ok=True)
    for stage, text in stages.items():
        if stage in STAGE_FILES:
            with open(os.path.join(folder, STAGE_FILES[stage]), "w", encoding="utf-8") as handle:
                handle.write(text)
