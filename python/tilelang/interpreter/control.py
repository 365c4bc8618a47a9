"""Interpreter: the kernel's Python, rewritten where the compiled meaning of
a run-time branch differs from Python's.

The compiler gives the result of a run-time branch one type: a conditional
expression ``a if c else b`` has the type of both sides merged (``where``'s
rule), and after ``if c: ... else: ...`` every variable either branch
assigned has the type the two branches' values merge to. Python keeps the
taken side's object: a Python number stays a Python number, and ``-x`` or
``x // y`` then compute on it with Python's rules. So the interpreter runs
a copy of the kernel's function, compiled from its source, in which

- ``a if c else b`` becomes ``_tl_ifexp(KEY, c, lambda: a, lambda: b)``:
  the taken side, given the type the compiler gave the expression (both
  sides, as ``tl.where``, when ``c`` is a tensor: the compiler accepts that
  only for sides without effects);
- ``if c:`` keeps its condition in a temporary, and after the statement each
  variable either branch assigns gets the type the compiler gave it there
  (``_tl_merged``), when the condition was a run-time value;
- a run-time loop (``for`` over ``range``/``tl.range``, ``while``) gives the
  variables it carries their compiled type (``_tl_carried``: a Python
  number its natural type, as the compiler carries it) before the loop, at
  the start of every iteration and after it.

The types come from the frontend itself: it records them
(``codegen.TYPE_LOG``, keyed by the node's location) when the interpreter
runs it for a specialization. Line numbers are the source's, so tracebacks
and pdb show the kernel as written.
"""

from __future__ import annotations

import ast
import copy
import types

from tilelang.interpreter.values import TValue


def _assigned(stmts):
    """Names a list of statements assigns (not inside nested functions)."""
    names = []

    class Collect(ast.NodeVisitor):
        def visit_Name(self, node):
            if isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)

        def visit_FunctionDef(self, node):
            pass

        visit_Lambda = visit_AsyncFunctionDef = visit_FunctionDef

    for stmt in stmts:
        Collect().visit(stmt)
    return names


class _Rewrite(ast.NodeTransformer):
    def __init__(self, info):
        self.info = info
        self.counter = 0

    def _key(self, node):
        return ast.Constant(value=self.info.location(node))

    def visit_IfExp(self, node):
        node = self.generic_visit(node)
        lam = lambda body: ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],  # noqa: E731
                                                         kw_defaults=[], defaults=[]), body=body)
        call = ast.Call(func=ast.Name(id="_tl_ifexp", ctx=ast.Load()),
                        args=[self._key(node), node.test, lam(node.body), lam(node.orelse)], keywords=[])
        return ast.copy_location(call, node)

    def _retype(self, key, names, node, helper="_tl_carried", cond=None):
        """``if "x" in locals(): x = helper(KEY, "x", [cond,] x)`` for each name."""
        out = []
        for name in names:
            test = ast.Compare(left=ast.Constant(value=name), ops=[ast.In()],
                               comparators=[ast.Call(func=ast.Name(id="locals", ctx=ast.Load()), args=[],
                                                     keywords=[])])
            args = [key, ast.Constant(value=name)] + ([cond] if cond is not None else []) + \
                [ast.Name(id=name, ctx=ast.Load())]
            value = ast.Call(func=ast.Name(id=helper, ctx=ast.Load()), args=args, keywords=[])
            assign = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=value)
            out.append(ast.copy_location(ast.If(test=test, body=[assign], orelse=[]), node))
        return out

    def _loop(self, node):
        # A run-time loop carries the variables it assigns that exist before
        # it in the type the compiler gave them (a Python number as its
        # natural type): at the loop's entry, at every iteration's start and
        # after it.
        node = self.generic_visit(node)
        key = self._key(node)
        names = [n for n in _assigned(node.body) if not (isinstance(node, ast.For) and
                                                         n in _assigned([ast.Assign(targets=[node.target],
                                                                                    value=ast.Constant(0))]))]
        node.body = self._retype(key, names, node) + node.body
        return self._retype(key, names, node) + [node] + self._retype(key, names, node)

    visit_For = visit_While = _loop

    def visit_If(self, node):
        node = self.generic_visit(node)
        self.counter += 1
        temp = f"_tl_cond{self.counter}"
        key = self._key(node)
        save = ast.copy_location(ast.Assign(targets=[ast.Name(id=temp, ctx=ast.Store())], value=node.test), node)
        node.test = ast.copy_location(ast.Name(id=temp, ctx=ast.Load()), node.test)
        # if "x" in locals(): x = _tl_merged(KEY, "x", _tl_condN, x)
        return [save, node] + self._retype(key, _assigned(node.body + node.orelse), node, "_tl_merged",
                                           ast.Name(id=temp, ctx=ast.Load()))


def rewrite(jf, globals_: dict):
    """``jf``'s function compiled from its rewritten source over ``globals_``,
    with its closure, defaults and line numbers."""
    info = jf.info()
    fn = jf.fn
    fndef = copy.deepcopy(info.fndef)
    fndef.decorator_list = []
    fndef.body = [s for stmt in fndef.body for s in _as_list(_Rewrite(info).visit(stmt))]
    freevars = list(fn.__code__.co_freevars)
    # def _tl_make(<free variables>): <the function>; return it -- so that
    # the function's free variables are closure cells, filled from fn's.
    maker = ast.FunctionDef(name="_tl_make", args=ast.arguments(
        posonlyargs=[], args=[ast.arg(arg=v) for v in freevars], kwonlyargs=[], kw_defaults=[], defaults=[]),
        body=[fndef, ast.Return(value=ast.Name(id=fndef.name, ctx=ast.Load()))], decorator_list=[],
        returns=None)
    module = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, info.line_offset)
    _shift_columns(module, info.col_offset)
    code = compile(module, info.file, "exec")
    maker_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in maker_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn.__name__)
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = tuple(cells[name] for name in inner.co_freevars) if inner.co_freevars else None
    f = types.FunctionType(inner, globals_, fn.__name__, fn.__defaults__, closure)
    f.__kwdefaults__ = fn.__kwdefaults__
    return f


def _as_list(item):
    return item if isinstance(item, list) else [item]


def _shift_columns(tree, offset):
    if not offset:
        return
    for node in ast.walk(tree):
        if hasattr(node, "col_offset") and node.col_offset is not None:
            node.col_offset += offset
        if getattr(node, "end_col_offset", None) is not None:
            node.end_col_offset += offset


def codes(f):
    """The code objects of ``f`` and of the lambdas and functions in it."""
    out, todo = set(), [f.__code__]
    while todo:
        code = todo.pop()
        out.add(code)
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return out


# -- the helpers the rewritten code calls --------------------------------------------------


def make_helpers(current_semantic):
    def ifexp(key, cond, then, otherwise):
        if not isinstance(cond, TValue):
            return then() if cond else otherwise()
        sem = current_semantic()
        if cond.shape:
            return sem.where(cond, then(), otherwise())
        value = then() if bool(cond) else otherwise()
        return _typed(sem, key, None, value)

    def merged(key, name, cond, value):
        if not isinstance(cond, TValue):
            return value
        sem = current_semantic()
        if isinstance(value, tuple):
            return tuple(_typed(sem, key, (name, i), v) for i, v in enumerate(value))
        return _typed(sem, key, (name, None), value)

    def carried(key, name, value):
        entry = current_semantic().type_log.get(key)
        if not entry or (name, None) not in entry:
            return value
        return _typed(current_semantic(), key, (name, None), value)

    return {"_tl_ifexp": ifexp, "_tl_merged": merged, "_tl_carried": carried}


def _typed(sem, key, name, value):
    entry = sem.type_log.get(key)
    recorded = entry.get(name) if entry else None
    if recorded is None or not isinstance(value, (TValue, bool, int, float)):
        return value
    dt, shape = recorded
    if isinstance(value, TValue) and value.dtype == dt and value.shape == shape:
        return value
    return sem.as_value(value, dt, shape)
