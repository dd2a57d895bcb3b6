"""Console tables whose figures never wrap: a figure ("625.56 ms", "12.3 %", "1,234") is one unbreakable cell.

Rich shrinks every column when a table is wider than the terminal, and a shrunk figure is folded over two lines or
cut with an ellipsis — a number a person then misreads. :class:`FitTable` measures at render time (it knows the
terminal's width then): figure columns are ``no_wrap`` and keep their full width; text columns (names, advice) wrap
down to :data:`TEXT_MIN` characters; when that still does not fit, optional columns are left out (the last
``optional`` first) and a caption names them. A long-text column marked ``below`` (next steps) that would get fewer
than :data:`BELOW_MIN` characters leaves the table instead: the rows are numbered and its texts follow the table,
one numbered paragraph each (a 200-character sentence in a 13-character column filled 17 lines per row at 80
columns). Inside text, a number and its unit (``25 %``, ``3.20 ms``, ``0.12 waves``) never break apart
(:class:`GluedText`; rich breaks at any whitespace, no-break space included). Formatting only: cells arrive as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

#: Narrowest a wrapping text column is squeezed to.
TEXT_MIN = 12
#: Width one column adds besides its content: one space of padding on each side and one border.
COLUMN_FRAME = 3
#: Narrowest a kernel-name column is squeezed to (a short name and its tile shapes on two lines at most).
NAME_MIN = 22
#: Narrowest a ``below`` text column is kept in the table; narrower, its texts follow the table.
BELOW_MIN = 36
#: A number followed by its unit: the space between them must not break a line.
NUMBER_UNIT = re.compile(r"(?<=[0-9]) (?=(?:%|[pnuµm]?s|[kMGTP]?i?B(?:/s)?|[kMGTP]?FLOP(?:/[sB])?|[kMGT]?Hz|waves?|"
                         r"blocks?|SMs?|CUs?|calls|launches|kernels|×)(?![\w/]))")
#: Stands in for a glued space while rich wraps (a private-use character: one cell wide, not whitespace).
_GLUE = "\ue000"


class GluedText(Text):
    """Text in which a number and its unit (``25 %``, ``3.20 ms``) stay on one line when rich wraps it."""

    def wrap(self, console: Any, width: int, **kw: Any):  # noqa: D102 - rich's Text.wrap
        tmp = self.copy()
        tmp.plain = NUMBER_UNIT.sub(_GLUE, self.plain)
        lines = tmp.wrap(console, width, **kw)
        for line in lines:
            line.plain = line.plain.replace(_GLUE, " ")
        return lines


def glued(cell: Any) -> GluedText:
    """``cell`` (str or Text) as :class:`GluedText`, its style and spans kept."""
    from gpulens.reports._md_safe import visible

    t = cell if isinstance(cell, Text) else Text(str(cell))
    plain = visible(t.plain, bidi=True)  # a name's raw control bytes (ESC…) never reach the terminal
    if len(plain) != len(t.plain):
        t = Text(plain, style=t.style, justify=t.justify, overflow=t.overflow, no_wrap=t.no_wrap, end=t.end)
    g = GluedText(t.plain, style=t.style, justify=t.justify, overflow=t.overflow, no_wrap=t.no_wrap, end=t.end)
    g._spans[:] = t._spans
    return g


@dataclass
class Col:
    """One column of a :class:`FitTable`.

    Attributes:
        header: the header (it may wrap at spaces).
        justify: ``"left"`` or ``"right"``.
        figure: a figure or a short label that is never wrapped nor cut (``False``: text that may wrap).
        optional: may be left out when the terminal is too narrow (figures and text alike).
        below: long text (advice) that leaves the table for numbered paragraphs under it when it would get fewer
            than :data:`BELOW_MIN` characters.
        min_text: narrowest a text column is squeezed to (kernel names: wide enough to read; optional columns are
            left out first).
        drop_first: among optional columns, a higher value is left out earlier (ties: the last column first).
    """

    header: str
    justify: str = "right"
    figure: bool = True
    optional: bool = False
    below: bool = False
    min_text: int = TEXT_MIN
    drop_first: int = 0


def _width(cell: Any) -> int:
    if isinstance(cell, Text):
        return max((cell_len(line) for line in cell.plain.splitlines()), default=0)
    return max((cell_len(line) for line in str(cell).splitlines()), default=0)


def _two_lines(header: str) -> str:
    """The header broken at the space that makes its longer line shortest (one line when it has no space); never
    between a number and its unit (``95 % CI`` → ``95 %`` / ``CI``)."""
    words = NUMBER_UNIT.sub(_GLUE, header).split()
    if len(words) < 2:
        return header
    cuts = [(" ".join(words[:k]), " ".join(words[k:])) for k in range(1, len(words))]
    a, b = min(cuts, key=lambda ab: max(cell_len(ab[0]), cell_len(ab[1])))
    return f"{a}\n{b}".replace(_GLUE, " ")


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
        # column → need() and _widest() of it, measured once: asked for every column at every layout step
        self._need: dict[int, int] = {}
        self._wide: dict[int, int] = {}

    def need(self, i: int) -> int:
        """Characters column ``i`` needs (content only): a figure its widest cell, text at most :data:`TEXT_MIN`."""
        got = self._need.get(i)
        if got is None:
            c = self.cols[i]
            widest = self._widest(i)
            got = self._need[i] = max(widest, _header_min(c.header)) if c.figure else \
                max(min(widest, c.min_text), min(_header_min(c.header), c.min_text))
        return got

    def kept(self, width: int) -> list[int]:
        """Indices of the columns shown at ``width`` characters: optional ones dropped, last first, until it fits."""
        keep = list(range(len(self.cols)))
        # left out first: the highest drop_first, then the last column
        optional = sorted((i for i in keep if self.cols[i].optional), key=lambda i: (self.cols[i].drop_first, i))
        while sum(self.need(i) + COLUMN_FRAME for i in keep) + 1 > width and optional:
            keep.remove(optional.pop())
        return keep

    def fits(self, width: int) -> bool:
        """True when the table fits ``width`` characters once its optional columns are left out (text at its
        narrowest, ``below`` columns moved under it)."""
        keep = [i for i in self.kept(width) if not self.cols[i].below]
        return sum(self.need(i) + COLUMN_FRAME for i in keep) + 1 <= width

    def below(self, width: int) -> list[int]:
        """Indices of the ``below`` columns whose texts follow the table at ``width`` characters."""
        keep = self.kept(width)
        out = []
        for i in [i for i in keep if self.cols[i].below]:
            others = [j for j in keep if j != i and j not in out]
            used = sum((self.need(j) if self.cols[j].figure else min(self._widest(j), 40)) + COLUMN_FRAME
                       for j in others) + 1
            if width - used - COLUMN_FRAME < min(BELOW_MIN, self._widest(i)):
                out.append(i)
        return out

    def _widest(self, i: int) -> int:
        got = self._wide.get(i)
        if got is None:
            got = self._wide[i] = max([_width(r[i]) for r in self.rows] + [0])
        return got

    def table(self, width: int) -> Table:
        """The rich Table for a terminal ``width`` characters wide (without the texts moved below)."""
        keep = self.kept(width)
        moved = self.below(width)
        keep = [i for i in keep if i not in moved]
        dropped = [self.cols[i].header for i in range(len(self.cols)) if i not in keep and i not in moved]
        kw = dict(self.table_kw)
        if dropped:
            kw.setdefault("caption", self.note.format(cols=", ".join(dropped)))
            kw.setdefault("caption_justify", "left")
        t = Table(title=self.title, title_justify="left", **kw)
        if moved:
            t.add_column("#", justify="right", no_wrap=True)
        for i in keep:
            c = self.cols[i]
            if c.figure:  # a no_wrap header does not wrap either: break it at its spaces when wider than the cells
                head = c.header if cell_len(c.header) <= self.need(i) else _two_lines(c.header)
                t.add_column(head, justify=c.justify, no_wrap=True, min_width=self.need(i))
            else:
                t.add_column(c.header, justify=c.justify, overflow="fold", min_width=min(self.need(i), c.min_text))
        for n, r in enumerate(self.rows, 1):
            cells = [r[i] if self.cols[i].figure and isinstance(r[i], Text) else
                     Text(str(r[i])) if self.cols[i].figure else glued(r[i]) for i in keep]
            t.add_row(*([str(n)] if moved else []), *cells)
        return t

    def notes(self, width: int) -> list[Text]:
        """The texts of the columns moved below the table: ``[n] header: text`` per row (nothing when none moved)."""
        out = []
        for i in self.below(width):
            for n, r in enumerate(self.rows, 1):
                text = r[i].plain if isinstance(r[i], Text) else str(r[i])
                if text.strip():
                    out.append(glued(Text.assemble((f"[{n}] {self.cols[i].header}: ", "bold"), text)))
        return out

    def __rich_console__(self, console: Any, options: Any):
        yield self.table(options.max_width)
        yield from self.notes(options.max_width)


def name_col(header: str = "kernel") -> Col:
    """A kernel-name column: text that wraps, never narrower than :data:`NAME_MIN`."""
    return Col(header, "left", figure=False, min_text=NAME_MIN)


class FirstFit:
    """The first of several layouts of one table that fits the terminal (the last one otherwise)."""

    def __init__(self, *layouts: FitTable):
        self.layouts = layouts

    def pick(self, width: int) -> FitTable:
        """The layout shown at ``width`` characters."""
        return next((t for t in self.layouts if t.fits(width)), self.layouts[-1])

    def __rich_console__(self, console: Any, options: Any):
        yield self.pick(options.max_width)
