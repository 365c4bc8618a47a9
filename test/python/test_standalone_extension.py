"""The extension builds alone against a prebuilt libtilelang, as on the GPU
host (Python there differs from the build machine's and has no LLVM)."""

import pathlib
import shutil
import subprocess
import sys

import pytest

from tilelang_testing import REPO_ROOT


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cmake") is None or shutil.which("ninja") is None, reason="needs cmake and ninja")
def test_extension_builds_against_prebuilt_library(native_library, tmp_path):
    build = tmp_path / "build-ext"
    configure = [
        "cmake", "-S", str(REPO_ROOT / "python"), "-B", str(build), "-G", "Ninja",
        f"-DTILELANG_PREBUILT_LIBRARY={native_library}",
        f"-DPython_EXECUTABLE={sys.executable}",
    ]
    for cmd in (configure, ["cmake", "--build", str(build)]):
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout + result.stderr
    (module,) = build.glob("_C*.so")
    # It must look for the library next to itself, not where it was built.
    if shutil.which("readelf"):
        dynamic = subprocess.run(["readelf", "-d", str(module)], capture_output=True, text=True).stdout
        assert "[$ORIGIN]" in dynamic, dynamic

    # Assemble a package from the sources, the fresh extension and the library.
    package = tmp_path / "site" / "tilelang"
    shutil.copytree(REPO_ROOT / "python" / "tilelang", package)
    shutil.copy(module, package)
    shutil.copy(native_library, package)
    probe = (
        "import tilelang, tilelang._C, pathlib; "
        "assert pathlib.Path(tilelang._C.__file__).parent == pathlib.Path(tilelang.__file__).parent; "
        "print(tilelang.run_pipeline('func.func @f() { return }', 'canonicalize'))"
    )
    result = subprocess.run(
        [sys.executable, "-S", "-c", probe], cwd=tmp_path / "site", capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "func.func @f()" in result.stdout


def test_missing_prebuilt_library_is_a_clear_configure_error(tmp_path):
    if shutil.which("cmake") is None:
        pytest.skip("needs cmake")
    result = subprocess.run(
        ["cmake", "-S", str(REPO_ROOT / "python"), "-B", str(tmp_path / "b"),
         f"-DTILELANG_PREBUILT_LIBRARY={tmp_path / 'missing.so'}"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "Set TILELANG_PREBUILT_LIBRARY to an existing libtilelang.so" in result.stderr
