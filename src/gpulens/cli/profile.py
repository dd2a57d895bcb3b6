"""``gpulens profile script.py [-- args]``: run a workload under the profiler, then analyze it and write reports.

The default backend (``torch``) runs the script in this process as ``__main__`` under
:class:`gpulens.profiler.profile`; ``--backend nsys|ncu|rocprofv3 -- cmd ...`` runs a vendor profiler as a
subprocess. The summary goes to stderr so the script's own stdout stays clean. The exit status is the workload's
(its own ``sys.exit(n)``; 4 when it raised), 2 for usage errors or a missing vendor binary.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from gpulens.cli._console import console as make_console
from gpulens.errors import GpulensError, check_label
from gpulens.units import plural

if TYPE_CHECKING:
    from rich.console import Console


def _live_lines(report) -> list[str]:
    """Steps, top host operators and telemetry of a live run, one line each (what the kernel summary lacks)."""
    from gpulens.reports.console import fmt_ns

    res = report.sources[0].results
    lines = []
    st = res.get("steps")
    if st is not None and not st.skipped:
        lines.append(f"steps     {st.summary['step_count']} recorded {st.summary['steps']}, median "
                     f"{fmt_ns(st.summary['median_step_ns'])}")
    ops = res.get("cpu_ops")
    if ops is not None and not ops.skipped:
        top = ", ".join(f"{r.name} ×{r.calls} {fmt_ns(r.total_ns)}" for r in ops.table.head(3).itertuples())
        # the cpu_ops figure is inclusive: aten::linear holds its aten::addmm, both listed — said, not summed
        lines.append(f"top ops   {top} (inclusive host time: a nested op counts in its caller's too)")
    tel = res.get("telemetry")
    if tel is not None and not tel.skipped:  # when unavailable, the report's warnings already say why
        lines.append(f"telemetry {tel.summary.get('samples', 0)} samples, {plural(len(tel.findings), 'finding(s)')}")
    return lines


def _summarize(console: Console, report, paths: list, error: str | None, quiet: bool, first: str = "") -> None:
    if first:  # the workload failed: said before any figure (the summary below covers the run up to the failure)
        console.print(f"[bold red]{first}[/bold red]", highlight=False)
    if report is not None and not quiet:
        from gpulens.reports.console import print_report

        print_report(report, console)
        for line in _live_lines(report):
            console.print(line, highlight=False, markup=False)
    for label, p in paths:
        if p is not None:
            console.print(f"{label}: {p}")
    if error:
        console.print(f"[yellow]gpulens: {error}[/yellow]")


#: Accepted ranges of the numeric options (inclusive): a step count of 10^18 or a sampling period of 0 or NaN ms
#: would make the profiler wait forever or spin.
BOUNDS = {"steps": (1, 1_000_000), "warmup": (0, 1_000_000), "wait": (0, 1_000_000), "interval_ms": (1.0, 3_600_000.0)}


def check_bounds(**values: float | None) -> None:
    """Raise a one-line :class:`GpulensError` for a value outside :data:`BOUNDS` (None: not given, accepted)."""
    for name, v in values.items():
        lo, hi = BOUNDS[name]
        if v is not None and not lo <= v <= hi:  # NaN fails both comparisons
            raise GpulensError(f"--{name.replace('_', '-')}: {v} is out of range ({lo:g} to {hi:g})")


def register(app: typer.Typer) -> None:
    """Add the ``profile`` command to ``app``."""

    @app.command("profile", context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})
    def profile_cmd(
        command: List[str] = typer.Argument(..., help="script.py [args...] (torch backend) or the command to run "
                                                      "under a vendor profiler (after '--')."),
        out: Path = typer.Option(Path("gpulens-out"), "--out", "-o", help="Folder for the trace and the reports."),
        steps: Optional[int] = typer.Option(None, "--steps", help="Record this many training steps (a step ends "
                                                                 "at each optimizer.step()); default: everything."),
        warmup: int = typer.Option(1, "--warmup", help="Steps profiled and discarded before the recorded ones."),
        wait: int = typer.Option(0, "--wait", help="Steps skipped before the warm-up."),
        label: Optional[str] = typer.Option(None, "--label", help="File stem and report label (default: the "
                                                                  "script's name)."),
        telemetry: str = typer.Option("auto", "--telemetry", help="GPU telemetry: auto, nvml, rocm or off."),
        interval_ms: float = typer.Option(100.0, "--interval-ms", help="Telemetry sampling period [ms]."),
        backend: str = typer.Option("torch", "--backend", help="torch (in-process), nsys, ncu or rocprofv3."),
        open_html: bool = typer.Option(False, "--open", help="Open the HTML dashboard when done."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No console summary."),
    ) -> int:
        """Profile a Python script (or, with --backend, any command) and analyze the result.

        Exit codes: the workload's own status; 4 the workload raised; 2 bad usage or a missing vendor binary.
        """
        console = make_console(stderr=True)
        check_bounds(steps=steps, warmup=warmup, wait=wait, interval_ms=interval_ms)
        if label is not None:
            check_label(label)
        if out.exists() and not out.is_dir():  # created later (not before a vendor binary is found)
            raise GpulensError(f"--out {out}: is a file, not a folder")
        if backend != "torch":
            from gpulens.profiler.runner import run_vendor, vendor_stem

            stem = vendor_stem(backend, out, check_label(label or Path(command[0]).stem))
            code, report = run_vendor(backend, list(command), out, stem)
            json_path = html_path = None
            if report is not None:
                from gpulens._outputs import write_atomic
                from gpulens.profiler.session import write_html
                from gpulens.reports.json_report import render

                json_path = out / f"{stem}.report.json"
                write_atomic(json_path, render(report).encode("utf-8"))
                html_path = write_html(report, out / f"{stem}.report.html")
            _summarize(console, report, [("JSON report", json_path), ("HTML dashboard", html_path)], None, quiet)
            if open_html and html_path is not None:
                import webbrowser

                webbrowser.open(html_path.resolve().as_uri())
            raise typer.Exit(code)

        from gpulens.profiler import profile
        from gpulens.profiler.runner import run_script

        if telemetry not in ("auto", "nvml", "rocm", "off"):
            raise GpulensError(f"--telemetry {telemetry!r}: choose auto, nvml, rocm or off")
        script = Path(command[0])
        prof = profile(out=out, steps=steps, warmup=warmup, wait=wait, label=label or script.stem,
                       telemetry=False if telemetry == "off" else telemetry, telemetry_interval_s=interval_ms / 1000,
                       auto_step=steps is not None)
        args = list(command[1:])
        if args[:1] == ["--"]:  # `gpulens profile script.py -- args`: click keeps the separator after the script
            args = args[1:]
        quiet_log = logging.getLogger("gpulens.profiler")  # its warnings are prof.error, printed once below (they
        if not quiet_log.handlers:  # went to stderr by Python's last-resort handler too: every error line twice)
            quiet_log.addHandler(logging.NullHandler())
        code = run_script(script, args, prof)
        sys.stdout.flush()
        first = ""
        if prof.failure:
            said = prof.failure.replace("the profiled code", Path(script).name)
            first = (f"WORKLOAD FAILED: {said}" + ("" if "exited with status" in said else f" (exit status {code})")
                     + " — " + ("the profile up to that point is analysed (partial)" if prof.report is not None
                                      else "no profile to analyse"))
        _summarize(console, prof.report, [("trace", prof.trace_path), ("JSON report", prof.json_path),
                                          ("HTML dashboard", prof.html_path)], prof.error, quiet, first)
        if open_html and prof.html_path is not None:
            import webbrowser

            webbrowser.open(prof.html_path.resolve().as_uri())
        raise typer.Exit(code)
