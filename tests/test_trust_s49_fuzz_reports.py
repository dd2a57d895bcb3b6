"""Regressions of the faults tests/fuzz_s49_reports.py found (session 49) in what ``gpulens gate`` / ``diff`` /
``baseline save`` read besides traces — JSON reports and baseline files: one test per kind of fault, each on an input
built here from one small committed trace, its expected values derived in the test."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import statistics
from pathlib import Path

import pytest

from tests.conftest import DATA

TRACE = DATA / "kineto" / "hta_a100_simple_add_two_streams.json.gz"


def _strict_json(text: str):
    """``text`` parsed as standard JSON: NaN / Infinity (which Python's reader accepts) raise."""
    def no(c):
        raise ValueError(f"{c} in JSON output")
    return json.loads(text, parse_constant=no)


def _cli(*argv: str) -> tuple[int, str]:
    from gpulens.cli import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(list(argv))
    return code, buf.getvalue()


@pytest.fixture(scope="module")
def seed(tmp_path_factory) -> dict:
    """The trace's JSON report and a one-run baseline saved from it (both through the CLI)."""
    d = tmp_path_factory.mktemp("s49j")
    rep, base = d / "r.json", d / "base.json"
    assert _cli("analyze", str(TRACE), "-q", "--no-cache", "--json", str(rep))[0] == 0
    assert _cli("baseline", "save", str(rep), "--name", str(base))[0] == 0
    return {"dir": d, "report": rep, "baseline": base, "doc": json.loads(base.read_text())}


def _one_error_line(text: str, path: Path, *words: str) -> None:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("gpulens: error: ") and str(path) in lines[0], text
    assert "Traceback" not in text and "internal error" not in text
    for w in words:
        assert w in lines[0], (w, lines[0])


# ---------------------------------------------------------------------------------------------------------------
# Kind 1: one run on one side against many on the other. min_p_value(100, 1) = 1/101 < 0.01 sent the pair to
# Welch's t, undefined with one sample (no variance): the CI came out as ±inf and the gate's JSON writer stopped
# with an internal error (exit 70). A realistic case: a baseline of 100 nightly runs, a pull request's one run.
def test_one_run_against_a_hundred_runs_is_judged_without_a_test(seed, tmp_path):
    rng = random.Random(49)
    doc = json.loads(json.dumps(seed["doc"]))
    one = {k: m["samples"][0] for k, m in doc["metrics"].items()}
    for m in doc["metrics"].values():  # 100 runs: each timing with 1 % noise, counts exact (as repeats record them)
        s = m["samples"][0]
        m["samples"] = [s * (1 + 0.01 * rng.random()) if m["kind"] == "timing" else s for _ in range(100)]
        for key in ("share", "calls"):
            if key in m:
                m[key] = m[key] * 100
    doc["runs"] = doc["runs"] * 100
    base = tmp_path / "b100.json"
    base.write_text(json.dumps(doc))
    out = tmp_path / "g.json"
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(base), "-q", "--json", str(out))
    assert code in (0, 1), text
    assert "internal error" not in text and "RuntimeWarning" not in text
    res = _strict_json(out.read_text())
    rows = {r["metric"]: r for r in res["metrics"]}
    span = rows["span_ns"]
    # the candidate is the very run the baseline was made from: ratio = its span / the median of the 100 spans
    want = one["span_ns"] / statistics.median(doc["metrics"]["span_ns"]["samples"])
    assert span["ratio"] == pytest.approx(want, rel=1e-9)
    for r in rows.values():
        for k in ("ratio", "ci_low", "ci_high"):
            assert r.get(k) is None or math.isfinite(r[k]), (r["metric"], k, r.get(k))
    # and the other way round: one baseline run, 100 candidate runs
    code, text = _cli("gate", *[str(seed["report"])] * 100, "--baseline", str(seed["baseline"]), "-q", "--json",
                      str(out), "--force")
    assert code in (0, 1) and "internal error" not in text, text
    _strict_json(out.read_text())


def test_stats_one_sample_side_gets_no_welch_test():
    from gpulens.gate.stats import Comparison, timing_test

    base = [100.0 + i % 7 for i in range(100)]
    for b, c in ((base, [103.0]), ([103.0], base)):
        got = timing_test(b, c)
        assert isinstance(got, Comparison) and got.method == "threshold"
        assert got.ratio == pytest.approx(statistics.median(c) / statistics.median(b))
        assert got.ci_low is None and got.ci_high is None


# ---------------------------------------------------------------------------------------------------------------
# Kind 2: NaN / Infinity anywhere in a baseline or report (Python reads them; no JSON number is one). A baseline's
# environment value NaN was echoed into the gate's JSON: exit 70. Now one line naming the file and the place.
@pytest.mark.parametrize("where", [("environment", "arch", 0), ("environment", "gpu_count"), ("git", "sha"),
                                   ("runs", 0, "created")])
def test_nan_anywhere_in_a_baseline_is_refused_naming_its_place(seed, tmp_path, where):
    doc = json.loads(json.dumps(seed["doc"]))
    holder = doc
    for k in where[:-1]:
        holder = holder.setdefault(k, {}) if isinstance(holder, dict) else holder[k]
    holder[where[-1]] = float("nan")
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc, allow_nan=True))
    before = p.read_bytes()
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(p), "-q", "--json", str(tmp_path / "g.json"))
    place = ".".join(str(k) for k in where if not isinstance(k, int))
    assert code == 2, text
    _one_error_line(text, p, "NaN", place.split(".")[0])
    assert p.read_bytes() == before  # the user's baseline untouched
    assert not (tmp_path / "g.json").exists()


@pytest.mark.parametrize("where", [("sources", 0, "devices", 0, "name"), ("sources", 0, "label_note"),
                                   ("sources", 0, "environment_notes")])
def test_nan_anywhere_in_a_report_is_refused_on_every_reader(seed, tmp_path, where):
    doc = json.loads(seed["report"].read_text())
    holder = doc
    for k in where[:-1]:
        holder = holder[k]
    holder[where[-1]] = float("inf")
    p = tmp_path / "cand.json"
    p.write_text(json.dumps(doc, allow_nan=True))
    for argv in (["gate", str(p), "--baseline", str(seed["baseline"]), "-q", "--json", str(tmp_path / "g.json")],
                 ["diff", str(seed["report"]), str(p), "--json", str(tmp_path / "d.json")],
                 ["gate", str(seed["report"]), "--baseline", str(p), "-q"],
                 ["baseline", "save", str(p), "--name", str(tmp_path / "nb.json")]):
        code, text = _cli(*argv)
        assert code == 2, (argv, text)
        _one_error_line(text, p, "Infinity")
    assert not any((tmp_path / n).exists() for n in ("g.json", "d.json", "nb.json"))


# ---------------------------------------------------------------------------------------------------------------
# Kind 3: a baseline metric with more samples than the baseline has runs (hand-merged or damaged: each usable run
# gives a metric one sample at most). Read as is, 20,000 samples of kernel_count against one candidate run went to
# a Welch test (exit 70, kind 1); any such count misstates the baseline's noise.
def test_more_samples_than_runs_is_a_malformed_baseline(seed, tmp_path):
    doc = json.loads(json.dumps(seed["doc"]))
    name = sorted(doc["metrics"])[0]
    n_runs = len(doc["runs"])
    doc["metrics"][name]["samples"] = doc["metrics"][name]["samples"] * (n_runs + 2)
    for key in ("share", "calls"):
        doc["metrics"][name].pop(key, None)
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(p), "-q")
    assert code == 2, text
    _one_error_line(text, p, "malformed baseline", repr(name), f"{n_runs * (n_runs + 2)} samples")
    # fewer samples than runs stays valid: a run that lacks a figure gives it no sample
    doc["runs"] = doc["runs"] * (n_runs + 2)
    p.write_text(json.dumps(doc))
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(p), "-q")
    assert code in (0, 1), text


# ---------------------------------------------------------------------------------------------------------------
# Kind 4: gpulens's own outputs in a rank folder. A baseline saved beside the rank traces (``baseline save --name
# runs/main.json``) was read as a rank file that could not be read: the run was called partial ("1 of 3 rank files
# could not be read"), so the gate would exclude it. Every gpulens output — baseline, its history, the JSON of
# gate and diff — is named as what it is and is no lost rank.
def test_gpulens_outputs_in_a_rank_folder_are_not_lost_ranks(seed, tmp_path):
    import gzip

    d = tmp_path / "ranks"
    d.mkdir()
    doc = json.loads(gzip.decompress(TRACE.read_bytes()))
    for r in range(2):
        doc["distributedInfo"] = {"rank": r, "world_size": 2}
        (d / f"rank{r}.pt.trace.json").write_text(json.dumps(doc))
    rank0 = d / "rank0.pt.trace.json"
    assert _cli("baseline", "save", str(seed["report"]), "--name", str(d / "main.json"))[0] == 0
    store = tmp_path / "store"
    assert _cli("baseline", "save", str(seed["report"]), "--name", "main", "--store", str(store))[0] == 0
    (d / "history.jsonl").write_bytes((store / "history.jsonl").read_bytes())
    assert _cli("gate", str(rank0), "--baseline", str(seed["baseline"]), "-q", "--json", str(d / "g.json"))[0] in (0, 1)
    assert _cli("diff", str(rank0), str(rank0), "--json", str(d / "d.json"))[0] == 0
    out = tmp_path / "r.json"
    code, text = _cli("analyze", str(d), "-q", "--no-cache", "--json", str(out))
    assert code == 0, text
    rep = json.loads(out.read_text())
    src = rep["sources"][0]
    assert rep["status"] == "ok" and src["rank_files"] == 2 and not src["unread_files"], (rep["status"], src)
    note = " ".join(src["warnings"])
    for name, what in (("main.json", "a gpulens baseline"), ("g.json", "a gpulens gate result"),
                       ("d.json", "a gpulens diff result")):
        assert f"{name} ({what}" in note or (f"{name}, " in note and what in note), (name, note)
    # the baseline given to analyze alone: named as a baseline, with the command that reads it
    code, text = _cli("analyze", str(d / "main.json"), "-q", "--no-cache")
    assert code == 2
    _one_error_line(text, d / "main.json", "a gpulens baseline", "gpulens gate")


# ---------------------------------------------------------------------------------------------------------------
# Kind 5: a count the gate compares (kernels, distinct kernels, launch calls) that is not whole. A baseline of
# "16.01 distinct kernels" was shown as such against the candidate's 16 ("−0.0 %", IMPROVED): an impossible figure.
@pytest.mark.parametrize("metric", ["kernel_count", "unique_kernels", "launch_calls"])
def test_a_fractional_count_in_a_baseline_or_report_is_refused(seed, tmp_path, metric):
    doc = json.loads(json.dumps(seed["doc"]))
    if metric not in doc["metrics"]:
        pytest.skip(f"{metric} not recorded for this trace")
    doc["metrics"][metric]["samples"] = [doc["metrics"][metric]["samples"][0] + 0.01]
    p = tmp_path / "b.json"
    p.write_text(json.dumps(doc))
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(p), "-q")
    assert code == 2
    _one_error_line(text, p, repr(metric), "whole number")
    rep = json.loads(seed["report"].read_text())
    holder = rep["sources"][0]["analyses"]["launches"]["summary"] if metric == "launch_calls" else \
        rep["sources"][0]["summary"]
    holder[metric] = holder[metric] + 0.5
    c = tmp_path / "c.json"
    c.write_text(json.dumps(rep))
    for argv in (["gate", str(c), "--baseline", str(seed["baseline"]), "-q"], ["diff", str(seed["report"]), str(c)]):
        code, text = _cli(*argv)
        assert code == 2, text
        _one_error_line(text, c, f"{metric} is {holder[metric]}", "whole count")
    holder[metric] = float(int(holder[metric]))  # 79.0: a whole count written as a float is one
    c.write_text(json.dumps(rep))
    assert _cli("gate", str(c), "--baseline", str(seed["baseline"]), "-q")[0] in (0, 1)


# ---------------------------------------------------------------------------------------------------------------
# Kind 6: a baseline figure so small the candidate's ratio to it overflows (a report used as the baseline with
# gpu_busy_ns = 5e-324, a denormal): the ratio was inf and the gate's JSON writer stopped (exit 70). Judged as a
# zero baseline is: the candidate's non-zero time is a change no ratio can state.
def test_a_baseline_figure_whose_ratio_overflows_is_judged_as_from_zero(seed, tmp_path):
    from gpulens.gate.stats import Comparison, timing_test

    got = timing_test([5e-324], [1000.0])
    assert isinstance(got, Comparison) and got.ratio is None and got.verdict == "REGRESSED"
    assert 1000.0 / 5e-324 == math.inf  # the overflow this guards against
    rep = json.loads(seed["report"].read_text())
    rep["sources"][0]["summary"]["gpu_busy_ns"] = 5e-324
    base = tmp_path / "base_report.json"
    base.write_text(json.dumps(rep))
    out = tmp_path / "g.json"
    code, text = _cli("gate", str(seed["report"]), "--baseline", str(base), "-q", "--json", str(out))
    assert code == 1 and "internal error" not in text, text  # REGRESSED, as from a zero baseline
    row = next(r for r in _strict_json(out.read_text())["metrics"] if r["metric"] == "gpu_busy_ns")
    assert row["verdict"] == "REGRESSED" and row["ratio"] is None and "too small" in row["reason"]
