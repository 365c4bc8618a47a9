"""Tuning spaces for the bundled kernels (tilelang.ops.kernels, used by
tilelang.ops and bench/): plain dicts of meta-parameters
plus num_warps and num_stages, turned into tilelang.Config objects by
``configs``. Each space says what it is for; the autotuner prunes what a
device cannot run (shared memory, threads) before launching anything."""

from typing import Any, Callable, Dict, List, Optional

from tilelang.options import DEFAULT_OPTIONS

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


# Flash-attention forward (bench/kernels.py's attention_fwd_kernel): query
# blocks of 128 rows over two warpgroups (8 warps) or one (4), of 64 rows
# over one; key blocks of 64 or 128; 2 to 4 stages of K/V copies in flight.
# The first five are the configs Triton's fused-attention tutorial tunes
# over on Hopper. 128x64 at 4 stages deepens the pipeline of the usual
# winner; 64x128 pairs the smaller query block (more programs for short
# sequences and few heads) with wide key blocks; 128x128 at 4 stages
# fits at HEAD_DIM 64 only (prune_attention drops it at 128, where its K/V
# stages alone take 256 KB).
ATTENTION: List[Dict[str, Any]] = [
    dict(BLOCK_M=bm, BLOCK_N=bn, num_warps=warps, num_stages=stages)
    for bm, bn, warps, stages in [
        (128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 4), (128, 64, 4, 4), (128, 128, 8, 2),
        (128, 64, 8, 4), (64, 128, 4, 3), (128, 128, 8, 4),
    ]
]

# What a tuned attention's best config depends on (besides the dtypes,
# which the autotuners add themselves): the sequence length, the heads (the
# number of programs) and the kernel's variant.
ATTENTION_KEY = ["N_CTX", "H_Q", "H_KV", "HEAD_DIM", "CAUSAL"]


def _meta(config) -> Dict[str, Any]:
    """A space entry (dict) or a Config (tilelang's or Triton's) as one dict
    of its constexprs, num_warps and num_stages."""
    if isinstance(config, dict):
        return config
    return dict(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)


def attention_shared_estimate(config, head_dim: int, element_size: int) -> int:
    """Bytes of shared memory attention_fwd_kernel needs under `config` at
    the least: the num_stages blocks each of K and V that its software
    pipeline keeps in flight (the async copies write them there, the tensor
    cores read them there). A compiled kernel may need more (the Q block,
    conversion scratch: Triton keeps Q there too); the autotuner's sweep
    still prunes on the compiled kernel's own figure, so this estimate only
    has to never exceed it."""
    meta = _meta(config)
    return 2 * meta["BLOCK_N"] * head_dim * meta.get("num_stages", DEFAULT_OPTIONS.num_stages) * element_size


def attention_configs_that_fit(configs, head_dim: int, element_size: int, limit: int) -> list:
    """The configs whose attention_shared_estimate is within `limit` bytes;
    all of them when none is (the sweep then records why each fails)."""
    fitting = [c for c in configs if attention_shared_estimate(c, head_dim, element_size) <= limit]
    return fitting or list(configs)


def prune_attention(configs, named_args: Dict[str, Any], **kwargs) -> list:
    """early_config_prune of attention_fwd_kernel for tilelang.autotune and
    triton.autotune (Triton passes constexprs such as HEAD_DIM in kwargs,
    tilelang in named_args): drops the configs that cannot fit in the
    current device's shared memory per block, before anything compiles."""
    from tilelang.autotune import core

    args = dict(named_args, **kwargs)
    head_dim = args.get("HEAD_DIM") or args["Q"].shape[-1]
    # The arguments' device where the process has devices of several models.
    device = getattr(getattr(args["Q"], "device", None), "index", None) if core.several_models() else None
    limit = core.device_properties(device)["max_shared_per_block"]
    return attention_configs_that_fit(configs, head_dim, args["Q"].element_size(), limit)


def attention_work(args: Dict[str, Any]) -> Dict[str, float]:
    """The work of one attention_fwd_kernel call, for the autotuner's
    rates: two N_CTX x N_CTX x HEAD_DIM products per (batch, query head),
    half of them under a causal mask; Q, K, V read once and Out written
    once (the least traffic)."""
    batch, heads, n_ctx, head_dim = args["Q"].shape
    kv_heads = args["K"].shape[1]
    flops = 4.0 * batch * heads * n_ctx * n_ctx * head_dim
    if args.get("CAUSAL"):
        flops /= 2
    element = args["Q"].element_size()
    return {"flops": flops, "bytes": float(element * batch * n_ctx * head_dim * (2 * heads + 2 * kv_heads))}


def matmul_programs(tiles: int, persistent: int, multiprocessors: int) -> int:
    """The programs of matmul_epilogue_kernel for `tiles` output tiles: one
    per tile, or with PERSISTENT (`persistent` programs per
    multiprocessor) at most that many, each looping over tiles."""
    if not persistent:
        return tiles
    return max(1, min(tiles, persistent * multiprocessors))


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


def configs(space: List[Dict[str, Any]], pre_hook: Optional[Callable[[Dict[str, Any]], None]] = None,
            config_class=None):
    """The space as tilelang.Config objects (or objects of `config_class`,
    such as triton.Config, to tune Triton over the same space), each with
    `pre_hook`."""
    if config_class is None:
        import tilelang

        config_class = tilelang.Config
    result = []
    for entry in space:
        meta = {k: v for k, v in entry.items() if k not in ("num_warps", "num_stages")}
        result.append(config_class(meta, num_warps=entry.get("num_warps", DEFAULT_OPTIONS.num_warps),
                                   num_stages=entry.get("num_stages", DEFAULT_OPTIONS.num_stages),
                                   pre_hook=pre_hook))
    return result


# -- tilelang.ops ---------------------------------------------------------------------------

# Row kernels of tilelang.ops (layer/RMS norm forward and input gradient,
# softmax forward and backward): one row per program, the whole row in
# registers where it fits a block (ROW_FITS), else in chunks of BLOCK_SIZE.
# prune_rows keeps, for the row length at hand, the whole row's block
# (rounded up to a power of two) where it is at most ROW_BLOCK_CAP, else
# ROW_BLOCK_CAP down to a quarter of it (row_blocks).
# Widest blocks first, 8 warps first among them: the first config
# prune_rows keeps (the whole row over 8 warps where a thread's share
# allows it) is the one launched untuned (TILELANG_OPS_AUTOTUNE=0). Rows
# up to 16384 fit one block, so that softmax keeps such a row in registers
# and reads it once (12288 went by in chunks, twice); a thread holds at
# most ROW_ELEMENTS_PER_THREAD elements of a block, past which these
# kernels spill under the 128 registers their occupancy floor leaves: at
# 64 (16384 over 8 warps, 4096 over 2), layer_norm_fwd's row in registers
# with its weight and bias spills 132-440 B, softmax_bwd's two rows 24-52 B,
# the chunked online softmax 768-804 B (sm_90a, fp16 and fp32); at 32, none.
ROW_BLOCK_CAP = 16384
ROW_ELEMENTS_PER_THREAD = 32
ROWS: List[Dict[str, Any]] = [
    dict(BLOCK_SIZE=block, num_warps=warps)
    for block in (16384, 8192, 4096, 2048, 1024, 512, 256) for warps in (8, 4, 16, 2)
    if 32 * warps <= block <= 32 * warps * ROW_ELEMENTS_PER_THREAD
]

# tilelang.ops.matmul's space (matmul_epilogue_kernel): MATMUL and its
# 128x256x64 tiles again in the persistent form (PERSISTENT=1: one program
# per multiprocessor, each looping over tiles; matmul_programs). Where K is
# short, a tile's K loop is a small part of its time (8192x4096x1000: 16
# steps, then the bias, the gelu and the store, 1024 tiles in 7.76 rounds
# over 132 SMs), and a launch per tile costs what a loop iteration does
# not: on the H200 the persistent form of 128x256x64 w8 s3 was ahead of the
# one-tile form at every K from 256 to 4096 with bias and gelu (timed in
# interleaved rounds; bench/results/2026-11-25-h200.md), by a few percent,
# so the tuner picks. Only the tiles that lead at short K are doubled, to
# keep the sweep short; MATMUL stays the space of the other matmul kernels,
# which have no PERSISTENT.
MATMUL_OPS: List[Dict[str, Any]] = MATMUL + [
    dict(entry, PERSISTENT=1) for entry in MATMUL
    if (entry["BLOCK_SIZE_M"], entry["BLOCK_SIZE_N"], entry["BLOCK_SIZE_K"]) == (128, 256, 64)
]

# The matmul config launched untuned (TILELANG_OPS_AUTOTUNE=0): one of
# MATMUL that needs no local memory even with a gelu epilogue.
MATMUL_UNTUNED = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8,
                      num_stages=3)


def bucket_pow2(value: int) -> int:
    """The tuning bucket of a size: the next power of two (at least 16),
    so that one sweep serves every size between two powers of two."""
    value = int(value)
    bucket = 16
    while bucket < value:
        bucket *= 2
    return bucket


def whole_row_block(n: int) -> int:
    """The block that holds a row of `n` elements: the next power of two,
    at least 256."""
    return max(bucket_pow2(n), 256)


def row_blocks(n: int) -> List[int]:
    """The BLOCK_SIZE values prune_rows keeps for rows of `n` elements: the
    whole row's block where it is at most ROW_BLOCK_CAP (the row is then
    read once and kept in registers; a narrower block would go by in
    chunks, reading the row two or three times), else ROW_BLOCK_CAP and
    its half and quarter (chunks: more, narrower ones over fewer warps
    each)."""
    whole = whole_row_block(n)
    if whole <= ROW_BLOCK_CAP:
        return [whole]
    return [ROW_BLOCK_CAP, ROW_BLOCK_CAP // 2, ROW_BLOCK_CAP // 4]


def prune_rows(length_arg: str):
    """early_config_prune for a row kernel whose row length is argument
    `length_arg`: the configs of ROWS with a BLOCK_SIZE in row_blocks."""

    def prune(configs, named_args: Dict[str, Any], **kwargs) -> list:
        keep = row_blocks(dict(named_args, **kwargs)[length_arg])
        kept = [c for c in configs if _meta(c)["BLOCK_SIZE"] in keep]
        return kept or list(configs)

    return prune


# The first stage of the norms' weight gradient (norm_bwd_dwdb): tiles of
# BLOCK_M rows x BLOCK_N columns summed down a group of rows.
NORM_DWDB: List[Dict[str, Any]] = [
    dict(BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)
    for bm, bn, warps in [(32, 64, 4), (32, 128, 4), (64, 64, 4), (16, 256, 4), (32, 128, 8), (64, 128, 8)]
]


# column_sum's launch (the second stage of the norms' weight and bias
# gradients; not tuned): 32 fp32 columns (128 bytes) of each row of partial
# sums per program, so that a 1024-wide row still spreads over 32 programs,
# 64 rows of partial sums a step.
COLUMN_SUM: Dict[str, Any] = dict(BLOCK_G=64, BLOCK_N=32, num_warps=4)


# The norms' backward for rows that fit a block (norm_bwd_fused): tiles of
# ROWS whole rows (BLOCK_SIZE >= N), the input gradient and the weight and
# bias partial sums in one pass. A thread holds NORM_BWD_ELEMENTS_PER_THREAD
# (4 to 16) elements of a tile, of x, dy and the two fp32 partial sums
# each: 4 are one 16-byte load of fp32, 16 keep the kernel under 128
# registers (32, a 16384-element row over 16 warps, spills), so rows up to
# NORM_BWD_BLOCK_CAP take it; longer ones take norm_bwd_dx and
# norm_bwd_dwdb. Several rows a tile keep a short row's
# program busy (a 1024-element row over 4 warps is one load a thread).
# Widest blocks first, one row a tile first: the first config
# prune_norm_bwd keeps is the one launched untuned.
NORM_BWD_ELEMENTS_PER_THREAD = (4, 16)
NORM_BWD_BLOCK_CAP = 8192
NORM_BWD: List[Dict[str, Any]] = [
    dict(ROWS=rows, BLOCK_SIZE=block, num_warps=warps)
    for block in (NORM_BWD_BLOCK_CAP >> i for i in range(6)) for rows in (1, 2, 4) for warps in (8, 4, 16)
    if NORM_BWD_ELEMENTS_PER_THREAD[0] <= rows * block // (32 * warps) <= NORM_BWD_ELEMENTS_PER_THREAD[1]
]
#: The most rows a tile of NORM_BWD holds: with at most rows / this many
#: programs, every program has a tile under any config.
NORM_BWD_MAX_ROWS = max(entry["ROWS"] for entry in NORM_BWD)
# Programs of norm_bwd_fused with weight gradients, per multiprocessor: each
# writes one row of partial sums per gradient (4 bytes an element, read
# again by column_sum), so few, each over many rows; two per
# multiprocessor keep x and dy of one tile in flight in one while the
# other reduces.
NORM_BWD_PROGRAMS_PER_SM = 2


def norm_bwd_programs(rows: int, multiprocessors: int) -> int:
    """norm_bwd_fused's programs (and rows of partial sums) for `rows` rows
    with weight gradients: NORM_BWD_PROGRAMS_PER_SM per multiprocessor, at
    most rows / NORM_BWD_MAX_ROWS, so that each program has a tile of rows
    under any config (none writes partial sums of nothing), at least one.
    It depends on no config: the partial sums are allocated before the
    tuner picks one."""
    return max(1, min(NORM_BWD_PROGRAMS_PER_SM * multiprocessors, rows // NORM_BWD_MAX_ROWS))


def prune_norm_bwd(configs, named_args: Dict[str, Any], **kwargs) -> list:
    """early_config_prune of norm_bwd_fused: the configs whose block is
    the whole row's (whole_row_block of argument N)."""
    whole = whole_row_block(dict(named_args, **kwargs)["N"])
    kept = [c for c in configs if _meta(c)["BLOCK_SIZE"] == whole]
    return kept or list(configs)
