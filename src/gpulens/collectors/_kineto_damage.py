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

Damage inside the events of a streamed file reaches :meth:`DamageLog.stretch` as each damaged stretch is met (the
stream goes on after it: :mod:`._stream_damage`); what is left at the end, in :func:`read_damaged`. One
:class:`DamageLog` gathers both into one warning.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpulens.collectors._chrome_recover import Recovery, outside_note, read_stretch, recover
from gpulens.collectors._json_cut import json_error_text
from gpulens.collectors._kineto_columns import RawTrace, no_surrogates, plain_bytes
from gpulens.collectors._kineto_dupkey import repeated_key_warning
from gpulens.collectors._stream import StreamInfo, Tail
from gpulens.collectors._stream_damage import Stretch
from gpulens.errors import TraceFormatError
from gpulens.units import plural

_DETAILED = 5


def _file_byte(tail: Tail, b: int) -> int:
    """Offset in the (decompressed) file of byte ``b`` of ``tail.doc``: past its prefix, the text of the file's last
    stretch; within it, the file's own first bytes."""
    prefix = tail.base[0] if tail.base else 0
    return b + tail.offset if b >= prefix else b


def _about(rec: Recovery) -> str:
    """``"byte"``, or ``"about byte"`` when invalid UTF-8 was replaced and offsets may be off by a few bytes."""
    return "byte" if rec.exact else "about byte"


@dataclass
class DamageLog:
    """What the reading of damaged text found in one file, over every stretch and the tail, for one warning.

    Attributes:
        fixed: lenient repairs by kind; dropped: events lost in damaged text; skipped: damaged stretches;
        places: ``"from byte B (why at line L, column C: …)"`` of the first few; lone: lone UTF-16 surrogates
        replaced in events (characters, events); in_meta: in the metadata; said: the warning was written.
    """

    fixed: dict[str, int] = field(default_factory=dict)
    dropped: int = 0
    skipped: int = 0
    places: list[str] = field(default_factory=list)
    lone: list[int] = field(default_factory=lambda: [0, 0])
    in_meta: list[int] = field(default_factory=lambda: [0])
    said: bool = False

    def add(self, rec: Recovery, to_file: Any, tolerant: Any, acc: Any) -> None:
        """Keep the events of ``rec`` in ``acc`` and its counts here; ``to_file`` maps its offsets to the file's."""
        acc.add(tolerant.each([plain_bytes(e, self.lone) for e in rec.events], undecodable=True))
        for k, v in rec.repairs.items():
            if v and k != "events dropped":
                self.fixed[k] = self.fixed.get(k, 0) + v
        self.dropped += int(rec.repairs.get("events dropped") or 0)
        self.skipped += rec.skipped
        about = _about(rec)
        for d in rec.damage[:max(0, _DETAILED - len(self.places))]:
            self.places.append(f"from {about} {to_file(d.start):,} ({d.why} at {d.where})")

    def stretch(self, path: Path, st: Stretch, strict: bool, deep: Any, tolerant: Any, acc: Any) -> None:
        """Read one damaged stretch set aside by the stream into ``acc``.

        Raises:
            TraceFormatError: strict reading met damage in it (intact events follow it: never a cut).
        """
        rec = read_stretch(st.data, not strict, deep, (0, st.lines, st.col), st.after)
        if rec.stopped:
            _refuse(path, rec, st.offset + rec.damage[-1].start)
        self.add(rec, lambda b: st.offset + b, tolerant, acc)

    def warn(self, path: Path, info: StreamInfo, warnings: list[str]) -> None:
        """Append the warnings (once) and add the dropped events to ``info.extra["dropped"]``."""
        if self.said:
            return
        self.said = True
        if self.lone[0] or self.in_meta[0]:
            warnings.append(f"{path}: {plural(self.lone[0] + self.in_meta[0], 'lone UTF-16 surrogate escape(s)')} "
                            f"(\\ud800-"
                            f"\\udfff: no character) replaced by U+FFFD: {self.lone[0]} in "
                            f"{plural(self.lone[1], 'event(s)')}, "
                            f"{self.in_meta[0]} in the trace's metadata")
        if self.dropped:
            info.extra["dropped"] = info.extra.get("dropped", 0) + self.dropped
        if self.fixed or self.dropped or self.skipped:
            more = self.skipped - len(self.places)
            warnings.append(f"{path}: lenient JSON reading: " + ", ".join(f"{k} ×{v}" for k, v in self.fixed.items())
                            + ("; " if self.fixed else "") + f"{plural(self.dropped, 'malformed event(s)')} dropped"
                            + (f" in {plural(self.skipped, 'damaged stretch(es)')} of traceEvents, skipped: "
                               + "; ".join(self.places) if self.skipped else "")
                            + (f"; {more} more" if more > 0 else ""))


def _refuse(path: Path, rec: Recovery, at: int) -> None:
    """Raise strict reading's one-line refusal of damage at file byte ``at`` that intact text follows."""
    d = rec.damage[-1]
    raise TraceFormatError(path, f"malformed JSON inside traceEvents: damaged text from {_about(rec)} {at:,} "
                                 f"({d.why} at {d.where}); intact events follow it, not where it ends (whether its "
                                 "end is whole is unknown): --lenient repairs or skips it and reads the rest")


def read_damaged(path: Path, tail: Tail, exc: BaseException, strict: bool, deep: Any, tolerant: Any, acc: Any,
                 info: StreamInfo, warnings: list[str], truncated_at: dict[str, int], log: DamageLog) -> Any:
    """Read ``tail.doc`` (whose decode raised ``exc``) event by event into ``acc`` and return its header
    (``RawTrace``); append the warnings (with those of the stretches in ``log``), the truncation offset and the
    dropped count (``info.extra["dropped"]``).

    Raises:
        TraceFormatError: strict reading met damage inside the events that intact text follows, or nothing at all
            could be read (one line naming the file, the byte, line and column, and ``--lenient`` where it helps).
    """
    rec = recover(tail.doc, lenient=not strict, deep=deep, base=tail.base)
    corrupt_gzip = bool(rec.damage and info.truncated_gzip and info.extra.get("gzip_error"))
    if rec.damage and info.truncated_gzip:
        # a corrupt or cut gzip stream: the text from its first damage on is what zlib made of bad data, not the
        # trace — the input is cut there (truncated), in strict and lenient reading alike; nothing after it is read
        tail = dataclasses.replace(tail, doc=tail.doc[:rec.damage[0].start])
        rec = recover(tail.doc, lenient=False, deep=deep, base=tail.base)
    about = _about(rec)
    if rec.stopped:
        _refuse(path, rec, _file_byte(tail, rec.damage[-1].start))
    log.add(rec, lambda b: _file_byte(tail, b), tolerant, acc)
    header = RawTrace(**no_surrogates(rec.header, log.in_meta))
    log.warn(path, info, warnings)
    if rec.repeated is not None:
        warnings.append(repeated_key_warning(path, *rec.repeated))
    if rec.cut is not None:
        if not acc.count:
            what = (json_error_text(exc, tail.offset + len(tail.doc)) if "truncated" in str(exc) or not rec.problem
                    else rec.problem)
            raise TraceFormatError(path, "not a readable Kineto trace: " + what
                                   + (" (--lenient repairs control characters, bare inf/nan and unquoted words)"
                                      if strict and "invalid character" in str(exc) else ""))
        at = _file_byte(tail, rec.cut)
        truncated_at[str(path)] = at
        # the byte is where the kept text ends, not where the damage was found: said as such (a "line 1, column
        # 373: the text ends there (byte 294)" read as two places for one end)
        problem = ("the text turns to damaged data there (its gzip data is corrupt; the file goes on)" if corrupt_gzip
                   else rec.problem)
        warnings.append(f"{path}: {problem}; kept {acc.count} complete events, the text before {about} {at:,}")
    elif rec.outside_cut is not None:
        at = _file_byte(tail, rec.outside_cut)
        truncated_at[str(path)] = at
        warnings.append(f"{path}: the file ends after {at:,} bytes, after its complete traceEvents array but before "
                        f"the trace object's closing '}}': kept {plural(acc.count, 'complete event')} (the whole array); "
                        "top-level keys written after it (baseTimeNanoseconds, displayTimeUnit…) may be lost")
    elif rec.outside is not None:
        warnings.append(outside_note(path, rec, acc.count))
    return header
