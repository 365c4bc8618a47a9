"""The frontend fuzzer (issue 20, item 6): generated kernels (kernel_gen.py)
either compile to PTX or are refused with a located ``tilelang`` error, never
an internal error, another exception, a signal or a hang (30 s per kernel).
Kernels with a planted misuse must be refused; scalar kernels must also mean
what their Python model says: tile_machine.Machine runs the tile IR as the
frontend emitted it and after canonicalization, programs 0..2 in order, and
the memory they leave is compared with the model's.

The kernels run in a child process, so that a crash or a hang is observed,
not suffered; it writes the index it is on before each kernel. The seed is
printed and replayed with TILELANG_FUZZ_SEED=<seed>; CI runs 300 kernels,

    TILELANG_FUZZ_KERNELS=10000 .venv/bin/python -m pytest test/python/frontend/test_fuzz_gen.py -s

is the long run (about half a minute per thousand kernels on one core)."""

import json
import os
import pathlib
import random
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
COUNT = int(os.environ.get("TILELANG_FUZZ_KERNELS", "300"))
HANG_SECONDS = 30


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"kernel fuzz seed: {value} (replay with TILELANG_FUZZ_SEED={value})")
    return value


CHILD = r"""
import faulthandler, importlib.util, json, pathlib, sys, traceback
sys.path.insert(0, sys.argv[1])
import tilelang
import kernel_gen
from tile_machine import Machine

seed, start, count = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
progress, workdir, hang = pathlib.Path(sys.argv[5]), pathlib.Path(sys.argv[6]), int(sys.argv[7])
outcomes = {"compiled": 0, "refused": 0, "checked": 0, "failures": []}


def check(index, case):
    path = workdir / f"kernel_{seed}_{index}.py"
    path.write_text(case.source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        compiled = module.kernel.compile(case.signature, constexprs=case.constexprs, num_warps=case.num_warps)
        compiled.to_ptx(case.arch)
    except tilelang.CompilationError as err:
        first = str(err).splitlines()[0]
        if case.expect == "valid":
            return f"a valid kernel was refused: {first}"
        lines = case.source.count("\n")
        if err.file != str(path) or not 1 <= err.line <= lines or not err.column:
            return f"the error is not located in the kernel: {err}"
        if "internal error" in str(err):
            return f"internal error: {err}"
        outcomes["refused"] += 1
        return None
    if case.expect == "error":
        return f"an invalid kernel was accepted ({case.why})"
    outcomes["compiled"] += 1
    if case.memory is None:
        return None
    for stage in ("tile", "tile-opt"):
        memory = {("src", k): v for k, v in enumerate(case.src)}
        machine = Machine(compiled.asm[stage], memory)
        try:
            for pid in range(kernel_gen.PROGRAMS):
                machine.run([("out", 0), ("src", 0), ("cnt", 0)] + case.args, pid)
        except (KeyError, AssertionError) as exc:
            return f"the {stage} IR faults where the model does not: {exc!r}\n{compiled.asm[stage]}"
        got = {k: v for k, v in memory.items() if k[0] != "src"}
        if got != case.memory:
            diff = {k: (got.get(k), case.memory.get(k)) for k in sorted(set(got) | set(case.memory))
                    if got.get(k) != case.memory.get(k)}
            return (f"the {stage} IR's meaning differs from the model, (ir, model) at {diff}; "
                    f"args {case.args}, src {case.src}\n{compiled.asm[stage]}")
    outcomes["checked"] += 1
    path.unlink()
    return None


with open(progress, "w") as mark:
    for index in range(start, start + count):
        mark.seek(0); mark.write(f"{index:12d}"); mark.flush()
        faulthandler.dump_traceback_later(hang, exit=True)
        case = kernel_gen.generate(seed, index)
        try:
            failure = check(index, case)
        except Exception:  # noqa: BLE001 - the failure we look for
            failure = "an exception escaped:\n" + traceback.format_exc()
        faulthandler.cancel_dump_traceback_later()
        if failure:
            outcomes["failures"].append({"index": index, "family": case.family, "failure": failure,
                                         "source": case.source, "signature": case.signature,
                                         "constexprs": case.constexprs, "num_warps": case.num_warps,
                                         "arch": case.arch})
print(json.dumps(outcomes))
"""


def run_kernels(seed, start, count, tmp_path):
    """Runs kernels [start, start + count) of ``seed`` in a child; returns
    its outcomes, or fails naming the kernel that crashed or hung it."""
    progress = tmp_path / "progress"
    env = dict(os.environ, TILELANG_CACHE="0")
    result = subprocess.run([sys.executable, "-c", CHILD, str(HERE), str(seed), str(start), str(count),
                             str(progress), str(tmp_path), str(HANG_SECONDS)],
                            capture_output=True, text=True, env=env, timeout=HANG_SECONDS + 20 + count * 5)
    if result.returncode != 0:
        index = int(progress.read_text() or start)
        sys.path.insert(0, str(HERE))
        import kernel_gen
        case = kernel_gen.generate(seed, index)
        pytest.fail(f"the compiler died (exit {result.returncode}) or hung on kernel {index} of seed {seed} "
                    f"({case.signature}, {case.constexprs}, num_warps={case.num_warps}, {case.arch}):\n"
                    f"{case.source}\n--- stderr ---\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.splitlines()[-1])


def test_generated_kernels(seed, tmp_path):
    outcomes = run_kernels(seed, 0, COUNT, tmp_path)
    failures = outcomes.pop("failures")
    print(f"kernel fuzz: {COUNT} kernels, {outcomes}")
    report = "\n\n".join(f"kernel {f['index']} of seed {seed} ({f['family']}, {f['signature']}, "
                         f"{f['constexprs']}, num_warps={f['num_warps']}, {f['arch']}): {f['failure']}\n"
                         f"{f['source']}" for f in failures[:5])
    assert not failures, f"{len(failures)} failures; the first:\n{report}"
    # Every outcome occurs, or the generator is not exercising anything.
    assert outcomes["checked"] > COUNT // 5 and outcomes["refused"] > COUNT // 10, outcomes
