"""tilelang.ops without a GPU, where torch is installed (skipped otherwise):
clear errors for CPU tensors, unsupported dtypes and mismatched shapes;
shapes and dtypes through the fake implementations (fake CUDA tensors need
no GPU); forward and backward traced by make_fx (on meta tensors) into graphs of tilelang's
custom operators, as torch.compile sees them; and the eager dispatch of an
Operator (its implementation called directly, through an autograd.Function
where gradients are recorded; the custom operator while tracing), on an
Operator whose kernels "run" on the CPU."""

import pytest

torch = pytest.importorskip("torch")

import tilelang.ops as ops  # noqa: E402
from tilelang.ops._runtime import Operator  # noqa: E402
from torch._subclasses.fake_tensor import FakeTensorMode  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402


def test_cpu_tensors_are_refused():
    x = torch.randn(4, 8)
    for call in (lambda: ops.layer_norm(x), lambda: ops.rms_norm(x), lambda: ops.softmax(x),
                 lambda: ops.matmul(x.half(), x.t().half())):
        with pytest.raises(ValueError, match=r"tilelang.ops.\w+: \w+ is on cpu; tilelang's kernels run on CUDA"):
            call()


def test_unsupported_dtypes_and_shapes_are_refused():
    with FakeTensorMode():
        x = torch.empty(4, 16, device="cuda", dtype=torch.float16)
        with pytest.raises(TypeError, match="tilelang.ops.matmul: a has dtype float32; supported: float16, bfloat16"):
            ops.matmul(x.float(), x.t().float())
        with pytest.raises(TypeError, match="tilelang.ops.softmax: x has dtype int32"):
            ops.softmax(x.int())
        with pytest.raises(TypeError, match="tilelang.ops.matmul: b has dtype bfloat16 but a has float16"):
            ops.matmul(x, x.t().bfloat16())
        with pytest.raises(ValueError, match=r"tilelang.ops.matmul: shapes \(4, 16\) and \(4, 16\) do not multiply"):
            ops.matmul(x, x)
        with pytest.raises(ValueError, match="activation 'tanh'; supported: None, 'relu', 'gelu', 'silu'"):
            ops.matmul(x, x.t(), activation="tanh")
        with pytest.raises(ValueError, match="tilelang.ops.layer_norm: weight has 15 elements, x's last dimension 16"):
            ops.layer_norm(x, torch.empty(15, device="cuda", dtype=torch.float16))
        with pytest.raises(ValueError, match="eps must be positive"):
            ops.rms_norm(x, eps=0.0)
        with pytest.raises(IndexError, match="dim 2 is out of range"):
            ops.softmax(x, 2)
        q = torch.empty(1, 2, 8, 32, device="cuda", dtype=torch.float16)
        with pytest.raises(ValueError, match="tilelang.ops.attention: head dimension 32, not 64 or 128"):
            ops.attention(q, q, q)


def test_fake_shapes():
    with FakeTensorMode():
        x = torch.empty(3, 5, 300, device="cuda", dtype=torch.bfloat16)
        w = torch.empty(300, 77, device="cuda", dtype=torch.bfloat16)
        y = ops.matmul(x, w, torch.empty(77, device="cuda", dtype=torch.bfloat16), activation="silu")
        assert y.shape == (3, 5, 77) and y.dtype == torch.bfloat16
        assert ops.layer_norm(y).shape == y.shape and ops.rms_norm(y).dtype == torch.bfloat16
        assert ops.softmax(y, dim=1).shape == y.shape
        q = torch.empty(2, 4, 100, 64, device="cuda", dtype=torch.float16)
        kv = torch.empty(2, 2, 100, 64, device="cuda", dtype=torch.float16)
        assert ops.attention(q, kv, kv, causal=True).shape == q.shape


def _traced_ops(fn, *shapes):
    """The tilelang operators in the graph of `fn`'s forward and backward,
    traced on meta tensors (the operators' fake implementations)."""
    def step(*inputs):
        out = fn(*inputs)
        return torch.autograd.grad(out.float().sum(), inputs)

    inputs = [torch.empty(*shape, dtype=torch.float16, device="meta", requires_grad=True) for shape in shapes]
    graph = make_fx(step)(*inputs)
    return [str(node.target) for node in graph.graph.nodes if str(node.target).startswith("tilelang.")]


def test_backward_graphs_use_the_backward_kernels():
    # The norms' backward is one operator (dx, dw and db from one read of x and dy).
    assert _traced_ops(lambda x, w, b: ops.layer_norm(x, w, b), (7, 33), (33,), (33,)) == [
        "tilelang.layer_norm_fwd.default", "tilelang.norm_bwd.default"]
    assert _traced_ops(lambda x, w: ops.rms_norm(x, w), (7, 33), (33,)) == [
        "tilelang.rms_norm_fwd.default", "tilelang.norm_bwd.default"]
    assert _traced_ops(lambda x: ops.softmax(x), (7, 33)) == [
        "tilelang.softmax_fwd.default", "tilelang.softmax_bwd.default"]
    # The matmul backward is two products through the same operator.
    assert _traced_ops(lambda a, b: ops.matmul(a, b, activation="relu"), (7, 33), (33, 20)) == [
        "tilelang.matmul.default"] * 3


# -- eager calls skip torch's dispatcher --------------------------------------------------


class _CpuOperator(Operator):
    """An Operator whose kernels "run" on the CPU, so that its dispatch can be
    checked here: the same decisions as on CUDA tensors."""

    device_attribute = "is_cpu"


def _scale_impl(x: torch.Tensor, factor: float) -> torch.Tensor:
    return x * factor


def _scale_setup(ctx, inputs, output):
    ctx.factor = inputs[1]


def _scale_backward(ctx, dy):
    return dy * ctx.factor, None


_SCALE = _CpuOperator("tilelang_test::scale", _scale_impl, lambda x, factor: torch.empty_like(x), _scale_setup,
                      _scale_backward)


@pytest.fixture
def op_calls(monkeypatch):
    """How many calls went through the custom operator (torch's dispatcher)."""
    calls = []
    op = _SCALE.op

    def counted(*args):
        calls.append(args)
        return op(*args)

    monkeypatch.setattr(_SCALE, "op", counted)
    return calls


def test_eager_calls_run_the_implementation_directly(op_calls):
    x = torch.randn(5, 3)
    assert torch.equal(_SCALE(x, 2.0), x * 2) and op_calls == []
    with torch.no_grad():
        _SCALE(x.requires_grad_(), 3.0)
    assert op_calls == []


def test_eager_autograd_goes_through_a_function_with_the_same_backward(op_calls):
    x = torch.randn(5, 3, requires_grad=True)
    y = _SCALE(x, 3.0)
    assert "tilelang_test_scale" in type(y.grad_fn).__name__
    y.sum().backward()
    assert torch.equal(x.grad, torch.full_like(x, 3.0)) and op_calls == []


def test_module_parameters_take_the_direct_path(op_calls):
    # A module's weights are nn.Parameter, whose torch function handling is
    # the plain tensor's: a norm with weights stays off the dispatcher.
    weight = torch.nn.Parameter(torch.randn(5, 3))
    y = _SCALE(weight, 3.0)
    assert "tilelang_test_scale" in type(y.grad_fn).__name__ and op_calls == []
    y.sum().backward()
    assert torch.equal(weight.grad, torch.full_like(weight, 3.0))


def _double_impl(x: torch.Tensor) -> torch.Tensor:
    return x * 2


_DOUBLE = _CpuOperator("tilelang_test::double", _double_impl, lambda x: torch.empty_like(x))


def test_an_operator_without_backward_refuses_to_be_differentiated():
    # The backward operators have no backward: under create_graph=True their
    # result must not come back as a constant that drops the higher-order
    # gradient, but as the custom operator's node that says so.
    x = torch.randn(4, requires_grad=True)
    y = _DOUBLE(x)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="no autograd formula"):
        y.sum().backward()
    with torch.no_grad():
        assert not _DOUBLE(x).requires_grad


def test_tracing_and_fake_tensors_see_the_custom_operator(op_calls):
    graph = make_fx(lambda x: _SCALE(x, 2.0))(torch.randn(4, 4))
    assert [str(n.target) for n in graph.graph.nodes if str(n.target).startswith("tilelang_test.")] == \
        ["tilelang_test.scale.default"]
    with FakeTensorMode():
        assert _SCALE(torch.empty(2, 2), 2.0).shape == (2, 2)
    _SCALE(torch.empty(2, 2, device="meta"), 2.0)
    assert len(op_calls) == 3


def test_torch_compile_traces_the_custom_operator(op_calls):
    compiled = torch.compile(lambda x: _SCALE(x, 2.0) + 1, fullgraph=True, backend="aot_eager")
    x = torch.randn(8)
    assert torch.equal(compiled(x), x * 2 + 1)
    assert op_calls  # traced through the operator, not inlined


def test_weight_gradients_come_in_the_parameters_dtype():
    # column_sum converts as it writes: no fp32 result to cast afterwards
    # (a zero fill and a cast kernel per gradient fewer in each backward).
    with FakeTensorMode():
        x = torch.empty(7, 33, device="cuda", dtype=torch.bfloat16)
        stats = torch.empty(7, device="cuda")
        dx, dw, db = torch.ops.tilelang.norm_bwd(x, x, x[0], stats, stats, False, True, True, True)
        assert (dw.dtype, db.dtype, dw.shape, db.shape) == (torch.bfloat16, torch.bfloat16, (33,), (33,))
        assert dx.shape == x.shape


@pytest.mark.parametrize("input_grad,weight_grad,has_bias", [(True, True, True), (True, True, False),
                                                             (True, False, False), (False, True, True)])
def test_norm_backward_returns_what_is_asked_for(input_grad, weight_grad, has_bias):
    # One operator for every backward of the norms: what is not asked for comes back empty.
    with FakeTensorMode():
        x = torch.empty(3, 7, 33, device="cuda", dtype=torch.float16)
        stats = torch.empty(21, device="cuda")
        dx, dw, db = torch.ops.tilelang.norm_bwd(x, x, None, None, stats, True, input_grad, weight_grad, has_bias)
        assert dx.shape == ((3, 7, 33) if input_grad else (0,))
        assert dw.shape == ((33,) if weight_grad else (0,))
        assert db.shape == ((33,) if weight_grad and has_bias else (0,))


def test_norm_backward_asks_for_the_gradients_that_are_needed():
    # x without requires_grad: no input gradient computed; weight and bias
    # without: neither partial sums nor column sums.
    def traced(fn, needs):
        inputs = [torch.empty(*shape, dtype=torch.float16, device="meta", requires_grad=need)
                  for shape, need in zip(((7, 33), (33,), (33,)), needs)]

        def step(*args):
            out = fn(*args)
            return torch.autograd.grad(out.float().sum(), [a for a in args if a.requires_grad])

        graph = make_fx(step)(*inputs)
        return [node.args[5:] for node in graph.graph.nodes if str(node.target) == "tilelang.norm_bwd.default"]

    assert traced(lambda x, w, b: ops.layer_norm(x, w, b), (False, True, True)) == [(False, False, True, True)]
    assert traced(lambda x, w, b: ops.layer_norm(x, w, b), (True, False, False)) == [(False, True, False, True)]
    assert traced(lambda x, w, b: ops.layer_norm(x, w, b), (True, False, True)) == [(False, True, True, True)]
    assert traced(lambda x, w, b: ops.rms_norm(x, w), (True, True, False)) == [(True, True, True, False)]


def test_operands_are_copied_to_aligned_rows_only_when_they_need_it():
    from tilelang.ops._matmul import _aligned

    a = torch.randn(37, 1001, dtype=torch.float16)  # rows 1001 elements apart: copied, rows 1008 apart
    copy = _aligned(a)
    assert copy.stride() == (1008, 1) and torch.equal(copy, a)
    column_major = torch.randn(1000, 37, dtype=torch.float16).t()  # columns 37 apart: 40 apart, column-major
    copy = _aligned(column_major)
    assert copy.stride() == (1, 40) and torch.equal(copy, column_major)
    offset = torch.randn(37, 1024, dtype=torch.float16)[:, 3:]  # rows aligned, the start not
    copy = _aligned(offset)
    assert copy.data_ptr() % 16 == 0 and copy.stride(0) % 8 == 0 and torch.equal(copy, offset)
    # Rows (columns) 8 elements apart or a multiple of it are 16 bytes apart: the launch says
    # which strides are (STRIDES_OF_8) and the kernel keeps its 16-byte copies without a copy.
    for kept in (torch.randn(37, 1024, dtype=torch.float16), torch.randn(37, 1024, dtype=torch.float16).t(),
                 torch.randn(1, 1001, dtype=torch.float16), torch.randn(37, 1000, dtype=torch.float16),
                 torch.randn(1000, 40, dtype=torch.float16).t()):
        assert _aligned(kept) is kept


def test_the_launch_says_which_strides_are_multiples_of_8():
    from tilelang.ops._matmul import _strides_of_8

    assert _strides_of_8((1000, 1, 4096, 1)) == 0b0101
    assert _strides_of_8((1, 1000, 1, 4096)) == 0b1010
    assert _strides_of_8((1001, 1, 129, 1)) == 0
    assert _strides_of_8((0, 1, 16, 1)) == 0b0101  # a broadcast row (stride 0) is a multiple too
