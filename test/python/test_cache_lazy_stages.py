"""A warm start reads of a cache entry only what a launch needs (the PTX
and, on a GPU, the cubin): the intermediate IR (megabytes for a
tensor-core kernel) is read, and checked against its checksum, when
first asked for. A damaged intermediate file therefore does not slow or
fail a warm launch; it is found when read, the entry removed, and the text
compiled again. CPU only (PTX entries)."""

import json

import pytest

import tilelang
import tilelang.language as tl
from tilelang import cache


def kernel_source(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.exp(tl.load(x_ptr + offs, mask=mask)), mask=mask)


def compiled():
    """A fresh JITFunction's kernel, so nothing is remembered in memory."""
    kernel = tilelang.jit(kernel_source).compile("*fp32,*fp32,i32", constexprs={"BLOCK": 256})
    return kernel


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("TILELANG_ALWAYS_COMPILE", raising=False)
    monkeypatch.delenv("TILELANG_CACHE", raising=False)
    return tmp_path


def test_a_warm_build_reads_only_the_ptx(cache_dir, monkeypatch):
    first = compiled()
    first.to_ptx("sm_90a")
    expected = {stage: first.asm[stage] for stage in ("tilegpu", "llvm", "llvm-ir", "ptx")}
    (entry,) = [p for p in cache_dir.glob("*/*") if (p / "metadata.json").exists()]
    read = []
    lookup = cache._native().DiskCache.lookup

    def recording(self, key, only=None):
        if only != ["index.json"]:  # the tile-IR index's own lookups
            read.append(None if only is None else sorted(only))
        return lookup(self, key, only)

    monkeypatch.setattr(cache._native().DiskCache, "lookup", recording, raising=False)
    hits = cache.stats.hits
    warm = compiled()
    warm.to_ptx("sm_90a")
    assert cache.stats.hits == hits + 1
    assert read == [sorted(cache.LAUNCH_FILES)]
    # The stages are listed, and read (all at once) when first asked for.
    assert {"tilegpu", "llvm", "llvm-ir", "ptx"} <= set(warm.asm)
    assert warm.asm["ptx"] == expected["ptx"] and len(read) == 1
    assert warm.asm["llvm"] == expected["llvm"]
    assert read[1:] == [sorted(cache.STAGE_FILES.values())]
    assert {stage: warm.asm[stage] for stage in expected} == expected and len(read) == 2
    assert entry.exists()


def test_a_damaged_intermediate_file_is_found_when_read(cache_dir):
    first = compiled()
    first.to_ptx("sm_90a")
    expected = {stage: first.asm[stage] for stage in ("llvm", "llvm-ir")}
    (entry,) = [p for p in cache_dir.glob("*/*") if (p / "metadata.json").exists()]
    listed = json.loads((entry / "metadata.json").read_text())["files"]
    damaged = entry / "llvm.mlir"
    damaged.write_bytes(b"x" * listed["llvm.mlir"]["bytes"])  # same size, wrong checksum
    corrupt = cache.stats.corrupt
    warm = compiled()
    warm.to_ptx("sm_90a")  # the PTX and the metadata are sound: a hit
    assert cache.stats.corrupt == corrupt and entry.exists()
    # Reading the damaged stage finds it, removes the entry and compiles the text again.
    assert warm.asm["llvm-ir"] == expected["llvm-ir"]
    assert not entry.exists()
    assert warm.asm["llvm"] == expected["llvm"]
