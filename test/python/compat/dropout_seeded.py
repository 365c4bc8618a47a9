"""Seeded dropout in the low-memory form of Triton's dropout tutorial
(04): no mask tensor is stored, each element draws `tl.rand(seed, offset)`
and is kept (scaled by 1/(1-p)) where the draw exceeds p. The reference
recomputes the draws with a numpy Philox 4x32-10 (the generator
`tl.rand` is specified to use, as in Triton), so every kept/dropped
decision is checked, not only their proportion."""

CASES = [dict(name="100003 p=0.3", n=100003, p=0.3, seed=123457),
         dict(name="4096 p=0.5", n=4096, p=0.5, seed=2026)]


def define(jit, tl):
    @jit
    def _seeded_dropout(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(axis=0)
        block_start = pid * BLOCK_SIZE
        offsets = block_start + tl.arange(0, BLOCK_SIZE)
        mask = offsets < n_elements
        x = tl.load(x_ptr + offsets, mask=mask)
        random = tl.rand(seed, offsets)
        x_keep = random > p
        output = tl.where(x_keep, x / (1 - p), 0.0)
        tl.store(output_ptr + offsets, output, mask=mask)

    return {"_seeded_dropout": _seeded_dropout}


COMPILE = {"_seeded_dropout": ("*fp32,*fp32,i32,fp32,i32", dict(BLOCK_SIZE=1024), {})}


def inputs(case, device):
    import torch

    return dict(x=torch.randn(case["n"], device=device))


def launch(k, inp, case):
    import torch

    x = inp["x"]
    output = torch.empty_like(x)
    n = x.numel()
    k["_seeded_dropout"][((n + 1023) // 1024,)](x, output, n, case["p"], case["seed"], BLOCK_SIZE=1024)
    return output


def philox_uniform(seed, n):
    """tl.rand(seed, arange(n)) in numpy: Philox 4x32 with 10 rounds on the
    counter (offset, 0, 0, 0) and the key (seed's low and high words), the
    first word mapped to [0, 1) as uint_to_uniform_float does (in fp32)."""
    import numpy as np

    mask = np.uint64(0xFFFFFFFF)
    c0 = np.arange(n, dtype=np.uint64)
    c1 = np.zeros(n, np.uint64)
    c2 = np.zeros(n, np.uint64)
    c3 = np.zeros(n, np.uint64)
    k0, k1 = np.uint64(seed & 0xFFFFFFFF), np.uint64((seed >> 32) & 0xFFFFFFFF)
    for _ in range(10):
        p0 = np.uint64(0xD2511F53) * c0
        p2 = np.uint64(0xCD9E8D57) * c2
        c0, c1, c2, c3 = ((p2 >> np.uint64(32)) ^ c1 ^ k0, p2 & mask,
                          (p0 >> np.uint64(32)) ^ c3 ^ k1, p0 & mask)
        k0 = (k0 + np.uint64(0x9E3779B9)) & mask
        k1 = (k1 + np.uint64(0xBB67AE85)) & mask
    x = c0.astype(np.uint32).view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x).astype(np.int32)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def reference(inp, case):
    import torch

    x = inp["x"].double()
    import numpy as np

    # The kernel compares in fp32 (p is an fp32 argument).
    keep = torch.from_numpy(philox_uniform(case["seed"], case["n"]) > np.float32(case["p"])).to(x.device)
    return torch.where(keep, x / (1 - case["p"]), torch.zeros_like(x))


TOLERANCE = dict(rtol=1e-6, atol=1e-7)
