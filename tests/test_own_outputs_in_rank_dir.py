"""gpulens's own outputs written into a rank folder (``gpulens analyze DIR --json DIR/report.json --csv DIR`` …) are
not lost rank files when the folder is analysed again: the result stays complete (not "partial"), the rank count is
the trace files', and the warning says what each output is. Given alone, each output gets a one-line error naming
what it is. The rank traces are the two real files of tests/data/kineto/multirank."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gpulens.cli import main

MULTIRANK = Path(__file__).parent / "data" / "kineto" / "multirank"


@pytest.fixture(autouse=True)
def _piped_console(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)


def _ranks(tmp_path: Path) -> tuple[Path, int]:
    d = tmp_path / "ranks"
    d.mkdir()
    files = sorted(MULTIRANK.glob("*.json.gz"))
    for f in files:
        shutil.copy(f, d / f.name)
    return d, len(files)


def _report(capsys, d: Path, out: Path) -> tuple[int, dict, str]:
    code = main(["analyze", str(d), "--quiet", "--json", str(out)])
    err = capsys.readouterr().err
    return code, json.loads(out.read_text()), err


def test_reports_and_export_written_into_the_folder_are_not_lost_ranks(tmp_path, capsys):
    d, n = _ranks(tmp_path)
    assert n == 2
    # every output gpulens writes, into the rank folder itself
    assert main(["analyze", str(d), "--quiet", "--json", str(d / "report.json"), "--html", str(d / "report.html"),
                 "--markdown", str(d / "report.md"), "--csv", str(d)]) == 0
    capsys.readouterr()
    written = sorted(p.name for p in d.iterdir() if not p.name.endswith(".json.gz"))
    assert {"report.json", "report.html", "report.md", "summaries.json", "columns.csv"} <= set(written)
    code, rep, err = _report(capsys, d, tmp_path / "again.json")
    assert code == 0
    assert rep["status"] == "ok", rep.get("partial_reason")
    assert "partial" not in err
    src = rep["sources"][0]
    assert len(src["inputs"]) == n  # the two traces, nothing else read
    text = " ".join(src.get("warnings", []))
    assert (f"{len(written)} files in the folder are not traces" if len(written) != 1 else
            "1 file in the folder is not a trace") in text
    for what in ("a gpulens JSON report", "a gpulens HTML report", "a gpulens Markdown report",
                 "part of a gpulens table export"):
        assert what in text


def test_a_stray_json_that_is_not_gpulens_output_still_counts_as_a_lost_rank(tmp_path, capsys):
    """The other side of the rule: a .json beside .json.gz ranks that is neither a trace nor gpulens's output (a
    corrupt rank file) still makes the result partial — even named summaries.json when no gpulens columns.csv is
    beside it."""
    d, _ = _ranks(tmp_path)
    (d / "summaries.json").write_text('{"steps": {"summary": {}}}')
    code, rep, _ = _report(capsys, d, tmp_path / "o.json")
    assert code == 0 and rep["status"] == "partial"
    assert "summaries.json" in rep["sources"][0]["partial_reason"] if "partial_reason" in rep["sources"][0] \
        else "summaries.json" in rep["partial_reason"]


@pytest.mark.parametrize("flag,name,what", [("--json", "r.json", "a gpulens JSON report"),
                                            ("--markdown", "r.md", "a gpulens Markdown report"),
                                            ("--html", "r.html", "a gpulens HTML report")])
def test_an_output_given_as_input_is_named(tmp_path, capsys, flag, name, what):
    d, _ = _ranks(tmp_path)
    out = tmp_path / name
    assert main(["analyze", str(d), "--quiet", flag, str(out)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and str(out) in err and what in err
