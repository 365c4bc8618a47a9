"""Pointer tensors a pipelined loop advances by a uniform step are carried as
their scalar base (tilegpu-pipeline, CarriedPointers.cpp; docs/lowering.md,
"Carried pointer tensors"): on the tutorial-form kernels of the parity
corpus (bench/parity/corpus), compiled for sm_90a on the CPU, every cp.async
of the main loop reads an address that the loop forms from its carried base
and the thread's 32-bit offsets with mad.wide.s32, and the loop carries no
64-bit pointer per copy vector."""

import re

import pytest

from tilelang_testing import REPO_ROOT, load_module

parity = load_module("parity", REPO_ROOT / "bench" / "parity" / "parity.py")


def main_loop(ptx):
    """The longest loop of the PTX: from the label a backward branch jumps
    to, through that branch."""
    lines = ptx.splitlines()
    labels = {line.split(":")[0]: i for i, line in enumerate(lines) if re.match(r"^\$L__BB\d+_\d+:", line)}
    best = None
    for i, line in enumerate(lines):
        match = re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+);", line)
        if match and labels.get(match.group(1), i) < i:
            start = labels[match.group(1)]
            if best is None or i - start > best[1] - best[0]:
                best = (start, i)
    assert best, "no loop in the PTX"
    return lines[best[0]:best[1] + 1]


def compile_ptx(name, problem_name, label):
    module = parity.load(name, "tilelang")
    problem = next(p for p in module.PROBLEMS if p["name"] == problem_name)
    config = next(c for c in module.CONFIGS if parity.config_label(module, c) == label)
    return parity.compile_ptx(module, "tilelang", problem, config)["ptx"]


@pytest.mark.parametrize("name, problem, label", [
    ("attention", "B4 H32 N4096 D128 full", "128x64 w8 s3"),
    ("attention", "B4 H32 N4096 D128 full", "128x64 w4 s4"),
    ("attention", "B4 H32 N4096 D64 causal", "128x64 w4 s4"),
    ("matmul", "4096^3 bf16", "256x128x64 w8 s3"),
    ("matmul", "4096^3 bf16", "128x128x64 w4 s4"),
])
def test_main_loop_copies_from_a_carried_base(name, problem, label):
    loop = main_loop(compile_ptx(name, problem, label))
    # Addresses the loop forms as base (or partial sum) + 32-bit offset.
    formed = {m.group(1) for line in loop for m in [re.search(r"mad\.wide\.s32\s+(%rd\d+),", line)] if m}
    sources = [m.group(1) for line in loop
               for m in [re.search(r"cp\.async\.c[ag]\.shared\.global \[%r\d+\], \[(%rd\d+)\]", line)] if m]
    assert sources, "no cp.async in the main loop"
    assert set(sources) <= formed, (sorted(set(sources) - formed), "\n".join(loop))
    # No 64-bit value per copy vector crosses the back edge: the loop
    # advances two scalar bases a tensor (K and V, or A and B) and nothing
    # else 64 bits wide by a step.
    carried = {m.group(1) for line in loop for m in [re.search(r"add\.s64\s+(%rd\d+),\s+\1,", line)] if m}
    assert len(carried) <= 2, sorted(carried)
