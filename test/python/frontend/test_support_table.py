"""docs/language.md's table of `triton.language`'s names (issue 21, item 4)
is kept true: it has one row per public name of Triton 3.6's
`triton.language` (the installed Triton's when there is one, else the list
below, taken once from Triton 3.6), every public name of
`tilelang.language` is in it, names marked yes/partial/error exist in
`tilelang.language`, names marked no do not, and using an "error" or "no"
name in a kernel is a located error that names it."""

import pathlib
import re

import pytest

import tilelang
import tilelang.language as tl

DOC = pathlib.Path(__file__).resolve().parents[3] / "docs" / "language.md"
STATUSES = ("yes", "partial", "error", "no")

# dir(triton.language) of Triton 3.6.0, public names only.
TRITON_36_NAMES = """
PropagateNan TRITON_MAX_TENSOR_NUMEL abs add advance arange argmax argmin associative_scan assume
atomic_add atomic_and atomic_cas atomic_max atomic_min atomic_or atomic_xchg atomic_xor bfloat16
bitonic_merge block_type broadcast broadcast_to cast cat cdiv ceil clamp condition const constexpr
constexpr_type core cos cumprod cumsum debug_barrier device_assert device_print div_rn dot dot_scaled
dtype erf exp exp2 expand_dims extra fdiv flip float16 float32 float64 float8e4b15 float8e4b8
float8e4nv float8e5 float8e5b16 floor fma full gather histogram inline_asm_elementwise int1 int16
int32 int64 int8 interleave join load load_tensor_descriptor log log2 make_block_ptr
make_tensor_descriptor map_elementwise math max max_constancy max_contiguous maximum min minimum mul
multiple_of num_programs pair_uniform_to_normal permute philox philox_impl pi32_t pointer_type
program_id rand rand4x randint randint4x randn randn4x random range ravel reduce reduce_or reshape
rsqrt sigmoid sin slice softmax sort split sqrt sqrt_rn standard static_assert static_print
static_range store store_tensor_descriptor str_to_ty sub sum swizzle2d target_info tensor
tensor_descriptor tensor_descriptor_type topk trans tuple tuple_type uint16 uint32 uint64 uint8
uint_to_uniform_float umulhi view void where xor_sum zeros zeros_like
""".split()


# Submodules of triton.language that become its attributes only once
# something imports them (triton.compile imports `semantic`): they are not
# names of the language, and a test that compiled with Triton earlier in the
# same process must not change what this file sees.
LAZY_TRITON_SUBMODULES = {"semantic"}


def public_names(module):
    names = {n for n in dir(module) if not n.startswith("_")}
    if module.__name__ == "triton.language":
        names -= LAZY_TRITON_SUBMODULES
    return names


def triton_names():
    try:
        import triton
        import triton.language as triton_language
    except ImportError:
        return set(TRITON_36_NAMES)
    if not triton.__version__.startswith("3.6"):
        return set(TRITON_36_NAMES)
    return public_names(triton_language)


def table():
    text = DOC.read_text()
    section = text.split("## Support of `triton.language`'s names", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        m = re.match(r"\| `([\w]+)` \| (\w+) \|(.*)\|$", line)
        if m:
            assert m.group(1) not in rows, f"{m.group(1)} has two rows"
            rows[m.group(1)] = m.group(2)
    return rows


def test_the_built_in_list_is_triton_36s():
    try:
        import triton
        import triton.language as triton_language
    except ImportError:
        pytest.skip("triton is not installed")
    if not triton.__version__.startswith("3.6"):
        pytest.skip(f"triton {triton.__version__} is not 3.6")
    assert public_names(triton_language) == set(TRITON_36_NAMES)


def test_every_triton_name_has_one_row():
    rows = table()
    assert set(rows) == triton_names()
    assert set(rows.values()) <= set(STATUSES)


def test_every_public_tilelang_name_is_in_the_table():
    assert public_names(tl) <= set(table())


def test_the_statuses_match_tilelang_language():
    for name, status in table().items():
        assert hasattr(tl, name) == (status != "no"), (name, status)


@pytest.mark.parametrize("name", sorted(n for n, s in table().items() if s == "error"))
def test_error_names_are_located_errors(name, tmp_path, monkeypatch):
    source = tmp_path / f"k_{name}.py"
    source.write_text("import tilelang\nimport tilelang.language as tl\n\n\n@tilelang.jit\n"
                      f"def k(x_ptr):\n    y = tl.{name}(x_ptr)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(f"k_{name}")
    with pytest.raises(tilelang.CompilationError) as info:
        module.k.compile("*fp32")
    assert info.value.line == 7 and "not supported yet" in str(info.value), str(info.value)


@pytest.mark.parametrize("name", sorted(n for n, s in table().items() if s == "no" and n in (
    "inline_asm_elementwise", "map_elementwise", "dot_scaled", "bitonic_merge")))
def test_no_names_are_located_errors_naming_them(name, tmp_path, monkeypatch):
    source = tmp_path / f"k_{name}.py"
    source.write_text("import tilelang\nimport tilelang.language as tl\n\n\n@tilelang.jit\n"
                      f"def k(x_ptr):\n    y = tl.{name}(x_ptr)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(f"k_{name}")
    with pytest.raises(tilelang.CompilationError) as info:
        module.k.compile("*fp32")
    assert info.value.line == 7 and f"has no attribute '{name}'" in str(info.value), str(info.value)
