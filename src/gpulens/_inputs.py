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
    kind = special_kind(path)
    if kind:
        raise TraceFormatError(path, f"is {kind}; gpulens reads regular files and directories only")


def special_kind(path: Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a directory ("a named pipe (FIFO)", "a socket", "a
    device", "not a regular file"); None for those two or a path that cannot be stat'ed (missing)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")


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


#: NUL bytes of a file's tail kept by :func:`read_nul_capped`: enough for every reader to see (and say) that the file
#: ends in NUL padding, never the padding's full size (a CSV field of 64 MiB of NULs failed the whole file).
NUL_TAIL_KEPT = 4096


def read_nul_capped(path: Path) -> bytes:
    """The bytes of ``path``, with a tail of NUL bytes longer than :data:`NUL_TAIL_KEPT` cut to that many (a
    preallocated file whose writer died: ``rocprofv3`` or a copy killed after reserving the space). Where the file
    system reports holes, a tail that is one hole is not read at all (``lseek(SEEK_HOLE)``); a file over 1 MiB has its
    NUL run found from the end (:func:`nul_tail_start`) and not read; a smaller one is read and the run cut. A file of
    NUL bytes only keeps them all (its readers call it "holds only NUL bytes").

    Raises:
        OSError: as :meth:`pathlib.Path.read_bytes`.
    """
    with Path(path).open("rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > 1 << 20:  # where the data end, without reading the NUL run (:func:`nul_tail_start`, as the stream)
            data = nul_tail_start(fh.fileno(), size)
            if 0 < data and size - data > NUL_TAIL_KEPT:
                return fh.read(data) + bytes(NUL_TAIL_KEPT)
            if data == 0 and _data_end(fh.fileno(), size) == 0:  # one hole: its zeros, never read from the disk
                return bytes(size)
        blob = fh.read()  # all of it: /proc files say 0 bytes, a file may grow
    kept = len(blob.rstrip(b"\x00"))
    return blob[:kept] + bytes(NUL_TAIL_KEPT) if kept and len(blob) - kept > NUL_TAIL_KEPT else blob


def nul_tail_start(fd: int, size: int, step: int = 1 << 20) -> int:
    """Offset just after the last non-NUL byte of the open regular file ``fd`` of ``size`` bytes (``size`` when it
    does not end in NUL, 0 when it holds only NUL bytes): a tail that is one hole is skipped unread
    (:func:`_data_end`), the rest read backwards ``step`` bytes at a time with ``os.pread``. Call it before reading
    ``fd``: it leaves the file position at 0."""
    end = _data_end(fd, size)
    n = 4096  # a file that does not end in NUL (nearly all) costs one 4 KiB read, never a step's worth of memory
    while end > 0:
        chunk = os.pread(fd, min(n, end), end - min(n, end))
        if not chunk:
            return end
        kept = len(chunk.rstrip(b"\x00"))
        if kept:
            return end - len(chunk) + kept
        end -= len(chunk)
        n = min(2 * n, step)  # growing reads backwards through a long NUL run
    return 0


def _data_end(fd: int, size: int) -> int:
    """Where the data of the open file ``fd`` (``size`` bytes) end when the rest is one hole, else ``size`` (also
    where the platform or file system cannot tell holes). Walks the file's extents with ``SEEK_HOLE``/``SEEK_DATA``."""
    if not hasattr(os, "SEEK_HOLE"):
        return size
    pos = 0
    try:
        while True:
            hole = os.lseek(fd, pos, os.SEEK_HOLE)  # the first hole at or after pos (the file's end when none)
            if hole >= size:
                return size
            try:
                pos = os.lseek(fd, hole, os.SEEK_DATA)
            except OSError:  # ENXIO: no data after this hole — the tail is one hole
                return hole
    except OSError:
        return size
    finally:
        os.lseek(fd, 0, os.SEEK_SET)
