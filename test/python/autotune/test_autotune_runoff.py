"""The autotuner's runoff between near-tied configs (core.RUNOFF_MARGIN), on
the CPU: real compilation, fake launches, and the default timer replaced by
one whose clock drifts, as a GPU's does after an idle spell: the config
timed first is measured slow. One pass in order then picks the wrong config;
the runoff, timing the near-tied ones again in rotating order, picks the
right one and stores its rounds' median."""

import json
import pathlib

import pytest

import tilelang
from tilelang import testing
from tilelang.autotune import core
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
Config = tilelang.Config

FAST = Config({"BLOCK": 256})  # truly the fastest, timed first
NEAR = Config({"BLOCK": 256}, num_warps=8)  # 3% slower
SLOW = Config({"BLOCK": 64})  # far behind: no runoff for it
TRUE_MS = {str(FAST): 1.00, str(NEAR): 1.03, str(SLOW): 1.50}


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, grid, config, args, kwargs: None)
    return tmp_path / "cache" / "autotune.json"


class DriftingTimer:
    """testing.do_bench's stand-in: each config's true time, 8% slower on
    the first call (clocks ramping up); `fail` names a config that fails
    from its second timing on."""

    def __init__(self, fail=None):
        self.calls, self.fail = [], fail

    def __call__(self, fn, warmup=25, rep=100, quantiles=None, return_mode="mean"):
        name = str(fn.config)
        if name == self.fail and name in self.calls:
            raise RuntimeError("launch failed")
        self.calls.append(name)
        return TRUE_MS[name] * (1.08 if len(self.calls) == 1 else 1.0)


def tune(space, timer, monkeypatch):
    monkeypatch.setattr(testing, "do_bench", timer)
    kernel = tilelang.autotune(configs=space, key=["n"])(K.row_sum)
    kernel[(1,)](K.FakeTensor([8], "float32"), K.FakeTensor([1], "float32"), 8)
    return kernel


def test_runoff_undoes_the_first_configs_cold_clock(env, monkeypatch):
    timer = DriftingTimer()
    runoffs, timings = core.stats.runoffs, core.stats.runoff_timings
    kernel = tune([FAST, NEAR, SLOW], timer, monkeypatch)
    # The pass in order measured FAST at 1.08 and NEAR at 1.03; the runoff
    # timed those two again in rotating order, SLOW not again.
    assert timer.calls[:3] == [str(FAST), str(NEAR), str(SLOW)]
    assert sorted(timer.calls[3:]) == sorted([str(FAST), str(NEAR)] * core.RUNOFF_ROUNDS)
    assert timer.calls[3:5] == [str(NEAR), str(FAST)]  # by the sweep's ranking, then rotated
    assert timer.calls[5:7] == [str(FAST), str(NEAR)]
    assert core.stats.runoffs == runoffs + 1
    assert core.stats.runoff_timings == timings + 2 * core.RUNOFF_ROUNDS
    assert str(kernel.best_config) == str(FAST)
    (entry,) = json.loads(env.read_text())["entries"].values()
    times = {r["config"]: r["time_ms"] for r in entry["records"]}
    assert times == {str(FAST): 1.00, str(NEAR): 1.03, str(SLOW): 1.50}
    assert entry["best"]["time_ms"] == 1.00


def test_without_runoff_the_drift_would_have_won(env, monkeypatch):
    monkeypatch.setattr(core, "RUNOFF_ROUNDS", 0)
    kernel = tune([FAST, NEAR, SLOW], DriftingTimer(), monkeypatch)
    assert str(kernel.best_config) == str(NEAR)


def test_no_runoff_without_a_near_tie_or_with_a_given_timer(env, monkeypatch):
    timer = DriftingTimer()
    runoffs = core.stats.runoffs
    tune([FAST, SLOW], timer, monkeypatch)
    assert timer.calls == [str(FAST), str(SLOW)]
    custom = K.FakeTimer()
    kernel = tilelang.autotune(configs=[FAST, NEAR], key=["n"], do_bench=custom)(K.row_sum)
    kernel[(1,)](K.FakeTensor([16], "float32"), K.FakeTensor([1], "float32"), 16)
    assert len(custom.timed) == 2
    assert core.stats.runoffs == runoffs


def test_a_config_failing_in_the_runoff_keeps_its_failure(env, monkeypatch):
    kernel = tune([FAST, NEAR, SLOW], DriftingTimer(fail=str(FAST)), monkeypatch)
    assert str(kernel.best_config) == str(NEAR)
    (entry,) = json.loads(env.read_text())["entries"].values()
    (record,) = [r for r in entry["records"] if r["config"] == str(FAST)]
    assert record["status"] == "failed" and record["time_ms"] is None
    assert "launch failed" in record["reason"]
