"""More Triton tutorial kernels (issue 4, acceptance point 1) go through the
frontend to tile IR that libtilelang verifies: low-memory dropout (with
tl.rand), layer-norm backward (a lock taken with tl.atomic_cas) and flash
attention forward. The random numbers are also checked against a pure-Python
Philox (philox_reference.py) by interpreting the emitted IR."""

import math
import re
import struct

import kernels
import philox_reference as ref
import pytest

import tilelang
import tilelang.language as tl


def _count(ir, op):
    return len(re.findall(re.escape(op) + r"(?![\w.])", ir))


# -- dropout and tl.rand ------------------------------------------------------------


def test_seeded_dropout():
    k = kernels._seeded_dropout.compile(
        {"x_ptr": "*fp32", "output_ptr": "*fp32", "n_elements": "i32", "p": "fp32", "seed": "i32"},
        constexprs={"BLOCK_SIZE": 1024})
    ir = k.asm["tile"]
    # Philox 4x32-10: two 32x32 -> 64-bit multiplies per round.
    assert _count(ir, "arith.mului_extended") == 20
    assert "arith.mului_extended %" in ir and ": tensor<1024xi32>" in ir
    assert _count(ir, "arith.xori") == 40
    # The key schedule: the seed's low and high halves, bumped by the Weyl constants.
    assert "arith.extsi" in ir and "arith.shrui" in ir and "arith.trunci" in ir
    assert "-1640531527" in ir and "-1150833019" in ir  # 0x9E3779B9, 0xBB67AE85
    assert "-766435501" in ir and "-845247145" in ir  # 0xD2511F53, 0xCD9E8D57
    # uint -> [0, 1): x < 0 ? -x - 1 : x, then * 4.6566127342e-10.
    assert "arith.sitofp" in ir and "arith.cmpf ogt" in ir and "arith.select" in ir
    assert "0x2FFFFFFF" in k.asm["tile-src"]  # 4.6566127342e-10 as fp32
    assert "module" in k.asm["tile-opt"]


@pytest.mark.parametrize("offset_type", ["i32", "i64"])
def test_random_builtins(offset_type):
    k = kernels.random_kernel.compile(f"*i32,*fp32,*fp32,i64,{offset_type}",
                                      constexprs={"BLOCK": 256, "N_ROUNDS": 7})
    ir = k.asm["tile"]
    # randint, rand, randn and randint4x: four Philox blocks of 7 rounds.
    assert _count(ir, "arith.mului_extended") == 4 * 2 * 7
    for op in ("math.log", "math.sqrt", "math.cos", "arith.maxnumf"):  # Box-Muller
        assert op in ir, op


def test_random_64bit_offsets():
    @tilelang.jit
    def k64(out_ptr, seed, base):
        offs = base + tl.arange(0, 64).to(tl.int64)
        tl.store(out_ptr + tl.arange(0, 64), tl.rand(seed, offs))

    k = k64.compile("*fp32,i32,i64")
    ir = k.asm["tile"]
    # Philox 4x64-10 on i64 counters, key (seed, 0).
    assert _count(ir, "arith.mului_extended") == 20
    assert re.search(r"arith.mului_extended %\w+, %\w+ : tensor<64xi64>", ir)
    assert "0x1FFFFFFE" in k.asm["tile-src"]  # 1.0842020432385337e-19 as fp32


def test_umulhi_and_debug_barrier():
    @tilelang.jit
    def k(out_ptr, a, b):
        tl.store(out_ptr, tl.umulhi(a, b))
        tl.debug_barrier()

    ir = k.compile("*u32,u32,u32").asm["tile"]
    assert "arith.mului_extended" in ir and "tilegpu.barrier" in ir


def test_debug_barrier_is_always_a_bar_sync():
    # The lowering removes its own barriers where they order no memory
    # access, never the user's (tilegpu.user_barrier): the first call here
    # orders nothing (nothing before it), yet both are a bar.sync 0.
    @tilelang.jit
    def k(x_ptr, out_ptr):
        tl.debug_barrier()
        x = tl.load(x_ptr + tl.arange(0, 128))
        tl.debug_barrier()
        tl.store(out_ptr + tl.arange(0, 128), x)

    compiled = k.compile("*fp32,*fp32")
    for arch in ("sm_80", "sm_90a"):
        assert compiled.to_ptx(arch).ptx.count("bar.sync \t0;") == 2, arch
    assert _count(compiled.asm["tile"], "tilegpu.user_barrier") == 2


def test_random_errors():
    @tilelang.jit
    def bad(out_ptr, seed):
        tl.store(out_ptr, tl.rand(seed, 1.5))

    with pytest.raises(tilelang.CompilationError, match="random offset must be an integer"):
        bad.compile("*fp32,i32")



def test_random_functions_are_jit_functions_of_the_language():
    # One definition, language/random.py, written in the language: the
    # compiler inlines it and the interpreter runs it; no builtin, no emitter.
    import tilelang.language.random as random
    from tilelang.frontend.semantic import Semantic
    from tilelang.interpreter.launch import InterpreterSemantic

    for name in ("philox", "randint", "randint4x", "rand", "rand4x", "randn", "randn4x",
                 "uint_to_uniform_float", "pair_uniform_to_normal"):
        fn = getattr(tl, name)
        assert isinstance(fn, tilelang.JITFunction) and fn is getattr(random, name), name
        assert not hasattr(Semantic, name) and not hasattr(InterpreterSemantic, name), name
    assert tl.random is random
    assert "rand" in dir(tl)


def _located(kernel, signature):
    with pytest.raises(tilelang.CompilationError) as info:
        kernel.compile(signature)
    return str(info.value)


def test_random_errors_name_the_library_line_and_the_call():
    @tilelang.jit
    def float_seed(out_ptr):
        tl.store(out_ptr, tl.rand(1.5, 3))

    @tilelang.jit
    def no_rounds(out_ptr, seed):
        tl.store(out_ptr, tl.randint(seed, 3, 0))

    @tilelang.jit
    def mixed_counters(out_ptr, seed, wide):
        r = tl.arange(0, 16)
        a, b, c, d = tl.philox(seed, r, wide, 0, 0)
        tl.store(out_ptr + r, a)

    for kernel, signature, message in ((float_seed, "*fp32", "the random seed must be an integer scalar"),
                                       (no_rounds, "*i32,i32", "n_rounds must be positive"),
                                       (mixed_counters, "*u32,i32,i64",
                                        "the Philox counters must all be integers of the offset's width")):
        text = _located(kernel, signature)
        assert message in text, text
        assert "language/random.py" in text and "test_more_kernels.py" in text, text
        assert "note: in the call of" in text, text


def test_dtype_predicates_and_isinstance_are_compile_time():
    # What language/random.py needs, as Triton offers it: a helper that takes
    # a number or a tensor and branches on which it got.
    @tilelang.jit
    def as_block(x):
        if isinstance(x, int):
            return tl.full((16,), x, tl.int32)
        tl.static_assert(x.dtype.is_int() and not x.dtype.is_floating(), "an integer tensor")
        return x

    @tilelang.jit
    def k(out_ptr, v):
        r = tl.arange(0, 16)
        tl.store(out_ptr + r, as_block(7) + as_block(r + v))

    ir = k.compile("*i32,i32").asm["tile"]
    assert "dense<7> : tensor<16xi32>" in ir

    @tilelang.jit
    def bad(out_ptr, v):
        tl.store(out_ptr, as_block(v.to(tl.float32)))

    assert "static_assert failed: an integer tensor" in _located(bad, "*i32,i32")


def test_isinstance_of_constexpr_is_true_of_compile_time_values():
    # As in Triton, where constexpr arguments and literals are tl.constexpr
    # objects: isinstance(BLOCK, tl.constexpr) holds, of a tensor or a run-time
    # scalar it does not.
    @tilelang.jit
    def k(out_ptr, v, BLOCK: tl.constexpr):
        r = tl.arange(0, BLOCK)
        tl.static_assert(isinstance(BLOCK, tl.constexpr) and isinstance(3, tl.constexpr))
        tl.static_assert(isinstance(BLOCK, (float, tl.constexpr)) and isinstance(BLOCK, int))
        tl.static_assert(not isinstance(r, tl.constexpr) and not isinstance(v, (tl.constexpr, int)))
        tl.store(out_ptr + r, r + v)

    assert "tile.store" in k.compile("*i32,i32", constexprs={"BLOCK": 16}).asm["tile"]


# -- the reference ------------------------------------------------------------------


def test_philox_reference_known_answers():
    # Random123's known-answer vectors for philox4x32-10 and philox4x64-10.
    assert ref.philox_impl(0, 0, 0, 0, 0, 0) == (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    assert ref.philox_impl(*[0xFFFFFFFF] * 6) == (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)
    assert ref.philox_impl(0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344, 0xA4093822,
                           0x299F31D0) == (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)
    assert ref.philox_impl(0, 0, 0, 0, 0, 0, bits=64) == (
        0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B)
    u = ref.rand_reference(42, range(1000))
    assert all(0.0 <= x < 1.0 for x in u)
    assert abs(sum(u) / len(u) - 0.5) < 0.05
    n = ref.randn_reference(42, range(1000))
    assert abs(sum(n) / len(n)) < 0.1 and abs(sum(x * x for x in n) / len(n) - 1) < 0.15


# A tiny interpreter for the straight-line scalar IR of philox_scalar_kernel, so
# that the emitted Philox is checked against the reference without a GPU.

def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _width(ty):
    return int(ty[1:])


def _signed(v, bits):
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _interpret(src, args):
    env = dict(args)
    stores = {}
    for line in src.splitlines():
        line = re.sub(r"\s*loc\(.*\)\s*$", "", line.strip())
        m = re.match(r"(%[\w]+)(?::2)? = ([\w.]+) (.*)$", line)
        if not m:
            s = re.match(r"tile.store (%[\w#]+), (%[\w#]+)", line)
            if s:
                (base, off), val = env[s.group(1)], env[s.group(2)]
                stores[(base, off)] = val
            continue
        res, op, rest = m.groups()
        operands, _, ty = rest.rpartition(" : ")
        names = re.findall(r"%[\w#]+", operands)
        vals = [env[n] for n in names]
        if op == "arith.constant":
            text = operands.strip()
            if ty == "f32":
                env[res] = struct.unpack("<f", struct.pack("<I", int(text, 16)))[0]
            else:
                env[res] = int(text) & ((1 << _width(ty)) - 1)
            continue
        if op in ("arith.trunci", "arith.extsi", "arith.sitofp"):
            src_ty, _, dst_ty = ty.partition(" to ")
            a = vals[0]
            if op == "arith.trunci":
                env[res] = a & ((1 << _width(dst_ty)) - 1)
            elif op == "arith.extsi":
                env[res] = _signed(a, _width(src_ty)) & ((1 << _width(dst_ty)) - 1)
            else:
                env[res] = _f32(float(_signed(a, _width(src_ty))))
            continue
        if op == "tile.addptr":
            ty = ty.split(",")[0]
            base, off = vals[0] if isinstance(vals[0], tuple) else (vals[0], 0)
            env[res] = (base, off + _signed(vals[1], 32))
            continue
        if op == "arith.select":
            env[res] = vals[1] if vals[0] else vals[2]
            continue
        if ty.startswith("i"):
            bits = _width(ty)
            mask = (1 << bits) - 1
            if op == "arith.mului_extended":
                p = vals[0] * vals[1]
                env[res + "#0"], env[res + "#1"] = p & mask, p >> bits
                continue
            a, b = vals[0], vals[1] if len(vals) > 1 else None
            if op == "arith.cmpi":
                pred = operands.split(",")[0].strip()
                sa, sb = _signed(a, bits), _signed(b, bits)
                env[res] = {"slt": sa < sb, "eq": a == b, "ne": a != b, "sgt": sa > sb}[pred]
            else:
                env[res] = {"arith.xori": lambda: a ^ b, "arith.addi": lambda: (a + b) & mask,
                            "arith.subi": lambda: (a - b) & mask, "arith.shrui": lambda: a >> b,
                            "arith.andi": lambda: a & b}[op]()
            continue
        if op == "arith.select":
            env[res] = vals[1] if vals[0] else vals[2]
            continue
        a = vals[0]
        fns = {"arith.mulf": lambda: a * vals[1], "arith.maxnumf": lambda: max(a, vals[1]),
               "arith.cmpf": None, "math.log": lambda: math.log(a), "math.sqrt": lambda: math.sqrt(a),
               "math.cos": lambda: math.cos(a), "math.sin": lambda: math.sin(a)}
        env[res] = _f32(fns[op]())
    return stores


@pytest.mark.parametrize("seed,seed_type", [(0, "i32"), (12345, "i32"), (-7, "i32"),
                                            (0x123456789AB, "i64")])
@pytest.mark.parametrize("offset", [0, 1, 977, -3, 2**31 - 1])
def test_emitted_philox_matches_reference(seed, seed_type, offset):
    k = kernels.philox_scalar_kernel.compile(f"*u32,*fp32,{seed_type},i32",
                                             constexprs={"N_ROUNDS": 10})
    src = k.asm["tile-src"]
    bits = _width(seed_type)
    stores = _interpret(src, {"%out_int_ptr": "I", "%out_float_ptr": "F",
                              "%seed": seed & ((1 << bits) - 1), "%offset": offset & 0xFFFFFFFF})
    want = ref.philox_reference(seed, offset)
    assert tuple(stores[("I", i)] for i in range(4)) == want
    assert stores[("F", 0)] == ref.rand_reference(seed, [offset])[0]
    assert stores[("F", 1)] == pytest.approx(ref.randn_reference(seed, [offset])[0], rel=1e-5, abs=1e-6)


# -- layer norm backward ---------------------------------------------------------------


def test_layernorm_backward_dx_fused():
    k = kernels._layer_norm_bwd_dx_fused.compile(
        "*fp16,*fp16,*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,*i32,i32,i32",
        constexprs={"GROUP_SIZE_M": 64, "BLOCK_SIZE_N": 1024})
    ir = k.asm["tile"]
    # The spin lock: while tl.atomic_cas(Lock, 0, 1) == 1: pass
    assert re.search(r"scf.while .*\{\s*(?:.*\n)*?\s*%\w+ = tile.atomic_cas acq_rel, gpu, %\w+, %\w+, %\w+ : "
                     r"!tile.ptr<i32>", ir)
    assert "scf.condition" in ir
    # The first store does not accumulate: an scf.if that yields both partial sums.
    assert re.search(r"scf.if %\w+ -> \(tensor<1024xf32>, tensor<1024xf32>\)", ir)
    assert _count(ir, "tile.atomic_rmw xchg") == 2
    assert "tilegpu.barrier" in ir
    assert ir.index("tilegpu.barrier") < ir.rindex("tile.atomic_rmw xchg")
    assert _count(ir, "tile.reduce") == 2


def test_layernorm_backward_dwdb():
    k = kernels._layer_norm_bwd_dwdb.compile(
        "*fp32,*fp32,*fp32,*fp32,i32,i32", constexprs={"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128})
    ir = k.asm["tile"]
    assert re.search(r"scf.for .* iter_args\(.*\) -> \(tensor<32x128xf32>, tensor<32x128xf32>\)", ir)
    assert re.search(r"tile.reduce %[\w#]+ axis = 0 : tensor<32x128xf32> -> tensor<128xf32>", ir)
    assert _count(ir, "tile.store") == 2


# -- flash attention -------------------------------------------------------------------


ATTN_SIG = ",".join(["*fp16"] * 3 + ["fp32", "*fp32", "*fp16"] + ["i32"] * 19)


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("block_m,block_n,d", [(128, 64, 64), (64, 32, 128)])
def test_flash_attention_forward(causal, block_m, block_n, d):
    k = kernels._attn_fwd.compile(ATTN_SIG, constexprs=dict(
        BLOCK_M=block_m, BLOCK_DMODEL=d, BLOCK_N=block_n, IS_CAUSAL=causal))
    ir = k.asm["tile"]
    assert _count(ir, "tile.dot") == 2
    assert f"tensor<{block_m}x{d}xf16> * tensor<{d}x{block_n}xf16> -> tensor<{block_m}x{block_n}xf32>" in ir
    assert f"tensor<{block_m}x{block_n}xf16> * tensor<{block_n}x{d}xf16> -> tensor<{block_m}x{d}xf32>" in ir
    # One loop over the K/V blocks, carrying acc, l_i, m_i and the two pointer tiles.
    assert _count(ir, "scf.for") == 1
    assert re.search(rf"scf.for .* iter_args\(.*\) -> \(tensor<{block_m}x{d}xf32>, tensor<{block_m}xf32>, "
                     rf"tensor<{block_m}xf32>, tensor<{d}x{block_n}x!tile.ptr<f16>>, "
                     rf"tensor<{block_n}x{d}x!tile.ptr<f16>>\)", ir)
    assert _count(ir, "math.exp2") == 2 and "math.log2" in ir
    assert "arith.maxnumf" in ir and _count(ir, "tile.reduce") == 2
    # Causal masking with tl.where against -inf.
    src = k.asm["tile-src"]
    assert "0x7F800000" in src  # m_i starts at -inf
    assert ("0xFF800000" in src) == causal and ("arith.cmpi sge" in ir) == causal
    assert k.frontend_seconds < 1.0


def test_random_constexpr_seed_and_scalar_offsets():
    @tilelang.jit
    def k(o, SEED: tl.constexpr):
        tl.store(o, tl.rand(SEED, 5) + tl.randn(-1, 7))
        a, b, c, d = tl.randn4x(SEED, tl.arange(0, 16))
        tl.store(o + tl.arange(0, 16), a + b + c + d)

    ir = k.compile("*fp32", constexprs={"SEED": 2**63 + 5}).asm["tile"]
    assert _count(ir, "arith.mului_extended") == 3 * 20
    assert "tensor<16xi32>" in ir
