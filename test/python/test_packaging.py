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


@pytest.mark.slow
def test_distribution_with_the_prebuilt_library(tmp_path):
    """`scripts/gpu_host.sh dist` (issue 22, acceptance 3): the source
    distribution carries the built libtilelang.so and no LLVM code or
    tests; built without LLVM (prebuilt/ makes CMake build only the
    extensions), its wheel installs into a fresh venv without network, and
    that install, imported from outside the tree, compiles tile IR to PTX;
    `pip-install` builds it from source into a venv and runs tests on it."""
    import os
    import tarfile

    env = dict(os.environ)
    carried = [REPO_ROOT / "build" / "dist" / "wheels", REPO_ROOT / "build" / "extras"]
    if list(carried[0].glob("pytest_xdist-*.whl")) and list(carried[1].glob("matplotlib-*.whl")):
        # Downloaded before: no network needed.
        env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=" ".join(str(folder) for folder in carried))
    dist = tmp_path / "dist"
    done = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "gpu_host.sh"), "dist", str(dist)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    (sdist,) = dist.glob("tilelang_mlir-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"prebuilt/libtilelang.so", "CMakeLists.txt", "pyproject.toml", "PKG-INFO", "LICENSE",
            "python/src/TileLangModule.cpp", "include/tilelang/Compiler/Compiler.h"} <= names
    assert not any(name.startswith(("lib/", "test/", "tools/", "bench/")) for name in names)
    wheels = {w.name.split("-")[0] for w in (dist / "wheels").glob("*.whl")}
    assert {"scikit_build_core", "pybind11", "packaging", "pathspec", "pip", "pytest_xdist", "execnet"} <= wheels
    extras = {w.name.split("-")[0] for w in (tmp_path / "extras").glob("*.whl")}
    assert {"matplotlib", "tqdm", "pillow"} <= extras and "numpy" not in extras
    (wheel,) = (tmp_path / "wheels").glob("tilelang_mlir-*.whl")

    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=300)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PIP_"))}
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-index", str(wheel)],
                          env=dict(clean, PIP_NO_INDEX="1"), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    code = ("import sys, tilelang; print(tilelang.__file__); "
            "k = tilelang.compile_ir(open(sys.argv[1]).read(), arch='sm_90a'); print(k.ptx.count('.entry'))")
    done = subprocess.run([str(venv / "bin" / "python"), "-c", code,
                           str(REPO_ROOT / "test" / "Target" / "PTX" / "vector-add.mlir")],
                          cwd=tmp_path, env=clean, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    where, entries = done.stdout.split()
    assert where.startswith(str(venv)) and entries == "1"

    # pip-install: the source distribution built and installed offline into
    # a venv over this interpreter's packages, then a test file run against
    # that install with pytest-xdist from the carried wheels.
    out, host_venv = tmp_path / "out", tmp_path / "host-venv"
    done = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "gpu_host.sh"), "pip-install", str(dist), str(out),
                           "test/python/test_ir.py", "-k", "verify"],
                          env=dict(clean, PYTHON=sys.executable, TILELANG_VENV=str(host_venv),
                                   TILELANG_SUITE_WORKERS="2"),
                          capture_output=True, text=True, timeout=900, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    log = (out / "pytest.log").read_text()
    assert f"tilelang {tilelang.__version__} from {host_venv}" in log and "created: 2/2 workers" in log
    assert " passed" in log and " failed" not in log and (out / "junit.xml").exists()
