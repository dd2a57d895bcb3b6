"""Reading input files: gzip detection by magic bytes (all members), clear errors for empty/unreadable files,
special files refused before any read, and :func:`reading`, the boundary that turns a parser's exception on
malformed content into a one-line :class:`~gpulens.errors.TraceFormatError` naming the file."""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import sqlite3
import stat
import struct
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterator

import msgspec

from gpulens._inputs import check_special, open_error, read_nul_capped  # noqa: F401 (defined there: the command line checks inputs first)
from gpulens.collectors._head_text import head_lines, head_text  # noqa: F401 (the sniffers' shared head text)
from gpulens.collectors._limits import MAX_LIMIT, MAX_RATIO, MIN_LIMIT, decompress_limit, too_large  # noqa: F401
from gpulens.errors import GpulensError, TraceFormatError, TruncationNote, note_input
from gpulens.units import plural

#: Exceptions a parser raises on content it cannot make sense of (wrong types, out-of-range numbers, bad
#: encodings, CSV/SQLite/gzip/msgspec errors, nesting too deep). Raised while reading a file, they describe the
#: file, not a bug: :func:`reading` reports them as a TraceFormatError. Anything else stays an internal error.
PARSE_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, TypeError, KeyError, IndexError, ArithmeticError, RecursionError, EOFError, csv.Error,
    sqlite3.Error, zlib.error, struct.error, msgspec.MsgspecError)


def describe(exc: BaseException, limit: int = 200) -> str:
    """``"Type: first line of the message"``, at most ``limit`` characters (for one-line errors)."""
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    return text if len(text) <= limit else text[: limit - 1] + "…"


@contextmanager
def reading(path: str | Path, what: str = "trace") -> Iterator[None]:
    """Run a reader of ``path``: parse errors (:data:`PARSE_ERRORS`) become ``TraceFormatError(path, "malformed
    <what> data (…)")``, OS errors the one-line open error, MemoryError a one-line error; any other exception is
    noted with the path (:func:`gpulens.errors.note_input`) for the CLI's internal-error line and re-raised."""
    try:
        yield
    except GpulensError:
        raise
    except OSError as exc:
        raise open_error(Path(exc.filename) if getattr(exc, "filename", None) else Path(path), exc) from exc
    except MemoryError:
        raise TraceFormatError(path, "not enough memory to read this file") from None
    except RecursionError as exc:
        raise TraceFormatError(path, f"malformed {what} data: nested too deeply to read (arrays or objects inside "
                                     "each other beyond Python's recursion limit)") from exc
    except PARSE_ERRORS as exc:
        raise TraceFormatError(path, f"malformed {what} data ({describe(exc)})") from exc
    except BaseException as exc:
        note_input(exc, f"reading {path}")
        raise


GZIP_MAGIC = b"\x1f\x8b"

#: Largest CSV field accepted (characters). Python's csv module stops at 128 KiB by default, but templated C++
#: kernel names reach hundreds of kB; this is set once for the process when the collectors are imported.
CSV_FIELD_LIMIT = 64 << 20
csv.field_size_limit(CSV_FIELD_LIMIT)


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


def gunzip_blocks(fh: BinaryIO, first: bytes, limit: int, path: Path, block: int = 8 << 20,
                  state: dict | None = None) -> Iterator[bytes]:
    """Decompress every member of the gzip stream ``first`` + the rest of ``fh``, in pieces of at most ``block``
    bytes, stopping with :func:`too_large` beyond ``limit`` bytes. ``state["truncated"]`` is set when the last member
    ends before its end-of-stream marker, or when the data turns corrupt after some of it decompressed
    (``state["corrupt"]`` then holds zlib's reason). Bytes after the last member that are not another member are
    not read: NUL padding silently (as gzip(1)), anything else counted in ``state["trailing"]`` (bytes; see
    :func:`trailing_warning`).

    Raises:
        TraceFormatError: more than ``limit`` bytes.
        zlib.error: corrupt data before any byte could be decompressed.
    """
    state = state if state is not None else {}
    state["truncated"] = False
    total = 0
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = first
    while True:
        before = d.copy()
        try:
            out = d.decompress(pending, block)
        except zlib.error as exc:
            # corrupt after some good data: stop there like a cut-short stream (what came before is kept, the
            # caller marks the input truncated and says why with ``state["corrupt"]``); the failing call's input is
            # decompressed again in small steps from the state before it, to keep what precedes the corruption (a
            # failed trailer check: every byte of the text)
            saved = _salvage(pending, limit - total, path, before)
            if not total and not saved:
                raise
            yield from saved
            state["truncated"], state["corrupt"] = True, str(exc)
            return
        pending = d.unconsumed_tail
        if out:
            total += len(out)
            if total > limit:
                raise too_large(path, limit)
            yield out
        if d.eof:
            rest = d.unused_data + pending
            if len(rest) < 2:
                rest += fh.read(2)
            if rest[:2] != GZIP_MAGIC:  # after the last member: NUL padding (as gzip(1), silent) or other bytes
                pos = fh.tell()
                end = fh.seek(0, io.SEEK_END)
                fh.seek(pos)
                if (rest + fh.read(1 << 16)).strip(b"\0"):
                    state["trailing"] = len(rest) + end - pos
                return
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            pending = rest
            continue
        if not pending and not out:
            pending = fh.read(block)
            if not pending:
                state["truncated"] = True
                return


def _salvage(data: bytes, limit: int, path: Path, d: Any = None, step: int = 16384) -> list[bytes]:
    """What decompresses from ``data`` (a gzip stream, or its continuation for the decompressor ``d``) before zlib
    finds it corrupt, fed ``step`` bytes at a time, and the step that fails fed again a byte at a time from the state
    before it: a stream whose data all decompressed but whose trailer check fails (``incorrect data check``: a
    flipped bit) keeps its text, not nothing."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS) if d is None else d
    out, total = [], 0
    for i in range(0, len(data), step):
        before = d.copy()
        try:
            part = d.decompress(data[i:i + step])
        except zlib.error:
            d, part = before, b""
            for j in range(i, min(i + step, len(data))):
                try:
                    part += d.decompress(data[j:j + 1])
                except zlib.error:
                    break
            if total + len(part) > limit:
                raise too_large(path, limit) from None
            out += [part] if part else []
            break
        total += len(part)
        if total > limit:
            raise too_large(path, limit)
        if part:
            out.append(part)
        if d.eof:
            break
    return out


def trailing_warning(path: str | Path, nbytes: int) -> str:
    """The warning for ``nbytes`` of data after the last gzip member of ``path`` (not read)."""
    return (f"{path}: {plural(nbytes, 'byte(s)')} after the end of the gzip data are not gzip (trailing garbage): "
            "not read")


def tail_warnings(path: str | Path, extra: dict) -> list[str]:
    """The warnings for what a streamed read left unread at the file's end (:func:`gpulens.collectors._stream.
    iter_blocks`' ``info.extra``): data after the last gzip member (``gzip_trailing``, :func:`trailing_warning`) and
    a NUL tail past :data:`gpulens._inputs.NUL_TAIL_KEPT` bytes (``nul_tail``: a writer that died after reserving
    the space)."""
    out = [trailing_warning(path, extra["gzip_trailing"])] if extra.get("gzip_trailing") else []
    if extra.get("nul_tail"):
        out.append(f"{path}: the file ends in {plural(extra['nul_tail'], 'NUL byte(s)')} after its trace text "
                   "(space reserved but never written: its writer stopped): not read; the events before them are kept")
    return out


def gunzip_all(blob: bytes, path: Path | None = None, state: dict | None = None) -> tuple[bytes, bool]:
    """Decompress every member of a (possibly multi-member) gzip stream, within :func:`decompress_limit`.

    Returns:
        (data, truncated): ``truncated`` is True when the last member ended before its end-of-stream marker;
        ``data`` then holds everything decompressible. ``state`` (optional) receives :func:`gunzip_blocks`'s.

    Raises:
        zlib.error: the stream is corrupt (not merely cut short).
        TraceFormatError: it expands beyond the limit.
    """
    state = {} if state is None else state
    parts = list(gunzip_blocks(io.BytesIO(b""), blob, decompress_limit(len(blob)), Path(path or "<gzip>"),
                               state=state))
    return b"".join(parts), state["truncated"]


#: Byte-order marks → codec, UTF-32 before UTF-16 (``FF FE 00 00`` starts with the UTF-16 LE mark).
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def text_codec(head: bytes) -> str | None:
    """The codec of text that is not plain UTF-8, from its first bytes: a byte-order mark (UTF-8, UTF-16 or UTF-32
    as Windows tools write them, e.g. PowerShell 5's ``nsys stats ... > out.csv`` is UTF-16 LE), or UTF-16 without
    one (every other byte NUL in the first 64, the rest printable ASCII). None for UTF-8 without BOM and binary."""
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    h = head[:64]
    if len(h) >= 16 and len(h) % 2 == 0:
        for zeros, text, codec in ((h[1::2], h[0::2], "utf-16-le"), (h[0::2], h[1::2], "utf-16-be")):
            if not zeros.strip(b"\x00") and all(32 <= b < 127 or b in b"\t\r\n" for b in text):
                return codec
    return None


def as_utf8(blocks: Iterator[bytes]) -> Iterator[bytes]:
    """The blocks of a text stream as UTF-8: unchanged when the first block has no :func:`text_codec`, else
    decoded incrementally (byte-order mark dropped, invalid sequences as U+FFFD) and re-encoded, so that every
    reader sees the one encoding it parses."""
    it = iter(blocks)
    first = next(it, b"")
    codec = text_codec(first)
    if codec is None:
        if first:
            yield first
        yield from it
        return
    dec = codecs.getincrementaldecoder(codec)("replace")
    yield dec.decode(first).encode("utf-8", "surrogatepass")
    for b in it:
        yield dec.decode(b).encode("utf-8", "surrogatepass")
    yield dec.decode(b"", final=True).encode("utf-8", "surrogatepass")


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


_GUNZIPPED: dict[tuple[str, int, int], int] = {}  # (file, size, mtime) → decompressed bytes, by read_input
_TRAILING: dict[tuple[str, int, int], int] = {}  # (file, size, mtime) → bytes after the gzip data, by read_input
_GZ_CUT: dict[tuple[str, int, int], str] = {}  # (file, size, mtime) → zlib's error ("" cut short), by read_input


def gunzipped_size(path: str | Path) -> int | None:
    """Decompressed bytes of the gzip file ``path`` as :func:`read_input` last read it (None when it has not, or
    the file is not gzip): the uncompressed size every report gives beside the file's own (B02)."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return _GUNZIPPED.get((str(Path(path).resolve()), st.st_size, st.st_mtime_ns))


def mark_gzip_cut(meta: Any, path: str | Path) -> None:
    """Mark ``meta`` (a Timeline's) truncated at ``path``'s decompressed end when :func:`read_input` found its gzip
    stream cut short or corrupt (B02 + B04): a CSV, stats or SQLite reader sees only the text that decompressed, which
    may end at a line end and read as complete. Nothing when the reader marked the file itself."""
    try:
        st = Path(path).stat()
    except OSError:
        return
    key = (str(Path(path).resolve()), st.st_size, st.st_mtime_ns)
    why, n = _GZ_CUT.get(key), _GUNZIPPED.get(key, 0)
    if why is None or str(path) in meta.truncated_at:
        return
    from gpulens.collectors._gzip_words import gzip_stop

    stop = gzip_stop(why or None, n, n)
    # partial either way (a failed trailer check: all the text read, but a byte of it may be wrong)
    meta.warnings.append(TruncationNote(f"{path}: truncated — {stop.why}: the {n:,} bytes of text before that "
                                        f"point are read; {stop.after}" if stop.truncated else
                                        f"{path}: {stop.why}: {stop.after}", path, n))
    meta.truncated = True
    meta.truncated_at[str(path)] = n


def gzip_trailing_bytes(path: str | Path) -> int:
    """Bytes after the gzip data of ``path`` (not NUL padding) as :func:`read_input` last read it; 0 when none
    or not read."""
    try:
        st = Path(path).stat()
    except OSError:
        return 0
    return _TRAILING.get((str(Path(path).resolve()), st.st_size, st.st_mtime_ns), 0)


def nul_only(n: int, compressed: bool = False) -> str:
    """Why a file of ``n`` zero bytes is no trace (space reserved but never written, or wiped by a crash): the one
    wording of every reader (:func:`read_input`) and of a folder's list of files not read."""
    return (f"holds only NUL bytes ({n:,} zero bytes{' decompressed' if compressed else ''}: space reserved but "
            "never written, or a file wiped by a crash), no trace")


def read_input(path: str | Path) -> RawInput:
    """Read ``path`` fully, gunzipping when it starts with the gzip magic bytes.

    Raises:
        TraceFormatError: the file does not exist, is a directory, is unreadable, is empty, holds only NUL bytes
            (:func:`nul_only`), or is corrupt gzip.
    """
    p = Path(path)
    try:
        blob = read_nul_capped(p)  # a long tail of NUL padding cut to 4 KiB (gpulens._inputs)
    except OSError as exc:
        raise open_error(p, exc) from None
    if not blob:
        raise TraceFormatError(p, "file is empty")
    if blob[:2] == GZIP_MAGIC:
        try:
            state: dict = {}
            data, truncated = gunzip_all(blob, p, state)
        except zlib.error as exc:
            raise TraceFormatError(p, f"corrupt gzip data ({exc})") from None
        unpacked = len(data)  # before any transcoding to UTF-8
        if data and not data.strip(b"\x00"):
            raise TraceFormatError(p, nul_only(len(data), compressed=True))
        if text_codec(data[:64]):
            data = b"".join(as_utf8(iter((data,))))
        if not data.strip():
            raise TraceFormatError(p, "gzip file decompresses to nothing" + (" (truncated)" if truncated else ""))
        try:
            st = p.stat()
            if len(_GUNZIPPED) > 4096:
                _GUNZIPPED.clear()
                _TRAILING.clear()
                _GZ_CUT.clear()
            key = (str(p.resolve()), st.st_size, st.st_mtime_ns)
            _GUNZIPPED[key] = unpacked
            if truncated:
                _GZ_CUT[key] = state.get("corrupt") or ""  # zlib's reason; "" when the stream ends early
            if state.get("trailing"):
                _TRAILING[key] = state["trailing"]
        except OSError:
            pass
        return RawInput(data, len(blob), True, truncated)
    if not blob.strip(b"\x00"):  # before text_codec: zeros would read as UTF-16/32
        raise TraceFormatError(p, nul_only(len(blob)))
    if text_codec(blob[:64]):
        blob = b"".join(as_utf8(iter((blob,))))
    if not blob.strip():
        raise TraceFormatError(p, "file contains only whitespace")
    return RawInput(blob, len(blob), False)


#: While :func:`one_read_of_heads` is active: the head read last for each file (key: path and its stat identity) →
#: (bytes asked, the head, whether it was transcoded from UTF-16/32). None outside it.
_HEADS: dict[tuple, tuple[int, bytes, bool]] | None = None


@contextmanager
def one_read_of_heads() -> Iterator[None]:
    """Within this block, :func:`read_head` reads each file once: a later call for the same unchanged file (same
    path, inode, size and modification time) asking for no more bytes — or for any number, when the first read
    reached the end of the file — gets the bytes read before. Format detection of a folder's file asks for its head
    up to six times (sniffing, then — when nothing recognises it — the Git LFS pointer, gpulens output and SQLite
    checks). The heads are kept only until the outermost block ends: open it around one file's detection, not a
    whole folder's (64 KiB a file)."""
    global _HEADS
    outer = _HEADS
    if outer is None:
        _HEADS = {}
    try:
        yield
    finally:
        if outer is None:
            _HEADS = None


#: The head of a gpulens JSON report (``"tool": {"name": "gpulens"``, json_report.to_dict), as its first bytes show it.
REPORT_HEAD = re.compile(rb'"tool"\s*:\s*\{\s*"name"\s*:\s*"gpulens"')


def is_report_head(head: bytes) -> bool:
    """True when ``head`` (a JSON file's first KiB, gunzipped, BOM removed) is a gpulens report's: it names gpulens as
    its ``tool`` or holds ``schema_version`` (a report of another gpulens version, or with one key lost, is still a
    report: :func:`gpulens.reports.report_check.check_report` then says what is wrong with it, never "not a trace")."""
    return head.startswith(b"{") and b'"traceEvents"' not in head and (
        b'"schema_version"' in head or REPORT_HEAD.search(head) is not None)


def read_head(path: str | Path, n: int = 65536) -> bytes:
    """First ``n`` bytes of the file's content (decompressed when gzip), for sniffing. Empty on any error, and for
    what is no regular file (a FIFO's read blocks until a writer comes: :func:`check_special`). Read once per file
    inside :func:`one_read_of_heads`."""
    p = Path(path)
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            return b""
    except OSError:
        return b""
    memo = _HEADS
    if memo is None:
        return _read_head(p, n)[0]
    key = (str(p), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    got = memo.get(key)
    # a head of n bytes is the first n bytes of a longer one, unless transcoding cut a character at its end
    if got is not None and not got[2] and (n <= got[0] or len(got[1]) < got[0]):
        return got[1][:n]
    blob, transcoded = _read_head(p, n)
    memo[key] = (n, blob, transcoded)
    return blob


def text_lines_blocks(path: str | Path, block: int = 8 << 20, carry_max: int = 1 << 20) -> Iterator[bytes]:
    """The whole content of ``path`` (decompressed when gzip, as UTF-8 when :func:`text_codec` finds another
    encoding) in blocks of about ``block`` bytes, each cut after its last newline so that no line is split across
    two blocks (a line longer than ``carry_max`` is cut). For scanning a file of any size for a line without holding
    it in memory (:meth:`~gpulens.collectors.base.Collector.sniff_further`). Yields nothing for what is no regular
    file or cannot be read; gzip data stops at its decompression limit (:func:`decompress_limit`) or its damage.
    """
    p = Path(path)
    try:
        if not stat.S_ISREG(p.stat().st_mode):
            return
        fh = p.open("rb")
    except OSError:
        return
    with fh:
        try:
            first = fh.read(block)
            if first[:2] == GZIP_MAGIC:
                raw = gunzip_blocks(fh, first, decompress_limit(p.stat().st_size), p, block)
            else:
                raw = _chain(first, iter(lambda: fh.read(block), b""))
            carry = b""
            for b in as_utf8(raw):
                data = carry + b
                cut = data.rfind(b"\n") + 1
                if cut:
                    yield data[:cut]
                    carry = data[cut:]
                else:
                    carry = data
                if len(carry) > carry_max:
                    yield carry
                    carry = b""
            if carry:
                yield carry
        except (OSError, zlib.error, TraceFormatError):
            return


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    """``first`` then the blocks of ``rest``."""
    if first:
        yield first
    yield from rest


def _read_head(p: Path, n: int) -> tuple[bytes, bool]:
    """:func:`read_head` without the memo, with whether the bytes were transcoded to UTF-8."""
    try:
        with p.open("rb") as fh:
            blob = fh.read(n)
    except OSError:
        return b"", False
    if blob[:2] == GZIP_MAGIC:
        out, member, fed = b"", 0, b""  # output before the current member; that member's bytes read so far
        try:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            with p.open("rb") as fh:
                chunk = fed = fh.read(65536)
                while chunk and len(out) < n:
                    out += d.decompress(chunk, n - len(out))
                    if d.eof:  # the next gzip member (a stream written in pieces), if any
                        chunk = d.unused_data + fh.read(65536)
                        if chunk[:2] != GZIP_MAGIC:
                            break
                        d, member, fed = zlib.decompressobj(16 + zlib.MAX_WBITS), len(out), chunk
                    elif d.unconsumed_tail:
                        break
                    else:
                        chunk = fh.read(65536)
                        fed += chunk
            blob = out[:n]
        except zlib.error:  # corrupt (a failed trailer check included): what decompressed before it, as the readers
            try:
                blob = (out[:member] + b"".join(_salvage(fed, 1 << 30, p)))[:n]
            except TraceFormatError:
                return b"", False
    if text_codec(blob[:64]):  # sniffers see the text as UTF-8 (a cut character at the end becomes U+FFFD)
        return b"".join(as_utf8(iter((blob,))))[:n], True
    return blob, False


def json_text(path: str | Path) -> str:
    """The text of a JSON document file as gpulens reads every input: gunzipped when gzip (by magic bytes), from
    UTF-16/32 or UTF-8 with a byte-order mark to plain text (:func:`text_codec`), CRLF kept (JSON whitespace). For
    the readers of gpulens's own JSON (reports given to ``diff`` / ``gate``, baselines), which the sniffers
    already see so: a report saved by a Windows editor or gzipped is the report, not "not readable".

    Raises:
        TraceFormatError: as :func:`read_input` (missing, unreadable, empty, corrupt gzip).
        UnicodeDecodeError: the bytes are no UTF-8 text.
    """
    return read_input(path).data.decode("utf-8").lstrip("\ufeff")


def json_document(path: str | Path) -> Any:
    """The JSON document of ``path`` (:func:`json_text`), refused when its top-level object writes a key twice:
    JSON leaves that undefined and every reader keeps the last value — a hand-merged report whose second
    ``"sources": []`` would silently be a report of no run.

    Raises:
        ValueError: not JSON, or a top-level key written twice (naming it and how often).
        TraceFormatError, UnicodeDecodeError: as :func:`json_text`.
        RecursionError: nested too deep.
    """
    import json
    from collections import Counter

    twice: list[tuple[str, int]] = []

    def hook(pairs):  # the outermost object completes last: its repeated keys are what stays in ``twice``
        twice[:] = [(k, n) for k, n in Counter(k for k, _ in pairs).items() if n > 1]
        return dict(pairs)

    doc = json.loads(json_text(path), object_pairs_hook=hook)
    if twice and isinstance(doc, dict):
        k, n = twice[0]
        raise ValueError(f"the top-level key {k!r} is written {n} times (a hand-merged or damaged file): which one "
                         "holds the data is unknown")
    return doc


def special_reason(f: Path) -> str:
    """Why a FIFO, socket or device in a folder is not read (:func:`check_special`'s words): it is listed as not
    read, never passed over in silence."""
    try:
        check_special(f)
    except TraceFormatError as exc:
        return exc.reason
    return "not a regular file"
