"""A top-level ``traceEvents`` key written more than once (a hand-merged or damaged Kineto/Chrome trace).

JSON leaves a repeated key undefined and every reader (``JSON.parse``, Python's ``json``, msgspec) keeps the last
value: ``{"traceEvents": [… 10,000 events …], "traceEvents": []}`` read as an empty trace, its events silently lost.
:func:`events_of_repeated_key` reads the values of every top-level ``traceEvents`` key; the collector then reads the
longest array (the last on a tie) — never several, since two copies of one capture would count every event twice —
and says how many events each one held.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from gpulens.collectors._kineto_columns import FAST_TRACE_DECODER, TRACE_DECODER


def _top_values(doc: bytes) -> list | None:
    """Values of every top-level ``traceEvents`` key of the JSON text ``doc`` in file order, or None when the key
    is not written twice there (or the text is no strict JSON)."""
    if doc.count(b'"traceEvents"') < 2:
        return None
    found: list = []

    def hook(pairs):  # the outermost object completes last: its keys are what stays in ``found``
        found[:] = [v for k, v in pairs if k == "traceEvents"]
        return dict(pairs)

    try:
        json.loads(doc, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return None
    return found if len(found) > 1 else None


def events_of_repeated_key(path: Path, doc: bytes, events, warnings: list[str], streamed: bool = False):
    """``events`` (the decoded value of the last ``traceEvents`` key of ``doc``, as the decoder kept it), or the
    decoded longest ``traceEvents`` array when the key is written several times at the top level, with a warning in
    ``warnings`` naming how many events each held. ``streamed``: ``doc`` is the last piece of a file read in pieces
    (the pieces before it were read from the first array), so the counts are of that piece."""
    got = repeated_choice(doc)
    if got is None:
        return events
    vals, sizes, best = got
    if best != len(vals) - 1:
        raw = msgspec.json.encode({"traceEvents": vals[best]})
        try:
            events = FAST_TRACE_DECODER.decode(raw).traceEvents
        except (msgspec.ValidationError, msgspec.DecodeError):
            try:
                events = TRACE_DECODER.decode(raw).traceEvents
            except (msgspec.ValidationError, msgspec.DecodeError):
                return events  # the longest array holds ill-typed events: read as any reader would (the last key)
    warnings.append(repeated_key_warning(path, sizes, best, streamed))
    return events


def repeated_choice(doc: bytes) -> tuple[list, list[int | None], int] | None:
    """When the JSON text ``doc`` writes its top-level ``traceEvents`` key several times: (the values in file order,
    events per value — None for one that is no array —, the index of the value to read: :func:`longest`); None
    when the key is written once (or the text is no strict JSON). Any Chrome-trace reader's one check (Kineto,
    rocprof v1 ``results.json``)."""
    vals = _top_values(doc)
    if vals is None:
        return None
    sizes = [len(v) if isinstance(v, list) else None for v in vals]
    return vals, sizes, longest(sizes)


def longest(sizes: list[int | None]) -> int:
    """The index of the ``traceEvents`` value to read among repeated ones: the longest array (events per key, None
    for a value that is no array), the last on a tie."""
    return max(range(len(sizes)), key=lambda i: (sizes[i] if sizes[i] is not None else -1, i))


def repeated_key_warning(path: Path, sizes: list[int | None], best: int, streamed: bool = False) -> str:
    """The warning of a ``traceEvents`` key written ``len(sizes)`` times: the events each held (``sizes``, None:
    not an array) and the one read (``best``, 0-based). ``streamed``: the counts are of the last piece read."""
    held = ", ".join("not an array" if s is None else f"{s:,}" for s in sizes)
    return (f"{path}: the top-level key 'traceEvents' is written {len(sizes)} times (a hand-merged or damaged file; "
            f"events per key in file order{' in the last part read' if streamed else ''}: {held}): only the longest "
            f"array is read (key {best + 1}), not the others (one capture written twice would count every event "
            "twice)")
