"""GPU tests on another device than the current one (issue 25's acceptance).

With TILELANG_TEST_DEVICE=last (or a device ordinal) on a host with several
GPUs, every GPU test runs with device 0 current while the tensors it makes
for "cuda" (``device="cuda"``, ``torch.device("cuda")``, ``.cuda()``,
``.to("cuda")``) are made on that device instead: kernels must then launch
on their tensors' device, in its context and on its stream, whatever is
current. A torch function mode does the moving, so it applies to the
test's own thread (threads a test starts make their tensors as written).
Tests that name a device explicitly ("cuda:0") keep it.

  TILELANG_TEST_DEVICE=last python -m pytest test/python/gpu -q
"""

import os

import pytest


def _target_device():
    """The ordinal tensors move to, or None (the knob unset, no torch, or
    fewer than 2 GPUs)."""
    value = os.environ.get("TILELANG_TEST_DEVICE", "").strip().lower()
    if not value:
        return None
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
        return None
    count = torch.cuda.device_count()
    index = count - 1 if value == "last" else int(value)
    if not 0 <= index < count:
        raise pytest.UsageError(f"TILELANG_TEST_DEVICE={value}: there are {count} GPUs")
    return index


def _moving_mode(index):
    import torch
    from torch.overrides import TorchFunctionMode

    target = torch.device("cuda", index)

    def unindexed_cuda(device):
        if isinstance(device, str):
            return device == "cuda"
        return isinstance(device, torch.device) and device.type == "cuda" and device.index is None

    class MoveToDevice(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if unindexed_cuda(kwargs.get("device")):
                kwargs["device"] = target
            if func is torch.Tensor.cuda and len(args) == 1 and kwargs.get("device") is None:
                kwargs["device"] = target
            if func is torch.Tensor.to and len(args) > 1 and unindexed_cuda(args[1]):
                args = (args[0], target) + tuple(args[2:])
            return func(*args, **kwargs)

    return MoveToDevice()


_TARGET = _target_device()


def pytest_report_header(config):
    if _TARGET is not None:
        return f"GPU tests: tensors for 'cuda' on cuda:{_TARGET}, device 0 current (TILELANG_TEST_DEVICE)"
    return None


@pytest.fixture(autouse=True)
def _tensors_on_the_test_device():
    if _TARGET is None:
        yield
        return
    import torch

    torch.cuda.set_device(0)
    with _moving_mode(_TARGET):
        yield
    torch.cuda.synchronize(_TARGET)
    torch.cuda.set_device(0)
