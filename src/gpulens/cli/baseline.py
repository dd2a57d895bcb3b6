"""``gpulens baseline save|list``: store runs as a named performance baseline; list the stored ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from gpulens.cli._coerce import LightGroup
from gpulens.cli._console import console as make_console
from gpulens.errors import EXIT_OK
from gpulens.units import plural

baseline_app = typer.Typer(cls=LightGroup, no_args_is_help=True,
                           help="Save and list performance baselines for `gpulens gate`.")


@baseline_app.command("save")
def save_cmd(
    reports: List[Path] = typer.Argument(..., help="JSON reports from `gpulens analyze --json` (or traces); "
                                                    "each source is one run. Give ≥ 5 runs for statistics."),
    name: str = typer.Option(..., "--name", "-n", help="Baseline name (e.g. main), or a path ending in .json."),
    force: bool = typer.Option(False, "--force", help="Replace an existing baseline of that name."),
    store: Optional[Path] = typer.Option(None, "--store", help="Baseline folder (default: $GPULENS_BASELINE_DIR, "
                                                               "the config's baseline_dir, or .gpulens/baselines)."),
    config: Optional[Path] = typer.Option(None, "--config", help="TOML file with [tool.gpulens.gate] settings."),
    lenient: bool = typer.Option(False, "--lenient", help="Keep what can be read from malformed traces."),
) -> None:
    """Store runs as a baseline: plain JSON with raw samples per metric, environment and machine key.

    Never overwrites an existing baseline without --force; every save is appended to <store>/history.jsonl.
    Exit codes: 0 saved; 2 unreadable input or existing baseline without --force; 4 no usable run (every run without
    GPU work or truncated: the workload failed), as `gpulens gate` exits for such a candidate.
    """
    from gpulens._inputs import check_input

    for p in reports:  # a missing report is said before pandas and the gate's statistics are imported
        check_input(p)
    from gpulens.gate import default_store, load_config, save_baseline
    from gpulens.gate.baseline import copied_runs_text

    cfg = load_config(config)
    base = save_baseline(reports, name, store or default_store(cfg.baseline_dir), force=force, strict=not lenient)
    con = make_console()
    con.print(f"Saved baseline '{base.name}' ({plural(len(base.runs), 'run')}, {plural(len(base.metrics), 'metric')}, machine "
              f"{base.machine_key}) to {base.path}")
    for e in base.excluded:
        con.print(f"  excluded {e['label']}: {e['reason']}", style="yellow")
    for n in base.notes:
        con.print(f"  warning: {n}", style="yellow")
    copies = copied_runs_text(base.metrics, len(base.runs))
    if copies:
        con.print(f"  note: {copies}", style="yellow")
    if len(base.runs) < 5:
        con.print(f"  note: {plural(len(base.runs), 'run(s)')} cannot support a significance test; record ≥ 5 repeats",
                  style="yellow")
    raise typer.Exit(EXIT_OK)


@baseline_app.command("list")
def list_cmd(
    store: Optional[Path] = typer.Option(None, "--store", help="Baseline folder."),
    config: Optional[Path] = typer.Option(None, "--config", help="TOML file with [tool.gpulens.gate] settings."),
) -> None:
    """List the baselines in the store: name, machine key, runs, created, commit.

    A store that is a file is an error (exit 2, as for ``save``); one that does not exist is said in one line
    instead of an empty table; files of the store that are not readable baselines are counted on standard error
    (a damaged baseline is not silently missing from the list)."""
    from gpulens.gate import default_store, load_config
    from gpulens.gate.baseline import check_store

    root = store or default_store(load_config(config).baseline_dir)
    check_store(root)
    con = make_console()
    if not root.exists():
        con.print(f"No baseline store at {root} (the folder does not exist): no baselines saved there yet",
                  soft_wrap=True)
        raise typer.Exit(EXIT_OK)
    from rich.table import Table  # imported by this command only, not by every command's start

    t = Table(title=f"Baselines in {root}", title_justify="left")
    for c in ("name", "machine", "runs", "created", "commit"):
        t.add_column(c)
    unread = []
    for p in sorted(root.glob("*/*.json")):
        try:
            d = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            d = None
        if isinstance(d, dict) and "gpulens_baseline" in d:
            t.add_row(str(d.get("name")), str(d.get("machine_key")), str(len(d.get("runs", []))),
                      str(d.get("created")), str((d.get("git") or {}).get("sha", ""))[:12])
        else:
            unread.append(p)
    con.print(t)
    if unread:
        import sys

        from gpulens.cli import one_line

        named = ", ".join(one_line(p.relative_to(root)) for p in unread[:3]) + (" …" if len(unread) > 3 else "")
        sys.stderr.write(f"gpulens: warning: {plural(len(unread), 'file')} of {one_line(root)} not listed: not a "
                         f"readable gpulens baseline (damaged, cut or another JSON file): {named}\n")
    raise typer.Exit(EXIT_OK)


def register(app: typer.Typer) -> None:
    """Add the ``baseline`` command group to ``app``."""
    app.add_typer(baseline_app, name="baseline")
