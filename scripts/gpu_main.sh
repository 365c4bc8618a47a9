#!/usr/bin/env bash
#===- scripts/gpu_main.sh - the main job's steps on a GPU -------------------===#
#
#   bash scripts/gpu_main.sh PYTHON PTXDIR OUTDIR [--bench | --quick]
#
# Shared by scripts/main.sh (with .venv's Python, when a GPU and torch are
# present) and `scripts/gpu_host.sh run` (on a GPU host without LLVM, with
# the host's python3), so both run the same steps:
#
#   1. the PTX check: scripts/gpu_ptx_check.py runs the tile-IR kernels of
#      test/Target/PTX, compiled ahead of time into PTXDIR (`--emit`), on the
#      GPU and checks them against float64 torch references;
#   2. with --bench, the benchmarks: bench/run.py --out OUTDIR/bench times
#      tilelang next to torch and Triton (layernorm, fused softmax, launch
#      overhead, matmul, flash attention), writes results.json, results.md
#      and results.png there, and ends by printing the markdown table;
#      then bench/ops.py --out OUTDIR/bench-ops times tilelang.ops (tuned on
#      first use per shape bucket, checked against torch) next to torch's
#      own operators, forward and forward + backward (a table and a PNG per
#      operator);
#   3. with --quick instead, the same two benchmarks in a few minutes:
#      bench/run.py without the tensor-descriptor, fp8 and attention rows
#      (whose tuning takes longest) and with 50 ms of timed repetitions,
#      and bench/ops.py --quick (two row lengths, two matmul shapes).
#
# Output is shown and logged to OUTDIR/gpu_ptx_check.log, OUTDIR/bench.log
# and OUTDIR/bench-ops.log. Every step runs even when an earlier one fails;
# the exit status is 1 when any failed. PYTHON must import torch and
# tilelang.
#
#===----------------------------------------------------------------------===#
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

if [[ $# -lt 3 || $# -gt 4 || ( $# -eq 4 && $4 != --bench && $4 != --quick ) ]]; then
  echo "usage: bash scripts/gpu_main.sh PYTHON PTXDIR OUTDIR [--bench | --quick]" >&2
  exit 2
fi
py=$1 ptx=$2 out=$3 bench=${4:-}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
status=0

printf '\n==> PTX check: the kernels of %s against float64 references\n' "$ptx"
"$py" scripts/gpu_ptx_check.py "$ptx" 2>&1 | tee "$out/gpu_ptx_check.log" || status=1

run_args=() ops_args=()
if [[ $bench == --quick ]]; then
  run_args=(--only layernorm,softmax,launch,matmul --rep-ms 50)
  ops_args=(--quick)
fi
if [[ -n $bench ]]; then
  printf '\n==> Benchmarks: tilelang, torch and Triton (bench/run.py --out %s/bench %s)\n' "$out" "${run_args[*]}"
  "$py" bench/run.py --out "$out/bench" "${run_args[@]}" 2>&1 | tee "$out/bench.log" || status=1
  printf '\n==> tilelang.ops next to torch (bench/ops.py --out %s/bench-ops %s)\n' "$out" "${ops_args[*]}"
  "$py" bench/ops.py --out "$out/bench-ops" "${ops_args[@]}" 2>&1 | tee "$out/bench-ops.log" || status=1
fi
exit $status
