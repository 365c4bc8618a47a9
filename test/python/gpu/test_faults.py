"""A kernel that faults on the GPU must surface as a Python exception, not
kill or hang the interpreter. Each case runs in a child interpreter
(sys.executable -c, same environment, with a timeout), since a CUDA fault
poisons the process's context: a kernel stores through a wild address
(0x10, reached through a pointer offset; 4 TiB past a tensor; or 0x10 passed
as a raw address), then torch.cuda.synchronize() reports it. The child must
print a Python traceback naming the illegal address and exit with a status
above 0 (an uncaught exception), not a negative one (killed by a signal).
After a fault, a further launch through tilelang's launcher must raise too.
A control case checks that the same child runs a valid store cleanly.

A kernel that never ends (it spins on a flag nothing sets) cannot be
interrupted from inside its process: tilelang has no watchdog, and the
synchronize that waits for it waits forever. The documented path
(docs/runtime.md) is a subprocess with a timeout: the child is killed, the
driver tears its context down, and the GPU serves the next process; the test
checks exactly that.
Skipped without a GPU or without torch."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

import tilelang

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

KERNELS = pathlib.Path(__file__).with_name("gpu_kernels.py")

CHILD = r"""
import importlib.util
import sys

import torch

spec = importlib.util.spec_from_file_location("gpu_kernels", sys.argv[1])
K = importlib.util.module_from_spec(spec)
spec.loader.exec_module(K)
mode = sys.argv[2]

out = torch.zeros(256, device="cuda")
torch.cuda.synchronize()


def launch():
    if mode in ("null-page", "relaunch"):
        # out_ptr + offset is address 0x10 (out is 4-byte aligned).
        K.store_at_offset_kernel[(1,)](out, (0x10 - out.data_ptr()) // 4, BLOCK=128)
    elif mode == "far-offset":
        K.store_at_offset_kernel[(1,)](out, 2**40, BLOCK=128)  # 4 TiB past out
    elif mode == "raw-address":
        compiled = K.store_at_offset_kernel.compile({"out_ptr": "*fp32", "offset": "i64"},
                                                    constexprs={"BLOCK": 128})
        K.launch_compiled(compiled, (1,), torch.cuda.current_stream().cuda_stream, 0x10, 0)
    else:  # valid: the first 128 elements of out
        K.store_at_offset_kernel[(1,)](out, 0, BLOCK=128)


if mode == "spin":
    flag = torch.zeros(1, dtype=torch.int32, device="cuda")
    seen = torch.zeros(1, dtype=torch.int32, device="cuda")
    torch.cuda.synchronize()
    K.spin_kernel[(1,)](flag, seen)
    print("spinning", flush=True)
    torch.cuda.synchronize()  # never returns
    print("NOT REACHED: the spin ended", flush=True)
    sys.exit(0)
if mode == "relaunch":
    try:
        launch()
        torch.cuda.synchronize()
    except Exception as exc:  # torch's RuntimeError (AcceleratorError in newer torch)
        print("the fault raised:", type(exc).__name__, flush=True)
    else:
        print("NOT REACHED: the fault did not raise", flush=True)
        sys.exit(0)
    launch()  # tilelang's launcher meets the context's sticky error
    torch.cuda.synchronize()
else:
    launch()
    torch.cuda.synchronize()
if mode == "valid":
    assert out[:128].tolist() == [float(i) for i in range(128)], out
    assert not out[128:].any()
    print("valid run ok", flush=True)
    sys.exit(0)
print("NOT REACHED", flush=True)
"""

ILLEGAL = re.compile(r"illegal memory access|illegal address|ILLEGAL_ADDRESS", re.IGNORECASE)


def run_child(mode, timeout=300):
    env = dict(os.environ)
    # The same tilelang as this process, ahead of whatever PYTHONPATH held.
    root = str(pathlib.Path(tilelang.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, str(KERNELS), mode], env=env, capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the child hung (mode {mode}); stdout:\n{exc.stdout}\nstderr:\n{exc.stderr}")
    report = f"mode {mode}, exit status {proc.returncode}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc, report


def test_valid_store_in_the_child_runs_cleanly():
    proc, report = run_child("valid")
    assert proc.returncode == 0, report
    assert "valid run ok" in proc.stdout, report


@pytest.mark.parametrize("mode", ["null-page", "far-offset", "raw-address"])
def test_wild_store_raises_a_python_exception(mode):
    proc, report = run_child(mode)
    assert proc.returncode > 0, report  # negative: killed by a signal
    assert "NOT REACHED" not in proc.stdout, report
    assert "Traceback (most recent call last)" in proc.stderr, report
    assert ILLEGAL.search(proc.stderr), report


def test_launch_after_a_fault_raises():
    proc, report = run_child("relaunch")
    assert proc.returncode > 0, report
    assert "the fault raised" in proc.stdout, report
    assert "NOT REACHED" not in proc.stdout, report
    assert "Traceback (most recent call last)" in proc.stderr, report
    # The uncaught exception is the launcher's RuntimeError naming the CUDA error.
    assert re.search(r"^RuntimeError: .*(illegal memory access|ILLEGAL_ADDRESS)", proc.stderr, re.M), report


def test_kernel_that_never_ends_is_stopped_by_the_subprocess_timeout():
    """The child hangs in synchronize; the timeout kills it (SIGKILL), and a
    new process then runs a kernel on the same GPU."""
    env = dict(os.environ)
    root = str(pathlib.Path(tilelang.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    with pytest.raises(subprocess.TimeoutExpired) as info:
        subprocess.run([sys.executable, "-c", CHILD, str(KERNELS), "spin"], env=env, capture_output=True,
                       text=True, timeout=20)
    stdout = info.value.stdout or b""
    stdout = stdout.decode() if isinstance(stdout, bytes) else stdout
    assert "spinning" in stdout and "NOT REACHED" not in stdout, stdout
    proc, report = run_child("valid")
    assert proc.returncode == 0, report
    assert "valid run ok" in proc.stdout, report
