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
#   bash scripts/gpu_host.sh suite OUTDIR [PYTEST ARGS]   # there: the GPU
#                                           # tests (test/python/gpu) in
#                                           # parallel processes
#
# The distribution, installed as a user installs it (issue 22):
#
#   bash scripts/gpu_host.sh dist [DIR]     # here: build/dist/ (~20 MB): a
#                                           # source distribution carrying
#                                           # the prebuilt library, and the
#                                           # wheels its build and `suite`
#                                           # need, for a host with no network
#   bash scripts/gpu_host.sh pip-install DIR OUTDIR [PYTEST ARGS]   # there:
#                                           # pip install --no-index into a
#                                           # venv, then `suite` against it
#   bash scripts/gpu_host.sh venv DIR VENV  # there: only the install, into
#                                           # VENV (scripts/setup.sh: .venv)
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
# `dist` copies the package's sources (python/, tilelang's headers, the
# CMake and pyproject files; no LLVM code, no tests) as they are in the
# working tree (the files git tracks or does not ignore, as the device tool
# carries them) or in commit $TILELANG_DIST_FROM, and the built
# libtilelang.so (as prebuilt/libtilelang.so), into a staging folder and
# has scikit-build-core write the source distribution from it: its
# CMakeLists.txt sees prebuilt/ and builds only tilelang._C (and
# tilelang._C_torch where torch is) against that library, so installing it
# needs CMake, ninja, a C++ compiler and pybind11, never LLVM. DIR/wheels
# gets the wheels of what the install and `suite` need that a bare host may
# lack (scikit-build-core, pybind11, packaging, pathspec, pytest-xdist,
# execnet, and pip; the versions this machine builds with). A wheel for this
# machine's Python, built from the same source distribution, goes to
# wheels/ beside DIR (build/wheels/; not carried: the host's Python differs),
# and the plot and progress extras' wheels for the host's Python (3.12 or
# $TILELANG_HOST_PYTHON_VERSION; matplotlib, tqdm; numpy aside) to extras/
# beside DIR (build/extras/, ~24 MB; carried where the host lacks them).
#
# `pip-install` creates a venv (/tmp/tilelang-venv, or $TILELANG_VENV) from
# python3 (or $PYTHON) that still sees that interpreter's packages (torch,
# numpy, pytest), installs the wheels (the extras' too where they came and
# the interpreter lacks matplotlib) and then tilelang-mlir with `pip
# install --no-index --find-links DIR --no-build-isolation` (the build sees
# torch and builds _C_torch), and runs `suite` with the venv's Python from
# OUTDIR, outside the source tree, so the tests import the installed
# package (pytest's header names it). `venv` is the same install alone.
#
# `suite` runs test/python/gpu (or the paths among PYTEST ARGS) with
# pytest-xdist in $TILELANG_SUITE_WORKERS processes (default 12), tests
# spread one by one; junit.xml and pytest.log in OUTDIR; exit status 1 on any
# failure. Its Python is $TILELANG_PYTHON (set by pip-install), or the
# package assembled as `run` does. pytest-xdist comes from the carried
# wheels (build/dist/wheels, or $TILELANG_WHEELS) where the Python lacks it.
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
  # The library is unpacked once per content into /tmp/tilelang-lib-HASH.
  # The extensions are built once per interface: their sources, the headers
  # they include, the Python and the torch that tilelang._C_torch is built
  # for, and the symbols the library exports (nm -D; the library's content
  # where nm is missing). Variants of the library (pack-variant) that export
  # the same symbols share one build: they load through the extensions'
  # $ORIGIN rpath, so each site gets its own library beside them. Later
  # calls on the same machine (exec, variants) skip the unpacking and the
  # build; a build counts once it has finished.
  local lib ext
  lib=/tmp/tilelang-lib-$(sha1sum < "$library" | cut -c1-16)
  if [[ ! -f $lib/complete ]]; then
    rm -rf "$lib"
    mkdir -p "$lib"
    python3 - "$lib" "$library" <<'PY'
import lzma, pathlib, sys
(pathlib.Path(sys.argv[1]) / "libtilelang.so").write_bytes(lzma.decompress(pathlib.Path(sys.argv[2]).read_bytes()))
PY
    touch "$lib/complete"
  fi
  ext=/tmp/tilelang-ext-$( (cat python/CMakeLists.txt python/src/*
    find include -type f | sort | xargs cat; python3 -VV
    python3 -c "import importlib.metadata as m; print(m.version('torch'))" 2>/dev/null || true
    if command -v nm > /dev/null; then
      nm -D --defined-only "$lib/libtilelang.so" | awk '{print $NF}' | sort
    else
      cat "$lib/libtilelang.so"
    fi) |
    sha1sum | cut -c1-16)
  if [[ -f $ext/complete ]]; then
    echo "==> reusing the extension built in $ext"
  else
    rm -rf "$ext"
    mkdir -p "$ext"
    echo "==> building the extensions against the prebuilt library (tilelang._C_torch too where torch is)"
    local start
    start=$(date +%s)
    cmake -S python -B "$ext/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTILELANG_PREBUILT_LIBRARY="$lib/libtilelang.so" -DPython_EXECUTABLE="$(command -v python3)" > "$log"
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
  cp "$lib/libtilelang.so" "$work/libtilelang.so"
  mkdir -p "$work/site"
  cp -r python/tilelang "$work/site/tilelang"
  cp "$ext"/build/_C*.so "$work/libtilelang.so" "$work/site/tilelang/"
  # Only the library is shipped: tests that need tilelang-opt skip.
  export PYTHONPATH="$work/site" PYTHONUNBUFFERED=1 TILELANG_TOOLS_ABSENT=1
}

# Installs the distribution in DIR ($1, from `dist`) into a new venv $2
# with pip, without network; the build's log goes to $3.
install_dist() {
  local dist venv log py start
  dist=$(realpath "$1") venv=$(realpath -m "$2") log=$3
  py=${PYTHON:-python3}
  # Replaced only if it is a venv (or an empty folder).
  if [[ -e $venv && ! -f $venv/pyvenv.cfg ]] && [[ -n $(ls -A "$venv") ]]; then
    echo "error: $venv exists and is not a venv; not replacing it" >&2
    exit 1
  fi
  rm -rf "$venv"
  echo "==> $venv from $("$py" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
  # Without ensurepip (a distribution's python3 without its venv package)
  # the venv has no pip: pip then runs from its carried wheel to install
  # itself.
  "$py" -m venv "$venv" 2> /dev/null || "$py" -m venv --without-pip "$venv"
  if ! "$venv/bin/python" -m pip --version > /dev/null 2>&1; then
    local pip_wheel
    pip_wheel=$(find "$dist/wheels" -name 'pip-*.whl' -print -quit)
    echo "==> pip into the venv from $pip_wheel"
    PIP_NO_INDEX=1 "$venv/bin/python" "$pip_wheel/pip" install -q --no-index "$pip_wheel"
  fi
  # The interpreter's own packages (torch, numpy, pytest) stay visible,
  # after the venv's: a .pth line per site-packages folder (the user's too).
  "$py" -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' > \
    "$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/tilelang-host-site.pth"
  local pip=(env PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install --no-index
    --find-links "$dist" --find-links "$dist/wheels")
  echo "==> the build backend and pytest-xdist (where the interpreter lacks them)"
  "${pip[@]}" -q "scikit-build-core>=0.10" "pybind11>=2.12" pytest-xdist
  # The plot and progress extras (matplotlib, tqdm) where the interpreter
  # lacks them and their wheels came along (`dist`'s extras folder).
  local extras
  extras=$(dirname "$dist")/extras
  if [[ -d $extras ]] && ! "$venv/bin/python" -c "import matplotlib, tqdm" 2> /dev/null; then
    echo "==> matplotlib and tqdm from $extras"
    "${pip[@]}" -q --find-links "$extras" matplotlib tqdm
  fi
  echo "==> pip install tilelang-mlir (builds the extensions against the prebuilt library; log: $log)"
  start=$(date +%s)
  # --no-cache-dir: pip keeps wheels built from a local file by its path;
  # a rebuilt distribution at the same path would install the old build.
  # --ignore-installed: an install the interpreter sees (outside the venv)
  # does not stand in for this one.
  "${pip[@]}" -v --no-cache-dir --ignore-installed --no-build-isolation --no-deps tilelang-mlir > "$log" 2>&1 ||
    { tail -n 40 "$log" >&2; exit 1; }
  echo "    installed in $(($(date +%s) - start)) s"
  grep -E "tilelang._C_torch: (building|torch is not)|no CUDA headers" "$log" | sed 's/^/    /' || true
  (cd / && "$venv/bin/python" -c '
import sys, tilelang, tilelang._C as C
print("tilelang", tilelang.__version__, "from", tilelang.__file__)
if not tilelang.__file__.startswith(sys.prefix):
    sys.exit("error: tilelang is not imported from the venv " + sys.prefix)')
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
dist)
  dist=${2:-build/dist}
  [[ -f build/py/lib/libtilelang.so ]] || { echo "error: build first (bash scripts/setup.sh)" >&2; exit 1; }
  mkdir -p "$dist/wheels"
  dist=$(realpath "$dist")
  # This machine's wheel beside DIR, not in it: the host cannot use it.
  local_wheels=$(dirname "$dist")/wheels
  mkdir -p "$local_wheels"
  stage=$(mktemp -d /tmp/tilelang-dist.XXXX)
  src=$stage/tilelang-mlir
  mkdir -p "$src/prebuilt"
  echo "==> staging the package's sources and the prebuilt library"
  # The extensions include only tilelang's own headers (which of them
  # changes; all are small, and those that include MLIR are never compiled).
  files=(pyproject.toml CMakeLists.txt README.md LICENSE python include/tilelang)
  if [[ -n ${TILELANG_DIST_FROM:-} ]]; then
    git archive "$TILELANG_DIST_FROM" -- "${files[@]}" | tar -x -C "$src"
  else
    git ls-files -z --cached --others --exclude-standard -- "${files[@]}" |
      while IFS= read -r -d '' file; do [[ -f $file ]] && cp --parents "$file" "$src"; done
  fi
  cp build/py/lib/libtilelang.so "$src/prebuilt/"
  rm -f "$dist"/tilelang_mlir-*.tar.gz "$local_wheels"/tilelang_mlir-*.whl
  root=$PWD
  sdist=$(cd "$src" && "$root/.venv/bin/python" -c \
    "import sys; from scikit_build_core.build import build_sdist; print(build_sdist(sys.argv[1]))" "$dist" |
    tail -n 1)
  rm -rf "$stage"
  echo "==> the wheels a host without network may lack"
  mapfile -t pins < <(.venv/bin/python - <<'PY'
import importlib.metadata as m
for name in ["scikit-build-core", "pybind11", "packaging", "pathspec", "pip"]:
    print(f"{name}=={m.version(name)}")
PY
  )
  # pytest-xdist and execnet are not in .venv: the newest.
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: -d "$dist/wheels" "${pins[@]}" pytest-xdist execnet
  # The plot and progress extras for the GPU host's Python (numpy aside:
  # the host has it), in a folder of their own (~23 MB) to carry where the
  # host lacks matplotlib (the main job's PNG plots).
  extras=$(dirname "$dist")/extras
  host_python=${TILELANG_HOST_PYTHON_VERSION:-3.12}
  echo "==> matplotlib and tqdm for Python $host_python on x86-64 Linux ($extras)"
  rm -rf "$extras"
  # Named one by one (no resolution, which would want numpy too): matplotlib's
  # dependencies as of 3.11 (packaging is in DIR/wheels).
  .venv/bin/python -m pip download -q --no-deps --only-binary=:all: --implementation cp \
    --python-version "$host_python" --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$extras" matplotlib contourpy cycler fonttools kiwisolver pillow \
    pyparsing python-dateutil six tzdata tqdm
  echo "==> a wheel for this machine's Python from the source distribution ($local_wheels)"
  .venv/bin/python -m pip wheel -q --no-index --no-deps --no-build-isolation -w "$local_wheels" "$dist/$sdist"
  ls -l "$dist" "$dist/wheels" "$local_wheels"
  du -sh "$dist" "$extras"
  ;;
pip-install)
  dist=${2:?usage: bash scripts/gpu_host.sh pip-install DIR OUTDIR [PYTEST ARGS]}
  out=${3:?usage: bash scripts/gpu_host.sh pip-install DIR OUTDIR [PYTEST ARGS]}
  shift 3
  mkdir -p "$out"
  out=$(realpath "$out")
  # Not under OUTDIR, which may be what comes back from the host; kept for
  # later commands (bench/warm_start.py, ...) until the next pip-install.
  venv=${TILELANG_VENV:-/tmp/tilelang-venv}
  install_dist "$dist" "$venv" "$out/pip-install.log"
  TILELANG_PYTHON=$venv/bin/python exec bash "$0" suite "$out" "$@"
  ;;
venv)
  dist=${2:?usage: bash scripts/gpu_host.sh venv DIR VENV}
  venv=${3:?usage: bash scripts/gpu_host.sh venv DIR VENV}
  install_dist "$dist" "$venv" /tmp/tilelang-pip-install.log
  ;;
suite)
  out=${2:?usage: bash scripts/gpu_host.sh suite OUTDIR [PYTEST ARGS]}
  shift 2
  mkdir -p "$out"
  out=$(realpath "$out")
  if [[ -n ${TILELANG_PYTHON:-} ]]; then
    py=$TILELANG_PYTHON
    # A distribution installs no tilelang-opt: tests that need it skip.
    [[ -x $(dirname "$py")/tilelang-opt ]] || export TILELANG_TOOLS_ABSENT=1
  else
    setup_site "$out/extension-build.log"
    py=python3
  fi
  if ! "$py" -c "import xdist" 2> /dev/null; then
    wheels=$(realpath "${TILELANG_WHEELS:-build/dist/wheels}")
    echo "==> pytest-xdist from $wheels"
    "$py" -m pip install -q --no-index --no-deps --find-links "$wheels" --target "$out/xdist" pytest-xdist execnet
    export PYTHONPATH="$out/xdist${PYTHONPATH:+:$PYTHONPATH}"
  fi
  # Paths among the arguments are the repository's; by default the GPU tests.
  args=() paths=0
  for arg in "$@"; do
    if [[ $arg != -* && -e ${arg%%::*} ]]; then
      [[ $arg == /* ]] || arg=$PWD/$arg
      args+=("$arg")
      paths=1
    else
      args+=("$arg")
    fi
  done
  ((paths)) || args+=("$PWD/test/python/gpu")
  cd "$out"  # not the source tree: the tests import the package under test
  "$py" -c 'import tilelang; print("tilelang", tilelang.__version__, "from", tilelang.__file__)'
  status=0
  # --durations: the slowest tests, to see what bounds the suite's time.
  "$py" -m pytest -p no:cacheprovider -n "${TILELANG_SUITE_WORKERS:-12}" --dist load -rfE --durations=25 \
    --junitxml="$out/junit.xml" "${args[@]}" 2>&1 | tee "$out/pytest.log" || status=1
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
  echo "usage: bash scripts/gpu_host.sh pack | pack-variant NAME | run [OUTDIR] | exec CMD... | install |" \
    "suite OUTDIR [PYTEST ARGS] | dist [DIR] | pip-install DIR OUTDIR [PYTEST ARGS] | venv DIR VENV" >&2
  exit 2
  ;;
esac
