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
