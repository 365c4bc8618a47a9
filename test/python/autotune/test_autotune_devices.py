"""Sweeps spread over several devices, without a GPU: the devices, the
per-thread current device, the arguments' copies and the timer are faked
(the kernels compile to PTX for real). A parallel sweep (``devices=``, or
TILELANG_AUTOTUNE_DEVICES) times each config once, on one of the devices,
in threads pinned to them, with one progress bar; its records and winner
are those of a serial sweep; devices of another model are left out; and
processes on two devices share the store's entry, writing at once."""

import contextlib
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
import types
import warnings

import pytest

import tilelang
from tilelang.autotune import core
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
Config = tilelang.Config

SPACE = [Config({"BLOCK": b}, num_warps=w) for b in (64, 128, 256, 512) for w in (2, 4)]


class DeviceTensor(K.FakeTensor):
    """A FakeTensor that says which device it is on."""

    def __init__(self, shape, device=0, dtype="float32", address=1 << 20):
        super().__init__(shape, dtype, address)
        self.on = device

    def clone(self):
        copy = DeviceTensor(self.shape, self.on, self.dtype, self._address)
        copy.values = list(self.values)
        return copy


class Devices:
    """Fake devices: their models, the current device per thread, and what
    ran where."""

    def __init__(self, models):
        self.models = list(models)
        self.local = threading.local()
        self.timed = []  # (config, device of the thread)
        self.launched = []  # (device of the thread, devices of the arguments)
        self.lock = threading.Lock()

    def current(self):
        return getattr(self.local, "device", 0)

    @contextlib.contextmanager
    def on_device(self, tuner, device):
        previous = self.current()
        self.local.device = device
        try:
            yield
        finally:
            self.local.device = previous

    def arguments_on(self, tuner, device, args, kwargs):
        def move(value):
            if isinstance(value, DeviceTensor) and value.on != device:
                copy = value.clone()
                copy.on = device
                return copy
            return value

        return tuple(move(v) for v in args), {k: move(v) for k, v in kwargs.items()}

    def launch(self, tuner, grid, config, args, kwargs):
        with self.lock:
            self.launched.append((self.current(), sorted({a.on for a in args if isinstance(a, DeviceTensor)})))

    def timer(self, fn, quantiles=None):
        fn()  # one launch, on this thread's device
        # Long enough that every worker gets configs to time.
        time.sleep(0.02)
        with self.lock:
            self.timed.append((str(fn.config), self.current()))
        config = fn.config
        return 1.0 + abs(config.kwargs["BLOCK"] - 256) / 1000 + abs(config.num_warps - 4) / 100


@pytest.fixture
def fake(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILELANG_AUTOTUNE_DEVICES", raising=False)
    devices = Devices(["Fake GPU", "Fake GPU"])
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    monkeypatch.setattr(core, "device_count", lambda: len(devices.models))
    monkeypatch.setattr(core, "device_name", lambda d: devices.models[d])
    monkeypatch.setattr(core, "current_device", devices.current)
    monkeypatch.setattr(core.Autotuner, "_on_device", lambda self, d: devices.on_device(self, d))
    monkeypatch.setattr(core.Autotuner, "_arguments_on", lambda self, d, a, k: devices.arguments_on(self, d, a, k))
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, g, c, a, k: devices.launch(self, g, c, a, k))
    # The devices' models are asked again (and forgotten after the test).
    monkeypatch.setattr(core, "_DEVICE_MODELS", None)
    monkeypatch.setattr(core, "_SEVERAL_MODELS", None)
    return devices


def tune(devices, fake, store, **options):
    kernel = tilelang.autotune(configs=SPACE, key=["n"], do_bench=fake.timer, devices=devices,
                               **options)(K.row_sum)
    kernel.store_path = str(store)
    kernel[(1,)](DeviceTensor([8]), DeviceTensor([1]), 8)
    return kernel


def records(kernel):
    return {r["id"]: (r["status"], r["time_ms"], r["reason"]) for r in kernel.last_sweep["records"]}


def test_a_parallel_sweep_times_each_config_once_and_picks_the_serial_winner(fake, tmp_path):
    serial = tune(None, fake, tmp_path / "serial.json")
    assert serial.last_sweep_devices == []
    assert {device for _, device in fake.timed} == {0}
    fake.timed.clear()
    fake.launched.clear()
    parallel = tune("all", fake, tmp_path / "parallel.json")
    assert parallel.last_sweep_devices == [0, 1]
    # Each config once, and both devices took some.
    assert sorted(config for config, _ in fake.timed) == sorted(str(c) for c in SPACE)
    assert {device for _, device in fake.timed} == {0, 1}
    # Each launch on its thread's device, with the arguments copied there.
    assert fake.launched and all(args == [device] for device, args in fake.launched)
    assert parallel.best_config == serial.best_config == Config({"BLOCK": 256}, num_warps=4)
    assert records(parallel) == records(serial)
    assert parallel.last_sweep["best"] == serial.last_sweep["best"]


def test_the_knob_asks_for_devices_and_bad_values_are_named(fake, tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_AUTOTUNE_DEVICES", "0,1")
    kernel = tune(None, fake, tmp_path / "store.json")
    assert kernel.last_sweep_devices == [0, 1]
    assert {device for _, device in fake.timed} == {0, 1}
    monkeypatch.setenv("TILELANG_AUTOTUNE_DEVICES", "first")
    with pytest.raises(ValueError, match="TILELANG_AUTOTUNE_DEVICES must be 'all' or device ordinals separated "
                                         "by commas, got 'first'"):
        tune(None, fake, tmp_path / "other.json")
    with pytest.raises(ValueError, match=r"there is no CUDA device 5 \(the driver sees 2\)"):
        tune([0, 5], fake, tmp_path / "third.json")
    with pytest.raises(ValueError, match=r"autotune\(devices=...\) must be 'all', None or a list of device "
                                         r"ordinals \(ints >= 0\), got \[-1\]"):
        tilelang.autotune(configs=SPACE, key=["n"], devices=[-1])(K.row_sum)


def test_devices_of_another_model_are_left_out(fake, tmp_path):
    fake.models = ["Fake GPU", "Other GPU", "Fake GPU"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = tune("all", fake, tmp_path / "store.json")
    assert kernel.last_sweep_devices == [0, 2]
    assert {device for _, device in fake.timed} == {0, 2}
    assert any("times on the Fake GPU devices only, not on cuda:1 (Other GPU)" in str(w.message) for w in caught)


class CudaTensor(DeviceTensor):
    """A DeviceTensor that says it is a CUDA tensor on its device, as
    torch's do (is_cuda, device.index): the arguments' device is its."""

    is_cuda = True

    @property
    def device(self):
        return types.SimpleNamespace(index=self.on)


def test_devices_of_two_models_keep_their_own_choices(fake, tmp_path, monkeypatch):
    """In a process whose devices are of two models, a key tuned on one is
    tuned again where the arguments are on the other, whichever device is
    current (the times and the winner of one model need not hold on the
    other; a config may not even fit it), each model's entry in the store
    under its own name, with the properties of the arguments' device; a
    repeated launch on either finds its own model's choice. Before, the
    choices in memory were keyed by the arguments alone, and cuda:1 got
    cuda:0's."""
    fake.models = ["Fake GPU", "Other GPU"]
    asked = []

    def properties(device=None):
        asked.append(device)
        return dict(K.FAKE_DEVICE, name=fake.models[fake.current() if device is None else device])

    monkeypatch.setattr(core, "device_properties", properties)
    store = tmp_path / "store.json"
    kernel = tilelang.autotune(configs=SPACE, key=["n"], do_bench=fake.timer)(K.row_sum)
    kernel.store_path = str(store)
    sweeps = core.stats.sweeps
    for device in (0, 1, 0, 1):  # cuda:0 is current throughout
        kernel[(1,)](CudaTensor([8], device), CudaTensor([1], device), 8)
    assert core.stats.sweeps == sweeps + 2 and asked == [0, 1]
    assert sorted(entry["device"] for entry in json.loads(store.read_text())["entries"].values()) == \
        ["Fake GPU", "Other GPU"]
    assert [devices for _, devices in fake.launched[-2:]] == [[0], [1]]


def test_devices_of_one_model_share_their_choices(fake, tmp_path):
    """Devices of one model (the usual host) share a key's sweep: the
    arguments' device is not looked at."""
    kernel = tilelang.autotune(configs=SPACE, key=["n"], do_bench=fake.timer)(K.row_sum)
    kernel.store_path = str(tmp_path / "store.json")
    sweeps = core.stats.sweeps
    for device in (0, 1):
        kernel[(1,)](CudaTensor([8], device), CudaTensor([1], device), 8)
    assert core.stats.sweeps == sweeps + 1 and core._SEVERAL_MODELS is False


def test_one_progress_bar_covers_the_whole_sweep(fake, tmp_path, monkeypatch):
    bars = []

    class Bar:
        def __init__(self, total, desc):
            self.total, self.n, self.closed = total, 0, False
            bars.append(self)

        def update(self, count=1):
            self.n += count

        def close(self):
            self.closed = True

    monkeypatch.setattr(core, "progress", Bar)
    tune("all", fake, tmp_path / "store.json")
    assert len(bars) == 1 and bars[0].total == bars[0].n == len(SPACE) and bars[0].closed


def test_a_device_that_cannot_be_used_leaves_its_configs_to_the_others(fake, tmp_path, monkeypatch):
    original = fake.on_device

    def on_device(tuner, device):
        if device == 1:
            raise RuntimeError("cuda:1 is busy")
        return original(tuner, device)

    monkeypatch.setattr(core.Autotuner, "_on_device", on_device)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = tune("all", fake, tmp_path / "store.json")
    assert sorted(config for config, _ in fake.timed) == sorted(str(c) for c in SPACE)
    assert {device for _, device in fake.timed} == {0}
    assert kernel.best_config == Config({"BLOCK": 256}, num_warps=4)
    assert any("cuda:1: RuntimeError: cuda:1 is busy" in str(w.message) for w in caught)


# A process "on one device" tuning half of the space (as each GPU of a host
# would, one process each), writing the shared store when `go` appears.
WRITER = """
import json, pathlib, sys, time
import tilelang
from tilelang.autotune import core
from tilelang_testing import load_module

K = load_module("autotune_kernels", sys.argv[1])
store, go, half = sys.argv[2], pathlib.Path(sys.argv[3]), int(sys.argv[4])
core.device_properties = lambda device=None: dict(K.FAKE_DEVICE)
core.Autotuner._launch = lambda self, grid, config, args, kwargs: None
configs = [tilelang.Config({"BLOCK": b}, num_warps=w) for b in (64, 128, 256, 512) for w in (2, 4)][half::2]
kernel = tilelang.autotune(configs=configs, key=["n"], do_bench=K.FakeTimer())(K.row_sum)
kernel.store_path = store
kernel.warmup(K.FakeTensor([8]), K.FakeTensor([1]), 8, BLOCK=64)  # the frontend, before the race
while not go.exists():
    time.sleep(0.01)
kernel[(1,)](K.FakeTensor([8]), K.FakeTensor([1]), 8)
print(json.dumps({"best": str(kernel.best_config)}))
"""


def test_processes_on_two_devices_share_the_stores_entry(tmp_path):
    store, go = tmp_path / "autotune.json", tmp_path / "go"
    environment = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "cache"),
                       PYTHONPATH=os.pathsep.join([str(pathlib.Path(__file__).parent.parent)] +
                                                  [p for p in [os.environ.get("PYTHONPATH")] if p]))
    children = [subprocess.Popen([sys.executable, "-c", WRITER, str(pathlib.Path(__file__).with_name(
        "autotune_kernels.py")), str(store), str(go), str(half)], env=environment, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for half in (0, 1)]
    time.sleep(0.5)
    go.write_text("go")
    for child in children:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err
    entries = json.loads(store.read_text())["entries"]
    # Identical GPUs, one entry: both halves' records, merged under the lock.
    assert len(entries) == 1
    entry = next(iter(entries.values()))
    assert sorted(r["config"] for r in entry["records"]) == sorted(str(c) for c in SPACE)
    assert entry["device"] == "Fake GPU"
