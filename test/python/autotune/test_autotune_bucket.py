"""tilelang.autotune's `bucket` (tilelang.ops tunes per shape bucket): key
values mapped by a function before keying, so one sweep serves every value
of a bucket, in this process and from the store in a new one. CPU only:
real compilation, fake launches and timer (autotune_kernels.py)."""

import json
import pathlib

import pytest

import tilelang
from tilelang.autotune import core
from tilelang.ops import spaces
from tilelang_testing import load_module

K = load_module("autotune_kernels", pathlib.Path(__file__).with_name("autotune_kernels.py"))
SPACE = [tilelang.Config({"BLOCK": 64}), tilelang.Config({"BLOCK": 256})]


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(core, "device_properties", lambda device=None: dict(K.FAKE_DEVICE))
    launches = []
    monkeypatch.setattr(core.Autotuner, "_launch",
                        lambda self, grid, config, args, kwargs: launches.append(str(config)))
    return {"launches": launches, "store": tmp_path / "cache" / "autotune.json"}


def tuned(timer):
    return tilelang.autotune(configs=SPACE, key=["n"], do_bench=timer, bucket={"n": spaces.bucket_pow2})(K.row_sum)


def call(kernel, n):
    kernel[(1,)](K.FakeTensor([n]), K.FakeTensor([1]), n)


def test_one_sweep_per_bucket(env):
    timer = K.FakeTimer()
    kernel = tuned(timer)
    call(kernel, 100)
    call(kernel, 128)  # the same bucket as 100: no sweep
    assert len(timer.timed) == len(SPACE)
    call(kernel, 129)  # the next bucket
    assert len(timer.timed) == 2 * len(SPACE)
    keys = sorted(entry["key"]["n"] for entry in json.loads(env["store"].read_text())["entries"].values())
    assert keys == [128, 256]
    # A new tuner (a new process's) finds the bucket in the store.
    fresh = K.FakeTimer()
    call(tuned(fresh), 70)
    assert fresh.timed == [] and len(env["launches"]) == 4


def test_bucket_names_a_key_argument():
    with pytest.raises(ValueError, match="bucket names 'BLOCK', which is not in the key"):
        tilelang.autotune(configs=SPACE, key=["n"], bucket={"BLOCK": spaces.bucket_pow2})(K.row_sum)


@pytest.mark.parametrize("value,bucket", [(1, 16), (16, 16), (17, 32), (1000, 1024), (1024, 1024), (1025, 2048)])
def test_bucket_pow2(value, bucket):
    assert spaces.bucket_pow2(value) == bucket


# A row that fits a block (up to 16384) keeps only the whole row's block:
# the row is then read once (a narrower block reads it two or three times).
@pytest.mark.parametrize("n,blocks", [(1, [256]), (300, [512]), (1024, [1024]), (4096, [4096]), (5000, [8192]),
                                      (12288, [16384]), (16384, [16384]), (16385, [16384, 8192, 4096]),
                                      (100000, [16384, 8192, 4096])])
def test_row_blocks(n, blocks):
    assert spaces.row_blocks(n) == blocks
    kept = spaces.prune_rows("N")(spaces.configs(spaces.ROWS), {"N": n})
    assert sorted({c.kwargs["BLOCK_SIZE"] for c in kept}, reverse=True) == blocks
    # Every thread holds 1 to 32 elements of a block (more spill).
    assert all(c.num_warps * 32 <= c.kwargs["BLOCK_SIZE"] <= c.num_warps * 32 * 32 for c in kept)
    assert [c.num_warps for c in kept if c.kwargs["BLOCK_SIZE"] == 16384] in ([], [16])
    # Several warp counts to choose from where the row fits a block of 8192 or less.
    assert len({c.num_warps for c in kept}) >= 2 or blocks == [16384]


@pytest.mark.parametrize("n", [1, 33, 256, 300, 1000, 1024, 1025, 4097, 8192])
def test_norm_backward_space(n):
    """norm_bwd_fused keeps the whole row's block (n <= 8192), over 4 to 16
    elements a thread of a tile of 1, 2 or 4 rows; the first config is the
    untuned one."""
    kept = spaces.prune_norm_bwd(spaces.configs(spaces.NORM_BWD), {"N": n})
    block = max(spaces.bucket_pow2(n), 256)
    assert kept and all(c.kwargs["BLOCK_SIZE"] == block >= n for c in kept)
    for c in kept:
        elements = c.kwargs["ROWS"] * block // (32 * c.num_warps)
        assert 4 <= elements <= 16 and c.kwargs["ROWS"] in (1, 2, 4)
    assert spaces.NORM_BWD_BLOCK_CAP == 8192 and spaces.NORM_BWD_MAX_ROWS == 4


@pytest.mark.parametrize("sms", [1, 78, 132])
def test_norm_backward_programs(sms):
    """Every program of norm_bwd_fused has a tile of rows under every config
    of the space (no program writes partial sums of nothing), at most two
    per multiprocessor, at least one."""
    for rows in list(range(1, 70)) + [263, 264, 1000, 1055, 1056, 1057, 4096, 100000]:
        programs = spaces.norm_bwd_programs(rows, sms)
        assert 1 <= programs <= 2 * sms
        for entry in spaces.NORM_BWD:
            assert programs <= max(1, -(-rows // entry["ROWS"]))
        if rows >= 8 * sms:
            assert programs == 2 * sms
