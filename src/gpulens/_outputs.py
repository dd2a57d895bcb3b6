"""Where gpulens may write: the one rule that keeps every report and export off the user's inputs.

Light on purpose (no numpy/pandas): the CLI checks an output path on a cache hit too, where nothing heavy is imported.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path


def overwrites_input(path: str | Path, inputs: list[Path]) -> bool:
    """True when writing ``path`` would replace an input: it is one of ``inputs``, or an existing file inside an
    input folder (a rank file of a rank directory), however either is spelled (links, ``..``)."""
    try:
        rp = Path(path).resolve()
        for p in inputs:
            q = Path(p).resolve()
            if rp == q or (q.is_dir() and rp.is_relative_to(q) and rp.exists()):
                return True
    except (OSError, RuntimeError, ValueError):  # a link loop: the write fails later with its own message
        return False
    return False


def real_path(path: str | Path) -> Path:
    """``path`` with its links and ``..`` resolved, as :meth:`Path.resolve` does, but never raising: a symbolic link
    loop (``a.json -> a.json``; ``Path.resolve`` raises ``RuntimeError`` on Python < 3.13) resolves as far as it can
    (the link itself), so a comparison of paths stays a comparison and the read or write names the loop."""
    return Path(os.path.realpath(path))


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder renamed over it: an interrupted run
    (Ctrl-C, a full disk, a killed job) leaves the earlier file or none, never a half-written one. A new file gets
    the usual permissions (0666 less the umask), a replaced one keeps its own; a symbolic link is written through
    (its target is replaced), as a plain write would. A path that is no regular file — a character device
    (``/dev/stdout``, ``/dev/null``), a FIFO, a socket — is written in place, never renamed over: a rename would put a
    regular file where the device or pipe was (as root, ``--json /dev/null`` replaced the system's ``/dev/null``).

    Raises:
        OSError: the folder cannot be written (the temporary file is removed), or the device or pipe refuses the
            data (``/dev/full``: no space left).
    """
    p = Path(path)
    try:
        st = p.stat()  # through links: /dev/stdout is a link to /proc/self/fd/1, a pipe or a terminal
    except OSError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
        with open(p, "wb") as fh:  # a device or a pipe: nothing half-written to protect, nothing to replace
            fh.write(data)
        return
    if p.is_symlink():
        p = real_path(p)
        if p.is_symlink():  # a link loop: no file to write through to
            raise OSError(errno.ELOOP, "a symbolic link loop", str(path))
    mode = st.st_mode & 0o7777 if st is not None else None
    for n in range(100):
        tmp = p.with_name(f".{p.name}.{os.getpid()}.{n}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            break
        except FileExistsError:
            continue
    else:
        raise FileExistsError(f"{p}: no free temporary name beside it")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


#: What each report writer produces, by the reporter module's name (``--json`` → ``json_report``...); a file of the
#: same kind may be replaced by a new one.
_OWN = (
    ("baseline", re.compile(rb'^\{[^\0]*?"gpulens_baseline"\s*:')),
    ("gate_json", re.compile(rb'^\{\s*"gpulens_gate"\s*:')),
    ("diff_json", re.compile(rb'^\{\s*"diff_schema_version"\s*:')),
    ("json_report", re.compile(rb'^\{\s*"schema_version"\s*:[^\0]*?"tool"\s*:\s*\{\s*"name"\s*:\s*"gpulens"')),
    ("perfetto", re.compile(rb'^\{[^\0]*?"traceName"\s*:\s*"gpulens export"')),
    # the readable reports: the HTML page's <title>, the Markdown title of `analyze`, `diff` and `gate`
    ("html", re.compile(rb'^<!DOCTYPE html>[^\0]{0,1024}?<title>gpulens (?:report|diff|gate)\b')),
    ("markdown", re.compile(rb'^#{1,2} (?:\S+ )?gpulens (?:report|diff|gate)\b')),
)
#: gpulens's outputs by kind (:func:`own_output_kind`; the JSON report and ``--perfetto`` trace aside), as a folder's
#: note of files that are not traces names them
OWN_NAMES = {"markdown": "a gpulens Markdown report", "html": "a gpulens HTML report",
             "baseline": "a gpulens baseline", "history": "a gpulens baseline history",
             "gate_json": "a gpulens gate result (JSON)", "diff_json": "a gpulens diff result (JSON)"}
#: Kinds no other output may replace (they are data: the gate's and diff's inputs), with how a message names them.
_PROTECTED = {"baseline": "a gpulens baseline", "history": "a gpulens baseline history",
              "json_report": "a gpulens JSON report (an input of `gpulens gate`, `baseline save` and `diff`)",
              "perfetto": "a trace exported by gpulens --perfetto"}


def own_output_kind(head: bytes) -> str | None:
    """Which gpulens output ``head`` (a file's first bytes) starts: a kind of :data:`_OWN` (``json_report``,
    ``html``, ``markdown``, ``baseline``…) or ``history`` (a baseline history), else None. Never raises."""
    body = head.lstrip()
    for kind, pattern in _OWN:
        if pattern.search(body):
            return kind
    first = body.split(b"\n", 1)[0]
    if first.startswith(b"{") and b'"event": "save"' in first and b'"machine_key"' in first:
        return "history"
    return None


def replaces_data(path: str | Path, writing: str) -> str | None:
    """Why writing the ``writing`` output (a reporter module's name: ``json_report``, ``html``, ``gate_json``…) to
    ``path`` must not replace the file there, or None when it may.

    Refused: a profiler trace of any format gpulens reads (its collectors' ``sniff``, gzip included), a gpulens
    baseline or baseline history, a gpulens JSON report or ``--perfetto`` trace — unless the file is an earlier output
    of the same kind (re-running ``analyze --json r.json`` replaces ``r.json``). Any other file (an older HTML or
    Markdown report, a gate or diff result, an unrelated text) may be replaced. A path that does not exist or is no
    regular file: None (the write then fails, or succeeds, with its own message). Never raises.
    """
    p = Path(path)
    try:
        if not p.is_file():
            return None
        with p.open("rb") as fh:
            head = fh.read(1 << 16)
    except OSError:
        return None
    kind = own_output_kind(head)
    if kind is not None:
        return None if kind == writing or kind not in _PROTECTED else _PROTECTED[kind]
    if not head.strip():
        return None
    try:  # heavy (pandas): only for an existing file that is no gpulens output
        from gpulens.collectors import sniff

        found = sniff(p)
    except Exception:  # a sniffer's failure on an odd file: not known to be a trace
        return None
    from gpulens.collectors._format_words import format_words

    return f"a profiler trace (read as {format_words(found.name)})" if found is not None else None


#: The files gpulens writes for a profiled run beside its trace: ``<stem>.report.json`` and ``<stem>.report.html``.
REPORT_SUFFIXES = (".report.json", ".report.html")


def free_stem(out: Path, stem: str, suffixes: tuple[str, ...]) -> str:
    """First of ``stem``, ``stem-2``, ``stem-3``… for which no ``<stem><suffix>`` exists yet in ``out`` (file or
    folder): a new profile never replaces (or is confused with) the trace and reports of an earlier one."""
    n = 1
    while True:
        s = stem if n == 1 else f"{stem}-{n}"
        if not any(os.path.lexists(out / f"{s}{suf}") for suf in suffixes):
            return s
        n += 1
