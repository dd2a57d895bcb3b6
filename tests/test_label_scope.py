"""One label per kernel across a report's tables: a kernel whose base name it shares with another keeps the ‹…›
suffix that tells them apart in every table — also in a table that lists only one of the two (kernel outliers,
distributions of the critical set) — in the console, Markdown and HTML alike."""

from __future__ import annotations

import html as _html
import json
import re

from gpulens.reports._names import label_scope, short_names
from tests.test_cli import run

T = 1_700_000_000_000_000  # µs since 1970: Kineto's clock
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, "
       "3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)")
MUL = ("void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<float, float, float, "
       "at::native::MulFunctor<float> >, at::detail::Array<char*, 3> >(int, at::native::BinaryFunctor<float, float, "
       "float, at::native::MulFunctor<float> >, at::detail::Array<char*, 3>)")


def _trace(path):
    """20 launches of ADD (50 µs, the eighth 400 µs: the one outlier) then 2 of MUL (2 µs): only ADD is critical and
    only ADD has an outlier, so those tables list ADD alone."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::warmup", "pid": 1, "tid": 1, "ts": T, "dur": 5}]
    t = T + 10
    for i in range(20):
        d = 400 if i == 7 else 50
        ev.append({"ph": "X", "cat": "kernel", "name": ADD, "pid": 0, "tid": 7, "ts": t, "dur": d,
                   "args": {"device": 0, "stream": 7}})
        t += d + 5
    for _ in range(2):
        ev.append({"ph": "X", "cat": "kernel", "name": MUL, "pid": 0, "tid": 7, "ts": t, "dur": 2,
                   "args": {"device": 0, "stream": 7}})
        t += 10
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


class _Hot:
    def __init__(self, names):
        import pandas as pd

        self.table = pd.DataFrame({"name": names})


class _Source:
    def __init__(self, names):
        self.results = {"hotspots": _Hot(names)}


class _Report:
    def __init__(self, *names):
        self.sources = [_Source(list(names))]


def test_label_in_scope_is_the_label_among_all_kernels():
    both = short_names([ADD, MUL])
    alone = short_names([ADD])[0]
    # outside a report: ADD alone has nothing to be told apart from (the base name only)
    assert alone == "vectorized_elementwise_kernel" and both[0] != both[1] and "‹" in both[0]
    with label_scope(_Report(ADD, MUL)):
        assert short_names([ADD]) == [both[0]]  # as among both, though listed alone
        assert short_names([MUL, ADD]) == [both[1], both[0]]
        other = "void other_kernel<float>(float*)"
        assert short_names([other]) == ["other_kernel"]  # a name outside the scope is labelled too
    assert short_names([ADD])[0] == alone  # the scope ends with the block


def _rows_naming(text: str, base: str) -> list[str]:
    return [ln for ln in text.splitlines() if base in ln]


def test_every_table_shows_the_same_label(tmp_path):
    p = _trace(tmp_path / "t.json")
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    con = run("analyze", str(p), "--no-cache", "--markdown", str(md), "--html", str(page),
              columns=200).stdout  # wide enough that no name wraps
    add_label = short_names([ADD, MUL])[0]
    assert "‹" in add_label
    # the console's single-kernel tables (outliers, distributions) show ADD with its suffix, never the bare base
    for title in ("Kernel outliers", "Kernel distributions"):
        sec = con[con.index(title):]
        sec = sec[:sec.index("└")]
        rows = _rows_naming(sec, "vectorized_elementwise_kernel")
        assert rows and all(add_label in r for r in rows), (title, rows)
    m = md.read_text().replace("\\_", "_")  # Markdown escapes the underscores of names
    sec = m[m.index("### Kernel outliers"):]
    sec = sec[:sec.index("\n\n###")]
    rows = _rows_naming(sec, "vectorized_elementwise_kernel")
    assert rows and all(add_label in r for r in rows)
    h = _html.unescape(page.read_text())
    # every place the page names the kernel is a told-apart label (‹…›, JSON-escaped \u2039 in the charts' specs)
    # or the full name (followed by its template arguments): never the bare base name
    labels = re.findall(r"vectorized_elementwise_kernel(?! ‹| \\u2039|<|\\u0026lt;)", h)
    assert not labels
    assert h.count(add_label) >= 3  # top kernels, outliers, distributions, the kernel's page


def _section_of(text: str, title: str) -> str:
    sec = text[text.index(title):]
    return sec[:sec.index("└")]


def test_one_label_in_every_console_table_and_the_markdown_verdicts(tmp_path):
    """The demo's 256x128 GEMM (41.28 µs, one launch): the label its Top kernels row shows is the one the Roofline,
    Occupancy and Kernel verdicts tables and the Markdown verdicts show — no table clips it to another width."""
    md = tmp_path / "r.md"
    con = run("analyze", "--demo", "--no-cache", "--markdown", str(md), columns=200).stdout
    row = next(ln for ln in _section_of(con, "Top kernels").splitlines() if "41.28 µs" in ln)
    label = row.split("│")[2].strip()  # │ ★ │ label │ calls │ …
    assert "256x128" in label, label
    for title in ("Roofline on", "Occupancy (", "Kernel verdicts"):
        assert label in _section_of(con, title), title
    verdicts = md.read_text().replace("\\_", "_")
    verdicts = verdicts[verdicts.index("### Kernel verdicts"):]
    assert f"| {label} | 41.28 µs |" in verdicts
