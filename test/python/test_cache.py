"""The on-disk kernel cache (tilelang.cache over libtilelang's DiskCache):
entries are found by a second process, published atomically when several
processes compile the same kernel at once, and detected and rebuilt when
truncated or corrupted. Runs without a GPU (PTX-only entries); the GPU tests
repeat the warm start with cubins (test/python/gpu/test_cache_gpu.py)."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import tilelang
import tilelang.language as tl
from tilelang import _C
from tilelang import cache, knobs

# A kernel module both this process and child processes import, so that
# they compile exactly the same IR.
KERNEL_SOURCE = textwrap.dedent('''
    import tilelang, tilelang.language as tl

    @tilelang.jit
    def scale(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * alpha, mask=mask)

    def compile_scale(block=256):
        return scale.compile({"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                             constexprs={"BLOCK": block})
''')


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(directory))
    monkeypatch.delenv("TILELANG_ALWAYS_COMPILE", raising=False)
    monkeypatch.delenv("TILELANG_CACHE", raising=False)
    (tmp_path / "kernels_mod.py").write_text(KERNEL_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return directory


def entries(directory: pathlib.Path):
    """Published kernel entry directories (not staging or discarded ones,
    nor the tile-IR index's folder, a cache of its own)."""
    return sorted(p for p in directory.glob("*/*") if p.is_dir() and not p.name.startswith(".")
                  and ".discard-" not in p.name and p.parent.name != "ir-index")


def run_child(tmp_path, code: str, env_extra=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120)


CHILD = '''
    import json, time
    from tilelang import cache
    import kernels_mod
    start = time.perf_counter()
    compiled = kernels_mod.compile_scale().to_ptx("sm_90a")
    elapsed = time.perf_counter() - start
    s = cache.stats
    print(json.dumps({"hits": s.hits, "misses": s.misses, "corrupt": s.corrupt, "stores": s.stores,
                      "ms": elapsed * 1e3, "ptx": compiled.ptx}))
'''


def child_stats(tmp_path, env_extra=None):
    result = run_child(tmp_path, CHILD, env_extra)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


def test_a_second_process_finds_the_entry(cache_dir, tmp_path):
    first, _ = child_stats(tmp_path)
    assert (first["hits"], first["misses"], first["stores"]) == (0, 1, 1)
    [entry] = entries(cache_dir)
    names = {p.name for p in entry.iterdir()}
    assert {"metadata.json", "kernel.ptx", "tile.mlir", "tilegpu.mlir", "llvm.mlir", "llvm-ir.ll"} <= names
    second, _ = child_stats(tmp_path)
    assert (second["hits"], second["misses"], second["stores"]) == (1, 0, 0)
    assert second["ptx"] == first["ptx"]
    metadata = json.loads((entry / "metadata.json").read_text())
    assert metadata["fields"]["name"] == "scale" and metadata["fields"]["arch"] == "sm_90a"
    assert metadata["key"] == entry.name


def test_in_process_to_ptx_hits_after_a_store(cache_dir):
    import kernels_mod

    before = (cache.stats.hits, cache.stats.stores)
    kernels_mod.compile_scale(block=512).to_ptx("sm_80")
    assert cache.stats.stores == before[1] + 1
    kernels_mod.scale.cache.clear()  # forget the in-memory specialization
    compiled = kernels_mod.compile_scale(block=512)
    compiled.to_ptx("sm_80")
    assert cache.stats.hits == before[0] + 1
    assert "ld.global" in compiled.asm["ptx"] and "tilegpu" in compiled.asm


def test_different_options_are_different_entries(cache_dir):
    import kernels_mod

    compiled = kernels_mod.compile_scale(block=128)
    compiled.to_ptx("sm_90a")
    compiled.to_ptx("sm_80")
    kernels_mod.scale.compile({"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32", "alpha": "fp32"},
                              constexprs={"BLOCK": 128}, num_warps=8).to_ptx("sm_90a")
    assert len(entries(cache_dir)) == 3


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "metadata"])
def test_a_damaged_entry_is_detected_and_rebuilt(cache_dir, tmp_path, damage):
    first, _ = child_stats(tmp_path)
    [entry] = entries(cache_dir)
    ptx = entry / "kernel.ptx"
    if damage == "flip":
        data = bytearray(ptx.read_bytes())
        data[len(data) // 2] ^= 0x01
        ptx.write_bytes(bytes(data))
    elif damage == "truncate":
        ptx.write_bytes(ptx.read_bytes()[:100])
    elif damage == "delete":
        ptx.unlink()
    else:
        (entry / "metadata.json").write_text('{"format": 1, "files": ')
    second, stderr = child_stats(tmp_path)
    assert (second["hits"], second["corrupt"], second["misses"], second["stores"]) == (0, 1, 1, 1)
    assert "was corrupt" in stderr
    assert second["ptx"] == first["ptx"]
    [rebuilt] = entries(cache_dir)
    third, _ = child_stats(tmp_path)
    assert (third["hits"], third["corrupt"]) == (1, 0)
    assert not [p for p in rebuilt.parent.iterdir() if p.name.startswith(".tmp-") or ".discard-" in p.name]


def test_eight_processes_compiling_at_once_leave_one_valid_entry(cache_dir, tmp_path):
    code = '''
        import sys, time, json
        from tilelang import cache
        import kernels_mod
        # Start together: wait for the go file.
        while not __import__("os").path.exists(sys.argv[1]):
            time.sleep(0.001)
        compiled = kernels_mod.compile_scale(block=1024).to_ptx("sm_90a")
        print(json.dumps({"stores": cache.stats.stores, "ptx": len(compiled.ptx)}))
    '''
    go = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    children = [subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), str(go)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env) for _ in range(8)]
    go.write_text("go")
    results = [child.communicate(timeout=120) for child in children]
    assert all(child.returncode == 0 for child in children), [err for _, err in results]
    outputs = [json.loads(out.strip().splitlines()[-1]) for out, _ in results]
    assert len({o["ptx"] for o in outputs}) == 1
    [entry] = entries(cache_dir)
    assert not [p for p in entry.parent.iterdir() if p != entry]  # no staging or discarded leftovers
    state, files, fields, reason = _C.DiskCache(str(cache_dir)).lookup(entry.name)
    assert state == "hit", reason
    assert json.loads(fields)["name"] == "scale"


def test_forced_recompilation_replaces_the_entry(cache_dir, tmp_path):
    child_stats(tmp_path)
    forced, _ = child_stats(tmp_path, {"TILELANG_ALWAYS_COMPILE": "1"})
    assert (forced["hits"], forced["misses"], forced["stores"]) == (0, 1, 1)
    assert len(entries(cache_dir)) == 1


def test_the_cache_can_be_turned_off(cache_dir, tmp_path):
    stats, _ = child_stats(tmp_path, {"TILELANG_CACHE": "0"})
    assert (stats["hits"], stats["stores"]) == (0, 0)
    assert not cache_dir.exists() or not entries(cache_dir)


def test_dump_ir_writes_every_stage(cache_dir, tmp_path):
    dump = tmp_path / "dump"
    child_stats(tmp_path, {"TILELANG_DUMP_IR": str(dump)})
    [folder] = list(dump.iterdir())
    assert folder.name.startswith("scale-")
    assert {p.name for p in folder.iterdir()} == {"tile.mlir", "tilegpu.mlir", "llvm.mlir", "llvm-ir.ll",
                                                  "kernel.ptx"}
    assert ".entry scale" in (folder / "kernel.ptx").read_text()


def test_override_ir_links_an_edited_ptx_and_stores_nothing(cache_dir, tmp_path):
    # Dump, edit, relaunch with the edited PTX in place of the compiled one.
    dump = tmp_path / "dump"
    first, _ = child_stats(tmp_path, {"TILELANG_DUMP_IR": str(dump)})
    [folder] = list(dump.iterdir())
    edited = (folder / "kernel.ptx").read_text() + "\n// edited by hand\n"
    (folder / "kernel.ptx").write_text(edited)
    stored = entries(cache_dir)
    overridden, stderr = child_stats(tmp_path, {"TILELANG_OVERRIDE_IR": str(dump)})
    assert overridden["ptx"] == edited and first["ptx"] != edited
    assert f"linking {folder / 'kernel.ptx'} instead of the compiled PTX" in stderr
    assert (overridden["hits"], overridden["stores"]) == (0, 0)
    assert entries(cache_dir) == stored
    # A folder without this kernel's (another key's) overrides nothing, quietly.
    (tmp_path / "elsewhere" / "scale-0123456789ab").mkdir(parents=True)
    plain, stderr = child_stats(tmp_path, {"TILELANG_OVERRIDE_IR": str(tmp_path / "elsewhere")})
    assert plain["ptx"] == first["ptx"] and plain["hits"] == 1
    assert "TILELANG_OVERRIDE_IR" not in stderr


def test_override_ir_that_is_not_a_directory_is_named(cache_dir, tmp_path):
    # A typo would otherwise run the compiled PTX unannounced.
    missing = tmp_path / "no-such-folder"
    stats, stderr = child_stats(tmp_path, {"TILELANG_OVERRIDE_IR": str(missing)})
    assert stats["stores"] == 1
    assert f"TILELANG_OVERRIDE_IR='{missing}' is not a directory: no kernel's PTX is overridden" in stderr


def test_dump_ir_that_cannot_be_written_is_a_warning(cache_dir, tmp_path):
    # The kernel compiles and is cached; the dump's failure is named.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    stats, stderr = child_stats(tmp_path, {"TILELANG_DUMP_IR": str(blocker)})
    assert stats["stores"] == 1
    assert f"TILELANG_DUMP_IR: cannot write {blocker}/scale-" in stderr


def test_the_key_names_the_compiler_build(monkeypatch):
    # A rebuilt libtilelang (another build ID) must not find the old entries.
    before = cache.kernel_key("module {}", "sm_90a", 4, 3)
    assert before == cache.kernel_key("module {}", "sm_90a", 4, 3)
    monkeypatch.setattr(_C, "build_id", lambda: "another-build")
    assert cache.kernel_key("module {}", "sm_90a", 4, 3) != before


@pytest.mark.parametrize("knob,same,other", [
    # Cubins linked without the occupancy search are kept apart (on: the
    # same key as unset).
    ("TILELANG_OCCUPANCY_SEARCH", "1", "0"),
    # The compiler library reads TILELANG_OVERLAP_PRODUCTS at each compile:
    # other PTX for the same tile IR, under its own key (off: as unset).
    ("TILELANG_OVERLAP_PRODUCTS", "0", "1"),
])
def test_a_knob_that_changes_the_code_changes_the_key(monkeypatch, knob, same, other):
    monkeypatch.delenv(knob, raising=False)
    unset = cache.kernel_key("module {}", "sm_90a", 8, 3)
    unset_state = knobs.compile_state()
    monkeypatch.setenv(knob, same)
    assert cache.kernel_key("module {}", "sm_90a", 8, 3) == unset
    monkeypatch.setenv(knob, other)
    assert cache.kernel_key("module {}", "sm_90a", 8, 3) != unset
    # And what a process keeps of its launches (tilelang.ops) is dropped.
    assert knob in knobs.COMPILE_KNOBS and knobs.compile_state() != unset_state


def test_disk_cache_api_rejects_bad_input(tmp_path):
    store = _C.DiskCache(str(tmp_path))
    key = _C.DiskCache.hash_key(["x"])
    assert len(key) == 64 and key != _C.DiskCache.hash_key(["", "x"])
    assert _C.DiskCache.hash_key(["ab", "c"]) != _C.DiskCache.hash_key(["a", "bc"])
    with pytest.raises(RuntimeError, match="not a cache key"):
        store.publish("../../etc", {"a": b"x"})
    with pytest.raises(RuntimeError, match="cannot name a cache file"):
        store.publish(key, {"../escape": b"x"})
    with pytest.raises(RuntimeError, match="cannot name a cache file"):
        store.publish(key, {"metadata.json": b"x"})
    with pytest.raises(RuntimeError, match="not JSON"):
        store.publish(key, {"a": b"x"}, "{not json")
    with pytest.raises(RuntimeError, match="JSON object"):
        store.publish(key, {"a": b"x"}, "[1, 2]")
    assert store.lookup(key)[0] == "miss"
    assert store.lookup("../../etc")[0] == "miss"
    store.publish(key, {"a.bin": bytes(range(256)), "empty": b""}, '{"k": [1, 2]}')
    state, files, fields, _ = store.lookup(key)
    assert state == "hit" and files == {"a.bin": bytes(range(256)), "empty": b""}
    assert json.loads(fields) == {"k": [1, 2]}
    # A second publisher keeps the first valid entry unless told to replace.
    store.publish(key, {"a.bin": b"other"})
    assert store.lookup(key)[1] == {"a.bin": bytes(range(256)), "empty": b""}
    store.publish(key, {"a.bin": b"other"}, replace=True)
    assert store.lookup(key)[1] == {"a.bin": b"other"}


def test_unwritable_cache_warns_and_still_compiles(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(blocker / "cache"))
    (tmp_path / "kernels_mod2.py").write_text(KERNEL_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import kernels_mod2

    with pytest.warns(RuntimeWarning, match="could not write the kernel cache"):
        compiled = kernels_mod2.compile_scale(block=64).to_ptx("sm_90a")
    assert ".entry scale" in compiled.ptx


def test_tensor_map_encodings_survive_a_cache_hit(cache_dir):
    """A kernel that copies descriptor blocks in bulk comes back from the
    disk cache with the tensor map encodings the launcher needs (without
    them, its tensor maps would stay zero)."""
    from tilelang_testing import REPO_ROOT, load_module

    kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py").define(tilelang.jit, tl)
    matmul = kernels["matmul_descriptor_kernel"]

    def compile_matmul():
        return matmul.compile({"a_desc": "tensordesc<bf16[64,64]>", "b_desc": "tensordesc<bf16[64,128]>",
                               "c_desc": "tensordesc<bf16[64,128]>", "M": "i32", "N": "i32", "K": "i32"},
                              constexprs=dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
                              num_warps=4, num_stages=3)

    stored = compile_matmul().to_ptx("sm_90a")
    assert len(stored.tensor_maps) == 3
    hits = cache.stats.hits
    matmul.cache.clear()  # forget the in-memory specialization
    found = compile_matmul().to_ptx("sm_90a")
    assert cache.stats.hits == hits + 1
    assert found.tensor_maps == stored.tensor_maps
