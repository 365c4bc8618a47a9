"""The disk cache acts only inside its directory and uses only what it wrote
(issue 20, item 2): no symbolic link below the directory is followed, to
read or to delete; an entry is bound to its key and its fields are
checksummed; the directory is private (0700, files 0600) and entries or
directories of other users, or writable by others, are refused; an entry
that does not hold what a launch reads is rebuilt; special files are never
read and reads are bounded; stale staging directories are swept; a relative
TILELANG_CACHE_DIR works. Each case: the process neither crashes nor hangs,
the kernel is compiled either way, and the bad entry is replaced.

Runs without a GPU; launches go through the stand-in driver (fakecuda)."""

import json
import os
import pathlib
import resource
import shutil
import stat
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

from tilelang import _C
from tilelang import cache

from fakecuda import fakecuda
from test_cache import KERNEL_SOURCE, entries

# One compilation of kernels_mod.scale (BLOCK from argv), reporting the
# cache statistics and the PTX.
CHILD = '''
    import json, sys
    from tilelang import cache
    import kernels_mod
    block = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    compiled = kernels_mod.compile_scale(block).to_ptx("sm_90a")
    s = cache.stats
    print(json.dumps({"hits": s.hits, "misses": s.misses, "corrupt": s.corrupt, "stores": s.stores,
                      "untrusted": getattr(s, "untrusted", 0),
                      "reasons": s.corrupt_reasons + getattr(s, "untrusted_reasons", []),
                      "ptx": compiled.ptx}))
'''


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(directory))
    monkeypatch.delenv("TILELANG_ALWAYS_COMPILE", raising=False)
    monkeypatch.delenv("TILELANG_CACHE", raising=False)
    (tmp_path / "kernels_mod.py").write_text(KERNEL_SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    return directory


def _limits(umask=None):
    def apply():
        # A reader that followed a link to /dev/zero would fill memory.
        resource.setrlimit(resource.RLIMIT_AS, (16 << 30, 16 << 30))
        if umask is not None:
            os.umask(umask)
    return apply


def child(tmp_path, *args, env_extra=None, umask=None, cwd=None, code=CHILD, timeout=60):
    """Runs `code` in a child process; returns its report and stderr. A
    crash, an exception or a hang fails the test."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path)] + sys.path))
    env.update(env_extra or {})
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *map(str, args)], capture_output=True,
                              text=True, env=env, timeout=timeout, preexec_fn=_limits(umask), cwd=cwd)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process hung for {timeout} s")
    assert done.returncode == 0, f"the child process failed ({done.returncode}):\n{done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1]), done.stderr


def rebuilt(report, kind="corrupt"):
    """The report of a process that found one bad entry and replaced it."""
    return (report["hits"], report[kind], report["misses"], report["stores"]) == (0, 1, 1, 1)


def assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, kind="corrupt", reason=None):
    assert rebuilt(report, kind), report
    assert f"was {kind}" in stderr
    if reason:
        assert any(reason in r for r in report["reasons"]), report["reasons"]
    assert report["ptx"] == first["ptx"]
    [entry] = entries(cache_dir)
    assert entry.is_dir() and not entry.is_symlink()
    again, _ = child(tmp_path)
    assert (again["hits"], again["corrupt"], again["untrusted"]) == (1, 0, 0)


def republish(cache_dir, entry, files=None, fields=None):
    """Writes, through the cache's own API (so that every checksum holds),
    another entry under `entry`'s key: `files(files)` and `fields(fields)`
    change what the first one held."""
    store = _C.DiskCache(str(cache_dir))
    state, old_files, old_fields, reason = store.lookup(entry.name)
    assert state == "hit", reason
    new_files = files(dict(old_files)) if files else dict(old_files)
    new_fields = fields(json.loads(old_fields)) if fields else json.loads(old_fields)
    store.publish(entry.name, new_files, json.dumps(new_fields), replace=True)


# -- links ------------------------------------------------------------------------------------


def test_a_symlinked_entry_is_removed_without_touching_its_target(cache_dir, tmp_path):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep me")
    shutil.rmtree(entry)
    entry.symlink_to(victim, target_is_directory=True)
    report, stderr = child(tmp_path)
    assert (victim / "precious").read_text() == "keep me"
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, reason="symbolic link")


def test_a_symlinked_file_in_an_entry_is_not_followed(cache_dir, tmp_path):
    # The link's target holds exactly the PTX, so that following it would
    # pass every checksum.
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    outside = tmp_path / "outside.ptx"
    shutil.move(entry / "kernel.ptx", outside)
    (entry / "kernel.ptx").symlink_to(outside)
    report, stderr = child(tmp_path)
    assert outside.read_text() == first["ptx"]
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, reason="symbolic link")


def test_a_symlinked_shard_is_not_followed_and_nothing_outside_is_deleted(cache_dir, tmp_path):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shard = entry.parent
    shutil.move(shard, elsewhere / shard.name)
    shard.symlink_to(elsewhere / shard.name, target_is_directory=True)
    moved = elsewhere / shard.name / entry.name
    data = bytearray((moved / "kernel.ptx").read_bytes())
    data[len(data) // 2] ^= 1  # a corrupt entry, which a follower would delete
    (moved / "kernel.ptx").write_bytes(bytes(data))
    outside = {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()}
    report, stderr = child(tmp_path)
    # Outside the cache, nothing was removed, changed or added.
    assert {p: p.read_bytes() for p in elsewhere.rglob("*") if p.is_file()} == outside
    assert sorted(elsewhere.rglob("*")) == sorted([elsewhere / shard.name, moved, *moved.iterdir()])
    assert not shard.is_symlink()
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, reason="symbolic link")


# -- binding and checksums ------------------------------------------------------------------


def test_another_kernels_entry_under_this_key_is_not_used(cache_dir):
    import kernels_mod

    kernels_mod.scale.cache.clear()  # compiled by earlier tests, in memory
    small = kernels_mod.compile_scale(block=128).to_ptx("sm_90a").ptx
    kernels_mod.compile_scale(block=512).to_ptx("sm_90a")
    [a, b] = entries(cache_dir)
    key = cache.kernel_key(kernels_mod.compile_scale(block=128).asm["tile"], "sm_90a", 4, 3)
    mine, other = (a, b) if a.name == key else (b, a)
    shutil.rmtree(mine)
    shutil.copytree(other, mine)
    kernels_mod.scale.cache.clear()
    corrupt = cache.stats.corrupt
    with pytest.warns(RuntimeWarning, match="was corrupt"):
        assert kernels_mod.compile_scale(block=128).to_ptx("sm_90a").ptx == small
    assert cache.stats.corrupt == corrupt + 1
    assert "another key" in cache.stats.corrupt_reasons[-1]


def compile_descriptor_matmul():
    import tilelang
    import tilelang.language as tl
    from tilelang_testing import REPO_ROOT, load_module

    kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py").define(tilelang.jit, tl)
    return kernels["matmul_descriptor_kernel"].compile(
        {"a_desc": "tensordesc<bf16[64,64]>", "b_desc": "tensordesc<bf16[64,128]>",
         "c_desc": "tensordesc<bf16[64,128]>", "M": "i32", "N": "i32", "K": "i32"},
        constexprs=dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=128, BLOCK_SIZE_K=64, GROUP_SIZE_M=8),
        num_warps=4, num_stages=3).to_ptx("sm_90a")


def edit_metadata(entry: pathlib.Path, edit):
    """Edits metadata.json's fields as a person with an editor would."""
    path = entry / "metadata.json"
    metadata = json.loads(path.read_text())
    edit(metadata["fields"])
    path.write_text(json.dumps(metadata, indent=2))


@pytest.mark.parametrize("shared_bytes", [0, -1])
def test_edited_fields_fail_the_checksum(cache_dir, shared_bytes):
    stored = compile_descriptor_matmul()
    assert stored.shared_bytes > 0
    [entry] = entries(cache_dir)
    edit_metadata(entry, lambda fields: fields.update(shared_bytes=shared_bytes))
    corrupt, hits = cache.stats.corrupt, cache.stats.hits
    with pytest.warns(RuntimeWarning, match="was corrupt"):
        found = compile_descriptor_matmul()
    assert found.shared_bytes == stored.shared_bytes
    assert (cache.stats.corrupt, cache.stats.hits) == (corrupt + 1, hits)
    assert "fails its checksum" in cache.stats.corrupt_reasons[-1]


# A launch through the stand-in driver of a kernel with dynamic shared
# memory and tensor maps, reporting what reached the driver.
DESCRIPTOR_LAUNCH = '''
import json
import fakecuda
from fakecuda import Tensor
import tilelang
import tilelang.language as tl
from tilelang import cache
from tilelang_testing import load_module, REPO_ROOT

kernels = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py").define(tilelang.jit, tl)
config = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
          "num_warps": 8, "num_stages": 4}
m, n, k = 300, 520, 200
descs = [tilelang.TensorDescriptor.from_tensor(Tensor((m, k), "bfloat16", 0x7F0000100000), [128, 64]),
         tilelang.TensorDescriptor.from_tensor(Tensor((k, n), "bfloat16", 0x7F0000200000), [64, 256]),
         tilelang.TensorDescriptor.from_tensor(Tensor((m, n), "bfloat16", 0x7F0000300000), [128, 256])]
error = None
try:
    kernels["matmul_descriptor_kernel"][(6,)](*descs, m, n, k, **config)
except Exception as exc:
    error = f"{type(exc).__name__}: {exc}"
launch = fakecuda.last_launch()
s = cache.stats
print(json.dumps({"error": error, "shared": launch and launch["shared"],
                  "maps": launch and [fakecuda.decode_tensor_map(launch["params"][i]) is not None
                                      for i in (0, 5, 10)],
                  "hits": s.hits, "corrupt": s.corrupt, "stores": s.stores}))
'''


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.mark.parametrize("damage", ["shared_bytes=-1", "shared_bytes=0", "garbage tensor maps",
                                    "no tensor maps key", "whole_program=2"])
def test_a_launch_never_uses_edited_or_incomplete_fields(fake_driver, tmp_path, damage):
    cache_dir = tmp_path / "cache"
    env = {"TILELANG_CACHE_DIR": str(cache_dir)}
    first = fakecuda.run_script(fake_driver, DESCRIPTOR_LAUNCH, env=env)
    assert first["error"] is None and first["shared"] > 48 * 1024 and first["maps"] == [True] * 3
    [entry] = entries(cache_dir)
    if damage.startswith("shared_bytes"):
        edit_metadata(entry, lambda fields: fields.update(shared_bytes=int(damage.split("=")[1])))
    elif damage == "whole_program=2":
        # How the cubin was linked (the occupancy search's whole-program
        # step): 0 or 1.
        republish(cache_dir, entry, fields=lambda f: dict(f, whole_program=2))
    elif damage == "garbage tensor maps":
        republish(cache_dir, entry, fields=lambda f: dict(f, tensor_maps=[{"descriptor": 0, "element": "f16"}]))
    else:
        republish(cache_dir, entry, fields=lambda f: {k: v for k, v in f.items() if k != "tensor_maps"})
    second = fakecuda.run_script(fake_driver, DESCRIPTOR_LAUNCH, env=env)
    assert second["error"] is None
    assert (second["shared"], second["maps"]) == (first["shared"], first["maps"])
    assert (second["hits"], second["corrupt"], second["stores"]) == (0, 1, 1)
    third = fakecuda.run_script(fake_driver, DESCRIPTOR_LAUNCH, env=env)
    assert (third["hits"], third["corrupt"], third["shared"]) == (1, 0, first["shared"])


# -- ownership and permissions --------------------------------------------------------------


def test_the_cache_is_private_whatever_the_umask(cache_dir, tmp_path):
    child(tmp_path, umask=0)
    [entry] = entries(cache_dir)
    for directory in (cache_dir, entry.parent, entry):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    for path in entry.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


@pytest.mark.parametrize("where", ["file", "entry"])
def test_entries_writable_by_others_are_not_used(cache_dir, tmp_path, where):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    target = entry / "kernel.ptx" if where == "file" else entry
    target.chmod(stat.S_IMODE(target.stat().st_mode) | stat.S_IWGRP | stat.S_IWOTH)
    report, stderr = child(tmp_path)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, kind="untrusted",
                             reason="is writable by others")
    [entry] = entries(cache_dir)
    assert stat.S_IMODE((entry / "kernel.ptx").stat().st_mode) == 0o600


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="giving files to another user needs root")


@needs_root
@pytest.mark.parametrize("where", ["file", "entry"])
def test_entries_of_other_users_are_not_used(cache_dir, tmp_path, where):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    os.chown(entry / "kernel.ptx" if where == "file" else entry, 12345, 12345)
    report, stderr = child(tmp_path)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, kind="untrusted",
                             reason="owned by uid 12345")
    [entry] = entries(cache_dir)
    assert {p.stat().st_uid for p in [entry, *entry.iterdir()]} == {os.geteuid()}


def refuse_directory(cache_dir, how):
    if how == "mode":
        cache_dir.chmod(0o777)
        return "is writable by others (mode 0777)"
    os.chown(cache_dir, 12345, 12345)
    return "owned by uid 12345"


@pytest.mark.parametrize("how", ["mode", pytest.param("owner", marks=needs_root)])
def test_a_cache_directory_others_control_is_refused(cache_dir, tmp_path, how):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    before = sorted(str(p) for p in cache_dir.rglob("*"))
    reason = refuse_directory(cache_dir, how)
    report, stderr = child(tmp_path)
    assert (report["hits"], report["stores"], report["untrusted"]) == (0, 0, 1)
    assert report["ptx"] == first["ptx"]
    assert "the kernel cache is not used" in stderr and reason in stderr
    assert "could not write" not in stderr
    assert sorted(str(p) for p in cache_dir.rglob("*")) == before  # nothing read, removed or added


def test_a_refused_directory_is_warned_of_once_per_process(cache_dir):
    import kernels_mod

    kernels_mod.scale.cache.clear()
    cache_dir.mkdir(mode=0o777)
    cache_dir.chmod(0o777)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernels_mod.compile_scale(block=32).to_ptx("sm_90a")
        kernels_mod.compile_scale(block=64).to_ptx("sm_90a")
    messages = [str(w.message) for w in caught if "tilelang" in str(w.message)]
    assert len(messages) == 1 and "the kernel cache is not used" in messages[0], messages
    assert not list(cache_dir.iterdir())
    # Both lookups are counted, with the reason.
    assert [str(cache_dir) in r and "writable by others" in r for r in cache.stats.untrusted_reasons[-2:]] == \
        [True, True]


# -- incomplete entries, special files, bounded reads -----------------------------------------


INCOMPLETE = {
    "no files": dict(files=lambda f: {}),
    "no fields": dict(fields=lambda f: {}),
    "no name": dict(fields=lambda f: {k: v for k, v in f.items() if k != "name"}),
    "another kernel's name": dict(fields=lambda f: dict(f, name="other")),
    "shared_bytes a string": dict(fields=lambda f: dict(f, shared_bytes="0")),
    "negative shared_bytes": dict(fields=lambda f: dict(f, shared_bytes=-1)),
    "num_warps 0": dict(fields=lambda f: dict(f, num_warps=0)),
    "PTX not text": dict(files=lambda f: dict(f, **{"kernel.ptx": b"\xff\xfe" + f["kernel.ptx"]})),
}


@pytest.mark.parametrize("damage", sorted(INCOMPLETE))
def test_an_entry_that_passes_its_checksums_but_is_incomplete_is_rebuilt(cache_dir, tmp_path, damage):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    republish(cache_dir, entry, **INCOMPLETE[damage])
    report, stderr = child(tmp_path)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr)


def test_deeply_nested_metadata_does_not_crash(cache_dir, tmp_path):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    (entry / "metadata.json").write_text("[" * 1_000_000)
    report, stderr = child(tmp_path)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, reason="nests deeper")


def test_an_oversized_metadata_file_is_not_read(cache_dir, tmp_path):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    with open(entry / "metadata.json", "a") as handle:
        handle.write(" " * (2 << 20))  # still the same JSON
    report, stderr = child(tmp_path)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr, reason="more than")


@pytest.mark.parametrize("name", ["kernel.ptx", "metadata.json"])
@pytest.mark.parametrize("special", ["fifo", "link to /dev/zero"])
def test_special_files_in_an_entry_are_never_read(cache_dir, tmp_path, name, special):
    first, _ = child(tmp_path)
    [entry] = entries(cache_dir)
    (entry / name).unlink()
    if special == "fifo":
        os.mkfifo(entry / name)
    else:
        (entry / name).symlink_to("/dev/zero")
    report, stderr = child(tmp_path, timeout=60)
    assert_rebuilt_and_found(tmp_path, cache_dir, first, report, stderr,
                             reason="not a regular file" if special == "fifo" else "symbolic link")


# -- staging directories and the directory's name -------------------------------------------


def test_stale_staging_directories_are_swept(cache_dir, tmp_path):
    child(tmp_path)
    [entry] = entries(cache_dir)
    shard = entry.parent
    long_ago = time.time() - 2 * _C.DiskCache.stale_seconds

    def make(directory: pathlib.Path, age=long_ago):
        directory.mkdir()
        (directory / "kernel.ptx").write_text("half written")
        os.utime(directory, (age, age))
        return directory

    stale = [make(shard / f".tmp-{entry.name[:16]}-0a1b2c"), make(shard / f".tmp-{entry.name[:16]}-0a1b2c3d"),
             make(shard / f"{entry.name}.discard-0a1b2c3d"), make(cache_dir / f"{shard.name}.discard-0a1b2c3d")]
    fresh = make(shard / f".tmp-{entry.name[:16]}-00000001", age=time.time())
    not_ours = [make(shard / ".tmp-something-else"), make(cache_dir / "notes")]
    victim = make(tmp_path / "victim")
    link = shard / f".tmp-{entry.name[:16]}-00000002"
    link.symlink_to(victim, target_is_directory=True)
    os.utime(link, (long_ago, long_ago), follow_symlinks=False)
    # A link inside a stale directory is removed, never followed.
    (stale[0] / "inside").symlink_to(victim, target_is_directory=True)
    os.utime(stale[0], (long_ago, long_ago))
    # A process that stores an entry sweeps (once).
    child(tmp_path, 64)
    assert not [p for p in stale if os.path.lexists(p)]
    assert all(p.exists() for p in [fresh, *not_ours, victim / "kernel.ptx"]) and link.is_symlink()
    assert len(entries(cache_dir)) == 2


def test_a_relative_cache_directory_is_resolved_once(cache_dir, tmp_path):
    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    code = '''
        import json, os, sys
        from tilelang import cache
        import kernels_mod
        kernels_mod.compile_scale(128).to_ptx("sm_90a")
        os.chdir(sys.argv[1])  # the cache stays where it was
        compiled = kernels_mod.compile_scale(256).to_ptx("sm_90a")
        s = cache.stats
        print(json.dumps({"hits": s.hits, "stores": s.stores, "directory": cache.directory(),
                          "ptx": compiled.ptx}))
    '''
    env = {"TILELANG_CACHE_DIR": "relative-cache"}
    first, stderr = child(tmp_path, other, env_extra=env, cwd=work, code=code)
    assert "could not write" not in stderr
    assert first["stores"] == 2 and first["directory"] == str(work / "relative-cache")
    assert len(entries(work / "relative-cache")) == 2 and not list(other.iterdir())
    second, _ = child(tmp_path, other, env_extra=env, cwd=work, code=code)
    assert (second["hits"], second["stores"]) == (2, 0)
