"""Decompression bounds of gzip inputs (a 4 MB gzip of zeros expands to 4 GiB) and the one-line error beyond them,
naming where the limit came from (re-exported by :mod:`gpulens.collectors._io`)."""

from __future__ import annotations

import os
from pathlib import Path

from gpulens.errors import TraceFormatError


#: Decompression bounds (a 4 MB gzip of zeros expands to 4 GiB): at most ``MAX_RATIO`` × the compressed size, never
#: less than ``MIN_LIMIT`` nor more than ``MAX_LIMIT`` decompressed bytes. Real traces compress 5–30×.
#: Override with ``$GPULENS_MAX_DECOMPRESS_RATIO`` and ``$GPULENS_MAX_DECOMPRESSED_BYTES`` (an absolute limit).
MAX_RATIO = 100
MIN_LIMIT = 256 << 20
MAX_LIMIT = 32 << 30


def _env_int(name: str) -> int | None:
    """The whole number in ``$name`` (digits only), else None."""
    v = os.environ.get(name)
    return int(v) if v and v.strip().isdigit() else None


def decompress_limit(compressed_size: int) -> int:
    """The most decompressed bytes accepted from a gzip file of ``compressed_size`` bytes (see :data:`MAX_RATIO`)."""
    absolute = _env_int("GPULENS_MAX_DECOMPRESSED_BYTES")
    if absolute is not None:
        return absolute
    r = _env_int("GPULENS_MAX_DECOMPRESS_RATIO")
    return min(MAX_LIMIT, max(MIN_LIMIT, (MAX_RATIO if r is None else r) * compressed_size))


def too_large(path: Path, limit: int) -> TraceFormatError:
    """The one-line error for a gzip file that expands beyond :func:`decompress_limit`, naming where that limit came
    from (the absolute override, else the ratio, its floor and ceiling)."""
    absolute = _env_int("GPULENS_MAX_DECOMPRESSED_BYTES")
    if absolute is not None:
        why = f"set by GPULENS_MAX_DECOMPRESSED_BYTES={absolute}; raise it to allow more"
    else:
        r = _env_int("GPULENS_MAX_DECOMPRESS_RATIO")
        ratio = MAX_RATIO if r is None else r
        why = (f"{ratio}× the compressed size{' (GPULENS_MAX_DECOMPRESS_RATIO)' if r is not None else ''}, at least "
               f"{MIN_LIMIT >> 20} MiB, at most {MAX_LIMIT >> 30} GiB; set GPULENS_MAX_DECOMPRESSED_BYTES to allow "
               "more")
    return TraceFormatError(path, f"gzip data expands beyond {limit:,} bytes (limit: {why}); refusing to read on")
