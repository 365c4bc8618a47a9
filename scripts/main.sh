#!/usr/bin/env bash
#===- scripts/main.sh - the main job ----------------------------------------===#
#
# Compiles the bundled kernels and shows the result. At this stage of the
# project the kernels are tile-IR programs (examples/tile); each is parsed,
# verified and canonicalized by tilelang-opt, and once more through the
# Python API (libtilelang), and the result is printed.
# Needs scripts/setup.sh to have run once.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

OPT=.venv/bin/tilelang-opt
[[ -x $OPT ]] || { echo "error: $OPT is missing; run: bash scripts/setup.sh" >&2; exit 1; }

for kernel in examples/tile/*.mlir; do
  printf '\n==> %s: tilelang-opt --canonicalize --cse\n' "$kernel"
  start=$(date +%s%N)
  "$OPT" "$kernel" --canonicalize --cse
  echo "    ($(( ($(date +%s%N) - start) / 1000000 )) ms)"
done

printf '\n==> The same through the Python API (tilelang.run_pipeline)\n'
.venv/bin/python - <<'PY'
import glob, time
import tilelang

print("compiler:", tilelang.compiler_version())
for path in sorted(glob.glob("examples/tile/*.mlir")):
    with open(path) as f:
        text = f.read()
    start = time.perf_counter()
    out = tilelang.run_pipeline(text, "canonicalize,cse", source_name=path)
    ms = (time.perf_counter() - start) * 1e3
    ops = sum(1 for line in out.splitlines() if " = tile." in line or line.strip().startswith("tile."))
    print(f"  {path}: verified and canonicalized in {ms:.1f} ms, {ops} tile ops")
PY
