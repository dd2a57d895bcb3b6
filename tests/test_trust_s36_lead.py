"""Session 36 (lead): figures that a stream-overrun repair changes, and the warning that explains them.

A recorded kernel duration that runs past the start of the next event on its stream is clipped there for every
per-kernel table and busy figure (``analyzers.intervals.repair_stream_overruns``). Two faults of one kind were found
on a trace whose GEMMs were recorded 30 % longer: the summary line said "184.08 ms summed" beside per-kernel totals
adding up to 170.06 ms with nothing saying why, and the data-quality warning that explains it ("9 GPU events overrun
the next event on their stream") ranked last (no time at stake) and was cut by the console's and the Markdown's
finding limits — shown only in JSON and HTML.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.analyzers import Finding
from gpulens.reports._answer import CONSOLE_LIST, MARKDOWN_LIST, finding_tree


def _overrun_trace(path: Path) -> None:
    """Three kernels on stream 7: A at 0 µs for 10 µs, B at 6 µs for 4 µs (A runs 4 µs past B's start), C at 20 µs
    for 5 µs. Recorded sum 10 + 4 + 5 = 19 µs; after clipping A at B's start: 6 + 4 + 5 = 15 µs."""
    ev = []
    for i, (name, ts, dur) in enumerate([("kA", 1000.0, 10.0), ("kB", 1006.0, 4.0), ("kC", 1020.0, 5.0)]):
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                   "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [1, 1, 1], "block": [64, 1, 1]}})
    path.write_text(json.dumps({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
                                "traceEvents": ev}))


def test_summary_line_says_the_recorded_and_the_clipped_kernel_time(tmp_path):
    from gpulens.cli import app
    from typer.testing import CliRunner

    src = tmp_path / "t.json"
    _overrun_trace(src)
    md = tmp_path / "o.md"
    r = CliRunner().invoke(app, ["analyze", str(src), "--no-cache", "--json", str(tmp_path / "o.json"),
                                 "--markdown", str(md)], terminal_width=250)
    assert r.exit_code == 0, r.output
    # 19 µs recorded, 15 µs after clipping kA at kB's start (hand sums in _overrun_trace)
    want = "19.00 µs summed as recorded (15.00 µs after clipping overruns of the next event on their stream)"
    assert want in " ".join(r.output.split())
    assert want in md.read_text()
    sm = json.loads((tmp_path / "o.json").read_text())["sources"][0]["summary"]
    assert (sm["kernel_time_ns"], sm["kernel_effective_ns"]) == (19_000, 15_000)


def test_no_clipping_note_without_an_overrun(tmp_path):
    from gpulens.cli import app
    from typer.testing import CliRunner

    src = tmp_path / "t.json"
    _overrun_trace(src)
    d = json.loads(src.read_text())
    d["traceEvents"][0]["dur"] = 6.0  # kA now ends exactly where kB starts: nothing to clip; 6 + 4 + 5 = 15 µs
    src.write_text(json.dumps(d))
    r = CliRunner().invoke(app, ["analyze", str(src), "--no-cache"], terminal_width=250)
    assert r.exit_code == 0, r.output
    out = " ".join(r.output.split())
    assert "15.00 µs summed, " in out and "as recorded" not in out


def _roots(n: int) -> list[Finding]:
    return [Finding(f"kernel k{i} is slow", "d", severity="warning", category="kernel", time_at_stake_ns=1000 * (n - i),
                    key=f"k{i}") for i in range(n)]


def test_a_data_quality_warning_is_never_cut_by_a_reporters_limit():
    for max_roots, max_children in (CONSOLE_LIST, MARKDOWN_LIST):
        timed = _roots(max_roots + 3)  # three more timed roots than the limit lists
        dq = Finding("9 GPU events overrun the next event on their stream", "d", severity="warning",
                     category="data-quality", key="overruns")
        note = Finding("launch API names unknown", "d", severity="info", category="data-quality", key="dq-info")
        rows, left = finding_tree(timed + [dq, note], max_roots, max_children)
        shown = [f.title for f, _ in rows]
        # the limit's roots, then the warning in its ranking place (last: no time at stake); the info note and the
        # three timed roots past the limit are left out and counted
        assert shown == [f.title for f in timed[:max_roots]] + [dq.title]
        assert left == 3 + 1


def test_diff_says_when_a_side_was_clipped(tmp_path):
    """kA's recording grows from 6 µs (ending at kB's start) to 10 µs (4 µs past it): the diff compares clipped
    times, so it shows no change for kA — and must say so, for a trace and for its JSON report alike."""
    from gpulens.diff import diff

    base, cand = tmp_path / "base.json", tmp_path / "cand.json"
    _overrun_trace(cand)
    d = json.loads(cand.read_text())
    d["traceEvents"][0]["dur"] = 6.0
    base.write_text(json.dumps(d))
    r = diff(base, cand)
    notes = [w for w in r.warnings if "ran past" in w]
    # one event (kA) clipped by 10 − 6 = 4 µs; 4 µs ≥ 1 % of the 19 µs recorded
    assert notes == [f"{cand}: 1 GPU event ran past the start of the next event on their stream by 4.00 µs in all; "
                     "the times compared are clipped at that start (the recorded durations overlap the next kernel)"]
    from gpulens.cli import app
    from typer.testing import CliRunner

    rep = tmp_path / "cand_report.json"
    assert CliRunner().invoke(app, ["analyze", str(cand), "--no-cache", "-q", "--json", str(rep)]).exit_code == 0
    assert [w for w in diff(base, rep).warnings if "ran past" in w] == [notes[0].replace(str(cand), str(rep))]
    assert not [w for w in diff(cand, base).warnings if "ran past" in w and str(base) in w]


def test_diff_is_quiet_about_jitter_below_one_percent():
    from gpulens.diff.sides import overrun_notes

    # 100 ns clipped of 1 ms recorded (0.01 %) is clock jitter; 10 µs of 1 ms (1 %) is not
    assert overrun_notes(Path("x"), [(3, 100, 1_000_000)]) == []
    assert len(overrun_notes(Path("x"), [(3, 10_000, 1_000_000)])) == 1


def test_environment_variables_copied_one_by_one_are_not_written(tmp_path):
    """A trace whose metadata copies environment variables one at a time (``distributedInfo`` with ``MASTER_ADDR``
    and ``NCCL_SOCKET_IFNAME`` beside Kineto's own ``rank`` / ``world_size`` / ``backend``): the variables and their
    values reach no report; the profiler's own lower-case fields stay; the count of removed variables is said."""
    from gpulens.cli import app
    from typer.testing import CliRunner

    src = tmp_path / "t.json"
    _overrun_trace(src)
    d = json.loads(src.read_text())
    d["distributedInfo"] = {"rank": 0, "world_size": 1, "backend": "nccl", "pg_count": 1,
                            "MASTER_ADDR": "10.11.12.13", "NCCL_SOCKET_IFNAME": "ens5f0np0"}
    src.write_text(json.dumps(d))
    out = {ext: tmp_path / f"o.{ext}" for ext in ("json", "html", "md")}
    r = CliRunner().invoke(app, ["analyze", str(src), "--no-cache", "-q", "--json", str(out["json"]),
                                 "--html", str(out["html"]), "--markdown", str(out["md"])])
    assert r.exit_code == 0, r.output
    for p in out.values():
        text = p.read_text()
        for leaked in ("MASTER_ADDR", "10.11.12.13", "NCCL_SOCKET_IFNAME", "ens5f0np0"):
            assert leaked not in text, (p.name, leaked)
    dist = json.loads(out["json"].read_text())["sources"][0]["inputs"][0]["distributed"]
    assert dist == {"rank": 0, "world_size": 1, "backend": "nccl", "pg_count": 1, "environment_variables_removed": 2}


def test_env_name_rule():
    from gpulens.timeline.secrets import scrub

    got = scrub({"CUDA_VISIBLE_DEVICES": "0,1", "HOME": "/home/alice", "SLURM_JOB_ID": 4242,
                 "computeMajor": 9, "name": "NVIDIA H100", "nested": {"LOCAL_RANK": "3", "rank": 3}})
    # three variables at the top (a number is a value all the same), one nested; camelCase and lower-case kept
    assert got == {"computeMajor": 9, "name": "NVIDIA H100", "nested": {"rank": 3, "environment_variables_removed": 1},
                   "environment_variables_removed": 3}


def test_command_lines_keep_the_program_not_the_environment_or_secret_options():
    """rocprofv3 JSON and rocprof-compute's sysinfo record the profiled command line, which gpulens keeps as
    ``command``: an environment assignment before the program and a secret-looking option are values a report must
    not copy; the program, its other options and Hydra-style overrides stay readable."""
    from gpulens.timeline import TimelineMeta

    cmd = ("WANDB_API_KEY=0f1e2d3c HIP_VISIBLE_DEVICES=0,1 torchrun --nproc-per-node 2 train.py model=gpt2 "
           "--wandb-key 9a8b7c --password=pw1 --keys a,b --max-tokens 4096 --author ann")
    meta = TimelineMeta(sources=[{"path": "x.json", "command": cmd},
                                 {"path": "y.json", "argv": ["python", "bench.py", "--hub-token", "t0k3n", "--n", "3"]}])
    # by hand: the two assignments' values and the values of --wandb-key, --password go; "--keys", "--max-tokens"
    # and "--author" are not secret-looking names ("key" in "keys", "token" in "tokens", "auth" in "author")
    assert meta.sources[0]["command"] == (
        "WANDB_API_KEY=<redacted> HIP_VISIBLE_DEVICES=<redacted> torchrun --nproc-per-node 2 train.py model=gpt2 "
        "--wandb-key <redacted> --password=<redacted> --keys a,b --max-tokens 4096 --author ann")
    assert meta.sources[1]["argv"] == ["python", "bench.py", "--hub-token", "<redacted>", "--n", "3"]


def test_gate_names_a_missing_baseline_file_as_a_file(tmp_path, monkeypatch):
    """``--baseline base.json`` that does not exist (a first run, or a typo): the gate says the file is missing and
    how to make it there — not "no baseline for machine …" with a store the user never named."""
    from gpulens.cli import app
    from typer.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    src = tmp_path / "t.json"
    _overrun_trace(src)
    runner = CliRunner()
    r = runner.invoke(app, ["gate", str(src), "-b", "base.json"], terminal_width=250)
    assert r.exit_code == 0, r.output  # no baseline: not a failure (--require-baseline makes it exit 3)
    assert "no baseline file base.json (no such file): save one there with `gpulens baseline save REPORT --name " \
           "base.json`" in " ".join(r.output.split())
    assert runner.invoke(app, ["gate", str(src), "-b", "base.json", "--require-baseline"]).exit_code == 3
    # following the advice works: the next gate finds it
    assert runner.invoke(app, ["baseline", "save", str(src), "--name", "base.json"]).exit_code == 0
    r = runner.invoke(app, ["gate", str(src), "-b", "base.json"], terminal_width=250)
    assert r.exit_code == 0 and "PASS" in r.output.split()


def test_compact_tables_leave_out_blank_columns_and_keep_the_ranking_time(tmp_path):
    """A trace without framework ops (rocprof, or kernels alone): the kernel groups' op, shapes and dtypes are
    empty in every row. The Markdown showed eight columns — rank, kind, key (the name again), kernel, op, shapes,
    dtypes, category, each "unknown" — and cut count and time, the figures the table is ranked by."""
    from gpulens.cli import app
    from typer.testing import CliRunner

    src = tmp_path / "t.json"
    _overrun_trace(src)
    md = tmp_path / "o.md"
    r = CliRunner().invoke(app, ["analyze", str(src), "--no-cache", "--markdown", str(md)], terminal_width=250)
    assert r.exit_code == 0, r.output
    text = md.read_text()
    head = text[text.index("### Kernel groups"):].split("\n")[2]
    cells = [c.strip() for c in head.strip("|").split("|")]
    assert not {"key", "op", "shapes", "dtypes"} & set(cells), cells
    assert "count" in cells and "time" in cells
    # the first row is the largest group: kA, 6 µs after clipping at kB's start (hand sums in _overrun_trace)
    row = text[text.index("### Kernel groups"):].split("\n")[4]
    assert "| kA |" in row and "6.00 µs" in row
    console = r.output[r.output.index("Kernel groups"):]
    assert "shapes" not in console.split("\n")[2] and "time" in console.split("\n")[2]


def test_the_critical_path_note_is_its_own_line_in_every_reporter(tmp_path):
    """GPT-2 on an H200: the run verdict (below both roofs) and the critical path (74.1 % host work) disagree for a
    reason the path note gives; inside the verdict sentence it made the first screen's verdict five lines long. The
    note now has its own line, labelled, in the console, the Markdown and the HTML banner, and the verdict sentence
    stops at its secondary cause."""
    from gpulens.cli import app
    from typer.testing import CliRunner
    from tests.conftest import DATA

    trace = DATA / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"
    md, page = tmp_path / "o.md", tmp_path / "o.html"
    r = CliRunner().invoke(app, ["analyze", str(trace), "--no-cache", "--markdown", str(md), "--html", str(page)],
                           terminal_width=400)
    assert r.exit_code == 0, r.output
    out = r.output
    # s38: the times at stake in order ("At stake, largest first:") stand between the verdict and the path note
    i, j = out.index("Verdict:"), out.index("Critical path:")
    verdict = " ".join(out[i:out.index("At stake, largest first:")].split())
    assert "critical path" not in verdict and verdict.endswith("(21.0 % of the span).")
    assert " ".join(out[j:].split()).startswith("Critical path: it runs mostly through host work (74.1 % of it: ")
    text = md.read_text()
    assert "> **Critical path:** it runs mostly through host work (74.1 % of it: " in text
    html = page.read_text()
    # one line in the HTML banner (the first screen must hold it), the note whole when unfolded
    assert ("<summary><strong>Critical path:</strong> it runs mostly through host work — why the verdict "
            "differs</summary>it runs mostly through host work (74.1 % of it: ") in html


def test_l1_bound_kernel_without_shared_memory_gets_tiling_not_bank_conflict_advice():
    """ncu on an H200: gemm_naive is memory-bound on L1 (97.2 % of peak) and its launch statistics record 0 B of
    static and dynamic shared memory per block. "Wider 128-bit shared-memory loads, no bank conflicts" does not
    apply to a kernel that uses none: its L1 traffic is its global loads, refetched by every thread — tiling is."""
    import csv

    import gpulens
    from tests.conftest import DATA

    path = DATA / "nvidia" / "h200" / "h200_kernels_details.csv"
    smem = {r["Metric Name"]: r["Metric Value"] for r in csv.DictReader(path.open())
            if r["Kernel Name"].startswith("gemm_naive") and "Shared Memory Per Block" in r["Metric Name"]
            and r["Metric Name"].startswith(("Static", "Dynamic"))}
    assert smem and all(float(v) == 0 for v in smem.values()), smem  # by the CSV itself
    v = gpulens.analyze([path]).sources[0].results["verdicts"].table
    row = v[v["name"].str.startswith("gemm_naive")].iloc[0]
    assert row["verdict"] == "memory-bound"
    step = row["next_steps"][0]
    assert "uses no shared memory" in step and "tiling" in step and "bank conflicts" not in step
