"""The interpreter against the compiler, on the GPU (issue 24): 1,400
generated kernels (the frontend fuzzer's kernel_gen.py; about 1,100 of them
valid) run interpreted and compiled on the same inputs, and the memory they
leave must agree: bit for bit for the scalar family (32-bit integer
programs with branches, loops, C division, shifts, atomics), within the
tolerances of docs/interpreter.md for the tensor family (fp32, fp16, bf16
and int32 blocks through reductions, scans, products and loops). The seed
is printed (replay with TILELANG_FUZZ_SEED=<seed>). Also: CUDA tensors
through the interpreter (copied to the host and back). Skipped without a
GPU or without torch."""

import os
import pathlib
import random
import sys

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interpreter"))
K = load_module("gpu_kernels", HERE / "gpu_kernels.py")
differential = load_module("differential", HERE.parent / "interpreter" / "differential.py")

SEED = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
BATCHES, PER_BATCH = 8, 175


def _device(array):
    if array.dtype == np.uint16:  # bf16 bit patterns
        return torch.from_numpy(array.view(np.int16).copy()).cuda().view(torch.bfloat16)
    if array.dtype == np.uint32:
        return torch.from_numpy(array.view(np.int32).copy()).cuda()
    return torch.from_numpy(array.copy()).cuda()


def _host(tensor, like):
    if like.dtype == np.uint16:
        return tensor.view(torch.int16).cpu().numpy().view(np.uint16)
    return tensor.cpu().numpy().view(like.dtype)


def _compiled(case, kernel, data):
    compiled = kernel.compile(case.signature, constexprs=case.constexprs, num_warps=case.num_warps)
    tensors = {name: _device(a) for name, a in data["arrays"].items()}
    scalars = [int(s) for s in data["scalars"]]
    K.launch_compiled(compiled, data["grid"] + (1,) * (3 - len(data["grid"])),
                      torch.cuda.current_stream().cuda_stream, *tensors.values(), *scalars)
    torch.cuda.synchronize()
    return {name: _host(t, data["arrays"][name]) for name, t in tensors.items()}


def test_seed():
    print(f"interpreter differential seed: {SEED} (replay with TILELANG_FUZZ_SEED={SEED})")


@pytest.mark.parametrize("batch", range(BATCHES))
def test_interpreted_and_compiled_agree(batch, tmp_path, monkeypatch):
    # One link per kernel: the occupancy search would link each several times.
    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "0")
    failures = []
    for index in range(batch * PER_BATCH, (batch + 1) * PER_BATCH):
        case = differential.kernel_gen.generate(SEED, index)
        if not differential.usable(case):
            continue
        kernel = differential.load(tmp_path, case, SEED, index)
        data = differential.inputs(case, SEED, index)
        interpreted = differential.interpret(case, kernel, data)
        compiled = _compiled(case, kernel, data)
        problem = differential.compare(case, data, interpreted, compiled)
        if problem:
            failures.append(f"kernel {index} (seed {SEED}, {case.family}): {problem}\n{case.source}")
    assert not failures, "\n".join(failures[:3])


def test_at_least_a_thousand_kernels_run():
    # Counted from the generator, not from the batches that ran in this
    # process: the host's suite spreads the batches over pytest-xdist
    # workers, where a count of what one process ran would always fall
    # short. Each batch runs every usable kernel of its range.
    usable = sum(differential.usable(differential.kernel_gen.generate(SEED, index))
                 for index in range(BATCHES * PER_BATCH))
    assert usable >= 1000, f"only {usable} of {BATCHES * PER_BATCH} generated kernels are usable (seed {SEED})"


@tilelang.jit(interpret=True)
def _scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)


def test_cuda_tensors_are_copied_in_and_out():
    x = torch.randn(1000, device="cuda", dtype=torch.float16)
    out = torch.zeros(2000, device="cuda", dtype=torch.float16)[::2]  # a strided view of a larger storage
    _scale[(4,)](x, out, 1000, BLOCK=256)
    assert out.is_cuda
    # out is every other element: the kernel writes 1000 contiguous ones from its start.
    flat = out.as_strided((1000,), (1,))
    assert torch.equal(flat, (x.double() * 3).to(torch.float16))
