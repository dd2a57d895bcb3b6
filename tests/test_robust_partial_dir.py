"""A rank directory where some rank files cannot be read: the readable ranks are analysed, and the result is
*partial* everywhere a person or a CI job looks — the first line of the summary (with the count: "2 of 5 rank files
could not be read: NAME: reason"), one stderr line with ``--quiet``, ``"status": "partial"`` + ``partial_reason`` in
the JSON report, the Markdown status row — and ``gpulens gate`` leaves the run out. Exit 0, as for a truncated
single file whose readable part holds GPU work (README exit-code table); ``--strict`` makes it exit 2.

Stray files that are not traces (a README, a launch script) are named in a warning but do not make the result
partial: only files that look like rank files (a ``rank<N>`` name, the suffix of the files that were read, or
recognised as a trace and then failing) count."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from gpulens.cli import main

MULTIRANK = Path(__file__).parent / "data" / "kineto" / "multirank"


def _good_dir(tmp_path: Path) -> Path:
    d = tmp_path / "complete"
    d.mkdir(exist_ok=True)
    for f in sorted(MULTIRANK.glob("*.json.gz")):
        shutil.copy(f, d / f.name)
    return d


def _broken_dir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """The two real rank files plus a corrupt one, an empty one and a stray README; returns the folder and the
    unreadable rank files with a word their reason must contain."""
    d = tmp_path / "ranks"
    shutil.copytree(_good_dir(tmp_path), d)
    # gzip magic, then garbage: recognised by its name and magic, not decompressible
    (d / "sampled_rank-2.json.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(range(256)) * 4)
    (d / "sampled_rank-3.json").write_bytes(b"")
    (d / "README.md").write_text("how these traces were taken\n")
    bad = {"sampled_rank-2.json.gz": "", "sampled_rank-3.json": "empty"}
    return d, bad


@pytest.fixture(autouse=True)
def _piped_console(monkeypatch):
    """Output as to a pipe whatever the terminal running the tests: one line per sentence (cli/_console.py); a
    COLUMNS set by the caller's shell would fold the warnings these tests read line by line."""
    monkeypatch.delenv("COLUMNS", raising=False)


def _run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_unreadable_rank_files_make_a_partial_result_said_first(tmp_path, capsys):
    good = _good_dir(tmp_path)
    d, bad = _broken_dir(tmp_path)
    code, _, _ = _run(capsys, "analyze", good, "-q", "--no-cache", "--json", tmp_path / "good.json")
    assert code == 0
    complete = json.loads((tmp_path / "good.json").read_text())["sources"][0]
    assert complete["status"] == "ok" and complete["partial_reason"] is None and complete["unread_files"] == []

    code, out, _ = _run(capsys, "analyze", d, "--no-cache", "--json", tmp_path / "r.json",
                        "--markdown", tmp_path / "r.md")
    assert code == 0
    lines = [x for x in out.splitlines() if x.strip()]
    # the line after the source's rule: the count of rank files and each one's name and reason
    assert lines[1].startswith("PARTIAL RESULT: 2 of 4 rank files could not be read:"), lines[:3]
    for name, why in bad.items():
        assert f"{name}: " in lines[1] and why in lines[1].split(f"{name}: ", 1)[1]
    assert "README.md" not in lines[1]

    doc = json.loads((tmp_path / "r.json").read_text())
    src = doc["sources"][0]
    assert doc["status"] == src["status"] == "partial"
    assert src["rank_files"] == 4 and src["truncated"] is False
    assert sorted(Path(u["path"]).name for u in src["unread_files"]) == sorted(bad)
    assert src["partial_reason"].startswith("2 of 4 rank files could not be read")
    # the readable ranks' figures are those of the complete folder (nothing invented, nothing lost)
    for k in ("kernel_count", "kernel_time_ns", "ranks"):
        assert src["summary"][k] == complete["summary"][k], k
    assert any("README.md" in w and ("not traces" in w or "not a trace" in w) for w in src["warnings"])
    md = (tmp_path / "r.md").read_text()
    assert "| status | partial (2 of 4 rank files could not be read" in md


def test_quiet_run_still_says_partial_on_stderr_and_strict_fails(tmp_path, capsys):
    d, bad = _broken_dir(tmp_path)
    code, out, err = _run(capsys, "analyze", d, "-q", "--no-cache")
    assert code == 0 and out == ""
    (line,) = err.strip().splitlines()
    assert line.startswith(f"gpulens: warning: partial result: {d}: 2 of 4 rank files could not be read")
    code, _, err = _run(capsys, "analyze", d, "-q", "--no-cache", "--strict")
    assert code == 2 and err.count("\n") == 1 and "cannot be used" in err


def test_stray_non_trace_files_do_not_make_the_result_partial(tmp_path, capsys):
    d = _good_dir(tmp_path)
    (d / "README.md").write_text("notes\n")
    (d / "launch.sh").write_text("#!/bin/sh\ntorchrun train.py\n")
    code, _, err = _run(capsys, "analyze", d, "-q", "--no-cache", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and err == "" and src["status"] == "ok" and src["unread_files"] == []
    assert any("2 files in the folder are not traces" in w for w in src["warnings"])


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root reads a file whatever its permissions")
def test_permissionless_rank_file_is_counted(tmp_path, capsys):
    d = _good_dir(tmp_path)
    locked = d / "sampled_rank-9.json.gz"
    shutil.copy(MULTIRANK / "sampled_rank-0.json.gz", locked)
    locked.chmod(0)
    try:
        code, _, err = _run(capsys, "analyze", d, "-q", "--no-cache", "--json", tmp_path / "r.json")
    finally:
        locked.chmod(stat.S_IRUSR | stat.S_IWUSR)
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "partial" and "1 of 3 rank files could not be read" in err
    assert "Permission denied" in src["unread_files"][0]["reason"]


def test_gate_leaves_a_partial_run_out_with_its_reason(tmp_path, capsys):
    from gpulens.gate.runs import collect_runs

    d, _ = _broken_dir(tmp_path)
    assert main(["analyze", str(d), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    runs = collect_runs([tmp_path / "r.json"])
    assert runs.runs == [] and len(runs.excluded) == 1
    assert "2 of 4 rank files could not be read" in runs.excluded[0]["reason"]


def test_cached_truncated_file_still_warns_with_quiet(tmp_path, capsys, monkeypatch):
    # the served-from-cache path prints the same stderr line as a fresh analysis
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    raw = gzip.decompress((MULTIRANK / "sampled_rank-0.json.gz").read_bytes())
    cut = raw[:raw.rindex(b'"cat": "kernel"')]  # every kernel but the last one and what follows it
    p = tmp_path / "cut.json"
    p.write_bytes(cut)
    errs = []
    for _ in range(2):
        code, out, err = _run(capsys, "analyze", p, "-q", "--json", tmp_path / "r.json")
        assert code == 0 and out == ""
        errs.append(err)
    assert errs[0] == errs[1] and errs[0].count("\n") == 1 and "input truncated" in errs[0]
    assert json.loads((tmp_path / "r.json").read_text())["status"] == "partial"


def test_an_unreadable_file_of_a_rank_not_selected_is_no_loss(tmp_path, capsys):
    # --ranks 0,1 asks for the two readable ranks: the empty rank-3 file is not part of what was asked
    d, _ = _broken_dir(tmp_path)
    (d / "sampled_rank-2.json.gz").unlink()
    code, _, err = _run(capsys, "analyze", d, "-q", "--no-cache", "--ranks", "0,1", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "ok" and src["unread_files"] == [] and err == ""
    code, _, err = _run(capsys, "analyze", d, "-q", "--no-cache", "--ranks", "0-3", "--json", tmp_path / "r.json")
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert code == 0 and src["status"] == "partial" and "1 of 3 rank files could not be read" in err


def test_diff_says_a_side_lacks_rank_files(tmp_path, capsys):
    # a folder side and its JSON report side both carry the count of rank files not read
    d, _ = _broken_dir(tmp_path)
    good = _good_dir(tmp_path)
    assert main(["analyze", str(d), "-q", "--no-cache", "--json", str(tmp_path / "r.json")]) == 0
    capsys.readouterr()
    for side in (d, tmp_path / "r.json"):
        code, out, err = _run(capsys, "diff", good, side)
        assert code == 0 and "2 of 4 rank files could not be read" in out + err, side
