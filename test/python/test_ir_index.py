"""The tile-IR index (tilelang.ir_index): a new process that launches or
compiles a specialization another process put through the frontend reads
the frontend's output from the cache directory instead of running the
frontend; any change the output may depend on (the kernel's source, a
callee's, a global constant, the tilelang package, the specialization)
gives another key; a kernel that names something the index cannot
fingerprint (a module of the user's) always goes through the frontend, as
does TILELANG_ALWAYS_COMPILE. Each scenario runs in fresh processes. CPU
only (PTX)."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

KERNELS = textwrap.dedent('''
    import tilelang, tilelang.language as tl
    import helper_module

    SCALE = tl.constexpr(3.0)

    @tilelang.jit
    def load_scaled(ptr, offs, mask):
        return tl.load(ptr + offs, mask=mask) * SCALE

    @tilelang.jit
    def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, load_scaled(x_ptr, offs, mask), mask=mask)

    @tilelang.jit
    def with_module(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + helper_module.OFFSET, mask=offs < n)
''')

CHILD = textwrap.dedent('''
    import json, sys
    import tilelang
    from tilelang.frontend import codegen
    import ir_index_kernels as kernels
    calls = []
    generate = codegen.generate
    def counting(*args, **kwargs):
        calls.append(args[0].__name__)
        return generate(*args, **kwargs)
    codegen.generate = counting
    name = sys.argv[1]
    if name == "scale":
        k = kernels.scale.compile("*fp32,*fp32,i32", constexprs={"BLOCK": int(sys.argv[2])})
    else:
        k = kernels.with_module.compile("*fp32,i32", constexprs={"BLOCK": 128})
    print(json.dumps({"frontend": calls, "tile": k.asm["tile"], "src": k.asm["tile-src"], "args": k.arg_names,
                      "name": k.name, "ptx": k.to_ptx("sm_80").ptx[:200]}))
''')


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "ir_index_kernels.py").write_text(KERNELS)
    (tmp_path / "helper_module.py").write_text("import tilelang.language as tl\nOFFSET = tl.constexpr(1.0)\n")
    (tmp_path / "child.py").write_text(CHILD)
    return tmp_path


def child(workspace, *argv, **env):
    environment = dict(os.environ, TILELANG_CACHE_DIR=str(workspace / "cache"),
                       PYTHONPATH=os.pathsep.join([str(workspace)] + sys.path))
    environment.pop("TILELANG_ALWAYS_COMPILE", None)
    environment.update(env)
    done = subprocess.run([sys.executable, str(workspace / "child.py"), *map(str, argv)], capture_output=True,
                          text=True, env=environment, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_process_skips_the_frontend(workspace):
    first = child(workspace, "scale", 256)
    assert first["frontend"] == ["scale"]
    second = child(workspace, "scale", 256)
    assert second["frontend"] == []
    for field in ("tile", "src", "args", "name", "ptx"):
        assert second[field] == first[field], field
    # Another specialization is another key.
    assert child(workspace, "scale", 512)["frontend"] == ["scale"]


@pytest.mark.parametrize("edit", ["kernel", "callee", "global"])
def test_edits_give_new_keys(workspace, edit):
    assert child(workspace, "scale", 256)["frontend"] == ["scale"]
    source = (workspace / "ir_index_kernels.py").read_text()
    if edit == "kernel":
        source = source.replace("mask = offs < n\n    tl.store(y_ptr", "mask = offs < n - 1\n    tl.store(y_ptr")
    elif edit == "callee":
        source = source.replace("* SCALE", "* SCALE + 1.0")
    else:
        source = source.replace("SCALE = tl.constexpr(3.0)", "SCALE = tl.constexpr(5.0)")
    (workspace / "ir_index_kernels.py").write_text(source)
    edited = child(workspace, "scale", 256)
    assert edited["frontend"] == ["scale"]
    if edit == "global":
        assert "5.0" in edited["tile"] or "5.000000e+00" in edited["tile"]
    # And the edited kernel's entry is used by the next process.
    assert child(workspace, "scale", 256)["frontend"] == []


def test_a_user_module_means_no_index(workspace):
    assert child(workspace, "with_module")["frontend"] == ["with_module"]
    assert child(workspace, "with_module")["frontend"] == ["with_module"]


def test_always_compile_and_an_edited_package_bypass_it(workspace, monkeypatch):
    child(workspace, "scale", 256)
    assert child(workspace, "scale", 256, TILELANG_ALWAYS_COMPILE="1")["frontend"] == ["scale"]
    from tilelang import ir_index

    # The package's identity is part of every key.
    monkeypatch.setattr(ir_index, "_package_identity", ["another tilelang"])
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(workspace / "cache"))
    sys.path.insert(0, str(workspace))
    try:
        import importlib

        kernels = importlib.import_module("ir_index_kernels")
        key = ir_index.key(kernels.scale, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256}, {},
                           4, 3, False, None)
        assert key is not None and ir_index.load(key) is None
        monkeypatch.setattr(ir_index, "_package_identity", [])
        key = ir_index.key(kernels.scale, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BLOCK": 256}, {},
                           4, 3, False, None)
        record = ir_index.load(key)
        assert record is not None and record["name"] == "scale" and record["runtime"] == ["x_ptr", "y_ptr", "n"]
        assert ir_index.key(kernels.with_module, {"x_ptr": "*fp32", "n": "i32"}, {"BLOCK": 128}, {}, 4, 3, False,
                            None) is None
    finally:
        sys.path.remove(str(workspace))
        sys.modules.pop("ir_index_kernels", None)
        sys.modules.pop("helper_module", None)


def test_a_damaged_record_is_compiled_again(workspace):
    first = child(workspace, "scale", 256)
    records = [path for path in (workspace / "cache" / "ir-index").glob("*/*/index.json")]
    assert len(records) == 1
    records[0].write_text(records[0].read_text().replace('"scale"', '"other"'))  # fails its checksum
    again = child(workspace, "scale", 256)
    assert again["frontend"] == ["scale"] and again["tile"] == first["tile"]
    assert child(workspace, "scale", 256)["frontend"] == []
