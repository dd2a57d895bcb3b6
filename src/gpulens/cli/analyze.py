"""``gpulens analyze PATH...``: load traces, run the analyzers, print a summary, write reports."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, List, Optional

import typer

from gpulens.cli._console import Deferred, console as make_console, status as console_status
from gpulens.errors import EXIT_NO_GPU_WORK, EXIT_OK, DeviceWorkNote, GpulensError, truncated_without_gpu_work
from gpulens.timeline.secrets import encodable, writable_utf8
from gpulens.units import plural

if TYPE_CHECKING:
    from rich.console import Console

#: Upper bound of ``--workers`` (processes; the pool also never exceeds the number of rank files).
MAX_WORKERS = 512


def demo_trace_path() -> Path:
    """Path of the sample trace shipped inside the package (:func:`gpulens.demo_trace`)."""
    from gpulens import demo_trace

    return demo_trace()


def check_output(path: Path, inputs: list[Path], writing: str = "", force: bool = False) -> None:
    """Refuse a report path before anything is written (or analysed): one of the inputs or a file inside an input
    folder, a directory, a path below a file, or — unless ``force`` — a file that holds data of another kind than
    ``writing`` (a reporter module's name): a profiler trace, a gpulens baseline, history or JSON report
    (:func:`gpulens._outputs.replaces_data`).

    Raises:
        GpulensError: one line naming the file and why.
    """
    from gpulens._outputs import overwrites_input, replaces_data

    if overwrites_input(path, inputs):  # an input trace, or a rank file of an input folder
        raise GpulensError(f"{path}: refusing to overwrite an input trace or report with a report")
    try:
        is_dir = path.is_dir()
        blocking = next((p for p in reversed(path.parents) if p.exists() and not p.is_dir()), None)
    except OSError as exc:  # is_dir/exists raise past "not found": a name too long (ENAMETOOLONG), EACCES...
        raise GpulensError(f"{path}: cannot write the report ({exc.strerror or exc})") from None
    if is_dir:
        raise GpulensError(f"{path}: is a directory; give a file name for the report")
    if blocking is not None:  # mkdir would say only "File exists"
        raise GpulensError(f"{path}: cannot write the report: {blocking} is a file, not a folder")
    held = None if force else replaces_data(path, writing)
    if held:
        raise GpulensError(f"{path}: refusing to overwrite {held} with a report; choose another file name "
                           "(or pass --force)")


def write_output(path: Path, text: str | bytes, inputs: list[Path], writing: str = "", force: bool = False) -> None:
    """Write a report file atomically (:func:`gpulens._outputs.write_atomic`: an interrupted run leaves no
    half-written report) after :func:`check_output`.

    Raises:
        GpulensError: :func:`check_output` refuses ``path``, or it cannot be written (one-line message).
    """
    from gpulens._outputs import write_atomic

    check_output(path, inputs, writing, force)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a lone surrogate (a file name that is not UTF-8, quoted in a warning) written visibly, never a crash
        write_atomic(path, text if isinstance(text, bytes) else writable_utf8(text))
    except OSError as exc:
        raise GpulensError(f"{path}: cannot write the report ({exc.strerror or exc})") from None


def _print_summary(console: Console, text: str) -> None:
    """Write an already rendered console summary (ANSI text from :func:`console_summary`) to the console."""
    console.file.write(encodable(text))
    console.file.flush()


def _serve_stored(inputs: list[Path], strict: bool, format: str | None, select: object,
                  outputs: list[tuple[Path, str, str]], console: Console, quiet: bool, top: int,
                  force: bool = False) -> bool:
    """A cache hit served from stored renderings alone (:func:`gpulens.reports.render_cache.stored_outputs`):
    writes the requested reports, prints the stored summary and returns True; False (nothing written) when any
    piece is not stored — the caller then runs the analysis (itself served from the results cache when possible)."""
    from gpulens.cache import results_file_for
    from gpulens.reports.render_cache import console_key, stored_outputs

    memo = results_file_for(inputs[0], strict, format, None, select, None)
    if memo is None:
        return False
    got = stored_outputs(memo, str(inputs[0]), [m for _, m, _ in outputs], None if quiet else console_key(console, top))
    if got is None:
        return False
    if not quiet:
        _print_summary(console, got["console"])
    for out, module, what in outputs:
        write_output(out, got[module], inputs, module, force)
        if not quiet:
            console.print(f"{what} written to {out}")
    if quiet:
        _warn_partial(got["partial"])
    return True


def _warn_partial(lines: list[str]) -> None:
    """With ``--quiet`` (no summary, whose first line says it), one stderr line per source whose results are
    partial: a script or CI job still sees that ranks are missing or an input was truncated (exit status 0, as for
    any result; the JSON report says ``"status": "partial"`` and ``partial_reason``)."""
    import sys

    for line in lines:
        sys.stderr.write(f"gpulens: warning: partial result: {line}\n")


def register(app: typer.Typer) -> None:
    """Add the ``analyze`` command to ``app``."""

    @app.command("analyze")
    def analyze_cmd(
        paths: Optional[List[Path]] = typer.Argument(None, help="Trace files or directories (a directory of "
                                                                 "per-rank traces is one multi-rank input)."),
        demo: bool = typer.Option(False, "--demo", help="Analyze the sample H100 trace shipped with gpulens."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the JSON report to this file."),
        html_out: Optional[Path] = typer.Option(None, "--html", help="Write the self-contained HTML report here."),
        md_out: Optional[Path] = typer.Option(None, "--markdown", help="Write a Markdown summary (PR comments)."),
        perfetto_out: Optional[Path] = typer.Option(None, "--perfetto", help="Write the unified timeline as "
                                                                             "Chrome-trace JSON for ui.perfetto.dev."),
        csv_dir: Optional[Path] = typer.Option(None, "--csv", help="Write every analysis table as CSV into this "
                                                                   "folder (with columns.csv documenting them)."),
        parquet_dir: Optional[Path] = typer.Option(None, "--parquet", help="Write every analysis table as Parquet "
                                                                           "into this folder."),
        format: Optional[str] = typer.Option(None, "--format", help="Force an input format (collector name)."),
        lenient: bool = typer.Option(False, "--lenient", help="Keep what can be read from malformed inputs."),
        strict_dir: bool = typer.Option(False, "--strict", help="A file of a rank directory that cannot be read "
                                                                "is an error (default: a warning naming it, with "
                                                                "the count of files used vs found)."),
        top: int = typer.Option(10, "--top", help="Kernels shown in the console's kernel, roofline, occupancy "
                                "and verdict tables (0: those tables left out, named in one line)."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No console summary."),
        force: bool = typer.Option(False, "--force", help="Write the reports even over a file that holds a "
                                                          "profiler trace, a gpulens baseline or history, or a "
                                                          "JSON report (never over an input)."),
        device_spec: Optional[Path] = typer.Option(None, "--device-spec", help="A built-in GPU (e.g. H200, "
                                                   "MI300X: `gpulens devices`) or a spec file (JSON/TOML) to use "
                                                   "instead of the device identified from the trace."),
        join: bool = typer.Option(False, "--join", help="Inputs are one run (e.g. a Kineto trace and a rocprof "
                                                        "folder): attach the later inputs' counters to the first's "
                                                        "kernels and report once."),
        steps: Optional[str] = typer.Option(None, "--steps", help="Only ProfilerStep#N annotations A..B, e.g. 3:5."),
        window: Optional[str] = typer.Option(None, "--window", help="Only events starting in START:END after the "
                                                                    "start of the profiled window (the 'start (in "
                                                                    "profiled window)' of the steps and outliers "
                                                                    "tables), cut at END (ns, or 1500us, 12ms, 2s; a "
                                                                    "unit on one bound applies to a bare other: "
                                                                    "100:200ms)."),
        ranks: Optional[str] = typer.Option(None, "--ranks", help="Only these ranks, e.g. 0-7 or 0,2,5."),
        no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the Timeline cache."),
        workers: Optional[int] = typer.Option(None, "--workers", help="Processes for a directory of rank files: "
                                                                      "loading, and analysing a large run in two "
                                                                      "(default: from cores, memory and size)."),
        scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Load rank files on this Dask cluster "
                                                                          "(tcp://host:port; gpulens[dask])."),
    ) -> int:
        """Analyze traces: device, span, GPU busy %, time breakdown and the kernels that matter.

        Exit codes: 0 ok (also a partial result: an input truncated, or rank files of a directory that could not be
        read — said first in the summary, on stderr with --quiet, and as "status": "partial" in the JSON report),
        2 unreadable input or bad usage (also a truncated file whose readable part holds no GPU
        event), 5 inputs contain no GPU work, or only GPU work gpulens does not read as kernels (PC samples,
        thread-trace tables: named in the message), 130 interrupted (Ctrl-C).
        """
        inputs = list(paths or [])
        if demo:
            inputs.append(demo_trace_path())
        if not inputs:
            raise GpulensError("no input: give trace paths or --demo")
        from gpulens.timeline.selection import Selection

        if workers is not None and not 1 <= workers <= MAX_WORKERS:
            raise GpulensError(f"--workers: {workers} is out of range (1 to {MAX_WORKERS})")
        if top < 0:
            raise GpulensError(f"--top: {top} is negative")

        select = Selection.parse(steps, window, ranks)
        console = Deferred(stderr=True) if quiet else make_console()  # quiet: rich imported only if it prints
        outputs = [(out, module, what) for out, module, what in (
            (json_out, "json_report", "JSON report"), (html_out, "html", "HTML report"),
            (md_out, "markdown", "Markdown summary"), (perfetto_out, "perfetto", "Perfetto trace")) if out is not None]
        # a report file and a tables folder on one path (the report was written, then the export failed), or --csv
        # and --parquet on one folder (two exports mixed in it, each one's columns.csv written over the other's)
        distinct_outputs(outputs + [(folder, "", what) for folder, what in (
            (csv_dir, "CSV tables folder"), (parquet_dir, "Parquet tables folder")) if folder is not None])
        for out, module, _ in outputs:  # refused before the analysis, not after it
            check_output(out, inputs, module, force)
        for folder, opt in ((csv_dir, "--csv"), (parquet_dir, "--parquet")):
            if folder is not None and folder.exists() and not folder.is_dir():  # said before the analysis too
                raise GpulensError(f"{folder}: is a file, not a folder; give {opt} a folder for the tables")
        from gpulens._inputs import check_input

        for p in inputs:  # a missing input is said before pandas and the analyzers are imported
            check_input(p)
        if not no_cache and len(inputs) == 1 and scheduler is None and not join and device_spec is None \
                and csv_dir is None and parquet_dir is None:
            if _serve_stored(inputs, not lenient, format, select, outputs, console, quiet, top, force):
                raise typer.Exit(EXIT_OK)
        from gpulens.cli import import_settled

        run_analysis = import_settled("gpulens.report").analyze
        try:
            with console_status(console) as status:
                report = run_analysis(inputs, strict=not lenient, format=format,
                                      on_load=lambda p: status.update(f"Loading {p} …"), select=select,
                                      cache=not no_cache, workers=workers, scheduler=scheduler, join=join,
                                      device_spec=device_spec, require_all=strict_dir)
        except GpulensError as exc:  # GPU work recorded without kernel timing (a PC-sampling CSV): exit 5, as the
            if isinstance(getattr(exc, "reason", None), DeviceWorkNote):  # same samples in a rocprofv3 JSON
                exc.exit_code = EXIT_NO_GPU_WORK
            raise
        from gpulens.reports.render_cache import console_summary, render as render_as

        if not quiet:
            _print_summary(console, console_summary(report, console, top))
            hint = "" if join else ranks_hint(report, inputs)
            if hint:
                console.print(hint, soft_wrap=True)
        else:
            from gpulens.reports.render_cache import partial_lines

            _warn_partial(partial_lines(report))
        for out, module, what in outputs:
            write_output(out, render_as(report, module), inputs, module, force)
            if not quiet:
                console.print(f"{what} written to {out}")
        for folder, fmt in ((csv_dir, "csv"), (parquet_dir, "parquet")):
            if folder is not None:
                from gpulens.export import export_tables

                files = export_tables(report, folder, fmt, inputs, force=force)
                if not quiet:
                    console.print(f"{plural(len(files), fmt.upper() + ' export file(s)')} written to {folder}")
        code = EXIT_OK if report.has_gpu_work else EXIT_NO_GPU_WORK
        if code == EXIT_NO_GPU_WORK:
            msg = f"No GPU work found in {_read_as(report)}: 0 kernels."
            from gpulens.timeline.input_notes import recorded_no_device

            why = [recorded_no_device(s.timeline.meta.sources) for s in report.sources]
            if why and all(why):  # gpulens profile recorded why (a CPU-only torch, no driver)
                msg = f"No GPU work found in {_read_as(report)}: 0 kernels — {why[0]}."
            incomplete = [src["incomplete_capture"] for s in report.sources for src in s.timeline.meta.sources
                          if src.get("incomplete_capture")]
            if incomplete:  # launches without any GPU record: say the capture is incomplete, not "no GPU work"
                msg = f"The capture is incomplete (0 kernels recorded): {incomplete[0]}."
            unread = [src["unread_device_events"] for s in report.sources for src in s.timeline.meta.sources
                      if src.get("unread_device_events")]
            if unread:  # the device worked, in events this reader does not read (MTIA): not "no GPU work"
                msg = (f"No kernel, copy or fill gpulens reads was found in {_read_as(report)}, but the device "
                       f"worked: {unread[0]} (not read).")
            cut = [(p, n) for s in report.sources for p, n in s.timeline.meta.truncated_at.items()]
            if cut:  # a truncated file: its GPU events were in the lost part, not absent from the run. An input
                # error (exit 2, one line naming the file), never "no GPU work" (exit 5): the run may well have had
                # some. The reports asked for are written above (the partial result).
                raise truncated_without_gpu_work(cut)
            hints = [src["selection_hint"] for s in report.sources for src in s.timeline.meta.sources
                     if src.get("selection_hint")]
            if hints:  # the selection matched nothing the inputs record: say so, with a selection that would
                msg = f"No GPU work in the selection ({select.describe()}) of {_read_as(report)}: {hints[0]}."
            elif steps or window or ranks:
                msg += " (A --steps/--window/--ranks selection was applied: it may match nothing.)"
            console.print(msg, soft_wrap=True)
        raise typer.Exit(code)


def ranks_hint(report, inputs: list[Path]) -> str:
    """A note when single files given one by one hold one distinct rank each (``rank-0.json rank-1.json``): they
    look like the ranks of one run, each reported on its own — without the rank comparison (straggler, imbalance)
    or the run's wall span. Names the way to read them as one run: their directory, when it holds just them, else
    one directory of their own. "" otherwise (a directory input, one rank in several files, several ranks in one)."""
    files = [Path(p) for p in inputs]
    if len(report.sources) < 2 or len(report.sources) != len(files) or any(p.is_dir() for p in files):
        return ""
    ranks = [s.timeline.ranks for s in report.sources]
    if any(len(r) != 1 for r in ranks) or len({r[0] for r in ranks}) != len(ranks):
        return ""
    parents = {p.resolve().parent for p in files}
    where = ""
    if len(parents) == 1:
        folder = next(iter(parents))
        others = [q for q in folder.iterdir() if q.is_file() and q.resolve() not in {p.resolve() for p in files}
                  and not q.name.startswith(".")]
        where = f"gpulens analyze {folder}" if not others else ""
    listed = ", ".join(str(r[0]) for r in sorted(ranks))
    return (f"Note: these {len(files)} files hold ranks {listed}, one each, and are reported one by one. If they are "
            "the ranks of one run, analyse them as one multi-rank input (rank comparison, straggler, wall span): "
            + (f"`{where}`." if where else "put them in one directory and pass the directory."))


def distinct_outputs(outputs: list[tuple[Path, str, str]]) -> None:
    """Refuse one file named for two reports (``--json r.out --html r.out``): the second would silently replace the
    first, and the user would lose a report they asked for. Every command that writes several reports calls it
    (``analyze``, ``diff``, ``gate``).

    Args:
        outputs: (path, writer, what the report is, e.g. ``"JSON report"``) per report asked for.

    Raises:
        GpulensError: naming the file and both reports, before any analysis runs.
    """
    from gpulens._outputs import real_path

    seen: dict[Path, str] = {}
    for out, _, what in outputs:
        key = real_path(out)
        if key in seen:
            folders = ("folder" in seen[key]) + ("folder" in what)  # two tables folders: a folder for each
            each = ("a file", "a path", "a folder")[folders]
            raise GpulensError(f"{out}: given for both the {seen[key]} and the {what}; name {each} for each")
        seen[key] = what


def _read_as(report) -> str:
    """``"a.csv (read as rocprof v1/v2 CSV)"`` for the inputs of ``report`` (the first 4, then how many more): an empty
    result names the file and the format it was recognised as, so that a header-only or wrong file is visible."""
    from gpulens.collectors._format_words import format_words

    seen = [(str(src.get("path", "?")), format_words(src.get("collector", "?"))) for s in report.sources
            for src in s.timeline.meta.sources if isinstance(src, dict)]
    if not seen:
        return "the input(s)"
    named = ", ".join(f"{p} (read as {c})" for p, c in seen[:4])
    return named + (f" and {plural(len(seen) - 4, 'more file(s)')}" if len(seen) > 4 else "")
