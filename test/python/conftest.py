"""Shared pytest configuration for tilelang's Python tests.

Tests marked ``gpu`` run only where torch sees a CUDA device; elsewhere
(CI) they are skipped with the reason shown.
"""

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


def _gpu_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and torch")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def find_tool(name: str) -> str:
    """A console tool installed next to the running interpreter, or on PATH."""
    candidate = pathlib.Path(sys.executable).parent / name
    if candidate.exists():
        return str(candidate)
    found = shutil.which(name)
    if not found:
        pytest.fail(f"{name} is not installed; run scripts/setup.sh")
    return found


@pytest.fixture(scope="session")
def tilelang_opt() -> str:
    return find_tool("tilelang-opt")


@pytest.fixture(scope="session")
def native_library() -> pathlib.Path:
    import tilelang._C as native

    path = pathlib.Path(native.__file__).with_name("libtilelang.so")
    assert path.exists(), f"libtilelang.so is not next to {native.__file__}"
    return path


@pytest.fixture
def clean_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    return env
