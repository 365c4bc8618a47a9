"""``python -m tilelang.autotune``: every command on a store filled by the
autotuner with a fake timer and fake launches (no GPU)."""

import csv
import io
import json
import os
import pathlib
import subprocess
import sys

import pytest

import tilelang
from tilelang.autotune import core
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
Config = tilelang.Config


@pytest.fixture
def filled(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(cache))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, grid, config, args, kwargs: None)
    space = [Config({"BLOCK": 64}), Config({"BLOCK": 256}), Config({"BLOCK": 256}, num_warps=8),
             Config({"BLOCK": 3}), Config({"BLOCK": 128}, num_warps=64)]
    kernel = tilelang.autotune(configs=space, key=["n"], do_bench=K.FakeTimer(),
                               work=lambda nargs: {"bytes": 4e9 * nargs["n"]})(K.row_sum)
    for n in (8, 4096):
        kernel[(1,)](K.FakeTensor([n]), K.FakeTensor([1]), n)
    return cache / "autotune.json"


def inspector(store, *argv, check=True):
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-m", "tilelang.autotune", *argv, "--store", str(store)],
                            capture_output=True, text=True, env=env, timeout=120)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def test_ls(filled):
    out = inspector(filled, "ls").stdout.splitlines()
    assert out[0].split()[:4] == ["ENTRY", "KERNEL", "KEY", "DEVICE"]
    assert len(out) == 3
    for line, n in zip(out[1:], (4096, 8)) if "4096" in out[1] else zip(out[1:], (8, 4096)):
        assert "row_sum" in line and f"n={n}" in line and "Fake GPU" in line
        assert "BLOCK: 256, num_warps: 4, num_stages: 3" in line and "1.0003 ms" in line
        assert "  5  " in line  # five configs
    # The default store is the cache directory's.
    default = subprocess.run([sys.executable, "-m", "tilelang.autotune", "ls"], capture_output=True, text=True,
                             timeout=120)
    assert "row_sum" in default.stdout


def test_show(filled):
    out = inspector(filled, "show", "row_sum").stdout
    assert out.count("row_sum  entry") == 2
    block = out.split("\n\n")[0].splitlines()
    assert "best: BLOCK: 256, num_warps: 4, num_stages: 3  1.0003 ms" in out
    rows = [line for line in block if "BLOCK:" in line and "best:" not in line]
    assert rows[0].split()[:4] == ["*", "BLOCK:", "256,", "num_warps:"] and "num_warps: 4," in rows[0]  # best first
    statuses = [("ok" in r, "pruned" in r) for r in rows]
    assert statuses == [(True, False)] * 3 + [(False, True)] * 2
    assert "power of 2" in out and "2048 threads per block" in out
    # Declared work (4e9 bytes per element of n) against the fake 4000 GB/s:
    # n = 8 moves 32e9 bytes: in 1.0003 ms (its best) that is 31990.4 GB/s.
    assert "work per call: bytes 3.2e+10   device peak (estimated): 1000 TFLOP/s, 4000 GB/s" in out
    assert "31990.4 GB/s (800%)" in out
    missing = inspector(filled, "show", "nope", check=False)
    assert missing.returncode == 1 and "no entry" in missing.stderr


def test_export_json(filled, tmp_path):
    data = json.loads(inspector(filled, "export", "--format", "json").stdout)
    assert len(data["entries"]) == 2
    target = tmp_path / "out.json"
    inspector(filled, "export", "--format", "json", "-o", str(target))
    assert json.loads(target.read_text()) == data


def test_export_csv(filled, tmp_path):
    target = tmp_path / "out.csv"
    inspector(filled, "export", "--format", "csv", "-o", str(target))
    rows = list(csv.DictReader(io.StringIO(target.read_text())))
    assert len(rows) == 10
    assert sum(int(r["best"]) for r in rows) == 2
    pruned = [r for r in rows if r["status"] == "pruned"]
    assert len(pruned) == 4 and all(r["reason"] and r["time_ms"] == "" for r in pruned)
    assert {r["kernel"] for r in rows} == {"row_sum"}


def test_clear(filled):
    ids = list(json.loads(filled.read_text())["entries"])
    out = inspector(filled, "clear", "--yes", ids[0][:10]).stdout
    assert "removed 1 entries" in out
    assert list(json.loads(filled.read_text())["entries"]) == ids[1:]
    assert "removed 0 entries" in inspector(filled, "clear", "-y", "other_kernel").stdout
    assert "removed 1 entries" in inspector(filled, "clear", "--yes").stdout
    assert "no entries" in inspector(filled, "ls").stdout


def test_plot(filled, tmp_path):
    target = tmp_path / "plot.png"
    result = inspector(filled, "plot", "row_sum", "-o", str(target), check=False)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert result.returncode == 2
        assert "matplotlib" in result.stderr and not target.exists()
    else:
        assert result.returncode == 0, result.stderr
        assert target.read_bytes().startswith(b"\x89PNG")


def test_plot_without_matplotlib(filled, tmp_path, capsys, monkeypatch):
    from tilelang.autotune import __main__ as cli

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails
    code = cli.main(["--store", str(filled), "plot", "row_sum", "-o", str(tmp_path / "p.png")])
    assert code == 2 and "needs matplotlib" in capsys.readouterr().err


def test_usage_errors(filled):
    result = inspector(filled, "frobnicate", check=False)
    assert result.returncode == 2
