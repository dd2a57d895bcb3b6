"""The first check of every input path a command reads, before anything heavy is imported or opened.

``gpulens analyze /missing.json`` imported pandas, numpy and every analyzer (≈ 0.5 s of CPU) before the collector
said that the file does not exist; ``gpulens diff`` and ``gpulens gate`` did the same. :func:`check_input` holds the
checks that need no reader: the path exists, can be looked at, and is a regular file or a directory (a FIFO or a
device would block or never end). It imports only the standard library and :mod:`gpulens.errors`, so the command
line runs it first (:mod:`gpulens.cli.analyze`, ``diff``, ``gate``), and :func:`gpulens.collectors.collect` and
:func:`gpulens.diff.sides.load_side` run the same function for library callers: one wording wherever a path is
refused.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gpulens.errors import TraceFormatError


def open_error(path: Path, exc: OSError) -> TraceFormatError:
    """The one-line error for a file that cannot be opened or read (missing, a directory, no permission...)."""
    if isinstance(exc, FileNotFoundError):
        return TraceFormatError(path, "no such file")
    if isinstance(exc, IsADirectoryError):
        return TraceFormatError(path, "is a directory, expected a file")
    return TraceFormatError(path, f"cannot read file ({exc.strerror or exc})")


def check_special(path: Path) -> None:
    """Refuse FIFOs, sockets and devices (``/dev/zero``, a named pipe...) before anything opens them: reading them
    can block forever or never end. Directories and regular files pass; a missing path passes (the reader says so).

    Raises:
        TraceFormatError: ``path`` is not a regular file or directory.
    """
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return
    kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    raise TraceFormatError(path, f"is {kind}; gpulens reads regular files and directories only")


def check_input(path: str | Path) -> Path:
    """``path`` as a :class:`~pathlib.Path` once it is known to exist as a regular file or a directory.

    Raises:
        TraceFormatError: ``<path>: no such file or directory``; the OS refused to look at it (a name too long, no
            permission: :func:`open_error`); or it is a FIFO, socket or device (:func:`check_special`); or a sparse
            file that is all hole (:func:`hole_only`: it holds only NUL bytes).
    """
    p = Path(path)
    try:
        missing = not p.exists()
    except OSError as exc:  # Path.exists raises past "not found": a name too long (ENAMETOOLONG), EACCES...
        raise open_error(p, exc) from None
    if missing:
        raise TraceFormatError(p, "no such file or directory")
    check_special(p)
    holes = hole_only(p)
    if holes:
        from gpulens.collectors._io import nul_only

        raise TraceFormatError(p, nul_only(holes))
    return p


def hole_only(path: Path) -> int | None:
    """The size of ``path`` when it is a regular file of at least 1 MiB whose every byte is a hole (a sparse file:
    ``truncate -s 4G``, space reserved and never written; it reads as NUL bytes), found by one ``lseek(SEEK_DATA)``
    instead of reading gigabytes of zeros into memory (50 s and the file's size in memory for 4 GiB). None for any
    other file, or where the platform or file system cannot tell holes (the readers then read it as before)."""
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode) or st.st_size < 1 << 20 or not hasattr(os, "SEEK_DATA"):
            return None
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        os.lseek(fd, 0, os.SEEK_DATA)
    except OSError as exc:  # ENXIO: no data at or after offset 0 — the file is one hole
        import errno

        return st.st_size if exc.errno == errno.ENXIO else None
    finally:
        os.close(fd)
    return None
