"""``gpulens diff``: matching, deltas and their sums, cross-vendor matching through operator + shapes, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.diff import diff
from tests.conftest import KINETO
from tests.dig_traces import H100, MI300X, KTrace, kernel_durations

H100_BERT = KINETO / "tracelens_h100_bert-small.json.gz"
MI300X_BERT = KINETO / "tracelens_mi300x_bert-small.json.gz"
GEMM, EW, NORM = "ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4, add>", \
    "void at::native::vectorized_layer_norm_kernel<float>"


def _program(path: Path, ew_us: float, device: dict = H100, names: tuple[str, str, str] = (GEMM, EW, NORM),
             jitter: float = 0.0) -> Path:
    """3 steps of mm → add → layer_norm; the add kernel lasts ``ew_us``; GEMM 100 µs (+ jitter·step), norm 30 µs."""
    t = KTrace(device)
    cpu, gpu = 100.0, 120.0
    for step in range(3):
        for (name, us), (op, dims) in zip(((names[0], 100.0 + jitter * step), (names[1], ew_us), (names[2], 30.0)),
                                          (("aten::mm", [[64, 128], [128, 256]]), ("aten::add", [[64, 256], [64, 256]]),
                                           ("aten::native_layer_norm", [[64, 256], [], [256], [256], []]))):
            ext = t.op(op, cpu, 8.0, dims, ["float"] * len(dims))
            t.launch(ext, cpu + 1, [(name, gpu, us)])
            cpu += 10.0
            gpu += us + 2.0
    return t.write(path)


def test_trace_against_itself_every_delta_is_zero():
    r = diff(H100_BERT, H100_BERT)
    for name, t in r.tables.items():
        assert (t["delta_ns"] == 0).all(), name
    assert r.summary["delta_ns"] == 0
    assert r.summary["new_kernels"] == r.summary["vanished_kernels"] == 0
    # the file's GPU time, read with json (no overrun on this trace): 307.197 µs of kernels + one 2.24 µs copy
    expected = round(sum(kernel_durations(H100_BERT).values()) * 1000)
    assert r.summary["base_time_ns"] == r.summary["cand_time_ns"] == expected


def test_one_kernel_30_percent_slower_is_the_top_contributor(tmp_path):
    base = _program(tmp_path / "base.json", 50.0, jitter=1.0)
    cand = _program(tmp_path / "cand.json", 65.0, jitter=-1.0)  # add kernel 50 → 65 µs (+30 %); GEMM jitters
    r = diff(base, cand)
    c = r.tables["contributors"]
    assert c.loc[0, "kernel"] == EW
    assert c.loc[0, "delta_ns"] == pytest.approx(3 * 15_000)  # 3 launches × 15 µs
    k = r.tables["kernels"].set_index("kernel")
    assert k.loc[EW, "delta_pct"] == pytest.approx(30.0)
    # GEMM: base 100+101+102, cand 100+99+98 → −6 µs
    assert k.loc[GEMM, "delta_ns"] == pytest.approx(-6_000)
    # every table's deltas sum to the total Δ, computed from what was written
    total = (sum(kernel_durations(cand).values()) - sum(kernel_durations(base).values())) * 1000
    assert r.summary["delta_ns"] == pytest.approx(total)
    for name, t in r.tables.items():
        assert t["delta_ns"].sum() == pytest.approx(total), name
    assert c["cumulative_delta_ns"].iloc[-1] == pytest.approx(total)
    ops = r.tables["operators"].set_index("op")
    assert ops.loc["aten::add", "delta_ns"] == pytest.approx(45_000)
    cats = r.tables["categories"].set_index("category")
    assert cats.loc["elementwise", "delta_ns"] == pytest.approx(45_000)
    assert cats.loc["GEMM", "delta_ns"] == pytest.approx(-6_000)


def test_cross_vendor_kernels_match_through_operator_and_shapes(tmp_path):
    base = _program(tmp_path / "h.json", 50.0)
    cand = _program(tmp_path / "m.json", 50.0, MI300X, names=("Cijk_Alik_Bljk_S_MT64x64", EW, NORM))
    r = diff(base, cand)
    k = r.tables["kernels"].set_index("kernel")
    row = k.loc["aten::mm [[64,128],[128,256]]"]
    assert row["match"] == "op+shapes" and row["base_count"] == 3 and row["cand_count"] == 3
    assert row["base_kernels"] == GEMM and row["cand_kernels"] == "Cijk_Alik_Bljk_S_MT64x64"
    assert r.summary["new_kernels"] == r.summary["vanished_kernels"] == 0 and r.summary["cross_vendor"]


def test_h100_vs_mi300x_bert_names_the_attention_kernels_and_sums_to_total():
    r = diff(H100_BERT, MI300X_BERT)
    h, m = kernel_durations(H100_BERT), kernel_durations(MI300X_BERT)
    total = (sum(m.values()) - sum(h.values())) * 1000
    assert r.summary["delta_ns"] == pytest.approx(total)
    assert r.tables["kernels"]["delta_ns"].sum() == pytest.approx(total)
    assert r.tables["contributors"]["delta_ns"].sum() == pytest.approx(total)
    top = r.tables["contributors"].iloc[0]
    # flash_fwd_kernel (H100) and attn_fwd (MI300X) are both launched by aten::_flash_attention_forward
    flash = sum(v for n, v in h.items() if "flash_fwd_kernel" in n)
    assert top["kernel"].startswith("aten::_flash_attention_forward") and top["match"] == "op+shapes"
    assert top["delta_ns"] == pytest.approx((m["attn_fwd"] - flash) * 1000)
    assert "attn_fwd" in top["kernels"] and "flash_fwd_kernel" in top["kernels"]
    # s39: every kernel is matched; the one copy of each run is recorded in another direction (the H100's
    # "Memcpy DtoH (Device -> Pinned)", the MI300X's "Memcpy DtoD (Device -> Device)"), other work, never one row
    assert [n for n in h if n.startswith("Memcpy")] == ["Memcpy DtoH (Device -> Pinned)"]
    assert [n for n in m if n.startswith("Memcpy")] == ["Memcpy DtoD (Device -> Device)"]
    k = r.tables["kernels"]
    assert r.summary["new_kernels"] == r.summary["vanished_kernels"] == 1
    # short names keep "Memcpy" (s40: a name that is a phrase is not cut to its last word)
    assert sorted(k[k["match"].isin(["new", "vanished"])]["kernels"]) == ["(none) → Memcpy DtoD", "Memcpy DtoH → (none)"]


def test_report_json_side_equals_trace_side(tmp_path):
    rep = tmp_path / "h.json"
    assert main(["analyze", str(H100_BERT), "--json", str(rep), "-q", "--no-cache"]) == 0
    a, b = diff(rep, MI300X_BERT), diff(H100_BERT, MI300X_BERT)
    assert a.summary["delta_ns"] == b.summary["delta_ns"]
    assert a.tables["kernels"]["kernel"].tolist() == b.tables["kernels"]["kernel"].tolist()


def test_old_report_without_kernel_groups_falls_back_to_hotspots(tmp_path):
    rep = tmp_path / "h.json"
    assert main(["analyze", str(H100_BERT), "--json", str(rep), "-q", "--no-cache"]) == 0
    doc = json.loads(rep.read_text())
    del doc["sources"][0]["analyses"]["kernel_groups"]
    rep.write_text(json.dumps(doc))
    r = diff(rep, rep)
    # hotspots covers kernels and collectives only: the 2.24 µs copy is not in it
    kernels = sum(v for n, v in kernel_durations(H100_BERT, ("kernel",)).items())
    assert r.summary["base_time_ns"] == pytest.approx(kernels * 1000)
    assert "hotspots only" in r.base.note


def test_cli_writes_every_output_and_escapes_names(tmp_path):
    # the "|" before the markup: console and Markdown show the short name ("k|alert"), which must still be escaped
    evil = "k|<script>alert(1)</script>"
    base = _program(tmp_path / "b.json", 50.0, names=(GEMM, evil, NORM))
    cand = _program(tmp_path / "c.json", 60.0, names=(GEMM, evil, NORM))
    outs = [tmp_path / "d.json", tmp_path / "d.html", tmp_path / "d.md"]
    code = main(["diff", str(base), str(cand), "--json", str(outs[0]), "--html", str(outs[1]),
                 "--markdown", str(outs[2]), "-q"])
    assert code == 0
    doc = json.loads(outs[0].read_text())
    assert doc["summary"]["delta_ns"] == 30_000 and doc["diff_schema_version"] == 2
    assert set(doc["tables"]) == {"kernels", "operators", "categories", "ranks", "contributors"}
    page = outs[1].read_text()
    assert "<script>" not in page and "&lt;script&gt;" in page
    md = outs[2].read_text()
    assert "<script>" not in md and "k\\|alert" in md
    assert "None" not in md and "nan" not in md


def test_missing_input_is_a_one_line_error(tmp_path, capsys):
    assert main(["diff", str(tmp_path / "nope.json"), str(H100_BERT)]) == 2
    err = capsys.readouterr().err
    assert "nope.json" in err and "Traceback" not in err


def test_outputs_have_human_headers_and_the_share_of_the_change_in_percent(tmp_path):
    """Issue 18: no snake_case header, no µs under a *_ns header, "of Δ" as a signed percentage. The add kernel
    gains 3 × 15 µs and the GEMM loses 6 µs (see the test above): "of Δ" is a part of the gross change Σ|Δ| =
    45 + 6 = 51 µs (session 5: a part of the net +39 µs read +115.4 %, beyond ±100 %), so the add kernel is
    45/51 = +88.2 % and the GEMM −6/51 = −11.8 %."""
    import re

    from gpulens.reports.diff import render_html, render_markdown
    from tests.test_report_text import snake_headers

    r = diff(_program(tmp_path / "base.json", 50.0, jitter=1.0), _program(tmp_path / "cand.json", 65.0, jitter=-1.0))
    md = render_markdown(r)
    lines = md.splitlines()
    heads = [c.strip() for i, line in enumerate(lines[:-1]) if line.startswith("| ") and lines[i + 1].startswith("|---")
             for c in line.strip().strip("|").split(" | ")]
    assert heads and not snake_headers([h.replace("\\_", "_") for h in heads]) and not [h for h in heads if "_ns" in h]
    # the add kernel's row (its short name: the function without namespace and template arguments)
    row = next(line for line in lines if line.startswith("| vectorized\\_elementwise\\_kernel") and "%" in line)
    assert "+88.2 %" in row
    assert "-11.8 %" in md
    page = render_html(r)
    ths = [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<th\b[^>]*>(.*?)</th>", page)]
    assert not snake_headers(ths) and "of Δ" in ths and "base time" in ths


def test_html_per_kernel_cells_show_short_labels_with_full_names_as_tooltips(tmp_path):
    """Session 6 walk: the diff page's per-kernel table printed each row's full base/candidate kernel keys (a 300-
    character Tensile name per cell), which squeezed every figure column into one character per line. The keys now
    read as the console's short labels, the full name kept as the tooltip; figures never wrap."""
    import html
    import re

    from gpulens.reports.diff import render_html

    tensile = ("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1"
               "_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA256")
    r = diff(_program(tmp_path / "h.json", 50.0), _program(tmp_path / "m.json", 50.0, MI300X, names=(tensile, EW, NORM)))
    page = render_html(r)
    section = page[page.index('<section id="kernels">'):page.index('<section id="operators">')]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", section)
    # the full key appears only inside a title attribute, never as cell text
    assert html.escape(tensile, quote=True) in section
    assert not [c for c in cells if tensile in re.sub(r'<span title="[^"]*">', "", c)]
    tip = re.search(r'<span title="' + re.escape(tensile) + r'">([^<]*)</span>', section)
    assert tip is not None and 0 < len(tip.group(1)) < len(tensile) / 2
    # every duration cell of the table is a right-aligned, unwrapped figure: "µs" in a cell of class n
    assert [c for c in re.findall(r'<td class="n">(.*?)</td>', section) if c.endswith("µs")]
    assert not [c for c in re.findall(r"<td>(.*?)</td>", section) if re.fullmatch(r"[-+]?[\d.,]+ µs", c)]


def test_gate_rows_name_metrics_for_people():
    from types import SimpleNamespace

    from gpulens.reports.gate_fmt import metric_label

    assert metric_label(SimpleNamespace(metric="span_ns")) == "GPU span"
    assert metric_label(SimpleNamespace(metric="kernel:ampere_sgemm")) == "kernel ampere_sgemm"
    assert metric_label(SimpleNamespace(metric="some_new_ns")) == "some new"


def test_console_at_a_narrow_width_shows_every_delta_in_full():
    # a CI log is often 80 columns wide or less: a figure is never cut ("+203" for +203.8 %), long names wrap instead; the
    # flash-attention operator goes 4 × 9.35 µs → 4 × 28.4 µs in these traces (TraceLens' own kernel tables)
    from gpulens.reports.diff import render_console

    r = diff(KINETO / "tracelens_h100_bert-small.json.gz", KINETO / "tracelens_mi300x_bert-small.json.gz")
    text = render_console(r, width=72)
    assert max(len(line) for line in text.splitlines()) <= 72
    ops = r.tables["operators"].set_index("op")
    pct = ops.loc["aten::_flash_attention_forward", "delta_pct"]
    assert f"{pct:+.1f} %" in text or "left out at this terminal width: Δ %" in text
    cells = [c.strip() for line in text.splitlines() for c in line.split("│")[1:-1]
             if c.strip()[:1] in "+-" and c.strip()[1:2].isdigit()]
    assert cells and all(c.endswith(("s", "%")) for c in cells), cells


def test_a_side_without_kernel_durations_has_unknown_times_not_zero(tmp_path):
    """A recording with no kernel durations (rocprof-compute with lost timestamps, an ncu CSV without a duration
    metric) read as 0 ns, so the diff said "GPU time 52.32 µs → 0 ns: -100.0 %". Its times are unknown: no Δ, no
    contributors, counts still compared (3 steps × 1 add kernel on each side, by construction)."""
    from gpulens.diff.compute import compare
    from gpulens.diff.sides import load_side
    from gpulens.reports.diff import headline, render_markdown, to_dict

    base = load_side(_program(tmp_path / "b.json", 50.0))
    cand = load_side(_program(tmp_path / "c.json", 65.0))
    cand.times_unknown = True
    r = compare(base, cand)
    s = r.summary
    assert s["base_time_ns"] == 3 * (100 + 50 + 30) * 1000 and s["cand_time_ns"] is None
    assert s["delta_ns"] is None and s["delta_pct"] is None and s["times_unknown"] == ["cand"]
    k = r.tables["kernels"].set_index("kernel")
    add = next(i for i in k.index if "elementwise" in str(i))
    assert k.loc[add, "base_count"] == 3 == k.loc[add, "cand_count"] and k.loc[add, "base_time_ns"] == 150_000
    assert k["cand_time_ns"].isna().all() and k["delta_ns"].isna().all() and not len(r.tables["contributors"])
    assert headline(r).startswith("GPU time unknown") and "9 → 9" in headline(r)
    md = render_markdown(r)
    assert "-100.0 %" not in md and "unknown" in md
    row = next(x for x in to_dict(r)["tables"]["kernels"] if "elementwise" in x["kernel"])
    assert row["cand_time_ns"] is None and row["delta_pct"] is None and row["base_time_ns"] == 150_000


def test_rocprof_compute_folder_with_lost_timestamps_diffs_as_unknown():
    """Real folders (skip when absent): vcopy on MI300X_A1 lost its timestamps (start == end), vcopy on MI200 did not."""
    from tests.conftest import shared_trace

    a, b = shared_trace("omniperf/vcopy_MI200"), shared_trace("omniperf/vcopy_MI300X_A1")
    r = diff(a, b)
    assert r.summary["times_unknown"] == ["cand"] and r.summary["delta_ns"] is None
    assert r.summary["base_time_ns"] > 0 and r.tables["kernels"]["cand_time_ns"].isna().all()


def test_headline_names_its_time_a_sum_of_gpu_event_times():
    """The diff's time is the sum of GPU event durations (kernels, copies, fills: overlaps counted each), which is
    not analyze's busy union — the headline says which (alexnet: 66.20 ms summed vs 66.14 ms busy)."""
    import gzip
    from decimal import Decimal

    from gpulens.reports.diff import headline

    path = KINETO / "hta_alexnet_a100.json.gz"
    doc = json.loads(gzip.decompress(path.read_bytes()), parse_float=Decimal)
    kinds = ("kernel", "gpu_memcpy", "gpu_memset")
    gpu = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") in kinds]
    summed = int(sum(Decimal(str(e["dur"])) for e in gpu) * 1000)
    r = diff(path, path)
    assert r.summary["base_time_ns"] == summed
    assert headline(r).startswith("Summed GPU time 66.20 ms → 66.20 ms")
