"""Messages that said something false or lost a qualifier (session 45, a new user's reading).

1. A vendor runtime's copy/fill (blit) kernels (HIP ``__amd_rocclr_copyBuffer``…) are counted as memory copies and
   fills, while rocprof's own per-kernel summary counts them as kernels: the stats cross-check said "agrees (7
   kernels, 37 calls)" beside a file of 8 rows and 56 calls, and the shares of kernel time (90.0 %) differed from
   rocprof's (84.25 %) without a word. Both now say it, with the count and time.
2. ``gpulens gate`` of an H100 baseline against an MI300X candidate called them "not the same workload" from their
   kernel names, which differ by nature across GPUs: the GPU is the reason, already said.
3. ``gpulens diff`` named a spec assumed for a trace that records no GPU as if the trace named it.
4. The README said both that an `analyze --json` report is never replaced and that it is: it says the one rule now.

Expected values are read from the inputs here (the CSV rows, the JSON records) or worked by hand in the comments.
"""

from __future__ import annotations

import csv
import gzip
import json
import re
from pathlib import Path

import pytest

from gpulens.cli import main

DATA = Path(__file__).parent / "data"
GUNROCK = DATA / "rocprof" / "v1_gunrock_mi300x"
H100 = DATA / "kineto" / "tracelens_h100_bert-small.json.gz"
MI300X = DATA / "kineto" / "tracelens_mi300x_bert-small.json.gz"
SAMPLED = DATA / "kineto" / "multirank"

#: HIP runtime blit kernels, spelled as ROCm/clr's blitcl.cpp / rocblitcl.cpp name them (the test's own list)
HIP_BLIT = re.compile(r"^__amd_rocclr_(copyBuffer|copyImage|fillBuffer|fillImage|initHeap|gwsInit)", re.ASCII)


# ---- 1. blit kernels: said in the stats cross-check and beside every share of kernel time -----------------------

def test_blit_kernel_rows_spellings():
    from gpulens.collectors._work_rules import blit_kernel_rows

    names = ["__amd_rocclr_copyBuffer.kd", "__amd_rocclr_copyBufferRect", "__amd_rocclr_fillBufferAligned.kd",
             "__amd_rocclr_copyImage", "__amd_rocclr_initHeap", "gwsInit.kd",
             # not blit kernels: copy-engine operations named as kernels, a PyTorch copy kernel, a collective
             "Memcpy HtoD (Pinned -> Device)", "MEMORY_COPY_HOST_TO_DEVICE", "CopyHostToDevice",
             "void at::native::copy_kernel<float>", "ncclDevKernel_Generic_1", None]
    assert blit_kernel_rows(names).tolist() == [True] * 6 + [False] * 6


def _stats_rows() -> list[dict[str, str]]:
    with open(GUNROCK / "results.stats.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_stats_cross_check_says_the_blit_row_it_leaves_out():
    from gpulens.collectors import collect

    rows = _stats_rows()
    blit = [r for r in rows if HIP_BLIT.match(r["Name"])]
    kern = [r for r in rows if not HIP_BLIT.match(r["Name"])]
    # the file: 8 rows, 56 calls; 1 blit row (__amd_rocclr_copyBuffer: 19 calls, 580,607 ns); 7 kernels, 37 calls
    assert (len(rows), len(blit), sum(int(r["Calls"]) for r in blit)) == (8, 1, 19)
    assert int(blit[0]["TotalDurationNs"]) == 580_607 and sum(int(r["Calls"]) for r in kern) == 37
    tl = collect(GUNROCK / "results.csv")
    said = [w for w in tl.meta.warnings if "cross-checked" in w]
    assert len(said) == 1
    assert "the summary agrees with the trace (7 kernels, 37 calls, 8.44 ms summed)" in said[0]
    assert ("; 1 more of its 8 rows is a runtime copy/fill (blit) kernel (__amd_rocclr_copyBuffer: 19 calls, "
            "580.61 µs), counted as memory copies and fills, as in the trace, not as a kernel") in said[0]


def test_kernel_shares_say_the_blit_kernels_left_out_rocprof_v1(tmp_path):
    from gpulens.report import analyze
    from gpulens.reports import console, markdown
    from gpulens.reports._run_text import critical_set_text

    rows = _stats_rows()
    blit_ns = sum(int(r["TotalDurationNs"]) for r in rows if HIP_BLIT.match(r["Name"]))
    kern_ns = sum(int(r["TotalDurationNs"]) for r in rows if not HIP_BLIT.match(r["Name"]))
    top = max(int(r["TotalDurationNs"]) for r in rows)
    # merge_path_kernel 7,603,945 ns: 90.0 % of the 8,444,747 ns of kernels, rocprof's 84.25 % of all 9,025,354 ns
    assert f"{100 * top / kern_ns:.1f}" == "90.0" and f"{100 * top / (kern_ns + blit_ns):.2f}" == "84.25"
    rep = analyze([GUNROCK / "results.csv"])
    hs = rep.sources[0].results["hotspots"]
    assert (hs.summary["blit_kernel_calls"], hs.summary["blit_kernel_ns"]) == (19, blit_ns)
    assert hs.table["share"].iloc[0] == pytest.approx(top / kern_ns)
    want = "19 launches of runtime copy/fill (blit) kernels (580.61 µs) are counted as memory copies and fills"
    assert want in critical_set_text(hs.summary)
    flat = " ".join(console.render(rep, width=250).split())
    assert f"Top kernels (1 kernel covers 90.0 % of kernel time; {want}, not kernel time)" in flat
    assert want in markdown.render(rep)
    assert main(["analyze", str(GUNROCK / "results.csv"), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["sources"][0]["analyses"]["hotspots"]["summary"]["blit_kernel_calls"] == 19


def test_a_summary_alone_says_its_blit_rows_beside_the_shares(tmp_path):
    import shutil

    from gpulens.report import analyze
    from gpulens.reports._run_text import critical_set_text

    rows = _stats_rows()
    blit = [r for r in rows if HIP_BLIT.match(r["Name"])]
    shutil.copyfile(GUNROCK / "results.stats.csv", tmp_path / "results.stats.csv")  # no trace beside it
    hs = analyze([tmp_path / "results.stats.csv"]).sources[0].results["hotspots"]
    assert (hs.summary["blit_kernel_calls"], hs.summary["blit_kernel_ns"]) == (
        sum(int(r["Calls"]) for r in blit), sum(int(r["TotalDurationNs"]) for r in blit))  # 19, 580,607
    assert "1 kernel covers 90.0 % of kernel time; 19 launches of runtime copy/fill (blit) kernels (580.61 µs)" \
        in critical_set_text(hs.summary)


def test_a_trace_without_blit_kernels_says_nothing_of_them():
    from gpulens.report import analyze
    from gpulens.reports._run_text import critical_set_text

    hs = analyze([H100]).sources[0].results["hotspots"]
    assert "blit_kernel_calls" not in hs.summary and "blit" not in critical_set_text(hs.summary)


def test_kineto_blit_kernels_by_hand(tmp_path):
    from gpulens.report import analyze
    from gpulens.reports._run_text import critical_set_text

    # two compute kernels (600 µs, 300 µs) and two HIP blit kernels recorded as kernels (70 + 30 µs): gpulens's
    # kernel time is 900 µs, the first kernel 66.7 % of it (60 % counting the blits as a vendor summary does)
    ev = [{"ph": "X", "cat": "kernel", "name": n, "ts": ts, "dur": d, "pid": 0, "tid": 7,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}}
          for i, (n, ts, d) in enumerate([("gemm_kernel", 0, 600), ("__amd_rocclr_copyBuffer", 700, 70),
                                          ("softmax_kernel", 800, 300), ("__amd_rocclr_fillBufferAligned", 1200, 30)])]
    p = tmp_path / "t.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    hs = analyze([p]).sources[0].results["hotspots"]
    assert (hs.summary["blit_kernel_calls"], hs.summary["blit_kernel_ns"]) == (2, 100_000)
    assert hs.table["share"].iloc[0] == pytest.approx(600 / 900)
    assert critical_set_text(hs.summary).endswith(
        "; 2 launches of runtime copy/fill (blit) kernels (100.00 µs) are counted as memory copies and fills, "
        "not kernel time")


def test_rocprofv3_json_blit_kernels_counted_from_the_records():
    from tests.conftest import shared_trace

    from gpulens.report import analyze

    path = shared_trace("rocprof/v3_json_mi350x/908_results.json.gz")
    tool = json.loads(gzip.decompress(path.read_bytes()))["rocprofiler-sdk-tool"][0]
    names = {k["kernel_id"]: k["truncated_kernel_name"] for k in tool["kernel_symbols"]}
    n = ns = 0
    for r in tool["buffer_records"]["kernel_dispatch"]:
        if HIP_BLIT.match(names[r["dispatch_info"]["kernel_id"]]):
            n, ns = n + 1, ns + r["end_timestamp"] - r["start_timestamp"]
    assert (n, ns) == (6_366, 23_099_227)  # 3,213 fillBufferAligned + 3,153 copyBuffer
    hs = analyze([path]).sources[0].results["hotspots"]
    assert (hs.summary["blit_kernel_calls"], hs.summary["blit_kernel_ns"]) == (n, ns)


# ---- 2. gate across GPUs: kernel names are no evidence of another workload -------------------------------------

def test_gate_h100_baseline_vs_mi300x_candidate_does_not_claim_another_workload(tmp_path, capsys):
    h, m = tmp_path / "h.json", tmp_path / "m.json"
    for src, out in ((H100, h), (MI300X, m)):
        assert main(["analyze", str(src), "-q", "--no-cache", "--json", str(out)]) == 0
    assert main(["baseline", "save", str(h), "--name", "h", "--store", str(tmp_path / "st")]) == 0
    base = next((tmp_path / "st").glob("*/h.json"))
    for extra in ([], ["--allow-cross-machine"]):
        capsys.readouterr()
        main(["gate", str(m), "--baseline", str(base), "--json", str(tmp_path / "g.json"), "--force", *extra])
        out = capsys.readouterr().out
        g = json.loads((tmp_path / "g.json").read_text())
        text = json.dumps(g) + out
        assert "not the same workload" not in text and g["workload"] is None
        assert "kernel names not used to tell the workloads apart: the runs ran on different GPU models" in text
        if not extra:  # the GPU is the reason given
            assert g["verdict"] == "INCOMPARABLE" and "GPU model: baseline NVIDIA H100 80GB HBM3" in text


def test_gpu_differs_by_hand():
    from gpulens.gate.compare import gpu_differs

    assert gpu_differs({"gpus": ["A"]}, {"gpus": ["A"]}) == ""
    assert gpu_differs({"gpus": ["A"]}, {}) == ""  # recorded on one side only: not known to differ
    assert gpu_differs({"gpus": ["A"]}, {"gpus": ["B"]}).startswith("the runs ran on different GPU models (A; B)")


# ---- 3. diff header keeps "assumed" ---------------------------------------------------------------------------

def test_diff_keeps_the_assumed_qualifier_for_a_trace_naming_no_gpu(tmp_path):
    from gpulens.diff.sides import load_side
    from gpulens.report import analyze
    from gpulens.reports._run_text import run_device_text

    a, b = SAMPLED / "sampled_rank-0.json.gz", SAMPLED / "sampled_rank-1.json.gz"
    head = gzip.decompress(a.read_bytes())
    assert b"deviceProperties" not in head  # the trace names no GPU: any spec is an assumption
    assert "analysed as an assumed NVIDIA A100 40GB SXM" in run_device_text(analyze([a]).sources[0])
    assert load_side(a).device_label() == "analysed as an assumed NVIDIA A100 40GB SXM"
    r = tmp_path / "r0.json"
    assert main(["analyze", str(a), "-q", "--no-cache", "--json", str(r)]) == 0
    assert load_side(r).device_label() == "analysed as an assumed NVIDIA A100 40GB SXM"  # a report side too
    md = tmp_path / "d.md"
    assert main(["diff", str(a), str(b), "-q", "--markdown", str(md)]) in (0, 1)
    assert md.read_text().count("analysed as an assumed NVIDIA A100 40GB SXM") >= 2
    assert "(analysed as NVIDIA A100" not in md.read_text()
    js = tmp_path / "d.json"
    assert main(["diff", str(a), str(b), "-q", "--json", str(js)]) in (0, 1)
    doc = json.loads(js.read_text())  # the spec's name stays a name; the qualifier a field of its own
    assert doc["base"]["analysed_as"] == ["NVIDIA A100 40GB SXM"] == doc["base"]["analysed_as_assumed"]


# ---- 4. the README says what `analyze --json` replaces: a report of the same kind, never a baseline -----------

def test_analyze_json_replaces_a_json_report_but_never_a_baseline(tmp_path, capsys):
    x = tmp_path / "x.json"
    assert main(["analyze", str(H100), "-q", "--no-cache", "--json", str(x)]) == 0
    # a JSON report by a JSON report of other inputs: the same kind, replaced (the README's rule)
    assert main(["analyze", "--demo", "-q", "--no-cache", "--json", str(x)]) == 0
    assert json.loads(x.read_text())["sources"][0]["label"] != str(H100)
    # a baseline by a report: refused in one line, the baseline's bytes kept
    b = tmp_path / "base.json"
    assert main(["baseline", "save", str(H100), "-n", str(b)]) == 0
    before = b.read_bytes()
    capsys.readouterr()
    assert main(["analyze", "--demo", "-q", "--no-cache", "--json", str(b)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refusing to overwrite" in err[0] and "--force" in err[0] and b.read_bytes() == before


def test_readme_states_the_same_rule():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    flat = " ".join(readme.split())
    assert ("an earlier `analyze --json` report is replaced by a new `analyze --json` report (of any inputs)" in flat
            and "A baseline is never replaced by a report" in flat)
