"""Tuning spaces of the bundled kernels: spaces.py re-exports
tilelang.ops.spaces (the config lists tilelang.ops and the benchmark sweep).
The autotuner itself is tilelang.autotune (python/tilelang/autotune)."""
