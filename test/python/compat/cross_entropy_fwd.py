"""Cross-entropy forward over a large vocabulary, the form of the fused
cross-entropy kernels of LLM training libraries: one program per row
streams the logits in BLOCK_SIZE chunks with an online log-sum-exp (a
running max and a rescaled sum), picks the target's logit, skips rows
whose target is ignore_index (-100) with an early `return` after storing
a zero loss, and stores the row's loss and log-sum-exp (for the
backward)."""

CASES = [dict(name="64x32000", M=64, V=32000), dict(name="37x5003", M=37, V=5003)]
IGNORE_INDEX = -100


def define(jit, tl):
    @jit
    def cross_entropy_fwd_kernel(logits_ptr, logits_stride, targets_ptr, loss_ptr, lse_ptr, n_cols,
                                 ignore_index, BLOCK_SIZE: tl.constexpr):
        row = tl.program_id(0).to(tl.int64)
        logits_ptr += row * logits_stride
        target = tl.load(targets_ptr + row)
        if target == ignore_index:
            tl.store(loss_ptr + row, 0.0)
            tl.store(lse_ptr + row, 0.0)
            return
        m = -float("inf")
        d = 0.0
        for start in range(0, n_cols, BLOCK_SIZE):
            cols = start + tl.arange(0, BLOCK_SIZE)
            x = tl.load(logits_ptr + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
            block_max = tl.max(x, axis=0)
            m_new = tl.maximum(m, block_max)
            d = d * tl.exp(m - m_new) + tl.sum(tl.exp(x - m_new), axis=0)
            m = m_new
        lse = m + tl.log(d)
        target_logit = tl.load(logits_ptr + target).to(tl.float32)
        tl.store(loss_ptr + row, lse - target_logit)
        tl.store(lse_ptr + row, lse)

    return {"cross_entropy_fwd_kernel": cross_entropy_fwd_kernel}


COMPILE = {"cross_entropy_fwd_kernel": ("*bf16,i32,*i64,*fp32,*fp32,i32,i32", dict(BLOCK_SIZE=4096),
                                        dict(num_warps=8))}


def inputs(case, device):
    import torch

    M, V = case["M"], case["V"]
    targets = torch.randint(0, V, (M,), device=device, dtype=torch.int64)
    targets[::5] = IGNORE_INDEX
    return dict(logits=4 * torch.randn(M, V, device=device, dtype=torch.bfloat16), targets=targets)


def launch(k, inp, case):
    import torch

    logits, targets = inp["logits"], inp["targets"]
    M, V = logits.shape
    loss = torch.empty(M, device=logits.device, dtype=torch.float32)
    lse = torch.empty(M, device=logits.device, dtype=torch.float32)
    k["cross_entropy_fwd_kernel"][(M,)](logits, logits.stride(0), targets, loss, lse, V, IGNORE_INDEX,
                                        BLOCK_SIZE=4096, num_warps=8)
    return loss, lse


def reference(inp, case):
    import torch

    x, t = inp["logits"].double(), inp["targets"]
    keep = t != IGNORE_INDEX
    lse = torch.logsumexp(x, dim=1)
    picked = x.gather(1, t.clamp(min=0)[:, None])[:, 0]
    zero = torch.zeros_like(lse)
    return torch.where(keep, lse - picked, zero), torch.where(keep, lse, zero)


TOLERANCE = dict(rtol=1e-4, atol=1e-4)
