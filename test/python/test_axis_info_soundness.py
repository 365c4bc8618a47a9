"""Soundness of the axis-info analysis, checked against concrete values.

Random functions of i32 scalars and 1-D i32 tensors (ranges, splats,
constants, arithmetic, comparisons, selects, and loops over their induction
variables) go through `tilelang-opt --test-print-axis-info`; the same
functions are then evaluated in Python on many argument values that keep
each argument's divisibility promise. Every fact the analysis states about
a value (contiguity, divisibility, constancy, constant) must hold for every
evaluation: vectorized loads and stores rely on them, and a fact that is
too strong gives misaligned or wrong accesses on the GPU.

Values stay far from 2^31 (wrap-around is not what this checks). The seed
is printed; TILELANG_FUZZ_SEED replays a run.
"""

import os
import random
import re
import subprocess

import pytest
from tilelang_testing import find_tool

SIZE = 64  # tensor length
FUNCTIONS = 120
OPS_PER_FUNCTION = 14
SAMPLES = 24  # argument instantiations per function
LIMIT = 1 << 20  # values beyond this are not produced (no i32 wrap-around)

REMARK = re.compile(r":(\d+):\d+: remark: contiguity = \[(\d+)\], divisibility = \[(\d+)\], "
                    r"constancy = \[(\d+)\](?:, constant = (-?\d+))?")


def c_div(a, b):
    """Signed division rounding toward zero (arith.divsi)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a, b):
    """The remainder of arith.remsi: the dividend's sign."""
    return a - b * c_div(a, b)


class Generator:
    """Builds one function's text and, beside it, how to evaluate each line."""

    def __init__(self, rng, name):
        self.rng = rng
        self.name = name
        self.lines = []  # (text, value name or None)
        self.evals = []  # (value name, kind, fn(env) -> list or int)
        self.scalars = []
        self.tensors = []
        self.masks = []
        self.counter = 0
        self.args = []

    def fresh(self):
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text, name, kind, fn):
        self.lines.append((text, name))
        self.evals.append((name, kind, fn))
        {"scalar": self.scalars, "tensor": self.tensors, "mask": self.masks}[kind].append(name)

    def constant_scalar(self):
        value = self.rng.choice([0, 1, 2, 3, 4, 8, 16, 24, 48, 64, 96, 128, -4, -16, 7, 33])
        name = self.fresh()
        self.emit(f"{name} = arith.constant {value} : i32", name, "scalar", lambda env, v=value: v)

    def constant_tensor(self):
        value = self.rng.choice([0, 1, 2, 4, 16, 64, 3, -8])
        name = self.fresh()
        self.emit(f"{name} = arith.constant dense<{value}> : tensor<{SIZE}xi32>", name, "tensor",
                  lambda env, v=value: [v] * SIZE)

    def make_range(self):
        name = self.fresh()
        self.emit(f"{name} = tile.make_range 0 to {SIZE} : tensor<{SIZE}xi32>", name, "tensor",
                  lambda env: list(range(SIZE)))

    def splat(self):
        src = self.rng.choice(self.scalars)
        name = self.fresh()
        self.emit(f"{name} = tile.splat {src} : i32 -> tensor<{SIZE}xi32>", name, "tensor",
                  lambda env, s=src: [env[s]] * SIZE)

    def binary(self):
        op = self.rng.choice(["addi", "addi", "subi", "muli", "divsi", "remsi", "andi", "ori", "xori"])
        kind = self.rng.choice(["scalar", "tensor", "tensor"])
        pool = self.scalars if kind == "scalar" else self.tensors
        lhs = self.rng.choice(pool)
        if op in ("divsi", "remsi"):
            # Divisors are non-zero constants: the generator makes one.
            value = self.rng.choice([1, 2, 3, 4, 8, 16, 5, -4])
            divisor = self.fresh()
            if kind == "scalar":
                self.emit(f"{divisor} = arith.constant {value} : i32", divisor, "scalar", lambda env, v=value: v)
            else:
                self.emit(f"{divisor} = arith.constant dense<{value}> : tensor<{SIZE}xi32>", divisor, "tensor",
                          lambda env, v=value: [v] * SIZE)
            rhs = divisor
        else:
            rhs = self.rng.choice(pool)
        fn = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
              "divsi": c_div, "remsi": c_rem, "andi": lambda a, b: a & b, "ori": lambda a, b: a | b,
              "xori": lambda a, b: a ^ b}[op]
        name = self.fresh()
        type_text = "i32" if kind == "scalar" else f"tensor<{SIZE}xi32>"
        if kind == "scalar":
            evaluate = lambda env, a=lhs, b=rhs, f=fn: f(env[a], env[b])  # noqa: E731
        else:
            evaluate = lambda env, a=lhs, b=rhs, f=fn: [f(x, y) for x, y in zip(env[a], env[b])]  # noqa: E731
        self.emit(f"{name} = arith.{op} {lhs}, {rhs} : {type_text}", name, kind, evaluate)

    def compare(self):
        pred = self.rng.choice(["slt", "sle", "sgt", "sge", "eq", "ne"])
        lhs, rhs = self.rng.choice(self.tensors), self.rng.choice(self.tensors)
        fn = {"slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
              "sge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}[pred]
        name = self.fresh()
        self.emit(f"{name} = arith.cmpi {pred}, {lhs}, {rhs} : tensor<{SIZE}xi32>", name, "mask",
                  lambda env, a=lhs, b=rhs, f=fn: [int(f(x, y)) for x, y in zip(env[a], env[b])])

    def narrow_and_widen(self):
        # trunci to i8 or i16 (two's complement wrap), then extsi or extui
        # back to i32.
        src = self.rng.choice(self.tensors)
        bits = self.rng.choice([8, 16])
        ext = self.rng.choice(["extsi", "extui"])

        def wrap(v, bits=bits):
            v &= (1 << bits) - 1
            return v - (1 << bits) if v >= 1 << (bits - 1) else v

        narrow, wide = self.fresh(), self.fresh()
        self.lines.append((f"{narrow} = arith.trunci {src} : tensor<{SIZE}xi32> to tensor<{SIZE}xi{bits}>",
                           narrow))
        self.evals.append((narrow, "narrow", lambda env, s=src: [wrap(v) for v in env[s]]))
        if ext == "extsi":
            widen = lambda env, n=narrow: list(env[n])  # noqa: E731
        else:
            widen = lambda env, n=narrow, bits=bits: [v & ((1 << bits) - 1) for v in env[n]]  # noqa: E731
        self.emit(f"{wide} = arith.{ext} {narrow} : tensor<{SIZE}xi{bits}> to tensor<{SIZE}xi32>", wide,
                  "tensor", widen)

    def select(self):
        cond = self.rng.choice(self.masks)
        lhs, rhs = self.rng.choice(self.tensors), self.rng.choice(self.tensors)
        name = self.fresh()
        self.emit(f"{name} = arith.select {cond}, {lhs}, {rhs} : tensor<{SIZE}xi1>, tensor<{SIZE}xi32>", name,
                  "tensor", lambda env, c=cond, a=lhs, b=rhs: [x if k else y
                                                                for k, x, y in zip(env[c], env[a], env[b])])

    def build(self):
        rng = self.rng
        arg_texts = []
        for index in range(3):
            divisibility = rng.choice([None, 1, 2, 4, 8, 16, 32])
            name = f"%a{index}"
            self.args.append((name, divisibility or 1))
            self.scalars.append(name)
            attr = f" {{tile.divisibility = {divisibility} : i32}}" if divisibility else ""
            arg_texts.append(f"{name}: i32{attr}")
        self.make_range()
        self.constant_scalar()
        self.splat()
        for _ in range(OPS_PER_FUNCTION):
            choice = rng.random()
            if choice < 0.08:
                self.make_range()
            elif choice < 0.16:
                self.constant_scalar()
            elif choice < 0.22:
                self.constant_tensor()
            elif choice < 0.34:
                self.splat()
            elif choice < 0.44:
                self.compare()
            elif choice < 0.52 and self.masks:
                self.select()
            elif choice < 0.58:
                self.narrow_and_widen()
            else:
                self.binary()
        return f"func.func @{self.name}({', '.join(arg_texts)}) {{", ["  return", "}"]


def evaluate(gen, values):
    env = dict(values)
    for name, kind, fn in gen.evals:
        env[name] = fn(env)
    return env


def holds(values, contiguity, divisibility, constancy, constant):
    """Whether the facts hold for one concrete value (a list, or an int)."""
    if isinstance(values, int):
        values = [values]
        contiguity = constancy = 1
    n = len(values)
    for start in range(0, n, contiguity):
        run = values[start:start + contiguity]
        if any(b - a != 1 for a, b in zip(run, run[1:])):
            return f"elements {start}..{start + contiguity - 1} are not consecutive: {run}"
        if run[0] % divisibility != 0:
            return f"element {start} = {run[0]} is not divisible by {divisibility}"
    for start in range(0, n, constancy):
        run = values[start:start + constancy]
        if len(set(run)) != 1:
            return f"elements {start}..{start + constancy - 1} are not equal: {run}"
    if constant is not None and any(v != constant for v in values):
        return f"not the constant {constant}: {values[:8]}..."
    return None


def test_axis_info_facts_hold_for_concrete_values(tmp_path):
    tool = find_tool("tilelang-opt")
    seed = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(1 << 30)))
    print(f"axis-info soundness seed: {seed} (replay with TILELANG_FUZZ_SEED={seed})")
    rng = random.Random(seed)
    gens, text, line_of = [], [], {}
    for index in range(FUNCTIONS):
        gen = Generator(rng, f"f{index}")
        head, tail = gen.build()
        text.append(head)
        for body, name in gen.lines:
            text.append("  " + body)
            if name is not None:
                line_of[len(text)] = (gen, name)
        text.extend(tail)
        gens.append(gen)
    source = tmp_path / "functions.mlir"
    source.write_text("\n".join(text) + "\n")
    done = subprocess.run([tool, str(source), "--test-print-axis-info"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    facts = {}
    for line in done.stderr.splitlines():
        match = REMARK.search(line)
        if match and int(match.group(1)) in line_of:
            number = int(match.group(1))
            contiguity, divisibility, constancy = (int(match.group(g)) for g in (2, 3, 4))
            constant = int(match.group(5)) if match.group(5) is not None else None
            facts[line_of[number]] = (contiguity, divisibility, constancy, constant, number)
    assert len(facts) == len(line_of), "a value without a remark"
    failures, checked = [], 0
    for gen in gens:
        for _ in range(SAMPLES):
            values = {name: rng.randrange(-(1 << 8), 1 << 8) * divisibility for name, divisibility in gen.args}
            env = evaluate(gen, values)
            if any(abs(v) >= LIMIT for name, kind, _ in gen.evals
                   for v in (env[name] if isinstance(env[name], list) else [env[name]])):
                continue  # too large: i32 wrap-around is out of scope
            for name, kind, _ in gen.evals:
                contiguity, divisibility, constancy, constant, number = facts[(gen, name)]
                if kind == "mask":
                    divisibility = 1  # only the constancy of an i1 value is used
                    contiguity = 1
                problem = holds(env[name], contiguity, divisibility, constancy, constant)
                checked += 1
                if problem:
                    failures.append(f"line {number}: {text[number - 1].strip()}\n    with {values}: {problem}")
    assert checked > FUNCTIONS * SAMPLES, "too few samples were checked"
    assert not failures, (f"{len(failures)} facts do not hold (seed {seed}); the first ones:\n" +
                          "\n".join(failures[:8]) + f"\n(functions in {source})")
