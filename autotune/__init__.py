"""Tuning spaces of the bundled kernels (bench/kernels.py). The autotuner
itself is tilelang.autotune (python/tilelang/autotune); these are the
config lists it sweeps, kept apart from the kernels so that the benchmark,
the tests and users share one definition."""
