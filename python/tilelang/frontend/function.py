"""A function in the kernel language, as the frontend reads it.

``KernelFunction`` is what ``@tilelang.jit`` makes of a Python function
before anything compiles or launches it: the function, its parameters, its
options (``do_not_specialize``, ``debug``, ``noinline``) and its parsed
source (``FunctionInfo``, read on first use). The code generator inlines
calls to other kernel functions and the tile-IR index fingerprints them
through this class; ``tilelang.jit.JITFunction`` adds compiling and
launching on top. Keeping it here, below both, is what lets the frontend
recognise a kernel function without importing the launcher.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from typing import Iterable, Optional, Union

from tilelang.errors import CompilationError, Diagnostic
from tilelang.language import core as tlc


class FunctionInfo:
    """The parsed source of a @jit function, with where it lives in its file."""

    def __init__(self, fn):
        self.fn = fn
        self.name = fn.__name__
        try:
            lines, first = inspect.getsourcelines(fn)
            self.file = inspect.getsourcefile(fn) or fn.__code__.co_filename
        except (OSError, TypeError) as exc:
            # inspect's own error is the whole story: not chained.
            raise CompilationError([Diagnostic(
                "error", f"cannot read the source of {fn.__name__} ({exc}): a @tilelang.jit function is "
                         "compiled from its source, so it must be defined in a file (not at an interactive "
                         "prompt or in `python -c`)",
                fn.__code__.co_filename, fn.__code__.co_firstlineno, 1)]) from None
        source = "".join(lines)
        dedented = textwrap.dedent(source)
        first_line = lines[0]
        self.col_offset = len(first_line) - len(dedented.splitlines(True)[0])
        self.line_offset = first - 1
        try:
            tree = ast.parse(dedented)
        except SyntaxError as exc:
            raise CompilationError([Diagnostic(
                "error", f"syntax error: {exc.msg}", self.file,
                (exc.lineno or 1) + self.line_offset, (exc.offset or 1) + self.col_offset)])
        self.tree = tree
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        self.fndef = defs[0]
        self.globals = fn.__globals__
        self.closure = {}
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass
        self.annotations = {}
        for arg in self.fndef.args.args:
            if arg.annotation is not None:
                self.annotations[arg.arg] = ast.unparse(arg.annotation)

    def is_constexpr_param(self, name: str) -> bool:
        ann = self.fn.__annotations__.get(name, self.annotations.get(name))
        if isinstance(ann, str):
            return ann.split(".")[-1] == "constexpr"
        return ann is tlc.constexpr

    def location(self, node) -> tuple:
        return (self.file, node.lineno + self.line_offset, node.col_offset + 1 + self.col_offset)


class KernelFunction:
    """A Python function written in the kernel language (the base of
    ``JITFunction``): the function and its options; its source is parsed
    when first asked for (``info()``)."""

    def __init__(self, fn, do_not_specialize: Iterable[Union[int, str]] = (),
                 debug: Optional[bool] = None, noinline: bool = False):
        self.fn = fn
        functools.update_wrapper(self, fn)
        self.params = list(inspect.signature(fn).parameters)
        self.do_not_specialize = set()
        for item in do_not_specialize:
            self.do_not_specialize.add(self.params[item] if isinstance(item, int) else item)
        self.debug = debug
        self.noinline = noinline
        self._info = None

    def info(self) -> FunctionInfo:
        if self._info is None:
            self._info = FunctionInfo(self.fn)
        return self._info

    def _def_error(self, message: str) -> CompilationError:
        """A CompilationError located at the function's definition."""
        code = self.fn.__code__
        try:
            info = self.info()
            file, line, col = info.location(info.fndef)
        except CompilationError:
            file, line, col = code.co_filename, code.co_firstlineno, 1
        return CompilationError([Diagnostic("error", message, file, line, col)])

    def is_constexpr(self, name: str) -> bool:
        ann = self.fn.__annotations__.get(name)
        if isinstance(ann, str):
            return ann.split(".")[-1] == "constexpr"
        return ann is tlc.constexpr
