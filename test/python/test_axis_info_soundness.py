"""Soundness of the axis-info analysis, checked against concrete values.

Random functions of i32 scalars and 1-D i32 tensors (ranges from 0 and
from other starts, splats, constants, signed and unsigned arithmetic,
shifts, extrema and comparisons, division and remainder by constants and
by arguments known only by their divisibility, selects on tensor and scalar
conditions, truncations and extensions, tl.assume promises about arguments
(which the sampled values then keep) and max_contiguous hints on ranges,
and scf.for loops carrying a tensor, whose body values are checked at every
iteration), and of 2-D tensors as kernels build them (ranges expanded and broadcast,
offsets, and-ed masks, f32 pointers), go through `tilelang-opt --test-print-axis-info`; the same
functions are then evaluated in Python on many argument values that keep
each argument's divisibility promise. Every fact the analysis states about
a value (contiguity, divisibility, constancy, constant) must hold for every
evaluation: vectorized loads and stores rely on them, and a fact that is
too strong gives misaligned or wrong accesses on the GPU.

Values stay far from 2^31 (wrap-around is not what this checks). The seed
is printed; TILELANG_FUZZ_SEED replays a run.
"""

import math
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

REMARK = re.compile(r":(\d+):\d+: remark: contiguity = \[([\d, ]+)\], divisibility = \[([\d, ]+)\], "
                    r"constancy = \[([\d, ]+)\](?:, constant = (-?\d+))?")


def c_div(a, b):
    """Signed division rounding toward zero (arith.divsi)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a, b):
    """The remainder of arith.remsi: the dividend's sign."""
    return a - b * c_div(a, b)


def as_unsigned(value):
    """An i32's bits read unsigned."""
    return value & 0xFFFFFFFF


def as_signed(value):
    """32 bits read signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def shift_right_unsigned(a, b):
    """arith.shrui on i32, read back as signed (large results are then
    skipped as out of range, like any value near 2^31)."""
    value = (a & 0xFFFFFFFF) >> b
    return value - (1 << 32) if value >= 1 << 31 else value


def tensor_type():
    return f"tensor<{SIZE}xi32>"


class Generator:
    """Builds one function's text and, beside it, how to evaluate each line."""

    functions, samples = FUNCTIONS, SAMPLES

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
        self.divisors = []  # arguments that are never 0: run-time divisors
        self.promises = {}  # argument -> (non-negative, multiple of)

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
        # Mostly from 0, as kernels write them; sometimes from another start.
        start = self.rng.choice([0, 0, 0, 1, 8, 48, 100])
        name = self.fresh()
        self.emit(f"{name} = tile.make_range {start} to {start + SIZE} : tensor<{SIZE}xi32>", name, "tensor",
                  lambda env, s=start: list(range(s, s + SIZE)))
        if self.rng.random() < 0.2:
            # A true promise of shorter runs than derived: the divisibility
            # at the new run starts must be re-derived.
            runs = self.rng.choice([1, 2, 4, 8])
            self.lines.append((f"tile.hint {name} {{max_contiguous = array<i64: {runs}>}} : tensor<{SIZE}xi32>",
                               None))

    def offsets(self):
        """``(start + tl.arange(0, SIZE)) % d`` (or ``// d``), as kernels
        index blocks, with a divisor known by its divisibility or a
        constant: runs survive only for starts known to be >= 0."""
        start = self.rng.choice(self.scalars)
        splat, rng_name, offs, result = self.fresh(), self.fresh(), self.fresh(), self.fresh()
        self.emit(f"{splat} = tile.splat {start} : i32 -> tensor<{SIZE}xi32>", splat, "tensor",
                  lambda env, s=start: [env[s]] * SIZE)
        self.emit(f"{rng_name} = tile.make_range 0 to {SIZE} : tensor<{SIZE}xi32>", rng_name, "tensor",
                  lambda env: list(range(SIZE)))
        self.emit(f"{offs} = arith.addi {splat}, {rng_name} : tensor<{SIZE}xi32>", offs, "tensor",
                  lambda env, a=splat, b=rng_name: [x + y for x, y in zip(env[a], env[b])])
        divisor = self.fresh()
        if self.divisors and self.rng.random() < 0.7:
            d = self.rng.choice(self.divisors)
            self.emit(f"{divisor} = tile.splat {d} : i32 -> tensor<{SIZE}xi32>", divisor, "tensor",
                      lambda env, d=d: [env[d]] * SIZE)
        else:
            value = self.rng.choice([16, 48, 32, -16])
            self.emit(f"{divisor} = arith.constant dense<{value}> : tensor<{SIZE}xi32>", divisor, "tensor",
                      lambda env, v=value: [v] * SIZE)
        op, fn = self.rng.choice([("remsi", c_rem), ("divsi", c_div), ("remsi", c_rem)])
        self.emit(f"{result} = arith.{op} {offs}, {divisor} : tensor<{SIZE}xi32>", result, "tensor",
                  lambda env, a=offs, b=divisor, f=fn: [f(x, y) for x, y in zip(env[a], env[b])])

    def promise(self, arg):
        """tl.assume about argument ``arg``: non-negative, or a multiple of
        a power of two (both kept by the sampled values)."""
        zero, cond = self.fresh(), self.fresh()
        self.lines.append((f"{zero} = arith.constant 0 : i32", zero))
        self.evals.append((zero, "scalar", lambda env: 0))
        nonneg, multiple = self.promises.get(arg, (False, 1))
        if self.rng.random() < 0.6:
            pred, bound = self.rng.choice([("sge", 0), ("sgt", -1)])
            limit = self.fresh()
            self.lines.append((f"{limit} = arith.constant {bound} : i32", limit))
            self.evals.append((limit, "scalar", lambda env, v=bound: v))
            self.lines.append((f"{cond} = arith.cmpi {pred}, {arg}, {limit} : i32", cond))
            self.evals.append((cond, "mask", lambda env, a=arg: 1))
            nonneg = True
        else:
            k = self.rng.choice([8, 32, 64, 24])
            kname, rem = self.fresh(), self.fresh()
            self.lines.append((f"{kname} = arith.constant {k} : i32", kname))
            self.evals.append((kname, "scalar", lambda env, v=k: v))
            self.lines.append((f"{rem} = arith.remsi {arg}, {kname} : i32", rem))
            self.evals.append((rem, "scalar", lambda env, a=arg, v=k: c_rem(env[a], v)))
            self.lines.append((f"{cond} = arith.cmpi eq, {rem}, {zero} : i32", cond))
            self.evals.append((cond, "mask", lambda env: 1))
            multiple = k
        self.lines.append((f"tile.assume {cond}", None))
        self.promises[arg] = (nonneg, multiple)

    def sample_args(self, rng):
        """Argument values that keep every promise made about them."""
        values = {}
        for name, divisibility in self.args:
            nonneg, multiple = self.promises.get(name, (False, 1))
            step = divisibility * multiple // math.gcd(divisibility, multiple)
            low = 0 if nonneg else -(1 << 8)
            value = rng.randrange(low, 1 << 8) * step
            while name in self.divisors and value == 0:
                value = rng.randrange(low, 1 << 8) * step
            values[name] = value
        return values

    def splat(self):
        src = self.rng.choice(self.scalars)
        name = self.fresh()
        self.emit(f"{name} = tile.splat {src} : i32 -> tensor<{SIZE}xi32>", name, "tensor",
                  lambda env, s=src: [env[s]] * SIZE)

    def binary(self):
        op = self.rng.choice(["addi", "addi", "subi", "muli", "divsi", "remsi", "divui", "remui", "andi", "ori",
                              "xori", "shli", "shrsi", "shrui", "maxsi", "minsi", "maxui", "minui"])
        kind = self.rng.choice(["scalar", "tensor", "tensor"])
        pool = self.scalars if kind == "scalar" else self.tensors
        lhs = self.rng.choice(pool)
        if op in ("divsi", "remsi", "divui", "remui") and self.divisors and self.rng.random() < 0.5:
            # A divisor known only by its divisibility (never 0).
            rhs = self.rng.choice(self.divisors)
            if kind == "tensor":
                splat = self.fresh()
                self.emit(f"{splat} = tile.splat {rhs} : i32 -> tensor<{SIZE}xi32>", splat, "tensor",
                          lambda env, d=rhs: [env[d]] * SIZE)
                rhs = splat
        elif op in ("divsi", "remsi", "divui", "remui", "shli", "shrsi", "shrui"):
            # Divisors are non-zero constants, shift amounts small ones.
            value = self.rng.choice([0, 1, 2, 4] if op.startswith("sh") else [1, 2, 3, 4, 8, 16, 5, -4, 48, 24])
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
              "xori": lambda a, b: a ^ b, "shli": lambda a, b: a << b, "shrsi": lambda a, b: a >> b,
              "shrui": shift_right_unsigned, "maxsi": max, "minsi": min,
              "divui": lambda a, b: as_signed(as_unsigned(a) // as_unsigned(b)),
              "remui": lambda a, b: as_signed(as_unsigned(a) % as_unsigned(b)),
              "maxui": lambda a, b: a if as_unsigned(a) >= as_unsigned(b) else b,
              "minui": lambda a, b: a if as_unsigned(a) <= as_unsigned(b) else b}[op]
        name = self.fresh()
        type_text = "i32" if kind == "scalar" else f"tensor<{SIZE}xi32>"
        if kind == "scalar":
            evaluate = lambda env, a=lhs, b=rhs, f=fn: f(env[a], env[b])  # noqa: E731
        else:
            evaluate = lambda env, a=lhs, b=rhs, f=fn: [f(x, y) for x, y in zip(env[a], env[b])]  # noqa: E731
        self.emit(f"{name} = arith.{op} {lhs}, {rhs} : {type_text}", name, kind, evaluate)

    def compare(self):
        pred = self.rng.choice(["slt", "sle", "sgt", "sge", "eq", "ne", "ult", "ule", "ugt", "uge"])
        lhs, rhs = self.rng.choice(self.tensors), self.rng.choice(self.tensors)
        u = as_unsigned
        fn = {"slt": lambda a, b: a < b, "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b,
              "sge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
              "ult": lambda a, b: u(a) < u(b), "ule": lambda a, b: u(a) <= u(b), "ugt": lambda a, b: u(a) > u(b),
              "uge": lambda a, b: u(a) >= u(b)}[pred]
        name = self.fresh()
        self.emit(f"{name} = arith.cmpi {pred}, {lhs}, {rhs} : tensor<{SIZE}xi32>", name, "mask",
                  lambda env, a=lhs, b=rhs, f=fn: [int(f(x, y)) for x, y in zip(env[a], env[b])])

    def narrow_and_widen(self):
        # trunci to i1, i4, i8 or i16 (two's complement wrap; i4 and i1
        # wrap inside a 64-element range), then extsi or extui back to i32.
        src = self.rng.choice(self.tensors)
        bits = self.rng.choice([1, 4, 8, 16])
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

    def loop(self):
        # scf.for over [lb, lb + step * trips) carrying a tensor: the body's
        # values must satisfy their facts at every iteration, the result
        # after the last (or the initial value, with no iterations).
        rng = self.rng
        init, other = rng.choice(self.tensors), rng.choice(self.tensors)
        lb = rng.choice(self.scalars)
        step, trips = rng.choice([1, 2, 4, 16, 64]), rng.randrange(0, 4)
        c_step, c_span, ub = self.fresh(), self.fresh(), self.fresh()
        self.emit(f"{c_step} = arith.constant {step} : i32", c_step, "scalar", lambda env, v=step: v)
        self.emit(f"{c_span} = arith.constant {step * trips} : i32", c_span, "scalar",
                  lambda env, v=step * trips: v)
        self.emit(f"{ub} = arith.addi {lb}, {c_span} : i32", ub, "scalar",
                  lambda env, a=lb, b=c_span: env[a] + env[b])
        res, iv, acc = self.fresh(), self.fresh(), self.fresh()
        ivs, moved, stepped, nxt = self.fresh(), self.fresh(), self.fresh(), self.fresh()
        tensor = f"tensor<{SIZE}xi32>"
        combine = rng.choice(["addi", "subi", "select"])
        self.lines.append((f"{res} = scf.for {iv} = {lb} to {ub} step {c_step} iter_args({acc} = {init}) -> "
                           f"({tensor}) : i32 {{", res))
        self.lines.append((f"  {ivs} = tile.splat {iv} : i32 -> {tensor}", ivs))
        self.lines.append((f"  {moved} = arith.addi {acc}, {other} : {tensor}", moved))
        self.lines.append((f"  {stepped} = arith.addi {ivs}, {other} : {tensor}", stepped))
        if combine == "select":
            cond = self.fresh()
            self.lines.append((f"  {cond} = arith.cmpi slt, {moved}, {stepped} : {tensor}", cond))
            self.lines.append((f"  {nxt} = arith.select {cond}, {moved}, {stepped} : tensor<{SIZE}xi1>, {tensor}",
                               nxt))
            body = [ivs, moved, stepped, cond, nxt]
        else:
            self.lines.append((f"  {nxt} = arith.{combine} {stepped}, {moved} : {tensor}", nxt))
            body = [ivs, moved, stepped, nxt]
        self.lines.append((f"  scf.yield {nxt} : {tensor}", None))
        self.lines.append(("}", None))

        def run(env, init=init, other=other, lb=lb, step=step, trips=trips, combine=combine, body=body):
            value, seen = list(env[init]), {name: [] for name in body}
            for k in range(trips):
                i = env[lb] + k * step
                splat = [i] * SIZE
                a = [x + y for x, y in zip(value, env[other])]
                b = [x + y for x, y in zip(splat, env[other])]
                if combine == "select":
                    c = [int(x < y) for x, y in zip(a, b)]
                    n = [x if k else y for k, x, y in zip(c, a, b)]
                    for name, v in zip(body, (splat, a, b, c, n)):
                        seen[name].append(v)
                else:
                    n = [x + y for x, y in zip(b, a)] if combine == "addi" else [x - y for x, y in zip(b, a)]
                    for name, v in zip(body, (splat, a, b, n)):
                        seen[name].append(v)
                value = n
            env.update(seen)
            return value

        # The body's values are filled in by the loop's evaluation, which
        # runs first; each is checked at every iteration ("iterations").
        self.evals.append((res, "tensor", run))
        self.tensors.append(res)
        for name in body:
            self.evals.append((name, "mask-iterations" if name == body[-2] and combine == "select"
                               else "iterations", lambda env, n=name: env[n]))

    def select(self):
        lhs, rhs = self.rng.choice(self.tensors), self.rng.choice(self.tensors)
        name = self.fresh()
        if self.rng.random() < 0.3:
            # A scalar condition picks one side for the whole tensor.
            a, b = self.rng.choice(self.scalars), self.rng.choice(self.scalars)
            cond = self.fresh()
            self.lines.append((f"{cond} = arith.cmpi slt, {a}, {b} : i32", cond))
            self.evals.append((cond, "mask", lambda env, a=a, b=b: int(env[a] < env[b])))
            self.emit(f"{name} = arith.select {cond}, {lhs}, {rhs} : {tensor_type()}", name, "tensor",
                      lambda env, c=cond, a=lhs, b=rhs: list(env[a] if env[c] else env[b]))
            return
        cond = self.rng.choice(self.masks)
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
        for index in range(2):
            divisibility = rng.choice([1, 4, 16])
            name = f"%d{index}"
            self.args.append((name, divisibility))
            self.divisors.append(name)
            arg_texts.append(f"{name}: i32 {{tile.divisibility = {divisibility} : i32}}")
        for name, _ in self.args:
            if rng.random() < 0.3:
                self.promise(name)
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
            elif choice < 0.64:
                self.loop()
            elif choice < 0.72:
                self.offsets()
            else:
                self.binary()
        return f"func.func @{self.name}({', '.join(arg_texts)}) {{", ["  return", "}"]


ROWS, COLS = 8, 16  # the 2-D functions' shape


class Generator2D(Generator):
    """Functions over [ROWS, COLS] tensors built as kernels build them: row
    and column ranges expanded and broadcast, offsets combined, masks
    compared and and-ed, pointers offset (f32: 4 bytes a step). Evaluating
    them in Python costs more: fewer functions and samples."""

    functions, samples = 60, 8

    def __init__(self, rng, name):
        super().__init__(rng, name)
        self.pools = {"row": [], "col": [], "mat": [], "mask": [], "ptr": []}

    def add(self, text, name, kind, fn):
        self.lines.append((text, name))
        self.evals.append((name, kind, fn))
        if kind in self.pools:
            self.pools[kind].append(name)

    @staticmethod
    def type_of(kind, element="i32"):
        return {"row": f"tensor<{ROWS}xi32>", "col": f"tensor<{COLS}xi32>", "mat": f"tensor<{ROWS}x{COLS}xi32>",
                "mask": f"tensor<{ROWS}x{COLS}xi1>", "ptr": f"tensor<{ROWS}x{COLS}x!tile.ptr<f32>>"}[kind]

    def vector(self, kind):
        size = ROWS if kind == "row" else COLS
        choice = self.rng.random()
        name = self.fresh()
        if choice < 0.4 or not self.pools[kind]:
            self.add(f"{name} = tile.make_range 0 to {size} : {self.type_of(kind)}", name, kind,
                     lambda env, n=size: list(range(n)))
        elif choice < 0.6:
            src = self.rng.choice(self.scalars)
            self.add(f"{name} = tile.splat {src} : i32 -> {self.type_of(kind)}", name, kind,
                     lambda env, s=src, n=size: [env[s]] * n)
        else:
            op = self.rng.choice(["addi", "subi", "muli"])
            lhs, rhs = self.rng.choice(self.pools[kind]), self.rng.choice(self.pools[kind])
            fn = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b}[op]
            self.add(f"{name} = arith.{op} {lhs}, {rhs} : {self.type_of(kind)}", name, kind,
                     lambda env, a=lhs, b=rhs, f=fn: [f(x, y) for x, y in zip(env[a], env[b])])

    def matrix(self):
        kind = self.rng.choice(["row", "col"])
        if not self.pools[kind]:
            self.vector(kind)
        src = self.rng.choice(self.pools[kind])
        expanded, wide = self.fresh(), self.fresh()
        if kind == "row":
            self.lines.append((f"{expanded} = tile.expand_dims {src} {{axis = 1 : i32}} : tensor<{ROWS}xi32> -> "
                               f"tensor<{ROWS}x1xi32>", expanded))
            self.evals.append((expanded, "narrow2d", lambda env, s=src: [[v] for v in env[s]]))
            self.add(f"{wide} = tile.broadcast {expanded} : tensor<{ROWS}x1xi32> -> {self.type_of('mat')}", wide,
                     "mat", lambda env, e=expanded: [row * COLS for row in env[e]])
        else:
            self.lines.append((f"{expanded} = tile.expand_dims {src} {{axis = 0 : i32}} : tensor<{COLS}xi32> -> "
                               f"tensor<1x{COLS}xi32>", expanded))
            self.evals.append((expanded, "narrow2d", lambda env, s=src: [list(env[s])]))
            self.add(f"{wide} = tile.broadcast {expanded} : tensor<1x{COLS}xi32> -> {self.type_of('mat')}", wide,
                     "mat", lambda env, e=expanded: [list(env[e][0]) for _ in range(ROWS)])

    def combine(self):
        op = self.rng.choice(["addi", "addi", "subi", "muli", "remsi", "divsi"])
        lhs = self.rng.choice(self.pools["mat"])
        if op in ("remsi", "divsi") and self.rng.random() < 0.4:
            rhs = self.fresh()
            self.add(f"{rhs} = tile.splat %d0 : i32 -> {self.type_of('mat')}", rhs, "mat",
                     lambda env: [[env["%d0"]] * COLS for _ in range(ROWS)])
        elif op in ("remsi", "divsi"):
            value = self.rng.choice([2, 4, 8, 16, 3])
            rhs = self.fresh()
            self.add(f"{rhs} = arith.constant dense<{value}> : {self.type_of('mat')}", rhs, "mat",
                     lambda env, v=value: [[v] * COLS for _ in range(ROWS)])
        else:
            rhs = self.rng.choice(self.pools["mat"])
        fn = {"addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
              "remsi": c_rem, "divsi": c_div}[op]
        name = self.fresh()
        self.add(f"{name} = arith.{op} {lhs}, {rhs} : {self.type_of('mat')}", name, "mat",
                 lambda env, a=lhs, b=rhs, f=fn: [[f(x, y) for x, y in zip(ra, rb)]
                                                   for ra, rb in zip(env[a], env[b])])

    def mask(self):
        name = self.fresh()
        if len(self.pools["mask"]) >= 2 and self.rng.random() < 0.4:
            a, b = self.rng.sample(self.pools["mask"], 2)
            self.add(f"{name} = arith.andi {a}, {b} : {self.type_of('mask')}", name, "mask",
                     lambda env, a=a, b=b: [[x & y for x, y in zip(ra, rb)] for ra, rb in zip(env[a], env[b])])
            return
        pred = self.rng.choice(["slt", "sge", "sle", "sgt"])
        lhs, rhs = self.rng.choice(self.pools["mat"]), self.rng.choice(self.pools["mat"])
        fn = {"slt": lambda a, b: a < b, "sge": lambda a, b: a >= b, "sle": lambda a, b: a <= b,
              "sgt": lambda a, b: a > b}[pred]
        self.add(f"{name} = arith.cmpi {pred}, {lhs}, {rhs} : {self.type_of('mat')}", name, "mask",
                 lambda env, a=lhs, b=rhs, f=fn: [[int(f(x, y)) for x, y in zip(ra, rb)]
                                                   for ra, rb in zip(env[a], env[b])])

    def select(self):
        cond = self.rng.choice(self.pools["mask"])
        lhs, rhs = self.rng.choice(self.pools["mat"]), self.rng.choice(self.pools["mat"])
        name = self.fresh()
        self.add(f"{name} = arith.select {cond}, {lhs}, {rhs} : {self.type_of('mask')}, {self.type_of('mat')}",
                 name, "mat", lambda env, c=cond, a=lhs, b=rhs: [[x if k else y for k, x, y in zip(rc, ra, rb)]
                                                                  for rc, ra, rb in zip(env[c], env[a], env[b])])

    def pointer(self):
        offsets = self.rng.choice(self.pools["mat"])
        base, name = self.fresh(), self.fresh()
        self.add(f"{base} = tile.splat %p : !tile.ptr<f32> -> {self.type_of('ptr')}", base, "ptr",
                 lambda env: [[env["%p"]] * COLS for _ in range(ROWS)])
        self.add(f"{name} = tile.addptr {base}, {offsets} : {self.type_of('ptr')}, {self.type_of('mat')}", name,
                 "ptr", lambda env, b=base, o=offsets: [[x + 4 * y for x, y in zip(rb, ro)]
                                                         for rb, ro in zip(env[b], env[o])])

    def build(self):
        rng = self.rng
        arg_texts = ["%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}"]
        self.args.append(("%p", 16))
        for index in range(2):
            divisibility = rng.choice([None, 1, 4, 16])
            name = f"%a{index}"
            self.args.append((name, divisibility or 1))
            self.scalars.append(name)
            attr = f" {{tile.divisibility = {divisibility} : i32}}" if divisibility else ""
            arg_texts.append(f"{name}: i32{attr}")
        divisibility = rng.choice([1, 4, 16])
        self.args.append(("%d0", divisibility))
        self.divisors.append("%d0")
        arg_texts.append(f"%d0: i32 {{tile.divisibility = {divisibility} : i32}}")
        for name, _ in self.args[1:]:
            if rng.random() < 0.3:
                self.promise(name)
        self.vector("row")
        self.vector("col")
        self.matrix()
        self.matrix()
        for _ in range(OPS_PER_FUNCTION):
            choice = rng.random()
            if choice < 0.2:
                self.vector(rng.choice(["row", "col"]))
            elif choice < 0.4:
                self.matrix()
            elif choice < 0.6:
                self.combine()
            elif choice < 0.75:
                self.mask()
            elif choice < 0.85 and self.pools["mask"]:
                self.select()
            else:
                self.pointer()
        return f"func.func @{self.name}({', '.join(arg_texts)}) {{", ["  return", "}"]


def holds_nd(values, contiguity, divisibility, constancy, constant, step=1):
    """holds() for a nested list of any rank, fact by fact per dimension
    (runs along one dimension, for every index of the others)."""
    def lines(array, dim):
        # Every 1-D line of `array` along `dim`.
        if dim == 0:
            if not isinstance(array[0], list):
                yield list(array)
                return
            for k in range(len(array[0])):
                yield from lines([row[k] for row in array], 0)
            return
        for sub in array:
            yield from lines(sub, dim - 1)

    rank = len(contiguity)
    for dim in range(rank):
        for line in lines(values, dim):
            problem = holds(line, contiguity[dim], 1, constancy[dim], None, step)
            if problem:
                return f"along dimension {dim}: {problem}"
            for start in range(0, len(line), contiguity[dim]):
                if line[start] % divisibility[dim] != 0:
                    return f"along dimension {dim}: element {start} = {line[start]} is not divisible by " \
                           f"{divisibility[dim]}"
    flat = values
    while flat and isinstance(flat[0], list):
        flat = [v for sub in flat for v in sub]
    if constant is not None and any(v != constant for v in flat):
        return f"not the constant {constant}"
    return None


def evaluate(gen, values):
    env = dict(values)
    for name, kind, fn in gen.evals:
        env[name] = fn(env)
    return env


def holds(values, contiguity, divisibility, constancy, constant, step=1):
    """Whether the facts hold for one concrete value (a list, or an int);
    consecutive elements of a run differ by `step`."""
    if isinstance(values, int):
        values = [values]
        contiguity = constancy = 1
    n = len(values)
    for start in range(0, n, contiguity):
        run = values[start:start + contiguity]
        if any(b - a != step for a, b in zip(run, run[1:])):
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


def flatten(value):
    while isinstance(value, list) and value and isinstance(value[0], list):
        value = [v for sub in value for v in sub]
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize("generator", [Generator, Generator2D], ids=["1d", "2d"])
def test_axis_info_facts_hold_for_concrete_values(generator, tmp_path):
    tool = find_tool("tilelang-opt")
    seed = int(os.environ.get("TILELANG_FUZZ_SEED", random.randrange(1 << 30)))
    print(f"axis-info soundness seed: {seed} (replay with TILELANG_FUZZ_SEED={seed})")
    rng = random.Random(seed)
    gens, text, line_of = [], [], {}
    for index in range(generator.functions):
        gen = generator(rng, f"f{index}")
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
            contiguity, divisibility, constancy = ([int(v) for v in match.group(g).split(",")] for g in (2, 3, 4))
            constant = int(match.group(5)) if match.group(5) is not None else None
            facts[line_of[number]] = (contiguity, divisibility, constancy, constant, number)
    assert len(facts) == len(line_of), "a value without a remark"
    failures, checked, skipped = [], 0, 0
    for gen in gens:
        for _ in range(generator.samples):
            values = gen.sample_args(rng)
            if "%p" in values:
                values["%p"] = rng.randrange(1 << 10, 1 << 12) * 16  # an address: positive
            env = evaluate(gen, values)
            if any(abs(v) >= LIMIT for name, _, _ in gen.evals for v in flatten(env[name])):
                skipped += 1
                continue  # too large: i32 wrap-around is out of scope
            for name, kind, _ in gen.evals:
                contiguity, divisibility, constancy, constant, number = facts[(gen, name)]
                if kind.startswith("mask"):
                    # Only the constancy of an i1 value is used.
                    contiguity, divisibility = [1] * len(contiguity), [1] * len(divisibility)
                step = 4 if kind == "ptr" else 1  # f32 pointers: 4 bytes a step
                # A loop body's values: one per iteration, each checked.
                instances = env[name] if kind.endswith("iterations") else [env[name]]
                for value in instances:
                    if isinstance(value, list) and value and isinstance(value[0], list):
                        problem = holds_nd(value, contiguity, divisibility, constancy, constant, step)
                    else:
                        problem = holds(value, contiguity[0], divisibility[0], constancy[0], constant, step)
                    checked += 1
                    if problem:
                        failures.append(f"line {number}: {text[number - 1].strip()}\n    with {values}: {problem}")
                        break
    # Most samples must be checked, not skipped as out of range.
    total = generator.functions * generator.samples
    assert skipped < total // 4, f"{skipped} of {total} samples were out of range"
    assert not failures, (f"{len(failures)} facts do not hold (seed {seed}); the first ones:\n" +
                          "\n".join(failures[:8]) + f"\n(functions in {source})")
