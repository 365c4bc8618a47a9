"""tilelang.testing on the CPU: do_bench's summary of given times (Triton's
defaults and modes), argument checks, and perf_report/Benchmark writing a
sweep's table (markdown, CSV) and PNG plot from a function that returns
given numbers (timing itself needs a GPU: test/python/gpu)."""

import inspect
import struct

import pytest

from tilelang import testing


def test_signatures_follow_triton():
    bench = inspect.signature(testing.do_bench)
    assert list(bench.parameters) == ["fn", "warmup", "rep", "grad_to_none", "quantiles", "return_mode"]
    assert [bench.parameters[n].default for n in ("warmup", "rep", "grad_to_none", "quantiles", "return_mode")] == [
        25, 100, None, None, "mean"]
    graph = inspect.signature(testing.do_bench_cudagraph)
    assert list(graph.parameters) == ["fn", "rep", "grad_to_none", "quantiles", "return_mode"]
    assert graph.parameters["rep"].default == 20 and graph.parameters["return_mode"].default == "mean"


TIMES = [4.0, 1.0, 3.0, 2.0, 10.0]


@pytest.mark.parametrize("mode,expected", [("mean", 4.0), ("median", 3.0), ("min", 1.0), ("max", 10.0),
                                           ("all", TIMES)])
def test_summarize_modes(mode, expected):
    assert testing.summarize(TIMES, return_mode=mode) == expected


def test_summarize_quantiles():
    assert testing.summarize(TIMES, quantiles=[0.5]) == 3.0
    assert testing.summarize(TIMES, quantiles=[0.0, 0.25, 0.5, 0.8, 1.0]) == pytest.approx([1.0, 2.0, 3.0, 5.2, 10.0])
    assert testing.summarize([7.0], quantiles=[0.2, 0.8]) == [7.0, 7.0]


@pytest.mark.parametrize("name", ["do_bench", "do_bench_cudagraph"])
def test_timing_without_torch_says_it_needs_torch(name, monkeypatch):
    # Not ModuleNotFoundError: No module named 'torch' from inside tilelang.
    monkeypatch.setitem(__import__("sys").modules, "torch", None)
    with pytest.raises(ImportError) as err:
        getattr(testing, name)(lambda: None)
    assert str(err.value) == (f"tilelang.testing.{name} needs torch (it times with CUDA events); install it, e.g. "
                              "`pip install 'tilelang-mlir[torch]'`")


def test_summarize_refuses_bad_arguments():
    with pytest.raises(ValueError, match="return_mode must be min, max, mean, median or all, not 'avg'"):
        testing.summarize(TIMES, return_mode="avg")
    with pytest.raises(ValueError, match=r"quantiles must be in \[0, 1\], not 50"):
        testing.summarize(TIMES, quantiles=[50])
    with pytest.raises(ValueError, match="return_mode must be"):
        testing.do_bench(lambda: None, return_mode="avg")  # refused before torch is needed


def _bench(**overrides):
    fields = dict(x_names=["N"], x_vals=[128, 256, 512], line_arg="provider", line_vals=["tilelang", "torch"],
                  line_names=["tilelang", "torch"], plot_name="row-sums", args={"scale": 2}, xlabel="N",
                  ylabel="GB/s", styles=[("tab:blue", "-"), ("tab:orange", "--")])
    fields.update(overrides)
    return testing.Benchmark(**fields)


def test_perf_report_writes_table_csv_and_plot(tmp_path, capsys):
    calls = []

    @testing.perf_report(_bench())
    def sweep(N, provider, scale):
        calls.append((N, provider, scale))
        y = N * scale + (1 if provider == "torch" else 0)
        return y, y - 0.5, y + 0.5

    table = sweep.run(save_path=str(tmp_path), print_data=True, return_df=False)
    assert table is None
    assert calls == [(n, p, 2) for n in (128, 256, 512) for p in ("tilelang", "torch")]
    printed = capsys.readouterr().out
    assert printed.startswith("row-sums:\n| N | tilelang | tilelang-min | tilelang-max | torch | torch-min |")
    assert "| 256 | 512 | 511.5 | 512.5 | 513 | 512.5 | 513.5 |" in printed
    csv = (tmp_path / "row-sums.csv").read_text().splitlines()
    assert csv[0] == "N,tilelang,tilelang-min,tilelang-max,torch,torch-min,torch-max"
    assert csv[1] == "128,256,255.5,256.5,257,256.5,257.5"
    assert (tmp_path / "row-sums.md").read_text().startswith("# row-sums\n\n| N | tilelang |")
    try:
        import matplotlib  # noqa: F401
    except ImportError:  # the plot extra is optional: tables only
        assert not (tmp_path / "row-sums.png").exists()
        return
    png = (tmp_path / "row-sums.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width > 400 and height > 300


def test_perf_report_tuples_of_x_values_and_returned_tables():
    bench = _bench(x_names=["M", "N"], x_vals=[(1, 2), (3, 4)], styles=None)

    @testing.perf_report([bench, _bench(plot_name="second")])
    def sweep(M=0, N=0, provider="", scale=1):
        return float(M * 10 + N) if provider == "tilelang" else -1.0

    first, second = sweep.run(return_df=True)
    table = first if isinstance(first, testing.Table) else testing.Table(list(first.columns),
                                                                          first.values.tolist())
    assert table.columns == ["M", "N", "tilelang", "torch"]
    assert [list(r) for r in table.rows] == [[1, 2, 12.0, -1.0], [3, 4, 34.0, -1.0]]


def test_benchmark_checks_its_fields():
    with pytest.raises(ValueError, match="1 line_names for 2 line_vals"):
        _bench(line_names=["only one"])
    bench = _bench(x_names=["M", "N"], x_vals=[(1, 2, 3)])
    with pytest.raises(ValueError, match=r"x value \(1, 2, 3\) has 3 entries for 2 x_names"):
        testing.perf_report(bench)(lambda **kw: 1.0).run()


def test_each_device_gets_its_own_l2_flush_buffer(monkeypatch):
    # A stand-in for torch: the current device, and where buffers are made.
    import sys
    import types

    current = {"device": 0}
    made = []

    def empty(size, dtype=None, device=None):
        made.append(device)
        return ("buffer", device)

    torch = types.ModuleType("torch")
    torch.int32 = "int32"
    torch.device = lambda kind, index: f"{kind}:{index}"
    torch.empty = empty
    torch.cuda = types.SimpleNamespace(current_device=lambda: current["device"])
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setattr(testing, "_FLUSH", {})
    first = testing._l2_flush_buffer()
    current["device"] = 1
    second = testing._l2_flush_buffer()
    assert testing._l2_flush_buffer() is second
    current["device"] = 0
    assert testing._l2_flush_buffer() is first
    # A parallel sweep times on each device: each flushes its own L2.
    assert made == ["cuda:0", "cuda:1"]
