"""Packaging (issue 22): one version everywhere (python/tilelang/_version.py
read by pyproject.toml and by the compiler library's build), the
distribution name that does not collide on the package index, the
license, the optional extras, and build trees per wheel tag with the
editable install's build/py kept; the distribution's metadata as
scikit-build-core writes it."""

import re
import subprocess
import sys

import pytest

import tilelang
from tilelang import _C
from tilelang_testing import REPO_ROOT, find_tool

tomllib = pytest.importorskip("tomllib")
PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def test_one_version():
    source = (REPO_ROOT / "python" / "tilelang" / "_version.py").read_text()
    (version,) = re.findall(r'^__version__ = "([^"]+)"$', source, re.M)
    assert tilelang.__version__ == version
    assert _C.version().split(" ")[0] == version  # libtilelang, built with the same
    assert "version" not in PYPROJECT["project"] and PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["scikit-build"]["metadata"]["version"]["input"] == "python/tilelang/_version.py"
    cmake = (REPO_ROOT / "CMakeLists.txt").read_text() + (REPO_ROOT / "lib" / "Compiler" / "Version.cpp").read_text()
    assert version not in cmake  # read, not written again


def test_tool_version():
    out = subprocess.run([find_tool("tilelang-compile"), "--version"], capture_output=True, text=True).stdout
    assert out.startswith(f"tilelang-compile {tilelang.__version__} (LLVM ")


def test_name_license_and_extras():
    project = PYPROJECT["project"]
    assert project["name"] == "tilelang-mlir"
    assert project["license"] == "Apache-2.0 WITH LLVM-exception" and project["license-files"] == ["LICENSE"]
    license_text = (REPO_ROOT / "LICENSE").read_text()
    assert "Apache License" in license_text and "Version 2.0, January 2004" in license_text
    assert "---- LLVM Exceptions to the Apache 2.0 License ----" in license_text
    extras = project["optional-dependencies"]
    assert set(extras) == {"torch", "plot", "progress", "parity", "test"}
    assert [d.split(">")[0].split("=")[0] for d in extras["torch"] + extras["plot"] + extras["progress"]] == [
        "torch", "matplotlib", "tqdm"]
    assert project["dependencies"] == []


def test_build_trees():
    settings = PYPROJECT["tool"]["scikit-build"]
    assert settings["build-dir"] == "build/{wheel_tag}"
    (editable,) = [o for o in settings["overrides"] if o["if"] == {"state": "editable"}]
    assert editable["build-dir"] == "build/py"


def test_metadata(tmp_path):
    """The METADATA scikit-build-core writes for a wheel (no build)."""
    code = ("import sys; from scikit_build_core.build import prepare_metadata_for_build_wheel as p; "
            "print(p(sys.argv[1]))")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=300)
    if result.returncode != 0 and "No module named 'scikit_build_core'" in result.stderr:
        pytest.skip("scikit-build-core is not installed here")
    assert result.returncode == 0, result.stderr
    metadata = (tmp_path / result.stdout.strip().splitlines()[-1] / "METADATA").read_text()
    assert "Name: tilelang-mlir\n" in metadata and f"Version: {tilelang.__version__}\n" in metadata
    assert "License-Expression: Apache-2.0 WITH LLVM-exception\n" in metadata
    for extra in ("torch", "plot", "progress", "parity", "test"):
        assert f"Provides-Extra: {extra}\n" in metadata
