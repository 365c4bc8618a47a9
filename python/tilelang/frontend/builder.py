"""The IR-text builder: tile IR as MLIR text, one op a line, each with the
location of the Python expression it came from.

The emitters (emitters/*.py) write ops through ``Builder.op`` and
``Builder.emit``; the code generator sets ``loc`` before each statement and
captures the lines of regions (loop and branch bodies) with ``capture``.
"""

from __future__ import annotations

import contextlib
from typing import List, Optional, Tuple

from tilelang.frontend.values import Value, check_numel
from tilelang.language.core import dtype


class Builder:
    """Accumulates op lines; every op gets the current location."""

    def __init__(self):
        self.lines: List[str] = []
        self.counter = 0
        self.loc = "loc(unknown)"
        # Run-time branches and loops emitted (CodeGen._count_control_flow).
        self.control_flow_ops = 0

    def fresh(self) -> str:
        name = f"%{self.counter}"
        self.counter += 1
        return name

    def emit(self, text: str) -> None:
        self.lines.append(f"{text} {self.loc}")

    def op(self, text: str, dt: dtype, shape: Tuple[int, ...] = ()) -> Value:
        # Every op with a new shape comes through here (broadcasting, joins,
        # dots, ... as well as the shapes written in the kernel).
        check_numel(shape)
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return Value(name, dt, shape)

    @contextlib.contextmanager
    def capture(self, into: Optional[List[str]] = None):
        saved = self.lines
        self.lines = [] if into is None else into
        try:
            yield self.lines
        finally:
            self.lines = saved

    def append_region(self, body: List[str]) -> None:
        self.lines.extend("  " + line for line in body)
