"""``gpulens gate --baseline NAME_OR_PATH CANDIDATE...``: fail CI on a performance regression, not on noise."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import List, Optional

import typer

from gpulens.cli._console import console as make_console, status as console_status
from gpulens.cli.analyze import check_output, distinct_outputs, write_output
from gpulens.errors import EXIT_OK, GpulensError

EXIT_HELP = """Exit codes: 0 pass, improved, ambiguous, incomparable (other machine, or not the same workload) or no
baseline; 1 regression (or ambiguous with --fail-on-ambiguous); 2 usage or input error; 3 no comparable baseline with
--require-baseline (an incomparable one included); 4 the candidate has no usable run (no GPU work). --warn-only always
exits 0."""


def _annotations(result) -> list[str]:
    """GitHub Actions workflow commands (``::error``/``::warning``) for gating rows that need attention."""
    out = []
    for m in result.metrics:
        if not m.gating or m.verdict not in ("REGRESSED", "AMBIGUOUS", "ERROR"):
            continue
        level = "warning" if m.verdict == "AMBIGUOUS" else "error"
        msg = f"{m.metric}: {m.verdict} — {m.reason}".replace("%", "%25").replace("\r", " ").replace("\n", " ")
        out.append(f"::{level} title=gpulens gate::{msg}")
    if result.verdict in ("INCOMPARABLE", "NO_BASELINE", "ERROR") and not result.metrics:
        out.append(f"::warning title=gpulens gate::{result.verdict}: {result.reason}")
    return out[:20]


def register(app: typer.Typer) -> None:
    """Add the ``gate`` command to ``app``."""

    @app.command("gate", epilog=EXIT_HELP)
    def gate_cmd(
        candidates: List[Path] = typer.Argument(..., help="Candidate JSON reports from `gpulens analyze --json` "
                                                          "(or traces); each source is one run."),
        baseline: str = typer.Option(..., "--baseline", "-b", help="Baseline name (see `gpulens baseline save`) "
                                                                   "or path to a baseline .json file, a `gpulens "
                                                                   "analyze --json` report or traces (a file or "
                                                                   "folder; a bare name that is a file or folder "
                                                                   "here is that path unless the store holds a "
                                                                   "baseline of that name)."),
        warn_only: bool = typer.Option(False, "--warn-only", help="Report, but always exit 0."),
        require_baseline: bool = typer.Option(False, "--require-baseline",
                                              help="Exit 3 when no comparable baseline exists."),
        fail_on_ambiguous: bool = typer.Option(False, "--fail-on-ambiguous", help="AMBIGUOUS fails (exit 1)."),
        allow_cross_machine: bool = typer.Option(False, "--allow-cross-machine",
                                                 help="Compare even when GPU model or driver differ."),
        allow_other_workload: bool = typer.Option(False, "--allow-other-workload",
                                                  help="Compare even when the runs are not the same workload "
                                                       "(under half of one run's kernel time in kernels both run) "
                                                       "or profiled different numbers of steps."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the gate result as JSON."),
        markdown: Optional[Path] = typer.Option(None, "--markdown", help="Write Markdown (job summary / PR "
                                                                         "comment, < 65,000 characters)."),
        junit: Optional[Path] = typer.Option(None, "--junit", help="Write JUnit XML (one testcase per metric)."),
        html_out: Optional[Path] = typer.Option(None, "--html", help="Write an HTML page (verdict, threshold, noise, "
                                                "the timings that regressed; no script, no network) for the job "
                                                "to attach."),
        config: Optional[Path] = typer.Option(None, "--config", help="TOML file with [tool.gpulens.gate] "
                                                                     "settings (default: ./pyproject.toml)."),
        store: Optional[Path] = typer.Option(None, "--store", help="Baseline folder."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No terminal table."),
        lenient: bool = typer.Option(False, "--lenient", help="Keep what can be read from malformed traces "
                                                              "(candidates and a baseline given as a trace)."),
        force: bool = typer.Option(False, "--force", help="Write --json/--markdown/--junit/--html even over a file that "
                                                          "holds a profiler trace, a gpulens baseline or history, "
                                                          "or a JSON report (never over an input)."),
    ) -> None:
        """Compare candidate runs with a baseline: per metric ratio and CI (Welch t on log times), run-level Holm."""
        try:
            code = _run(candidates, baseline, warn_only, require_baseline, fail_on_ambiguous, allow_cross_machine,
                        json_out, markdown, junit, config, store, quiet, force, allow_other_workload,
                        html_out=html_out, strict=not lenient)
        except GpulensError as exc:
            if not warn_only:
                raise
            from gpulens.cli import one_line

            sys.stderr.write(f"gpulens: error: {one_line(exc)} (--warn-only: exiting 0)\n")
            code = EXIT_OK
        raise typer.Exit(code)


def _run(candidates, baseline, warn_only, require_baseline, fail_on_ambiguous, allow_cross_machine, json_out,
         markdown, junit, config, store, quiet, force=False, allow_other_workload=False, html_out=None,
         strict=True) -> int:
    if not baseline.strip():  # `--baseline "$BASELINE"` with the variable unset: never a silent NO_BASELINE pass
        raise GpulensError(f"--baseline: empty ({baseline!r}); give a baseline name (see `gpulens baseline list`) or "
                           "a path to a baseline .json file")
    outputs = [(p, kind, what) for p, kind, what in (
        (json_out, "gate_json", "JSON result"), (markdown, "gate_markdown", "Markdown summary"),
        (junit, "gate_junit", "JUnit XML"), (html_out, "gate_html", "HTML page")) if p is not None]
    distinct_outputs(outputs)
    for out, kind, _ in outputs:  # refused before any input is read (the baseline is checked again once found)
        check_output(out, list(candidates) + ([Path(baseline)] if baseline.endswith(".json") else []), kind, force)
    from gpulens._inputs import check_input

    for p in candidates:  # a missing candidate is said before pandas and the gate's statistics are imported
        check_input(p)
    from gpulens.gate import default_store, exit_code, find_baseline, load_config, run_gate
    from gpulens.gate.runs import collect_runs

    cfg = load_config(config)
    cfg.fail_on_ambiguous = cfg.fail_on_ambiguous or fail_on_ambiguous
    console = make_console(stderr=quiet)
    with console_status(console, "Loading candidate runs …"):
        runs = collect_runs(candidates, strict=strict)
    base = find_baseline(baseline, runs.machine_key, store or default_store(cfg.baseline_dir), strict)
    result = run_gate(base, runs, cfg, baseline_ref=baseline, allow_cross_machine=allow_cross_machine,
                      allow_other_workload=allow_other_workload)
    result.exit_code = exit_code(result, warn_only=warn_only, require_baseline=require_baseline,
                                 fail_on_ambiguous=cfg.fail_on_ambiguous)
    inputs = list(candidates) + ([base.path] if base is not None and base.path else [])
    if json_out is not None:
        write_output(json_out, json.dumps(result.to_dict(), indent=1, allow_nan=False) + "\n", inputs, "gate_json",
                     force)
    if markdown is not None:
        from gpulens.reports.gate_markdown import render as render_md

        write_output(markdown, render_md(result), inputs, "gate_markdown", force)
    if junit is not None:
        from gpulens.reports.gate_junit import render as render_junit

        write_output(junit, render_junit(result), inputs, "gate_junit", force)
    if html_out is not None:
        from gpulens.reports.gate_html import render as render_html

        write_output(html_out, render_html(result), inputs, "gate_html", force)
    if not quiet:
        from gpulens.reports.gate_console import print_result

        print_result(result, console)
    if os.environ.get("GITHUB_ACTIONS") == "true":
        for line in _annotations(result):
            print(line)
    if warn_only and result.verdict != "PASS" and not quiet:
        console.print("--warn-only: exiting 0", style="dim")
    return result.exit_code
