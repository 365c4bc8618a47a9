"""The flash-attention tuning space (autotune/spaces.py's ATTENTION) on the
CPU: its configs, the shared-memory estimate and early prune, and a whole
tuning of bench/kernels.py's attention_fwd_kernel over it through the
recording stand-in for the CUDA driver (fakecuda), where configs that the
estimate lets through but the compiled kernel does not fit are pruned by
the sweep and the tuning goes on."""

import re

import pytest

from fakecuda import fakecuda
from tilelang_testing import REPO_ROOT, load_module

SPACES = load_module("autotune_spaces", REPO_ROOT / "autotune" / "spaces.py")
SM90_SHARED = 232448  # bytes a block may opt into on sm_90 (227 KiB)


def labels(configs):
    return {(c["BLOCK_M"], c["BLOCK_N"], c["num_warps"], c["num_stages"]) for c in map(SPACES._meta, configs)}


def test_the_space_holds_the_tutorial_configs_and_stays_small():
    tutorial = {(128, 64, 8, 3), (128, 128, 8, 3), (64, 64, 4, 4), (128, 64, 4, 4), (128, 128, 8, 2)}
    assert tutorial <= labels(SPACES.ATTENTION)
    assert 6 <= len(SPACES.ATTENTION) <= 10 and len(labels(SPACES.ATTENTION)) == len(SPACES.ATTENTION)


@pytest.mark.parametrize("config,head_dim,element,expected", [
    # 3 stages of a 64x128 K block and a 64x128 V block, fp16: 96 KiB.
    ((128, 64, 8, 3), 128, 2, 98304),
    ((128, 128, 8, 3), 128, 2, 196608),
    ((128, 64, 8, 3), 64, 2, 49152),
    ((64, 64, 4, 4), 128, 2, 131072),
    ((128, 128, 8, 4), 128, 2, 262144),
    ((128, 128, 8, 4), 64, 2, 131072),
])
def test_shared_estimate(config, head_dim, element, expected):
    bm, bn, warps, stages = config
    entry = dict(BLOCK_M=bm, BLOCK_N=bn, num_warps=warps, num_stages=stages)
    assert SPACES.attention_shared_estimate(entry, head_dim, element) == expected


def test_prune_drops_only_what_cannot_fit():
    at_128 = SPACES.attention_configs_that_fit(SPACES.ATTENTION, 128, 2, SM90_SHARED)
    assert labels(SPACES.ATTENTION) - labels(at_128) == {(128, 128, 8, 4)}
    assert SPACES.attention_configs_that_fit(SPACES.ATTENTION, 64, 2, SM90_SHARED) == SPACES.ATTENTION
    # A device too small for any config: all are handed to the sweep, which says why each fails.
    assert SPACES.attention_configs_that_fit(SPACES.ATTENTION, 128, 2, 1024) == SPACES.ATTENTION


class Q:
    """What the prune reads of q: its shape and element size."""

    def __init__(self, head_dim, element=2):
        self.shape = (1, 8, 1000, head_dim)
        self._element = element

    def element_size(self):
        return self._element


def test_prune_reads_the_device_and_both_autotuners_arguments(monkeypatch):
    import tilelang
    from tilelang.autotune import core

    monkeypatch.setattr(core, "device_properties", lambda device=None: {"max_shared_per_block": 160 * 1024})
    configs = SPACES.configs(SPACES.ATTENTION)
    assert all(isinstance(c, tilelang.Config) for c in configs)
    # tilelang passes constexprs among the named arguments, Triton as keywords.
    by_tilelang = SPACES.prune_attention(configs, {"Q": Q(128), "HEAD_DIM": 128, "CAUSAL": True})
    by_triton = SPACES.prune_attention(configs, {"Q": Q(128)}, HEAD_DIM=128, CAUSAL=True)
    assert by_tilelang == by_triton
    # 160 KiB at HEAD_DIM 128: K/V blocks of 64 keys over 3 or 4 stages, of
    # 128 keys over 2 (128 KiB) fit; of 128 keys over 3 (192 KiB) or 4 do not.
    assert labels(by_tilelang) == {(128, 64, 8, 3), (64, 64, 4, 4), (128, 64, 4, 4), (128, 128, 8, 2),
                                   (128, 64, 8, 4)}
    # Without HEAD_DIM, from q's last extent.
    assert SPACES.prune_attention(configs, {"Q": Q(64)}) == configs


def test_work_counts_the_products_and_the_traffic():
    class T:
        def __init__(self, shape):
            self.shape = shape

        def element_size(self):
            return 2

    args = {"Q": T((2, 8, 1000, 128)), "K": T((2, 2, 1000, 128))}
    full = SPACES.attention_work(dict(args, CAUSAL=False))
    assert full == {"flops": 4.0 * 2 * 8 * 1000 * 1000 * 128, "bytes": 2.0 * 2 * 1000 * 128 * (8 + 8 + 2 + 2)}
    assert SPACES.attention_work(dict(args, CAUSAL=True))["flops"] == full["flops"] / 2


TUNE = """
import json, sys
import fakecuda
from fakecuda import Tensor
import tilelang
import tilelang.language as tl
from tilelang_testing import load_module, REPO_ROOT
spaces = load_module("autotune_spaces", REPO_ROOT / "autotune" / "spaces.py")
bench = load_module("bench_kernels", REPO_ROOT / "bench" / "kernels.py")
kernel = bench.define(tilelang.jit, tl)["attention_fwd_kernel"]
timed = []


def timer(fn, quantiles=None):
    # Nothing runs: 64x64 over 4 warps and 4 stages wins, 128x64 over 8
    # warps and 4 stages comes second.
    config = fn.config
    timed.append(str(config))
    chosen = (config.kwargs["BLOCK_M"], config.kwargs["BLOCK_N"], config.num_warps, config.num_stages)
    return {(64, 64, 4, 4): 1.0, (128, 64, 8, 4): 1.5}.get(chosen, 2.0)


tuned = bench.attention_tuner(kernel, tilelang.autotune, tilelang.heuristics, spaces.configs(spaces.ATTENTION),
                              spaces.prune_attention, spaces.ATTENTION_KEY, do_bench=timer,
                              work=spaces.attention_work)
b, h, h_kv, n, d = 2, 8, 2, 1000, 128
q = Tensor((b, h, n, d), "float16", 0x7F0000100000)
k = Tensor((b, h_kv, n, d), "float16", 0x7F0010000000)
v = Tensor((b, h_kv, n, d), "float16", 0x7F0020000000)
out = Tensor((b, h, n, d), "float16", 0x7F0030000000)
try:
    _, best = bench.attention_tuned(tuned, q, k, v, True, out=out)
except RuntimeError as exc:
    print(json.dumps({"error": str(exc), "timed": timed, "launches": fakecuda.launch_count()}))
    sys.exit(0)
report = {"best": [best.kwargs["BLOCK_M"], best.kwargs["BLOCK_N"], best.num_warps, best.num_stages],
          "timed": timed, "records": tuned.last_sweep["records"], "key": tuned.last_sweep["key"],
          "work": tuned.last_sweep.get("work"), "grid": fakecuda.last_launch()["grid"],
          "launches": fakecuda.launch_count()}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"))


@pytest.mark.parametrize("shared_optin", [SM90_SHARED, 160 * 1024])
def test_tuning_attention_survives_configs_that_do_not_fit(library, shared_optin):
    """Causal attention at HEAD_DIM 128 on a device of `shared_optin` bytes
    per block: the early prune drops what its estimate rules out, the sweep
    prunes (with the compiled figure) what the estimate let through but the
    compiled kernel does not fit, times the rest and launches the winner."""
    report = fakecuda.run_script(library, TUNE, env={"FAKE_CUDA_SHARED_OPTIN": str(shared_optin)})
    assert "error" not in report, report["error"]
    estimated = [c for c in SPACES.ATTENTION if SPACES.attention_shared_estimate(c, 128, 2) <= shared_optin]
    records = report["records"]
    assert len(records) == len(estimated) < len(SPACES.ATTENTION), records
    assert labels(estimated) == {(r["kwargs"]["BLOCK_M"], r["kwargs"]["BLOCK_N"], r["num_warps"], r["num_stages"])
                                 for r in records}
    ok = [r for r in records if r["status"] == "ok"]
    for record in records:
        if record["status"] != "ok":
            assert record["status"] == "pruned", record
            assert f"bytes of shared memory, over the device's {shared_optin}" in record["reason"], record
    assert len(report["timed"]) == len(ok) >= 1
    assert report["key"] == {"N_CTX": 1000, "H_Q": 8, "H_KV": 2, "HEAD_DIM": 128, "CAUSAL": True}
    assert report["work"]["flops"] == 4.0 * 2 * 8 * 1000 * 1000 * 128 / 2
    # The fake timer's favourite (64x64 over 4 warps and 4 stages), unless it was pruned.
    favourites = [(64, 64, 4, 4), (128, 64, 8, 4)]
    timed = {(r["kwargs"]["BLOCK_M"], r["kwargs"]["BLOCK_N"], r["num_warps"], r["num_stages"]) for r in ok}
    expected = next((f for f in favourites if f in timed), None)
    if expected is not None:
        assert tuple(report["best"]) == expected
    assert report["grid"] == [-(-1000 // report["best"][0]), 2 * 8, 1]
    assert report["launches"] == 1  # the timer launched nothing; the winner ran once


def test_tuning_attention_where_nothing_fits_says_why(library):
    """32 KiB per block: no config's estimate fits, so the prune hands them
    all to the sweep, which prunes each on its compiled kernel's shared
    memory and reports every one; nothing is timed or launched."""
    report = fakecuda.run_script(library, TUNE, env={"FAKE_CUDA_SHARED_OPTIN": str(32 * 1024)})
    assert "every config of attention_fwd_kernel was pruned or failed" in report["error"], report
    reasons = report["error"].splitlines()[1:]
    assert len(reasons) == len(SPACES.ATTENTION), reasons
    assert all(re.search(r"pruned: needs \d+ bytes of shared memory, over the device's 32768", r) for r in reasons)
    assert report["timed"] == [] and report["launches"] == 0
