"""Randomly broken kernels: the frontend raises CompilationError (or compiles
them, when the mutation happens to be valid), never another exception."""

import importlib.util
import io
import pathlib
import random
import tokenize

import pytest

import tilelang
import tilelang.language as tl
from tilelang.ops.kernels import norm

# The files whose kernels are mutated: the test kernels, and the package's
# norm kernels (the tutorial layer norm forward lives there only, nested in
# define(jit, tl)).
SOURCES = {"kernels": (pathlib.Path(__file__).resolve().parent / "kernels.py").read_text(),
           "norm": pathlib.Path(norm.__file__).read_text()}

# Kernel name -> (its file in SOURCES, signature, constexprs); a kernel of
# "norm" is taken from the mutated module's define(tilelang.jit, tl).
TARGETS = {
    "add_kernel": ("*fp32,*fp32,*fp32,i32", {"BLOCK_SIZE": 128}),
    "softmax_kernel": ("*fp32,*fp32,i32,i32,i32,i32", {"BLOCK_SIZE": 128, "num_stages": 2}),
    "layer_norm_fwd": ("*fp16,*fp16,*fp16,*fp16,*fp32,*fp32,i32,i32,fp32", {"BLOCK_SIZE": 128}),
    "matmul_kernel": ("*fp16,*fp16,*fp16" + ",i32" * 9,
                      dict(BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=16, GROUP_SIZE_M=4,
                           ACTIVATION="leaky_relu")),
    "cumsum_kernel": ("*i32,*i32,i32", {"BLOCK": 64}),
    "argmax_kernel": ("*fp32,*i32,i32,i32", {"BLOCK": 64}),
    "histogram_kernel": ("*i32,*i32,i32", {"NUM_BINS": 16, "BLOCK": 64}),
    "control_kernel": ("*fp32,i32,i32", {"BLOCK": 16, "UNROLL": 2}),
    "unary_kernel": ("*fp32,*fp32", {"BLOCK": 16}),
}

NAMES = ["bogus", "x", "mask", "offs", "tl", "None", "pid", "acc", "BLOCK", "n", "a", "range",
         "tl.float16", "tl.int8", "tl.dot", "tl.load", "tl.sum", "tl.arange", "tl.make_block_ptr"]
NUMBERS = ["0", "1", "3", "100", "-1", "2.5", "16", "None", "(1, 2)", '"s"']
OPS = ["+", "-", "*", "/", "//", "%", "<", "==", "&", "|", ",", ")", "(", "[", ":", "@", "**"]


def _source_of(name):
    return "norm" if name in NORM_KERNELS else "kernels"


NORM_KERNELS = {"layer_norm_fwd"}


def _kernel_spans():
    """Each target's body lines (0-based, end exclusive) in its file, found
    by its `def` line: the lines after it that are blank or indented deeper
    (or close its signature)."""
    spans = {}
    for name in TARGETS:
        lines = SOURCES[_source_of(name)].splitlines()
        start = next(i for i, t in enumerate(lines) if t.lstrip().startswith(f"def {name}("))
        indent = len(lines[start]) - len(lines[start].lstrip())
        end = start + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
                                    or lines[end].lstrip().startswith(")")):
            end += 1
        spans[name] = (start + 1, end)
    return spans


SPANS = _kernel_spans()


def _mutate(rng: random.Random):
    name = rng.choice(sorted(TARGETS))
    lines = SOURCES[_source_of(name)].splitlines()
    start, end = SPANS[name]
    idx = rng.randrange(start, end)
    line = lines[idx]
    if not line.strip() or line.strip().startswith("#"):
        return None
    kind = rng.random()
    if kind < 0.1:
        indent = line[: len(line) - len(line.lstrip())]
        lines[idx] = indent + "pass"
    else:
        try:
            toks = list(tokenize.generate_tokens(io.StringIO(line.lstrip() + "\n").readline))
        except (tokenize.TokenError, IndentationError, SyntaxError):
            return None
        cands = [t for t in toks if t.type in (tokenize.NAME, tokenize.NUMBER, tokenize.OP)]
        if not cands:
            return None
        tok = rng.choice(cands)
        pool = {tokenize.NAME: NAMES, tokenize.NUMBER: NUMBERS, tokenize.OP: OPS}[tok.type]
        if rng.random() < 0.2:
            pool = NAMES + NUMBERS + OPS
        indent = len(line) - len(line.lstrip())
        col0, col1 = tok.start[1] + indent, tok.end[1] + indent
        lines[idx] = line[:col0] + rng.choice(pool) + line[col1:]
    return name, "\n".join(lines) + "\n"


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
def test_fuzz_broken_kernels(tmp_path):
    rng = random.Random(1234)
    broken = compiled = 0
    attempts = 0
    while broken < 1000 and attempts < 20000:
        attempts += 1
        mutant = _mutate(rng)
        if mutant is None:
            continue
        name, text = mutant
        if text == SOURCES[_source_of(name)]:
            continue
        try:
            compile(text, "mutant.py", "exec")
        except (SyntaxError, ValueError):
            continue  # Python itself rejects it, before tilelang sees it
        path = tmp_path / f"mutant_{attempts}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"mutant_{attempts}", path)
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except Exception:  # noqa: BLE001 - broken at module level, not our business
            continue
        sig, consts = TARGETS[name]
        if name in NORM_KERNELS:
            try:
                kernel = module.define(tilelang.jit, tl).get(name)
            except Exception:  # noqa: BLE001 - broken outside the kernel's body
                continue
        else:
            kernel = getattr(module, name, None)
        if not isinstance(kernel, tilelang.JITFunction):
            continue
        try:
            kernel.compile(sig, constexprs=consts)
            compiled += 1
        except tilelang.CompilationError as err:
            broken += 1
            assert err.line > 0 and err.file, str(err)
            assert "internal error" not in err.diagnostics[0].message, str(err)
        except Exception as exc:  # pragma: no cover - the failure we look for
            pytest.fail(f"{type(exc).__name__} escaped from compiling {name} mutated at "
                        f"{path}:\n{exc}")
    assert broken >= 1000, (broken, compiled, attempts)
