"""Console tables whose figures never wrap: a figure ("625.56 ms", "12.3 %", "1,234") is one unbreakable cell.

Rich shrinks every column when a table is wider than the terminal, and a shrunk figure is folded over two lines or
cut with an ellipsis — a number a person then misreads. :class:`FitTable` measures at render time (it knows the
terminal's width then): figure columns are ``no_wrap`` and keep their full width; text columns (names, advice) wrap
down to :data:`TEXT_MIN` characters; when that still does not fit, optional columns are left out (the last
``optional`` first) and a caption names them. Formatting only: cells arrive as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

#: Narrowest a wrapping text column is squeezed to.
TEXT_MIN = 12
#: Width one column adds besides its content: one space of padding on each side and one border.
COLUMN_FRAME = 3


@dataclass
class Col:
    """One column of a :class:`FitTable`.

    Attributes:
        header: the header (it may wrap at spaces).
        justify: ``"left"`` or ``"right"``.
        figure: a figure or a short label that is never wrapped nor cut (``False``: text that may wrap).
        optional: may be left out when the terminal is too narrow (figures and text alike).
    """

    header: str
    justify: str = "right"
    figure: bool = True
    optional: bool = False


def _width(cell: Any) -> int:
    if isinstance(cell, Text):
        return max((cell_len(line) for line in cell.plain.splitlines()), default=0)
    return max((cell_len(line) for line in str(cell).splitlines()), default=0)


def _two_lines(header: str) -> str:
    """The header broken at the space that makes its longer line shortest (one line when it has no space)."""
    words = header.split()
    if len(words) < 2:
        return header
    cuts = [(" ".join(words[:k]), " ".join(words[k:])) for k in range(1, len(words))]
    a, b = min(cuts, key=lambda ab: max(cell_len(ab[0]), cell_len(ab[1])))
    return f"{a}\n{b}"


def _header_min(header: str) -> int:
    return max((cell_len(line) for line in _two_lines(header).splitlines()), default=0)


class FitTable:
    """A rich renderable table that fits the terminal without wrapping a figure (see module docstring).

    Args:
        title: table title.
        cols: the columns, in display order.
        rows: cells (str or rich Text), one list per row, in ``cols`` order.
        note: what the caption says about left-out columns (``{cols}`` is replaced by their headers).
    """

    def __init__(self, title: str, cols: Sequence[Col], rows: Sequence[Sequence[Any]],
                 note: str = "left out at this terminal width: {cols}", **table_kw: Any):
        self.title, self.cols, self.rows, self.note, self.table_kw = title, list(cols), [list(r) for r in rows], \
            note, table_kw

    def need(self, i: int) -> int:
        """Characters column ``i`` needs (content only): a figure its widest cell, text at most :data:`TEXT_MIN`."""
        c = self.cols[i]
        widest = max([_width(r[i]) for r in self.rows] + [0])
        if c.figure:
            return max(widest, _header_min(c.header))
        return max(min(widest, TEXT_MIN), min(_header_min(c.header), TEXT_MIN))

    def kept(self, width: int) -> list[int]:
        """Indices of the columns shown at ``width`` characters: optional ones dropped, last first, until it fits."""
        keep = list(range(len(self.cols)))
        optional = [i for i in keep if self.cols[i].optional]
        while sum(self.need(i) + COLUMN_FRAME for i in keep) + 1 > width and optional:
            keep.remove(optional.pop())
        return keep

    def table(self, width: int) -> Table:
        """The rich Table for a terminal ``width`` characters wide."""
        keep = self.kept(width)
        dropped = [self.cols[i].header for i in range(len(self.cols)) if i not in keep]
        kw = dict(self.table_kw)
        if dropped:
            kw.setdefault("caption", self.note.format(cols=", ".join(dropped)))
            kw.setdefault("caption_justify", "left")
        t = Table(title=self.title, title_justify="left", **kw)
        for i in keep:
            c = self.cols[i]
            if c.figure:  # a no_wrap header does not wrap either: break it at its spaces when wider than the cells
                head = c.header if cell_len(c.header) <= self.need(i) else _two_lines(c.header)
                t.add_column(head, justify=c.justify, no_wrap=True, min_width=self.need(i))
            else:
                t.add_column(c.header, justify=c.justify, overflow="fold", min_width=min(self.need(i), TEXT_MIN))
        for r in self.rows:
            t.add_row(*(r[i] if isinstance(r[i], Text) else Text(str(r[i])) for i in keep))
        return t

    def __rich_console__(self, console: Any, options: Any):
        yield self.table(options.max_width)
