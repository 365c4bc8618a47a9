"""Flash-attention forward in the FlashAttention-2 form of Triton's
fused-attention tutorial, with plain pointer arithmetic (no block pointers,
no tensor descriptors, no warp specialization): one program per BLOCK_M
query rows of one (batch, head); the Q block loaded once; a loop over K/V
blocks with `qk = tl.dot(q, k)` on K loaded transposed through its strides,
an online softmax in base 2 (`exp2`, scale folded into `sm_scale *
1.44269504`), running `m_i`/`l_i`, `acc = tl.dot(p.to(v.dtype), v, acc)`;
causal attention in the tutorial's two stages (the blocks left of the
diagonal without a mask, then the diagonal block with one). Unlike the
tutorial, the query rows and K/V loads are masked at the sequence end so
that causal attention takes any length (full attention still needs a length
that is a multiple of BLOCK_N, as in the tutorial). fp16; the five configs
(BLOCK_M x BLOCK_N, warps, stages) a Hopper user tunes over."""

import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m, qk_scale,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr,
                    offs_m, offs_n, N_CTX):
    # The key blocks of this stage: those left of the diagonal block (1),
    # the diagonal block (2), or all of them for full attention (3).
    if STAGE == 1:
        lo, hi = 0, start_m * BLOCK_M
    elif STAGE == 2:
        lo, hi = start_m * BLOCK_M, (start_m + 1) * BLOCK_M
        lo = tl.multiple_of(lo, BLOCK_M)
    else:
        lo, hi = 0, N_CTX
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        # Keys past the end read as zero; only the diagonal block reaches
        # them, and its causal mask drops them for every real query row.
        k = tl.load(k_ptrs, mask=(start_n + offs_n)[None, :] < N_CTX, other=0.0)
        qk = tl.dot(q, k)
        if STAGE == 2:
            # A large finite penalty rather than -inf: a row's first block
            # may be all masked for padding rows, and -inf - -inf is NaN.
            mask = offs_m[:, None] >= (start_n + offs_n[None, :])
            qk = qk * qk_scale + tl.where(mask, 0, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            qk -= m_ij[:, None]
        else:
            m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # Rescale what was summed under the old running maximum.
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(v_ptrs, mask=(start_n + offs_n)[:, None] < N_CTX, other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, sm_scale, Out,
              stride_qz, stride_qh, stride_qm, stride_qk,
              stride_kz, stride_kh, stride_kn, stride_kk,
              stride_vz, stride_vh, stride_vn, stride_vk,
              stride_oz, stride_oh, stride_om, stride_ok,
              H, N_CTX,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGE: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    # 64-bit head offsets: B * H * N_CTX * HEAD_DIM passes 2^31 for long
    # sequences.
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + q_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    # K^T: a (HEAD_DIM, BLOCK_N) block of K read through its strides.
    k_ptrs = K + k_offset + offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    v_ptrs = V + v_offset + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk
    o_ptrs = Out + o_offset + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok

    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # exp(x * sm_scale) = exp2(x * sm_scale * log2(e)).
    qk_scale = sm_scale * 1.44269504
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    # STAGE 3 (causal): the off-band blocks (inner stage 1), then the
    # diagonal (inner stage 2). STAGE 1 (full): every block (inner stage 3).
    if STAGE & 1:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m,
                                        qk_scale, BLOCK_M, BLOCK_N, 4 - STAGE, offs_m, offs_n, N_CTX)
    if STAGE & 2:
        acc, l_i, m_i = _attn_fwd_inner(acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, start_m,
                                        qk_scale, BLOCK_M, BLOCK_N, 2, offs_m, offs_n, N_CTX)
    acc = acc / l_i[:, None]
    tl.store(o_ptrs, acc.to(Out.type.element_ty), mask=offs_m[:, None] < N_CTX)


def attention(q, k, v, causal, sm_scale, config):
    """softmax(q k^T * sm_scale) v over (batch, heads, N_CTX, HEAD_DIM)
    tensors, the config's blocks, warps and stages."""
    import torch

    B, H, N_CTX, HEAD_DIM = q.shape
    assert k.shape == v.shape == q.shape, "q, k and v must have one shape"
    assert causal or N_CTX % config["BLOCK_N"] == 0, "full attention needs N_CTX a multiple of BLOCK_N"
    o = torch.empty_like(q)
    grid = (triton.cdiv(N_CTX, config["BLOCK_M"]), B * H, 1)
    _attn_fwd[grid](q, k, v, sm_scale, o,
                    q.stride(0), q.stride(1), q.stride(2), q.stride(3),
                    k.stride(0), k.stride(1), k.stride(2), k.stride(3),
                    v.stride(0), v.stride(1), v.stride(2), v.stride(3),
                    o.stride(0), o.stride(1), o.stride(2), o.stride(3),
                    H, N_CTX, HEAD_DIM=HEAD_DIM, STAGE=3 if causal else 1, **config)
    return o


# -- what the parity harness runs -----------------------------------------------------------------

KERNEL = _attn_fwd


def _config(m, n, warps, stages):
    return dict(BLOCK_M=m, BLOCK_N=n, num_warps=warps, num_stages=stages)


CONFIGS = [_config(128, 64, 8, 3), _config(128, 128, 8, 3), _config(64, 64, 4, 4), _config(128, 64, 4, 4),
           _config(128, 128, 8, 2)]


def _problem(B, H, N, D, causal):
    return dict(name=f"B{B} H{H} N{N} D{D} {'causal' if causal else 'full'}", B=B, H=H, N=N, D=D,
                causal=causal)


PROBLEMS = [_problem(4, 32, 4096, 128, False), _problem(4, 32, 4096, 128, True),
            _problem(4, 32, 4096, 64, False), _problem(4, 32, 4096, 64, True),
            _problem(2, 16, 16384, 128, False),
            # Not a multiple of any block: the masked query rows and keys.
            _problem(1, 2, 1000, 64, True)]


def label(config):
    return f"{config['BLOCK_M']}x{config['BLOCK_N']} w{config['num_warps']} s{config['num_stages']}"


def _sm_scale(problem):
    return problem["D"] ** -0.5


def constexprs(problem):
    return dict(HEAD_DIM=problem["D"], STAGE=3 if problem["causal"] else 1)


def static_args(problem):
    H, N, D = problem["H"], problem["N"], problem["D"]
    strides = dict(z=H * N * D, h=N * D, m=D, k=1)
    args = dict(Q="*fp16", K="*fp16", V="*fp16", sm_scale=_sm_scale(problem), Out="*fp16", H=H, N_CTX=N)
    for t, row in (("q", "m"), ("k", "n"), ("v", "n"), ("o", "m")):
        args.update({f"stride_{t}z": strides["z"], f"stride_{t}h": strides["h"], f"stride_{t}{row}": strides["m"],
                     f"stride_{t}k": strides["k"]})
    return args


def inputs(problem):
    import torch

    shape = (problem["B"], problem["H"], problem["N"], problem["D"])
    return tuple(torch.randn(shape, device="cuda", dtype=torch.float16) for _ in range(3))


def launch(inputs, problem, config):
    q, k, v = inputs
    return attention(q, k, v, problem["causal"], _sm_scale(problem), config)


def reference(inputs, problem):
    """(softmax(q k^T * scale) v, softmax(q k^T * scale) |v|) in float64,
    a few heads at a time (a head's N x N float64 scores at N 16384 are
    2 GiB); the second is the scale of the rounding errors check allows."""
    import torch

    q, k, v = (x.flatten(0, 1) for x in inputs)
    heads, N, D = q.shape
    out = torch.empty((heads, N, D), device=q.device, dtype=torch.float64)
    magnitude = torch.empty_like(out)
    future = torch.ones((N, N), device=q.device, dtype=torch.bool).triu(1) if problem["causal"] else None
    chunk = max(1, 2**28 // (N * N))
    for s in range(0, heads, chunk):
        scores = q[s:s + chunk].double() @ k[s:s + chunk].double().transpose(1, 2) * _sm_scale(problem)
        if future is not None:
            scores.masked_fill_(future, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        del scores
        vs = v[s:s + chunk].double()
        out[s:s + chunk] = p @ vs
        magnitude[s:s + chunk] = p @ vs.abs()
        del p
    return out.view(inputs[0].shape), magnitude.view(inputs[0].shape)


def check(out, ref, inputs, problem):
    """Each element within 2^-8 of softmax(q k^T * scale) |v| (the fp16
    rounding of p and of the result are 2^-11 each); None when it holds."""
    import torch

    expected, magnitude = ref
    if not torch.isfinite(out).all():
        return "non-finite values"
    error = (out.double() - expected).abs()
    bound = 2.0**-8 * magnitude + 1e-6
    if (error > bound).any():
        worst = (error / bound).flatten().argmax()
        ratio = float((error / bound).flatten()[worst])
        return (f"{int((error > bound).sum())} elements out of bound (worst {ratio:.2f}x, "
                f"error {float(error.flatten()[worst]):.3g})")
    return None


def metric(problem):
    # Two products of N x N x D per head; causal attention does half.
    flops = 4.0 * problem["B"] * problem["H"] * problem["N"] * problem["N"] * problem["D"]
    return "TFLOP/s", flops / 2 if problem["causal"] else flops
