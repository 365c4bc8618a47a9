"""The CPU interpreter's speed (issue 24): a 4096-element vector add and a
512x512x512 fp16 matmul (the tutorial kernel, 128x128x32 blocks), per
launch, under tilelang's interpreter (NumPy arrays) or Triton's
(``TRITON_INTERPRET=1``, torch CPU tensors), from the same kernel source.

    .venv/bin/python bench/interpreter_speed.py                 # tilelang
    TRITON_INTERPRET=1 <python with triton and torch> bench/interpreter_speed.py --triton

Prints one markdown row per kernel: the first launch (tilelang's includes
the frontend's compile to tile IR) and the median of later ones. The
results of each are checked against a float64 reference first."""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

# The language module of the compiler under test, set by main() before the
# kernels are decorated (Triton's interpreter re-executes a kernel's source
# with its module's globals, so the kernels read `tl` from here and call no
# closure-bound helpers).
tl = None


def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    # Triton's tutorial matmul: grouped program order, masked edges, fp32 accumulator.
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


def timed(fn, repeat):
    first = time.perf_counter()
    fn()
    first = time.perf_counter() - first
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return first, statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--triton", action="store_true", help="Triton's interpreter (TRITON_INTERPRET=1)")
    args = parser.parse_args()
    global tl
    if args.triton:
        import torch
        import triton
        import triton.language as tl

        jit, name = triton.jit, f"Triton {triton.__version__} interpreter"

        def array(a):
            return torch.from_numpy(a)
    else:
        import tilelang
        import tilelang.language as tl

        jit, name = (lambda fn: tilelang.jit(fn, interpret=True)), "tilelang interpreter"

        def array(a):
            return a
    rng = np.random.default_rng(0)
    add = jit(add_kernel)
    n = 4096
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    xa, ya, oa = array(x), array(y), array(out)
    first, median = timed(lambda: add[(4,)](xa, ya, oa, n, BLOCK=1024), 50)
    assert np.array_equal(np.asarray(oa), x + y)
    print(f"| {name} | vector add, 4096 fp32 (4 programs of 1024) | {first * 1e3:.1f} ms | {median * 1e3:.2f} ms |")

    matmul = jit(matmul_kernel)
    m = nn = k = 512
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, nn)).astype(np.float16)
    c = np.zeros((m, nn), np.float16)
    aa, ba, ca = array(a), array(b), array(c)
    blocks = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)
    first, median = timed(lambda: matmul[(16,)](aa, ba, ca, m, nn, k, k, 1, nn, 1, nn, 1, **blocks), 3)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    assert np.abs(np.asarray(ca).astype(np.float64) - exact).max() < 0.1
    print(f"| {name} | matmul 512x512x512 fp16 (16 programs of 128x128, K blocks of 32) | {first:.3f} s "
          f"| {median:.3f} s |")


if __name__ == "__main__":
    main()
