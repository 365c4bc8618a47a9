"""Several GPUs of one host (issue 25's acceptance): kernels launch on their
tensors' device whichever device is current, on torch's stream there;
tensors of two devices are refused; 8 threads launching on 2 devices get
correct results; and the 17-config 4096^3 matmul sweep is timed on one GPU
and on all of them (both times and winners printed, for the note). Skipped
with fewer than 2 GPUs.

The rest of the GPU suite runs with its tensors on the last GPU while device
0 stays current with TILELANG_TEST_DEVICE=last (test/python/gpu/conftest.py):

  TILELANG_TEST_DEVICE=last python -m pytest test/python/gpu -q
"""

import json
import os
import pathlib
import subprocess
import sys
import threading

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import tilelang  # noqa: E402
import tilelang.language as tl  # noqa: E402
from tilelang_testing import REPO_ROOT  # noqa: E402

if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
    pytest.skip("needs 2 or more GPUs", allow_module_level=True)

LAST = torch.cuda.device_count() - 1


@tilelang.jit
def axpy(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * alpha + y, mask=m)


def run_axpy(device, n=100_003, alpha=1.5, generator=None):
    """axpy on `device`, checked against float64; returns the output."""
    x = torch.randn(n, device=device, generator=generator)
    y = torch.randn(n, device=device, generator=generator)
    out = torch.full_like(x, float("nan"))
    axpy[(triton_cdiv(n, 1024),)](x, y, out, n, alpha, BLOCK=1024)
    ref = x.double() * alpha + y.double()
    torch.cuda.synchronize(out.device)
    assert (out.double() - ref).abs().max().item() < 1e-5
    return out


def triton_cdiv(a, b):
    return (a + b - 1) // b


@pytest.fixture(autouse=True)
def device_zero_current():
    previous = torch.cuda.current_device()
    torch.cuda.set_device(0)
    yield
    torch.cuda.set_device(previous)


def test_launch_on_the_last_gpu_while_device_zero_is_current():
    run_axpy(f"cuda:{LAST}")
    assert torch.cuda.current_device() == 0
    # The fast path, and back on device 0.
    run_axpy(f"cuda:{LAST}", n=5000)
    run_axpy("cuda:0", n=77_777)
    loaded = next(iter(next(iter(axpy.cache.values()))._loaded.values()))
    assert 0 in loaded.devices and LAST in loaded.devices


def test_launches_go_on_the_current_stream_of_the_tensors_device():
    device = torch.device("cuda", LAST)
    side = torch.cuda.Stream(device=device)
    previous = torch.cuda.current_stream(device)
    n = 1 << 24
    torch.cuda.set_stream(side)
    try:
        # Large inputs made on the side stream: a kernel on any other stream
        # could read them before they are written.
        x = torch.randn(n, device=device)
        y = torch.randn(n, device=device)
        out = torch.empty_like(x)
        torch.cuda.set_device(0)  # device 0 current; the side stream is device LAST's current one
        assert torch.cuda.current_stream(device) == side
        axpy[(triton_cdiv(n, 1024),)](x, y, out, n, 2.0, BLOCK=1024)
        side.synchronize()
    finally:
        torch.cuda.set_stream(previous)
        torch.cuda.set_device(0)
    ref = x.double() * 2.0 + y.double()
    assert (out.double() - ref).abs().max().item() < 1e-5


def test_tensors_on_two_devices_are_refused():
    x = torch.randn(1000, device="cuda:0")
    y = torch.randn(1000, device=f"cuda:{LAST}")
    out = torch.empty(1000, device="cuda:0")
    with pytest.raises(ValueError, match=rf"'x_ptr' on cuda:0, 'y_ptr' on cuda:{LAST}, 'out_ptr' on cuda:0"):
        axpy[(1,)](x, y, out, 1000, 1.0, BLOCK=1024)


def test_eight_threads_on_two_devices():
    # Both specializations the threads need (n a multiple of 16 or not)
    # compiled first: the threads launch, and load the kernel on the last
    # device, concurrently.
    run_axpy("cuda:0", n=50_000)
    run_axpy("cuda:0", n=50_001)
    errors = []
    start = threading.Barrier(8)

    def work(t):
        device = f"cuda:{0 if t % 2 == 0 else LAST}"
        generator = torch.Generator(device=device)
        generator.manual_seed(t)
        start.wait()
        try:
            for i in range(20):
                run_axpy(device, n=50_000 + 17 * t + i, generator=generator)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(f"thread {t}: {exc!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_a_parallel_sweep_copies_arguments_with_their_layout():
    from tilelang.autotune import core

    view = torch.randn(1000, device="cuda:0")[3::4]  # an offset and a stride
    transposed = torch.randn(64, 48, device="cuda:0").t()
    tuner = core.Autotuner(axpy, [tilelang.Config({"BLOCK": 256})], key=["n"])
    (view_copy, transposed_copy), _ = tuner._arguments_on(LAST, (view, transposed), {})
    for original, copy in ((view, view_copy), (transposed, transposed_copy)):
        assert copy.device == torch.device("cuda", LAST)
        assert (copy.size(), copy.stride(), copy.storage_offset()) == \
            (original.size(), original.stride(), original.storage_offset())
        assert torch.equal(copy.cpu(), original.cpu())


def sweep(cache_dir, devices=None):
    command = [sys.executable, str(REPO_ROOT / "bench" / "autotune_matmul.py"), "--size", "4096"]
    if devices:
        command += ["--devices", devices]
    done = subprocess.run(command, capture_output=True, text=True, timeout=540,
                          env=dict(os.environ, TILELANG_CACHE_DIR=str(cache_dir)))
    assert done.returncode == 0, done.stderr
    # The store is removed so that the next sweep times every config again;
    # the compiled kernels stay cached, so both timed sweeps start warm.
    (pathlib.Path(cache_dir) / "autotune.json").unlink()
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_matmul_sweep_on_one_gpu_and_on_all(tmp_path):
    sweep(tmp_path)  # compiles every config once
    one = sweep(tmp_path)
    every = sweep(tmp_path, "all")
    assert one["devices"] == [] and len(every["devices"]) >= 2
    assert one["relative_error"] < 1e-2 and every["relative_error"] < 1e-2
    assert one["timed"] == every["timed"] and one["timed"] > 1
    winner_in_serial = one["times_ms"].get(every["best"])
    print(f"\n4096^3 bf16 matmul, {one['configs']} configs: one GPU {one['tuning_seconds']} s, best "
          f"{one['best']} ({min(one['times_ms'].values()):.4f} ms); {len(every['devices'])} GPUs "
          f"{every['tuning_seconds']} s ({every['tuning_seconds'] / one['tuning_seconds']:.2f}x), best "
          f"{every['best']} (timed {winner_in_serial} ms by the one-GPU sweep)")
