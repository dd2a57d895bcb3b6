"""Session 49: the command line's, gate's and diff's surfaces — what a selection, a damaged workload, a refused
input, an interrupted start or a gate note tells the person reading it.

Each test guards one kind of fault; the expected figures come from the input itself (its rows, its recorded
rank), from the documented exit codes (README "Exit codes") or from the shared percent rule
(:func:`gpulens.units.pct_words`), never from gpulens's own output.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.errors import EXIT_NO_GPU_WORK, EXIT_USAGE

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = ROOT / "tests" / "data" / "omniperf" / "vcopy_MI200"


def _run(*args) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as e:
            code = e.code
    return code, " ".join((out.getvalue() + err.getvalue()).split())


def _kineto(path: Path, dist: dict | None) -> Path:
    """One kernel with its launch call; ``dist``: the distributedInfo written (None: none)."""
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 100, "dur": 5,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 110, "dur": 50,
           "args": {"correlation": 1, "device": 0, "stream": 7}}]
    path.write_text(json.dumps({**({"distributedInfo": dist} if dist else {}), "traceEvents": ev}))
    return path


# --- 1. a --ranks selection that matches none of the input's ranks says which ranks the input has ---------------

@pytest.mark.parametrize("dist, expect", [
    ({"rank": -1, "world_size": 1}, "the input records rank -1, which --ranks cannot name: run without --ranks"),
    (None, "the input names no rank (it is read as rank 0): try --ranks 0"),
    ({"rank": 3, "world_size": 4}, "the input records rank 3: try --ranks 3"),
])
def test_ranks_selection_matching_nothing_names_the_inputs_ranks(tmp_path, dist, expect):
    p = _kineto(tmp_path / "t.json", dist)
    code, said = _run("analyze", p, "--ranks", "1", "--no-cache", "--json", tmp_path / "r.json")
    assert code == EXIT_NO_GPU_WORK
    assert expect in said
    answer = json.loads((tmp_path / "r.json").read_text())["sources"][0]["answer"]
    assert expect in json.dumps(answer, ensure_ascii=False)  # the report says it too, not the console alone
    # control: the rank the trace records selects its kernel
    if dist and dist["rank"] >= 0:
        assert _run("analyze", p, "--ranks", str(dist["rank"]), "--no-cache", "-q")[0] == 0


def test_ranks_selection_of_a_folder_names_the_files_ranks(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    for r in (0, 1, 2, 5):
        _kineto(run / f"rank{r}.json", {"rank": r, "world_size": 6})
    code, said = _run("analyze", run, "--ranks", "3-4", "--no-cache", "-q")
    assert code == EXIT_USAGE
    assert "no rank file matches ranks 3,4 (the directory records ranks 0–2, 5: try --ranks 0-2,5)" in said


# --- 2. a rocprofiler-compute workload with one damaged file: the rest is read, the loss counted ------------------

def _rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text())))[1:]


def test_workload_with_a_cut_pmc_perf_keeps_the_dispatches_timestamps_lists(tmp_path):
    w = tmp_path / "w"
    shutil.copytree(WORKLOAD, w)
    pmc = (w / "pmc_perf.csv").read_bytes()
    lines = pmc.splitlines(keepends=True)
    cut = b"".join(lines[:2]) + lines[2][: len(lines[2]) // 2]  # header, one whole row, half of the next
    (w / "pmc_perf.csv").write_bytes(cut)
    whole = len(_rows(WORKLOAD / "timestamps.csv"))
    kept = 1
    code, said = _run("analyze", w, "--no-cache", "-q", "--json", tmp_path / "r.json")
    assert code == 0  # a partial result, not "holds no GPU event" for a file the workload can do without
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    assert src["status"] == "partial"
    assert src["summary"]["kernel_count"] == whole
    lost = whole - kept
    assert any(f"{lost} dispatches of {whole} in the cut part" in w_ and "counters unknown" in w_
               for w_ in src["warnings"]), src["warnings"]


def test_workload_with_an_empty_timestamps_csv_takes_pmc_perfs_own_times(tmp_path):
    w = tmp_path / "w"
    shutil.copytree(WORKLOAD, w)
    (w / "timestamps.csv").write_text("")
    code, _ = _run("analyze", w, "--no-cache", "-q", "--json", tmp_path / "r.json")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    with open(WORKLOAD / "pmc_perf.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    durs = sorted(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]) for r in rows)
    assert src["summary"]["kernel_count"] == len(rows)
    assert src["summary"]["kernel_time_ns"] == sum(durs)
    assert any("timestamps.csv: file is empty" in x for x in src["warnings"])


# --- 5. two table exports into one folder are refused before anything is written ---------------------------------

def test_csv_and_parquet_in_one_folder_are_refused(tmp_path):
    p = _kineto(tmp_path / "t.json", None)
    code, said = _run("analyze", p, "--no-cache", "-q", "--csv", tmp_path / "t", "--parquet", f"{tmp_path}/./t")
    assert code == EXIT_USAGE
    assert "given for both the CSV tables folder and the Parquet tables folder; name a folder for each" in said
    assert not (tmp_path / "t").exists()
    assert _run("analyze", p, "--no-cache", "-q", "--csv", tmp_path / "c", "--parquet", tmp_path / "q")[0] == 0
    assert (tmp_path / "c" / "columns.csv").is_file() and (tmp_path / "q" / "columns.csv").is_file()


# --- 6. one exit code per kind of refusal: GPU work recorded without kernel timing exits 5, as format or file -----

def test_pc_sampling_csv_exits_as_the_json_holding_only_pc_samples(tmp_path):
    p = tmp_path / "1234_pc_sampling_host_trap.csv"
    p.write_text('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n'
                 '3464444413017201,65535,1,"s_endpgm","",1\n')
    code, said = _run("analyze", p, "--no-cache")
    assert code == EXIT_NO_GPU_WORK and "PC-sampling CSV" in said and str(p) in said
    # the gate keeps its documented codes: a candidate it cannot read is its input error (2)
    assert _run("gate", "--baseline", "main", "--store", tmp_path / "st", p)[0] == EXIT_USAGE
    att = tmp_path / "stats_0.csv"
    att.write_text("CodeObj,Vaddr,Instruction,Hitcount,Latency\n0,4096,s_nop 0,10,40\n")
    assert _run("analyze", att, "--no-cache")[0] == EXIT_NO_GPU_WORK
    other = tmp_path / "x.bin"  # not a trace at all: still the input error
    other.write_bytes(b"\x01\x02 not a trace\n")
    assert _run("analyze", other, "--no-cache")[0] == EXIT_USAGE


# --- 7. the gate's notes format percentages by the shared rule, never "1e-05 %" ---------------------------------

@pytest.mark.parametrize("share", [1e-7, 0.0123, 0.00049])
def test_gate_small_kernel_note_uses_the_shared_percent_text(share):
    from gpulens.gate.compare import compare_metric
    from gpulens.gate.config import GateConfig
    from gpulens.gate.runs import Metric
    from gpulens.units import pct_words

    m = Metric("kernel:k", "timing", "ns", [100.0, 101.0, 99.0], share=[share] * 3, calls=[1] * 3)
    row = compare_metric("kernel:k", m, m, GateConfig(min_kernel_share=0.05))
    assert not row.gating
    assert f" — {pct_words(100 * share)} of kernel time, under 5 %" in row.note
    assert "e-" not in row.note and "e+" not in row.note


# --- 8. the gate words a check-only gzip failure as the reports do: "input damaged", not "truncated" -------------

def test_gate_exclusion_of_a_damaged_but_whole_input_is_not_called_truncated(tmp_path):
    from gpulens.collectors._gzip_words import NOTHING_LOST
    from gpulens.gate.runs import collect_runs

    p = _kineto(tmp_path / "t.json", None)
    rep = tmp_path / "r.json"
    assert _run("analyze", p, "--no-cache", "-q", "--json", rep)[0] == 0
    doc = json.loads(rep.read_text())
    src = doc["sources"][0]
    path = src["inputs"][0]["path"]
    src.update(status="partial", truncated=True, truncated_at={path: 123}, partial_reason=None,
               warnings=[f"{path}: gzip check failed ({NOTHING_LOST}: every byte decoded)"])
    rs = collect_runs([rep], reports=[doc])
    reasons = [e["reason"] for e in rs.excluded]
    assert reasons == ["input damaged: the figures cover all of its text"]
    src["warnings"] = []  # control: a real cut
    rs = collect_runs([rep], reports=[doc])
    assert [e["reason"] for e in rs.excluded] == ["input truncated: the figures cover the part read"]


# --- 9. people read the format in words, never a collector id ----------------------------------------------------

def test_every_collector_has_its_format_in_words():
    import gpulens.collectors  # noqa: F401 - registers every collector
    from gpulens.collectors._format_words import FORMAT_WORDS
    from gpulens.collectors.base import registry

    names = set(registry())
    assert names <= set(FORMAT_WORDS), sorted(names - set(FORMAT_WORDS))
    assert not names & set(FORMAT_WORDS.values())  # words, never a collector id


def test_console_names_the_format_in_words(tmp_path):
    p = _kineto(tmp_path / "t.json", None)
    code, said = _run("analyze", p, "--no-cache")
    assert code == 0
    assert "format PyTorch profiler (Kineto) trace" in said and "source kineto" not in said
    cpu = tmp_path / "cpu.json"  # no GPU work: the exit line says what the input was read as, in words
    cpu.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1,
                                                "tid": 1, "ts": 100, "dur": 5}]}))
    code, said = _run("analyze", cpu, "--no-cache")
    assert code == EXIT_NO_GPU_WORK and "(read as PyTorch profiler (Kineto) trace)" in said
    assert "(read as kineto)" not in said


def test_html_environment_names_the_format_in_words():
    from gpulens.reports._html_pages import record_items

    items = dict(record_items({"path": "a.sqlite", "collector": "nsys_sqlite"}))
    assert items["format"] == "Nsight Systems SQLite export"
    assert "nsys_sqlite" not in items.values()


# --- 10. Ctrl-C while `import gpulens` itself runs: one line and exit 130 for the command ------------------------

_BOOM = """import sys
class Boom:
    def find_spec(self, name, path=None, target=None):
        if name == "gpulens.errors":
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, Boom())
"""


@pytest.mark.parametrize("how", ["-m", "script", "program"])
def test_ctrl_c_while_the_package_imports(tmp_path, how):
    (tmp_path / "sitecustomize.py").write_text(_BOOM)  # Ctrl-C arrives while gpulens/__init__ imports
    import gpulens

    src = Path(gpulens.__file__).resolve().parents[1]  # the tree under test
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(src)])}
    if how == "-m":
        cmd = [sys.executable, "-m", "gpulens", "--help"]
    elif how == "script":  # the console script's shape: a file named gpulens importing gpulens.cli
        script = tmp_path / "bin" / "gpulens"
        script.parent.mkdir()
        script.write_text("import sys\nfrom gpulens.cli import main\nsys.exit(main())\n")
        cmd = [sys.executable, str(script), "--help"]
    else:
        cmd = [sys.executable, "-c", "import gpulens"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    if how == "program":  # a program importing gpulens gets its KeyboardInterrupt, as from any import
        assert "KeyboardInterrupt" in r.stderr and r.returncode != 0
        return
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip().splitlines() == ["gpulens: aborted (Ctrl-C) while starting: nothing was read or written"]


# --- 11. a kernel name reads the same in a chart and in a table: shortened in the middle, never cut at the end ----

def test_html_name_cells_show_the_whole_short_label():
    import re

    from gpulens.reports.html import CSS

    rules = re.findall(r"(?:^|})\s*td\.name\{([^}]*)\}", CSS)
    assert rules, "td.name rule not found"
    for rule in rules:
        assert "ellipsis" not in rule and "overflow:hidden" not in rule and "nowrap" not in rule


# --- more of the kinds: an error about several inputs names the files at fault -----------------------------------

def test_gate_reports_of_mixed_schema_versions_are_named(tmp_path):
    p = _kineto(tmp_path / "t.json", None)
    new = tmp_path / "new.json"
    assert _run("analyze", p, "--no-cache", "-q", "--json", new)[0] == 0
    doc = json.loads(new.read_text())
    version = doc["schema_version"]
    doc["schema_version"] = version - 1
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    code, said = _run("gate", "--baseline", new, new, old, "-q")
    assert code == EXIT_USAGE
    assert f"reports mix schema versions ({old}: {version - 1}, {new}: {version})" in said
