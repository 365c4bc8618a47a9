"""Every kernel of the compatibility corpus compiles to PTX: with tilelang
for sm_90a and sm_80 (and ptxas assembles the sm_90a PTX, where the CUDA
toolkit is installed), and with Triton for sm_90 where Triton is installed (the same
source; skipped without it). The GPU run is
test/python/gpu/test_compat_corpus.py."""

import os
import shutil
import subprocess

import pytest

import tilelang
from compat import corpus

ITEMS = [(name, *spec) for name in corpus.NAMES for spec in corpus.compile_specs(name)]
IDS = [f"{item[0]}.{item[1]}[{item[2]}]" for item in ITEMS]
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


def test_thirty_kernels_or_more():
    assert len(corpus.NAMES) >= 30 and len(set(corpus.NAMES)) == len(corpus.NAMES)
    for name in corpus.NAMES:
        mod = corpus.module(name)
        assert mod.__doc__ and mod.CASES and corpus.compile_specs(name)
        assert hasattr(mod, "TOLERANCE") or hasattr(mod, "check")


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
@pytest.mark.parametrize("name, kernel, signature, constexprs, options", ITEMS, ids=IDS)
def test_tilelang_compiles(name, kernel, signature, constexprs, options, arch, tmp_path):
    compiled = corpus.kernels(name, "tilelang")[kernel].compile(signature, constexprs=constexprs, **options)
    # A module may need a newer GPU (fp8 conversions: sm_89): on the others
    # the compiler refuses it with a located error naming what it needs.
    needs = getattr(corpus.module(name), "NEEDS_ARCH", None)
    if needs and arch == "sm_80":
        with pytest.raises(tilelang.CompilationError, match=f"{name}.py:.*need {needs}"):
            compiled.to_ptx(arch)
        return
    compiled.to_ptx(arch)
    assert f".entry {kernel}" in compiled.asm["ptx"]
    if arch == "sm_90a" and os.path.exists(PTXAS):  # one target: ptxas takes seconds per kernel
        path = tmp_path / f"{kernel}.ptx"
        path.write_text(compiled.asm["ptx"])
        result = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", os.devnull], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.parametrize("name, kernel, signature, constexprs, options", ITEMS, ids=IDS)
def test_triton_compiles(name, kernel, signature, constexprs, options):
    triton = pytest.importorskip("triton")
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = corpus.kernels(name, "triton")[kernel]
    runtime = iter(signature.split(","))
    types = {p: ("constexpr" if p in constexprs else next(runtime)) for p in fn.arg_names}
    assert next(runtime, None) is None, "the signature has more types than the kernel has run-time parameters"
    compiled = triton.compile(ASTSource(fn, types, constexprs), target=GPUTarget("cuda", 90, 32), options=options)
    assert f".entry {kernel}" in compiled.asm["ptx"]
