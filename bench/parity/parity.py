"""The parity harness: the same kernel source compiled by tilelang and by
Triton, config by config.

The corpus (bench/parity/corpus/*.py) holds kernels written as Triton users
write them, with ``import triton`` and ``import triton.language as tl``; the
tilelang build of a module is the same file with only those imports changed
(IMPORT_REWRITES). Each module also describes, for the harness, the configs
its authors tune over and the problems to time (see corpus/README.md).

  python bench/parity/parity.py static [--only matmul,softmax] [--out DIR]
  python bench/parity/parity.py timed  [--only ...] [--out DIR]   # GPU, torch, Triton
  ncu -k regex:matmul --launch-skip 1 python bench/parity/parity.py profile --only matmul \
      --problems '^4096\\^3 bf16$' --configs '128x128x64 w8 s3' --compiler tilelang

static: both compilers to PTX for sm_90a on any machine (Triton from the
package index, ``pip install -e .[parity]``; ptxas from the CUDA toolkit or
Triton's), with registers, spills, shared memory, global access widths and
the main loop's barriers, shared accesses, shuffles and wgmma waits. It
ends with the findings: a config that spills where Triton's does not, uses
narrower global accesses than Triton's, or does not compile where Triton's
does. timed: every config of both compilers on the GPU, alternated in one
process with the same arguments, each result checked against a float64
reference first. Both write results.json, results.md (a table per kernel)
and, where matplotlib is importable, results.png into --out.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
sys.path.insert(0, str(HERE))

import ptxstats  # noqa: E402
from parity_spec import Descriptor  # noqa: E402

COMPILERS = ("tilelang", "triton")
ARCH = "sm_90a"

#: The only lines that differ between a corpus module and its tilelang build.
IMPORT_REWRITES = {
    "import triton": "import tilelang as triton",
    "import triton.language as tl": "import tilelang.language as tl",
    "from triton.tools.tensor_descriptor import TensorDescriptor": "from tilelang import TensorDescriptor",
}


def corpus_names() -> List[str]:
    return sorted(p.stem for p in CORPUS.glob("*.py") if not p.stem.startswith("_"))


def tilelang_source(path: Path) -> str:
    """The module's text with its Triton imports replaced; any other use of
    a triton module is an error (it would have no tilelang counterpart)."""
    lines = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped in IMPORT_REWRITES:
            line = line.replace(stripped, IMPORT_REWRITES[stripped])
        elif re.match(r"(import|from)\s+triton\b", stripped):
            raise ValueError(f"{path}:{number}: an import the harness cannot map to tilelang: {stripped}")
        lines.append(line)
    return "\n".join(lines) + "\n"


_modules: Dict[tuple, object] = {}


def load(name: str, compiler: str):
    """Corpus module `name` built for `compiler` (imported once per process)."""
    key = (name, compiler)
    if key in _modules:
        return _modules[key]
    path = CORPUS / f"{name}.py"
    if compiler == "tilelang":
        # A real file: both frontends read the kernels' source.
        build = Path(os.environ.get("TILELANG_PARITY_BUILD", Path(tempfile.gettempdir()) / "tilelang-parity"))
        build.mkdir(parents=True, exist_ok=True)
        target = build / f"{name}_tilelang.py"
        text = tilelang_source(path)
        if not target.exists() or target.read_text() != text:
            target.write_text(text)
        path = target
    spec = importlib.util.spec_from_file_location(f"parity_{name}_{compiler}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    _modules[key] = module
    return module


def config_label(module, config: dict) -> str:
    """The module's LABEL(config), else the constexprs joined by x, warps
    and stages."""
    if hasattr(module, "label"):
        return module.label(config)
    sizes = "x".join(str(v) for k, v in config.items() if k not in ("num_warps", "num_stages", "num_ctas"))
    return f"{sizes} w{config.get('num_warps', 4)} s{config.get('num_stages', 3)}"


# -- static mode ----------------------------------------------------------------------------------


def specialize(params: List[str], defaults: dict, args: dict, config: dict):
    """(signature, constexprs, divisibility) as a launch with `args`
    specializes: integers equal to 1 become constants; `divisibility` maps
    an integer to the largest power of two up to 16 dividing it (tilelang's
    launcher, jit.integer_divisibility: 3000 is a multiple of 8; Triton
    keeps only the 16s), a pointer to 16, a tensor descriptor's extent
    (``name.shapeN``, tilelang's alone: Triton does not specialize them)
    by the same classes as an integer."""
    from tilelang.jit import integer_divisibility

    signature, constexprs, divisibility = {}, {}, {}
    for name in params:
        if name in config:
            constexprs[name] = config[name]
            continue
        if name in args:
            value = args[name]
        elif name in defaults:
            constexprs[name] = defaults[name]
            continue
        else:
            raise KeyError(f"no value for the kernel argument {name!r}")
        if isinstance(value, Descriptor):
            signature[name] = ("desc", value)
            divisibility.update({f"{name}.shape{i}": integer_divisibility(extent)
                                 for i, extent in enumerate(value.shape) if integer_divisibility(extent) > 1})
        elif isinstance(value, str) and value.startswith("*"):
            signature[name] = value
            divisibility[name] = 16
        elif isinstance(value, bool) or value is None:
            constexprs[name] = value
        elif isinstance(value, int):
            if value == 1:
                constexprs[name] = 1
                continue
            signature[name] = "i32" if -(2**31) <= value < 2**31 else "i64"
            if integer_divisibility(value) > 1:
                divisibility[name] = integer_divisibility(value)
        elif isinstance(value, float):
            signature[name] = "fp32"
        else:
            constexprs[name] = value
    return signature, constexprs, divisibility


def compile_ptx(module, compiler: str, problem: dict, config: dict) -> dict:
    """PTX and shared bytes of the module's KERNEL for one config."""
    kernel = module.KERNEL
    fn = kernel.fn
    params = list(inspect.signature(fn).parameters)
    defaults = {n: p.default for n, p in inspect.signature(fn).parameters.items()
                if p.default is not inspect.Parameter.empty}
    # Constexprs that follow from the problem (a row's BLOCK_SIZE, the head
    # dimension) come from the module's constexprs(problem).
    config = {**(module.constexprs(problem) if hasattr(module, "constexprs") else {}), **config}
    launch_options = {k: config[k] for k in ("num_warps", "num_stages") if k in config}
    constants = {k: v for k, v in config.items() if k not in launch_options}
    # static_args(problem, config) where the arguments follow the config
    # too (a tensor descriptor's block is the config's block sizes).
    takes_config = len(inspect.signature(module.static_args).parameters) == 2
    args = module.static_args(problem, config) if takes_config else module.static_args(problem)
    signature, constexprs, divisibility = specialize(params, defaults, args, constants)
    if compiler == "tilelang":
        types = {n: (f"tensordesc<{t[1].dtype}[{','.join(map(str, t[1].block))}]>" if isinstance(t, tuple) else t)
                 for n, t in signature.items()}
        compiled = kernel.compile(types, constexprs=constexprs, specialization=divisibility, **launch_options)
        built = compiled.to_ptx(ARCH)
        return {"ptx": built.ptx, "shared": built.shared_bytes,
                "linked": linked_resources(compiled.asm["tile"], launch_options)}
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    types = {n: (f"tensordesc<{t[1].dtype}[{', '.join(map(str, t[1].block))}]>" if isinstance(t, tuple) else t)
             for n, t in signature.items()}
    types.update({n: "constexpr" for n in constexprs})
    types = {n: types[n] for n in params}
    attrs = {(params.index(n),): [["tt.divisibility", 16]] for n, d in divisibility.items()
             if d == 16 and n in params}
    source = ASTSource(kernel, types, constexprs, attrs)
    compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32), options=launch_options)
    return {"ptx": compiled.asm["ptx"], "shared": compiled.metadata.shared}


def linked_resources(tile_ir: str, launch_options: dict) -> Optional[dict]:
    """Registers and spills of what tilelang's runtime would link: its
    occupancy search may link a kernel for another count of blocks per SM
    than its PTX asks for. Runs that search with ptxas through
    `tilelang-compile --report`; None without the tool or without a search
    (tensor-core kernels are linked as written)."""
    tool = Path(sys.executable).parent / "tilelang-compile"
    if not tool.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "kernel.mlir"
        source.write_text(tile_ir)
        done = subprocess.run([str(tool), str(source), f"--arch={ARCH}", "--report", "-o", str(Path(tmp) / "k.ptx")]
                              + [f"--{k.replace('_', '-')}={v}" for k, v in launch_options.items()],
                              capture_output=True, text=True)
    kept = re.search(r"kept: (\d+) blocks? per SM", done.stderr)
    if not kept:
        return None
    blocks = int(kept.group(1))
    trial = re.search(rf"^  {blocks} blocks?: (\d+) registers, (-?\d+) bytes of local memory", done.stderr, re.M)
    if not trial:
        return None
    return {"blocks_per_sm": blocks, "registers": int(trial.group(1)), "spill_stores": max(0, int(trial.group(2)))}


def static_case(task) -> dict:
    """One (corpus module, config, compiler): compiled, analyzed, measured
    by ptxas. Errors are recorded, never raised."""
    name, problem_index, index, compiler = task
    row = {"kernel": name, "compiler": compiler, "config_index": index}
    try:
        module = load(name, compiler)
        config = module.CONFIGS[index]
        problem = static_problems(module)[problem_index]
        row.update(config=config_label(module, config), problem=problem["name"])
        start = time.perf_counter()
        built = compile_ptx(module, compiler, problem, config)
        row["compile_s"] = round(time.perf_counter() - start, 2)
        row["shared"] = built["shared"]
        row.update(ptxstats.analyze(built["ptx"]))
        row.update(ptxstats.resources(built["ptx"], ARCH))
        if built.get("linked"):
            # As the runtime links it (the PTX as written in "as_written").
            row["as_written"] = {k: row.get(k) for k in ("registers", "spill_stores")}
            row.update(built["linked"])
    except Exception as exc:  # noqa: BLE001 - a failure is a finding, not a crash
        text = f"{type(exc).__name__}: {exc}"
        row["error"] = text.strip().splitlines()[0][:300] if text.strip() else type(exc).__name__
        row["traceback"] = traceback.format_exc()[-2000:]
    return row


def static_problems(module) -> List[dict]:
    """The problems the static mode compiles for: STATIC_PROBLEMS (when the
    code differs between problems: head dimensions, causal masks), else the
    first problem."""
    return getattr(module, "STATIC_PROBLEMS", module.PROBLEMS[:1])


def run_static(names: List[str], jobs: int) -> List[dict]:
    tasks = []
    for name in names:
        module = load(name, "triton" if _have_triton() else "tilelang")
        for problem_index in range(len(static_problems(module))):
            for index in range(len(module.CONFIGS)):
                for compiler in COMPILERS:
                    tasks.append((name, problem_index, index, compiler))
    rows = []
    if jobs <= 1:
        for task in tasks:
            rows.append(static_case(task))
            _progress(rows[-1], len(rows), len(tasks))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            for row in pool.map(static_case, tasks):
                rows.append(row)
                _progress(row, len(rows), len(tasks))
    return rows


def _progress(row, done, total):
    what = row.get("error") or f"{row.get('registers')} registers, {row.get('spill_stores', 0)} B spilled"
    print(f"[{done}/{total}] {row['kernel']} {row.get('config', row['config_index'])} {row['compiler']}: {what}",
          flush=True)


def _have_triton() -> bool:
    return importlib.util.find_spec("triton") is not None


def _min_width(widths: dict) -> Optional[int]:
    sizes = [w for w in widths if int(w) > 0]
    return min(int(w) for w in sizes) if sizes else None


def static_findings(rows: List[dict]) -> List[str]:
    """What tilelang does worse than Triton on the same config: spills where
    Triton does not, narrower global loads or stores, more stores split
    into narrow accesses to adjacent bytes, no PTX where Triton has one."""
    pairs = {}
    for row in rows:
        pairs.setdefault((row["kernel"], row.get("problem", ""), row["config_index"]), {})[row["compiler"]] = row
    findings = []
    for (kernel, problem, _), pair in sorted(pairs.items()):
        ours, theirs = pair.get("tilelang"), pair.get("triton")
        if not ours or not theirs or "error" in theirs:
            continue
        where = f"{kernel} ({problem}) {ours.get('config', theirs.get('config'))}"
        if "error" in ours:
            findings.append(f"{where}: tilelang does not compile it ({ours['error']})")
            continue
        if ours.get("spill_stores", 0) > 0 and theirs.get("spill_stores", 0) == 0:
            findings.append(f"{where}: tilelang spills {ours['spill_stores']} B, Triton does not")
        for kind in ("loads", "stores"):
            mine, other = _min_width(ours["widths"][kind]), _min_width(theirs["widths"][kind])
            if mine is not None and other is not None and mine < other:
                findings.append(f"{where}: tilelang's narrowest global {kind[:-1]} moves {mine} B, Triton's {other} B")
        # Split stores write partial sectors (ptxstats._split); split loads
        # are mostly served by L1, and both compilers leave some.
        mine, other = ours.get("split", {}).get("stores", 0), theirs.get("split", {}).get("stores", 0)
        if mine > other:
            findings.append(f"{where}: tilelang splits {mine} global stores into narrow accesses to adjacent "
                            f"bytes, Triton {other}")
    return findings


def _fmt_widths(widths: dict) -> str:
    return " ".join(f"{'bulk' if int(w) == 0 else str(w) + 'B'}:{n}" for w, n in widths.items()) or "-"


def static_markdown(rows: List[dict]) -> str:
    out = [f"# Parity, static ({ARCH}; ptxas {ptxstats.find_ptxas()})", ""]
    loop_keys = ("barriers", "shared_stores", "shared_loads", "shuffles", "wgmma_waits")
    by_kernel = {}
    for row in rows:
        by_kernel.setdefault((row["kernel"], row.get("problem", "")), []).append(row)
    for (kernel, problem), kernel_rows in by_kernel.items():
        out += [f"## {kernel} ({problem})", "",
                "| config | compiler | regs | spill B | shared KB | global loads | global stores | split ld / st "
                "| loop: bar / st.shared / ld.shared / shfl / wgmma waits |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for row in sorted(kernel_rows, key=lambda r: (r["config_index"], r["compiler"])):
            if "error" in row:
                out.append(f"| {row.get('config', row['config_index'])} | {row['compiler']} | error: "
                           f"{row['error'][:120]} | | | | | | |")
                continue
            loop = row.get("loop")
            loop_text = " / ".join(str(loop[k]) for k in loop_keys) if loop else "no loop"
            out.append(f"| {row['config']} | {row['compiler']} | {row.get('registers')} | "
                       f"{row.get('spill_stores', 0)} | {row['shared'] / 1024:.1f} | "
                       f"{_fmt_widths(row['widths']['loads'])} | {_fmt_widths(row['widths']['stores'])} | "
                       f"{row.get('split', {}).get('loads', 0)} / {row.get('split', {}).get('stores', 0)} | "
                       f"{loop_text} |")
        out.append("")
    findings = static_findings(rows)
    out += ["## Findings", ""] + ([f"- {f}" for f in findings] or ["- none"])
    return "\n".join(out) + "\n"


# -- timed mode -----------------------------------------------------------------------------------


def _compiled_kernels(kernel, compiler):
    """The compiled variants a JIT function holds (to read registers)."""
    try:
        if compiler == "tilelang":
            return list(kernel.cache.values())
        return [k for caches in kernel.device_caches.values() for k in caches[0].values()]
    except Exception:  # noqa: BLE001 - registers are a nicety
        return []


def run_timed(names: List[str], rep_ms: float, only_problems: Optional[str],
              only_configs: Optional[str] = None) -> List[dict]:
    import torch

    # bench/run.py's alternating timer (run.py imports its neighbours).
    sys.path.insert(0, str(HERE.parent))
    run_py = importlib.util.spec_from_file_location("bench_run", HERE.parent / "run.py")
    bench_run = importlib.util.module_from_spec(run_py)
    run_py.loader.exec_module(bench_run)
    rows = []
    for name in names:
        modules = {c: load(name, c) for c in COMPILERS}
        base = modules["tilelang"]
        for problem in base.PROBLEMS:
            if only_problems and not re.search(only_problems, problem["name"]):
                continue
            torch.manual_seed(0)
            inputs = base.inputs(problem)
            reference = base.reference(inputs, problem)
            unit, amount = base.metric(problem)
            print(f"== {name} {problem['name']}", flush=True)
            for index, config in enumerate(base.CONFIGS):
                label = config_label(base, config)
                if only_configs and not re.search(only_configs, label):
                    continue
                fns, info = {}, {}
                for compiler in COMPILERS:
                    module = modules[compiler]
                    row = {"kernel": name, "problem": problem["name"], "config": label, "config_index": index,
                           "compiler": compiler, "unit": unit}
                    try:
                        before = set(map(id, _compiled_kernels(module.KERNEL, compiler)))
                        out = module.launch(inputs, problem, config)
                        torch.cuda.synchronize()
                        problem_text = module.check(out, reference, inputs, problem)
                        if problem_text:
                            row["error"] = f"wrong result: {problem_text}"
                        else:
                            fns[compiler] = (lambda m=module, data=inputs: m.launch(data, problem, config))
                        new = [k for k in _compiled_kernels(module.KERNEL, compiler) if id(k) not in before]
                        if new:
                            row["registers"] = getattr(new[-1], "n_regs", None)
                            row["spills"] = getattr(new[-1], "n_spills", None)
                    except Exception as exc:  # noqa: BLE001
                        text = f"{type(exc).__name__}: {exc}".strip()
                        row["error"] = text.splitlines()[0][:300]
                    info[compiler] = row
                if fns:
                    times = bench_run.bench_interleaved(fns, rep_ms=rep_ms)
                    for compiler, samples in times.items():
                        samples = sorted(samples)
                        ms = samples[len(samples) // 2]
                        info[compiler].update(ms=ms, value=amount / (ms * 1e-3) / 1e12 if unit == "TFLOP/s"
                                              else amount / (ms * 1e-3) / 1e9)
                rows += info.values()
                ours, theirs = info["tilelang"], info["triton"]
                ratio = (f"{ours['value'] / theirs['value']:.2f}" if "value" in ours and "value" in theirs
                         else "-")
                print(f"  {label:28s} tilelang {ours.get('value', ours.get('error', '-'))!s:.60} "
                      f"Triton {theirs.get('value', theirs.get('error', '-'))!s:.60} ratio {ratio}", flush=True)
            del inputs, reference
            torch.cuda.empty_cache()
    return rows


def run_profile(name: str, compiler: str, only_problems: Optional[str], only_configs: Optional[str],
                launches: int) -> int:
    """Launches the chosen configs of one compiler: once to compile and check
    against the reference, then `launches` times, for a profiler (ncu, nsys)
    to look at the later launches (skip the first per config)."""
    import torch

    module = load(name, compiler)
    status = 0
    for problem in module.PROBLEMS:
        if only_problems and not re.search(only_problems, problem["name"]):
            continue
        torch.manual_seed(0)
        inputs = module.inputs(problem)
        reference = module.reference(inputs, problem)
        for config in module.CONFIGS:
            label = config_label(module, config)
            if only_configs and not re.search(only_configs, label):
                continue
            out = module.launch(inputs, problem, config)
            torch.cuda.synchronize()
            problem_text = module.check(out, reference, inputs, problem)
            print(f"{name} {problem['name']} {label} {compiler}: "
                  f"{'wrong result: ' + problem_text if problem_text else 'checked'}", flush=True)
            status |= bool(problem_text)
            for _ in range(launches):
                module.launch(inputs, problem, config)
            torch.cuda.synchronize()
    return 1 if status else 0


def timed_markdown(rows: List[dict], device: str) -> str:
    out = [f"# Parity, timed ({device})", ""]
    groups = {}
    for row in rows:
        groups.setdefault((row["kernel"], row["problem"]), {}).setdefault(row["config"], {})[row["compiler"]] = row
    for (kernel, problem), configs in groups.items():
        unit = next(iter(next(iter(configs.values())).values()))["unit"]
        out += [f"## {kernel}, {problem} ({unit})", "", "| config | tilelang | Triton | tilelang / Triton | "
                "registers (tilelang / Triton) |", "| --- | --- | --- | --- | --- |"]
        best = {}
        for label, pair in configs.items():
            cells = []
            for compiler in COMPILERS:
                row = pair.get(compiler, {})
                if "value" in row:
                    cells.append(f"{row['value']:.0f}")
                    if row["value"] > best.get(compiler, (0, ""))[0]:
                        best[compiler] = (row["value"], label)
                else:
                    cells.append(row.get("error", "-")[:80])
            ours, theirs = pair.get("tilelang", {}), pair.get("triton", {})
            ratio = f"{ours['value'] / theirs['value']:.2f}" if "value" in ours and "value" in theirs else "-"
            regs = f"{ours.get('registers', '-')} / {theirs.get('registers', '-')}"
            out.append(f"| {label} | {cells[0]} | {cells[1]} | {ratio} | {regs} |")
        if len(best) == 2:
            ratio = best["tilelang"][0] / best["triton"][0]
            out.append(f"| **best** | {best['tilelang'][0]:.0f} ({best['tilelang'][1]}) | "
                       f"{best['triton'][0]:.0f} ({best['triton'][1]}) | {ratio:.2f} | |")
        out.append("")
    return "\n".join(out) + "\n"


def timed_plot(rows: List[dict], path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not importable: no plot")
        return False
    groups = {}
    for row in rows:
        groups.setdefault((row["kernel"], row["problem"]), {}).setdefault(row["config"], {})[row["compiler"]] = row
    count = len(groups)
    cols = min(3, count)
    rows_n = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(6 * cols, 3.2 * rows_n), squeeze=False)
    for axis, ((kernel, problem), configs) in zip(axes.flat, groups.items()):
        labels, ratios = [], []
        for label, pair in configs.items():
            ours, theirs = pair.get("tilelang", {}), pair.get("triton", {})
            labels.append(label)
            ratios.append(ours["value"] / theirs["value"] if "value" in ours and "value" in theirs else 0)
        axis.bar(range(len(labels)), ratios, color=["tab:blue" if r >= 0.95 else "tab:red" for r in ratios])
        axis.axhline(1.0, color="black", linewidth=0.8)
        axis.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=6)
        axis.set_title(f"{kernel} {problem}", fontsize=8)
        axis.set_ylabel("tilelang / Triton", fontsize=7)
    for axis in list(axes.flat)[count:]:
        axis.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return True


def _regex(text: str) -> str:
    """An argument that must be a valid regular expression (argparse reports
    the error on its usage line)."""
    try:
        re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"not a regular expression: {text!r} ({exc})") from None
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["static", "timed", "profile", "list"])
    parser.add_argument("--only", help="comma-separated corpus modules (default: all)")
    parser.add_argument("--problems", type=_regex, help="timed: a regular expression the problem names must match")
    parser.add_argument("--configs", type=_regex, help="timed: a regular expression the config labels must match")
    parser.add_argument("--out", default="build/parity", help="directory for results.{json,md,png}")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="static: parallel compilations")
    parser.add_argument("--rep-ms", type=float, default=200, help="timed: milliseconds of repetitions each")
    parser.add_argument("--compiler", choices=COMPILERS, default="tilelang", help="profile: whose kernels to launch")
    parser.add_argument("--launches", type=int, default=3, help="profile: launches per config after the first")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else corpus_names()
    unknown = sorted(set(names) - set(corpus_names()))
    if unknown:
        parser.error(f"unknown corpus modules: {', '.join(unknown)} (have: {', '.join(corpus_names())})")
    if args.mode == "list":
        for name in names:
            module = load(name, "tilelang")
            print(f"{name}: {len(module.CONFIGS)} configs, problems: "
                  f"{', '.join(p['name'] for p in module.PROBLEMS)}")
        return 0
    if args.mode == "profile":
        if len(names) != 1:
            parser.error("profile takes one module (--only NAME)")
        return run_profile(names[0], args.compiler, args.problems, args.configs, args.launches)
    if not _have_triton():
        print("error: Triton is not importable (pip install -e .[parity])", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import triton

    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "triton": triton.__version__}
    if args.mode == "static":
        rows = run_static(names, args.jobs)
        text = static_markdown(rows)
        findings = static_findings(rows)
        meta["arch"] = ARCH
    else:
        import torch

        meta["device"] = torch.cuda.get_device_name()
        rows = run_timed(names, args.rep_ms, args.problems, args.configs)
        text = timed_markdown(rows, meta["device"])
        findings = [f"{r['kernel']} {r['problem']} {r['config']} {r['compiler']}: {r['error']}"
                    for r in rows if "error" in r]
        timed_plot(rows, out / "results.png")
    for row in rows:
        row.pop("traceback", None) if "error" not in row else None
    (out / "results.json").write_text(json.dumps({"meta": meta, "rows": rows, "findings": findings}, indent=1))
    (out / "results.md").write_text(text)
    print(text)
    print(f"wrote {out}/results.json, results.md" + (", results.png" if args.mode == "timed" else ""))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
