"""The compatibility corpus (test/python/compat: kernels in the forms of
Triton's tutorials and of kernel libraries, each with host code and a
float64 reference) under the interpreter, on torch CPU tensors: every case
the GPU test runs, checked against the same reference and tolerance.
Skipped without torch (the corpus's inputs and host code are torch's)."""

import functools
import random

import pytest

import tilelang

torch = pytest.importorskip("torch")

from compat import corpus  # noqa: E402

# Kernels with no CPU meaning: PTX inline assembly (tl.inline_asm_elementwise)
# is refused by the interpreter with a located error.
NOT_INTERPRETED = {"inline_asm"}
CASES = [(name, case) for name in corpus.NAMES if name not in NOT_INTERPRETED
         for case in corpus.module(name).CASES]


@functools.lru_cache(maxsize=None)
def _kernels(name):
    import tilelang.language as tl

    return corpus.module(name).define(functools.partial(tilelang.jit, interpret=True), tl)


@pytest.mark.parametrize("name, case", CASES, ids=[f"{n}-{c['name']}" for n, c in CASES])
def test_corpus_kernel_interpreted(name, case):
    mod = corpus.module(name)
    seed = random.SystemRandom().randrange(2**31)
    torch.manual_seed(seed)
    inputs = mod.inputs(case, "cpu")
    out = mod.launch(_kernels(name), inputs, case)
    ref = mod.reference(inputs, case)
    problem = corpus.compare(mod, out, ref, inputs, case)
    assert problem is None, f"interpreter: {name} [{case['name']}] (inputs seed {seed}): {problem}"
