"""What every tilelang.ops operator shares: torch (imported here, with a
clear message when it is missing), the package's kernels compiled by
tilelang, argument checks that name the operator, `eager` (the one look
an eager row operator's call takes instead of the checks and the
dispatch, docs/ops.md "What an eager call skips"), `Operator`, a torch
custom operator that runs its implementation directly in eager mode, and
`Tuned`, a kernel tuned on first use per shape bucket over its space
(tilelang.ops.spaces) with results kept in the persistent autotune
store, whose repeated launches come from a table (`Tuned.launch`)."""

import inspect
from typing import Any, Callable, Dict, List, Optional, Sequence

try:
    import torch
except ImportError as exc:  # pragma: no cover - exercised without torch only
    raise ImportError(
        "tilelang.ops needs torch (the operators are torch.library custom ops); install it, e.g. "
        "`pip install 'tilelang-mlir[torch]'`, or use tilelang.jit kernels directly") from exc

from tilelang import knobs
from tilelang.autotune import core as _autotune
from tilelang.ops import spaces

_KERNELS: Dict[str, Any] = {}

#: Keys a Tuned kernel's launch table holds before starting over.
_LAUNCH_LIMIT = 4096


def kernels() -> Dict[str, Any]:
    """The package's kernels (tilelang.ops.kernels) under tilelang.jit,
    defined once per process."""
    if not _KERNELS:
        import tilelang
        import tilelang.language as tl
        from tilelang.ops import kernels as package

        _KERNELS.update(package.define(tilelang.jit, tl))
    return _KERNELS


#: What tilelang.ops keeps of its launches holds for the compile knobs'
#: values it was made under (knobs.compile_state): the Tuned launch tables,
#: the package kernels' dispatchers, and what `_on_knob_change` drops
#: (tilelang.ops._autograd's C++ plans).
_knob_state = knobs.compile_state()
_on_knob_change: List[Callable[[], None]] = []
_TUNED: List["Tuned"] = []


def knobs_hold() -> bool:
    """Whether the compile knobs (knobs.COMPILE_KNOBS) have the values that
    everything kept was made under. Where one changed (a process that sets
    TILELANG_OCCUPANCY_SEARCH=0 or TILELANG_DEBUG=1 after its first calls)
    it drops all of it, to be made again under the new values, and returns
    False: the launch tables, the package kernels' dispatchers (whose next
    launches find the kernels compiled and linked for the new values:
    JITFunction.compile keys on them) and the callbacks of _on_knob_change.
    Called where what is kept is looked up: Tuned.launch and entry,
    _autograd's plan lookups, and each ops.attention call (which launches
    through its kernel's dispatcher, with no table)."""
    global _knob_state
    state = knobs.compile_state()
    if state == _knob_state:
        return True
    _knob_state = state
    for tuned in _TUNED:
        tuned._launches.clear()
    for kernel in _KERNELS.values():
        dispatcher = getattr(kernel, "_dispatcher", None)
        if dispatcher is not None:
            dispatcher.clear()
    for drop in _on_knob_change:
        drop()
    return False


#: Multiprocessors per device index, asked of torch once per device.
_SM_COUNT: Dict[int, int] = {}


def multiprocessors(device) -> int:
    """The multiprocessor count of torch device `device`: the program count
    of the kernels that size their grid by the device (norm_bwd_fused's
    groups, the persistent matmul's programs). Read through this module's
    attribute, so that the CPU tests' stand-in count reaches every caller."""
    sms = _SM_COUNT.get(device.index)
    if sms is None:
        sms = _SM_COUNT[device.index] = torch.cuda.get_device_properties(device).multi_processor_count
    return sms


FLOATS = (torch.float16, torch.bfloat16, torch.float32)
HALVES = (torch.float16, torch.bfloat16)


def _names(dtypes: Sequence[torch.dtype]) -> str:
    return ", ".join(str(d).replace("torch.", "") for d in dtypes)


def check_tensor(op: str, name: str, tensor, dtypes: Sequence[torch.dtype], dims: Optional[int] = None,
                 min_dims: Optional[int] = None) -> None:
    """Raises a TypeError or ValueError naming `op` and argument `name`
    unless `tensor` is a CUDA tensor of one of `dtypes` (with `dims`
    dimensions, or at least `min_dims`)."""
    if not isinstance(tensor, torch.Tensor):
        raise TypeError(f"tilelang.ops.{op}: {name} must be a torch.Tensor, not {type(tensor).__name__}")
    if tensor.dtype not in dtypes:
        raise TypeError(f"tilelang.ops.{op}: {name} has dtype {_names([tensor.dtype])}; "
                        f"supported: {_names(dtypes)}")
    # Fake and meta tensors (torch.compile's tracing) carry the device they stand for.
    if not (getattr(tensor, Operator.device_attribute) or tensor.is_meta):
        raise ValueError(f"tilelang.ops.{op}: {name} is on {tensor.device}; tilelang's kernels run on CUDA "
                         f"tensors (move it with .cuda())")
    if dims is not None and tensor.dim() != dims:
        raise ValueError(f"tilelang.ops.{op}: {name} must have {dims} dimensions, not {tensor.dim()} "
                         f"(shape {tuple(tensor.shape)})")
    if min_dims is not None and tensor.dim() < min_dims:
        raise ValueError(f"tilelang.ops.{op}: {name} must have at least {min_dims} dimension(s), "
                         f"not {tensor.dim()}")


def check_same(op: str, reference_name: str, reference, others: Dict[str, Any]) -> None:
    """Raises unless every tensor in `others` (by name; None skipped) has
    the dtype and device of `reference`."""
    for name, tensor in others.items():
        if tensor is None:
            continue
        if tensor.dtype != reference.dtype:
            raise TypeError(f"tilelang.ops.{op}: {name} has dtype {_names([tensor.dtype])} but "
                            f"{reference_name} has {_names([reference.dtype])}")
        if tensor.device != reference.device:
            raise ValueError(f"tilelang.ops.{op}: {name} is on {tensor.device} but {reference_name} is on "
                             f"{reference.device}")


#: The largest extent the kernels take along a row (and along M, N and K
#: of a product): they count a row's elements (a product's rows, columns
#: and K) in 32 bits, and the indices of the block past the last element
#: (up to 2**14 of them) must not wrap past 2**31 - 1, where a negative
#: index would pass the kernels' bounds masks.
MAX_EXTENT = 2**31 - 2**16


def check_extent(op: str, what: str, size: int) -> None:
    """Raises a ValueError naming `op` where `size` (of `what`) passes
    MAX_EXTENT."""
    if size > MAX_EXTENT:
        raise ValueError(f"tilelang.ops.{op}: {what} of {size}; the kernels index it in 32 bits and take at most "
                         f"{MAX_EXTENT} (2**31 - 2**16)")


def as_rows(x, op: str):
    """(x, or a contiguous copy of it, its number of rows, the row length)
    for the row kernels of operator `op`: the rows of a contiguous tensor
    are the row length apart, so the kernels take it in its own shape, with
    no (rows, N) view to make on every call. Rows longer than MAX_EXTENT
    are refused before anything is copied."""
    n = x.shape[-1]
    if n > MAX_EXTENT:
        check_extent(op, "a row length", n)
    x = x.contiguous()
    return x, x.numel() // n if n else 0, n


def _tracing() -> bool:
    """Whether torch is tracing or transforming the calls made now
    (torch.compile, make_fx and other dispatch modes, torch function modes,
    vmap/grad transforms): operators must then appear as themselves."""
    return (torch.compiler.is_compiling() or _dispatch_modes() > 0 or _function_modes()
            or _functorch_transforms())


_dispatch_modes = getattr(torch._C, "_len_torch_dispatch_stack", lambda: 1)
_function_modes = getattr(torch._C, "_is_torch_function_mode_enabled", lambda: True)
_functorch_transforms = getattr(torch._C, "_are_functorch_transforms_active", lambda: True)

# Forward-mode AD (torch.autograd.forward_ad): its dual level, -1 outside
# `dual_level()`. The kernels compute primals only; a custom operator's
# autograd drops a dual input's tangent without a word where the input does
# not require grad (torch 2.15), so a call on dual tensors is refused
# (refuse_tangents) instead.
_forward_ad = torch.autograd.forward_ad


def refuse_tangents(name: str, args) -> None:
    """Raises NotImplementedError naming operator `name` where one of `args`
    is a dual tensor of forward-mode AD (it has a tangent at the current
    level): the result would have none. Call only inside a dual level."""
    for index, arg in enumerate(args):
        if isinstance(arg, torch.Tensor) and _forward_ad.unpack_dual(arg).tangent is not None:
            raise NotImplementedError(
                f"tilelang.ops ({name}): argument {index} is a dual tensor of forward-mode AD, which tilelang.ops "
                f"does not support (its tangent would be dropped); compute the gradient with backward() or "
                f"torch.autograd.grad instead")


#: Tensor types an eager call may pass straight to the kernels: plain tensors
#: and nn.Parameter (a module's weights), whose torch function handling is
#: the plain tensor's; other subclasses go through the dispatcher.
_PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)


def eager(x, dtypes: Sequence[torch.dtype], *params) -> Optional[bool]:
    """How a row operator's call on `x` and its 1-D parameters `params`
    (or None) may run at once, skipping its checks and the dispatcher:
    None when it may not (something traces, a tensor is not a plain one on
    the kernels' device, or the call is not a valid one: then the full
    checks say what is wrong, and the Operator decides), else whether
    autograd records it. Valid: x has at least one dimension and a dtype
    of `dtypes`; each parameter has x's dtype and device, one dimension,
    x's row length. The same rules as check_tensor and check_same, in the
    cheapest form."""
    # Tracing first: under torch.compile nothing below is traced. Dual
    # tensors (forward-mode AD) take the checks: Operator refuses them.
    if _tracing() or _forward_ad._current_level >= 0:
        return None
    attribute = Operator.device_attribute
    if type(x) not in _PLAIN_TENSORS or not getattr(x, attribute) or x.dtype not in dtypes or not x.dim():
        return None
    recorded = x.requires_grad
    if params:
        dtype, device, n = x.dtype, x.get_device(), x.shape[-1]
        for param in params:
            if param is not None:
                if type(param) not in _PLAIN_TENSORS or param.dtype is not dtype or not getattr(param, attribute) \
                        or param.get_device() != device or param.dim() != 1 or param.shape[0] != n:
                    return None
                recorded = recorded or param.requires_grad
    return recorded and torch.is_grad_enabled()


class Operator:
    """A torch custom operator (``torch.library.custom_op`` named `name`
    over `impl`, with `fake` and, when `backward` is given, autograd by
    `setup_context` and `backward`) whose calls in eager mode skip torch's
    dispatcher: on plain CUDA tensors, with nothing tracing, a call runs
    `impl` directly, or, when autograd records it, through a
    torch.autograd.Function with the same setup_context and backward. The
    custom operator's path (dispatcher, its autograd wrapper) costs tens of
    microseconds a call, more than a row kernel of a few MB runs for.
    torch.compile, make_fx, fake tensors and subclasses see the custom
    operator itself."""

    #: The tensor attribute that is true on the device the kernels run on
    #: (the CPU tests of the dispatch use "is_cpu"); check_tensor and eager
    #: read this class's.
    device_attribute = "is_cuda"

    def __init__(self, name: str, impl: Callable, fake: Callable, setup_context: Optional[Callable] = None,
                 backward: Optional[Callable] = None, first_output_only: bool = False):
        """`first_output_only`: `impl` returns a tuple of which callers use
        the first alone (the norms: the output, then the statistics the
        backward needs). The eager autograd.Function then returns that
        one (as a 1-tuple to its callers) and keeps the others as saved
        intermediates: autograd wraps one output instead of three, a few
        microseconds a call. Its backward is given None for the others'
        gradients, as the custom operator's is when they are unused."""
        self.name = name
        self.impl = impl
        self.op = torch.library.custom_op(name, mutates_args=())(impl)
        self.op.register_fake(fake)
        self.function = None
        self.first_output_only = first_output_only
        if backward is not None:
            self.op.register_autograd(backward, setup_context=setup_context)

            def forward(ctx, *args):
                output = impl(*args)
                setup_context(ctx, args, output)
                # Unused outputs (the norms' saved statistics) get None, not zeros.
                ctx.set_materialize_grads(False)
                return output[0] if first_output_only else output

            function_backward = backward
            if first_output_only:
                # The gradients of the outputs the Function does not return.
                others = (None,) * (len(inspect.signature(backward).parameters) - 2)

                def function_backward(ctx, grad):
                    return backward(ctx, grad, *others)

            # The old form (forward takes ctx): Function.apply with a
            # separate setup_context binds the arguments by inspect.signature
            # on every call.
            self.function = type(name.replace("::", "_"), (torch.autograd.Function,),
                                 {"forward": staticmethod(forward), "backward": staticmethod(function_backward)})

    def _apply(self, *args):
        """The eager autograd.Function's call, with the custom operator's outputs."""
        output = self.function.apply(*args)
        return (output,) if self.first_output_only else output

    def direct(self, recorded: bool, *args):
        """The eager call of __call__ where the caller has found (eager())
        that every tensor argument is a plain one on the kernels' device
        and nothing traces; `recorded`: whether autograd records the call."""
        if recorded:
            return self.op(*args) if self.function is None else self._apply(*args)
        return self.impl(*args)

    def __call__(self, *args):
        if _forward_ad._current_level >= 0:
            refuse_tangents(self.name, args)
        if _tracing():
            return self.op(*args)
        attribute = self.device_attribute
        # Under no_grad (a backward without create_graph) nothing is recorded.
        recording = torch.is_grad_enabled()
        recorded = False
        for arg in args:
            if isinstance(arg, torch.Tensor):
                if type(arg) not in _PLAIN_TENSORS or not getattr(arg, attribute):
                    return self.op(*args)  # fake, meta and subclasses' tensors
                if recording and not recorded:
                    recorded = arg.requires_grad
        if recorded:
            # Without a backward (the backward operators, called under
            # create_graph=True) the custom operator records a node that
            # refuses to be differentiated; the implementation alone would
            # return a constant and drop the higher-order gradient silently.
            return self.op(*args) if self.function is None else self._apply(*args)
        return self.impl(*args)


class Tuned:
    """Kernel `name` of the package under tilelang.autotune over `space`
    (dicts of tilelang.ops.spaces), keyed by the arguments `key` with the
    sizes among them in buckets (`bucket`: names -> functions), pruned by
    `prune` (an early_config_prune) and with constexprs computed by
    `heuristics` (tilelang.heuristics). With TILELANG_OPS_AUTOTUNE=0 it
    launches `untuned` (an entry of the space) if `prune` keeps it, else
    the first config that `prune` keeps. Built on first use, so that
    importing tilelang.ops compiles nothing."""

    def __init__(self, name: str, space: List[Dict[str, Any]], key: List[str],
                 bucket: Optional[Dict[str, Callable[[Any], Any]]] = None, prune: Optional[Callable] = None,
                 heuristics: Optional[Dict[str, Callable]] = None, work: Optional[Callable] = None,
                 untuned: Optional[Dict[str, Any]] = None):
        self.name, self.space, self.key, self.untuned = name, space, key, untuned
        self.bucket = bucket or {name: spaces.bucket_pow2 for name in key}
        self.prune, self.heuristics, self.work = prune, heuristics, work
        self._kernel = None
        self._tuner = None
        # launch(): key -> (the tuner's cache it was found in, the kernel
        # to launch, its keywords), made under the compile knobs'
        # values of knobs_hold.
        self._launches: Dict[Any, tuple] = {}
        _TUNED.append(self)

    def _build(self):
        import tilelang

        kernel = kernels()[self.name]
        if self.heuristics:
            kernel = tilelang.heuristics(self.heuristics)(kernel)
        self._kernel = kernel
        prune = {"early_config_prune": self.prune} if self.prune else None
        self._tuner = tilelang.autotune(configs=spaces.configs(self.space), key=self.key, prune_configs_by=prune,
                                        work=self.work, bucket=self.bucket)(kernel)

    @property
    def tuner(self):
        """The tilelang.autotune object (its best_config, cache...)."""
        if self._tuner is None:
            self._build()
        return self._tuner

    def __call__(self, grid, *args, **kwargs) -> None:
        tuner = self._tuner or self.tuner
        if knobs.ops_autotune():
            tuner.run(*args, grid=grid, **kwargs)
            return
        self._kernel[grid](*args, **kwargs, **self._untuned_config(tuner, args, kwargs).all_kwargs())

    def _untuned_config(self, tuner, args, kwargs):
        """The config launched with TILELANG_OPS_AUTOTUNE=0: `untuned` if
        the pruning keeps it, else the first config it keeps."""
        kept = tuner._space(tuner._nargs(args, kwargs))
        preferred = [c for c in kept if self.untuned is not None and c.all_kwargs() == self.untuned]
        return (preferred or kept)[0]

    def launch(self, key: tuple, grid, *args, **kwargs) -> None:
        """What calling it does, through a table: `key` is a tuple the
        caller builds of everything that decides the config (the key
        arguments' exact values, the tensors' dtypes, the keywords), so that
        calls with equal keys launch the same kernel with the same keywords.
        A call whose key is known launches the kernel under the tuner with
        the keywords recorded (the config's, the heuristics' values, the
        caller's): nothing is keyed, pruned or merged again, and of the
        knobs only the compile knobs are read (knobs_hold). An unknown key goes through __call__ (which tunes a new
        bucket, or takes the untuned config under TILELANG_OPS_AUTOTUNE=0)
        and is recorded. A callable grid is given the launch's keywords.
        Entries are trusted only while the tuner's cache is the one they
        came from (replacing it, as the tests do, tunes again) and while
        the compile knobs keep their values (knobs_hold). In a process
        whose devices are of several models, the model of the launch's
        device is part of the key (as it is of the tuner's)."""
        if _autotune.keyed_by_model():
            key = (key, _autotune.launch_model(args, kwargs))
        entry = self._launches.get(key) if knobs_hold() else None
        if entry is not None and entry[0] is self._tuner.cache:
            keywords = entry[2]
            entry[1][grid(keywords) if callable(grid) else grid](*args, **keywords)
            return
        self._record(key, grid, args, kwargs)

    def entry(self, key: tuple, args, kwargs):
        """(the kernel, its keywords) that launch(key, grid, *args, **kwargs)
        launches, or None when it would tune or record first
        (tilelang.ops._autograd resolves a backward from these)."""
        if _autotune.keyed_by_model():
            key = (key, _autotune.launch_model(args, kwargs))
        entry = self._launches.get(key) if knobs_hold() else None
        if entry is None or self._tuner is None or entry[0] is not self._tuner.cache:
            return None
        return entry[1], entry[2]

    def _record(self, key: tuple, grid, args, kwargs) -> None:
        """launch() of an unknown key: the launch __call__ makes, with the
        config it chose kept under `key`."""
        self(grid, *args, **kwargs)
        tuner = self._tuner
        config = tuner.best_config if knobs.ops_autotune() else self._untuned_config(tuner, args, kwargs)
        if config.pre_hook is not None:
            return  # a hook runs before each launch: always through __call__
        keywords = dict(kwargs, **config.all_kwargs())
        if self.heuristics:
            keywords.update(self._kernel._extra(args, keywords))
        kernel = self._kernel.fn if self.heuristics else self._kernel
        if len(self._launches) >= _LAUNCH_LIMIT:  # sizes without end (dynamic shapes)
            self._launches.clear()
        self._launches[key] = (tuner.cache, kernel, keywords)
