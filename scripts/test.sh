#!/usr/bin/env bash
#===- scripts/test.sh - run every tilelang test -----------------------------===#
#
# Brings the build up to date (incrementally), then runs the lit suite
# (check-tilelang: every op and pass through tilelang-opt and FileCheck) and
# the pytest suite (test/python; GPU tests skip without a GPU).
# Needs scripts/setup.sh to have run once. Extra arguments go to pytest.
#
#===----------------------------------------------------------------------===#
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -x .venv/bin/python ]]; then
  echo "error: .venv is missing; run: bash scripts/setup.sh" >&2
  exit 1
fi

echo "==> Updating the build"
.venv/bin/python -m pip install -q --no-build-isolation --no-deps -e .

echo "==> lit: ninja -C build/py check-tilelang"
ninja -C build/py check-tilelang

echo "==> pytest: test/python"
.venv/bin/python -m pytest test/python "$@"
