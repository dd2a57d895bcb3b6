"""Keeping credentials out of everything gpulens writes.

Profiler metadata can hold a whole process environment (a Kineto ``metadata.system.env`` with ``HF_TOKEN``, a
rocprofv3 command line with ``--token …``). :func:`scrub` is applied where trace metadata enters a Timeline
(:class:`gpulens.timeline.TimelineMeta`), so no report — JSON, HTML, Markdown, Perfetto, baseline, cache — can copy
it. Rules:

* a mapping under a key that names an environment (``env``, ``environ``, ``environment_variables``…) is replaced
  by ``"<removed: N environment variables>"``;
* the text value of a key that looks secret (:data:`SECRET_KEY`: ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``,
  ``*PASSPHRASE*``, ``KEY`` as a word part — ``API_KEY``, ``aws-key`` but not ``keys``/``monkey`` —, ``*CREDENTIAL*``,
  ``*AUTH*`` but not ``author``, ``*COOKIE*``) is replaced by ``"<redacted>"`` (numbers are kept: a token count is
  not a credential);
* a key named like an environment variable (:data:`ENV_NAME`: upper-case words joined by ``_`` — ``MASTER_ADDR``,
  ``CUDA_VISIBLE_DEVICES``, ``SLURM_JOB_ID`` — or one of the shell's own, ``PATH``, ``HOME``, ``USER``…) holding a
  single value is dropped: a trace's metadata copied from the environment one variable at a time (a
  ``distributedInfo`` with ``MASTER_ADDR``) is an environment all the same; the mapping says how many went
  (``"environment_variables_removed": 2``). No profiler writes its own fields that way;
* a command line (the text value of a key named ``command``, ``cmd``, ``cmdline``, ``command_line``, ``argv``) keeps
  its program and options, but the value of an environment assignment before it (``HF_HUB_TOKEN=… python x.py``)
  and of an option whose name looks secret (``--wandb-key …``, ``--password=…``) become ``<redacted>``;
* any string that contains a credential pattern (:data:`CREDENTIAL`: Hugging Face ``hf_…``, GitHub ``ghp_…``/
  ``github_pat_…``, AWS ``AKIA…``, Slack ``xox…``, OpenAI-style ``sk-…``, PEM private keys, ``Bearer …``) has it
  replaced by ``<redacted>`` wherever it sits (a warning, a command line, a path).

gpulens's own keys (``machine_key``, ``path``…) never match: they are not secret-looking by the rules above.
"""

from __future__ import annotations

import re
from typing import Any

REDACTED = "<redacted>"
#: Keys whose value is a credential (matched case-insensitively, anywhere in the key, word-ish boundaries).
SECRET_KEY = re.compile(r"(TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|(^|[^A-Z])KEY([^A-Z]|$)|APIKEY|CREDENTIAL|"
                        r"AUTH(?!OR)|COOKIE)", re.IGNORECASE)
#: gpulens's own keys that the rules above would catch.
_OWN_KEYS = frozenset({"machine_key"})
#: Keys holding a process environment (their whole mapping is dropped).
ENV_KEY = re.compile(r"^(env|environ|environment[_ ]?variables|env[_ ]?vars|os[_.]environ)$", re.IGNORECASE)
#: A key named like one environment variable (its single value is dropped with the others of its mapping).
ENV_NAME = re.compile(r"^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|PATH|HOME|USER|USERNAME|LOGNAME|PWD|OLDPWD|HOSTNAME|SHELL|"
                      r"LANG|TERM|TMPDIR|DISPLAY)$")
#: The key that counts the environment variables dropped from a mapping.
ENV_REMOVED_KEY = "environment_variables_removed"
#: Keys whose text value is a command line.
COMMAND_KEY = re.compile(r"^(command|cmd|cmdline|command[_ ]line|argv)$", re.IGNORECASE)
#: In a command line: an environment assignment (``NAME=value``) or an option with a secret-looking name and its value.
_COMMAND_SECRET = re.compile(
    r"(?P<env>(?:^|(?<=\s))(?-i:[A-Z_][A-Z0-9_]*)=)(?P<envval>\S+)|"
    r"(?P<opt>(?:^|(?<=\s))--?(?:[A-Za-z0-9]+[-_])*(?:token|secret|passw(?:or)?d|passphrase|key|apikey|credentials?|"
    r"auth)(?:[-_][A-Za-z0-9]+)*(?:=|\s+))(?P<optval>[^\s-]\S*)", re.IGNORECASE)


def scrub_command(text: str) -> str:
    """A command line with the values of its environment assignments and of its secret-looking options replaced by
    ``<redacted>`` (``"HF_TOKEN=x torchrun --wandb-key y train.py"`` → ``"HF_TOKEN=<redacted> torchrun --wandb-key
    <redacted> train.py"``), then :func:`scrub_text`."""
    if not isinstance(text, str):
        return text
    return scrub_text(_COMMAND_SECRET.sub(lambda m: (m.group("env") or m.group("opt")) + REDACTED, text))


#: Credential-shaped text (patterns of the issuers' documented token formats).
CREDENTIAL = re.compile(
    r"hf_[A-Za-z0-9]{30,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|(?:AKIA|ASIA)[0-9A-Z]{16}|"
    r"xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,}|glpat-[A-Za-z0-9_-]{20,}|"
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)|"
    r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{20,}")


def scrub_text(text: str) -> str:
    """``text`` with every credential pattern replaced by ``<redacted>`` (and lone surrogates and control
    characters made visible: :func:`encodable`)."""
    return encodable(CREDENTIAL.sub(REDACTED, text)) if isinstance(text, str) else text


_SURROGATE = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f\x7f-\x9f]")


def encodable(text: str) -> str:
    """``text`` with every lone surrogate and control character (but newline and tab) written as a visible escape,
    so that it can be written as UTF-8 and printed on a terminal: a file name that is not UTF-8 reaches Python as
    ``\\udcff`` (PEP 383: ``\\xff`` shown here), a JSON trace may hold ``"\\ud800"`` or an escape sequence in a
    device name. Kept, surrogates made every report writer fail (``UnicodeEncodeError``, exit 70) for a trace
    named with a Latin-1 byte."""
    if not isinstance(text, str) or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_visible, text)


_UNWRITABLE = re.compile("[\ud800-\udfff\x00-\x08\x0b-\x1f]")


def writable(text: str) -> str:
    """``text`` of a rendered report made writable as UTF-8: lone surrogates and C0 control characters (but newline
    and tab) written as visible escapes, as :func:`encodable` does; DEL and the C1 controls (U+007F–U+009F) kept —
    they are valid UTF-8 and valid raw inside JSON strings and XML text, and a report's renderer has already shown
    them its own way (a JSON encoder leaves them raw, so a ``\\x85`` written there would be an invalid escape)."""
    if not isinstance(text, str) or not _UNWRITABLE.search(text):
        return text
    return _UNWRITABLE.sub(_visible, text)


#: The C0 control characters :func:`writable` escapes (all but tab and newline), each as its one UTF-8 byte (a byte
#: below 0x80 never occurs inside the encoding of another character).
_UNWRITABLE_BYTES = tuple(bytes([c]) for c in (*range(0x00, 0x09), *range(0x0B, 0x20)))


def writable_utf8(text: str) -> bytes:
    """``writable(text).encode("utf-8")``, without the character scan when there is nothing to escape: the text is
    encoded once (a lone surrogate fails the encoding) and its bytes searched for the control bytes
    (:data:`_UNWRITABLE_BYTES`, one ``memchr`` each) — 2.5 ms instead of 18 ms for a 1.6 MB HTML report."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped by writable
        return writable(text).encode("utf-8")
    if any(b in data for b in _UNWRITABLE_BYTES):
        return writable(text).encode("utf-8")
    return data


def _visible(m: re.Match) -> str:
    c = ord(m.group(0))
    if 0xDC80 <= c <= 0xDCFF:  # a byte of a file name that is not UTF-8
        return f"\\x{c - 0xDC00:02x}"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def scrub(obj: Any, _depth: int = 0) -> Any:
    """A copy of ``obj`` (dicts, lists, scalars) with environments removed and secrets redacted (module docstring).

    Nesting deeper than 64 levels is cut (``"<nested too deep>"``): metadata is never that deep, and a crafted one
    must not exhaust the stack.
    """
    if _depth > 64:
        return "<nested too deep>"
    if isinstance(obj, dict):
        out = {}
        dropped = 0
        for k, v in obj.items():
            ks = str(k)
            if ENV_NAME.match(ks) and not isinstance(v, (dict, list)):
                dropped += 1
            elif ENV_KEY.match(ks) and isinstance(v, (dict, list)):
                out[k] = f"<removed: {len(v)} environment variables>"
            elif isinstance(v, str) and v and SECRET_KEY.search(ks) and ks not in _OWN_KEYS:
                out[k] = REDACTED
            elif isinstance(v, (str, list)) and COMMAND_KEY.match(ks):
                out[k] = (scrub_command(v) if isinstance(v, str)
                          else scrub(scrub_command(" ".join(map(str, v))).split(" "), _depth + 1))
            else:
                out[k] = scrub(v, _depth + 1)
        if dropped:
            out[ENV_REMOVED_KEY] = dropped + (out.get(ENV_REMOVED_KEY) if type(out.get(ENV_REMOVED_KEY)) is int else 0)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(scrub(v, _depth + 1) for v in obj)
    if isinstance(obj, str):
        return scrub_text(obj)
    return obj


def find_credentials(text: str) -> list[str]:
    """Every credential-shaped substring of ``text`` (for scanning files; see tests/test_secrets.py)."""
    return [m.group(0) for m in CREDENTIAL.finditer(text)]
