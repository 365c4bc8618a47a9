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
    # The file the kernel is defined in (the layer norm is the package's, norm.py).
    path = pathlib.Path(inspect.getsourcefile(kernel.fn)).resolve()
    lines = path.read_text().splitlines()
    for line in src.splitlines():
        stripped = line.strip()
        # Region openers carry their location on the closing brace.
        if stripped.endswith("{") or stripped.startswith("^bb") or not stripped:
            continue
        m = re.search(r'loc\("([^"]+)":(\d+):(\d+)\)$', stripped)
        assert m, f"no location on: {line}"
        assert m.group(1) == str(path)
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


def test_locations_of_a_kernel_nested_in_a_package_function():
    # The layer norm is the bundled one (tilelang.ops.kernels.norm), defined
    # inside define(jit, tl): its ops point at norm.py's lines and columns,
    # read from that file, not from the test kernels' file.
    kernel = kernels._layer_norm_fwd_fused
    src = kernel.compile("*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32",
                         constexprs={"BLOCK_SIZE": 256}).asm["tile-src"]
    path = str(pathlib.Path(inspect.getsourcefile(kernel.fn)).resolve())
    assert path != FILE and path.endswith("norm.py")
    text = pathlib.Path(path).read_text().splitlines()
    first = inspect.getsourcelines(kernel.fn)[1]
    line = next(i for i, t in enumerate(text, 1) if i > first and "rstd = 1 / tl.sqrt(var + eps)" in t)
    col = text[line - 1].index("tl.sqrt") + 1
    assert re.search(rf'math.sqrt .* loc\("{re.escape(path)}":{line}:{col}\)', src), src
