"""The C++ backward of tilelang.ops' eager calls (docs/ops.md, "The C++
backward"). Where tilelang._C_torch is built, the first backward of a
shape and set of flags runs in Python (an autograd.Function, which tunes
and records the backward's launches in the `Tuned` tables) and then
resolves the same backward into a BackwardPlan: it runs the operator's
backward function once more (on its own tensors or stand-ins of them,
`stand_in`) with `_Recorder` as its launcher, which launches nothing and notes each kernel (as tilelang._C
loaded it for these argument kinds), its packed parameters and where each
tensor comes from. Later eager forwards of that key record a C++ node
(`record`) whose backward allocates and launches without Python. Without
tilelang._C_torch, or with TILELANG_OPS_NATIVE_AUTOGRAD=0, every backward
stays in Python.

Once a key has its BackwardPlan, its next eager forward with grad resolves
the forward the same way (`resolve_forward`: the operator's forward
function run once with the recorder, on the call's tensors or stand-ins)
into a ForwardPlan, and later forwards of that key are one C++ call
(`forward`): allocate, launch, record the node ("The C++ forward").

Once the Python path has run a key's ForwardPlan, it puts the plan in its
operator's ForwardTable (`table`, `forward_kept`); from then on the public
function hands the call to `eager_forward` first, which does in C++ what
the Python path does before the launch (the eager checks, the key, the
plan's lookup and whether it holds) and returns None where it has no plan
for the call ("The C++ entry")."""

from typing import Any, Callable, Dict, Optional

import torch

from tilelang import knobs
from tilelang.ops._runtime import _PLAIN_TENSORS, Operator, Tuned, _on_knob_change, _tracing, knobs_hold

try:
    from tilelang import _C_torch as _native

    _record = _native.record
except (ImportError, AttributeError):  # not built, or built without the nodes
    _native = None
    _record = None

#: forward(plan, eps, x, *parameters) -> the output (tilelang._C_torch; a
#: build without it resolves no forward: `resolve_forward` declines).
forward = getattr(_native, "forward", None)

#: eager_forward(table, x, *parameters[, eps]) -> the output, or None where
#: `table` has no plan for the call (tilelang._C_torch; None without it).
eager_forward = getattr(_native, "eager_forward", None)

#: Whether eager forwards record C++ nodes (tests that record launches in
#: Python turn it off).
enabled = _record is not None and knobs.ops_native_autograd()

#: key -> (its BackwardPlan, the (Tuned, tuner cache) pairs it was resolved
#: from), or None where the backward stays in Python (`declined` says why).
plans: Dict[Any, Any] = {}
declined: Dict[Any, str] = {}

#: key -> (its ForwardPlan, the (Tuned, tuner cache) pairs of the forward's
#: launches and of its backward plan), or None where the forward stays in
#: Python (`declined` says why).
forwards: Dict[Any, Any] = {}

#: Plans kept before starting over (shapes without end).
_PLAN_LIMIT = 1024

#: The operators' ForwardTables (`table`), emptied with `forwards`.
_tables = []


def table(parameters: int, scalar: bool):
    """A ForwardTable for an operator whose calls pass x, `parameters`
    tensors or None, and an eps where `scalar` (tilelang._C_torch), or None
    without one: the plans `eager_forward` takes the operator's calls with.
    A plan there holds for the values the compile knobs had when it was put
    (knobs.COMPILE_KNOBS: what _runtime.knobs_hold compares)."""
    if _native is None or eager_forward is None:
        return None
    made = _native.ForwardTable(parameters, scalar, _PLAIN_TENSORS, list(knobs.COMPILE_KNOBS))
    _tables.append(made)
    return made


def _held(table, key):
    """table[key]'s plan, or None. A plan holds while the tuners' caches it
    was resolved from are the ones in use: replacing one (as the tests do,
    to tune again) drops it, to be resolved again, as Tuned.launch's table
    starts over. Every plan holds while the compile knobs keep the values
    it was resolved under (_runtime.knobs_hold: otherwise all are dropped,
    `_start_over`)."""
    found = table.get(key) if knobs_hold() else None
    if found is None:
        return None
    plan, sources = found
    for tuned, cache in sources:
        if tuned._tuner.cache is not cache:
            del table[key]
            return None
    return plan


def _start_over() -> None:
    """Drops every plan: the compile knobs changed (_runtime.knobs_hold),
    and the plans' kernels were compiled and linked for the old values."""
    plans.clear()
    forwards.clear()
    declined.clear()
    for kept in _tables:
        kept.clear()


_on_knob_change.append(_start_over)


def lookup(key):
    """The BackwardPlan of `key`, or None (held as `_held` says)."""
    return _held(plans, key)


def forward_plan(key):
    """The ForwardPlan of `key`, or None (held as `_held` says)."""
    return _held(forwards, key)


def forward_kept(table, key, plan, eps: float, x, *parameters):
    """forward(plan, eps, x, *parameters) of the plan forward_plan(key) just
    gave, with the plan put in `table` (when there is one) under this call's
    tensors, so that the next calls like it take `eager_forward`."""
    if table is not None:
        table.put(plan, forwards[key][1], x, *parameters)
    return forward(plan, eps, x, *parameters)


def record(plan, output, inputs: tuple, saved: tuple):
    """`output` with a C++ node running `plan` as its grad_fn: edges to
    `inputs` (the forward's differentiable inputs, tensors or None, in the
    plan's order) and `saved` kept as autograd saves tensors."""
    return _record(plan, output, inputs, saved)


def launch(kernel, key: Optional[tuple], grid, *args, **kwargs) -> None:
    """A backward function's launch in Python: a Tuned kernel through its
    table under `key`, any other kernel by subscription."""
    if isinstance(kernel, Tuned):
        kernel.launch(key, grid, *args, **kwargs)
    else:
        kernel[grid](*args, **kwargs)


class _NotResolved(Exception):
    pass


class _Recorder:
    """The launcher a backward function runs with to resolve it: notes each
    launch instead of making it. Tensors are known by identity: the
    incoming gradient ('g'), the saved tensors ('s', by index), the plan's
    constants ('c'); any other is a buffer the backward allocated ('b')."""

    def __init__(self, gradient, saved, constants, scalar: Optional[float] = None):
        self.sources = {id(gradient): ("g", 0, 0)}
        for index, tensor in enumerate(saved):
            if tensor is not None:
                self.sources[id(tensor)] = ("s", index, 0)
        for index, tensor in enumerate(constants):
            self.sources[id(tensor)] = ("c", index, 0)
        self.buffers = []
        # Views of buffers, kept alive: sources are known by id.
        self.views = []
        self.launches = []
        self.tuned = []
        # A forward's eps: the one float argument of each launch, which the
        # C++ forward writes at every call (an fp32 run-time parameter).
        self.scalar = scalar

    def source(self, tensor):
        """(kind, index, byte offset) of `tensor`: a view of a tensor the
        function allocated (one workspace for several arrays) is that buffer
        at the view's offset; a view of anything else is not resolved (the
        node may pass a copy of the gradient or a saved tensor)."""
        found = self.sources.get(id(tensor))
        if found is None:
            base = tensor._base
            if base is None:
                found = ("b", len(self.buffers), 0)
                self.buffers.append(tensor)
            else:
                kind, index, offset = self.source(base)
                if kind != "b" or offset or not tensor.is_contiguous():
                    raise _NotResolved(f"a view of a tensor the function did not allocate ({kind})")
                found = ("b", index, tensor.data_ptr() - base.data_ptr())
                self.views.append(tensor)
            self.sources[id(tensor)] = found
        return found

    def __call__(self, kernel, key, grid, *args, **kwargs) -> None:
        if isinstance(kernel, Tuned):
            entry = kernel.entry(key, args, kwargs)
            if entry is None:
                raise _NotResolved(f"{kernel.name} has no launch recorded under {key}")
            function, keywords = entry
            self.tuned.append((kernel, kernel._tuner.cache))
        else:
            function, keywords = kernel, kwargs
        if callable(grid):
            grid = grid(keywords)
        launchable, values = function.resolve_launch(args, keywords)
        dims, params = launchable.pack_parameters(grid, *values)
        slots = [(index, *self.source(value)) for index, value in enumerate(values) if isinstance(value, torch.Tensor)]
        scalar = None
        if self.scalar is not None:
            found = [index for index, value in enumerate(values) if type(value) is float]
            if len(found) != 1 or values[found[0]] != self.scalar:
                raise _NotResolved(f"{function} does not take the scalar {self.scalar} as its one float")
            scalar = found[0]
        self.launches.append((launchable, dims, params, slots, scalar))


def _allocated(recorder: _Recorder, tensor, what: str) -> int:
    """The buffer index of `tensor`, which must be one the resolved function
    allocated (not the gradient, a saved tensor, a constant or a view)."""
    kind, index, offset = recorder.source(tensor)
    if kind != "b" or offset or tensor._base is not None:
        raise _NotResolved(f"{what} is not a tensor the function allocated ({kind})")
    return index


def _buffer_specs(recorder: _Recorder, like) -> list:
    """(shape, dtype) of each buffer the resolved function allocated; shape
    None where it is `like`'s (the C++ side takes it from the call's
    tensor)."""
    return [(None if tuple(b.shape) == tuple(like.shape) else list(b.shape), b.dtype) for b in recorder.buffers]


def wanted(x) -> bool:
    """Whether a Python backward on `x` should resolve its key: nodes are
    on, and the call is an eager one on plain tensors (not traced)."""
    return enabled and type(x) in _PLAIN_TENSORS and getattr(x, Operator.device_attribute) and not _tracing()


def stand_in(tensor, shape, dtype, device, taken: list):
    """A tensor to resolve a plan on in place of `tensor` (shape `shape`,
    dtype `dtype`; the backward's own, or None): `tensor` itself where it is
    what the node will pass the kernels (contiguous, 16-byte aligned, of
    that shape and dtype) and no other stand-in already (the recorder knows
    tensors by identity), else a fresh allocation of that kind. Resolving on
    the backward's own tensors allocates nothing the size of the input.
    Appends the result to `taken`."""
    if tensor is None or not (tensor.is_contiguous() and tensor.data_ptr() % 16 == 0 and tensor.dtype == dtype
                              and tuple(tensor.shape) == tuple(shape)) or any(tensor is t for t in taken):
        tensor = torch.empty(shape, device=device, dtype=dtype)
    taken.append(tensor)
    return tensor


def resolve(key, name: str, gradient, saved: tuple, constants: tuple, run: Callable) -> None:
    """Builds plans[key]: `run(launch)` runs the backward function on the
    stand-ins `gradient` (the incoming gradient's shape and dtype) and
    `saved` (what the node will save, in order; None where nothing is) with
    `launch` as its launcher and returns the gradients of the forward's
    inputs (tensors the backward allocated, or None). `constants`: tensors
    the plan keeps (a weight of ones where there is none)."""
    if len(plans) >= _PLAN_LIMIT:
        plans.clear()
        declined.clear()
    recorder = _Recorder(gradient, saved, constants)
    try:
        gradients = run(recorder)
        outputs = [-1 if tensor is None else _allocated(recorder, tensor, "a gradient") for tensor in gradients]
        plans[key] = (_native.BackwardPlan(name, gradient.get_device(), gradient.dtype,
                                           _buffer_specs(recorder, gradient), recorder.launches, list(constants),
                                           outputs), recorder.tuned)
    except Exception as exc:  # any failure keeps this key's backward in Python
        plans[key] = None
        declined[key] = f"{type(exc).__name__}: {exc}"


def resolve_forward(key, name: str, x, parameters: tuple, constants: tuple, scalar: Optional[float],
                    run: Callable) -> None:
    """Builds forwards[key] where plans[key] holds a backward plan: `run(launch)`
    runs the forward function on `x` and `parameters` (stand-ins: what the
    C++ forward will pass the kernels; None for an absent one, whose
    kernels read a tensor of `constants` instead) with `launch` as its
    launcher (called as `launch(tuned, key, grid, *args)`) and returns
    (the output, the tensors the node saves, in the order of the backward
    plan's saved tensors: x, a parameter, a tensor the forward allocated,
    or None). `scalar`: the forward's eps (None: no scalar)."""
    found = plans.get(key)
    if found is None or forward is None:
        forwards[key] = None
        return
    if len(forwards) >= _PLAN_LIMIT:
        forwards.clear()
        for kept in _tables:
            kept.clear()
    recorder = _Recorder(x, parameters, constants, scalar)
    try:
        output, saved = run(recorder)
        index = _allocated(recorder, output, "the output")
        kept = []
        for tensor in saved:
            if tensor is None:
                kept.append(None)
                continue
            kind, which, _ = recorder.source(tensor)
            if kind == "c" or tensor._base is not None:
                raise _NotResolved("the node would save a constant or a view")
            kept.append((kind, which))
        launches = _native.BackwardPlan(name, x.get_device(), x.dtype, _buffer_specs(recorder, x), recorder.launches,
                                        list(constants), [index])
        forwards[key] = (_native.ForwardPlan(launches, found[0], kept), recorder.tuned + list(found[1]))
    except Exception as exc:  # any failure keeps this key's forward in Python
        forwards[key] = None
        declined[("forward", key)] = f"{type(exc).__name__}: {exc}"
