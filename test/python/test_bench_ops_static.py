"""bench/ops_static.py (run by the main job): every kernel of tilelang.ops,
forward and backward, compiles for sm_90a and sm_80 under the config it is
launched with untuned, and the table has a row for each (resources from
ptxas where it is installed)."""

import subprocess
import sys

from tilelang_testing import REPO_ROOT


def test_every_kernel_compiles_for_both_arches():
    done = subprocess.run([sys.executable, str(REPO_ROOT / "bench" / "ops_static.py")], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ") and "---" not in line]
    operators = {row[0][2:] for row in rows[1:]}
    assert operators == {"matmul (bias, gelu)", "layer_norm", "layer_norm backward: dx, dw, db",
                         "layer_norm backward: sums", "rms_norm", "rms_norm backward: dx, dw", "softmax",
                         "softmax backward"}
    assert sorted(row[1] for row in rows[1:]) == sorted(["sm_90a", "sm_80"] * len(operators))
    # The untuned row kernels hold a row of 8192 in one block, in registers.
    assert all("BLOCK_SIZE=8192, ROW_FITS=True" in row[2] for row in rows[1:]
               if row[0][2:] in ("layer_norm", "rms_norm", "softmax"))
    assert all("BLOCK_SIZE=8192, " in row[2] for row in rows[1:] if "backward: dx" in row[0])
