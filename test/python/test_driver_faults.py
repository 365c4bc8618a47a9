"""A kernel that faults on the GPU loses the CUDA context: the launch itself
returns success (it is asynchronous) and every later driver call returns
the sticky error. Through the stand-in driver (fakecuda, FAKE_CUDA_FAULT_AT),
without a GPU: each later launch, and each compilation that needs the driver
(link, load), raises a RuntimeError that names the call, the kernel and
CUDA_ERROR_ILLEGAL_ADDRESS, every time it is tried, and the process goes on
(no abort, no crash); compiling to PTX, which needs no driver, still works.
test/python/gpu/test_faults.py checks the same on a GPU; docs/runtime.md says
how to recover (a new process)."""

import pytest

from fakecuda import fakecuda
from test_launch_fake_driver import PRELUDE

LOST = "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)"


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.fixture(scope="module")
def report(library):
    return fakecuda.run_script(library, PRELUDE + """
x = Tensor((1000,), "float32", 0x7F0000001000)
y = Tensor((1000,), "float32", 0x7F0000002000)
report["before"] = error_of(lambda: axpy[(8,)](x, y, 1000, 2.0, BLOCK=128))
report["faulting"] = error_of(lambda: axpy[(8,)](x, y, 1000, 2.0, BLOCK=128))  # the 2nd launch faults
report["after"] = [error_of(lambda: axpy[(8,)](x, y, 1000, 2.0, BLOCK=128)) for _ in range(2)]
# A new specialization needs the driver to link and load it.
report["new_kernel"] = [error_of(lambda: axpy[(4,)](x, y, 1000, 2.0, BLOCK=256)) for _ in range(2)]
report["launches"] = fakecuda.launch_count()
# PTX needs no driver.
report["ptx"] = ".entry axpy" in axpy.compile("*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 64}).to_ptx().ptx
print(json.dumps(report))
""", env={"FAKE_CUDA_FAULT_AT": "2", "TILELANG_CACHE": "0"})  # the cache is not under test


def test_the_faulting_launch_itself_succeeds(report):
    assert report["before"] is None and report["faulting"] is None
    assert report["launches"] == 2


def test_later_launches_raise_the_sticky_error_every_time(report):
    for error in report["after"]:
        assert error == f"RuntimeError: cuLaunchKernel failed for kernel 'axpy': {LOST}"


def test_compiling_a_new_kernel_raises_the_sticky_error(report):
    for error in report["new_kernel"]:
        assert error is not None and error.startswith("RuntimeError: cu"), report["new_kernel"]
        assert "'axpy'" in error and error.endswith(LOST), error


def test_ptx_still_compiles_after_the_fault(report):
    assert report["ptx"] is True
