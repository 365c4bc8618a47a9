"""Benchmarks on the GPU: tilelang next to torch and Triton in one run.

  python bench/run.py [--out DIR] [--only layernorm,softmax,launch,matmul,matmul-desc,matmul-fp8,attention|all]
                      [--rep-ms 300]

  layernorm  layernorm forward, fp16, at the anchor shapes of the H100 notes
  softmax    Triton's fused-softmax tutorial kernel (one row per program),
             fp16 and fp32, 4096 rows of 1024 to 12288 columns
  launch     host overhead of launching a 1-block, 3-argument kernel from a
             Python loop (2000 launches)
  matmul     Triton's tutorial matmul (grouped order, fp32 accumulator), fp16
             and bf16, 1024^3 to 8192^3 and 16x8192x8192, in TFLOP/s, next
             to cuBLAS (torch.matmul)
  matmul-desc  the same products through tensor descriptors (bulk tensor
             copies on Hopper, for tilelang and Triton)
  matmul-fp8 the same kernel on fp8 (e4m3) inputs with B K-major and an fp16
             result, 4096^3 and 8192^3, next to cuBLAS through
             torch._scaled_mm (unit scales, fast accumulation: the
             accumulation both compilers' wgmma products use)
  attention  the bundled flash-attention forward (kernels.py's
             attention_fwd_kernel), fp16 and bf16, B4 H32 N4096 at head
             dimensions 64 and 128, causal and full, and B2 H16 N16384 D128
             full, in TFLOP/s; each compiler runs its best config of
             autotune/spaces.py's ATTENTION (tuned by its own autotuner
             once per shape), next to torch's scaled_dot_product_attention
             on its flash and cuDNN backends

Every tilelang result is checked against a float64 torch reference before it
is timed. The implementations of a row are timed in alternation (see
bench_interleaved), so that the GPU's clock drift does not decide a
comparison; the median is reported, and results.json keeps the quartiles.
Writes results.json, results.md and (with matplotlib) results.png to DIR
(default build/bench), printing progress as it goes and the markdown table
at the end. Exits with 1 when a measurement failed (the others are
still written). Benchmarks are measurements, not tests: nothing here asserts
a speed.
"""

import argparse
import datetime
import pathlib
import statistics
import sys
import time
import traceback

import torch

import tilelang
import tilelang.language as tl

import kernels as bench_kernels
import report

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from autotune import spaces  # noqa: E402

try:
    import triton
    import triton.language as ttl
except ImportError:  # Triton is optional
    triton = None

LAYERNORM_SHAPES = [(4096, 1024), (4096, 4096), (16384, 8192), (8192, 12288)]
SOFTMAX_SHAPES = [(4096, 1024), (4096, 4096), (4096, 8192), (4096, 12288)]
SOFTMAX_DTYPES = [torch.float16, torch.float32]
# (M, N, K): cubes, and a skinny product (16 rows: bound by reading B).
MATMUL_SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192),
                 (16, 8192, 8192)]
MATMUL_DTYPES = [torch.float16, torch.bfloat16]
MATMUL_FP8_SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192)]
# Triton's matmul tutorial's first config for fp8 inputs, for both compilers.
MATMUL_FP8_CONFIG = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 8,
                     "num_warps": 8, "num_stages": 3}
# (B, H, N_CTX, HEAD_DIM, causal): the shapes of issue 19's measurements.
ATTENTION_SHAPES = [(4, 32, 4096, 64, False), (4, 32, 4096, 64, True), (4, 32, 4096, 128, False),
                    (4, 32, 4096, 128, True), (2, 16, 16384, 128, False)]
ATTENTION_DTYPES = [torch.float16, torch.bfloat16]
DTYPE_NAMES = {torch.float16: "fp16", torch.bfloat16: "bf16", torch.float32: "fp32"}


def log(message):
    print(message, flush=True)


def bench_interleaved(fns, warmup_ms=25, rep_ms=300, max_repetitions=2000):
    """Milliseconds of each of `fns` (name -> callable), timed in alternation:
    repetition i runs every function once, starting one further along each
    time (A B C, B C A, ...), each after an L2 flush and between CUDA
    events. On this host the GPU's clocks drift by several percent while a
    large product runs (power and heat); timing one implementation after
    the other hands the drift to whichever runs later, alternating shares
    it. Returns name -> list of times; about `rep_ms` of work in all per
    function (none for no functions: a group whose every implementation
    failed before timing)."""
    if not fns:
        return {}
    flush = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
    names = list(fns)
    estimate = 0.0
    for name in names:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(3):
            fns[name]()
        end.record()
        torch.cuda.synchronize()
        estimate += max(start.elapsed_time(end) / 3, 1e-3)
    for _ in range(max(1, int(warmup_ms / estimate))):
        for name in names:
            fns[name]()
    repetitions = min(max_repetitions, max(10, int(rep_ms / estimate * len(names))))
    # Each function starts a round equally often.
    repetitions += -repetitions % len(names)
    events = {name: [] for name in names}
    for index in range(repetitions):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fns[name]()
            end.record()
            events[name].append((start, end))
    torch.cuda.synchronize()
    return {name: [start.elapsed_time(end) for start, end in pairs] for name, pairs in events.items()}


def _error_text(exc):
    text = f"{type(exc).__name__}: {exc}".strip()
    return text.splitlines()[0] if text else type(exc).__name__


class Run:
    """Rows and errors of one run, with the progress printing."""

    def __init__(self, rep_ms=300):
        self.rows = []
        self.errors = []
        self.rep_ms = rep_ms

    def fail(self, kernel, shape, impl, exc):
        traceback.print_exc()
        self.errors.append({"kernel": kernel, "shape": shape, "impl": impl, "error": _error_text(exc)})
        log(f"    {shape:<16} {impl:<9} FAILED: {_error_text(exc)}")

    def bandwidth(self, kernel, shape, impls, bytes_moved, check):
        """Times each implementation; tilelang's output goes through `check`
        (which raises when it is wrong) after its first run and before it is
        timed. GB/s counts `bytes_moved` per call."""
        self.measure(kernel, shape, impls, check, "GB/s", lambda ms: bytes_moved / ms / 1e6)

    def throughput(self, kernel, shape, impls, flops, check):
        """As bandwidth, in TFLOP/s: `flops` floating-point operations per call."""
        self.measure(kernel, shape, impls, check, "TFLOP/s", lambda ms: flops / ms / 1e9)

    def measure(self, kernel, shape, impls, check, unit, rate):
        """Times the implementations together (tilelang's output checked
        first): see bench_interleaved. The row has the median ms, `unit`:
        rate(ms), and the quartiles of the ms."""
        ready = {}
        for name, fn in impls.items():
            try:
                fn()
                torch.cuda.synchronize()
                if name == "tilelang":
                    check()
                ready[name] = fn
            except Exception as exc:  # noqa: BLE001 - recorded, the run goes on
                self.fail(kernel, shape, name, exc)
        if not ready:
            return
        try:
            samples = bench_interleaved(ready, rep_ms=self.rep_ms)
        except Exception as exc:  # noqa: BLE001
            for name in ready:
                self.fail(kernel, shape, name, exc)
            return
        for name, times in samples.items():
            quartiles = statistics.quantiles(times, n=4) if len(times) > 1 else [times[0]] * 3
            ms = quartiles[1]
            row = {"kernel": kernel, "shape": shape, "impl": name, "ms": round(ms, 4), unit: round(rate(ms), 1),
                   "quartiles_ms": [round(value, 4) for value in quartiles], "repetitions": len(times)}
            self.rows.append(row)
            log(f"    {shape:<16} {name:<9} {row['ms']:>9.4f} ms {row[unit]:>8.1f} {unit}"
                f"  (quartiles {quartiles[0]:.4f}-{quartiles[2]:.4f} ms, {len(times)} runs)")


def layernorm(run, tl_kernels, tt_kernels):
    """Layernorm forward (fp16): one program per row, walking the row in
    blocks of at most 64 KB. GB/s counts one read of x and one write of y."""
    for m, n in LAYERNORM_SHAPES:
        shape = f"{m}x{n} fp16"
        try:
            x, w, b, y, mean, rstd = bench_kernels.layernorm_inputs(torch, m, n)
            block = min(65536 // x.element_size(), tilelang.next_power_of_2(n))
            warps = min(max(block // 256, 1), 8)
            ref = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
        except Exception as exc:  # noqa: BLE001
            run.fail("layernorm", shape, "setup", exc)
            continue

        def check():
            error = (y.double() - ref).abs().max().item()
            if not error < 3e-2:
                raise AssertionError(f"tilelang layernorm {shape} is wrong: max error {error}")

        impls = {"tilelang": lambda: tl_kernels["layer_norm_fwd"][(m,)](
                     x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block, num_warps=warps),
                 "torch": lambda: torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)}
        if tt_kernels is not None:
            impls["triton"] = lambda: tt_kernels["layer_norm_fwd"][(m,)](
                x, y, w, b, mean, rstd, x.stride(0), n, 1e-5, BLOCK_SIZE=block, num_warps=warps)
        run.bandwidth("layernorm", shape, impls, 2 * m * n * x.element_size(), check)
        del x, y, ref


def softmax_warps(block):
    """num_warps as Triton's fused-softmax tutorial picks it."""
    return 16 if block >= 4096 else 8 if block >= 2048 else 4


def softmax(run, tl_kernels, tt_kernels):
    """Fused softmax over the rows: one program per row, the whole row in
    registers. GB/s counts one read of x and one write of y."""
    for dtype in SOFTMAX_DTYPES:
        for m, n in SOFTMAX_SHAPES:
            shape = f"{m}x{n} {DTYPE_NAMES[dtype]}"
            try:
                x = torch.randn(m, n, device="cuda", dtype=dtype)
                y = torch.full_like(x, float("nan"))
                block = tilelang.next_power_of_2(n)
                warps = softmax_warps(block)
                ref = torch.softmax(x.double(), dim=1)
            except Exception as exc:  # noqa: BLE001
                run.fail("softmax", shape, "setup", exc)
                continue
            tolerance = 1e-3 if dtype == torch.float16 else 1e-5

            def check():
                error = (y.double() - ref).abs().max().item()
                if not error < tolerance:
                    raise AssertionError(f"tilelang softmax {shape} is wrong: max error {error} "
                                         f"(tolerance {tolerance})")

            impls = {"tilelang": lambda: tl_kernels["softmax"][(m,)](
                         y, x, x.stride(0), y.stride(0), n, BLOCK_SIZE=block, num_warps=warps),
                     "torch": lambda: torch.softmax(x, dim=1)}
            if tt_kernels is not None:
                impls["triton"] = lambda: tt_kernels["softmax"][(m,)](
                    y, x, x.stride(0), y.stride(0), n, BLOCK_SIZE=block, num_warps=warps)
            run.bandwidth("softmax", shape, impls, 2 * m * n * x.element_size(), check)
            del x, y, ref


def launch(run, tl_kernels, tt_kernels, launches=2000, repeats=7):
    """Host overhead of `kernel[(1,)](x, y, 64, BLOCK=64)` in a Python loop:
    wall time of `launches` launches and one synchronize, per launch; the
    median of `repeats` such loops (the host is shared and noisy). Also, for
    tilelang, the floor under it: the same kernel launched `launches` times
    by a C++ loop (`Kernel.time_launches`, arguments packed once)."""
    shape = "1 block, 3 args"
    x = torch.randn(64, device="cuda")
    y = torch.empty_like(x)
    impls = {"tilelang": tl_kernels["tiny"]}
    if tt_kernels is not None:
        impls["triton"] = tt_kernels["tiny"]

    def median_us(loop):
        samples = []
        for _ in range(repeats):
            torch.cuda.synchronize()
            start = time.perf_counter()
            loop()
            torch.cuda.synchronize()
            samples.append((time.perf_counter() - start) / launches * 1e6)
        return statistics.median(samples)

    for name, kernel in impls.items():
        try:
            for _ in range(3):
                kernel[(1,)](x, y, 64, BLOCK=64)

            def loop():
                for _ in range(launches):
                    kernel[(1,)](x, y, 64, BLOCK=64)

            us = median_us(loop)
        except Exception as exc:  # noqa: BLE001
            run.fail("launch", shape, name, exc)
            continue
        run.rows.append({"kernel": "launch", "shape": shape, "impl": name, "us": round(us, 2)})
        log(f"    {shape:<16} {name:<9} {us:>9.2f} us per launch")
    try:
        from tilelang.jit import _current_arch

        compiled = tl_kernels["tiny"][(1,)](x, y, 64, BLOCK=64)
        loaded = compiled.launchable(_current_arch())
        stream = torch.cuda.current_stream().cuda_stream
        floor = statistics.median(loaded.time_launches((1,), stream, launches, x, y, 64) / launches * 1e6
                                  for _ in range(repeats))
        torch.cuda.synchronize()
        run.rows.append({"kernel": "launch", "shape": "C++ loop of cuLaunchKernel (floor)", "impl": "tilelang",
                         "us": round(floor, 2)})
        log(f"    {'C++ loop (floor)':<16} {'tilelang':<9} {floor:>9.2f} us per launch")
    except Exception as exc:  # noqa: BLE001
        run.fail("launch", "C++ loop of cuLaunchKernel (floor)", "tilelang", exc)


def matmul_config(m, n, k):
    """The config each matmul shape runs with: one fixed, reasonable choice
    per shape until the autotuner picks them (it will replace this function;
    a tilelang.Config or triton.Config may stand in for the dict, see
    bench/kernels.py's matmul_launch_options). Shared by tilelang and Triton."""
    if m <= 16:  # skinny: bound by reading B; many narrow tiles keep the SMs busy
        return {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1,
                "num_warps": 4, "num_stages": 4}
    if max(m, n) <= 1024:  # 64 tiles of 128x128: smaller tiles than below fill more SMs
        return {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
                "num_warps": 4, "num_stages": 3}
    # Measured with bench/matmul_sweep.py on the H100 (bf16, 4096^3 and
    # 8192^3, wgmma kept in flight across iterations): 128x256x64, 8 warps,
    # 4 stages was best for tilelang and for Triton.
    return {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
            "num_warps": 8, "num_stages": 4}


def matmul_error_bound(a, b, ref):
    """Elementwise bound on |C - ref| for C = A @ B (fp16/bf16) computed with
    an fp32 accumulator and stored in A's type: the accumulation of K exact
    products, (K + 2) * 2^-22 * (|A| @ |B|) (twice the truncation bound), plus
    the rounding to the output type, u * |ref|."""
    u_out = {torch.float16: 2.0**-11, torch.bfloat16: 2.0**-8}[a.dtype]
    k = a.shape[1]
    accumulation = (k + 2) * 2.0**-22 * (a.double().abs() @ b.double().abs())
    return u_out * ref.abs() + (1 + u_out) * accumulation + 2.0**-24


def matmul_products(run, name, tilelang_matmul, triton_matmul):
    """Times C = A @ B at every matmul shape: `tilelang_matmul(a, b, config,
    out)` and `triton_matmul` (None: skipped) with matmul_config's config,
    next to cuBLAS through torch.matmul; rows go under `name`. TFLOP/s counts
    2 M N K per call."""
    for dtype in MATMUL_DTYPES:
        for m, n, k in MATMUL_SHAPES:
            shape = f"{m}x{n}x{k} {DTYPE_NAMES[dtype]}"
            try:
                a = torch.randn(m, k, device="cuda", dtype=dtype)
                b = torch.randn(k, n, device="cuda", dtype=dtype)
                c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
                c_torch = torch.empty_like(c)
                c_triton = torch.empty_like(c)
                config = matmul_config(m, n, k)
            except Exception as exc:  # noqa: BLE001
                run.fail(name, shape, "setup", exc)
                continue

            def check():
                ref = a.double() @ b.double()
                error = (c.double() - ref).abs()
                bound = matmul_error_bound(a, b, ref)
                if not bool((error <= bound).all()):  # also false for NaN: unwritten elements
                    worst = int((error / bound).nan_to_num(float("inf")).argmax())
                    raise AssertionError(f"tilelang {name} {shape} is wrong: {int((~(error <= bound)).sum())} "
                                         f"elements beyond the error bound; worst: error "
                                         f"{error.flatten()[worst].item():.3g}, bound {bound.flatten()[worst].item():.3g}")

            impls = {"tilelang": lambda: tilelang_matmul(a, b, config, c),
                     "torch": lambda: torch.matmul(a, b, out=c_torch)}
            if triton_matmul is not None:
                impls["triton"] = lambda: triton_matmul(a, b, config, c_triton)
            run.throughput(name, shape, impls, 2.0 * m * n * k, check)
            del a, b, c, c_torch, c_triton


def matmul(run, tl_kernels, tt_kernels):
    """C = A @ B with bench/kernels.py's matmul_kernel (the same source under
    tilelang and Triton, with the same config), next to cuBLAS."""
    def with_kernel(kernels):
        return lambda a, b, config, out: bench_kernels.matmul(a, b, kernels["matmul_kernel"], config, out=out)

    matmul_products(run, "matmul", with_kernel(tl_kernels), with_kernel(tt_kernels) if tt_kernels else None)


def matmul_descriptors(run, tl_kernels, tt_kernels):
    """As matmul, with bench/kernels.py's matmul_descriptor_kernel: blocks
    through tensor descriptors (tilelang's TensorDescriptor, Triton's for
    Triton), which both compilers copy with the bulk tensor copy engine (TMA)
    on Hopper."""
    def with_kernel(kernels, descriptor_class):
        return lambda a, b, config, out: bench_kernels.matmul_with_descriptors(
            a, b, kernels["matmul_descriptor_kernel"], descriptor_class, config, out=out)

    triton_matmul = None
    if tt_kernels is not None:
        try:
            import triton
            from triton.tools.tensor_descriptor import TensorDescriptor as triton_descriptor
            triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
            triton_matmul = with_kernel(tt_kernels, triton_descriptor)
        except (ImportError, AttributeError) as exc:
            log(f"  Triton without host tensor descriptors ({exc}): tilelang and torch only")
    matmul_products(run, "matmul-desc", with_kernel(tl_kernels, tilelang.TensorDescriptor), triton_matmul)


def matmul_fp8(run, tl_kernels, tt_kernels):
    """C (fp16) = A @ B on e4m3 inputs with bench/kernels.py's matmul_kernel
    (B is the transpose of a contiguous N x K tensor, as fp8 wgmma reads it),
    next to cuBLAS through torch._scaled_mm. Checked against the float64
    product of the fp8 values, within the fp8 products' accumulation error
    (about 14 bits kept per 32-deep step) and the rounding to fp16."""
    def with_kernel(kernels):
        return lambda a, b, out: bench_kernels.matmul(a, b, kernels["matmul_kernel"], MATMUL_FP8_CONFIG, out=out)

    tilelang_matmul = with_kernel(tl_kernels)
    triton_matmul = with_kernel(tt_kernels) if tt_kernels else None
    for m, n, k in MATMUL_FP8_SHAPES:
        shape = f"{m}x{n}x{k} e4m3"
        try:
            a = torch.randn(m, k, device="cuda", dtype=torch.float16).to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device="cuda", dtype=torch.float16).to(torch.float8_e4m3fn).T
            c = torch.full((m, n), float("nan"), device="cuda", dtype=torch.float16)
            c_triton = torch.empty_like(c)
            one = torch.ones((), device="cuda", dtype=torch.float32)
        except Exception as exc:  # noqa: BLE001
            run.fail("matmul-fp8", shape, "setup", exc)
            continue

        def check():
            ref = a.double() @ b.double()
            error = (c.double() - ref).abs()
            bound = ((k // 32 + 2) * 2.0**-13 * (a.double().abs() @ b.double().abs())
                     + 2.0**-11 * ref.abs() + 2.0**-24)
            if not bool((error <= bound).all()):  # also false for NaN: unwritten elements
                raise AssertionError(f"tilelang matmul-fp8 {shape} is wrong: {int((~(error <= bound)).sum())} "
                                     "elements beyond the error bound")

        impls = {"tilelang": lambda: tilelang_matmul(a, b, c),
                 "torch": lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.float16,
                                                   use_fast_accum=True)}
        if triton_matmul is not None:
            impls["triton"] = lambda: triton_matmul(a, b, c_triton)
        run.throughput("matmul-fp8", shape, impls, 2.0 * m * n * k, check)
        for row in run.rows:
            if row["kernel"] == "matmul-fp8" and row["shape"] == shape and row["impl"] != "torch":
                row["config"] = ("{BLOCK_SIZE_M}x{BLOCK_SIZE_N}x{BLOCK_SIZE_K} w{num_warps} s{num_stages}"
                                 .format(**MATMUL_FP8_CONFIG))
        del a, b, c, c_triton


def sdpa_backends():
    """name -> a callable(q, k, v, causal, scale) running torch's
    scaled_dot_product_attention on one backend (flash, cuDNN), for the
    backends this torch has; a note instead when it has none."""
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError as exc:
        return {}, f"torch {torch.__version__} has no torch.nn.attention.sdpa_kernel ({exc})"
    backends = {}
    for name, member in (("torch-flash", "FLASH_ATTENTION"), ("torch-cudnn", "CUDNN_ATTENTION")):
        backend = getattr(SDPBackend, member, None)
        if backend is None:
            continue

        def run(q, k, v, causal, scale, backend=backend):
            with sdpa_kernel(backend):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)

        backends[name] = run
    return backends, None


def attention_tuners(tl_kernels, tt_kernels):
    """(tilelang's, Triton's or None) attention_fwd_kernel under its own
    autotuner over spaces.ATTENTION, pruned by spaces.prune_attention."""
    import tilelang

    tuners = [bench_kernels.attention_tuner(
        tl_kernels["attention_fwd_kernel"], tilelang.autotune, tilelang.heuristics, spaces.configs(spaces.ATTENTION),
        spaces.prune_attention, spaces.ATTENTION_KEY, work=spaces.attention_work)]
    if tt_kernels is None:
        return tuners[0], None
    tuners.append(bench_kernels.attention_tuner(
        tt_kernels["attention_fwd_kernel"], triton.autotune, triton.heuristics,
        spaces.configs(spaces.ATTENTION, config_class=triton.Config), spaces.prune_attention, spaces.ATTENTION_KEY))
    return tuners[0], tuners[1]


def tutorial_attention():
    """The flash-attention forward in the form of Triton's tutorial
    (bench/parity/corpus/attention.py) under Triton, or None without
    Triton: issue 19 measures the bundled kernel against it."""
    if triton is None:
        return None
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "parity"))
    import parity  # noqa: E402 - bench/parity, only with Triton

    return parity.load("attention", "triton")


def tutorial_best(tutorial, q, k, v, causal, scale, rep_ms):
    """(fn, config) of the tutorial-form kernel under the fastest of its
    configs (the five a Hopper user tunes over, timed in alternation), or
    (None, None) where it cannot run: full attention needs N_CTX to be a
    multiple of every config's BLOCK_N."""
    if not causal and any(q.shape[2] % config["BLOCK_N"] for config in tutorial.CONFIGS):
        return None, None
    fns = {}
    for index, config in enumerate(tutorial.CONFIGS):
        def fn(config=config):
            return tutorial.attention(q, k, v, causal, scale, config)
        fn()
        fns[index] = fn
    samples = bench_interleaved(fns, rep_ms=rep_ms)
    best = min(samples, key=lambda index: statistics.median(samples[index]))
    return fns[best], tutorial.CONFIGS[best]


def config_label(config):
    options = bench_kernels.attention_launch_options(config)
    return f"{options['BLOCK_M']}x{options['BLOCK_N']} w{options['num_warps']} s{options['num_stages']}"


def attention(run, tl_kernels, tt_kernels):
    """softmax(Q K^T / sqrt(D)) V with bench/kernels.py's attention_fwd_kernel
    (the same source under tilelang and Triton), each compiler with the best
    config its autotuner finds over spaces.ATTENTION for the shape (tuned
    before the timing, on the same inputs), next to torch's SDPA on its
    flash and cuDNN backends. TFLOP/s counts 4 B H N^2 D per call, half of
    it when causal. Rows carry the configs in "config"."""
    torch_backends, note = sdpa_backends()
    if note:
        log(f"  {note}: tilelang and Triton only")
    tl_tuned, tt_tuned = attention_tuners(tl_kernels, tt_kernels)
    tutorial = tutorial_attention()
    for dtype in ATTENTION_DTYPES:
        for batch, heads, n_ctx, head_dim, causal in ATTENTION_SHAPES:
            shape = f"B{batch} H{heads} N{n_ctx} D{head_dim} {'causal' if causal else 'full'} {DTYPE_NAMES[dtype]}"
            try:
                q, k, v = (torch.randn(batch, heads, n_ctx, head_dim, device="cuda", dtype=dtype) for _ in range(3))
                o_tl = torch.full_like(q, float("nan"))
                o_tt = torch.empty_like(q)
                scale = head_dim ** -0.5
            except Exception as exc:  # noqa: BLE001
                run.fail("attention", shape, "setup", exc)
                continue
            configs = {}
            for name, tuned in (("tilelang", tl_tuned), ("triton", tt_tuned)):
                if tuned is None:
                    continue
                try:
                    start = time.perf_counter()
                    _, configs[name] = bench_kernels.attention_tuned(tuned, q, k, v, causal, scale, out=o_tt)
                    torch.cuda.synchronize()
                    log(f"    {shape:<16} {name:<9} tuned in {time.perf_counter() - start:.1f} s: "
                        f"{config_label(configs[name])}")
                except Exception as exc:  # noqa: BLE001
                    run.fail("attention", shape, name, exc)

            def check():
                expected, magnitude, spread = bench_kernels.attention_reference(q, k, v, causal, scale)
                error = (o_tl.double() - expected).abs()
                bound = bench_kernels.attention_error_bound(q, magnitude, spread)
                if not bool((error <= bound).all()):  # also false for NaN: unwritten elements
                    worst = int((error / bound).nan_to_num(float("inf")).argmax())
                    raise AssertionError(f"tilelang attention {shape} is wrong: {int((~(error <= bound)).sum())} "
                                         f"elements beyond the error bound; worst: error "
                                         f"{error.flatten()[worst].item():.3g}, "
                                         f"bound {bound.flatten()[worst].item():.3g}")

            impls = {}
            if "tilelang" in configs:
                impls["tilelang"] = lambda: bench_kernels.attention(
                    q, k, v, causal, scale, tl_kernels["attention_fwd_kernel"], configs["tilelang"], out=o_tl)
            for name, backend in torch_backends.items():
                try:  # a backend may not take this dtype, head dimension or GPU
                    backend(q, k, v, causal, scale)
                    torch.cuda.synchronize()
                except Exception as exc:  # noqa: BLE001
                    log(f"    {shape:<16} {name:<9} not available: {_error_text(exc)}")
                    continue
                impls[name] = lambda backend=backend: backend(q, k, v, causal, scale)
            if "triton" in configs:
                impls["triton"] = lambda: bench_kernels.attention(
                    q, k, v, causal, scale, tt_kernels["attention_fwd_kernel"], configs["triton"], out=o_tt)
            if tutorial is not None:
                try:
                    start = time.perf_counter()
                    fn, config = tutorial_best(tutorial, q, k, v, causal, scale, max(20.0, run.rep_ms / 5))
                    if fn is not None:
                        impls["triton-tutorial"], configs["triton-tutorial"] = fn, config
                        log(f"    {shape:<16} Triton's tutorial form: best of its configs in "
                            f"{time.perf_counter() - start:.1f} s: {config_label(config)}")
                except Exception as exc:  # noqa: BLE001
                    run.fail("attention", shape, "triton-tutorial", exc)
            flops = 4.0 * batch * heads * n_ctx * n_ctx * head_dim / (2 if causal else 1)
            run.throughput("attention", shape, impls, flops, check)
            for row in run.rows:
                if row["kernel"] == "attention" and row["shape"] == shape and row["impl"] in configs:
                    row["config"] = config_label(configs[row["impl"]])
            del q, k, v, o_tl, o_tt


BENCHMARKS = {"layernorm": layernorm, "softmax": softmax, "launch": launch, "matmul": matmul,
              "matmul-desc": matmul_descriptors, "matmul-fp8": matmul_fp8, "attention": attention}
# What a run without --only does: every benchmark.
DEFAULT_BENCHMARKS = ["layernorm", "softmax", "launch", "matmul", "matmul-desc", "matmul-fp8", "attention"]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build/bench"),
                        help="folder for results.json, results.md and results.png (default: build/bench)")
    parser.add_argument("--only", default=",".join(DEFAULT_BENCHMARKS),
                        help=f"comma-separated benchmarks to run, of {','.join(BENCHMARKS)}, or all "
                             f"(default: {','.join(DEFAULT_BENCHMARKS)})")
    parser.add_argument("--rep-ms", type=float, default=300,
                        help="milliseconds of timed repetitions per implementation (default: 300)")
    args = parser.parse_args(argv)
    if args.rep_ms <= 0:
        parser.error("--rep-ms must be positive")
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    if chosen == ["all"]:
        chosen = list(BENCHMARKS)
    unknown = [name for name in chosen if name not in BENCHMARKS]
    if unknown or not chosen:
        parser.error(f"--only takes a comma-separated subset of {','.join(BENCHMARKS)}, or all; got {args.only!r}")
    args.only = [name for name in BENCHMARKS if name in chosen]
    return args


def main(argv=None):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        log("error: no CUDA device visible to torch")
        return 2
    device = torch.cuda.get_device_name()
    versions = {"tilelang": tilelang.compiler_version(), "torch": torch.__version__,
                "triton": triton.__version__ if triton is not None else None}
    log(f"tilelang benchmarks on {device} (torch {torch.__version__}, "
        f"{'Triton ' + triton.__version__ if triton is not None else 'no Triton'}): {', '.join(args.only)}")
    tl_kernels = bench_kernels.define(tilelang.jit, tl)
    tt_kernels = bench_kernels.define(triton.jit, ttl) if triton is not None else None
    run = Run(args.rep_ms)
    total = time.perf_counter()
    for index, name in enumerate(args.only, 1):
        log(f"==> [{index}/{len(args.only)}] {name}")
        start = time.perf_counter()
        try:
            BENCHMARKS[name](run, tl_kernels, tt_kernels)
        except Exception as exc:  # noqa: BLE001 - recorded, the next benchmark runs
            run.fail(name, "(all shapes)", "all", exc)
        log(f"    ({name}: {time.perf_counter() - start:.1f} s)")
    result = {"device": device, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "versions": versions, "only": args.only, "rows": run.rows, "errors": run.errors}
    text, plotted = report.write(result, args.out)
    log(f"==> {len(run.rows)} measurements, {len(run.errors)} failures in {time.perf_counter() - total:.1f} s; "
        f"written to {args.out}/results.json, results.md"
        + (", results.png" if plotted else " (no plot: matplotlib is not importable)"))
    print()
    print(text, end="", flush=True)
    return 1 if run.errors else 0


if __name__ == "__main__":
    sys.exit(main())
