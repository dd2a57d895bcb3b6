"""s40 report: the reports say it once, first, and right.

* Warnings about the input are said beside the headline (console, HTML, Markdown, JSON ``input_note``), not only
  after ~200 lines of tables; the same warning of several files is said once with the files named.
* ``gpulens diff`` of reports holding several runs labels its figures as means per run (a count of 0.5 calls is a
  mean, never a "summed" figure).
* The console's narrow per-GPU shares table prints the analyzers' per-GPU shares (no arithmetic in the renderer).
* The suggested ``--window`` that leaves out a one-off gap says when the window holds another one-off gap.
* The kernel-verdict rows of the console (``--top``), Markdown and HTML are one rule's: the first rows of the
  verdicts table, in its order.

Every expected figure is written from the synthetic trace's own numbers (hand arithmetic in the comments).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from gpulens.reports._warnings import grouped_warnings

T0 = 1_000_000  # µs: a real-looking time base (a timestamp of 0 is the "never recorded" placeholder)
MULTIRANK = Path(__file__).parent / "data" / "kineto" / "multirank"


def _kernel(ts: float, dur: float, name: str = "gemm_kernel", device: int = 0, stream: int = 7,
            corr: int = 0) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": stream, "ts": T0 + ts, "dur": dur,
            "args": {"device": device, "stream": stream, "correlation": corr}}


def _write(path: Path, events: list[dict]) -> Path:
    path.write_text(json.dumps({"traceEvents": events}))
    return path


@pytest.fixture(autouse=True)
def _wide_terminal(monkeypatch):
    """A terminal wide enough that no sentence asserted below wraps (xdist workers report 80 columns)."""
    monkeypatch.setenv("COLUMNS", "250")


def _cli(capsys, *args) -> tuple[int, str]:
    from gpulens.cli import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as e:  # typer apps exit
        code = e.code
    return int(code or 0), capsys.readouterr().out


# --- grouping identical warnings of several files -------------------------------------------------------------


def test_identical_warnings_of_several_files_are_said_once_with_the_files_named():
    paths = [f"/runs/rank{i}.json" for i in range(8)]
    meta = SimpleNamespace(sources=[{"path": p, "rank": i} for i, p in enumerate(paths)],
                           warnings=[f"{p}: 3 invalid events excluded: zero timestamp (never recorded) ×3"
                                     for p in paths] + ["an unprefixed note"])
    assert grouped_warnings(meta) == [
        "3 invalid events excluded: zero timestamp (never recorded) ×3 (in 8 files: rank0.json..rank7.json)",
        "an unprefixed note"]


def test_warnings_differing_in_one_figure_list_it_per_file_and_two_figures_stay_apart():
    paths = ["/r/a.json", "/r/b.json", "/r/c.json"]
    meta = SimpleNamespace(sources=[{"path": p} for p in paths],
                           warnings=[f"{paths[0]}: dropped 4 events", f"{paths[1]}: dropped 7 events",
                                     f"{paths[2]}: dropped 4 events",
                                     f"{paths[0]}: kept 1 of 2 rows", f"{paths[1]}: kept 3 of 5 rows"])
    out = grouped_warnings(meta)
    # one figure differs (4, 7, 4): one warning, the figures in the files' order; two figures differ: each whole
    assert out == ["dropped 4, 7, 4 events (in 3 files: a.json, b.json, c.json; the figures in that order)",
                   "/r/a.json: kept 1 of 2 rows", "/r/b.json: kept 3 of 5 rows"]


def test_a_single_file_keeps_its_warnings_whole():
    meta = SimpleNamespace(sources=[{"path": "/x/t.json"}], warnings=["/x/t.json: a", "/x/t.json: b"])
    assert grouped_warnings(meta) == ["/x/t.json: a", "/x/t.json: b"]


@pytest.fixture(scope="module")
def rank_folder(tmp_path_factory) -> Path:
    """Three rank files without distributedInfo, each with one kernel at ts 0 (the never-recorded placeholder)."""
    d = tmp_path_factory.mktemp("ranks")
    for r in range(3):
        _write(d / f"rank{r}.json", [_kernel(0, 10, corr=1), _kernel(20, 10, corr=2),
                                     {**_kernel(0, 5, "k_unset", corr=3), "ts": 0, "dur": 0}])
    return d


def test_folder_console_says_input_warnings_before_the_verdict_and_each_file_warning_once(rank_folder, capsys,
                                                                                         tmp_path):
    code, out = _cli(capsys, "analyze", rank_folder, "--no-cache", "--json", tmp_path / "r.json",
                     "--markdown", tmp_path / "r.md", "--html", tmp_path / "r.html")
    assert code == 0
    lines = out.splitlines()
    verdict = next(i for i, x in enumerate(lines) if x.startswith("Verdict:"))
    head = [x for x in lines[:verdict] if x.startswith("INPUT: ")]
    # 3 files × (an excluded ts-0 kernel, a rank read from the file name), each said once over the 3 files: 2
    assert len(head) == 1 and head[0].startswith("INPUT: 2 warnings about the input"), lines[:verdict]
    tail = lines[lines.index("Warnings"):]
    assert sum("(in 3 files: rank0.json..rank2.json" in x for x in tail) == 2
    assert not any(re.search(r"rank[0-2]\.json: ", x) for x in tail)  # no per-file repeat
    note = json.loads((tmp_path / "r.json").read_text())["sources"][0]["input_note"]
    assert head[0] == f"INPUT: {note}"
    md = (tmp_path / "r.md").read_text()
    assert md.index("**Input:**") < md.index("### Warnings")  # beside the verdict, before the tables
    assert "2 warnings about the input" in (tmp_path / "r.html").read_text().split("Input:</strong>")[1][:60]


# --- diff of reports that hold several runs -------------------------------------------------------------------


@pytest.fixture(scope="module")
def two_run_reports(tmp_path_factory) -> tuple[Path, Path, Path, Path]:
    d = tmp_path_factory.mktemp("diff")
    a = _write(d / "a.json", [_kernel(0, 10, "k_one", corr=1)])  # k_one 10 µs
    b = _write(d / "b.json", [_kernel(0, 30, "k_two", corr=1)])  # k_two 30 µs
    c = _write(d / "c.json", [_kernel(0, 20, "k_one", corr=1)])  # k_one 20 µs
    from gpulens.cli import main

    for out, ins in (("base.json", (a, b)), ("cand.json", (a, c))):
        try:
            main(["analyze", *map(str, ins), "--no-cache", "-q", "--json", str(d / out)])
        except SystemExit:
            pass
    return d / "base.json", d / "cand.json", a, c


def test_diff_of_two_run_reports_labels_means_per_run(two_run_reports, capsys, tmp_path):
    base, cand, _, _ = two_run_reports
    code, out = _cli(capsys, "diff", base, cand, "--markdown", tmp_path / "d.md", "--json", tmp_path / "d.json")
    assert code in (0, 1)
    # base runs: k_one 10 + k_two 30 → mean 20 µs per run; candidate: k_one 10 + k_one 20 → mean 15 µs per run
    assert out.startswith("Summed GPU time per run (base: mean of 2 runs; candidate: mean of 2 runs) "
                          "20.00 µs → 15.00 µs: -5.00 µs (-25.0 %)"), out[:200]
    assert "n/run" in out
    md = (tmp_path / "d.md").read_text()
    assert "base calls per run (mean of 2)" in md and "candidate time per run (mean of 2)" in md
    # k_two ran once in one of the base's two runs: 0.5 calls per run, a mean, labelled as one
    per_kernel = md.split("### Per kernel")[1].split("###")[0]
    row = next(x for x in per_kernel.splitlines() if x.startswith("| k\\_two"))
    assert "| 0.50 |" in row
    doc = json.loads((tmp_path / "d.json").read_text())
    assert (doc["summary"]["base_runs"], doc["summary"]["cand_runs"]) == (2, 2)
    assert "per run, the mean of 2 runs [count]" in doc["columns"]["kernels"]["base_count"]


def test_diff_of_single_runs_says_summed_with_whole_counts(two_run_reports, capsys):
    _, _, a, c = two_run_reports
    code, out = _cli(capsys, "diff", a, c)
    assert code in (0, 1)
    assert out.startswith("Summed GPU time 10.00 µs → 20.00 µs: +10.00 µs (+100.0 %)"), out[:120]
    assert "per run" not in out and "n/run" not in out and "0.50" not in out


# --- per-GPU shares come from the analyzers ----------------------------------------------------------------------


def test_narrow_per_gpu_shares_are_the_analyzers_figures(tmp_path):
    from rich.console import Console

    from gpulens.report import analyze
    from gpulens.reports.console import breakdown_renderable

    nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
    # GPU 0: compute 0–40 µs, a collective 60–80 µs with nothing beside it: span 80 → computation 40/80 = 50.0 %,
    # exposed communication 20/80 = 25.0 %, idle 20/80 = 25.0 %. GPUs 1–6: compute 0–10 and 90–100: span 100 →
    # computation 20.0 %, idle 80.0 %. Seven GPUs: the GPUs-as-columns form is not offered (over 6).
    ev = [_kernel(0, 40, device=0, corr=1), _kernel(60, 20, nccl, device=0, corr=2)]
    for d in range(1, 7):
        ev += [_kernel(0, 10, device=d, corr=10 * d), _kernel(90, 10, device=d, corr=10 * d + 1)]
    s = analyze(_write(tmp_path / "seven_gpus.json", ev)).sources[0]
    bd = s.results["breakdown"]
    t = bd.table.set_index("device_id")
    assert t.loc[0, "exposed_comm_pct"] == pytest.approx(25.0) and t.loc[1, "exposed_comm_pct"] == pytest.approx(0.0)
    assert t.loc[0, "exposed_memcpy_pct"] == pytest.approx(0.0) and t.loc[0, "idle_pct"] == pytest.approx(25.0)

    def shares() -> dict[str, list[str]]:
        c = Console(record=True, width=60, file=open("/dev/null", "w"), color_system=None)
        c.print(breakdown_renderable(bd, 10, s.results.get("bottlenecks")))
        text = c.export_text()
        assert "parts as % of each GPU's span" in text  # the narrow form was drawn
        cells = [re.sub(r"\s+", " ", x.strip("│ ")).split(" │ ") for x in text.splitlines()
                 if re.match(r"│\s+0\s+│", x)]
        return {x[1]: x[3:] for x in cells}

    by_gpu = shares()
    assert len(by_gpu) == 7
    assert by_gpu["0"] == ["50.0 %", "25.0 %", "25.0 %"] and by_gpu["6"] == ["20.0 %", "0.0 %", "80.0 %"]
    # the cells are the analyzer's columns, not a division redone in the renderer: a changed column shows as is
    bd.table.loc[bd.table["device_id"] == 0, "exposed_comm_pct"] = 12.5
    assert shares()["0"][1] == "12.5 %"


# --- the suggested --window and the one-off gaps it still holds ---------------------------------------------------


def test_window_hint_counts_the_one_off_gap_the_window_still_holds(tmp_path):
    from gpulens.report import analyze

    # one 10 µs kernel, a 5,000 µs gap, then 20 kernels of 10 µs with 2 µs gaps except one 60 µs gap. Whole run:
    # idle 5,000 + 18·2 + 60 = 5,096 µs: the 60 µs gap is 1.2 % of it (< 25 %: no outlier beside the 5 ms one).
    # After the 5 ms gap: idle 36 + 60 = 96 µs, the 60 µs gap holds 62.5 % of it and is 30× the 2 µs median: a
    # one-off gap of its own there.
    ev = [_kernel(0, 10, corr=1)]
    t = 5_010
    for i in range(20):
        ev.append(_kernel(t, 10, corr=2 + i))
        t += 10 + (60 if i == 9 else 2)
    s = analyze(_write(tmp_path / "gaps.json", ev)).sources[0]
    note = next(f for f in s.findings() if f.key == "idle/boundary")
    assert "--window 5010us:" in note.action
    assert "1 more one-off gap of 60.00 µs then stands out and is left out too: 2 in all" in note.action


def test_window_hint_without_another_one_off_gap_says_nothing_more(tmp_path):
    from gpulens.report import analyze

    # the same run with the 60 µs gap at 2 µs: after the 5 ms gap every gap is 2 µs, none an outlier
    ev = [_kernel(0, 10, corr=1)] + [_kernel(5_010 + 12 * i, 10, corr=2 + i) for i in range(20)]
    s = analyze(_write(tmp_path / "gaps.json", ev)).sources[0]
    note = next(f for f in s.findings() if f.key == "idle/boundary")
    assert "--window 5010us:" in note.action and "more one-off gap" not in note.action


# --- kernel-verdict rows: one rule in console, Markdown and HTML ---------------------------------------------------


@pytest.mark.skipif(not MULTIRANK.is_dir(), reason="multirank test data absent")
def test_verdict_rows_are_the_tables_first_rows_in_every_output(capsys, tmp_path):
    code, out = _cli(capsys, "analyze", MULTIRANK, "--no-cache", "--top", "3", "--json", tmp_path / "r.json",
                     "--markdown", tmp_path / "r.md")
    assert code == 0
    src = json.loads((tmp_path / "r.json").read_text())["sources"][0]
    table = src["analyses"]["verdicts"]["table"]
    assert len(table) > 3  # the cut is exercised
    # the console's verdict table: exactly 3 rows, titled as the first 3 of the table's count
    title = next(x for x in out.splitlines() if x.startswith("Kernel verdicts"))
    assert f"the top 3 of {len(table)} critical kernels" in title
    times = [r["time_ns"] for r in table]
    assert times == sorted(times, reverse=True)  # the table's own order: most GPU time first
    md = (tmp_path / "r.md").read_text().split("### Kernel verdicts")[1].split("###")[0]
    md_rows = [x for x in md.splitlines() if re.match(r"\| \d+ \|", x)]
    # Markdown's own limit (15) shows every row here, numbered 1..n in the table's order
    assert [int(x.split("|")[1]) for x in md_rows] == list(range(1, len(table) + 1))
