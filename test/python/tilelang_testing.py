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


def define_under_test(define, env_var: str):
    """Binds kernels written once for both compilers (`define(jit, tl)`) to
    the one environment variable `env_var` names: "tilelang" (the default)
    or "triton", which runs the same tests under Triton to check the tests
    themselves or to tell a tilelang bug from a test bug. Returns (that
    name, the kernels); skips the module where Triton is missing."""
    compiler = os.environ.get(env_var, "tilelang")
    if compiler == "triton":
        triton = pytest.importorskip("triton")
        return compiler, define(triton.jit, triton.language)
    if compiler == "tilelang":
        import tilelang
        import tilelang.language as tl

        return compiler, define(tilelang.jit, tl)
    raise ValueError(f"{env_var} must be tilelang or triton, not {compiler!r}")


_ELEMENT_SIZES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1, "int16": 2, "int32": 4,
                  "int64": 8}


class FakeTensor:
    """What the launcher and specialization read of a torch tensor (data_ptr,
    dtype by name, is_cuda, shape, stride(), element_size()), without torch.
    `data_ptr` is a bound builtin: no Python frame per call, as with torch."""

    def __init__(self, shape, dtype="float16", address=0x7F0000000000, strides=None, is_cuda=True):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.is_cuda = is_cuda
        self.address = address
        self.data_ptr = int(address).__int__
        if strides is None:
            strides, step = [], 1
            for extent in reversed(self.shape):
                strides.insert(0, step)
                step *= extent
        self._strides = tuple(strides)

    def element_size(self):
        return _ELEMENT_SIZES[self.dtype]

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]


def fake_pointer(dtype, address, is_cuda=True):
    """A one-element FakeTensor: what a test of keys or specialization needs
    of a pointer argument (its dtype, address and device)."""
    return FakeTensor((1,), dtype, address, is_cuda=is_cuda)
