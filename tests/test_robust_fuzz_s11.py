"""Eleventh-session fuzzing (tests/fuzz_s11.py): one test per kind of fault it found, each on a small input built
here, with the expected value worked out from the input itself; and a small seeded sample of the harness."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import gpulens
from gpulens.reports import json_report
from gpulens.timeline.timeline import MAX_START_NS, MIN_START_NS

DATA = Path(__file__).resolve().parent / "data"


def _b13(tmp_path: Path, ts_us: int | None) -> Path:
    """B13 (4 kernels of 15, 25, 20 and 5 µs at 1010, 1030, 1060 and 1085 µs) with the third kernel moved to
    ``ts_us``."""
    doc = json.loads((DATA / "cases" / "B13.json").read_text())
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    assert [k["dur"] for k in kernels] == [15, 25, 20, 5]
    if ts_us is not None:
        kernels[2]["ts"] = ts_us
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("ts_us", [-(2**63 // 1000), -(2**61 // 1000) - 1, 2**62 // 1000 + 1, 2**63 // 1000 - 30])
def test_a_start_whose_distance_to_the_others_wraps_int64_is_excluded_with_a_warning(tmp_path, ts_us):
    """Kind: one kernel starting at −9.2e18 ns (a ts of −2^63/1000 µs) with the others near 1 ms: the gap between
    them (9.2e18 + 1e6 ns) wrapped int64 negative and the per-GPU breakdown raised ValueError (fuzz_s11
    int64_edge). A start outside [−2^61, 2^62] ns is no clock a profiler uses: that event is excluded and counted;
    the other three kernels stay, with their own span worked out by hand: 1010 µs → 1090 µs = 80 µs."""
    rep = json.loads(json_report.render(gpulens.analyze([_b13(tmp_path, ts_us)])))
    src = rep["sources"][0]
    sm = src["summary"]
    assert sm["kernel_count"] == 3
    assert sm["kernel_time_ns"] == (15 + 25 + 5) * 1000
    assert sm["span_ns"] == (1090 - 1010) * 1000
    # excluded once, by the Timeline's range rule or — for a negative start far before the others — the collectors'
    # placeholder rule (B06's ts ≤ 0 kind, session 39), which reads it first
    assert sum(("1 event with an impossible time excluded" in w) or
               ("1 invalid event excluded: negative timestamp far before the others" in w)
               for w in src["warnings"]) == 1


def test_starts_at_the_edges_of_the_kept_range_are_kept(tmp_path):
    """The bounds themselves are kept (the rule excludes only what lies outside), and two kept times are always
    less than 2^63 ns apart: MAX_START_NS + 2^53 (longest duration) − MIN_START_NS < 2^63."""
    assert MAX_START_NS + (1 << 53) - MIN_START_NS < 2**63
    rep = json.loads(json_report.render(gpulens.analyze([_b13(tmp_path, MAX_START_NS // 1000 - 1)])))
    assert rep["sources"][0]["summary"]["kernel_count"] == 4
    # the lower edge, −2.3e18 ns beside starts near 1 ms, is within the Timeline's range but a negative start far
    # before the others (it would stretch the 80 µs span ~2.9e16×): a placeholder, excluded with its own count
    rep = json.loads(json_report.render(gpulens.analyze([_b13(tmp_path, MIN_START_NS // 1000 + 1)])))
    src = rep["sources"][0]
    assert src["summary"]["kernel_count"] == 3 and src["summary"]["span_ns"] == 80_000
    assert any("negative timestamp far before the others" in w for w in src["warnings"])


def test_the_same_rule_holds_for_an_nsys_export(tmp_path):
    """The rule is the Timeline's, not one reader's: an nsys SQLite kernel at start −2^62 ns (end −2^62 + 500) beside
    kernels at 1000–1500 and 2000–2600 ns is excluded; the span is that of the other two: 1000 → 2600 ns."""
    from tests.fuzzing import _nsys

    p = tmp_path / "r.sqlite"
    _nsys(p)
    con = sqlite3.connect(p)
    con.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = ?, end = ? WHERE correlationId = 12",
                (-(2**62), -(2**62) + 500))
    con.commit()
    con.close()
    rep = json.loads(json_report.render(gpulens.analyze([p])))
    src = rep["sources"][0]
    assert src["summary"]["kernel_count"] == 2
    assert sum(("impossible time excluded" in w) or ("negative timestamp far before the others" in w)
               for w in src["warnings"]) == 1


def _run(args: list[str], capsys) -> tuple[int, str]:
    from gpulens.cli import main

    code = main(args)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("opt", ["--json", "--html", "--markdown", "--perfetto"])
def test_a_report_never_replaces_a_rank_file_of_an_input_folder(tmp_path, capsys, opt):
    """Kind: an output path was refused only when it *was* an input: ``analyze ranks/ --perfetto
    ranks/rank-1.json.gz`` overwrote a rank trace of the input folder with the export (fuzz_s11 CLI combos).
    Every report onto a file of an input folder is refused with one line naming it; the rank file keeps its bytes."""
    d = tmp_path / "ranks"
    d.mkdir()
    for q in sorted((DATA / "kineto" / "multirank").iterdir()):
        (d / q.name).write_bytes(q.read_bytes())
    victim = d / "sampled_rank-1.json.gz"
    before = victim.read_bytes()
    code, err = _run(["analyze", str(d), "-q", "--no-cache", opt, str(victim)], capsys)
    assert code == 2 and victim.read_bytes() == before
    assert err.strip().count("\n") == 0 and "refusing to overwrite an input trace" in err and str(victim) in err


@pytest.mark.parametrize("fmt, name, src", [("csv", "hotspots.csv", "B17.v1_results.csv"),
                                            ("csv", "columns.csv", "B17.v1_results.csv"),
                                            ("csv", "summaries.json", "B13.json"),
                                            ("parquet", "summaries.json", "B13.json")])
def test_a_table_export_never_replaces_an_input_named_like_one_of_its_files(tmp_path, capsys, fmt, name, src):
    """Kind: ``--csv DIR`` / ``--parquet DIR`` wrote ``<analyzer>.<fmt>``, ``columns.csv`` and ``summaries.json`` over
    whatever was there: a trace named ``hotspots.csv`` (or ``summaries.json``) analysed with its own folder as the
    export folder was replaced by a table. The export is refused before any file is written."""
    trace = tmp_path / name
    trace.write_bytes((DATA / "cases" / src).read_bytes())
    before = trace.read_bytes()
    code, err = _run(["analyze", str(trace), "-q", "--no-cache", f"--{fmt}", str(tmp_path)], capsys)
    assert code == 2 and trace.read_bytes() == before
    assert "refusing to overwrite an input trace" in err and err.strip().count("\n") == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [trace.name]  # nothing written
    code, _ = _run(["analyze", str(trace), "-q", "--no-cache", f"--{fmt}", str(tmp_path / "out")], capsys)
    assert code == 0 and (tmp_path / "out" / "summaries.json").is_file()


def test_a_small_seeded_sample_of_the_harness_finds_nothing(tmp_path, capsys, monkeypatch):
    """Six inputs of tests/fuzz_s11.py (the kinds whose faults were fixed here: int64_edge, out_clash, cache_npy)
    behave: no finding, no timeout. The harness itself runs by hand (module docstring)."""
    from tests import fuzz_s11

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    assert fuzz_s11.main(["--seed", "11", "--count", "6", "--workdir", str(tmp_path / "fz"), "--timeout", "60",
                          "--kinds", "int64_edge,out_clash,cache_npy"]) == 0
    tot = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert tot["inputs"] + tot["skipped"] == 6 and tot["inputs"] >= 4
    assert tot["findings"] == [] and tot["timeouts"] == 0
