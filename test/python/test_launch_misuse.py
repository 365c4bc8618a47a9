"""The launcher under misuse (issue 20, item 4), without a GPU: Python that
runs in the middle of a launch and clears or re-enters the kernel's caches,
grids and addresses beyond 64 bits, __cuda_array_interface__ objects the
kernel cannot take as they are (big-endian, masked, read-only where the
kernel writes), data_ptr() results that are not addresses, and launch
options outside their limits. Each is a TypeError or ValueError naming the
argument or option, raised from the caller's line before anything is
compiled or launched. Launches go through the recording stand-in driver
(fakecuda/), in child processes, as in test_launch_fake_driver.py."""

import pytest

from fakecuda import fakecuda

# Children print one JSON line; `report` collects what the tests compare.
# `outcome` runs a call as a user would and says how it ended, with the
# frames of its traceback (file, function) innermost last.
PRELUDE = """
import gc, json, sys, traceback
import fakecuda
from fakecuda import Tensor
import tilelang
import tilelang.language as tl

report = {}

@tilelang.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


def outcome(call):
    try:
        call()
    except Exception as exc:
        frames = traceback.extract_tb(exc.__traceback__)
        return {"error": f"{type(exc).__name__}: {exc}",
                "frames": [[frame.filename, frame.name] for frame in frames]}
    return {"error": None, "launch": fakecuda.last_launch()}


def error_of(call):
    return outcome(call)["error"]


x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


def run(library, body, env=None):
    # glibc fills freed memory with this byte: a launch that reads what the
    # grid callable freed reads garbage, not what happened to stay there.
    return fakecuda.run_script(library, PRELUDE + body + "\nprint(json.dumps(report))\n",
                               env={"MALLOC_PERTURB_": "165", **(env or {})})


def pointer(value):
    return value.to_bytes(8, "little").hex()


# -- Python that runs in the middle of a launch --------------------------------------------


CLEARING = """
def clear_caches():
    axpy._dispatcher.clear()
    axpy.cache.clear()
    gc.collect()


def clearing_grid(meta):
    clear_caches()
    return (3,)


# The first launch registers the key; the CompiledKernel it returns is
# dropped, so the dispatcher's entry and axpy.cache hold the only references.
axpy[(1,)](x, y, 1000, 2.0, BLOCK=128)
report["grid"] = outcome(lambda: axpy[clearing_grid](x, y, 1000, 2.0, BLOCK=128))
report["entries_after_grid"] = len(axpy._dispatcher)


class ClearingTensor:
    # A tensor whose data_ptr() clears the kernel's caches when the launcher
    # packs it (a keyword argument is read again then, after the lookup).
    dtype, is_cuda = "float32", True

    def __init__(self):
        self.calls = 0

    def data_ptr(self):
        self.calls += 1
        if self.calls == 2:
            clear_caches()
        return 0x7F0000005000


axpy[(1,)](x, y_ptr=ClearingTensor(), n=1000, alpha=2.0, BLOCK=128)
report["packing"] = outcome(lambda: axpy[(5,)](x, y_ptr=ClearingTensor(), n=1000, alpha=2.0, BLOCK=128))
"""


def test_a_launch_keeps_its_kernel_while_python_clears_the_caches(library):
    report = run(library, CLEARING)
    for case, grid in (("grid", 3), ("packing", 5)):
        result = report[case]
        assert result["error"] is None, result
        launch = result["launch"]
        assert launch["name"] == "axpy" and launch["grid"] == [grid, 1, 1]
        assert launch["params"][2:] == [(1000).to_bytes(4, "little").hex(), "00000040"]  # n, alpha=2.0
    assert report["grid"]["launch"]["params"][:2] == [pointer(0x7F0000001000), pointer(0x7F0000002000)]
    assert report["packing"]["launch"]["params"][:2] == [pointer(0x7F0000001000), pointer(0x7F0000005000)]
    assert report["entries_after_grid"] == 0  # what the callable cleared stays cleared


REENTRANT = """
specialize = axpy._specialize
specialized = []
axpy._specialize = lambda args, kwargs: specialized.append(1) or specialize(args, kwargs)


class ReentrantTensor:
    # A tensor whose data_ptr() launches the same kernel while the outer
    # launch is still building its key.
    dtype, is_cuda = x.dtype, True

    def data_ptr(self):
        axpy[(1,)](x, y, 1000, 2.0, BLOCK=128)
        return 0x7F0000003000


axpy[(1,)](x, y, 1000, 2.0, BLOCK=128)
report["specialized_first"] = len(specialized)
report["outer"] = outcome(lambda: axpy[(2,)](ReentrantTensor(), y, 1000, 2.0, BLOCK=128))
report["entries"] = len(axpy._dispatcher)
report["specialized"] = len(specialized)
"""


def test_a_launch_from_inside_a_launch_keeps_both_keys_intact(library):
    report = run(library, REENTRANT)
    assert report["specialized_first"] == 1
    outer = report["outer"]
    assert outer["error"] is None, outer
    assert outer["launch"]["grid"] == [2, 1, 1]
    assert outer["launch"]["params"][0] == pointer(0x7F0000003000)
    # Both launches had the first one's key: no new specialization, no entry
    # under a key mixed from the two.
    assert report["specialized"] == 1
    assert report["entries"] == 1


# -- grids -----------------------------------------------------------------------------------


GRIDS = """
axpy[(1,)](x, y, 1000, 2.0, BLOCK=128)  # known from here on: the fast path
grids = {"huge": (2**64,), "huge_list": [2**64], "huge_second": (1, 2**64), "very_negative": (-(2**70),),
         "huge_int": 2**64, "callable": lambda meta: (2**64,)}
for name, grid in grids.items():
    report["fast_" + name] = outcome(lambda: axpy[grid](x, y, 1000, 2.0, BLOCK=128))
    # A new key each time (n divisible by 16, then 64-bit): the slow path.
    report["slow_" + name] = outcome(lambda: axpy[grid](x, y, 1024, 2.0, BLOCK=256))
report["launches"] = fakecuda.launch_count()
"""


def test_grids_beyond_64_bits_are_value_errors_naming_the_dimension(library):
    report = run(library, GRIDS)
    expected = {
        "huge": "grid dimension 0 is 18446744073709551616; it must be in [0, 2147483647]",
        "huge_list": "grid dimension 0 is 18446744073709551616; it must be in [0, 2147483647]",
        "huge_second": "grid dimension 1 is 18446744073709551616; it must be in [0, 65535]",
        "very_negative": "grid dimension 0 is -1180591620717411303424; it must be in [0, 2147483647]",
        "huge_int": "grid dimension 0 is 18446744073709551616; it must be in [0, 2147483647]",
        "callable": "grid dimension 0 is 18446744073709551616; it must be in [0, 2147483647]",
    }
    for name, message in expected.items():
        for path in ("fast_", "slow_"):
            assert report[path + name]["error"] == "ValueError: " + message, (path + name, report[path + name])
    assert report["launches"] == 1


# -- __cuda_array_interface__ and data_ptr() ---------------------------------------------------


INTERFACES = """
class Interface:
    # An array known only by its __cuda_array_interface__ (CuPy, Numba, JAX).
    def __init__(self, address, typestr="<f4", readonly=False, **extra):
        self.__cuda_array_interface__ = {"shape": (1000,), "typestr": typestr, "data": (address, readonly),
                                         "version": 3, **extra}


def launch(a, b):
    return outcome(lambda: axpy[(1,)](a, b, 1000, 2.0, BLOCK=128))


good = Interface(0x7F0000001000)
report["good"] = launch(good, Interface(0x7F0000002000))
report["negative"] = launch(Interface(-16), y)
report["huge"] = launch(Interface(2**64), y)
report["text"] = launch(Interface("0x7F0000001000"), y)
report["big_endian"] = launch(Interface(0x7F0000001000, ">f4"), y)
report["native_order"] = launch(Interface(0x7F0000001000, "=f4"), y)
report["byte_big_endian"] = outcome(lambda: axpy[(1,)](Interface(0x7F0000001000, ">i1"),
                                                        Interface(0x7F0000002000, "|i1"), 1000, 2, BLOCK=128))
report["masked"] = launch(Interface(0x7F0000001000, mask=Interface(0x7F0000009000, "|b1")), y)
report["unmasked"] = launch(Interface(0x7F0000001000, mask=None), y)
# axpy reads x_ptr and writes y_ptr.
report["read_only_input"] = launch(Interface(0x7F0000001000, readonly=True), y)
report["read_only_output"] = launch(x, Interface(0x7F0000002000, readonly=True))
# A view with strides of its own: the kernel gets its first element's
# address, as with a torch tensor; the strides are the kernel's arguments.
report["strided"] = launch(Interface(0x7F0000001010, strides=(8,)), y)


class Pointer:
    # Duck-typed tensors whose data_ptr() is not an address.
    dtype, is_cuda = "float32", True

    def __init__(self, value):
        self.value = value

    def data_ptr(self):
        return self.value


report["ptr_text"] = launch(Pointer("0x7F0000001000"), y)
report["ptr_negative"] = launch(Pointer(-16), y)
report["ptr_huge"] = launch(Pointer(2**64), y)
report["ptr_float"] = launch(Pointer(4096.0), y)

# Kernel.launch packs without keying or specializing: the same checks.
from tilelang.jit import _current_arch
loaded = axpy[(1,)](x, y, 1000, 2.0, BLOCK=128).launchable(_current_arch())
report["direct_negative"] = error_of(lambda: loaded.launch((1,), 0, Interface(-16), y, 1000, 2.0))
report["direct_text"] = error_of(lambda: loaded.launch((1,), 0, Interface("0x10"), y, 1000, 2.0))
report["direct_ptr_text"] = error_of(lambda: loaded.launch((1,), 0, Pointer("0x10"), y, 1000, 2.0))
report["direct_int"] = error_of(lambda: loaded.launch((1,), 0, -16, y, 1000, 2.0))
report["direct_float"] = error_of(lambda: loaded.launch((1,), 0, x, y, 1000, "2.0"))
"""


def test_cuda_array_interface_objects_and_data_ptr_results_are_checked(library):
    report = run(library, INTERFACES)
    assert report["good"]["error"] is None
    assert report["good"]["launch"]["params"][:2] == [pointer(0x7F0000001000), pointer(0x7F0000002000)]

    def error(case):
        return report[case]["error"]

    assert error("negative") == ("ValueError: the array passed for 'x_ptr' has the address -16 "
                                 "(__cuda_array_interface__['data'][0]); an address is in [0, 2**64)")
    assert error("huge") == ("ValueError: the array passed for 'x_ptr' has the address 18446744073709551616 "
                             "(__cuda_array_interface__['data'][0]); an address is in [0, 2**64)")
    assert error("text") == ("TypeError: the array passed for 'x_ptr' has an address of type str "
                             "(__cuda_array_interface__['data'][0]); it must be an int")
    assert error("big_endian") == ("TypeError: the array passed for 'x_ptr' is big-endian (typestr '>f4'); "
                                   "kernels read little-endian data")
    assert error("native_order") is None
    assert error("byte_big_endian") is None  # one byte has no byte order
    assert error("masked") == ("ValueError: the array passed for 'x_ptr' has a mask "
                               "(__cuda_array_interface__['mask']); kernels take the data only: pass the mask "
                               "as an array of its own")
    assert error("unmasked") is None
    assert error("read_only_input") is None
    assert report["read_only_input"]["launch"]["params"][0] == pointer(0x7F0000001000)
    assert error("read_only_output") == ("ValueError: the array passed for 'y_ptr' is read-only "
                                         "(__cuda_array_interface__['data'][1]), and axpy may write through "
                                         "'y_ptr'")
    assert error("strided") is None
    assert report["strided"]["launch"]["params"][0] == pointer(0x7F0000001010)

    assert error("ptr_text") == "TypeError: data_ptr() of the tensor passed for 'x_ptr' returned a str, not an int"
    assert error("ptr_float") == ("TypeError: data_ptr() of the tensor passed for 'x_ptr' returned a float, "
                                  "not an int")
    assert error("ptr_negative") == ("ValueError: the tensor passed for 'x_ptr' has the address -16 "
                                     "(data_ptr()); an address is in [0, 2**64)")
    assert error("ptr_huge") == ("ValueError: the tensor passed for 'x_ptr' has the address 18446744073709551616 "
                                 "(data_ptr()); an address is in [0, 2**64)")

    assert report["direct_negative"] == ("ValueError: argument 0 has the address -16 "
                                         "(__cuda_array_interface__['data'][0]); an address is in [0, 2**64)")
    assert report["direct_text"] == ("TypeError: argument 0 has an address of type str "
                                     "(__cuda_array_interface__['data'][0]); it must be an int")
    assert report["direct_ptr_text"] == "TypeError: data_ptr() of argument 0 returned a str, not an int"
    assert report["direct_int"] == ("ValueError: argument 0 has the address -16; an address is in [0, 2**64)")
    assert report["direct_float"] == "TypeError: argument 3 must be a float (fp32), got str"


# -- launch options ----------------------------------------------------------------------------


OPTIONS = """
bad = {"num_warps": [0, 3, 64, "4", 4.0, True], "maxnreg": [1, 15, 256, "x"], "num_stages": [-1, "3", 2**32]}
for option, values in bad.items():
    for value in values:
        name = f"{option}={value!r}"
        report["launch " + name] = error_of(lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, **{option: value}))
        report["warmup " + name] = error_of(lambda: axpy.warmup(x, y, 1000, 2.0, BLOCK=128, grid=(1,),
                                                                **{option: value}))
        report["compile " + name] = error_of(lambda: axpy.compile("*fp32,*fp32,i32,fp32", {"BLOCK": 128},
                                                                  **{option: value}))
        report["config " + name] = error_of(lambda: tilelang.Config({"BLOCK": 128}, **{option: value}))
        report["compile_ir " + name] = error_of(lambda: tilelang.compile_ir("module {}", **{option: value}))
report["decorator"] = error_of(lambda: tilelang.jit(num_warps=8)(axpy.fn))
report["compiled"] = len(axpy.cache)
report["launches"] = fakecuda.launch_count()
# What is valid everywhere, at its limits; a Config of 64 warps is valid too
# (the autotuner prunes it as over the device's threads per block).
axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, num_warps=32, num_stages=0, maxnreg=255)
axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, num_warps=1, maxnreg=16)
axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, maxnreg=None)
report["valid"] = fakecuda.launch_count()
report["config_64"] = tilelang.Config({"BLOCK": 128}, num_warps=64).num_warps
"""


def test_launch_options_are_checked_where_they_are_given(library):
    report = run(library, OPTIONS)
    expected = {
        "num_warps=0": "ValueError: num_warps=0: it must be a power of two from 1 to 32",
        "num_warps=3": "ValueError: num_warps=3: it must be a power of two from 1 to 32",
        "num_warps=64": "ValueError: num_warps=64: it must be a power of two from 1 to 32",
        "num_warps='4'": "TypeError: num_warps must be an int, got str",
        "num_warps=4.0": "TypeError: num_warps must be an int, got float",
        "num_warps=True": "TypeError: num_warps must be an int, got bool",
        "maxnreg=1": "ValueError: maxnreg=1: it must be from 16 to 255 registers a thread (or None for no cap)",
        "maxnreg=15": "ValueError: maxnreg=15: it must be from 16 to 255 registers a thread (or None for no cap)",
        "maxnreg=256": "ValueError: maxnreg=256: it must be from 16 to 255 registers a thread (or None for no cap)",
        "maxnreg='x'": "TypeError: maxnreg must be an int or None, got str",
        "num_stages=-1": "ValueError: num_stages=-1: it must be from 0 to 4294967295",
        "num_stages='3'": "TypeError: num_stages must be an int, got str",
        "num_stages=4294967296": "ValueError: num_stages=4294967296: it must be from 0 to 4294967295",
    }
    for name, message in expected.items():
        for where in ("launch", "warmup", "compile", "compile_ir"):
            assert report[f"{where} {name}"] == message, (where, name)
        # A tuning space may hold configs of more warps than a device runs
        # (the autotuner prunes them, saying why); never ones no device runs.
        if name != "num_warps=64":
            assert report[f"config {name}"] == message, ("config", name)
    assert report["config_64"] == 64
    assert report["decorator"] == ("TypeError: num_warps is a launch option, not an option of @tilelang.jit: give "
                                   "it at launch (kernel[grid](..., num_warps=...)), to warmup, or in "
                                   "tilelang.Config")
    assert report["compiled"] == 0 and report["launches"] == 0  # refused before anything was compiled
    assert report["valid"] == 3


# -- where errors point -------------------------------------------------------------------------


TRACEBACKS = """
class Interface:
    def __init__(self, address, typestr="<f4", readonly=False):
        self.__cuda_array_interface__ = {"shape": (1000,), "typestr": typestr, "data": (address, readonly),
                                         "version": 3}


axpy[(1,)](x, y, 1000, 2.0, BLOCK=128)
cases = {
    "fast_grid": lambda: axpy[(2**64,)](x, y, 1000, 2.0, BLOCK=128),
    "slow_grid": lambda: axpy[(-1,)](x, y, 1024, 2.0, BLOCK=128),
    "option": lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, num_warps=3),
    "missing": lambda: axpy[(1,)](x, y, 1000, BLOCK=128),
    "unknown_keyword": lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=128, blocks=4),
    "too_many": lambda: axpy[(1,)](x, y, 1000, 2.0, 128, 7),
    "host_tensor": lambda: axpy[(1,)](Tensor((8,), "float32", is_cuda=False), y, 8, 1.0, BLOCK=128),
    "unsupported": lambda: axpy[(1,)](object(), y, 1000, 2.0, BLOCK=128),
    "dtype": lambda: axpy[(1,)](Tensor((8,), "complex64"), y, 8, 1.0, BLOCK=128),
    "wide_int": lambda: axpy[(1,)](x, y, 2**64, 2.0, BLOCK=128),
    "constexpr_tensor": lambda: axpy[(1,)](x, y, 1000, 2.0, BLOCK=x),
    "big_endian": lambda: axpy[(1,)](Interface(0x7F0000001000, ">f4"), y, 1000, 2.0, BLOCK=128),
    "read_only": lambda: axpy[(1,)](x, Interface(0x7F0000002000, readonly=True), 1000, 2.0, BLOCK=128),
    "dispatcher": lambda: axpy._dispatcher.launch((1,), x, y, 1000, 2.0, BLOCK=128, num_stages=-1),
}
for name, call in cases.items():
    report[name] = outcome(call)
report["script"] = __file__
"""


def test_argument_errors_are_raised_from_the_callers_line(library):
    report = run(library, TRACEBACKS)
    expected = {
        "fast_grid": "ValueError: grid dimension 0 is 18446744073709551616; it must be in [0, 2147483647]",
        "slow_grid": "ValueError: grid dimension 0 is -1; it must be in [0, 2147483647]",
        "option": "ValueError: num_warps=3: it must be a power of two from 1 to 32",
        "missing": "TypeError: axpy(): missing a required argument: 'alpha'",
        "unknown_keyword": "TypeError: axpy(): got an unexpected keyword argument 'blocks'",
        "too_many": "TypeError: axpy(): too many positional arguments",
        "host_tensor": ("ValueError: the tensor passed for 'x_ptr' is on the CPU; kernels take CUDA tensors (or "
                        "arrays with __cuda_array_interface__); the CPU interpreter runs kernels on NumPy arrays and "
                        "CPU tensors (TILELANG_INTERPRET=1, or @tilelang.jit(interpret=True): docs/interpreter.md)"),
        "unsupported": "TypeError: unsupported argument type object for 'x_ptr'",
        "dtype": "TypeError: unsupported tensor dtype complex64 for 'x_ptr'",
        "wide_int": "ValueError: the integer 18446744073709551616 for 'n' does not fit in 64 bits",
        "constexpr_tensor": "TypeError: the constexpr parameter 'BLOCK' got a tensor",
        "big_endian": ("TypeError: the array passed for 'x_ptr' is big-endian (typestr '>f4'); kernels read "
                       "little-endian data"),
        "read_only": ("ValueError: the array passed for 'y_ptr' is read-only (__cuda_array_interface__['data'][1]), "
                      "and axpy may write through 'y_ptr'"),
        "dispatcher": "ValueError: num_stages=-1: it must be from 0 to 4294967295",
    }
    for name, message in expected.items():
        result = report[name]
        assert result["error"] == message, (name, result)
        # The traceback ends at the call (the lambda above): no frame of
        # tilelang's, as with the errors of Python's own builtins.
        assert result["frames"][-1] == [report["script"], "<lambda>"], (name, result["frames"])
        assert all(frame[0] == report["script"] for frame in result["frames"]), (name, result["frames"])


# -- which pointers a kernel may write ----------------------------------------------------------


def test_the_write_analysis_finds_every_pointer_a_kernel_may_write_through():
    import tilelang
    import tilelang.language as tl

    @tilelang.jit
    def helper_store(p, v):
        tl.store(p, v)

    @tilelang.jit(noinline=True)
    def opaque_store(p, v):
        tl.store(p, v)

    @tilelang.jit
    def kernel(src, dst, looped, chosen, atomic, laundered, table, through_helper, through_call, index, n,
               BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        values = tl.load(src + offs)
        tl.store(dst + offs, values)
        # A pointer carried around a loop and stored through after it.
        p = looped
        for i in range(n):
            p = p + 1
        tl.store(p + offs, values)
        # Either of two pointers, chosen at run time.
        q = dst
        if n > 3:
            q = chosen
        tl.store(q + offs, values)
        tl.atomic_add(atomic + offs, values)
        # An address through an integer and back.
        address = laundered.to(tl.uint64, bitcast=True) + 4
        tl.store(address.to(tl.pointer_type(tl.float32), bitcast=True), 1.0)
        # A pointer stored as data is written through by whoever loads it:
        # the analysis cannot follow it, and counts it written.
        tl.store(table, src)
        helper_store(through_helper + offs, values)
        opaque_store(through_call, 1.0)
        # Loaded values and integers derived from them are data, not addresses.
        tl.store(dst + tl.load(index + offs), values)

    compiled = kernel.compile("*fp32,*fp32,*fp32,*fp32,*fp32,*fp32,**fp32,*fp32,*fp32,*i32,i32",
                              constexprs={"BLOCK": 16})
    # n bounds the loop whose result is stored through, and so counts too:
    # the analysis is sound, not precise (only arrays are ever checked).
    assert compiled._may_write() == {"dst", "looped", "chosen", "atomic", "laundered", "table", "through_helper",
                                     "through_call", "src", "n"}
    assert "index" not in compiled._may_write()


def test_the_compiler_library_refuses_options_outside_the_same_limits():
    # Python checks the options with the limits the library exports; the
    # library's own check (for tilelang-compile and direct callers) uses the
    # same constants.
    from tilelang import _C

    limits = _C.launch_option_limits
    assert limits == {"max_warps": 32, "min_maxnreg": 16, "max_maxnreg": 255, "max_stages": 2**32 - 1}
    source = "module {\n  func.func @k() {\n    return\n  }\n}\n"
    assert _C.compile(source, num_warps=limits["max_warps"]).success
    refused = {"num_warps must be a power of two from 1 to 32, got 64": dict(num_warps=2 * limits["max_warps"]),
               "maxnreg must be from 16 to 255 registers a thread, got 256":
                   dict(max_registers=limits["max_maxnreg"] + 1)}
    for message, options in refused.items():
        result = _C.compile(source, **options)
        assert not result.success and result.diagnostics[0].message == message
