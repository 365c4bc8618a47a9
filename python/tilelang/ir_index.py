"""The tile-IR index: what the frontend made of a kernel specialization,
kept in the cache directory, so that a warm start in a new process skips
the frontend and the IR's verification (the larger part of a cached
kernel's first launch once the cache lookup reads only the cubin).

An index entry is keyed by everything the frontend's output depends on:

- the tilelang package's Python files (size and modification time of each:
  an edited frontend or language gives new keys) and the compiler
  library's version and build id;
- the kernel: for it and, transitively, every ``@jit`` function it names
  (globals, closure cells, constexpr arguments): its file, its source lines
  as ``linecache`` reads them, its annotations and defaults, and the value
  of each global or closure variable its code names: numbers, strings,
  ``tl.constexpr``s and dtypes by value, modules and functions of tilelang,
  Triton, ``math`` and the builtins by name;
- the specialization: signature, constexprs, divisibility, num_warps,
  num_stages, debug, maxnreg.

A kernel that names anything else (a module or object of the user's whose
contents the frontend may read) has no key: it always goes through the
frontend, as before. The entry holds the frontend's text, the verified
text, the kernel's name and its run-time parameters, in a DiskCache entry
(checksummed, owner-checked like the kernels') in the cache directory's
``ir-index`` folder, a cache of its own.
"""

from __future__ import annotations

import hashlib
import json
import linecache
import os
import types
from typing import Any, Dict, List, Optional

from tilelang import cache, knobs
from tilelang.frontend.function import KernelFunction
from tilelang.language import core as tlc

FORMAT = "tilelang-tile-ir-index-1"
INDEX_FILE = "index.json"
#: The index's folder in the cache directory: a DiskCache of its own, so
#: that the kernel entries' shards hold kernel entries only.
INDEX_FOLDER = "ir-index"
_KNOWN_MODULE_ROOTS = ("tilelang", "triton", "math", "builtins")

_package_identity: List[str] = []


def package_identity() -> str:
    """The tilelang package's Python files (size and mtime) and the
    compiler's identity, once per process."""
    if not _package_identity:
        from tilelang import _C

        root = os.path.dirname(os.path.abspath(__file__))
        parts = [FORMAT, _C.version(), _C.build_id()]
        files = []
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            files += [os.path.join(folder, name) for name in names if name.endswith(".py")]
        for path in sorted(files):
            stat = os.stat(path)
            parts.append(f"{path[len(root):]}:{stat.st_size}:{stat.st_mtime_ns}")
        _package_identity.append(hashlib.sha256("\n".join(parts).encode()).hexdigest())
    return _package_identity[0]


class _Unknown(Exception):
    """The kernel names something whose contents cannot be fingerprinted."""


def _code_names(code: types.CodeType) -> set:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _last_line(code: types.CodeType) -> int:
    last = max((line for _, _, line in code.co_lines() if line), default=code.co_firstlineno)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            last = max(last, _last_line(const))
    return last


class _Fingerprint:
    def __init__(self):
        self.parts: List[str] = []
        self._seen: Dict[int, int] = {}

    def jit_function(self, jf) -> None:
        if id(jf) in self._seen:
            self.parts.append(f"seen {self._seen[id(jf)]}")
            return
        self._seen[id(jf)] = len(self._seen)
        fn = jf.fn
        code = fn.__code__
        linecache.checkcache(code.co_filename)  # an edited file is read again, as inspect does
        lines = linecache.getlines(code.co_filename, fn.__globals__)
        if not lines:
            raise _Unknown(f"no source for {code.co_filename}")
        self.parts += [f"function {code.co_filename}:{code.co_firstlineno}",
                       "".join(lines[code.co_firstlineno - 1:_last_line(code)]),
                       f"flags {jf.noinline!r} {jf.debug!r} {sorted(jf.do_not_specialize)!r}"]
        for name, annotation in sorted(fn.__annotations__.items()):
            self.parts.append(f"annotation {name}")
            self.value(annotation)
        self.parts.append("defaults")
        for value in (fn.__defaults__ or ()):
            self.value(value)
        for name, value in sorted((fn.__kwdefaults__ or {}).items()):
            self.parts.append(f"kwdefault {name}")
            self.value(value)
        builtins = fn.__globals__.get("__builtins__")
        for name in sorted(_code_names(code)):
            if name in fn.__globals__:
                self.parts.append(f"global {name}")
                self.value(fn.__globals__[name])
            elif not (isinstance(builtins, dict) and name in builtins or hasattr(builtins, name)):
                self.parts.append(f"unbound {name}")  # an attribute name, or defined later
        for name, cell in zip(code.co_freevars, fn.__closure__ or ()):
            self.parts.append(f"closure {name}")
            try:
                self.value(cell.cell_contents)
            except ValueError:  # an empty cell
                self.parts.append("empty")

    def value(self, value: Any) -> None:
        if isinstance(value, KernelFunction):
            self.parts.append("jit")
            self.jit_function(value)
        elif value is None or isinstance(value, (bool, int, float, str, bytes)):
            self.parts.append(f"{type(value).__name__} {value!r}")
        elif isinstance(value, tlc.constexpr):
            self.parts.append("constexpr")
            self.value(value.value)
        elif isinstance(value, (tlc.dtype, tlc.tensor_descriptor_type)):
            self.parts.append(f"dtype {value!r}")
        elif isinstance(value, types.ModuleType):
            if value.__name__.split(".")[0] not in _KNOWN_MODULE_ROOTS:
                raise _Unknown(f"the module {value.__name__}")
            self.parts.append(f"module {value.__name__}")
        elif isinstance(value, (tuple, list)):
            self.parts.append(f"{type(value).__name__} {len(value)}")
            for item in value:
                self.value(item)
        elif isinstance(value, type) or callable(value):
            module = getattr(value, "__module__", None) or ""
            if module.split(".")[0] not in _KNOWN_MODULE_ROOTS:
                raise _Unknown(f"{value!r}")
            self.parts.append(f"object {module}.{getattr(value, '__qualname__', repr(value))}")
        else:
            raise _Unknown(f"a {type(value).__name__}")


def key(jf, sig_text: Dict[str, str], constexprs: Dict[str, Any], specialization: Dict[str, int],
        num_warps: int, num_stages: int, debug: bool, maxnreg: Optional[int]) -> Optional[str]:
    """The index key of this specialization of ``jf``, or None when it has
    none (see the module's docstring) or the cache is off."""
    if cache.directory() is None or knobs.always_compile():
        return None
    fingerprint = _Fingerprint()
    try:
        fingerprint.jit_function(jf)
        for name, value in sorted(constexprs.items()):
            fingerprint.parts.append(f"constexpr argument {name}")
            fingerprint.value(value)
    except _Unknown:
        return None
    except (OSError, TypeError, ValueError, AttributeError):  # AttributeError: no co_lines before 3.10
        return None
    fingerprint.parts += [json.dumps([sorted(sig_text.items()), sorted(specialization.items()), num_warps,
                                      num_stages, bool(debug), maxnreg])]
    return cache._native().DiskCache.hash_key([package_identity()] + fingerprint.parts)


def _index_directory() -> Optional[str]:
    root = cache.directory()
    return None if root is None else os.path.join(root, INDEX_FOLDER)


def load(index_key: str) -> Optional[Dict[str, Any]]:
    """The record stored under ``index_key``: {"name", "tile_src", "tile",
    "runtime"}, or None."""
    root = _index_directory()
    if root is None:
        return None
    state, files, _, _ = cache._native().DiskCache(root).lookup(index_key, [INDEX_FILE])
    if state != "hit" or INDEX_FILE not in files:
        return None
    try:
        record = json.loads(files[INDEX_FILE])
    except (ValueError, UnicodeDecodeError):
        return None
    if not (isinstance(record, dict) and record.get("format") == FORMAT
            and all(isinstance(record.get(k), str) for k in ("name", "tile_src", "tile"))
            and isinstance(record.get("runtime"), list) and all(isinstance(r, str) for r in record["runtime"])):
        return None
    return record


def store(index_key: str, name: str, tile_src: str, tile: str, runtime: List[str]) -> None:
    """Stores a record (see load) beside the kernel's cache entry: after its
    lookup, so never into a cache directory the cache refused. A cache that
    cannot be written is no error (the next process goes through the
    frontend)."""
    if cache.directory() is None or cache.directory() in cache._refused:
        return
    root = _index_directory()
    record = {"format": FORMAT, "name": name, "tile_src": tile_src, "tile": tile, "runtime": list(runtime)}
    try:
        cache._native().DiskCache(root).publish(index_key, {INDEX_FILE: json.dumps(record).encode()},
                                                json.dumps({"kind": "tile-ir-index"}), False)
    except Exception:  # noqa: BLE001 - the index is an optimization
        pass
