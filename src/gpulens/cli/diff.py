"""``gpulens diff BASE CAND``: what changed between two runs, per kernel, operator, category and rank."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from gpulens.cli._console import console as make_console, status as console_status
from gpulens.errors import EXIT_OK, GpulensError


def register(app: typer.Typer) -> None:
    """Add the ``diff`` command to ``app``."""

    @app.command("diff")
    def diff_cmd(
        base: Path = typer.Argument(..., help="Base run: a trace file, a folder of rank traces, or a gpulens "
                                              "JSON report."),
        cand: Path = typer.Argument(..., help="Candidate run (same kinds of input)."),
        json_out: Optional[Path] = typer.Option(None, "--json", help="Write the diff as JSON to this file."),
        html_out: Optional[Path] = typer.Option(None, "--html", help="Write the diff as an HTML page."),
        md_out: Optional[Path] = typer.Option(None, "--markdown", help="Write the diff as Markdown."),
        top: int = typer.Option(10, "--top", min=1, max=10_000, help="Rows per table in the console and the "
                                                                     "number of top contributors."),
        quiet: bool = typer.Option(False, "--quiet", "-q", help="No console output."),
        lenient: bool = typer.Option(False, "--lenient", help="Keep what can be read from malformed traces."),
        force: bool = typer.Option(False, "--force", help="Write the diff even over a file that holds a profiler "
                                                          "trace, a gpulens baseline or history, or a JSON report "
                                                          "(never over an input)."),
    ) -> int:
        """Compare two runs: count, time, mean and share per kernel, operator, category and rank, Δ and Δ %,
        new and vanished kernels, and the top contributors to the total Δ, largest |Δ| first (alone they need not
        sum to it: rises and falls net; with the closing "all other rows" line they do).

        Kernels are matched by normalised name, and across vendors through their launching operator and its
        input shapes. Exit codes: 0 ok (a diff never fails on a slowdown; use `gpulens gate`), 2 unreadable input.
        """
        from gpulens._inputs import check_input
        from gpulens.cli.analyze import check_output, distinct_outputs, write_output

        inputs = [base, cand]
        outputs = [(out, kind, what) for out, kind, what in (
            (json_out, "diff_json", "JSON diff"), (html_out, "diff_html", "HTML diff"),
            (md_out, "diff_markdown", "Markdown diff")) if out is not None]
        distinct_outputs(outputs)
        for out, kind, _ in outputs:  # refused before the comparison runs
            check_output(out, inputs, kind, force)
        for p in inputs:  # a missing side is said before pandas and the analyzers are imported
            check_input(p)
        from gpulens.diff import diff
        from gpulens.reports import diff as render
        console = make_console(stderr=quiet)
        with console_status(console, "Comparing …"):
            result = diff(base, cand, top=top, strict=not lenient)
        if not quiet:
            render.print_diff(result, console, top=top)
        for out, fn, what, kind in ((json_out, render.render_json, "JSON diff", "diff_json"),
                                    (html_out, render.render_html, "HTML diff", "diff_html"),
                                    (md_out, render.render_markdown, "Markdown diff", "diff_markdown")):
            if out is not None:
                write_output(out, fn(result), inputs, kind, force)
                if not quiet:
                    console.print(f"{what} written to {out}")
        raise typer.Exit(EXIT_OK)


__all__ = ["register", "GpulensError"]
