"""libtilelang is self-contained: no LLVM or MLIR at run time, a tiny ABI."""

import re
import shutil
import subprocess

import pytest

SYSTEM_LIBRARIES = {"linux-vdso", "libc", "libstdc++", "libm", "libgcc_s", "libz", "libzstd", "ld-linux-x86-64"}


@pytest.mark.skipif(shutil.which("ldd") is None, reason="needs ldd")
def test_ldd_lists_only_system_libraries(native_library):
    out = subprocess.run(["ldd", str(native_library)], capture_output=True, text=True, check=True).stdout
    names = {re.split(r"[.\s]", line.strip())[0] for line in out.splitlines() if line.strip()}
    names = {n.rsplit("/", 1)[-1] for n in names}
    assert not any("LLVM" in n or "MLIR" in n for n in names), out
    assert names <= SYSTEM_LIBRARIES, f"unexpected dependencies: {names - SYSTEM_LIBRARIES}"


@pytest.mark.skipif(shutil.which("nm") is None, reason="needs nm")
def test_exports_only_the_tilelang_api(native_library):
    out = subprocess.run(
        ["nm", "-D", "--defined-only", "--demangle", str(native_library)], capture_output=True, text=True, check=True
    ).stdout
    functions = [line.split(" ", 2)[2] for line in out.splitlines() if " T " in line]
    assert functions, out
    assert all(name.startswith("tilelang::") for name in functions), functions
    assert not any("mlir::" in line or "llvm::" in line for line in out.splitlines())


def test_build_id_is_the_loaded_librarys_gnu_build_id(native_library):
    # The disk cache keys on it, so that a rebuilt compiler never reuses
    # kernels: it must be the note the linker wrote into this very file.
    import struct

    from tilelang import _C

    data = native_library.read_bytes()
    header = struct.pack("<III", 4, 20, 3) + b"GNU\0"  # namesz, descsz, NT_GNU_BUILD_ID
    at = data.find(header)
    assert at >= 0, "libtilelang.so has no 20-byte GNU build ID note"
    assert _C.build_id() == data[at + len(header):at + len(header) + 20].hex()
