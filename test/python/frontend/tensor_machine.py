"""A numpy interpreter for printed tile IR with tensors, for tests without a GPU.

``TensorMachine(ir).run(buffers, args)`` runs one program of a kernel whose
body is straight-line tile IR on tensors (no loops or branches): the shape
ops (make_range, splat, broadcast, expand_dims, reshape, trans, bitcast),
pointer arithmetic and masked loads and stores on named numpy buffers,
arith's elementwise ops, and ``tile.reduce`` with a one-op combine region.
Integers wrap at their width; an op it does not know is an error
(``KeyError``), never a guess. tile_machine.py is its scalar counterpart
with control flow. test_shape_semantics.py checks tl.join/split/cat/flip/
sort/gather/histogram with it."""

import re

import numpy as np

_NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "f16": np.float16, "f32": np.float32, "f64": np.float64}


class Pointer:
    """A tensor (or scalar) of pointers into one named buffer: the offsets."""

    def __init__(self, buffer, offsets):
        self.buffer = buffer
        self.offsets = np.asarray(offsets, dtype=np.int64)


def _type(text):
    """(shape, element) of ``tensor<4x8xf32>``, ``!tile.ptr<f32>``, ``i32``."""
    text = text.strip()
    m = re.fullmatch(r"tensor<(.*)>", text)
    if not m:
        return (), text
    inner = m.group(1)
    if "!tile.ptr" in inner:
        dims, _, element = inner.partition("x!")
        return tuple(int(d) for d in dims.split("x")), "!" + element
    *dims, element = inner.split("x")
    return tuple(int(d) for d in dims), element


def _constant(text, element):
    if text in ("true", "false"):
        return text == "true"
    if text.startswith("0x"):
        bits = int(text, 16)
        width = {"f16": 16, "f32": 32, "f64": 64}[element]
        return np.array([bits], dtype=f"uint{width}").view(_NP[element])[0]
    return float(text) if element.startswith("f") else int(text)


class TensorMachine:
    def __init__(self, ir):
        lines = [line.strip() for line in ir.splitlines()]
        start = next(i for i, line in enumerate(lines) if line.startswith("func.func"))
        self.params = re.findall(r"(%arg\d+):", lines[start])
        self.lines = lines[start + 1:]

    def run(self, args):
        """``args``: per parameter, a buffer name (pointers) or a number.
        ``self.buffers`` (name -> 1-D numpy array) must be set first."""
        env = {p: (Pointer(a, 0) if isinstance(a, str) else a) for p, a in zip(self.params, args)}
        i = 0
        while i < len(self.lines):
            line = self.lines[i]
            i += 1
            if not line or line == "}" or line.startswith("return"):
                continue
            m = re.match(r"(%[\w-]+)(?::\d+)? = (\S+) (.*)$", line)
            res, name, rest = m.groups() if m else (None, line.split(" ")[0], line.partition(" ")[2])
            if name == "tile.reduce":
                body = []
                while not self.lines[i].startswith("}"):
                    body.append(self.lines[i])
                    i += 1
                i += 1
                env[res] = self._reduce(rest, body, env)
                continue
            value = self._op(name, rest, env)
            if res is not None:
                env[res] = value

    def _op(self, name, rest, env):
        operands, _, types = rest.rpartition(" : ")
        if name == "arith.constant":
            if not types:  # `arith.constant true`
                return np.bool_(rest.strip() == "true")
            shape, element = _type(types)
            m = re.match(r"dense<(.*)>", operands)
            value = _constant(m.group(1) if m else operands.strip(), element)
            return np.full(shape, value, dtype=_NP[element]) if shape else _NP[element](value)
        if name == "tile.make_range":
            lo, hi = map(int, re.match(r"(-?\d+) to (-?\d+)", operands).groups())
            return np.arange(lo, hi, dtype=np.int32)
        vals = [env[n] for n in re.findall(r"%[\w#-]+", operands)]
        if name.startswith("tile."):
            # The result type: after `->`, else the (first) operand type.
            src_type, _, dst_type = types.partition(" -> ")
            shape, element = _type(dst_type or src_type.split(", ")[0])
        if name in ("tile.splat", "tile.broadcast", "tile.expand_dims", "tile.reshape", "tile.trans"):
            v = vals[0]
            pointer = isinstance(v, Pointer)
            data = v.offsets if pointer else np.asarray(v)
            if name == "tile.trans":
                order = [int(x) for x in re.search(r"array<i32: ([\d, ]+)>", operands).group(1).split(",")]
                data = np.transpose(data, order)
            elif name == "tile.reshape":
                data = data.reshape(shape)
            else:
                if name == "tile.expand_dims":
                    data = np.expand_dims(data, int(re.search(r"axis = (\d+)", operands).group(1)))
                data = np.broadcast_to(data, shape).copy()
            return Pointer(v.buffer, data) if pointer else data
        if name == "tile.bitcast":
            return np.asarray(vals[0]).view(_NP[element])
        if name == "tile.addptr":
            return Pointer(vals[0].buffer, vals[0].offsets + np.asarray(vals[1], dtype=np.int64))
        if name == "tile.load":
            ptr = vals[0]
            out = self.buffers[ptr.buffer][ptr.offsets % len(self.buffers[ptr.buffer])]
            if len(vals) > 1:
                other = vals[2] if len(vals) > 2 else 0
                out = np.where(vals[1], out, other)
            return out
        if name == "tile.store":
            ptr, value = vals[0], np.broadcast_to(vals[1], vals[0].offsets.shape)
            mask = np.broadcast_to(vals[2], value.shape) if len(vals) > 2 else np.ones(value.shape, bool)
            self.buffers[ptr.buffer][ptr.offsets[mask]] = value[mask]
            return None
        return self._arith(name, operands, types, vals)

    def _arith(self, name, operands, types, vals):
        if name == "arith.select":
            return np.where(vals[0], vals[1], vals[2])
        if name in ("arith.cmpi", "arith.cmpf"):
            pred = operands.split(",")[0]
            a, b = (np.asarray(v) for v in vals)
            if pred in ("ult", "ule", "ugt", "uge"):
                unsigned = np.dtype(a.dtype.str.replace("i", "u"))
                a, b = a.view(unsigned), b.view(unsigned)
            if pred == "uno":
                return np.isnan(a) | np.isnan(b)
            compare = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                       "gt": np.greater, "ge": np.greater_equal}
            # Signed, unsigned and ordered predicates compare as numpy does
            # (false on NaN); une is true on NaN, as numpy's !=.
            return compare[pred if pred in ("eq", "ne") else pred[1:]](a, b)
        if name in ("arith.extui", "arith.extsi", "arith.trunci", "arith.extf", "arith.truncf",
                    "arith.sitofp"):  # truncf: numpy rounds to nearest even, as truncf does
            dst = _type(types.partition(" to ")[2])[1]
            v = np.asarray(vals[0])
            if name == "arith.extui":
                v = v.view(np.dtype(v.dtype.str.replace("i", "u"))) if v.dtype != np.bool_ else v
            return v.astype(_NP[dst])
        if name == "math.absf":
            return np.abs(vals[0])
        a, b = vals
        with np.errstate(over="ignore"):
            return {"arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
                    "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
                    "arith.shrsi": np.right_shift, "arith.addf": np.add, "arith.mulf": np.multiply,
                    "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
                    "arith.maximumf": np.maximum, "arith.minnumf": np.fmin,
                    "arith.maxnumf": np.fmax,
                    "arith.remsi": np.fmod}[name](a, b)  # C's remainder: the dividend's sign

    def _reduce(self, rest, body, env):
        src = env[re.match(r"(%[\w#-]+)", rest).group(1)]
        axis = int(re.search(r"axis = (\d+)", rest).group(1))
        op = re.match(r"%\w+ = (\S+)", body[1]).group(1)
        parts = np.moveaxis(np.asarray(src), axis, 0)
        out = parts[0]
        for part in parts[1:]:
            out = self._arith(op, "", "", [out, part])
        return out
