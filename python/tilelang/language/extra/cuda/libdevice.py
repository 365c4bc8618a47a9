"""``tl.extra.cuda.libdevice`` (also ``tilelang.language.extra.libdevice``):
the names of Triton's CUDA libdevice module. tilelang links no libdevice:
each supported function maps to the math ops its lowering implements
(docs/lowering.md), and each other name of Triton's module is a located
error naming it ("libdevice.atan2 is not supported yet")."""

from tilelang.language.core import builtin

__all__ = []


def _export(name, fn):
    fn.__name__ = name
    fn.__wrapped__.__name__ = name
    globals()[name] = fn
    __all__.append(name)


def _unary(name, math_name):
    @builtin
    def fn(arg0, _semantic=None):
        return _semantic.math_unary(math_name, arg0)

    _export(name, fn)


def _binary(name, kind):
    @builtin
    def fn(arg0, arg1, _semantic=None):
        return _semantic.math_binary(kind, arg0, arg1)

    _export(name, fn)


def _predicate(name, kind):
    @builtin
    def fn(arg0, _semantic=None):
        # libdevice's predicates return int32 0 or 1.
        return _semantic.cast(_semantic.float_class(kind, arg0), _semantic.const_dtype(_int32))

    _export(name, fn)


def _reinterpret(name, target):
    @builtin
    def fn(arg0, _semantic=None):
        return _semantic.to(arg0, target, bitcast=True, what=f"libdevice.{name}")

    _export(name, fn)


def _convert(name, rounding, target):
    @builtin
    def fn(arg0, _semantic=None):
        v = _semantic.require_value(arg0, f"libdevice.{name}'s operand")
        if rounding:
            v = _semantic.math_unary(rounding, v)
        return _semantic.cast(v, target)

    _export(name, fn)


def _unsupported(name):
    @builtin
    def fn(*args, _semantic=None, **kwargs):
        _semantic.error(f"libdevice.{name} is not supported yet (tilelang lowers math without "
                        "libdevice, and has no lowering of this function)")

    _export(name, fn)


from tilelang.language import core as _core  # noqa: E402

_int32 = _core.int32

for _name, _math in {
    "floor": "floor", "ceil": "ceil", "trunc": "trunc", "rint": "rint", "nearbyint": "rint",
    "round": "round", "exp": "exp", "exp2": "exp2", "exp10": "exp10", "expm1": "expm1",
    # libdevice's sqrt (__nv_sqrtf) rounds to nearest, unlike tl.sqrt.
    "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt_rn",
    "sqrt_rn": "sqrt_rn", "rsqrt": "rsqrt", "sin": "sin", "cos": "cos", "tan": "tan",
    "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "erf": "erf", "abs": "abs",
    "fast_expf": "exp", "fast_logf": "log", "fast_log2f": "log2", "fast_log10f": "log10",
    "fast_sinf": "sin", "fast_cosf": "cos", "fast_tanf": "tan", "fast_exp10f": "exp10",
}.items():
    _unary(_name, _math)

for _name, _kind in {"pow": "pow", "fast_powf": "pow", "copysign": "copysign", "fmod": "fmod",
                     "hypot": "hypot"}.items():
    _binary(_name, _kind)

for _name, _kind in {"isnan": "isnan", "isinf": "isinf", "signbit": "signbit", "finitef": "isfinite",
                     "isfinited": "isfinite"}.items():
    _predicate(_name, _kind)

for _name, _target in {"float_as_int": _core.int32, "int_as_float": _core.float32,
                       "float_as_uint": _core.uint32, "uint_as_float": _core.float32,
                       "double_as_longlong": _core.int64, "longlong_as_double": _core.float64}.items():
    _reinterpret(_name, _target)

_ROUNDING = {"rn": "rint", "rz": None, "rd": "floor", "ru": "ceil"}
for _src in ("float", "double"):
    for _dst, _target in (("int", _core.int32), ("uint", _core.uint32), ("ll", _core.int64),
                          ("ull", _core.uint64)):
        for _mode, _rounding in _ROUNDING.items():
            _convert(f"{_src}2{_dst}_{_mode}", _rounding, _target)
_convert("int2float_rn", None, _core.float32)
_convert("uint2float_rn", None, _core.float32)
_convert("int2double_rn", None, _core.float64)
_convert("uint2double_rn", None, _core.float64)
_convert("double2float_rn", None, _core.float32)


@builtin
def fma(arg0, arg1, arg2, _semantic=None):
    return _semantic.fma(arg0, arg1, arg2)


@builtin
def fma_rn(arg0, arg1, arg2, _semantic=None):
    return _semantic.fma(arg0, arg1, arg2)


@builtin
def div_rn(arg0, arg1, _semantic=None):
    return _semantic.fdiv(arg0, arg1, ieee=True)


@builtin
def fast_dividef(arg0, arg1, _semantic=None):
    return _semantic.fdiv(arg0, arg1, ieee=False)


@builtin
def rcp_rn(arg0, _semantic=None):
    return _semantic.fdiv(1.0, arg0, ieee=True)


@builtin
def clz(arg0, _semantic=None):
    return _semantic.bit_count("clz", arg0)


@builtin
def popc(arg0, _semantic=None):
    return _semantic.bit_count("popc", arg0)


@builtin
def mulhi(arg0, arg1, _semantic=None):
    return _semantic.mulhi(arg0, arg1)


__all__ += ["fma", "fma_rn", "div_rn", "fast_dividef", "rcp_rn", "clz", "popc", "mulhi"]

# The rest of the names of Triton's CUDA libdevice (3.6).
for _name in (
    "byte_perm mul24 brev sad rcp64h saturatef fma_rz fma_rd fma_ru div_rz div_rd div_ru rcp_rz "
    "rcp_rd rcp_ru sqrt_rz sqrt_rd sqrt_ru add_rn add_rz add_rd add_ru mul_rn mul_rz mul_rd mul_ru "
    "double2float_rz double2float_rd double2float_ru int2float_rz int2float_rd int2float_ru "
    "uint2float_rz uint2float_rd uint2float_ru hiloint2double double2loint double2hiint ll2float_rn "
    "ll2float_rz ll2float_rd ll2float_ru ull2float_rn ull2float_rz ull2float_rd ull2float_ru "
    "ll2double_rn ll2double_rz ll2double_rd ll2double_ru ull2double_rn ull2double_rz ull2double_rd "
    "ull2double_ru hadd rhadd sub_rn sub_rz sub_rd sub_ru rsqrt_rn ffs llrint nextafter sinpi "
    "cospi atan2 atan asin acos acosh asinh atanh rhypot norm3d rnorm3d norm4d rnorm4d cbrt rcbrt "
    "j0 j1 y0 y1 yn jn cyl_bessel_i0 cyl_bessel_i1 erfinv erfc erfcx erfcinv normcdfinv normcdf "
    "lgamma ldexp scalbn remainder tgamma llround fdim ilogb logb"
).split():
    _unsupported(_name)
