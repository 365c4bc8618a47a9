#!/usr/bin/env bash
#===- scripts/setup.sh - install everything tilelang needs and build it ----===#
#
# On a Debian/Ubuntu machine: installs the system packages (LLVM/MLIR 22,
# lld, ninja, ...) with apt-get when they are missing, creates the virtual
# environment .venv, and builds and installs tilelang into it (editable, so
# Python edits need no reinstall). Re-running it rebuilds incrementally.
#
#   bash scripts/setup.sh            # everything
#   TILELANG_SKIP_APT=1 bash ...     # never call apt-get (packages present)
#
# On a host without LLVM (the GPU host), nothing is built from source:
# where build/dist holds the distribution made by `bash scripts/gpu_host.sh
# dist` on a build machine, it is installed with pip, without network, into
# .venv (which still sees python3's own packages, torch among them); else,
# where build/gpu-host holds a prebuilt compiler library (`gpu_host.sh
# pack`), only the pybind11 extension is built against it, into
# build/gpu-host/installed/site. scripts/main.sh then uses what is there.
# TILELANG_FROM_SOURCE=1 forces a full build.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  libzstd-dev ninja-build cmake g++ git
)

step() { printf '\n==> %s\n' "$*"; }

if [[ -z "${TILELANG_FROM_SOURCE:-}" ]] &&
  ! dpkg-query -W -f='${Status}' llvm-22-dev 2>/dev/null | grep -q "ok installed"; then
  if compgen -G "build/dist/tilelang_mlir-*.tar.gz" > /dev/null; then
    step "No LLVM here; installing the distribution in build/dist into .venv"
    bash scripts/gpu_host.sh venv build/dist .venv
    exit 0
  fi
  if [[ -f build/gpu-host/libtilelang.so.xz ]]; then
    step "No LLVM here; using the prebuilt compiler library in build/gpu-host"
    bash scripts/gpu_host.sh install
    exit 0
  fi
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ -n "${TILELANG_SKIP_APT:-}" ]]; then
    echo "error: missing system packages: ${missing[*]}" >&2
    exit 1
  fi
  step "Installing system packages: ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || {
      echo "error: not root and no sudo; install: ${missing[*]}" >&2
      exit 1
    }
    SUDO=sudo
  fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  step "Creating the virtual environment .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
step "Installing Python build and test dependencies"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "pytest>=7"
# pyproject's extras the tests exercise, read from there so that each pin
# lives in one place (tomllib needs Python 3.11; older ones skip them):
# [parity] (Triton, for the parity harness and its static test), [plot]
# (matplotlib: perf_report's and the inspector's PNGs) and [progress] (tqdm).
# Never [torch]: CI stays without it (the GPU tests run on the GPU host).
extras=$(.venv/bin/python - <<'PY'
try:
    import tomllib
except ImportError:
    raise SystemExit(0)
with open("pyproject.toml", "rb") as f:
    extras = tomllib.load(f)["project"]["optional-dependencies"]
print(" ".join(extras["parity"] + extras["plot"] + extras["progress"]))
PY
)
if [[ -n $extras ]]; then
  .venv/bin/python -m pip install -q $extras
else
  echo "note: Python < 3.11, the parity harness's Triton, matplotlib and tqdm are not installed"
fi
# The distribution was called "tilelang" before it became "tilelang-mlir";
# an install under the old name would sit beside the new one.
if .venv/bin/python -m pip show -q tilelang > /dev/null 2>&1; then
  .venv/bin/python -m pip uninstall -q -y tilelang
fi

step "Building and installing tilelang (build tree: build/py; progress below)"
start=$(date +%s)
.venv/bin/python -m pip install --no-build-isolation --no-deps -v -e . 2>&1 |
  grep --line-buffered -E '^ *\[[0-9]+/[0-9]+\]|error|warning: |Successfully installed|FAILED' || true
test "${PIPESTATUS[0]}" -eq 0
echo "built in $(($(date +%s) - start)) s"
.venv/bin/python -c "import tilelang; print('tilelang', tilelang.__version__, '-', tilelang.compiler_version())"
