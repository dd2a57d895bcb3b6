"""Session 48 — a gzip input read whole whose check fails is not "truncated".

A gzip member ends with the CRC-32 and length of its text (RFC 1952 §2.3.1); zlib reports a wrong trailer only after
every byte of the text decompressed. gpulens reads the whole text and marks the result partial (a byte may be
wrong), but every reporter led with "input truncated — … (nothing is lost …): the figures cover the part read": a
contradiction in one line. Kind: a partial-result wording that names a cause the input does not have. Now the lead
is "input damaged" and the figures "cover all of its text"; an input cut short still reads "input truncated".
Expected values come from the trace the test writes (4 kernels).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from gpulens.cli import main

CASE = {"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 + 20 * i, "dur": 10,
     "args": {"device": 0, "stream": 7}} for i in range(4)]}


def _run(tmp_path: Path, data: bytes, name: str) -> tuple[int, dict, str]:
    p = tmp_path / name
    p.write_bytes(data)
    out = tmp_path / f"{name}.out.json"
    md = tmp_path / f"{name}.md"
    code = main(["analyze", "-q", "--no-cache", str(p), "--json", str(out), "--markdown", str(md)])
    return code, json.loads(out.read_text())["sources"][0], md.read_text()


def test_crc_failure_is_damaged_not_truncated(tmp_path):
    text = json.dumps(CASE).encode()
    bad = bytearray(gzip.compress(text))
    bad[-8] ^= 0xFF  # the CRC-32 of the trailer: every byte of the text still decompresses
    code, src, md = _run(tmp_path, bytes(bad), "crc.json.gz")
    assert code == 0 and src["summary"]["kernel_count"] == 4  # all four kernels of the text are read
    assert src["status"] == "partial"
    why = src["partial_reason"]
    assert why.startswith("input damaged — ") and "the figures cover all of its text" in why
    assert "truncated" not in why and "the part read" not in why
    assert "input truncated" not in md and "input damaged" in md


def test_stream_cut_short_is_still_truncated(tmp_path):
    """Control: the same gzip cut 12 bytes before its end (the stream ends early): "input truncated", the part read."""
    data = gzip.compress(json.dumps(CASE).encode())
    code, src, md = _run(tmp_path, data[:-12], "cut.json.gz")
    why = src["partial_reason"]
    assert why.startswith("input truncated — ") and "the figures cover the part read" in why
