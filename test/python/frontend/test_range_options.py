"""tl.range's options (issue 21, item 3): num_stages becomes the loop's own
`tile.num_stages`, which the pipeliner reads in place of the kernel's (fewer
than 2: the loop is not pipelined); the options tilelang does not act on
warn once each, with the kernel's line."""

import re
import warnings

import pytest

import tilelang
import tilelang.language as tl
from tilelang.frontend import codegen


@tilelang.jit
def staged_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, STAGES: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=STAGES):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(tl.float16))


SIGNATURE = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32"
SPEC = {"a_ptr": 16, "b_ptr": 16, "c_ptr": 16, "stride_am": 16, "stride_bk": 16, "stride_cm": 16,
        "M": 16, "N": 16, "K": 16}


def compile_staged(kernel_stages, loop_stages):
    return staged_matmul.compile(SIGNATURE, constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32,
                                                        "STAGES": loop_stages},
                                 specialization=SPEC, num_stages=kernel_stages)


@pytest.mark.parametrize("kernel_stages, loop_stages, copies", [
    (3, None, 3),  # the kernel's num_stages
    (3, 1, 0),     # the loop's own: not pipelined
    (1, 3, 3),     # the loop pipelined although the kernel's is 1
    (3, 2, 2),
])
def test_num_stages_per_loop(kernel_stages, loop_stages, copies):
    k = compile_staged(kernel_stages, loop_stages)
    if loop_stages is None:
        assert "tile.num_stages" not in k.asm["tile"]
    else:
        assert re.search(rf"\}} \{{tile\.num_stages = {loop_stages} : i32\}}", k.asm["tile"])
    ptx = k.to_ptx("sm_80").ptx
    # One cp.async group committed per stage filled ahead (prologue and loop).
    assert ptx.count("cp.async.commit_group") == copies


@tilelang.jit
def unrolled_hint(x_ptr, n):
    acc = 0.0
    for i in tl.range(0, n, 1, 2, 4, True):  # num_stages=2, loop_unroll_factor=4, ... by position
        acc += tl.load(x_ptr + i)
    for i in tl.range(0, n, loop_unroll_factor=8, flatten=True):
        acc += tl.load(x_ptr + i)
    tl.store(x_ptr, acc)


def test_ignored_options_warn_once_each(monkeypatch):
    monkeypatch.setattr(codegen, "_warned_range_options", set())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = unrolled_hint.compile("*fp32,i32")
        unrolled_hint.compile("*fp32,i64")
    messages = sorted(str(w.message) for w in caught if "tl.range" in str(w.message))
    assert len(messages) == 3, messages
    assert any("loop_unroll_factor is accepted and ignored" in m for m in messages)
    assert any("disallow_acc_multi_buffer is accepted and ignored" in m for m in messages)
    assert any("flatten is accepted and ignored" in m for m in messages)
    assert all(m.startswith(f"{__file__}:") for m in messages)
    # Attributed to the kernel's lines, where Python's filters and -W see them.
    assert {w.filename for w in caught if "tl.range" in str(w.message)} == {__file__}
    assert "tile.num_stages = 2" in k.asm["tile"]


@tilelang.jit
def runtime_stages(x_ptr, n):
    for i in tl.range(0, n, num_stages=n):
        tl.store(x_ptr + i, 0.0)


def test_num_stages_must_be_a_constexpr():
    with pytest.raises(tilelang.CompilationError, match="tl.range's num_stages must be a constexpr"):
        runtime_stages.compile("*fp32,i32")
