"""An autotuner's repeated launch (tilelang.ops launches through one on
every call): its config is found from a quick key (the key arguments'
values as they are, the keywords, the arguments' dtypes) without bucketing,
naming or serializing anything; everything that keys a sweep still keys
apart. CPU only: real compilation, fake launches and timer
(autotune_kernels.py)."""

import json
import pathlib

import pytest

import tilelang
from tilelang.autotune import core
from tilelang.ops import spaces
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
SPACE = [tilelang.Config({"BLOCK": 64}), tilelang.Config({"BLOCK": 256})]


@pytest.fixture
def launches(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    launched = []
    monkeypatch.setattr(core.Autotuner, "_launch",
                        lambda self, grid, config, args, kwargs: launched.append((str(config), args, kwargs)))
    return launched


def tuned(timer):
    return tilelang.autotune(configs=SPACE, key=["n"], do_bench=timer, bucket={"n": spaces.bucket_pow2})(K.row_sum)


def test_a_repeated_launch_serializes_nothing(launches, monkeypatch):
    timer = K.FakeTimer()
    kernel = tuned(timer)
    x, y = K.FakeTensor([100]), K.FakeTensor([1])
    kernel[(1,)](x, y, 100)

    def refused(*args, **kwargs):
        raise AssertionError("the slow key was computed for a repeated launch")

    monkeypatch.setattr(core.json, "dumps", refused)
    monkeypatch.setattr(core, "_key_value", refused)
    for _ in range(3):
        kernel[(2,)](x, y, 100)
    assert len(timer.timed) == len(SPACE)
    assert [config for config, _, _ in launches] == ["BLOCK: 256, num_warps: 4, num_stages: 3"] * 4
    assert launches[-1][1] == (x, y, 100) and kernel.best_config is not None


def test_what_keys_a_sweep_still_keys_apart(launches):
    timer = K.FakeTimer()
    kernel = tuned(timer)
    kernel[(1,)](K.FakeTensor([100]), K.FakeTensor([1]), 100)
    kernel[(1,)](K.FakeTensor([120]), K.FakeTensor([1]), 120)  # the same bucket: no sweep
    assert len(timer.timed) == 2
    kernel[(1,)](K.FakeTensor([100], "float16"), K.FakeTensor([1]), 100)  # another dtype
    assert len(timer.timed) == 4
    kernel[(1,)](K.FakeTensor([100]), K.FakeTensor([1]), n=100)  # by keyword: the same key
    assert len(timer.timed) == 4
    kernel.cache = {}  # what the tests of tilelang.ops do to tune again
    kernel[(1,)](K.FakeTensor([100]), K.FakeTensor([1]), 100)
    assert len(timer.timed) == 4  # from the store, not the quick key: the records are reused
    assert core.stats.reused >= 2


def test_true_and_one_are_different_keys(launches):
    # True == 1 in Python, and a dict would merge them; the sweeps' keys do not.
    timer = K.FakeTimer()
    kernel = tilelang.autotune(configs=SPACE, key=["n"], do_bench=timer)(K.row_sum)
    kernel[(1,)](K.FakeTensor([1]), K.FakeTensor([1]), 1)
    kernel[(1,)](K.FakeTensor([1]), K.FakeTensor([1]), True)
    assert len(kernel.cache) == 2
    assert sorted(json.loads(key)[0]["n"] is True for key in kernel.cache) == [False, True]


def test_a_clashing_keyword_is_refused_on_a_repeated_launch(launches):
    kernel = tuned(K.FakeTimer())
    kernel[(1,)](K.FakeTensor([100]), K.FakeTensor([1]), 100)
    with pytest.raises(ValueError, match="BLOCK given both by a config and by the caller"):
        kernel[(1,)](K.FakeTensor([100]), K.FakeTensor([1]), 100, BLOCK=64)


def test_the_quick_keys_are_bounded(launches, monkeypatch):
    monkeypatch.setattr(core, "_QUICK_LIMIT", 3)
    kernel = tuned(K.FakeTimer())
    for n in range(100, 110):
        kernel[(1,)](K.FakeTensor([n]), K.FakeTensor([1]), n)
    assert len(kernel._quick) <= 3 and len(kernel.cache) == 1
