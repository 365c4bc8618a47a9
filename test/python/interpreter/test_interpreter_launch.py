"""The interpreter's launch: TILELANG_INTERPRET=1 and interpret=True, the
frontend's located errors before anything runs, errors found while running
(out-of-bounds accesses, tl.device_assert), tl.device_print, pdb in the
kernel body, control flow (loops with the compiler's variable types, helpers,
user combine functions), torch CPU tensors, and the frontend fuzzer's
generated scalar kernels against their Python models."""

import importlib.util
import os
import random

import numpy as np
import pytest

import tilelang
import tilelang.language as tl
from interp_testing import HERE, interpreted, run
from tilelang.interpreter import InterpreterError
from tilelang_testing import load_module

kernel_gen = load_module("kernel_gen", HERE.parent / "frontend" / "kernel_gen.py")


def test_environment_variable_interprets_kernel_launches(monkeypatch):
    @tilelang.jit
    def double(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = np.arange(10, dtype=np.float32)
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    compiled = double[(1,)](x, 10, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(10) * 2)
    assert "tile.store" in compiled.asm["tile"]  # the frontend compiled it to tile IR first


def test_a_kernel_whose_gpu_launch_failed_can_still_be_interpreted(monkeypatch):
    # A new user's first launch: NumPy arrays, no TILELANG_INTERPRET. The
    # error says what a GPU launch takes and how to run on the CPU; setting
    # the knob then (a notebook, say) interprets the next launch, as the
    # knob reads at each launch of a kernel not yet launched on the GPU.
    @tilelang.jit
    def triple(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 3, mask=offs < n)

    monkeypatch.delenv("TILELANG_INTERPRET", raising=False)
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(TypeError) as err:
        triple[(1,)](x, 10, BLOCK=16)
    assert str(err.value) == (
        "the ndarray passed for 'x_ptr' is in host memory; kernels take CUDA tensors (or arrays with "
        "__cuda_array_interface__); the CPU interpreter runs kernels on NumPy arrays and CPU tensors "
        "(TILELANG_INTERPRET=1, or @tilelang.jit(interpret=True): docs/interpreter.md)")
    monkeypatch.setenv("TILELANG_INTERPRET", "1")
    triple[(1,)](x, 10, BLOCK=16)
    np.testing.assert_array_equal(x, np.arange(10) * 3)


def test_an_autotuned_kernel_is_interpreted_with_its_first_config_untimed(tmp_path, monkeypatch):
    # The interpreter's times say nothing of a GPU's: the first config left
    # after pruning runs, nothing is timed (no GPU to time on: it raised the
    # driver's error), and nothing is stored for a later GPU run to trust.
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))

    def no_timing(fn, quantiles=None):
        raise AssertionError("an interpreted launch was timed")

    configs = [tilelang.Config({"BLOCK": b}, num_warps=w) for b in (8, 32, 128) for w in (1, 4)]
    for interpret in (True, False):
        @tilelang.autotune(configs=configs, key=["n"], do_bench=no_timing,
                           prune_configs_by={"early_config_prune": lambda cs, nargs: cs[2:]})
        @tilelang.jit(interpret=interpret)
        def double(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

        if not interpret:
            monkeypatch.setenv("TILELANG_INTERPRET", "1")
        x = np.arange(100, dtype=np.float32)
        double[lambda meta: (tilelang.cdiv(100, meta["BLOCK"]),)](x, 100)
        np.testing.assert_array_equal(x, np.arange(100) * 2)
        assert str(double.best_config) == str(configs[2])
        assert not (tmp_path / "autotune.json").exists()


@interpreted
def refused(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, 1.0)


def test_frontend_errors_come_first_and_are_the_compilers():
    x = np.zeros(16, np.float32)
    with pytest.raises(tilelang.CompilationError) as interpreted_error:
        refused[(1,)](x, 16, BLOCK=16)
    with pytest.raises(tilelang.CompilationError) as compiled_error:
        refused.compile({"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 16})
    assert str(interpreted_error.value) == str(compiled_error.value)
    assert "arange's end must be a constexpr" in str(interpreted_error.value)
    assert not x.any()


@interpreted
def hinted(x_ptr, BLOCK: tl.constexpr, HINTS: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    if HINTS == "volatile evict":
        x = tl.load(x_ptr + offs, volatile=True, eviction_policy="evict_first")
    elif HINTS == "volatile cache":
        x = tl.load(x_ptr + offs, volatile=True, cache_modifier=".cg")
    elif HINTS == "cache evict":
        x = tl.load(x_ptr + offs, cache_modifier=".cg", eviction_policy="evict_last")
    else:
        x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x + 1, cache_modifier=".cs" if HINTS == "store" else "",
             eviction_policy="evict_first" if HINTS == "store" else "")


@pytest.mark.parametrize("hints, message", [
    ("volatile evict", "tl.load: a volatile load takes no cache modifier or eviction policy, got volatile=True "
                       "with eviction_policy='evict_first'"),
    ("volatile cache", "tl.load: a volatile load takes no cache modifier or eviction policy, got volatile=True "
                       "with cache_modifier='.cg'"),
    ("cache evict", "tl.load: cache_modifier='.cg' cannot be combined with eviction_policy='evict_last'"),
    ("store", "tl.store: cache_modifier='.cs' cannot be combined with eviction_policy='evict_first'"),
])
def test_cache_hints_the_compiler_refuses_are_refused_alike(hints, message):
    # One check in the frontend's semantic (which the interpreter's loads
    # and stores call too): the same located error in the user's words,
    # where the compiler's came from tile.load's verifier in the IR's.
    x = np.zeros(16, np.float32)
    with pytest.raises(tilelang.CompilationError) as interpreted_error:
        hinted[(1,)](x, BLOCK=16, HINTS=hints)
    with pytest.raises(tilelang.CompilationError) as compiled_error:
        hinted.compile({"x_ptr": "*fp32"}, {"BLOCK": 16, "HINTS": hints})
    assert str(interpreted_error.value) == str(compiled_error.value)
    assert message in str(compiled_error.value)
    assert compiled_error.value.diagnostics[0].file == __file__
    assert not x.any()
    hinted[(1,)](x, BLOCK=16, HINTS="none")  # no hints: runs
    assert (x == 1).all()


@interpreted
def reads_past_the_end(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)


def test_out_of_bounds_access_is_a_located_error():
    x = np.zeros(10, np.float32)
    with pytest.raises(InterpreterError) as err:
        reads_past_the_end[(1,)](x, BLOCK=16)
    text = str(err.value)
    assert "out of bounds" in text and "tl.load(x_ptr + offs)" in text
    assert err.value.diagnostics[0].file == __file__
    reads_past_the_end[(1,)](np.zeros(16, np.float32), BLOCK=16)  # in bounds: runs


@tilelang.jit(interpret=True, debug=True)
def checked(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x < 100, "too big")
    tl.device_print("x ", x)


def test_device_assert_and_print(capsys):
    checked[(1,)](np.array([1, 2, 3], np.int32), 3, BLOCK=4)
    out = capsys.readouterr().out.splitlines()
    assert out == [f"pid (0, 0, 0) idx ({i}) x {v}" for i, v in enumerate([1, 2, 3, 0])]
    with pytest.raises(InterpreterError, match="device assertion failed .* at index \\(1,\\): too big"):
        checked[(1,)](np.array([1, 200, 3], np.int32), 3, BLOCK=4)


@interpreted
def stops_in_the_debugger(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    breakpoint()
    tl.store(x_ptr + offs, x + 1)


def test_breakpoint_stops_in_the_kernel_body(monkeypatch):
    seen = []
    import sys

    monkeypatch.setattr(sys, "breakpointhook", lambda: seen.append(sys._getframe(1).f_locals["x"].numpy().copy()))
    x = np.arange(4, dtype=np.float32)
    stops_in_the_debugger[(2,)](x, BLOCK=4)
    assert len(seen) == 2 and (seen[0] == np.arange(4)).all() and (seen[1] == np.arange(4) + 1).all()
    np.testing.assert_array_equal(x, np.arange(4) + 2)
    # Compiled, the breakpoint is nothing.
    assert "tile.store" in stops_in_the_debugger.compile({"x_ptr": "*fp32"}, {"BLOCK": 4}).asm["tile"]


@interpreted
def combine(a, b):
    return tl.where(a > b, a, b) * 1


@interpreted
def add_pair(a, ia, b, ib):
    return a + b, ia + ib


@interpreted
def control_flow(out_ptr, n, big, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    total = tl.zeros([BLOCK], tl.int32)
    for i in range(n):          # i is an i32 value, as compiled
        total += (i % 3).to(tl.int32)
    for j in tl.static_range(3):  # j is a Python int
        total += j
    k = 0
    while k < n:
        k += 2
    for w in range(big, big + 2):  # an i64 loop (a u32 bound)
        total += (w >> 31).to(tl.int32)
    tl.store(out_ptr + offs, total)
    tl.store(out_ptr + BLOCK, k)
    tl.store(out_ptr + BLOCK + 1, tl.reduce(offs, 0, combine))
    s, c = tl.associative_scan((offs, offs * 0 + 1), 0, add_pair)
    tl.store(out_ptr + BLOCK + 2 + offs, s)
    tl.store(out_ptr + 2 * BLOCK + 2 + offs, c)


def test_control_flow_and_user_combine_functions():
    block = 8
    out = np.zeros(3 * block + 2, np.int32)
    control_flow[(1,)](out, 7, 2**31 + 5, BLOCK=block)
    assert list(out[:block]) == [sum(i % 3 for i in range(7)) + 3 + 2] * block
    assert out[block] == 8 and out[block + 1] == block - 1
    np.testing.assert_array_equal(out[block + 2:2 * block + 2], np.cumsum(np.arange(block)))
    np.testing.assert_array_equal(out[2 * block + 2:], np.arange(1, block + 1))


def test_torch_cpu_tensors():
    torch = pytest.importorskip("torch")

    @interpreted
    def axpy(x_ptr, y_ptr, a, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)

    x = torch.randn(1000, dtype=torch.bfloat16)
    y = torch.randn(1000, dtype=torch.bfloat16)
    want = (2.0 * x.double() + y.double()).to(torch.bfloat16)
    axpy[(4,)](x, y, 2.0, 1000, BLOCK=256)
    assert torch.equal(y, want)


def _load_case(tmp_path, seed, index):
    case = kernel_gen.generate(seed, index)
    path = tmp_path / f"kernel_{seed}_{index}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return case, module.kernel


def test_generated_scalar_kernels_match_their_models(tmp_path):
    """kernel_gen's scalar family comes with a Python model of the memory
    after programs 0..2: 32-bit wrap-around, C division, signedness,
    conditional expressions that run one side, atomics."""
    seed = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"interpreter model seed: {seed} (replay with TILELANG_FUZZ_SEED={seed})")
    checked_kernels = 0
    for index in range(400):
        case = kernel_gen.generate(seed, index)
        if case.family != "scalar":
            continue
        case, kernel = _load_case(tmp_path, seed, index)
        signed = case.signature.startswith("*i32")
        st = np.int32 if signed else np.uint32
        out = np.zeros(kernel_gen.PROGRAMS * kernel_gen.OUT_STRIDE, st)
        src = np.array(case.src, np.uint64).astype(np.uint32).view(st)
        cnt = np.zeros(kernel_gen.COUNTERS, st)
        scalars = [np.array(v, np.uint64).astype(np.uint32).view(st)[()] for v in case.args]
        run(kernel, (kernel_gen.PROGRAMS,), out, src, cnt, *scalars)
        memory = {("out", i): int(v) for i, v in enumerate(out.view(np.uint32)) if v}
        memory.update({("cnt", i): int(v) for i, v in enumerate(cnt.view(np.uint32)) if v})
        want = {k: v for k, v in case.memory.items() if v}
        assert memory == want, f"kernel {index} of seed {seed}:\n{case.source}"
        checked_kernels += 1
    assert checked_kernels > 100


@interpreted
def branch_types(out_ptr, a, c, BLOCK: tl.constexpr):
    x = 7
    if c > 0:  # a run-time if: x leaves it as a u32 whichever branch ran
        x = a
    w = a if c > 0 else 5  # a run-time conditional expression: a u32 either way
    offs = tl.arange(0, BLOCK)
    t = offs if offs > 2 else 0  # a tensor condition: elementwise, as tl.where
    tl.store(out_ptr + 0, (-x) // 2)
    tl.store(out_ptr + 1, (-w) >> 1)
    tl.store(out_ptr + 2 + offs, t.to(tl.uint32))


def test_runtime_branches_give_the_compilers_types():
    out = np.zeros(6, np.uint32)
    branch_types[(1,)](out, np.uint32(9), 0, BLOCK=4)  # the branches that keep Python numbers
    assert out[0] == (2**32 - 7) // 2 and out[1] == (2**32 - 5) >> 1
    assert list(out[2:]) == [0, 0, 0, 3]
    branch_types[(1,)](out, np.uint32(9), 1, BLOCK=4)
    assert out[0] == (2**32 - 9) // 2 and out[1] == (2**32 - 9) >> 1


@interpreted
def carried_types(x_ptr, out_ptr, n):
    acc = 0.0  # carried by the loop as fp32, as compiled: not an fp16 sum
    for i in range(n):
        acc += tl.load(x_ptr)
    tl.store(out_ptr, acc)


def test_loops_carry_python_numbers_in_the_compiled_type():
    x, out = np.array([0.1], np.float16), np.zeros(1, np.float32)
    carried_types[(1,)](x, out, 100)
    want = np.float32(0)
    for _ in range(100):
        want = np.float32(want + np.float32(x[0]))
    assert out[0] == want and abs(out[0] - 100 * float(x[0])) < 1e-4
