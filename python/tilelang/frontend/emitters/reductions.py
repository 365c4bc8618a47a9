"""Reductions and scans: tl.reduce/tl.associative_scan with a combine
function, the builtin ones (sum, max, min, argmax, cumsum, ...) and softmax.
"""

from __future__ import annotations

from typing import List, Sequence

from tilelang.frontend.values import Value, _unwrap, is_const, type_str
from tilelang.language import core as tlc
from tilelang.language.core import dtype


class ReductionEmitter:
    """Reductions and scans."""

    # -- reductions and scans ----------------------------------------------------------------------

    def _flatten_axis(self, srcs: List[Value], axis):
        axis = _unwrap(axis)
        if axis is None:
            srcs = [self.reshape(s, (s.numel(),), True) if len(s.shape) != 1 else s for s in srcs]
            return srcs, 0
        return srcs, self._norm_axis(axis, len(srcs[0].shape), "axis")

    def reduce_values(self, srcs: Sequence[Value], axis, combine, keep_dims=False) -> List[Value]:
        srcs = list(srcs)
        for s in srcs:
            if not s.shape:
                self.error("cannot reduce a scalar")
            if s.shape != srcs[0].shape:
                self.error(f"the operands of a reduction must have one shape, got {list(srcs[0].shape)} and {list(s.shape)}")
        srcs, ax = self._flatten_axis(srcs, axis)
        shape = srcs[0].shape
        out_shape = shape[:ax] + shape[ax + 1:]
        lhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        rhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        with self.b.capture() as body:
            results = self._combine(combine, lhs, rhs)
            self.b.emit(f"tile.reduce.return {', '.join(r.name for r in results)} : "
                        f"{', '.join(r.type for r in results)}")
        res = self.b.fresh()
        n = len(srcs)
        head = f"{res}:{n}" if n > 1 else res
        out_types = [type_str(s.dtype, out_shape) for s in srcs]
        self.b.lines.append(f"{head} = tile.reduce {', '.join(s.name for s in srcs)} axis = {ax} : "
                            f"{', '.join(s.type for s in srcs)} -> {', '.join(out_types)} {{")
        args = ", ".join(f"{v.name}: {v.type}" for v in lhs + rhs)
        self.b.lines.append(f"^bb0({args}):")
        self.b.append_region(body)
        self.b.emit("}")
        outs = [Value(f"{res}#{i}" if n > 1 else res, s.dtype, out_shape) for i, s in enumerate(srcs)]
        if _unwrap(keep_dims):
            if _unwrap(axis) is None:
                outs = [self.reshape(o if o.shape else self.broadcast_value(o, (1,)),
                                     (1,) * len(shape), False) if len(shape) > 1 else
                        self.broadcast_value(o, (1,)) for o in outs]
            else:
                outs = [self.expand_dims(o, ax) if o.shape else self.broadcast_value(o, (1,)) for o in outs]
        return outs

    def _combine(self, combine, lhs, rhs) -> List[Value]:
        results = combine(lhs, rhs)
        if not isinstance(results, (list, tuple)):
            results = [results]
        results = [_unwrap(r) for r in results]
        if len(results) != len(lhs):
            self.error(f"the combine function returns {len(results)} values, expected {len(lhs)}")
        out = []
        for r, l in zip(results, lhs):
            if is_const(r):
                r = self.constant(r, l.dtype, ())
            if r.shape:
                self.error("the combine function must return scalars")
            if r.dtype != l.dtype:
                self.error(f"the combine function returns {r.dtype.name}, expected {l.dtype.name}")
            out.append(r)
        return out

    def _user_combine(self, fn):
        if self.call_jit is None or not hasattr(fn, "fn"):
            self.error("the combine function must be a @tilelang.jit function")

        def combine(lhs, rhs):
            return self.call_jit(fn, list(lhs) + list(rhs))

        return combine

    def reduce_user(self, x, axis, combine_fn, keep_dims):
        x = _unwrap(x)
        srcs = list(x) if isinstance(x, tuple) else [x]
        if not srcs:
            self.error("tl.reduce needs at least one tensor to reduce, got an empty tuple")
        srcs = [self.require_value(s, "tl.reduce's operand") for s in srcs]
        keep_dims = self.const_bool(keep_dims, "tl.reduce's keep_dims")
        outs = self.reduce_values(srcs, axis, self._user_combine(_unwrap(combine_fn)), keep_dims)
        return outs[0] if not isinstance(x, tuple) else tuple(outs)

    def _binary_combine(self, kind: str):
        def combine(lhs, rhs):
            a, b = lhs[0], rhs[0]
            dt = a.dtype
            if kind in ("max", "min"):
                return [self._minmax_values(kind, a, b)]
            if kind in ("xor_sum", "reduce_or"):
                op = "xori" if kind == "xor_sum" else "ori"
                return [self.b.op(f"arith.{op} {a.name}, {b.name} : {a.type}", dt)]
            name = {"sum": "add", "prod": "mul"}[kind] + ("f" if dt.is_floating() else "i")
            return [self.b.op(f"arith.{name} {a.name}, {b.name} : {a.type}", dt)]

        return combine

    def _sum_dtype(self, x: Value, dt) -> dtype:
        dt = _unwrap(dt)
        if dt is not None:
            return self.const_dtype(dt)
        if x.dtype.is_int_signed() and x.dtype.int_bitwidth < 32:
            return tlc.int32
        if x.dtype.is_int_unsigned() and x.dtype.int_bitwidth < 32:
            return tlc.uint32
        return x.dtype

    def reduce_builtin(self, kind, x, axis, keep_dims, dt):
        x = self.require_value(_unwrap(x), f"tl.{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.{kind}'s keep_dims")
        if x.dtype.is_ptr():
            self.error(f"tl.{kind} does not support pointers")
        if kind == "sum":
            x = self.cast(x, self._sum_dtype(x, dt))
        elif kind in ("max", "min") and x.dtype.primitive_bitwidth < 32:
            x = self.cast(x, tlc.float32 if x.dtype.is_floating() else tlc.int32)
        elif kind in ("xor_sum", "reduce_or") and not x.dtype.is_int():
            self.error(f"tl.{kind} needs integers")
        return self.reduce_values([x], axis, self._binary_combine(kind), keep_dims)[0]

    def argreduce(self, kind, x, axis, keep_dims):
        x = self.require_value(_unwrap(x), f"tl.arg{kind}'s operand")
        keep_dims = self.const_bool(keep_dims, f"tl.arg{kind}'s keep_dims")
        if not x.shape:
            self.error(f"tl.arg{kind} needs a tensor")
        srcs, ax = self._flatten_axis([x], axis)
        x = srcs[0]
        n = x.shape[ax]
        idx = self.arange(0, n)
        for _ in range(ax):
            idx = self.expand_dims(idx, 0)
        while len(idx.shape) < len(x.shape):
            idx = self.expand_dims(idx, len(idx.shape))
        idx = self.broadcast_value(idx, x.shape)
        dt = x.dtype
        if dt.is_floating():
            pred, eq = ("ogt" if kind == "max" else "olt"), "oeq"
            cmp = "arith.cmpf"
        else:
            s = "s" if dt.is_int_signed() else "u"
            pred, eq = (s + "gt" if kind == "max" else s + "lt"), "eq"
            cmp = "arith.cmpi"

        def combine(lhs, rhs):
            v1, i1 = lhs
            v2, i2 = rhs
            b = self.b
            better = b.op(f"{cmp} {pred}, {v1.name}, {v2.name} : {v1.type}", tlc.int1)
            same = b.op(f"{cmp} {eq}, {v1.name}, {v2.name} : {v1.type}", tlc.int1)
            first = b.op(f"arith.cmpi slt, {i1.name}, {i2.name} : i32", tlc.int1)
            tie = b.op(f"arith.andi {same.name}, {first.name} : i1", tlc.int1)
            pick = b.op(f"arith.ori {better.name}, {tie.name} : i1", tlc.int1)
            v = b.op(f"arith.select {pick.name}, {v1.name}, {v2.name} : {v1.type}", dt)
            i = b.op(f"arith.select {pick.name}, {i1.name}, {i2.name} : i32", tlc.int32)
            return [v, i]

        return self.reduce_values([x, idx], ax, combine, keep_dims)[1]

    def scan_values(self, srcs: Sequence[Value], axis, combine, reverse=False) -> List[Value]:
        srcs = list(srcs)
        for s in srcs:
            if not s.shape:
                self.error("cannot scan a scalar")
            if s.shape != srcs[0].shape:
                self.error("the operands of a scan must have one shape")
        ax = self._norm_axis(axis, len(srcs[0].shape), "axis")
        lhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        rhs = [Value(self.b.fresh(), s.dtype) for s in srcs]
        with self.b.capture() as body:
            results = self._combine(combine, lhs, rhs)
            self.b.emit(f"tile.scan.return {', '.join(r.name for r in results)} : "
                        f"{', '.join(r.type for r in results)}")
        res = self.b.fresh()
        n = len(srcs)
        head = f"{res}:{n}" if n > 1 else res
        rev = " reverse" if _unwrap(reverse) else ""
        self.b.lines.append(f"{head} = tile.scan {', '.join(s.name for s in srcs)} axis = {ax}{rev} : "
                            f"{', '.join(s.type for s in srcs)} {{")
        self.b.lines.append(f"^bb0({', '.join(f'{v.name}: {v.type}' for v in lhs + rhs)}):")
        self.b.append_region(body)
        self.b.emit("}")
        return [Value(f"{res}#{i}" if n > 1 else res, s.dtype, s.shape) for i, s in enumerate(srcs)]

    def scan_builtin(self, kind, x, axis, reverse, dt):
        x = self.require_value(_unwrap(x), f"tl.cum{kind}'s operand")
        reverse = self.const_bool(reverse, f"tl.cum{kind}'s reverse")
        x = self.cast(x, self._sum_dtype(x, dt))
        return self.scan_values([x], axis, self._binary_combine(kind), reverse)[0]

    def scan_user(self, x, axis, combine_fn, reverse):
        x = _unwrap(x)
        srcs = list(x) if isinstance(x, tuple) else [x]
        if not srcs:
            self.error("tl.associative_scan needs at least one tensor to scan, got an empty tuple")
        srcs = [self.require_value(s, "tl.associative_scan's operand") for s in srcs]
        reverse = self.const_bool(reverse, "tl.associative_scan's reverse")
        outs = self.scan_values(srcs, axis, self._user_combine(_unwrap(combine_fn)), reverse)
        return outs[0] if not isinstance(x, tuple) else tuple(outs)

    def softmax(self, x):
        x = self.require_value(_unwrap(x), "tl.softmax's operand")
        z = self.binary("-", x, self.reduce_builtin("max", x, 0, False, None))
        num = self.math_unary("exp", z)
        den = self.reduce_builtin("sum", num, 0, False, None)
        return self.binary("/", num, den)
