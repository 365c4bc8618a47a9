"""One set of compile defaults: ``tilelang.options.DEFAULT_OPTIONS`` is the
compiler library's ``CompileOptions`` (read through ``tilelang._C``), and
every Python signature that takes a compile option defaults to it."""

import dataclasses
import inspect

import pytest

import tilelang
from tilelang import _C
from tilelang.autotune.core import Config
from tilelang.jit import JITFunction
from tilelang.options import DEFAULT_OPTIONS, CompileOptions, check_launch_options


def test_the_defaults_are_the_compiler_librarys():
    library = _C.compile_defaults
    assert DEFAULT_OPTIONS.arch == library["arch"] == "sm_90a"
    assert DEFAULT_OPTIONS.num_warps == library["num_warps"] == 4
    assert DEFAULT_OPTIONS.num_stages == library["num_stages"] == 3
    assert library["max_registers"] == 0 and DEFAULT_OPTIONS.maxnreg is None
    assert DEFAULT_OPTIONS.num_ctas == 1


@pytest.mark.parametrize("function", [
    JITFunction.compile, JITFunction.warmup, Config.__init__, tilelang.compile_ir, check_launch_options,
], ids=lambda f: f.__qualname__)
def test_every_signature_defaults_to_them(function):
    parameters = inspect.signature(function).parameters
    for name in ("num_warps", "num_stages", "maxnreg", "num_ctas", "arch"):
        if name in parameters:
            assert parameters[name].default == getattr(DEFAULT_OPTIONS, name), name


def test_options_are_frozen_and_checked():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_OPTIONS.num_stages = 4
    checked = CompileOptions(num_warps=8, num_stages=4, maxnreg=0).checked()
    assert (checked.num_warps, checked.num_stages, checked.maxnreg) == (8, 4, None)
    assert checked == CompileOptions(num_warps=8, num_stages=4).checked()
    with pytest.raises(ValueError, match="num_stages=-1"):
        CompileOptions(num_stages=-1).checked()
    with pytest.raises(ValueError, match="num_ctas=2"):
        CompileOptions(num_ctas=2).checked()
