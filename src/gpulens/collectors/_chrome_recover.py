"""Reading a Chrome-trace JSON document whose strict decode failed, event by event (:func:`recover`).

Three kinds of damage are told apart, because they mean different things to the user:

* **a cut** — the text ends inside an event, inside the array, or after the array but before the document's closing
  ``}`` (a writer killed mid-file, a copy cut short; trailing NUL padding counts as the end). Every complete event
  before it is kept and the input is *truncated* at that byte.
* **damage inside the events** — a garbled value, a stray byte, an unquoted word in one event while the file goes on
  with intact events. Never a truncation: strict reading stops with its byte offset, line and column; lenient
  reading repairs the damaged stretch on its own (up to the next object with a ``"ph"`` key, or the array's closing
  ``]``: a stray quote cannot make the rest of the file one string), keeps the events that then read and counts
  the events lost in what still does not.
* **damage outside the events** — malformed metadata before or after ``traceEvents`` (case B03a): the events are
  read whole and the metadata there is skipped.

Only the damaged-file path runs this code: an intact file never reaches it (see :mod:`.kineto`).
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from gpulens.collectors._chrome_json import HEADER_FIELDS, repair, where
from gpulens.units import plural

#: Details (byte offset, line, column) are computed for this many damaged stretches; further ones are only counted.
_DETAILED = 5
#: Where reading may resume after damage: an object (an event, when it has a ``"ph"`` key) or the array's end.
_RESUME = re.compile(r"[{\]]")
#: Characters that cannot be part of the fragment a cut leaves (a cut number, literal or escape is no damage).
_STRUCTURE = re.compile(r'[{}\[\],:"\n]')
_PAD = " \t\r\n\x00"
_NOT_PAD = re.compile(r"[^ \t\r\n\x00]")
_WS = " \t\r\n"


@dataclass
class Damage:
    """A stretch of the events array that could not be read.

    Attributes:
        start: byte offset in the recovered text where the unreadable stretch starts (where an event was expected).
        end: byte offset where reading resumed (None: it did not).
        lost: events in the stretch (``"ph"`` keys in it, at least one when it holds an object).
        where: ``"line L, column C: offending bytes …"`` of the decoder's error position.
        why: the decoder's message.
    """

    start: int
    end: int | None
    lost: int
    where: str
    why: str


#: The repair key counting invalid UTF-8 sequences replaced by U+FFFD (names then show "\ufffd").
UTF8_REPAIR = "invalid UTF-8 sequences replaced by U+FFFD"
#: The repair key counting raw control characters let through in the metadata around the events (lenient).
_META_CONTROL = "control characters accepted in the metadata"


@dataclass
class Recovery:
    """What :func:`recover` read.

    Attributes:
        header: top-level keys found (``deviceProperties``, ``baseTimeNanoseconds``...).
        events: complete events as dicts (numbers exact as Decimal).
        repairs: lenient repairs by kind, and ``"events dropped"`` (damaged events skipped, array elements that are
            no object).
        cut: byte offset where the text is cut (the rest is lost), None when it is not cut inside the array.
        problem: what stopped the reading at ``cut``, with line, column and the offending bytes.
        damage: the damaged stretches inside the array (the first :data:`_DETAILED` with details; ``skipped`` counts
            all); in strict reading, the one reading stopped at (``stopped``).
        stopped: strict reading stopped at damage that intact text follows (no cut: the caller refuses the file).
        outside: malformed JSON outside the events, described with its position; None when there is none.
        outside_cut: the document ends after its complete events array but before its closing ``}``: byte offset.
        exact: byte offsets are the file's (False when invalid UTF-8 was replaced: they may be off by a few bytes).
        repeated: the ``traceEvents`` key is written again after the array: (events per key in file order, the
            index of the one read — the longest), else None.
    """

    header: dict[str, Any] = field(default_factory=dict)
    events: list[Any] = field(default_factory=list)
    repairs: dict[str, int] = field(default_factory=dict)
    cut: int | None = None
    problem: str | None = None
    damage: list[Damage] = field(default_factory=list)
    skipped: int = 0
    stopped: bool = False
    outside: str | None = None
    outside_cut: int | None = None
    exact: bool = True
    repeated: tuple[list[int | None], int] | None = None


class _Text:
    """The text being read and the way back from its positions to the bytes of ``data`` (before the replacement of
    invalid UTF-8)."""

    def __init__(self, data: bytes, base: tuple[int, int, int] | None):
        self.data, self.base = data, base
        self.text = data.decode("utf-8", errors="replace")
        #: invalid UTF-8 sequences replaced by U+FFFD (a name with bytes ``FF FE``, case B03b): said in the warning
        self.replaced = (max(0, self.text.count("\ufffd") - data.count(b"\xef\xbf\xbd")) if "\ufffd" in self.text
                         else 0)
        self.exact = not self.replaced

    def byte(self, i: int) -> int:
        """Byte offset in ``data`` of character ``i`` of the text."""
        return len(self.text[:i].encode("utf-8"))

    def where(self, i: int) -> str:
        """:func:`~._chrome_json.where` at character ``i``: line, column and the offending bytes of ``data``."""
        return where(self.data, self.byte(i), base=self.base)


def _back(edits: list[tuple[int, int, int, int]], i: int) -> int:
    """Position in the text before :func:`~._chrome_json.repair` of position ``i`` of the repaired text."""
    k = bisect.bisect_right([e[0] for e in edits], i) - 1
    if k < 0:
        return i
    new, orig, nlen, olen = edits[k]
    return orig if i < new + nlen else orig + olen + (i - new - nlen)


def _is_cut(text: str, at: int, msg: str) -> bool:
    """True when a decoder error at ``at`` is the end of the text, not damage: a string left open, or nothing after
    ``at`` but the fragment of a number, literal or escape (and whitespace or NUL padding)."""
    if msg.startswith("Unterminated string"):
        return True
    head = text[at:at + 256].strip(_PAD)
    if len(head) >= 64 or _STRUCTURE.search(head):
        return False
    return _NOT_PAD.search(text, at + 256) is None if len(text) > at + 256 else True


def _members(text: str, p: int, dec: json.JSONDecoder, stop_key: str | None = None,
             first: bool = True, found: list | None = None) -> tuple[str, int]:
    """Read ``"key": value`` members of an object from ``p``: just after its ``{`` (``first``) or after a value;
    the value of each further ``traceEvents`` key is appended to ``found`` (when given: a repeated key).

    Returns:
        (state, position): ``"end"`` after the closing ``}`` with only padding after it (``stop_key`` None), or
        ``"key"`` just after ``"stop_key":`` (the array of events follows); ``"cut"`` when the text ends first;
        ``"bad"`` at the position where it is malformed.
    """
    n = len(text)
    while True:
        while p < n and text[p] in _WS:
            p += 1
        if p >= n:
            return "cut", p
        if text[p] == "}" and stop_key is None:
            more = _NOT_PAD.search(text, p + 1)
            return ("end", p + 1) if more is None else ("bad", more.start())
        if not first:
            if text[p] != ",":
                return "bad", p
            p += 1
            while p < n and text[p] in _WS:
                p += 1
        try:
            key, p = dec.raw_decode(text, p)
            if not isinstance(key, str):
                return "bad", p
            while p < n and text[p] in _WS:
                p += 1
            if p >= n:
                return "cut", p
            if text[p] != ":":
                return "bad", p
            if key == stop_key:
                return "key", p + 1
            p += 1
            while p < n and text[p] in _WS:
                p += 1
            val, p = dec.raw_decode(text, p)
            if found is not None and key == "traceEvents":
                found.append(val)
        except ValueError as exc:
            return ("cut" if _is_cut(text, exc.pos, exc.msg) else "bad"), exc.pos
        except RecursionError:
            return "bad", p
        first = False


def _trailer(text: str, j: int, array_form: bool, dec: json.JSONDecoder,
             found: list | None = None) -> tuple[str, int]:
    """What follows the ``]`` at ``j`` when it closes the events array: ``"end"``, ``"cut"`` (the text ends before
    the document's ``}``) or ``"bad"`` (with the position); ``found``: as :func:`_members`."""
    if array_form:
        more = _NOT_PAD.search(text, j + 1)
        return ("end", j + 1) if more is None else ("bad", more.start())
    if found is not None:
        found.clear()  # read again by the lenient decoder after a strict failure: the values of this reading
    return _members(text, j + 1, dec, None, first=False, found=found)


def _resume(text: str, pos: int, array_form: bool | None, dec: json.JSONDecoder) -> int | None:
    """Where reading resumes after damage at ``pos``: the next object with a ``"ph"`` key (an event), or the ``]``
    that closes the array (what follows it reads as the end of the document; not looked for when ``array_form`` is
    None); None when neither follows."""
    for m in _RESUME.finditer(text, pos + 1):
        j = m.start()
        if text[j] == "{":
            try:
                obj, _ = dec.raw_decode(text, j)
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict) and "ph" in obj:
                return j
        elif array_form is not None:
            state, _ = _trailer(text, j, array_form, dec)
            if state in ("end", "cut"):
                return j
    return None


def _lost(stretch: str) -> int:
    """Events in an unreadable stretch: its ``"ph"`` keys, at least one when it holds an object at all (stray
    bytes between events lose none)."""
    return max(stretch.count('"ph"'), 1 if "{" in stretch else 0)


def _header(text: str, dec: json.JSONDecoder) -> dict[str, Any]:
    """The top-level keys of :data:`HEADER_FIELDS` found anywhere in ``text`` (read one by one: one malformed
    value does not hide the others)."""
    header: dict[str, Any] = {}
    for key, json_key in HEADER_FIELDS:
        km = re.search(r'"%s"\s*:\s*' % re.escape(json_key), text)
        if km:
            try:
                header[key], _ = dec.raw_decode(text, km.end())
            except (ValueError, RecursionError):
                pass
    return header


def _stretch(t: _Text, a: int, b: int, dec: json.JSONDecoder, out: Recovery) -> tuple[int, int, str] | None:
    """Read the damaged stretch ``t.text[a:b]`` (lenient): repaired on its own (a stray quote elsewhere cannot turn
    the rest of the file into one string), its events kept, what still fails skipped up to the next event in it and
    counted. Returns (start, error position, message) in ``t.text`` of the text it could not read up to ``b``, None
    when it read to the end of the stretch."""
    edits: list[tuple[int, int, int, int]] = []
    seg, counts = repair(t.text[a:b], edits)
    for k, v in counts.items():
        out.repairs[k] = out.repairs.get(k, 0) + v
    p, n = 0, len(seg)
    while True:
        p = _after_separators(seg, p)
        if p >= n:
            return None
        try:
            obj, end = dec.raw_decode(seg, p)
        except ValueError as exc:
            at, why = exc.pos, _why(exc.msg)
        except RecursionError:
            at, why = p, "event nested too deeply"
        else:
            if isinstance(obj, dict):
                out.events.append(obj)
            else:
                _note(out, t, a + _back(edits, p), a + _back(edits, end), 1, a + _back(edits, p),
                      f"an array element that is no object ({type(obj).__name__})")
            p = end
            continue
        q = _resume(seg, p, None, dec)
        stop = a + _back(edits, at)
        if q is None:
            return a + _back(edits, p), stop, why
        _note(out, t, a + _back(edits, p), a + _back(edits, q), _lost(seg[p:q]), stop, why)
        p = q


def _after_separators(text: str, p: int) -> int:
    """The position of the next array element in ``text`` from ``p``: past whitespace and commas."""
    n = len(text)
    while p < n and text[p] in " \t\r\n,":
        p += 1
    return p


def _why(msg: str) -> str:
    """A JSON decoder's message without its trailing position words (the position is given as line and column)."""
    return re.sub(r"(?: starting)? at$", "", msg)


def _note(out: Recovery, t: _Text, start: int, end: int, lost: int, at: int, why: str) -> None:
    """Count an unreadable stretch ``t.text[start:end]`` holding ``lost`` events (details for the first few)."""
    out.repairs["events dropped"] += lost
    out.skipped += 1
    if len(out.damage) < _DETAILED:
        out.damage.append(Damage(t.byte(start), t.byte(end), lost, t.where(at), why))


_CONTROL = re.compile(r"[\x00-\x1f]")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)


def _meta(out: Recovery, text: str, a: int, b: int, read: Any, dec: json.JSONDecoder,
          meta: json.JSONDecoder) -> Any:
    """``read(dec)`` of the metadata ``text[a:b]`` around the events; where strict JSON fails and lenient ``meta``
    (raw control characters accepted) reads it, the control characters inside its strings are counted as repaired
    in ``out.repairs``: lenient reading says what it let through (strict reading warns that it skipped it)."""
    got = read(dec)
    if got[0] != "bad" or meta.strict:
        return got
    got2 = read(meta)
    if got2[0] != "bad":
        n = sum(len(_CONTROL.findall(m.group(0))) for m in _STRING.finditer(text, a, b))
        if n:
            out.repairs[_META_CONTROL] = out.repairs.get(_META_CONTROL, 0) + n
    return got2


def recover(data: bytes, lenient: bool = False, deep: Any = None,
            base: tuple[int, int, int] | None = None) -> Recovery:
    """Read every readable event of a trace document whose strict decode failed (see the module docstring).

    Args:
        data: the document (object form ``{… "traceEvents": [ …`` or array form ``[ …``).
        lenient: also repair almost-JSON (:func:`~._chrome_json.repair`) and skip damaged stretches inside the
            array (counted in ``repairs["events dropped"]``) instead of stopping at the first.
        deep: a :class:`~gpulens.collectors._deep.DeepValues`: an event nested too deeply to parse has its deep
            values replaced by null (counted there) and is read again; without it, reading stops at that event.
        base: ``data`` is the tail of a streamed file (``Tail.base``): lines and columns are the file's.
    """
    t = _Text(data, base)
    out = Recovery(repairs={"events dropped": 0, UTF8_REPAIR: t.replaced}, exact=t.exact)
    dec = json.JSONDecoder(parse_float=Decimal)  # events: strict JSON; what fails is repaired on its own (lenient)
    meta = json.JSONDecoder(parse_float=Decimal, strict=not lenient)  # raw control characters in metadata
    text = t.text
    array_form = text.lstrip().startswith("[")
    if array_form:
        pos = text.index("[") + 1
    else:
        m = re.search(r'"traceEvents"\s*:\s*\[', text)
        if not m:
            out.cut, out.problem = 0, "no traceEvents array found"
            return out
        pos = m.end()
        out.header = _header(text, meta)
        lead = text.lstrip(_WS)
        state, at = (_meta(out, text, 0, m.start(), lambda d: _members(text, len(text) - len(lead) + 1, d,
                                                                           "traceEvents"), dec, meta) if lead[:1] == "{" else ("bad", 0))
        if state != "key":
            out.outside = f"before the traceEvents array, at {t.where(at)}"
    n = len(text)
    flattened = False
    while True:
        pos = _after_separators(text, pos)
        if pos >= n:
            if not array_form:
                out.cut, out.problem = t.byte(pos), "file ends inside traceEvents"
            return out
        if text[pos] == "]":
            break
        try:
            obj, end = dec.raw_decode(text, pos)
        except ValueError as exc:
            at, why = exc.pos, exc.msg
            cut = _is_cut(text, at, why)
            why = _why(why)  # the position is given as line and column
        except RecursionError:
            if deep is not None and not flattened:  # once: the rest of the text has no deep value left after it
                text, flattened = text[:pos] + deep.flat(text[pos:]), True
                t.text, n = text, len(text)
                continue
            at, why, cut = pos, "event nested too deeply", False
        else:
            if isinstance(obj, dict):
                out.events.append(obj)
            else:  # valid JSON, but no event: dropped and counted like an event of the wrong type
                _note(out, t, pos, end, 1, pos, f"an array element that is no object ({type(obj).__name__})")
            pos = end
            continue
        if cut:
            out.cut, out.problem = t.byte(pos), f"incomplete event ({why}) at {t.where(at)}"
            return out
        nxt = _resume(text, pos, array_form, dec)
        if not lenient:
            if nxt is None:  # nothing readable follows: the rest of the text is lost, like a cut
                out.cut, out.problem = t.byte(pos), f"unreadable text up to the end ({why}) at {t.where(at)}"
            else:
                _note(out, t, pos, nxt, _lost(text[pos:nxt]), at, why)
                out.stopped = True
            return out
        failed = _stretch(t, pos, n if nxt is None else nxt, dec, out)
        if nxt is None:
            if failed is not None:
                fp, fat, fwhy = failed
                what = "incomplete event" if _is_cut(text, fat, fwhy) else "unreadable text up to the end"
                out.cut, out.problem = t.byte(fp), f"{what} ({fwhy}) at {t.where(fat)}"
            elif not array_form:
                out.cut, out.problem = t.byte(n), "file ends inside traceEvents"
            return out
        if failed is not None:
            _note(out, t, failed[0], nxt, _lost(text[failed[0]:nxt]), failed[1], failed[2])
        pos = nxt
    found: list = []
    state, at = _meta(out, text, pos, n, lambda d: _trailer(text, pos, array_form, d, found), dec, meta)
    if found:
        _repeated(out, found)
    if state == "cut":
        out.outside_cut = t.byte(n)
    elif state == "bad" and out.outside is None:
        again = re.search(r'"traceEvents"\s*:', text[pos:at]) is not None  # damage in a repeated key's array
        out.outside = (f"after the traceEvents array{', in a later traceEvents key (not read)' if again else ''}, "
                       f"at {t.where(at)}")
    return out


def _repeated(out: Recovery, found: list) -> None:
    """The document writes ``traceEvents`` again after the array read (``found``: the later values): read the
    longest array, as an intact file is read (:func:`~._kineto_dupkey.longest`), and note the counts in
    ``out.repeated`` for the warning. The first array's size counts its dropped elements too."""
    from gpulens.collectors._kineto_dupkey import longest

    sizes = [len(out.events) + out.repairs.get("events dropped", 0)] + [len(v) if isinstance(v, list) else None
                                                                        for v in found]
    best = longest(sizes)
    out.repeated = (sizes, best)
    if best:
        arr = found[best - 1]
        out.events = [e for e in arr if isinstance(e, dict)]
        out.repairs["events dropped"] = len(arr) - len(out.events)  # elements that are no object
        out.damage, out.skipped = [], 0


def read_stretch(data: bytes, lenient: bool = False, deep: Any = None,
                 base: tuple[int, int, int] | None = None, after: bytes = b"") -> Recovery:
    """Read a damaged stretch of the events array that the stream set aside (:mod:`._stream_damage`): events and
    stray text between the separator before a damaged event and the next intact event.

    Intact events follow it, so what fails here is damage, never a cut: strict reading stops at it (``stopped``),
    lenient reading repairs the stretch on its own and skips what still fails (see :func:`recover`). Offsets in the
    result are offsets in ``data``; ``base`` as for :func:`recover` (``(0, lines, column − 1)`` of ``data[0]``);
    ``after``: the bytes that follow ``data`` in the file, shown in messages after an error at its end.
    """
    t = _Text(data, base)
    t.data = data + after  # where() shows the bytes from the error on, past the stretch's end too
    out = Recovery(repairs={"events dropped": 0, UTF8_REPAIR: t.replaced}, exact=t.exact)
    dec = json.JSONDecoder(parse_float=Decimal)
    text, n, pos = t.text, len(t.text), 0
    flattened = False
    while True:
        pos = _after_separators(text, pos)
        if pos >= n:
            return out
        try:
            obj, end = dec.raw_decode(text, pos)
        except ValueError as exc:
            at, why = exc.pos, _why(exc.msg)
        except RecursionError:
            if deep is not None and not flattened:
                text, flattened = text[:pos] + deep.flat(text[pos:]), True
                t.text, n = text, len(text)
                continue
            at, why = pos, "event nested too deeply"
        else:
            if isinstance(obj, dict):
                out.events.append(obj)
            else:
                _note(out, t, pos, end, 1, pos, f"an array element that is no object ({type(obj).__name__})")
            pos = end
            continue
        if not lenient:
            _note(out, t, pos, n, _lost(text[pos:]), at, why)
            out.stopped = True
            return out
        failed = _stretch(t, pos, n, dec, out)
        if failed is not None:
            _note(out, t, failed[0], n, _lost(text[failed[0]:]), failed[1], failed[2])
        return out


def outside_note(path: Any, rec: Recovery, kept: int) -> str:
    """The warning for malformed JSON outside the events (case B03a: ``rec.outside``): the ``kept`` interval (``X``)
    events read, the metadata there skipped."""
    return (f"{path}: malformed JSON outside the events ({rec.outside}); the metadata there was skipped, "
            f"{plural(kept, 'event')} kept")


def utf8_note(path: Any, n: int) -> str:
    """The warning for ``n`` invalid UTF-8 byte sequences read as U+FFFD (case B03b, TraceLens#1035)."""
    return f"{path}: {plural(n, 'invalid UTF-8 byte sequence(s)')} in strings read as U+FFFD"


def read_events(path: Any, data: bytes, strict: bool, deep: Any = None) -> tuple[list[dict], list[str], int]:
    """The events of a Chrome-trace document whose strict decode failed (not Kineto's: :mod:`._kineto_damage` reads
    those), by :func:`recover`, for a collector that reads the events itself.

    Invalid UTF-8 is read as U+FFFD and malformed metadata around the events is skipped, in strict and lenient
    reading alike (case B03); damage inside the events that intact events follow is refused in strict reading (one
    line: where, and ``--lenient``) and skipped with ``--lenient`` (which also repairs raw control characters, bare
    ``inf``/``nan`` and unquoted words: :func:`~._chrome_json.repair`); a cut keeps every complete event before it.

    Returns:
        (events, notes, dropped): the events as dicts (numbers as ``Decimal``), the warnings (a cut's a
        :class:`~gpulens.errors.TruncationNote`), the events lost in damaged stretches.

    Raises:
        TraceFormatError: strict reading met damage inside the events, or no event could be read before a cut.
    """
    from gpulens.errors import TraceFormatError, TruncationNote

    rec = recover(data, lenient=not strict, deep=deep)
    if rec.stopped:
        d = rec.damage[-1]
        raise TraceFormatError(path, f"malformed JSON inside traceEvents ({d.why} at {d.where}); intact events "
                                     "follow it: --lenient repairs or skips it and reads the rest")
    if rec.cut is not None and not rec.events:
        raise TraceFormatError(path, f"not readable JSON: {rec.problem}")
    notes = [utf8_note(path, rec.repairs[UTF8_REPAIR])] if rec.repairs.get(UTF8_REPAIR) else []
    dropped = rec.repairs.get("events dropped", 0)
    fixed = {k: v for k, v in rec.repairs.items() if v and k not in (UTF8_REPAIR, "events dropped")}
    if fixed or dropped:
        notes.append(f"{path}: lenient JSON reading: " + ", ".join(f"{k} ×{v}" for k, v in fixed.items())
                     + ("; " if fixed else "") + f"{plural(dropped, 'malformed event(s)')} dropped"
                     + (" (" + "; ".join(f"{d.why} at {d.where}" for d in rec.damage) + ")" if rec.damage else ""))
    if rec.cut is not None:
        notes.append(TruncationNote(f"{path}: {rec.problem}; kept {plural(len(rec.events), 'complete event')}, the "
                                    f"text before byte {rec.cut:,}", path, rec.cut))
    elif rec.outside_cut is not None:
        notes.append(TruncationNote(f"{path}: the file ends after {rec.outside_cut:,} bytes, after its complete "
                                    "traceEvents array but before the document's closing '}': every event kept, the "
                                    "metadata written after the array is lost", path, rec.outside_cut))
    elif rec.outside is not None:
        notes.append(outside_note(path, rec, sum(1 for e in rec.events if e.get("ph") == "X")))
    return rec.events, notes, dropped
