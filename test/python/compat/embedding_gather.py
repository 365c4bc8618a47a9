"""Embedding lookup: a block of token ids per program, each id's row of
the table gathered with 64-bit row offsets (`ids.to(tl.int64) * stride`),
the hidden dimension in chunks, out-of-range (padding) ids written as
zeros: the form of fused embedding kernels."""

CASES = [dict(name="300 tokens V1000 D768", T=300, V=1000, D=768), dict(name="17 tokens V50 D100", T=17, V=50, D=100)]
BLOCK_T, BLOCK_D = 8, 128


def define(jit, tl):
    @jit
    def embedding_kernel(ids_ptr, table_ptr, out_ptr, n_tokens, vocab, dim, stride_table, stride_out,
                         BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
        toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
        ids = tl.load(ids_ptr + toks, mask=toks < n_tokens, other=-1)
        valid = (ids >= 0) & (ids < vocab)
        rows = tl.where(valid, ids, 0).to(tl.int64)
        for d0 in range(0, dim, BLOCK_D):
            d = d0 + tl.arange(0, BLOCK_D)
            m = valid[:, None] & (d[None, :] < dim)
            v = tl.load(table_ptr + rows[:, None] * stride_table + d[None, :], mask=m, other=0.0)
            tl.store(out_ptr + toks[:, None].to(tl.int64) * stride_out + d[None, :], v,
                     mask=(toks[:, None] < n_tokens) & (d[None, :] < dim))

    return {"embedding_kernel": embedding_kernel}


COMPILE = {"embedding_kernel": ("*i32,*fp16,*fp16,i32,i32,i32,i32,i32", dict(BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D), {})}


def inputs(case, device):
    import torch

    T, V, D = case["T"], case["V"], case["D"]
    ids = torch.randint(0, V, (T,), device=device, dtype=torch.int32)
    ids[::7] = -1
    ids[3::11] = V + 5
    return dict(ids=ids, table=torch.randn(V, D, device=device, dtype=torch.float16))


def launch(k, inp, case):
    import torch

    ids, table = inp["ids"], inp["table"]
    T, (V, D) = ids.numel(), table.shape
    out = torch.empty((T, D), device=table.device, dtype=table.dtype)
    k["embedding_kernel"][((T + BLOCK_T - 1) // BLOCK_T,)](ids, table, out, T, V, D, table.stride(0), out.stride(0),
                                                          BLOCK_T=BLOCK_T, BLOCK_D=BLOCK_D)
    return out


def reference(inp, case):
    import torch

    ids, table = inp["ids"].long(), inp["table"].double()
    valid = (ids >= 0) & (ids < table.shape[0])
    return torch.where(valid[:, None], table[ids.clamp(0, table.shape[0] - 1)], torch.zeros((), dtype=table.dtype,
                                                                                           device=table.device))


TOLERANCE = dict(rtol=0, atol=0)
