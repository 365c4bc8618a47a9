"""The launcher under misuse (issue 20, item 4), without a GPU: Python that
runs in the middle of a launch and clears or re-enters the kernel's caches.
Launches go through the recording stand-in driver (fakecuda/), in child
processes, as in test_launch_fake_driver.py."""

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
specialize = axpy.specialize
specialized = []
axpy.specialize = lambda *args, **kwargs: specialized.append(1) or specialize(*args, **kwargs)


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
