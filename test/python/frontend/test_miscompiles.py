"""Valid kernels the frontend used to miscompile, and invalid ones it used to
accept (issue 20, item 1).

The run-time checks execute the emitted scalar tile IR (``asm["tile"]``) with
a small interpreter (tile_machine.py) that follows the ops' semantics (``scf.for``
compares its bounds as signed integers), so the tests see what a GPU would
do without one."""

import inspect
import pathlib
import re

import pytest

import tilelang
import tilelang.language as tl
from tile_machine import Machine

FILE = str(pathlib.Path(__file__).resolve())


def tile_ir(kernel, signature, constexprs=None):
    return kernel.compile(signature, constexprs=constexprs or {}).asm["tile"]


def located_error(kernel, signature, snippet, constexprs=None):
    """The CompilationError of compiling ``kernel``, checked to point at the
    first line of its source that contains ``snippet``, at the snippet."""
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature, constexprs=constexprs or {})
    err = info.value
    lines, first = inspect.getsourcelines(kernel.fn)
    index = next(i for i, line in enumerate(lines) if snippet in line)
    line, col = first + index, lines[index].index(snippet) + 1
    assert (err.file, err.line, err.column) == (FILE, line, col), str(err)
    assert str(err).startswith(f"{FILE}:{line}:{col}: error: ")
    return str(err)


# -- a run-time `if` whose branches assign the same object -----------------------------------


@tilelang.jit
def same_constant_in_both_branches(out, n):
    x = 0
    if n > 5:
        x = 1
    else:
        x = 1
    tl.store(out, x)


@tilelang.jit
def same_value_in_both_branches(out, a, n):
    y = 0.0
    if n > 5:
        y = a
    else:
        y = a
        z = a
    if n > 5:
        z = a
    else:
        z = a
    tl.store(out, y)
    tl.store(out + 1, z)


@pytest.mark.parametrize("n", [3, 7])
def test_if_whose_branches_assign_the_same_constant(n):
    ir = tile_ir(same_constant_in_both_branches, "*i32,i32")
    assert Machine(ir).run([("out", 0), n]) == {("out", 0): 1}


@pytest.mark.parametrize("n", [3, 7])
def test_if_whose_branches_assign_the_same_value(n):
    ir = tile_ir(same_value_in_both_branches, "*fp32,fp32,i32")
    assert Machine(ir).run([("out", 0), 2.5, n]) == {("out", 0): 2.5, ("out", 1): 2.5}


# -- loops over unsigned bounds ---------------------------------------------------------------


@tilelang.jit
def store_each_index(out, m, n):
    for i in range(m, n):
        tl.store(out + (i - m), i)


@tilelang.jit
def count_to(out, n):
    acc = 0
    for i in range(n):
        acc += 1
    tl.store(out, acc)


@pytest.mark.parametrize("sig,m,n", [
    ("*i64,u32,u32", 2**31 - 2, 2**31 + 2),    # the bounds straddle 2^31
    ("*i64,i32,u32", 2**31 - 3, 2**31 + 1),
    ("*i64,u32,u32", 2**32 - 3, 2**32 - 1),
    ("*i64,u64,u64", 2**63 - 2, 2**63 + 2),    # the bounds straddle 2^63
    ("*i64,u64,u64", 2**64 - 4, 2**64 - 1),
    ("*i64,i64,u64", 2**63 - 1, 2**63 + 1),
])
def test_range_over_unsigned_bounds_runs_every_iteration(sig, m, n):
    ir = tile_ir(store_each_index, sig)
    memory = Machine(ir).run([("out", 0), m, n])
    assert memory == {("out", k): (m + k) % 2**64 for k in range(n - m)}


@pytest.mark.parametrize("sig", ["*i64,u32,u32", "*i64,u64,u64"])
def test_range_over_unsigned_bounds_never_runs_backwards(sig):
    m, n = (2**31 + 1, 5) if "u32" in sig else (2**63 + 1, 5)
    assert Machine(tile_ir(store_each_index, sig)).run([("out", 0), m, n]) == {}


def test_range_over_a_u32_counts_in_i64():
    """``range(n)`` with n in [2^31, 2^32) runs n times: the bound is
    zero-extended and the loop counts in i64 (too many iterations to run)."""
    ir = tile_ir(count_to, "*i32,u32")
    assert re.search(r"(%\w+) = arith.extui %arg1 : i32 to i64\n(?:.*\n)*?.*scf.for %\w+ = %\w+ to \1 "
                     r"step %\w+ iter_args\(.*\) -> \(i32\)\s+: i64 \{", ir), ir


# -- conditional expressions with effects --------------------------------------------------------


@tilelang.jit
def atomic_in_one_program(counter, out):
    pid = tl.program_id(0)
    v = tl.atomic_add(counter, 1) if pid == 0 else 0
    tl.store(out + pid, v)


@tilelang.jit
def guarded_load(src, out, n):
    pid = tl.program_id(0)
    x = tl.load(src + pid) if pid < n else -1
    tl.store(out + pid, x)


@tilelang.jit
def guarded_division(out, a, b):
    q = a // b if b != 0 else 0
    tl.store(out, q)


@tilelang.jit
def stores_in_both_sides(out, c):
    tl.store(out, 1) if c > 0 else tl.store(out, 2)


@tilelang.jit
def _store_and_return(p, v):
    tl.store(p, v)
    return v + 1


@tilelang.jit
def jit_call_in_one_side(out, c):
    r = _store_and_return(out + 1, c) if c > 0 else 7
    tl.store(out, r)


@tilelang.jit
def pure_sides(out, a, n):
    w = a + 1 if n > 0 else n // 2  # a division by a constant other than 0 and -1 is pure
    tl.store(out, w)


def test_conditional_expression_runs_the_atomic_only_when_taken():
    ir = tile_ir(atomic_in_one_program, "*i32,*i32")
    memory = {("counter", 0): 10}
    machine = Machine(ir, memory)
    for pid in range(4):
        machine.run([("counter", 0), ("out", 0)], pid=pid)
    assert machine.atomics == 1
    assert memory == {("counter", 0): 11, ("out", 0): 10, ("out", 1): 0, ("out", 2): 0, ("out", 3): 0}
    assert re.search(r"scf.if %\w+ -> \(i32\) \{\n(?:.*\n)*?.*tile.atomic_rmw add", ir), ir


def test_conditional_expression_loads_only_under_its_guard():
    ir = tile_ir(guarded_load, "*i32,*i32,i32")
    memory = {("src", 0): 5, ("src", 1): 6}
    machine = Machine(ir, memory)
    for pid in range(4):
        machine.run([("src", 0), ("out", 0), 2], pid=pid)
    assert machine.loads == [("src", 0), ("src", 1)]
    assert [memory[("out", k)] for k in range(4)] == [5, 6, 2**32 - 1, 2**32 - 1]


def test_conditional_expression_divides_only_under_its_guard():
    """An integer division by zero is undefined: it counts as a side that may fault."""
    ir = tile_ir(guarded_division, "*i32,i32,i32")
    assert Machine(ir).run([("out", 0), 7, 0]) == {("out", 0): 0}
    assert Machine(ir).run([("out", 0), 7, 2]) == {("out", 0): 3}
    assert re.search(r"scf.if .*\n.*arith.divsi", ir), ir


@pytest.mark.parametrize("c,want", [(1, 1), (0, 2)])
def test_conditional_expression_of_two_stores_runs_one(c, want):
    ir = tile_ir(stores_in_both_sides, "*i32,i32")
    assert Machine(ir).run([("out", 0), c]) == {("out", 0): want}


@pytest.mark.parametrize("c,want", [(5, {("out", 0): 6, ("out", 1): 5}), (-1, {("out", 0): 7})])
def test_conditional_expression_calling_a_jit_function_with_a_store(c, want):
    ir = tile_ir(jit_call_in_one_side, "*i32,i32")
    assert Machine(ir).run([("out", 0), c]) == {k: v % 2**32 for k, v in want.items()}


def test_conditional_expression_with_pure_sides_stays_a_select():
    ir = tile_ir(pure_sides, "*i32,i32,i32")
    assert "scf.if" not in ir and "arith.select" in ir
    assert Machine(ir).run([("out", 0), 4, 3]) == {("out", 0): 5}
    assert Machine(ir).run([("out", 0), 4, -3]) == {("out", 0): 2**32 - 1}


@tilelang.jit
def effects_under_a_tensor_condition(src, out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs) if offs < 3 else 0.0
    tl.store(out + offs, x)


def test_conditional_expression_with_effects_on_a_tensor_condition_is_an_error():
    message = located_error(effects_under_a_tensor_condition, "*fp32,*fp32",
                            "tl.load(src + offs) if offs < 3 else 0.0", {"BLOCK": 16})
    assert "tensor condition" in message and "tl.where" in message


# -- tl.load / tl.store never broadcast the pointer ---------------------------------------------


@tilelang.jit
def store_outer_sum(y, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(y + offs, x[:, None] + x[None, :])


@tilelang.jit
def store_block_to_scalar(y, x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(y, x)


@tilelang.jit
def store_with_wide_mask(y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y + offs, 1.0, mask=offs[:, None] < n)


@tilelang.jit
def load_with_wide_mask(x_ptr, y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs[:, None] + offs[None, :] < n)
    tl.store(y + offs[:, None] * BLOCK + offs[None, :], x)


@tilelang.jit
def load_scalar_with_block_other(x_ptr, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr, mask=True, other=offs.to(tl.float32))
    tl.store(y + offs, x)


@tilelang.jit
def atomic_add_outer_sum(y, x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.atomic_add(y + offs, x[:, None] + x[None, :])


@tilelang.jit
def atomic_max_with_wide_mask(y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_max(y + offs, 1.0, mask=offs[:, None] < n)


@tilelang.jit
def atomic_cas_block_on_a_scalar(y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_cas(y, offs, offs + 1)


@tilelang.jit
def atomic_mask_and_value_broadcast_to_the_pointer(y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(y + offs[:, None] * BLOCK + offs[None, :], 1.0, mask=offs[None, :] < n)


@tilelang.jit
def mask_and_value_broadcast_to_the_pointer(x_ptr, y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    ptrs = offs[:, None] * BLOCK + offs[None, :]
    x = tl.load(x_ptr + ptrs, mask=offs[None, :] < n, other=0.0)
    tl.store(y + ptrs, tl.sum(x, axis=0), mask=offs < n)


POINTER_BROADCASTS = [
    (store_outer_sum, "*fp32,*fp32", "tl.store(y + offs", "the value (fp32[4, 4]) does not fit the "
                                                       "pointer (pointer<fp32>[4])"),
    (store_block_to_scalar, "*fp32,*fp32", "tl.store(y, x)", "the value (fp32[4]) does not fit the "
                                                             "pointer (pointer<fp32>)"),
    (store_with_wide_mask, "*fp32,i32", "tl.store(y + offs", "the mask (int1[4, 1]) does not fit"),
    (load_with_wide_mask, "*fp32,*fp32,i32", "tl.load(x_ptr + offs", "tl.load: the mask (int1[4, 4])"),
    (load_scalar_with_block_other, "*fp32,*fp32", "tl.load(x_ptr, ", "tl.load: the other (fp32[4])"),
    # Atomics too (found by the kernel fuzzer): 16 additions to 4 addresses.
    (atomic_add_outer_sum, "*fp32,*fp32", "tl.atomic_add(y + offs", "tl.atomic_add: the value (fp32[4, 4])"),
    (atomic_max_with_wide_mask, "*fp32,i32", "tl.atomic_max(y + offs", "tl.atomic_max: the mask (int1[4, 1])"),
    (atomic_cas_block_on_a_scalar, "*i32", "tl.atomic_cas(y, ", "tl.atomic_cas: the compared value (int32[4])"),
]


@pytest.mark.parametrize("kernel,sig,snippet,part", POINTER_BROADCASTS,
                         ids=[case[0].fn.__name__ for case in POINTER_BROADCASTS])
def test_pointer_is_never_broadcast_to_the_value_or_mask(kernel, sig, snippet, part):
    message = located_error(kernel, sig, snippet, {"BLOCK": 4})
    assert part in message
    assert "the pointer is never broadcast" in message


def test_mask_value_and_other_still_broadcast_to_the_pointer():
    ir = tile_ir(mask_and_value_broadcast_to_the_pointer, "*fp32,*fp32,i32", {"BLOCK": 4})
    assert re.search(r"tile.load %\w+, %\w+, %\w+ : tensor<4x4x!tile.ptr<f32>>", ir), ir
    assert re.search(r"tile.store %\w+, %\w+, %\w+ : tensor<4x4x!tile.ptr<f32>>", ir), ir
    ir = tile_ir(atomic_mask_and_value_broadcast_to_the_pointer, "*fp32,i32", {"BLOCK": 4})
    assert re.search(r"tile.atomic_rmw fadd, \w+, \w+, %\w+, %\w+, %\w+ : tensor<4x4x!tile.ptr<f32>>", ir), ir


# -- run-time values where a constexpr flag is required ---------------------------------------------


@tilelang.jit
def cumsum_reverse_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.cumsum(x, 0, reverse=n))


@tilelang.jit
def bitcast_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), x.to(tl.int32, bitcast=n).to(tl.float32))


@tilelang.jit
def maximum_propagate_nan(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.maximum(x, 0.0, x))


@tilelang.jit
def sum_keep_dims_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr, tl.sum(x, 0, keep_dims=n > 0))


@tilelang.jit
def load_volatile_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK), volatile=n)
    tl.store(x_ptr + tl.arange(0, BLOCK), x)


@tilelang.jit
def max_return_indices_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr, tl.max(x, 0, return_indices=n))


@tilelang.jit
def fdiv_rounding_flag(x_ptr, n, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.fdiv(x, 3.0, ieee_rounding=n))


RUN_TIME_FLAGS = [
    (cumsum_reverse_flag, "tl.cumsum(x, 0, reverse=n)", "tl.cumsum's reverse must be a constexpr"),
    (bitcast_flag, "x.to(tl.int32, bitcast=n)", "the bitcast flag of .to() must be a constexpr"),
    (maximum_propagate_nan, "tl.maximum(x, 0.0, x)", "propagate_nan must be a constexpr"),
    (sum_keep_dims_flag, "tl.sum(x, 0, keep_dims=n > 0)", "tl.sum's keep_dims must be a constexpr"),
    (load_volatile_flag, "tl.load(x_ptr + tl.arange(0, BLOCK), volatile=n)",
     "tl.load's volatile must be a constexpr"),
    (max_return_indices_flag, "tl.max(x, 0, return_indices=n)",
     "tl.max's return_indices must be a constexpr"),
    (fdiv_rounding_flag, "tl.fdiv(x, 3.0, ieee_rounding=n)", "tl.fdiv's ieee_rounding must be a constexpr"),
]


@pytest.mark.parametrize("kernel,snippet,part", RUN_TIME_FLAGS,
                         ids=[case[0].fn.__name__ for case in RUN_TIME_FLAGS])
def test_run_time_value_for_a_constexpr_flag_is_an_error(kernel, snippet, part):
    message = located_error(kernel, "*fp32,i32", snippet, {"BLOCK": 16})
    assert part in message and "computed at run time" in message
