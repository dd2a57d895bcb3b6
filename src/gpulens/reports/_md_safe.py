"""Making text from traces safe to paste into a pull request or an issue (GitHub-flavoured Markdown).

Kernel names, labels and paths come from files anyone can write. Escaping Markdown punctuation keeps them from
breaking a table, but GitHub also turns plain text into actions and disguises: ``@user`` and ``@org/team`` notify
people, ``#1234`` and ``owner/repo#12`` link (and cross-reference) issues, bare ``https://…`` and ``www.…`` become
links, ``$…$`` renders as math, and bidirectional controls (U+202E…) make text read differently from what it is.
:func:`neutralise` is applied last by the Markdown reporters (after their own escaping):

* an empty HTML comment (``<!-- -->``, Markdown's own inline HTML) after ``@`` and ``#`` when a name/number
  follows, and before ``://`` and ``.`` of ``www.`` in URLs: the rendered text is the name as recorded, split into
  two text nodes, so no mention, reference or autolink is made — and the text a reader copies is the real name
  (a U+200D zero-width joiner did the same but stayed in the copied text: "ProfilerStep#\u200d5" is no step
  name);
* ``$`` is backslash-escaped (no math);
* bidirectional controls and other invisible format characters (U+200E/F, U+202A–E, U+2066–9, U+061C, U+FEFF) are
  removed;
* control characters other than newline and tab (an escape sequence that recolours or retitles the terminal the
  file is shown on, NUL, backspace, carriage return) are written as visible backslash escapes (``\\x1b``).
"""

from __future__ import annotations

import functools
import re

#: What splits ``@user``, ``#12`` and URLs into two rendered text nodes: invisible, and never copied with the text.
BREAK = "<!-- -->"
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_MENTION = re.compile(r"([@#＠])(?=[\w-])")
_URL = re.compile(r"(?i)\b(https?|ftp|file)(?=://)|\b(www)(?=\.)")
_DOLLAR = re.compile(r"(?<!\\)\$")


#: Control characters (C0 but tab, newline and carriage return; DEL; C1): never written raw by any report.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def visible(text: str, bidi: bool = False) -> str:
    """``text`` with each control character (and, with ``bidi``, each bidirectional / invisible format character)
    written as a visible ``\\uXXXX`` escape — B03 of ../shared/cases: a name holding raw 0x01 is shown as
    ``\\u0001<module>: step``, never raw in HTML, Markdown or a terminal (where ESC would start an escape
    sequence). The one rule of every reporter (HTML :func:`~gpulens.reports._html_parts.esc`, Markdown
    :func:`neutralise`, console cells and short names); the data (Timeline, JSON) keep the name as recorded."""
    return _visible(str(text), bool(bidi))


@functools.lru_cache(maxsize=1 << 12)
def _visible(s: str, bidi: bool) -> str:
    """:func:`visible` of a ``str``, memoised: a report writes the same few names into hundreds of cells, and a
    100 kB name of 100,000 U+202E was escaped 1,839 times (18 s of one HTML report, session 34 fuzzing)."""
    rx = _CONTROL if not bidi else _SHOWN
    # str.translate, not a per-match callback: a 100 kB name of control bytes shown 200 times took 11 s of HTML
    return s.translate(_SHOWN_ESC if bidi else _CONTROL_ESC) if rx.search(s) else s


_SHOWN = re.compile(_CONTROL.pattern[:-1] + _BIDI.pattern[1:])
#: code point → its visible escape, for every character :data:`_CONTROL` (and :data:`_SHOWN`) matches (found by one
#: scan of the candidates: a match per code point took 3–4 ms of every report command's start).
_CANDIDATES = "".join(map(chr, [*range(0x2070), 0xFEFF]))
_CONTROL_ESC = {ord(c): f"\\u{ord(c):04x}" for c in _CONTROL.findall(_CANDIDATES)}
_SHOWN_ESC = {ord(c): f"\\u{ord(c):04x}" for c in _SHOWN.findall(_CANDIDATES)}


#: Whatever any substitution of :func:`neutralise` needs: a bidi control, ``@``, ``#``, ``＠``, ``$``, ``://`` or
#: ``www.`` — text with none of them (most table cells) is returned after one search instead of four substitutions.
_ACTIVE = re.compile(_BIDI.pattern[:-1] + "@#＠$]|://|(?i:www)\\.")


def neutralise(text: str) -> str:
    """``text`` with control characters made visible (:func:`visible`), mentions, issue references, autolinks,
    math and bidi controls made inert (module doc)."""
    s = visible(text)
    if not _ACTIVE.search(s):
        return s
    s = _BIDI.sub("", s)
    s = _MENTION.sub(lambda m: m.group(1) + BREAK, s)
    s = _URL.sub(lambda m: (m.group(1) or m.group(2)) + BREAK, s)
    return _DOLLAR.sub(r"\\$", s)
