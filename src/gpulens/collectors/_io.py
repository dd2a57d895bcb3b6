"""Reading input files: gzip detection by magic bytes (all members), clear errors for empty/unreadable files."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

from gpulens.errors import TraceFormatError

GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class RawInput:
    """The bytes of an input file after decompression.

    Attributes:
        data: decompressed content.
        size_bytes: size on disk.
        compressed: whether the file was gzip (detected by magic bytes, not extension).
        truncated_gzip: the gzip stream ended early; ``data`` holds what could be decompressed.
    """

    data: bytes
    size_bytes: int
    compressed: bool
    truncated_gzip: bool = False


def gunzip_all(blob: bytes) -> tuple[bytes, bool]:
    """Decompress every member of a (possibly multi-member) gzip stream.

    Returns:
        (data, truncated): ``truncated`` is True when the last member ended before its end-of-stream marker;
        ``data`` then holds everything decompressible.

    Raises:
        zlib.error: the stream is corrupt (not merely cut short).
    """
    out = []
    pos = 0
    truncated = False
    while pos < len(blob):
        if blob[pos : pos + 2] != GZIP_MAGIC:
            break  # trailing garbage / padding after the last member
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        out.append(d.decompress(blob[pos:]))
        if not d.eof:
            truncated = True
            break
        pos = len(blob) - len(d.unused_data)
    return b"".join(out), truncated


def open_error(path: Path, exc: OSError) -> TraceFormatError:
    """The one-line error for a file that cannot be opened or read (missing, a directory, no permission...)."""
    if isinstance(exc, FileNotFoundError):
        return TraceFormatError(path, "no such file")
    if isinstance(exc, IsADirectoryError):
        return TraceFormatError(path, "is a directory, expected a file")
    return TraceFormatError(path, f"cannot read file ({exc.strerror or exc})")


def read_magic(path: Path, n: int) -> bytes:
    """The first ``n`` bytes of ``path`` (to check a binary format's magic number).

    Raises:
        TraceFormatError: the file is missing, a directory or unreadable (see :func:`open_error`).
    """
    try:
        with path.open("rb") as fh:
            return fh.read(n)
    except OSError as exc:
        raise open_error(path, exc) from None


def read_input(path: str | Path) -> RawInput:
    """Read ``path`` fully, gunzipping when it starts with the gzip magic bytes.

    Raises:
        TraceFormatError: the file does not exist, is a directory, is unreadable, is empty, or is corrupt gzip.
    """
    p = Path(path)
    try:
        blob = p.read_bytes()
    except OSError as exc:
        raise open_error(p, exc) from None
    if not blob:
        raise TraceFormatError(p, "file is empty")
    if blob[:2] == GZIP_MAGIC:
        try:
            data, truncated = gunzip_all(blob)
        except zlib.error as exc:
            raise TraceFormatError(p, f"corrupt gzip data ({exc})") from None
        if not data.strip():
            raise TraceFormatError(p, "gzip file decompresses to nothing" + (" (truncated)" if truncated else ""))
        return RawInput(data, len(blob), True, truncated)
    if not blob.strip():
        raise TraceFormatError(p, "file contains only whitespace")
    return RawInput(blob, len(blob), False)


def read_head(path: str | Path, n: int = 65536) -> bytes:
    """First ``n`` bytes of the file's content (decompressed when gzip), for sniffing. Empty on any error."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            blob = fh.read(n)
    except OSError:
        return b""
    if blob[:2] == GZIP_MAGIC:
        try:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            with p.open("rb") as fh:
                out = b""
                while len(out) < n:
                    chunk = fh.read(65536)
                    if not chunk:
                        break
                    out += d.decompress(chunk, n - len(out))
                    if d.eof:
                        break
            return out[:n]
        except zlib.error:
            return b""
    return blob
