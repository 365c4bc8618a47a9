"""The command-line tools: tilelang-opt and tilelang-ir."""

import subprocess
import sys

from tilelang_testing import EXAMPLES, find_tool

BAD = "func.func @f() {\n  %r = tile.make_range 4 to 2 : tensor<2xi32>\n  return\n}\n"


def run(cmd, **kwargs):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kwargs)


def test_tilelang_opt_canonicalizes_an_example(tilelang_opt):
    result = run([tilelang_opt, str(EXAMPLES[0]), "--canonicalize", "--cse"])
    assert result.returncode == 0, result.stderr
    assert "func.func @" in result.stdout


def test_tilelang_opt_reports_verifier_errors_with_location(tilelang_opt, tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(BAD)
    result = run([tilelang_opt, str(src)])
    assert result.returncode == 1
    assert f"{src}:2:8: error: 'tile.make_range' op end (2) must be greater than start (4)" in result.stderr


def test_tilelang_ir_matches_tilelang_opt(tilelang_opt):
    path = str(EXAMPLES[-1])
    via_opt = run([tilelang_opt, path, "--canonicalize", "--cse"])
    via_lib = run([find_tool("tilelang-ir"), path, "-p", "canonicalize,cse"])
    assert via_lib.returncode == 0, via_lib.stderr
    assert via_lib.stdout == via_opt.stdout


def test_tilelang_ir_error_exit_code_and_caret(tmp_path):
    src = tmp_path / "bad.mlir"
    src.write_text(BAD)
    result = run([sys.executable, "-m", "tilelang", str(src)])
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{src}:2:8: error:")
    assert lines[2].endswith("^") and len(lines[2]) == 4 + 8


def test_tilelang_ir_reads_stdin_and_reports_missing_files(tmp_path):
    result = run([find_tool("tilelang-ir"), "-"], input=EXAMPLES[0].read_text())
    assert result.returncode == 0 and "tile." in result.stdout
    missing = run([find_tool("tilelang-ir"), str(tmp_path / "nope.mlir")])
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr
