"""The gate tells the user what its dashes and a degenerate baseline mean: a baseline of copies of one run has no
measured noise (the new-user walk saved 5 byte-identical traces as "5 runs" without a word), and the console's CI
and p columns read "—" when too few runs allow no test (only the Markdown said why)."""

from __future__ import annotations

from gpulens.cli import main
from tests.gate_traces import make_trace


def _report(d, name, seeds):
    traces = [make_trace(d / f"{name}{i}.json", seed=s) for i, s in enumerate(seeds)]
    out = d / f"{name}.report.json"
    assert main(["analyze", "-q", *map(str, traces), "--json", str(out)]) == 0
    return out


def test_baseline_of_copies_says_so(tmp_path, capsys):
    from gpulens.gate.baseline import copied_runs, load_baseline

    # five traces from seeds 7, 7, 7, 8, 8: two distinct runs, so three of the five repeat an earlier one
    rep = _report(tmp_path, "dup", [7, 7, 7, 8, 8])
    capsys.readouterr()
    assert main(["baseline", "save", "--store", str(tmp_path / "store"), "--name", "main", str(rep)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "3 runs of the 5 repeat another run's timings exactly" in out
    base = load_baseline(next((tmp_path / "store").rglob("main.json")))
    assert copied_runs(base.metrics, len(base.runs)) == 3
    # five distinct seeds: no copy, no note
    rep2 = _report(tmp_path, "ok", [1, 2, 3, 4, 5])
    capsys.readouterr()
    assert main(["baseline", "save", "--store", str(tmp_path / "store2"), "--name", "main", str(rep2)]) == 0
    assert "repeat" not in capsys.readouterr().out


def test_console_says_why_ci_and_p_are_dashes(tmp_path, capsys):
    base = _report(tmp_path, "base", [1, 2, 3, 4, 5])
    cand = _report(tmp_path, "cand", [11])  # one candidate run: too few for a test
    store = tmp_path / "store"
    assert main(["baseline", "save", "--store", str(store), "--name", "main", str(base)]) == 0
    capsys.readouterr()
    main(["gate", "--store", str(store), "--baseline", "main", str(cand)])
    out = " ".join(capsys.readouterr().out.split())
    assert "no test ran (5 baseline vs 1 candidate runs are too few; record ≥ 5 repeats per side)" in out
