"""Every error class raises CompilationError at the right file:line:col, with
the source line and a caret; never another exception."""

import pathlib

import error_kernels as ek
import pytest

import tilelang
import tilelang.language as tl
from tilelang.frontend import semantic

FILE = str(pathlib.Path(ek.__file__).resolve())
LINES = pathlib.Path(FILE).read_text().splitlines()


def where(name, snippet):
    """(line, col) of ``snippet`` on the line marked ``# ERR:name``."""
    for number, text in enumerate(LINES, 1):
        if f"# ERR:{name}" in text and not text.lstrip().startswith('"'):
            return number, text.index(snippet) + 1
    raise AssertionError(f"no marker for {name}")


def compile_err(kernel, signature, constexprs=None, **kw):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature, constexprs=constexprs or {}, **kw)
    return info.value


CASES = [
    # (kernel, signature, constexprs, snippet where the error points, message part)
    ("undefined_name", "*fp32", {}, "undefined_thing", "name 'undefined_thing' is not defined"),
    ("unsupported_syntax", "*fp32", {}, "with", "unsupported syntax: With"),
    ("lambda_syntax", "*fp32", {}, "lambda", "unsupported syntax: Lambda"),
    ("broadcast_error", "*fp32", {}, "a + b", "incompatible shapes for broadcasting: [128] and [64]"),
    ("dot_shape_error", "*fp32", {}, "tl.dot(a, b)", "tl.dot: incompatible shapes"),
    ("dot_dtype_error", "*fp32", {}, "tl.dot(a, b)", "same dtype"),
    ("arange_not_constexpr", "*i32,i32", {}, "tl.arange(0, n)", "must be a constexpr"),
    ("arange_not_pow2", "*i32", {}, "tl.arange(0, 100)", "power of 2"),
    ("zeros_shape_not_constexpr", "*fp32,i32", {}, "tl.zeros", "must be a constexpr"),
    ("wrong_builtin_args", "*fp32", {}, "tl.load()", "wrong arguments to tl.load"),
    ("wrong_helper_args", "*fp32", {}, "_helper(1, 2, 3)", "wrong arguments to _helper()"),
    ("loop_type_change", "*fp32,i32", {}, "for", "loop-carried variable 'acc'"),
    ("block_ptr", "*fp32", {}, "tl.make_block_ptr", "order must be a permutation"),
    ("bad_global", "*fp32", {}, "NOT_CONSTEXPR", "global variable 'NOT_CONSTEXPR'"),
    ("static_assert_fails", "*i32", {"BLOCK": 16}, "tl.static_assert", "BLOCK must be at least 64"),
    ("if_type_mismatch", "*fp32,i32", {}, "if", "variable 'v'"),
    ("load_non_pointer", "*fp32,i32", {}, "tl.load(n)", "expects a pointer"),
    ("float_floordiv", "*fp32,fp32", {}, "f // 2.0", "only supported on integers"),
]


@pytest.mark.parametrize("name,sig,consts,snippet,message", CASES, ids=[c[0] for c in CASES])
def test_error_location(name, sig, consts, snippet, message):
    err = compile_err(getattr(ek, name), sig, consts)
    line, col = where(name, snippet)
    assert err.file == FILE
    assert (err.line, err.column) == (line, col), str(err)
    assert message in str(err)
    text = str(err).splitlines()
    assert text[0].startswith(f"{FILE}:{line}:{col}: error: ")
    assert text[1].strip() == LINES[line - 1].strip()
    assert text[2].index("^") == text[1].index(LINES[line - 1].lstrip()) + col - 1 - \
        (len(LINES[line - 1]) - len(LINES[line - 1].lstrip()))


def test_verifier_error_points_at_python():
    """A dot that only the C++ verifier rejects reports the Python line."""
    err = compile_err(ek.verifier_error, "*fp32")
    line, col = where("verifier_error", "tl.dot")
    assert (err.file, err.line, err.column) == (FILE, line, col), str(err)
    assert "tile.dot" in str(err)
    assert LINES[line - 1].strip() in str(err)


def test_error_inside_inlined_call_has_a_note():
    @tilelang.jit
    def inner(x):
        return x + undefined_in_inner  # noqa: F821

    @tilelang.jit
    def outer(x_ptr):
        tl.store(x_ptr, inner(1.0))

    with pytest.raises(tilelang.CompilationError) as info:
        outer.compile("*fp32")
    err = info.value
    assert "undefined_in_inner" in str(err)
    assert err.line == inner.fn.__code__.co_firstlineno + 2
    assert any(d.severity == "note" and "inner()" in d.message for d in err.diagnostics)


def test_errors_raised_at_compile_not_decoration():
    @tilelang.jit
    def broken(x_ptr):
        tl.store(x_ptr, nope)  # noqa: F821

    with pytest.raises(tilelang.CompilationError):
        broken.compile("*fp32")


def test_internal_errors_are_wrapped(monkeypatch):
    def boom(self, axis):
        raise ValueError("boom")

    monkeypatch.setattr(semantic.Semantic, "program_id", boom)

    @tilelang.jit
    def kernel(x_ptr):
        pid = tl.program_id(0)
        tl.store(x_ptr, pid)

    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile("*i32")
    assert "internal error: ValueError: boom" in str(info.value)
    assert info.value.line == kernel.fn.__code__.co_firstlineno + 2


def test_a_kernel_without_source_says_it_must_be_in_a_file():
    # As at an interactive prompt or in `python -c`: no file to read.
    namespace = {"tl": tl}
    exec(compile("def typed_in(x_ptr):\n    tl.store(x_ptr, 1.0)\n", "<stdin>", "exec"), namespace)
    with pytest.raises(tilelang.CompilationError) as err:
        tilelang.jit(namespace["typed_in"]).compile("*fp32")
    assert str(err.value).startswith("<stdin>:1:1: error: cannot read the source of typed_in (could not get "
                                     "source code): a @tilelang.jit function is compiled from its source, so it "
                                     "must be defined in a file (not at an interactive prompt or in `python -c`)")
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_good_global_constexpr():
    ir = ek.good_global.compile("*i32").asm["tile"]
    assert "4" in ir


def test_calling_builtins_outside_kernels():
    with pytest.raises(RuntimeError, match="inside a @tilelang.jit"):
        tl.program_id(0)


@pytest.mark.parametrize("name,signature,message", [
    ("dot_i8_short_k", "*i32", "tile.dot on 'i8' needs K >= 32, got K = 16"),
])
def test_dots_the_tensor_cores_cannot_do_point_at_python(name, signature, message):
    """Products the lowering rejects fail the PTX compile at the tl.dot line."""
    kernel = getattr(ek, name).compile(signature)
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.to_ptx("sm_90a")
    err = info.value
    line, col = where(name, "tl.dot")
    assert message in str(err)
    assert (err.file, err.line, err.column) == (FILE, line, col), str(err)
