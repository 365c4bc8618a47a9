"""Flash-attention forward in the block-pointer form of Triton's
fused-attention tutorial (06) as it was written before tensor
descriptors: Q, K (read transposed through `order=(0, 1)` strides), V and
O as `tl.make_block_ptr`s advanced along the sequence, an online softmax
in base 2, a causal variant that stops at the diagonal, sequence lengths
that are not multiples of the blocks (boundary_check)."""

CASES = [dict(name="Z2 H3 N300 D64", Z=2, H=3, N=300, D=64, causal=False),
         dict(name="Z1 H2 N203 D64 causal", Z=1, H=2, N=203, D=64, causal=True)]
BLOCK_M, BLOCK_N = 64, 64


def define(jit, tl):
    @jit
    def _attn_fwd(Q, K, V, sm_scale, Out, stride_qz, stride_qh, stride_qm, stride_qk, stride_kz, stride_kh,
                  stride_kn, stride_kk, stride_vz, stride_vh, stride_vk, stride_vn, stride_oz, stride_oh,
                  stride_om, stride_on, H, N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
        start_m = tl.program_id(0)
        off_hz = tl.program_id(1)
        off_z = off_hz // H
        off_h = off_hz % H
        q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
        k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
        v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
        o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh
        Q_block_ptr = tl.make_block_ptr(base=Q + q_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_qm, stride_qk),
                                        offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM),
                                        order=(1, 0))
        K_block_ptr = tl.make_block_ptr(base=K + k_offset, shape=(HEAD_DIM, N_CTX), strides=(stride_kk, stride_kn),
                                        offsets=(0, 0), block_shape=(HEAD_DIM, BLOCK_N), order=(0, 1))
        V_block_ptr = tl.make_block_ptr(base=V + v_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_vk, stride_vn),
                                        offsets=(0, 0), block_shape=(BLOCK_N, HEAD_DIM), order=(1, 0))
        O_block_ptr = tl.make_block_ptr(base=Out + o_offset, shape=(N_CTX, HEAD_DIM), strides=(stride_om, stride_on),
                                        offsets=(start_m * BLOCK_M, 0), block_shape=(BLOCK_M, HEAD_DIM),
                                        order=(1, 0))
        offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.arange(0, BLOCK_N)
        m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
        l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
        qk_scale = sm_scale * 1.44269504
        q = tl.load(Q_block_ptr, boundary_check=(0,))
        hi = N_CTX
        if CAUSAL:
            hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
        for start_n in range(0, hi, BLOCK_N):
            k = tl.load(K_block_ptr, boundary_check=(1,))
            qk = tl.dot(q, k) * qk_scale
            valid = (start_n + offs_n)[None, :] < N_CTX
            if CAUSAL:
                valid = valid & (offs_m[:, None] >= (start_n + offs_n)[None, :])
            qk = tl.where(valid, qk, -1.0e6)
            m_ij = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_ij[:, None])
            alpha = tl.math.exp2(m_i - m_ij)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None]
            v = tl.load(V_block_ptr, boundary_check=(0,))
            acc = tl.dot(p.to(tl.float16), v, acc)
            m_i = m_ij
            K_block_ptr = tl.advance(K_block_ptr, (0, BLOCK_N))
            V_block_ptr = tl.advance(V_block_ptr, (BLOCK_N, 0))
        acc = acc / l_i[:, None]
        tl.store(O_block_ptr, acc.to(Out.dtype.element_ty), boundary_check=(0,))

    return {"_attn_fwd": _attn_fwd}


COMPILE = {"_attn_fwd": [("*fp16,*fp16,*fp16,fp32,*fp16" + ",i32" * 18,
                          dict(BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=64, CAUSAL=causal),
                          dict(num_warps=4, num_stages=2)) for causal in (True, False)]}


def inputs(case, device):
    import torch

    shape = (case["Z"], case["H"], case["N"], case["D"])
    return {n: torch.randn(shape, device=device, dtype=torch.float16) for n in "qkv"}


def launch(k, inp, case):
    import torch

    q, kk, v = inp["q"], inp["k"], inp["v"]
    Z, H, N, D = q.shape
    o = torch.empty_like(q)
    sm_scale = D ** -0.5
    grid = ((N + BLOCK_M - 1) // BLOCK_M, Z * H)
    k["_attn_fwd"][grid](q, kk, v, sm_scale, o, *q.stride(), *kk.stride(), *v.stride(), *o.stride(), H, N,
                         BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, HEAD_DIM=D, CAUSAL=case["causal"], num_warps=4,
                         num_stages=2)
    return o


def reference(inp, case):
    import torch

    q, kk, v = (inp[n].double() for n in "qkv")
    s = (q @ kk.transpose(-1, -2)) * case["D"] ** -0.5
    if case["causal"]:
        n = case["N"]
        keep = torch.ones(n, n, dtype=torch.bool, device=s.device).tril()
        s = s.masked_fill(~keep, float("-inf"))
    return torch.softmax(s, dim=-1) @ v


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
