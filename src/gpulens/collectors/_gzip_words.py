"""What a gzip stream that stops early or fails its check means for the text read from it — one wording for the
Kineto reader and for every reader that sees the decompressed text whole (:func:`gzip_stop`).

A gzip member is deflate data followed by an 8-byte trailer: the CRC-32 of the uncompressed data and its length
modulo 2³² (RFC 1952 §2.3.1). zlib reports a failed trailer as ``incorrect data check`` (CRC) or ``incorrect length
check`` — only after every byte of the text has decompressed: nothing is lost, but a byte of the text (or of the
trailer itself) is wrong somewhere. Any other zlib error (``invalid code lengths set``, ``invalid distance too far
back``…) stops decompression where the compressed data turns corrupt: the file goes on, the text after that point
cannot be decompressed. A stream with no error that simply ends is cut short (the file ends there).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the words every "read whole, check failed" warning holds (how :func:`gpulens.reports._answer.truncated_text` tells
#: such a file from one cut short)
NOTHING_LOST = "nothing is lost"
#: zlib's messages for a failed gzip trailer (RFC 1952 CRC32 / ISIZE), raised after all deflate data decoded
_CHECK_FAILED = ("incorrect data check", "incorrect length check")


@dataclass(frozen=True)
class GzipStop:
    """Why the text of a gzip input stops or may be wrong.

    Attributes:
        why: the clause after "<path>: " (what happened to the gzip data).
        after: what that means for the text after the kept part (lost, unreadable, or nothing lost).
        truncated: whether text is missing after the kept part (False: all of it read, only its check failed; the
            readers still mark the input partial, at its full length: a byte of it may be wrong).
    """

    why: str
    after: str
    truncated: bool


def gzip_stop(error: str | None, text_bytes: int, kept_bytes: int) -> GzipStop:
    """The wording for a gzip stream read with ``error`` (zlib's message, None when the stream simply ended before
    its end marker), ``text_bytes`` decompressed, of which the reader kept the first ``kept_bytes`` (less when the
    text stops parsing at damage inside it)."""
    if not error:
        return GzipStop("its gzip stream ends early (the file is cut short)",
                        "what the file held after it is lost", True)
    if any(c in error for c in _CHECK_FAILED):
        check = (f"its gzip data is corrupt: its check fails ({error}: the CRC-32 or length in the gzip trailer "
                 "does not match the text)")
        if kept_bytes >= text_bytes:
            return GzipStop(check, f"all {text_bytes:,} bytes of its text decompressed and are read, {NOTHING_LOST} "
                                   "— but a byte of that text may be wrong (or the trailer itself is damaged)",
                            False)
        return GzipStop(check + f", and the text stops parsing at byte {kept_bytes:,} of {text_bytes:,}",
                        "the text from there on is corrupt, not missing (the file does not end there): it is not "
                        "read, its contents unknown", True)
    return GzipStop(f"its gzip data is corrupt ({error}): zlib cannot decompress past byte {kept_bytes:,} of the "
                    "text (the file does not end there)",
                    "the rest of the file cannot be decompressed: its contents are unknown", True)
