"""Shared pytest configuration for tilelang's Python tests.

Tests marked ``gpu`` run only where torch sees a CUDA device; elsewhere
(CI) they are skipped with the reason shown. Helpers live in
tilelang_testing.py.
"""

import os
import pathlib
import shutil

import pytest

from tilelang_testing import find_tool


def _gpu_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


# The kernel cache this session made (None when the caller chose one): a
# full run writes a few hundred MB there, removed when the session ends.
_session_cache_dir = None


def pytest_configure(config):
    # Kernels compiled by the tests go to a cache of their own, never to the
    # user's ~/.cache/tilelang.
    global _session_cache_dir
    if "TILELANG_CACHE_DIR" not in os.environ:
        import tempfile

        _session_cache_dir = tempfile.mkdtemp(prefix="tilelang-test-cache-")
        os.environ["TILELANG_CACHE_DIR"] = _session_cache_dir


def pytest_unconfigure(config):
    if _session_cache_dir is not None:
        shutil.rmtree(_session_cache_dir, ignore_errors=True)


def pytest_report_header(config):
    # Which tilelang runs: the source tree's, or an installed distribution's
    # (scripts/gpu_host.sh pip-install runs the suite against the latter).
    import tilelang

    return f"tilelang {tilelang.__version__} from {tilelang.__file__}"


def pytest_collection_modifyitems(config, items):
    if _gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and torch")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


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
