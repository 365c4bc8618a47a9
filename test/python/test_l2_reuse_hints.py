"""tile-l2-reuse-hints from Python (docs/lowering.md, "L2 priorities for
data read again"): a looped layer norm written as Triton's tutorial writes it
gets its L2 priorities in the PTX (x evict_last in the passes that are read
again, evict_first at its last read, y stored evict_first; w and b, which
every program reads, unhinted); a kernel that reads its input once gets none;
a user's eviction policy stays as written. The pass is on by default:
TILELANG_L2_REUSE_HINTS=0 turns it off, and its settings compile under
different cache keys, so that a kernel compiled with the hints is not found
for a process without them, nor the reverse. No GPU needed (PTX only);
test/python/gpu/test_l2_reuse_hints_gpu.py runs them."""

import re

import pytest

import tilelang
import tilelang.language as tl
from tilelang import cache


@tilelang.jit
def looped_layer_norm(X, Y, W, B, stride, N, eps, BLOCK: tl.constexpr, X_POLICY: tl.constexpr = ""):
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.0, eviction_policy=X_POLICY).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.0)
        acc += x * x
    rstd = 1 / tl.sqrt(tl.sum(acc, axis=0) / N + eps)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(Y + cols, (x - mean) * rstd * w + b, mask=mask)


@tilelang.jit
def row_softmax(X, Y, stride, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(X + row * stride + cols, mask=cols < N, other=-float("inf")).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(Y + row * stride + cols, e / tl.sum(e, axis=0), mask=cols < N)


NORM_TYPES = {"X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "stride": "i32", "N": "i32", "eps": "fp32"}


def layer_norm_ptx(**constexprs):
    looped_layer_norm.cache.clear()  # the in-memory specializations: compile (or look up) again
    compiled = looped_layer_norm.compile(NORM_TYPES, constexprs={"BLOCK": 1024, **constexprs},
                                         specialization={"X": 16, "Y": 16, "W": 16, "B": 16, "stride": 16, "N": 16},
                                         num_warps=4)
    return compiled.to_ptx("sm_90a").ptx


def accesses(ptx):
    """The global loads and stores in order, each as its instruction's
    qualifiers (e.g. 'ld.global.L1::evict_last.L2::cache_hint.v4.b32')."""
    return re.findall(r"\b((?:ld|st)\.global[.\w:]*)", ptx)


@pytest.fixture
def knob(monkeypatch, tmp_path):
    monkeypatch.setenv("TILELANG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TILELANG_ALWAYS_COMPILE", raising=False)
    monkeypatch.delenv("TILELANG_CACHE", raising=False)
    monkeypatch.delenv("TILELANG_L2_REUSE_HINTS", raising=False)  # the default: on
    return monkeypatch


LAST = "ld.global.L1::evict_last.L2::cache_hint.v4.b32"
FIRST = "ld.global.L1::evict_first.L2::cache_hint.v4.b32"
PLAIN = "ld.global.v4.b32"
STORE_FIRST = "st.global.L1::evict_first.L2::cache_hint.v4.b32"


def test_the_looped_layer_norm_keeps_x_for_its_later_passes(knob):
    ptx = layer_norm_ptx()
    # Passes 1 and 2: x evict_last; pass 3: w and b plain, x evict_first, y
    # evict_first (one vector of 8 halves per thread and access: 1024
    # columns, 4 warps).
    assert accesses(ptx) == [LAST, LAST, PLAIN, PLAIN, FIRST, STORE_FIRST]
    assert "createpolicy.fractional.L2::evict_last.b64" in ptx
    assert "createpolicy.fractional.L2::evict_first.b64" in ptx


def test_a_user_policy_stays_as_written(knob):
    # The first pass's x load evict_first as the user asked; the second pass
    # still keeps x for the third.
    ptx = layer_norm_ptx(X_POLICY="evict_first")
    assert accesses(ptx) == [FIRST, LAST, PLAIN, PLAIN, FIRST, STORE_FIRST]


def test_a_row_read_once_gets_no_priority(knob):
    row_softmax.cache.clear()
    ptx = row_softmax.compile({"X": "*fp16", "Y": "*fp16", "stride": "i32", "N": "i32"},
                              constexprs={"BLOCK": 1024}, specialization={"X": 16, "Y": 16, "stride": 16, "N": 16},
                              num_warps=4).to_ptx("sm_90a").ptx
    assert "evict" not in ptx and "cache_hint" not in ptx and "createpolicy" not in ptx


@pytest.mark.parametrize("off", ["0", " Off ", "no"])
def test_the_knob_turns_them_off_under_another_cache_key(knob, off):
    hinted = layer_norm_ptx()
    before = cache.stats.hits
    knob.setenv("TILELANG_L2_REUSE_HINTS", off)
    plain = layer_norm_ptx()
    # Not the hinted kernel's cache entry: compiled again, without hints.
    assert cache.stats.hits == before
    assert "evict" not in plain and "createpolicy" not in plain
    assert accesses(plain) == [PLAIN] * 5 + ["st.global.v4.b32"]
    knob.setenv("TILELANG_L2_REUSE_HINTS", " yes ")
    assert layer_norm_ptx() == hinted


def test_the_key_names_the_setting(knob):
    unset = cache.kernel_key("module {}", "sm_90a", 4, 3)
    knob.setenv("TILELANG_L2_REUSE_HINTS", "")
    assert cache.kernel_key("module {}", "sm_90a", 4, 3) == unset
    knob.setenv("TILELANG_L2_REUSE_HINTS", "1")
    on = cache.kernel_key("module {}", "sm_90a", 4, 3)
    knob.setenv("TILELANG_L2_REUSE_HINTS", "True")
    assert cache.kernel_key("module {}", "sm_90a", 4, 3) == on
    knob.setenv("TILELANG_L2_REUSE_HINTS", "0")
    off = cache.kernel_key("module {}", "sm_90a", 4, 3)
    knob.setenv("TILELANG_L2_REUSE_HINTS", "false")
    assert cache.kernel_key("module {}", "sm_90a", 4, 3) == off
    assert len({on, unset, off}) == 3
