"""Cache modifiers and eviction policies on the GPU (Triton's tl.load /
tl.store arguments): a kernel that loads and stores with each hint computes
what it computes without one (a hint changes where lines are kept, never
what is read or written), masked and unmasked, over a length that is not a
multiple of the block, leaving the masked-off tail untouched; and
evict_first / evict_last reach L2 as Triton's do (an L2 cache policy made
by createpolicy in the PTX, which the driver's JIT accepts and runs).
Skipped without a GPU."""

import pytest

import tilelang
import tilelang.language as tl

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


@tilelang.jit
def scale_add(x_ptr, y_ptr, out_ptr, n, LOAD_EVICT: tl.constexpr, STORE_EVICT: tl.constexpr,
              LOAD_CACHE: tl.constexpr, STORE_CACHE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy=LOAD_EVICT, cache_modifier=LOAD_CACHE)
    # Unmasked: y is padded to whole blocks.
    y = tl.load(y_ptr + offs, eviction_policy=LOAD_EVICT, cache_modifier=LOAD_CACHE)
    tl.store(out_ptr + offs, 2.0 * x + y, mask=mask, eviction_policy=STORE_EVICT, cache_modifier=STORE_CACHE)


# (load eviction, store eviction, load cache modifier, store cache modifier):
# PTX takes an eviction priority or a cache modifier on one access, not both.
HINTS = [
    ("evict_last", "evict_first", "", ""),
    ("evict_first", "evict_last", "", ""),
    ("evict_normal", "evict_normal", "", ""),
    ("", "", ".cg", ".cs"),
    ("", "", ".ca", ".wt"),
    ("", "", ".cs", ".cg"),
]


@pytest.mark.parametrize("hints", HINTS, ids=lambda h: "/".join(x or "-" for x in h))
@pytest.mark.parametrize("n", [1, 3000, 4 * 1024 + 7])
def test_hints_keep_the_results(hints, n):
    load_evict, store_evict, load_cache, store_cache = hints
    block = 1024
    padded = -(-n // block) * block
    x = torch.randn(n, device="cuda")
    y = torch.randn(padded, device="cuda")
    out = torch.full((padded,), float("nan"), device="cuda")
    compiled = scale_add[(padded // block,)](x, y, out, n, LOAD_EVICT=load_evict, STORE_EVICT=store_evict,
                                             LOAD_CACHE=load_cache, STORE_CACHE=store_cache, BLOCK=block)
    ref = 2.0 * x.double() + y[:n].double()
    torch.testing.assert_close(out[:n].double(), ref, rtol=1e-6, atol=1e-6)
    assert torch.isnan(out[n:]).all(), "the masked-off tail was written"
    ptx = compiled.asm["ptx"]
    for policy in {load_evict, store_evict} & {"evict_first", "evict_last"}:
        assert f"createpolicy.fractional.L2::{policy}.b64" in ptx, policy
    if not {load_evict, store_evict} & {"evict_first", "evict_last"}:
        assert "cache_hint" not in ptx
