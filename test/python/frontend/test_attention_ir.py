"""bench/kernels.py's flash-attention forward through the whole compiler on
the CPU: the kernel that a launch of kernels.attention would compile (the
same arguments, specialized as a launch specializes them, through
JITFunction.warmup with stand-in tensors), in every variant the GPU tests
run (fp16 and bf16, head dimensions 64 and 128, causal and full, sequence
lengths that the key block divides and that it does not), compiled to PTX
for sm_90a (and one for sm_80), with its resources checked; and the
wrapper's refusals of operands it cannot take."""

import os
import re
import shutil
import subprocess

import pytest

import tilelang
import tilelang.language as tl
from tilelang_testing import REPO_ROOT, FakeTensor, load_module

BENCH_KERNELS = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")
KERNELS = BENCH_KERNELS.define(tilelang.jit, tl)
ATTENTION = KERNELS["attention_fwd_kernel"]
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"

MLIR = {"float16": "f16", "bfloat16": "bf16"}


def operands(batch, heads, kv_heads, n_ctx, head_dim, dtype):
    """Stand-ins for q, k, v and out, contiguous, 16-byte aligned."""
    q = FakeTensor((batch, heads, n_ctx, head_dim), dtype, address=0x7F0000000000)
    k = FakeTensor((batch, kv_heads, n_ctx, head_dim), dtype, address=0x7F1000000000)
    v = FakeTensor((batch, kv_heads, n_ctx, head_dim), dtype, address=0x7F2000000000)
    out = FakeTensor((batch, heads, n_ctx, head_dim), dtype, address=0x7F3000000000)
    return q, k, v, out


def compile_attention(dtype, head_dim, causal, n_ctx, config=None, heads=32, kv_heads=32):
    q, k, v, out = operands(4, heads, kv_heads, n_ctx, head_dim, dtype)
    options = BENCH_KERNELS.attention_launch_options(config)
    return ATTENTION.warmup(*BENCH_KERNELS.attention_args(q, k, v, out, head_dim ** -0.5),
                            **BENCH_KERNELS.attention_constexprs(q, causal, options), **options), options


def ptxas_report(ptx, arch, tmp_path):
    path = tmp_path / "attention.ptx"
    path.write_text(ptx)
    done = subprocess.run([PTXAS, f"-arch={arch}", "-v", str(path), "-o", os.devnull], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("n_ctx", [4096, 1000])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_attention_compiles_for_sm90a(dtype, head_dim, causal, n_ctx, tmp_path):
    """The default config (128x64 query/key blocks, 8 warps, 3 stages): both
    products on wgmma, the online softmax in base 2, 64-bit head offsets,
    one loop over key blocks where no mask is needed (full attention over
    whole blocks) and a second, masked one for the causal diagonal or a
    partial last block; ptxas accepts the PTX within the register file."""
    compiled, options = compile_attention(dtype, head_dim, causal, n_ctx)
    ir = compiled.asm["tile"]
    el = MLIR[dtype]
    bm, bn = options["BLOCK_M"], options["BLOCK_N"]
    # S = Q K^T (K read transposed, HEAD_DIM x BLOCK_N) and O += P V with P in the value type.
    assert f"tensor<{bm}x{head_dim}x{el}> * tensor<{head_dim}x{bn}x{el}> -> tensor<{bm}x{bn}xf32>" in ir
    assert f"tensor<{bm}x{bn}x{el}> * tensor<{bn}x{head_dim}x{el}> -> tensor<{bm}x{head_dim}xf32>" in ir
    assert "math.exp2" in ir
    assert re.search(r"arith.extsi %\w+ : i32 to i64", ir)
    loops = len(re.findall(r"\bscf.for\b", ir))
    whole_blocks = n_ctx % bn == 0
    assert loops == (1 if whole_blocks and not causal else 2), (loops, ir)

    built = compiled.to_ptx("sm_90a")
    assert compiled.num_warps == 8 and built.num_warps == 8
    assert ".maxntid 256, 1, 1" in built.ptx
    assert "wgmma.mma_async" in built.ptx
    # wgmma reads its B operand (K^T, then V) from shared memory: at least
    # one block of each is there.
    element = 2
    assert built.shared_bytes >= 2 * bn * head_dim * element, built.shared_bytes
    if os.path.exists(PTXAS):
        report = ptxas_report(built.ptx, "sm_90a", tmp_path)
        registers = int(re.search(r"Used (\d+) registers", report).group(1))
        assert 0 < registers <= 255, report


PTXSTATS = load_module("ptxstats", REPO_ROOT / "bench" / "parity" / "ptxstats.py")
# wgmma with A in 4 registers (P) and B through a descriptor.
REGISTER_A_WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.(?:f16|bf16)\.(?:f16|bf16) "
                              r"\{[^}]*\}, \{%r\d+,%r\d+,%r\d+,%r\d+\}, %rd\d+")
# wgmma from shared memory that overwrites its accumulator (scale-d 0).
SCALE_D_ZERO_WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.\w+\.\w+ "
                                r"\{[^}]*\}, %rd\d+, %rd\d+, 0, 1, 1,")


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_attention_loop_stays_in_registers(dtype, head_dim, tmp_path):
    """The main loop of full attention keeps the softmax in the wgmma
    accumulator's layout and feeds P to the second product from registers
    (layout propagation, reductions on mma layouts, wgmma's register A): no
    shared-memory stores or loads besides the K/V copies, a handful of
    shuffles for the two row reductions, no spills. Both products are
    asynchronous and P V is deferred: two wgmma waits per iteration (S's
    alone, the previous P V still computing during the softmax, then that P
    V's before the rescale of O), one barrier (after the stage wait: the
    copies refill the stage read two iterations before), and S starts from
    zero through wgmma's scale-d rather than zeroed registers."""
    compiled, _ = compile_attention(dtype, head_dim, False, 4096)
    ptx = compiled.to_ptx("sm_90a").ptx
    loop = PTXSTATS.analyze(ptx)["loop"]
    assert loop["shared_stores"] == 0 and loop["shared_loads"] == 0, loop
    assert loop["barriers"] == 1 and loop["shuffles"] <= 16 and loop["local"] == 0, loop
    assert loop["wgmma_waits"] == 2, loop
    assert "wgmma.wait_group.sync.aligned 1;" in ptx, "S is not waited for alone"
    assert loop["cp_async"] > 0 and loop["wgmma"] > 0, loop
    assert REGISTER_A_WGMMA.search(ptx), "P does not reach wgmma from registers"
    assert SCALE_D_ZERO_WGMMA.search(ptx), "S is not started with scale-d 0"
    if os.path.exists(PTXAS):
        report = ptxas_report(ptx, "sm_90a", tmp_path)
        assert " 0 bytes spill stores" in report, report


@pytest.mark.parametrize("head_dim, carried", [(64, True), (128, False)])
def test_attention_carries_p_v_only_where_registers_allow(head_dim, carried):
    """With 4 warps on 128x64 blocks, keeping P V in flight across the back
    edge holds O (128x{D} fp32) and P in registers, untouchable, while the
    next S (128x64 fp32) is written: 128 + 32 + 64 of a thread's 255 at
    D = 128 (the spills of Triton's form of this config). There P V retires
    before the back edge (a second wait per iteration); at D = 64 (64 + 32 +
    64) it stays in flight (one wait)."""
    config = {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_stages": 4}
    compiled, _ = compile_attention("bfloat16", head_dim, False, 4096, config)
    ir = compiled.to_ptx("sm_90a").asm["tilegpu"]
    loop = ir[ir.index("scf.for"):]
    loop = loop[:loop.index("scf.yield")]
    assert loop.count("tilegpu.warp_group_dot_wait") == (1 if carried else 2), loop


@pytest.mark.parametrize("head_dim, block_n, num_stages, deferred",
                         [(128, 64, 3, True), (64, 64, 4, True), (64, 128, 3, False), (128, 64, 2, False)])
def test_attention_defers_p_v_where_registers_and_stages_allow(head_dim, block_n, num_stages, deferred):
    """With 8 warps, P V is issued one iteration late (after the next S, so
    that the softmax runs while it computes) where the registers in flight
    over the softmax stay within 128 a thread (O, S and two P: 64 + 32 + 32
    at 128x64, D = 128) and three stages or more leave the copies a stage to
    refill; at 128x128, D = 64 (32 + 64 + 64) and with two stages P V is
    carried in flight instead (one wait per iteration)."""
    config = {"BLOCK_M": 128, "BLOCK_N": block_n, "num_warps": 8, "num_stages": num_stages}
    compiled, _ = compile_attention("float16", head_dim, False, 4096, config)
    ir = compiled.to_ptx("sm_90a").asm["tilegpu"]
    loop = ir[ir.index("scf.for"):]
    after = loop[loop.index("scf.yield"):]
    loop = loop[:loop.index("scf.yield")]
    waits = re.findall(r"warp_group_dot_wait [^{]*\{pendings = (\d) : i32\}", loop)
    if deferred:
        assert waits == ["1", "0"], loop
        # the last iteration's P V, issued on the loop's exit path
        assert after.index("tilegpu.warp_group_dot ") < after.index("scf.yield", 1), after
    else:
        assert waits == ["0"], loop


def compile_overlapped(monkeypatch, head_dim, block_n, causal=False, num_stages=4, dtype="float16"):
    """The kernel's tile IR (8 warps, 128 query rows) compiled straight from
    the text with TILELANG_OVERLAP_PRODUCTS=1, which the compiler library
    reads at each compile (a launch's compiled kernel is kept in memory for
    the knob's earlier value)."""
    config = {"BLOCK_M": 128, "BLOCK_N": block_n, "num_warps": 8, "num_stages": num_stages}
    compiled, _ = compile_attention(dtype, head_dim, causal, 4096, config)
    monkeypatch.setenv("TILELANG_OVERLAP_PRODUCTS", "1")
    return tilelang.compile_ir(compiled.asm["tile"], arch="sm_90a", num_warps=8, num_stages=num_stages,
                               keep_stages=True)


def loop_waits(tilegpu_ir):
    """The pendings of each warp_group_dot_wait in each scf.for's body, and
    the text between each loop's last prologue copy group and the loop."""
    loops = []
    for match in re.finditer(r"scf\.for ", tilegpu_ir):
        body = tilegpu_ir[match.start():]
        body = body[:body.index("scf.yield")]
        prologue = tilegpu_ir[:match.start()]
        prologue = prologue[prologue.rindex("tilegpu.async_commit_group"):]
        loops.append((re.findall(r"warp_group_dot_wait [^{]*\{pendings = (\d) : i32\}", body), prologue))
    return loops


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("head_dim, block_n", [(128, 64), (64, 128), (64, 64)])
def test_overlap_products_issues_s_one_iteration_ahead(monkeypatch, head_dim, block_n, causal, tmp_path):
    """TILELANG_OVERLAP_PRODUCTS=1 (tilegpu-pipeline's overlap-products):
    where two S tiles, O and two P fit kAheadProductRegisters (224), every
    loop over key blocks issues S_{j+1} = Q K_{j+1}^T before the softmax of
    S_j, which the previous iteration issued (the prologue, on the path that
    runs the loop, issues S_0 and waits for it): the softmax runs with no
    wait, while the tensor cores compute the previous P V and S_{j+1}; the
    rescale of O waits for both (one wait, pendings = 0). In PTX the main
    loop has that one wait, no shared-memory traffic besides the copies, no
    spills, no serialized wgmma (ptxas's C7514, which a partial wait
    retiring a product carried across the back edge would bring), and one
    barrier (with four stages the copies refill the stage of two iterations
    before, right after S_{j+1})."""
    built = compile_overlapped(monkeypatch, head_dim, block_n, causal)
    loops = loop_waits(built.asm["tilegpu"])
    assert len(loops) == (2 if causal else 1), built.asm["tilegpu"]
    for waits, prologue in loops:
        assert waits == ["0"], waits
        assert prologue.count("tilegpu.warp_group_dot ") == 1, prologue
        assert "tilegpu.async_wait  {pending = 1 : i32}" in prologue, prologue
        body = prologue[prologue.index("tilegpu.warp_group_dot "):]
        assert "tilegpu.warp_group_dot_wait" in body, prologue
    loop = PTXSTATS.analyze(built.ptx)["loop"]
    assert loop["wgmma_waits"] == 1 and loop["barriers"] == 1, loop
    assert loop["shared_stores"] == 0 and loop["shared_loads"] == 0 and loop["local"] == 0, loop
    if os.path.exists(PTXAS):
        report = ptxas_report(built.ptx, "sm_90a", tmp_path)
        assert " 0 bytes spill stores" in report, report
        assert "C7514" not in report, report


@pytest.mark.parametrize("block_n, num_warps, num_stages, expected",
                         [(64, 8, 3, ["1", "0"]), (64, 8, 2, ["0"]), (128, 8, 4, ["0"]), (64, 4, 4, ["0", "0"])])
def test_overlap_products_keeps_the_loop_where_it_cannot_apply(monkeypatch, block_n, num_warps, num_stages,
                                                                expected):
    """With three stages the copies could refill only the previous P V's
    stage, after it, and the next iteration would wait for them just issued
    (the loop defers its P V: waits 1 then 0); with two the next
    iteration's stage is the one the copies refill (P V carried, one wait);
    at 128x128 with a head of 128 two S tiles, O and two P take 256
    registers a thread, over kAheadProductRegisters (the loop spills; P V
    carried); with 4 warps on 128x64 blocks the loop is bound by registers
    (its P V retires within the iteration: O alone holds 128 registers a
    thread). The knob leaves each loop as it is without it, nothing issued
    before the loop."""
    config = {"BLOCK_M": 128, "BLOCK_N": block_n, "num_warps": num_warps, "num_stages": num_stages}
    compiled, _ = compile_attention("float16", 128, False, 4096, config)
    monkeypatch.setenv("TILELANG_OVERLAP_PRODUCTS", "1")
    built = tilelang.compile_ir(compiled.asm["tile"], arch="sm_90a", num_warps=num_warps, num_stages=num_stages,
                                keep_stages=True)
    [(waits, prologue)] = loop_waits(built.asm["tilegpu"])
    assert waits == expected, waits
    assert "tilegpu.warp_group_dot " not in prologue, prologue


@pytest.mark.parametrize("cfg", [{"BLOCK_M": 64, "BLOCK_N": 64, "num_warps": 4, "num_stages": 3},
                                 {"BLOCK_M": 128, "BLOCK_N": 64, "num_warps": 4, "num_stages": 2}],
                         ids=lambda c: f"{c['BLOCK_M']}x{c['BLOCK_N']}-w{c['num_warps']}")
def test_attention_compiles_for_sm80(cfg, tmp_path):
    """On sm_80 both products go to mma.sync, and ptxas accepts the PTX."""
    compiled, _ = compile_attention("float16", 64, True, 1000, config=cfg)
    built = compiled.to_ptx("sm_80")
    assert "mma.sync.aligned.m16n8k16" in built.ptx and "wgmma" not in built.ptx
    if os.path.exists(PTXAS):
        ptxas_report(built.ptx, "sm_80", tmp_path)


def test_whole_blocks_follows_the_key_block():
    """WHOLE_BLOCKS (the promise that drops the masked loop of full
    attention) holds exactly when BLOCK_N divides N_CTX, from the wrapper's
    constexprs and from the autotuner's heuristic alike."""
    for n_ctx, block_n, whole in [(4096, 64, True), (4096, 128, True), (1000, 64, False), (64, 128, False),
                                  (1, 64, False)]:
        q = FakeTensor((1, 1, n_ctx, 64))
        constexprs = BENCH_KERNELS.attention_constexprs(q, False, {"BLOCK_N": block_n})
        assert constexprs == {"HEAD_DIM": 64, "CAUSAL": False, "WHOLE_BLOCKS": whole, "OFFSETS_64": False}
        assert BENCH_KERNELS.attention_whole_blocks({"N_CTX": n_ctx, "BLOCK_N": block_n}) == whole


def test_offsets_64_where_a_heads_rows_reach_2_31_elements():
    """OFFSETS_64 (a head's row offsets in 64 bits): a (B, N_CTX, H, D)
    layout seen as (B, H, N_CTX, D) puts rows H * D elements apart, so 4224
    rows of 4096 heads of 128 reach past 2**31 within a head, from q's
    strides or k's (v's, out's); the contiguous layout and shorter contexts
    do not. The wrapper's constexprs and the autotuner's heuristic agree."""
    n, h, d = 4224, 4096, 128
    bnhd = FakeTensor((1, h, n, d), strides=(n * h * d, d, h * d, 1))
    bhnd = FakeTensor((1, h, n, d))
    short = FakeTensor((1, h, 3900, d), strides=(3900 * h * d, d, h * d, 1))
    options = BENCH_KERNELS.attention_launch_options()
    for q, k, wide in [(bnhd, bhnd, True), (bhnd, bnhd, True), (bhnd, bhnd, False), (short, short, False)]:
        constexprs = BENCH_KERNELS.attention_constexprs(q, True, options, k, bhnd, bhnd)
        assert constexprs["OFFSETS_64"] is wide
        args = dict(zip(["stride_q" + a for a in "bhmd"] + ["stride_k" + a for a in "bhnd"],
                        q.stride() + k.stride()), N_CTX=q.shape[2], **options)
        assert BENCH_KERNELS.attention_offsets_64(args) is wide


def test_attention_refuses_what_it_cannot_run():
    q, k, v, _ = operands(2, 8, 2, 100, 64, "float16")
    launched = []

    class Kernel:
        def __getitem__(self, grid):
            return lambda *args, **kwargs: launched.append(grid)

    out = FakeTensor(q.shape, "float16")
    for bad_args, message in [
        ((q, FakeTensor((2, 3, 100, 64)), FakeTensor((2, 3, 100, 64))), "3 key/value heads do not divide 8"),
        ((q, k, FakeTensor((2, 2, 99, 64))), "do not match"),
        ((q, k, FakeTensor((2, 2, 100, 64), "bfloat16")), "different dtypes"),
        ((FakeTensor((2, 8, 100, 96)), FakeTensor((2, 2, 100, 96)), FakeTensor((2, 2, 100, 96))),
         "head dimension 96"),
        ((FakeTensor((8, 100, 64)), k, v), "must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            BENCH_KERNELS.attention(*bad_args, False, None, Kernel(), out=out)
    with pytest.raises(ValueError, match="sm_scale must be positive"):
        BENCH_KERNELS.attention(q, k, v, True, 0.0, Kernel(), out=out)
    with pytest.raises(ValueError, match="out has shape"):
        BENCH_KERNELS.attention(q, k, v, True, None, Kernel(), out=FakeTensor((2, 8, 100, 32)))
    assert launched == []
    BENCH_KERNELS.attention(q, k, v, True, None, Kernel(), config={"BLOCK_M": 64}, out=out)
    assert launched == [(2, 16)]  # cdiv(100, 64) query blocks, batch 2 x 8 query heads
