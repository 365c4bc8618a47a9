"""Every op of the emitted IR carries the location of its Python expression."""

import inspect
import pathlib
import re

import kernels
import pytest

FILE = str(pathlib.Path(kernels.__file__).resolve())

COMPILES = [
    (kernels.add_kernel, "*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 256}),
    (kernels.softmax_kernel, "*fp32,*fp32,i32,i32,i32,i32", {"BLOCK_SIZE": 256, "num_stages": 2}),
    (kernels._layer_norm_fwd_fused, "*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32", {"BLOCK_SIZE": 256}),
    (kernels.matmul_kernel, "*fp16,*fp16,*fp16" + ",i32" * 9,
     dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8, ACTIVATION="leaky_relu")),
    (kernels.control_kernel, "*fp32,i32,i32", {"BLOCK": 16, "UNROLL": 2}),
    (kernels.argmax_kernel, "*fp32,*i32,i32,i32", {"BLOCK": 64}),
]


@pytest.mark.parametrize("kernel,sig,consts", COMPILES, ids=[c[0].__name__ for c in COMPILES])
def test_every_op_has_a_location(kernel, sig, consts):
    src = kernel.compile(sig, constexprs=consts, debug=True).asm["tile-src"]
    lines, first = inspect.getsourcelines(kernels)
    for line in src.splitlines():
        stripped = line.strip()
        # Region openers carry their location on the closing brace.
        if stripped.endswith("{") or stripped.startswith("^bb") or not stripped:
            continue
        m = re.search(r'loc\("([^"]+)":(\d+):(\d+)\)$', stripped)
        assert m, f"no location on: {line}"
        assert m.group(1) == FILE
        assert 1 <= int(m.group(2)) <= len(lines)


def test_locations_point_at_the_expression():
    src = kernels.add_kernel.compile("*fp32,*fp32,*fp32,i32", constexprs={"BLOCK_SIZE": 256}).asm["tile-src"]
    text = pathlib.Path(FILE).read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if "output = x + y" in t)
    col = text[line - 1].index("x + y") + 1
    assert re.search(rf'arith.addf .* loc\("{re.escape(FILE)}":{line}:{col}\)', src)
    line = next(i for i, t in enumerate(text, 1) if "pid = tl.program_id(axis=0)" in t)
    col = text[line - 1].index("tl.program_id") + 1
    assert f'tile.program_id x : i32 loc("{FILE}":{line}:{col})' in src
