"""Errors raised by tilelang, with the source location of every problem.

A ``CompilationError`` carries the compiler's diagnostics and renders each as
compilers do: ``file:line:col: error: message``, followed by the offending
source line and a caret under the column.
"""

from __future__ import annotations

import dataclasses
import linecache
from typing import Iterable, Optional, Sequence


@dataclasses.dataclass(frozen=True)
class Diagnostic:
    """One message from the compiler."""

    severity: str  # "error", "warning", "note" or "remark"
    message: str
    file: str = ""
    line: int = 0  # 1-based; 0 when unknown
    column: int = 0  # 1-based; 0 when unknown

    def location(self) -> str:
        if not self.file:
            return ""
        if self.line:
            return f"{self.file}:{self.line}:{self.column}"
        return self.file

    def __str__(self) -> str:
        where = self.location()
        prefix = f"{where}: " if where else ""
        return f"{prefix}{self.severity}: {self.message}"


def _source_line(diag: Diagnostic, sources: dict) -> Optional[str]:
    """The text of the line a diagnostic points at, if it can be found."""
    if diag.line <= 0:
        return None
    text = sources.get(diag.file)
    if text is not None:
        lines = text.splitlines()
        return lines[diag.line - 1] if diag.line <= len(lines) else None
    line = linecache.getline(diag.file, diag.line)
    return line.rstrip("\n") if line else None


def format_diagnostics(diagnostics: Iterable[Diagnostic], sources: Optional[dict] = None) -> str:
    """Renders diagnostics with source excerpts and carets.

    ``sources`` maps a file (or buffer) name to its text, for sources that are
    not files on disk.
    """
    sources = sources or {}
    out = []
    for diag in diagnostics:
        out.append(str(diag))
        line = _source_line(diag, sources)
        if line is not None:
            out.append("    " + line)
            if diag.column > 0:
                # Keep tabs so that the caret lines up under them.
                pad = "".join(c if c == "\t" else " " for c in line[: diag.column - 1])
                out.append("    " + pad + "^")
    return "\n".join(out)


class CompilationError(Exception):
    """A kernel or IR text could not be compiled.

    ``diagnostics`` holds every message the compiler emitted, in the order
    emitted, each error followed by its notes; ``str(err)`` shows them with
    the source line and a caret. The first error's location is also available as
    ``file``, ``line`` and ``column``.
    """

    def __init__(self, diagnostics: Sequence[Diagnostic], sources: Optional[dict] = None):
        self.diagnostics = list(diagnostics)
        first = next((d for d in self.diagnostics if d.severity == "error"), None)
        self.file = first.file if first else ""
        self.line = first.line if first else 0
        self.column = first.column if first else 0
        text = format_diagnostics(self.diagnostics, sources)
        super().__init__(text or "compilation failed without a diagnostic")


#: Set on a TypeError or ValueError that is the caller's: a bad argument or
#: launch option of ``kernel[grid](...)``. The launcher (python/src/
#: Dispatcher.cpp; InternedNames.h names the attribute too) drops the frames such an
#: error has inside tilelang, so that its traceback ends at the caller's
#: line, as the errors of Python's builtins do. Other errors (tilelang's own
#: bugs) keep every frame.
CALLERS_ERROR = "_tilelang_callers_error"


def callers_error(kind: type, message: str) -> Exception:
    """A ``kind`` (TypeError or ValueError) about the caller's arguments,
    marked so that a launch raises it from the caller's line."""
    return mark_callers_error(kind(message))


def mark_callers_error(error: Exception) -> Exception:
    """Marks ``error`` (one a check raised) as the caller's; returns it."""
    setattr(error, CALLERS_ERROR, True)
    return error
