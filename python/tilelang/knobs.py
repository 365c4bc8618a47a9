"""Environment knobs, read in one place.

Each knob is read when it is needed (not at import), so a test or a
long-running process can change it with ``os.environ``. The compile knobs
(``COMPILE_KNOBS``: TILELANG_DEBUG, TILELANG_L2_REUSE_HINTS,
TILELANG_OVERLAP_PRODUCTS, TILELANG_OCCUPANCY_SEARCH, TILELANG_WHOLE_PROGRAM)
are read when a kernel is compiled and linked: ``tilelang.ops`` drops what it keeps
of its launches when one changes (docs/ops.md, "The compile knobs"), while
a @jit function's ``kernel[grid](...)`` keeps launching the kernel it
found first for the same kinds of arguments.

A switch is on for 1, true, yes or on and off for 0, false, no or off (any
case); unset or empty leaves its default, and any other value leaves it
too, with a RuntimeWarning naming the variable. A malformed value of the
other knobs is an error that names it (TILELANG_AUTOTUNE_DEVICES: a
ValueError; TILELANG_PTXAS_TIMEOUT: the whole-program step does not run,
and its warning says why).

=========================  ==================================================
``TILELANG_CACHE_DIR``     the on-disk kernel cache (default
                           ``$XDG_CACHE_HOME/tilelang`` or
                           ``~/.cache/tilelang``)
``TILELANG_CACHE=0``       do not read or write the on-disk cache
``TILELANG_ALWAYS_COMPILE=1``  recompile every kernel and replace its cache
                           entry (the in-process cache still applies)
``TILELANG_DUMP_IR=DIR``   write every stage's IR of each kernel compiled to
                           PTX into ``DIR/<kernel>-<key>/`` (one that cannot
                           be written is warned of; the kernel still runs)
``TILELANG_OVERRIDE_IR=DIR``  link ``DIR/<kernel>-<key>/kernel.ptx``, where
                           present, instead of the PTX compiled for that
                           kernel (a folder as TILELANG_DUMP_IR writes it,
                           edited): neither read from nor stored in the
                           cache; a warning names each file used, and a
                           ``DIR`` that is not a directory
``TILELANG_DEBUG=1``       compile kernels with ``tl.device_assert`` enabled
``TILELANG_INTERPRET=1``   run ``kernel[grid](...)`` in the CPU interpreter
                           instead of on the GPU (read at each launch of a
                           kernel not yet launched on the GPU;
                           docs/interpreter.md)
``TILELANG_PRINT_AUTOTUNING=1``  print each autotuned kernel's best config
                           and its time (to stderr)
``TILELANG_AUTOTUNE_DEVICES=all``  time the configs of each autotuning
                           sweep in parallel on every device of the
                           arguments' device's model (or ``0,1``: those
                           devices); default: the arguments' device alone
                           (docs/autotune.md, "Several devices")
``TILELANG_OPS_AUTOTUNE=0``  tilelang.ops launches each kernel with its
                           space's default config instead of tuning it on
                           first use per shape bucket (docs/ops.md)
``TILELANG_OPS_NATIVE_AUTOGRAD=0``  tilelang.ops' eager backwards stay in
                           Python instead of running as tilelang._C_torch's
                           C++ autograd nodes (read once, when tilelang.ops
                           is imported; docs/ops.md, "The C++ backward")
``TILELANG_OCCUPANCY_SEARCH=0``  link each kernel once, for the blocks per
                           SM its PTX asks for, instead of searching for
                           the most that fit without spilling registers
                           (docs/runtime.md, "Occupancy search")
``TILELANG_WHOLE_PROGRAM=0``  do not run the occupancy search's
                           whole-program step. On by default: a kernel
                           that links nothing is compiled once more with
                           the ptxas binary (``$TILELANG_PTXAS``, else
                           ``$CUDA_HOME/bin``, ``$PATH``,
                           ``/usr/local/cuda/bin``) as a whole program
                           without its ``.minnctapersm``, and that cubin
                           kept where it keeps as many blocks per SM
                           (blocks of 8 warps, at most 3 resident;
                           docs/runtime.md, "Occupancy search"). Where no
                           ptxas is found the step is skipped quietly;
                           ``=1`` asks for it and warns where it cannot run.
                           A ptxas that is found but fails is warned of
                           either way; its refusal of a kernel is cached
                           (under the key naming it), a run it could not
                           finish is not
``TILELANG_PTXAS_TIMEOUT=S``  seconds a ptxas run of that step may take
                           before it is stopped and the linked cubin kept
                           (default 60; read by the C++ runtime; another
                           value than a whole number above 0 keeps the
                           step from running, its warning naming it)
``TILELANG_OVERLAP_PRODUCTS=1``  tilegpu-pipeline issues the first of a
                           loop's two dependent products one iteration
                           ahead (flash attention's next S = Q K^T during
                           the softmax; off by default until measured;
                           read by the compiler library at each compile and
                           part of each kernel's cache key; docs/lowering.md,
                           "The first product one iteration ahead")
``TILELANG_L2_REUSE_HINTS=0``  compile without the L2 priorities for data
                           a program reads again in a later loop (on by
                           default; read by the compiler library at each
                           compile and part of each kernel's cache key;
                           docs/lowering.md, "L2 priorities for data read
                           again")
``TILELANG_LIBCUDA=PATH``  the CUDA driver library instead of
                           ``libcuda.so.1`` (read by the C++ runtime when it
                           first opens the driver, not here)
``TILELANG_TORCH_BRIDGE=0``  read torch tensors and torch's stream through
                           Python on every launch instead of in C++ through
                           ``tilelang._C_torch`` (read once, when the
                           launcher first sees torch imported;
                           docs/runtime.md, "The launcher")
=========================  ==================================================
"""

from __future__ import annotations

import os
from typing import Optional


_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off")
_WARNED = set()  # (name, value) of the malformed values warned of


def _switch(name: str, default: bool) -> bool:
    """A knob that is on for 1, true, yes or on and off for 0, false, no or
    off (any case, spaces around); unset or empty: ``default``. Any other
    value reads as ``default`` too, with a warning naming the variable
    (once per value and process): ``TILELANG_CACHE=disable`` must not
    leave the cache on unseen."""
    value = os.environ.get(name)
    if value is None:
        return default
    text = value.strip().lower()
    if text in _ON:
        return True
    if text in _OFF:
        return False
    if text and (name, value) not in _WARNED:
        _WARNED.add((name, value))
        import warnings

        warnings.warn(f"tilelang: {name}={value!r} is not one of 1, true, yes, on, 0, false, no, off; "
                      f"read as {'on' if default else 'off'}, its default", RuntimeWarning, stacklevel=4)
    return default


def _flag(name: str) -> bool:
    """A knob that is off unless set to 1, true, yes or on."""
    return _switch(name, False)


def _on_unless_off(name: str) -> bool:
    """A knob that is on unless set to 0, false, no or off."""
    return _switch(name, True)


def cache_enabled() -> bool:
    return _on_unless_off("TILELANG_CACHE")


def cache_dir() -> Optional[str]:
    """``$TILELANG_CACHE_DIR``, or None for the library's default."""
    return os.environ.get("TILELANG_CACHE_DIR") or None


def always_compile() -> bool:
    return _flag("TILELANG_ALWAYS_COMPILE")


def dump_ir_dir() -> Optional[str]:
    return os.environ.get("TILELANG_DUMP_IR") or None


def override_ir_dir() -> Optional[str]:
    return os.environ.get("TILELANG_OVERRIDE_IR") or None


def debug() -> bool:
    return _flag("TILELANG_DEBUG")


def interpret() -> bool:
    return _flag("TILELANG_INTERPRET")


def print_autotuning() -> bool:
    return _flag("TILELANG_PRINT_AUTOTUNING")


def occupancy_search() -> bool:
    return _on_unless_off("TILELANG_OCCUPANCY_SEARCH")


def whole_program() -> bool:
    """Whether the whole-program step may run (unless set to 0)."""
    return _on_unless_off("TILELANG_WHOLE_PROGRAM")


def whole_program_requested() -> bool:
    """Whether TILELANG_WHOLE_PROGRAM asks for the step explicitly (set to
    1): then a missing ptxas is warned of, not skipped quietly. A malformed
    value is whole_program's to warn of (it reads as on, not asked for)."""
    return os.environ.get("TILELANG_WHOLE_PROGRAM", "").strip().lower() in _ON


def autotune_devices() -> Optional[str]:
    """``$TILELANG_AUTOTUNE_DEVICES`` ("all" or ordinals), or None."""
    return os.environ.get("TILELANG_AUTOTUNE_DEVICES") or None


def ops_autotune() -> bool:
    return _on_unless_off("TILELANG_OPS_AUTOTUNE")


def ops_native_autograd() -> bool:
    return _on_unless_off("TILELANG_OPS_NATIVE_AUTOGRAD")


def l2_reuse_hints() -> Optional[bool]:
    """TILELANG_L2_REUSE_HINTS as set (a malformed value as on, the
    default, with the switches' warning), or None where unset or empty. The
    C++ compiler reads the variable itself (lib/Compiler/Compiler.cpp, the
    same values, its pipeline's default where unset); this is what
    cache.kernel_key keys on."""
    if not os.environ.get("TILELANG_L2_REUSE_HINTS", "").strip():
        return None
    return _switch("TILELANG_L2_REUSE_HINTS", True)


def overlap_products() -> bool:
    """TILELANG_OVERLAP_PRODUCTS: the compiler library reads the variable
    itself (lib/Compiler/Compiler.cpp, the same values); this is what
    cache.kernel_key keys on."""
    return _flag("TILELANG_OVERLAP_PRODUCTS")


def torch_bridge() -> bool:
    """Read by the launcher (python/src/TorchLink.cpp) when it first sees
    torch imported."""
    return _on_unless_off("TILELANG_TORCH_BRIDGE")


#: The knobs that change the code a launch runs for the same arguments:
#: the compiled kernel (TILELANG_DEBUG, TILELANG_L2_REUSE_HINTS,
#: TILELANG_OVERLAP_PRODUCTS) or its link (LINK_KNOBS). What a
#: process keeps of its launches (a @jit function's compiled kernels;
#: tilelang.ops' launch tables, its kernels' dispatchers and C++ plans)
#: holds for the values it was made under (compile_state, link_state).
LINK_KNOBS = ("TILELANG_OCCUPANCY_SEARCH", "TILELANG_WHOLE_PROGRAM")
COMPILE_KNOBS = ("TILELANG_DEBUG", "TILELANG_L2_REUSE_HINTS", "TILELANG_OVERLAP_PRODUCTS") + LINK_KNOBS
# compile_state reads them one by one (a knob added above must be read
# there too: this unpacking fails until it is).
_DEBUG_RAW, _L2_RAW, _OVERLAP_RAW, _SEARCH_RAW, _WHOLE_PROGRAM_RAW = (os.fsencode(name) for name in COMPILE_KNOBS)


def link_state() -> tuple:
    """The values of LINK_KNOBS as set (None where unset)."""
    return tuple(map(os.environ.get, LINK_KNOBS))


def compile_state() -> tuple:
    """The values of COMPILE_KNOBS as set (None where unset): equal states
    compile and link equal code (unequal ones may too: "1" and "yes").
    Read on every eager call of tilelang.ops, so from os.environ's own
    mapping where it has one (POSIX: bytes, no decoding; tens of
    nanoseconds a knob, os.environ.get about ten times that)."""
    raw = getattr(os.environ, "_data", None)
    if type(raw) is not dict or os.name != "posix":
        return tuple(map(os.environ.get, COMPILE_KNOBS))
    return (raw.get(_DEBUG_RAW), raw.get(_L2_RAW), raw.get(_OVERLAP_RAW), raw.get(_SEARCH_RAW),
            raw.get(_WHOLE_PROGRAM_RAW))
