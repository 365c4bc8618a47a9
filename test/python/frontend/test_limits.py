"""Kernel sources that used to exhaust the compiler or reach it as internal
errors (issue 20, item 3) are refused with ordinary errors at the user's
line: tensors over Triton's 2**20 elements, constexpr integers without
bound, min() of nothing, tl.reduce of no tensors."""

import math
import pathlib
import resource
import subprocess
import sys
import textwrap

import pytest

import tilelang
import tilelang.language as tl

FILE = str(pathlib.Path(__file__).resolve())
LINES = pathlib.Path(FILE).read_text().splitlines()


def where(marker):
    """The line marked ``# HERE:marker`` in this file."""
    for number, text in enumerate(LINES, 1):
        if text.rstrip().endswith(f"# HERE:{marker}"):
            return number
    raise AssertionError(f"no line marked {marker}")


def refused(kernel, marker, message, signature="*fp32", constexprs=None):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature, constexprs=constexprs or {})
    err = info.value
    assert (err.file, err.line) == (FILE, where(marker)), str(err)
    assert message in str(err), str(err)
    assert "internal error" not in str(err)
    return err


# -- tensors hold at most 2**20 elements -----------------------------------------------------


def test_the_cap_is_tritons():
    assert tl.TRITON_MAX_TENSOR_NUMEL == 2**20


@tilelang.jit
def full_too_large(out):
    x = tl.full((2**30, 2), 1.0, tl.float32)  # HERE:full
    tl.store(out + tl.arange(0, 2), tl.sum(x, axis=0))


@tilelang.jit
def arange_too_large(out):
    x = tl.arange(0, 2**21)  # HERE:arange
    tl.store(out + x, x.to(tl.float32))


@tilelang.jit
def broadcast_too_large(out):
    r = tl.arange(0, 2048)
    x = r[:, None] + r[None, :]  # HERE:broadcast
    tl.store(out, tl.sum(tl.sum(x, axis=1), axis=0).to(tl.float32))


@tilelang.jit
def block_at_the_cap(out, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out + offs, tl.zeros((BLOCK,), tl.float32))


def test_tensor_over_the_cap_is_refused_where_written():
    refused(full_too_large, "full", "shape [1073741824, 2] has 2147483648 elements, more than the 1048576")
    refused(arange_too_large, "arange", "[2097152] has 2097152 elements, more than the 1048576")


def test_tensor_over_the_cap_by_broadcasting():
    # Two 2048-element operands broadcast to 2**22 elements.
    refused(broadcast_too_large, "broadcast", "[2048, 2048] has 4194304 elements")


def test_tensor_at_the_cap_is_accepted():
    kernel = block_at_the_cap.compile("*fp32", constexprs={"BLOCK": 2**20})
    assert "tensor<1048576xf32>" in kernel.asm["tile"]


def _splat_kernel(numel):
    return (f"func.func @k(%x: f32) {{\n  %s = tile.splat %x : f32 -> tensor<{numel}xf32>\n"
            f"  return\n}}\n")


def test_compiler_library_holds_ir_to_the_same_cap():
    """IR given to the library directly meets the frontend's cap (one fact,
    tl.TRITON_MAX_TENSOR_NUMEL = tile::kMaxTensorElements). At 32 warps a
    tensor of that size puts exactly the most elements a thread may hold
    (below) in each thread."""
    pipeline = "convert-tile-to-tilegpu{num-warps=32}"
    assert "tensor<1048576xf32" in tilelang.run_pipeline(_splat_kernel(tl.TRITON_MAX_TENSOR_NUMEL), pipeline)
    with pytest.raises(tilelang.CompilationError) as info:
        tilelang.run_pipeline(_splat_kernel(2 * tl.TRITON_MAX_TENSOR_NUMEL), pipeline)
    diagnostic = info.value.diagnostics[0]
    assert diagnostic.line == 2
    assert "has more than 1048576 (2^20) elements" in diagnostic.message


# -- a tensor puts at most 1024 elements in each thread -------------------------------------
# (tile::kMaxElementsPerThread: its element count over the program's 32 * num_warps
# threads.) Past that a thread's values live in local memory and compile time grows
# faster than the count: 2**20 elements at one warp compiled for over ten minutes.
# The frontend does not know num_warps; the library refuses such a kernel before
# choosing layouts, at the line that made the tensor.

PER_THREAD = 1024


@tilelang.jit
def scaled_block(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)  # HERE:per-thread
    mask = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=mask) * 2, mask=mask)


@pytest.mark.parametrize("block, num_warps, needed", [(2**16, 1, 2), (2**20, 1, 32), (2**20, 16, 32),
                                                      (2**17, 2, 4)])
def test_tensor_over_the_per_thread_cap_is_refused_where_written(block, num_warps, needed):
    kernel = scaled_block.compile("*fp32,*fp32,i32", constexprs={"BLOCK": block}, num_warps=num_warps)
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.to_ptx("sm_90a")
    err = info.value
    per_thread = block // (32 * num_warps)
    assert (err.file, err.line) == (FILE, where("per-thread")), str(err)
    message = err.diagnostics[0].message
    assert f"tensor<{block}xi32>" in message, message
    assert f"puts {per_thread} elements in each thread at num_warps={num_warps}" in message, message
    assert f"more than the {PER_THREAD} one tensor may put in a thread" in message, message
    assert f"launch with num_warps={needed} or more, use a smaller block" in message, message
    assert "internal" not in str(err)
    # Refused before the lowering: no later stage was made.
    assert "llvm" not in kernel.asm


def _zeros_kernel(shape):
    dims = "x".join(map(str, shape))
    return (f"func.func @k() {{\n  %z = arith.constant dense<0.0> : tensor<{dims}xf32> loc(\"z.py\":3:7)\n"
            f"  %s = arith.addf %z, %z : tensor<{dims}xf32> loc(\"z.py\":4:7)\n"
            f"  return\n}}\n")


def _splat_of(shape):
    dims = "x".join(map(str, shape))
    return (f"func.func @k(%x: f32) {{\n  %s = tile.splat %x : f32 -> tensor<{dims}xf32> loc(\"s.py\":2:9)\n"
            f"  return\n}}\n")


@pytest.mark.parametrize("shape, num_warps", [((2**15,), 1), ((64, 512), 1), ((2**16,), 2), ((256, 256), 2),
                                              ((2**20,), 32), ((1024, 1024), 32), ((128, 256), 1)])
def test_tensor_at_the_per_thread_cap_gets_layouts(shape, num_warps):
    assert math.prod(shape) // (32 * num_warps) <= PER_THREAD
    out = tilelang.run_pipeline(_splat_of(shape), f"convert-tile-to-tilegpu{{num-warps={num_warps}}}")
    assert "#tilegpu.blocked" in out


@pytest.mark.parametrize("shape, num_warps", [((2**16,), 1), ((64, 1024), 1), ((2**17,), 2),
                                              ((512, 256), 2), ((2**20,), 16), ((2, 2**19), 8)])
def test_library_refuses_ir_over_the_per_thread_cap(shape, num_warps):
    """IR given directly (tilelang-opt, tilelang-compile, compile_ir) is held
    to the same count, with the op's location."""
    numel = math.prod(shape)
    with pytest.raises(tilelang.CompilationError) as info:
        tilelang.run_pipeline(_splat_of(shape), f"convert-tile-to-tilegpu{{num-warps={num_warps}}}")
    diagnostic = info.value.diagnostics[0]
    assert (diagnostic.file, diagnostic.line, diagnostic.column) == ("s.py", 2, 9)
    per_thread = numel // (32 * num_warps)
    assert f"puts {per_thread} elements in each thread at num_warps={num_warps} ({numel} elements over " \
        f"{32 * num_warps} threads)" in diagnostic.message


def test_per_thread_cap_points_past_hoisted_constants():
    """A splat constant hoisted to the function's top is not where the shape
    was chosen: the first other op over the count is named."""
    with pytest.raises(tilelang.CompilationError) as info:
        tilelang.run_pipeline(_zeros_kernel((65536,)), "convert-tile-to-tilegpu{num-warps=1}")
    assert info.value.diagnostics[0].line == 4
    only_constant = "func.func @k() {\n  %z = arith.constant dense<0.0> : tensor<65536xf32> loc(\"z.py\":3:7)\n" \
        "  return\n}\n"
    with pytest.raises(tilelang.CompilationError) as info:
        tilelang.run_pipeline(only_constant, "convert-tile-to-tilegpu{num-warps=1}")
    assert info.value.diagnostics[0].line == 3


def test_block_at_the_per_thread_cap_compiles():
    """1,024 elements a thread (2**15 at one warp) compile to PTX."""
    kernel = block_at_the_cap.compile("*fp32", constexprs={"BLOCK": 2**15}, num_warps=1)
    assert ".entry block_at_the_cap(" in kernel.to_ptx("sm_90a").ptx


# -- constexpr arithmetic is bounded -----------------------------------------------------------


@tilelang.jit
def constexpr_tower(out, BLOCK: tl.constexpr):
    tl.store(out, BLOCK**BLOCK**BLOCK)  # HERE:tower


@tilelang.jit
def constexpr_power(out, BLOCK: tl.constexpr):
    big = BLOCK**5000  # HERE:power
    tl.static_assert(big > 0)
    tl.store(out, 1.0)


@tilelang.jit
def constexpr_shift(out, BLOCK: tl.constexpr):
    tl.store(out, 1 << (BLOCK << 36))  # HERE:shift


@tilelang.jit
def constexpr_squaring(out, BLOCK: tl.constexpr):
    x = BLOCK
    for _ in tl.static_range(20):
        x = x * x  # HERE:squaring
    tl.store(out, 1.0)


@tilelang.jit
def constexpr_factorial(out, BLOCK: tl.constexpr):
    tl.static_assert(math.factorial(BLOCK) > 0)  # HERE:factorial
    tl.store(out, 1.0)


@tilelang.jit
def constexpr_repeat(out, BLOCK: tl.constexpr):
    tl.static_assert(len("x" * BLOCK) > 0)  # HERE:repeat
    tl.store(out, 1.0)


@tilelang.jit
def constexpr_wide_but_sane(out, BLOCK: tl.constexpr):
    tl.static_assert((BLOCK**64) >> 256 == 1)
    tl.static_assert((1 << 4000) > 0)
    tl.store(out, 1.0)


def test_constexpr_power_is_refused_before_it_is_computed():
    refused(constexpr_power, "power", "constexpr expression too large: the power has more than 4096 bits",
            constexprs={"BLOCK": 16})


def test_constexpr_shift_is_refused_before_it_is_computed():
    refused(constexpr_shift, "shift", "constexpr expression too large: the shifted value has more than 4096 bits",
            constexprs={"BLOCK": 16})


def test_constexpr_results_are_bounded():
    # Each product is cheap; their growth is stopped at the first one too wide.
    refused(constexpr_squaring, "squaring", "has 4097 bits, more than the 4096 a constexpr integer may have",
            constexprs={"BLOCK": 16})
    refused(constexpr_factorial, "factorial", "factorial(): constexpr expression too large",
            constexprs={"BLOCK": 2**40})
    refused(constexpr_repeat, "repeat", "the repeated str has more than 1048576 items",
            constexprs={"BLOCK": 2**40})


def test_constexpr_integers_up_to_the_bound_are_fine():
    constexpr_wide_but_sane.compile("*fp32", constexprs={"BLOCK": 16})


def test_constexpr_tower_fails_fast():
    """BLOCK**BLOCK**BLOCK ran until memory ran out. In a child with 2 GiB of
    address space and a minute, so that a regression fails rather than
    exhausting the machine."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(pathlib.Path(FILE).parent)!r})
        import tilelang, test_limits
        try:
            test_limits.constexpr_tower.compile("*fp32", constexprs={{"BLOCK": 16}})
        except tilelang.CompilationError as err:
            print(f"{{err.line}}: {{err}}")
    """)
    limit = 2 << 30

    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                           preexec_fn=limit_memory)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.startswith(f"{where('tower')}: "), child.stdout
    assert "constexpr expression too large: the power has more than 4096 bits" in child.stdout


# -- ordinary errors instead of internal ones ---------------------------------------------------


@tilelang.jit
def min_of_nothing(out):
    tl.store(out, min())  # HERE:min


@tilelang.jit
def max_of_a_tensor(out):
    x = tl.load(out + tl.arange(0, 16))
    tl.store(out, max(x))  # HERE:max_tensor


@tilelang.jit
def min_of_mixed(out, A: tl.constexpr):
    tl.store(out, min(A, "text"))  # HERE:min_mixed


@tilelang.jit
def min_of_constexprs(out, A: tl.constexpr):
    tl.store(out + (min(A, 3) + max((A, 7))), 1.0)


@tilelang.jit
def _add(a, b):
    return a + b


@tilelang.jit
def reduce_of_nothing(out):
    tl.store(out, tl.reduce((), 0, _add))  # HERE:reduce


@tilelang.jit
def scan_of_nothing(out):
    tl.store(out, tl.associative_scan((), 0, _add))  # HERE:scan


def test_min_without_arguments():
    refused(min_of_nothing, "min", "min() needs at least one value, got none")


def test_max_of_one_tensor_points_at_tl_max():
    refused(max_of_a_tensor, "max_tensor", "max() of one tensor: reduce it with tl.max(x, axis)")


def test_min_of_values_that_do_not_compare():
    refused(min_of_mixed, "min_mixed", "min(): TypeError", constexprs={"A": 5})


def test_min_and_max_of_constexprs_still_fold():
    ir = min_of_constexprs.compile("*fp32", constexprs={"A": 5}).asm["tile"]
    assert "tile.addptr" in ir and "arith.constant 10 : i32" in ir


def test_reduce_and_scan_of_no_tensors():
    refused(reduce_of_nothing, "reduce", "tl.reduce needs at least one tensor to reduce, got an empty tuple")
    refused(scan_of_nothing, "scan", "tl.associative_scan needs at least one tensor to scan, got an empty tuple")
