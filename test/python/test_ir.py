"""tilelang.run_pipeline / tilelang.verify: the compiler library from Python."""

import json
import re
import subprocess
import sys
import textwrap
import threading

import pytest

import tilelang
from tilelang import CompilationError

from tilelang_testing import EXAMPLES

GOOD = """\
func.func @f(%p: !tile.ptr<f32>, %n: i32) -> tensor<64xf32> {
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %zero = arith.constant dense<0> : tensor<64xi32>
  %q = tile.addptr %ps, %zero : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  %v = tile.load %q : tensor<64x!tile.ptr<f32>>
  return %v : tensor<64xf32>
}
"""

BAD_RANGE = """\
func.func @f() -> tensor<100xi32> {
  %r = tile.make_range 0 to 100 : tensor<100xi32>
  return %r : tensor<100xi32>
}
"""


def test_version_names_llvm():
    assert re.fullmatch(r"\d+\.\d+\.\d+ \(LLVM 22\.\d+\.\d+\)", tilelang.compiler_version())


def test_parse_print_without_passes_keeps_ops():
    out = tilelang.run_pipeline(GOOD)
    assert "tile.addptr" in out and "tile.make_range" in out


def test_canonicalize_folds_addptr_by_zero_and_drops_dead_ops():
    out = tilelang.run_pipeline(GOOD, "canonicalize,cse")
    assert "tile.addptr" not in out
    assert "tile.make_range" not in out  # unused, pure: erased
    assert re.search(r"tile\.load %\d+ : tensor<64x!tile\.ptr<f32>>", out)


def test_generic_form_and_locations():
    generic = tilelang.run_pipeline(GOOD, generic=True)
    assert '"tile.load"' in generic
    located = tilelang.run_pipeline(GOOD, locations=True, source_name="k.mlir")
    assert re.search(r'loc\("k\.mlir":5:8\)', located)


def test_verifier_error_is_located_with_caret():
    with pytest.raises(CompilationError) as info:
        tilelang.verify(BAD_RANGE, source_name="kernel.mlir")
    err = info.value
    assert (err.file, err.line, err.column) == ("kernel.mlir", 2, 8)
    text = str(err)
    assert text.startswith("kernel.mlir:2:8: error: 'tile.make_range' op number of elements")
    lines = text.splitlines()
    assert lines[1] == "      %r = tile.make_range 0 to 100 : tensor<100xi32>"
    assert lines[2] == "    " + " " * 7 + "^"


def test_parse_error_is_located():
    with pytest.raises(CompilationError) as info:
        tilelang.verify("func.func @f() {\n  %x = tile.bogus\n  return\n}\n")
    assert info.value.line == 2
    assert "tile.bogus" in str(info.value)


def test_type_error_in_pointer_type():
    with pytest.raises(CompilationError, match="pointee type must be an integer, a float or a pointer"):
        tilelang.verify("func.func @f(%p: !tile.ptr<index>) { return }")


def test_invalid_pipeline_is_reported():
    with pytest.raises(CompilationError, match="invalid pass pipeline 'no-such-pass'"):
        tilelang.run_pipeline(GOOD, "no-such-pass")


@pytest.mark.parametrize("source", ["", "   \n", "}", "func.func", "\x00\x01\x02", "module { module {"])
def test_malformed_input_never_crashes(source):
    try:
        tilelang.run_pipeline(source, "canonicalize")
    except CompilationError as err:
        assert err.diagnostics, "an error must carry at least one diagnostic"


def test_non_string_arguments_raise_type_error():
    with pytest.raises(TypeError):
        tilelang.run_pipeline(b"bytes")
    with pytest.raises(TypeError):
        tilelang.run_pipeline(GOOD, pipeline=None)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_bundled_examples_verify_and_canonicalize(path):
    out = tilelang.run_pipeline(path.read_text(), "canonicalize,cse", source_name=str(path))
    assert "func.func @" in out


def test_concurrent_calls_are_independent():
    errors, outputs = [], []

    def work(i):
        try:
            if i % 2:
                outputs.append(tilelang.run_pipeline(GOOD, "canonicalize,cse"))
            else:
                tilelang.verify(BAD_RANGE)
        except CompilationError as err:
            errors.append(err)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(errors) == 8 and len(outputs) == 8
    assert len(set(outputs)) == 1
    assert all(e.line == 2 for e in errors)


def test_a_crash_inside_mlir_becomes_a_compilation_error():
    # A pass that crashes (test-crash raises SIGSEGV, or reports a fatal
    # error): the library turns that into a diagnostic, and keeps working
    # afterwards.
    for kind in ("segfault", "fatal-error"):
        with pytest.raises(CompilationError, match="internal compiler error"):
            tilelang.run_pipeline(GOOD, "test-crash{kind=" + kind + "}")
    assert "tile.load" in tilelang.run_pipeline(GOOD)


def test_input_mlir_cannot_parse_is_refused_where_it_stands():
    # MLIR 22's attribute parser crashes on a dense array of index elements;
    # the library refuses it before parsing, at its line and column, and not
    # in a comment or a string.
    source = ('// array<index: 1> in a comment\n'
              'func.func @f() attributes {s = "array<index: 2>", x = array<index: 1, 0>} { return }')
    with pytest.raises(CompilationError) as info:
        tilelang.verify(source)
    (diagnostic,) = info.value.diagnostics
    assert (diagnostic.line, diagnostic.column) == (2, 55), diagnostic
    assert "dense arrays of 'index' elements" in diagnostic.message
    assert "internal compiler error" not in str(info.value)


# Runs in a fresh process, so that the peak of concurrent compilations is
# this script's own and not left over from earlier tests.
_PARALLEL_SCRIPT = textwrap.dedent(
    """
    import json, sys, threading
    from tilelang import CompilationError, ir

    good, threads, rounds = json.loads(sys.stdin.read())
    barrier = threading.Barrier(threads)
    outcomes = []

    def work(index):
        for _ in range(rounds):
            barrier.wait()
            try:
                pipeline = "test-crash" if index % 2 else "canonicalize,cse"
                outcomes.append(("ok", ir.run_pipeline(good, pipeline)))
            except CompilationError as err:
                outcomes.append(("error", str(err)))

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    print(json.dumps({"outcomes": outcomes, "stats": ir.compiler_statistics()}))
    """
)


def test_compilations_from_threads_overlap_and_recover_separately():
    # Half of the threads compile a good module, half one that crashes inside
    # MLIR. The compilations must really run at the same time (no global
    # lock), and each crash must come back to its own thread as an error
    # while the good compilations next to it succeed.
    threads, rounds = 4, 25
    payload = json.dumps([GOOD, threads, rounds])
    child = subprocess.run([sys.executable, "-c", _PARALLEL_SCRIPT], input=payload,
                           capture_output=True, text=True, timeout=300)
    assert child.returncode == 0, child.stderr
    report = json.loads(child.stdout)
    outcomes, stats = report["outcomes"], report["stats"]
    assert len(outcomes) == threads * rounds
    good = [text for kind, text in outcomes if kind == "ok"]
    crashed = [text for kind, text in outcomes if kind == "error"]
    assert len(good) == len(crashed) == threads * rounds // 2
    assert len(set(good)) == 1 and "tile.load" in good[0]
    assert all("internal compiler error" in text for text in crashed)
    assert stats["compilations"] == threads * rounds
    assert stats["recovered_crashes"] == threads * rounds // 2
    assert stats["peak_concurrent"] >= 2
