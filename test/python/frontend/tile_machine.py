"""A scalar interpreter for printed tile IR, for tests without a GPU.

``Machine(ir).run(args, pid)`` runs one program of a kernel whose values are
scalars (no tensors): integer and i1 arithmetic, ``scf.if``/``scf.for`` with
the ops' own semantics (``scf.for`` compares its bounds as signed integers),
and loads, stores and atomics on a scalar memory ``{(buffer, offset): value}``.
Integers are held as their unsigned bit patterns. An op it does not know is
an error (``KeyError``), never a guess. test_miscompiles.py checks the
frontend's fixed miscompiles with it; test_fuzz_gen.py checks generated
kernels against a Python model (kernel_gen.py)."""

import re
import struct


class _Op:
    def __init__(self, text):
        self.text = text
        self.regions = []


def _parse(lines, i):
    """The ops from ``lines[i]`` up to the ``}`` closing their region."""
    ops = []
    while i < len(lines):
        text = lines[i]
        if text.startswith("}"):
            return ops, i
        op = _Op(text)
        i += 1
        if text.endswith("{"):
            while True:
                body, i = _parse(lines, i)
                op.regions.append(body)
                closing = lines[i]
                i += 1
                if closing != "} else {":
                    break
        ops.append(op)
    return ops, i


def _bits(ty):
    return 1 if ty == "i1" else int(re.match(r"i(\d+)", ty).group(1))


def _signed(v, bits):
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _bind(env, res, values):
    """Names the results of a region op: ``%r`` (the first) and ``%r#i``."""
    if res is not None:
        env[res] = values[0]
        for i, value in enumerate(values):
            env[f"{res}#{i}"] = value


class Machine:
    """Runs one program of a kernel on scalar memory: ``memory[(buffer, offset)]``."""

    def __init__(self, ir, memory=None):
        lines = [line.strip() for line in ir.splitlines()]
        lines = [line for line in lines if line and not line.startswith("module")]
        func = next(i for i, line in enumerate(lines) if line.startswith("func.func"))
        self.body, _ = _parse(lines, func + 1)
        self.memory = {} if memory is None else memory
        self.loads = []
        self.atomics = 0

    def run(self, args, pid=0):
        env = {f"%arg{i}": v for i, v in enumerate(args)}
        self.pid = pid
        self._block(self.body, env)
        return self.memory

    def _block(self, ops, env):
        for op in ops:
            text = op.text
            if text.startswith("scf.yield"):
                return [env[n] for n in re.findall(r"%[\w#-]+", text.partition(":")[0])]
            if text == "return":
                return []
            m = re.match(r"(%[\w-]+)(?::\d+)? = (\S+)\s*(.*)$", text)
            res, name, rest = m.groups() if m else (None, text.split(" ")[0], text.partition(" ")[2])
            if name == "scf.for":
                self._for(op, res, rest, env)
                continue
            if name == "scf.if":
                cond = env[re.match(r"(%[\w#-]+)", rest).group(1)]
                region = op.regions[0] if cond else (op.regions[1] if len(op.regions) > 1 else [])
                outs = self._block(region, dict(env))
                _bind(env, res, outs)
                continue
            value = self._op(name, rest, env)
            if res is not None:
                env[res] = value
        return []

    def _for(self, op, res, rest, env):
        m = re.match(r"(%[\w-]+) = (%[\w#-]+) to (%[\w#-]+) step (%[\w#-]+)"
                     r"(?: iter_args\((.*?)\))?.*: (i\d+) \{$", rest)
        iv, lb, ub, step, inits, ty = m.groups()
        bits = _bits(ty)
        names, values = [], []
        for pair in (inits.split(", ") if inits else []):
            name, _, init = pair.partition(" = ")
            names.append(name)
            values.append(env[init])
        i = env[lb]
        for _ in range(10_000):
            if not _signed(i, bits) < _signed(env[ub], bits):
                break
            inner = dict(env)
            inner[iv] = i
            inner.update(zip(names, values))
            values = self._block(op.regions[0], inner)
            i = (i + env[step]) & ((1 << bits) - 1)
        else:
            raise AssertionError("the loop runs more than 10000 times")
        _bind(env, res, values)

    def _op(self, name, rest, env):
        operands, _, ty = rest.rpartition(" : ")
        if name == "arith.constant":
            text = rest.partition(" : ")[0].strip()
            if text in ("true", "false"):
                return int(text == "true")
            if ty == "f32":
                return float(text) if not text.startswith("0x") else \
                    struct.unpack("<f", struct.pack("<I", int(text, 16)))[0]
            return int(text) & ((1 << _bits(ty)) - 1)
        if name == "tile.program_id":
            return self.pid
        vals = [env[n] for n in re.findall(r"%[\w#-]+", operands)]
        if name == "tile.addptr":
            (buf, off), delta = vals
            return buf, off + _signed(delta, _bits(ty.split(", ")[1]))
        if name == "tile.load":
            if len(vals) > 1 and not vals[1]:
                return vals[2] if len(vals) > 2 else 0
            self.loads.append(vals[0])
            return self.memory[vals[0]]
        if name == "tile.store":
            if len(vals) < 3 or vals[2]:
                self.memory[vals[0]] = vals[1]
            return None
        if name == "tile.atomic_rmw":
            kind = operands.split(",")[0]
            assert kind == "add", kind
            self.atomics += 1
            old = self.memory.get(vals[0], 0)
            self.memory[vals[0]] = (old + vals[1]) & 0xFFFFFFFF
            return old
        if name in ("arith.extui", "arith.extsi", "arith.trunci"):
            src, _, dst = ty.partition(" to ")
            a = vals[0]
            if name == "arith.extsi":
                a = _signed(a, _bits(src))
            return a & ((1 << _bits(dst)) - 1)
        if name == "arith.select":
            return vals[1] if vals[0] else vals[2]
        bits = _bits(ty)
        mask = (1 << bits) - 1
        if name == "arith.cmpi":
            pred = operands.split(",")[0]
            a, b = vals
            sa, sb = _signed(a, bits), _signed(b, bits)
            return int({"eq": a == b, "ne": a != b, "slt": sa < sb, "sle": sa <= sb, "sgt": sa > sb,
                        "sge": sa >= sb, "ult": a < b, "ule": a <= b, "ugt": a > b, "uge": a >= b}[pred])
        a, b = vals
        if name in ("arith.divui", "arith.remui"):
            assert b != 0, "division by zero"
            return (a // b if name == "arith.divui" else a % b) & mask
        if name in ("arith.shli", "arith.shrui", "arith.shrsi"):
            assert b < bits, "shift by the width or more"
            return {"arith.shli": a << b, "arith.shrui": a >> b, "arith.shrsi": _signed(a, bits) >> b}[name] & mask
        if name in ("arith.maxsi", "arith.minsi"):
            pick = max if name == "arith.maxsi" else min
            return pick(_signed(a, bits), _signed(b, bits)) & mask
        if name in ("arith.divsi", "arith.remsi"):
            assert b != 0, "division by zero"
            q = abs(_signed(a, bits)) // abs(_signed(b, bits))
            q = q if (_signed(a, bits) >= 0) == (_signed(b, bits) >= 0) else -q
            return (q if name == "arith.divsi" else _signed(a, bits) - q * _signed(b, bits)) & mask
        return {"arith.addi": lambda: a + b, "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
                "arith.xori": lambda: a ^ b, "arith.andi": lambda: a & b,
                "arith.ori": lambda: a | b, "arith.maxui": lambda: max(a, b),
                "arith.minui": lambda: min(a, b)}[name]() & mask
