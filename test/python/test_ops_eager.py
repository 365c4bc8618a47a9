"""The host path of tilelang.ops' eager calls, without a GPU (torch on the
CPU; skipped without torch): CPU tensors stand for the kernels' device
(Operator.device_attribute), the kernels' launches are recorded instead of
made, and tuning times every config with a stand-in timer. Checked: a
repeated launch of a tuned kernel comes from the launch table of its
`Tuned` (no autotuner, knob or pruning on the way) with the keywords the
autotuner chose; the table starts over with the tuner's cache; the
untuned setting; the eager row operators pass their tensors to the kernels
as they are (no views, no copies of contiguous inputs); `eager` lets only
valid calls on plain tensors skip the checks, so that errors keep their
messages."""

import pytest

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402
from tilelang.autotune import core  # noqa: E402
from tilelang.jit import JITFunction  # noqa: E402
from tilelang.ops import _autograd, _matmul, _norm, _runtime, _softmax, spaces  # noqa: E402
from tilelang.ops._runtime import Operator, Tuned, eager  # noqa: E402

FAKE_DEVICE = {"name": "stand-in", "arch": "sm_90a", "max_threads_per_block": 1024, "max_shared_memory": 232448}


class Launches(list):
    """The kernels' launches, recorded as (kernel name, grid, args, keywords)."""

    def names(self):
        return [name for name, _, _, _ in self]


@pytest.fixture
def launches(tmp_path, monkeypatch):
    """CPU tensors as the kernels' device, launches recorded, sweeps timed
    by a stand-in (each config's time its position in the space: the first
    config kept wins), a store of the test's own; every tuner of the
    operators starts with an empty cache."""
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(Operator, "device_attribute", "is_cpu")
    # Launches are recorded in Python here: no backward is resolved for C++.
    monkeypatch.setattr(_autograd, "enabled", False)
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(FAKE_DEVICE))
    recorded = Launches()

    def subscript(kernel, grid):
        def launch(*args, **kwargs):
            recorded.append((kernel.__name__, grid, args, kwargs))

        return launch

    monkeypatch.setattr(JITFunction, "__getitem__", subscript)

    def sweep(self, configs, grid, args, kwargs, nargs, device):
        core.stats.sweeps += 1
        return {c.ident(): {"id": c.ident(), "config": str(c), "kwargs": dict(c.kwargs), "num_warps": c.num_warps,
                            "num_stages": c.num_stages, "time_ms": 1.0 + index, "status": "ok", "reason": None,
                            "timestamp": "2026-11-25T00:00:00Z"} for index, c in enumerate(configs)}

    monkeypatch.setattr(core.Autotuner, "_sweep", sweep)
    for module in (_matmul, _norm, _softmax):
        for value in vars(module).values():
            if isinstance(value, Tuned):
                monkeypatch.setattr(value.tuner, "cache", {})
    return recorded


def same_bits(a, b) -> bool:
    return torch.equal(a.view(torch.int16), b.view(torch.int16))


def _refuse(*args, **kwargs):
    raise AssertionError("a repeated launch went through the autotuner")


def test_a_known_key_launches_what_the_autotuner_chose(launches, monkeypatch):
    tuned = Tuned("softmax_fwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                  heuristics={"ROW_FITS": _softmax._row_fits})
    x, y = torch.empty(3, 300), torch.empty(3, 300)
    sweeps = core.stats.sweeps
    tuned.launch((300, torch.float32), (3,), y, x, 300, 300, 300)
    assert core.stats.sweeps == sweeps + 1
    first = launches[-1]
    monkeypatch.setattr(core.Autotuner, "run", _refuse)
    monkeypatch.setattr(_runtime.knobs, "ops_autotune", _refuse)
    tuned.launch((300, torch.float32), (5,), y, x, 300, 300, 300)
    name, grid, args, keywords = launches[-1]
    assert (name, args) == ("softmax_fwd", (y, x, 300, 300, 300)) and grid == (5,)
    # The config's keywords and the heuristic's value, as the autotuner launched them.
    assert keywords == first[3] and keywords["ROW_FITS"] is True and keywords["BLOCK_SIZE"] == 512
    assert keywords == dict(tuned.tuner.best_config.all_kwargs(), ROW_FITS=True)


def test_a_callable_grid_gets_the_launch_keywords(launches):
    tuned = Tuned("softmax_fwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                  heuristics={"ROW_FITS": _softmax._row_fits})
    x = torch.empty(2, 3000)
    for _ in range(2):
        tuned.launch((3000, torch.float32), lambda meta: (meta["BLOCK_SIZE"] // 1024, 7), x, x, 3000, 3000, 3000)
    assert launches[-1][1] == (4, 7)


def test_replacing_the_tuners_cache_tunes_again(launches, monkeypatch):
    tuned = Tuned("softmax_fwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                  heuristics={"ROW_FITS": _softmax._row_fits})
    x = torch.empty(2, 1000)
    tuned.launch((1000, torch.float32), (2,), x, x, 1000, 1000, 1000)
    runs = []
    run = core.Autotuner.run
    monkeypatch.setattr(core.Autotuner, "run", lambda self, *a, **k: runs.append(1) or run(self, *a, **k))
    tuned.launch((1000, torch.float32), (2,), x, x, 1000, 1000, 1000)
    assert runs == []
    tuned.tuner.cache = {}  # what the GPU tests of tilelang.ops do to tune again
    tuned.launch((1000, torch.float32), (2,), x, x, 1000, 1000, 1000)
    assert runs == [1]


def test_the_untuned_setting_is_taken_at_a_keys_first_launch(launches, monkeypatch):
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    tuned = Tuned("softmax_fwd", spaces.ROWS, key=["n_cols"], prune=spaces.prune_rows("n_cols"),
                  heuristics={"ROW_FITS": _softmax._row_fits})
    x = torch.empty(2, 5000)
    sweeps = core.stats.sweeps
    for _ in range(2):
        tuned.launch((5000, torch.float32), (2,), x, x, 5000, 5000, 5000)
    assert core.stats.sweeps == sweeps
    untuned = spaces.configs(spaces.ROWS)
    first_kept = spaces.prune_rows("n_cols")(untuned, {"n_cols": 5000})[0]
    assert [k for _, _, _, k in launches] == [dict(first_kept.all_kwargs(), ROW_FITS=True)] * 2


def test_eager_row_operators_pass_their_tensors_as_they_are(launches):
    x = torch.randn(2, 3, 40)
    w, b = torch.rand(40) + 0.5, torch.randn(40)
    for _ in range(2):  # the first call tunes, the second comes from the launch table
        y = ops.layer_norm(x, w, b)
        name, grid, args, _ = launches[-1]
        assert name == "layer_norm_fwd" and grid == (6,)
        assert args[0] is x and args[1] is y and args[2] is w and args[3] is b and args[6:] == (40, 40, 1e-5)
        # Recording nothing, the mean and 1/std go to one scratch buffer nothing reads.
        assert args[4] is args[5] and args[4].shape == (6,)
        assert y.shape == x.shape and y.is_contiguous()
        y = ops.softmax(x)
        name, grid, args, _ = launches[-1]
        assert name == "softmax_fwd" and grid == (6,) and args[:2] == (y, x) and args[2:] == (40, 40, 40)
    y = ops.layer_norm(x, w, b.clone().requires_grad_())
    args = launches[-1][2]
    assert args[4].data_ptr() != args[5].data_ptr() and y.grad_fn.saved_tensors[2].data_ptr() == args[4].data_ptr()
    # A contiguous input with a size-1 dimension of another stride is taken as it
    # is; the outputs have the canonical strides, as the fake implementations say.
    odd = torch.randn(1, 4, 40).transpose(0, 1)
    assert odd.is_contiguous() and odd.stride() == (40, 160, 1)
    for call in (lambda: ops.layer_norm(odd, w, b), lambda: ops.rms_norm(odd, w), lambda: ops.softmax(odd)):
        out = call()
        assert any(a is odd for a in launches[-1][2]) and out.stride() == (40, 40, 1)
    # A non-contiguous input is copied once, into rows the row length apart.
    t = torch.randn(40, 6).t()
    ops.rms_norm(t, w)
    name, grid, args, _ = launches[-1]
    assert name == "rms_norm_fwd" and grid == (6,) and args[0].is_contiguous() and torch.equal(args[0], t)
    assert args[4:6] == (40, 40)


def test_eager_admits_only_valid_calls_on_plain_tensors(monkeypatch):
    monkeypatch.setattr(Operator, "device_attribute", "is_cpu")
    x = torch.randn(4, 8, dtype=torch.float16)
    w = torch.randn(8, dtype=torch.float16)
    assert eager(x, _runtime.FLOATS, w, None) is False
    assert eager(x, _runtime.FLOATS, w.clone().requires_grad_()) is True
    assert eager(torch.nn.Parameter(x), _runtime.FLOATS) is True
    with torch.no_grad():
        assert eager(x.clone().requires_grad_(), _runtime.FLOATS) is False
    refused = [
        (x.int(), ()), (x, (w.float(),)), (x, (w[:7],)), (x, (w.view(2, 4),)), (torch.tensor(1.0), ()),
        (x, (torch.empty(8, dtype=torch.float16, device="meta"),)), (torch.empty(4, 8, device="meta"), ()),
    ]
    for tensor, params in refused:
        assert eager(tensor, _runtime.FLOATS, *params) is None, (tensor, params)
    monkeypatch.setattr(Operator, "device_attribute", "is_cuda")
    assert eager(x, _runtime.FLOATS) is None


def test_refused_calls_keep_their_messages(launches):
    x = torch.randn(4, 16, dtype=torch.float16)
    with pytest.raises(ValueError, match="tilelang.ops.layer_norm: weight has 15 elements, x's last dimension 16"):
        ops.layer_norm(x, torch.empty(15, dtype=torch.float16))
    with pytest.raises(TypeError, match="tilelang.ops.rms_norm: weight has dtype float32 but x has float16"):
        ops.rms_norm(x, torch.empty(16))
    with pytest.raises(ValueError, match="eps must be positive"):
        ops.layer_norm(x, eps=0.0)
    with pytest.raises(TypeError, match="tilelang.ops.softmax: x has dtype int32"):
        ops.softmax(x.int())
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        ops.softmax(x, 2)
    assert launches == []


def test_a_backward_step_launches_its_kernels_from_the_tables(launches, monkeypatch):
    monkeypatch.setattr(_runtime, "multiprocessors", lambda device: 132)
    x = torch.randn(300, 1000, dtype=torch.float16, requires_grad=True)
    w = (torch.rand(1000, dtype=torch.float16) + 0.5).requires_grad_()
    b = torch.randn(1000, dtype=torch.float16, requires_grad=True)
    dy = torch.randn(300, 1000, dtype=torch.float16)
    ops.layer_norm(x, w, b).backward(dy)  # tunes
    assert launches.names() == ["layer_norm_fwd", "norm_bwd_fused", "column_sum"]
    monkeypatch.setattr(core.Autotuner, "run", _refuse)
    del launches[:]
    x.grad = w.grad = b.grad = None
    ops.layer_norm(x, w, b).backward(dy)
    assert launches.names() == ["layer_norm_fwd", "norm_bwd_fused", "column_sum"]
    _, grid, args, keywords = launches[1]
    # dx, the partial sums of dw and db, then dy and x as they are (rows 1000 apart). The
    # gradients (never written: nothing ran) are compared bit for bit: autograd keeps a copy
    # of a result referenced elsewhere.
    assert same_bits(args[0], x.grad) and args[3] is dy and args[4].data_ptr() == x.data_ptr()
    assert args[8:] == (1000, 300, 1000) and grid == (spaces.norm_bwd_programs(300, 132),)
    assert keywords["INPUT_GRAD"] and keywords["WEIGHT_GRAD"] and keywords["HAS_BIAS"]
    _, _, args, _ = launches[2]
    # column_sum writes the gradients in the parameters' dtype: nothing converts them afterwards.
    assert args[0].dtype == args[2].dtype == torch.float16
    assert same_bits(args[0], w.grad) and same_bits(args[2], b.grad)


def test_the_fused_norm_backward_counts_rows_in_64_bits_from_2_30_rows(launches):
    """Where norm_bwd_fused's row indices (a tile's first row plus the
    step, about 2 m with one tile a program) can pass 2**31 - 1, the launch
    asks for rows counted in 64 bits (ROWS_64): from 2**30 - 2 rows on.
    The tensors (2 GB and more) are allocated (virtual memory), never
    touched."""
    for m, rows_64 in ((2**30 - 3, False), (2**30 - 2, True)):
        x = torch.empty(m, 1, dtype=torch.float16)
        rstd = torch.empty(m)
        _norm._norm_bwd(x, x, None, None, rstd, True, True, False, False)
        name, _, _, keywords = launches[-1]
        assert name == "norm_bwd_fused" and keywords["ROWS_64"] is rows_64
        del x, rstd


def test_extents_past_the_32_bit_indices_are_refused(launches):
    """Rows longer than MAX_EXTENT (2**31 - 2**16) and products with an M,
    N or K past it are refused with the limit named, before anything is
    copied or launched: the kernels index a row's elements (a product's
    rows, columns and K) in 32 bits, and a block past the end would wrap to
    negative indices that pass their masks. One element less is taken.
    (Expanded tensors: nothing is allocated.)"""
    long = _runtime.MAX_EXTENT + 1
    row = torch.empty(1, 1, dtype=torch.float16).expand(2, long)
    for call in (ops.softmax, ops.layer_norm, ops.rms_norm):
        with pytest.raises(ValueError, match=rf"tilelang\.ops\.\w+: a row length of {long}; .* at most "
                                             rf"{_runtime.MAX_EXTENT} \(2\*\*31 - 2\*\*16\)"):
            call(row)
    with pytest.raises(ValueError, match=rf"tilelang\.ops\.matmul: a product of M of {long};"):
        ops.matmul(torch.empty(1, 1, dtype=torch.float16).expand(long, 8), torch.empty(8, 8, dtype=torch.float16))
    with pytest.raises(ValueError, match=rf"tilelang\.ops\.matmul: a product of M of {long + 1};"):
        ops.matmul(torch.empty(1, 1, 1, dtype=torch.float16).expand(2, long // 2 + 1, 8),
                   torch.empty(8, 8, dtype=torch.float16))
    with pytest.raises(ValueError, match=rf"tilelang\.ops\.matmul: a product of N of {long};"):
        ops.matmul(torch.empty(8, 8, dtype=torch.float16), torch.empty(1, 1, dtype=torch.float16).expand(8, long))
    with pytest.raises(ValueError, match=rf"tilelang\.ops\.matmul: a product of K of {long};"):
        ops.matmul(torch.empty(1, 1, dtype=torch.float16).expand(8, long),
                   torch.empty(1, 1, dtype=torch.float16).expand(long, 8))
    assert launches == []
    _runtime.check_extent("matmul", "a product of K", _runtime.MAX_EXTENT)


def test_devices_of_two_models_get_their_own_launches(launches, monkeypatch):
    """In a process whose devices are of two models, a shape tuned and
    recorded on one is tuned again on the other: the launch tables (and the
    tuner's cache) are keyed by the model of the arguments' device (here the
    current one: the stand-in tensors are CPU tensors), and each device then
    launches from its own model's entry. Before, the table's key held
    the shapes and dtypes alone, and cuda:1 launched cuda:0's choice."""
    models = ("NVIDIA H200", "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(core, "_DEVICE_MODELS", models)
    monkeypatch.setattr(core, "_SEVERAL_MODELS", True)
    current = [0]
    monkeypatch.setattr(core, "current_device", lambda: current[0])
    monkeypatch.setattr(core, "device_properties",
                        lambda device=None: dict(FAKE_DEVICE, name=models[current[0] if device is None else device]))
    monkeypatch.setattr(_softmax._SOFTMAX_FWD, "_launches", {})
    x = torch.randn(4, 300)
    sweeps = core.stats.sweeps
    for device in (0, 1, 0, 1):
        current[0] = device
        ops.softmax(x)
    assert core.stats.sweeps == sweeps + 2
    assert launches.names() == ["softmax_fwd"] * 4
    tables = _softmax._SOFTMAX_FWD._launches
    assert {model for _, model in tables} == {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}


def test_untuned_launch_tables_are_keyed_by_model_without_a_tuner_run(launches, monkeypatch):
    """Under TILELANG_OPS_AUTOTUNE=0 no autotuner runs, and the launch table
    asks whether the devices are of several models itself: the two
    devices' launches are kept under their models. Before, only an
    autotuner's first run asked (core._SEVERAL_MODELS stayed None), and
    untuned tables were keyed by the arguments alone."""
    models = ("NVIDIA H200", "NVIDIA H100 80GB HBM3")
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", "0")
    monkeypatch.setattr(core, "_DEVICE_MODELS", None)
    monkeypatch.setattr(core, "_SEVERAL_MODELS", None)
    monkeypatch.setattr(core, "device_count", lambda: len(models))
    monkeypatch.setattr(core, "device_name", lambda device: models[device])
    current = [0]
    monkeypatch.setattr(core, "current_device", lambda: current[0])
    monkeypatch.setattr(core.Autotuner, "run", _refuse)
    monkeypatch.setattr(_softmax._SOFTMAX_FWD, "_launches", {})
    x = torch.randn(4, 300)
    for device in (0, 1, 0, 1):
        current[0] = device
        ops.softmax(x)
    assert launches.names() == ["softmax_fwd"] * 4
    assert core._SEVERAL_MODELS is True
    assert sorted(model for _, model in _softmax._SOFTMAX_FWD._launches) == sorted(models)


@pytest.mark.parametrize("knob,value", [("TILELANG_OCCUPANCY_SEARCH", "0"), ("TILELANG_DEBUG", "1")])
def test_launch_tables_start_over_when_a_compile_knob_changes(launches, monkeypatch, knob, value):
    """A launch table's entries hold for the compile knobs' values they were
    recorded under (_runtime.knobs_hold): once the process sets one of them,
    the next launch of a known key records again, through the kernel's own
    launch, which compiles and links for the new values. Before, the old
    entry was launched whatever the knobs said."""
    monkeypatch.delenv(knob, raising=False)
    x = torch.randn(4, 300)
    recorded = []
    record = Tuned._record
    monkeypatch.setattr(Tuned, "_record", lambda self, *args: (recorded.append(self.name), record(self, *args)))
    ops.softmax(x)
    ops.softmax(x)
    assert recorded == ["softmax_fwd"]
    monkeypatch.setenv(knob, value)
    ops.softmax(x)
    ops.softmax(x)
    assert recorded == ["softmax_fwd"] * 2
    assert launches.names() == ["softmax_fwd"] * 4


def test_a_repeated_matmul_launches_from_the_table(launches, monkeypatch):
    a = torch.randn(37, 64, dtype=torch.float16)
    b = torch.randn(50, 64, dtype=torch.float16).t()  # column-major, columns 64 apart
    bias = torch.randn(50, dtype=torch.float16)
    ops.matmul(a, b, bias, activation="gelu")
    first = launches[-1]
    monkeypatch.setattr(core.Autotuner, "run", _refuse)
    out = ops.matmul(a, b, bias, activation="gelu")
    name, grid, args, keywords = launches[-1]
    assert name == "matmul_epilogue_kernel" and keywords == first[3] and grid == first[1](keywords)
    assert args[0] is a and args[1] is b and args[2] is bias and args[3] is out
    assert args[4:] == (37, 50, 64, 64, 1, 1, 64, 50, 1)
    assert keywords["ACTIVATION"] == "gelu" and keywords["HAS_BIAS"] and keywords["EVEN_K"] is True
    rows = -(-37 // keywords["BLOCK_SIZE_M"]) * -(-50 // keywords["BLOCK_SIZE_N"])
    assert grid == (rows,)


def test_the_norms_and_the_persistent_matmul_read_one_multiprocessor_count(launches, monkeypatch):
    """The device's multiprocessor count is one fact, _runtime.multiprocessors:
    the persistent matmul's programs and norm_bwd_fused's groups both come
    from it. Before, the matmul read _norm's, so a stand-in count given to
    _runtime did not reach it (here: torch's CUDA properties, on a CPU
    tensor)."""
    monkeypatch.setattr(_runtime, "multiprocessors", lambda device: 7)
    a = torch.randn(1000, 64, dtype=torch.float16)
    b = torch.randn(64, 2000, dtype=torch.float16)
    ops.matmul(a, b)
    name, grid, _, keywords = launches[-1]
    tiles = -(-1000 // keywords["BLOCK_SIZE_M"]) * -(-2000 // keywords["BLOCK_SIZE_N"])
    assert name == "matmul_epilogue_kernel" and tiles > 14
    assert grid(dict(keywords, PERSISTENT=2)) == (14,)
    x = torch.randn(3000, 100, dtype=torch.float16, requires_grad=True)
    w = torch.ones(100, dtype=torch.float16, requires_grad=True)
    ops.rms_norm(x, w).backward(torch.randn(3000, 100, dtype=torch.float16))
    name, grid, _, _ = [launch for launch in launches if launch[0] == "norm_bwd_fused"][-1]
    assert grid == (spaces.norm_bwd_programs(3000, 7),) == (14,)


def test_a_matmul_past_2_31_elements_forms_its_offsets_in_64_bits(launches):
    """Where a tile's row offsets (rows * stride) of A, B or the output can
    reach 2**31 elements, the launch asks for 64-bit offsets (OFFSETS_64),
    and its launch table tells the two forms apart: A's rows 2**23 elements
    apart and the same product on a contiguous A (equal sizes, dtypes and
    strides of 8); B's columns 2**23 apart; a 35792 x 60000 output (its
    last row starts past 2**31). The large tensors are allocated (virtual
    memory), never touched."""
    b = torch.randn(8, 50, dtype=torch.float16)
    far_rows = torch.empty(100, 2**23, dtype=torch.float16)[:, :8]
    ops.matmul(far_rows, b)
    assert launches[-1][3]["OFFSETS_64"] is True
    ops.matmul(torch.randn(100, 8, dtype=torch.float16), b)
    assert launches[-1][3]["OFFSETS_64"] is False
    far_columns = torch.empty(50, 2**23, dtype=torch.float16)[:, :8].t()
    ops.matmul(torch.randn(100, 8, dtype=torch.float16), far_columns)
    assert launches[-1][3]["OFFSETS_64"] is True
    ops.matmul(torch.randn(35792, 8, dtype=torch.float16), torch.randn(8, 60000, dtype=torch.float16))
    assert launches[-1][3]["OFFSETS_64"] is True


def test_a_batched_matmul_of_an_empty_k(launches):
    """a (2, 3, 0) @ b (0, 5): the epilogue of a zero product (gelu of the
    bias) in a's batch shape, and gradients of the inputs' shapes; the
    flattening of a's batch dimensions was reshape(-1, 0), which torch
    refuses as ambiguous."""
    a = torch.randn(2, 3, 0, dtype=torch.float16, requires_grad=True)
    b = torch.randn(0, 5, dtype=torch.float16, requires_grad=True)
    bias = torch.randn(5, dtype=torch.float16, requires_grad=True)
    out = ops.matmul(a, b, bias, activation="gelu")
    want = torch.nn.functional.gelu(bias.detach().float()).to(torch.float16).expand(2, 3, 5)
    assert out.shape == (2, 3, 5) and torch.equal(out, want)
    out.sum().backward()
    assert a.grad.shape == (2, 3, 0) and b.grad.shape == (0, 5) and bias.grad.shape == (5,)
    assert not [name for name in launches.names() if name == "matmul_epilogue_kernel"]


def test_attention_tells_its_kernel_the_offsets_width(launches, monkeypatch):
    """ops.attention's tuned launch computes OFFSETS_64 per call (a
    heuristic beside WHOLE_BLOCKS), and from q's strides: a (B, N_CTX, H, D)
    q whose heads' rows reach 2**31 elements asks for 64-bit offsets
    (allocated, never touched), a small one does not."""
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(FAKE_DEVICE, max_shared_per_block=232448))
    k = torch.randn(1, 1, 4224, 128, dtype=torch.float16)
    ops.attention(torch.randn(1, 2, 4224, 128, dtype=torch.float16), k, k)
    assert launches[-1][0] == "attention_fwd_kernel" and launches[-1][3]["OFFSETS_64"] is False
    q = torch.empty(1, 4224, 4096, 128, dtype=torch.float16).transpose(1, 2)
    ops.attention(q, k, k)
    assert launches[-1][3]["OFFSETS_64"] is True


def test_torch_compile_traces_the_operators_without_graph_breaks(launches, monkeypatch):
    # The eager path's own look (eager) is the first thing torch.compile
    # traces in each operator: it must not break the graph.
    monkeypatch.setattr(_runtime, "multiprocessors", lambda device: 132)
    torch._dynamo.reset()
    w = (torch.rand(64, dtype=torch.float16) + 0.5).requires_grad_()
    b = torch.randn(64, dtype=torch.float16, requires_grad=True)
    m = torch.randn(64, 64, dtype=torch.float16, requires_grad=True)

    def model(x):
        h = ops.layer_norm(x, w, b)
        h = ops.matmul(h, m, b)
        return ops.softmax(ops.rms_norm(h, w))

    x = torch.randn(3, 5, 64, dtype=torch.float16, requires_grad=True)
    explanation = torch._dynamo.explain(model)(x)
    assert explanation.graph_break_count == 0 and explanation.graph_count == 1
    torch._dynamo.reset()
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    compiled(x).backward(torch.randn(3, 5, 64, dtype=torch.float16))
    names = launches.names()
    assert {"layer_norm_fwd", "matmul_epilogue_kernel", "rms_norm_fwd", "softmax_fwd", "softmax_bwd",
            "norm_bwd_fused", "column_sum"} <= set(names)
    torch._dynamo.reset()


@pytest.mark.parametrize("activation", [None, "relu"])
def test_matmul_backward_converts_nothing(launches, monkeypatch, activation):
    # dz is already in the operands' dtype and a sum over fp16 accumulates in
    # fp32: no .float() copy of dz, no .to() of a mask or of the bias gradient.
    a = torch.randn(37, 64, dtype=torch.float16, requires_grad=True)
    b = torch.randn(64, 50, dtype=torch.float16, requires_grad=True)
    bias = torch.randn(50, dtype=torch.float16, requires_grad=True)
    out = ops.matmul(a, b, bias, activation=activation)
    # The stand-in launch wrote nothing: the output (relu's saved mask) gets
    # values of both signs, behind autograd's back (.data: no version bump).
    out.data.copy_(torch.randn(37, 50, dtype=torch.float16))
    dy = torch.randn(37, 50, dtype=torch.float16)
    expected = (dy.double() * (out.detach() > 0) if activation == "relu" else dy.double()).sum(0)

    def refused(self, *args, **kwargs):
        raise AssertionError("a conversion in the matmul backward")

    monkeypatch.setattr(torch.Tensor, "float", refused)
    monkeypatch.setattr(torch.Tensor, "to", refused)
    out.backward(dy)
    monkeypatch.undo()
    assert bias.grad.dtype == torch.float16
    assert (bias.grad.double() - expected).abs().max() <= 1e-2 * expected.abs().max()
    assert [name for name in launches.names() if name == "matmul_epilogue_kernel"] == ["matmul_epilogue_kernel"] * 3


def test_the_norms_autograd_function_returns_the_output_alone(launches, monkeypatch):
    # The statistics are saved as intermediates, not outputs autograd wraps;
    # a second derivative is still refused by the backward operator's node.
    monkeypatch.setattr(_runtime, "multiprocessors", lambda device: 132)
    x = torch.randn(7, 33, dtype=torch.float16, requires_grad=True)
    w = (torch.rand(33, dtype=torch.float16) + 0.5).requires_grad_()
    for call, stats in ((lambda: ops.layer_norm(x, w), (4, 5)), (lambda: ops.rms_norm(x, w), (3,))):
        y = call()
        args = launches[-1][2]
        assert y.requires_grad and not any(args[i].requires_grad for i in stats)
        (dx,) = torch.autograd.grad(y, x, torch.randn_like(y), create_graph=True)
        assert dx.requires_grad
        with pytest.raises(RuntimeError, match="no autograd formula"):
            dx.float().sum().backward()


def test_strided_norm_parameters_reach_the_kernels_contiguous(launches, monkeypatch):
    # The kernels read weight and bias at consecutive addresses (W + cols):
    # a strided parameter (every other element of a buffer) was passed as it
    # is, and its rows read the wrong elements.
    monkeypatch.setattr(_runtime, "multiprocessors", lambda device: 132)
    x = torch.randn(5, 40, dtype=torch.float16, requires_grad=True)
    w = (torch.rand(80, dtype=torch.float16) + 0.5)[::2].requires_grad_()
    b = torch.randn(80, dtype=torch.float16)[::2].requires_grad_()
    for call, forward_params, name in ((lambda: ops.layer_norm(x, w, b), (2, 3), "layer_norm_fwd"),
                                       (lambda: ops.rms_norm(x, w), (2,), "rms_norm_fwd")):
        y = call()
        first = len(launches)
        forward = next(launch for launch in launches if launch[0] == name)
        y.backward(torch.randn_like(y))
        backward = next(launch for launch in launches[first:] if launch[0] == "norm_bwd_fused")
        for tensor, given in [(forward[2][i], (w, b)[k]) for k, i in enumerate(forward_params)] + \
                [(backward[2][5], w)]:
            assert tensor.is_contiguous() and torch.equal(tensor, given)
        launches.clear()


@pytest.mark.parametrize("requires_grad", [False, True])
def test_forward_mode_ad_is_refused(launches, requires_grad):
    """Forward-mode AD (torch.autograd.forward_ad): the kernels compute
    primals only. A call on a dual tensor raises, naming the operator; it
    returned a result without a tangent before where the input did not
    require grad (the eager path and torch's custom operator alike drop it),
    and raised torch's "implement the jvp" about an autograd.Function where
    it did. Inside a dual level, calls on plain tensors still run."""
    import torch.autograd.forward_ad as forward_ad

    x = torch.randn(4, 300, dtype=torch.float16)
    w = torch.rand(300, dtype=torch.float16) + 0.5
    b = torch.randn(300, 16, dtype=torch.float16)
    calls = {"softmax": lambda t: ops.softmax(t), "softmax dim 0": lambda t: ops.softmax(t, 0),
             "layer_norm": lambda t: ops.layer_norm(t, w), "rms_norm": lambda t: ops.rms_norm(t, w),
             "matmul": lambda t: ops.matmul(t, b), "batched matmul": lambda t: ops.matmul(t.view(2, 2, 300), b)}
    with forward_ad.dual_level():
        for name, call in calls.items():
            dual = forward_ad.make_dual(x.clone().requires_grad_(requires_grad), torch.ones_like(x))
            with pytest.raises(NotImplementedError, match=r"tilelang\.ops \(tilelang::\w+\): argument 0 is a "
                                                          r"dual tensor of forward-mode AD"):
                call(dual)
            assert launches == [], name
        ops.softmax(x)
        ops.layer_norm(x, w)
    assert launches.names() == ["softmax_fwd", "layer_norm_fwd"]


def test_a_strided_matmul_bias_reaches_the_kernel_contiguous(launches):
    # The kernel reads the bias at consecutive addresses (bias_ptr + cols): a
    # bias that is every other element of a buffer was passed as it is, and
    # each column added the wrong element (the norms' parameters: above).
    a = torch.randn(5, 32, dtype=torch.float16)
    b = torch.randn(32, 16, dtype=torch.float16)
    bias = torch.randn(32, dtype=torch.float16)[::2]
    for call in (lambda: ops.matmul(a, b, bias), lambda: ops.matmul(a.requires_grad_(), b, bias, "gelu")):
        call()
        (name, _, args, keywords), = launches
        assert name == "matmul_epilogue_kernel" and keywords["HAS_BIAS"]
        assert args[2].is_contiguous() and torch.equal(args[2], bias)
        launches.clear()


@pytest.mark.parametrize("autotune", ["1", "0"])
def test_attention_drops_its_kernels_dispatcher_when_a_compile_knob_changes(launches, monkeypatch, autotune):
    """ops.attention has no launch table: it launches its kernel through the
    kernel's own dispatcher (under its autotuner, or untuned), where the
    kernel compiled and linked for the old knob values is kept. After a
    compile knob changes, its next call drops that dispatcher before it
    launches (_runtime.knobs_hold), so the launch compiles and links for
    the new values. Before, only another operator's lookup dropped it: a
    process that ran attention alone kept its first kernel silently."""
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(FAKE_DEVICE, max_shared_per_block=232448))
    monkeypatch.setenv("TILELANG_OPS_AUTOTUNE", autotune)
    monkeypatch.delenv("TILELANG_OCCUPANCY_SEARCH", raising=False)
    dropped = []

    class Dispatcher:
        def clear(self):
            dropped.append(len(launches))

    monkeypatch.setattr(_runtime.kernels()["attention_fwd_kernel"], "_dispatcher", Dispatcher())
    q = torch.randn(1, 2, 100, 64, dtype=torch.float16)
    ops.attention(q, q, q)  # under the knobs' values of now (an earlier test's may differ)
    dropped.clear()
    ops.attention(q, q, q)
    assert dropped == []
    monkeypatch.setenv("TILELANG_OCCUPANCY_SEARCH", "0")
    ops.attention(q, q, q)
    ops.attention(q, q, q)
    assert dropped == [2]
    assert launches.names() == ["attention_fwd_kernel"] * 4
