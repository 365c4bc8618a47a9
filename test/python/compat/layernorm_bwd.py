"""LayerNorm backward in the form of Triton's layer-norm tutorial (05): one
program per row computes dx with the whole row in registers and adds its
dw/db terms into one of GROUP_SIZE_M partial rows taken under a spin lock
(`while tl.atomic_cas(Lock, 0, 1) == 1: pass`, a count marking the first
writer, `tl.atomic_xchg` to release); a second kernel sums the partial
rows (a two-stage reduction)."""

CASES = [dict(name="300x1000", M=300, N=1000), dict(name="67x2048", M=67, N=2048)]
EPS = 1e-5
GROUP_SIZE_M = 64


def define(jit, tl):
    @jit
    def _layer_norm_bwd_dx_fused(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                                 GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK_SIZE_N)
        mask = cols < N
        X += row * stride
        DY += row * stride
        DX += row * stride
        lock_id = row % GROUP_SIZE_M
        Lock += lock_id
        Count = Lock + GROUP_SIZE_M
        DW = DW + lock_id * N + cols
        DB = DB + lock_id * N + cols
        x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
        dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
        w = tl.load(W + cols, mask=mask).to(tl.float32)
        mean = tl.load(Mean + row)
        rstd = tl.load(Rstd + row)
        xhat = (x - mean) * rstd
        wdy = w * dy
        xhat = tl.where(mask, xhat, 0.0)
        wdy = tl.where(mask, wdy, 0.0)
        c1 = tl.sum(xhat * wdy, axis=0) / N
        c2 = tl.sum(wdy, axis=0) / N
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(DX + cols, dx, mask=mask)
        partial_dw = dy * xhat
        partial_db = dy
        while tl.atomic_cas(Lock, 0, 1) == 1:
            pass
        count = tl.load(Count)
        if count == 0:
            tl.atomic_xchg(Count, 1)
        else:
            partial_dw += tl.load(DW, mask=mask)
            partial_db += tl.load(DB, mask=mask)
        tl.store(DW, partial_dw, mask=mask)
        tl.store(DB, partial_db, mask=mask)
        tl.debug_barrier()
        tl.atomic_xchg(Lock, 0)

    @jit
    def _layer_norm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr,
                             BLOCK_SIZE_N: tl.constexpr):
        pid = tl.program_id(0)
        cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
        dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for i in range(0, M, BLOCK_SIZE_M):
            rows = i + tl.arange(0, BLOCK_SIZE_M)
            mask = (rows[:, None] < M) & (cols[None, :] < N)
            offs = rows[:, None] * N + cols[None, :]
            dw += tl.load(DW + offs, mask=mask, other=0.0)
            db += tl.load(DB + offs, mask=mask, other=0.0)
        tl.store(FINAL_DW + cols, tl.sum(dw, axis=0), mask=cols < N)
        tl.store(FINAL_DB + cols, tl.sum(db, axis=0), mask=cols < N)

    return {"_layer_norm_bwd_dx_fused": _layer_norm_bwd_dx_fused, "_layer_norm_bwd_dwdb": _layer_norm_bwd_dwdb}


COMPILE = {
    "_layer_norm_bwd_dx_fused": [("*fp16,*fp16,*fp32,*fp32,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32",
                                  dict(GROUP_SIZE_M=GROUP_SIZE_M, BLOCK_SIZE_N=n), dict(num_warps=8))
                                 for n in (1024, 2048)],
    "_layer_norm_bwd_dwdb": ("*fp32,*fp32,*fp32,*fp32,i32,i32", dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=128), {}),
}


def inputs(case, device):
    import torch

    M, N = case["M"], case["N"]
    x = -2.3 + 0.5 * torch.randn(M, N, device=device, dtype=torch.float16)
    x64 = x.double()
    mean = x64.mean(dim=1)
    rstd = 1 / ((x64 - mean[:, None]) ** 2).mean(dim=1).add(EPS).sqrt()
    return dict(dy=0.1 * torch.randn_like(x), x=x, w=torch.rand(N, device=device, dtype=torch.float16),
                mean=mean.float(), rstd=rstd.float())


def launch(k, inp, case):
    import torch

    dy, x, w, mean, rstd = (inp[n] for n in ("dy", "x", "w", "mean", "rstd"))
    M, N = x.shape
    locks = torch.zeros(2 * GROUP_SIZE_M, dtype=torch.int32, device=x.device)
    _dw = torch.zeros((GROUP_SIZE_M, N), dtype=torch.float32, device=x.device)
    _db = torch.zeros((GROUP_SIZE_M, N), dtype=torch.float32, device=x.device)
    dw = torch.empty(N, dtype=torch.float32, device=x.device)
    db = torch.empty(N, dtype=torch.float32, device=x.device)
    dx = torch.empty_like(dy)
    BLOCK_SIZE_N = 1 << (N - 1).bit_length()
    k["_layer_norm_bwd_dx_fused"][(M,)](dx, dy, _dw, _db, x, w, mean, rstd, locks, x.stride(0), N,
                                        GROUP_SIZE_M=GROUP_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N, num_warps=8)
    k["_layer_norm_bwd_dwdb"][((N + 127) // 128,)](_dw, _db, dw, db, min(GROUP_SIZE_M, M), N,
                                                   BLOCK_SIZE_M=32, BLOCK_SIZE_N=128)
    return dx, dw, db


def reference(inp, case):
    dy, x, w, mean, rstd = (inp[n].double() for n in ("dy", "x", "w", "mean", "rstd"))
    xhat = (x - mean[:, None]) * rstd[:, None]
    wdy = w * dy
    c1 = (xhat * wdy).mean(dim=1, keepdim=True)
    c2 = wdy.mean(dim=1, keepdim=True)
    dx = (wdy - (xhat * c1 + c2)) * rstd[:, None]
    return dx, (dy * xhat).sum(dim=0), dy.sum(dim=0)


TOLERANCE = dict(rtol=1e-2, atol=1e-2)
