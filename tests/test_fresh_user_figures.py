"""Figures a first-time user reads in findings agree with the tables beside them (session 10, "fresh" walk).

Each test names the real input that showed the fault and derives its expected value from the trace or by hand.
"""

from __future__ import annotations

import re

import pytest

import gpulens
from gpulens.units import pct_words
from tests.conftest import shared_trace


@pytest.mark.parametrize("pct, text", [(0.4, "0.4 %"), (4.24, "4.2 %"), (9.94, "9.9 %"), (9.96, "10.0 %"),
                                       (46.3, "46.3 %"), (0.0, "0.0 %"), (46.04, "46.0 %"), (0.03, "under 0.1 %"),
                                       (100.0, "100.0 %")])
def test_pct_words_never_rounds_to_a_false_zero(pct, text):
    # hand-written: the tables' one decimal (a whole number with its ".0", as the table beside it: s48), a non-zero
    # share is never "0 %"
    assert pct_words(pct) == text


def test_roofline_findings_state_the_tables_roof_percentage():
    """tracelens_mi300x_bert-small: attn_fwd runs at 0.4 % of its roof (table) — its finding said "0 % of
    attainable". Every roofline finding's percentage must be the table's figure to the shown precision, and never 0
    for a kernel that did work."""
    rep = gpulens.analyze([shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")])
    res = rep.sources[0].results["roofline"]
    t = res.table.set_index("name")
    checked = 0
    for f in res.findings:
        m = re.search(r"\((?:[^()]*? )?([\d.]+) % of attainable|at ([\d.]+) % of the", f.title)
        if not m or f.kernel not in t.index:
            continue
        shown = float(m.group(1) or m.group(2))
        pct = float(t.loc[f.kernel, "roof_pct"])
        digits = 1  # the table's one decimal (s35: prose and tables share one rounding rule)
        assert shown == pytest.approx(round(pct, digits), abs=1e-9), (f.title, pct)
        assert shown > 0, f.title
        checked += 1
    # the trace's 6 critical kernels each get a roofline finding (FLOPs from shapes for 100 % of them)
    assert checked >= 6
    # attn_fwd by hand: 4 calls, 113.656 µs (SOURCES.md); its roof share is under 1 % — shown with its decimal
    attn = [f for f in res.findings if f.kernel and f.kernel.startswith("attn_fwd") and "attainable" in f.title]
    assert attn and re.search(r"\(0\.\d % of attainable", attn[0].title), attn[0].title


def _ncu_csv_rows(path):
    """ncu --csv raw page: the header row, the units row, then one row per launch (lines not starting with '"' are
    ncu's own messages)."""
    import csv

    with open(path, encoding="utf-8") as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    return rows[0], rows[2:]


def test_ncu_waves_are_exact_not_ncus_printed_rounding():
    """meinie_b200 flash_fwd_kernel: 256 blocks, at most 2 per SM (registers, shared memory), 148 SMs → 256 / 296 =
    0.8649 waves; ncu prints launch__waves_per_multiprocessor as 0.86, which made the wave loss 14 % (1.66 ms)
    instead of 1 − 256/296 = 13.5 % (1.60 ms)."""
    path = shared_trace("ncu/meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv")
    head, launches = _ncu_csv_rows(path)
    col = {c: i for i, c in enumerate(head)}
    assert {r[col["launch__waves_per_multiprocessor"]] for r in launches} == {"0.86"}  # ncu's rounded print
    grid = {int(r[col["launch__grid_size"]]) for r in launches}
    sms = {int(r[col["launch__sm_count"]]) for r in launches}
    per_sm = {min(int(r[col[f"launch__occupancy_limit_{k}"]]) for k in ("registers", "shared_mem", "warps", "blocks"))
              for r in launches}
    assert len(grid) == len(sms) == len(per_sm) == 1
    w = grid.pop() / (per_sm.pop() * sms.pop())                       # 256 / (2 × 148)
    total_ns = sum(float(r[col["gpu__time_duration.sum"]]) for r in launches)  # the unit row says ns
    occ = gpulens.analyze([path]).sources[0].results["occupancy"].table
    assert len(occ) == 1
    row = occ.iloc[0]
    assert row["waves_per_sm"] == pytest.approx(w, rel=1e-12)
    # one partial wave per launch: loss = Σ time × (1 − W/⌈W⌉) = total × (1 − W)
    assert row["wave_loss_ns"] == pytest.approx(total_ns * (1 - w), abs=len(launches))


def test_amd_occupancy_tables_use_amd_words_everywhere(tmp_path):
    """rocprof v1 gunrock (MI300X, gfx942): the console's occupancy table headed its LDS column "smem B" and the
    HTML's "shared memory / block"; a grid's waves read "waves per CU" (on AMD a wave is a wavefront). The same
    trace's NVIDIA counterpart (the H100 demo) keeps NVIDIA's words."""
    from gpulens.reports import console, html

    amd = gpulens.analyze([shared_trace("rocprof/v1_gunrock_mi300x/results.csv")])
    assert amd.sources[0].results["occupancy"].summary["vendor"] == "amd"
    text = console.render(amd, width=160)
    occ = text[text.index("Occupancy ("):]
    occ = occ[:occ.index("└")]
    # s32: workgroups per CU (WG/CU), AMD's word for resident blocks (HIP Programming Guide)
    assert "LDS" in occ and "KiB" in occ[:occ.index("┡")] and "WG/CU" in occ and "grid" in occ
    assert "smem" not in occ and "blk/SM" not in occ and "blk/CU" not in occ  # no NVIDIA unit in the AMD table
    page = html.render(amd)
    assert "LDS / workgroup" in page and "shared memory / block" not in page
    assert "waves per CU" not in page

    nv = gpulens.analyze([shared_trace("kineto/tracelens_h100_bert-small.json.gz")])
    text = console.render(nv, width=160)
    occ = text[text.index("Occupancy ("):]
    occ = occ[:occ.index("└")]
    assert "smem" in occ and "KiB" in occ[:occ.index("┡")] and "blk/SM" in occ and "LDS" not in occ


def test_readme_time_at_stake_example_holds_on_the_demo():
    """README (Roofline): "the demo's 17 launches of a 98.72 µs GEMM at 4 % of its roof put 64.72 µs at stake" —
    time − max(time × attained/attainable, launches × 2 µs) = 98.718 − max(≈4.1, 34) µs (SOURCES.md: 17 launches,
    98.718 µs); the README used to give time × (1 − attained/attainable) ≈ 94.6 µs, which no report shows."""
    from importlib.resources import files

    demo = files("gpulens") / "data" / "demo_h100_bert-small.pt.trace.json.gz"
    v = gpulens.analyze([str(demo)]).sources[0].results["verdicts"].table
    row = v[v["name"].str.contains("cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2")].iloc[0]
    assert row["time_ns"] == 98_718
    assert row["time_at_stake_ns"] == pytest.approx(98_718 - 17 * 2_000, abs=1)


def test_a_missing_note_reads_none_not_unknown():
    """tracelens_mi300x_bert-small: the HTML Kernel details said "roof note: unknown" under each kernel's known
    "% of roof" (roof_note is set only for a kernel whose figures exceed its roof), and the verdict table "stake
    note: unknown" beside known stakes (the note applies to launch-bound stakes above the kernel's time only). A
    note that does not apply reads "—" (s48: a bare "none" read as a value); a missing figure still reads "unknown"."""
    from gpulens.analyzers.base import declared_unit
    from gpulens.reports import html
    from gpulens.reports._format import fmt_unit

    assert fmt_unit(None, "note") == "—" and fmt_unit("", "note") == "—"
    assert fmt_unit(None, "ns") == "unknown" and fmt_unit(None, "text") == "unknown"
    rep = gpulens.analyze([shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")])
    res = rep.sources[0].results
    for analysis, col in (("roofline", "roof_note"), ("verdicts", "stake_note")):
        assert declared_unit(res[analysis].columns[col]) == "note"
    # no kernel of this trace exceeds its roof: every roof note is absent
    assert res["roofline"].table["roof_note"].isna().all()
    # nor is launch-bound: a stake note is absent but where the launch floor capped the stake (s45: said in the stake
    # note, no longer in its finding's title)
    sn = res["verdicts"].table["stake_note"]
    assert sn.isna().any() and sn.dropna().str.startswith("capped at its time less 2.00 µs").all()
    page = html.render(rep)
    # kernel pages leave out a note that applies to no kernel of the input (commit 54bd393): never "unknown"
    assert not re.findall(r'<th scope="row">roof note</th><td>([^<]*)</td>', page)
    # the verdict table: the cells of its "stake note" column (header position = cell position in each row)
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tables, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.tables.append([])
            elif tag == "tr" and self.tables:
                self.tables[-1].append([])
            elif tag in ("td", "th") and self.tables and self.tables[-1]:
                self.cell = ""

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.tables[-1][-1].append(self.cell.strip())
                self.cell = None

    p = Cells()
    p.feed(page)
    notes = [[r[t[0].index("stake note")] for r in t[1:] if len(r) == len(t[0])]
             for t in p.tables if t and "stake note" in t[0]]
    # the Kernel verdicts table leaves the column out when no row has a note (html verdict_columns); any table that
    # shows it reads "—", never "unknown"
    assert all(n and "—" in n and "unknown" not in n for n in notes), notes
    assert "Kernel verdicts" in page


def test_readme_python_renderers_work_after_a_plain_import():
    """README (Reports): "From Python: gpulens.reports.html.render(report), gpulens.reports.markdown.render(report)
    and gpulens.reports.perfetto.render(report) each return the text" — after `import gpulens` these raised
    AttributeError (module 'gpulens.reports' has no attribute 'html'). A fresh interpreter, as a user's script."""
    import subprocess
    import sys
    from importlib.resources import files

    demo = files("gpulens") / "data" / "demo_h100_bert-small.pt.trace.json.gz"
    code = ("import gpulens, json\n"
            f"report = gpulens.analyze([{str(demo)!r}])\n"
            "h = gpulens.reports.html.render(report)\n"
            "m = gpulens.reports.markdown.render(report)\n"
            "p = gpulens.reports.perfetto.render(report)\n"
            "assert h.startswith('<!DOCTYPE html>') and m.startswith('# gpulens report')\n"
            "assert 'traceEvents' in json.loads(p)\n"
            "import sys; print('plain import ok', 'plotly' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "plain import ok" in out.stdout
    # importing the package alone still loads no reporter (the CLI's cache-hit path stays light)
    out = subprocess.run([sys.executable, "-c", "import sys, gpulens; import gpulens.reports as r; "
                          "print(sorted(m for m in sys.modules if m.startswith('gpulens.reports.')))"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


@pytest.mark.parametrize("trace", ["kineto/tracelens_mi300x_bert-small.json.gz",
                                   "kineto/tracelens_h100_bert-small.json.gz",
                                   "rocprof/v3_json_mi350x/908_results.json.gz"])
def test_short_kernel_labels_never_cut_a_tile_shape(trace):
    """tracelens_mi300x_bert-small: the console roofline table labelled `…MT16x16x128_MI16x16x1…` as
    "Cijk_Alik_Bljk… 16x16x128 16x16x" — "16x16x" is no tile of the kernel. Every tile shape a label shows must be
    one of the kernel's own (whole), at every column width the reports use."""
    from gpulens.reports._names import _TILE, base_name, short_name

    hs = gpulens.analyze([shared_trace(trace)]).sources[0].results["hotspots"].table
    checked = 0
    for name in hs["name"].astype(str):
        own = set(_TILE.findall(base_name(name)))
        for width in (24, 28, 32, 36, 40, 48):
            label = short_name(name, width)
            if "… " not in label:
                continue
            for tile in label.rsplit("… ", 1)[1].split():
                assert tile in own, (label, sorted(own))
                checked += 1
    assert checked > 0
