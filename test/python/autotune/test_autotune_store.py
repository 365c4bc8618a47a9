"""The autotuner on the CPU: real compilation of each config to PTX, fake
launches and a fake timer (autotune_kernels.py). Keying, reuse from the
store, invalidation on a compiler-version change, pruning with reasons,
re-timing only an added config, the store under concurrent writers and a
corrupt store."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import tilelang
from tilelang import _C
from tilelang.autotune import core, store as store_mod
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
Config = tilelang.Config


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A private cache directory, a fake device and recorded fake launches."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    device = dict(K.FAKE_DEVICE)
    monkeypatch.setattr(core, "device_properties", lambda index=None: dict(device))
    launches = []
    monkeypatch.setattr(core.Autotuner, "_launch",
                        lambda self, grid, config, args, kwargs: launches.append((grid, str(config))))
    return {"launches": launches, "device": device, "store": tmp_path / "cache" / "autotune.json"}


def make(configs, timer, key=("n",), **options):
    return tilelang.autotune(configs=configs, key=list(key), do_bench=timer, **options)(K.row_sum)


def args(n=8, dtype="float32"):
    return K.FakeTensor([n], dtype), K.FakeTensor([1], dtype), n


SPACE = [Config({"BLOCK": 64}), Config({"BLOCK": 256}), Config({"BLOCK": 256}, num_warps=8),
         Config({"BLOCK": 1024}, num_warps=2)]


def entries(path):
    return json.loads(pathlib.Path(path).read_text())["entries"]


def test_tunes_picks_best_and_launches_it(env):
    timer = K.FakeTimer()
    kernel = make(SPACE, timer)
    kernel[(1,)](*args())
    assert len(timer.timed) == 4
    assert str(kernel.best_config) == "BLOCK: 256, num_warps: 4, num_stages: 3"
    assert env["launches"] == [((1,), "BLOCK: 256, num_warps: 4, num_stages: 3")]
    (entry,) = entries(env["store"]).values()
    assert entry["kernel"] == "row_sum" and entry["key"] == {"n": 8} and entry["device"] == "Fake GPU"
    assert entry["compiler"] == {"version": _C.version(), "build_id": _C.build_id()}
    assert entry["dtypes"] == ["x_ptr:fp32", "y_ptr:fp32"]
    assert len(entry["records"]) == 4 and all(r["status"] == "ok" for r in entry["records"])
    assert entry["best"]["time_ms"] == pytest.approx(1.0003)
    for record in entry["records"]:
        assert set(record) >= {"config", "kwargs", "num_warps", "num_stages", "time_ms", "status", "reason",
                               "timestamp"}
    # The same key again: neither this object nor a fresh one times anything.
    kernel[(2,)](*args())
    fresh_timer = K.FakeTimer()
    make(SPACE, fresh_timer)[(3,)](*args())
    assert len(timer.timed) == 4 and fresh_timer.timed == []
    assert [launch[0] for launch in env["launches"]] == [(1,), (2,), (3,)]


def test_keying(env):
    timer = K.FakeTimer()
    kernel = make(SPACE[:2], timer)
    kernel[(1,)](*args(n=8))
    kernel[(1,)](*args(n=16))  # another key value
    kernel[(1,)](*args(n=8, dtype="float16"))  # other dtypes
    assert len(timer.timed) == 6
    assert len(entries(env["store"])) == 3
    kernel[(1,)](*args(n=16))
    assert len(timer.timed) == 6
    # Another device is another entry.
    env["device"]["name"] = "Other GPU"
    make(SPACE[:2], timer)[(1,)](*args(n=8))
    assert len(timer.timed) == 8 and len(entries(env["store"])) == 4


def test_kernel_identity_covers_source_and_callees(tmp_path):
    code = textwrap.dedent('''
        import tilelang, tilelang.language as tl
        @tilelang.jit
        def helper(x):
            return x + 1
        @tilelang.jit
        def kernel(p, BLOCK: tl.constexpr):
            tl.store(p, helper(1))
    ''')
    (tmp_path / "probe_a.py").write_text(code)
    (tmp_path / "probe_b.py").write_text(code.replace("x + 1", "x + 2"))  # only the callee differs
    (tmp_path / "probe_c.py").write_text(code)
    a, b, c = (load_module(f"_identity_probe_{n}", tmp_path / f"probe_{n}.py") for n in "abc")
    assert core.kernel_identity(a.kernel) != core.kernel_identity(b.kernel)
    assert core.kernel_identity(a.kernel) == core.kernel_identity(c.kernel)


def test_compiler_version_change_invalidates(env, monkeypatch):
    timer = K.FakeTimer()
    make(SPACE[:2], timer)[(1,)](*args())
    assert len(timer.timed) == 2
    monkeypatch.setattr(_C, "version", lambda: "0.1.1 (LLVM 22.1.8)")
    make(SPACE[:2], timer)[(1,)](*args())
    assert len(timer.timed) == 4
    compilers = sorted(e["compiler"]["version"] for e in entries(env["store"]).values())
    assert len(set(compilers)) == 2 and "0.1.1 (LLVM 22.1.8)" in compilers


def test_timings_without_the_occupancy_search_are_kept_apart(env, monkeypatch):
    # Other cubins time differently: turning the search off tunes again.
    timer = K.FakeTimer()
    make(SPACE[:2], timer)[(1,)](*args())
    make(SPACE[:2], timer)[(1,)](*args())
    assert len(timer.timed) == 2
    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "0")
    make(SPACE[:2], timer)[(1,)](*args())
    assert len(timer.timed) == 4
    searches = sorted(e["compiler"].get("occupancy_search", "on") for e in entries(env["store"]).values())
    assert searches == ["off", "on"]


def test_maxnreg_configs_are_their_own_points_and_compile_capped(env):
    capped = Config({"BLOCK": 256}, num_warps=8, maxnreg=64)
    assert capped != Config({"BLOCK": 256}, num_warps=8)
    assert "maxnreg: 64" in str(capped) and "maxnreg=64" in repr(capped)
    assert capped.all_kwargs() == {"BLOCK": 256, "num_warps": 8, "num_stages": 3, "maxnreg": 64}
    assert "maxnreg" not in Config({"BLOCK": 256}).all_kwargs()
    timer = K.FakeTimer()
    tuned = make([Config({"BLOCK": 256}, num_warps=8), capped], timer)
    tuned[(1,)](*args())
    assert len(timer.timed) == 2
    records = next(iter(entries(env["store"]).values()))["records"]
    assert sorted(r.get("maxnreg") for r in records if "maxnreg" in r) == [64]
    # What was timed for the capped config was compiled with the cap.
    compiled = tuned._compile(capped, list(args()), {}, {})
    assert compiled.maxnreg == 64 and ".maxnreg 64" in compiled.to_ptx("sm_90a").ptx


def test_launch_options_come_from_the_configs(env):
    tuned = make(SPACE[:2], K.FakeTimer())
    for option in ("num_warps", "maxnreg"):
        with pytest.raises(ValueError, match=f"autotune: {option} of row_sum are set by each config"):
            tuned[(1,)](*args(), **{option: 64})


def test_pruning_with_reasons(env):
    env["device"]["max_shared_per_block"] = 16  # 8 warps' reduction needs 32 bytes
    timer = K.FakeTimer()
    space = [Config({"BLOCK": 128}), Config({"BLOCK": 128}, num_warps=64), Config({"BLOCK": 3}),
             Config({"BLOCK": 256}, num_warps=8)]
    kernel = make(space, timer)
    kernel[(1,)](*args())
    assert timer.timed == ["BLOCK: 128, num_warps: 4, num_stages: 3"]
    (entry,) = entries(env["store"]).values()
    by_config = {r["config"]: r for r in entry["records"]}
    warps = by_config["BLOCK: 128, num_warps: 64, num_stages: 3"]
    assert warps["status"] == "pruned" and "2048 threads" in warps["reason"] and warps["time_ms"] is None
    bad = by_config["BLOCK: 3, num_warps: 4, num_stages: 3"]
    assert bad["status"] == "pruned" and "compilation failed" in bad["reason"] and "power of 2" in bad["reason"]
    smem = by_config["BLOCK: 256, num_warps: 8, num_stages: 3"]
    assert smem["status"] == "pruned" and "32 bytes of shared memory" in smem["reason"]


def test_all_pruned_is_a_clear_error(env):
    kernel = make([Config({"BLOCK": 3}), Config({"BLOCK": 64}, num_warps=64)], K.FakeTimer())
    with pytest.raises(RuntimeError, match="every config of row_sum was pruned") as info:
        kernel[(1,)](*args())
    assert "power of 2" in str(info.value) and "2048 threads" in str(info.value)
    assert env["launches"] == []


def test_failed_run_is_recorded(env):
    def timer(fn, quantiles=None):
        if fn.config.kwargs["BLOCK"] == 64:
            raise RuntimeError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES")
        return 1.0

    make(SPACE[:2], timer)[(1,)](*args())
    (entry,) = entries(env["store"]).values()
    failed = [r for r in entry["records"] if r["status"] == "failed"]
    assert len(failed) == 1 and "OUT_OF_RESOURCES" in failed[0]["reason"]


def test_adding_a_config_times_only_that_config(env):
    timer = K.FakeTimer()
    make(SPACE[:3], timer)[(1,)](*args())
    assert len(timer.timed) == 3
    timer.timed.clear()
    before = core.stats.compiled
    added = Config({"BLOCK": 512}, num_warps=4, num_stages=2)
    make(SPACE[:3] + [added], timer)[(1,)](*args())
    assert timer.timed == [str(added)]
    assert core.stats.compiled - before == 1
    (entry,) = entries(env["store"]).values()
    assert len(entry["records"]) == 4


def test_prune_configs_by_restore_and_reset(env):
    timer = K.FakeTimer()
    x, y, n = args()
    seen = []

    def early(configs, nargs):
        seen.append(sorted(nargs))
        return [c for c in configs if c.kwargs["BLOCK"] != 64]

    def hook(nargs):
        nargs["y_ptr"].values = [42.0]

    space = [Config({"BLOCK": 64}), Config({"BLOCK": 256}, pre_hook=hook)]
    kernel = make(space, timer, prune_configs_by={"early_config_prune": early}, reset_to_zero=["x_ptr"],
                  restore_value=["y_ptr"])

    original_launch = core.Autotuner._launch

    def launch(self, grid, config, a, kw):
        a[0].values = [7.0]  # an in-place kernel writing x
        return original_launch(self, grid, config, a, kw)

    core.Autotuner._launch = launch
    try:
        kernel[(1,)](x, y, n)
    finally:
        core.Autotuner._launch = original_launch
    assert timer.timed == ["BLOCK: 256, num_warps: 4, num_stages: 3"]
    assert seen == [["n", "x_ptr", "y_ptr"]]
    assert x.zeroed >= 1
    # The pre_hook's write to y was undone after timing, then redone for the real launch.
    assert y.values == [42.0]


def test_heuristics(env):
    timer = K.FakeTimer()
    kernel = tilelang.autotune(configs=[Config({}, num_warps=4), Config({}, num_warps=8)], key=["n"],
                               do_bench=timer)(
        tilelang.heuristics({"BLOCK": lambda a: tilelang.next_power_of_2(a["n"])})(K.row_sum))
    kernel[(1,)](*args(n=100))
    (entry,) = entries(env["store"]).values()
    assert all(r["status"] == "ok" for r in entry["records"])
    compiled = [k for k in K.row_sum.cache.values() if k.constexprs.get("BLOCK") == 128]
    assert compiled


def test_print_autotuning(env, monkeypatch, capsys):
    monkeypatch.setenv("TILELANG_PRINT_AUTOTUNING", "1")
    make(SPACE[:2], K.FakeTimer())[(1,)](*args())
    err = capsys.readouterr().err
    assert "Autotuning row_sum for key {'n': 8}: best config BLOCK: 256, num_warps: 4" in err
    assert "1.0003 ms" in err


def test_plain_progress_bar(env, capsys, monkeypatch):
    # The plain bar is what shows on a terminal where tqdm is not installed
    # (hide it here, and take capsys's stderr for a terminal).
    from tilelang.autotune import progress

    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setattr(progress, "_on_terminal", lambda stream: True)
    make(SPACE[:2], K.FakeTimer())[(1,)](*args())
    err = capsys.readouterr().err
    assert "autotune row_sum [" in err and "2/2" in err


WRITER = textwrap.dedent('''
    import json, os, sys, time
    from tilelang.autotune.store import Store
    path, entries, go = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
    while not os.path.exists(go):
        time.sleep(0.001)
    store = Store(path)
    for eid, entry in entries:
        store.update(eid, lambda old, entry=entry: entry)
''')


def test_store_concurrent_writers(tmp_path):
    path = tmp_path / "autotune.json"
    go = tmp_path / "go"
    workers, count = 6, 15
    expected = set()
    children = []
    for w in range(workers):
        work = [K.store_entry(f"k{w}", key={"i": i}) for i in range(count)]
        expected |= {eid for eid, _ in work}
        (tmp_path / f"work{w}.json").write_text(json.dumps(work))
        children.append(subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(tmp_path / f"work{w}.json"),
                                          str(go)], stderr=subprocess.PIPE, text=True))
    go.write_text("go")
    for child in children:
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    data = json.loads(path.read_text())
    assert set(data["entries"]) == expected and len(expected) == workers * count
    assert not list(tmp_path.glob(".autotune-*"))  # no temporary file left behind


def test_corrupt_store_is_reported_moved_aside_and_rebuilt(env):
    env["store"].parent.mkdir(parents=True, exist_ok=True)
    env["store"].write_text('{"format": "tilelang-autotune-1", "entries": {"abc": ')
    timer = K.FakeTimer()
    with pytest.warns(RuntimeWarning, match="autotuning store .* is corrupt"):
        make(SPACE[:2], timer)[(1,)](*args())
    assert len(timer.timed) == 2
    backups = list(env["store"].parent.glob("autotune.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text().startswith('{"format"')
    assert len(entries(env["store"])) == 1


def test_store_write_failure_is_a_warning(env, tmp_path):
    kernel = make(SPACE[:2], K.FakeTimer())
    (tmp_path / "not-a-dir").write_text("")  # the store's folder is a file
    kernel.store_path = str(tmp_path / "not-a-dir" / "autotune.json")
    with pytest.warns(RuntimeWarning, match="autotuning store"):
        kernel[(1,)](*args())
    assert len(env["launches"]) == 1
    assert os.path.isfile(tmp_path / "not-a-dir")


def test_store_helpers(tmp_path):
    store = store_mod.Store(str(tmp_path / "s.json"))
    assert store.entries() == {} and store.clear() == 0
    eid, entry = K.store_entry("k")
    store.update(eid, lambda old: entry)
    assert store.get(eid)["kernel"] == "k"
    assert store_mod.matches(store.get(eid), eid, eid[:6])
    assert store.clear("k") == 1 and store.entries() == {}


def test_declared_work_gives_rates_and_shares_of_peak(env, monkeypatch, capsys):
    """work(args) -> flops and bytes: the entry keeps them with the device's
    peaks, and the printed winner reads as TFLOP/s and GB/s with their share
    of the peaks (the fake device: 1000 TFLOP/s, 4000 GB/s; best 1.0003 ms)."""
    monkeypatch.setenv("TILELANG_PRINT_AUTOTUNING", "1")
    work = lambda nargs: {"flops": 2e12 * nargs["n"] / 8, "bytes": 1e9 * nargs["n"]}  # noqa: E731
    make(SPACE[:2], K.FakeTimer(), work=work)[(1,)](*args())
    (entry,) = entries(env["store"]).values()
    assert entry["work"] == {"flops": 2e12, "bytes": 8e9}
    assert entry["peak"] == {"tflops": 1000.0, "gbps": 4000.0}
    err = capsys.readouterr().err
    # 2e12 flops in 1.0003 ms = 1999.4 TFLOP/s (200% of the fake peak); 8e9 bytes = 7997.6 GB/s.
    assert "1999.4 TFLOP/s (200%), 7997.6 GB/s (200%)" in err


def test_a_failing_work_declaration_is_a_warning(env):
    with pytest.warns(RuntimeWarning, match="the work declared for row_sum could not be computed"):
        make(SPACE[:2], K.FakeTimer(), work=lambda nargs: nargs["missing"])[(1,)](*args())
    (entry,) = entries(env["store"]).values()
    assert "work" not in entry


def test_peak_estimates_from_device_attributes():
    """An H100 SXM as the driver reports it: 132 SMs at 1980 MHz, HBM3 at
    2619 MHz on a 5120-bit bus."""
    h100 = {"multiprocessors": 132, "clock_khz": 1980000, "capability": (9, 0),
            "memory_clock_khz": 2619000, "memory_bus_bits": 5120}
    peaks = core.estimate_peaks(h100)
    assert peaks["tflops"] == pytest.approx(132 * 1.98e9 * 4096 / 1e12)
    assert peaks["gbps"] == pytest.approx(2 * 2.619e9 * 640 / 1e9)
    unknown = core.estimate_peaks(dict(h100, capability=(7, 5), memory_clock_khz=0))
    assert unknown == {"tflops": None, "gbps": None}


# A sweep in a fresh process (so that the compiler's counters are the
# sweep's own) over 8 configs, with the fakes of autotune_kernels.py.
PARALLEL_SWEEP = textwrap.dedent(
    """
    import json, sys
    import tilelang
    from tilelang import ir
    from tilelang.autotune import core
    from tilelang_testing import load_module

    K = load_module("autotune_kernels", sys.argv[1])
    core.device_properties = lambda device=None: dict(K.FAKE_DEVICE)
    core.Autotuner._launch = lambda self, grid, config, args, kwargs: None
    configs = [tilelang.Config({"BLOCK": b}, num_warps=w) for b in (64, 128, 256, 512) for w in (2, 4)]
    timer = K.FakeTimer()
    kernel = tilelang.autotune(configs=configs, key=["n"], do_bench=timer)(K.row_sum)
    kernel[(1,)](K.FakeTensor([8]), K.FakeTensor([1]), 8)
    print(json.dumps({"timed": len(timer.timed), "stats": ir.compiler_statistics()}))
    """
)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one CPU: the pool has one worker")
def test_configs_compile_in_parallel(tmp_path):
    environment = dict(os.environ, TILELANG_CACHE_DIR=str(tmp_path / "cache"),
                       PYTHONPATH=os.pathsep.join([str(pathlib.Path(__file__).parents[1])] + sys.path))
    child = subprocess.run([sys.executable, "-c", PARALLEL_SWEEP, str(pathlib.Path(__file__).with_name(
        "autotune_kernels.py"))], capture_output=True, text=True, timeout=300, env=environment)
    assert child.returncode == 0, child.stderr
    report = json.loads(child.stdout.strip().splitlines()[-1])
    assert report["timed"] == 8
    # Every config reached the compiler, and the thread pool had more than
    # one compilation in flight at a time.
    assert report["stats"]["compilations"] >= 8
    assert report["stats"]["peak_concurrent"] >= 2


def test_pre_hooks_run_before_compiling_and_their_writes_are_undone(env):
    # A pre_hook may set what specialization reads (descriptor block shapes),
    # so it runs before its config is compiled; what it writes to a
    # restore_value argument is undone before anything is timed.
    x, y, n = args()
    original = list(y.values)
    events = []

    def hook(nargs):
        events.append(("hook", nargs["BLOCK"]))
        nargs["y_ptr"].values = [42.0]

    class Timer(K.FakeTimer):
        def __call__(self, fn, quantiles=None):
            events.append(("time", fn.config.kwargs["BLOCK"], list(y.values)))
            return super().__call__(fn, quantiles)

    kernel = make([Config({"BLOCK": 64}, pre_hook=hook), Config({"BLOCK": 256})], Timer(),
                  restore_value=["y_ptr"])
    kernel[(1,)](x, y, n)
    first_time = next(i for i, event in enumerate(events) if event[0] == "time")
    assert ("hook", 64) in events[:first_time]
    assert [event[2] for event in events if event[0] == "time"] == [original, original]
