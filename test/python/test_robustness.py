"""Malformed IR never crashes the compiler: mutants of valid programs either
compile or come back as located diagnostics, through the library and through
tilelang-opt. Inputs are fresh each run; the seed is printed for replay
(TILELANG_FUZZ_SEED=<seed>)."""

import json
import os
import random
import re
import subprocess
import sys

import pytest

from tilelang_testing import EXAMPLES, REPO_ROOT

CORPUS = EXAMPLES + sorted((REPO_ROOT / "test" / "Dialect" / "Tile").glob("ops.mlir"))
TOKEN = re.compile(r"%[\w#]+|!?[\w.]+|\d+|\S")


def mutate(text: str, rng: random.Random) -> str:
    """One random structural or numeric change to an IR text."""
    tokens = [m.span() for m in TOKEN.finditer(text)]
    kind = rng.randrange(7)
    if kind == 0:  # truncate anywhere
        return text[: rng.randrange(len(text))]
    start, end = tokens[rng.randrange(len(tokens))]
    if kind == 1:  # drop a token
        return text[:start] + text[end:]
    if kind == 2:  # duplicate a token
        return text[:end] + " " + text[start:end] + text[end:]
    if kind == 3:  # change a number (shapes, axes, ranges, constants)
        numbers = [m.span() for m in re.finditer(r"\d+", text)]
        start, end = numbers[rng.randrange(len(numbers))]
        return text[:start] + str(rng.choice([0, 1, 2, 3, 7, 16, 64, 100, 2**31, -1])) + text[end:]
    if kind == 4:  # swap two tokens
        s2, e2 = tokens[rng.randrange(len(tokens))]
        if s2 < start:
            (start, end), (s2, e2) = (s2, e2), (start, end)
        if s2 < end:
            return text
        return text[:start] + text[s2:e2] + text[end:s2] + text[start:end] + text[e2:]
    if kind == 5:  # swap an element type for another one
        types = [m.span() for m in re.finditer(r"\b(f16|f32|i32|i1|i64|bf16)\b", text)]
        if not types:
            return text
        start, end = types[rng.randrange(len(types))]
        return text[:start] + rng.choice(TYPES) + text[end:]
    # swap an arith or math op for another one
    ops = [m.span() for m in re.finditer(r"\b(arith|math)\.\w+", text)]
    if not ops:
        return text
    start, end = ops[rng.randrange(len(ops))]
    return text[:start] + rng.choice(OPS) + text[end:]


TYPES = ["f16", "f32", "i32", "i1", "i8", "i16", "i64", "bf16", "f64", "f8E4M3FN", "f8E5M2", "index"]
OPS = ["math.exp", "math.tan", "math.sinh", "math.atan", "math.log1p", "math.erf", "math.erfc", "math.cbrt",
       "math.fpowi", "math.absf", "math.floor", "math.sqrt", "arith.remf", "arith.addf", "arith.divsi",
       "arith.ceildivsi", "arith.floordivsi", "arith.maxsi", "arith.minimumf", "arith.select", "arith.extf",
       "arith.truncf", "arith.fptosi", "arith.sitofp", "arith.bitcast", "arith.shli", "arith.mulsi_extended"]


def make_mutants(count: int, seed: int):
    rng = random.Random(seed)
    texts = [p.read_text() for p in CORPUS]
    return [mutate(rng.choice(texts), rng) for _ in range(count)]


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"fuzz seed: {value} (replay with TILELANG_FUZZ_SEED={value})")
    return value


# Runs in a child process so that a crash is observed, not suffered: the child
# writes the index it is on before each compile.
CHILD = r"""
import json, sys
import tilelang
mutants = json.load(open(sys.argv[1]))
mode = sys.argv[3]
with open(sys.argv[2], "w") as progress:
    outcomes = {"ok": 0, "error": 0}
    for index, text in enumerate(mutants):
        progress.seek(0); progress.write(f"{index:10d}"); progress.flush()
        try:
            if mode == "compile":
                tilelang.compile_ir(text, num_warps=(1, 2, 4, 8)[index % 4])
            else:
                tilelang.run_pipeline(text, "canonicalize,cse")
            outcomes["ok"] += 1
        except tilelang.CompilationError as err:
            assert err.diagnostics, f"mutant {index}: error without diagnostics"
            assert any(d.severity == "error" for d in err.diagnostics), f"mutant {index}"
            outcomes["error"] += 1
print(json.dumps(outcomes))
"""


def run_child(mutants, mode, seed, tmp_path):
    """Runs the mutants through the library in a child; fails on a crash."""
    data, progress = tmp_path / "mutants.json", tmp_path / "progress"
    data.write_text(json.dumps(mutants))
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(data), str(progress), mode], capture_output=True, text=True, timeout=600
    )
    if result.returncode != 0:
        index = int(progress.read_text() or 0)
        pytest.fail(
            f"compiler died (exit {result.returncode}) on mutant {index} (seed {seed}, {mode}):\n"
            f"{mutants[index]}\n--- stderr ---\n{result.stderr[-3000:]}"
        )
    return json.loads(result.stdout)


def test_compile_survives_mutants(seed, tmp_path):
    """The whole pipeline to PTX, on mutants of the PTX suite's kernels."""
    rng = random.Random(seed + 2)
    texts = [p.read_text() for p in CORPUS if "Target" in str(p)]
    mutants = [mutate(rng.choice(texts), rng) for _ in range(300)]
    outcomes = run_child(mutants, "compile", seed, tmp_path)
    assert outcomes["error"] > 20 and outcomes["ok"] > 5, outcomes


def test_library_survives_mutants(seed, tmp_path):
    outcomes = run_child(make_mutants(1500, seed), "pipeline", seed, tmp_path)
    # Both outcomes must occur, or the mutator is not exercising anything.
    assert outcomes["error"] > 100 and outcomes["ok"] > 10, outcomes


def test_tilelang_opt_survives_mutants(seed, tilelang_opt, tmp_path):
    for index, text in enumerate(make_mutants(60, seed + 1)):
        path = tmp_path / f"mutant{index}.mlir"
        path.write_text(text)
        result = subprocess.run(
            [tilelang_opt, str(path), "--canonicalize", "--cse"], capture_output=True, text=True, timeout=60
        )
        assert result.returncode in (0, 1), (
            f"tilelang-opt exited {result.returncode} on mutant {index} (seed {seed}):\n{text}\n{result.stderr[-2000:]}"
        )
        if result.returncode == 1:
            assert re.search(rf"{re.escape(str(path))}:\d+:\d+: error: ", result.stderr), result.stderr
