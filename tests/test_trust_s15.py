"""Session 15 trust items: figures a user can read as they are.

1. Steps and kernel outliers are placed by their offset from the start of their rank's trace in console, HTML and
   Markdown — never by the raw profiler clock (1.7e18 ns since 1970) — which stays in the JSON for tools.
2. A rank directory with one truncated file: every report names the rank and file, where it stops and what was lost.
3. ``gpulens profile script.py`` whose script raises or exits non-zero: the failure is said first, before the summary;
   the profile up to it is still analysed and labelled partial.
"""

from __future__ import annotations

import gzip
import html as _html
import json
import re
import shutil

import pytest

import gpulens
from tests.conftest import KINETO, shared_trace
from tests.test_cli import run

T0 = 1_700_000_000_000_000  # µs since 1970 (Kineto's clock): rank 0's first event, 2023-11-14 22:13:20 UTC
T1 = T0 + 7_000_000  # rank 1's first event, 7 s later on the same clock


def _rank(path, rank: int, t: int, lead: int):
    """A rank whose first event (aten::warmup) is at ``t`` µs; ProfilerStep#n at t + lead + 1000·n µs (900 µs long)
    with 4 kernels of 10 µs each, the third step's first kernel lasting 80 µs (8× the median: the one outlier)."""
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::warmup", "pid": 1, "tid": 1, "ts": t, "dur": 5}]
    for n in range(3):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                   "ts": t + lead + 1000 * n, "dur": 900})
        for i in range(4):
            ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7,
                       "ts": t + lead + 100 + 1000 * n + 100 * i, "dur": 80 if (n, i) == (2, 0) else 10,
                       "args": {"device": 0, "stream": 7}})
    path.write_text(json.dumps({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}))


def _run_dir(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    _rank(d / "rank0.json", 0, T0, 100)
    _rank(d / "rank1.json", 1, T1, 300)
    return d


def _section(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i:text.index(end, i + len(start))]


def test_offsets_per_rank_in_json_and_raw_clock_kept(tmp_path):
    d = _run_dir(tmp_path)
    out = tmp_path / "r.json"
    run("analyze", str(d), "--no-cache", "-q", "--json", str(out))
    res = json.loads(out.read_text())["sources"][0]["analyses"]
    steps = res["steps"]["table"]
    rows = sorted((r["rank"], r["step"], r["trace_offset_ns"], r["start_ns"]) for r in steps)
    # rank 0: steps 100 + 1000·n µs after ITS first event; rank 1: 300 + 1000·n µs after its own (not 7 s + …)
    assert [(a, b, c) for a, b, c, _ in rows] == [(0, 0, 100_000), (0, 1, 1_100_000), (0, 2, 2_100_000),
                                                   (1, 0, 300_000), (1, 1, 1_300_000), (1, 2, 2_300_000)]
    # the raw clock stays for tools
    assert rows[0][3] == (T0 + 100) * 1000 and rows[3][3] == (T1 + 300) * 1000
    outl = sorted((r["rank"], r["trace_offset_ns"], r["dur_ns"]) for r in res["kernel_outliers"]["table"])
    # the 80 µs kernel of step 2: lead + 100 + 2000 µs after the rank's first event
    assert outl == [(0, 2_200_000, 80_000), (1, 2_400_000, 80_000)]


def test_console_markdown_html_show_offset_not_clock(tmp_path):
    d = _run_dir(tmp_path)
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    con = run("analyze", str(d), "--no-cache", "--markdown", str(md), "--html", str(html)).stdout
    date = "2023-11-14"  # T0 and T1 as a date: the raw clock shown as a timestamp
    steps = _section(con, "Steps", "└")
    assert "start (in" in steps and "window)" in steps  # the header wraps over two lines
    assert "1.30 ms" in steps and "100.00 µs" in steps and date not in steps
    outl = _section(con, "Kernel outliers", "└")
    assert "2.40 ms" in outl and "2.20 ms" in outl and date not in outl
    m = md.read_text()
    for title in ("### Steps", "### Kernel outliers"):
        sec = _section(m, title, "\n\n### ")
        header = sec.splitlines()[2]
        assert "start (in profiled window)" in header and "| start |" not in header
        assert date not in sec
    assert "| 1 | 1 | 1.30 ms |" in _section(m, "### Steps", "\n\n### ")
    h = html.read_text()
    tables = [t for t in re.findall(r"<table.*?</table>", h, re.S) if "start (in profiled window)" in t]
    assert len(tables) == 3  # steps, kernel outliers, and the outlier row on the kernel's page
    for table in tables:
        heads = re.findall(r"<th[^>]*>(.*?)</th>", table)
        assert "start" not in heads and date not in table, heads
    assert sum(">2.40 ms<" in t for t in tables) == 1 and sum(">1.30 ms<" in t for t in tables) == 1


@pytest.fixture(scope="module")
def truncated_run(tmp_path_factory):
    """rank 0 whole; rank 1 decompressed and cut at 60 % of its text (written as .json), the reports of the run."""
    d = tmp_path_factory.mktemp("trunc")
    run_dir = d / "run"
    run_dir.mkdir()
    shutil.copy(KINETO / "multirank" / "sampled_rank-0.json.gz", run_dir)
    text = gzip.open(KINETO / "multirank" / "sampled_rank-1.json.gz").read()
    cut = text[:int(len(text) * 0.6)]
    (run_dir / "sampled_rank-1.json").write_bytes(cut)
    # by hand from the cut text: events are written '{"ph": …}' one after another; the last one is cut short, so the
    # trace text read ends where it starts, and every event before it is complete
    stop = cut.rfind(b'{"ph"')
    kept = cut.count(b'{"ph"') - 1
    out = {k: d / f"r.{k}" for k in ("json", "md", "html")}
    con = run("analyze", str(run_dir), "--no-cache", "--json", str(out["json"]), "--markdown", str(out["md"]),
              "--html", str(out["html"]))
    return con, {k: p.read_text() for k, p in out.items()}, stop, kept


def test_truncated_rank_is_named_in_every_report(truncated_run):
    con, rep, stop, kept = truncated_run
    assert con.returncode == 0  # a partial result, not an error
    what = (f"rank 1 (sampled_rank-1.json) stops after {stop:,} bytes of trace text ({kept:,} complete events kept; "
            "rank 1's events after that point are lost; the other files were read whole)")
    # console: said first, before the verdict
    body = con.stdout[con.stdout.index("PARTIAL RESULT"):]
    assert "Verdict" in body and "Verdict" not in con.stdout[:con.stdout.index("PARTIAL RESULT")]
    assert what in " ".join(body[:body.index("Verdict")].split())  # wrapped at the console's width
    src = json.loads(rep["json"])["sources"][0]
    assert src["status"] == "partial" and what in src["partial_reason"]
    by_rank = {i["rank"]: i for i in src["inputs"]}
    assert by_rank[1]["truncated_at_bytes"] == stop and "truncated_at_bytes" not in by_rank[0]
    assert what.replace("_", "\\_") in rep["md"]
    assert what in _html.unescape(rep["html"])


def _with_session_record(path, lead_us: int) -> None:
    """One rank (``_rank`` with lead 100 µs) with the profiler's own session record, as Kineto writes it: category
    ``Trace``, opening ``lead_us`` before the first event it records and lasting past the last one."""
    _rank(path, 0, T0, 100)
    d = json.loads(path.read_text())
    d["traceEvents"].append({"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans",
                             "tid": "PyTorch Profiler", "ts": T0 - lead_us, "dur": lead_us + 5000})
    path.write_text(json.dumps(d))


def test_offsets_window_and_steps_share_one_origin(tmp_path):
    """The profiler's session record opens 400 µs before the first event: the steps' start, the profiled window and
    ``--window`` all count from the first recorded event (T0), so no step ends after the profiled window, and the
    offset a user reads in the steps table selects that step."""
    p = tmp_path / "t.json"
    _with_session_record(p, 400)
    out = tmp_path / "r.json"
    run("analyze", str(p), "--no-cache", "-q", "--json", str(out))
    res = json.loads(out.read_text())["sources"][0]["analyses"]
    steps = sorted((r["step"], r["trace_offset_ns"], r["dur_ns"]) for r in res["steps"]["table"])
    # by hand from _rank: step n at lead + 1000·n µs after T0, 900 µs long (not 400 µs more, from the record)
    assert steps == [(0, 100_000, 900_000), (1, 1_100_000, 900_000), (2, 2_100_000, 900_000)]
    window = res["breakdown"]["summary"]["window_ns"]
    # the profiled window: T0 (aten::warmup) → the last step annotation's end, lead + 2000 + 900 µs (its kernels end
    # at lead + 100 + 2000 + 300 + 10 µs, inside it); not the session record's 400 + 5000 µs
    assert window == 3_000_000
    assert all(off + dur <= window for _, off, dur in steps)
    # --window pasted from the steps table: the second step's start to its end selects its 4 kernels only
    sel = tmp_path / "s.json"
    run("analyze", str(p), "--no-cache", "-q", "--window", "1100us:2000us", "--json", str(sel))
    kept = json.loads(sel.read_text())["sources"][0]["analyses"]["steps"]["table"]
    assert [r["step"] for r in kept] == [1]


SCRIPT = KINETO.parent / "profile" / "train_script.py"
FAILED = "WORKLOAD FAILED: train_script.py raised ValueError: deliberate failure after training (exit status 4)"


def _profile(tmp_path, capfd, *script_args):
    pytest.importorskip("torch")
    from gpulens.cli import main

    code = main(["profile", "-o", str(tmp_path), "--telemetry", "off", str(SCRIPT), "--", *script_args])
    err = " ".join(capfd.readouterr().err.split())  # the console wraps at its width (80 columns in a pipe)
    rep = json.loads((tmp_path / "train_script.report.json").read_text())["sources"][0]
    return code, err, rep


def test_profile_failing_script_says_the_failure_first_and_is_partial(tmp_path, capfd):
    code, err, rep = _profile(tmp_path, capfd, "--fail")
    assert code == 4  # an uncaught exception: 4, as the CLI documents
    # the exception line, then the failure said before any figure of the summary
    assert err.index("ValueError: deliberate failure after training") < err.index(FAILED) < err.index("Verdict")
    assert err.index(FAILED) < err.index("gpulens · train_script")
    reason = "the profiled code raised ValueError: deliberate failure after training — the profile covers the run " \
             "up to that point"
    assert reason in " ".join(err[err.index("PARTIAL RESULT"):err.index("Verdict")].split())
    assert rep["partial_reason"] == reason
    assert rep["inputs"][0]["profile"]["failure"] == "the profiled code raised ValueError: deliberate failure after " \
                                                     "training"
    # the run up to the failure is analysed: 1 epoch of 4 batches, 2 aten::addmm (two Linear layers) per forward
    ops = {r["name"]: r["calls"] for r in rep["analyses"]["cpu_ops"]["table"]}
    assert ops["aten::addmm"] == 8
    html = _html.unescape((tmp_path / "train_script.report.html").read_text())
    assert reason in html


def test_profile_nonzero_exit_is_said_first(tmp_path, capfd):
    code, err, rep = _profile(tmp_path, capfd, "--exit-code", "3")
    assert code == 3
    line = "WORKLOAD FAILED: train_script.py exited with status 3 — the profile up to that point is analysed"
    assert line in err and err.index(line) < err.index("Verdict")
    assert rep["partial_reason"].startswith("the profiled code exited with status 3")


def test_profile_exit_zero_is_no_failure(tmp_path, capfd):
    code, err, rep = _profile(tmp_path, capfd, "--exit-code", "0")
    assert code == 0 and "WORKLOAD FAILED" not in err and "PARTIAL RESULT" not in err
    assert rep["partial_reason"] is None and rep["inputs"][0]["profile"]["failure"] is None


def test_failed_live_run_with_gpu_work_is_partial(tmp_path):
    """The status: a run with GPU work whose profiled code failed is partial (the CPU-only runs above are
    no_gpu_work, which stays first)."""
    from gpulens.collectors import collect
    from gpulens.report import analyze_timeline

    p = tmp_path / "t.json"
    _rank(p, 0, T0, 100)
    tl = collect(p)
    assert analyze_timeline(tl, "ok").status == "ok"
    tl = collect(p)
    tl.meta.sources[0]["profile"] = {"failure": "the profiled code raised RuntimeError: CUDA out of memory"}
    s = analyze_timeline(tl, "failed")
    assert s.status == "partial"
    from gpulens.reports._answer import partial_reason

    assert partial_reason(s) == ("the profiled code raised RuntimeError: CUDA out of memory — the profile covers "
                                 "the run up to that point")


H100 = "kineto/tracelens_h100_bert-small.json.gz"


def test_console_shared_memory_column_is_kib_matching_its_values():
    """The occupancy table's shared-memory column was headed "smem B" over byte counts (231,424); it now says KiB
    and shows KiB: the sm90 GEMM's "shared memory" arg in the trace is 231424 B = 226 KiB (231424 / 1024)."""
    from gpulens.reports import console

    with gzip.open(shared_trace(H100)) as f:
        events = json.load(f)["traceEvents"]
    smem = {e["args"]["shared memory"] for e in events
            if e.get("cat") == "kernel" and e.get("name", "").startswith("sm90_xmma_gemm")}
    assert smem == {231424}
    text = console.render(gpulens.analyze([shared_trace(H100)]), width=160)
    occ = text[text.index("Occupancy ("):]
    occ = occ[:occ.index("└")]
    header = occ[occ.index("┏"):occ.index("┡")]  # a narrow header wraps: "smem" over "KiB"
    assert "smem" in header and "KiB" in header and not re.search(r"\bB\b", header)
    row = next(line for line in occ.splitlines() if "sm90_xmma" in line)
    cells = [c.strip() for c in row.split("│")]
    assert "226" in cells and "231,424" not in row  # 231424 / 1024 = 226 exactly


def test_kib_text_rounds_binary_units():
    from gpulens.reports._format import kib_text

    assert kib_text(147456) == "144"  # 144 × 1024
    assert kib_text(512) == "0.50"
    assert kib_text(None) == "unknown"
    assert kib_text(float("nan")) == "unknown"


def test_layer_norm_is_not_told_to_become_a_fused_kernel():
    """The H100 BERT's vectorized_layer_norm_kernel is PyTorch's fused LayerNorm (statistics, normalise and affine
    in one kernel); its launches all run shorter than their launch call, and it was told "fuse it with its
    neighbours (torch.compile, a fused kernel)" — what it already is. The step now names what is left to fuse."""
    with gzip.open(shared_trace(H100)) as f:
        events = json.load(f)["traceEvents"]
    ln = [e for e in events if e.get("cat") == "kernel" and "vectorized_layer_norm_kernel" in e.get("name", "")]
    assert ln  # the kernel is in the trace: one kernel per LayerNorm call, nothing else to fuse inside it
    vd = gpulens.analyze([shared_trace(H100)]).sources[0].results["verdicts"].table
    row = vd[vd["name"].str.contains("vectorized_layer_norm_kernel")].iloc[0]
    first = list(row["next_steps"])[0]
    assert "run shorter than their launch call" in first
    assert "already one fused LayerNorm kernel" in first and "residual add" in first
    assert "a fused kernel)" not in first


def test_fuse_step_words_per_kernel():
    from gpulens.analyzers._advice import fuse_step
    from gpulens.analyzers._kernel_owner import family

    aten = "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, float>"
    assert family(aten) == "normalisation"
    assert "fused add+LayerNorm" in fuse_step(True, family(aten), aten)
    # Inductor's kernel is torch.compile's output: not told to turn torch.compile on to fuse it
    ind = "triton_per_fused_add_native_layer_norm_3"
    text = fuse_step(True, family(ind), ind, vendor="nvidia")
    assert text.startswith("it is already torch.compile's fused LayerNorm kernel: capture the step in CUDA graphs")
    assert "fused add+" not in text and "more rows" not in text
    assert "RMSNorm" in fuse_step(False, "normalisation", "vllm::rms_norm_kernel")
    assert "torch.compile" not in fuse_step(False, "normalisation", "vllm::rms_norm_kernel")  # not a PyTorch input
    sm = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>"
    assert "fused softmax kernel" in fuse_step(True, family(sm), sm)
    # an elementwise kernel keeps the plain advice
    assert fuse_step(True, "elementwise", "elementwise_kernel") == "fuse it with its neighbours (torch.compile, a fused kernel)"


def _step_numbers_of(path) -> list[int]:
    with gzip.open(path, "rt") as fh:
        names = [e.get("name", "") for e in json.load(fh)["traceEvents"] if e.get("ph") == "X"]
    return sorted({int(m.group(1)) for n in names if (m := re.fullmatch(r"ProfilerStep#(\d+)", str(n)))})
