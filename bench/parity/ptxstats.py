"""What a kernel's PTX says about how it runs, for comparing two compilers'
code for one source: global access widths and split accesses, the main
loop's barriers, shared-memory accesses, shuffles and wgmma waits, and
(through ptxas) registers and spills. Needs neither a GPU nor torch.

The main loop is the longest loop of the kernel's entry: the instructions
between a label and the last branch back to it."""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

_LABEL = re.compile(r"^\s*(\$?[\w$]+):\s*$")
_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$?[\w$]+)\s*;")
_GLOBAL = re.compile(r"\b(ld|st)\.global((?:\.[\w:]+)*)")
_ADDRESS = re.compile(r"\[\s*(%rd\d+)\s*(?:\+\s*(-?\d+))?\s*\]")
_OFFSET = re.compile(r"\badd\.[su]64\s+(%rd\d+),\s*(%rd\d+),\s*(-?\d+)\s*;")
_CP_ASYNC = re.compile(r"\bcp\.async\.(?:ca|cg)\.shared(?:::cta)?\.global(?:\.[\w:]+)*\s+\[[^]]*\],\s*\[[^]]*\],\s*(0x[0-9a-fA-F]+|\d+)\b")

#: What is counted, by name, and the pattern of an instruction that counts.
COUNTED = {
    "barriers": re.compile(r"\b(?:bar\.sync|barrier\.sync|bar\.arrive|barrier\.arrive)\b"),
    "shared_stores": re.compile(r"\b(?:st\.shared|stmatrix)"),
    "shared_loads": re.compile(r"\b(?:ld\.shared|ldmatrix)"),
    "shuffles": re.compile(r"\bshfl\.sync"),
    "wgmma": re.compile(r"\bwgmma\.mma_async"),
    "wgmma_waits": re.compile(r"\bwgmma\.wait_group"),
    "mma": re.compile(r"\bmma\.sync"),
    "cp_async": re.compile(r"\bcp\.async\.(?:ca|cg)\b"),
    "bulk_copies": re.compile(r"\bcp\.async\.bulk\.tensor"),
    "mbarrier_waits": re.compile(r"\bmbarrier\.(?:try_wait|test_wait)"),
    "local": re.compile(r"\b(?:ld|st)\.local"),
}


def _entry_body(ptx: str) -> List[str]:
    """The instruction lines of the first .entry (comments dropped)."""
    lines = []
    inside = False
    depth = 0
    for raw in ptx.splitlines():
        line = raw.split("//", 1)[0].rstrip()
        if not inside:
            if re.search(r"\.entry\s", line):
                inside = True
            continue
        depth += line.count("{") - line.count("}")
        if line.strip():
            lines.append(line)
        if depth <= 0 and "}" in line and len(lines) > 1:
            break
    return lines


def _access_bytes(suffixes: str) -> Optional[int]:
    """Bytes one ld/st.global moves, from its suffixes (.v4.b32 -> 16)."""
    vec, bits = 1, None
    for part in suffixes.split(".")[1:]:
        if re.fullmatch(r"v(\d+)", part):
            vec = int(part[1:])
        elif re.fullmatch(r"[bsuf](\d+)", part):
            bits = int(part[1:])
    return vec * bits // 8 if bits else None


def _count(lines: List[str]) -> Dict[str, int]:
    counts = {name: 0 for name in COUNTED}
    for line in lines:
        for name, pattern in COUNTED.items():
            if pattern.search(line):
                counts[name] += 1
    return counts


def _widths(lines: List[str]) -> Dict[str, Dict[int, int]]:
    """Instructions per access width (bytes), for global loads (ld.global,
    cp.async; bulk tensor copies count as width 0) and stores."""
    loads, stores = collections.Counter(), collections.Counter()
    for line in lines:
        for kind, suffixes in _GLOBAL.findall(line):
            width = _access_bytes(suffixes)
            if width:
                (loads if kind == "ld" else stores)[width] += 1
        for size in _CP_ASYNC.findall(line):
            loads[int(size, 0)] += 1
        if COUNTED["bulk_copies"].search(line):
            (stores if ".global.shared" in line else loads)[0] += 1
    return {"loads": dict(sorted(loads.items())), "stores": dict(sorted(stores.items()))}


def _split(lines: List[str]) -> Dict[str, int]:
    """Global loads and stores narrower than 16 bytes whose thread also
    accesses the bytes right before or after them with another instruction
    of the same width: a run of contiguous elements that one thread covers
    with several narrow accesses, so that a warp-wide instruction touches
    every sector of the run's span but fills only a part of each (the warp's
    lanes are a run apart). Addresses are followed through `add.s64 %a, %b,
    constant` to a base register and a constant offset."""
    base = {}
    accesses = {"ld": collections.defaultdict(set), "st": collections.defaultdict(set)}
    for line in lines:
        offset = _OFFSET.search(line)
        if offset:
            target, source, constant = offset.groups()
            root, start = base.get(source, (source, 0))
            base[target] = (root, start + int(constant))
            continue
        access = _GLOBAL.search(line)
        address = _ADDRESS.search(line)
        if not access or not address:
            continue
        width = _access_bytes(access.group(2))
        if not width or width >= 16:
            continue
        root, start = base.get(address.group(1), (address.group(1), 0))
        accesses[access.group(1)][(root, width)].add(start + int(address.group(2) or 0))
    counts = {}
    for kind, name in (("ld", "loads"), ("st", "stores")):
        counts[name] = sum(1 for (_, width), offsets in accesses[kind].items() for o in offsets
                           if o + width in offsets or o - width in offsets)
    return counts


def main_loop(lines: List[str]) -> List[str]:
    """The longest loop's instructions (empty when there is no loop)."""
    labels = {}
    best = (0, 0)
    for index, line in enumerate(lines):
        match = _LABEL.match(line)
        if match:
            labels[match.group(1)] = index
            continue
        branch = _BRANCH.search(line)
        if branch and branch.group(1) in labels:
            start = labels[branch.group(1)]
            if index - start > best[1] - best[0]:
                best = (start, index)
    return lines[best[0]:best[1] + 1] if best[1] > best[0] else []


def analyze(ptx: str) -> dict:
    """Counts over the whole entry and its main loop, access widths and
    split accesses."""
    lines = _entry_body(ptx)
    loop = main_loop(lines)
    return {"counts": _count(lines), "loop": _count(loop) if loop else None,
            "loop_lines": len(loop), "widths": _widths(lines), "split": _split(lines)}


def find_ptxas() -> Optional[str]:
    """The CUDA toolkit's ptxas, else the one Triton bundles, else None."""
    for candidate in (shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"):
        if candidate and Path(candidate).exists():
            return candidate
    try:
        import triton

        bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
        return str(bundled) if bundled.exists() else None
    except ImportError:
        return None


def resources(ptx: str, arch: str = "sm_90a", ptxas: Optional[str] = None) -> dict:
    """Registers and spill bytes of the first kernel, from ptxas -v (an
    "error" field instead when ptxas is missing or rejects the PTX)."""
    ptxas = ptxas or find_ptxas()
    if not ptxas:
        return {"error": "no ptxas"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.ptx"
        path.write_text(ptx)
        done = subprocess.run([ptxas, f"-arch={arch}", "-v", str(path), "-o", str(Path(tmp) / "k.cubin")],
                              capture_output=True, text=True)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "ptxas failed"}
    text = done.stderr
    registers = re.search(r"Used (\d+) registers", text)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    return {"registers": int(registers.group(1)) if registers else None,
            "spill_stores": int(spills.group(1)) if spills else 0,
            "spill_loads": int(spills.group(2)) if spills else 0}
