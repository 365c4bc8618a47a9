"""How the inspector writes what a store holds, which anyone who could write
the file chose: for a terminal, with control characters escaped, and for a
spreadsheet, with cells that cannot run as formulas.
"""

from __future__ import annotations

import unicodedata
from typing import List, Sequence

# Control characters (C0, DEL, C1), format characters (bidirectional
# overrides, zero-width marks), line and paragraph separators and lone
# surrogates: they move the cursor, recolour or retitle a terminal, reorder
# what is shown, or cannot be encoded at all.
_UNSAFE_CATEGORIES = ("Cc", "Cf", "Zl", "Zp", "Cs")

# A cell starting with one of these is a formula to Excel, LibreOffice and
# Google Sheets (OWASP's "CSV injection"). A leading tab or carriage return,
# which can hide one, is escaped by printable() already.
_FORMULA_STARTS = ("=", "+", "-", "@")


def _escape(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(value) -> str:
    """``value`` as text safe to print: unsafe characters as ``\\x1b``,
    ``\\u202e``..., everything else as it is."""
    text = value if isinstance(value, str) else str(value)
    if text.isprintable():  # the common case, fast
        return text
    return "".join(_escape(ch) if unicodedata.category(ch) in _UNSAFE_CATEGORIES else ch for ch in text)


def table(rows: Sequence[Sequence[str]], indent: str = "") -> List[str]:
    """Rows as lines of left-aligned columns, every cell escaped."""
    cells = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    return [(indent + "  ".join(cell.ljust(width) for cell, width in zip(row, widths))).rstrip() for row in cells]


def csv_cell(value):
    """A CSV cell: numbers as they are; text escaped as for a terminal, and
    prefixed with ``'`` when a spreadsheet would read it as a formula (the
    csv module quotes separators, quotes and newlines)."""
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return value
    text = printable(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text
