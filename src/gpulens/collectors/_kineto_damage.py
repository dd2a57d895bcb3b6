"""The Kineto collector's reading of a document whose strict decode failed: what is kept, what is said, and when
the file is refused (:func:`read_damaged`). The byte offsets in every message are the file's (decompressed).

* damage inside the events with intact events after it: refused in strict mode with its byte offset, line and
  column and the hint ``--lenient``; with ``--lenient`` exactly the damaged stretch is skipped, its events counted
  as dropped (the result is *partial*), every later event kept;
* a cut inside the events (and the rest of a file after text nothing can be read from): every complete event before
  it is kept and the input is *truncated* at that byte;
* a document whose events array is complete but whose closing ``}`` is missing: every event is kept and the input
  is *truncated* at its end (the top-level keys written after the array may be lost);
* a corrupt or cut gzip stream: the input is cut at the first damage (the text zlib produced after it is not the
  trace's), in strict and lenient reading alike;
* malformed metadata outside the events (case B03a): the events are kept, the metadata there skipped, with a
  warning.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from gpulens.collectors._chrome_recover import Recovery, recover
from gpulens.collectors._json_cut import json_error_text
from gpulens.collectors._kineto_columns import RawTrace, no_surrogates, plain_bytes
from gpulens.collectors._stream import StreamInfo, Tail
from gpulens.errors import TraceFormatError


def _file_byte(tail: Tail, b: int) -> int:
    """Offset in the (decompressed) file of byte ``b`` of ``tail.doc``: past its prefix, the text of the file's last
    stretch; within it, the file's own first bytes."""
    prefix = tail.base[0] if tail.base else 0
    return b + tail.offset if b >= prefix else b


def _about(rec: Recovery) -> str:
    """``"byte"``, or ``"about byte"`` when invalid UTF-8 was replaced and offsets may be off by a few bytes."""
    return "byte" if rec.exact else "about byte"


def read_damaged(path: Path, tail: Tail, exc: BaseException, strict: bool, deep: Any, tolerant: Any, acc: Any,
                 info: StreamInfo, warnings: list[str], truncated_at: dict[str, int]) -> Any:
    """Read ``tail.doc`` (whose decode raised ``exc``) event by event into ``acc`` and return its header
    (``RawTrace``); append the warnings, the truncation offset and the dropped count (``info.extra["dropped"]``).

    Raises:
        TraceFormatError: strict reading met damage inside the events that intact text follows, or nothing at all
            could be read (one line naming the file, the byte, line and column, and ``--lenient`` where it helps).
    """
    rec = recover(tail.doc, lenient=not strict, deep=deep, base=tail.base)
    if rec.damage and info.truncated_gzip:
        # a corrupt or cut gzip stream: the text from its first damage on is what zlib made of bad data, not the
        # trace — the input is cut there (truncated), in strict and lenient reading alike; nothing after it is read
        tail = dataclasses.replace(tail, doc=tail.doc[:rec.damage[0].start])
        rec = recover(tail.doc, lenient=False, deep=deep, base=tail.base)
    about = _about(rec)
    if rec.stopped:
        d = rec.damage[-1]
        raise TraceFormatError(path, f"malformed JSON inside traceEvents: damaged text from {about} "
                                     f"{_file_byte(tail, d.start):,} ({d.why} at {d.where}); the file goes on after "
                                     "it (it is not truncated): --lenient skips the damaged text and reads the rest")
    lone, in_meta = [0, 0], [0]  # lone UTF-16 surrogates replaced: characters, events; in metadata
    acc.add(tolerant.each([plain_bytes(e, lone) for e in rec.events], undecodable=True))
    header = RawTrace(**no_surrogates(rec.header, in_meta))
    if lone[0] or in_meta[0]:
        warnings.append(f"{path}: {lone[0] + in_meta[0]} lone UTF-16 surrogate escape(s) (\\ud800-"
                        f"\\udfff: no character) replaced by U+FFFD: {lone[0]} in {lone[1]} event(s), "
                        f"{in_meta[0]} in the trace's metadata")
    repairs = rec.repairs
    fixed = {k: v for k, v in repairs.items() if v and k != "events dropped"}
    dropped = int(repairs.get("events dropped") or 0)
    info.extra["dropped"] = info.extra.get("dropped", 0) + dropped
    if fixed or dropped or rec.skipped:
        where = "; ".join(f"from {about} {_file_byte(tail, d.start):,} ({d.why} at {d.where})" for d in rec.damage)
        more = rec.skipped - len(rec.damage)
        warnings.append(f"{path}: lenient JSON reading: " + ", ".join(f"{k} ×{v}" for k, v in fixed.items())
                        + ("; " if fixed else "") + f"{dropped} malformed event(s) dropped"
                        + (f" in {rec.skipped} damaged stretch(es) of traceEvents, skipped: {where}" if rec.skipped
                           else "") + (f"; {more} more" if more > 0 else ""))
    if rec.cut is not None:
        if not acc.count:
            what = (json_error_text(exc, tail.offset + len(tail.doc)) if "truncated" in str(exc) or not rec.problem
                    else rec.problem)
            raise TraceFormatError(path, "not a readable Kineto trace: " + what
                                   + (" (--lenient repairs control characters and bare inf/nan)"
                                      if strict and "invalid character" in str(exc) else ""))
        at = _file_byte(tail, rec.cut)
        truncated_at[str(path)] = at
        warnings.append(f"{path}: {rec.problem} ({about} {at:,}); kept {acc.count} complete events")
    elif rec.outside_cut is not None:
        at = _file_byte(tail, rec.outside_cut)
        truncated_at[str(path)] = at
        warnings.append(f"{path}: the file ends after {at:,} bytes, after its complete traceEvents array but before "
                        f"the trace object's closing '}}': kept {acc.count} complete events (the whole array); "
                        "top-level keys written after it (baseTimeNanoseconds, displayTimeUnit…) may be lost")
    elif rec.outside is not None:
        warnings.append(f"{path}: malformed JSON outside the events ({rec.outside}); the metadata there was "
                        f"skipped, {acc.count} events kept")
    return header
