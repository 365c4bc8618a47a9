"""The occupancy search's whole-program step (on unless
TILELANG_WHOLE_PROGRAM=0, docs/runtime.md "Occupancy search") without a GPU:
the stand-in driver (fakecuda/fake_cuda.c) links and reports registers, and
fakecuda/fake_ptxas, named by TILELANG_PTXAS, stands in for the ptxas binary
that compiles the PTX without its .minnctapersm as a whole program. Which
cubin is kept, what link_info and the cache entry say, when the step runs,
and what its cache key names. Each case runs in a child process (the runtime
opens the driver once)."""

import pytest

from fakecuda import fakecuda

FAKE_PTXAS = fakecuda.FAKE_PTXAS

SCRIPT = """
import json, os, warnings
import fakecuda
import tilelang
import tilelang.language as tl

PRINT = os.environ.get("PRINT") == "1"
if os.environ.get("NO_PTXAS") == "1":
    # A host where the runtime's search finds no ptxas (this machine may
    # hold a toolkit at /usr/local/cuda, which the search would find).
    tilelang._C.find_ptxas = lambda: None


@tilelang.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


@tilelang.jit
def axpy_print(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.device_print("n", n)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


kernel = axpy_print if PRINT else axpy


report = {}
# Warnings recorded: a step that could not run says why.
seen = warnings.catch_warnings(record=True).__enter__()
warnings.simplefilter("always")
compiled, arch = fakecuda.launch_and_read_link(kernel, report)
cubin = compiled._cubin[arch].decode()
report["cubin_from_ptxas"] = cubin.startswith("// fake-registers:")
report["key"] = compiled._cache_key(arch)

# Another process finds the cubin in the disk cache, with how it was linked.
again = fakecuda.launch_again(kernel, report, arch)
report["cached_cubin"] = again._cubin[arch].decode() == cubin
report["warnings"] = [str(w.message) for w in seen]
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


def run(library, tmp_path, **env):
    """The script's report, and the arguments of each fake_ptxas run."""
    log = tmp_path / "ptxas.log"
    base = {"TILELANG_PTXAS": str(FAKE_PTXAS), "FAKE_PTXAS_LOG": str(log),
            # 128 registers are all 2 blocks of 8 warps may take: the floor's
            # count is kept (8, 5 and 3 blocks spill).
            "FAKE_CUDA_REGISTERS": "128"}
    report = fakecuda.run_script(library, SCRIPT, env={**base, **env})
    runs = log.read_text().splitlines() if log.exists() else []
    given = (tmp_path / "ptxas.log.ptx").read_text() if runs else ""
    return report, runs, given


def test_the_whole_program_cubin_is_kept_where_it_keeps_as_many_blocks(library, tmp_path):
    # The layer norm of long rows on 8 warps: with the floor 128 registers,
    # without it (as a whole program) 127, which keep the same 2 blocks.
    report, runs, given = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127")
    assert report["ptx_asks"] == 2
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 5, "whole_program": 1}
    assert report["driver_links"] == 4  # 2, 8, 5, 3 blocks; then ptxas
    assert report["cubin_from_ptxas"] and report["cubin_asks"] == 0
    assert report["registers"] == 127 and report["local_bytes"] == 0
    # One ptxas run, as a whole program (no -c), for the PTX's target,
    # given the PTX without its directive.
    assert len(runs) == 1
    assert "-arch=sm_90a" in runs[0].split() and "-c" not in runs[0].split()
    assert ".entry axpy(" in given and ".minnctapersm" not in given
    # A warm process takes the cubin and its link information from the cache.
    assert report["cached_info"] == report["info"] and report["cached_cubin"]
    assert report["driver_links_after_cached"] == 4


def test_the_linked_cubin_stays_where_the_whole_program_keeps_fewer_blocks(library, tmp_path):
    # Without the directive 167 registers: 1 block of 8 warps.
    report, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="167")
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 5, "whole_program": 0}
    assert not report["cubin_from_ptxas"] and report["cubin_asks"] == 2
    assert report["registers"] == 128
    assert len(runs) == 1
    assert report["cached_info"] == report["info"]


def test_the_linked_cubin_stays_where_the_whole_program_spills(library, tmp_path):
    # "preferred,minimum" registers of 127,300: without the directive the
    # kernel may take 255, 45 short of what it needs without local memory.
    report, _, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127,300")
    assert report["info"]["whole_program"] == 0
    assert report["cubin_asks"] == 2


def test_the_step_runs_by_default_where_a_ptxas_is_found(library, tmp_path):
    report, runs, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127")
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 5, "whole_program": 1}
    assert report["cubin_from_ptxas"] and len(runs) == 1
    assert report["warnings"] == []


def test_0_turns_the_step_off_under_its_own_cache_key(library, tmp_path):
    off, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="0", FAKE_PTXAS_REGISTERS="127")
    assert off["info"] == {"min_blocks_per_sm": 2, "links": 4}
    assert runs == []  # ptxas never ran
    assert off["cubin_asks"] == 2 and not off["cubin_from_ptxas"]
    on, _, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127")
    assert on["key"] != off["key"]


def test_without_a_ptxas_the_default_skips_the_step_quietly(library, tmp_path):
    # No warning on a host without a toolkit: the cubin is the linked one,
    # under the key of the step turned off, and cached.
    cache = str(tmp_path / "cache")
    report, runs, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", NO_PTXAS="1", TILELANG_CACHE_DIR=cache)
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 4}
    assert runs == [] and not report["cubin_from_ptxas"]
    assert report["warnings"] == []
    assert report["cached_cubin"] and report["driver_links_after_cached"] == report["driver_links"]
    off, _, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="0", FAKE_PTXAS_REGISTERS="127")
    assert report["key"] == off["key"]


def test_the_cache_key_names_the_ptxas(library, tmp_path):
    # Another toolkit's ptxas may compile the same PTX to another cubin: a
    # cache shared by hosts with different toolkits keeps their cubins apart
    # (another path, or the same path rewritten by an upgrade).
    other = tmp_path / "other" / "ptxas"
    other.parent.mkdir()
    other.write_bytes(FAKE_PTXAS.read_bytes())
    other.chmod(0o755)
    first, _, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127")
    moved, _, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", TILELANG_PTXAS=str(other))
    other.write_bytes(other.read_bytes() + b"\n# upgraded\n")
    upgraded, _, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", TILELANG_PTXAS=str(other))
    assert len({first["key"], moved["key"], upgraded["key"]}) == 3
    assert first["cubin_from_ptxas"] and moved["cubin_from_ptxas"] and upgraded["cubin_from_ptxas"]


GIVEN_PTXAS = """
import json
import os
import fakecuda
import tilelang
import tilelang.language as tl
from tilelang.native import extension


@tilelang.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * alpha, mask=m)


compiled = axpy.compile("*fp32,*fp32,i32,fp32", constexprs={"BLOCK": 2048}, num_warps=8).to_ptx("sm_90a")
_, info = extension().link_kernel(compiled.ptx, compiled.name, True, compiled.shared_bytes, whole_program=True,
                                  ptxas=os.environ["GIVEN_PTXAS"])
print(json.dumps({"info": info}))
"""


def test_the_step_runs_the_ptxas_it_is_given(library, tmp_path):
    # The cache key names a ptxas; link_kernel runs that one, not the one a
    # second search (TILELANG_PTXAS here) would find.
    given = tmp_path / "given-ptxas"
    given.write_text(f"#!/bin/sh\nFAKE_PTXAS_REGISTERS=127 exec {FAKE_PTXAS} \"$@\"\n")
    given.chmod(0o755)
    report = fakecuda.run_script(library, GIVEN_PTXAS, env={
        "TILELANG_PTXAS": str(FAKE_PTXAS), "FAKE_PTXAS_REGISTERS": "167", "FAKE_CUDA_REGISTERS": "128",
        "GIVEN_PTXAS": str(given)})
    # 127 registers (the given one's) keep the floor's 2 blocks; 167 (the
    # other's) would not.
    assert report["info"]["whole_program"] == 1, report


@pytest.mark.parametrize("warps", ["4", "16"])
def test_blocks_of_other_than_8_warps_keep_their_floor(library, tmp_path, warps):
    # Measured on the H200, the exchange lost on blocks of 2, 4 and 16 warps:
    # ptxas is not run for them.
    report, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127", WARPS=warps)
    assert report["info"]["whole_program"] == 0
    assert runs == []
    assert not report["cubin_from_ptxas"]


def test_more_than_3_resident_blocks_keep_their_floor(library, tmp_path):
    # 64 registers keep 4 blocks of 8 warps (the search keeps the floor of
    # 2 as written: 8, 6 and 5 blocks spill).
    report, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_CUDA_REGISTERS="64",
                          FAKE_PTXAS_REGISTERS="63")
    assert report["info"]["whole_program"] == 0
    assert runs == []


def test_a_kernel_that_links_something_is_not_compiled_as_a_whole_program(library, tmp_path):
    # A device print declares vprintf, which the PTX leaves to be linked.
    report, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127", PRINT="1")
    assert report["info"]["whole_program"] == 0
    assert runs == []


@pytest.mark.parametrize("env", [{"FAKE_PTXAS_FAIL": "1"}, {"TILELANG_PTXAS": "/nonexistent/ptxas"}])
def test_a_failing_or_missing_ptxas_keeps_the_linked_cubin(library, tmp_path, env):
    report, _, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127", **env)
    assert report["info"]["whole_program"] == 0
    assert report["cubin_asks"] == 2 and not report["cubin_from_ptxas"]
    assert report["registers"] == 128


def test_a_hung_ptxas_is_stopped_and_the_linked_cubin_kept(library, tmp_path):
    # A ptxas that never finishes must not hang the launch that links: past
    # TILELANG_PTXAS_TIMEOUT it is killed, the linked cubin stays, and the
    # warning says why.
    import time

    start = time.monotonic()
    report, _, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127",
                       FAKE_PTXAS_HANG="1", TILELANG_PTXAS_TIMEOUT="1")
    assert time.monotonic() - start < 60
    assert report["info"]["whole_program"] == 0 and not report["cubin_from_ptxas"]
    assert report["registers"] == 128
    assert "did not finish within 1 s" in report["warnings"][0]


@pytest.mark.parametrize("timeout", ["abc", "-3", "0", "1.5", "5s"])
def test_a_malformed_time_limit_is_named_not_read_as_the_default(library, tmp_path, timeout):
    # TILELANG_PTXAS_TIMEOUT=abc (or 0, -3...) was read as the 60 s default
    # unseen: now ptxas does not run, the warning names the variable and
    # its value, and the linked cubin is not cached (a mended value tries
    # the step again).
    report, runs, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", TILELANG_PTXAS_TIMEOUT=timeout)
    assert report["info"]["whole_program"] == 0 and not report["cubin_from_ptxas"]
    assert runs == []
    # (The script's second launch, not served by the cache, warns again.)
    assert report["warnings"] and all(
        f"TILELANG_PTXAS_TIMEOUT='{timeout}' is not a whole number of seconds above 0" in w
        and "that cubin is not cached" in w for w in report["warnings"])


def test_a_well_formed_time_limit_lets_the_step_run(library, tmp_path):
    report, runs, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", TILELANG_PTXAS_TIMEOUT=" 30 ")
    assert report["info"]["whole_program"] == 1 and report["cubin_from_ptxas"]
    assert len(runs) == 1 and report["warnings"] == []


def test_the_step_follows_a_floor_linked_without_a_search(library, tmp_path):
    # Shared memory for 2 blocks only (2 KB an SM, 1 KB reserved a block):
    # the floor is all an SM holds, so the PTX is linked once as written;
    # the step still applies.
    report, runs, _ = run(library, tmp_path, TILELANG_WHOLE_PROGRAM="1", FAKE_PTXAS_REGISTERS="127",
                          FAKE_CUDA_SHARED_PER_SM="2048")
    assert report["info"] == {"min_blocks_per_sm": 2, "links": 2, "whole_program": 1}
    assert report["driver_links"] == 1 and len(runs) == 1
    assert report["cubin_from_ptxas"] and report["registers"] == 127


def test_a_cubin_linked_while_ptxas_could_not_finish_is_not_cached(library, tmp_path):
    # A ptxas stopped by the time limit may finish another time: the linked
    # cubin it leaves is not cached under that ptxas's key, or a later
    # process with the same ptxas would find it and never try the step.
    cache = str(tmp_path / "cache")
    (tmp_path / "hung").mkdir()
    (tmp_path / "again").mkdir()
    hung, _, _ = run(library, tmp_path / "hung", FAKE_PTXAS_REGISTERS="127", TILELANG_CACHE_DIR=cache,
                     FAKE_PTXAS_HANG="1", TILELANG_PTXAS_TIMEOUT="1")
    assert hung["info"]["whole_program"] == 0 and not hung["cubin_from_ptxas"]
    assert "that cubin is not cached" in hung["warnings"][0]
    again, runs, _ = run(library, tmp_path / "again", FAKE_PTXAS_REGISTERS="127", TILELANG_CACHE_DIR=cache)
    assert again["key"] == hung["key"]
    assert again["info"]["whole_program"] == 1 and again["cubin_from_ptxas"]
    assert again["warnings"] == [] and len(runs) == 1


def test_a_ptxas_that_refuses_the_ptx_is_asked_once_per_cache(library, tmp_path):
    # A ptxas that ran and refused the PTX (a toolkit older than the PTX's
    # .version, say) refuses it again: the linked cubin is that ptxas's
    # answer, cached under its key, so later processes neither rerun the
    # search and ptxas nor warn again. Another ptxas has another key.
    cache = str(tmp_path / "cache")
    for name in ("refused", "later", "other"):
        (tmp_path / name).mkdir()
    refused, runs, _ = run(library, tmp_path / "refused", FAKE_PTXAS_REGISTERS="127", TILELANG_CACHE_DIR=cache,
                           FAKE_PTXAS_FAIL="1")
    assert refused["info"]["whole_program"] == 0 and not refused["cubin_from_ptxas"]
    assert len(runs) == 1 and "the whole-program step could not run" in refused["warnings"][0]
    assert "not cached" not in refused["warnings"][0]
    later, runs, _ = run(library, tmp_path / "later", FAKE_PTXAS_REGISTERS="127", TILELANG_CACHE_DIR=cache,
                         FAKE_PTXAS_FAIL="1")
    assert later["key"] == refused["key"] and runs == [] and later["warnings"] == []
    assert later["info"] == refused["info"] and not later["cubin_from_ptxas"]
    other_ptxas = tmp_path / "toolkit" / "ptxas"
    other_ptxas.parent.mkdir()
    other_ptxas.write_bytes(FAKE_PTXAS.read_bytes())
    other_ptxas.chmod(0o755)
    other, runs, _ = run(library, tmp_path / "other", FAKE_PTXAS_REGISTERS="127", TILELANG_CACHE_DIR=cache,
                         TILELANG_PTXAS=str(other_ptxas))
    assert other["key"] != refused["key"] and len(runs) == 1 and other["cubin_from_ptxas"]


def test_a_ptxas_that_cannot_start_leaves_the_cubin_uncached(library, tmp_path):
    # TILELANG_PTXAS naming no binary: warned of, and not cached (the path
    # may hold a ptxas later; the key names it as missing meanwhile).
    report, _, _ = run(library, tmp_path, FAKE_PTXAS_REGISTERS="127", TILELANG_PTXAS="/nonexistent/ptxas")
    assert report["info"]["whole_program"] == 0 and not report["cubin_from_ptxas"]
    assert "that cubin is not cached" in report["warnings"][0]
    assert report["driver_links_after_cached"] > report["driver_links"]  # the second JIT object relinked


def test_find_ptxas_follows_the_runtimes_order(tmp_path, monkeypatch):
    # tilelang._C.find_ptxas is the runtime's own search (Ptxas.h), which the
    # GPU test asks before it expects the step: TILELANG_PTXAS as given, then
    # CUDA_HOME/bin, then PATH.
    from tilelang import _C

    home = tmp_path / "cuda"
    (home / "bin").mkdir(parents=True)
    ptxas = home / "bin" / "ptxas"
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    monkeypatch.setenv("TILELANG_PTXAS", str(FAKE_PTXAS))
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert _C.find_ptxas() == str(FAKE_PTXAS)
    monkeypatch.delenv("TILELANG_PTXAS")
    assert _C.find_ptxas() == str(ptxas)
    ptxas.chmod(0o644)  # not executable: passed over
    assert _C.find_ptxas() != str(ptxas)
