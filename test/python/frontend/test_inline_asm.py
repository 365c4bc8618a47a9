"""tl.inline_asm_elementwise: the tile.elementwise_inline_asm it emits
(arguments broadcast to one shape, one result per dtype, a tuple for a
sequence of dtypes), the PTX it becomes (the assembly once per group of
`pack` elements, narrow elements sharing 32-bit registers), and its
misuse as located errors. test/python/compat/inline_asm.py runs it on a
GPU under tilelang and Triton."""

import pytest

import tilelang
import tilelang.language as tl


@tilelang.jit
def shift_and_split(x_ptr, y_ptr, lo_ptr, hi_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y)
    lo, hi = tl.inline_asm_elementwise("mov.b32 {$0, $1}, $2;", "=h,=h,r", [x], dtype=(tl.int16, tl.int16),
                                       is_pure=True, pack=1)
    tl.store(lo_ptr + offs, lo)
    tl.store(hi_ptr + offs, hi)


@tilelang.jit
def unpack_bytes(x_ptr, y_ptr, scale, BLOCK: tl.constexpr, PURE: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.inline_asm_elementwise(
        "bfe.u32 $0, $4, 0, 8;\n\tbfe.u32 $1, $4, 8, 8;\n\tbfe.u32 $2, $4, 16, 8;\n\tbfe.u32 $3, $4, 24, 8;",
        "=r,=r,=r,=r,r", [x], dtype=tl.int32, is_pure=PURE, pack=4)
    tl.store(y_ptr + offs, y.to(tl.float32) * scale)


def test_ir_broadcasts_and_returns_one_value_per_dtype():
    ir = shift_and_split.compile("*i32,*i32,*i16,*i16", constexprs={"BLOCK": 256}).asm["tile"]
    assert ('tile.elementwise_inline_asm "shl.b32 $0, $1, 3;" {constraints = "=r,r", pack = 1 : i32, pure} '
            in ir)
    assert ":2 = tile.elementwise_inline_asm" in ir and "-> tensor<256xi16>, tensor<256xi16>" in ir


def test_ptx_runs_the_assembly_per_element():
    k = shift_and_split.compile("*i32,*i32,*i16,*i16", constexprs={"BLOCK": 256}, num_warps=4)
    k.to_ptx("sm_90a")
    ptx = k.asm["ptx"]
    # 256 elements over 128 threads: two per thread, one run each.
    assert ptx.count("shl.b32") == 2 and ptx.count("mov.b32 {") == 2


def test_pack_groups_narrow_elements_in_one_register():
    k = unpack_bytes.compile("*u8,*fp32,fp32", constexprs={"BLOCK": 1024, "PURE": True}, num_warps=4)
    k.to_ptx("sm_80")
    ptx = k.asm["ptx"]
    # 8 bytes per thread: two runs of 4, each taking one 32-bit register.
    assert ptx.count("bfe.u32") == 8
    assert "elementwise_inline_asm" not in k.asm["llvm-ir"]


@tilelang.jit
def masked_tanh(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("divisible", [True, False], ids=["n%16==0", "any-n"])
def test_assembly_takes_its_operands_layout_under_any_mask(divisible):
    # With a length of unknown divisibility the masked load and store move
    # one element per access: coalescing gives the load a narrower layout,
    # which the assembly's operand and result must follow together (the
    # op's verifier refuses operands and results of different layouts).
    k = masked_tanh.compile("*fp32,*fp32,i32", constexprs={"BLOCK": 1024}, num_warps=4,
                            specialization={"x_ptr": 16, "y_ptr": 16, **({"n": 16} if divisible else {})})
    ptx = k.to_ptx("sm_90a").ptx
    assert ptx.count("tanh.approx.f32") == 8


def test_impure_assembly_is_kept_when_its_result_is_unused():
    @tilelang.jit
    def unused(x_ptr, PURE: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, 128))
        tl.inline_asm_elementwise("add.s32 $0, $1, 1;", "=r,r", [x], dtype=tl.int32, is_pure=PURE, pack=1)

    def ptx(pure):
        k = unused.compile("*i32", constexprs={"PURE": pure})
        k.to_ptx("sm_90a")
        return k.asm["ptx"]

    assert "add.s32" not in ptx(True)
    assert ptx(False).count("add.s32") == 1


@tilelang.jit
def misuse(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 128))
    if CASE == "constraints":
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    elif CASE == "pack":
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=True, pack=3)
    elif CASE == "bool":
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int1, is_pure=True, pack=1)
    elif CASE == "asm":
        tl.inline_asm_elementwise(x, "=r,r", [x], dtype=tl.int32, is_pure=True, pack=1)
    elif CASE == "runtime_pure":
        tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=tl.int32, is_pure=x > 0, pack=1)


@pytest.mark.parametrize("case, message", [
    ("constraints", "constraints list 3 registers, but the operands and results take 2 per run"),
    ("pack", "pack must be a power of 2, got 3"),
    ("bool", "takes integer and floating-point values, not int1"),
    ("asm", "asm must be a constexpr string"),
    ("runtime_pure", "is_pure must be a constexpr"),
])
def test_misuse_is_a_located_error(case, message):
    with pytest.raises(tilelang.CompilationError) as info:
        misuse.compile("*i32", constexprs={"CASE": case})
    assert message in str(info.value)
    assert info.value.file.endswith("test_inline_asm.py") and info.value.line > misuse.fn.__code__.co_firstlineno
