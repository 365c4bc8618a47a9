"""A store is validated in full before anything in it is used (issue 20,
item 5): one that does not validate is an error for the inspector, which
changes nothing, and is never trusted by the tuner, which warns, moves it
aside and rebuilds it on its sweep. Reads are bounded and never block."""

import contextlib
import errno
import json
import math
import os
import pathlib
import signal
import stat

import pytest

import tilelang
from tilelang.autotune import __main__ as cli
from tilelang.autotune import core, schema, store as store_mod
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
SPACE = [tilelang.Config({"BLOCK": 64}), tilelang.Config({"BLOCK": 256}), tilelang.Config({"BLOCK": 128}, num_warps=64)]


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A private cache directory, a fake device and recorded fake launches."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    launches = []
    monkeypatch.setattr(core.Autotuner, "_launch", lambda self, grid, config, args, kwargs: launches.append(grid))
    return {"launches": launches, "store": tmp_path / "cache" / "autotune.json"}


def tune(timer, space=SPACE):
    tilelang.autotune(configs=space, key=["n"], do_bench=timer)(K.row_sum)[(1,)](
        K.FakeTensor([8]), K.FakeTensor([1]), 8)


class Hang(BaseException):
    """Not an OSError or an Exception: no handler of the code under test
    may take it for a failure to recover from."""


@contextlib.contextmanager
def deadline(seconds):
    """Turns a hang (what a FIFO store was) into a test failure."""
    def expire(signum, frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _entry(data):
    (entry,) = data["entries"].values()
    return entry


def _best_record(data):
    entry = _entry(data)
    return next(r for r in entry["records"] if r["id"] == entry["best"]["id"])


def _set(path_fn, value):
    def change(data):
        target, name = path_fn(data)
        target[name] = value
    return change


# name -> a change to the parsed store (or a function of its text).
CORRUPTIONS = {
    "deep nesting": lambda text: '{"format": "tilelang-autotune-1", "entries": ' + "[" * 100000 + "]" * 100000 + "}",
    "a record without status": lambda data: _entry(data)["records"][0].pop("status"),
    "a time that is a string": _set(lambda d: (_best_record(d), "time_ms"), "fast"),
    "a time that is NaN": _set(lambda d: (_best_record(d), "time_ms"), math.nan),
    "num_warps a boolean": _set(lambda d: (_entry(d)["records"][0], "num_warps"), True),
    "a pruned config marked fastest": lambda data: _best_record(data).update(status="pruned", time_ms=None,
                                                                            reason="edited"),
    "a best that names no record": _set(lambda d: (_entry(d)["best"], "id"), "{}"),
    "a best whose id is a list": _set(lambda d: (_entry(d)["best"], "id"), []),
    "a record that is not its config": _set(lambda d: (_entry(d)["records"][0]["kwargs"], "BLOCK"), 999),
    "an entry that is not its key": _set(lambda d: (_entry(d)["key"], "n"), 9),
    "an unknown field": _set(lambda d: (_entry(d), "extra"), 1),
    "records an object": _set(lambda d: (_entry(d), "records"), {}),
    "not UTF-8": lambda text: b"\xff" + text.encode(),
}


def corrupt(path, name):
    text = path.read_text()
    change = CORRUPTIONS[name]
    if name in ("deep nesting", "not UTF-8"):
        result = change(text)
        path.write_bytes(result if isinstance(result, bytes) else result.encode())
        return
    data = json.loads(text)
    change(data)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_the_tuner_rebuilds_a_store_that_does_not_validate(env, name):
    tune(K.FakeTimer())
    corrupt(env["store"], name)
    corrupted = env["store"].read_bytes()
    timer = K.FakeTimer()
    with pytest.warns(RuntimeWarning, match="autotuning store .* is corrupt"):
        tune(timer)
    assert len(timer.timed) == 2  # nothing reused: both runnable configs timed again
    (backup,) = env["store"].parent.glob("autotune.json.corrupt-*")
    assert backup.read_bytes() == corrupted
    data = json.loads(env["store"].read_text())
    schema.validate(data)
    assert len(data["entries"]) == 1 and len(env["launches"]) == 2


@pytest.mark.parametrize("name", CORRUPTIONS)
@pytest.mark.parametrize("command", [["ls"], ["show", "row_sum"], ["export"]], ids=lambda c: c[0])
def test_the_inspector_reports_a_store_that_does_not_validate(env, name, command, capsys):
    tune(K.FakeTimer())
    corrupt(env["store"], name)
    before = {p.name: p.read_bytes() for p in env["store"].parent.iterdir()}
    capsys.readouterr()
    assert cli.main(command + ["--store", str(env["store"])]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"tilelang-autotune: the autotuning store {env['store']} is corrupt (")
    assert line.isascii()
    assert {p.name: p.read_bytes() for p in env["store"].parent.iterdir()} == before


def test_a_store_over_the_size_bound_is_corrupt(env, monkeypatch, capsys):
    tune(K.FakeTimer())
    monkeypatch.setattr(store_mod, "MAX_BYTES", 512, raising=False)
    assert cli.main(["ls", "--store", str(env["store"])]) == 1
    assert "is corrupt (larger than" in capsys.readouterr().err
    timer = K.FakeTimer()
    with pytest.warns(RuntimeWarning, match="is corrupt"):
        tune(timer)
    assert len(timer.timed) == 2


def test_a_fifo_store_is_a_warning_for_the_tuner_and_left_alone(env):
    env["store"].parent.mkdir(parents=True)
    os.mkfifo(env["store"])
    timer = K.FakeTimer()
    with deadline(10), pytest.warns(RuntimeWarning, match="is a FIFO, not a regular file"):
        tune(timer)
    assert len(timer.timed) == 2 and len(env["launches"]) == 1
    assert stat.S_ISFIFO(env["store"].stat().st_mode)
    assert sorted(p.name for p in env["store"].parent.iterdir()) == ["autotune.json"]  # no lock either


def test_a_full_disk_is_a_warning_for_the_tuner_and_keeps_the_store(env, monkeypatch):
    tune(K.FakeTimer())
    before = env["store"].read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.warns(RuntimeWarning, match="could not write the autotuning store .*No space left on device"):
        tune(K.FakeTimer(), SPACE + [tilelang.Config({"BLOCK": 512})])
    assert env["store"].read_bytes() == before and len(env["launches"]) == 2
    assert not list(env["store"].parent.glob(".autotune-*"))


def test_a_timer_that_measures_nan_fails_its_config(env):
    class NanFor64(K.FakeTimer):
        def __call__(self, fn, quantiles=None):
            time_ms = super().__call__(fn, quantiles)
            return math.nan if fn.config.kwargs["BLOCK"] == 64 else time_ms

    tune(NanFor64())
    records = {r["config"]: r for r in _entry(json.loads(env["store"].read_text()))["records"]}
    assert records["BLOCK: 64, num_warps: 4, num_stages: 3"]["status"] == "failed"
    assert "nan" in records["BLOCK: 64, num_warps: 4, num_stages: 3"]["reason"]
    schema.validate(json.loads(env["store"].read_text()))


def test_the_best_record_is_kept_when_another_process_clears_the_store_meanwhile(env):
    """A sweep reuses a fast record, times a new config, and meanwhile the
    store is cleared: the entry written still holds the record its best
    names (else the file would not validate and would be discarded)."""
    tune(K.FakeTimer())

    class ClearingTimer(K.FakeTimer):
        def __call__(self, fn, quantiles=None):
            store_mod.Store(str(env["store"])).clear()
            return super().__call__(fn, quantiles)

    tune(ClearingTimer(), SPACE + [tilelang.Config({"BLOCK": 512})])
    data = json.loads(env["store"].read_text())
    schema.validate(data)
    assert _entry(data)["best"]["config"] == "BLOCK: 256, num_warps: 4, num_stages: 3"


def test_declared_work_that_is_not_a_finite_amount_is_a_warning(env):
    kernel = tilelang.autotune(configs=SPACE[:1], key=["n"], do_bench=K.FakeTimer(),
                               work=lambda nargs: {"flops": math.inf, "bytes": 64})(K.row_sum)
    with pytest.warns(RuntimeWarning, match="work declared for row_sum could not be computed: flops is inf"):
        kernel[(1,)](K.FakeTensor([8]), K.FakeTensor([1]), 8)
    entry = _entry(json.loads(env["store"].read_text()))
    assert "work" not in entry
    schema.validate(json.loads(env["store"].read_text()))
