"""The launcher's fast path (the C++ Dispatcher behind ``kernel[grid]``):
arguments of the same kind map to the same key, arguments of another kind
never do, and what cannot be keyed goes to the slow path with no key.
Checked without a GPU: the slow path is replaced by a recorder, so only the
key is computed."""

import pytest

import tilelang
import tilelang.language as tl
from tilelang import _C
from tilelang.jit import JITFunction
from tilelang_testing import fake_pointer


@tilelang.jit
def kernel(x_ptr, n, scale, BLOCK: tl.constexpr):
    pass


def recording_dispatcher():
    seen = []

    def slow_path(grid, args, kwargs, key):
        seen.append((grid, args, kwargs, key))
        return "slow"

    constexprs = [name for name in kernel.params if kernel.is_constexpr(name)]
    return _C.Dispatcher(kernel.params, constexprs, (tl.dtype, JITFunction), slow_path), seen


class Subscriptable(_C.Subscriptable):
    def _subscript_slow(self, grid):
        return ("slow", grid)


def key(*args, **kwargs):
    # The pybind11 entry (Dispatcher.launch) and the C path kernel[grid]
    # takes (Subscriptable -> BoundLaunch) compute the same key and forward
    # the call unchanged.
    dispatcher, seen = recording_dispatcher()
    assert dispatcher.launch((1,), *args, **kwargs) == "slow"
    subscriptable = Subscriptable()
    subscriptable._set_dispatcher(dispatcher)
    assert subscriptable[(1,)](*args, **kwargs) == "slow"
    keys = []
    for grid, passed_args, passed_kwargs, computed in seen:
        assert grid == (1,) and passed_args == args and passed_kwargs == kwargs
        keys.append(computed)
    assert keys[0] == keys[1]
    return keys[0]


def test_same_kind_same_key():
    assert key(fake_pointer("float16", 4096), 1000, 0.5, BLOCK=128) == key(fake_pointer("float16", 8192), 1016, 1.5,
                                                                          BLOCK=128)
    assert key(fake_pointer("float16", 4096), 1000, 0.5, 128) == key(fake_pointer("float16", 64), 1016, -2.0, 128)


def test_every_specializing_difference_changes_the_key():
    base = key(fake_pointer("float16", 4096), 1000, 0.5, BLOCK=128)
    assert isinstance(base, bytes)
    different = [
        key(fake_pointer("float32", 4096), 1000, 0.5, BLOCK=128),  # dtype
        key(fake_pointer("float16", 4098), 1000, 0.5, BLOCK=128),  # alignment
        key(fake_pointer("float16", 4096, is_cuda=False), 1000, 0.5, BLOCK=128),  # device
        key(fake_pointer("float16", 4096), 1, 0.5, BLOCK=128),  # the value 1
        key(fake_pointer("float16", 4096), 1024, 0.5, BLOCK=128),  # divisible by 16
        key(fake_pointer("float16", 4096), 1004, 0.5, BLOCK=128),  # by 4 (1000: by 8)
        key(fake_pointer("float16", 4096), 1002, 0.5, BLOCK=128),  # by 2
        key(fake_pointer("float16", 4096), 1001, 0.5, BLOCK=128),  # odd
        key(fake_pointer("float16", 4096), 2**31 + 7, 0.5, BLOCK=128),  # unsigned 32-bit
        key(fake_pointer("float16", 4096), 2**33 + 7, 0.5, BLOCK=128),  # 64-bit
        key(fake_pointer("float16", 4096), 2**63 + 7, 0.5, BLOCK=128),  # unsigned 64-bit
        key(fake_pointer("float16", 4096), 1000, 1, BLOCK=128),  # an int where a float was
        key(fake_pointer("float16", 4096), 1000, 0.5, BLOCK=256),  # constexpr value
        key(fake_pointer("float16", 4096), 1000, 0.5, BLOCK=128, num_warps=8),  # launch option
        key(fake_pointer("float16", 4096), 1000, 0.5, 128),  # positional instead of keyword
        key(fake_pointer("float16", 4096), 1000, True, BLOCK=128),  # bool
        key(fake_pointer("float16", 4096), 1000, None, BLOCK=128),  # None
    ]
    assert all(k is not None and k != base for k in different)
    assert len(set(different)) == len(different)


def test_integer_keys_tell_apart_what_specialization_tells_apart():
    # Two integers share a key exactly when specialization reads them alike:
    # the same range class (1, 32/64-bit, signed/unsigned) and the same
    # integer_divisibility. A coarser key would launch a kernel compiled for
    # 1000 (divisible by 8: 16-byte vectors of fp16) with 1001.
    from tilelang.jit import integer_divisibility

    def read_as(v):
        width = ("one" if v == 1 else "i32" if -(2**31) <= v < 2**31 else "u32" if 0 <= v < 2**32 else
                 "i64" if -(2**63) <= v < 2**63 else "u64")
        return width, integer_divisibility(v)

    values = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 1000, 1001, 1002, 1004, 1016, 3000, -1, -2, -8, -24, -48,
              2**31 + 8, 2**31 + 3, 2**40 + 4, 2**40 + 16, -(2**40) - 2, 2**63 + 8, 2**63 + 32, 2**64 - 1]
    keys = {v: key(fake_pointer("float16", 4096), v, 0.5, BLOCK=128) for v in values}
    for a in values:
        for b in values:
            assert (keys[a] == keys[b]) == (read_as(a) == read_as(b)), (a, b)


def test_constexprs_are_keyed_by_value_and_type():
    assert key(fake_pointer("float16", 16), 3, 0.5, BLOCK="a") != key(fake_pointer("float16", 16), 3, 0.5, BLOCK="b")
    assert key(fake_pointer("float16", 16), 3, 0.5, BLOCK=2.0) != key(fake_pointer("float16", 16), 3, 0.5, BLOCK=2)
    assert key(fake_pointer("float16", 16), 3, 0.5, BLOCK=tl.float16) != key(fake_pointer("float16", 16), 3, 0.5,
                                                                            BLOCK=tl.float32)
    assert key(fake_pointer("float16", 16), 3, 0.5, BLOCK=tl.float16) == key(fake_pointer("float16", 16), 3, 0.5,
                                                                            BLOCK=tl.float16)


@pytest.mark.parametrize("args,kwargs", [
    ((object(), 1, 0.5), {"BLOCK": 128}),  # not a tensor
    ((fake_pointer("float16", 16), 1, 0.5), {"BLOCK": [1, 2]}),  # a list constexpr
    ((fake_pointer("float16", 16), -(2**64), 0.5), {"BLOCK": 1}),  # does not fit 64 bits
    ((fake_pointer("float16", 16), 1, 0.5), {"BLOCK": 2**70}),
])
def test_unusual_arguments_take_the_slow_path_without_a_key(args, kwargs):
    assert key(*args, **kwargs) is None


def test_kernel_getitem_goes_through_the_dispatcher_slow_path():
    # Without a GPU the slow path compiles, then fails to reach the driver:
    # what matters is that kernel[grid] is the Dispatcher and the error is
    # the driver's, raised as a Python exception.
    @tilelang.jit
    def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

    launcher = copy[(1,)]
    assert isinstance(copy._dispatcher, _C.Dispatcher)
    assert isinstance(launcher, _C.BoundLaunch) and launcher.grid == (1,)
    assert isinstance(copy[lambda meta: (2,)], _C.BoundLaunch)
    if _C.driver_version() == 0:
        with pytest.raises(RuntimeError, match="libcuda"):
            launcher(fake_pointer("float32", 256), fake_pointer("float32", 512), 100, BLOCK=128)
        assert len(copy._dispatcher) == 0


def test_slow_path_exceptions_propagate_through_kernel_grid_in_c():
    def slow_path(grid, args, kwargs, key):
        raise ValueError("from the slow path")

    dispatcher = _C.Dispatcher(["a"], [], (), slow_path)
    subscriptable = Subscriptable()
    subscriptable._set_dispatcher(dispatcher)
    with pytest.raises(ValueError, match="from the slow path"):
        subscriptable[(1,)](3)
    with pytest.raises(TypeError, match="needs a grid"):
        dispatcher.launch()


def test_subscript_in_c_forwards_grid_arguments_and_keywords():
    dispatcher, seen = recording_dispatcher()

    k = Subscriptable()
    assert k[(2,)] == ("slow", (2,))  # no Dispatcher yet: Python decides
    k._set_dispatcher(dispatcher)
    launcher = k[(2, 3)]
    assert isinstance(launcher, _C.BoundLaunch) and launcher.grid == (2, 3)
    x = fake_pointer("float16", 16)
    assert launcher(x, 5, 0.5, BLOCK=64) == "slow"
    grid, args, kwargs, computed = seen[-1]
    assert grid == (2, 3) and args == (x, 5, 0.5) and kwargs == {"BLOCK": 64}
    assert computed == key(fake_pointer("float16", 32), 5, 0.25, BLOCK=64)
    # Called without the vectorcall offset (through tp_call with a tuple).
    assert launcher(*[x, 5, 0.5], **{"BLOCK": 64}) == "slow"
    assert seen[-1][1] == (x, 5, 0.5)
    with pytest.raises(TypeError, match="Dispatcher"):
        k._set_dispatcher(object())


class FakeDescriptor:
    """A tensor descriptor as the Dispatcher reads it (base, block_shape,
    shape, strides), without torch."""

    def __init__(self, base, shape, strides, block_shape):
        self.base, self.shape, self.strides, self.block_shape = base, shape, strides, block_shape


def desc(dtype="float16", address=4096, shape=(100, 64), strides=(64, 1), block=(32, 64)):
    return FakeDescriptor(fake_pointer(dtype, address), list(shape), list(strides), list(block))


def test_descriptors_of_one_class_share_a_key():
    # Extents of the same divisibility classes (100 and 36: 4; 64 and 128:
    # 16), strides equal modulo 16.
    assert key(desc(), 7, 0.5, BLOCK=1) == key(desc(address=8192, shape=(36, 128), strides=(80, 1)), 9, 1.5, BLOCK=1)


def test_extent_keys_tell_apart_what_specialization_tells_apart():
    # A kernel compiled for an extent of 1000 (a multiple of 8: 16-byte
    # vectors of fp16 on expanded accesses) must not be launched with 1001.
    from tilelang.jit import integer_divisibility

    values = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 100, 1000, 1001, 1002, 1004, 1016, 3000, 4096]
    keys = {v: key(desc(shape=(v, 64)), 7, 0.5, BLOCK=1) for v in values}
    for a in values:
        for b in values:
            assert (keys[a] == keys[b]) == (integer_divisibility(a) == integer_divisibility(b)), (a, b)


def test_every_specializing_difference_of_a_descriptor_changes_the_key():
    base = key(desc(), 7, 0.5, BLOCK=1)
    assert base is not None
    different = [
        key(desc(dtype="bfloat16"), 7, 0.5, BLOCK=1),  # element type
        key(desc(block=(64, 64)), 7, 0.5, BLOCK=1),  # block shape
        key(desc(block=(32, 64, 1), shape=(100, 64, 1), strides=(64, 1, 1)), 7, 0.5, BLOCK=1),  # rank
        key(desc(shape=(96, 64)), 7, 0.5, BLOCK=1),  # an extent divisible by 16
        key(desc(shape=(100, 60)), 7, 0.5, BLOCK=1),  # an extent no longer divisible by 16
        key(desc(shape=(104, 64)), 7, 0.5, BLOCK=1),  # an extent divisible by 8
        key(desc(strides=(72, 1)), 7, 0.5, BLOCK=1),  # the leading stride's alignment class
        key(desc(address=4104), 7, 0.5, BLOCK=1),  # the base's alignment
    ]
    assert all(k is not None and k != base for k in different)
    assert len(set(different)) == len(different)


def test_malformed_descriptors_take_the_slow_path_without_a_key():
    broken = desc()
    broken.shape = None
    assert key(broken, 7, 0.5, BLOCK=1) is None
    # What specialization rejects never reaches a kernel through the fast
    # path: a last stride other than 1, a padding other than zero.
    assert key(desc(strides=(64, 2)), 7, 0.5, BLOCK=1) is None
    nan_padding = desc()
    nan_padding.padding = "nan"
    assert key(nan_padding, 7, 0.5, BLOCK=1) is None
    zero_padding = desc()
    zero_padding.padding = "zero"
    assert key(zero_padding, 7, 0.5, BLOCK=1) == key(desc(), 7, 0.5, BLOCK=1)
    foreign_base = desc()
    foreign_base.base = object()
    assert key(foreign_base, 7, 0.5, BLOCK=1) is None
