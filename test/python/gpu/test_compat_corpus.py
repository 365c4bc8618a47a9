"""The compatibility corpus on the GPU (issue 21, acceptance 1): every
kernel of test/python/compat, written once for both compilers, runs under
tilelang and under Triton in the same run, each checked against its
float64 reference on fresh random inputs (sizes no block divides
included). The Triton half is skipped only where Triton is not
installed; TILELANG_COMPAT_COMPILERS=tilelang (or =triton) runs one half.
A failure names the compiler, kernel, case and the seed of its inputs."""

import os
import random

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from compat import corpus  # noqa: E402

COMPILERS = [c for c in os.environ.get("TILELANG_COMPAT_COMPILERS", ",".join(corpus.COMPILERS)).split(",") if c]
CASES = [(name, case) for name in corpus.NAMES for case in corpus.module(name).CASES]


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("name, case", CASES, ids=[f"{n}-{c['name']}" for n, c in CASES])
def test_corpus_kernel(compiler, name, case):
    if compiler == "triton":
        pytest.importorskip("triton")
    mod = corpus.module(name)
    kernels = corpus.kernels(name, compiler)
    seed = random.SystemRandom().randrange(2**31)
    torch.manual_seed(seed)
    inputs = mod.inputs(case, "cuda")
    out = mod.launch(kernels, inputs, case)
    torch.cuda.synchronize()
    ref = mod.reference(inputs, case)
    problem = corpus.compare(mod, out, ref, inputs, case)
    assert problem is None, f"{compiler}: {name} [{case['name']}] (inputs seed {seed}): {problem}"
