"""The runners behind ``gpulens profile``: a Python script in this process, or a vendor profiler as a subprocess.

* :func:`run_script` executes a script as ``__main__`` (``runpy``) inside :class:`~gpulens.profiler.profile`, with
  ``sys.argv`` and ``sys.path[0]`` set as ``python script.py args`` would. Exit status: the script's own
  ``sys.exit(n)`` is kept (``None`` → 0, a message → 1 as Python does); an uncaught exception prints its traceback
  (the script's frames, as ``python script.py`` shows it: not gpulens's or ``runpy``'s) and gives
  :data:`~gpulens.errors.EXIT_WORKLOAD_FAILED` (4); Ctrl-C gives 130. ``os._exit(n)`` called by the script itself
  (not by a process it forked) ends the script with status ``n`` like ``sys.exit(n)``, so the profile recorded so far
  is written and analysed — it used to end gpulens too, with no trace, no report and no word; unlike the real
  ``os._exit``, the script's ``finally`` blocks run.
* :func:`vendor_plan` builds the commands for ``nsys``, ``ncu`` and ``rocprofv3`` (record, then convert to a file
  our collectors read); :func:`run_vendor` runs them and collects the result.
"""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import shutil
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from contextlib import contextmanager
from typing import Any, Iterator

from gpulens.errors import EXIT_WORKLOAD_FAILED, GpulensError
from gpulens.profiler.session import profile


def _exit_code(exc: SystemExit) -> int:
    """The process exit status Python would give for ``exc``."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


class _ScriptHardExit(SystemExit):
    """Raised in place of ``os._exit(code)`` by the script being profiled (:func:`run_script`): a ``SystemExit``, so
    the profile's end reads it as ``sys.exit(code)`` ("exited with status 5"; 0 is a normal end)."""


def _script_traceback(exc: BaseException, path: Path) -> str:
    """The traceback of the script's uncaught ``exc`` from the script's first frame on (gpulens's and ``runpy``'s
    frames left out, as ``python script.py`` shows it); the exception alone when no frame is the script's (a
    ``SyntaxError`` in it)."""
    tb, want = exc.__traceback__, str(path.resolve())
    while tb is not None and str(Path(tb.tb_frame.f_code.co_filename).resolve()) != want:
        tb = tb.tb_next
    if tb is None:
        return "".join(traceback.format_exception_only(type(exc), exc))
    return "".join(traceback.format_exception(type(exc), exc, tb))


@contextmanager
def std_streams_kept() -> Iterator[None]:
    """Give gpulens its standard output and error back after the workload: a script that closed file descriptors
    1/2 (``os.close(1)``), pointed them elsewhere (``os.dup2``), or closed or replaced ``sys.stdout`` /
    ``sys.stderr`` left gpulens unable to print its report (exit 1, no word). The descriptors are duplicated before
    and put back after (``os.dup2``), the Python streams put back (a closed one reopened on its descriptor)."""
    saved_fds: dict[int, int] = {}
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            saved_fds[fd] = os.dup(fd)
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}
    try:
        yield
    finally:
        for fd, copy in saved_fds.items():
            with contextlib.suppress(OSError):
                if not _same_file(fd, copy):
                    os.dup2(copy, fd)
            os.close(copy)
        for name, fd in (("stdout", 1), ("stderr", 2)):
            was = streams[name]
            if was is not None and getattr(was, "closed", False):
                with contextlib.suppress(OSError, ValueError):
                    was = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding=was.encoding,
                                           errors=was.errors, line_buffering=True)
            setattr(sys, name, was)


def _same_file(fd: int, copy: int) -> bool:
    """Whether descriptor ``fd`` is open on the file ``copy`` is open on."""
    try:
        a, b = os.fstat(fd), os.fstat(copy)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def run_script(script: str | Path, args: list[str], prof: profile) -> int:
    """Run ``script`` with ``args`` as ``__main__`` under ``prof``; return its exit status (see module doc).

    Raises:
        GpulensError: the script does not exist or is a folder (exit 2).
    """
    path = Path(script)
    if not path.is_file():
        what = "is a folder, not a Python script" if path.is_dir() else "no such script"
        raise GpulensError(f"{path}: {what}")
    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [str(path), *args]
    sys.path.insert(0, str(path.resolve().parent))
    code = 0
    real_exit, pid = os._exit, os.getpid()

    def hard_exit(n: int) -> None:  # the script's own os._exit: end it, keep the profile (a forked child: real)
        if os.getpid() != pid:
            real_exit(n)
        raise _ScriptHardExit(int(n))

    os._exit = hard_exit
    try:
        with prof, std_streams_kept():
            runpy.run_path(str(path), run_name="__main__")
    except _ScriptHardExit as exc:
        code = exc.code
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt:
        code = 130
    except GpulensError as exc:
        if prof.steps_done or getattr(prof, "_prof", None) is not None:
            sys.stderr.write(_script_traceback(exc, path))  # raised by the workload itself (it uses gpulens)
            code = EXIT_WORKLOAD_FAILED
        else:
            raise  # gpulens's own setup (output folder, label, torch missing): reported as gpulens's error
    except Exception as exc:
        sys.stderr.write(_script_traceback(exc, path))
        code = EXIT_WORKLOAD_FAILED
    finally:
        os._exit = real_exit
        sys.argv = saved_argv
        if sys.path and sys.path[0] == str(path.resolve().parent):
            sys.path.pop(0)
        if saved_path0 is not None and (not sys.path or sys.path[0] != saved_path0):
            sys.path.insert(0, saved_path0)
    return code


#: backend → (binary, what to install when it is missing).
VENDORS: dict[str, tuple[str, str]] = {
    "nsys": ("nsys", "install NVIDIA Nsight Systems (CUDA toolkit or the nsight-systems package) and put nsys on PATH"),
    "ncu": ("ncu", "install NVIDIA Nsight Compute (CUDA toolkit or the nsight-compute package) and put ncu on PATH"),
    "rocprofv3": ("rocprofv3", "install ROCm's rocprofiler-sdk (ROCm 6.2 or later) and put rocprofv3 on PATH"),
}


@dataclass
class Step:
    """One command of a vendor plan. ``stdout``: file that receives the command's standard output, if any."""

    argv: list[str]
    stdout: Path | None = None


@dataclass
class VendorPlan:
    """What to run for a vendor backend and what to analyze afterwards.

    Attributes:
        record: the command that runs the user's program under the vendor profiler.
        convert: commands that turn its output into a file our collectors read.
        recorded: the file ``record`` writes (checked before converting).
        analyze: the path to hand to :func:`gpulens.collectors.collect` (a file, or a folder of CSVs).
    """

    record: Step
    convert: list[Step] = field(default_factory=list)
    recorded: Path | None = None
    analyze: Path | None = None


def vendor_plan(backend: str, command: list[str], out: Path, stem: str, binary: str | None = None) -> VendorPlan:
    """Commands that profile ``command`` with ``backend`` into ``out`` (files named ``stem``.*).

    * nsys: ``nsys profile --trace=cuda,nvtx,osrt -o OUT/STEM CMD`` → ``STEM.nsys-rep``; then
      ``nsys export --type sqlite -o OUT/STEM.sqlite OUT/STEM.nsys-rep``.
    * ncu: ``ncu --target-processes all -o OUT/STEM CMD`` → ``STEM.ncu-rep``; then
      ``ncu --import OUT/STEM.ncu-rep --csv --page details`` written to ``STEM.ncu.csv``, the file analysed when
      ``ncu_report`` is not installed (:func:`run_vendor` reads the ``.ncu-rep`` itself when it is).
    * rocprofv3: ``rocprofv3 --kernel-trace --memory-copy-trace --output-format csv -d OUT/STEM.rocprofv3 -o STEM
      -- CMD``; the folder's ``*_kernel_trace.csv`` are analysed.

    Args:
        binary: the vendor binary's path (default: its name).

    Raises:
        GpulensError: unknown backend or empty command (exit 2).
    """
    if backend not in VENDORS:
        raise GpulensError(f"unknown backend {backend!r}; choose one of: torch, {', '.join(VENDORS)}")
    if not command:
        raise GpulensError(f"--backend {backend} needs a command to run after '--'")
    exe = binary or VENDORS[backend][0]
    base = out / stem
    if backend == "nsys":
        rep = Path(f"{base}.nsys-rep")
        db = Path(f"{base}.sqlite")
        return VendorPlan(Step([exe, "profile", "--trace=cuda,nvtx,osrt", "-o", str(base), *command]),
                          [Step([exe, "export", "--type", "sqlite", "-o", str(db), str(rep)])], rep, db)
    if backend == "ncu":
        rep = Path(f"{base}.ncu-rep")
        csv = Path(f"{base}.ncu.csv")
        return VendorPlan(Step([exe, "--target-processes", "all", "-o", str(base), *command]),
                          [Step([exe, "--import", str(rep), "--csv", "--page", "details"], stdout=csv)], rep, csv)
    folder = Path(f"{base}.rocprofv3")
    return VendorPlan(Step([exe, "--kernel-trace", "--memory-copy-trace", "--output-format", "csv",
                            "-d", str(folder), "-o", stem, "--", *command]), [], folder, folder)


#: What each vendor backend writes as ``<stem><suffix>`` in the output folder (see :func:`vendor_plan`).
VENDOR_SUFFIXES = {"nsys": (".nsys-rep", ".sqlite"), "ncu": (".ncu-rep", ".ncu.csv"), "rocprofv3": (".rocprofv3",)}


def vendor_stem(backend: str, out: Path, stem: str) -> str:
    """The stem a vendor run writes under: ``stem``, or ``stem-2``… when an earlier run's report, export or reports
    exist in ``out`` (:func:`gpulens._outputs.free_stem`). Reusing it, the vendor profiler would refuse to overwrite
    its report (nsys, ncu) and the earlier run would be analysed as this one, the details CSV or SQLite export of
    the earlier run would be replaced, or a rocprofv3 folder would mix two runs."""
    from gpulens._outputs import REPORT_SUFFIXES, free_stem

    return free_stem(out, stem, (*VENDOR_SUFFIXES.get(backend, ()), *REPORT_SUFFIXES))


def find_vendor(backend: str) -> str:
    """Path of the backend's binary on PATH.

    Raises:
        GpulensError: not on PATH; the message says what to install (exit 2).
    """
    if backend not in VENDORS:
        raise GpulensError(f"unknown backend {backend!r}; choose one of: torch, {', '.join(VENDORS)}")
    name, hint = VENDORS[backend]
    found = shutil.which(name)
    if not found:
        raise GpulensError(f"{name} not found on PATH: {hint}")
    return found


def _has_ncu_report() -> bool:
    """Whether NVIDIA's ``ncu_report`` module (the ``gpulens[ncu]`` extra) can be imported here."""
    import importlib.util

    try:
        return importlib.util.find_spec("ncu_report") is not None
    except (ImportError, ValueError):
        return False


def _kernel_trace_dir(folder: Path) -> Path | None:
    """The folder holding rocprofv3's ``*_kernel_trace.csv`` (it may nest host/pid folders)."""
    hits = sorted(folder.rglob("*kernel_trace.csv"))
    return hits[0].parent if hits else None


def run_vendor(backend: str, command: list[str], out: Path, stem: str) -> tuple[int, Any]:
    """Run ``command`` under the vendor profiler, convert and analyze its output.

    Returns:
        ``(exit status of the profiled command, Report or None)``. The Report is None when the profiler wrote
        nothing to analyze or our collectors could not read it (the reason is printed on stderr).

    Raises:
        GpulensError: binary missing (exit 2); the profiler wrote no output (exit 4).
    """
    from gpulens.report import analyze

    plan = vendor_plan(backend, command, out, stem, find_vendor(backend))
    out.mkdir(parents=True, exist_ok=True)
    rc = subprocess.call(plan.record.argv)
    if plan.recorded is not None and not plan.recorded.exists():
        err = GpulensError(f"{backend} wrote no {plan.recorded} (profiled command exited {rc})")
        err.exit_code = EXIT_WORKLOAD_FAILED
        raise err
    for step in plan.convert:
        with open(step.stdout, "wb") if step.stdout else open(os.devnull, "wb") as fh:
            crc = subprocess.call(step.argv, stdout=fh if step.stdout else None)
        if crc != 0:
            raise GpulensError(f"{' '.join(step.argv[:3])} … failed with exit {crc}")
    target = plan.analyze
    if backend == "ncu" and plan.recorded is not None and _has_ncu_report():
        # the report itself, through NVIDIA's ncu_report: it names the GPU (the details CSV does not: an H200 run
        # was analysed as "an assumed H100 SXM") and holds every counter the sections collected; the CSV stays
        # beside it for the user
        target = plan.recorded
    if backend == "rocprofv3":
        target = _kernel_trace_dir(plan.analyze)
        if target is None:
            sys.stderr.write(f"gpulens: rocprofv3 wrote no kernel trace under {plan.analyze}\n")
            return rc, None
    try:
        return rc, analyze([target])
    except GpulensError as exc:  # keep the workload's exit status; say why there is no report
        from gpulens.cli import one_line

        sys.stderr.write(f"gpulens: error: {one_line(exc)}\n")
        return rc, None


__all__ = ["VENDORS", "VENDOR_SUFFIXES", "VendorPlan", "find_vendor", "run_script", "run_vendor", "vendor_plan",
           "vendor_stem"]
