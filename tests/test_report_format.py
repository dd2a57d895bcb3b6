"""Formatting from declared units, distinguishable short names, and the answer every reporter gives first."""



import numpy as np
import pandas as pd
import pytest

import gpulens
from gpulens.analyzers import AnalysisResult, Finding
from gpulens.reports import console, markdown
from gpulens.reports._answer import root_findings, top_findings
from gpulens.reports._format import column_label, fmt_unit, summary_items, unit_of
from gpulens.reports._names import short_names
from tests.conftest import KINETO


@pytest.mark.parametrize("value,unit,shown", [
    (812, "ns", "812 ns"), (1234, "ns", "1.23 µs"), (5e6, "ns", "5.00 ms"), (2.31e9, "ns", "2.31 s"),
    (0.321, "share", "32.1 %"), (32.14, "%", "32.1 %"),
    (512, "bytes", "512 B"), (1.5e9, "bytes", "1.50 GB"),  # decimal SI, as vendors quote traffic
    (1.274e13, "FLOP/s", "12.74 TFLOP/s"), (3.35e12, "B/s", "3.35 TB/s"), (90.91, "FLOP/B", "90.9 FLOP/B"),
    (2.5e9, "FLOP", "2.50 GFLOP"), (12345, "count", "12,345"), (np.int64(7), "count", "7"),
    (True, "bool", "yes"), (np.bool_(False), "bool", "no"), (3, "id", "3"), (1.23456, "ratio", "1.23"),
])
def test_values_are_formatted_from_their_declared_unit(value, unit, shown):
    assert fmt_unit(value, unit) == shown


@pytest.mark.parametrize("missing", [None, float("nan"), np.nan, pd.NA, pd.NaT, "None", "nan", ""])
def test_missing_values_read_unknown(missing):
    for unit in ("ns", "%", "text", "count", "FLOP/s"):
        assert fmt_unit(missing, unit) == "unknown"


def test_collections_are_text_not_reprs():
    # a mapping of shares: largest first, as "key: value" (never "{'a': ...}"); a list joined with "; "
    assert fmt_unit({"short_scoreboard": 12.0, "long_scoreboard": 61.5}, "text") == \
        "long_scoreboard: 61.5, short_scoreboard: 12"
    assert fmt_unit(["Use CUDA graphs.", "Batch more work."], "text") == "Use CUDA graphs. Batch more work."
    assert fmt_unit({"0": "host-bound"}, "text") == "0: host-bound"


def test_declared_unit_wins_over_the_column_name():
    assert unit_of("elapsed", "time of the step [ns]") == "ns"
    assert unit_of("x_ns", "how many [count]") == "count"  # the declaration, not the suffix
    assert unit_of("share", "part of the whole [fraction 0..1]") == "share"
    assert unit_of("bytes", "DRAM bytes [bytes] (from shapes)") == "bytes"  # a note after the unit
    # undeclared (older analyzers): the name implies it
    assert unit_of("mean_call_ns") == "ns" and unit_of("roof_pct") == "%" and unit_of("calls") == "count"
    assert unit_of("flops_per_s") == "FLOP/s" and unit_of("bytes_per_s") == "B/s"


def test_every_column_of_every_analyzer_gets_a_human_label():
    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    for name, r in rep.sources[0].results.items():
        for col, doc in r.columns.items():
            label = column_label(col, doc)
            assert "_" not in label and label, (name, col, label)


def test_summary_items_only_declared_keys_when_declared():
    r = AnalysisResult("x", summary={"total_ns": 2_000_000, "secret": {"a": 1}, "ratio": 1.5},
                       summary_columns={"total_ns": "all of it [ns]", "ratio": "max / mean [ratio]"})
    assert summary_items(r.summary, r.summary_columns) == [("recorded time", "2.00 ms"), ("ratio", "1.5")]


def test_short_names_stay_distinguishable():
    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    names = rep.sources[0].results["hotspots"].table["name"].tolist()
    labels = short_names(names)
    assert len(set(labels)) == len(set(names)) == 11  # 11 unique kernels in the trace, 11 different labels
    assert all(len(lab) <= 80 for lab in labels)
    by = dict(zip(names, labels))
    # three cutlass kernels: their tile shapes (in the names) tell them apart
    cut = [lab for n, lab in by.items() if n.startswith("void cutlass::Kernel2<")]
    assert len(cut) == 3 and {"32x32 128x2" in lab for lab in cut} == {True, False}
    # three vectorized_elementwise_kernel instantiations: the functor that differs is named
    ve = sorted(lab for n, lab in by.items() if "vectorized_elementwise_kernel<" in n)
    assert len(ve) == 3 and any("Gelu" in lab for lab in ve) and any("add" in lab for lab in ve)


def test_tensile_and_mangled_names():
    a = "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT"
    b = a.replace("MT128x128x32", "MT64x64x32")
    c = b.replace("AF0EM1", "AF0EM2")
    la, lb, lc = short_names([a, b, c])
    assert len({la, lb, lc}) == 3 and "128x128x32" in la and "64x64x32" in lb
    assert short_names(["_Z13vecAdd_kernelPfS_S_i"]) == ["vecAdd_kernel"]  # <len><identifier> of the mangling


def test_root_findings_count_each_nanosecond_once():
    parent = Finding("GPU idle 90 %", time_at_stake_ns=900, key="idle", severity="warning")
    child = Finding("idle waiting for the host", time_at_stake_ns=800, key="idle/host", parent="idle",
                    severity="warning")
    k1 = Finding("kernel A memory-bound", time_at_stake_ns=300, kernel="A", severity="warning", key="a1")
    k1b = Finding("kernel A low occupancy", time_at_stake_ns=250, kernel="A", severity="warning", key="a2")
    other = Finding("kernel B", time_at_stake_ns=100, kernel="B", severity="warning", key="b")
    fs = [child, k1b, other, parent, k1]
    assert [f.key for f in root_findings(fs)] == ["idle", "a1", "a2", "b"]
    # the answer's top three: roots only, one per kernel
    assert [f.key for f in top_findings(fs)] == ["idle", "a1", "b"]


def test_answer_comes_first_in_console_and_markdown():
    rep = gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])
    # the GPU is idle 3.60 ms of a 3.91 ms span, 3.56 ms of it waiting for the host (TraceLens reference trace)
    text = console.render(rep, width=400)  # one line per verdict (s45: the headline leads with the host share)
    assert text.index("Verdict: host-bound — ") < text.index("Time breakdown")
    assert "busy 7.9 % of its 3.91 ms span" in text
    md = markdown.render(rep)
    assert md.index("**Verdict:**") < md.index("| status |")
    for out in (text, md):
        for bad in ("None", "nan", "{'", '{"', "['"):
            assert bad not in out, bad



def test_versions_and_timestamps_have_their_own_formats():
    """Issue 18: the Environment tab showed the trace's epoch origin as a duration and "cuda driver version 12,090".
    The BERT-small trace records ``"baseTimeNanoseconds": 1751410836000000000`` (`date -u -d @1751410836`:
    2025-07-01 23:00:36) and ``"cuda_driver_version": 12090`` / ``"cuda_runtime_version": 12040`` (CUDA encodes
    1000 × major + 10 × minor: 12.9 and 12.4)."""
    import re

    import gpulens
    from gpulens.reports import html
    from gpulens.reports._format import cuda_version, fmt_unit, unit_of
    from tests.conftest import KINETO
    from tests.test_report_html import _page

    assert fmt_unit(1751410836000000000, "timestamp") == "2025-07-01 23:00:36.000 UTC"
    assert fmt_unit(12_340_000_000, "timestamp") == "clock at 12.34 s"  # not an epoch: a clock reading
    assert (cuda_version(12090), cuda_version(12040), cuda_version("12.8.93")) == ("12.9", "12.4", "12.8.93")
    assert unit_of("base_time_ns") == "timestamp" and fmt_unit(2024, unit_of("schema_version")) == "2024"
    env = _page(html.render(gpulens.analyze([KINETO / "tracelens_h100_bert-small.json.gz"])), "environment")
    text = " ".join(re.sub(r"<[^>]+>", " ", env).split())
    assert "CUDA driver 12.9" in text and "CUDA runtime 12.4" in text and "12,090" not in text
    assert "trace clock origin 2025-07-01 23:00:36.000 UTC" in text


def test_clock_columns_read_as_points_in_time_not_durations():
    """A step's ``start_ns`` (1,752,830,083,333,430,849 ns since the epoch = 2025-07-18 09:14:43.333 UTC by
    `date -u -d @1752830083`) was shown as "1752830083.33 s"; durations keep their SI time format."""
    from gpulens.reports._format import fmt_value

    assert fmt_value(1752830083333430849, "start_ns", "step start [ns]") == "2025-07-18 09:14:43.333 UTC"
    assert fmt_value(4_430_000, "dur_ns", "step duration [ns]") == "4.43 ms"
    assert fmt_value(358_354, "offset_ns", "start − origin [ns]") == "358.35 µs"


def test_short_name_of_a_wrapper_kernel_skips_value_template_arguments():
    # thrust's parallel_for kernel<256u, functor, Size, 1u>: the block size 256u names nothing (it read "u"); the
    # functor's namespace tells the two kernels apart (names as rocprof wrote them for gunrock on MI300X)
    from gpulens.reports._names import short_names

    ns = "thrust::THRUST_200805_400200_NS::hip_rocprim::"
    a = f"void {ns}__parallel_for::kernel<256u, {ns}__fill::functor<{ns}device_ptr<int>, int>, long, 1u>(x)"
    b = (f"void {ns}__parallel_for::kernel<256u, {ns}__uninitialized_fill::functor<{ns}device_ptr<int>, int>, "
         "unsigned long, 1u>(x)")
    sa, sb = short_names([a, b])
    assert not sa.startswith("u ") and not sb.startswith("u ")
    assert "__fill" in sa and "__uninitialized_fill" in sb and sa != sb
