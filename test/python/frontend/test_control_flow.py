"""Early exits and loops (issue 21): `return` anywhere, `break` and `continue`,
`while` loops, and `range` with negative and run-time steps.

Each kernel's verified tile IR runs on the scalar interpreter
(tile_machine.py, extended here with ``scf.while``) and is compared with what
Python computes for the same code; the IR shapes the lowering relies on
(``scf.if`` guards, ``scf.while`` for loops that may be left early) and the
located errors are checked too. test/python/gpu/test_control_flow_gpu.py runs
the same constructs on a GPU."""

import inspect
import pathlib
import re

import pytest

import tilelang
import tilelang.language as tl
from tile_machine import Machine, _bind

FILE = str(pathlib.Path(__file__).resolve())
MASK = 0xFFFFFFFF


class FlowMachine(Machine):
    """tile_machine's interpreter with ``scf.while`` (before region, then
    the after region with its block arguments) and ``scf.condition``."""

    def __init__(self, ir, memory=None):
        # The parser splits regions at `} else {`; the while's `} do {` is
        # the same for it.
        super().__init__(ir.replace("} do {", "} else {"), memory)

    def _block(self, ops, env):
        for op in ops:
            text = op.text
            if text.startswith("scf.yield") or text == "return":
                return super()._block([op], env)
            if text.startswith("scf.condition"):
                return [env[n] for n in re.findall(r"%[\w#-]+", text.partition(" : ")[0])]
            m = re.match(r"(?:(%[\w-]+)(?::\d+)? = )?scf\.while \((.*?)\) :", text)
            if m:
                self._while(op, m.group(1), m.group(2), env)
                continue
            super()._block([op], env)
        return []

    def _while(self, op, res, inits, env):
        pairs = [p.partition(" = ") for p in inits.split(", ")] if inits else []
        names, values = [p[0] for p in pairs], [env[p[2]] for p in pairs]
        before, after = op.regions
        after_names = []
        if after and after[0].text.startswith("^bb0"):
            after_names = re.findall(r"(%[\w-]+):", after[0].text)
            after = after[1:]
        for _ in range(10_000):
            inner = dict(env)
            inner.update(zip(names, values))
            cond, *outs = self._block(before, inner)
            if not cond:
                break
            inner = dict(env)
            inner.update(zip(after_names, outs))
            values = self._block(after, inner)
        else:
            raise AssertionError("the loop runs more than 10000 times")
        _bind(env, res, outs)


def run(kernel, signature, args, pid=0, constexprs=None, memory=None):
    """Runs one program; ``out`` (the first parameter) is buffer "out"."""
    ir = kernel.compile(signature, constexprs=constexprs or {}).asm["tile"]
    machine = FlowMachine(ir, memory)
    memory = machine.run([("out", 0)] + [a & MASK if isinstance(a, int) else a for a in args], pid)
    return {off: value for (buf, off), value in memory.items() if buf == "out"}, machine


def located_error(kernel, signature, snippet, where=None):
    """The error of compiling ``kernel``, checked to be on the line of
    ``where``'s source (the kernel's by default) that holds ``snippet``."""
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    err = info.value
    lines, first = inspect.getsourcelines((where or kernel).fn)
    index = next(i for i, line in enumerate(lines) if snippet in line)
    assert (err.file, err.line) == (FILE, first + index), str(err)
    return str(err)


def i32(v):
    return v & MASK


# -- return --------------------------------------------------------------------------------


@tilelang.jit
def first_line_return(out, n):
    pid = tl.program_id(0)
    if pid >= n:
        return
    tl.store(out + pid, pid * 2)


def test_first_line_return_guards_the_rest():
    for pid in range(4):
        mem, _ = run(first_line_return, "*i32,i32", [2], pid=pid)
        assert mem == ({pid: 2 * pid} if pid < 2 else {})
    src = first_line_return.compile("*i32,i32").asm["tile-opt"]
    # The rest of the kernel is one scf.if on "not returned".
    assert re.search(r"scf\.if %\w+ \{\n.*tile\.store", src, re.S)


@tilelang.jit
def nested_return(out, a, b):
    x = a + b
    if a > 0:
        tl.store(out, 1)
        if b > 0:
            return
        x = x * 3
    else:
        x = x - 1
    tl.store(out + 1, x)


def test_return_inside_nested_ifs():
    for a in (-2, 0, 3):
        for b in (-1, 0, 4):
            mem, _ = run(nested_return, "*i32,i32,i32", [a, b])
            want = {}
            x = a + b
            if a > 0:
                want[0] = 1
                if b > 0:
                    assert mem == want
                    continue
                x = x * 3
            else:
                x = x - 1
            want[1] = i32(x)
            assert mem == want, (a, b)


@tilelang.jit
def return_one_branch_defines(out, a):
    if a > 5:
        return
    else:
        y = a * 7
    tl.store(out, y)


def test_a_name_defined_where_the_other_branch_returned():
    # Python defines y on every path that reaches the store.
    assert run(return_one_branch_defines, "*i32,i32", [3])[0] == {0: 21}
    assert run(return_one_branch_defines, "*i32,i32", [9])[0] == {}


@tilelang.jit
def return_in_for(out, n, m):
    acc = 0
    for i in range(n):
        acc += i
        if acc > m:
            tl.store(out, acc)
            return
        acc += 1
    tl.store(out + 1, acc)


@tilelang.jit
def return_in_while(out, n, m):
    i = 0
    acc = 0
    while i < n:
        i += 1
        if i * i > m:
            tl.store(out, i)
            return
        acc += i
    tl.store(out + 1, acc)


def test_return_inside_loops():
    for n in (0, 1, 5, 9):
        for m in (-1, 3, 12, 100):
            acc, want = 0, None
            for i in range(n):
                acc += i
                if acc > m:
                    want = {0: acc}
                    break
                acc += 1
            assert run(return_in_for, "*i32,i32,i32", [n, m])[0] == (want or {1: acc}), (n, m)
            i = acc = 0
            want = None
            while i < n:
                i += 1
                if i * i > m:
                    want = {0: i}
                    break
                acc += i
            assert run(return_in_while, "*i32,i32,i32", [n, m])[0] == (want or {1: acc}), (n, m)


def test_a_loop_that_may_return_is_a_while_loop():
    src = return_in_for.compile("*i32,i32,i32").asm["tile"]
    assert "scf.while" in src and "scf.for" not in src


@tilelang.jit
def _abs_or_double(x):
    if x < 0:
        return -x
    return x * 2


@tilelang.jit
def _pair(x):
    if x > 10:
        return x, 1
    return x + 1, 2


@tilelang.jit
def calls_returning_helpers(out, a):
    tl.store(out, _abs_or_double(a))
    p, q = _pair(a)
    tl.store(out + 1, p * 100 + q)


def test_a_helper_returns_from_a_branch():
    for a in (-7, 0, 5, 11):
        want1 = (a + 1) * 100 + 2 if a <= 10 else a * 100 + 1
        assert run(calls_returning_helpers, "*i32,i32", [a])[0] == \
            {0: i32(-a if a < 0 else 2 * a), 1: i32(want1)}


# -- break and continue ----------------------------------------------------------------------


@tilelang.jit
def break_continue_nested(out, n, m):
    acc = 0
    for i in range(0, n):
        for j in range(0, n):
            if j > i:
                break
            if (i + j) % 3 == 0:
                continue
            acc += i * 10 + j
        if acc > m:
            break
    tl.store(out, acc)


def test_break_and_continue_in_nested_loops():
    for n in (0, 1, 4, 7):
        for m in (0, 50, 10**6):
            acc = 0
            for i in range(n):
                for j in range(n):
                    if j > i:
                        break
                    if (i + j) % 3 == 0:
                        continue
                    acc += i * 10 + j
                if acc > m:
                    break
            assert run(break_continue_nested, "*i32,i32,i32", [n, m])[0] == {0: acc}, (n, m)


def test_continue_alone_keeps_scf_for():
    @tilelang.jit
    def skip_odd(out, n):
        acc = 0
        for i in range(n):
            if i % 2 == 1:
                continue
            acc += i
        tl.store(out, acc)

    src = skip_odd.compile("*i32,i32").asm["tile"]
    assert "scf.for" in src and "scf.while" not in src
    assert run(skip_odd, "*i32,i32", [9])[0] == {0: 0 + 2 + 4 + 6 + 8}


@tilelang.jit
def while_break_continue(out, n):
    i = 0
    acc = 0
    while i < 1000:
        i += 1
        if i % 4 == 0:
            continue
        if i > n:
            break
        acc += i
    tl.store(out, acc)
    tl.store(out + 1, i)


def test_break_and_continue_in_while():
    for n in (0, 3, 10):
        i = acc = 0
        while i < 1000:
            i += 1
            if i % 4 == 0:
                continue
            if i > n:
                break
            acc += i
        assert run(while_break_continue, "*i32,i32", [n])[0] == {0: acc, 1: i}


@tilelang.jit
def while_effectful_test(out, cnt, n):
    hits = 0
    while tl.atomic_add(cnt, 1) < 100:
        hits += 1
        if hits >= n:
            break
    tl.store(out, hits)


def test_the_test_of_a_broken_while_is_not_evaluated_again():
    # After `break` the loop ends without another atomic_add.
    for n in (1, 3):
        mem, machine = run(while_effectful_test, "*i32,*i32,i32", [("cnt", 0), n],
                           memory={("cnt", 0): 0})
        assert mem[0] == n and machine.atomics == n


@tilelang.jit
def static_range_break(out, n):
    acc = 0
    for i in tl.static_range(6):
        if i == n:
            break
        if i == 2:
            continue
        acc += 1 << i
    tl.store(out, acc)


def test_break_in_an_unrolled_loop():
    for n in range(8):
        want = sum(1 << i for i in range(min(n, 6)) if i != 2)
        assert run(static_range_break, "*i32,i32", [n])[0] == {0: want}


@tilelang.jit
def while_zero_trips(out, n):
    x = 5
    while n > 100:
        x += 1
        n -= 1
    tl.store(out, x)


def test_while_with_zero_trips():
    assert run(while_zero_trips, "*i32,i32", [7])[0] == {0: 5}
    assert run(while_zero_trips, "*i32,i32", [103])[0] == {0: 8}


# -- range steps ---------------------------------------------------------------------------------


@tilelang.jit
def negative_steps(out, n, lo):
    acc = 0
    for i in range(n, lo, -3):
        acc = acc * 7 + i
    for i in range(n, 0, -1):
        acc = acc * 3 + i
    tl.store(out, acc)


@tilelang.jit
def runtime_step(out, a, b, s):
    acc = 0
    for i in range(a, b, s):
        acc = acc * 5 + i + 1
    tl.store(out, acc)


def test_negative_constant_steps():
    for n in (-3, 0, 1, 5, 10):
        for lo in (-4, 0, 3):
            acc = 0
            for i in range(n, lo, -3):
                acc = acc * 7 + i
            for i in range(n, 0, -1):
                acc = acc * 3 + i
            assert run(negative_steps, "*i32,i32,i32", [n, lo])[0] == {0: i32(acc)}, (n, lo)


def test_run_time_steps():
    for a, b in ((0, 10), (10, 0), (-5, 5), (3, 3)):
        for s in (-4, -1, 0, 1, 3):
            acc = 0
            for i in (range(a, b, s) if s else ()):  # a zero step runs no iteration
                acc = acc * 5 + i + 1
            assert run(runtime_step, "*i32,i32,i32,i32", [a, b, s])[0] == {0: i32(acc)}, (a, b, s)


def test_negative_step_with_64_bit_bounds():
    @tilelang.jit
    def wide(out, n):
        acc = 0
        for i in range(n, 2**32, -(2**31)):
            acc += 1
        tl.store(out, acc)

    src = wide.compile("*i32,i64").asm["tile"]
    assert "scf.for" in src and ": i64 {" in src


# -- errors --------------------------------------------------------------------------------------


@tilelang.jit
def _first_positive(n):
    for i in range(n):
        if i > 3:
            return i
    return 0


@tilelang.jit
def value_return_in_loop(out, n):
    tl.store(out, _first_positive(n))


@tilelang.jit
def _sometimes(x):
    if x > 0:
        return x


@tilelang.jit
def value_on_some_paths(out, n):
    tl.store(out, _sometimes(n))


@tilelang.jit
def zero_step(out, n):
    for i in range(0, n, 0):
        tl.store(out, i)


def test_errors_are_located():
    assert "returning a value from inside a run-time loop" in \
        located_error(value_return_in_loop, "*i32,i32", "return i", _first_positive)
    assert "returns a value on some paths" in located_error(value_on_some_paths, "*i32,i32",
                                                            "def _sometimes", _sometimes)
    assert "range step must not be zero" in located_error(zero_step, "*i32,i32", "range(0, n, 0)")


@tilelang.jit
def tuple_merge(out, a, b):
    t = (a, b)
    if a > b:
        t = (b, a)
    lo, hi = t
    tl.store(out, lo)
    tl.store(out + 1, hi)


def test_tuples_merge_element_by_element():
    assert run(tuple_merge, "*i32,i32,i32", [9, 4])[0] == {0: 4, 1: 9}
    assert run(tuple_merge, "*i32,i32,i32", [2, 4])[0] == {0: 2, 1: 4}


# -- through the whole compiler --------------------------------------------------------------

import os  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"

PTX_KERNELS = [
    (first_line_return, "*i32,i32"), (nested_return, "*i32,i32,i32"),
    (return_in_for, "*i32,i32,i32"), (return_in_while, "*i32,i32,i32"),
    (calls_returning_helpers, "*i32,i32"), (break_continue_nested, "*i32,i32,i32"),
    (while_break_continue, "*i32,i32"), (while_effectful_test, "*i32,*i32,i32"),
    (static_range_break, "*i32,i32"), (negative_steps, "*i32,i32,i32"),
    (runtime_step, "*i32,i32,i32,i32"),
]


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_control_flow_compiles_to_ptx(arch, tmp_path):
    for kernel, signature in PTX_KERNELS:
        ptx = kernel.compile(signature).to_ptx(arch).ptx
        if os.path.exists(PTXAS):
            path = tmp_path / f"{kernel.fn.__name__}.ptx"
            path.write_text(ptx)
            result = subprocess.run([PTXAS, f"-arch={arch}", str(path), "-o", "/dev/null"],
                                    capture_output=True, text=True)
            assert result.returncode == 0, (kernel.fn.__name__, result.stderr)


@tilelang.jit
def guarded_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                   BLOCK: tl.constexpr, GUARD: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if GUARD:
        if pid_m * BLOCK >= M:
            return
    offs_m = (pid_m * BLOCK + tl.arange(0, BLOCK)) % M
    offs_n = (pid_n * BLOCK + tl.arange(0, BLOCK)) % N
    offs_k = tl.arange(0, 32)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, 32)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * 32, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * 32, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += 32
        b_ptrs += 32 * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))


def test_an_early_exit_keeps_the_loop_pipelined():
    # The guarded kernel's loop sits in the scf.if: it is pipelined all the same.
    spec = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16,
            "M": 16, "N": 16, "K": 16}
    counts = {}
    for guard in (False, True):
        k = guarded_matmul.compile("*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32",
                                   constexprs={"BLOCK": 64, "GUARD": guard}, specialization=spec)
        ptx = k.to_ptx("sm_80").ptx
        counts[guard] = (ptx.count("cp.async.commit_group"), ptx.count("mma.sync"))
    assert counts[True] == counts[False] and counts[True][0] > 0
