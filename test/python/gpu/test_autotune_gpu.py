"""The autotuner on the GPU: layernorm from bench/kernels.py tuned over a
few BLOCK_SIZE / num_warps configs on a 1000x3000 fp16 input, checked
against float64; a second process with the same cache directory reuses the
stored result without timing anything. Skipped without a GPU."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

BENCH = pathlib.Path(__file__).resolve().parents[3] / "bench"

CHILD = '''
    import json, os, sys
    import torch
    import tilelang, tilelang.language as tl
    from tilelang import testing
    from tilelang.autotune import core
    sys.path.insert(0, os.environ["BENCH_DIR"])
    import kernels
    configs = [tilelang.Config({"BLOCK_SIZE": b}, num_warps=w) for b in (512, 1024, 4096) for w in (4, 8)]
    configs.append(tilelang.Config({"BLOCK_SIZE": 1024}, num_warps=64))  # pruned: 2048 threads
    layer_norm = tilelang.autotune(configs=configs, key=["N"], warmup=5, rep=20)(
        kernels.define(tilelang.jit, tl)["layer_norm_fwd"])
    torch.manual_seed(0)
    m, n = 1000, 3000
    x = torch.randn(m, n, device="cuda", dtype=torch.float16)
    w = torch.rand(n, device="cuda", dtype=torch.float16) + 0.5
    b = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.full_like(x, float("nan"))
    mean = torch.empty(m, device="cuda")
    rstd = torch.empty(m, device="cuda")
    layer_norm[(m,)](x, y, w, b, mean, rstd, x.stride(0), n, 1e-5)
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    error = (y.double() - ref).abs().max().item()
    print(json.dumps({"bench_calls": testing.bench_calls, "benchmarks": core.stats.benchmarks,
                      "runoff_timings": core.stats.runoff_timings, "runoff_limit": core.RUNOFF_SIZE * core.RUNOFF_ROUNDS,
                      "best": str(layer_norm.best_config), "error": error}))
'''


def core_rounds():
    from tilelang.autotune import core
    return core.RUNOFF_ROUNDS


def run_child(cache_dir):
    env = dict(os.environ, TILELANG_CACHE_DIR=str(cache_dir), BENCH_DIR=str(BENCH), TILELANG_PRINT_AUTOTUNING="1")
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(CHILD)], capture_output=True, text=True,
                            env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    out["stderr"] = result.stderr
    assert out["error"] < 2e-2, out
    return out


def test_layernorm_tuned_then_reused(tmp_path):
    cache = tmp_path / "cache"
    first = run_child(cache)
    # Each of the 6 configs that fit timed once, and the near-tied fastest
    # again in the runoff (core.RUNOFF_MARGIN).
    runoff = first["runoff_timings"]
    assert runoff <= first["runoff_limit"] and runoff % core_rounds() == 0, first
    assert first["bench_calls"] == first["benchmarks"] == 6 + runoff, first
    assert "Autotuning layer_norm_fwd" in first["stderr"]
    print(first["stderr"])
    store = json.loads((cache / "autotune.json").read_text())
    (entry,) = store["entries"].values()
    assert entry["kernel"] == "layer_norm_fwd" and entry["key"] == {"N": 3000}
    statuses = sorted(r["status"] for r in entry["records"])
    assert statuses == ["ok"] * 6 + ["pruned"], entry["records"]
    second = run_child(cache)
    assert second["bench_calls"] == 0 and second["benchmarks"] == 0, second
    assert second["best"] == first["best"]
    listing = subprocess.run([sys.executable, "-m", "tilelang.autotune", "show", "layer_norm_fwd"],
                             capture_output=True, text=True, env=dict(os.environ, TILELANG_CACHE_DIR=str(cache)))
    assert listing.returncode == 0 and "pruned" in listing.stdout
    print(listing.stdout)


def run_matmul_tuning(cache_dir, size):
    script = BENCH / "autotune_matmul.py"
    env = dict(os.environ, TILELANG_CACHE_DIR=str(cache_dir))
    result = subprocess.run([sys.executable, str(script), "--size", str(size)], capture_output=True, text=True,
                            env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["relative_error"] < 2e-2, out
    return out


def test_matmul_space_tuned_then_reused(tmp_path):
    """The bundled matmul's space: every config that fits is timed once and
    checked through the winner's result; what does not fit (256x256x64 at 4
    stages: 256 KiB of shared memory) is pruned before it launches; a second
    process reuses every record and times nothing."""
    cache = tmp_path / "cache"
    first = run_matmul_tuning(cache, 1024)
    store = json.loads((cache / "autotune.json").read_text())
    (entry,) = store["entries"].values()
    assert entry["kernel"] == "matmul_kernel" and entry["key"] == {"M": 1024, "N": 1024, "K": 1024}
    statuses = [r["status"] for r in entry["records"]]
    assert len(statuses) == first["configs"] and statuses.count("pruned") >= 1, entry["records"]
    pruned = [r for r in entry["records"] if r["status"] == "pruned"]
    assert any("shared memory" in r.get("reason", "") for r in pruned), pruned
    assert first["timed"] == statuses.count("ok"), first
    # Declared work: 2 * 1024^3 flops, and rates against the device's peaks.
    assert entry["work"]["flops"] == 2 * 1024 ** 3 and entry["peak"]["tflops"] > 0, entry
    second = run_matmul_tuning(cache, 1024)
    assert second["timed"] == 0 and second["runoff_timings"] == 0 and second["best"] == first["best"], second
    shown = subprocess.run([sys.executable, "-m", "tilelang.autotune", "show", "matmul_kernel"],
                           capture_output=True, text=True, env=dict(os.environ, TILELANG_CACHE_DIR=str(cache)))
    assert shown.returncode == 0 and "TFLOP/s (" in shown.stdout, shown.stdout
    print(shown.stdout)
