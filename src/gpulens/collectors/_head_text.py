"""A sniffed file head as text, decoded and split into lines once for every sniffer that reads it
(:func:`head_lines`, :func:`head_text`; re-exported by :mod:`gpulens.collectors._io`)."""

from __future__ import annotations

#: The last sniffed head read as text by :func:`head_lines`: (the head, its text, its lines). Every collector is
#: offered the same bytes object in turn (:func:`gpulens.collectors.sniff`) and several read it as lines: decoded and
#: split once per head, not once per collector.
_LAST_HEAD: tuple[bytes | None, str, tuple[str, ...]] = (None, "", ())


def head_lines(head: bytes) -> tuple[str, ...]:
    """``head`` decoded as UTF-8 (undecodable bytes replaced) and split into lines (``str.splitlines``), shared by
    the sniffers that read the same head (a tuple: no caller can change another's lines)."""
    return _head_text(head)[2]


def head_text(head: bytes) -> str:
    """``head`` decoded as UTF-8, undecodable bytes replaced (shared as :func:`head_lines`)."""
    return _head_text(head)[1]


def _head_text(head: bytes) -> tuple[bytes | None, str, tuple[str, ...]]:
    global _LAST_HEAD
    last = _LAST_HEAD  # one read of the module global: a thread sniffing another head cannot mix the two
    if last[0] is head:
        return last
    text = head.decode("utf-8", errors="replace")
    last = _LAST_HEAD = (head, text, tuple(text.splitlines()))
    return last
