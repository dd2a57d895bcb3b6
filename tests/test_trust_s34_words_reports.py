"""Report words that were wrong for the run (s34 review): grid waves named "waves per SM", prose cut mid-sentence,
an NVTX section on an AMD run, "reduce_kernel (2)" in a diff of one kernel per run, and a JSON report that did not
say which analyses did not apply. Expected words are written by hand from the definitions, not copied from output."""
from __future__ import annotations

import json

import pytest

import gpulens
from gpulens.analyzers.base import AnalysisResult, Finding
from gpulens.analyzers.occupancy import COLUMNS as OCC_COLUMNS
from gpulens.reports import html, json_report, markdown
from gpulens.reports._answer import next_step
from gpulens.reports._coverage import analysis_coverage
from gpulens.reports._format import result_title, vendor_label
from gpulens.reports._names import short_names
from tests.conftest import KINETO

H100_BERT = KINETO / "tracelens_h100_bert-small.json.gz"
MI300X_BERT = KINETO / "tracelens_mi300x_bert-small.json.gz"


# --- 2. grid waves --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("vendor", ["nvidia", "amd", None])
def test_grid_waves_column_is_named_grid_waves_for_every_vendor(vendor):
    """blocks / (SMs × blocks resident per SM) counts loads of the whole GPU, not a figure per SM (nor wavefronts)."""
    label = vendor_label("waves_per_sm", vendor)
    assert label == "grid waves"
    assert "per SM" not in label and "per CU" not in label


def test_grid_waves_column_doc_gives_the_definition():
    doc = OCC_COLUMNS["waves_per_sm"]
    assert doc.startswith("grid waves: grid blocks / (blocks resident per SM at once × SMs)")
    assert "CU" in doc and "not per SM" in doc and doc.endswith("[ratio]")


# --- 3. prose is never cut --------------------------------------------------------------------------------------------
_LONG = ("The GPU sat idle while the host weighed " + "every option of the scheduler in turn, " * 20
         + "so the fix is to overlap the host work with the kernels.")


def test_markdown_text_keeps_a_whole_sentence():
    out = markdown.md_text(_LONG)
    assert "…" not in out and out.endswith("with the kernels.")
    # a name (a kernel label) may still be shortened where asked
    assert markdown.md_text("k" * 300, 100).endswith("…")


def test_next_step_is_never_cut():
    f = Finding("t", "detail", action=_LONG)
    assert next_step(f) == _LONG


def test_markdown_report_shows_a_long_verdict_and_step_whole(tmp_path):
    rep = gpulens.analyze([H100_BERT])
    s = rep.sources[0]
    r = next(r for r in s.results.values() if r.findings)
    r.findings.insert(0, Finding("a long finding", "detail", severity="warning", action=_LONG,
                                 time_at_stake_ns=10**12))
    md = markdown.render(rep)
    assert "so the fix is to overlap the host work with the kernels" in md
    assert "full names in the JSON and HTML reports" in md  # where the full kernel names are


# --- 4. NVTX words on an AMD run ------------------------------------------------------------------------------------
def test_annotation_section_title_names_the_vendor():
    assert result_title("nvtx", "nvidia") == "NVTX ranges"
    assert result_title("nvtx", "amd") == "ROCTX ranges"
    assert result_title("nvtx", None) == "Annotations (NVTX/ROCTX)"


@pytest.fixture(scope="module")
def amd_report():
    return gpulens.analyze([MI300X_BERT])


def test_amd_run_reports_no_nvtx_section(amd_report, tmp_path):
    s = amd_report.sources[0]
    assert s.results["nvtx"].applies is False  # NVTX annotates NVIDIA runs; ROCTX is not what it reads
    md = markdown.render(amd_report)
    assert "NVTX" not in md and "Nvtx" not in md and "nvtx" not in md.lower()
    page = tmp_path / "r.html"
    page.write_text(html.render(amd_report))
    text = page.read_text()
    assert "Nvtx" not in text and "NVTX ranges" not in text


# --- 6. the JSON says which analyses ran, did not apply, had no data -------------------------------------------------
def test_json_coverage_matches_the_not_analysed_list(amd_report):
    s = amd_report.sources[0]
    doc = json.loads(json.dumps(json_report.to_dict(amd_report)))
    src = doc["sources"][0]
    cov = src["analysis_coverage"]
    # from the results themselves: ran = not skipped; not applicable = skipped and applies False; else no data
    ran = [n for n, r in s.results.items() if r.skipped_reason is None]
    na = [n for n, r in s.results.items() if r.skipped_reason is not None and not r.applies]
    nd = [n for n, r in s.results.items() if r.skipped_reason is not None and r.applies]
    assert cov["ran"] == ran
    assert [x["analysis"] for x in cov["not_applicable"]] == na and "nvtx" in na
    assert [x["analysis"] for x in cov["no_data"]] == nd
    assert all(src["analyses"][n]["applies"] is False for n in na)
    assert all(src["analyses"][n]["applies"] is True for n in ran + nd)
    md = markdown.render(amd_report)
    for x in cov["no_data"]:  # the Markdown's "Not analysed" list is the JSON's no_data list
        assert f"- {markdown.md_text(x['title'])}: " in md
    for x in cov["not_applicable"]:
        assert f"- {markdown.md_text(x['title'])}: " not in md


def test_coverage_definition():
    res = {"a": AnalysisResult("a"), "b": AnalysisResult("b", skipped_reason="no counters"),
           "nvtx": AnalysisResult("nvtx", skipped_reason="other vendor", applies=False)}
    cov = analysis_coverage(res, "amd")
    assert cov == {"ran": ["a"], "not_applicable": [{"analysis": "nvtx", "title": "ROCTX ranges",
                                                     "reason": "other vendor"}],
                   "no_data": [{"analysis": "b", "title": "B", "reason": "no counters"}]}


# --- 5. "(2)" only for two kernels of one run -------------------------------------------------------------------------
def test_number_suffix_only_within_one_run():
    one_each = short_names(["reduce_kernel", "reduce_kernel(float*)"],
                           runs=[{"reduce_kernel"}, {"reduce_kernel(float*)"}])
    assert not any("(2)" in x for x in one_each)
    both_in_one = short_names(["reduce_kernel", "reduce_kernel(float*)"],
                              runs=[{"reduce_kernel", "reduce_kernel(float*)"}, set()])
    assert both_in_one[1].endswith("(2)")


def test_diff_of_one_kernel_per_run_has_no_number_suffix(tmp_path):
    from gpulens.diff import diff
    from gpulens.reports.diff import shown
    from tests.test_diff import EW, GEMM, _program

    b = _program(tmp_path / "b.json", 50.0, names=(GEMM, EW, "reduce_kernel"))
    c = _program(tmp_path / "c.json", 50.0, names=(GEMM, EW, "reduce_kernel(float*)"))
    r = diff(b, c)
    cells = " ".join(map(str, shown(r, "kernels")["kernels"]))
    assert "reduce_kernel" in cells and "(2)" not in cells
    # two different kernels are never said to be one kernel in both runs
    assert "reduce_kernel (both runs)" not in cells


def test_gate_markdown_row_keeps_its_whole_reason():
    """The gate's Markdown row cut its one-sentence reason at 160 characters, mid-word and without a mark."""
    from gpulens.gate.result import MetricResult
    from gpulens.reports.gate_markdown import _row

    reason = ("within the 5.0 % threshold (no test: 1 vs 1 runs are too few; record ≥ 5 repeats per side); "
              "the candidate runs 3 kernels the baseline lacks, compared with the other new kernels of its category")
    assert len(reason) > 160
    m = MetricResult("span_ns", "timing", "ns", "lower", "PASS", True, reason, base_n=1, cand_n=1)
    assert "of its category" in _row(m)
