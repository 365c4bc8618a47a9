"""The C++ backward of tilelang.ops (tilelang.ops._autograd, the nodes of
tilelang._C_torch), without a GPU: CPU torch tensors stand for CUDA ones,
the kernels are compiled by the real compiler and launched through the
recording stand-in for the driver (fakecuda/), untuned. Checked, per
operator and requires_grad combination: the first backward of a key runs in
Python, later forwards record a C++ node, and its backward launches the
kernels the Python backward launched, with the same grid and scalar
parameters and the same tensors (the saved input, the weight, the incoming
gradient) on torch's current stream; the gradients have their inputs'
shapes; a misaligned incoming gradient is copied, not passed misaligned to
kernels specialized for aligned pointers; a second derivative is refused;
without tilelang._C_torch every backward stays in Python. Each case runs in
a child process (the runtime opens the driver once per process). Skipped
without torch or without a tilelang._C_torch built with the nodes."""

import pathlib

import pytest

torch = pytest.importorskip("torch")

from fakecuda import fakecuda  # noqa: E402

try:
    from tilelang import _C_torch

    _HAS_NODES = hasattr(_C_torch, "record")
except ImportError:
    _HAS_NODES = False

# Where torch sees a GPU, its CUDA state (streams, devices, the caching
# allocator) is real and the CPU stand-ins' patches do not reach it: the GPU
# tests (gpu/test_ops*.py) run the same nodes on real tensors there.
pytestmark = [pytest.mark.skipif(not _HAS_NODES, reason="tilelang._C_torch is not built (with its autograd nodes)"),
              pytest.mark.skipif(torch.cuda.is_available(),
                                 reason="CPU tensors stand for CUDA ones: not where torch sees a GPU")]

PRELUDE = """
import json, sys
import torch
# CPU torch as the kernels' device: the stream query and the device check.
torch._C._cuda_getCurrentRawStream = lambda device: 0x5EA1
torch.cuda.current_device = lambda: 0
NO_BRIDGE = "--no-bridge" in sys.argv
if NO_BRIDGE:
    sys.modules["tilelang._C_torch"] = None
import fakecuda
import tilelang.ops as ops
from tilelang.jit import JITFunction
from tilelang.ops import _autograd, _norm, _runtime

_runtime.Operator.device_attribute = "is_cpu"
_runtime.multiprocessors = lambda device: 132
_specialize = JITFunction._specialize
JITFunction._specialize = lambda self, args, kwargs: _specialize(self, args, kwargs)[:4] + ([],)

report = {}


def norm_inputs(m, n, grad=True):
    # A norm's x (m x n), w (in [0.5, 1.5)), b and dy, in float16; x, w and
    # b are leaves that require grad where `grad`.
    x = torch.randn(m, n, dtype=torch.float16, requires_grad=grad)
    w = (torch.rand(n, dtype=torch.float16) + 0.5).requires_grad_(grad)
    b = torch.randn(n, dtype=torch.float16, requires_grad=grad)
    return x, w, b, torch.randn(m, n, dtype=torch.float16)


def backward_launches(y, dy):
    before = fakecuda.launch_count()
    y.backward(dy)
    return [fakecuda.launch_at(k) for k in range(before + 1, fakecuda.launch_count() + 1)]


def symbolic(launch, names):
    # Each parameter: a known tensor by name, another address as "address"
    # (buffers the backward allocates), a scalar by its bytes.
    params = []
    for hex_bytes in launch["params"]:
        value = int.from_bytes(bytes.fromhex(hex_bytes), "little")
        params.append(names.get(value, "address" if value >= 2**32 else hex_bytes))
    return {"name": launch["name"], "grid": launch["grid"], "block": launch["block"], "stream": launch["stream"],
            "params": params}
"""

# The inputs of a case: argv[1] the operator, argv[2] which of x, w, b require grad.
INPUTS = """
case = sys.argv[1]
m, n = 37, 300
x, w, b, dy = norm_inputs(m, n, grad=False)
needs = [c == "1" for c in sys.argv[2]]
x.requires_grad_(needs[0])
"""

STEPS = PRELUDE + INPUTS + """
if case == "layer_norm":
    w.requires_grad_(needs[1]); b.requires_grad_(needs[2])
    params = [x, w if sys.argv[3] != "no-weight" else None, b if sys.argv[3] != "no-bias" else None]
    call = lambda: ops.layer_norm(*params)
elif case == "rms_norm":
    w.requires_grad_(needs[1])
    params = [x, w]
    call = lambda: ops.rms_norm(x, w)
else:
    params = [x]
    call = lambda: ops.softmax(x)
names = {x.data_ptr(): "x", w.data_ptr(): "w", b.data_ptr(): "b", dy.data_ptr(): "dy"}
steps = []
for step in range(3):
    for p in params:
        if p is not None:
            p.grad = None
    y = call()
    launches = backward_launches(y, dy)
    steps.append({"grad_fn": type(y.grad_fn).__name__, "node": y.grad_fn.name(),
                  "launches": [symbolic(launch, names) for launch in launches],
                  "grads": [None if p is None or p.grad is None else [list(p.grad.shape), str(p.grad.dtype)]
                            for p in params]})
report["steps"] = steps
report["declined"] = [str(v) for v in _autograd.declined.values()]
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> pathlib.Path:
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


def run(library, source, *args):
    return fakecuda.run_script(library, source.replace("sys.argv", f"(['child'] + {list(args)!r})"),
                               env={"TILELANG_OPS_AUTOTUNE": "0"})


CASES = [("layer_norm", "111", "all"), ("layer_norm", "101", "all"), ("layer_norm", "010", "all"),
         ("layer_norm", "110", "no-bias"), ("layer_norm", "100", "no-weight"), ("rms_norm", "11", "all"),
         ("rms_norm", "10", "all"), ("rms_norm", "01", "all"), ("softmax", "1", "all")]


@pytest.mark.parametrize("case,needs,params", CASES)
def test_the_cpp_node_launches_what_the_python_backward_launched(library, case, needs, params):
    report = run(library, STEPS, case, needs, params)
    python, first, second = report["steps"]
    assert report["declined"] == []
    assert python["grad_fn"] != "CppFunction"
    assert first["grad_fn"] == second["grad_fn"] == "CppFunction"
    assert first["node"].startswith("TileLang") and first["node"].endswith("Backward")
    # The same kernels, grids, scalars and known tensors, on torch's stream.
    assert first["launches"] == python["launches"] and second["launches"] == python["launches"]
    assert python["launches"] and all(launch["stream"] == 0x5EA1 for launch in python["launches"])
    flat = [p for launch in python["launches"] for p in launch["params"]]
    assert "dy" in flat and ("x" in flat or case == "softmax")
    # Gradients where asked, in the inputs' shapes and dtype.
    assert first["grads"] == second["grads"] == python["grads"]
    shapes = {"layer_norm": [[37, 300], [300], [300]], "rms_norm": [[37, 300], [300]], "softmax": [[37, 300]]}[case]
    for index, grad in enumerate(first["grads"]):
        wanted = needs[index] == "1" and not (params == "no-weight" and index == 1) and \
            not (params == "no-bias" and index == 2)
        assert grad == ([shapes[index], "torch.float16"] if wanted else None)


MISALIGNED = PRELUDE + """
x = torch.randn(37, 300, dtype=torch.float16, requires_grad=True)
w = (torch.rand(300, dtype=torch.float16) + 0.5).requires_grad_()
storage = torch.randn(37 * 300 + 1, dtype=torch.float16)
dy = storage[1:].view(37, 300)  # 2 bytes past an aligned address
names = {x.data_ptr(): "x", w.data_ptr(): "w", dy.data_ptr(): "dy"}
runs = []
for step in range(2):
    x.grad = w.grad = None
    y = ops.rms_norm(x, w)
    runs.append((type(y.grad_fn).__name__, backward_launches(y, dy)))
(python_fn, python), (node_fn, node) = runs
report["python_fn"], report["node_fn"] = python_fn, node_fn
report["python"] = [symbolic(l, names) for l in python]
report["node"] = [symbolic(l, names) for l in node]
# The node's kernels read a 16-byte aligned copy: same kernel names.
pointers = [int.from_bytes(bytes.fromhex(p), "little") for p in node[0]["params"]]
report["node_pointers_aligned"] = all(p % 16 == 0 for p in pointers if p >= 2**32)
print(json.dumps(report))
"""


def test_a_misaligned_gradient_is_copied_for_the_kernels(library):
    report = run(library, MISALIGNED)
    assert report["python_fn"] != "CppFunction" and report["node_fn"] == "CppFunction"
    # Python passes dy as it is (its kernel specialized for it); the node a copy.
    assert "dy" in report["python"][0]["params"]
    assert "dy" not in report["node"][0]["params"] and report["node_pointers_aligned"]
    assert [launch["name"] for launch in report["node"]] == [launch["name"] for launch in report["python"]]


DOUBLE = PRELUDE + """
x = torch.randn(7, 33, dtype=torch.float16, requires_grad=True)
w = (torch.rand(33, dtype=torch.float16) + 0.5).requires_grad_()
for step in range(2):
    y = ops.layer_norm(x, w)
    report[f"fn{step}"] = type(y.grad_fn).__name__
    (dx,) = torch.autograd.grad(y, x, torch.randn_like(y), create_graph=True)
    report[f"requires_grad{step}"] = dx.requires_grad
    try:
        dx.float().sum().backward()
        report[f"error{step}"] = None
    except RuntimeError as exc:
        report[f"error{step}"] = str(exc)
print(json.dumps(report))
"""


def test_a_second_derivative_is_refused(library):
    report = run(library, DOUBLE)
    assert report["fn0"] != "CppFunction" and report["fn1"] == "CppFunction"
    assert report["requires_grad0"] and report["requires_grad1"]
    assert "no autograd formula" in report["error0"]
    assert "TileLangLayerNormBackward is not twice differentiable" in report["error1"]


FALLBACK = PRELUDE + """
import tilelang._C
x = torch.randn(37, 300, dtype=torch.float16, requires_grad=True)
w = (torch.rand(300, dtype=torch.float16) + 0.5).requires_grad_()
dy = torch.randn(37, 300, dtype=torch.float16)
report["enabled"] = _autograd.enabled
report["fns"], report["launches"] = [], []
for step in range(3):
    y = ops.layer_norm(x, w)
    report["fns"].append(type(y.grad_fn).__name__)
    report["launches"].append([l["name"] for l in backward_launches(y, dy)])
report["grad_shape"] = list(x.grad.shape)
report["bridge"] = tilelang._C.torch_bridge_status()
print(json.dumps(report))
"""


def test_without_the_bridge_every_backward_stays_in_python(library):
    report = run(library, FALLBACK, "--no-bridge")
    assert report["enabled"] is False
    assert report["bridge"].startswith("tilelang._C_torch is not available")
    assert "CppFunction" not in report["fns"]
    assert report["launches"][0] and report["launches"] == [report["launches"][0]] * 3
    assert report["grad_shape"] == [37, 300]


SAME_OBJECT = PRELUDE + """
x = torch.randn(37, 300, dtype=torch.float16)
w = (torch.rand(300, dtype=torch.float16) + 0.5).requires_grad_()
y = ops.rms_norm(x, w)
report["first"] = type(y.grad_fn).__name__
y.backward(x)  # the incoming gradient is the saved input itself: resolved on them
dy = torch.randn(37, 300, dtype=torch.float16)
y = ops.rms_norm(x, w)
report["second"] = type(y.grad_fn).__name__
report["launches"] = [symbolic(l, {x.data_ptr(): "x", w.data_ptr(): "w", dy.data_ptr(): "dy"})
                      for l in backward_launches(y, dy)]
print(json.dumps(report))
"""


def test_a_plan_resolved_where_the_gradient_is_the_saved_input(library):
    # The recorder knows tensors by identity: resolved on the backward's own
    # tensors, one object in two roles must not make one slot of two.
    report = run(library, SAME_OBJECT)
    assert report["first"] != "CppFunction" and report["second"] == "CppFunction"
    params = report["launches"][0]["params"]
    assert "dy" in params and "x" in params and "w" in params


CONTRACT = PRELUDE + """
m, n = 37, 300
dy = torch.randn(m, n, dtype=torch.float16)


def leaves():
    return norm_inputs(m, n)[:3]


def error_of(action):
    try:
        action()
    except RuntimeError as exc:
        return str(exc)
    return None


for op in ("layer_norm", "softmax"):  # the first backward of each key resolves its plan
    x, w, b = leaves()
    (ops.layer_norm(x, w, b) if op == "layer_norm" else ops.softmax(x)).backward(dy)
nodes = []
# A saved input changed in place after the forward (x is a non-leaf here).
x, w, b = leaves()
h = x * 1
y = ops.layer_norm(h, w, b)
nodes.append(type(y.grad_fn).__name__)
h.add_(1)
report["input_changed"] = error_of(lambda: y.backward(dy))
# Softmax's saved output changed in place.
x, w, b = leaves()
y = ops.softmax(x)
nodes.append(type(y.grad_fn).__name__)
y.mul_(2)
report["output_changed"] = error_of(lambda: y.backward(dy))
# Saved-tensor hooks see what the node saves (x, w, mean, rstd) and give it back.
x, w, b = leaves()
packed = []
with torch.autograd.graph.saved_tensors_hooks(lambda t: (packed.append("pack"), t)[1],
                                              lambda t: (packed.append("unpack"), t)[1]):
    y = ops.layer_norm(x, w, b)
nodes.append(type(y.grad_fn).__name__)
y.backward(dy)
report["hooks"] = packed
# retain_graph: two backwards; a third without it raises.
x, w, b = leaves()
y = ops.layer_norm(x, w, b)
nodes.append(type(y.grad_fn).__name__)
y.backward(dy, retain_graph=True)
y.backward(dy)
report["third"] = error_of(lambda: y.backward(dy))
# Gradients of some inputs only: w's alone leaves x.grad unset.
x, w, b = leaves()
y = ops.layer_norm(x, w, b)
nodes.append(type(y.grad_fn).__name__)
(gw,) = torch.autograd.grad(y, [w], dy)
report["w_only"] = [list(gw.shape), x.grad is None, b.grad is None]
report["nodes"] = nodes
print(json.dumps(report))
"""


def test_the_cpp_node_keeps_autograds_contract(library):
    """What the node saves is saved as autograd saves tensors: an in-place
    change of a saved input (layer_norm's x) or of softmax's saved output
    after the forward raises torch's version-counter error; saved-tensor
    hooks pack and unpack each saved tensor (x, w, mean, rstd); with
    retain_graph a graph runs backward twice, and a third time without it
    raises; a gradient asked of some inputs only computes those."""
    report = run(library, CONTRACT)
    assert report["nodes"] == ["CppFunction"] * 5
    for key in ("input_changed", "output_changed"):
        assert report[key] is not None and "modified by an inplace operation" in report[key], report[key]
    assert report["hooks"] == ["pack"] * 4 + ["unpack"] * 4
    assert report["third"] is not None and "backward through the graph a second time" in report["third"]
    assert report["w_only"] == [[300], True, True]


FORWARD = PRELUDE + INPUTS + """
# A 3-D x of the same rows and a misaligned view (2 bytes past an aligned
# address) share the 2-D x's key.
x3 = x.detach().view(1, m, n).requires_grad_(needs[0])
storage = torch.randn(m * n + 8, dtype=torch.float16)
xm = storage[1:m * n + 1].view(m, n).requires_grad_(needs[0])
if case == "layer_norm":
    w.requires_grad_(needs[1]); b.requires_grad_(needs[2])
    weight, bias = (w if sys.argv[3] != "no-weight" else None), (b if sys.argv[3] != "no-bias" else None)
    call = lambda x, eps: ops.layer_norm(x, weight, bias, eps)
elif case == "rms_norm":
    w.requires_grad_(needs[1])
    call = lambda x, eps: ops.rms_norm(x, w, eps)
else:
    call = lambda x, eps: ops.softmax(x)
names = {x.data_ptr(): "x", w.data_ptr(): "w", b.data_ptr(): "b", xm.data_ptr(): "xm"}
python_calls = [0]
_launch = _runtime.Tuned.launch
def counted(self, *args, **kwargs):
    python_calls[0] += 1
    return _launch(self, *args, **kwargs)
_runtime.Tuned.launch = counted


def forward(x, eps):
    before, python_calls[0] = fakecuda.launch_count(), 0
    y = call(x, eps)
    launches = [fakecuda.launch_at(k) for k in range(before + 1, fakecuda.launch_count() + 1)]
    return y, {"python": python_calls[0], "grad_fn": type(y.grad_fn).__name__, "shape": list(y.shape),
               "contiguous": y.is_contiguous(), "dtype": str(y.dtype),
               "launches": [symbolic(l, names) for l in launches],
               "aligned": all(int.from_bytes(bytes.fromhex(p), "little") % 16 == 0
                              for l in launches for p in l["params"][:2])}


steps = {}
for step, (tensor, eps) in enumerate([(x, 1e-5), (x, 1e-5), (x, 1e-5), (x, 1e-3), (x3, 1e-5), (xm, 1e-5)]):
    y, steps[step] = forward(tensor, eps)
    y.backward(dy.view(y.shape))
    steps[step]["grad"] = None if not needs[0] else list(tensor.grad.shape)
    tensor.grad = None
report["steps"] = steps
report["plans"] = sum(1 for v in _autograd.forwards.values() if v is not None)
# The Python forward's launches of the same calls, for reference.
_autograd.enabled = False
report["python"] = {eps: forward(tensor, eps)[1] for tensor, eps in [(x, 1e-3), (xm, 1e-5)]}
report["declined"] = [str(v) for v in _autograd.declined.values()]
print(json.dumps(report))
"""


@pytest.mark.parametrize("case,needs,params", CASES)
def test_the_cpp_forward_launches_what_the_python_forward_launched(library, case, needs, params):
    """From the second step of a key on (its backward plan resolved by the
    first), an eager forward with grad is one C++ call: no Tuned launch in
    Python, the node recorded, and the launch the Python forward makes (the
    same kernel, grid, tensors, eps and stream); eps is the call's (a run-time
    parameter); a 3-D x of the key's rows gets its own shape; a misaligned x
    reaches the kernel as an aligned copy."""
    report = run(library, FORWARD, case, needs, params)
    steps = {int(k): v for k, v in report["steps"].items()}
    assert report["declined"] == [] and report["plans"] == 1
    python, resolving = steps[0], steps[1]
    assert python["python"] == 1 and python["grad_fn"] != "CppFunction"
    # Resolving records the forward's launch once more in Python (launching nothing).
    assert resolving["grad_fn"] == "CppFunction" and len(resolving["launches"]) == 1
    for step in (1, 2, 3, 4, 5):
        assert steps[step]["grad_fn"] == "CppFunction", step
        assert steps[step]["shape"] == ([1, 37, 300] if step == 4 else [37, 300])
        assert steps[step]["contiguous"] and steps[step]["dtype"] == "torch.float16"
        assert steps[step]["grad"] == (steps[step]["shape"] if needs[0] == "1" else None)
    for step in (2, 3, 4, 5):
        assert steps[step]["python"] == 0, step  # no forward in Python
    for step in (1, 2, 4):
        assert steps[step]["launches"] == python["launches"], step
    assert python["launches"][0]["stream"] == 0x5EA1
    assert steps[3]["launches"] == report["python"]["0.001"]["launches"]
    if case != "softmax":
        assert steps[3]["launches"] != python["launches"]  # eps is the call's
    # The misaligned x: Python launches the view itself, the C++ forward an aligned copy.
    misaligned, reference = steps[5]["launches"][0], report["python"]["1e-05"]["launches"][0]
    assert "xm" in reference["params"] and "xm" not in misaligned["params"] and steps[5]["aligned"]
    assert misaligned["name"] == reference["name"] and misaligned["grid"] == reference["grid"]
    assert [p for p in misaligned["params"] if p not in ("xm", "address")] == \
        [p for p in reference["params"] if p not in ("xm", "address")]


def test_the_knob_keeps_the_forward_in_python(library):
    report = fakecuda.run_script(library, FORWARD.replace("sys.argv", "(['child', 'layer_norm', '111', 'all'])"),
                                 env={"TILELANG_OPS_AUTOTUNE": "0", "TILELANG_OPS_NATIVE_AUTOGRAD": "0"})
    assert report["plans"] == 0
    assert all(step["python"] == 1 and step["grad_fn"] != "CppFunction" for step in report["steps"].values())


MOVED = PRELUDE + """
x = torch.randn(37, 300, dtype=torch.float16, requires_grad=True)
w = (torch.rand(300, dtype=torch.float16) + 0.5).requires_grad_()
dy = torch.randn(37, 300, dtype=torch.float16)
for step in range(2):  # the plans
    x.grad = w.grad = None
    ops.rms_norm(x, w).backward(dy)
# A saved-tensor hook whose unpack gives the tensor back on another device
# (meta here, where the stand-in tests have CPU tensors for the device's).
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t.to("meta")):
    y = ops.rms_norm(x, w)
report["node"] = type(y.grad_fn).__name__
before = fakecuda.launch_count()
try:
    y.backward(dy)
    report["error"] = None
except RuntimeError as exc:
    report["error"] = str(exc)
report["launches"] = fakecuda.launch_count() - before
print(json.dumps(report))
"""


def test_a_saved_tensor_given_back_on_another_device_is_refused(library):
    """The node's kernels take the saved tensors' addresses as device
    pointers: one that a saved-tensor hook gives back on another device
    raises (naming the node) before anything is launched, where it was
    launched with an address of the wrong memory."""
    report = run(library, MOVED)
    assert report["node"] == "CppFunction"
    assert report["error"] is not None and "TileLangRmsNormBackward: a saved tensor came back on meta" in \
        report["error"], report["error"]
    assert report["launches"] == 0


KNOB_CHANGE = PRELUDE + INPUTS + """
import os

w.requires_grad_(True); b.requires_grad_(True)


def step():
    x.grad = w.grad = b.grad = None
    links = fakecuda.link_count()
    y = ops.layer_norm(x, w, b)
    launches = backward_launches(y, dy)
    return {"grad_fn": type(y.grad_fn).__name__, "links": fakecuda.link_count() - links,
            "launches": [[launch["name"], launch["grid"]] for launch in launches]}


report["before"] = [step() for _ in range(3)]
report["plan"] = id(_autograd.forward_plan(next(iter(_autograd.forwards))))
os.environ["TILELANG_OCCUPANCY_SEARCH"] = "1"
report["after"] = [step() for _ in range(3)]
report["plans"] = [id(_autograd.forward_plan(key)) for key in _autograd.forwards]
report["declined"] = [str(v) for v in _autograd.declined.values()]
print(json.dumps(report))
"""


def test_plans_are_resolved_again_when_a_compile_knob_changes(library):
    """A C++ plan holds for the compile knobs' values it was resolved under
    (tilelang.knobs.compile_state): a process that turns the occupancy
    search on after its plans exist gets, at its next call, the Python
    path, whose launches link the kernels anew for the search (a separate
    cache key), then plans resolved from those. Before, the old plans went
    on launching the kernels linked without the search, and nothing was
    linked again."""
    report = fakecuda.run_script(library, KNOB_CHANGE.replace("sys.argv", "(['child', 'layer_norm', '111'])"),
                                 env={"TILELANG_OPS_AUTOTUNE": "0", "TILELANG_OCCUPANCY_SEARCH": "0"})
    before, after = report["before"], report["after"]
    assert report["declined"] == []
    assert [s["grad_fn"] for s in before] == [s["grad_fn"] for s in after]
    assert before[0]["grad_fn"] != "CppFunction" and after[2]["grad_fn"] == "CppFunction"
    assert before[0]["links"] > 0 and after[0]["links"] > 0
    assert before[1]["links"] == before[2]["links"] == after[1]["links"] == after[2]["links"] == 0
    # The same kernels on the same grids, from new plans.
    assert all(s["launches"] == before[0]["launches"] for s in before + after)
    assert len(report["plans"]) == 1 and report["plans"][0] != report["plan"]


ENTRY = PRELUDE + """
import os
from tilelang.ops import _softmax
from torch.utils._python_dispatch import TorchDispatchMode
m, n = 37, 300
x, w, b, dy = norm_inputs(m, n)
names = {x.data_ptr(): "x", w.data_ptr(): "w", b.data_ptr(): "b"}
# Python's part of a call: the eager checks and the Python path's C++ forward.
python = []
_eager, _forward = _norm.eager, _autograd.forward
_norm.eager = _softmax.eager = lambda *a: (python.append("eager"), _eager(*a))[1]
_autograd.forward = lambda *a: (python.append("forward"), _forward(*a))[1]


def step(call, backward=True):
    python.clear()
    for t in (x, w, b):
        t.grad = None
    before = fakecuda.launch_count()
    y = call()
    launches = [symbolic(fakecuda.launch_at(k), names) for k in range(before + 1, fakecuda.launch_count() + 1)]
    if backward and y.requires_grad:
        y.backward(dy)
    return {"python": list(python), "grad_fn": type(y.grad_fn).__name__, "launches": launches}


ln = lambda: ops.layer_norm(x, w, b, 1e-5)
report["steps"] = [step(ln) for _ in range(4)]
report["table"] = len(_norm._LAYER_NORM)
# The Python path's launch of the same call, for reference.
_autograd.enabled = False
report["reference"] = step(ln, backward=False)["launches"]
_autograd.enabled = True
# Calls the entry gives back to the Python path (which decides as before).
declines = {}
with torch.no_grad():
    declines["no_grad"] = step(ln)
declines["eps_zero"] = str(pytest_raises(lambda: ops.layer_norm(x, w, b, 0.0)))
declines["wrong_weight"] = str(pytest_raises(lambda: ops.layer_norm(x, w[:-1], b)))
declines["eps_int"] = step(lambda: ops.layer_norm(x, w, b, 1))
class Mode(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
with Mode():
    declines["dispatch_mode"] = step(ln, backward=False)
os.environ["TILELANG_DEBUG_PROBE"] = "1"  # a knob of the table below
knobbed = _autograd._native.ForwardTable(2, True, _runtime._PLAIN_TENSORS, ["TILELANG_DEBUG_PROBE"])
knobbed.put(_autograd.forward_plan(_norm._key(x, w, False, True, True, True, True)), [], x, w, b)
report["knob_same"] = _autograd.eager_forward(knobbed, x, w, b, 1e-5) is not None
os.environ["TILELANG_DEBUG_PROBE"] = "2"
report["knob_changed"] = _autograd.eager_forward(knobbed, x, w, b, 1e-5) is None
del os.environ["TILELANG_DEBUG_PROBE"]
report["knob_unset"] = _autograd.eager_forward(knobbed, x, w, b, 1e-5) is None
report["declines"] = declines
# A tuner cache replaced (as tests do to tune again): the plan no longer holds.
_norm._LAYER_NORM_FWD._tuner.cache = dict(_norm._LAYER_NORM_FWD._tuner.cache)
report["stale"] = step(ln)
report["stale_table"] = len(_norm._LAYER_NORM)
# Misuse of the entry itself.
errors = []
for args in [(object(), x, w, b, 1e-5), (_norm._LAYER_NORM, x, w, 1e-5), ()]:
    try:
        _autograd.eager_forward(*args)
        errors.append(None)
    except TypeError as exc:
        errors.append(str(exc))
report["errors"] = errors
# The other operators take it too.
report["rms"] = [step(lambda: ops.rms_norm(x, w))["python"] for _ in range(4)]
report["softmax"] = [step(lambda: ops.softmax(x))["python"] for _ in range(4)]
report["softmax_table"] = len(_softmax._SOFTMAX)
# Dynamo reads past the entry (torch.compiler.is_compiling) to the custom operator.
explanation = torch._dynamo.explain(lambda t: ops.layer_norm(t, w, b))(x)
report["dynamo"] = [explanation.graph_count, explanation.graph_break_count]
print(json.dumps(report))
"""


def test_the_cpp_entry_takes_a_planned_call_with_no_python(library):
    """Once the Python path has run a key's C++ forward, the next calls like
    it go from tilelang.ops.layer_norm straight to _C_torch.eager_forward:
    no eager checks and no forward in Python, the same launch as the Python
    path's. Calls that are not like it come back to the Python path, which
    decides as before: no grad, eps not positive, a wrong weight (its error
    located as before), a dispatch mode, a plan whose tuner cache was
    replaced (dropped from the table), a knob changed or unset since the
    plan was put; an int eps is taken as the Python path takes it (1.0).
    Wrong arguments to the entry raise TypeError. rms_norm and softmax
    take the entry the same way; Dynamo traces the call without a break."""
    source = ENTRY.replace("pytest_raises", "raised")
    source = source.replace("import os\n", "import os\n\n\ndef raised(call):\n    try:\n        call()\n"
                            "    except Exception as exc:\n        return f'{type(exc).__name__}: {exc}'\n", 1)
    report = run(library, source)
    steps = report["steps"]
    assert steps[0]["python"] == ["eager"] and steps[0]["grad_fn"] != "CppFunction"  # resolves the backward
    assert steps[1]["python"] == ["eager", "forward"] and steps[1]["grad_fn"] == "CppFunction"  # resolves the forward
    for later in steps[2:]:
        assert later["python"] == [] and later["grad_fn"] == "CppFunction"
        assert later["launches"] == report["reference"] and len(later["launches"]) == 1
    assert report["table"] == 1
    declines = report["declines"]
    assert declines["no_grad"]["python"] == ["eager"] and declines["no_grad"]["grad_fn"] == "NoneType"
    assert declines["eps_zero"] == "ValueError: tilelang.ops.layer_norm: eps must be positive, not 0.0"
    assert declines["wrong_weight"] == \
        "ValueError: tilelang.ops.layer_norm: weight has 299 elements, x's last dimension 300"
    # An int eps is taken as the Python path takes it: 1.0 at eps's slot.
    assert declines["eps_int"]["python"] == [] and declines["eps_int"]["launches"][0]["params"][-1] == "0000803f"
    assert declines["dispatch_mode"]["python"] == ["eager"]
    assert report["knob_same"] and report["knob_changed"] and report["knob_unset"]
    assert report["stale"]["python"][0] == "eager" and report["stale_table"] == 0
    assert report["errors"][0] == "tilelang._C_torch.eager_forward: the first argument is not a ForwardTable"
    assert report["errors"][1].startswith("tilelang._C_torch.eager_forward: the table's operator takes x, 2 "
                                          "parameter(s) and eps (4 arguments after the table), not 3")
    assert report["errors"][2] == "tilelang._C_torch.eager_forward: no table"
    assert report["rms"][2:] == [[], []]
    assert report["softmax"][2:] == [[], []] and report["softmax_table"] == 1
    assert report["dynamo"] == [1, 0]


WORKSPACE = PRELUDE + """
from tilelang.ops import spaces
m, n = 100, 301
x, w, b, dy = norm_inputs(m, n)
runs = []
for step in range(3):
    x.grad = w.grad = b.grad = None
    y = ops.layer_norm(x, w, b)
    launches = backward_launches(y, dy)
    fused = [l for l in launches if l["name"] == "norm_bwd_fused"][0]
    # norm_bwd_fused(DX, PW, PB, ...): the weight's and the bias's partial sums.
    pw, pb = (int.from_bytes(bytes.fromhex(p), "little") for p in fused["params"][1:3])
    runs.append({"fn": type(y.grad_fn).__name__, "gap": pb - pw, "names": [l["name"] for l in launches],
                 "grads": [list(t.grad.shape) for t in (x, w, b)]})
report["runs"] = runs
report["groups"] = spaces.norm_bwd_programs(m, 132)
report["declined"] = [str(v) for v in _autograd.declined.values()]
print(json.dumps(report))
"""


def test_the_partial_sums_share_one_allocation(library):
    """layer_norm's backward with weight and bias gradients allocates one
    fp32 workspace for both partial sums, in Python and in the C++ node
    (whose plan keeps the bias's as an offset into that buffer): the bias's
    start is the weight's (groups x n) rounded up to 16 bytes past it (a
    row length of 301 and 25 groups: 7525 floats, the bias's at 7528)."""
    report = run(library, WORKSPACE)
    assert report["declined"] == [] and report["groups"] == 25
    python, *nodes = report["runs"]
    assert python["fn"] != "CppFunction" and [r["fn"] for r in nodes] == ["CppFunction"] * 2
    for r in report["runs"]:
        assert r["gap"] == 7528 * 4 and r["names"] == ["norm_bwd_fused", "column_sum"]
        assert r["grads"] == [[100, 301], [301], [301]]
