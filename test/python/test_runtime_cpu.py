"""The runtime without a GPU: importing and compiling work, launching says
clearly why it cannot."""

import ctypes.util

import pytest

import tilelang
from tilelang import _C


def _has_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.mark.skipif(_has_driver(), reason="a CUDA driver is installed here")
def test_without_driver_launching_raises_a_clear_error():
    assert _C.driver_version() == 0
    with pytest.raises(RuntimeError, match=r"libcuda\.so\.1.*launching kernels needs an NVIDIA GPU"):
        _C.device_info()
    with pytest.raises(RuntimeError, match="could not be loaded"):
        _C.Kernel.load(".version 8.4\n.target sm_90a\n.address_size 64\n", "k", 0, 4, "")


def test_compiling_needs_no_driver():
    kernel = tilelang.compile_ir("func.func @k() { return }", arch="sm_80")
    assert ".entry k" in kernel.ptx
