"""Session 50: the HTML dashboard's tables fit a 1280 px window by design, and its stacked bars look as full as
they are.

Faults found on screenshots at 1280×800 (and measured with every tab shown: 43 table frames over 6 reports ran past
their frame and scrolled sideways):

* the per-rank breakdown drew idle, the largest part (54 % of a rank's span on the multi-rank pair), as three thin
  grey lines on an empty bar (plotly's pattern alone, no fill): each bar looked ~45 % full;
* per-GPU / per-rank tables with 15–26 figure columns (the idle split, the ranks compared) were 1,500–2,900 px
  wide for 1–2 GPUs: they are now drawn one row per figure, one column per GPU;
* a column whose value is the same on every row ("vendor amd", "ridge point") took a column's width on each row:
  it is said once above the table;
* the diff's per-kernel table gave the row label, the base kernels and the candidate kernels ~83 px each, so names
  wrapped a few letters a line: the row's kernels now sit under its label in one name cell.

Structure is checked by parsing the HTML with the standard library (html.parser); the frame widths by a real
browser (skips without Chromium, ChromeDriver and Selenium).
"""

from __future__ import annotations

import gzip
import json
from html.parser import HTMLParser

import pandas as pd
import pytest

from tests.conftest import KINETO

MULTIRANK = KINETO / "multirank"
H100_BERT = KINETO / "tracelens_h100_bert-small.json.gz"
MI300X_BERT = KINETO / "tracelens_mi300x_bert-small.json.gz"


class Tables(HTMLParser):
    """Every ``<table>`` of a page: its class, header cells and body rows (cells as (tag, attrs, text))."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._stack: list[dict] = []
        self._cell: list | None = None
        self._part = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._stack.append({"class": a.get("class") or "", "head": [], "rows": []})
        elif not self._stack:
            return
        elif tag in ("thead", "tbody"):
            self._part = tag
        elif tag == "tr":
            self._stack[-1]["rows" if self._part == "tbody" else "head"].append([])
        elif tag in ("td", "th"):
            self._cell = [tag, a, ""]
        elif tag == "span" and self._cell is not None:
            self._cell[2] += "\x00" if "title" in a else ""  # marks where a titled span starts
            self._cell[1].setdefault("spans", []).append(a)

    def handle_endtag(self, tag):
        if tag == "table" and self._stack:
            self.tables.append(self._stack.pop())
        elif tag in ("td", "th") and self._cell is not None and self._stack:
            t = self._stack[-1]
            (t["rows"] if self._part == "tbody" else t["head"])[-1].append(tuple(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data


def _tables(page: str) -> list[dict]:
    p = Tables()
    p.feed(page)
    return p.tables


def _ranks_table(n_cols: int, n_rows: int = 2) -> tuple[pd.DataFrame, dict]:
    """A per-rank table: rank, GPU, then ``n_cols - 2`` times in ns (row r, column j: (r + 1) · (j + 1) ms)."""
    data = {"rank": list(range(n_rows)), "device_id": [0] * n_rows}
    for j in range(n_cols - 2):
        data[f"part_{j}_ns"] = [(r + 1) * (j + 1) * 1_000_000 for r in range(n_rows)]
    docs = {"rank": "rank [id]", "device_id": "GPU [id]", **{f"part_{j}_ns": f"part {j} [ns]" for j in range(n_cols - 2)}}
    return pd.DataFrame(data), docs


def test_a_few_gpus_many_figures_table_is_drawn_one_row_per_figure():
    """2 ranks × 14 figure columns: a 16-column row of 75-px figures scrolled at 1280 px. Drawn flipped: a column
    per rank headed "rank 0 · GPU 0", a row per figure, every figure formatted with its unit and right-aligned."""
    from gpulens.reports._html_parts import table_html

    df, docs = _ranks_table(16)
    (t,) = _tables(table_html(df, docs=docs))
    assert "flipped" in t["class"].split()
    assert [c[2] for c in t["head"][0]] == ["figure", "rank 0 · GPU 0", "rank 1 · GPU 0"]
    assert len(t["rows"]) == 14  # the two id columns head the columns; the 14 figures are rows
    row = t["rows"][2]  # part 2: (r + 1) · 3 ms
    assert row[0][0] == "th" and row[0][2] == "part 2"
    assert [c[2] for c in row[1:]] == ["3.00 ms", "6.00 ms"]
    assert all(c[1].get("class") == "num" for c in row[1:])


def test_a_long_or_narrow_per_rank_table_stays_one_row_per_rank():
    """Nine ranks (more than a screen's columns) or 11 columns (fits as is) keep the row-per-rank table."""
    from gpulens.reports._html_parts import table_html

    for n_cols, n_rows in ((16, 9), (11, 2)):
        df, docs = _ranks_table(n_cols, n_rows)
        (t,) = _tables(table_html(df, docs=docs))
        assert "flipped" not in t["class"].split() and len(t["rows"]) == n_rows
        assert [c[2] for c in t["head"][0]][:3] == ["rank", "part 0", "part 1"] if n_rows >= 3 else \
            [c[2] for c in t["head"][0]][:3] == ["rank", "GPU", "part 0"]


def test_a_value_the_same_on_every_row_is_said_once_above_the_table():
    """Four kernels, vendor "amd" on each and one ridge point: two columns that said nothing per row. They are
    stated once ("Same on every row — vendor: amd; ridge point: …"); a column that differs on one row keeps its column."""
    from gpulens.reports._html_parts import table_html

    df = pd.DataFrame({"name": [f"k{i}" for i in range(4)], "calls": [1, 2, 3, 4], "time_ns": [1000, 2000, 3000, 4000],
                       "vendor": ["amd"] * 4, "ridge_point": [1.5] * 4, "bound": ["memory", "memory", "memory", "compute"],
                       "dram_pct": [10.0, 20.0, 30.0, 40.0]})
    docs = {"name": "kernel [name]", "vendor": "vendor [text]", "ridge_point": "ridge point [FLOP/byte]",
            "bound": "bound [text]", "time_ns": "time [ns]", "dram_pct": "DRAM [%]"}
    page = table_html(df, docs=docs)
    (t,) = _tables(page)
    heads = [c[2] for c in t["head"][0]]
    assert "vendor" not in heads and "ridge point" not in heads
    assert "bound" in heads and "DRAM SOL" in heads and "calls" in heads
    assert '<p class="note same">Same on every row — vendor: amd; ridge point: 1.5' in page
    assert [r[heads.index("bound")][2] for r in t["rows"]] == ["memory", "memory", "memory", "compute"]


def test_one_kernel_many_figures_is_a_list_of_figures():
    """One kernel's 15 speed-of-light figures (an ncu or omniperf single-kernel run) were one 1,600-px row: drawn
    as a figure column, the kernel's short name heading it with its full name on hover."""
    from gpulens.reports._html_parts import table_html

    full = "void gemm_tiled_kernel<float, 32>(float const*, float const*, float*, int, int, int)"
    df = pd.DataFrame({"name": [full], **{f"m{j}_pct": [float(j)] for j in range(14)}})
    (t,) = _tables(table_html(df, docs={"name": "kernel [name]"}))
    assert t["class"].split() == ["data", "flipped", "one"]
    (head,) = t["head"]  # a name cell (not a <th>: the kernel's name is a value, not a column label)
    assert head[1][0] == "td" and head[1][1]["title"] == full and "gemm_tiled_kernel" in head[1][2]
    assert [r[1][2] for r in t["rows"]][:3] == ["0.0 %", "1.0 %", "2.0 %"]


@pytest.fixture(scope="module")
def multirank_page():
    import gpulens
    from gpulens.reports import html

    rep = gpulens.analyze([MULTIRANK])
    return rep, html.render(rep)


def test_multirank_stacked_bars_fill_every_part(multirank_page):
    """Idle, 54 % of the pair's summed span, was plotly's pattern on an empty bar. Every drawn part of the per-rank
    and per-GPU breakdowns is a filled bar (the pattern drawn over its colour), and each rank's parts add up to
    its span (what the bar's length says)."""
    from gpulens.reports._format import time_scale
    from gpulens.reports._html_pages import breakdown_page, multirank_page as ranks_page

    rep, _ = multirank_page
    s = rep.sources[0]
    t = s.results["breakdown"].table
    for panels in (breakdown_page(s, 50), ranks_page(s, 50)):
        fig = panels[0].figure
        parts = [tr for tr in fig["data"] if tr.get("offsetgroup") != "hidden"]
        names = [tr["name"] for tr in parts]
        assert "computation" in names and any(n.startswith("idle") for n in names), names
        for tr in parts:
            pat = tr["marker"].get("pattern") or {}
            assert tr["marker"]["color"] and (not pat.get("shape") or pat.get("fillmode") == "overlay"), tr["name"]
        div, unit = time_scale(t["span_ns"])
        assert fig["layout"]["xaxis"]["title"]["text"].startswith(f"time [{unit}]")
        for i, span in enumerate(t["span_ns"].tolist()):  # each bar is as long as its rank's span
            assert sum(tr["x"][i] or 0 for tr in parts) * div == pytest.approx(span, rel=1e-6)


def test_multirank_idle_split_and_ranks_tables_are_flipped(multirank_page):
    """The pair's idle split (26 columns) and ranks compared (15 columns) read one row per figure, one column per
    rank, each figure as the JSON states it (ns there, formatted here)."""
    from gpulens.reports._format import fmt_ns

    rep, page = multirank_page
    flipped = [t for t in _tables(page) if "flipped" in t["class"].split()]
    heads = [[c[2] for c in t["head"][0]] for t in flipped]
    assert ["figure", "rank 0 · GPU 0", "rank 1 · GPU 1"] in heads or ["figure", "rank 0", "rank 1"] in heads
    ranks = rep.sources[0].results["ranks"].table
    t = next(t for t in flipped if any(r[0][2] == "collective wait" for r in t["rows"]))
    row = next(r for r in t["rows"] if r[0][2] == "collective wait")
    assert [c[2] for c in row[1:]] == [fmt_ns(v) for v in ranks["collective_wait_ns"]]


def _trace_kernels(path) -> list[str]:
    """The GPU kernel and copy names the trace records, spaces removed (the diff keys a kernel by its name with
    "> >" closed up and its parameter list left out)."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return ["".join(e["name"].split()) for e in doc["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy")]


def _recorded(key: str, names: list[str]) -> bool:
    """True when ``key`` is a kernel of ``names`` (:func:`_trace_kernels`): the start of one recorded name."""
    k = "".join(key.split())
    return any(n.startswith(k) for n in names)


def test_diff_per_kernel_rows_name_their_kernels_under_the_label():
    """H100 against MI300X (BERT-small): rows matched by operator and shapes name a different kernel on each side.
    The per-kernel table has no base/candidate kernel columns of their own; each row's name cell says "base: …" and
    "candidate: …" (or "both runs: …"), each kernel's full name — as the trace records it — on hover."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html

    page = render_html(diff(H100_BERT, MI300X_BERT))
    section = page[page.index('<section id="kernels">'):page.index("</section>", page.index('<section id="kernels">'))]
    (t,) = _tables(section)
    heads = [c[2] for c in t["head"][0]]
    assert "kernel" in heads and "base kernels" not in heads and "candidate kernels" not in heads
    h100, mi300 = _trace_kernels(H100_BERT), _trace_kernels(MI300X_BERT)
    seen_pair = False
    for row in t["rows"]:
        cell = row[heads.index("kernel")]
        assert "kk" in cell[1]["class"].split()
        text = cell[2]
        titles = [s["title"] for s in cell[1].get("spans", []) if "title" in s]
        if "both runs:" in text:
            assert titles and all(_recorded(x, h100) and _recorded(x, mi300) for x in titles), titles
        elif "base:" in text and "candidate:" in text and "none" not in text:
            seen_pair = True
            base_txt, cand_txt = text.split("candidate:")
            n_base = base_txt.count("\x00")
            assert all(_recorded(x, h100) for x in titles[:n_base]), titles
            assert all(_recorded(x, mi300) for x in titles[n_base:]), titles
    assert seen_pair  # flash_fwd_kernel (H100) against attn_fwd (MI300X) at least


def test_a_long_signature_in_a_prose_cell_wraps_at_its_separators_only():
    """An annotation path or a demangled signature (no space in 100 characters) set its column to 640 px. The
    prose cell offers a line break after each separator (``::``, ``_``, ``,``, ``<`` …) and nowhere else: the text
    a reader copies is unchanged, and no word is cut ("vectorized" stays whole)."""
    import html as _html
    import re

    from gpulens.reports._html_parts import table_html

    sig = "void at::native::vectorized_elementwise_kernel<4,at::native::CUDAFunctor_add<float>,std::array<char*,3>>"
    text = f"launched 1,024 times by {sig} (evidence)"
    cell = re.search(r'<td class="prose">(.*?)</td>', table_html(pd.DataFrame({"why": [text], "k": ["x"]}),
                                                                  docs={"why": "why [text]", "k": "k [text]"})).group(1)
    assert _html.unescape(cell.replace("<wbr>", "")) == text
    pieces = _html.unescape(cell).split("<wbr>")
    assert len(pieces) >= 8
    assert all(re.search(r"(::|[,/;<(_.>|])$", p) for p in pieces[:-1]), pieces
    assert "vectorized_" in pieces and "launched 1,024 times by " in cell  # short words: no break offered
