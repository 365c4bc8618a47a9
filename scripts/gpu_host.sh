#!/usr/bin/env bash
#===- scripts/gpu_host.sh - run tilelang on a GPU host without LLVM --------===#
#
# The compiler library is built where LLVM is (this machine); a GPU host
# needs only that library, a C++ compiler, CMake, pybind11 and its Python.
#
#   bash scripts/gpu_host.sh pack           # here: build/gpu-host/ (~11 MB)
#   bash scripts/gpu_host.sh run [OUTDIR]   # there, in a copy of the tree
#                                           # that holds build/gpu-host/
#   TILELANG_BENCH=1 bash scripts/gpu_host.sh run OUTDIR   # and benchmark
#   bash scripts/gpu_host.sh exec CMD...    # there: CMD with tilelang
#                                           # importable (e.g. under ncu)
#   bash scripts/gpu_host.sh pack-variant NAME   # here: the current build's
#                                           # library as variant NAME, for
#                                           # A/B runs in one device call:
#   TILELANG_VARIANT=NAME bash scripts/gpu_host.sh exec CMD...   # there
#   bash scripts/gpu_host.sh install        # there: the package into
#                                           # build/gpu-host/site, to stay
#                                           # (scripts/setup.sh calls this
#                                           # on hosts without LLVM)
#
# `pack` compresses the built libtilelang.so and compiles the PTX test
# kernels. `run` unpacks the library, builds the pybind11 extension against
# it for the host's Python (seconds), assembles the package in a temporary
# folder, then runs the GPU tests and the main job's GPU steps, as
# scripts/main.sh does on a GPU machine (scripts/gpu_main.sh): the PTX check
# and, with TILELANG_BENCH=1, the benchmarks (bench/run.py; results.json,
# results.md and results.png in OUTDIR/bench, the table printed at the end).
# Logs go to OUTDIR; the exit status is 1 when any step failed.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."
PACK=build/gpu-host

# Unpacks the library into $work (a temporary folder, or $2), builds the
# extension for the host's python3 and assembles an importable package in
# $work/site.
setup_site() {
  local log=$1
  local library=$PACK/libtilelang.so.xz
  [[ -n ${TILELANG_VARIANT:-} ]] && library=$PACK/variants/$TILELANG_VARIANT.so.xz
  [[ -f $library ]] || { echo "error: $library missing (run 'pack' or 'pack-variant' first)" >&2; exit 1; }
  if [[ -n ${2:-} ]]; then
    work=$2
    rm -rf "$work/site"
    mkdir -p "$work"
  else
    work=$(mktemp -d /tmp/tilelang-host.XXXX)
  fi
  # The library and the extensions built against it are kept per content
  # (library, extension sources, the headers they include, the Python and
  # the torch that tilelang._C_torch is built for) in /tmp, so that later
  # calls on the same machine (exec, variants) skip the unpacking and the
  # build. A build counts once it has finished.
  local ext
  ext=/tmp/tilelang-ext-$( (cat "$library" python/CMakeLists.txt python/src/*
    find include -type f | sort | xargs cat; python3 -VV
    python3 -c "import importlib.metadata as m; print(m.version('torch'))" 2>/dev/null || true) |
    sha1sum | cut -c1-16)
  if [[ -f $ext/complete ]]; then
    echo "==> reusing the extension built in $ext"
  else
    rm -rf "$ext"
    mkdir -p "$ext"
    python3 - "$ext" "$library" <<'PY'
import lzma, pathlib, sys
ext = pathlib.Path(sys.argv[1])
(ext / "libtilelang.so").write_bytes(lzma.decompress(pathlib.Path(sys.argv[2]).read_bytes()))
PY
    echo "==> building the extensions against the prebuilt library (tilelang._C_torch too where torch is)"
    local start
    start=$(date +%s)
    cmake -S python -B "$ext/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTILELANG_PREBUILT_LIBRARY="$ext/libtilelang.so" -DPython_EXECUTABLE="$(command -v python3)" > "$log"
    cmake --build "$ext/build" --target _C >> "$log"
    # The torch bridge is optional: without it launches read tensors
    # through Python. A failure is reported, not fatal.
    if grep -q "tilelang._C_torch: building against" "$log" &&
      ! cmake --build "$ext/build" --target _C_torch >> "$log" 2>&1; then
      echo "warning: tilelang._C_torch failed to build (see $log); launches read torch tensors through Python" >&2
      tail -n 30 "$log" >&2
    fi
    touch "$ext/complete"
    echo "    built in $(($(date +%s) - start)) s"
  fi
  cp "$ext/libtilelang.so" "$work/libtilelang.so"
  mkdir -p "$work/site"
  cp -r python/tilelang "$work/site/tilelang"
  cp "$ext"/build/_C*.so "$work/libtilelang.so" "$work/site/tilelang/"
  # Only the library is shipped: tests that need tilelang-opt skip.
  export PYTHONPATH="$work/site" PYTHONUNBUFFERED=1 TILELANG_TOOLS_ABSENT=1
}

case "${1:-}" in
pack)
  [[ -f build/py/lib/libtilelang.so ]] || { echo "error: build first (bash scripts/setup.sh)" >&2; exit 1; }
  mkdir -p "$PACK"
  echo "==> compressing libtilelang.so"
  .venv/bin/python - <<'PY'
import lzma, pathlib
data = pathlib.Path("build/py/lib/libtilelang.so").read_bytes()
pathlib.Path("build/gpu-host/libtilelang.so.xz").write_bytes(lzma.compress(data, preset=6))
PY
  echo "==> compiling the PTX test kernels"
  rm -rf "$PACK/ptx"
  .venv/bin/python scripts/gpu_ptx_check.py --emit "$PACK/ptx" > /dev/null
  du -sh "$PACK"
  ;;
pack-variant)
  name=${2:?usage: bash scripts/gpu_host.sh pack-variant NAME}
  [[ -f build/py/lib/libtilelang.so ]] || { echo "error: build first (bash scripts/setup.sh)" >&2; exit 1; }
  mkdir -p "$PACK/variants"
  echo "==> compressing libtilelang.so as variant $name"
  .venv/bin/python - "$PACK/variants/$name.so.xz" <<'PY'
import lzma, pathlib, sys
data = pathlib.Path("build/py/lib/libtilelang.so").read_bytes()
pathlib.Path(sys.argv[1]).write_bytes(lzma.compress(data, preset=6))
PY
  du -sh "$PACK/variants"
  ;;
run)
  out=${2:-/tmp/tilelang-gpu-logs}
  mkdir -p "$out"
  setup_site "$out/extension-build.log"
  python3 -c "import tilelang, tilelang._C as C; print('tilelang', tilelang.compiler_version(), '| driver', C.driver_version(), '|', C.device_info()['name'])"
  echo "==> GPU tests"
  status=0
  python3 -m pytest -q -p no:cacheprovider test/python/gpu test/python/frontend test/python/test_ir.py \
    test/python/test_runtime_cpu.py test/python/test_cache.py test/python/test_launch_key.py \
    test/python/test_launch_fake_driver.py test/python/autotune 2>&1 | tee "$out/pytest-gpu.log" || status=1
  # The main job's GPU steps: the PTX check, then (TILELANG_BENCH=1) the benchmarks.
  bash scripts/gpu_main.sh python3 "$PACK/ptx" "$out" ${TILELANG_BENCH:+--bench} || status=1
  exit $status
  ;;
install)
  setup_site /tmp/tilelang-extension-build.log "$PWD/$PACK/installed"
  echo "installed: PYTHONPATH=$work/site python3 -c 'import tilelang'"
  ;;
exec)
  shift
  setup_site /tmp/tilelang-extension-build.log
  exec "$@"
  ;;
*)
  echo "usage: bash scripts/gpu_host.sh pack | pack-variant NAME | run [OUTDIR] | exec CMD... | install" >&2
  exit 2
  ;;
esac
