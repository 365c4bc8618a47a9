"""Long dependency chains compile without exhausting the stack (issue 20,
item 3): the compiler's own walks along chains of dependent ops (layout
groups in tilegpu-coalesce, tl.assume conditions in axis info, the address
slice in tilegpu-pipeline) are iterative.

Each chain is 50,000 dependent ops, compiled in a child process whose stack
is limited to 1 MiB: a walk recursing once per op overflows there on this
chain, as it does under the usual 8 MiB on a chain a few times longer (or on
a thread with a smaller stack), and the crash is observed rather than
suffered."""

import os
import resource
import subprocess
import sys

CHAIN = 50_000
STACK_BYTES = 1 << 20


def limit_stack():
    resource.setrlimit(resource.RLIMIT_STACK, (STACK_BYTES, STACK_BYTES))


def run_small_stack(args, timeout=120, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, preexec_fn=limit_stack, **kw)


def opt(tilelang_opt, tmp_path, text, pipeline, timeout=120):
    """Runs `pipeline` over `text` with tilelang-opt on a 1 MiB stack; fails on
    anything but success."""
    source = tmp_path / "chain.mlir"
    source.write_text(text)
    result = run_small_stack([tilelang_opt, str(source), f"--pass-pipeline=builtin.module({pipeline})", "-o",
                              str(tmp_path / "out.mlir")], timeout=timeout)
    assert result.returncode == 0, f"tilelang-opt exited {result.returncode}:\n{result.stderr[-2000:]}"
    return (tmp_path / "out.mlir").read_text()


TO_TILEGPU = "convert-tile-to-tilegpu{num-warps=4 target=sm_90a}"


def test_elementwise_chain_coalesces(tilelang_opt, tmp_path):
    """50,000 dependent multiplies form one layout group in tilegpu-coalesce
    (its union-find used to recurse once per op)."""
    lines = ["func.func @chain(%x: !tile.ptr<f32>) {",
             "  %r = tile.make_range 0 to 128 : tensor<128xi32>",
             "  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>",
             "  %p = tile.addptr %xs, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>",
             "  %v0 = tile.load %p : tensor<128x!tile.ptr<f32>>"]
    lines += [f"  %v{i + 1} = arith.mulf %v{i}, %v{i} : tensor<128xf32>" for i in range(CHAIN)]
    lines += [f"  tile.store %p, %v{CHAIN} : tensor<128x!tile.ptr<f32>>", "  return", "}"]
    out = opt(tilelang_opt, tmp_path, "\n".join(lines), f"{TO_TILEGPU},tilegpu-coalesce")
    # The whole chain shares the store's layout: no conversion anywhere.
    assert out.count("arith.mulf") == CHAIN
    assert "convert_layout" not in out


ASSUMED_KERNEL = """
func.func @assumed(%x: !tile.ptr<f32> {{tile.divisibility = 16 : i32}}, %n: i32) {{
  %c0 = arith.constant 0 : i32
  %c16 = arith.constant 16 : i32
  %rem = arith.remsi %n, %c16 : i32
  %aligned = arith.cmpi eq, %rem, %c0 : i32
  %a0 = arith.cmpi sge, %n, %c0 : i32
{conjuncts}
  tile.assume %a{last}
  %r = tile.make_range 0 to 512 : tensor<512xi32>
  %nv = tile.splat %n : i32 -> tensor<512xi32>
  %offs = arith.addi %nv, %r : tensor<512xi32>
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %p = tile.addptr %xs, %offs : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %p : tensor<512x!tile.ptr<f32>>
  tile.store %p, %v : tensor<512x!tile.ptr<f32>>
  return
}}
"""


def test_assumed_and_chain(tilelang_opt, tmp_path):
    """tl.assume of 50,000 conditions joined by `and` (axis info used to walk
    the conjunction recursively); the promise still reaches the accesses:
    n % 16 == 0 makes them 4-wide."""
    conjuncts = [f"  %a{i + 1} = arith.andi %a{i}, %aligned : i1" for i in range(CHAIN)]
    text = ASSUMED_KERNEL.format(conjuncts="\n".join(conjuncts), last=CHAIN)
    out = opt(tilelang_opt, tmp_path, text, f"{TO_TILEGPU},tilegpu-coalesce")
    assert "sizePerThread = [4]" in out, out[:3000]


def test_assumed_and_dag_is_walked_once(tilelang_opt, tmp_path):
    """64 `and`s, each of the previous one with itself, have 2^64 paths to
    their comparisons: each conjunct is visited once, not once per path
    (this used to run for ever)."""
    conjuncts = ["  %a1 = arith.andi %a0, %aligned : i1"]
    conjuncts += [f"  %a{i + 1} = arith.andi %a{i}, %a{i} : i1" for i in range(1, 64)]
    text = ASSUMED_KERNEL.format(conjuncts="\n".join(conjuncts), last=64)
    out = opt(tilelang_opt, tmp_path, text, f"{TO_TILEGPU},tilegpu-coalesce", timeout=60)
    assert "sizePerThread = [4]" in out, out[:3000]


PIPELINED_KERNEL = """
func.func @mm(%a: !tile.ptr<f16> {tile.divisibility = 16 : i32}, %b: !tile.ptr<f16> {tile.divisibility = 16 : i32},
              %c: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %k: i32 {tile.divisibility = 16 : i32}) {
  %r = tile.make_range 0 to 64 : tensor<64xi32>
  %row = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c64v = arith.constant dense<64> : tensor<64x1xi32>
  %rows = arith.muli %row, %c64v : tensor<64x1xi32>
  %col = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %rows2 = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x64xi32>
  %cols2 = tile.broadcast %col : tensor<1x64xi32> -> tensor<64x64xi32>
  %offs = arith.addi %rows2, %cols2 : tensor<64x64xi32>
  %as = tile.splat %a : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %a0 = tile.addptr %as, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %bs = tile.splat %b : !tile.ptr<f16> -> tensor<64x64x!tile.ptr<f16>>
  %b0 = tile.addptr %bs, %offs : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
  %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
  %c64 = arith.constant dense<64> : tensor<64x64xi32>
  %lo = arith.constant 0 : i32
  %step = arith.constant 64 : i32
  %acc:3 = scf.for %i = %lo to %k step %step iter_args(%sum = %zero, %q0 = %a0, %pb = %b0)
      -> (tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>) : i32 {
    %x = tile.load %q0 : tensor<64x64x!tile.ptr<f16>>
    %y = tile.load %pb : tensor<64x64x!tile.ptr<f16>>
    %d = tile.dot %x, %y, %sum : tensor<64x64xf16> * tensor<64x64xf16> -> tensor<64x64xf32>
    %nb = tile.addptr %pb, %c64 : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>
STEPS
    scf.yield %d, %qLAST, %nb : tensor<64x64xf32>, tensor<64x64x!tile.ptr<f16>>, tensor<64x64x!tile.ptr<f16>>
  }
  %cs = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %pc = tile.addptr %cs, %offs : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %pc, %acc#0 : tensor<64x64x!tile.ptr<f32>>
  return
}
"""


def test_pipelined_address_chain(tilelang_opt, tmp_path):
    """A dot operand whose address takes 50,000 dependent steps per iteration
    is still pipelined (the pipeliner used to collect the address
    computation recursively)."""
    steps = [f"    %q{i + 1} = tile.addptr %q{i}, %c64 : tensor<64x64x!tile.ptr<f16>>, tensor<64x64xi32>"
             for i in range(CHAIN)]
    text = PIPELINED_KERNEL.replace("STEPS", "\n".join(steps)).replace("LAST", str(CHAIN))
    out = opt(tilelang_opt, tmp_path, text,
              f"{TO_TILEGPU},tilegpu-coalesce,tilegpu-accelerate-matmul,tilegpu-pipeline{{num-stages=3}}")
    # The chain is cloned to compute the addresses of the copies issued
    # ahead, before the loop and in it.
    assert "async_copy" in out, out[:3000]
    assert out.count("tile.addptr") > 2 * CHAIN


KERNEL_CHAIN = """
import sys
import tilelang
import tilelang.language as tl

def chain(x_ptr, y_ptr):
    offs = tl.arange(0, 128)
    x = tl.load(x_ptr + offs)
    y = x
{body}
    tl.store(y_ptr + offs, y)

kernel = tilelang.jit(chain)
ptx = kernel.compile("*fp32,*fp32").to_ptx("sm_90a").ptx
print(ptx.count("mul.f32"))
"""


def test_kernel_chain_compiles_to_ptx(tmp_path):
    """The whole path, from Python source through every pass and LLVM to
    PTX, on a 1 MiB stack: 50,000 dependent statements of a kernel."""
    source = tmp_path / "chain_kernel.py"
    source.write_text(KERNEL_CHAIN.format(body="\n".join(["    y = y * y"] * CHAIN)))
    env = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "cache"))
    result = run_small_stack([sys.executable, str(source)], timeout=300, env=env)
    assert result.returncode == 0, f"exit {result.returncode}:\n{result.stderr[-3000:]}"
    assert int(result.stdout) == CHAIN
