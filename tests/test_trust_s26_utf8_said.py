"""Invalid UTF-8 replaced in a trace is said, counted, in the warnings (case B03b's kind).

Bytes ``FF`` and ``FE`` are never valid in UTF-8: each becomes one U+FFFD, so a name holding both comes out with two
replacement characters, and the warning counts 2. A name that holds a real U+FFFD (valid UTF-8 ``EF BF BD``) is no
replacement and is not counted. Before, the names changed silently.
"""

from __future__ import annotations

import pytest

from gpulens.collectors import collect

EV = (b'{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %d, "dur": 5, '
      b'"args": {"device": 0, "stream": 7}}')


def _write(tmp_path, names):
    body = b", ".join(EV % (n, 10 + 10 * i) for i, n in enumerate(names))
    p = tmp_path / "t.json"
    p.write_bytes(b'{"traceEvents": [' + body + b"]}")
    return p


@pytest.mark.parametrize("strict", [True, False])
def test_replaced_bytes_are_counted(tmp_path, strict):
    tl = collect(_write(tmp_path, [b"k_\xff\xfe_v2", b"ok"]), strict=strict)
    assert list(tl.events["name"].astype(str)) == ["k_\ufffd\ufffd_v2", "ok"]
    assert any("invalid UTF-8 sequences replaced by U+FFFD ×2" in w for w in tl.meta.warnings)


def test_a_real_replacement_character_is_not_counted(tmp_path):
    tl = collect(_write(tmp_path, [b"k_\xef\xbf\xbd", b"ok"]))
    assert list(tl.events["name"].astype(str)) == ["k_\ufffd", "ok"]
    assert not any("UTF-8" in w for w in tl.meta.warnings)
