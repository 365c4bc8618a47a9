"""Counts the Hopper SASS instructions that show how the bundled matmul
kernels run (HGMMA tensor-core products, UTMALDG/UTMASTG bulk tensor
copies, LDGSTS cp.async copies, SYNCS mbarrier operations), from the cubins
tilelang links on this GPU, with cuobjdump (CUDA toolkit).

  python bench/matmul_sass.py [--dtype bf16]
"""

import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

import tilelang
import tilelang.language as tl
from tilelang import _C

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402

OPCODES = ("HGMMA", "UTMALDG", "UTMASTG", "LDGSTS", "SYNCS", "STG", "LDSM")


def sass_counts(cubin: bytes, cuobjdump: str) -> collections.Counter:
    with tempfile.NamedTemporaryFile(suffix=".cubin") as file:
        file.write(cubin)
        file.flush()
        text = subprocess.run([cuobjdump, "-sass", file.name], capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for opcode in re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9]+)", text, re.M):
        for wanted in OPCODES:
            if opcode.startswith(wanted):
                counts[wanted] += 1
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    args = parser.parse_args()
    cuobjdump = shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
    arch = "sm_{}{}".format(*_C.device_info()["capability"])
    arch += "a" if arch == "sm_90" else ""
    kernels = bench_kernels.define(tilelang.jit, tl)
    constexprs = dict(BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64, GROUP_SIZE_M=8)
    d = args.dtype
    cases = {
        "matmul_kernel": {"a_ptr": f"*{d}", "b_ptr": f"*{d}", "c_ptr": f"*{d}", "M": "i32", "N": "i32", "K": "i32",
                          "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32"},
        "matmul_descriptor_kernel": {"a_desc": f"tensordesc<{d}[128,64]>", "b_desc": f"tensordesc<{d}[64,256]>",
                                     "c_desc": f"tensordesc<{d}[128,256]>", "M": "i32", "N": "i32", "K": "i32"},
    }
    for name, signature in cases.items():
        extra = {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1} if name == "matmul_kernel" else {}
        divisible = {k: 16 for k in signature if not k.startswith(("a_desc", "b_desc", "c_desc"))}
        divisible.update({f"{p}.shape{i}": 16 for p in ("a_desc", "b_desc", "c_desc") for i in (0, 1)})
        compiled = kernels[name].compile(signature, constexprs=dict(constexprs, **extra), specialization=divisible,
                                         num_warps=8, num_stages=4)
        ir = compiled.to_ptx(arch)
        cubin = _C.link_ptx(ir.ptx, ir.name)
        counts = sass_counts(cubin, cuobjdump)
        print(f"{name} ({arch}, 128x256x64, 8 warps, 4 stages): " +
              ", ".join(f"{op} {counts[op]}" for op in OPCODES), flush=True)


if __name__ == "__main__":
    main()
