"""Where the host time of `kernel[(1,)](x, y, 64, BLOCK=64)` goes.

  python bench/launch_breakdown.py [--launches 20000]

Times, per call, each piece of tilelang's launch path on its own (medians
of several loops): the Python loop and `kernel[grid]`, the torch calls the
launcher makes (data_ptr, dtype, is_cuda, the current stream), the
pre-bound fast path, the full launch with the torch bridge on and off
(docs/runtime.md), the pybind11 `Kernel.launch`, the C++ loop of
cuLaunchKernel alone (on the default stream and on a created one), and
Triton's launch when it is importable. A measurement, not a test.

The last rows launch only `--short` times (below the driver's launch queue
depth) and read the clock before ("submit") and after ("complete") a final
synchronize: "submit" is then the host's cost per launch, and a "complete"
well above it means the GPU, not the host, sets the pace.
"""

import argparse
import statistics
import sys
import time
import pathlib

import torch

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import kernels as bench_kernels  # noqa: E402

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402
from tilelang.jit import _current_arch  # noqa: E402


def per_call_us(fn, launches, repeats=5, sync=False):
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        fn(launches)
        if sync:
            torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / launches * 1e6)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--short", type=int, default=500,
                        help="launches per loop of the submit/complete rows (default: 500)")
    args = parser.parse_args()
    n, short = args.launches, args.short
    kernel = bench_kernels.define(tilelang.jit, tl)["tiny"]
    x = torch.randn(64, device="cuda")
    y = torch.empty_like(x)
    compiled = kernel[(1,)](x, y, 64, BLOCK=64)
    loaded = compiled.launchable(_current_arch())
    stream = torch.cuda.current_stream().cuda_stream
    get_device, get_stream = torch._C._cuda_getDevice, torch._C._cuda_getCurrentRawStream
    launcher = kernel[(1,)]

    def python_loop(count):
        for _ in range(count):
            pass

    def getitem(count):
        for _ in range(count):
            kernel[(1,)]

    def tensor_attributes(count):
        for _ in range(count):
            x.data_ptr(), x.dtype, x.is_cuda, y.data_ptr(), y.dtype, y.is_cuda

    def torch_stream(count):
        for _ in range(count):
            get_stream(get_device())

    def prebound(count):
        for _ in range(count):
            launcher(x, y, 64, BLOCK=64)

    def full(count):
        for _ in range(count):
            kernel[(1,)](x, y, 64, BLOCK=64)

    def full_without_bridge(count):
        was = tilelang._C.set_torch_bridge(False)
        try:
            full(count)
        finally:
            tilelang._C.set_torch_bridge(was)

    def pybind_launch(count):
        for _ in range(count):
            loaded.launch((1,), stream, x, y, 64)

    def cpp_loop(count):
        loaded.time_launches((1,), stream, count, x, y, 64)

    def cpp_loop_gil(count):
        loaded.time_launches((1,), stream, count, x, y, 64, release_gil_each=True)

    def no_stream_query(count):
        for _ in range(count):
            torch._C._cuda_getCurrentRawStream(-1)

    side = torch.cuda.Stream()

    def cpp_loop_side(count):
        loaded.time_launches((1,), side.cuda_stream, count, x, y, 64)

    def full_side(count):
        with torch.cuda.stream(side):
            for _ in range(count):
                kernel[(1,)](x, y, 64, BLOCK=64)

    rows = [
        ("empty Python loop", python_loop, False),
        ("kernel[(1,)] (no call)", getitem, False),
        ("x/y .data_ptr() .dtype .is_cuda", tensor_attributes, False),
        ("torch current raw stream", torch_stream, False),
        ("torch current raw stream (-1)", no_stream_query, False),
        ("C++ loop of cuLaunchKernel", cpp_loop, False),
        ("C++ loop, GIL released around each launch", cpp_loop_gil, False),
        ("Kernel.launch (pybind11, stream given)", pybind_launch, False),
        ("launcher(...) with kernel[(1,)] bound once", prebound, False),
        ("kernel[(1,)](...)", full, False),
        ("kernel[(1,)](...), torch bridge off", full_without_bridge, False),
        ("kernel[(1,)](...) again", full, False),
        ("kernel[(1,)](...), synchronized at the end", full, True),
        ("C++ loop of cuLaunchKernel, a created stream", cpp_loop_side, False),
        ("kernel[(1,)](...) on a created stream", full_side, False),
    ]
    for label, sync in (("submit", False), ("complete", True)):
        rows += [(f"C++ loop of cuLaunchKernel, {short} ({label})", cpp_loop, sync, short),
                 (f"kernel[(1,)](...), {short} ({label})", full, sync, short)]
    try:
        import triton
        import triton.language as ttl
    except ImportError:
        triton = None
    if triton is not None:
        triton_kernel = bench_kernels.define(triton.jit, ttl)["tiny"]
        triton_kernel[(1,)](x, y, 64, BLOCK=64)

        def triton_full(count):
            for _ in range(count):
                triton_kernel[(1,)](x, y, 64, BLOCK=64)

        rows += [(f"Triton kernel[(1,)](...), {short} ({label})", triton_full, sync, short)
                 for label, sync in (("submit", False), ("complete", True))]
    print(f"{torch.cuda.get_device_name()}, {n} calls per loop unless given, median of 5 loops; "
          f"torch bridge: {tilelang._C.torch_bridge_status()}")
    for row in rows:
        name, fn, sync = row[:3]
        count = row[3] if len(row) > 3 else n
        print(f"  {name:<45} {per_call_us(fn, count, sync=sync):8.3f} us")


if __name__ == "__main__":
    main()
