"""Several devices without a GPU: the stand-in driver (fakecuda/fake_cuda.c)
pretends to have two identical devices (FAKE_CUDA_DEVICES=2), each with its
own primary context, a per-thread current context, and memory tagged by
device, so that a launch in the wrong context or with another device's
memory is refused and counted. Checked here: a launch runs on its tensors'
device whichever is current (and leaves the caller's context current),
loads the kernel once per device, goes on torch's stream of that device,
refuses tensors of two devices naming them, 8 threads launching on 2
devices each land on the right one, and processes on two devices share one
disk cache entry, also when they publish it at once. Each case runs in a child process (the
runtime opens the driver once per process)."""

import json
import os
import subprocess
import sys

import pytest

from fakecuda import fakecuda

PRELUDE = """
import json, sys, threading
import fakecuda
from fakecuda import Tensor, address_on
import tilelang
import tilelang.language as tl

report = {}

@tilelang.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


def on(device, offset, n=1000):
    return Tensor((n,), "float32", address_on(device, offset))


def error_of(call):
    try:
        call()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None
"""

TWO_DEVICES = {"FAKE_CUDA_DEVICES": "2"}


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


ON_ITS_DEVICE = PRELUDE + """
report["count"] = tilelang._C.device_count()
report["names"] = [tilelang._C.device_info(d)["name"] for d in range(2)]
fakecuda.set_device(0)
# Tensors on device 1 while device 0 is current: the first launch (the
# slow path) and a second one (the C++ fast path).
axpy[(4,)](on(1, 0x1000), on(1, 0x2000), 1000, 2.0, BLOCK=256)
report["first"] = fakecuda.last_launch_device()
axpy[(4,)](on(1, 0x3000), on(1, 0x4000), 1000, 2.0, BLOCK=256)
report["second"] = fakecuda.last_launch_device()
report["current_after"] = fakecuda.current_device()
# The same kernel on device 0's tensors, then on device 1's again.
axpy[(4,)](on(0, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256)
report["third"] = fakecuda.last_launch_device()
axpy[(4,)](on(1, 0x5000), on(1, 0x6000), 1000, 2.0, BLOCK=256)
report["entries"] = len(axpy._dispatcher)
report["launches"] = [fakecuda.launch_count_on(d) for d in range(2)]
report["modules"] = [fakecuda.module_loads_on(d) for d in range(2)]
report["wrong"] = fakecuda.wrong_device_count()
compiled = next(iter(axpy.cache.values()))
report["loaded_on"] = next(iter(compiled._loaded.values())).devices
# Device 1 current, tensors on device 0.
fakecuda.set_device(1)
axpy[(4,)](on(0, 0x7000), on(0, 0x8000), 1000, 2.0, BLOCK=256)
report["from_1"] = [fakecuda.last_launch_device(), fakecuda.current_device()]
# No context current on this thread at all (a thread torch never used).
fakecuda.set_device(-1)
axpy[(4,)](on(1, 0x9000), on(1, 0xA000), 1000, 2.0, BLOCK=256)
report["from_none"] = [fakecuda.last_launch_device(), fakecuda.current_device()]
# Kernel.launch with stream None: the tensors' device too.
fakecuda.set_device(0)
loaded = compiled.launchable("sm_90a")
loaded.launch((1,), None, on(1, 0xB000), on(1, 0xC000), 1000, 2.0)
report["direct"] = fakecuda.last_launch_device()
report["pointer_devices"] = [tilelang._C.pointer_device(address_on(1, 0x10)), tilelang._C.pointer_device(0x1000)]
# Linking and loading for a given device, with device 0 current.
ptx = compiled.asm["ptx"]
cubin, info = tilelang._C.link_kernel(ptx, "axpy", True, 0, 1)
report["link_device"] = fakecuda.last_link_device()
modules_before = fakecuda.module_loads_on(1)
kernel = tilelang._C.Kernel.load_image(cubin, "axpy", 0, 8, "ppif", device=1)
report["load_image"] = [kernel.devices, fakecuda.module_loads_on(1) - modules_before, fakecuda.current_device()]
report["ordinal"] = tilelang._C.device_info(1)["ordinal"]
print(json.dumps(report))
"""


def test_a_launch_runs_on_the_device_of_its_tensors(library):
    report = fakecuda.run_script(library, ON_ITS_DEVICE, env=TWO_DEVICES)
    assert report["count"] == 2 and report["names"] == ["Fake CUDA device"] * 2
    assert report["first"] == 1 and report["second"] == 1 and report["third"] == 0
    assert report["current_after"] == 0  # the caller's context is current again
    assert report["entries"] == 1  # one specialization serves both devices
    assert report["launches"] == [1, 3]
    assert report["wrong"] == 0
    # Loaded once per device: on the current device (0) when first
    # compiled, on device 1 at its first launch there, never again.
    assert report["modules"] == [1, 1]
    assert report["loaded_on"] == [0, 1]
    assert report["from_1"] == [0, 1]
    assert report["from_none"] == [1, -1]
    assert report["direct"] == 1
    assert report["pointer_devices"] == [1, -1]
    assert report["link_device"] == 1
    assert report["load_image"] == [[1], 1, 0]
    assert report["ordinal"] == 1


TWO_MODELS = PRELUDE + """
import os
from tilelang.autotune import core

def timer(fn, quantiles=None):
    fn()
    return 1.0 + fn.config.kwargs["BLOCK"] / 1000

tuned = tilelang.autotune(configs=[tilelang.Config({"BLOCK": b}) for b in (128, 256)], key=["n"],
                          do_bench=timer)(axpy)
tuned.store_path = os.environ["STORE"]
sweeps = core.stats.sweeps
devices = []
for device in (0, 1, 0, 1):
    fakecuda.set_device(device)
    tuned[(4,)](on(device, 0x1000), on(device, 0x2000), 1000, 2.0)
    devices.append(fakecuda.last_launch_device())
report["sweeps"] = core.stats.sweeps - sweeps
report["devices"] = devices
report["several"] = core.several_models()
store = json.load(open(os.environ["STORE"]))
report["stored"] = sorted(entry["device"] for entry in store["entries"].values())
report["wrong"] = fakecuda.wrong_device_count()
print(json.dumps(report))
"""


def test_devices_of_two_models_are_tuned_each(library, tmp_path):
    """Two devices of different models (FAKE_CUDA_NAMES) in one process: a
    key tuned on cuda:0 is tuned again on cuda:1, each model's entry stored
    under its own name (the driver's names, through core.several_models and
    device_properties of the arguments' device), and later launches on each
    take their own model's choice without tuning; every launch runs on its
    tensors' device."""
    report = fakecuda.run_script(library, TWO_MODELS, env=dict(TWO_DEVICES, FAKE_CUDA_NAMES="Fake H200,Fake H100",
                                                                 STORE=str(tmp_path / "autotune.json")))
    assert report["several"] is True and report["sweeps"] == 2
    assert report["stored"] == ["Fake H100", "Fake H200"]
    assert report["devices"] == [0, 1, 0, 1] and report["wrong"] == 0


MIXED = PRELUDE + """
fakecuda.set_device(0)
report["slow"] = error_of(lambda: axpy[(4,)](on(0, 0x1000), on(1, 0x2000), 1000, 2.0, BLOCK=256))
axpy[(4,)](on(0, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256)
report["fast"] = error_of(lambda: axpy[(4,)](on(1, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256))
# An address the driver does not know (host memory, say) says nothing.
axpy[(4,)](Tensor((1000,), "float32", 0x1000), on(1, 0x2000), 1000, 2.0, BLOCK=256)
report["int_and_1"] = fakecuda.last_launch_device()
report["launches"] = [fakecuda.launch_count_on(d) for d in range(2)]
report["wrong"] = fakecuda.wrong_device_count()
print(json.dumps(report))
"""


def test_tensors_on_two_devices_are_refused_naming_them(library):
    report = fakecuda.run_script(library, MIXED, env=TWO_DEVICES)
    message = ("ValueError: the tensors passed to kernel 'axpy' are on different devices ({}); a launch runs on "
               "one device: move them to one (tensor.to(device))")
    assert report["slow"] == message.format("'x_ptr' on cuda:0, 'y_ptr' on cuda:1")
    assert report["fast"] == message.format("'x_ptr' on cuda:1, 'y_ptr' on cuda:0")
    assert report["int_and_1"] == 1
    assert report["launches"] == [1, 1] and report["wrong"] == 0


THREADS = PRELUDE + """
fakecuda.set_device(0)
axpy[(4,)](on(0, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256)  # compiled once, before the threads
errors, after = [], {}
start = threading.Barrier(8)


def work(t):
    device = t % 2
    # Half the threads have the other device current, half none.
    fakecuda.set_device(1 - device if t < 4 else -1)
    start.wait()
    try:
        for i in range(200):
            x, y = on(device, 0x100000 * t + 0x1000 * i), on(device, 0x100000 * t + 0x1000 * i + 0x800)
            axpy[(4,)](x, y, 1000, 2.0, BLOCK=256)
    except Exception as exc:
        errors.append(repr(exc))
    after[t] = fakecuda.current_device()


threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
report["errors"] = errors
report["after"] = [after[t] for t in range(8)]
report["launches"] = [fakecuda.launch_count_on(d) for d in range(2)]
report["modules"] = [fakecuda.module_loads_on(d) for d in range(2)]
report["wrong"] = fakecuda.wrong_device_count()
print(json.dumps(report))
"""


def test_eight_threads_launch_on_two_devices(library):
    report = fakecuda.run_script(library, THREADS, env=TWO_DEVICES)
    assert report["errors"] == []
    assert report["launches"] == [1 + 4 * 200, 4 * 200]
    assert report["wrong"] == 0
    assert report["modules"] == [1, 1]
    # Each thread's current context is what it was before its launches.
    assert report["after"] == [1, 0, 1, 0, -1, -1, -1, -1]


# torch's raw stream query, stubbed: stream 0x5EA0 + device + 1 (device -1
# is torch's current device).
TORCH_STREAMS = PRELUDE + """
import types
torch = types.ModuleType("torch")
torch.__version__ = "0.0+stub"
torch.cuda = types.SimpleNamespace(current_device=lambda: 0)
torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0x5EA0 + device + 1)
sys.modules["torch"] = torch
fakecuda.set_device(0)
axpy[(4,)](on(1, 0x1000), on(1, 0x2000), 1000, 2.0, BLOCK=256)
report["slow"] = fakecuda.last_launch()["stream"]
axpy[(4,)](on(1, 0x1000), on(1, 0x2000), 1000, 2.0, BLOCK=256)
report["fast"] = fakecuda.last_launch()["stream"]
axpy[(4,)](on(0, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256)
report["device_0"] = fakecuda.last_launch()["stream"]
report["query"] = [tilelang._C.current_stream(1), tilelang._C.current_stream()]
print(json.dumps(report))
"""


def test_launches_go_on_torchs_stream_of_their_device(library):
    report = fakecuda.run_script(library, TORCH_STREAMS, env=dict(TWO_DEVICES, TILELANG_TORCH_BRIDGE="0"))
    assert report["slow"] == report["fast"] == 0x5EA2
    assert report["device_0"] == 0x5EA1
    assert report["query"] == [0x5EA2, 0x5EA0]


ONE_DEVICE = PRELUDE + """
report["count"] = tilelang._C.device_count()
axpy[(4,)](on(0, 0x1000), on(0, 0x2000), 1000, 2.0, BLOCK=256)
report["device"] = fakecuda.last_launch_device()
report["unknown_device"] = error_of(lambda: tilelang._C.device_info(1))
print(json.dumps(report))
"""


def test_one_device_needs_no_pointer_queries(library):
    report = fakecuda.run_script(library, ONE_DEVICE)
    assert report["count"] == 1 and report["device"] == 0
    assert report["unknown_device"] == "RuntimeError: there is no CUDA device 1 (the driver sees 1)"


SHARED_CACHE = PRELUDE + """
import os
device = int(os.environ["DEVICE"])
fakecuda.set_device(device)
axpy[(4,)](on(device, 0x1000), on(device, 0x2000), 1000, 2.0, BLOCK=256)
from tilelang import cache
report["stats"] = {"hits": cache.stats.hits, "stores": cache.stats.stores}
report["device"] = fakecuda.last_launch_device()
print(json.dumps(report))
"""


def test_processes_on_two_devices_share_one_cache_entry(library, tmp_path):
    cache = tmp_path / "cache"
    first = fakecuda.run_script(library, SHARED_CACHE, env=dict(TWO_DEVICES, TILELANG_CACHE_DIR=str(cache),
                                                                DEVICE="0"))
    second = fakecuda.run_script(library, SHARED_CACHE, env=dict(TWO_DEVICES, TILELANG_CACHE_DIR=str(cache),
                                                                 DEVICE="1"))
    assert first["device"] == 0 and second["device"] == 1
    assert first["stats"]["stores"] == 1 and second["stats"] == {"hits": 1, "stores": 0}
    entries = [path for path in cache.glob("??/*") if path.is_dir()]
    assert len(entries) == 1


# Two processes, one per device, compiling the same kernel into one cache at
# once (each waits for `GO` to appear, then launches).
RACE = SHARED_CACHE.replace("fakecuda.set_device(device)\n", """fakecuda.set_device(device)
import pathlib, time
while not pathlib.Path(os.environ["GO"]).exists():
    time.sleep(0.005)
""")


def test_processes_on_two_devices_publish_one_cache_entry_at_once(library, tmp_path):
    cache, go, script = tmp_path / "cache", tmp_path / "go", tmp_path / "child.py"
    script.write_text(RACE)
    env = dict(os.environ, TILELANG_CACHE_DIR=str(cache), TILELANG_LIBCUDA=str(library), GO=str(go),
               TILELANG_PTXAS=str(fakecuda.FAKE_PTXAS),
               PYTHONPATH=os.pathsep.join([str(fakecuda.HERE), str(fakecuda.HERE.parent)]), **TWO_DEVICES)
    children = [subprocess.Popen([sys.executable, str(script)], env=dict(env, DEVICE=str(device)),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for device in (0, 1)]
    go.write_text("go")
    reports = []
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
        reports.append(json.loads(out.strip().splitlines()[-1]))
    assert [r["device"] for r in reports] == [0, 1]
    # One entry: the first rename won, the other process discarded its own.
    assert len([path for path in cache.glob("??/*") if path.is_dir()]) == 1
    assert not list(cache.glob("??/.tmp-*")) and not list(cache.glob("??/*.discard-*"))
    # And it is whole: a third process, on device 1, launches from it.
    third = fakecuda.run_script(library, SHARED_CACHE, env=dict(TWO_DEVICES, TILELANG_CACHE_DIR=str(cache),
                                                                DEVICE="1"))
    assert third["device"] == 1 and third["stats"] == {"hits": 1, "stores": 0}
