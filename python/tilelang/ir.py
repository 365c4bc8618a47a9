"""Tile IR through the compiler library: parse, verify, transform, print.

``run_pipeline`` is the Python face of libtilelang's ``runPipeline``; the
``tilelang-ir`` command (``python -m tilelang.ir``) is a small tilelang-opt
that needs no LLVM on the machine, only this package.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import MutableMapping
from typing import List, Optional

from tilelang.errors import CompilationError, Diagnostic
from tilelang.native import extension as _native
from tilelang.options import DEFAULT_OPTIONS, check_launch_options

_SEVERITY_NAMES = {0: "error", 1: "warning", 2: "note", 3: "remark"}


def _convert(native_diag) -> Diagnostic:
    return Diagnostic(
        severity=_SEVERITY_NAMES.get(int(native_diag.severity), "error"),
        message=native_diag.message,
        file=native_diag.file,
        line=native_diag.line,
        column=native_diag.column,
    )


def compiler_version() -> str:
    """The compiler library's version string, e.g. ``0.1.0 (LLVM 22.1.8)``."""
    return _native().version()


def compiler_statistics() -> dict:
    """Counters of this process's compilations.

    ``compilations`` (calls started), ``recovered_crashes`` (calls whose
    crash or LLVM fatal error became an "internal compiler error") and
    ``peak_concurrent`` (the most calls in flight at once: calls from
    different threads compile in parallel).
    """
    return dict(_native().compiler_statistics())


def run_pipeline(
    source: str,
    pipeline: str = "",
    *,
    source_name: str = "<tile-ir>",
    generic: bool = False,
    locations: bool = False,
) -> str:
    """Parses and verifies tile IR text, runs a pass pipeline, returns the IR.

    ``pipeline`` is written as for tilelang-opt's ``--pass-pipeline`` body,
    e.g. ``"canonicalize,cse"``. Raises ``CompilationError`` with located
    diagnostics when the text does not parse or verify, when the pipeline is
    invalid, or when a pass fails.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    if not isinstance(pipeline, str):
        raise TypeError(f"pipeline must be str, not {type(pipeline).__name__}")
    result = _native().run_pipeline(source, pipeline, source_name, generic, locations)
    diagnostics = [_convert(d) for d in result.diagnostics]
    if not result.success:
        raise CompilationError(diagnostics, sources={source_name: source})
    return result.output


class CompiledIR:
    """A tile-IR kernel compiled to PTX.

    ``asm`` maps a stage name to its text: ``"tile"``, ``"tilegpu"``,
    ``"llvm"`` (LLVM dialect) and ``"llvm-ir"`` when the stages were kept,
    and always ``"ptx"``. ``tensor_maps`` lists the tensor descriptor
    arguments whose blocks the kernel copies in bulk (TMA), with how the
    launcher encodes their tensor maps: dicts with ``descriptor`` (0 for
    the first descriptor argument, ...), ``element`` ("f16" or "bf16"),
    ``box`` (rows, elements per row) and ``swizzle`` (bytes).
    """

    def __init__(self, native):
        self.name: str = native.kernel_name
        self.ptx: str = native.ptx
        self.shared_bytes: int = native.shared_bytes
        self.num_warps: int = native.num_warps
        self.arch: str = native.arch
        self.tensor_maps: list = list(native.tensor_maps)
        self.asm = {stage.name: stage.ir for stage in native.stages}
        self.asm["ptx"] = native.ptx

    @classmethod
    def from_parts(cls, name: str, ptx: str, shared_bytes: int, num_warps: int, arch: str, asm: dict,
                   tensor_maps=()):
        """A CompiledIR from stored parts (the on-disk cache). ``asm`` is
        kept as it is when it is a mutable mapping (stages that are read
        when first asked for stay unread)."""
        self = cls.__new__(cls)
        self.name, self.ptx, self.shared_bytes, self.num_warps, self.arch = name, ptx, shared_bytes, num_warps, arch
        self.tensor_maps = [dict(entry) for entry in tensor_maps]
        self.asm = asm if isinstance(asm, MutableMapping) else dict(asm)
        self.asm["ptx"] = ptx
        return self

    def __repr__(self) -> str:
        return (
            f"<CompiledIR {self.name} for {self.arch}: {self.num_warps} warps, "
            f"{self.shared_bytes} bytes of shared memory>"
        )


def compile_ir(
    source: str,
    *,
    arch: str = DEFAULT_OPTIONS.arch,
    num_warps: int = DEFAULT_OPTIONS.num_warps,
    num_stages: int = DEFAULT_OPTIONS.num_stages,
    source_name: str = "<tile-ir>",
    keep_stages: bool = False,
    maxnreg: Optional[int] = None,
) -> CompiledIR:
    """Compiles one tile-IR kernel to PTX; raises ``CompilationError``.
    ``maxnreg`` caps the registers a thread may use (PTX ``.maxnreg``, 16 to
    255, as Triton's option); None leaves them to ptxas and, for kernels
    without tensor-core products, to the runtime's occupancy search."""
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg)
    result = _native().compile(source, arch, num_warps, num_stages, source_name, keep_stages, maxnreg or 0)
    if not result.success:
        diagnostics = [_convert(d) for d in result.diagnostics]
        raise CompilationError(diagnostics, sources={source_name: source})
    return CompiledIR(result)


def verify(source: str, *, source_name: str = "<tile-ir>") -> None:
    """Raises ``CompilationError`` unless ``source`` parses and verifies."""
    run_pipeline(source, "", source_name=source_name)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tilelang-ir",
        description="Parse, verify and transform tile IR with the tilelang compiler library.",
    )
    parser.add_argument("input", help="an .mlir file, or - for standard input")
    parser.add_argument("-p", "--pipeline", default="", help='pass pipeline, e.g. "canonicalize,cse"')
    parser.add_argument("--generic", action="store_true", help="print the generic op form")
    parser.add_argument("--locations", action="store_true", help="print locations")
    parser.add_argument("--version", action="version", version=f"%(prog)s {compiler_version()}")
    args = parser.parse_args(argv)
    try:
        if args.input == "-":
            name, text = "<stdin>", sys.stdin.read()
        else:
            name = args.input
            with open(args.input, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        print(f"tilelang-ir: error: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
        return 2
    try:
        output = run_pipeline(
            text, args.pipeline, source_name=name, generic=args.generic, locations=args.locations
        )
    except CompilationError as exc:
        print(exc, file=sys.stderr)
        return 1
    sys.stdout.write(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
