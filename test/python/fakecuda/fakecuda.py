"""The recording stand-in for the CUDA driver (fake_cuda.c beside this file):
building it, running Python with tilelang launching through it, and reading
what it recorded.

A process must name the stand-in in TILELANG_LIBCUDA before tilelang first
touches the driver (the runtime opens it once), so tests run their launches
in a child process: `run_script(source)` returns what the child printed as
JSON. Inside the child, `last_launch()` and the counters read the records.

Tensors in the child are `Tensor`s (tilelang_testing.FakeTensor): what the
launcher reads of a torch tensor at an address that is never dereferenced,
since nothing runs.
"""

import ctypes
import json
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from tilelang_testing import FakeTensor as Tensor  # noqa: F401 - for the children

HERE = pathlib.Path(__file__).resolve().parent
# The stand-in for the ptxas binary of the occupancy search's whole-program
# step: its "cubins" are PTX text, as the stand-in driver's.
FAKE_PTXAS = HERE / "fake_ptxas"
SOURCE = HERE / "fake_cuda.c"


def build(folder: pathlib.Path) -> pathlib.Path:
    """Compiles fake_cuda.c into `folder`/libcuda.so.1."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise RuntimeError("no C compiler (cc, gcc or clang) to build the fake CUDA driver")
    library = folder / "libcuda.so.1"
    subprocess.run([compiler, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", str(library), str(SOURCE)],
                   check=True, capture_output=True, text=True)
    return library


def run_script(library: pathlib.Path, source: str, env=None, timeout=300):
    """Runs `source` in a child Python launching through `library`; returns
    the JSON object its last line of output holds. The child has this
    folder (import fakecuda) and the tests' folder (tilelang_testing) on its
    path."""
    child_env = dict(os.environ)
    # A cache of its own: the stand-in's "cubins" are PTX text, and a real
    # cubin cached by GPU tests under the same key would not load in it.
    cache = tempfile.mkdtemp(prefix="tilelang-fakecuda-cache-")
    child_env.update({"TILELANG_CACHE_DIR": cache, "TILELANG_LIBCUDA": str(library), "PYTHONPATH": os.pathsep.join(
        [str(HERE), str(HERE.parent)] + ([child_env["PYTHONPATH"]] if child_env.get("PYTHONPATH") else []))})
    # The whole-program step runs the stand-in ptxas (a toolkit's ptxas on
    # this host would write real cubins, which the stand-in does not load).
    child_env["TILELANG_PTXAS"] = str(FAKE_PTXAS)
    child_env.update(env or {})
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(source)
    try:
        done = subprocess.run([sys.executable, script.name], env=child_env, capture_output=True, text=True,
                              timeout=timeout)
    finally:
        os.unlink(script.name)
        shutil.rmtree(cache, ignore_errors=True)
    if done.returncode != 0:
        raise AssertionError(f"the child process failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- inside the child ------------------------------------------------------------------------


def _driver():
    return ctypes.CDLL(os.environ["TILELANG_LIBCUDA"])


def launch_count() -> int:
    driver = _driver()
    driver.fakeCudaLaunchCount.restype = ctypes.c_longlong
    return driver.fakeCudaLaunchCount()


def encode_count() -> int:
    driver = _driver()
    driver.fakeCudaEncodeCount.restype = ctypes.c_longlong
    return driver.fakeCudaEncodeCount()


def link_count() -> int:
    """JIT links completed (cuLinkComplete calls)."""
    driver = _driver()
    driver.fakeCudaLinkCount.restype = ctypes.c_longlong
    return driver.fakeCudaLinkCount()


def last_launch():
    """The last cuLaunchKernel: grid, block, shared bytes, stream, kernel
    name, and each parameter's bytes (as a hex string)."""
    return _launch(lambda driver, *buffers: driver.fakeCudaLastLaunch(*buffers))


def launch_at(number: int):
    """Launch number `number` (counted from 1, as launch_count()), as
    last_launch() describes it; None unless it is one of the last 8."""
    return _launch(lambda driver, *buffers: driver.fakeCudaLaunchAt(ctypes.c_longlong(number), *buffers))


def _launch(read):
    dims = (ctypes.c_uint * 7)()
    stream = ctypes.c_uint64()
    name = ctypes.create_string_buffer(256)
    sizes = (ctypes.c_int * 256)()
    data = ctypes.create_string_buffer(8192)
    count = read(_driver(), dims, ctypes.byref(stream), name, 256, sizes, 256, data, 8192)
    if count < 0:
        return None
    params, offset = [], 0
    for i in range(count):
        params.append(data.raw[offset:offset + sizes[i]].hex())
        offset += sizes[i]
    return {"grid": list(dims[:3]), "block": list(dims[3:6]), "shared": dims[6], "stream": stream.value,
            "name": name.value.decode(), "params": params}


def decode_tensor_map(hex_bytes: str):
    """The record fake_cuda.c's cuTensorMapEncodeTiled writes, or None for a
    map left zero."""
    raw = bytes.fromhex(hex_bytes)
    if raw[:4] != b"FKTM":
        return None
    data_type, rank, swizzle, address = struct.unpack_from("<IIIQ", raw, 4)
    dims = struct.unpack_from("<5Q", raw, 24)[:rank]
    strides = struct.unpack_from("<4Q", raw, 64)[:rank - 1]
    box = struct.unpack_from("<5I", raw, 96)[:rank]
    l2_promotion, oob_fill = struct.unpack_from("<2I", raw, 116)
    return {"data_type": data_type, "rank": rank, "swizzle": swizzle, "address": address, "dims": list(dims),
            "strides": list(strides), "box": list(box), "l2_promotion": l2_promotion, "oob_fill": oob_fill}


def launch_count_on(device: int) -> int:
    """Launches made in device `device`'s context."""
    driver = _driver()
    driver.fakeCudaLaunchCountOn.restype = ctypes.c_longlong
    return driver.fakeCudaLaunchCountOn(device)


def module_loads_on(device: int) -> int:
    """Modules loaded into device `device`'s context and not unloaded."""
    driver = _driver()
    driver.fakeCudaModuleLoadsOn.restype = ctypes.c_longlong
    return driver.fakeCudaModuleLoadsOn(device)


def wrong_device_count() -> int:
    """Launches refused for passing memory of another device than their
    context's (a fault on a GPU)."""
    driver = _driver()
    driver.fakeCudaWrongDeviceCount.restype = ctypes.c_longlong
    return driver.fakeCudaWrongDeviceCount()


def current_device() -> int:
    """The device of the calling thread's current context, -1 when none."""
    return _driver().fakeCudaCurrentDevice()


def set_device(device: int) -> None:
    """Makes `device`'s primary context current on the calling thread (as
    torch.cuda.set_device does); -1: none."""
    if _driver().fakeCudaSetDevice(device) != 0:
        raise RuntimeError(f"fakeCudaSetDevice({device}) failed")


def last_link_device() -> int:
    """The device whose context the last JIT link ran in."""
    return _driver().fakeCudaLastLinkDevice()


def last_launch_device() -> int:
    """The device whose context the last launch ran in."""
    return _driver().fakeCudaLastLaunchDevice()


def address_on(device: int, offset: int) -> int:
    """An address the stand-in tags as memory of `device` (bits 40-47 0x7F,
    the device in bits 32-35)."""
    return (0x7F << 40) | (device << 32) | offset


def blocks_asked(text: str) -> int:
    """The blocks per SM a PTX text asks for (its .minnctapersm), 0 where it
    asks for none. The stand-in's "cubin" is the PTX it was given (after
    fake_ptxas's line where ptxas compiled it): what a cubin was linked for."""
    asked = re.search(r"\.minnctapersm (\d+)", text)
    return int(asked.group(1)) if asked else 0


# The scripts' axpy(x_ptr, y_ptr, n, alpha, BLOCK) over 1000 floats, as the
# occupancy tests launch it: BLOCK=2048 on $WARPS warps (8 by default).
_AXPY_ARGS = (1000, 2.0)


def _axpy_launch(kernel):
    x = Tensor((1000,), "float32", 0x7F0000001000)
    y = Tensor((1000,), "float32", 0x7F0000002000)
    return kernel[(1,)](x, y, *_AXPY_ARGS, BLOCK=2048, num_warps=int(os.environ.get("WARPS", "8")))


def launch_and_read_link(kernel, report):
    """Launches `kernel` (an axpy) once and writes into `report` how it was
    linked: info (its link_info), driver_links (links so far), registers
    and local_bytes (as loaded), ptx_asks and cubin_asks (the blocks per SM
    the PTX and the linked cubin ask for). Returns the launch's kernel and
    the arch it was linked for."""
    from tilelang.jit import _current_arch

    compiled = _axpy_launch(kernel)
    arch = _current_arch()
    loaded = compiled.launchable(arch)
    report["info"] = compiled.link_info[arch]
    report["driver_links"] = link_count()
    report["registers"], report["local_bytes"] = loaded.registers, loaded.local_bytes
    report["ptx_asks"] = blocks_asked(compiled.asm["ptx"])
    report["cubin_asks"] = blocks_asked(compiled._cubin[arch].decode())
    return compiled, arch


def launch_again(kernel, report, arch):
    """The same launch through a new @jit of `kernel`'s function, as another
    process would make it: it finds the cubin in the disk cache, with how it
    was linked (report's cached_info; driver_links_after_cached: links so
    far). Returns its kernel."""
    import tilelang

    again = _axpy_launch(tilelang.jit(kernel.fn))
    report["cached_info"] = again.link_info[arch]
    report["driver_links_after_cached"] = link_count()
    return again
