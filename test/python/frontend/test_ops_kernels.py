"""The kernels of tilelang.ops (tilelang.ops.kernels) through the whole
compiler on the CPU: each variant the operators launch (every flag of the
norm and softmax kernels, each matmul epilogue, each supported dtype) at a
ragged size compiles to PTX for sm_90a and sm_80; and tilelang.ops without
torch: importing it, its kernels and its spaces works, using an operator
is an ImportError that says what to install."""

import subprocess
import sys
import textwrap

import pytest

import tilelang
import tilelang.language as tl
from tilelang.ops import kernels as package
from tilelang_testing import FakeTensor

KERNELS = package.define(tilelang.jit, tl)
M, N = 1000, 999


def t(shape, dtype):
    return FakeTensor(shape, dtype)


def row_cases(dtype):
    x, w, r, part = t((M, N), dtype), t((N,), dtype), t((M,), "float32"), t((8, N), "float32")
    fused = ("norm_bwd_fused", (x, part, part, x, x, w, r, r, N, M, N))
    return [
        ("layer_norm_fwd", (x, x, w, w, r, r, N, N, 1e-5), dict(BLOCK_SIZE=1024)),
        ("layer_norm_fwd", (x, x, w, w, r, r, N, N, 1e-5), dict(BLOCK_SIZE=1024, ROW_FITS=True)),
        ("rms_norm_fwd", (x, x, w, r, N, N, 1e-6), dict(BLOCK_SIZE=512)),
        ("rms_norm_fwd", (x, x, w, r, N, N, 1e-6), dict(BLOCK_SIZE=1024, ROW_FITS=True)),
        ("norm_bwd_dx", (x, x, x, w, r, r, N, N), dict(RMS=False, BLOCK_SIZE=1024)),
        ("norm_bwd_dx", (x, x, x, w, r, r, N, N), dict(RMS=True, BLOCK_SIZE=256)),
        (*fused, dict(RMS=False, INPUT_GRAD=True, WEIGHT_GRAD=True, HAS_BIAS=True, ROWS=4, BLOCK_SIZE=1024)),
        (*fused, dict(RMS=True, INPUT_GRAD=True, WEIGHT_GRAD=True, HAS_BIAS=False, ROWS=1, BLOCK_SIZE=1024)),
        (*fused, dict(RMS=False, INPUT_GRAD=True, WEIGHT_GRAD=False, HAS_BIAS=False, ROWS=2, BLOCK_SIZE=1024)),
        (*fused, dict(RMS=False, INPUT_GRAD=False, WEIGHT_GRAD=True, HAS_BIAS=True, ROWS=2, BLOCK_SIZE=1024)),
        (*fused, dict(RMS=True, INPUT_GRAD=True, WEIGHT_GRAD=False, HAS_BIAS=False, ROWS=4, BLOCK_SIZE=1024,
                      ROWS_64=True)),
        ("norm_bwd_dwdb", (part, part, x, x, r, r, N, M, N, 125), dict(RMS=False, HAS_BIAS=True, BLOCK_M=32,
                                                                       BLOCK_N=128)),
        ("norm_bwd_dwdb", (part, part, x, x, r, r, N, M, N, 125), dict(RMS=True, HAS_BIAS=False, BLOCK_M=64,
                                                                       BLOCK_N=64)),
        ("column_sum", (w, part, w, part, 8, N), dict(TWO=True, BLOCK_G=64, BLOCK_N=32)),
        ("column_sum", (w, part, w, part, 8, N), dict(TWO=False, BLOCK_G=32, BLOCK_N=128)),
        ("softmax_fwd", (x, x, N, N, N), dict(ROW_FITS=True, BLOCK_SIZE=1024)),
        ("softmax_fwd", (x, x, N, N, N), dict(ROW_FITS=False, BLOCK_SIZE=256)),
        ("softmax_bwd", (x, x, x, N, N, N, N), dict(ROW_FITS=True, BLOCK_SIZE=1024)),
        ("softmax_bwd", (x, x, x, N, N, N, N), dict(ROW_FITS=False, BLOCK_SIZE=256)),
    ]


CASES = [(dtype, *case) for dtype in ("float16", "bfloat16", "float32") for case in row_cases(dtype)]


@pytest.mark.parametrize("dtype,name,args,constexprs", CASES,
                         ids=[f"{c[1]}-{c[0]}-" + "-".join(f"{k}{v}" for k, v in c[3].items()) for c in CASES])
def test_row_kernels_compile(dtype, name, args, constexprs):
    compiled = KERNELS[name].warmup(*args, num_warps=4, **constexprs)
    for arch in ("sm_90a", "sm_80"):
        assert ".entry" in compiled.to_ptx(arch).ptx
    ir = compiled.asm["tile"]
    # The chunked forms loop over the row (or the rows); the register forms
    # (ROW_FITS) do not; the fused backward loops over its tiles of rows.
    assert ("scf.for" in ir) == (not constexprs.get("ROW_FITS", False))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("activation", ["none", "relu", "gelu", "silu"])
def test_matmul_epilogue_compiles(dtype, activation):
    k = 333
    a, b, c, bias = t((M, k), dtype), t((k, N), dtype), t((M, N), dtype), t((N,), dtype)
    compiled = KERNELS["matmul_epilogue_kernel"].warmup(
        a, b, bias, c, M, N, k, k, 1, N, 1, N, 1, HAS_BIAS=activation != "none", ACTIVATION=activation,
        BLOCK_SIZE_M=128, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3)
    ir = compiled.asm["tile"]
    assert ("math.erf" in ir) == (activation == "gelu")
    assert ("math.exp" in ir) == (activation == "silu")
    for arch in ("sm_90a", "sm_80"):
        assert ".entry" in compiled.to_ptx(arch).ptx


def test_bench_kernels_are_the_package_kernels():
    from tilelang_testing import REPO_ROOT, load_module

    bench = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")
    assert set(bench.define(tilelang.jit, tl)) == set(KERNELS) | {"tiny"}
    assert bench.matmul_args is package.matmul_args and bench.attention_reference is package.attention_reference


def test_norm_backward_forms_its_large_offsets_in_64_bits():
    """norm_bwd_dwdb's partial sums start pid_m * N elements in: a 64-bit
    product (256 groups of rows of 8.4M elements pass 2**31); the kernel's
    other scalar products stay 32-bit. norm_bwd_fused with ROWS_64 counts
    its rows in 64 bits (the loop, so the tile's rows too); without it the
    loop is 32-bit, as before."""
    import re

    x, w, r, part = t((M, N), "float16"), t((N,), "float16"), t((M,), "float32"), t((8, N), "float32")
    dwdb = KERNELS["norm_bwd_dwdb"].warmup(part, part, x, x, r, r, N, M, N, 125, RMS=False, HAS_BIAS=True,
                                           BLOCK_M=32, BLOCK_N=128, num_warps=4).asm["tile"]
    scalar_products = re.findall(r"arith\.muli %\w+, %\w+ : (i\d+)$", dwdb, re.M)
    assert scalar_products.count("i64") == 1 and "i32" in scalar_products
    fused = ("norm_bwd_fused", (x, part, part, x, x, w, r, r, N, M, N))
    for rows_64 in (False, True):
        ir = KERNELS[fused[0]].warmup(*fused[1], RMS=True, INPUT_GRAD=True, WEIGHT_GRAD=False, HAS_BIAS=False,
                                      ROWS=4, BLOCK_SIZE=1024, ROWS_64=rows_64, num_warps=4).asm["tile"]
        loops = re.findall(r"scf\.for .* : (i\d+) \{$", ir, re.M)
        assert loops == ["i64" if rows_64 else "i32"]


def test_ops_without_torch():
    """In a process where torch cannot be imported."""
    code = textwrap.dedent("""
        import sys
        sys.modules["torch"] = None  # import torch raises ImportError
        import tilelang.ops, tilelang.ops.kernels, tilelang.ops.spaces
        assert "matmul" in dir(tilelang.ops)
        try:
            tilelang.ops.matmul
        except ImportError as exc:
            print(exc)
        else:
            raise SystemExit("no ImportError")
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "tilelang.ops needs torch" in result.stdout and "tilelang-mlir[torch]" in result.stdout
    assert "Traceback" not in result.stdout


def _ptxstats():
    from tilelang_testing import REPO_ROOT, load_module

    return load_module("ptxstats", REPO_ROOT / "bench" / "parity" / "ptxstats.py")


def _epilogue_stats(k, row_stride, **constexprs):
    """ptxstats' analysis (whole kernel and main loop) of tilelang.ops'
    matmul (bias, gelu) at 4096 x 4096 x k, 128x256x64 w8 s3, for sm_90a,
    A's rows `row_stride` elements apart."""
    a, b, c, bias = t((4096, k), "float16"), t((k, 4096), "float16"), t((4096, 4096), "float16"), t((4096,), "float16")
    compiled = KERNELS["matmul_epilogue_kernel"].warmup(
        a, b, bias, c, 4096, 4096, k, row_stride, 1, 4096, 1, 4096, 1, HAS_BIAS=True, ACTIVATION="gelu",
        BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8, num_warps=8, num_stages=3, **constexprs)
    return _ptxstats().analyze(compiled.to_ptx("sm_90a").ptx)


def _epilogue_loop(k, row_stride, **constexprs):
    """The main loop's counts of _epilogue_stats."""
    return _epilogue_stats(k, row_stride, **constexprs)["loop"]


def test_matmul_loop_keeps_its_async_copies_at_a_ragged_k():
    """K = 1000 (no multiple of 16; A's rows padded to 1008 by the operator):
    the main loop runs whole K blocks under row and column masks only, so
    both operands arrive by 16-byte async copies as at K = 4096 (12 a
    thread at 128x256x64 over 8 warps), with the same waits and barriers;
    the partial block is one masked step after the loop. With the K mask in
    the loop, A went through registers (8 copies, three barriers)."""
    fields = ("cp_async", "wgmma_waits", "barriers", "shared_stores", "local")
    even = _epilogue_loop(4096, 4096, EVEN_K=True)
    ragged = _epilogue_loop(1000, 1008, EVEN_K=False)
    assert even["cp_async"] == 12 and even["local"] == 0, even
    assert [ragged[f] for f in fields] == [even[f] for f in fields], (ragged, even)


def test_matmul_offsets_64_keep_the_loop():
    """OFFSETS_64 (an operand or the output of 2**31 elements or more): the
    tile's first row of A and column of B move the base pointers in 64
    bits and the offsets within the tile stay 32-bit tensors, so the main
    loop is the 32-bit form's (the same copies, products, waits and
    barriers; no local memory)."""
    fields = ("cp_async", "wgmma", "wgmma_waits", "barriers", "shared_stores", "local")
    narrow = _epilogue_loop(4096, 4096, EVEN_K=True)
    wide = _epilogue_loop(4096, 4096, EVEN_K=True, OFFSETS_64=True)
    assert [wide[f] for f in fields] == [narrow[f] for f in fields], (wide, narrow)


def test_matmul_keeps_a_ragged_last_k_block_in_its_loop():
    """K = 1000, a multiple of 8 but not of the block (64): with K_GROUP the
    partial last block runs in the pipelined loop under a mask of whole
    16-byte groups, so the kernel's PTX has the shape of an even K's (the
    same copies, waits and barriers in the loop; no products after it),
    where the masked step after the loop adds its own products and
    register-staged loads."""
    fields = ("cp_async", "wgmma", "wgmma_waits", "barriers", "shared_stores", "local")
    even, grouped, stepped = (_epilogue_stats(4096, 4096, EVEN_K=True), _epilogue_stats(1000, 1008, K_GROUP=8),
                              _epilogue_stats(1000, 1008))
    assert [grouped["loop"][f] for f in fields] == [even["loop"][f] for f in fields], (grouped["loop"], even["loop"])
    assert grouped["counts"]["wgmma"] == even["counts"]["wgmma"] == even["loop"]["wgmma"]
    assert grouped["counts"]["shared_stores"] == even["counts"]["shared_stores"]
    assert stepped["counts"]["wgmma"] > even["counts"]["wgmma"]  # the step after the loop


def test_matmul_keeps_its_copies_at_rows_8_elements_apart():
    """A's rows 1000 elements apart (2000 bytes: 16-byte aligned): the
    launch's specialization records the stride's divisibility (8), so the
    loop is an even K's, 16-byte async copies of both operands with no copy
    of A first, with or without the operator's promise (STRIDES_OF_8, bits
    of stride_am and stride_bk). 1004 apart (divisible by 4): A in 8-byte
    copies, twice as many. An odd stride: A through registers (fewer
    copies, its stores to shared memory, a third barrier)."""
    fields = ("cp_async", "wgmma", "barriers", "shared_stores", "local")
    even = _epilogue_loop(4096, 4096, EVEN_K=True)
    promised = _epilogue_loop(1000, 1000, K_GROUP=8, STRIDES_OF_8=0b0101)
    specialized = _epilogue_loop(1000, 1000, K_GROUP=8)
    by_4 = _epilogue_loop(1000, 1004, K_GROUP=8)
    odd = _epilogue_loop(1000, 1001, K_GROUP=8)
    assert [promised[f] for f in fields] == [even[f] for f in fields], (promised, even)
    assert [specialized[f] for f in fields] == [even[f] for f in fields], (specialized, even)
    assert by_4["cp_async"] == even["cp_async"] + even["cp_async"] // 3 and by_4["shared_stores"] == 0, by_4
    assert odd["cp_async"] < even["cp_async"] and odd["shared_stores"] > 0, odd


def _spills(name, args, **options):
    ptxstats = _ptxstats()
    ptx = KERNELS[name].warmup(*args, **options).to_ptx("sm_90a").ptx
    return ptxstats.resources(ptx, "sm_90a")["spill_stores"]


@pytest.mark.skipif(_ptxstats().find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("n", [4096, 16384, 20000])
def test_row_kernels_do_not_spill_under_the_configs_they_are_tuned_over(n):
    """fp32 rows (the most registers a row takes), every config prune_rows
    keeps, each row kernel in the form its config selects: no local memory
    (at 64 elements a thread, layer_norm_fwd's row spilled 440 B and the
    chunked softmax 768 B)."""
    from tilelang.ops import spaces

    x, w, r = t((64, n), "float32"), t((n,), "float32"), t((64,), "float32")
    for config in spaces.prune_rows("N")(spaces.configs(spaces.ROWS), {"N": n}):
        block, warps = config.kwargs["BLOCK_SIZE"], config.num_warps
        fits = dict(ROW_FITS=n <= block)
        cases = [("softmax_fwd", (x, x, n, n, n), fits), ("softmax_bwd", (x, x, x, n, n, n, n), fits),
                 ("layer_norm_fwd", (x, x, w, w, r, r, n, n, 1e-5), fits),
                 ("rms_norm_fwd", (x, x, w, r, n, n, 1e-6), fits)]
        if n > block:
            cases.append(("norm_bwd_dx", (x, x, x, w, r, r, n, n), dict(RMS=False)))
        for name, args, flags in cases:
            assert _spills(name, args, num_warps=warps, BLOCK_SIZE=block, **flags) == 0, (name, block, warps)


@pytest.mark.skipif(_ptxstats().find_ptxas() is None, reason="needs ptxas")
@pytest.mark.parametrize("n", [1024, 4096, 8192])
def test_fused_norm_backward_does_not_spill(n):
    """norm_bwd_fused, fp32, layer norm with bias (the most registers), every
    config prune_norm_bwd keeps: no local memory (a 16384-wide row over 16
    warps, 32 elements a thread, spilled 592 B)."""
    from tilelang.ops import spaces

    x, w, r, part = t((64, n), "float32"), t((n,), "float32"), t((64,), "float32"), t((16, n), "float32")
    for config in spaces.prune_norm_bwd(spaces.configs(spaces.NORM_BWD), {"N": n}):
        assert _spills("norm_bwd_fused", (x, part, part, x, x, w, r, r, n, 64, n), num_warps=config.num_warps,
                       RMS=False, INPUT_GRAD=True, WEIGHT_GRAD=True, HAS_BIAS=True, **config.kwargs) == 0, config
