"""Shared helpers of tilelang's Python tests (a uniquely named module, so
that test folders with conftest.py files of their own cannot shadow it)."""

import os
import pathlib
import shutil
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
# Tile-IR kernels bundled with the tests: the PTX suite and the matmul example.
EXAMPLES = sorted((REPO_ROOT / "test" / "Target" / "PTX").glob("*.mlir")) + [
    REPO_ROOT / "test" / "Dialect" / "Tile" / "matmul.mlir"
]


def find_tool(name: str) -> str:
    """A console tool installed next to the running interpreter, or on PATH."""
    candidate = pathlib.Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        # scripts/gpu_host.sh ships only the library to hosts without LLVM.
        if os.environ.get("TILELANG_TOOLS_ABSENT") == "1":
            pytest.skip(f"{name} is not shipped to this host (TILELANG_TOOLS_ABSENT=1)")
        pytest.fail(f"{name} is not installed; run scripts/setup.sh")
    return found


def load_module(name: str, path: pathlib.Path):
    """Imports a Python file that is not on sys.path (e.g. another test
    folder's kernels) under `name`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
