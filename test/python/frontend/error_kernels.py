"""Broken kernels: each line marked ``# ERR:<name>`` is where the frontend must
report the error of kernel ``<name>``."""

import tilelang
import tilelang.language as tl

NOT_CONSTEXPR = 3
GOOD: tl.constexpr = 4


@tilelang.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, undefined_thing)  # ERR:undefined_name


@tilelang.jit
def unsupported_syntax(x_ptr):
    with open("f"):  # ERR:unsupported_syntax
        pass


@tilelang.jit
def lambda_syntax(x_ptr):
    f = lambda v: v  # ERR:lambda_syntax  # noqa: E731
    tl.store(x_ptr, f(1))


@tilelang.jit
def broadcast_error(x_ptr):
    a = tl.arange(0, 128)
    b = tl.arange(0, 64)
    tl.store(x_ptr + a, a + b)  # ERR:broadcast_error


@tilelang.jit
def dot_shape_error(x_ptr):
    a = tl.zeros((32, 64), dtype=tl.float16)
    b = tl.zeros((32, 32), dtype=tl.float16)
    c = tl.dot(a, b)  # ERR:dot_shape_error
    tl.store(x_ptr, tl.sum(c))


@tilelang.jit
def dot_dtype_error(x_ptr):
    a = tl.zeros((32, 32), dtype=tl.float16)
    b = tl.zeros((32, 32), dtype=tl.float32)
    tl.store(x_ptr, tl.sum(tl.dot(a, b)))  # ERR:dot_dtype_error


@tilelang.jit
def arange_not_constexpr(x_ptr, n):
    offs = tl.arange(0, n)  # ERR:arange_not_constexpr
    tl.store(x_ptr + offs, offs)


@tilelang.jit
def arange_not_pow2(x_ptr):
    offs = tl.arange(0, 100)  # ERR:arange_not_pow2
    tl.store(x_ptr + offs, offs)


@tilelang.jit
def zeros_shape_not_constexpr(x_ptr, n):
    z = tl.zeros((n,), dtype=tl.float32)  # ERR:zeros_shape_not_constexpr
    tl.store(x_ptr, tl.sum(z))


@tilelang.jit
def wrong_builtin_args(x_ptr):
    v = tl.load()  # ERR:wrong_builtin_args
    tl.store(x_ptr, v)


@tilelang.jit
def _helper(a, b):
    return a + b


@tilelang.jit
def wrong_helper_args(x_ptr):
    tl.store(x_ptr, _helper(1, 2, 3))  # ERR:wrong_helper_args


@tilelang.jit
def loop_type_change(x_ptr, n):
    acc = tl.zeros((16,), dtype=tl.float32)
    for i in range(n):  # ERR:loop_type_change
        acc = acc.to(tl.float16)
    tl.store(x_ptr + tl.arange(0, 16), acc)


@tilelang.jit
def block_ptr(x_ptr):
    p = tl.make_block_ptr(x_ptr, (16,), (1,), (0,), (16,), (1,))  # ERR:block_ptr
    tl.store(p, 1)


@tilelang.jit
def bad_global(x_ptr):
    tl.store(x_ptr, NOT_CONSTEXPR)  # ERR:bad_global


@tilelang.jit
def good_global(x_ptr):
    tl.store(x_ptr, GOOD)


@tilelang.jit
def static_assert_fails(x_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK >= 64, "BLOCK must be at least 64")  # ERR:static_assert_fails
    tl.store(x_ptr, BLOCK)


@tilelang.jit
def verifier_error(x_ptr):
    a = tl.zeros((32, 32), dtype=tl.float32)
    c = tl.dot(a, a, out_dtype=tl.float16)  # ERR:verifier_error
    tl.store(x_ptr + tl.arange(0, 32), tl.sum(c.to(tl.float32), axis=1))


@tilelang.jit
def if_type_mismatch(x_ptr, n):
    if n > 0:  # ERR:if_type_mismatch
        v = tl.zeros((16,), dtype=tl.float32)
    else:
        v = tl.zeros((16,), dtype=tl.int32)
    tl.store(x_ptr + tl.arange(0, 16), v)


@tilelang.jit
def load_non_pointer(x_ptr, n):
    v = tl.load(n)  # ERR:load_non_pointer
    tl.store(x_ptr, v)


@tilelang.jit
def float_floordiv(x_ptr, f):
    tl.store(x_ptr, f // 2.0)  # ERR:float_floordiv


@tilelang.jit
def simple(x_ptr):
    tl.store(x_ptr, 1.0)  # ERR:simple


@tilelang.jit
def dot_i8_short_k(x_ptr):
    a = tl.zeros((32, 16), dtype=tl.int8)
    b = tl.zeros((16, 32), dtype=tl.int8)
    c = tl.dot(a, b, out_dtype=tl.int32)  # ERR:dot_i8_short_k
    tl.store(x_ptr + tl.arange(0, 32), tl.sum(c, axis=1))
