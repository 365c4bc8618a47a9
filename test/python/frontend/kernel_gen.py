"""Random kernels for the frontend fuzzer (test_fuzz_gen.py, issue 20 item 6).

``generate(seed, index)`` builds one kernel's source, deterministically from
the pair, in one of two families:

- ``scalar``: programs on 32-bit scalars (all i32 or all u32) with run-time
  ``if``/``else`` merges (branches that assign the same object included),
  loops over run-time and unsigned bounds, conditional expressions whose
  sides load, divide or run atomics under a guard, stores chosen by a
  conditional expression, ``tl.where``/``maximum``/``minimum``, shifts and C
  division. Each comes with a Python model of its meaning: the memory
  (``out`` and the atomic counters) after programs 0..2 ran in order, which
  the test compares with tile_machine.Machine running the compiled tile IR.
  The model follows the language's rules (docs/language.md): 32-bit
  wrap-around, C division and remainder, arithmetic shifts for signed
  types, unsigned comparisons for u32, only the chosen side of ``a if c
  else b`` runs.
- ``tensor``: block kernels (1-D and 2-D, several element types, ``num_warps``
  1-8, blocks from 1 to 2^13 elements) with loops over u32/u64/i64 bounds,
  merges, reductions, scans, atomics, products and deep expressions, into
  which one misuse may be planted: those of the issue (a pointer broadcast to
  its value's or mask's shape, a run-time value where a constexpr is needed,
  a tensor as ``tl.maximum``'s third argument, an effect under a tensor
  condition, a block over the 2^20-element cap or not a power of two, a
  constexpr tower, ``min()``) and others (products under 16, missing axes,
  reshapes to another size, types changed by a loop or a branch, tensor
  conditions of ``if``/``while``, undefined names). A kernel with a misuse
  must be refused with a located error; one without must compile to PTX.

The generator only emits programs whose model it knows: every operator has
at least one run-time operand (so no constexpr arithmetic with Python's
floor division), literals are small and non-negative, divisors and shift
amounts are masked into range, loads and atomics stay inside the buffers
the test provides unless a guard keeps them out.
"""

import dataclasses
import random
from typing import Dict, List, Optional, Tuple

MASK = (1 << 32) - 1
SRC_WORDS = 8        # src[0..7] exist; a load elsewhere is a fault
COUNTERS = 4         # cnt[0..3], zero at the start
PROGRAMS = 3         # programs 0, 1, 2 run one after another
OUT_STRIDE = 32      # program p stores to out[p * OUT_STRIDE + k]
CAP = 1 << 20        # the language's tensor size limit (Triton's)
ARGS = ("a", "b", "n", "pid")  # the scalar family's run-time values: never a Python number


@dataclasses.dataclass
class Case:
    """One generated kernel and what it must do."""
    family: str
    source: str                    # a module defining ``kernel``
    signature: str
    constexprs: Dict[str, object]
    num_warps: int
    arch: str
    expect: str                    # "valid", "error" or "any"
    why: str = ""                  # for "error": the planted misuse
    # scalar family: the run-time arguments (after ``out, src, cnt``) and the
    # memory the model expects: {(buffer, offset): value}.
    args: Optional[List[int]] = None
    src: Optional[List[int]] = None
    memory: Optional[Dict[Tuple[str, int], int]] = None


def generate(seed: int, index: int) -> Case:
    rng = random.Random(f"tilelang-kernel-gen:{seed}:{index}")
    if rng.random() < 0.5:
        return _Scalar(rng).case()
    return _tensor_case(rng)


# -- the scalar family: source and model ------------------------------------------------------


def _s32(v):
    v &= MASK
    return v - (1 << 32) if v >> 31 else v


class _Model:
    """Evaluates the generator's expression trees with the language's
    semantics for one 32-bit type."""

    def __init__(self, signed, memory, src):
        self.signed = signed
        self.memory = memory
        self.src = src

    def num(self, v):
        """The order of a bit pattern under the type's comparisons."""
        return _s32(v) if self.signed else v & MASK

    def div(self, a, b, rem):
        if self.signed:
            a, b = _s32(a), _s32(b)
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return (a - q * b if rem else q) & MASK
        return (a % b if rem else a // b) & MASK

    def eval(self, node, env):
        kind = node[0]
        if kind == "lit":
            return node[1] & MASK
        if kind == "var":
            return env[node[1]]
        if kind == "un":
            a = self.eval(node[2], env)
            return (-a if node[1] == "-" else ~a) & MASK
        if kind == "bin":
            op, a, b = node[1], self.eval(node[2], env), self.eval(node[3], env)
            if op in ("//", "%"):
                return self.div(a, b, op == "%")
            if op == ">>":
                return (self.num(a) >> b) & MASK
            if op == "<<":
                return (a << b) & MASK
            return {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op] & MASK
        if kind == "cmp":
            a, b = self.num(self.eval(node[2], env)), self.num(self.eval(node[3], env))
            return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[node[1]]
        if kind == "bool":
            a, b = self.eval(node[2], env), self.eval(node[3], env)
            return (a and b) if node[1] == "and" else (a or b)
        if kind == "minmax":
            a, b = self.eval(node[2], env), self.eval(node[3], env)
            pick = max if node[1] == "maximum" else min
            return pick(a, b, key=self.num)
        if kind == "where":  # tl.where: both sides are pure
            c, a, b = (self.eval(n, env) for n in node[1:])
            return a if c else b
        if kind == "ifexp":  # only the chosen side runs
            return self.eval(node[2], env) if self.eval(node[1], env) else self.eval(node[3], env)
        if kind == "load":
            k = self.eval(node[1], env)
            assert k < SRC_WORDS, "the model loads outside src"
            return self.src[k]
        if kind == "atomic":
            k, v = self.eval(node[1], env), self.eval(node[2], env)
            old = self.memory.get(("cnt", k), 0)
            self.memory[("cnt", k)] = (old + v) & MASK
            return old
        if kind == "loopvar":  # (i % 7).to(T); i is the induction variable's value
            i = env[node[1]]
            q = abs(i) % 7
            return (q if i >= 0 else -q) & MASK
        raise AssertionError(kind)


def _render(node):
    kind = node[0]
    if kind == "lit":
        return str(node[1])
    if kind == "var":
        return node[1]
    if kind == "un":
        return f"({node[1]}{_render(node[2])})"
    if kind in ("bin", "cmp", "bool"):
        return f"({_render(node[2])} {node[1]} {_render(node[3])})"
    if kind == "minmax":
        return f"tl.{node[1]}({_render(node[2])}, {_render(node[3])})"
    if kind == "where":
        return f"tl.where({_render(node[1])}, {_render(node[2])}, {_render(node[3])})"
    if kind == "ifexp":
        return f"({_render(node[2])} if {_render(node[1])} else {_render(node[3])})"
    if kind == "load":
        return f"tl.load(src + {_render(node[1])})"
    if kind == "atomic":
        return f"tl.atomic_add(cnt + {_render(node[1])}, {_render(node[2])})"
    if kind == "loopvar":
        return f"({node[1]} % 7).to({node[2]})"
    raise AssertionError(kind)


class _Scalar:
    """One program on scalars, built statement by statement. ``visible``
    holds the names readable at the current point; ``consts`` those that may
    hold a Python number rather than a run-time value (i32 programs only),
    which are never an operator's only run-time operand."""

    def __init__(self, rng):
        self.rng = rng
        self.signed = rng.random() < 0.5
        self.tname = "tl.int32" if self.signed else "tl.uint32"
        self.lines = []
        self.counter = 0
        self.stores = 0
        self.loopvars = []
        self.no_atomics = 0

    # expressions
    def lit(self):
        return ("lit", self.rng.choice([0, 1, 2, 3, 5, 7, 8, 15, 16, 31, 100, 255, 1000, 65535]))

    def leaf(self, visible):
        r = self.rng.random()
        if r < 0.2 or not visible:
            return self.lit()
        if self.loopvars and r < 0.3:
            return ("loopvar", self.rng.choice(self.loopvars), self.tname)
        return ("var", self.rng.choice(sorted(visible)))

    def typed(self, visible, depth):
        """An expression with a run-time value of the program's type."""
        if depth <= 0:
            return ("var", self.rng.choice(sorted(v for v in visible if v not in self.consts)))
        r = self.rng.random()
        sub = lambda: self.typed(visible, depth - 1)  # noqa: E731
        any_ = lambda: self.expr(visible, depth - 1)  # noqa: E731
        if r < 0.30:
            op = self.rng.choice(["+", "-", "*", "&", "|", "^"])
            a, b = sub(), any_()
            return ("bin", op, a, b) if self.rng.random() < 0.5 else ("bin", op, b, a)
        if r < 0.40:
            op = self.rng.choice(["//", "%"])
            divisor = ("bin", "|", ("bin", "&", sub(), ("lit", 15)), ("lit", 1))  # 1..15
            return ("bin", op, any_(), divisor) if self.rng.random() < 0.7 else ("bin", op, sub(), divisor)
        if r < 0.47:
            return ("bin", self.rng.choice(["<<", ">>"]), sub(), ("bin", "&", any_(), ("lit", 31)))
        if r < 0.52:
            return ("un", self.rng.choice(["-", "~"]), sub())
        if r < 0.60:
            return ("minmax", self.rng.choice(["maximum", "minimum"]), sub(), any_())
        if r < 0.67:
            return ("where", self.cond(visible, depth - 1), sub(), any_())
        if r < 0.74:
            return ("ifexp", self.cond(visible, depth - 1), sub(), any_())
        if r < 0.79:  # a load no guard needs
            return ("load", ("bin", "&", sub(), ("lit", SRC_WORDS - 1)))
        if r < 0.85:  # a load only its guard keeps inside src
            k = ("bin", "&", self.pure(sub), ("lit", 15))
            return ("ifexp", ("cmp", "<", k, ("lit", SRC_WORDS)), ("load", k), any_())
        if r < 0.90:  # a division only its guard keeps from zero
            d = self.pure(sub)
            guard = ("cmp", ">" if self.signed else "!=", d, ("lit", 0))
            return ("ifexp", guard, ("bin", self.rng.choice(["//", "%"]), any_(), d), any_())
        if r < 0.95 and not self.no_atomics:  # an atomic in the programs whose condition holds
            atomic = ("atomic", ("bin", "&", sub(), ("lit", COUNTERS - 1)), any_())
            cond = self.cond(visible, depth - 1)
            return ("ifexp", cond, atomic, any_()) if self.rng.random() < 0.5 else ("ifexp", cond, any_(), atomic)
        return ("var", self.rng.choice(sorted(v for v in visible if v not in self.consts)))

    def pure(self, make):
        """``make()`` without atomics: an expression written twice (a guard
        and what it guards) must give the same value both times."""
        self.no_atomics += 1
        try:
            return make()
        finally:
            self.no_atomics -= 1

    def expr(self, visible, depth):
        return self.leaf(visible) if depth <= 0 or self.rng.random() < 0.3 else self.typed(visible, depth)

    def cond(self, visible, depth):
        ops = ["<", "<=", ">", ">=", "==", "!="]
        c = ("cmp", self.rng.choice(ops), self.typed(visible, max(depth, 0)), self.expr(visible, depth))
        if self.rng.random() < 0.2:
            c = ("bool", self.rng.choice(["and", "or"]), c,
                 ("cmp", self.rng.choice(ops), self.typed(visible, 0), self.lit()))
        return c

    # statements: each is (kind, ...) for the model, rendered as it is built
    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def fresh(self):
        self.counter += 1
        return f"v{self.counter}"

    def block(self, visible, indent, budget, depth):
        """Statements; returns them for the model. ``visible`` is updated
        with the names the block defines at its own level."""
        stmts = []
        for _ in range(self.rng.randint(1, budget)):
            r = self.rng.random()
            if r < 0.45 or depth >= 2:
                stmts.append(self.assign(visible, indent))
            elif r < 0.70:
                stmts.append(self.if_(visible, indent, depth))
            elif r < 0.88:
                stmts.append(self.for_(visible, indent, depth))
            else:
                stmts.append(self.store_choice(visible, indent))
        return stmts

    def assign(self, visible, indent, name=None, value=None):
        if name is None:
            # b and n bound loops and pid places stores: they keep their values.
            targets = sorted(visible - {"b", "n", "pid"})
            name = self.rng.choice(targets) if targets and self.rng.random() < 0.6 else self.fresh()
        if value is None:
            value = self.typed(visible, self.rng.randint(1, 3))
        self.emit(indent, f"{name} = {_render(value)}")
        visible.add(name)
        self.consts.discard(name)
        return ("assign", name, value)

    def if_(self, visible, indent, depth):
        cond = self.cond(visible, 1)
        self.emit(indent, f"if {_render(cond)}:")
        same = [n for n in sorted(visible - {"b", "n", "pid"}) if self.rng.random() < 0.3]
        shared = {}
        for name in same:  # the same object in both branches
            if self.signed and name not in ARGS and self.rng.random() < 0.4:
                shared[name] = self.lit()
            else:
                shared[name] = self.rng.choice([("var", v) for v in sorted(visible)
                                                if v not in self.consts] or [self.lit()])
        consts_before = set(self.consts)
        branches, ends = [], []
        for branch in range(2 if self.rng.random() < 0.8 else 1):
            if branch:
                self.emit(indent, "else:")
            inner = set(visible)
            self.consts = set(consts_before)
            body = self.block(inner, indent + 1, 3, depth + 1)
            for name, value in shared.items():
                self.emit(indent + 1, f"{name} = {_render(value)}")
                body.append(("assign", name, value))
                if value[0] == "lit":
                    self.consts.add(name)
                else:
                    self.consts.discard(name)
            branches.append(body)
            ends.append(self.consts)
        if len(branches) == 1:
            ends.append(consts_before)
        # ``consts`` over-approximates the names that hold a Python number:
        # one that may be a number on some path is never an operator's
        # run-time operand.
        self.consts = set().union(*ends)
        return ("if", cond, branches[0], branches[1] if len(branches) > 1 else [])

    def for_(self, visible, indent, depth):
        i = f"i{self.counter}"
        self.counter += 1
        r = self.rng.random()
        if r < 0.35:
            lo, hi, step, text = ("lit", 0), ("var", "n"), 1, "range(n)"
        elif r < 0.6:  # bounds near the type's top: wrap-around and unsigned order
            lo = ("var", "b")
            k = self.rng.randint(0, 4)
            hi = ("bin", "+", ("var", "b"), ("lit", k))
            step, text = 1, f"range(b, b + {k})"
        elif r < 0.8:
            k = self.rng.randint(0, 5)
            lo, hi, step, text = ("lit", 0), ("lit", k), 1, f"range({k})"
        else:
            k, step = self.rng.randint(0, 9), self.rng.randint(2, 3)
            lo, hi, text = ("var", "n"), ("bin", "+", ("var", "n"), ("lit", k)), f"range(n, n + {k}, {step})"
        self.emit(indent, f"for {i} in {text}:")
        inner = set(visible)
        consts_before = set(self.consts)
        self.loopvars.append(i)
        body = self.block(inner, indent + 1, 3, depth + 1)
        self.loopvars.pop()
        self.consts |= consts_before  # no iteration, or the body's end
        return ("for", i, lo, hi, step, body)

    def store_choice(self, visible, indent):
        """``tl.store(...) if c else tl.store(...)``: exactly one runs."""
        cond = self.cond(visible, 1)
        k1, k2 = self.stores, self.stores + 1
        self.stores += 2
        a, b = self.typed(visible, 1), self.typed(visible, 1)
        self.emit(indent, f"tl.store(out + (pid * {OUT_STRIDE} + {k1}), {_render(a)}) if {_render(cond)} "
                          f"else tl.store(out + (pid * {OUT_STRIDE} + {k2}), {_render(b)})")
        return ("storeif", cond, k1, a, k2, b)

    # the model
    def run_model(self, stmts, env, model):
        for s in stmts:
            if s[0] == "assign":
                env[s[1]] = model.eval(s[2], env)
            elif s[0] == "if":
                self.run_model(s[2] if model.eval(s[1], env) else s[3], env, model)
            elif s[0] == "for":
                _, i, lo, hi, step, body = s
                lo, hi = model.num(model.eval(lo, env)), model.num(model.eval(hi, env))
                for value in range(lo, hi, step):
                    env[i] = value
                    self.run_model(body, env, model)
            elif s[0] == "storeif":
                _, cond, k1, a, k2, b = s
                if model.eval(cond, env):
                    model.memory[("out", env["pid"] * OUT_STRIDE + k1)] = model.eval(a, env)
                else:
                    model.memory[("out", env["pid"] * OUT_STRIDE + k2)] = model.eval(b, env)
            elif s[0] == "store":
                model.memory[("out", env["pid"] * OUT_STRIDE + s[1])] = env[s[2]]

    def case(self) -> Case:
        rng = self.rng
        self.consts = set()
        visible = set(ARGS)
        if self.signed:
            self.emit(1, "pid = tl.program_id(0)")
        else:
            self.emit(1, "pid = tl.program_id(0).to(tl.uint32)")
        stmts = []
        if self.signed and rng.random() < 0.5:  # a Python number, as in `x = 0; if ...: x = 1`
            name = self.fresh()
            value = self.lit()
            self.emit(1, f"{name} = {value[1]}")
            stmts.append(("assign", name, value))
            visible.add(name)
            self.consts.add(name)
        stmts += self.block(visible, 1, 6, 0)
        names = sorted(visible - {"pid"}, key=lambda v: (len(v), v))
        while self.stores + len(names) > OUT_STRIDE:
            names.pop()
        for name in names:
            self.emit(1, f"tl.store(out + (pid * {OUT_STRIDE} + {self.stores}), {name})")
            stmts.append(("store", self.stores, name))
            self.stores += 1
        ptr = "i32" if self.signed else "u32"
        interesting = [0, 1, 2, 5, 7, 31, 2**31 - 1, 2**31, 2**31 + 1, 2**32 - 1, 2**32 - 2, 2**32 - 5]
        a = rng.choice(interesting + [rng.randrange(2**32)])
        b = rng.choice(interesting + [rng.randrange(2**32)])
        n = rng.randint(0, 5)
        src = [rng.choice(interesting + [rng.randrange(2**32)]) for _ in range(SRC_WORDS)]
        memory = {}
        model = _Model(self.signed, memory, src)
        for pid in range(PROGRAMS):
            env = {"a": a, "b": b, "n": n, "pid": pid}
            self.run_model(stmts, env, model)
        header = ["import tilelang", "import tilelang.language as tl", "", "",
                  "@tilelang.jit", "def kernel(out, src, cnt, a, b, n):"]
        return Case("scalar", "\n".join(header + self.lines) + "\n", f"*{ptr},*{ptr},*{ptr},{ptr},{ptr},{ptr}",
                    {}, rng.choice([1, 4]), rng.choice(["sm_80", "sm_90a"]), "valid",
                    args=[a, b, n], src=src, memory=memory)


# -- the tensor family ---------------------------------------------------------------------------

DTYPES = {"fp32": ("tl.float32", "tl.int32"), "fp16": ("tl.float16", "tl.int16"),
          "bf16": ("tl.bfloat16", "tl.int16"), "i32": ("tl.int32", "tl.float32")}
BOUND_TYPES = ["i32", "u32", "i64", "u64"]

# One planted misuse each: (name, statement lines; BLOCK is the block size).
MISUSES = [
    ("pointer broadcast to the value", ["tl.store(y_ptr + offs, x[:, None] + x[None, :])"]),
    ("pointer broadcast to the mask", ["t = tl.load(x_ptr + offs, mask=mask[:, None] & mask[None, :])",
                                       "acc = acc + tl.sum(t, axis=0)"]),
    ("pointer broadcast in an atomic", ["tl.atomic_add(y_ptr + offs, x[:, None] + x[None, :])"]),
    ("run-time reverse flag", ["acc = acc + tl.cumsum(acc, 0, reverse=n > 0)"]),
    ("run-time bitcast flag", ["acc = acc + x.to(tl.float32, bitcast=n)"]),
    ("run-time arange bound", ["acc = acc + tl.arange(0, n)"]),
    ("run-time shape", ["acc = acc + tl.zeros((n,), dtype=tl.float32)"]),
    ("run-time axis", ["acc = acc + tl.sum(acc, axis=n)"]),
    ("tensor as maximum's third argument", ["acc = tl.maximum(acc, acc, acc)"]),
    ("effect under a tensor condition", ["acc = tl.load(x_ptr + offs) if acc > 0 else acc"]),
    ("atomic under a tensor condition", ["acc = tl.atomic_add(y_ptr + offs, acc) if acc > 0 else acc"]),
    ("tensor over the cap", ["t = tl.full((2 ** {k}, 2), 1.0, tl.float32)", "acc = acc + tl.sum(tl.sum(t, 1), 0)"]),
    ("arange over the cap", ["acc = acc + tl.sum(tl.arange(0, 2 * BLOCK * 2 ** {k}), 0)"]),
    ("constexpr tower", ["acc = acc + (BLOCK + 7) ** (BLOCK + 7) ** (BLOCK + 7)"]),
    ("min of nothing", ["acc = acc + min()"]),
    ("product of tiles under 16", ["t = tl.dot(tl.zeros((8, 8), tl.float16), tl.zeros((8, 8), tl.float16))",
                                   "acc = acc + tl.sum(tl.sum(t, 1), 0)"]),
    ("reduction over a missing axis", ["acc = acc + tl.sum(acc, axis=2)"]),
    ("reshape to another size", ["acc = acc + tl.sum(tl.reshape(acc, (BLOCK + 1,)), 0)"]),
    ("static_range over a run-time bound", ["for i in tl.static_range(n):", "    acc = acc + 1.0"]),
    ("arange not a power of two", ["acc = acc + tl.sum(tl.arange(0, 3), 0)"]),
    ("loop-carried type change", ["for i in range(m):", "    acc = acc.to(tl.float16)"]),
    ("branch type change", ["if n > 0:", "    acc = acc.to(tl.int32)"]),
    ("undefined name", ["acc = acc + bogus"]),
    ("store through a non-pointer", ["tl.store(n, acc)"]),
    ("while over a tensor condition", ["while acc > 0:", "    acc = acc - 1.0"]),
    ("if over a tensor condition", ["if acc > 0:", "    acc = acc - 1.0"]),
    ("run-time program_id axis", ["acc = acc + tl.program_id(n)"]),
]


def _tensor_case(rng) -> Case:
    dtype = rng.choice(sorted(DTYPES))
    tl_dtype, bit_twin = DTYPES[dtype]
    bound = rng.choice(BOUND_TYPES)
    misuse = rng.choice(MISUSES) if rng.random() < 0.35 else None
    block_kind = rng.random()
    if block_kind < 0.85:
        block = 2 ** rng.randint(0, 10)
    elif block_kind < 0.95:
        block = 2 ** rng.randint(11, 13)
    elif misuse is None:  # the block itself is the misuse
        block = rng.choice([3, 100, 1000, 2 ** 21, 2 ** 24, 2 ** 31])
        misuse = ("block not a power of two" if block & (block - 1) else "block over the cap", [])
    else:
        block = 2 ** rng.randint(0, 10)
    expect = "valid"
    head = [
        "pid = tl.program_id(0)",
        "offs = pid * BLOCK + tl.arange(0, BLOCK)",
        "mask = offs < n",
        "x = tl.load(x_ptr + offs, mask=mask, other=0)",
        "acc = x.to(tl.float32)",
    ]
    groups = []  # statements, each a list of lines (a misuse goes between two)
    menu = ["arith", "loop", "range2", "merge", "same", "reduce", "scan", "scalar_effect", "atomic",
            "where", "bitcast", "two_d", "deep", "while", "dot"]
    for _ in range(rng.randint(1, 5)):
        what = rng.choice(menu)
        if what == "arith":
            groups.append([f"acc = acc * {rng.choice(['2.0', '0.5', '3'])} + x"])
        elif what == "loop":
            groups.append(["for i in range(m):", "    acc = acc + i"])
        elif what == "range2":  # u32/u64 bounds that may straddle 2^31 / 2^63
            groups.append(["for i in range(n, m):", "    acc = acc + 1.0"])
        elif what == "merge":
            groups.append(["if n > m:", "    acc = acc + 1.0", "else:", "    acc = acc * 2.0"])
        elif what == "same":  # both branches assign the same object
            groups.append(["y = acc", "if n > 5:", "    y = x", "else:", "    y = x", "acc = acc + y"])
        elif what == "reduce":
            groups.append([f"acc = acc + tl.{rng.choice(['sum', 'max', 'min'])}(acc, axis=0)"])
        elif what == "scan":
            groups.append([f"acc = acc + tl.cumsum(acc, 0, reverse={rng.choice(['True', 'False'])})"])
        elif what == "scalar_effect":
            groups.append(["s = tl.load(x_ptr + 0) if pid == 0 else 0", "acc = acc + s"])
        elif what == "atomic" and dtype in ("fp32", "i32"):
            op = rng.choice(["atomic_add", "atomic_max", "atomic_min"])
            groups.append([f"tl.{op}(y_ptr + offs, acc.to({tl_dtype}), mask=mask)"])
        elif what == "where":
            groups.append(["acc = tl.where(x > 0, acc, tl.maximum(acc, 1.0))"])
        elif what == "bitcast":
            if dtype == "i32":
                groups.append(["acc = acc + tl.where(x.to(tl.float32, bitcast=True) > 0, 1.0, 0.0)"])
            else:
                groups.append([f"acc = acc + (x.to({bit_twin}, bitcast=True) & 1).to(tl.float32)"])
        elif what == "two_d" and block <= 128:
            groups.append(["t = acc[:, None] * acc[None, :]", f"acc = acc + tl.sum(t, axis={rng.randint(0, 1)})"])
        elif what == "deep":
            deep = rng.choice([10, 50, 200, 600, 1500])
            groups.append(["acc = acc" + " + x" * deep])
            if deep > 300:
                expect = "any"  # valid, or "the kernel is nested too deeply" at its line
        elif what == "dot" and 16 <= block <= 64 and dtype != "i32":
            groups.append(["a = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :], mask=offs[:, None] < n, "
                           "other=0)", "t = tl.dot(a, a)", "acc = acc + tl.sum(t, axis=1)"])
        elif what == "while":
            groups.append(["j = 0", "while j < m:", "    acc = acc + 1.0", "    j += 1"])
    why = ""
    if misuse is not None:
        why, planted = misuse
        k = rng.randint(20, 31)
        groups.insert(rng.randrange(len(groups) + 1), [text.format(k=k) for text in planted])
        expect = "error"
    lines = head + [line for group in groups for line in group]
    lines.append(f"tl.store(y_ptr + offs, acc.to({tl_dtype}), mask=mask)")
    source = "\n".join(["import tilelang", "import tilelang.language as tl", "", "",
                        "@tilelang.jit", "def kernel(x_ptr, y_ptr, n, m, BLOCK: tl.constexpr):"]
                       + ["    " + line for line in lines]) + "\n"
    return Case("tensor", source, f"*{dtype},*{dtype},{bound},{bound}", {"BLOCK": block},
                rng.choice([1, 2, 4, 8]), rng.choice(["sm_80", "sm_90a"]), expect, why)
