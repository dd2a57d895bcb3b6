"""Session 50: the gate's and baseline's surfaces.

* ``gpulens gate --baseline dd`` with a folder ``dd`` of traces in the current directory read ``dd`` as a store
  name and passed with NO_BASELINE (exit 0) — the user named an existing folder. A bare word that exists here is
  that path when the store has no baseline of the name; when both exist, the stored one is used and a note says so.
  A bare word that is neither stays the first-run NO_BASELINE (exit 0; 3 with ``--require-baseline``).
* ``gpulens baseline save`` of runs none of which is usable exited 2 ("unreadable input") where ``gate`` exits 4 for
  the same runs as a candidate; README's exit codes: 4 "the profiled workload failed". Both exit 4 now.

Expected figures are read from the trace files here, not from gpulens.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from gpulens.cli import main

DATA = Path(__file__).parent / "data"
TRACE = DATA / "kineto" / "hta_a100_triton_example.json.gz"
NO_GPU_WORK = DATA / "cases" / "B05a.json"  # CPU operators only, no kernel (tests/data/cases: B05)


def _kernel_span_ns(path: Path) -> float:
    """First kernel start → last kernel end of a Kineto trace, in ns (its ``ts``/``dur`` are µs)."""
    doc = json.loads(gzip.decompress(path.read_bytes()))
    ks = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"]
    assert ks, "the test trace must hold kernels"
    return (max(e["ts"] + e["dur"] for e in ks) - min(e["ts"] for e in ks)) * 1000.0


def _gate(tmp_path, capsys, *extra):
    out = tmp_path / "g.json"
    code = main(["gate", str(tmp_path / "dd" / TRACE.name), "--baseline", "dd", "--store", str(tmp_path / "st"),
                 "-q", "--json", str(out), *extra])
    capsys.readouterr()
    return code, json.loads(out.read_text())


def test_a_bare_word_naming_a_folder_here_is_that_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dd").mkdir()
    shutil.copyfile(TRACE, tmp_path / "dd" / TRACE.name)
    code, doc = _gate(tmp_path, capsys, "--require-baseline")
    assert code == 0 and doc["verdict"] == "PASS"  # compared with itself, never NO_BASELINE (3 when required)
    assert doc["baseline"]["path"] == "dd"
    span = {m["metric"]: m for m in doc["metrics"]}["span_ns"]
    assert span["base_median"] == span["cand_median"] == pytest.approx(_kernel_span_ns(TRACE), abs=1.0)  # ns ticks
    assert not any("stored baseline" in n for n in doc["notes"])  # one reading only: nothing to say


def test_a_stored_name_that_is_also_a_folder_here_uses_the_store_and_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dd").mkdir()
    shutil.copyfile(TRACE, tmp_path / "dd" / TRACE.name)
    assert main(["baseline", "save", str(tmp_path / "dd" / TRACE.name), "--name", "dd", "--store", "st"]) == 0
    saved = next((tmp_path / "st").glob("*/dd.json"))
    code, doc = _gate(tmp_path, capsys)
    assert code == 0 and doc["verdict"] == "PASS"
    assert Path(doc["baseline"]["path"]).resolve() == saved.resolve()
    note = [n for n in doc["notes"] if n.startswith("--baseline dd:")]
    assert len(note) == 1 and "stored baseline 'dd'" in note[0] and "not the folder dd" in note[0] \
        and "./dd" in note[0]


def test_a_bare_word_that_is_neither_stays_the_first_run_no_baseline(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dd").mkdir()
    shutil.copyfile(TRACE, tmp_path / "dd" / TRACE.name)
    out = tmp_path / "g.json"
    args = ["gate", str(tmp_path / "dd" / TRACE.name), "--baseline", "main", "--store", "st", "-q", "--json", str(out)]
    assert main(args) == 0 and json.loads(out.read_text())["verdict"] == "NO_BASELINE"
    assert main(args + ["--require-baseline"]) == 3
    capsys.readouterr()


def test_baseline_save_without_a_usable_run_exits_4_as_the_gate_does(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    doc = json.loads(NO_GPU_WORK.read_text())
    assert not [e for e in doc["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    assert main(["baseline", "save", str(NO_GPU_WORK), "--name", "main", "--store", "st"]) == 4
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no usable run" in err and "no GPU work" in err
    assert not (tmp_path / "st").exists() or not list((tmp_path / "st").rglob("*.json"))
    # the same runs as a gate's candidate: ERROR, exit 4 (README: 4 "the profiled workload failed")
    shutil.copyfile(TRACE, tmp_path / "b.json.gz")
    assert main(["gate", str(NO_GPU_WORK), "--baseline", "b.json.gz", "-q"]) == 4
    capsys.readouterr()


def test_a_bare_word_naming_a_folder_without_traces_says_both_readings(tmp_path, monkeypatch, capsys):
    """A folder ``main`` of source code beside a first-run ``--baseline main``: neither a stored baseline nor traces.
    One error line naming both readings (exit 2), never a silent NO_BASELINE pass nor a bare "not a trace"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "main").mkdir()
    (tmp_path / "main" / "train.py").write_text("print('hello')\n")
    shutil.copyfile(TRACE, tmp_path / TRACE.name)
    assert main(["gate", TRACE.name, "--baseline", "main", "--store", "st", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("gpulens: error: --baseline main: no baseline of that name in the store st, and the folder "
                          "main here holds none: ")
    assert "train.py" in err


@pytest.mark.parametrize("ref", [".", "_runs"])
def test_an_existing_path_that_is_no_store_name_is_read(tmp_path, monkeypatch, capsys, ref):
    """``.`` (the folder of traces one is in) and ``_runs`` cannot be store names (``baseline save --name`` refuses
    them): they were "no baseline file . (no such file)", NO_BASELINE exit 0, though they exist."""
    folder = tmp_path if ref == "." else tmp_path / ref
    folder.mkdir(exist_ok=True)
    shutil.copyfile(TRACE, folder / TRACE.name)
    monkeypatch.chdir(tmp_path)
    out = tmp_path.parent / f"g_{tmp_path.name}.json"  # outside the folder read as the baseline
    assert main(["gate", str(folder / TRACE.name), "--baseline", ref, "--store", str(tmp_path / "st"), "-q",
                 "--json", str(out), "--require-baseline"]) == 0
    capsys.readouterr()
    doc = json.loads(out.read_text())
    out.unlink()
    assert doc["verdict"] == "PASS" and doc["baseline"]["path"] == ref
    span = {m["metric"]: m for m in doc["metrics"]}["span_ns"]
    assert span["base_median"] == pytest.approx(_kernel_span_ns(TRACE), abs=1.0)
