"""Making text from traces safe to paste into a pull request or an issue (GitHub-flavoured Markdown).

Kernel names, labels and paths come from files anyone can write. Escaping Markdown punctuation keeps them from
breaking a table, but GitHub also turns plain text into actions and disguises: ``@user`` and ``@org/team`` notify
people, ``#1234`` and ``owner/repo#12`` link (and cross-reference) issues, bare ``https://…`` and ``www.…`` become
links, ``$…$`` renders as math, and bidirectional controls (U+202E…) make text read differently from what it is.
:func:`neutralise` is applied last by the Markdown reporters (after their own escaping):

* a U+200D zero-width joiner after ``@`` and ``#`` when a name/number follows, and inside ``://`` and ``www.`` of
  URLs: the text looks the same but no mention, reference or autolink is made;
* ``$`` is backslash-escaped (no math);
* bidirectional controls and other invisible format characters (U+200E/F, U+202A–E, U+2066–9, U+061C, U+FEFF) are
  removed;
* control characters other than newline and tab (an escape sequence that recolours or retitles the terminal the
  file is shown on, NUL, backspace, carriage return) are written as visible backslash escapes (``\\x1b``).
"""

from __future__ import annotations

import re

ZWJ = "\u200d"
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_MENTION = re.compile(r"([@#＠])(?=[\w-])")
_URL = re.compile(r"(?i)\b(https?|ftp|file)(?=://)|\b(www)(?=\.)")
_DOLLAR = re.compile(r"(?<!\\)\$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def neutralise(text: str) -> str:
    """``text`` with mentions, issue references, autolinks, math and bidi controls made inert (module doc)."""
    s = _BIDI.sub("", str(text))
    s = _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), s)
    s = _MENTION.sub(lambda m: m.group(1) + ZWJ, s)
    s = _URL.sub(lambda m: (m.group(1) or m.group(2)) + ZWJ, s)
    return _DOLLAR.sub(r"\\$", s)
