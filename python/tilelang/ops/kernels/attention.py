"""The flash-attention forward in tilelang's language (the same source runs
under Triton); below `define`, the host helpers that launch and tune it and
its float64 reference and error bound (shared by bench/run.py and the GPU
tests)."""


def define(jit, tl):
    """The attention kernels decorated with `jit`, using language module `tl`."""

    @jit
    def attention_fwd_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, qk_scale, rows, keys,
                             n_start, n_end, N_CTX, BLOCK_N: tl.constexpr, MASKED: tl.constexpr,
                             CAUSAL: tl.constexpr, OFFSETS_64: tl.constexpr = False):
        # Folds the keys [n_start, n_end) into the running state of this
        # program's query rows: acc (unnormalized output), l_i (sum of the
        # weights) and m_i (their running maximum, in base-2 units).
        # k_ptrs and v_ptrs point at the first key block. Without MASKED
        # every key of every block is in range and visible to every row, so
        # the loop has no mask at all; with MASKED (the causal diagonal, the
        # last partial block) keys past N_CTX, and for CAUSAL keys after the
        # row, are dropped. OFFSETS_64: n_start * stride in 64 bits
        # (attention_offsets_64).
        if OFFSETS_64:
            k_ptrs += tl.cast(n_start, tl.int64) * stride_kn
            v_ptrs += tl.cast(n_start, tl.int64) * stride_vn
        else:
            k_ptrs += n_start * stride_kn
            v_ptrs += n_start * stride_vn
        for start_n in range(n_start, n_end, BLOCK_N):
            start_n = tl.multiple_of(start_n, BLOCK_N)
            if MASKED:
                in_range = (start_n + keys) < N_CTX
                k = tl.load(k_ptrs, mask=in_range[None, :], other=0.0)
            else:
                k = tl.load(k_ptrs)
            qk = tl.dot(q, k)
            if MASKED:
                visible = in_range[None, :]
                if CAUSAL:
                    visible = visible & ((start_n + keys)[None, :] <= rows[:, None])
                # A finite penalty, not -inf: were a row's first block wholly
                # masked, its maximum would be -inf and (-inf) - (-inf) NaN.
                # The ranges attention_fwd_kernel passes give every row a
                # visible key in its first block; the penalty keeps the
                # loop safe for any range.
                scores = tl.where(visible, qk * qk_scale, -1.0e6)
                m_new = tl.maximum(m_i, tl.max(scores, 1))
                p = tl.math.exp2(scores - m_new[:, None])
            else:
                # The scale is positive, so the maximum can be taken before
                # scaling, and scaling and subtracting it is one fma.
                m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
                p = tl.math.exp2(qk * qk_scale - m_new[:, None])
            # What was accumulated under the old maximum is rescaled to the new one.
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            if MASKED:
                # Keys past the end have p = 0, but 0 * (garbage) may be NaN.
                v = tl.load(v_ptrs, mask=in_range[:, None], other=0.0)
            else:
                v = tl.load(v_ptrs)
            acc = tl.dot(p.to(v.dtype), v, acc)
            m_i = m_new
            k_ptrs += BLOCK_N * stride_kn
            v_ptrs += BLOCK_N * stride_vn
        return acc, l_i, m_i

    @jit
    def attention_fwd_kernel(Q, K, V, Out, sm_scale,
                             stride_qb, stride_qh, stride_qm, stride_qd,
                             stride_kb, stride_kh, stride_kn, stride_kd,
                             stride_vb, stride_vh, stride_vn, stride_vd,
                             stride_ob, stride_oh, stride_om, stride_od,
                             H_Q, H_KV, N_CTX,
                             HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, WHOLE_BLOCKS: tl.constexpr = False,
                             OFFSETS_64: tl.constexpr = False):
        # Flash-attention forward (the FlashAttention-2 form): Out = softmax(Q
        # K^T * sm_scale) V for one BLOCK_M block of query rows of one (batch,
        # query head) per program; grid (cdiv(N_CTX, BLOCK_M), B * H_Q). Q, K,
        # V and Out are (B, heads, N_CTX, HEAD_DIM) with any strides; K and V
        # have H_KV heads (grouped-query attention: H_Q query heads share each
        # of them in groups of H_Q // H_KV). The Q block is loaded once; the
        # loop streams K/V blocks through an online softmax in base 2, so the
        # N_CTX x N_CTX scores never leave the chip. sm_scale > 0.
        # WHOLE_BLOCKS promises that BLOCK_N divides N_CTX (attention_constexprs
        # sets it): full attention then runs one loop without masks and no
        # code for a partial block. False is always correct.
        # OFFSETS_64: a head's row offsets (rows * stride_qm, n_start *
        # stride_kn...) can reach 2**31 elements (attention_offsets_64: a
        # long context in a (B, N_CTX, H, D) layout), and are computed in 64
        # bits; the offsets within a block stay 32-bit.
        pid_m = tl.program_id(0)
        pid_bh = tl.program_id(1)
        batch = pid_bh // H_Q
        head = pid_bh % H_Q
        kv_head = head // (H_Q // H_KV)
        # Head offsets in 64 bits: B * H * N_CTX * HEAD_DIM passes 2^31
        # elements at long sequences.
        q_head = Q + batch.to(tl.int64) * stride_qb + head.to(tl.int64) * stride_qh
        k_head = K + batch.to(tl.int64) * stride_kb + kv_head.to(tl.int64) * stride_kh
        v_head = V + batch.to(tl.int64) * stride_vb + kv_head.to(tl.int64) * stride_vh
        o_head = Out + batch.to(tl.int64) * stride_ob + head.to(tl.int64) * stride_oh

        first_row = pid_m * BLOCK_M
        rows = first_row + tl.arange(0, BLOCK_M)
        keys = tl.arange(0, BLOCK_N)
        dims = tl.arange(0, HEAD_DIM)
        row_ok = rows[:, None] < N_CTX
        if OFFSETS_64:
            offset_rows = rows.to(tl.int64)
        else:
            offset_rows = rows
        q = tl.load(q_head + offset_rows[:, None] * stride_qm + dims[None, :] * stride_qd, mask=row_ok, other=0.0)
        # K is read as K^T, a HEAD_DIM x BLOCK_N block, through its strides.
        k_ptrs = k_head + dims[:, None] * stride_kd + keys[None, :] * stride_kn
        v_ptrs = v_head + keys[:, None] * stride_vn + dims[None, :] * stride_vd

        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        # exp(x * sm_scale) = exp2(x * sm_scale * log2(e)).
        qk_scale = sm_scale * 1.4426950408889634

        # Two ranges of key blocks: first those that need no mask, then those
        # that do. Causal: the blocks wholly left of the block's first row are
        # visible to all its rows; the blocks from there to its last row
        # straddle the diagonal. Full: every whole block, then the partial
        # last one when BLOCK_N does not divide N_CTX.
        if CAUSAL:
            unmasked_end = first_row // BLOCK_N * BLOCK_N
            masked_end = min(first_row + BLOCK_M, N_CTX)
        else:
            unmasked_end = N_CTX // BLOCK_N * BLOCK_N
            masked_end = N_CTX
        acc, l_i, m_i = attention_fwd_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, qk_scale,
                                             rows, keys, 0, unmasked_end, N_CTX, BLOCK_N, False, CAUSAL,
                                             OFFSETS_64)
        if CAUSAL or not WHOLE_BLOCKS:
            acc, l_i, m_i = attention_fwd_blocks(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
                                                 qk_scale, rows, keys, unmasked_end, masked_end, N_CTX, BLOCK_N,
                                                 True, CAUSAL, OFFSETS_64)
        # Every row saw at least one key at weight exp2(0) = 1, so l_i >= 1.
        out = acc / l_i[:, None]
        tl.store(o_head + offset_rows[:, None] * stride_om + dims[None, :] * stride_od, out.to(Out.dtype.element_ty),
                 mask=row_ok)

    return {"attention_fwd_kernel": attention_fwd_kernel}


# The launch options of an attention forward: the kernel's block constexprs
# and num_warps/num_stages (a dict, or a tilelang.Config or triton.Config,
# see attention_launch_options). 128x64 over 8 warps and 3 stages is the
# config Triton ran fastest at 4 of the 5 bench shapes on the H200
# (bench/parity/results, the tutorial-form kernel).
ATTENTION_DEFAULT_CONFIG = {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 8, "num_stages": 3}


def attention_launch_options(config=None):
    """The launch keywords of `config` for attention_fwd_kernel: a dict such
    as ATTENTION_DEFAULT_CONFIG (keys it lacks keep their default), or a
    Config object of tilelang's or Triton's autotuner."""
    options = dict(ATTENTION_DEFAULT_CONFIG)
    if config is None:
        return options
    if isinstance(config, dict):
        options.update(config)
    else:
        options.update(config.kwargs, num_warps=config.num_warps, num_stages=config.num_stages)
    return options


def attention_grid(q, options):
    """The grid of attention_fwd_kernel: a program per BLOCK_M query rows,
    per batch and query head."""
    batch, heads, n_ctx, _ = q.shape
    return (-(-n_ctx // options["BLOCK_M"]), batch * heads)


def attention_args(q, k, v, out, sm_scale):
    """The run-time arguments of attention_fwd_kernel, in order, for
    (B, H, N_CTX, HEAD_DIM) tensors (k and v with H_KV heads)."""
    strides = [t.stride(d) for t in (q, k, v, out) for d in range(4)]
    return (q, k, v, out, float(sm_scale), *strides, q.shape[1], k.shape[1], q.shape[2])


def attention_constexprs(q, causal, options, k=None, v=None, out=None):
    """The constexprs of attention_fwd_kernel that follow from the problem
    and the config's blocks (the config gives the others); OFFSETS_64 from
    the strides of q and of those of k, v and out given."""
    n_ctx = q.shape[2]
    strides = {f"stride_{name}{axis}": t.stride(d) for name, t in zip("qkvo", (q, k, v, out)) if t is not None
               for axis, d in (("m" if name in "qo" else "n", 2), ("d", 3))}
    return {"HEAD_DIM": q.shape[3], "CAUSAL": bool(causal), "WHOLE_BLOCKS": n_ctx % options["BLOCK_N"] == 0,
            "OFFSETS_64": attention_offsets_64(dict(strides, N_CTX=n_ctx, **options))}


def attention_offsets_64(args):
    """OFFSETS_64 of attention_fwd_kernel from its arguments and config (for
    tilelang.heuristics / triton.heuristics too): whether an element offset
    within a head, rows (N_CTX of them, and the masked ones of a last
    block) by their row stride plus HEAD_DIM columns, can reach 2**31, where
    32 bits wrap. The row and column strides present in `args` count."""
    rows = max([abs(v) for n, v in args.items() if n[:-1] in ("stride_q", "stride_k", "stride_v", "stride_o")
                and n[-1] in "mn"] or [0])
    cols = max([abs(v) for n, v in args.items() if n.startswith("stride_") and n[-1] == "d"] or [0])
    reach = max(args.get("BLOCK_M", 0), args.get("BLOCK_N", 0))
    return (args["N_CTX"] + reach) * rows + 128 * cols >= 2**31


def attention_whole_blocks(args):
    """WHOLE_BLOCKS of attention_fwd_kernel from its arguments and config,
    for tilelang.heuristics / triton.heuristics under an autotuner (which
    chooses BLOCK_N)."""
    return args["N_CTX"] % args["BLOCK_N"] == 0


def attention(q, k, v, causal, sm_scale, kernel, config=None, out=None):
    """softmax(q k^T * sm_scale) v, with a causal mask when `causal`, by
    `kernel` (define(...)["attention_fwd_kernel"], tilelang's or Triton's).
    q is (B, H_Q, N_CTX, D), k and v (B, H_KV, N_CTX, D) with H_KV dividing
    H_Q (query head h attends with key/value head h // (H_Q // H_KV)); one
    dtype (fp16 or bf16), D 64 or 128, any strides. sm_scale > 0 (None:
    D ** -0.5). The result is `out` (any strides) or a new tensor of q's
    shape and dtype. `config`: see attention_launch_options. Returns it."""
    sm_scale, out = attention_operands(q, k, v, sm_scale, out)
    batch, heads, n_ctx, _ = q.shape
    options = attention_launch_options(config)
    if n_ctx > 0 and batch * heads > 0:
        kernel[attention_grid(q, options)](*attention_args(q, k, v, out, sm_scale),
                                           **attention_constexprs(q, causal, options, k, v, out), **options)
    return out


def attention_operands(q, k, v, sm_scale, out):
    """Checks attention()'s operands (a ValueError naming what is wrong);
    returns sm_scale (D ** -0.5 for None) and out (a new tensor for None)."""
    if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
        raise ValueError("attention: q, k and v must be (batch, heads, N_CTX, HEAD_DIM)")
    batch, heads, n_ctx, head_dim = q.shape
    kv_heads = k.shape[1]
    if tuple(k.shape) != tuple(v.shape) or (k.shape[0], k.shape[2], k.shape[3]) != (batch, n_ctx, head_dim):
        raise ValueError(f"attention: shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)} "
                         f"do not match")
    if kv_heads == 0 or heads % kv_heads != 0:
        raise ValueError(f"attention: {kv_heads} key/value heads do not divide {heads} query heads")
    if not q.dtype == k.dtype == v.dtype:
        raise ValueError(f"attention: q, k, v of different dtypes ({q.dtype}, {k.dtype}, {v.dtype})")
    if head_dim not in (64, 128):
        raise ValueError(f"attention: head dimension {head_dim}, not 64 or 128")
    if sm_scale is None:
        sm_scale = head_dim ** -0.5
    if not sm_scale > 0:
        raise ValueError(f"attention: sm_scale must be positive, not {sm_scale}")
    if out is None:
        import torch

        out = torch.empty(q.shape, device=q.device, dtype=q.dtype)
    elif tuple(out.shape) != tuple(q.shape):
        raise ValueError(f"attention: out has shape {tuple(out.shape)}, expected {tuple(q.shape)}")
    return sm_scale, out


def attention_reference(q, k, v, causal, sm_scale=None):
    """For attention()'s arguments (grouped-query heads included), in
    float64: (softmax(q k^T * sm_scale) v, the magnitude softmax(q k^T *
    sm_scale) |v|, and each query row's spread: the largest sum_i |q_i k_i|
    * sm_scale over the keys it sees, shaped (B, H, N_CTX, 1)). The last
    two scale the rounding errors attention_error_bound allows. A few heads
    at a time: a head's N_CTX x N_CTX float64 scores take 2 GiB at N_CTX
    16384."""
    import torch

    batch, heads, n_ctx, head_dim = q.shape
    kv_heads = k.shape[1]
    if sm_scale is None:
        sm_scale = head_dim ** -0.5
    # Query head h of batch b (row b * heads + h) reads key/value row
    # b * kv_heads + h // (heads // kv_heads).
    index = torch.arange(batch * heads, device=q.device)
    kv_index = index // heads * kv_heads + index % heads // (heads // kv_heads)
    q, k, v = q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1)
    out = torch.empty((batch * heads, n_ctx, head_dim), device=q.device, dtype=torch.float64)
    magnitude = torch.empty_like(out)
    spread = torch.empty((batch * heads, n_ctx, 1), device=q.device, dtype=torch.float64)
    future = torch.ones((n_ctx, n_ctx), device=q.device, dtype=torch.bool).triu(1) if causal else None
    chunk = max(1, 2**28 // max(1, n_ctx * n_ctx))
    for start in range(0, batch * heads, chunk):
        rows = slice(start, start + chunk)
        kv = kv_index[rows]
        qs, ks = q[rows].double(), k[kv].double()
        products = qs.abs() @ ks.abs().transpose(1, 2)
        if future is not None:
            products.masked_fill_(future, 0)
        spread[rows] = products.amax(dim=-1, keepdim=True) * sm_scale
        del products
        scores = qs @ ks.transpose(1, 2) * sm_scale
        if future is not None:
            scores.masked_fill_(future, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        del scores
        values = v[kv].double()
        out[rows] = weights @ values
        magnitude[rows] = weights @ values.abs()
        del weights, values
    return (out.view(batch, heads, n_ctx, head_dim), magnitude.view(batch, heads, n_ctx, head_dim),
            spread.view(batch, heads, n_ctx, 1))


def attention_error_bound(q, magnitude, spread):
    """Elementwise bound on |Out - reference| for attention_fwd_kernel's
    output from fp16/bf16 inputs `q` (its shape and dtype), with
    attention_reference's magnitude M and spread S. Relative to M:
      - 2 u (u: 2^-11 fp16, 2^-8 bf16): P rounded to the value type before
        P V, and the output rounded to its type (|Out| <= M);
      - 2 (HEAD_DIM + 2) 2^-22 S: the fp32 sums of the scores (exact
        products, truncating adds on tensor cores, twice the truncation
        bound as a margin) perturb each weight by up to e^((HEAD_DIM + 2)
        2^-22 S) in the numerator and the denominator alike;
      - (N_CTX + 2) 2^-21: the N_CTX-long fp32 sums of P V (truncating)
        and of the weights, with the rescalings by alpha;
      - 2^-20: exp2's approximation and the remaining fp32 roundings;
    and 2^-24 absolute for M = 0 (every value it sees is 0)."""
    import torch

    u = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}[q.dtype]
    n_ctx, head_dim = q.shape[2], q.shape[3]
    relative = 2 * u + 2 * (head_dim + 2) * 2.0**-22 * spread + (n_ctx + 2) * 2.0**-21 + 2.0**-20
    return relative * magnitude + 2.0**-24


def attention_tuner(kernel, autotune, heuristics, configs, prune, key, **options):
    """`kernel` (define(...)["attention_fwd_kernel"]) under `autotune`
    (tilelang.autotune or triton.autotune) over `configs`, pruned early by
    `prune` (autotune/spaces.py's prune_attention), with WHOLE_BLOCKS
    computed for each config by `heuristics` (tilelang.heuristics or
    triton.heuristics). `options` go to `autotune`. Launch it with
    attention_tuned."""
    with_blocks = heuristics({"WHOLE_BLOCKS": attention_whole_blocks, "OFFSETS_64": attention_offsets_64})(kernel)
    return autotune(configs=configs, key=key, prune_configs_by={"early_config_prune": prune},
                    **options)(with_blocks)


def attention_tuned(tuned, q, k, v, causal, sm_scale=None, out=None):
    """Out = attention(q, k, v, causal, sm_scale) by `tuned` (from
    attention_tuner), which tunes at its first call for a key. Returns
    (Out, the config it ran)."""
    sm_scale, out = attention_operands(q, k, v, sm_scale, out)
    batch, heads, n_ctx, head_dim = q.shape

    def grid(meta):
        return (-(-n_ctx // meta["BLOCK_M"]), batch * heads)

    tuned[grid](*attention_args(q, k, v, out, sm_scale), HEAD_DIM=head_dim, CAUSAL=bool(causal))
    return out, tuned.best_config
