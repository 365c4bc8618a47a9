"""The code generator: a ``@jit`` function's Python AST to tile IR text.

``CodeGenerator`` visits the function body statement by statement, keeps a
scope of names bound to IR values (``semantic.Value``) or compile-time
constants, turns loops and branches into ``scf`` ops with loop-carried and
yielded values, evaluates constexpr code in Python, inlines calls to other
``@jit`` functions, and sets the location of every emitted op to the Python
expression it came from. Every problem becomes a ``CompilationError`` with
the file, line and column of the offending code.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math as pymath
import operator
import re
import warnings
from typing import Any, Dict, List, Optional

from tilelang.errors import CompilationError, Diagnostic
from tilelang.frontend.function import FunctionInfo, KernelFunction
from tilelang.frontend.builder import Builder
from tilelang.frontend.semantic import Semantic
from tilelang.frontend.values import (
    BlockPtrValue, FrontendError, TensorDescValue, Value, describe, is_const, natural_dtype,
)
from tilelang.integers import cdiv as py_cdiv, next_power_of_2
from tilelang.language import core as tlc

# The most run-time branches and loops (scf.if/for/while) one kernel may
# hold: libtilelang's tile::kMaxControlFlowOps, where the reason is given.
MAX_CONTROL_FLOW_OPS = 1024

_BINOPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_PYOPS = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift, "**": operator.pow,
}
_CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_PYCMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
          "==": operator.eq, "!=": operator.ne}

# Python functions a kernel may call on constexprs (evaluated at compile time).
_CONST_FUNCS = {builtins.len, builtins.int, builtins.float, builtins.bool, builtins.str,
                builtins.isinstance, builtins.tuple, builtins.list, builtins.round}
_CONST_FUNCS.update(v for v in vars(pymath).values() if callable(v))

# Methods of tensors: name -> language builtin taking the tensor first.
_TENSOR_METHODS = {
    "reshape": tlc.reshape, "view": tlc.view, "trans": tlc.trans, "permute": tlc.permute,
    "expand_dims": tlc.expand_dims, "broadcast_to": tlc.broadcast_to, "sum": tlc.sum,
    "max": tlc.max, "min": tlc.min, "argmax": tlc.argmax, "argmin": tlc.argmin,
    "cumsum": tlc.cumsum, "cumprod": tlc.cumprod, "reduce": tlc.reduce, "exp": tlc.exp,
    "log": tlc.log, "sqrt": tlc.sqrt, "abs": tlc.abs, "sigmoid": tlc.sigmoid,
    "associative_scan": tlc.associative_scan, "xor_sum": tlc.xor_sum, "split": tlc.split,
    "flip": tlc.flip, "interleave": tlc.interleave, "sort": tlc.sort, "topk": tlc.topk,
    "gather": tlc.gather, "histogram": tlc.histogram,
}

_MAX_INLINE_DEPTH = 32

# The widest integer a constexpr expression may compute. A kernel's numbers
# fit in 64 bits; the margin leaves room for intermediate values, and keeps
# the arithmetic instantaneous where ``BLOCK**BLOCK**BLOCK`` would otherwise
# compute until memory runs out.
_MAX_CONSTEXPR_BITS = 4096
# The longest string, tuple or list a constexpr repetition may build.
_MAX_CONSTEXPR_ITEMS = 1 << 20


# Where a run-time branch gives a variable (or a conditional expression) a
# type: (file, line, column) -> {name or (name, index) or None: (dtype,
# shape)}, None for one the code compiled twice with two types. Collected
# while set (by the interpreter, which runs the Python of the kernel and
# gives a Python number the type the compiled merge gives it:
# docs/interpreter.md); None otherwise.
TYPE_LOG: Optional[Dict[tuple, dict]] = None


def _pdb_set_trace():
    """``pdb.set_trace`` where pdb was imported (so that compiling does not import it)."""
    import sys

    pdb = sys.modules.get("pdb")
    return pdb.set_trace if pdb is not None else None


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _constexpr_too_large(op: str, a, b) -> Optional[str]:
    """Why Python's ``a op b`` on constexprs must not be computed (its result
    would be over the limits above), or None. A lower bound of the result's
    size is enough: a result under it is computed, then checked."""
    if op == "**" and _is_int(a) and _is_int(b) and b > 0 and abs(a) > 1:
        if (abs(a).bit_length() - 1) * b > _MAX_CONSTEXPR_BITS:
            return f"the power has more than {_MAX_CONSTEXPR_BITS} bits"
    if op == "<<" and _is_int(a) and _is_int(b) and a != 0 and b > 0:
        if abs(a).bit_length() + b > _MAX_CONSTEXPR_BITS:
            return f"the shifted value has more than {_MAX_CONSTEXPR_BITS} bits"
    if op == "*":
        for seq, times in ((a, b), (b, a)):
            if isinstance(seq, (str, bytes, tuple, list)) and _is_int(times) and \
                    len(seq) * times > _MAX_CONSTEXPR_ITEMS:
                return f"the repeated {type(seq).__name__} has more than {_MAX_CONSTEXPR_ITEMS} items"
    return None


def _const_call_too_large(fn, args) -> Optional[str]:
    """Why ``fn(*args)``, a math function on constexprs, must not be computed:
    factorials, binomials and permutations of large arguments take as long
    as their results are wide."""
    if fn is pymath.factorial and len(args) == 1 and _is_int(args[0]):
        if args[0] > _MAX_CONSTEXPR_BITS:  # n! > 2**n from n = 4
            return f"the factorial has more than {_MAX_CONSTEXPR_BITS} bits"
    if fn in (pymath.comb, pymath.perm) and len(args) == 2 and all(_is_int(x) for x in args):
        n, k = args
        if 0 <= k <= n:
            k = min(k, n - k) if fn is pymath.comb else k
            # About k products of numbers of up to k * bits(n) bits.
            if k * n.bit_length() > 4 * _MAX_CONSTEXPR_BITS:
                return f"the result has more than {_MAX_CONSTEXPR_BITS} bits"
    return None


def _check_constexpr_result(value):
    """``value`` if it is within the constexpr limits; raises otherwise."""
    if _is_int(value) and value.bit_length() > _MAX_CONSTEXPR_BITS:
        raise FrontendError(f"the constexpr result has {value.bit_length()} bits, more than the "
                            f"{_MAX_CONSTEXPR_BITS} a constexpr integer may have")
    return value


_SIGNATURES: Dict[Any, inspect.Signature] = {}


def _user_signature(fn) -> inspect.Signature:
    """A builtin's signature without its ``_semantic`` parameter."""
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = inspect.signature(fn)
        sig = sig.replace(parameters=[p for p in sig.parameters.values() if p.name != "_semantic"])
        _SIGNATURES[fn] = sig
    return sig


class BoundMethod:
    """``x.sum`` and friends: a builtin with its first argument bound."""

    def __init__(self, fn, value):
        self.fn = fn
        self.value = value


class RangeSpec:
    """What ``range(...)``/``tl.range``/``tl.static_range`` evaluate to in a
    kernel; ``num_stages`` is ``tl.range``'s, or None."""

    def __init__(self, static: bool, args: List[Any], num_stages: Optional[int] = None):
        self.static = static
        self.args = args
        self.num_stages = num_stages


# tl.range's options that tilelang does not act on, with their defaults, in
# the order of Triton's signature (after num_stages): a kernel that sets one
# is warned once per option and process.
_IGNORED_RANGE_OPTIONS = {"loop_unroll_factor": None, "disallow_acc_multi_buffer": False,
                          "flatten": False, "warp_specialize": False, "disable_licm": False}
_warned_range_options: set = set()


def _warn_ignored_range_option(name: str, file: str, line: int) -> None:
    """A UserWarning attributed to the kernel's line (not to the frontend)."""
    if name in _warned_range_options:
        return
    _warned_range_options.add(name)
    warnings.warn_explicit(f"{file}:{line}: tl.range's {name} is accepted and ignored by tilelang "
                           "(num_stages is honoured)", UserWarning, file, line)


# Early exits. scf has no way to leave a region early, so `return`, `break`
# and `continue` set flags, hidden variables of the scope that branches merge
# and loops carry like any other: `$returned` (the function has returned),
# `$broken` (the innermost loop is left), `$continued` (its iteration ends).
# Every statement after one that may set a flag runs under `scf.if` on
# "no flag set", and loops that may be left early are `scf.while` loops whose
# condition reads the flags. `$retval` holds what a `return` returned. The
# names cannot clash with Python's.
_RETURNED, _BROKEN, _CONTINUED, _RETVAL = "$returned", "$broken", "$continued", "$retval"
_FLAGS = (_RETURNED, _BROKEN, _CONTINUED)
_MISSING = object()


def _jumps(stmts) -> set:
    """The flags a list of statements may set: `return` anywhere, `break`
    and `continue` outside the loops nested in them."""
    found = set()

    def walk(node, in_loop):
        if isinstance(node, ast.Return):
            found.add(_RETURNED)
        elif isinstance(node, ast.Break) and not in_loop:
            found.add(_BROKEN)
        elif isinstance(node, ast.Continue) and not in_loop:
            found.add(_CONTINUED)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return
        for child in ast.iter_child_nodes(node):
            walk(child, in_loop or isinstance(node, (ast.For, ast.While)))

    for stmt in stmts:
        walk(stmt, False)
    return found


def _merged_names(stmts) -> List[str]:
    """The names a branch merge or guard over ``stmts`` binds: those they
    assign, the flags they may set, and the returned value."""
    jumps = _jumps(stmts)
    return _assigned_names(stmts) + sorted(jumps) + ([_RETVAL] if _RETURNED in jumps else [])


def _always_returns(stmts) -> bool:
    """Whether every path through the statements ends in `return` (as
    written; a constexpr condition is not evaluated)."""
    for stmt in stmts:
        if isinstance(stmt, ast.Return):
            return True
        if isinstance(stmt, ast.If) and stmt.orelse and _always_returns(stmt.body) \
                and _always_returns(stmt.orelse):
            return True
    return False


def _is_constexpr_annotation(ann, globals_: dict) -> bool:
    if ann is None:
        return False
    if isinstance(ann, str):
        return ann.split(".")[-1] == "constexpr"
    return ann is tlc.constexpr


def _assigned_names(stmts) -> List[str]:
    """Names a list of statements assigns to, in order of first assignment."""
    seen: Dict[str, None] = {}
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                seen.setdefault(node.id, None)
    return list(seen)


# Ops that may be executed when their result is not wanted: no effect, no
# fault, always terminate. Left out: loads (a guard such as
# `tl.load(p) if p_ok else 0` is what keeps them in bounds), stores, atomics,
# prints, asserts, barriers, descriptor copies, while loops, and integer
# division and remainder unless the divisor is a constant that cannot make
# them undefined (zero, or -1 for the signed ones: INT_MIN / -1 overflows).
_PURE_OPS = frozenset({
    "tile.splat", "tile.broadcast", "tile.expand_dims", "tile.make_range", "tile.addptr",
    "tile.reshape", "tile.trans", "tile.bitcast", "tile.ptr_to_int", "tile.int_to_ptr",
    "tile.program_id", "tile.num_programs", "tile.dot", "tile.reduce", "tile.reduce.return",
    "tile.scan", "tile.scan.return", "scf.for", "scf.if", "scf.yield",
})
_DIVISIONS = frozenset({"arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                        "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi"})
_INT_CONSTANT = re.compile(r"(%\w+) = arith\.constant (?:dense<)?(-?\d+)[>\s]")
_DIVISOR = re.compile(r"%[\w#]+, (%\w+)")


def _is_pure(lines: List[str]) -> bool:
    """Whether the emitted op lines (regions included) may run unconditionally."""
    constants = {}
    for line in lines:
        text = line.strip()
        if not text or text[0] in "}^":
            continue
        m = _INT_CONSTANT.match(text)
        if m:
            constants[m.group(1)] = int(m.group(2))
            continue
        if text.startswith("%"):  # `%3 = op ...` or `%3:2 = op ...`
            text = text.partition("= ")[2]
        op, _, operands = text.partition(" ")
        if op in _DIVISIONS:
            m = _DIVISOR.match(operands)
            divisor = constants.get(m.group(1)) if m else None
            if divisor in (None, 0) or (divisor == -1 and op.endswith("si")):
                return False
            continue
        if op.startswith("math.") or op.startswith("arith.") or op in _PURE_OPS:
            continue
        return False
    return True


def _loc_text(file: str, line: int, col: int) -> str:
    escaped = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{escaped}":{line}:{col})'


class CodeGenerator(ast.NodeVisitor):
    """Emits one function body (the kernel's, or an inlined callee's)."""

    def __init__(self, info: FunctionInfo, builder: Builder, semantic: Semantic,
                 scope: Dict[str, Any], depth: int = 0, is_kernel: bool = False):
        self.info = info
        self.b = builder
        self.sem = semantic
        self.scope = scope
        self.depth = depth
        self.is_kernel = is_kernel
        self.return_value = None
        self.loop_depth = 0  # loops around the statement being visited
        self.runtime_loops = 0  # those of them that are not unrolled

    # -- errors and locations -------------------------------------------------------------

    def error(self, node, message: str) -> CompilationError:
        file, line, col = self.info.location(node)
        return CompilationError([Diagnostic("error", message, file, line, col)])

    def _count_control_flow(self, node):
        """Counts a run-time branch or loop about to be emitted and refuses
        the one past MAX_CONTROL_FLOW_OPS, which libtilelang would refuse
        too: here, before the rest of a kernel of 50,000 `if`s costs the
        frontend its time."""
        self.b.control_flow_ops += 1
        if self.b.control_flow_ops > MAX_CONTROL_FLOW_OPS:
            raise self.error(node, f"this kernel has more than {MAX_CONTROL_FLOW_OPS} run-time branches and "
                                   "loops (if, for, while), the most one kernel may hold (compile time grows "
                                   "faster than their number): make conditions known at compile time "
                                   "(tl.constexpr), or split the work into several kernels")

    def visit(self, node):
        if not hasattr(node, "lineno"):
            return super().visit(node)
        saved = self.b.loc
        self.b.loc = _loc_text(*self.info.location(node))
        try:
            return super().visit(node)
        except CompilationError:
            raise
        except FrontendError as exc:
            raise self.error(node, str(exc)) from None
        except RecursionError:
            raise self.error(node, "the kernel is nested too deeply") from None
        except Exception as exc:  # noqa: BLE001 - never let another exception escape
            raise self.error(node, f"internal error: {type(exc).__name__}: {exc}") from exc
        finally:
            self.b.loc = saved

    def generic_visit(self, node):
        raise self.error(node, f"unsupported syntax: {type(node).__name__}")

    # -- statements ---------------------------------------------------------------------------

    def visit_body(self, stmts):
        """Visits ``stmts`` in order. After a statement that may have
        returned, broken or continued at run time, the rest runs under an
        ``scf.if`` on "no flag set"; after one that surely did, it is dead."""
        for i, stmt in enumerate(stmts):
            self.visit(stmt)
            if not any(self.scope.get(f, False) is not False for f in _FLAGS):
                continue
            rest = stmts[i + 1:]
            if not rest:
                return  # the flags pass on to the enclosing block
            stop = self._stop_flag()
            if stop is not True:
                self._guard(stop, lambda: self.visit_body(rest), _merged_names(rest), rest[0])
            return

    def _stop_flag(self):
        """None when no flag is set, True when one surely is, else the i1
        value "some flag is set"."""
        flags = [tlc._unwrap(self.scope.get(f, False)) for f in _FLAGS]
        if any(f is True for f in flags):
            return True
        values = [f for f in flags if isinstance(f, Value)]
        if not values:
            return None
        out = values[0]
        for v in values[1:]:
            out = self.b.op(f"arith.ori {out.name}, {v.name} : i1", tlc.int1)
        return out

    def _guard(self, stop: Value, run, names, node):
        """Runs ``run`` (which visits statements) under ``scf.if !stop``.
        Inside, no flag is set; on the other path, the one where a flag is
        set, nothing that follows in the function or the iteration runs, so
        the values of variables only the guarded code assigns do not matter
        there and are zeros."""
        go = self.sem.logical_not(stop)
        pre = dict(self.scope)
        try:
            with self.b.capture() as then_lines:
                self.scope = dict(pre)
                for f in _FLAGS:
                    self.scope[f] = False
                run()
                then_scope = self.scope
        finally:
            self.scope = pre
        self._merge_branches(go, then_lines, then_scope, [], dict(pre), names, node,
                             else_stopped=True)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.visit(node.value)

    def visit_Pass(self, node):
        pass

    def _assign(self, target, value, node):
        if isinstance(target, ast.Name):
            self.scope[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (tuple, list)):
                raise self.error(target, f"cannot unpack {self._describe(value)}")
            if len(value) != len(target.elts):
                raise self.error(target, f"cannot unpack {len(value)} values into {len(target.elts)} names")
            for t, v in zip(target.elts, value):
                self._assign(t, v, node)
            return
        raise self.error(target, f"unsupported assignment target: {type(target).__name__} "
                                 "(only names and tuples of names can be assigned)")

    def visit_Assign(self, node):
        value = self.visit(node.value)
        for target in node.targets:
            self._assign(target, value, node)

    def visit_AnnAssign(self, node):
        if node.value is None:
            return
        value = self.visit(node.value)
        ann = ast.unparse(node.annotation)
        if ann.split(".")[-1] == "constexpr" and isinstance(value, Value):
            raise self.error(node.value, f"'{ast.unparse(node.target)}' is annotated constexpr "
                                         "but its value is computed at run time")
        self._assign(node.target, tlc._unwrap(value), node)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "unsupported augmented assignment target (only names)")
        current = self.lookup(node.target.id, node.target)
        rhs = self.visit(node.value)
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self.error(node, f"unsupported operator {type(node.op).__name__}")
        self.scope[node.target.id] = self.binary(op, current, rhs)

    def visit_Return(self, node):
        value = None if node.value is None else self.visit(node.value)
        if self.is_kernel and value is not None:
            raise self.error(node, "a kernel cannot return a value")
        if value is not None and self.runtime_loops:
            raise self.error(node, "returning a value from inside a run-time loop is not supported: "
                                   "assign it to a variable, `break`, and return it after the loop")
        self.scope[_RETURNED] = True
        if value is not None:
            self.scope[_RETVAL] = value

    def visit_Assert(self, node):
        test = self.visit(node.test)
        msg = "" if node.msg is None else self.visit(node.msg)
        if is_const(test):
            if not test:
                raise self.error(node, f"assertion failed: {msg}" if msg else "assertion failed")
            return
        self.sem.device_assert(test, msg if isinstance(msg, str) else ast.unparse(node.test))

    def visit_Break(self, node):
        if not self.loop_depth:
            raise self.error(node, "'break' outside a loop")
        self.scope[_BROKEN] = True

    def visit_Continue(self, node):
        if not self.loop_depth:
            raise self.error(node, "'continue' outside a loop")
        self.scope[_CONTINUED] = True

    def _unsupported_stmt(self, node):
        raise self.error(node, f"unsupported syntax: {type(node).__name__} statements are not "
                               "allowed in @tilelang.jit functions")

    visit_With = visit_Try = visit_Raise = visit_Global = visit_Nonlocal = _unsupported_stmt
    visit_Delete = visit_Import = visit_ImportFrom = visit_ClassDef = _unsupported_stmt
    visit_FunctionDef = visit_AsyncFunctionDef = visit_AsyncFor = visit_AsyncWith = _unsupported_stmt

    # -- if ---------------------------------------------------------------------------------------

    def visit_If(self, node):
        cond = tlc._unwrap(self.visit(node.test))
        if is_const(cond):
            self.visit_body(node.body if cond else node.orelse)
            return
        if cond.shape:
            raise self.error(node.test, f"the condition of `if` must be a scalar, got "
                                        f"{describe(cond.dtype, cond.shape)} (use tl.where for tensors)")
        c = self.sem.to_bool(cond)
        pre = dict(self.scope)
        try:
            with self.b.capture() as then_lines:
                self.scope = dict(pre)
                self.visit_body(node.body)
                then_scope = self.scope
            with self.b.capture() as else_lines:
                self.scope = dict(pre)
                self.visit_body(node.orelse)
                else_scope = self.scope
        finally:
            self.scope = pre
        names = _merged_names(node.body + node.orelse)
        self._merge_branches(c, then_lines, then_scope, else_lines, else_scope, names, node)

    def _stopped(self, scope) -> bool:
        """Whether a path surely returned, broke or continued."""
        return any(tlc._unwrap(scope.get(f, False)) is True for f in _FLAGS)

    def _placeholder(self, v):
        """A value of ``v``'s type for a path on which it is never read."""
        if isinstance(v, tuple):
            return tuple(self._placeholder(x) for x in v)
        if not isinstance(v, Value):
            return v
        if v.dtype.is_ptr():
            zero = self.sem.constant(0, tlc.int64, v.shape)
            return self.b.op(f"tile.int_to_ptr {zero.name} : {zero.type} -> {v.type}", v.dtype, v.shape)
        return self.sem.constant(0, v.dtype, v.shape)

    def _merge_branches(self, c, then_lines, then_scope, else_lines, else_scope, names, node,
                        else_stopped=False):
        """Emits ``scf.if c`` over the two captured branches and binds, in
        the current scope, each of ``names`` that leaves both branches: the
        same object from both, or the value the ``scf.if`` yields. A name
        one branch leaves undefined is defined after the ``if`` when that
        branch surely stopped (returned, broke or continued): nothing that
        reads it runs after that path, so it gets a placeholder there."""
        then_stopped = self._stopped(then_scope)
        else_stopped = else_stopped or self._stopped(else_scope)
        pairs, tuples = [], []
        for n in dict.fromkeys(names):
            unset = False if n in _FLAGS else _MISSING
            tv, ev = then_scope.get(n, unset), else_scope.get(n, unset)
            if tv is _MISSING and ev is _MISSING:
                continue
            if tv is _MISSING or ev is _MISSING:
                missing_stopped = then_stopped if tv is _MISSING else else_stopped
                if not (missing_stopped or n == _RETVAL):
                    continue  # visible after the `if` on neither path
                present = ev if tv is _MISSING else tv
                if not self._placeable(present):
                    continue
                with self.b.capture(then_lines if tv is _MISSING else else_lines):
                    placeholder = self._placeholder(present)
                tv, ev = (placeholder, ev) if tv is _MISSING else (tv, placeholder)
            if isinstance(tv, tuple) and isinstance(ev, tuple) and len(tv) == len(ev):
                pairs.extend(((n, i), a, b) for i, (a, b) in enumerate(zip(tv, ev)))
                tuples.append((n, [None] * len(tv), None))
            elif isinstance(tv, BlockPtrValue) and tv.same_tensor(ev):
                # Two windows of one tensor: their offsets merge like a tuple's items.
                pairs.extend(((n, i), a, b) for i, (a, b) in enumerate(zip(tv.offsets, ev.offsets)))
                tuples.append((n, [None] * len(tv.offsets), tv))
            else:
                pairs.append(((n, None), tv, ev))
        for n, items, _ in tuples:
            self.scope[n] = items
        yields_then, yields_else, kept = [], [], []
        for key, tv, ev in pairs:
            tv, ev = tlc._unwrap(tv), tlc._unwrap(ev)
            if tv is ev or (is_const(tv) and is_const(ev) and type(tv) is type(ev) and tv == ev):
                # Both branches leave the same object: the value the name had
                # before the `if`, or one both assigned from a value (or a
                # constant) defined before it. Either way it dominates the
                # `if` and needs no yield, but the name must still take it:
                # `x = 0; if c: x = y else: x = y` leaves x == y, not 0.
                self._bind(key, tv)
                continue
            if isinstance(tv, bool) and isinstance(ev, bool):
                # true on one side, false on the other (a flag): the condition.
                self._bind(key, self._log_type(node, key, c if tv else self.sem.logical_not(c)))
                continue
            n = key[0]
            tdt = self._yield_type(n, tv, ev, node)
            with self.b.capture(then_lines):
                tval = self._materialize(tv, tdt, n, node)
            with self.b.capture(else_lines):
                evalue = self._materialize(ev, tdt, n, node)
            if tval.type != evalue.type:
                raise self.error(node, f"variable '{n}' is {describe(tval.dtype, tval.shape)} in the "
                                       f"then-branch but {describe(evalue.dtype, evalue.shape)} in the "
                                       "else-branch; both branches must give it one type")
            yields_then.append(tval)
            yields_else.append(evalue)
            kept.append(key)
        if not kept and not then_lines and not else_lines:
            self._finish_tuples(tuples)
            return
        types = [v.type for v in yields_then]
        if kept:
            for lines, vals in ((then_lines, yields_then), (else_lines, yields_else)):
                with self.b.capture(lines):
                    self.b.emit(f"scf.yield {', '.join(v.name for v in vals)} : {', '.join(types)}")
            res = self.b.fresh()
            head = f"{res}:{len(kept)} = " if len(kept) > 1 else f"{res} = "
            self._count_control_flow(node)
            self.b.lines.append(f"{head}scf.if {c.name} -> ({', '.join(types)}) {{")
        else:
            self._count_control_flow(node)
            self.b.lines.append(f"scf.if {c.name} {{")
        self.b.append_region(then_lines)
        if else_lines or kept:
            self.b.lines.append("} else {")
            self.b.append_region(else_lines)
        self.b.emit("}")
        for i, key in enumerate(kept):
            v = yields_then[i]
            self._bind(key, self._log_type(node, key, Value(f"{res}#{i}" if len(kept) > 1 else res, v.dtype,
                                                            v.shape)))
        self._finish_tuples(tuples)

    @staticmethod
    def _placeable(v) -> bool:
        if isinstance(v, tuple):
            return all(CodeGenerator._placeable(x) for x in v)
        return isinstance(tlc._unwrap(v), (Value, bool, int, float))

    def _bind(self, key, value):
        n, i = key
        if i is None:
            self.scope[n] = value
        else:
            self.scope[n][i] = value

    def _finish_tuples(self, tuples):
        """Rebuilds the tuples (and block pointers, from their merged
        offsets) whose items a merge bound one by one."""
        for n, items, block_ptr in tuples:
            self.scope[n] = tuple(items) if block_ptr is None else block_ptr.with_offsets(items)

    def _yield_type(self, name, a, b, node):
        """The type a variable gets when two control-flow paths merge."""
        for v in (a, b):
            if isinstance(v, Value):
                return (v.dtype, v.shape)
        for v in (a, b):
            if not isinstance(v, (bool, int, float)):
                raise self.error(node, f"variable '{name}' is assigned {self._describe(v)} in one "
                                       "path and a different value in another; only tensors and "
                                       "numbers can be merged")
        dt = self.sem._computation_type_strict(natural_dtype(a), natural_dtype(b), False)
        return (dt, ())

    def _materialize(self, v, ty, name, node) -> Value:
        dt, shape = ty
        if isinstance(v, Value):
            return v
        if not isinstance(v, (bool, int, float)):
            raise self.error(node, f"variable '{name}' holds {self._describe(v)}, which cannot be "
                                   "carried through a loop or merged after a branch")
        return self.sem.constant(v, dt, shape)

    # -- loops ----------------------------------------------------------------------------------

    def visit_For(self, node):
        if node.orelse:
            raise self.error(node, "for ... else is not supported")
        it = self.visit(node.iter)
        if isinstance(it, (tuple, list)) or (isinstance(it, RangeSpec) and it.static):
            if isinstance(it, RangeSpec):
                args = [self.sem.const_int(a, "a static_range bound") for a in it.args]
                if len(args) == 3 and args[2] == 0:
                    raise self.error(node.iter, "static_range step must not be zero")
                values = range(*args)
            else:
                values = it
            self.loop_depth += 1
            try:
                self._unroll(node, list(values))
            finally:
                self.loop_depth -= 1
            self.scope[_BROKEN] = self.scope[_CONTINUED] = False
            return
        if not isinstance(it, RangeSpec):
            raise self.error(node.iter, f"cannot iterate over {self._describe(it)} (use range, "
                                        "tl.range or tl.static_range)")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a name")
        args = [tlc._unwrap(a) for a in it.args]
        if len(args) == 1:
            lb, ub, step = 0, args[0], 1
        elif len(args) == 2:
            (lb, ub), step = args, 1
        elif len(args) == 3:
            lb, ub, step = args
        else:
            raise self.error(node.iter, f"range expects 1 to 3 arguments, got {len(args)}")
        for a in (lb, ub, step):
            if isinstance(a, Value):
                if a.shape or not a.dtype.is_int():
                    raise self.error(node.iter, f"range bounds must be scalar integers, got "
                                                f"{describe(a.dtype, a.shape)}")
            elif isinstance(a, bool) or not isinstance(a, int):
                raise self.error(node.iter, f"range bounds must be integers, got {a!r}")
        if is_const(step) and step == 0:
            raise self.error(node.iter, "range step must not be zero")
        # scf.for compares its bounds as signed integers (and so do the
        # passes that rewrite loops, such as the pipeliner), so the loop must
        # count in a type that holds every bound's value: an unsigned 32-bit
        # bound of 2^31 or more would read as negative in i32 and the loop
        # would not run. Unsigned 32-bit bounds therefore make the loop i64
        # (zero-extended), as 64-bit bounds and large constants do.
        values = [a for a in (lb, ub, step) if isinstance(a, Value)]
        if any(v.dtype.is_int_unsigned() and v.dtype.int_bitwidth == 64 for v in values):
            if is_const(step) and step < 0:
                raise self.error(node.iter, "a negative range step with unsigned 64-bit bounds is "
                                            "not supported")
            self._unsigned64_loop(node, lb, ub, step, it)
            return
        iv_dt = tlc.int32
        if any(v.dtype.int_bitwidth == 64 or (v.dtype.is_int_unsigned() and v.dtype.int_bitwidth == 32)
               for v in values) or \
                any(is_const(a) and not -(2**31) < a < 2**31 for a in (lb, ub, step)):
            iv_dt = tlc.int64
        lbv, ubv = (self.sem.as_value(a, iv_dt, ()) for a in (lb, ub))
        if is_const(step) and step > 0:
            bounds, user_iv = (lbv, ubv, self.sem.constant(step, iv_dt, ())), (lambda k: k)
        elif is_const(step):
            # range(a, b, -s) visits a, a - s, ... > b: the counter k runs
            # over range(b, a, s), which has as many values, and the loop
            # variable is a + b - k (exact in wrapping arithmetic, since the
            # true value fits).
            total = self.sem.binary("+", lbv, ubv)
            bounds = (ubv, lbv, self.sem.constant(-step, iv_dt, ()))
            user_iv = lambda k: self.sem.binary("-", total, k)  # noqa: E731
        else:
            bounds, user_iv = self._runtime_step(lbv, ubv, self.sem.as_value(step, iv_dt, ()))
        self._loop(node, user_iv, node.target.id, bounds, iv_dt, it)

    def _runtime_step(self, lb: Value, ub: Value, step: Value):
        """The counter's bounds and the loop variable of ``range(lb, ub,
        step)`` with a step known at run time: counting up as written for a
        positive step, as for a constant negative one (above) otherwise. A
        zero step runs no iteration (Python raises ValueError)."""
        sem = self.sem
        neg = sem.compare("<", step, 0)
        start = sem.where(neg, ub, lb)
        end = sem.where(neg, lb, ub)
        end = sem.where(sem.compare("==", step, 0), start, end)
        magnitude = sem.where(neg, sem.negate(step), step)
        total = sem.binary("+", lb, ub)
        return (start, end, magnitude), lambda k: sem.where(neg, sem.binary("-", total, k), k)

    def _unroll(self, node, values):
        """A loop unrolled at compile time (``tl.static_range``, constexpr
        tuples). After an iteration that broke or returned at run time,
        the remaining iterations run under ``scf.if`` on "no flag set"."""
        for index, v in enumerate(values):
            self._assign(node.target, v, node)
            self.visit_body(node.body)
            self.scope[_CONTINUED] = False
            stop = self._stop_flag()
            if stop is True:
                return
            if stop is not None and index + 1 < len(values):
                rest = values[index + 1:]
                names = _merged_names([node])
                self._guard(stop, lambda: self._unroll(node, rest), names, node)
                return

    def _unsigned64_loop(self, node, lb, ub, step, spec):
        """``range`` over u64 bounds. No wider signed type exists, so the
        loop counts in i64 offset by 2^63 (the top bit flipped): that maps
        unsigned order onto signed order, and the body's loop variable is
        the counter with the bit flipped back, a u64. The bounds are first
        converted to u64 (Triton's promotion: an i64 bound keeps its bits)."""
        u64 = tlc.uint64
        lbv, ubv, stv = (self.sem.as_value(a, u64, ()) for a in (lb, ub, step))
        bias = self.sem.constant(1 << 63, u64, ())

        def flip(v: Value, dt) -> Value:
            return self.b.op(f"arith.xori {v.name}, {bias.name} : i64", dt)

        bounds = (flip(lbv, tlc.int64), flip(ubv, tlc.int64), Value(stv.name, tlc.int64))
        self._loop(node, lambda iv: flip(iv, u64), node.target.id, bounds, tlc.int64, spec)

    def _carried(self, node, names) -> List[tuple]:
        carried = []
        for n in names:
            if n not in self.scope:
                continue
            v = self.scope[n]
            if isinstance(v, Value):
                carried.append((n, self._log_type(node, (n, None), v)))
            elif isinstance(v, (bool, int, float)):
                carried.append((n, self._log_type(node, (n, None), self.sem.constant(v, natural_dtype(v), ()))))
            elif isinstance(v, BlockPtrValue):
                # Its offsets, under the keys (name, dimension); its base,
                # extents and strides must stay (checked at the yield).
                carried.extend(((n, k), self.sem.as_value(o, tlc.int32, ()))
                               for k, o in enumerate(v.offsets))
            # Other Python objects (None, dtypes, functions) stay compile-time
            # values; reassigning them in the loop is caught below.
        return carried

    def _set_carried(self, key, value: Value) -> None:
        """Binds a carried value: a variable (``key`` a name) or one offset
        of the block pointer a variable holds (``key`` = (name, dimension))."""
        if isinstance(key, tuple):
            n, k = key
            bp = self.scope[n]
            self.scope[n] = bp.with_offsets(bp.offsets[:k] + (value,) + bp.offsets[k + 1:])
        else:
            self.scope[key] = value

    def _get_carried(self, key, pre, node):
        """What a carried variable (or block-pointer offset) holds at the
        end of an iteration."""
        if not isinstance(key, tuple):
            return self.scope.get(key)
        n, k = key
        bp = tlc._unwrap(self.scope.get(n))
        if not pre[n].same_tensor(bp):
            raise self.error(node, f"variable '{n}' holds a block pointer before the loop and is "
                                   f"assigned {self._describe(bp)} in it; a loop may only advance "
                                   "a block pointer (tl.advance), not point it at another tensor")
        return bp.offsets[k]

    def _visit_loop_body(self, node):
        """The body of a run-time loop, no flag set at its start; the
        flags it leaves (`continue` ends only the iteration)."""
        self.loop_depth += 1
        self.runtime_loops += 1
        try:
            for f in _FLAGS:
                self.scope[f] = False
            self.visit_body(node.body)
        finally:
            self.loop_depth -= 1
            self.runtime_loops -= 1
        self.scope[_CONTINUED] = False

    def _loop(self, node, user_iv, iv_name, bounds, iv_dt, spec=None):
        """An ``scf.for`` over ``bounds`` (values of ``iv_dt``); ``user_iv``
        makes, at the top of the body, the value the loop variable names
        from the induction variable. A body that may break or return makes
        the loop an ``scf.while`` (``_exiting_loop``)."""
        if _jumps(node.body) & {_BROKEN, _RETURNED}:
            self._exiting_loop(node, user_iv, iv_name, bounds, iv_dt)
            return
        names = [n for n in _assigned_names(node.body) if n != iv_name]
        carried = self._carried(node, names)
        pre = dict(self.scope)
        iv = Value(self.b.fresh(), iv_dt)
        args = [Value(self.b.fresh(), v.dtype, v.shape) for _, v in carried]
        try:
            with self.b.capture() as body:
                self.scope = dict(pre)
                self.scope[iv_name] = user_iv(iv)
                for (n, _), a in zip(carried, args):
                    self._set_carried(n, a)
                self._visit_loop_body(node)
                outs = self._loop_yields(node, carried, pre)
                if carried:
                    self.b.emit(f"scf.yield {', '.join(o.name for o in outs)} : "
                                f"{', '.join(o.type for o in outs)}")
        finally:
            self.scope = pre
        lb, ub, st = bounds
        res = self.b.fresh()
        attrs = self._loop_attributes(spec)
        self._count_control_flow(node)
        if carried:
            inits = ", ".join(f"{a.name} = {v.name}" for a, (_, v) in zip(args, carried))
            types = ", ".join(v.type for _, v in carried)
            head = f"{res}:{len(carried)} = " if len(carried) > 1 else f"{res} = "
            self.b.lines.append(f"{head}scf.for {iv.name} = {lb.name} to {ub.name} step {st.name} "
                                f"iter_args({inits}) -> ({types}) : {iv.type} {{")
        else:
            self.b.lines.append(f"scf.for {iv.name} = {lb.name} to {ub.name} step {st.name} : {iv.type} {{")
        self.b.append_region(body)
        self.b.emit("}" + attrs)
        for i, (n, v) in enumerate(carried):
            self._set_carried(n, Value(f"{res}#{i}" if len(carried) > 1 else res, v.dtype, v.shape))

    def _loop_attributes(self, spec) -> str:
        """The attributes the loop's options give the ``scf.for``: the
        pipeliner reads ``tile.num_stages`` in place of the kernel's
        ``num_stages`` (0 or 1: not pipelined)."""
        if spec is None or spec.num_stages is None:
            return ""
        return f" {{tile.num_stages = {spec.num_stages} : i32}}"

    def _exiting_loop(self, node, user_iv, iv_name, bounds, iv_dt):
        """A counted loop that may break or return: an ``scf.while`` that
        carries the counter and the flags, and goes on while the counter is
        below its bound and no flag is set."""
        lb, ub, st = bounds
        counter = Value("", iv_dt)

        def test(state):
            return self.sem.compare("<", state[0], ub)

        def body(state):
            self.scope[iv_name] = user_iv(state[0])
            self._visit_loop_body(node)
            return [self.sem.binary("+", state[0], st)]

        self._while(node, [n for n in _assigned_names(node.body) if n != iv_name],
                    [(counter, lb)], test, body, pure_test=True)

    def _loop_yields(self, node, carried, pre) -> List[Value]:
        outs = []
        for key, init in carried:
            n = key[0] if isinstance(key, tuple) else key
            v = tlc._unwrap(self._get_carried(key, pre, node))
            if is_const(v):
                v = self._materialize(v, (init.dtype, init.shape), n, node)
            if v.type != init.type or v.dtype != init.dtype:
                raise self.error(node, f"loop-carried variable '{n}' has type "
                                       f"{describe(init.dtype, init.shape)} before the loop but is "
                                       f"assigned {describe(v.dtype, v.shape)} in the loop; its type "
                                       "must stay the same")
            outs.append(v)
        for n in _assigned_names(node.body):
            if n in pre and not isinstance(pre[n], (Value, bool, int, float, BlockPtrValue)) and \
                    self.scope.get(n) is not pre[n]:
                raise self.error(node, f"variable '{n}' holds {self._describe(pre[n])} before the "
                                       "loop and is reassigned in it; only tensors and numbers can "
                                       "be loop-carried")
        return outs

    def visit_While(self, node):
        if node.orelse:
            raise self.error(node, "while ... else is not supported")

        def test(state):
            cond = tlc._unwrap(self.visit(node.test))
            if isinstance(cond, Value) and cond.shape:
                raise self.error(node.test, "the condition of `while` must be a scalar")
            return self.sem.to_bool(cond) if isinstance(cond, Value) else \
                self.sem.constant(bool(cond), tlc.int1, ())

        def body(state):
            self._visit_loop_body(node)
            return []

        self._while(node, _assigned_names(node.body), [], test, body, pure_test=False)

    def _while(self, node, names, extra, test, body, pure_test):
        """An ``scf.while``. It carries, in order: ``extra`` (pairs of a
        typed placeholder and its initial value, such as a counter), the
        variables of ``names`` defined before the loop, and the flags the
        body may set (`break` and `return`). ``test(state)`` emits the
        condition in the before region; ``body(state)`` visits the body in
        the after region and returns the next values of ``extra``. The loop
        goes on while no flag is set and the test holds; the test is not
        evaluated once a flag is set (it may have effects) unless
        ``pure_test``."""
        flags = [f for f in (_BROKEN, _RETURNED) if f in _jumps(node.body)]
        carried = [(None, Value(v.name, d.dtype, d.shape)) for d, v in extra] + self._carried(node, names)
        carried += [(f, self.sem.constant(False, tlc.int1, ())) for f in flags]
        n_extra, n_user = len(extra), len(carried) - len(extra) - len(flags)
        pre = dict(self.scope)
        before_args = [Value(self.b.fresh(), v.dtype, v.shape) for _, v in carried]
        after_args = [Value(self.b.fresh(), v.dtype, v.shape) for _, v in carried]
        types = [v.type for _, v in carried]

        def bind(args):
            self.scope = dict(pre)
            for (n, _), a in zip(carried, args):
                if n is not None:
                    self._set_carried(n, a)

        try:
            with self.b.capture() as before:
                bind(before_args)
                for f in flags:
                    self.scope[f] = False
                stop = None
                for a in before_args[n_extra + n_user:]:
                    stop = a if stop is None else self.sem.logical("or", stop, a)
                with self.b.capture() as test_lines:
                    c = test(before_args)
                if stop is None:
                    self.b.lines.extend(test_lines)
                elif pure_test or _is_pure(test_lines):
                    self.b.lines.extend(test_lines)
                    c = self.sem.logical("and", self.sem.logical_not(stop), c)
                else:
                    # Once a flag is set the test must not run: its effects
                    # (an atomic in `while tl.atomic_cas(...)`) would repeat.
                    with self.b.capture(test_lines):
                        self.b.emit(f"scf.yield {c.name} : i1")
                    with self.b.capture() as stopped:
                        f = self.sem.constant(False, tlc.int1, ())
                        self.b.emit(f"scf.yield {f.name} : i1")
                    res = self.b.fresh()
                    self.b.lines.append(f"{res} = scf.if {stop.name} -> (i1) {{")
                    self.b.append_region(stopped)
                    self.b.lines.append("} else {")
                    self.b.append_region(test_lines)
                    self.b.emit("}")
                    c = Value(res, tlc.int1)
                tail = f" {', '.join(a.name for a in before_args)} : {', '.join(types)}" if carried else ""
                self.b.emit(f"scf.condition({c.name}){tail}")
            with self.b.capture() as after:
                bind(after_args)
                nexts = body(after_args[:n_extra])
                outs = self._loop_yields(node, carried[n_extra:n_extra + n_user], pre)
                for f in flags:
                    v = tlc._unwrap(self.scope.get(f, False))
                    outs.append(v if isinstance(v, Value) else self.sem.constant(bool(v), tlc.int1, ()))
                outs = list(nexts) + outs
                if carried:
                    self.b.emit(f"scf.yield {', '.join(o.name for o in outs)} : {', '.join(types)}")
                else:
                    self.b.emit("scf.yield")
        finally:
            self.scope = pre
        res = self.b.fresh()
        inits = ", ".join(f"{a.name} = {v.name}" for a, (_, v) in zip(before_args, carried))
        head = (f"{res}:{len(carried)} = " if len(carried) > 1 else f"{res} = ") if carried else ""
        self._count_control_flow(node)
        self.b.lines.append(f"{head}scf.while ({inits}) : ({', '.join(types)}) -> ({', '.join(types)}) {{")
        self.b.append_region(before)
        self.b.lines.append("} do {")
        if carried:
            self.b.lines.append(f"^bb0({', '.join(f'{a.name}: {a.type}' for a in after_args)}):")
        self.b.append_region(after)
        self.b.emit("}")
        for i, (n, v) in enumerate(carried):
            if n is not None and n != _BROKEN:
                self._set_carried(n, Value(f"{res}#{i}" if len(carried) > 1 else res, v.dtype, v.shape))
        self.scope[_BROKEN] = self.scope[_CONTINUED] = False

    # -- expressions -------------------------------------------------------------------------------

    def visit_Constant(self, node):
        return node.value

    def lookup(self, name: str, node):
        if name in self.scope:
            return self.scope[name]
        if name in self.info.closure:
            return self._global_value(name, self.info.closure[name], node, closure=True)
        if name in self.info.globals:
            return self._global_value(name, self.info.globals[name], node)
        if name in ("range", "min", "max", "len", "int", "float", "bool", "abs", "print",
                    "isinstance", "tuple", "list", "str", "round", "getattr", "breakpoint"):
            return getattr(builtins, name)
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        raise self.error(node, f"name '{name}' is not defined")

    def _global_value(self, name, value, node, closure=False):
        if isinstance(value, tlc.constexpr):
            return value.value
        if inspect.ismodule(value) or isinstance(value, (KernelFunction, tlc.dtype, type)) or callable(value):
            return value
        if value is None:
            return None
        annotations = self.info.globals.get("__annotations__", {})
        if not closure and _is_constexpr_annotation(annotations.get(name), self.info.globals):
            return value
        if closure and isinstance(value, (bool, int, float, str, tuple)):
            return value
        raise self.error(node, f"cannot access global variable '{name}' from a @tilelang.jit "
                               "function: kernels can only read globals annotated as constexpr "
                               f"(`{name}: tl.constexpr = ...` or `{name} = tl.constexpr(...)`)")

    def visit_Name(self, node):
        return self.lookup(node.id, node)

    def visit_Tuple(self, node):
        return tuple(self._visit_elts(node.elts))

    def visit_List(self, node):
        return list(self._visit_elts(node.elts))

    def _visit_elts(self, elts):
        out = []
        for e in elts:
            if isinstance(e, ast.Starred):
                v = self.visit(e.value)
                if not isinstance(v, (tuple, list)):
                    raise self.error(e, f"cannot unpack {self._describe(v)}")
                out.extend(v)
            else:
                out.append(self.visit(e))
        return out

    def visit_JoinedStr(self, node):
        parts = []
        for v in node.values:
            if isinstance(v, ast.Constant):
                parts.append(str(v.value))
            else:
                val = self.visit(v.value)
                if isinstance(val, Value):
                    parts.append(describe(val.dtype, val.shape))
                else:
                    spec = "" if v.format_spec is None else self.visit(v.format_spec)
                    parts.append(format(tlc._unwrap(val), spec))
        return "".join(parts)

    def visit_FormattedValue(self, node):
        return self.visit(node.value)

    def _describe(self, v) -> str:
        if isinstance(v, Value):
            return f"a tensor of type {describe(v.dtype, v.shape)}"
        return f"{v!r} ({type(v).__name__})"

    def binary(self, op: str, a, b):
        a, b = tlc._unwrap(a), tlc._unwrap(b)
        if is_const(a) and is_const(b):
            reason = _constexpr_too_large(op, a, b)
            if reason:
                raise FrontendError(f"constexpr expression too large: {reason}")
            try:
                result = _PYOPS[op](a, b)
            except Exception as exc:  # noqa: BLE001 - a constexpr expression failed
                raise FrontendError(f"{type(exc).__name__}: {exc}") from None
            return _check_constexpr_result(result)
        if op == "**":
            raise FrontendError("** is only supported on constexprs")
        return self.sem.binary(op, a, b)

    def visit_BinOp(self, node):
        lhs = self.visit(node.left)
        rhs = self.visit(node.right)
        op = _BINOPS.get(type(node.op))
        if op is None:
            if isinstance(node.op, ast.Pow):
                op = "**"
            else:
                raise self.error(node, f"unsupported operator {type(node.op).__name__}")
        return self.binary(op, lhs, rhs)

    def visit_UnaryOp(self, node):
        v = tlc._unwrap(self.visit(node.operand))
        if is_const(v):
            try:
                return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                        ast.Invert: operator.invert}[type(node.op)](v)
            except Exception as exc:  # noqa: BLE001
                raise FrontendError(f"{type(exc).__name__}: {exc}") from None
        if isinstance(node.op, ast.USub):
            return self.sem.negate(v)
        if isinstance(node.op, ast.UAdd):
            return v
        if isinstance(node.op, ast.Not):
            return self.sem.logical_not(v)
        return self.sem.invert(v)

    def visit_Compare(self, node):
        left = tlc._unwrap(self.visit(node.left))
        result = None
        for op, right_node in zip(node.ops, node.comparators):
            right = tlc._unwrap(self.visit(right_node))
            if isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)):
                if not (is_const(left) and is_const(right)):
                    raise self.error(node, f"`{type(op).__name__.lower()}` only compares constexprs")
                value = {ast.Is: operator.is_, ast.IsNot: operator.is_not,
                         ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}[type(op)](left, right)
            else:
                sym = _CMPOPS[type(op)]
                if is_const(left) and is_const(right):
                    try:
                        value = _PYCMP[sym](left, right)
                    except Exception as exc:  # noqa: BLE001
                        raise FrontendError(f"{type(exc).__name__}: {exc}") from None
                else:
                    value = self.sem.compare(sym, left, right)
            result = value if result is None else self._logical("and", result, value)
            left = right
        return result

    def _logical(self, op, a, b):
        if is_const(a) and is_const(b):
            return (a and b) if op == "and" else (a or b)
        return self.sem.logical(op, a, b)

    def visit_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        result = tlc._unwrap(self.visit(node.values[0]))
        for value_node in node.values[1:]:
            if is_const(result):
                # Short-circuit on constexprs, as Python does.
                if (op == "and" and not result) or (op == "or" and result):
                    return result
                result = tlc._unwrap(self.visit(value_node))
                continue
            result = self._logical(op, result, tlc._unwrap(self.visit(value_node)))
        return result

    def _log_type(self, node, key, value):
        """Notes, for the interpreter (TYPE_LOG), the type a run-time branch
        at ``node`` gives ``key``."""
        if TYPE_LOG is None or not isinstance(value, Value):
            return value
        entry = TYPE_LOG.setdefault(self.info.location(node), {})
        seen = entry.get(key, (value.dtype, value.shape))
        entry[key] = seen if seen == (value.dtype, value.shape) else None
        return value

    def visit_IfExp(self, node):
        cond = tlc._unwrap(self.visit(node.test))
        if is_const(cond):
            return self.visit(node.body if cond else node.orelse)
        # Python evaluates one side only. Both sides are emitted on the side
        # first; when both are pure they run unconditionally and an
        # arith.select picks (what tl.where does), otherwise the `if`
        # becomes an scf.if that yields the chosen side, as in Triton, so an
        # atomic or a guarded load runs only when its side is taken.
        c = self.sem.to_bool(cond)
        with self.b.capture() as then_lines:
            tv = tlc._unwrap(self.visit(node.body))
        with self.b.capture() as else_lines:
            ev = tlc._unwrap(self.visit(node.orelse))
        if _is_pure(then_lines) and _is_pure(else_lines):
            self.b.lines.extend(then_lines)
            self.b.lines.extend(else_lines)
            return None if tv is None and ev is None else self._log_type(node, None, self.sem.where(c, tv, ev))
        if c.shape:
            raise self.error(node, f"a conditional expression on a tensor condition "
                                   f"({describe(c.dtype, c.shape)}) evaluates both sides, but a side "
                                   "here loads, stores or has another effect; use a scalar condition, "
                                   "or tl.where with masked loads and stores")
        if tv is None and ev is None:
            self._count_control_flow(node)
            self.b.lines.append(f"scf.if {c.name} {{")
            self.b.append_region(then_lines)
            self.b.lines.append("} else {")
            self.b.append_region(else_lines)
            self.b.emit("}")
            return None
        for v in (tv, ev):
            if not isinstance(v, (Value, bool, int, float)):
                raise self.error(node, f"a conditional expression on a run-time condition must give "
                                       f"a tensor or a number on both sides, got {self._describe(v)}")
        dt, shape = self.sem.where_type(tv, ev)
        with self.b.capture(then_lines):
            tval = self.sem.as_value(tv, dt, shape)
            self.b.emit(f"scf.yield {tval.name} : {tval.type}")
        with self.b.capture(else_lines):
            evalue = self.sem.as_value(ev, dt, shape)
            self.b.emit(f"scf.yield {evalue.name} : {evalue.type}")
        res = self.b.fresh()
        self._count_control_flow(node)
        self.b.lines.append(f"{res} = scf.if {c.name} -> ({tval.type}) {{")
        self.b.append_region(then_lines)
        self.b.lines.append("} else {")
        self.b.append_region(else_lines)
        self.b.emit("}")
        return self._log_type(node, None, Value(res, dt, shape))

    def visit_Subscript(self, node):
        value = tlc._unwrap(self.visit(node.value))
        index = self._visit_index(node.slice)
        if isinstance(value, Value):
            return self.sem.subscript(value, index)
        try:
            return value[index]
        except Exception as exc:  # noqa: BLE001
            raise FrontendError(f"{type(exc).__name__}: {exc}") from None

    def _visit_index(self, node):
        if isinstance(node, ast.Slice):
            parts = [None if p is None else tlc._unwrap(self.visit(p)) for p in (node.lower, node.upper, node.step)]
            if any(isinstance(p, Value) for p in parts):
                raise self.error(node, "slice bounds must be constexprs")
            return slice(*parts)
        if isinstance(node, ast.Tuple):
            return tuple(self._visit_index(e) for e in node.elts)
        v = tlc._unwrap(self.visit(node))
        if isinstance(v, Value):
            raise self.error(node, "tensors cannot be indexed by tensors; only `None` and `:` are supported")
        return v

    def visit_Attribute(self, node):
        obj = tlc._unwrap(self.visit(node.value))
        attr = node.attr
        if isinstance(obj, Value):
            if attr == "dtype":
                return obj.dtype
            if attr == "type":
                # Triton's: the dtype of a scalar, a block type for a tensor
                # (`Out.type.element_ty` is the pointee of pointer Out).
                return tlc.block_type(obj.dtype, obj.shape) if obj.shape else obj.dtype
            if attr == "shape":
                return obj.shape
            if attr == "numel":
                return obj.numel()
            if attr == "T":
                return self.sem.permute(obj, ())
            if attr == "to":
                return BoundMethod(self.sem.to, obj)
            if attr in _TENSOR_METHODS:
                return BoundMethod(_TENSOR_METHODS[attr], obj)
            raise self.error(node, f"tensors have no attribute '{attr}'")
        if isinstance(obj, TensorDescValue):
            if attr == "load":
                return BoundMethod(self.sem.descriptor_load, obj)
            if attr == "store":
                return BoundMethod(self.sem.descriptor_store, obj)
            if attr == "block_shape":
                return list(obj.block_shape)
            if attr == "dtype":
                return obj.dtype
            raise self.error(node, f"tensor descriptors have no attribute '{attr}' "
                                   "(they have load, store, block_shape and dtype)")
        try:
            return getattr(obj, attr)
        except AttributeError:
            name = getattr(obj, "__name__", type(obj).__name__)
            raise self.error(node, f"'{name}' has no attribute '{attr}'") from None

    def visit_Call(self, node):
        fn = self.visit(node.func)
        args = self._visit_elts(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                extra = self.visit(kw.value)
                if not isinstance(extra, dict):
                    raise self.error(kw, "** needs a dict")
                kwargs.update(extra)
            else:
                kwargs[kw.arg] = self.visit(kw.value)
        self._current_call = node
        return self.call(fn, args, kwargs, node)

    def _fn_name(self, fn) -> str:
        return getattr(fn, "__name__", None) or type(fn).__name__

    def call(self, fn, args, kwargs, node):
        if isinstance(fn, BoundMethod):
            if getattr(fn.fn, "__self__", None) is self.sem:  # .to, .load, .store
                try:
                    inspect.signature(fn.fn).bind(fn.value, *args, **kwargs)
                except TypeError as exc:
                    method = {"descriptor_load": "load", "descriptor_store": "store"}.get(
                        fn.fn.__name__, fn.fn.__name__)
                    raise self.error(node, f".{method}(): {exc}") from None
                return fn.fn(fn.value, *args, **kwargs)
            fn, args = fn.fn, [fn.value] + list(args)
        if getattr(fn, "__tilelang_builtin__", False):
            name = self._fn_name(fn)
            try:
                _user_signature(fn).bind(*args, **kwargs)
            except TypeError as exc:
                raise self.error(node, f"wrong arguments to tl.{name}: {exc}") from None
            return fn(*args, _semantic=self.sem, **kwargs)
        if isinstance(fn, KernelFunction):
            return self.inline(fn, args, kwargs, node)
        if fn is builtins.range or fn is tlc.range:
            num_stages = None
            if fn is tlc.range:
                kwargs = dict(kwargs)
                positional = ("arg1", "arg2", "step", "num_stages") + tuple(_IGNORED_RANGE_OPTIONS)
                if len(args) > 3:  # options given by position
                    for name, value in zip(positional[3:], args[3:]):
                        kwargs[name] = value
                    args = args[:3]
                stages = tlc._unwrap(kwargs.pop("num_stages", None))
                if stages is not None:
                    num_stages = self.sem.const_int(stages, "tl.range's num_stages")
                    if num_stages < 0:
                        raise self.error(node, f"tl.range's num_stages must be at least 0, got {num_stages}")
                for name, default in _IGNORED_RANGE_OPTIONS.items():
                    if name in kwargs:
                        value = tlc._unwrap(kwargs.pop(name))
                        if isinstance(value, Value):
                            raise self.error(node, f"tl.range's {name} must be a constexpr")
                        if value != default:
                            _warn_ignored_range_option(name, *self.info.location(node)[:2])
            if kwargs:
                raise self.error(node, f"unexpected keyword arguments to range: {', '.join(kwargs)}")
            if not 1 <= len(args) <= 3:
                raise self.error(node, f"range expects 1 to 3 arguments, got {len(args)}")
            return RangeSpec(False, args, num_stages)
        if fn is tlc.static_range:
            if kwargs or not 1 <= len(args) <= 3:
                raise self.error(node, "static_range expects 1 to 3 positional arguments")
            return RangeSpec(True, args)
        if fn is tlc.constexpr:
            return tlc._unwrap(args[0]) if args else None
        if fn is tlc.pointer_type or fn is tlc.dtype:
            return fn(*[tlc._unwrap(a) for a in args])
        if fn in (builtins.min, builtins.max):
            name = fn.__name__
            if kwargs:
                raise self.error(node, f"{name}() takes no keyword arguments in a kernel")
            if len(args) == 1:
                only = tlc._unwrap(args[0])
                if isinstance(only, Value):
                    raise self.error(node, f"{name}() of one tensor: reduce it with tl.{name}(x, axis)")
                if not isinstance(only, (tuple, list)):
                    raise self.error(node, f"{name}() of one argument needs a tuple or list, got "
                                           f"{self._describe(only)}")
                vals = [tlc._unwrap(a) for a in only]
            else:
                vals = [tlc._unwrap(a) for a in args]
            if not vals:
                raise self.error(node, f"{name}() needs at least one value, got none")
            if all(is_const(v) for v in vals):
                try:
                    return fn(vals)
                except Exception as exc:  # noqa: BLE001 - e.g. values that do not compare
                    raise self.error(node, f"{name}(): {type(exc).__name__}: {exc}") from None
            out = vals[0]
            for v in vals[1:]:
                out = self.sem.minmax("min" if fn is builtins.min else "max", out, v)
            return out
        if fn is builtins.breakpoint or fn is _pdb_set_trace():
            # A debugger stop: nothing in a compiled kernel; the interpreter
            # (docs/interpreter.md) runs the body as Python and stops there.
            return None
        if fn is builtins.abs:
            return self.sem.math_unary("abs", args[0])
        if fn is builtins.print:
            if all(is_const(tlc._unwrap(a)) for a in args):
                print(*[tlc._unwrap(a) for a in args])
                return None
            prefix = " ".join(str(a) for a in args if isinstance(a, str))
            return self.sem.device_print(prefix, [a for a in args if not isinstance(a, str)], False)
        if fn is builtins.getattr and all(is_const(a) for a in args):
            return getattr(*args)
        if fn is builtins.isinstance and len(args) == 2 and not kwargs and is_const(tlc._unwrap(args[1])):
            # Whether a value is a number or a tensor is known at compile time
            # (a function written in the language takes both: language/random.py).
            # A compile-time value is a tl.constexpr, as Triton wraps constexpr
            # arguments and literals; the check of the other classes sees the
            # value itself.
            classes = tlc._unwrap(args[1])
            classes = classes if isinstance(classes, tuple) else (classes,)
            if tlc.constexpr in classes and is_const(tlc._unwrap(args[0])):
                return True
            try:
                return isinstance(tlc._unwrap(args[0]), tuple(c for c in classes if c is not tlc.constexpr))
            except TypeError as exc:
                raise self.error(node, f"isinstance(): {exc}") from None
        if inspect.ismethod(fn) and isinstance(fn.__self__, tlc.dtype):
            # A dtype's predicates (x.dtype.is_int(), is_floating(), ...), as in Triton.
            vals = [tlc._unwrap(a) for a in args]
            if not all(is_const(v) for v in vals) or kwargs:
                raise self.error(node, f"dtype.{fn.__name__}() takes constexpr arguments only")
            try:
                return fn(*vals)
            except Exception as exc:  # noqa: BLE001
                raise self.error(node, f"dtype.{fn.__name__}(): {type(exc).__name__}: {exc}") from None
        pure = fn in _CONST_FUNCS or fn in (py_cdiv, next_power_of_2)
        if pure:
            vals = [tlc._unwrap(a) for a in args]
            kw = {k: tlc._unwrap(v) for k, v in kwargs.items()}
            if all(is_const(v) for v in vals) and all(is_const(v) for v in kw.values()):
                reason = _const_call_too_large(fn, vals)
                if reason:
                    raise self.error(node, f"{self._fn_name(fn)}(): constexpr expression too large: {reason}")
                try:
                    result = fn(*vals, **kw)
                except Exception as exc:  # noqa: BLE001
                    raise self.error(node, f"{self._fn_name(fn)}(): {type(exc).__name__}: {exc}") from None
                return _check_constexpr_result(result)
            if fn is py_cdiv and len(vals) == 2:
                return self.sem.cdiv(*vals)
            if fn is builtins.len and isinstance(vals[0], Value) and vals[0].shape:
                return vals[0].shape[0]
            raise self.error(node, f"{self._fn_name(fn)}() can only be called on constexprs here")
        if isinstance(fn, RangeSpec):
            raise self.error(node, "a range can only be iterated over by `for`")
        raise self.error(node, f"cannot call {self._fn_name(fn)!s} from a @tilelang.jit function: "
                               "only tl builtins and other @tilelang.jit functions can be called")

    # -- inlining ------------------------------------------------------------------------------------

    def inline(self, jf, args, kwargs, node):
        if self.depth >= _MAX_INLINE_DEPTH:
            raise self.error(node, f"calls nested more than {_MAX_INLINE_DEPTH} deep "
                                   "(recursion is not supported)")
        info = jf.info()
        try:
            bound = inspect.signature(jf.fn).bind(*args, **kwargs)
        except TypeError as exc:
            raise self.error(node, f"wrong arguments to {jf.fn.__name__}(): {exc}") from None
        bound.apply_defaults()
        scope = {}
        for name, value in bound.arguments.items():
            value = tlc._unwrap(value)
            if info.is_constexpr_param(name) and isinstance(value, Value):
                raise self.error(node, f"argument '{name}' of {jf.fn.__name__}() is a constexpr "
                                       "but the value passed is computed at run time")
            scope[name] = value
        sub = CodeGenerator(info, self.b, self.sem, scope, self.depth + 1)
        try:
            return sub.run_body()
        except CompilationError as exc:
            file, line, col = self.info.location(node)
            diags = list(exc.diagnostics) + [
                Diagnostic("note", f"in the call of {jf.fn.__name__}() from here", file, line, col)]
            raise CompilationError(diags) from None

    def call_jit(self, jf, args):
        """Inlines ``jf`` on values (combine functions of reduce and scan)."""
        node = getattr(self, "_current_call", None) or self.info.fndef
        return self.inline(jf, args, {}, node)

    def run_body(self):
        saved = self.sem.call_jit
        self.sem.call_jit = self.call_jit
        try:
            self.visit_body(self.info.fndef.body)
        finally:
            self.sem.call_jit = saved
        value = self.scope.get(_RETVAL)
        if value is not None and self.scope.get(_RETURNED) is not True and \
                not _always_returns(self.info.fndef.body):
            raise self.error(self.info.fndef, f"{self.info.name}() returns a value on some paths "
                                              "and nothing at its end; return on every path")
        self.return_value = value
        return value


# ===----------------------------------------------------------------------===#
# Kernel generation
# ===----------------------------------------------------------------------===#


def _mlir_name(name: str, index: int) -> str:
    ok = name.isascii() and (name[0].isalpha() or name[0] == "_")
    return f"%{name}" if ok else f"%arg{index}"


def _descriptor_params(ssa: str, name: str, dt, divisibility: Dict[str, int], loc: str) -> List[str]:
    """The kernel parameters of a tensor descriptor argument, in the order
    the launcher packs them: the host-encoded TMA tensor map, the base
    pointer, the extents (i32) and every stride but the last (i64; the last
    is 1). The launcher guarantees what the bulk tensor copy engine needs:
    a 16-byte aligned base and strides that are multiples of 16 bytes."""
    elem = dt.element_ty
    rank = len(dt.block_shape)
    stride_divisor = max(1, 16 // max(1, elem.primitive_bitwidth // 8))
    params = [f"{ssa}_map: !tile.tensormap {loc}",
              f"{ssa}_base: {tlc.pointer_type(elem).mlir()} {{tile.divisibility = 16 : i32}} {loc}"]
    for i in range(rank):
        div = divisibility.get(f"{name}.shape{i}")
        attr = f" {{tile.divisibility = {int(div)} : i32}}" if div else ""
        params.append(f"{ssa}_shape{i}: i32{attr} {loc}")
    for i in range(rank - 1):
        attr = f" {{tile.divisibility = {stride_divisor} : i32}}" if stride_divisor > 1 else ""
        params.append(f"{ssa}_stride{i}: i64{attr} {loc}")
    return params


def _make_descriptor(sem: Semantic, ssa: str, dt) -> TensorDescValue:
    """The descriptor value a kernel sees for the parameters above."""
    rank = len(dt.block_shape)
    base = Value(f"{ssa}_base", tlc.pointer_type(dt.element_ty))
    shape = [Value(f"{ssa}_shape{i}", tlc.int32) for i in range(rank)]
    strides = [Value(f"{ssa}_stride{i}", tlc.int64) for i in range(rank - 1)] + [1]
    return sem.make_tensor_descriptor(base, shape, strides, list(dt.block_shape), tensormap=f"{ssa}_map")


def generate(jf, signature: Dict[str, tlc.dtype], constexprs: Dict[str, Any],
             divisibility: Dict[str, int], debug: bool = False):
    """Emits the kernel ``jf`` as a ``func.func``; returns (text, runtime arg names)."""
    info = jf.info()
    fndef = info.fndef
    a = fndef.args
    def_node = fndef

    def fail(node, message):
        file, line, col = info.location(node)
        raise CompilationError([Diagnostic("error", message, file, line, col)])

    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        fail(def_node, "kernels take positional parameters only (no *args, **kwargs or keyword-only)")
    builder = Builder()
    sem = Semantic(builder, debug=debug)
    scope: Dict[str, Any] = {}
    params = []
    runtime = []
    descriptors = []
    defaults = dict(zip([p.arg for p in a.args[len(a.args) - len(a.defaults):]], a.defaults))
    py_defaults = {k: v.default for k, v in inspect.signature(jf.fn).parameters.items()
                   if v.default is not inspect.Parameter.empty}
    for index, arg in enumerate(a.args):
        name = arg.arg
        if info.is_constexpr_param(name) or name in constexprs:
            if name in constexprs:
                scope[name] = tlc._unwrap(constexprs[name])
            elif name in py_defaults:
                scope[name] = tlc._unwrap(py_defaults[name])
            else:
                fail(arg, f"no value given for the constexpr parameter '{name}'")
            continue
        if name not in signature:
            if name in defaults:
                scope[name] = tlc._unwrap(py_defaults[name])
                continue
            fail(arg, f"no type given for the parameter '{name}' in the signature")
        dt = signature[name]
        ssa = _mlir_name(name, index)
        if isinstance(dt, tlc.tensor_descriptor_type):
            params.extend(_descriptor_params(ssa, name, dt, divisibility, _loc_text(*info.location(arg))))
            descriptors.append((name, ssa, dt, arg))
            runtime.append(name)
            continue
        scope[name] = Value(ssa, dt)
        attr = ""
        div = divisibility.get(name)
        if div:
            if not (dt.is_ptr() or dt.is_int()):
                fail(arg, f"divisibility applies to integer and pointer parameters; '{name}' is {dt.name}")
            attr = f" {{tile.divisibility = {int(div)} : i32}}"
        loc = _loc_text(*info.location(arg))
        params.append(f"{ssa}: {dt.mlir()}{attr} {loc}")
        runtime.append(name)
    unknown = set(signature) - {p.arg for p in a.args}
    if unknown:
        fail(def_node, f"the signature names unknown parameters: {', '.join(sorted(unknown))}")
    for name, ssa, dt, arg in descriptors:
        builder.loc = _loc_text(*info.location(arg))
        scope[name] = _make_descriptor(sem, ssa, dt)
    gen = CodeGenerator(info, builder, sem, scope, is_kernel=True)
    builder.loc = _loc_text(*info.location(def_node))
    gen.run_body()
    builder.loc = _loc_text(*info.location(def_node.body[-1] if def_node.body else def_node))
    builder.emit("return")
    body = builder.lines
    name = fndef.name if fndef.name.isascii() else "kernel"
    header = f"func.func @{name}({', '.join(params)}) {{"
    text = header + "\n" + "\n".join("  " + line for line in body) + "\n} " + \
        _loc_text(*info.location(def_node)) + "\n"
    return text, runtime
