"""The ``gpulens`` command line (typer). Only this package imports typer.

Each command lives in its own module exposing ``register(app)``; :data:`COMMAND_MODULES` lists them.
``main()`` turns every :class:`~gpulens.errors.GpulensError` into one line on stderr and its documented exit code.
"""

from __future__ import annotations

import importlib
import sys

import typer

from gpulens.errors import EXIT_USAGE, GpulensError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False, rich_markup_mode=None,
                  help="gpulens: why is this GPU workload slow? Analyze PyTorch Profiler, rocprof, nsys and ncu "
                       "outputs.")

#: Modules under gpulens.cli that add commands (each defines register(app)).
COMMAND_MODULES = ["analyze", "gate", "baseline", "cache", "profile", "devices", "diff"]


def _version(value: bool) -> None:
    if value:
        from gpulens import __version__

        print(f"gpulens {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """gpulens: why is this GPU workload slow?"""

for _m in COMMAND_MODULES:
    importlib.import_module(f"{__name__}.{_m}").register(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gpulens`` console script; returns (and exits with) the exit code."""
    try:
        rv = app(args=argv, standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except GpulensError as exc:
        sys.stderr.write(f"gpulens: error: {exc}\n")
        code = exc.exit_code
    except typer.Exit as exc:  # raised by commands for their exit code
        code = exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write("gpulens: aborted\n")
        code = 130
    except Exception as exc:  # click usage errors
        kinds = []  # typer >= 0.20 vendors click as typer._click; a separate click may be installed too (dask)
        try:
            from typer import _click

            kinds.append(_click.ClickException)
        except ImportError:
            pass
        try:
            import click

            kinds.append(click.ClickException)
        except ImportError:
            pass
        if isinstance(exc, tuple(kinds)):
            exc.show()
            code = exc.exit_code if exc.exit_code else EXIT_USAGE
        else:
            raise
    if argv is None:
        sys.exit(code)
    return code
