"""Persistent matrix product in the form of Triton's persistent-matmul
tutorial (its pointer-based "persistent" kernel, no tensor descriptors):
as many programs as SMs (fewer for small problems), each looping over
output tiles `tl.range(start_pid, num_tiles, NUM_SMS, flatten=True)` in
grouped order, with the tutorial's offsets (rows and columns past the edge
clamped to 0 by `tl.where`, then promised contiguous with
`tl.max_contiguous(tl.multiple_of(...))`), K masks, a K loop and a masked
store per tile. fp16 and bf16; configs from the tutorial's Hopper space
(BLOCK_M 128, BLOCK_N 128/256, BLOCK_K 64/128, 3-4 stages, 4/8 warps)
that fit in shared memory."""

import parity_spec
import triton
import triton.language as tl


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M: tl.constexpr):
    # Tiles go down GROUP_SIZE_M rows of tiles before the next column, so
    # that the tiles the SMs work on together share A and B in L2.
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_kernel_persistent(a_ptr, b_ptr, c_ptr, M, N, K,
                             stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                             BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                             BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    offs_k_for_mask = tl.arange(0, BLOCK_SIZE_K)

    # flatten=True asks the compiler to pipeline the tile loop and the K
    # loop as one, so that the next tile's loads overlap this tile's end.
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        # Rows and columns past the edge read row and column 0 (their
        # results are masked at the store), so the loads need masks on K only.
        offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        offs_am = tl.where(offs_am < M, offs_am, 0)
        offs_bn = tl.where(offs_bn < N, offs_bn, 0)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BLOCK_SIZE_M), BLOCK_SIZE_M)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BLOCK_SIZE_N), BLOCK_SIZE_N)

        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BLOCK_SIZE_K, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BLOCK_SIZE_K, other=0.0)
            accumulator = tl.dot(a, b, accumulator)

        offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator.to(c_ptr.dtype.element_ty), mask=c_mask)


def matmul_persistent(a, b, config):
    """The tutorial's host function, with the config passed in: one program
    per SM, or one per tile when there are fewer tiles."""
    import torch

    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    NUM_SMS = torch.cuda.get_device_properties("cuda").multi_processor_count
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (  # noqa: E731
        min(NUM_SMS, triton.cdiv(M, META["BLOCK_SIZE_M"]) * triton.cdiv(N, META["BLOCK_SIZE_N"])), )
    matmul_kernel_persistent[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), c.stride(1), NUM_SMS=NUM_SMS, **config)
    return c


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = matmul_kernel_persistent


def _config(m, n, k, warps, stages):
    return dict(BLOCK_SIZE_M=m, BLOCK_SIZE_N=n, BLOCK_SIZE_K=k, GROUP_SIZE_M=8, num_warps=warps,
                num_stages=stages)


# The tutorial's space less what overflows 227 KB of shared memory (128x256x128
# at 3 or 4 stages, 128x128x128 at 4) or cannot hold a 128x256 fp32
# accumulator in 4 warps' registers.
CONFIGS = [_config(128, 256, 64, 8, 3), _config(128, 256, 64, 8, 4), _config(128, 128, 64, 8, 3),
           _config(128, 128, 64, 8, 4), _config(128, 128, 64, 4, 3), _config(128, 128, 64, 4, 4),
           _config(128, 128, 128, 8, 3), _config(128, 128, 128, 4, 3)]

PROBLEMS = [dict(name=f"{s}^3 {d}", M=s, N=s, K=s, dtype=d) for d in ("bf16", "fp16") for s in (4096, 8192)]
# A size that is not a multiple of any block: clamped rows, the K mask, and
# fewer tiles than a whole number of rounds over the SMs.
PROBLEMS.append(dict(name="4000x3000x1000 bf16", M=4000, N=3000, K=1000, dtype="bf16"))


def label(config):
    return (f"{config['BLOCK_SIZE_M']}x{config['BLOCK_SIZE_N']}x{config['BLOCK_SIZE_K']} "
            f"w{config['num_warps']} s{config['num_stages']}")


def constexprs(problem):
    # An H100/H200 SXM's SM count; launch reads the device's.
    return dict(NUM_SMS=132)


def static_args(problem):
    return parity_spec.matmul_static_args(problem)


def inputs(problem):
    return parity_spec.matmul_inputs(problem)


def launch(inputs, problem, config):
    return matmul_persistent(*inputs, config)


def reference(inputs, problem):
    return parity_spec.matmul_reference(*inputs)


def check(out, ref, inputs, problem):
    a, b = inputs
    return parity_spec.product_within_bound(out, ref, a, b)


def metric(problem):
    return parity_spec.matmul_metric(problem)
