"""The autotuner's core: ``Config``, ``Autotuner`` (``@tilelang.autotune``)
and ``Heuristics`` (``@tilelang.heuristics``), compatible with Triton's.

A sweep, for a key it has not seen in this process:

1. the entry id is computed from the kernel's identity (a hash of its source
   and of the sources of the ``@jit`` functions it names), the key arguments'
   values, the dtypes of all tensor arguments, the device name and the
   compiler's version and build id;
2. records of this entry found in the store (autotune.json, see store.py)
   are reused: only configs without a record are compiled and timed;
3. the new configs are compiled (tile IR, then PTX) before anything is
   timed; a config whose threads or shared memory exceed the device's limits,
   or whose compilation fails, is pruned with its reason recorded;
4. the others are timed with ``do_bench`` (tilelang.testing.do_bench by
   default), a progress bar showing the sweep; with several devices asked
   for (``devices=`` or TILELANG_AUTOTUNE_DEVICES), one thread per device
   times the configs in parallel, each on its own copy of the arguments;
5. with the default timer, the near-tied fastest configs are timed again in
   rotating order (the runoff, see RUNOFF_MARGIN);
6. the records are merged into the store under its lock, and the best config
   is remembered in memory for the key.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import inspect
import json
import math
import os
import queue
import sys
import textwrap
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from tilelang import knobs
from tilelang.autotune import schema, store as _store
from tilelang.autotune.progress import progress
from tilelang.errors import CompilationError
from tilelang.options import DEFAULT_OPTIONS

MAX_THREADS_PER_BLOCK = 1024

#: The runoff that ends a sweep timed with the default timer: the configs
#: that came within RUNOFF_MARGIN of the fastest (at most RUNOFF_SIZE of
#: them) are timed again, RUNOFF_ROUNDS times each in rotating order, and
#: keep the median of those rounds. One pass in order hands the GPU's clock
#: drift to the configs' positions: the first config timed after an idle
#: spell runs at ramping clocks, later ones under the heat of the earlier,
#: and near-tied configs differ by less than that drift (bench/results,
#: the bundled attention's configs swept in alternation).
RUNOFF_MARGIN = 0.10
RUNOFF_SIZE = 4
RUNOFF_ROUNDS = 3


@dataclass
class Stats:
    """What this process's autotuners did (the tests read it)."""

    sweeps: int = 0  # sweeps that timed or pruned at least one config
    benchmarks: int = 0  # configs timed with do_bench
    runoffs: int = 0  # sweeps that ended in a runoff between near-tied configs
    runoff_timings: int = 0  # of benchmarks, those the runoffs timed
    compiled: int = 0  # configs compiled for a sweep
    reused: int = 0  # config records reused from the store
    store_errors: List[str] = field(default_factory=list)


stats = Stats()
_stats_lock = threading.Lock()


#: Argument types the quick key of a launch takes by value (see
#: Autotuner._quick_key); other arguments count by their dtype.
_QUICK_SCALARS = (int, float, bool, str, type(None))
#: Quick keys an autotuner remembers before starting over.
_QUICK_LIMIT = 4096

#: Keywords of a launch that are options of the compilation, not arguments.
LAUNCH_OPTIONS = ("num_warps", "num_stages", "maxnreg")


class Config:
    """One point of a tuning space: ``kwargs`` are constexprs passed to the
    kernel, ``num_warps``, ``num_stages`` and ``maxnreg`` launch options
    (``maxnreg``: registers a thread may use at most, or None), ``pre_hook``
    called with the arguments (by name) before each launch of this config.
    ``num_ctas`` is accepted as Triton's is, and must be 1."""

    def __init__(self, kwargs: Dict[str, Any], num_warps: int = DEFAULT_OPTIONS.num_warps,
                 num_stages: int = DEFAULT_OPTIONS.num_stages, pre_hook: Optional[Callable] = None,
                 maxnreg: Optional[int] = DEFAULT_OPTIONS.maxnreg, num_ctas: int = DEFAULT_OPTIONS.num_ctas):
        from tilelang.options import check_launch_options

        # More warps than a block holds is left to the sweep, which prunes
        # the config for the device, saying why.
        num_warps, num_stages, maxnreg = check_launch_options(num_warps, num_stages, maxnreg, num_ctas,
                                                              device_limit=False)
        self.kwargs = dict(kwargs)
        self.num_warps = num_warps
        self.num_stages = num_stages
        self.maxnreg = maxnreg  # None: no cap (0 too, as in kernel[grid])
        self.pre_hook = pre_hook

    def _options(self) -> Dict[str, Any]:
        options = {"num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.maxnreg is not None:
            options["maxnreg"] = self.maxnreg
        return options

    def all_kwargs(self) -> Dict[str, Any]:
        return dict(self.kwargs, **self._options())

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        parts += [f"{k}: {v}" for k, v in self._options().items()]
        return ", ".join(parts)

    def __repr__(self) -> str:
        return f"Config({self.kwargs!r}, " + ", ".join(f"{k}={v}" for k, v in self._options().items()) + ")"

    def ident(self) -> str:
        """A stable identity for the store (pre_hook is not part of it)."""
        return schema.config_ident({k: _jsonable(v) for k, v in self.kwargs.items()}, self.num_warps,
                                   self.num_stages, self.maxnreg)

    def __eq__(self, other) -> bool:
        return isinstance(other, Config) and self.ident() == other.ident()

    def __hash__(self) -> int:
        return hash(self.ident())


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


# -- keying ------------------------------------------------------------------------------


def _base_jit(fn):
    """The JITFunction under Heuristics/Autotuner wrappers."""
    while isinstance(fn, (Autotuner, Heuristics)):
        fn = fn.fn
    return fn


def _source(fn) -> str:
    try:
        return textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        code = getattr(fn, "__code__", None)
        return repr(code.co_code) if code is not None else repr(fn)


def kernel_identity(jit_fn) -> str:
    """SHA-256 of the kernel's source and of the sources of the ``@jit``
    functions it names (globals or closure cells; one level)."""
    from tilelang.jit import JITFunction

    fn = jit_fn.fn
    parts = [_source(fn)]
    code = fn.__code__
    seen = set()
    candidates = [(name, fn.__globals__.get(name)) for name in code.co_names]
    if fn.__closure__:
        candidates += list(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__ if _has_value(c))))
    for name, value in sorted(candidates, key=lambda item: item[0]):
        if isinstance(value, JITFunction) and value is not jit_fn and name not in seen:
            seen.add(name)
            parts.append(f"{name}:{_source(value.fn)}")
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _has_value(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018
        return True
    except ValueError:
        return False


def _key_value(value):
    """A key argument's value as JSON: scalars as they are, tensors by dtype
    and shape."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{_dtype_name(value.dtype)}{list(value.shape)}"
    return repr(value)


def _dtype_name(dtype) -> str:
    from tilelang.jit import _dtype_string

    return _dtype_string(dtype) or str(dtype)


def compiler_identity() -> Dict[str, str]:
    from tilelang import _C, knobs

    identity = {"version": _C.version(), "build_id": _C.build_id()}
    if not knobs.occupancy_search():
        # Other cubins, other timings (docs/runtime.md, "Occupancy search").
        identity["occupancy_search"] = "off"
    return identity


#: Dense 16-bit tensor-core FLOP per clock per SM, by compute capability:
#: Hopper's wgmma, A100's mma.sync, and the consumer/Ada parts' half rate
#: with f32 accumulation. Other parts have no estimate.
TENSOR_FLOP_PER_CLOCK_PER_SM = {(9, 0): 4096, (8, 0): 2048, (8, 6): 1024, (8, 7): 1024, (8, 9): 1024}


def estimate_peaks(info: Dict[str, Any]) -> Dict[str, Optional[float]]:
    """The device's peak 16-bit tensor TFLOP/s (SMs x clock x the rate
    above) and DRAM GB/s (2 transfers per memory clock over the bus), from
    ``_C.device_info()``; None where the driver or the table has no answer."""
    sms, clock = info.get("multiprocessors", 0), info.get("clock_khz", 0)
    rate = TENSOR_FLOP_PER_CLOCK_PER_SM.get(tuple(info.get("capability", ())))
    tflops = sms * clock * 1e3 * rate / 1e12 if sms and clock and rate else None
    memory_clock, bus = info.get("memory_clock_khz", 0), info.get("memory_bus_bits", 0)
    gbps = 2 * memory_clock * 1e3 * bus / 8 / 1e9 if memory_clock and bus else None
    return {"tflops": tflops, "gbps": gbps}


def device_properties(device: Optional[int] = None) -> Dict[str, Any]:
    """name, arch, max_shared_per_block, max_threads_per_block and the
    estimated peaks of device ``device`` (None: the current device); arch
    is what the process compiles for (the CPU tests replace this
    function)."""
    from tilelang import _C
    from tilelang.jit import _current_arch

    info = _C.device_info() if device is None else _C.device_info(device)
    return {"name": info["name"], "arch": _current_arch(),
            "max_shared_per_block": int(info["max_shared_per_block"]),
            "max_threads_per_block": int(info.get("max_threads_per_block", MAX_THREADS_PER_BLOCK)),
            "peak": estimate_peaks(info)}


def device_count() -> int:
    """How many CUDA devices the driver sees (the CPU tests replace this)."""
    from tilelang import _C

    return _C.device_count()


def device_name(device: int) -> str:
    """The model name of device ``device`` (the CPU tests replace this)."""
    from tilelang import _C

    return _C.device_info(device)["name"]


def current_device() -> int:
    """The calling thread's current CUDA device (the CPU tests replace this)."""
    from tilelang import _C

    return _C.current_device()


#: The model name of each device the driver sees, read when the first
#: choice is keyed in the process (an autotuner's launch or a tilelang.ops
#: launch table's: keyed_by_model; None before; () without a driver), and
#: whether they are of more than one model (docs/autotune.md, "Devices of
#: several models"). Tests that present other devices reset both to None.
_DEVICE_MODELS: Optional[tuple] = None
_SEVERAL_MODELS: Optional[bool] = None


def several_models() -> bool:
    """Whether the devices of this process are of more than one model: the
    choices kept in memory (an autotuner's cache and quick keys, the launch
    tables of tilelang.ops) are then keyed by the model of the launch's
    device too. Asked of the driver once."""
    global _DEVICE_MODELS, _SEVERAL_MODELS
    if _SEVERAL_MODELS is None:
        try:
            models = tuple(device_name(d) for d in range(device_count()))
        except Exception:  # noqa: BLE001 - no driver: nothing launches, one model at most
            models = ()
        _DEVICE_MODELS, _SEVERAL_MODELS = models, len(set(models)) > 1
    return _SEVERAL_MODELS


def keyed_by_model() -> bool:
    """Whether the choices kept in memory are keyed by the model of the
    launch's device: several_models(), asked at the first key built in the
    process, whether or not an autotuner has run (tilelang.ops' launch
    tables are keyed under TILELANG_OPS_AUTOTUNE=0 too, where none does)."""
    return several_models() if _SEVERAL_MODELS is None else _SEVERAL_MODELS


def launch_model(args, kwargs) -> str:
    """The model of the device a launch with these arguments runs on (its
    first CUDA tensor's, else the current one); several_models() must have
    been asked."""
    return _DEVICE_MODELS[_home_device(args, kwargs)]


def _home_device(args, kwargs) -> int:
    """The device of the first CUDA tensor argument (torch's ``device.index``),
    else the current device."""
    for value in list(args) + list(kwargs.values()):
        value = getattr(value, "base", value) if hasattr(value, "block_shape") else value
        index = getattr(getattr(value, "device", None), "index", None)
        if getattr(value, "is_cuda", False) and isinstance(index, int):
            return index
    return current_device()


def _copy_layout(tensor, device: int):
    """A copy of torch tensor ``tensor`` on ``device`` with the same sizes,
    strides and storage offset (a kernel is passed its strides as they
    are; ``.to()`` would make a view with gaps or repeats dense): its whole
    storage is copied, and the same view taken of the copy."""
    elements = tensor.untyped_storage().nbytes() // tensor.element_size()
    whole = tensor.as_strided((elements,), (1,), 0)
    return whole.to(f"cuda:{device}").as_strided(tensor.size(), tensor.stride(), tensor.storage_offset())


def _parse_devices(value, option: str) -> Optional[Union[str, List[int]]]:
    """``devices=`` or the knob as "all", a list of ordinals, or None
    (time on the arguments' device alone); a ValueError saying what is
    wrong otherwise."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "none"):
            return None
        if text == "all":
            return "all"
        try:
            value = [int(part) for part in text.split(",") if part.strip()]
        except ValueError:
            raise ValueError(f"{option} must be 'all' or device ordinals separated by commas, got {value!r}") \
                from None
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    try:
        ordinals = [int(d) for d in value]
    except (TypeError, ValueError):
        raise ValueError(f"{option} must be 'all', None or a list of device ordinals, got {value!r}") from None
    if any(isinstance(d, bool) or d < 0 for d in value) or not ordinals:
        raise ValueError(f"{option} must be 'all', None or a list of device ordinals (ints >= 0), got {value!r}")
    return list(dict.fromkeys(ordinals))



# -- the decorators -------------------------------------------------------------------------


class _BoundLaunch:
    def __init__(self, owner, grid):
        self.owner, self.grid = owner, grid

    def __call__(self, *args, **kwargs):
        return self.owner.run(*args, grid=self.grid, **kwargs)


class _KernelCall:
    """What ``do_bench`` times: one launch of one config. ``config`` lets a
    fake timer (in the tests) tell the configs apart."""

    def __init__(self, run: Callable[[], Any], config: Config):
        self._run, self.config = run, config

    def __call__(self):
        return self._run()


class Autotuner:
    """``@tilelang.autotune(...)`` applied to a ``@tilelang.jit`` kernel (or
    a ``@tilelang.heuristics`` one). ``kernel[grid](*args)`` picks the best
    config for the key and launches with it."""

    def __init__(self, fn, configs: List[Config], key: List[str], prune_configs_by: Optional[dict] = None,
                 reset_to_zero: Optional[List[str]] = None, restore_value: Optional[List[str]] = None,
                 warmup: int = 25, rep: int = 100, do_bench: Optional[Callable] = None,
                 store_path: Optional[str] = None, work: Optional[Callable[[Dict[str, Any]], dict]] = None,
                 bucket: Optional[Dict[str, Callable[[Any], Any]]] = None,
                 devices: Optional[Union[str, Sequence[int]]] = None):
        if not configs:
            configs = [Config({})]
        self.fn = fn
        self.base = _base_jit(fn)
        self.params = list(self.base.params)
        self.configs = list(configs)
        self.key = list(key)
        self.prune_configs_by = prune_configs_by or {}
        self.reset_to_zero = list(reset_to_zero or [])
        self.restore_value = list(restore_value or [])
        self.warmup_ms, self.rep_ms = warmup, rep
        self._do_bench = do_bench
        self.store_path = store_path
        self.work = work
        self.bucket = dict(bucket or {})
        # The devices a sweep times on ("all", ordinals, or None: the knob,
        # else the arguments' device alone).
        self.devices = _parse_devices(devices, "autotune(devices=...)")
        self.last_sweep_devices: List[int] = []  # the devices the last sweep timed on
        self.cache: Dict[Any, Config] = {}  # key tuple -> best config (in this process)
        # A launch's quick key (see _quick_key) -> its key in `cache`: a
        # repeated launch finds its config without bucketing, naming or
        # serializing anything.
        self._quick: Dict[Any, str] = {}
        self._key_positions = [(name, self.params.index(name)) for name in self.key if name in self.params]
        self.best_config: Optional[Config] = None
        self.last_sweep: Optional[dict] = None  # the entry written by the last sweep
        self.__name__ = getattr(self.base, "__name__", "kernel")
        for name in self.key + self.reset_to_zero + self.restore_value:
            if name not in self.params:
                raise ValueError(f"autotune: '{name}' is not a parameter of {self.__name__}")
        for name in self.bucket:
            if name not in self.key:
                raise ValueError(f"autotune: bucket names '{name}', which is not in the key of {self.__name__}")

    # -- launching ------------------------------------------------------------------------

    def __getitem__(self, grid):
        return _BoundLaunch(self, grid)

    def _launch(self, grid, config: Config, args, kwargs):
        """One launch of ``config`` (the CPU tests replace this)."""
        return self.fn[grid](*args, **kwargs, **config.all_kwargs())

    def do_bench(self, fn, quantiles=None):
        if self._do_bench is not None:
            return self._do_bench(fn, quantiles=quantiles)
        from tilelang import testing

        # The median, as Triton's autotuner takes it (do_bench's default is the mean).
        return testing.do_bench(fn, warmup=self.warmup_ms, rep=self.rep_ms, quantiles=quantiles,
                                return_mode="median")

    def _nargs(self, args, kwargs) -> Dict[str, Any]:
        nargs = dict(zip(self.params, args))
        nargs.update(kwargs)
        return nargs

    def _quick_key(self, args, kwargs):
        """What decides a launch's config, cheaply: the key arguments'
        values as they are (before bucketing), the keyword names, and the
        dtype of every argument that has one. None when a key argument is
        not a plain scalar (a tensor in the key: its shape counts)."""
        values = []
        for name, index in self._key_positions:
            value = args[index] if index < len(args) else kwargs.get(name)
            kind = type(value)
            if kind not in _QUICK_SCALARS:
                return None
            values.append((kind, value))  # True and 1 are equal, and key apart
        kinds = [None if type(value) in _QUICK_SCALARS else getattr(value, "dtype", None) for value in args]
        if kwargs:
            kinds += [(name, None if type(value) in _QUICK_SCALARS else getattr(value, "dtype", None))
                      for name, value in kwargs.items()]
        return tuple(values), tuple(kinds)

    def run(self, *args, grid=None, **kwargs):
        interpreting = getattr(_base_jit(self.fn), "interpreting", None)
        if interpreting is not None and interpreting():
            return self._run_interpreted(grid, args, kwargs)
        # A repeated launch: its config from the quick key, and nothing of
        # the checks below, which its first launch passed with the same
        # keywords.
        quick = self._quick_key(args, kwargs)
        # Devices of several models each get their own choices.
        model = launch_model(args, kwargs) if keyed_by_model() else None
        if quick is not None:
            if model is not None:
                quick = (quick, model)
            try:
                cache_key = self._quick.get(quick)
            except TypeError:  # an unhashable dtype or keyword value
                quick = cache_key = None
            config = self.cache.get(cache_key) if cache_key is not None else None
            if config is not None:
                self.best_config = config
                if self.reset_to_zero or config.pre_hook is not None:
                    self._pre_launch(config, self._nargs(args, kwargs))
                return self._launch(grid, config, args, kwargs)
        nargs = self._nargs(args, kwargs)
        for config in self.configs:
            clash = set(config.kwargs) & set(kwargs)
            if clash:
                raise ValueError(f"autotune: {', '.join(sorted(clash))} given both by a config and by the caller "
                                 f"of {self.__name__}; pass them in the configs only")
        options = (set(LAUNCH_OPTIONS) & set(kwargs)) - set(self.params)
        if options:
            raise ValueError(f"autotune: {', '.join(sorted(options))} of {self.__name__} are set by each config; "
                             f"pass them in the configs (Config(..., num_warps=, num_stages=, maxnreg=))")
        key = {name: _key_value(self.bucket[name](nargs.get(name)) if name in self.bucket else nargs.get(name))
               for name in self.key}
        dtypes = [f"{name}:{_dtype_name(v.dtype)}" for name, v in nargs.items() if hasattr(v, "dtype")]
        cache_key = json.dumps([key, dtypes] if model is None else [key, dtypes, model], sort_keys=True)
        config = self.cache.get(cache_key)
        if config is None:
            config = self._tune(grid, args, kwargs, nargs, key, dtypes)
            self.cache[cache_key] = config
        if quick is not None:
            if len(self._quick) >= _QUICK_LIMIT:  # sizes without end (dynamic shapes)
                self._quick.clear()
            self._quick[quick] = cache_key
        self.best_config = config
        self._pre_launch(config, nargs)
        return self._launch(grid, config, args, kwargs)

    def _run_interpreted(self, grid, args, kwargs):
        """A launch of a kernel the CPU interpreter runs: the first config
        of the space (after pruning), untimed, and nothing kept or stored:
        the interpreter's times say nothing of a GPU's, and a later launch
        on one tunes as if this one had not been."""
        nargs = self._nargs(args, kwargs)
        space = self._space(nargs)
        if not space:
            raise RuntimeError(f"autotune: every config of {self.__name__} was pruned")
        self.best_config = space[0]
        self._pre_launch(space[0], nargs)
        return self._launch(grid, space[0], args, kwargs)

    def _pre_launch(self, config: Config, nargs):
        for name in self.reset_to_zero:
            nargs[name].zero_()
        if config.pre_hook is not None:
            config.pre_hook(dict(nargs, **config.all_kwargs()))

    # -- tuning ---------------------------------------------------------------------------

    def _space(self, nargs) -> List[Config]:
        configs = list(self.configs)
        early = self.prune_configs_by.get("early_config_prune")
        if early is not None:
            configs = list(early(configs, nargs))
        model = self.prune_configs_by.get("perf_model")
        top_k = self.prune_configs_by.get("top_k")
        if model is not None and top_k is not None and len(configs) > top_k:
            if isinstance(top_k, float) and top_k <= 1.0:
                top_k = max(1, int(len(configs) * top_k))
            estimates = {c: model(**nargs, **c.all_kwargs()) for c in configs}
            configs = sorted(configs, key=lambda c: estimates[c])[:int(top_k)]
        return configs

    def _store(self) -> Optional[_store.Store]:
        path = self.store_path or _store.default_path()
        return _store.Store(path) if path else None

    def _tune(self, grid, args, kwargs, nargs, key, dtypes) -> Config:
        # The properties (and the store's model) of the device the configs
        # are timed on: where models differ, the arguments' device, which
        # need not be the current one.
        device = device_properties(_home_device(args, kwargs) if several_models() else None)
        compiler = compiler_identity()
        kernel_hash = kernel_identity(self.base)
        eid = schema.entry_id(kernel_hash, key, dtypes, device["name"], compiler)
        space = self._space(nargs)
        store = self._store()
        known: Dict[str, dict] = {}
        if store is not None:
            try:
                entry = store.get(eid)
            except _store.CorruptStore as exc:
                # Not trusted, and not reported twice: the update after the
                # sweep warns of it, moves it aside and rebuilds the store.
                stats.store_errors.append(str(exc))
                entry = None
            except (_store.StoreError, OSError) as exc:
                stats.store_errors.append(str(exc))
                _warn(f"could not read the autotuning store {store.path}: {_first_line(exc)}")
                entry = None
            if entry is not None:
                known = {r["id"]: r for r in entry["records"]}
        todo = [c for c in space if c.ident() not in known]
        stats.reused += len(space) - len(todo)
        start = time.perf_counter()
        new_records = self._sweep(todo, grid, args, kwargs, nargs, device) if todo else {}
        elapsed = time.perf_counter() - start
        records = dict(known, **new_records)
        best, best_ms = None, None
        for config in space:
            record = records[config.ident()]
            if record["status"] == "ok" and (best_ms is None or record["time_ms"] < best_ms):
                best, best_ms = config, record["time_ms"]
        if best is None:
            reasons = "\n".join(f"  {c}: {records[c.ident()]['status']}: {records[c.ident()]['reason']}"
                                for c in space)
            raise RuntimeError(f"autotune: every config of {self.__name__} was pruned or failed:\n{reasons}")
        fields = {"kernel": self.__name__, "kernel_hash": kernel_hash, "key": key, "dtypes": dtypes,
                  "device": device["name"], "arch": device.get("arch"), "compiler": compiler,
                  "best": {"id": best.ident(), "config": str(best), "time_ms": best_ms},
                  "updated": _store.timestamp()}
        # Declared work turns times into rates (and % of the device's peaks).
        work = self._declared_work(nargs)
        if work:
            fields["work"] = work
            fields["peak"] = device.get("peak")
        if store is not None and new_records:
            def change(current):
                merged = {r["id"]: r for r in (current or {}).get("records", [])}
                merged.update(new_records)
                # The best's record as it was chosen, even if another process
                # removed or re-timed it since it was read: best names a timed record.
                merged[best.ident()] = records[best.ident()]
                return dict(fields, records=sorted(merged.values(), key=lambda r: r["id"]))

            try:
                self.last_sweep = store.update(eid, change)
            except (_store.StoreError, OSError) as exc:
                stats.store_errors.append(str(exc))
                _warn(f"could not write the autotuning store {store.path}: {_first_line(exc)}")
        if knobs.print_autotuning():
            spread = f" on {len(self.last_sweep_devices)} devices" if len(self.last_sweep_devices) > 1 else ""
            origin = f"sweep of {len(todo)} configs{spread} took {elapsed:.2f} s" if todo else "from the store"
            rate = _store.achieved_text(work, device.get("peak"), best_ms)
            print(f"Autotuning {self.__name__} for key {key}: best config {best}; {best_ms:.4f} ms"
                  f"{', ' + rate if rate else ''} ({origin})", file=sys.stderr)
        return best

    def _declared_work(self, nargs) -> Optional[dict]:
        """The kernel's declared work for these arguments ({"flops",
        "bytes"}, numbers), or None; a failing declaration is a warning."""
        if self.work is None:
            return None
        try:
            declared = self.work(dict(nargs))
            work = {k: float(declared[k]) for k in ("flops", "bytes") if declared.get(k)}
            for name, amount in work.items():
                if not math.isfinite(amount) or amount < 0:
                    raise ValueError(f"{name} is {amount}, not a finite number >= 0")
            return work
        except Exception as exc:  # noqa: BLE001 - a user callback must not break tuning
            _warn(f"the work declared for {self.__name__} could not be computed: {_first_line(exc)}")
            return None

    def _sweep(self, configs: List[Config], grid, args, kwargs, nargs, device) -> Dict[str, dict]:
        """Compiles, prunes and times ``configs``; one record per config."""
        stats.sweeps += 1
        records: Dict[str, dict] = {}

        def record(config, status, time_ms=None, reason=None):
            records[config.ident()] = {"id": config.ident(), "config": str(config),
                                       "kwargs": {k: _jsonable(v) for k, v in config.kwargs.items()},
                                       "num_warps": config.num_warps, "num_stages": config.num_stages,
                                       **({"maxnreg": config.maxnreg} if config.maxnreg is not None else {}),
                                       "time_ms": time_ms, "status": status, "reason": reason,
                                       "timestamp": _store.timestamp()}

        # 1. Limits known before compiling.
        max_threads = device.get("max_threads_per_block", MAX_THREADS_PER_BLOCK)
        candidates = []
        for config in configs:
            threads = config.num_warps * 32
            if threads > max_threads:
                record(config, "pruned", reason=f"{config.num_warps} warps = {threads} threads per block, "
                                                f"over the device's {max_threads}")
            else:
                candidates.append(config)

        # 2. The frontend (tile IR) in this thread: it is Python and holds the GIL.
        # A config's pre_hook runs first: it may set what specialization reads
        # (the block shapes of tensor descriptors, as in Triton's TMA kernels).
        # The arguments restore_value names are saved before any hook runs.
        saved = {name: nargs[name].clone() for name in self.restore_value}
        kernels = {}
        for config in candidates:
            try:
                kernels[config] = self._compile(config, args, kwargs, nargs)
            except CompilationError as exc:
                record(config, "pruned", reason=f"compilation failed: {_first_line(exc)}")
            except Exception as exc:  # noqa: BLE001 - nothing crashes the sweep
                record(config, "pruned", reason=f"compilation failed: {type(exc).__name__}: {_first_line(exc)}")
        stats.compiled += len(kernels)
        for name, value in saved.items():
            nargs[name].copy_(value)

        # 3. PTX for every config before anything is timed, in a thread pool:
        # the binding releases the GIL and libtilelang compiles from several
        # threads at once.
        arch = device.get("arch") or "sm_90a"
        ptx = {}
        if kernels:
            workers = max(1, min(len(kernels), os.cpu_count() or 1))
            with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
                futures = {pool.submit(kernel.to_ptx, arch): config for config, kernel in kernels.items()}
                for future in concurrent.futures.as_completed(futures):
                    config = futures[future]
                    try:
                        ptx[config] = future.result()
                    except CompilationError as exc:
                        record(config, "pruned", reason=f"compilation failed: {_first_line(exc)}")
                    except Exception as exc:  # noqa: BLE001
                        record(config, "pruned",
                               reason=f"compilation failed: {type(exc).__name__}: {_first_line(exc)}")
        limit = device.get("max_shared_per_block")
        runnable = []
        for config in candidates:
            if config not in ptx:
                continue
            need = ptx[config].shared_bytes
            if limit is not None and need > limit:
                record(config, "pruned", reason=f"needs {need} bytes of shared memory, over the device's {limit}")
            else:
                runnable.append(config)

        # 4. Timing, with arguments restored after each config: on the
        # arguments' device, or spread over several devices, one thread each,
        # under one progress bar.
        bar = progress(len(configs), f"autotune {self.__name__}")
        bar.update(len(configs) - len(runnable))
        devices = self._timing_devices(args, kwargs) if len(runnable) > 1 else []
        self.last_sweep_devices = devices
        try:
            if len(devices) > 1:
                self._time_on_devices(runnable, devices, grid, args, kwargs, record, bar)
            else:
                for config in runnable:
                    record(config, *self._time_config(config, grid, args, kwargs, nargs, saved))
                    bar.update(1)
        finally:
            bar.close()
        if self._do_bench is None:
            self._runoff(runnable, records, grid, args, kwargs, nargs, saved)
        return records

    def _runoff(self, timed: List[Config], records: Dict[str, dict], grid, args, kwargs, nargs, saved) -> None:
        """Times again the configs of ``timed`` whose records came within
        RUNOFF_MARGIN of the fastest, in RUNOFF_ROUNDS rounds of rotating
        order on the arguments' device, and gives each the median of its
        rounds (see RUNOFF_MARGIN). A config that fails in the runoff keeps
        its failure. Only for the default timer: a do_bench given to the
        autotuner is taken as it measures."""
        ok = sorted((c for c in timed if records[c.ident()]["status"] == "ok"),
                    key=lambda c: records[c.ident()]["time_ms"])
        if len(ok) < 2:
            return
        fastest = records[ok[0].ident()]["time_ms"]
        finalists = [c for c in ok if records[c.ident()]["time_ms"] <= fastest * (1 + RUNOFF_MARGIN)][:RUNOFF_SIZE]
        if len(finalists) < 2:
            return
        stats.runoffs += 1
        rounds: Dict[Config, List[float]] = {c: [] for c in finalists}
        for index in range(RUNOFF_ROUNDS):
            shift = index % len(finalists)
            for config in finalists[shift:] + finalists[:shift]:
                if rounds[config] is None:
                    continue
                stats.runoff_timings += 1
                status, time_ms, reason = self._time_config(config, grid, args, kwargs, nargs, saved)
                if status != "ok":
                    records[config.ident()].update(status=status, time_ms=None, reason=reason)
                    rounds[config] = None
                else:
                    rounds[config].append(time_ms)
        for config, times in rounds.items():
            if times:
                records[config.ident()]["time_ms"] = sorted(times)[len(times) // 2]

    def _time_config(self, config: Config, grid, args, kwargs, nargs, saved):
        """Times one config: ("ok", ms, None) or ("failed", None, reason);
        the ``restore_value`` arguments are restored from ``saved`` after."""
        def run_once():
            self._pre_launch(config, nargs)
            return self._launch(grid, config, args, kwargs)

        try:
            with _stats_lock:
                stats.benchmarks += 1
            times = self.do_bench(_KernelCall(run_once, config), quantiles=None)
            time_ms = float(times[0] if isinstance(times, (list, tuple)) else times)
            if not math.isfinite(time_ms) or time_ms < 0:
                raise ValueError(f"the timer measured {time_ms} ms")
            return "ok", time_ms, None
        except Exception as exc:  # noqa: BLE001 - e.g. out of resources at launch
            return "failed", None, f"{type(exc).__name__}: {_first_line(exc)}"
        finally:
            for name, value in saved.items():
                nargs[name].copy_(value)

    # -- several devices --------------------------------------------------------------------

    def _timing_devices(self, args, kwargs) -> List[int]:
        """The devices to time this sweep's configs on in parallel: those
        ``devices=`` (else TILELANG_AUTOTUNE_DEVICES) names that are of the
        model of the arguments' device (other models' times would not
        compare, and the store keys entries by model); [] for the
        arguments' device alone."""
        wanted = self.devices
        if wanted is None:
            wanted = _parse_devices(knobs.autotune_devices(), "TILELANG_AUTOTUNE_DEVICES")
        if wanted is None:
            return []
        count = device_count()
        ordinals = list(range(count)) if wanted == "all" else list(wanted)
        missing = [d for d in ordinals if d >= count]
        if missing:
            raise ValueError(f"autotune of {self.__name__}: there is no CUDA device "
                             f"{', '.join(map(str, missing))} (the driver sees {count})")
        model = device_name(_home_device(args, kwargs))
        same = [d for d in ordinals if device_name(d) == model]
        if len(same) < len(ordinals):
            others = ", ".join(f"cuda:{d} ({device_name(d)})" for d in ordinals if d not in same)
            _warn(f"autotune of {self.__name__} times on the {model} devices only, not on {others}: times of "
                  f"other models would not compare")
        return same if len(same) > 1 else []

    def _on_device(self, device: int):
        """A context in which ``device`` is the calling thread's current
        device (timers, events and buffers go there; the CPU tests replace
        this)."""
        import torch

        return torch.cuda.device(device)

    def _arguments_on(self, device: int, args, kwargs):
        """(args, kwargs) with every tensor on another device copied to
        ``device`` (the CPU tests replace this)."""
        def move(value):
            where = getattr(value, "device", None)
            if getattr(value, "is_cuda", False) and getattr(where, "index", device) != device:
                return _copy_layout(value, device)
            base = getattr(value, "base", None)
            if hasattr(value, "block_shape") and getattr(base, "is_cuda", False) and \
                    getattr(base.device, "index", device) != device:
                return type(value)(move(base), list(value.shape), list(value.strides), list(value.block_shape),
                                   getattr(value, "padding", "zero"))
            return value

        return tuple(move(v) for v in args), {k: move(v) for k, v in kwargs.items()}

    def _time_on_devices(self, runnable: List[Config], devices: List[int], grid, args, kwargs, record, bar):
        """Times ``runnable`` in one thread per device, each taking the next
        config left and timing it on its own copy of the arguments; records
        and the bar are updated here, as configs finish. Each config was
        compiled once (its PTX, above; its cubin at its first launch)."""
        work: "queue.SimpleQueue[Config]" = queue.SimpleQueue()
        for config in runnable:
            work.put(config)
        done: "queue.SimpleQueue[tuple]" = queue.SimpleQueue()

        def worker(device: int):
            try:
                with self._on_device(device):
                    local_args, local_kwargs = self._arguments_on(device, args, kwargs)
                    local_nargs = self._nargs(local_args, local_kwargs)
                    saved = {name: local_nargs[name].clone() for name in self.restore_value}
                    while True:
                        try:
                            config = work.get_nowait()
                        except queue.Empty:
                            break
                        done.put((config, self._time_config(config, grid, local_args, local_kwargs, local_nargs,
                                                            saved)))
            except Exception as exc:  # noqa: BLE001 - the other devices time what is left
                done.put((None, f"cuda:{device}: {type(exc).__name__}: {_first_line(exc)}"))
            finally:
                done.put((None, None))  # this worker is finished

        threads = [threading.Thread(target=worker, args=(device,), name=f"tilelang-autotune-cuda:{device}",
                                    daemon=True) for device in devices]
        for thread in threads:
            thread.start()
        finished, problems = 0, []
        while finished < len(threads):
            config, outcome = done.get()
            if config is not None:
                record(config, *outcome)
                bar.update(1)
            elif outcome is None:
                finished += 1
            else:
                problems.append(outcome)
        for thread in threads:
            thread.join()
        # Configs no worker could take (every device failed to set up).
        while True:
            try:
                config = work.get_nowait()
            except queue.Empty:
                break
            record(config, "failed", reason="no device could time it: " + "; ".join(problems))
            bar.update(1)
        if problems:
            _warn(f"autotune of {self.__name__}: " + "; ".join(problems))

    def _compile(self, config: Config, args, kwargs, nargs):
        if config.pre_hook is not None:
            config.pre_hook(dict(nargs, **config.all_kwargs()))
        warm_kwargs = dict(kwargs, **config.kwargs)
        # Launch options a kernel also declares as parameters reach it too (as in kernel[grid]).
        for option, value in config._options().items():
            if option in self.params and option not in warm_kwargs:
                warm_kwargs[option] = value
        return self.fn.warmup(*args, num_warps=config.num_warps, num_stages=config.num_stages,
                              maxnreg=config.maxnreg, **warm_kwargs)

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Autotuner({self.fn!r}, {len(self.configs)} configs, key={self.key})"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _warn(message: str) -> None:
    import warnings

    warnings.warn(f"tilelang: {message}", RuntimeWarning, stacklevel=4)


def autotune(configs: List[Config], key: List[str], prune_configs_by: Optional[dict] = None,
             reset_to_zero: Optional[List[str]] = None, restore_value: Optional[List[str]] = None,
             warmup: int = 25, rep: int = 100, do_bench: Optional[Callable] = None,
             work: Optional[Callable[[Dict[str, Any]], dict]] = None,
             bucket: Optional[Dict[str, Callable[[Any], Any]]] = None,
             devices: Optional[Union[str, Sequence[int]]] = None):
    """Triton's ``@triton.autotune``, stacked on ``@tilelang.jit``, with
    results persisted in the cache directory's autotune.json. Beyond
    Triton: ``work(args_by_name)`` may declare the work of a call,
    ``{"flops": ..., "bytes": ...}``, so that results read as TFLOP/s and
    GB/s and as a share of the device's peaks; ``bucket`` maps key names to
    functions of their values (such as the next power of two), so that
    one sweep serves every value of a bucket (the first call's arguments
    are the ones timed); ``devices`` ("all", or a list of device
    ordinals; default: TILELANG_AUTOTUNE_DEVICES, else the arguments'
    device alone) times the configs of a sweep in parallel, one thread per
    device of the arguments' device's model (docs/autotune.md, "Several
    devices")."""

    def decorator(fn):
        return Autotuner(fn, configs, key, prune_configs_by=prune_configs_by, reset_to_zero=reset_to_zero,
                         restore_value=restore_value, warmup=warmup, rep=rep, do_bench=do_bench, work=work,
                         bucket=bucket, devices=devices)

    return decorator


class Heuristics:
    """``@tilelang.heuristics(values)``: each constexpr in ``values`` is
    computed from the arguments (by name) at every launch."""

    def __init__(self, fn, values: Dict[str, Callable[[Dict[str, Any]], Any]]):
        self.fn = fn
        self.values = dict(values)
        self.base = _base_jit(fn)
        self.params = list(self.base.params)
        self.__name__ = getattr(self.base, "__name__", "kernel")

    def _extra(self, args, kwargs) -> Dict[str, Any]:
        nargs = dict(zip(self.params, args))
        nargs.update(kwargs)
        extra = {}
        for name, compute in self.values.items():
            extra[name] = compute(dict(nargs, **extra))
        return extra

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            return self.fn[grid](*args, **kwargs, **self._extra(args, kwargs))

        return launch

    def warmup(self, *args, **kwargs):
        # Heuristics see the arguments and constexprs, and the launch options too (as in Triton).
        extra = self._extra(args, kwargs)
        return self.fn.warmup(*args, **kwargs, **extra)

    def __repr__(self) -> str:
        return f"Heuristics({self.fn!r}, {sorted(self.values)})"


def heuristics(values: Dict[str, Callable[[Dict[str, Any]], Any]]):
    """Triton's ``@triton.heuristics``."""

    def decorator(fn):
        return Heuristics(fn, values)

    return decorator

