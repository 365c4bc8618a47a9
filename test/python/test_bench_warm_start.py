"""bench/warm_start.py through the stand-in driver (no GPU): it fills a
cache in one child, times the first launch in fresh ones, and prints the
table with tilelang's first launch by part (in which neither the frontend
nor the verifier appears: the tile-IR index spares a warm start both). On the GPU host it runs next to
Triton (the lead's run)."""

import subprocess
import sys

from tilelang_testing import REPO_ROOT

from fakecuda import fakecuda  # noqa: E402


def test_warm_start_table(tmp_path):
    driver = fakecuda.build(tmp_path)
    out = tmp_path / "warm.md"
    done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "warm_start.py"), "--fake-driver", str(driver),
                           "--runs", "2", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    table = out.read_text()
    assert "median of 2" in table and "stand-in driver" in table
    rows = [line for line in table.splitlines() if line.startswith("| matmul") or line.startswith("| layernorm")]
    assert [row.split(" | ")[:2] for row in rows] == [["| matmul", "tilelang"], ["| layernorm", "tilelang"]]
    for row in rows:
        # A warm start looks the kernel up; the tile-IR index spares it the frontend and the verifier.
        assert "cache lookup" in row and "frontend" not in row and "verify" not in row
        first = float(row.split(" | ")[2])
        assert first > 0


def test_bad_arguments_are_usage_errors():
    done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "warm_start.py"), "--only", "conv"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--only takes matmul and/or layernorm" in done.stderr
    assert "Traceback" not in done.stderr
