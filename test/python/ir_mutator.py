"""Mutants of the lit suite's IR for the IR fuzzer (test_ir_fuzz.py, issue 20 item 6).

``corpus()`` reads every ``test/**/*.mlir``, splits ``-split-input-file``
files at ``// -----``, and pairs each piece with the passes its own first
``tilelang-opt`` RUN line applies (as a pass pipeline for
``tilelang.run_pipeline`` and as command-line flags for ``tilelang-opt``),
so that a mutant reaches the passes the piece was written for, not only the
parser and ``canonicalize``. ``mutant(pieces, rng)`` applies one to three
random edits to one piece: truncation, tokens dropped, duplicated or
swapped, numbers changed (shapes, axes, layout parameters, constants, to 0,
-1, 2^31 or huge; layouts' parameters on their own), element types and ops swapped, an SSA use replaced by
another value, an op line dropped, duplicated, moved or taken from another
file, discardable attributes (divisibility, hints, shared-memory sizes) set
to hostile values.
"""

import dataclasses
import random
import re
import shlex
from typing import List

from tilelang_testing import REPO_ROOT

TOKEN = re.compile(r"%[\w#]+|!?[\w.]+|\d+|\S")
TYPES = ["f16", "f32", "i32", "i1", "i8", "i16", "i64", "bf16", "f64", "f8E4M3FN", "f8E5M2", "index",
         "tensor<4xf32>", "!tile.ptr<f32>", "tensor<0xi32>"]
OPS = ["math.exp", "math.tan", "math.sinh", "math.atan", "math.log1p", "math.erf", "math.cbrt", "math.fpowi",
       "math.absf", "math.floor", "math.sqrt", "arith.remf", "arith.addf", "arith.divsi", "arith.ceildivsi",
       "arith.floordivsi", "arith.maxsi", "arith.minimumf", "arith.select", "arith.extf", "arith.truncf",
       "arith.fptosi", "arith.sitofp", "arith.bitcast", "arith.shli", "arith.mulsi_extended", "arith.cmpi",
       "arith.constant", "tile.splat", "tile.broadcast", "tile.expand_dims", "tile.reshape", "tile.trans",
       "tile.load", "tile.store", "tile.addptr", "tile.dot", "tile.reduce", "tile.scan", "tile.make_range",
       "tilegpu.convert_layout", "tilegpu.local_alloc", "tilegpu.local_load", "scf.for", "scf.if", "scf.yield"]
NUMBERS = [0, 1, 2, 3, 7, 16, 64, 100, 4096, 2**16, 2**20, 2**30, 2**31 - 1, 2**31, 2**32, 2**63, 10**30, -1,
           -2**31]
ATTRIBUTES = ["{tile.divisibility = 0 : i32}", "{tile.divisibility = -16 : i32}", "{tile.divisibility = 3 : i32}",
              "{tile.multiple_of = 0 : i32}", "{tile.contiguity = 2147483647 : i32}", "{tilegpu.shared = -1 : i32}",
              '{tilegpu.shared = 4294967295 : i64}', "{tile.num_warps = 0 : i32}", '{tile.divisibility = "x"}',
              "{tilegpu.num_warps = 3 : i32}", "{tile.constancy = array<i32: -1>}"]
SKIPPED_FLAGS = {"-split-input-file", "--split-input-file", "-verify-diagnostics", "--verify-diagnostics",
                 "--allow-unregistered-dialect", "--mlir-print-op-generic", "2>&1"}


@dataclasses.dataclass
class Piece:
    """One input of the suite, with the passes its test runs."""
    origin: str          # path relative to the repository, with the piece's index
    text: str
    pipeline: str        # for tilelang.run_pipeline
    flags: List[str]     # for tilelang-opt


def _passes(run_line: str):
    """(pipeline, flags) of a ``tilelang-opt %s ...`` RUN line."""
    args = shlex.split(run_line.split("|")[0].split("%s", 1)[1])
    flags, passes = [], []
    skip_value = False
    for arg in args:
        if skip_value or arg in SKIPPED_FLAGS or not arg.startswith("-") or arg.startswith("-o="):
            skip_value = False
            continue
        if arg == "-o":  # the output file, and its name after it
            skip_value = True
            continue
        name, _, value = arg.lstrip("-").partition("=")
        if name == "pass-pipeline":
            inner = re.fullmatch(r"builtin\.module\((.*)\)", value)
            passes.append(inner.group(1) if inner else value)
        else:
            passes.append(f"{name}{{{value}}}" if value else name)
        flags.append(arg)
    if not passes:
        return "canonicalize,cse", ["--canonicalize", "--cse"]
    return ",".join(passes), flags


def corpus() -> List[Piece]:
    pieces = []
    for path in sorted((REPO_ROOT / "test").rglob("*.mlir")):
        text = path.read_text()
        runs = re.findall(r"RUN:\s*(?:not )?tilelang-opt (%s.*)", text)
        pipeline, flags = _passes(runs[0]) if runs else ("canonicalize,cse", ["--canonicalize", "--cse"])
        if "test-crash" in pipeline:
            # The test-crash pass crashes on purpose (test/Tools/crash-recovery.mlir):
            # its input goes through the default passes instead.
            pipeline, flags = "canonicalize,cse", ["--canonicalize", "--cse"]
        rel = path.relative_to(REPO_ROOT)
        for index, part in enumerate(re.split(r"^// -----\s*$", text, flags=re.M)):
            if "func.func" in part or "module" in part:
                pieces.append(Piece(f"{rel}#{index}", part, pipeline, flags))
    return pieces


def _edit(text: str, others: List[str], rng: random.Random) -> str:
    tokens = [m.span() for m in TOKEN.finditer(text)]
    if not tokens:
        return text + rng.choice(others)[:200]
    # Weighted toward edits that keep the text parseable, so that most
    # mutants reach the verifiers and the passes.
    kind = rng.choices(range(14), weights=[1, 1, 1, 5, 1, 2, 2, 2, 1, 1, 1, 1, 4, 2])[0]
    start, end = tokens[rng.randrange(len(tokens))]
    lines = text.split("\n")
    if kind == 0:  # truncate anywhere
        return text[: rng.randrange(len(text))]
    if kind == 1:  # drop a token
        return text[:start] + text[end:]
    if kind == 2:  # duplicate a token
        return text[:end] + " " + text[start:end] + text[end:]
    if kind == 3:  # change a number (shapes, axes, layout parameters, constants)
        # Standalone numbers and shape dimensions, not the digits of i32,
        # f16, %0 or #blocked1.
        numbers = [m.span() for m in re.finditer(r"(?<![A-WYZa-wyz_%#.\d])\d+", text)]
        if not numbers:
            return text
        start, end = numbers[rng.randrange(len(numbers))]
        return text[:start] + str(rng.choice(NUMBERS)) + text[end:]
    if kind == 4:  # swap two tokens
        s2, e2 = tokens[rng.randrange(len(tokens))]
        if s2 < start:
            (start, end), (s2, e2) = (s2, e2), (start, end)
        if s2 < end:
            return text
        return text[:start] + text[s2:e2] + text[end:s2] + text[start:end] + text[e2:]
    if kind == 13:  # a layout's parameter (sizes per thread, warps, swizzles, instruction shapes)
        numbers = [(m.start() + d.start(), m.start() + d.end())
                   for m in re.finditer(r"#tilegpu\.\w+<[^\n]*>", text)
                   for d in re.finditer(r"(?<![A-Za-z_%#.\d])\d+", m.group(0))]
        if not numbers:
            return text
        start, end = numbers[rng.randrange(len(numbers))]
        return text[:start] + str(rng.choice(NUMBERS)) + text[end:]
    if kind == 5:  # swap an element type for another one
        types = [m.span() for m in re.finditer(r"\b(f16|f32|i32|i1|i64|bf16|i8|f64)\b", text)]
        if not types:
            return text
        start, end = types[rng.randrange(len(types))]
        return text[:start] + rng.choice(TYPES) + text[end:]
    if kind == 6:  # swap an op for another one
        ops = [m.span() for m in re.finditer(r"\b(arith|math|tile|tilegpu|scf)\.\w+", text)]
        if not ops:
            return text
        start, end = ops[rng.randrange(len(ops))]
        return text[:start] + rng.choice(OPS) + text[end:]
    if kind == 7:  # use another value: type confusion, use before definition
        uses = [m.span() for m in re.finditer(r"%[\w#]+", text)]
        if len(uses) < 2:
            return text
        start, end = uses[rng.randrange(len(uses))]
        s2, e2 = uses[rng.randrange(len(uses))]
        return text[:start] + text[s2:e2] + text[end:]
    op_lines = [i for i, line in enumerate(lines) if not line.lstrip().startswith("//") and (
        "=" in line or line.strip().startswith(("tile.", "tilegpu.", "scf.", "return")))]
    if not op_lines:
        return text
    i = rng.choice(op_lines)
    if kind == 8:  # drop an op
        del lines[i]
    elif kind == 9:  # duplicate an op (redefinitions, two terminators)
        lines.insert(i, lines[i])
    elif kind == 10:  # move an op elsewhere (use before definition, code after a terminator)
        line = lines.pop(i)
        lines.insert(rng.randrange(len(lines) + 1), line)
    elif kind == 11:  # an op of another input in its place (other dialects, layouts, names)
        donor = rng.choice(others).split("\n")
        candidates = [line for line in donor if "=" in line and "RUN" not in line and "CHECK" not in line]
        if candidates:
            lines[i] = rng.choice(candidates)
    else:  # hostile discardable attributes on an op or the function
        line = lines[i]
        if line.rstrip().endswith(("}", "{")) or "->" in line:
            return text
        cut = line.rfind(" : ")
        attr = rng.choice(ATTRIBUTES)
        lines[i] = line[:cut] + " " + attr + line[cut:] if cut > 0 else line + " " + attr
    return "\n".join(lines)


def mutant(pieces: List[Piece], rng: random.Random):
    """(piece, text): one to three random edits of one piece of the corpus;
    half of them of a piece whose test runs passes other than canonicalize
    and cse (a fourth of the corpus)."""
    special = [p for p in pieces if p.pipeline != "canonicalize,cse"]
    piece = rng.choice(special if special and rng.random() < 0.5 else pieces)
    others = [p.text for p in rng.sample(pieces, min(4, len(pieces)))]
    text = piece.text
    for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
        text = _edit(text, others, rng)
    return piece, text
