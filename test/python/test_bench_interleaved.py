"""bench/run.py's bench_interleaved without a GPU: a group with no function
left to time (every implementation failed before timing, as in a parity
experiment) gives no times instead of dividing by a zero estimate. Skipped
without torch."""

import sys

import pytest

from tilelang_testing import REPO_ROOT

torch = pytest.importorskip("torch")


def test_no_functions_no_times(monkeypatch):
    monkeypatch.syspath_prepend(str(REPO_ROOT / "bench"))
    before = set(sys.modules)
    try:
        import run

        assert run.bench_interleaved({}) == {}
    finally:  # bench/'s modules (run, kernels, report...) stay out of the other tests' way
        for name in set(sys.modules) - before:
            del sys.modules[name]
