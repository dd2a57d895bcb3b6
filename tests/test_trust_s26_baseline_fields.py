"""A hand-edited or damaged baseline, or a gate setting that is no number, is one line naming the file and the
field, exit 2 (docs/gate.md "Exit codes": malformed baseline, bad config) — never a silent pass. Before: a
misspelled direction (``"lowr"``) was read as "higher is better", a baseline in ``ms`` was compared with candidate
runs in ns, ``"runs": "abc"`` was three runs, and ``threshold = nan`` or ``inf`` passed a 2× slowdown (exit 0)."""

from __future__ import annotations

import json

import pytest

from gpulens.cli import main
from gpulens.reports.json_report import to_dict
from gpulens.report import analyze
from tests.gate_traces import make_trace


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three candidate reports and a baseline saved from them."""
    d = tmp_path_factory.mktemp("runs")
    reports = []
    for i in range(3):
        r = d / f"run{i}.report.json"
        r.write_text(json.dumps(to_dict(analyze([make_trace(d / f"run{i}.json", seed=i)]))))
        reports.append(r)
    assert main(["baseline", "save", *map(str, reports), "--name", str(d / "base.json")]) == 0
    return reports, json.loads((d / "base.json").read_text())


def _gate(tmp_path, capsys, runs, edit, *extra: str) -> tuple[int, list[str], str]:
    reports, doc = runs
    doc = json.loads(json.dumps(doc))
    edit(doc)
    base = tmp_path / "edited.json"
    base.write_text(json.dumps(doc))
    capsys.readouterr()
    code = main(["gate", *map(str, reports), "--baseline", str(base), "-q", *extra])
    return code, capsys.readouterr().err.strip().splitlines(), str(base)


def _metric(field, value, name="span_ns"):
    def edit(doc):
        doc["metrics"][name][field] = value
    return edit


def _top(field, value):
    def edit(doc):
        doc[field] = value
    return edit


@pytest.mark.parametrize("edit, words", [
    (_metric("direction", "lowr"), ["'span_ns'", "direction", "'lowr'"]),
    (_metric("direction", "Higher"), ["'span_ns'", "direction", "'Higher'"]),
    (_metric("direction", None), ["'span_ns'", "direction", "None"]),
    (_metric("kind", "timng"), ["'span_ns'", "kind", "'timng'"]),
    (_metric("unit", "ms"), ["'span_ns'", "unit", "'ms'"]),
    (_metric("unit", "bytes"), ["'span_ns'", "unit", "'bytes'", "'ns'"]),     # a known unit, not the runs' one
    (_metric("kind", "timing", "kernel_count"), ["'kernel_count'", "kind", "'timing'", "'count'"]),
    (_metric("share", [0.5]), ["share", "1 share value for 3 samples"]),
    (_metric("calls", [1, 1]), ["2 calls values for 3 samples"]),
    (_top("runs", "abc"), ["'runs'", "a string"]),
    (_top("machine_key", None), ["'machine_key'", "null"]),
    (_top("excluded", {}), ["'excluded'", "an object"]),
    (_top("report_schema_version", "2"), ["'report_schema_version'"]),
    (_top("metrics", {}), ["'metrics'", "empty"]),
])
def test_a_hand_edited_field_is_one_line_naming_the_file_and_the_field(tmp_path, capsys, runs, edit, words):
    code, err, base = _gate(tmp_path, capsys, runs, edit)
    assert code == 2
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {base}: ")
    for w in words:
        assert w in err[0]


def test_calls_per_kernel_must_match_its_samples(tmp_path, capsys, runs):
    kernel = next(k for k in runs[1]["metrics"] if k.startswith("kernel:"))
    code, err, base = _gate(tmp_path, capsys, runs, _metric("calls", [1], kernel))
    assert code == 2 and len(err) == 1 and base in err[0] and "1 calls value for 3 samples" in err[0]


def test_a_truncated_baseline_is_one_line(tmp_path, capsys, runs):
    reports, doc = runs
    base = tmp_path / "cut.json"
    base.write_text(json.dumps(doc, indent=1)[:2000])
    assert main(["gate", *map(str, reports), "--baseline", str(base), "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {base}: not a readable baseline")


def _slower_candidate(doc):
    """The baseline's times halved: the candidate runs are 2× slower, a regression at any sane threshold."""
    for m in doc["metrics"].values():
        if m["kind"] == "timing":
            m["samples"] = [s / 2 for s in m["samples"]]


def test_the_slower_candidate_regresses_with_the_default_settings(tmp_path, capsys, runs):
    assert _gate(tmp_path, capsys, runs, _slower_candidate)[0] == 1


@pytest.mark.parametrize("setting", ["threshold = nan", "threshold = inf", "noise_multiplier = nan",
                                     "noise_multiplier = inf", "count_tolerance = nan", "min_kernel_share = nan",
                                     'metrics."span_ns".threshold = nan', 'metrics."span_ns".noise_multiplier = inf'])
def test_a_setting_that_is_no_finite_number_is_one_line(tmp_path, capsys, runs, setting):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f"[gate]\n{setting}\n")
    code, err, _ = _gate(tmp_path, capsys, runs, _slower_candidate, "--config", str(cfg))
    key = setting.split(" = ")[0].replace('"', "")
    assert code == 2
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {cfg}: gate setting '{key}' must be a")
