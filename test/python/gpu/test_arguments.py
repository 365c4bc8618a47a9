"""What a kernel receives from the launcher, on the GPU: integer scalars of
each width the launcher picks (i32, u32 for values in [2**31, 2**32), i64,
including values beyond 2**32 and negative ones), fp32 and bool scalars,
scalars of explicitly compiled types (i8, i16, u64, fp64); pointers given as
tensors, as raw integer addresses (tensor.data_ptr()) and as objects that
only have __cuda_array_interface__ (the last two through the loaded
kernel's launch(), since kernel[grid] specializes an int as a scalar; and
objects with __cuda_array_interface__ through kernel[grid] too);
tensors not aligned to 16 bytes; and the grid checks that kernel[grid]
makes before launching (test_launch.py covers a zero x dimension and
y = 70000). Skipped without a GPU or without torch."""

import pathlib
import struct

import pytest

import tilelang
from tilelang_testing import load_module

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

K = load_module("gpu_kernels", pathlib.Path(__file__).with_name("gpu_kernels.py"))


def fp32(value: float) -> float:
    """value rounded to fp32 (as the launcher passes a Python float)."""
    return struct.unpack("f", struct.pack("f", value))[0]


def wrap64(value: int) -> int:
    return (value + 2**63) % 2**64 - 2**63


def stream() -> int:
    return torch.cuda.current_stream().cuda_stream


class CudaArray:
    """Exposes a CUDA tensor through __cuda_array_interface__ only (no
    data_ptr, no dtype), as CuPy, Numba or JAX arrays do."""

    TYPESTR = {torch.float32: "<f4", torch.float16: "<f2", torch.float64: "<f8", torch.int32: "<i4",
               torch.int64: "<i8", torch.int8: "|i1", torch.uint8: "|u1"}

    def __init__(self, tensor):
        self._tensor = tensor  # keeps the memory alive

    @property
    def __cuda_array_interface__(self):
        t = self._tensor
        return {"typestr": self.TYPESTR[t.dtype], "shape": tuple(t.shape), "strides": None,
                "data": (t.data_ptr(), False), "version": 3}


# ---------------------------------------------------------------------------
# Scalars
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("a,b,types", [
    (-123457, 2**40 + 3, ("i32", "i64")),
    (7, 2**31 + 5, ("i32", "u32")),
    (2**31 - 1, -(2**31), ("i32", "i32")),
    (-(2**40) - 7, 2**63 - 5, ("i64", "i64")),
    (-2, -(2**63), ("i32", "i64")),
    (2**32 - 1, 2**32, ("u32", "i64")),
])
def test_integer_scalars(a, b, types):
    out = torch.full((4,), -99, device="cuda", dtype=torch.int64)
    compiled = K.int_scalars_kernel[(1,)](out, a, b)
    assert (compiled.signature["a"], compiled.signature["b"]) == types
    assert out.tolist() == [a, b, wrap64(a + b), b >> 32]


@pytest.mark.parametrize("x", [0.3, -1.5e-3, 123456.789, 3e38])
@pytest.mark.parametrize("flag", [True, False])
def test_float_and_bool_scalars(x, flag):
    out_f = torch.full((3,), float("nan"), device="cuda")
    out_i = torch.full((2,), -99, device="cuda", dtype=torch.int32)
    k = -7
    compiled = K.float_bool_scalars_kernel[(1,)](out_f, out_i, x, flag, k)
    assert compiled.signature == {"out_f_ptr": "*fp32", "out_i_ptr": "*i32", "x": "fp32", "flag": "i1", "k": "i32"}
    x32 = fp32(x)
    # The exact products (in float64) rounded once to fp32, as the kernel
    # rounds them; 3e38 * 3 overflows to inf in both.
    ref = torch.tensor([x32, x32 * 3.0, x32 * k], dtype=torch.float64).float()
    assert torch.equal(out_f.cpu(), ref)
    assert out_i.tolist() == ([11, 1] if flag else [22, 0])


def test_explicitly_typed_scalars():
    compiled = K.explicit_scalars_kernel.compile(
        {"out_i_ptr": "*i64", "out_f_ptr": "*fp64", "a": "i8", "b": "i16", "c": "u64", "d": "fp64", "e": "fp32"})
    out_i = torch.full((4,), -99, device="cuda", dtype=torch.int64)
    out_f = torch.full((2,), float("nan"), device="cuda", dtype=torch.float64)
    a, b, c, d, e = -100, -30000, 2**64 - 3, 1.0 / 3.0, 0.1
    assert compiled.arg_names == ["out_i_ptr", "out_f_ptr", "a", "b", "c", "d", "e"]
    K.launch_compiled(compiled, (1,), stream(), out_i, out_f, a, b, c, d, e)
    torch.cuda.synchronize()
    assert out_i.tolist() == [a, b, c >> 32, c & 0xFFFFFFFF]
    assert out_f.tolist() == [d, fp32(e)]


# ---------------------------------------------------------------------------
# Pointers
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["tensor", "address", "cuda_array_interface", "mixed"])
@pytest.mark.parametrize("n", [1000, 1024])
def test_pointer_argument_kinds(kind, n):
    compiled = K.copy_kernel.compile({"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, constexprs={"BLOCK": 256})
    x = torch.randn(n, device="cuda")
    out = torch.full((n + 16,), float("nan"), device="cuda")
    if kind == "tensor":
        args = (x, out)
    elif kind == "address":
        args = (x.data_ptr(), out.data_ptr())
        assert all(type(a) is int for a in args)
    elif kind == "cuda_array_interface":
        args = (CudaArray(x), CudaArray(out))
        assert not hasattr(args[0], "data_ptr")
    else:
        args = (CudaArray(x), out.data_ptr())
    K.launch_compiled(compiled, (tilelang.cdiv(n, 256),), stream(), *args, n)
    torch.cuda.synchronize()
    torch.testing.assert_close(out[:n].double(), x.double() * 2, rtol=0, atol=0)
    assert torch.isnan(out[n:]).all()


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32])
def test_kernel_getitem_takes_cuda_array_interface_objects(dtype):
    # kernel[grid](...) specializes such objects by their typestr and the
    # alignment of their address; they take the slow path on every call.
    n = 3000
    x = (torch.randn(n, device="cuda") * 8).to(dtype)
    y = (torch.randn(n, device="cuda") * 8).to(dtype)
    out = torch.full((n,), -1, device="cuda").to(dtype)
    for _ in range(2):
        compiled = K.add_kernel[(tilelang.cdiv(n, 1024),)](CudaArray(x), CudaArray(y), CudaArray(out), n,
                                                           BLOCK=1024)
        torch.cuda.synchronize()
        assert torch.equal(out, (x.double() + y.double()).to(dtype))
        out.fill_(-1)
    expected = {torch.float32: "*fp32", torch.float16: "*fp16", torch.int32: "*i32"}[dtype]
    assert compiled.signature["x_ptr"] == expected


class ReadOnlyCudaArray(CudaArray):
    """A CudaArray that says it is read-only, as JAX exports every array."""

    @property
    def __cuda_array_interface__(self):
        interface = dict(super().__cuda_array_interface__)
        interface["data"] = (interface["data"][0], True)
        return interface


def test_read_only_arrays_are_read_and_never_written():
    # copy_kernel reads x_ptr and writes out_ptr.
    n = 3000
    x = torch.randn(n, device="cuda")
    out = torch.full((n,), float("nan"), device="cuda")
    K.copy_kernel[(tilelang.cdiv(n, 1024),)](ReadOnlyCudaArray(x), CudaArray(out), n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2)
    out.fill_(float("nan"))
    with pytest.raises(ValueError, match="the array passed for 'out_ptr' is read-only"):
        K.copy_kernel[(tilelang.cdiv(n, 1024),)](CudaArray(x), ReadOnlyCudaArray(out), n, BLOCK=1024)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()  # nothing ran


@pytest.mark.parametrize("dtype", [torch.float16, torch.float32, torch.int8])
@pytest.mark.parametrize("shift", [0, 1, 3])
@pytest.mark.parametrize("n", [1000, 4096])
def test_tensors_not_aligned_to_16_bytes(dtype, shift, n):
    def make():
        if dtype.is_floating_point:
            return torch.randn(n + 8, device="cuda").to(dtype)
        return torch.randint(-60, 60, (n + 8,), device="cuda", dtype=dtype)

    x, y = make()[shift:shift + n], make()[shift:shift + n]
    out_base = torch.full((n + 8,), -1, device="cuda").to(dtype)
    out = out_base[shift:shift + n]
    compiled = K.add_kernel[(tilelang.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)
    # The launcher assumes 16-byte alignment only where it holds.
    for name, t in (("x_ptr", x), ("y_ptr", y), ("out_ptr", out)):
        assert (name in compiled.specialization) == (t.data_ptr() % 16 == 0)
    assert torch.equal(out, (x.double() + y.double()).to(dtype))
    assert bool((out_base[:shift] == -1).all()) and bool((out_base[shift + n:] == -1).all())


# ---------------------------------------------------------------------------
# Grids
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("grid,message", [
    ((-3,), "grid dimension 0 is -3"),
    ((1, 65536), "grid dimension 1 is 65536"),
    ((1, 1, 65536), "grid dimension 2 is 65536"),
    ((2**31,), "grid dimension 0 is 2147483648"),
    ((1, 1, 1, 1), "grid must have 1 to 3 dimensions"),
    ((), "grid must have 1 to 3 dimensions"),
], ids=["x-negative", "y-65536", "z-65536", "x-2**31", "four-dims", "no-dims"])
def test_bad_grids_raise_before_launching(grid, message):
    x = torch.randn(300, device="cuda")
    out = torch.full((300,), float("nan"), device="cuda")
    with pytest.raises(ValueError, match=message):
        K.copy_kernel[grid](x, out, 300, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()  # nothing ran
    # The kernel still launches afterwards.
    K.copy_kernel[(2,)](x, out, 300, BLOCK=256)
    assert torch.equal(out, x * 2)


@pytest.mark.parametrize("grid", [(4, 0), (1, 1, 0), 0, lambda meta: (tilelang.cdiv(0, meta["BLOCK"]),)],
                         ids=["y-zero", "z-zero", "int-zero", "function-zero"])
def test_empty_grids_launch_nothing(grid):
    """A grid with a dimension of 0 (a batch of size 0) launches nothing, as
    in Triton, on the slow path and on the C++ fast path; the kernel still
    launches afterwards."""
    x = torch.randn(300, device="cuda")
    out = torch.full((300,), float("nan"), device="cuda")
    for _ in range(2):
        K.copy_kernel[grid](x, out, 300, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()
    K.copy_kernel[(2,)](x, out, 300, BLOCK=256)
    assert torch.equal(out, x * 2)


@pytest.mark.parametrize("grid", ["2", (2, "1"), (2.0,), None])
def test_grids_of_the_wrong_type_raise_type_errors(grid):
    x = torch.randn(300, device="cuda")
    out = torch.full((300,), float("nan"), device="cuda")
    for _ in range(2):  # the slow path, then the C++ fast path
        with pytest.raises(TypeError, match="grid must be an int or a tuple of 1 to 3 ints"):
            K.copy_kernel[grid](x, out, 300, BLOCK=256)
    torch.cuda.synchronize()
    assert torch.isnan(out).all()


def test_grids_of_index_types_launch():
    # torch (and numpy) integers have __index__: they are grid sizes too.
    x = torch.randn(300, device="cuda")
    out = torch.full((300,), float("nan"), device="cuda")
    K.copy_kernel[(torch.tensor(2),)](x, out, 300, BLOCK=256)
    assert torch.equal(out, x * 2)


@pytest.mark.parametrize("grid", [(1, 65535), (1, 1, 65535), (2, 3, 4)])
def test_largest_y_and_z_grids_launch(grid):
    # Every program copies the same block (only program_id(0) is used).
    x = torch.randn(300, device="cuda")
    out = torch.full((300,), float("nan"), device="cuda")
    K.copy_kernel[grid](x, out, 300, BLOCK=512)
    assert torch.equal(out, x * 2)
