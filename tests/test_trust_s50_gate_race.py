"""Two ``gpulens baseline save`` of one name into one store at once (tests/fuzz_s50_reports.py, kind ``store``,
``concurrent_same``): both checked "not there yet", then both renamed their file into place, so the second silently
replaced the first — a baseline overwritten without ``--force``. A new baseline is now linked into place, which fails
when the name appeared meanwhile: the later save stops with one error line and the first baseline stays whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_trust_s49_fuzz_reports import _cli
from tests.test_trust_s50_gate_linkloop import report  # noqa: F401 - the trace's report (a fixture)

ROOT = Path(__file__).resolve().parent.parent


def _rival(monkeypatch, store: Path, doc: dict) -> list:
    """Make another process's save land between this save's existence check and its write: the store check, which
    runs between them, writes the rival's baseline at every target it is asked about."""
    from gpulens.gate import baseline as bl

    landed = []
    real = bl.check_store

    def check_store(folder: Path) -> None:
        real(folder)
        if folder != store and not landed:  # the machine folder: the rival's file appears in it
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "main.json").write_text(json.dumps(doc))
            landed.append(folder / "main.json")
    monkeypatch.setattr(bl, "check_store", check_store)
    return landed


def test_a_save_racing_another_of_the_same_name_never_replaces_it(report, tmp_path, monkeypatch):
    from gpulens.errors import BaselineError
    from gpulens.gate.baseline import save_baseline

    store = tmp_path / "store"
    rival = {"gpulens_baseline": 1, "name": "main", "created": "2026-01-01T00:00:00+00:00", "rival": True}
    landed = _rival(monkeypatch, store, rival)
    with pytest.raises(BaselineError, match="saved by another process") as exc:
        save_baseline([report], "main", store, git={})
    assert landed and str(landed[0]) in str(exc.value)
    assert json.loads(landed[0].read_text()) == rival  # the first save's file, byte for byte its content
    assert not (store / "history.jsonl").exists()  # no save recorded for the one that did not happen
    assert [p.name for p in landed[0].parent.iterdir()] == ["main.json"]  # no temporary file left beside it


def test_force_still_replaces_and_a_new_name_is_a_whole_file(report, tmp_path):
    from gpulens.gate.baseline import save_baseline

    store = tmp_path / "store"
    first = save_baseline([report], "main", store, git={})
    doc = json.loads(first.path.read_text())
    assert doc["gpulens_baseline"] == 1 and doc["name"] == "main"
    assert oct(first.path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    again = save_baseline([report], "main", store, force=True, git={})
    assert again.path == first.path and json.loads(again.path.read_text())["name"] == "main"
    hist = [json.loads(ln) for ln in (store / "history.jsonl").read_text().splitlines()]
    assert [h["replaced"] for h in hist] == [False, True]


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def test_two_processes_saving_one_name_leave_one_baseline(report, tmp_path):
    """The real race, as far as two processes started together make it: exactly one save succeeds (exit 0), the
    other refuses (exit 2, one line), one history line, a whole baseline file."""
    store = tmp_path / "store"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT)]))
    cmd = [sys.executable, "-m", "gpulens", "baseline", "save", str(report), "--name", "main", "--store", str(store)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env) for _ in range(2)]
    outs = [(p.wait(timeout=120), p.stdout.read().decode()) for p in procs]
    assert sorted(c for c, _ in outs) == [0, 2], outs
    err = next(t for c, t in outs if c == 2)
    assert len(err.strip().splitlines()) == 1 and err.startswith("gpulens: error: "), err
    (saved,) = store.glob("*/main.json")
    assert json.loads(saved.read_text())["gpulens_baseline"] == 1
    assert len((store / "history.jsonl").read_text().splitlines()) == 1
