"""The disk cache fault injector (issue 20, item 6): a valid cache is damaged
at random (cache_faults.py: truncation, bit flips, links, FIFOs, folders,
permissions, owners, edited or foreign metadata, staging folders of killed
writers, the directory itself replaced), then a kernel is compiled through
it. Each time the compiled PTX is the kernel's own, nothing outside the cache
changes, no exception escapes and nothing hangs (30 s); when the damage is
inside the directory, the next compilation finds a valid entry again (the
bad one was rebuilt). A second test races writers into one cache and kills
them with SIGKILL at random moments; a reader then gets every kernel right.

The faults run in a child process, so that a crash or a hang is observed,
not suffered. The seed is printed and replayed with TILELANG_FUZZ_SEED=<seed>;
CI runs 150 faults and 7 kills, and

    TILELANG_FUZZ_CACHE_FAULTS=1000 .venv/bin/python -m pytest test/python/test_cache_fuzz.py -s

is the long run (1,000 faults, 50 kills; about two minutes)."""

import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from test_cache import KERNEL_SOURCE

HERE = pathlib.Path(__file__).resolve().parent
COUNT = int(os.environ.get("TILELANG_FUZZ_CACHE_FAULTS", "150"))
KILLS = max(3, COUNT // 20)
HANG_SECONDS = 30


@pytest.fixture(scope="module")
def seed():
    value = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(2**32)))
    print(f"cache fuzz seed: {value} (replay with TILELANG_FUZZ_SEED={value})")
    return value


@pytest.fixture
def kernels(tmp_path, monkeypatch):
    (tmp_path / "kernels_mod.py").write_text(KERNEL_SOURCE)
    for name in ("TILELANG_CACHE", "TILELANG_ALWAYS_COMPILE", "TILELANG_CACHE_DIR"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def run(code, args, cwd, timeout, **env_extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(cwd), str(HERE)] + sys.path), **env_extra)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=timeout)


CHILD = r"""
import faulthandler, json, os, random, shutil, sys, warnings
from tilelang import cache
import cache_faults as F
import kernels_mod

seed, start, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
work, progress, hang = sys.argv[4], sys.argv[5], int(sys.argv[6])
base = os.path.join(work, "base")

# The base cache: the kernel under test (BLOCK 256) and two others.
os.environ["TILELANG_CACHE_DIR"] = base
compiled = kernels_mod.compile_scale(256)
reference = compiled.to_ptx("sm_90a").ptx
for block in (128, 64):
    kernels_mod.compile_scale(block).to_ptx("sm_90a")
key = cache.kernel_key(compiled.asm["tile"], "sm_90a", compiled.num_warps, compiled.num_stages)


def build():
    # Forget the PTX this process holds, so that the next to_ptx goes
    # through the disk cache again.
    compiled._ptx.clear()
    compiled._cubin.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compiled.to_ptx("sm_90a").ptx


outcomes = {"faults": 0, "rebuilt": 0, "scopes": {}, "failures": []}
with open(progress, "w") as mark:
    for index in range(start, start + count):
        mark.seek(0); mark.write(f"{index:10d}"); mark.flush()
        faulthandler.dump_traceback_later(hang, exit=True)
        rng = random.Random(f"tilelang-cache-fuzz:{seed}:{index}")
        case = os.path.join(work, f"case{index}")
        root, outside = os.path.join(case, "cache"), os.path.join(case, "outside")
        shutil.copytree(base, root, symlinks=True)
        F.prepare_outside(outside)
        before = F.outside_snapshot(outside)
        what, scope = F.apply(rng, root, outside, os.path.join(root, key[:2], key))
        os.environ["TILELANG_CACHE_DIR"] = root
        failure = None
        try:
            if build() != reference:
                failure = "the PTX is not the kernel's own"
            else:
                hits = cache.stats.hits
                again = build()
                if again != reference:
                    failure = "the PTX is not the kernel's own on the second compilation"
                elif scope in ("entry", "linked") and cache.stats.hits != hits + 1:
                    failure = "the entry was not rebuilt: the second compilation missed"
                else:
                    outcomes["rebuilt"] += cache.stats.hits == hits + 1
            after = F.outside_snapshot(outside)
            if scope == "linked":  # new files in the linked folder are the cache's
                after = {name: after.get(name) for name in before}
            if failure is None and after != before:
                failure = "something outside the cache changed"
        except Exception as exc:  # noqa: BLE001 - the failure we look for
            failure = f"{type(exc).__name__}: {exc}"
        faulthandler.cancel_dump_traceback_later()
        outcomes["faults"] += 1
        outcomes["scopes"][scope] = outcomes["scopes"].get(scope, 0) + 1
        if failure:
            outcomes["failures"].append((index, what, scope, failure))
        else:
            F.unlock(case)
            shutil.rmtree(case)
print(json.dumps(outcomes))
"""


def test_cache_faults(seed, kernels, tmp_path):
    progress = tmp_path / "progress"
    result = run(CHILD, [seed, 0, COUNT, tmp_path, progress, HANG_SECONDS], kernels,
                 timeout=HANG_SECONDS + 60 + COUNT)
    if result.returncode != 0:
        index = progress.read_text().strip() if progress.exists() else "?"
        pytest.fail(f"the child died (exit {result.returncode}) or hung at fault {index} of seed {seed}:\n"
                    f"{result.stderr[-3000:]}")
    outcomes = json.loads(result.stdout.splitlines()[-1])
    failures = outcomes.pop("failures")
    print(f"cache fuzz: {outcomes}")
    report = "\n".join(f"fault {i} of seed {seed} ({what}; scope {scope}): {why}" for i, what, scope, why in failures[:10])
    assert not failures, f"{len(failures)} failures:\n{report}"
    assert outcomes["faults"] == COUNT and outcomes["rebuilt"] > COUNT // 2, outcomes


WRITER = r"""
import os, sys
import kernels_mod
# Compiles the blocks over and over (TILELANG_ALWAYS_COMPILE: each one is
# published again), until killed.
while True:
    for block in (16, 32, 64, 128, 256, 512):
        compiled = kernels_mod.compile_scale(block)
        compiled._ptx.clear()
        compiled.to_ptx("sm_90a")
"""

READER = r"""
import json, os, sys, warnings
from tilelang import cache
import kernels_mod
ptx = {}
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for block in (16, 32, 64, 128, 256, 512):
        ptx[block] = kernels_mod.compile_scale(block).to_ptx("sm_90a").ptx
print(json.dumps({"ptx": ptx, "hits": cache.stats.hits, "corrupt": cache.stats.corrupt}))
"""


def test_writers_killed_at_random(seed, kernels, tmp_path):
    """Writers race into one cache and are killed (SIGKILL) at random
    moments; a reader then compiles every kernel right, and a second reader
    finds them all in the cache."""
    rng = random.Random(f"tilelang-cache-kill:{seed}")
    root = tmp_path / "shared-cache"
    reference = run(READER, [], kernels, 120, TILELANG_CACHE="0")
    assert reference.returncode == 0, reference.stderr
    want = json.loads(reference.stdout.splitlines()[-1])["ptx"]
    env = dict(os.environ, TILELANG_CACHE_DIR=str(root), TILELANG_ALWAYS_COMPILE="1",
               PYTHONPATH=os.pathsep.join([str(kernels), str(HERE)] + sys.path))
    writers = []
    try:
        for _ in range(KILLS):
            while len(writers) < 2:
                writers.append(subprocess.Popen([sys.executable, "-c", WRITER], env=env, cwd=kernels,
                                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
            time.sleep(rng.uniform(0.2, 1.5))
            victim = writers.pop(rng.randrange(len(writers)))
            assert victim.poll() is None, victim.stderr.read().decode()[-2000:]
            victim.send_signal(signal.SIGKILL)
            victim.wait()
    finally:
        for writer in writers:
            writer.kill()
            writer.wait()
    for attempt in range(2):
        result = run(READER, [], kernels, 120, TILELANG_CACHE_DIR=str(root))
        assert result.returncode == 0, result.stderr
        got = json.loads(result.stdout.splitlines()[-1])
        assert got["ptx"] == want, f"a kernel's PTX differs after {KILLS} kills (seed {seed})"
        if attempt:
            assert got["hits"] == len(want) and got["corrupt"] == 0, got
    print(f"cache fuzz: {KILLS} writers killed")
