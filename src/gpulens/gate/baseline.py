"""Baselines: a set of runs stored as plain, diff-able JSON with raw samples; never overwritten without ``force``.

Layout of a store (default ``.gpulens/baselines``; commit it, or keep it in an artifact or a ``perf-data`` branch)::

    <store>/<machine_key>/<name>.json      one baseline per machine type and name
    <store>/history.jsonl                  append-only: one line per save (never rewritten)

A baseline file (``gpulens_baseline: 1``) holds ``name``, ``created`` (UTC ISO 8601), ``tool`` (gpulens version),
``report_schema_version``, ``machine_key``, ``environment`` (GPU models, count, arch, ranks, driver, runtime,
torch, collectors), ``git`` (sha, branch when known), ``runs`` (one entry per usable run), ``excluded`` (runs left
out and why) and ``metrics``: ``{metric: {kind, unit, direction, samples: [one value per run], share?, calls?}}``
(see :mod:`gpulens.gate.runs`). Keys are sorted and integers stay integers, so two baselines diff line by line.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from gpulens import __version__
from gpulens._outputs import real_path
from gpulens.errors import BaselineError, GpulensError, NoUsableRunError
from gpulens.gate.runs import Metric, RunSet, collect_runs, is_trace
from gpulens.reports.report_check import nonfinite_at
from gpulens.units import agree, plural

BASELINE_FORMAT = 1
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass
class Baseline:
    """A stored set of runs (see module docstring for the file layout).

    Attributes:
        name: the baseline's name.
        path: file it was read from / written to (None before saving).
        metrics: metric name → :class:`~gpulens.gate.runs.Metric` with the raw samples.
        unknown: metric name → why some run's figure of it is not a measurement
            (:func:`gpulens.gate.runs.unknown_figures`: that run gave it no sample); written only when not empty.
        notes: what the runs' set holds that its figures do not say (runs of another workload than the first:
            :func:`gpulens.gate.workload.mixed_workloads`); written only when not empty, said by every gate.
    """

    name: str
    created: str
    tool_version: str
    report_schema_version: int | None
    machine_key: str
    environment: dict[str, Any]
    runs: list[dict[str, Any]]
    metrics: dict[str, Metric]
    excluded: list[dict[str, Any]] = field(default_factory=list)
    git: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    unknown: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: how ``--baseline`` was resolved when it could mean two things (a stored name that is also a file or folder
    #: here); said as a note by the gate, never written to the file
    resolved: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON document written to disk."""
        return {"gpulens_baseline": BASELINE_FORMAT, "name": self.name, "created": self.created,
                "tool": {"name": "gpulens", "version": self.tool_version},
                "report_schema_version": self.report_schema_version, "machine_key": self.machine_key,
                "environment": self.environment, "git": self.git, "runs": self.runs, "excluded": self.excluded,
                "metrics": {k: m.to_dict() for k, m in self.metrics.items()},
                **({"unknown": dict(self.unknown)} if self.unknown else {}),
                **({"notes": list(self.notes)} if self.notes else {})}

    @classmethod
    def from_dict(cls, d: dict[str, Any], path: Path | None = None) -> "Baseline":
        """Inverse of :meth:`to_dict`.

        Raises:
            BaselineError: not a baseline, a newer format, or a missing/ill-typed key.
        """
        where = str(path) if path else "baseline"
        if not isinstance(d, dict) or "gpulens_baseline" not in d:
            raise BaselineError(f"{where}: not a gpulens baseline (no 'gpulens_baseline' key)")
        if d["gpulens_baseline"] != BASELINE_FORMAT:
            raise BaselineError(f"{where}: baseline format {d['gpulens_baseline']!r} is not supported "
                                f"(this gpulens reads format {BASELINE_FORMAT})")
        try:
            _check_fields(d)
            metrics = {k: Metric.from_dict(k, m) for k, m in d["metrics"].items()}
            over = [(k, len(m.samples)) for k, m in metrics.items() if len(m.samples) > len(d["runs"])]
            if over:  # one sample per usable run at most (a run lacking a figure gives none)
                raise ValueError(f"metric {over[0][0]!r} has {plural(over[0][1], 'sample')} for "
                                 f"{plural(len(d['runs']), 'run')} in field 'runs'")
            bad = nonfinite_at(d)  # NaN elsewhere (a run's environment): echoed into the gate's outputs
            if bad:
                raise ValueError(f"value {bad} is NaN or Infinity, not a JSON number")
            return cls(str(d["name"]), str(d["created"]), str(d["tool"]["version"]), d.get("report_schema_version"),
                       str(d["machine_key"]), dict(d["environment"]), list(d["runs"]), metrics,
                       list(d.get("excluded", [])), dict(d.get("git") or {}), path,
                       {str(k): str(v) for k, v in (d.get("unknown") or {}).items()},
                       [str(n) for n in (d.get("notes") or [])])
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise BaselineError(f"{where}: malformed baseline ({type(exc).__name__}: {exc})") from None


#: The top-level fields of a baseline file and the JSON type each must have (``excluded``, ``git``, ``notes`` and
#: ``unknown`` optional).
_FIELDS = {"name": str, "created": str, "machine_key": str, "tool": dict, "environment": dict, "runs": list,
           "metrics": dict, "excluded": list, "git": dict, "unknown": dict, "notes": list}


def _json_type(v: Any) -> str:
    """``v``'s JSON type with its article (``"a string"``, ``"null"``), for a message."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    return {str: "a string", dict: "an object", list: "an array", int: "a number", float: "a number"}.get(
        type(v), type(v).__name__)


def _check_fields(d: dict[str, Any]) -> None:
    """Raise ``ValueError`` naming the first field of a (hand-edited) baseline with the wrong JSON type: a string
    where the runs are (``list("abc")`` would be three runs), ``null`` for the machine key (read as ``"None"``)."""
    for key, kind in _FIELDS.items():
        if key not in d:
            if key in ("excluded", "git", "unknown", "notes"):
                continue
            raise ValueError(f"field '{key}' is missing")
        v = d[key]
        if key == "git" and v is None:
            continue
        if not isinstance(v, kind):
            raise ValueError(f"field '{key}' is {_json_type(v)}, not {_json_type(kind())}")
    if not d["metrics"]:
        raise ValueError("field 'metrics' is empty (every saved run records at least its span)")
    rsv = d.get("report_schema_version")
    if rsv is not None and (isinstance(rsv, bool) or not isinstance(rsv, int)):
        raise ValueError(f"field 'report_schema_version' is {_json_type(rsv)}, not a whole number")
    if not isinstance(d["tool"].get("version"), str):
        raise ValueError("field 'tool.version' is not a string")
    if any(not isinstance(r, dict) for r in d["runs"]):
        raise ValueError("field 'runs' holds an entry that is not an object")


def default_store(configured: str | Path | None = None) -> Path:
    """The baseline folder: ``$GPULENS_BASELINE_DIR`` when set, else ``configured`` (the config's
    ``baseline_dir``), else ``.gpulens/baselines`` in the current directory."""
    return Path(os.environ.get("GPULENS_BASELINE_DIR") or configured or ".gpulens/baselines")


def is_trace_path(ref: str) -> bool:
    """True when ``--baseline`` names an existing trace file or folder by a path (a path separator or a suffix:
    ``runs/base.sqlite``, ``./base``, ``b.json.gz``) rather than a saved baseline's name. A bare word that exists
    here (``dd``) may be either: :func:`find_baseline` reads the path unless the store holds a baseline of that
    name, and says which it used.
    """
    p = Path(ref)
    return p.exists() and (os.sep in ref or "/" in ref or bool(p.suffix))


def is_name(ref: str) -> bool:
    """True when ``ref`` can be a stored baseline's name (letters, digits, ``.``, ``_``, ``-``; what ``baseline save
    --name`` accepts): ``runs/base.json.gz`` or ``ma*`` cannot, so they are never looked up (nor globbed) in the
    store."""
    return bool(_NAME_RE.match(ref))


#: Endings that make a ``--baseline`` value a file path, not a store name, even when the file does not exist: a
#: baseline or report (``.json``, ``.json.gz``), a trace of a format gpulens reads, an archive.
FILE_SUFFIXES = (".json", ".gz", ".zst", ".xz", ".bz2", ".zip", ".sqlite", ".db", ".csv", ".txt", ".log", ".rpd",
                 ".ncu-rep", ".nsys-rep", ".pftrace", ".pb")


def names_a_file(ref: str) -> bool:
    """True when ``ref`` reads as a file path whether or not it exists: a path separator, or an ending of
    :data:`FILE_SUFFIXES` (``missing.json.gz`` is a file that is not there, never the store name ``missing.json.gz``)."""
    return os.sep in ref or "/" in ref or ref.lower().endswith(FILE_SUFFIXES)


def is_path_ref(ref: str) -> bool:
    """True when a ``--baseline``/``--name`` value is a file path rather than a name: it ends in ``.json``."""
    return ref.endswith(".json")


def git_info(cwd: str | Path = ".") -> dict[str, Any]:
    """Commit and branch: from CI variables (GitHub, GitLab) or ``git`` in ``cwd``; empty values when unknown."""
    sha = os.environ.get("GITHUB_SHA") or os.environ.get("CI_COMMIT_SHA")
    branch = os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME") or \
        os.environ.get("CI_COMMIT_REF_NAME")
    if not sha:
        sha = _git(cwd, "rev-parse", "HEAD")
        branch = branch or _git(cwd, "rev-parse", "--abbrev-ref", "HEAD")
    return {k: v for k, v in (("sha", sha), ("branch", branch)) if v}


def _git(cwd: str | Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def baseline_from_runs(name: str, runs: RunSet, git: dict[str, Any] | None = None,
                       created: str | None = None) -> Baseline:
    """Make a Baseline (not yet saved) from collected runs; ``created`` (UTC ISO 8601) is when it was recorded:
    now (a save) unless given (a report or trace used as the baseline: when that was recorded).

    Raises:
        NoUsableRunError: no usable run (every input empty or truncated; exit 4).
    """
    if not runs.runs:
        why = "; ".join(f"{e['label']}: {e['reason']}" for e in runs.excluded) or "no runs given"
        raise NoUsableRunError(f"refusing to save baseline '{name}': no usable run ({why})")
    created = created or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    return Baseline(name, created, __version__, runs.report_schema_version, runs.machine_key, runs.environment,
                    runs.runs, runs.metrics, runs.excluded, git or {}, None, dict(runs.unknown), list(runs.notes))


def copied_runs(metrics: dict[str, Metric], runs: int) -> int:
    """How many of ``runs`` runs repeat an earlier run's figures exactly: every timing metric's sample equal to that
    run's (the same trace saved twice, or one report passed under several names). Copies make the baseline's spread
    look smaller than the machine's noise; 0 when no timing metric has a sample per run."""
    timings = [m.samples for m in metrics.values() if m.kind == "timing" and len(m.samples) == runs]
    if not timings:
        return 0
    rows = [tuple(float(col[i]) for col in timings) for i in range(runs)]
    return runs - len(set(rows))


def copied_runs_text(metrics: dict[str, Metric], runs: int, side: str = "baseline") -> str:
    """The warning for a side whose runs repeat each other's timings exactly (:func:`copied_runs`), ``""`` when
    none do: one text for ``baseline save`` and for every gate output (console, JSON, Markdown, HTML), whose noise
    figure (``baseline noise ±0.0 %``) would otherwise read as a measured, quiet machine. ``side``: ``"baseline"``
    or ``"candidate"``."""
    copies = copied_runs(metrics, runs)
    if not copies:
        return ""
    return (f"{plural(copies, 'run')} of the {runs} {agree(copies, 'repeats', 'repeat')} another run's timings exactly "
            f"(the same trace saved twice?): the {side}'s measured noise is too small, so the gate reads ordinary "
            "run-to-run noise as a change; record distinct runs")


def target_path(name: str, machine_key: str, store: Path | None = None) -> Path:
    """Where ``save`` writes ``name``: the path itself when ``name`` is a path, else ``<store>/<key>/<name>.json``.

    Raises:
        BaselineError: ``name`` is neither a path nor a valid name (letters, digits, ``. _ -``).
    """
    if is_path_ref(name):
        return Path(name)
    if not _NAME_RE.match(name):
        raise BaselineError(f"invalid baseline name {name!r}: use letters, digits, '.', '_' and '-' "
                            "(or give a path ending in .json)")
    return (store or default_store()) / machine_key / f"{name}.json"


def save_baseline(reports: Iterable[str | Path], name: str, store: Path | None = None, force: bool = False,
                  git: dict[str, Any] | None = None, strict: bool = True) -> Baseline:
    """Store the runs in ``reports`` as baseline ``name`` and append a line to the store's history.

    Args:
        reports: ``gpulens analyze --json`` reports (or traces); every usable source is one run.
        name: a name (stored under the machine key) or a ``.json`` path.
        store: the store folder (default :func:`default_store`).
        force: replace an existing baseline (the history keeps the old entry).
        git: commit info to record (default :func:`git_info`).
        strict: False (``--lenient``) keeps what can be read from a malformed trace among ``reports``.

    Raises:
        BaselineError: the baseline exists and ``force`` is False; the target is an input.
        NoUsableRunError: no usable run (exit 4).
        TraceFormatError: a report cannot be read.
    """
    reports = [Path(p) for p in reports]
    if not reports:
        raise BaselineError("no report given: pass the JSON reports of the baseline runs")
    runs = collect_runs(reports, strict=strict)
    base = baseline_from_runs(name if not is_path_ref(name) else Path(name).stem, runs,
                              git if git is not None else git_info())
    path = target_path(name, runs.machine_key, store)
    if any(real_path(path) == real_path(r) for r in reports):
        raise BaselineError(f"{path}: refusing to overwrite an input report with a baseline")
    replaced = path.exists() or path.is_symlink()
    if replaced:
        try:
            prev = json.loads(path.read_text(encoding="utf-8")) if path.is_file() and not path.is_symlink() else None
        except (OSError, ValueError, RecursionError):
            prev = None
        if not isinstance(prev, dict) or "gpulens_baseline" not in prev:
            raise BaselineError(f"{path}: exists and is not a gpulens baseline (a symlink, a folder or another "
                                "file); refusing to overwrite it, even with --force")
        if not force:
            raise BaselineError(f"{path}: baseline '{base.name}' already exists (saved "
                                f"{prev.get('created', 'unknown date')}); pass --force to replace it")
    for folder in [store or default_store(), path.parent]:
        check_store(folder)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BaselineError(f"{path.parent}: cannot create the baseline folder ({exc.strerror or exc})") from None
    text = json.dumps(base.to_dict(), indent=1, sort_keys=True, allow_nan=False) + "\n"
    if replaced:
        _write_atomic(path, text)
    elif not _write_new(path, text):  # another save of this name won the race since the check above
        raise BaselineError(f"{path}: baseline '{base.name}' was saved by another process while this one ran; "
                            "pass --force to replace it")
    base.path = path
    hist_dir = path.parent if is_path_ref(name) else (store or default_store())
    append_history(hist_dir / "history.jsonl", base, replaced)
    return base


def _write_atomic(path: Path, text: str) -> None:
    from gpulens._outputs import write_atomic

    write_atomic(path, text.encode("utf-8"))


def _write_new(path: Path, text: str) -> bool:
    """Write a whole new file at ``path`` unless one appeared there meanwhile (two ``baseline save`` of one name at
    once: the second never replaces the first). The text is written beside it first and hard-linked into place (the
    link fails when the name exists, and a reader never sees half a file); where the file system has no hard links,
    the file is created exclusively (``O_EXCL``) and written. False when ``path`` exists."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
    _write_atomic(tmp, text)
    try:
        os.link(tmp, path)
        return True
    except FileExistsError:
        return False
    except OSError:  # no hard links here
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        return True
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def append_history(path: Path, base: Baseline, replaced: bool = False) -> None:
    """Append one JSON line describing a save: when, name, file, machine, commit, runs, medians of run metrics."""
    medians = {k: float(np.median(m.samples)) for k, m in base.metrics.items() if not k.startswith("kernel:")}
    line = {"event": "save", "created": base.created, "name": base.name, "path": str(base.path),
            "machine_key": base.machine_key, "git": base.git, "runs": len(base.runs), "replaced": replaced,
            "medians": medians}
    path.parent.mkdir(parents=True, exist_ok=True)
    try:  # never through a symlink: the history is appended to where it is, not to where a link points
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot append to the baseline history ({exc.strerror or exc}; a symlink is "
                            "never followed)") from None
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(json.dumps(line, sort_keys=True) + "\n")


def load_baseline(path: str | Path, strict: bool = True) -> Baseline:
    """Read a baseline file — or a report of ``gpulens analyze --json``, whose usable sources become the baseline's
    runs (named after the file, no commit recorded), or a trace ``.json`` (analysed, like a candidate trace).

    Raises:
        BaselineError: missing, not JSON, or neither a valid baseline nor a report with a usable run.
    """
    from gpulens.collectors._io import json_document
    from gpulens.errors import TraceFormatError
    from gpulens.reports.report_check import is_report

    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise BaselineError(f"{p}: no such baseline")
    try:  # gunzipped, from UTF-16 or UTF-8 with a BOM: a baseline (or report) saved so is still one
        doc = json_document(p)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, TraceFormatError) as exc:
        if not is_trace(p):
            why = exc.reason if isinstance(exc, TraceFormatError) else exc
            raise BaselineError(f"{p}: not a readable baseline ({why})") from None
        # a trace that is no strict JSON (gzip bytes under a .json name, an array without its closing ']', a cut
        # or almost-JSON file): its collector reads it, as it reads the same file given as a candidate
        doc = None
    if doc is None or isinstance(doc, list) or (isinstance(doc, dict) and "traceEvents" in doc) or (
            isinstance(doc, dict) and "gpulens_baseline" not in doc and "sources" not in doc and is_trace(p)):
        # a trace .json: Chrome/Kineto, or another format a collector recognises (rocprofv3 *_results.json)
        return baseline_of_trace(p, p.name.removesuffix(".json"), strict)
    if isinstance(doc, dict) and "gpulens_baseline" not in doc and isinstance(doc.get("sources"), list) \
            and is_report(doc):
        return baseline_of_trace(p, p.name.removesuffix(".json"), strict, doc)
    return Baseline.from_dict(doc, p)


def baseline_of_trace(p: Path, name: str, strict: bool = True, report: dict[str, Any] | None = None) -> Baseline:
    """The baseline of a trace file or rank folder ``p`` given as ``--baseline``: analysed like a candidate trace
    (not saved), named ``name``; ``strict`` False (``--lenient``) keeps what can be read from a malformed one.
    ``report``: ``p``'s already parsed ``gpulens analyze --json`` report, when ``p`` is one.

    Raises:
        BaselineError: no usable run in it (no GPU work, or a partial input: truncated, rank files not read) — said
            as a baseline given for comparison ("refusing to save" would speak of a save the user did not ask for).
        TraceFormatError: the trace cannot be read.
    """
    try:
        base = baseline_from_runs(name, collect_runs([p], None if report is None else [report], strict),
                                  created=recorded_at(p, report))
    except BaselineError as exc:
        raise BaselineError(f"baseline {'report' if report is not None else 'trace'} {p}: no usable run to compare with"
                            + (f" ({str(exc).split('(', 1)[1]}" if "(" in str(exc) else "")) from None
    base.path = p
    return base


def recorded_at(p: Path, report: dict[str, Any] | None = None) -> str:
    """When the baseline in ``p`` was recorded (UTC ISO 8601, seconds): a report's own ``created``, else the trace
    file's modification time (a folder of rank files: its newest file) — never the time of the gate call, which
    changes on every call. ``"unknown"`` when neither can be read."""
    if report is not None and isinstance(report.get("created"), str) and report["created"].strip():
        return report["created"]
    try:
        files = [f for f in p.rglob("*") if f.is_file()] if p.is_dir() else [p]
        mtime = max(f.stat().st_mtime for f in files)
    except (OSError, ValueError):
        return "unknown"
    return _dt.datetime.fromtimestamp(mtime, _dt.timezone.utc).isoformat(timespec="seconds")


def check_store(folder: Path) -> None:
    """Raise :class:`BaselineError` when the baseline store ``folder`` exists and is not a folder (a file: ``--store``
    naming a report by mistake) — one rule for ``baseline save``, ``baseline list`` and ``gate``: a gate looking
    there found "no baseline" and passed (exit 0)."""
    if folder.exists() and not folder.is_dir():
        raise BaselineError(f"{folder}: the baseline store is a file, not a folder")


def find_baseline(ref: str, machine_key: str, store: Path | None = None, strict: bool = True) -> Baseline | None:
    """Resolve ``--baseline NAME_OR_PATH`` for a candidate on ``machine_key``.

    A path is read as is. A name is looked up under the candidate's machine key first; failing that, the newest
    baseline of that name for any other machine is returned (the gate then reports it INCOMPARABLE unless the
    environments turn out to match). A bare word that is also a file or folder in the current directory (``dd``) is
    that path when the store holds no baseline of the name; when it does, the stored one is used and
    :attr:`Baseline.resolved` says so (the gate's notes). None when nothing is found.

    Raises:
        BaselineError: the file found is malformed, or the store is a file (:func:`check_store`).
    """
    if is_path_ref(ref):
        return load_baseline(ref, strict) if Path(ref).exists() else None
    if is_trace_path(ref):  # a trace (or rank folder) as baseline: analysed like a candidate trace, not a name
        return _baseline_at(Path(ref), strict)
    if not is_name(ref):  # no store name can match it: an existing path (``.``, ``_runs``) is read, else none
        return _baseline_at(Path(ref), strict) if Path(ref).exists() else None
    store = store or default_store()
    if names_a_file(ref) and not (store / machine_key / f"{ref}.json").exists() \
            and not any(store.glob(f"*/{ref}.json")):  # a file that is not there, not a name (run_gate says so)
        return None
    check_store(store)
    own = store / machine_key / f"{ref}.json"
    others = [own] if own.exists() else sorted(store.glob(f"*/{ref}.json"))
    found = max((load_baseline(p) for p in others), key=lambda b: b.created) if others else None
    here = Path(ref)
    if not here.exists():
        return found
    from gpulens._inputs import special_kind

    special = special_kind(here)
    if found is None and special:  # a FIFO, socket or device: never opened (a FIFO blocks), never called a file
        raise BaselineError(f"--baseline {ref}: no baseline of that name in the store {store}, and {ref} here is "
                            f"{special}, not a baseline, report or trace (those are regular files or folders)")
    kind = "folder" if here.is_dir() else "file" if not special else special.removeprefix("a ")
    if found is None:  # a bare word naming a file or folder here and no stored baseline: the user means the path
        try:
            return _baseline_at(here, strict)
        except GpulensError as exc:  # say both readings, never a bare "not a trace" for what may be a store name
            raise BaselineError(f"--baseline {ref}: no baseline of that name in the store {store}, and the {kind} "
                                f"{ref} here holds none: {exc}") from None
    found.resolved = (f"--baseline {ref}: the stored baseline '{ref}' ({found.path}) was used, not the {kind} "
                      f"{ref} in the current directory (give ./{ref} to compare with that {kind})")
    return found


def _baseline_at(p: Path, strict: bool) -> Baseline:
    """The baseline in the existing file or folder ``p``: a baseline or report (also gzipped, ``main.json.gz``), else
    a trace or rank folder, analysed like a candidate trace (not saved)."""
    if p.is_file() and not is_trace(p):  # no collector's: a baseline or report saved gzipped (``main.json.gz``)
        return load_baseline(p, strict)
    return baseline_of_trace(p, p.name, strict)
