"""What gpulens writes never replaces data it did not make for that purpose: a report (``analyze``, ``gate``,
``diff``, a table export) refuses a path holding a profiler trace, a gpulens baseline or history, or a JSON report,
with one line naming the file (exit 2) unless ``--force``; a report of the same kind is replaced as before. Reports
are written through a temporary file renamed into place: a write that fails half-way (a full disk) leaves the
earlier file whole. A vendor profile run never reuses the files of an earlier one (nsys refuses to overwrite its
report, so the earlier run was analysed as the new one, and its SQLite export was replaced)."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens
from gpulens.cli import main
from tests.conftest import DATA

KINETO = DATA / "kineto" / "torch2.13_cpu_only_mm.pt.trace.json"
NSYS = DATA / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
BASELINE = {"gpulens_baseline": 1, "name": "main", "created": "2026-01-01T00:00:00+00:00", "machine_key": "k",
            "tool": {"name": "gpulens", "version": "0"}, "report_schema_version": 2, "environment": {}, "git": {},
            "runs": [{"label": "r"}], "excluded": [],
            "metrics": {"span_ns": {"kind": "timing", "unit": "ns", "direction": "lower", "samples": [100]}}}


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _data_files(folder: Path) -> dict[str, Path]:
    """One file of each kind that no report may replace."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {"kineto": folder / "other_trace.json", "kineto_gz": folder / "other_trace.json.gz",
             "nsys": folder / "profile.sqlite", "baseline": folder / "main.json",
             "history": folder / "history.jsonl", "report": folder / "run1.report.json"}
    shutil.copyfile(KINETO, files["kineto"])
    files["kineto_gz"].write_bytes(gzip.compress(KINETO.read_bytes()))
    shutil.copyfile(NSYS, files["nsys"])
    files["baseline"].write_text(json.dumps(BASELINE, indent=1, sort_keys=True))
    files["history"].write_text(json.dumps({"created": "x", "event": "save", "machine_key": "k", "name": "main",
                                            "runs": 1}, sort_keys=True) + "\n")
    assert main(["analyze", "--demo", "-q", "--no-cache", "--json", str(files["report"])]) == 0
    return files


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    r = tmp_path_factory.mktemp("demo") / "demo.report.json"
    assert main(["analyze", "--demo", "-q", "--no-cache", "--json", str(r)]) == 0
    return r


@pytest.mark.parametrize("target", ["kineto", "kineto_gz", "nsys", "baseline", "history", "report"])
@pytest.mark.parametrize("flag", ["--json", "--html", "--markdown", "--perfetto"])
def test_analyze_never_replaces_a_trace_baseline_history_or_other_report(tmp_path, capsys, target, flag):
    files = _data_files(tmp_path)
    if target == "report" and flag == "--json":
        pytest.skip("a JSON report of the same inputs (--demo) replaced by a new one: allowed (below)")
    path = files[target]
    before = _digest(path)
    capsys.readouterr()
    assert main(["analyze", "--demo", "-q", "--no-cache", flag, str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {path}: refusing to overwrite ")
    assert "--force" in err[0]
    assert _digest(path) == before


def test_force_replaces_it_and_an_input_stays_refused(tmp_path, capsys):
    files = _data_files(tmp_path)
    assert main(["analyze", "--demo", "-q", "--no-cache", "--force", "--markdown", str(files["kineto"])]) == 0
    assert files["kineto"].read_text().startswith("# gpulens report")
    capsys.readouterr()
    assert main(["analyze", str(files["nsys"]), "-q", "--no-cache", "--force", "--html", str(files["nsys"])]) == 2
    assert "refusing to overwrite an input" in capsys.readouterr().err
    assert _digest(files["nsys"]) == _digest(NSYS)


@pytest.mark.parametrize("flag, name", [("--json", "r.json"), ("--html", "r.html"), ("--markdown", "r.md"),
                                        ("--perfetto", "p.json")])
def test_a_report_of_the_same_kind_is_replaced(tmp_path, flag, name):
    out = tmp_path / name
    assert main(["analyze", "--demo", "-q", "--no-cache", flag, str(out)]) == 0
    first = out.stat().st_size
    assert main(["analyze", "--demo", "-q", "--no-cache", flag, str(out)]) == 0
    assert out.stat().st_size > 0 and abs(out.stat().st_size - first) < 200  # rewritten, not refused
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]               # no temporary file left


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--junit"])
def test_gate_outputs_never_replace_a_trace_or_baseline(tmp_path, capsys, demo_report, flag):
    files = _data_files(tmp_path)
    for target in ("kineto", "baseline", "report"):
        path = files[target]
        before = _digest(path)
        capsys.readouterr()
        assert main(["gate", str(demo_report), "--baseline", "nothing-saved", "--store", str(tmp_path / "store"),
                     "-q", flag, str(path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"gpulens: error: {path}: refusing to overwrite ")
        assert _digest(path) == before
    out = tmp_path / "gate.out"
    for _ in range(2):  # its own earlier output is replaced
        assert main(["gate", str(demo_report), "--baseline", "nothing-saved", "--store", str(tmp_path / "store"),
                     "-q", flag, str(out)]) == 0


@pytest.mark.parametrize("flag", ["--json", "--html", "--markdown"])
def test_diff_outputs_never_replace_a_trace_or_baseline(tmp_path, capsys, demo_report, flag):
    files = _data_files(tmp_path)
    for target in ("nsys", "baseline", "history"):
        path = files[target]
        before = _digest(path)
        capsys.readouterr()
        assert main(["diff", str(demo_report), str(demo_report), "-q", flag, str(path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"gpulens: error: {path}: refusing to overwrite ")
        assert _digest(path) == before
    out = tmp_path / "diff.out"
    for _ in range(2):
        assert main(["diff", str(demo_report), str(demo_report), "-q", flag, str(out)]) == 0


def test_a_table_export_never_replaces_a_trace_in_its_folder(tmp_path, capsys):
    folder = tmp_path / "tables"
    folder.mkdir()
    trace = folder / "summaries.json"  # a Kineto trace that happens to carry the export's file name
    shutil.copyfile(KINETO, trace)
    capsys.readouterr()
    assert main(["analyze", "--demo", "-q", "--no-cache", "--csv", str(folder)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"gpulens: error: {trace}: refusing to overwrite ")
    assert _digest(trace) == _digest(KINETO) and sorted(p.name for p in folder.iterdir()) == ["summaries.json"]
    trace.unlink()
    for _ in range(2):  # an earlier export in the folder is replaced
        assert main(["analyze", "--demo", "-q", "--no-cache", "--csv", str(folder)]) == 0
    assert json.loads(trace.read_text())


_FULL_DISK = """
import resource, signal, sys
from gpulens.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)      # a write past the limit fails with EFBIG, like a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
sys.exit(main(["analyze", "--demo", "-q", "--no-cache", "--html", sys.argv[1]]))
"""


def test_a_report_write_that_fails_half_way_leaves_the_earlier_report_whole(tmp_path):
    report = tmp_path / "report.html"
    report.write_text("<!DOCTYPE html><html><title>gpulens report — earlier run</title></html>")
    before = report.read_bytes()
    env = {"PYTHONPATH": str(Path(gpulens.__file__).parents[1]), "PATH": "/usr/bin:/bin",
           "GPULENS_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", _FULL_DISK, str(report)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith(f"gpulens: error: {report}: cannot write the report")
    assert report.read_bytes() == before                       # the HTML (> 200 kB) was never half-written over it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # nor left as a temporary file


_FAKE_NSYS = """#!/bin/sh
# like nsys: `profile -o BASE` refuses an existing BASE.nsys-rep (no --force-overwrite); `export -o DB` writes DB.
# Each export holds 19 kernels less 5 per earlier export (counted in the file n), so two runs differ.
if [ "$1" = profile ]; then base=$4; shift 4
  if [ -e "$base.nsys-rep" ]; then echo "nsys: $base.nsys-rep already exists" >&2; exit 1; fi
  "$@"; rc=$?; echo rep > "$base.nsys-rep"; exit $rc; fi
if [ "$1" = export ]; then
  "{py}" -c "import shutil, sqlite3, sys
from pathlib import Path
n = Path('{count}'); k = int(n.read_text()) if n.exists() else 0; n.write_text(str(k + 1))
shutil.copyfile('{db}', sys.argv[1]); con = sqlite3.connect(sys.argv[1])
con.execute('DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL '
            'LIMIT ?)', (5 * k,)); con.commit(); con.close()" "$5"; exit 0; fi
exit 9
"""


def test_a_second_vendor_run_into_the_same_folder_keeps_the_first(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "nsys"
    fake.write_text(_FAKE_NSYS.replace("{py}", sys.executable).replace("{db}", str(NSYS))
                    .replace("{count}", str(bindir / "n")))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    out = tmp_path / "o"
    cmd = ["profile", "-q", "--backend", "nsys", "-o", str(out), "--label", "run", "--", sys.executable, "-c",
           "print('workload ran')"]
    assert main(cmd) == 0
    first = {p.name: _digest(p) for p in out.iterdir()}
    assert sorted(first) == ["run.nsys-rep", "run.report.html", "run.report.json", "run.sqlite"] or \
        sorted(first) == ["run.nsys-rep", "run.report.json", "run.sqlite"]
    assert main(cmd) == 0                                      # the workload ran again, under nsys
    assert {p: _digest(out / p) for p in first} == first       # the first run's files untouched
    kernels = [json.loads((out / f"{s}.report.json").read_text())["sources"][0]["summary"]["kernel_count"]
               for s in ("run", "run-2")]
    assert kernels == [19, 14]                                 # each report is its own run's export
