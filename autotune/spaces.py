"""Tuning spaces for the bundled kernels: plain dicts of meta-parameters
plus num_warps and num_stages, turned into tilelang.Config objects by
``configs``. Each space says what it is for; the autotuner prunes what a
device cannot run (shared memory, threads) before launching anything."""

from typing import Any, Callable, Dict, List, Optional

# Matmul on Hopper and Ampere: wgmma wants M tiles of 64 per warpgroup and
# N up to 256 per instruction; K tiles of 64 fill 128-byte swizzled rows.
# The 256x256 entry does not fit in shared memory at 4 stages: it is there
# to be pruned (and shown as such by the inspector).
MATMUL: List[Dict[str, Any]] = [
    dict(BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk, GROUP_SIZE_M=8, num_warps=warps, num_stages=stages)
    for bm, bn, bk, warps, stages in [
        (128, 256, 64, 8, 3), (128, 256, 64, 8, 4), (256, 128, 64, 8, 3), (256, 128, 64, 8, 4),
        (128, 128, 64, 4, 3), (128, 128, 64, 4, 4), (128, 128, 64, 8, 3), (128, 128, 64, 8, 4),
        (64, 256, 64, 4, 3), (64, 256, 64, 4, 4), (128, 256, 32, 8, 4), (128, 256, 32, 8, 5),
        (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (64, 64, 64, 4, 4), (128, 128, 32, 4, 4),
        (256, 256, 64, 8, 4),
    ]
]

# Matmul through tensor descriptors (bench/kernels.py's
# matmul_descriptor_kernel): the same tiles; each config's pre_hook gives
# the descriptors its block shapes, as Triton's TMA matmul does.
MATMUL_DESCRIPTORS = MATMUL


def matmul_descriptor_pre_hook(nargs: Dict[str, Any]) -> None:
    """Sets the block shapes of matmul_descriptor_kernel's descriptors to
    the config's tiles (A: M x K, B: K x N, C: M x N)."""
    bm, bn, bk = nargs["BLOCK_SIZE_M"], nargs["BLOCK_SIZE_N"], nargs["BLOCK_SIZE_K"]
    nargs["a_desc"].block_shape = [bm, bk]
    nargs["b_desc"].block_shape = [bk, bn]
    nargs["c_desc"].block_shape = [bm, bn]


# Layernorm forward: one row per program; the block covers a row in as few
# passes as registers allow.
LAYERNORM: List[Dict[str, Any]] = [
    dict(BLOCK_SIZE=block, num_warps=warps)
    for block in (1024, 2048, 4096, 8192) for warps in (4, 8, 16)
]


def matmul_work(args: Dict[str, Any]) -> Dict[str, float]:
    """The work of one matmul_kernel call, for the autotuner's rates: 2MNK
    flops; A and B read once and C written once (the least traffic)."""
    m, n, k = args["M"], args["N"], args["K"]
    element = args["a_ptr"].element_size()
    return {"flops": 2.0 * m * n * k, "bytes": float(element * (m * k + k * n + m * n))}


def matmul_descriptor_work(args: Dict[str, Any]) -> Dict[str, float]:
    """matmul_work for matmul_descriptor_kernel's arguments."""
    element = args["a_desc"].base.element_size()
    m, n, k = args["M"], args["N"], args["K"]
    return {"flops": 2.0 * m * n * k, "bytes": float(element * (m * k + k * n + m * n))}


def configs(space: List[Dict[str, Any]], pre_hook: Optional[Callable[[Dict[str, Any]], None]] = None):
    """The space as tilelang.Config objects, each with `pre_hook`."""
    import tilelang

    result = []
    for entry in space:
        meta = {k: v for k, v in entry.items() if k not in ("num_warps", "num_stages")}
        result.append(tilelang.Config(meta, num_warps=entry.get("num_warps", 4),
                                      num_stages=entry.get("num_stages", 3), pre_hook=pre_hook))
    return result
