#!/usr/bin/env bash
#===- scripts/main.sh - the main job ----------------------------------------===#
#
# Compiles the bundled kernels and shows what came out. First the Python
# kernels a user runs: those of tilelang.ops for sm_90a and sm_80
# (bench/ops_static.py: shared memory, registers, spills of each forward
# and backward kernel) and the flash-attention forward of bench/kernels.py
# in every variant the benchmark runs (bench/attention_static.py: shared
# memory, registers, spills, the main loop's barriers and shared-memory
# traffic). Then the tile-IR programs of the PTX test suite
# (test/Target/PTX: vector add, fused softmax, layernorm forward, ...),
# each compiled to PTX for sm_90a and sm_80 with tilelang-compile (or the
# Python API where only the library is installed), their memory and
# shuffle instructions shown with ptxas's resource report (when ptxas is
# installed), and compiled once more through the Python API.
# With a GPU (and torch), scripts/gpu_main.sh then runs the kernels' PTX and
# checks it against float64 references, and benchmarks tilelang next to
# torch and Triton (bench/run.py: layernorm, fused softmax, launch overhead,
# matmul, flash attention; results.{json,md,png} in build/main/bench),
# printing the markdown table.
#
#   bash scripts/main.sh [--quick] [--out DIR]
#
# --quick: on a GPU, the benchmarks' short form (scripts/gpu_main.sh
# --quick: a few minutes, mostly tuning), with the same kinds of tables and
# plots; --out: where the PTX, logs, tables and plots go (default
# build/main).
# Needs scripts/setup.sh to have run once. On a host without LLVM, where
# setup.sh installed the distribution into .venv or built only the
# extension against a prebuilt library (build/gpu-host/installed/site),
# the kernels are compiled through the Python API and ptxas (when
# installed) gives the resource report.
#
#===----------------------------------------------------------------------===#
set -euo pipefail

OUT=
BENCH=--bench
while (($#)); do
  case $1 in
  --quick) BENCH=--quick ;;
  --out)
    [[ $# -ge 2 ]] || { echo "error: --out needs a folder" >&2; exit 2; }
    OUT=$2
    shift
    ;;
  --out=*) OUT=${1#--out=} ;;
  -h | --help)
    echo "usage: bash scripts/main.sh [--quick] [--out DIR]"
    exit 0
    ;;
  *)
    echo "error: unknown argument '$1'; usage: bash scripts/main.sh [--quick] [--out DIR]" >&2
    exit 2
    ;;
  esac
  shift
done
# A folder given is relative to the caller; the default, to the repository.
[[ -z $OUT || $OUT == /* ]] || OUT=$PWD/$OUT
cd "$(dirname "$0")/.."
OUT=${OUT:-build/main}

BIN=.venv/bin
PREBUILT=build/gpu-host/installed/site
if [[ -x $BIN/tilelang-compile ]]; then
  PY=$BIN/python
elif [[ -x $BIN/python ]] && "$BIN/python" -c "import tilelang._C" 2> /dev/null; then
  PY=$BIN/python
  echo "==> using the installed distribution (.venv: the prebuilt compiler library, no tilelang-compile)"
elif [[ -d $PREBUILT ]]; then
  PY=python3
  export PYTHONPATH="$PWD/$PREBUILT${PYTHONPATH:+:$PYTHONPATH}"
  echo "==> using the prebuilt compiler library ($PREBUILT)"
else
  echo "error: $BIN/tilelang-compile is missing; run: bash scripts/setup.sh" >&2
  exit 1
fi
mkdir -p "$OUT"
PTXAS=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)

# tilelang-compile, or the same through the Python API where only the
# library is installed: PTX to $3 and a report.
compile_kernel() {
  local kernel=$1 arch=$2 out=$3
  if [[ -x $BIN/tilelang-compile ]]; then
    "$BIN/tilelang-compile" "$kernel" --arch="$arch" --report -o "$out"
    return
  fi
  "$PY" - "$kernel" "$arch" "$out" <<'PY'
import sys, time, tilelang
path, arch, out = sys.argv[1:]
start = time.perf_counter()
k = tilelang.compile_ir(open(path).read(), arch=arch, source_name=path)
open(out, "w").write(k.ptx)
print(f"kernel {k.name}: {arch}, {k.num_warps} warps, {k.shared_bytes} B shared, "
      f"compiled in {(time.perf_counter() - start) * 1e3:.1f} ms")
PY
  if [[ -x $PTXAS ]]; then
    "$PTXAS" -arch="$arch" -v "$out" -o /dev/null 2>&1 | grep -E "registers|spill" | sed 's/^/  /'
  fi
}

# The bundled Python kernels first: what a user of tilelang.ops runs.
printf '\n==> The kernels of tilelang.ops (matmul, layer/RMS norm, softmax; forward and backward) for sm_90a and sm_80\n'
"$PY" bench/ops_static.py

printf '\n==> The bundled flash-attention forward (bench/kernels.py) through the Python frontend\n'
"$PY" bench/attention_static.py

printf '\n==> The tile-IR programs of the PTX test suite (test/Target/PTX), for sm_90a and sm_80\n'
for kernel in test/Target/PTX/*.mlir; do
  name=$(basename "$kernel" .mlir)
  for arch in sm_90a sm_80; do
    printf '\n==> %s for %s\n' "$kernel" "$arch"
    compile_kernel "$kernel" "$arch" "$OUT/$name.$arch.ptx"
  done
  printf -- '--- %s (sm_90a): entry, memory and shuffle instructions ---\n' "$OUT/$name.sm_90a.ptx"
  # awk shows 12 lines but reads them all: `head` would close the pipe early,
  # and under pipefail the writer's SIGPIPE would end the job (exit 141).
  grep -E '^\.visible \.entry|\.maxntid|ld\.global|st\.global|shfl\.sync|bar\.sync' "$OUT/$name.sm_90a.ptx" |
    sed 's/^[[:space:]]*/    /' | awk '!seen[$0]++ && shown++ < 12'
done

printf '\n==> The same kernels through the Python API (tilelang.compile_ir)\n'
"$PY" - <<'PY'
import glob, time
import tilelang

print("compiler:", tilelang.compiler_version())
for path in sorted(glob.glob("test/Target/PTX/*.mlir")):
    with open(path) as f:
        text = f.read()
    start = time.perf_counter()
    kernel = tilelang.compile_ir(text, source_name=path)
    ms = (time.perf_counter() - start) * 1e3
    print(f"  {path}: {kernel.name} -> {len(kernel.ptx.splitlines())} lines of PTX in {ms:.1f} ms "
          f"({kernel.num_warps} warps, {kernel.shared_bytes} B shared)")
PY

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  printf '\n==> GPU found (%s): checking the kernels, then benchmarking\n' "$(nvidia-smi -L | sed -n 1p)"
  if "$PY" -c "import torch" 2>/dev/null; then
    "$PY" scripts/gpu_ptx_check.py --emit "$OUT/ptx" > /dev/null
    bash scripts/gpu_main.sh "$PY" "$OUT/ptx" "$OUT" "$BENCH"
  else
    echo "torch is not importable by $PY: install it to run the kernels (pip install torch)"
  fi
else
  printf '\n==> No GPU here: PTX and resource reports only (in %s).\n' "$OUT"
fi
