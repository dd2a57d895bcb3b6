"""A cut per-kernel summary (``nsys stats`` CSV, rocprof ``*.stats.csv``) is partial, never read as complete.

Kind: a ``cuda_gpu_kern_sum`` CSV cut inside a quoted kernel name kept the cut name as a third kernel; cut right
after the last comma it kept a kernel with an empty name; cut mid-row it only warned "1 row skipped" with status ok;
and a copy missing its trailing rows (cut at a line end) was read as the whole run. Expected values come from the
tables written here: each row's Time (%) is its share of all rows' time, so rows holding 8,000,000 ns at 72.7 %
imply a full table of at least 100 × 8,000,000 / (72.7 + 0.1) ns — more than 8,000,000: rows are missing.
"""

from __future__ import annotations

from pathlib import Path

import gpulens
from gpulens.collectors._shares import missing_share

DATA = Path(__file__).parent / "data"
HEAD = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
ROW1 = '72.7,8000000,20,400000.0,400000.0,390000,410000,5000.0,"void gemm_kernel<float, 128>(const float *, int)"\n'
ROW2 = "27.3,3000000,10,300000.0,300000.0,290000,310000,6000.0,softmax_kernel(float *, int)\n"


def _source(tmp_path, text: str, name: str = "kern_sum.csv"):
    p = tmp_path / name
    p.write_text(text)
    return gpulens.analyze([p]).sources[0]


def test_whole_table_is_ok(tmp_path):
    src = _source(tmp_path, HEAD + ROW1 + ROW2)
    assert src.status == "ok" and src.summary["kernel_time_ns"] == 11_000_000


def test_cut_inside_a_quoted_name(tmp_path):
    src = _source(tmp_path, HEAD + ROW2 + ROW1[:70])  # the gemm row stops inside its quoted name
    assert src.status == "partial"
    assert src.summary["kernel_count"] == 10 and src.summary["kernel_time_ns"] == 3_000_000  # softmax only


def test_cut_before_the_name(tmp_path):
    src = _source(tmp_path, HEAD + ROW1 + ROW2[:ROW2.index("softmax")])  # "…,6000.0," then nothing
    assert src.status == "partial"
    assert src.timeline.tables["kernel_summary"]["name"].tolist() == ["void gemm_kernel<float, 128>(const float *, "
                                                                      "int)"]


def test_cut_mid_row(tmp_path):
    src = _source(tmp_path, HEAD + ROW1 + "27.3,30")
    assert src.status == "partial" and src.summary["kernel_time_ns"] == 8_000_000


def test_trailing_rows_missing_at_a_line_end(tmp_path):
    src = _source(tmp_path, HEAD + ROW1)  # the softmax row (27.3 %) is gone; the file still ends with a line end
    assert src.status == "partial"
    lost = 1 - 8_000_000 / (100 * 8_000_000 / (72.7 + 0.1))  # hand calculation: at least 27.2 % missing
    assert any(f"at least {100 * lost:.1f} % of the kernel time" in w for w in src.timeline.meta.warnings)


def test_real_complete_tables_are_not_flagged():
    # 97 rows whose shares, rounded to 0.1, add up to 99.0: complete (their own totals agree with every share)
    for f in ("codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv",
              "codegandee_rtx5090_dsocr_all-stage_cuda_gpu_kern_sum.csv"):
        assert gpulens.analyze([DATA / "nvidia" / f]).sources[0].status == "ok"
    for f in ("v1_gunrock_mi300x/results.stats.csv", "v1_pmc_seismic_mi250x/results.stats.csv"):
        assert gpulens.analyze([DATA / "rocprof" / f]).sources[0].status == "ok"


def test_rocprof_stats_missing_rows(tmp_path):
    text = ('"Name","Calls","TotalDurationNs","AverageNs","Percentage"\n"k_a",4,6000,1500,60.0\n'
            '"k_b",2,3000,1500,30.0\n"k_c",1,1000,1000,10.0\n')
    assert _source(tmp_path, text, "results.stats.csv").status == "ok"
    cut = text.rsplit('"k_c"', 1)[0]  # k_c (10 %) lost at a line end
    src = _source(tmp_path, cut, "results.stats.csv")
    assert src.status == "partial" and src.summary["kernel_time_ns"] == 9_000


def test_missing_share_rule():
    assert missing_share(["50.0", "50.0"], [5, 5]) is None
    assert abs(missing_share(["50.0"], [5]) - (1 - 5 / (100 * 5 / 50.1))) < 1e-12
    assert missing_share(["0.0", "0.0"], [0, 0]) is None and missing_share(["n/a"], [5]) is None
