"""``CompiledKernel``: one specialization of a ``@tilelang.jit`` kernel.

``JITFunction.compile`` (tilelang/jit.py) runs the frontend and gives a
``CompiledKernel`` holding the tile IR; from there this module takes it
to a loaded kernel for one architecture: the on-disk cache's key and
lookup (tilelang/cache.py), libtilelang's compile to PTX
(``tilelang.ir.compile_ir``), the driver's link to a cubin
(``tilelang._C.link_kernel``), the store into the cache, and loading the
cubin into the device's context (``tilelang._C.Kernel``). ``asm`` holds
the IR of every stage, the later ones computed when first read.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import MutableMapping
from typing import Any, Dict, Optional

from tilelang import cache, ir_index, knobs
from tilelang.ir import CompiledIR, compile_ir
from tilelang.language import core as tlc
from tilelang.native import extension
from tilelang.options import DEFAULT_OPTIONS

__all__ = ["CompiledKernel", "StageIR"]


class StageIR(MutableMapping):
    """``CompiledKernel.asm``: stage name -> IR text, where some stages are
    computed the first time they are read (they are listed either way)."""

    def __init__(self, texts: Dict[str, str], lazy: Dict[str, Any]):
        self._texts = dict(texts)
        self._lazy = dict(lazy)

    def __getitem__(self, stage: str) -> str:
        if stage not in self._texts and stage in self._lazy:
            self._texts[stage] = self._lazy.pop(stage)()
        return self._texts[stage]

    def __setitem__(self, stage: str, text: str) -> None:
        self._lazy.pop(stage, None)
        self._texts[stage] = text

    def __delitem__(self, stage: str) -> None:
        if stage in self._lazy:
            del self._lazy[stage]
        else:
            del self._texts[stage]

    def __contains__(self, stage) -> bool:
        # Without computing anything (Mapping's default would).
        return stage in self._texts or stage in self._lazy

    def share(self, stage: str, source) -> None:
        """``stage``'s text from the mapping ``source``: copied if it is
        there already, otherwise read from ``source`` when first asked for
        (so that a lazy stage stays unread)."""
        if isinstance(source, StageIR) and stage not in source._texts:
            self._texts.pop(stage, None)
            self._lazy[stage] = lambda: source[stage]
        else:
            self[stage] = source[stage]

    def __iter__(self):
        return iter(list(self._texts) + [stage for stage in self._lazy if stage not in self._texts])

    def __len__(self) -> int:
        return len(set(self._texts) | set(self._lazy))

    def __repr__(self) -> str:
        return f"StageIR({list(self)})"


class CompiledKernel:
    """One specialization of a kernel.

    ``asm["tile-src"]`` is the frontend's text (with ``loc()`` on every op),
    ``asm["tile"]`` the verified tile IR, ``asm["tile-opt"]`` the same after
    ``canonicalize,cse``; ``to_ptx(arch)`` (or the first launch) adds
    ``"tilegpu"``, ``"llvm"``, ``"llvm-ir"`` and ``"ptx"``. ``arg_names`` lists the parameters a launch passes,
    in order (constexprs and parameters specialized to 1 are not passed).
    ``n_regs`` and ``n_spills`` (as Triton's) read the loaded kernel's
    registers and local-memory bytes.
    ``link_info[arch]``, once a cubin exists, says how it was linked:
    ``{"min_blocks_per_sm": 4, "links": 4}``, with ``"whole_program": 1``
    (or 0) where the search's whole-program step ran (docs/runtime.md,
    "Occupancy search").
    """

    def __init__(self, name, signature, constexprs, specialization, num_warps, num_stages,
                 asm, arg_names, frontend_seconds, maxnreg=None):
        self.name: str = name
        self.signature: Dict[str, str] = signature
        self.constexprs: Dict[str, Any] = constexprs
        self.specialization: Dict[str, int] = specialization
        self.num_warps: int = num_warps
        self.num_stages: int = num_stages
        # Registers a thread may use at most (PTX .maxnreg), or None.
        self.maxnreg: Optional[int] = maxnreg
        self.asm: Dict[str, str] = asm
        if isinstance(asm, StageIR):
            # Triton's asm has "ptx" and "cubin" (bytes) once a kernel is
            # compiled; here they are made when first read, for the current
            # GPU (PTX for sm_90a without one; a cubin needs the driver).
            if "ptx" not in asm:
                asm._lazy["ptx"] = lambda: self._build(_arch_or_default(), need_cubin=False)[0].ptx
            if "cubin" not in asm:
                asm._lazy["cubin"] = lambda: self._build(_current_arch(), need_cubin=True)[1]
        self.arg_names = arg_names
        self.frontend_seconds: float = frontend_seconds
        # Per arch: how the cubin was linked ("min_blocks_per_sm": the
        # .minnctapersm it was compiled for, "links": compilations,
        # "whole_program": whether ptxas's whole-program compile was kept).
        self.link_info: Dict[str, Dict[str, int]] = {}
        # Per arch: the compiled PTX, its cubin, and the loaded kernel.
        self._ptx: Dict[str, Any] = {}
        self._cubin: Dict[str, bytes] = {}
        self._loaded: Dict[str, Any] = {}
        # The parameters the kernel may write through (see _may_write).
        self._written: Optional[frozenset] = None
        # Per arch: stage texts read from a cache entry when first asked for.
        self._stage_texts: Dict[str, Dict[str, str]] = {}
        # The tile-IR index key whose record is still to be written (see
        # JITFunction.compile), or None.
        self._index_key: Optional[str] = None

    def __repr__(self) -> str:
        sig = ", ".join(f"{k}: {v}" for k, v in self.signature.items())
        return f"<CompiledKernel {self.name}({sig}) constexprs={self.constexprs}>"

    def to_ptx(self, arch: str = "sm_90a"):
        """Compiles the tile IR to PTX for ``arch`` (no GPU needed) and adds
        every later stage to ``asm``: "tilegpu", "llvm", "llvm-ir", "ptx".
        Returns the ``tilelang.CompiledIR``; raises ``CompilationError``.
        Goes through the on-disk cache (see tilelang.cache)."""
        return self._build(arch, need_cubin=False)[0]

    def _build(self, arch: str, need_cubin: bool):
        """(CompiledIR, cubin or None) for ``arch``: from memory, from the
        on-disk cache, or compiled (and linked, with ``need_cubin``) and
        then stored there. The steps: ``_cache_key`` (the policy: which
        entry, and whether an override replaces it), ``_from_cache``,
        ``_compile_ptx``, ``_link`` and ``_store``."""
        compiled, cubin = self._ptx.get(arch), self._cubin.get(arch)
        if compiled is None or (need_cubin and cubin is None):
            key = self._cache_key(arch)
            # A PTX file put in place of this kernel's (TILELANG_OVERRIDE_IR)
            # is linked instead of the compiled one, never cached.
            override = cache.ptx_override(key)
            entry = None if override else self._from_cache(key, arch)
            if entry is not None:
                compiled, cubin = entry
            if entry is None or (need_cubin and cubin is None):
                if compiled is None:
                    compiled = self._compile_ptx(arch, override)
                link_info, cacheable = {}, True
                if need_cubin:
                    cubin, link_info, cacheable = self._link(compiled, arch)
                if not override:
                    # A cubin that is not the link's answer for the cache
                    # key stays out of it (the PTX goes in).
                    self._store(key, arch, compiled, cubin if cacheable else None,
                                link_info if cacheable else {}, replace=entry is not None)
            self._store_index_record()
            self._ptx[arch] = compiled
            if cubin is not None:
                self._cubin[arch] = cubin
        for stage in ("tilegpu", "llvm", "llvm-ir", "ptx"):
            if stage in compiled.asm:
                self.asm.share(stage, compiled.asm)
        return compiled, cubin

    def _cache_key(self, arch: str) -> str:
        """The on-disk cache's key of this kernel for ``arch``: its tile IR
        (location-free) and the options that change the code."""
        return cache.kernel_key(self.asm["tile"], arch, self.num_warps, self.num_stages, self.maxnreg)

    def _from_cache(self, key: str, arch: str):
        """(CompiledIR, cubin or None) from the cache entry ``key``, or None
        when there is none that validates for these options."""
        ranks = [len(tlc.dtype_from_string(text).block_shape) for text in self.signature.values()
                 if text.startswith("tensordesc<")]
        entry = cache.lookup(key, expect={"arch": arch, "num_warps": self.num_warps, "num_stages": self.num_stages,
                                          "descriptor_ranks": ranks}, only=cache.LAUNCH_FILES)
        if entry is None:
            return None
        fields = entry.fields
        # The stages before PTX are read from the entry when first asked
        # for: a warm launch needs only the cubin.
        stages = StageIR({}, {stage: functools.partial(self._cached_stage, key, arch, stage)
                              for stage in cache.STAGE_FILES if stage != "ptx"})
        compiled = CompiledIR.from_parts(fields["name"], entry.files[cache.STAGE_FILES["ptx"]].decode(),
                                         int(fields["shared_bytes"]), int(fields["num_warps"]), arch,
                                         stages, fields.get("tensor_maps", ()))
        if "links" in fields:
            self.link_info[arch] = {k: int(fields[k]) for k in ("min_blocks_per_sm", "links", "whole_program")
                                    if k in fields}
        return compiled, entry.files.get(cache.CUBIN_FILE)

    def _compile_ptx(self, arch: str, override: Optional[str]):
        """The CompiledIR of this kernel for ``arch`` from libtilelang, with
        the PTX of ``override`` (TILELANG_OVERRIDE_IR) in place of its own
        where one is given."""
        # From the located text, so that errors of the lowering (an
        # unsupported tl.dot, say) point at the Python line; the cache key
        # stays location-free.
        compiled = compile_ir(self.asm["tile-src"], arch=arch, num_warps=self.num_warps,
                              num_stages=self.num_stages, maxnreg=self.maxnreg,
                              source_name=f"<tile-ir of {self.name}>", keep_stages=True)
        if override:
            compiled = CompiledIR.from_parts(compiled.name, override, compiled.shared_bytes, compiled.num_warps,
                                             arch, dict(compiled.asm), compiled.tensor_maps)
        return compiled

    def _link(self, compiled, arch: str):
        """(cubin, link info, whether to cache the cubin) of ``compiled``'s
        PTX through the driver's JIT linker, with the occupancy search where
        the knob allows it, and its whole-program step where a ptxas is
        found (or TILELANG_WHOLE_PROGRAM=1 asks for it). A step that could
        not run is warned of where it was asked for or a ptxas was found
        (a ptxas that fails is a toolchain the user should hear of). The
        linked cubin is cached where the failure is that ptxas's answer
        (it refused the PTX; the driver does not load its cubin): the key
        names the ptxas, so the next process with it would fail the same
        way, and another ptxas has another key. Where the failure may pass
        (ptxas could not start or finish: the time limit), it is not: a
        later process would find it and never try the step again."""
        ptxas = cache.whole_program_ptxas()
        search = knobs.occupancy_search()
        # The ptxas the key names is the one that runs (not a second search).
        cubin, link_info = extension().link_kernel(compiled.ptx, compiled.name, search, compiled.shared_bytes,
                                                   whole_program=bool(ptxas) or (search and
                                                                                 knobs.whole_program_requested()),
                                                   ptxas=ptxas[0] if ptxas else "")
        link_info = dict(link_info)
        problem = link_info.pop("whole_program_problem", None)
        may_pass = link_info.pop("whole_program_may_pass", False)
        cache_it = not (problem and ptxas and may_pass)
        if problem:
            warnings.warn(f"tilelang: the whole-program step could not run for kernel '{compiled.name}' ({problem}); "
                          f"it runs as linked" + ("" if cache_it else ", and that cubin is not cached") +
                          " (TILELANG_WHOLE_PROGRAM=0 turns the step off)", RuntimeWarning, stacklevel=2)
        self.link_info[arch] = link_info
        return cubin, link_info, cache_it

    def _store(self, key: str, arch: str, compiled, cubin, link_info, replace: bool) -> None:
        """Writes the stages, the cubin (if any) and what a later lookup
        checks into the cache entry ``key``; dumps the IR where
        TILELANG_DUMP_IR asks for it."""
        fields = {"name": compiled.name, "shared_bytes": compiled.shared_bytes,
                  "num_warps": compiled.num_warps, "num_stages": self.num_stages, "arch": arch,
                  **({"maxnreg": self.maxnreg} if self.maxnreg else {}),
                  **link_info,
                  "tensor_maps": compiled.tensor_maps,
                  "signature": self.signature, "constexprs": {k: repr(v) for k, v in self.constexprs.items()}}
        cache.store(key, compiled.asm, cubin, fields, replace=replace)
        cache.dump_ir(compiled.name, key, compiled.asm)

    def _store_index_record(self) -> None:
        """Writes the tile-IR index record that JITFunction.compile left to
        write (into a cache directory that exists and is trusted by now)."""
        if self._index_key is not None:
            ir_index.store(self._index_key, self.name, self.asm["tile-src"], self.asm["tile"], self.arg_names)
            self._index_key = None

    def _cached_stage(self, key: str, arch: str, stage: str) -> str:
        """``stage``'s IR for ``arch`` from cache entry ``key``; compiled
        again if the entry has gone or no longer validates since the
        launch read it."""
        texts = self._stage_texts.get(arch)
        if texts is None or stage not in texts:
            texts = cache.read_stages(key)
            if texts is None or stage not in texts:
                texts = compile_ir(self.asm["tile-src"], arch=arch, num_warps=self.num_warps,
                                   num_stages=self.num_stages, maxnreg=self.maxnreg,
                                   source_name=f"<tile-ir of {self.name}>", keep_stages=True).asm
            self._stage_texts[arch] = texts
        return texts[stage]

    def _loaded_attribute(self, name: str):
        """`name` of the kernel loaded for the current GPU, or None before
        it is loaded (a first launch or ``launchable`` loads it)."""
        loaded = self._loaded.get(_current_arch()) if self._loaded else None
        return getattr(loaded, name) if loaded is not None else None

    @property
    def n_regs(self) -> Optional[int]:
        """Registers a thread uses, as the driver reports (Triton's
        ``n_regs``); None until the kernel is loaded on this GPU."""
        return self._loaded_attribute("registers")

    @property
    def n_spills(self) -> Optional[int]:
        """Local-memory bytes a thread uses (register spills and local
        arrays), as the driver reports (Triton's ``n_spills``); None until
        the kernel is loaded on this GPU."""
        return self._loaded_attribute("local_bytes")

    def _may_write(self) -> frozenset:
        """The parameters (of ``arg_names``) the kernel may write memory
        through, by the compiler's analysis (``findWrittenArguments``:
        sound, not precise); computed when first asked, for the launch of
        a read-only array."""
        if self._written is None:
            result = extension().find_written_arguments(self.asm["tile"], f"<tile-ir of {self.name}>")
            if not result.success or len(result.may_write) != len(self.arg_names):
                # Unreachable for IR the frontend made; every pointer then
                # counts as written.
                self._written = frozenset(self.arg_names)
            else:
                self._written = frozenset(name for name, written in zip(self.arg_names, result.may_write)
                                          if written)
        return self._written

    def launchable(self, arch: str):
        """The kernel compiled for ``arch`` and loaded into the current
        device's primary context (once per process); a launch whose tensors
        are on another device loads it there too (docs/runtime.md, "Several
        devices")."""
        loaded = self._loaded.get(arch)
        if loaded is not None:
            return loaded
        compiled, cubin = self._build(arch, need_cubin=True)
        kinds = "".join(_arg_kind(self.signature[name], name) for name in self.arg_names)
        loaded = extension().Kernel.load_image(cubin, compiled.name, compiled.shared_bytes, self.num_warps, kinds,
                                               compiled.tensor_maps, arg_names=list(self.arg_names))
        self._loaded[arch] = loaded
        return loaded


def _arg_kind(type_text: str, name: str) -> str:
    """How the launcher packs an argument of this signature type."""
    if type_text.startswith("*"):
        return "p"
    if type_text.startswith("tensordesc<"):
        return str(len(tlc.dtype_from_string(type_text).block_shape))
    kinds = {"i1": "b", "i8": "i", "i16": "i", "i32": "i", "u8": "I", "u16": "I", "u32": "I",
             "i64": "l", "u64": "L", "fp32": "f", "fp64": "d"}
    if type_text not in kinds:
        raise TypeError(f"cannot pass a scalar of type {type_text} for '{name}' to a kernel yet")
    return kinds[type_text]


_ARCH = []


def _current_arch() -> str:
    """sm_XX of the device (sm_90a on Hopper, for wgmma and TMA). Read once:
    a process drives GPUs of one architecture."""
    if not _ARCH:
        major, minor = extension().device_info()["capability"]
        arch = f"sm_{major}{minor}"
        _ARCH.append(arch + "a" if (major, minor) == (9, 0) else arch)
    return _ARCH[0]


def _arch_or_default() -> str:
    """The current GPU's sm_XX, or the default arch (sm_90a) where no GPU or
    driver is found."""
    try:
        return _current_arch()
    except Exception:  # noqa: BLE001 - no driver, no device: compile for the default
        return DEFAULT_OPTIONS.arch
