"""Kernels and fakes for the CPU autotuner tests (no GPU, no torch): the
kernels compile to PTX for real; launches and timing are faked."""

import tilelang
import tilelang.language as tl


@tilelang.jit
def row_sum(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr, tl.sum(x, axis=0))


class FakeTensor:
    """What the frontend needs of a tensor argument: data_ptr, dtype, shape."""

    def __init__(self, shape, dtype="float32", address=1 << 20):
        self.shape, self.dtype, self._address = tuple(shape), dtype, address
        self.values = [1.0] * 4
        self.zeroed = 0

    def data_ptr(self):
        return self._address

    def zero_(self):
        self.zeroed += 1
        self.values = [0.0] * len(self.values)

    def clone(self):
        copy = FakeTensor(self.shape, self.dtype, self._address)
        copy.values = list(self.values)
        return copy

    def copy_(self, other):
        self.values = list(other.values)


class FakeTimer:
    """A do_bench that launches nothing: the time is a function of the config
    (BLOCK near 256 and 4 warps are best); counts its calls."""

    def __init__(self):
        self.timed = []

    def __call__(self, fn, quantiles=None):
        config = fn.config
        self.timed.append(str(config))
        block = config.kwargs.get("BLOCK", 256)
        return 1.0 + abs(block - 256) / 1000 + abs(config.num_warps - 4) / 100 + config.num_stages / 1e4


FAKE_DEVICE = {"name": "Fake GPU", "arch": "sm_90a", "max_shared_per_block": 232448, "max_threads_per_block": 1024,
               "peak": {"tflops": 1000.0, "gbps": 4000.0}}


def store_entry(kernel="k", key=None, times=(1.0,), device="Fake GPU"):
    """(entry id, entry) as the tuner writes them: one timed record per time
    in ``times`` (BLOCK 64, 128, ...), the fastest marked best."""
    from tilelang.autotune import schema

    key = {"n": 8} if key is None else key
    compiler = {"version": "0.1.0", "build_id": "0" * 12}
    records = []
    for index, time_ms in enumerate(times):
        kwargs = {"BLOCK": 64 << index}
        records.append({"id": schema.config_ident(kwargs, 4, 3), "config": f"BLOCK: {64 << index}, num_warps: 4, "
                        "num_stages: 3", "kwargs": kwargs, "num_warps": 4, "num_stages": 3, "time_ms": time_ms,
                        "status": "ok", "reason": None, "timestamp": "2026-11-25T00:00:00+0000"})
    best = min(records, key=lambda r: r["time_ms"])
    entry = {"kernel": kernel, "kernel_hash": "h-" + kernel, "key": key, "dtypes": ["x:fp32"], "device": device,
             "arch": "sm_90a", "compiler": compiler,
             "best": {"id": best["id"], "config": best["config"], "time_ms": best["time_ms"]},
             "updated": "2026-11-25T00:00:00+0000", "records": records}
    return schema.entry_id(entry["kernel_hash"], key, entry["dtypes"], device, compiler), entry
