"""Inputs that used to take the compiler minutes (or all its memory) are
refused quickly with a located error (issue 20, item 3).

A kernel of many sequential run-time `if`s or loops costs time and memory
that grow faster than their number (SCF to CF splits the block at each
one; LLVM's loop passes follow chains of loops): 50,000 `if`s ran the
compiler out of memory, 4,000 loops took minutes in LLVM's O3, and Triton
compiles 1,024 such loops in over a minute. A kernel may hold at most
tile::kMaxControlFlowOps (1,024) run-time branches and loops; the error
points at the first one past the limit, in the user's source. The frontend
counts the branches and loops it emits and stops there; libtilelang counts
those of the IR it is given.

The checks are deterministic: the refused kernels are refused by counting,
before anything slow runs, and the largest accepted kernels compile.
"""

import importlib.util

import pytest

import tilelang
import tilelang.language as tl

LIMIT = 1024


def load_kernel(tmp_path, name, body_lines):
    """A @tilelang.jit kernel `k(out, n)` from generated source lines (the
    frontend reads a kernel's source from its file). `x` starts from an
    argument, so that no branch folds away (the limit counts the run-time
    branches left after the first canonicalization)."""
    lines = ["import tilelang", "import tilelang.language as tl", "", "", "@tilelang.jit",
             "def k(out, n):", "    x = n"]
    first = len(lines) + 1
    lines += body_lines
    lines.append("    tl.store(out, x)")
    path = tmp_path / f"{name}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.k, path, first


def sequential_ifs(count):
    lines = []
    for i in range(count):
        lines += [f"    if n > {i}:", f"        x = x + {i % 7 + 1}"]
    return lines


def sequential_loops(count):
    lines = []
    for i in range(count):
        lines += [f"    for i{i} in range(n):", f"        x = x + i{i}"]
    return lines


@pytest.mark.parametrize("shape", ["ifs", "loops"])
def test_past_the_limit_is_refused_at_the_statement(tmp_path, shape):
    """The (LIMIT + 1)-th sequential `if` or `for` is named, with its line in
    the kernel's file."""
    make = sequential_ifs if shape == "ifs" else sequential_loops
    kernel, path, first = load_kernel(tmp_path, f"many_{shape}", make(LIMIT + 1))
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile("*i32,i32").to_ptx("sm_90a")
    error = info.value
    message = str(error)
    assert f"more than {LIMIT} run-time branches and loops" in message, message
    assert "internal" not in message, message
    # Each statement takes two lines; the refused one is the last.
    assert error.diagnostics[0].file == str(path), message
    assert error.diagnostics[0].line == first + 2 * LIMIT, message


def test_nested_control_flow_counts(tmp_path):
    """Branches inside loops count as well: 33 loops of 31 `if`s each hold
    1,056 control-flow ops."""
    lines = []
    for i in range(33):
        lines.append(f"    for i{i} in range(n):")
        for j in range(31):
            lines += [f"        if i{i} > {j}:", f"            x = x + {j % 5 + 1}"]
    kernel, _, _ = load_kernel(tmp_path, "nested", lines)
    with pytest.raises(tilelang.CompilationError, match=f"more than {LIMIT} run-time branches"):
        kernel.compile("*i32,i32").to_ptx("sm_90a")


def test_at_the_limit_compiles(tmp_path):
    """The limit refuses nothing smaller: LIMIT sequential `if`s compile
    to PTX."""
    kernel, _, _ = load_kernel(tmp_path, "limit_ifs", sequential_ifs(LIMIT))
    assert ".entry k(" in kernel.compile("*i32,i32").to_ptx("sm_90a").ptx


def test_frontend_refuses_before_the_rest_of_the_kernel(tmp_path):
    """The frontend counts too, with libtilelang's limit, and stops at the
    statement past it: a kernel of 20,000 `if`s is refused in the time of
    its first 1,025 (before, the frontend generated all of them, taking
    seconds, before libtilelang refused the IR)."""
    from tilelang.frontend import codegen
    assert codegen.MAX_CONTROL_FLOW_OPS == LIMIT
    kernel, path, first = load_kernel(tmp_path, "many_ifs_frontend", sequential_ifs(20_000))
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile("*i32,i32")  # the frontend alone
    assert (info.value.diagnostics[0].file, info.value.diagnostics[0].line) == (str(path), first + 2 * LIMIT)


def test_ir_past_the_limit_is_refused():
    """The same limit holds for tile IR given directly (compile_ir), located
    at the op."""
    lines = ["func.func @k(%out: !tile.ptr<i32>, %n: i32) {"]
    for i in range(LIMIT + 1):
        lines.append(f"  %c{i} = arith.constant {i} : i32")
        lines.append(f"  %b{i} = arith.cmpi sgt, %n, %c{i} : i32")
        lines.append(f'  scf.if %b{i} {{\n    tile.store %out, %n : !tile.ptr<i32>\n  }} loc("k.py":{i + 10}:5)')
    lines += ["  return", "}"]
    with pytest.raises(tilelang.CompilationError) as info:
        tilelang.compile_ir("\n".join(lines))
    diagnostic = info.value.diagnostics[0]
    assert (diagnostic.file, diagnostic.line) == ("k.py", LIMIT + 10), str(info.value)
    assert f"more than {LIMIT} run-time branches and loops" in diagnostic.message


# -- many elements a thread ----------------------------------------------------------------
# A tensor puts at most 1,024 elements in a thread (tile::kMaxElementsPerThread; the refusal
# is tested in frontend/test_limits.py). Up to there the compile time must stay linear in
# the count: the lowering unrolls per element, and LLVM's straight-line strength reduction
# (slsr) compares each address computation with every earlier one of its shape when their
# differences are not constants (offsets from a program id), so it ran for 20-70 s on one
# warp's masked 2**15-2**16-element block. It is skipped on functions with more than 1,536
# address computations (the project's kernels have at most 1,191), which the llvm-ir stage
# shows. Counted, not timed.

PER_THREAD = 1024
NO_SLSR = '"tilelang-no-strength-reduction"'


@tilelang.jit
def masked_scale(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=mask) * 2, mask=mask)


@tilelang.jit
def softmax_row(x, y, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    row = tl.load(x + tl.program_id(0) * n + offs, mask=offs < n, other=-float("inf"))
    e = tl.exp(row - tl.max(row, axis=0))
    tl.store(y + tl.program_id(0) * n + offs, e / tl.sum(e, axis=0), mask=offs < n)


def _stages(kernel, block, num_warps=1):
    compiled = kernel.compile("*fp32,*fp32,i32", constexprs={"BLOCK": block}, num_warps=num_warps)
    compiled.to_ptx("sm_90a")
    return compiled.asm


def _addresses(llvm_ir):
    return llvm_ir.count(" = getelementptr ")


def test_long_address_chains_skip_strength_reduction():
    """One warp's masked block at the per-thread limit (2 x 1,024 addresses a
    thread) is compiled without slsr (before: 20-30 s in it here); an
    ordinary block keeps it."""
    at_limit = _stages(masked_scale, PER_THREAD * 32)
    assert _addresses(at_limit["llvm-ir"]) > 1536
    assert NO_SLSR in at_limit["llvm-ir"]
    assert ".entry masked_scale(" in at_limit["ptx"]
    ordinary = _stages(masked_scale, 1024, num_warps=4)
    assert 0 < _addresses(ordinary["llvm-ir"]) <= 1536
    assert NO_SLSR not in ordinary["llvm-ir"]


@pytest.mark.parametrize("kernel", [masked_scale, softmax_row], ids=["masked_scale", "softmax_row"])
def test_code_grows_linearly_with_elements_per_thread(kernel):
    """From 128 to 1,024 elements a thread (one warp), each stage's text
    grows in proportion: no lowering step makes per-element code that grows
    faster than the count. (512 a thread is left out for time: the masked
    block's 1,024 addresses still get slsr.)"""
    sizes = {}
    for per_thread in (128, 256, 1024):
        asm = _stages(kernel, per_thread * 32)
        sizes[per_thread] = {stage: asm[stage].count("\n") for stage in ("llvm", "llvm-ir", "ptx")}
    for stage in ("llvm", "llvm-ir", "ptx"):
        for small, large in ((128, 256), (256, 1024)):
            ratio = sizes[large][stage] / sizes[small][stage]
            assert ratio < 1.05 * large / small, (stage, sizes)
