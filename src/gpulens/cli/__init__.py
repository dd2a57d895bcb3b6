"""The ``gpulens`` command line (typer). Only this package imports typer.

Each command lives in its own module exposing ``register(app)``; :data:`COMMAND_MODULES` lists them.
``main()`` turns every :class:`~gpulens.errors.GpulensError` into one line on stderr and its documented exit code,
and any other exception (a bug) into one line naming the input being processed and exit code 70
(:data:`~gpulens.errors.EXIT_INTERNAL`). ``--debug`` (anywhere before a ``--``) or ``GPULENS_DEBUG=1`` prints the
traceback as well.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
import traceback
from typing import Any

# Ctrl-C while the command starts: one line and exit 130 for the command, the KeyboardInterrupt for a program
from gpulens import ABORTED_STARTING, _interrupted_while_starting, _is_console_command  # noqa: E402,F401

try:  # the imports of the command line (typer, rich, every command module): see _interrupted_while_starting
    import typer

    from gpulens.cli._coerce import LightGroup
    from gpulens.errors import EXIT_INTERNAL, EXIT_USAGE, GpulensError, input_of, printable
except KeyboardInterrupt:
    _interrupted_while_starting()

app = typer.Typer(cls=LightGroup, add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="gpulens: why is this GPU workload slow? Analyze PyTorch Profiler, rocprof, nsys and ncu "
                       "outputs.")

#: Modules under gpulens.cli that add commands (each defines register(app)).
COMMAND_MODULES = ["analyze", "gate", "baseline", "cache", "profile", "devices", "diff"]
#: True while :func:`main` runs as the process's own command (the console script: ``argv`` None), which ends the
#: process; :func:`import_settled` freezes nothing otherwise.
_ENDS_PROCESS = False
#: Allocations between two collections of the youngest generation once a command's heavy imports are settled
#: (:func:`import_settled`; Python's default is 700).
GC_YOUNG_THRESHOLD = 100_000


def import_settled(module: str) -> Any:
    """``importlib.import_module(module)`` for a command's heavy imports (pandas, numpy). When the command ends the
    process (:data:`_ENDS_PROCESS`), the cyclic garbage collector is paused during the import (an import makes
    almost no garbage, and the collections it would trigger walk every module loaded so far) and every object alive
    then (the modules imported: pandas, numpy, typer, rich, gpulens) is frozen out of later collections
    (``gc.freeze``): the full collections an analysis triggers walk only what it made. ≈ 0.1 s of CPU less per
    ``gpulens analyze`` (demo and 100k-kernel trace alike). An analysis that forks
    (:mod:`gpulens.analyzers._parallel_run`) unfreezes every object once its child is done: they are collected as
    before from then on. In-process callers (``main([...])``, tests) get a plain import: an object frozen is never
    collected. The youngest generation is then collected every :data:`GC_YOUNG_THRESHOLD` allocations instead of
    Python's 700: an analysis allocates hundreds of thousands of small pandas objects that die young, and each young
    collection walked those still alive (a 100k-kernel ``gpulens analyze``: 110 collections in 17–21 ms of CPU →
    45, nearly all before this import, in 5–6 ms; session 50)."""
    if not _ENDS_PROCESS:
        return importlib.import_module(module)
    import gc

    was = gc.isenabled()
    gc.disable()
    try:
        return importlib.import_module(module)
    finally:
        gc.freeze()
        gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
        if was:
            gc.enable()


def _version(value: bool) -> None:
    if value:
        from gpulens import __version__

        print(f"gpulens {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """gpulens: why is this GPU workload slow?"""

try:
    for _m in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{_m}").register(app)
except KeyboardInterrupt:
    _interrupted_while_starting()


def _split_debug(args: list[str]) -> tuple[list[str], bool]:
    """Remove ``--debug`` from the options (not from what follows ``--``, which belongs to a profiled script)."""
    end = args.index("--") if "--" in args else len(args)
    head = [a for a in args[:end] if a != "--debug"]
    return head + args[end:], len(head) != end


def one_line(text: Any) -> str:
    """``text`` as one printable line (:func:`gpulens.errors.printable`): an error stays one line and cannot move
    the cursor or recolour the terminal."""
    return printable(text)


def internal_error_line(exc: BaseException) -> str:
    """The one line printed for an uncaught exception (exit 70)."""
    where = input_of(exc)
    msg = one_line(str(exc).strip().splitlines()[0]) if str(exc).strip() else ""
    what = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    if len(what) > 300:
        what = what[:299] + "…"
    place = f" while {one_line(where)}" if where else ""
    return (f"gpulens: internal error{place}: {what} — rerun with --debug for the traceback; "
            "please report it\n")


#: OS refusals of a path the user named (a name too long, a link loop, no permission, a read-only or full disk, a
#: file where a folder is needed): the user's to fix, told in one line, wherever a command stats or opens the path.
_PATH_ERRNOS = frozenset(getattr(errno, n) for n in ("ENAMETOOLONG", "ELOOP", "EACCES", "EPERM", "EROFS", "ENOSPC",
                                                     "EDQUOT", "ENOTDIR", "EISDIR", "ENOENT", "EEXIST")
                         if hasattr(errno, n))


def path_refused(exc: BaseException) -> bool:
    """Whether ``exc`` is the OS refusing a named path (:data:`_PATH_ERRNOS`), not a fault of gpulens."""
    return isinstance(exc, OSError) and exc.filename is not None and exc.errno in _PATH_ERRNOS


class _ClosedPipeSafe:
    """Standard output that survives the reader going away (``gpulens analyze … | head``).

    Python raises ``BrokenPipeError`` on the first write after the reader closed the pipe; the command-line library
    then exits 1 (the exit code of a *regression*) with no message, before the command wrote the ``--html`` /
    ``--markdown`` files it was asked for. Here the first broken write points the descriptor at ``/dev/null`` and
    every later console write is dropped, so the command finishes its files and exits with its own code.

    Any other refused write (a full disk ``ENOSPC``, ``EIO``: ``gpulens analyze … > /dev/full``) is the same for the
    files — later console writes are dropped and the command goes on — but is kept in :attr:`write_error`, so the
    command ends with a one-line error and exit 2 instead of claiming success with a cut summary."""

    def __init__(self, stream: Any):
        self._stream = stream
        self.pipe_closed = False
        #: the first refusal of a write that was not a closed pipe (``OSError``), else None
        self.write_error: OSError | None = None

    def _closed(self) -> None:
        self.pipe_closed = True
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # the interpreter's final flush finds somewhere to write
            os.close(devnull)
        except (OSError, ValueError, AttributeError):
            pass

    def write(self, text: str) -> int:
        if not self.pipe_closed:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._closed()
            except OSError as exc:
                self._refused(exc)
        return len(text)

    def flush(self) -> None:
        if not self.pipe_closed:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._closed()
            except OSError as exc:
                self._refused(exc)

    def _refused(self, exc: OSError) -> None:
        if self.write_error is None:
            self.write_error = exc
        self._closed()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


#: What an interrupted command (Ctrl-C) says on standard error before it exits with status 130: no report file is
#: left half-written (each is written whole, then renamed into place), but those not yet written are missing.
ABORTED = "gpulens: aborted (Ctrl-C): reports not yet written when it came are missing; none is left half-written\n"


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gpulens`` console script; returns (and exits with) the exit code.

    Exit codes: those of :mod:`gpulens.errors`; 70 for an internal error (any exception that is not a
    :class:`~gpulens.errors.GpulensError` or a usage error), printed as one line unless ``--debug``.
    """
    args, debug = _split_debug(list(sys.argv[1:] if argv is None else argv))
    debug = debug or os.environ.get("GPULENS_DEBUG", "") not in ("", "0")
    if args[:1] != ["profile"]:  # `profile` runs the user's script in this process: its numpy is left as it is
        # 4 KiB pages for large arrays: far less system time on VMs (analyzers._heap). Before numpy is imported,
        # numpy's own switch (read at its import) does it without importing numpy or pandas here: a cache hit
        # stays free of both.
        if "numpy" in sys.modules:
            from gpulens.analyzers._heap import use_small_pages

            use_small_pages()
        else:
            os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")
            # gpulens calls no BLAS routine (no matmul, no linalg), but numpy's OpenBLAS starts a worker thread
            # per core at import, and each spins before sleeping: 0.04–0.08 s of CPU per command on 2 cores
            # (`import numpy` 0.16–0.18 → 0.08–0.09 s CPU). Read once, when numpy loads OpenBLAS; a user's own
            # setting is kept.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    global _ENDS_PROCESS
    _ENDS_PROCESS = argv is None
    if _ENDS_PROCESS and args[:1] != ["profile"]:
        from gpulens._memory import keep_freed_memory

        keep_freed_memory()  # freed blocks reused instead of faulted in again: less system time (gpulens._memory)
    if argv is None:  # the console run's own streams: a non-UTF-8 console (LC_ALL=C, cp1252) spells µ as u
        from gpulens.cli._console import encodable_streams

        # `profile` runs the user's script in this process: its stdout is left alone
        encodable_streams(sys.stderr, *([sys.stdout] if args[:1] != ["profile"] else []))
    if argv is None and not isinstance(sys.stdout, _ClosedPipeSafe) and sys.stdout is not None:
        sys.stdout = _ClosedPipeSafe(sys.stdout)  # the console run's own stdout (tests' captured streams untouched)
    if (argv is None and args[:1] != ["profile"] and not isinstance(sys.stderr, _ClosedPipeSafe)
            and sys.stderr is not None):
        # the error line of `gpulens analyze bad.json 2>&1 | head -1` goes into a closed pipe too: dropped, and the
        # command still exits with the code of what happened (2 bad input), not 1 (`profile`: the user's script's
        # own stderr is left as it is)
        sys.stderr = _ClosedPipeSafe(sys.stderr)
    try:
        rv = app(args=args, standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
        if code == 130 and args[:1] != ["profile"]:  # typer returns Ctrl-C as a silent 130 (`profile` says it: the
            sys.stderr.write(ABORTED)  # workload was interrupted, its profile is analysed)
    except GpulensError as exc:
        if debug:
            traceback.print_exc()
        sys.stderr.write(f"gpulens: error: {one_line(exc)}\n")
        code = exc.exit_code
    except typer.Exit as exc:  # raised by commands for their exit code
        code = exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        sys.stderr.write(ABORTED)
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
        elif path_refused(exc):
            if debug:
                traceback.print_exc()
            sys.stderr.write(f"gpulens: error: {one_line(exc.filename)}: {one_line(exc.strerror)}\n")
            code = EXIT_USAGE
        else:
            if debug:
                traceback.print_exc()
            sys.stderr.write(internal_error_line(exc))
            code = EXIT_INTERNAL
    code = _console_write_refused(code)
    if argv is None:
        # the process ends here: the collections the interpreter runs while it tears its modules down would walk
        # every object still alive (pandas, scipy, the analysis) several times — 0.2–0.4 s at the end of a large
        # run (issue 16); frozen objects are skipped by them (refcounted objects are still freed, atexit still runs)
        import gc

        gc.freeze()
        end_process(code)
    return code


def _console_write_refused(code: int) -> int:
    """``code``, or :data:`EXIT_USAGE` after a one-line error on standard error when the console's standard output
    refused a write other than a closed pipe (:class:`_ClosedPipeSafe`: a full disk, an I/O error) in a command that
    would otherwise have succeeded: its summary is cut, and exit 0 would hide that."""
    out = sys.stdout
    if not isinstance(out, _ClosedPipeSafe):
        return code
    out.flush()
    exc = out.write_error
    if exc is None:
        return code
    sys.stderr.write(f"gpulens: error: standard output: {one_line(exc.strerror or exc)} — the console summary was cut "
                     "(any --json/--html/--markdown file asked for was still written)\n")
    return EXIT_USAGE if code == 0 else code


def end_process(code: int) -> None:
    """End the console command's process with exit status ``code``, skipping the interpreter's teardown when that
    is safe: the ``atexit`` handlers run (logging's flush, temporary folders, coverage), the standard streams are
    flushed, then ``os._exit`` — every module's dictionary and every array still alive is not freed one object at a
    time just before the OS reclaims the whole process (≈ 25 ms of CPU at the end of a 100k-kernel ``gpulens
    analyze``; measured, session 44: 58–70 ms from the end of ``main`` to the end of the process, 31–48 ms with it).
    ``sys.exit(code)`` — the ordinary teardown — instead while a thread that the interpreter would wait for is alive
    (a non-daemon thread), under a profiler or tracer (``python -m cProfile`` prints its statistics after the
    command returns, a debugger may stop at exit), or for an exit status that is not an int."""
    import threading

    plain = (isinstance(code, int) and not isinstance(code, bool) and sys.getprofile() is None
             and sys.gettrace() is None
             and all(t.daemon or t is threading.main_thread() for t in threading.enumerate()))
    if not plain:
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()  # handlers print their own errors and are cleared: never run twice
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):  # the wrapped streams too
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: the ordinary exit could not write it either
            pass
    os._exit(code)
