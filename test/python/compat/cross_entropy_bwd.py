"""Cross-entropy backward, written as the fused kernels of LLM libraries
write it: one program per row recomputes softmax(logits) from the saved
log-sum-exp chunk by chunk, subtracts one at the target and scales by the
incoming gradient over the number of counted rows (mean reduction);
ignored rows (-100) get a zero gradient. bf16 logits and gradient."""

CASES = [dict(name="32x32000", M=32, V=32000), dict(name="23x3001", M=23, V=3001)]
IGNORE_INDEX = -100


def define(jit, tl):
    @jit
    def cross_entropy_bwd_kernel(logits_ptr, dlogits_ptr, stride, targets_ptr, lse_ptr, dloss, n_counted, n_cols,
                                 ignore_index, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        logits_ptr += row * stride
        dlogits_ptr += row * stride
        target = tl.load(targets_ptr + row)
        lse = tl.load(lse_ptr + row)
        scale = tl.where(target == ignore_index, 0.0, dloss / n_counted)
        for start in range(0, n_cols, BLOCK_SIZE):
            cols = start + tl.arange(0, BLOCK_SIZE)
            mask = cols < n_cols
            x = tl.load(logits_ptr + cols, mask=mask, other=0.0).to(tl.float32)
            p = tl.exp(x - lse)
            g = (p - tl.where(cols == target, 1.0, 0.0)) * scale
            tl.store(dlogits_ptr + cols, g.to(tl.bfloat16), mask=mask)

    return {"cross_entropy_bwd_kernel": cross_entropy_bwd_kernel}


COMPILE = {"cross_entropy_bwd_kernel": ("*bf16,*bf16,i32,*i64,*fp32,fp32,fp32,i32,i32", dict(BLOCK_SIZE=2048),
                                        dict(num_warps=8))}


def inputs(case, device):
    import torch

    M, V = case["M"], case["V"]
    logits = 3 * torch.randn(M, V, device=device, dtype=torch.bfloat16)
    targets = torch.randint(0, V, (M,), device=device, dtype=torch.int64)
    targets[1::4] = IGNORE_INDEX
    lse = torch.logsumexp(logits.double(), dim=1).float()
    return dict(logits=logits, targets=targets, lse=lse)


def launch(k, inp, case):
    import torch

    logits, targets = inp["logits"], inp["targets"]
    M, V = logits.shape
    dlogits = torch.empty_like(logits)
    n_counted = float((targets != IGNORE_INDEX).sum().item())
    k["cross_entropy_bwd_kernel"][(M,)](logits, dlogits, logits.stride(0), targets, inp["lse"], 2.0, n_counted, V,
                                        IGNORE_INDEX, BLOCK_SIZE=2048, num_warps=8)
    return dlogits


def reference(inp, case):
    import torch

    x = inp["logits"].double().requires_grad_()
    loss = torch.nn.functional.cross_entropy(x, inp["targets"], ignore_index=IGNORE_INDEX, reduction="mean")
    (grad,) = torch.autograd.grad(2.0 * loss, x)
    return grad


TOLERANCE = dict(rtol=2e-2, atol=1e-5)
