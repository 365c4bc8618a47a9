"""The launcher's fast path: arguments of the same kind map to the same
cached specialization, arguments of another kind never do (checked without
a GPU: only the key is computed)."""

import tilelang
import tilelang.language as tl


class FakeTensor:
    def __init__(self, dtype, address):
        self.dtype, self.address = dtype, address

    def data_ptr(self):
        return self.address


@tilelang.jit
def kernel(x_ptr, n, scale, BLOCK: tl.constexpr):
    pass


def key(*args, **kwargs):
    return kernel._launch_key(args, kwargs, 4, 3)


def test_same_kind_same_key():
    assert key(FakeTensor("float16", 4096), 1000, 0.5, BLOCK=128) == key(FakeTensor("float16", 8192), 1002, 1.5,
                                                                          BLOCK=128)


def test_every_specializing_difference_changes_the_key():
    base = key(FakeTensor("float16", 4096), 1000, 0.5, BLOCK=128)
    assert key(FakeTensor("float32", 4096), 1000, 0.5, BLOCK=128) != base  # dtype
    assert key(FakeTensor("float16", 4098), 1000, 0.5, BLOCK=128) != base  # alignment
    assert key(FakeTensor("float16", 4096), 1, 0.5, BLOCK=128) != base  # the value 1
    assert key(FakeTensor("float16", 4096), 1024, 0.5, BLOCK=128) != base  # divisible by 16
    assert key(FakeTensor("float16", 4096), 2**31 + 8, 0.5, BLOCK=128) != base  # needs 64 bits
    assert key(FakeTensor("float16", 4096), 1000, 0.5, BLOCK=256) != base  # constexpr value
    assert key(FakeTensor("float16", 4096), 1000, 0.5, 256) != key(FakeTensor("float16", 4096), 1000, 0.5, 128)


def test_unusual_arguments_take_the_slow_path():
    assert key(object(), 1, 0.5, BLOCK=128) is None
    assert key(FakeTensor("float16", 16), 1, 0.5, BLOCK=[1, 2]) is None  # unhashable
