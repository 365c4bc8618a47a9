"""The IR fuzzer (issue 20, item 6): mutants of every input of the lit suite
(ir_mutator.py) go through the passes their test runs and through the whole
compilation to PTX, in the library and in the tools. Each either succeeds or
fails with error diagnostics of which at least one names the input (at a
line and column, or the whole file for "no kernel in it"); never an "internal compiler error" (a recovered crash),
another exception, a signal, or a hang (30 s per mutant).

The library runs in a child process, so that a crash or a hang is observed,
not suffered (it writes the index it is on before each mutant). The seed is
printed and replayed with TILELANG_FUZZ_SEED=<seed>; CI runs 600 mutants
through the library and 30 through each tool, and

    TILELANG_FUZZ_IR_MUTANTS=10000 .venv/bin/python -m pytest test/python/test_ir_fuzz.py -s

is the long run (10,000 through the library, 500 through each tool)."""

import json
import os
import random
import re
import subprocess
import sys

import pytest

import ir_mutator
from tilelang_testing import REPO_ROOT, find_tool

COUNT = int(os.environ.get("TILELANG_FUZZ_IR_MUTANTS", "600"))
TOOL_COUNT = max(30, COUNT // 20)
HANG_SECONDS = 30
PIECES = ir_mutator.corpus()
# MLIR 22's parser of dense arrays crashes on an index element type
# (`array<index: 1, 0>`); the library and tilelang-opt refuse that construct
# before parsing (tilelang/Support/ParserGuard.h), so every internal compiler
# error is a failure.


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"IR fuzz seed: {value} (replay with TILELANG_FUZZ_SEED={value})")
    return value


def mutants(seed, count, stream):
    """``count`` (piece, text) pairs of ``seed``; ``stream`` separates the
    library's mutants from each tool's."""
    rng = random.Random(f"tilelang-ir-fuzz:{seed}:{stream}")
    return [ir_mutator.mutant(PIECES, rng) for _ in range(count)]


def test_corpus_reaches_the_passes():
    """The corpus holds the suite's inputs with their own passes, not only
    canonicalize."""
    assert len(PIECES) > 150
    pipelines = {piece.pipeline for piece in PIECES}
    for name in ("convert-tile-to-tilegpu{num-warps=4}", "tilegpu-coalesce", "tilegpu-pipeline",
                 "convert-tilegpu-to-llvm", "tilegpu-remove-layout-conversions", "tilegpu-accelerate-matmul"):
        assert any(name in pipeline for pipeline in pipelines), (name, pipelines)


CHILD = r"""
import faulthandler, json, re, sys
import tilelang
cases = json.load(open(sys.argv[1]))
hang = int(sys.argv[3])
outcomes = {"ok": 0, "error": 0, "failures": []}
with open(sys.argv[2], "w") as progress:
    for index, (text, mode, pipeline, warps, arch) in enumerate(cases):
        progress.seek(0); progress.write(f"{index:10d}"); progress.flush()
        faulthandler.dump_traceback_later(hang, exit=True)
        name = f"mutant{index}.mlir"
        try:
            if mode == "compile":
                tilelang.compile_ir(text, num_warps=warps, arch=arch, source_name=name)
            else:
                tilelang.run_pipeline(text, pipeline, source_name=name)
            outcomes["ok"] += 1
        except tilelang.CompilationError as err:
            errors = [d for d in err.diagnostics if d.severity == "error"]
            if not errors:
                outcomes["failures"].append((index, "an error without error diagnostics: " + str(err)))
            elif any("internal compiler error" in d.message for d in err.diagnostics):
                outcomes["failures"].append((index, str(err)))
            elif not any(d.file == name for d in errors):
                outcomes["failures"].append((index, "no error names the input: " + str(err)))
            else:
                outcomes["error"] += 1
        except Exception as exc:  # noqa: BLE001 - the failure we look for
            outcomes["failures"].append((index, f"{type(exc).__name__}: {exc}"))
        faulthandler.cancel_dump_traceback_later()
print(json.dumps(outcomes))
"""


def run_library(cases, seed, tmp_path):
    data, progress = tmp_path / "mutants.json", tmp_path / "progress"
    data.write_text(json.dumps(cases))
    result = subprocess.run([sys.executable, "-c", CHILD, str(data), str(progress), str(HANG_SECONDS)],
                            capture_output=True, text=True, timeout=HANG_SECONDS + 60 + len(cases) * 2)
    if result.returncode != 0:
        index = int(progress.read_text() or 0)
        text, mode, pipeline, warps, arch = cases[index]
        pytest.fail(f"the compiler died (exit {result.returncode}) or hung on mutant {index} of seed {seed} "
                    f"({mode}, {pipeline!r}, num_warps={warps}, {arch}):\n{text}\n"
                    f"--- stderr ---\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.splitlines()[-1])


def test_library_survives_mutants(seed, tmp_path):
    """Through each piece's own passes (two thirds) and compile_ir to PTX
    (one third, 1-8 warps, sm_80 and sm_90a)."""
    rng = random.Random(seed)
    cases = []
    for piece, text in mutants(seed, COUNT, "library"):
        mode = "compile" if rng.random() < 1 / 3 else "pipeline"
        cases.append((text, mode, piece.pipeline, rng.choice([1, 2, 4, 8]), rng.choice(["sm_80", "sm_90a"])))
    outcomes = run_library(cases, seed, tmp_path)
    failures = outcomes.pop("failures")
    print(f"IR fuzz, library: {COUNT} mutants, {outcomes}")
    report = "\n\n".join(f"mutant {i} of seed {seed} ({cases[i][1]}, {cases[i][2]!r}): {why}\n{cases[i][0]}"
                         for i, why in failures[:3])
    assert not failures, f"{len(failures)} failures; the first:\n{report}"
    # Both outcomes occur, or the mutator is not exercising anything.
    assert outcomes["error"] > COUNT // 10 and outcomes["ok"] > COUNT // 50, outcomes


@pytest.mark.parametrize("tool", ["tilelang-opt", "tilelang-compile"])
def test_tools_survive_mutants(tool, seed, tmp_path):
    """The tools exit 0 or 1, and on 1 print an error located in the input."""
    binary = find_tool(tool)
    counts = {0: 0, 1: 0}
    for index, (piece, text) in enumerate(mutants(seed, TOOL_COUNT, tool)):
        path = tmp_path / f"mutant{index}.mlir"
        path.write_text(text)
        if tool == "tilelang-opt":
            args = [binary, str(path)] + piece.flags
        else:
            args = [binary, str(path), "-o", os.devnull, f"--num-warps={random.Random(index).choice([1, 4, 8])}",
                    f"--arch={('sm_80', 'sm_90a')[index % 2]}"]
        where = f"{tool} on mutant {index} of seed {seed} ({piece.origin}, {' '.join(args[2:])}):\n{text}"
        try:
            result = subprocess.run(args, capture_output=True, text=True, timeout=HANG_SECONDS, cwd=REPO_ROOT)
        except subprocess.TimeoutExpired:
            pytest.fail(f"hung: {where}")
        assert result.returncode in (0, 1), f"exit {result.returncode}: {where}\n{result.stderr[-2000:]}"
        assert "internal compiler error" not in result.stderr, f"{where}\n{result.stderr[-2000:]}"
        if result.returncode == 1:
            assert re.search(rf"{re.escape(str(path))}(:\d+:\d+)?: error: ", result.stderr), \
                f"no located error: {where}\n{result.stderr[-2000:]}"
        counts[result.returncode] += 1
    print(f"IR fuzz, {tool}: {TOOL_COUNT} mutants, exit status counts {counts}")
    assert counts[1] > TOOL_COUNT // 10, counts
