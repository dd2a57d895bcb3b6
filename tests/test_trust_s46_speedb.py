"""Rendering cost of ``--html --markdown`` (session 46, issue 16 target 3: ≤ 1.1× ``--json`` alone) without a changed
figure: the timeline payload compressed at zlib level 1 (the text the browser reads is the same), the compact-table
rules importable without rich, the chart labels of per-rank rows read from columns, a kernel page's facts read by
position — each checked against the general path or hand-written values — and ``benchmarks/corpus_identical.py``
comparing an HTML report's compressed blocks by their content."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

import gpulens
from gpulens.analyzers import AnalysisResult


def _ci():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    try:
        import corpus_identical as ci
    finally:
        sys.path.pop(0)
    return ci


def _page(raw: bytes, level: int) -> bytes:
    b64 = base64.b64encode(gzip.compress(raw, level, mtime=0)).decode("ascii")
    return (f'<!DOCTYPE html><html><body><script type="application/octet-stream" id="fig-3-data">{b64}</script>'
            "</body></html>").encode()


def test_compressed_blocks_compare_by_content(tmp_path):
    """Two HTML reports whose embedded payload is the same text compressed at different levels compare equal; a
    payload that differs by one digit does not, nor does a Markdown file differing in bytes."""
    ci = _ci()
    raw = json.dumps({"off": list(range(0, 40000, 7)), "names": ["gemm", "relu"]}, separators=(",", ":")).encode()
    (tmp_path / "a.html").write_bytes(_page(raw, 6))
    (tmp_path / "b.html").write_bytes(_page(raw, 1))
    assert (tmp_path / "a.html").read_bytes() != (tmp_path / "b.html").read_bytes()  # the bytes differ...
    assert ci.rendering_bytes(tmp_path / "a.html") == ci.rendering_bytes(tmp_path / "b.html")  # ...the content not
    (tmp_path / "c.html").write_bytes(_page(raw.replace(b'"relu"', b'"relv"'), 1))
    assert ci.rendering_bytes(tmp_path / "a.html") != ci.rendering_bytes(tmp_path / "c.html")
    (tmp_path / "a.md").write_bytes(b"| a |\n")
    (tmp_path / "b.md").write_bytes(b"| b |\n")
    assert ci.rendering_bytes(tmp_path / "a.md") != ci.rendering_bytes(tmp_path / "b.md")


def test_timeline_block_holds_the_payload_text():
    """The HTML timeline's block is the payload's JSON text, gzip-compressed and base64-encoded, whatever the level:
    decoded, it is ``payload_json`` of the payload, byte for byte."""
    from gpulens.reports import _html_timeline as TL

    payload = {"span": 1000, "lanes": ["rank 0 · GPU 0 · stream 7"], "off": [0, 10, 250], "names": ["k‹1›"]}
    text = TL.timeline_data_b64(payload)
    assert gzip.decompress(base64.b64decode(text)) == TL.payload_json(payload)
    assert json.loads(TL.payload_json(payload)) == payload
    assert TL.timeline_data_later(payload).result(timeout=30) == text


def test_markdown_report_needs_no_console_drawing_code():
    """A report rendered as Markdown alone imports neither rich's tables nor the console's table fitting (≈ 15 ms
    of imports ``--markdown`` does not need); the console keeps the same compact-table rules (one definition)."""
    src = str(Path(gpulens.__file__).resolve().parents[1])
    code = ("import sys; import gpulens; from gpulens.reports import markdown; "
            "r = gpulens.analyze([gpulens.demo_trace()], cache=False); text = markdown.render(r); "
            "assert '### ' in text; "
            "print(sorted(m for m in ('rich.table', 'gpulens.reports._fit', 'gpulens.reports.console_other') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"
    from gpulens.reports import _compact, console_other

    assert console_other.compact_columns is _compact.compact_columns
    assert console_other.lower_bound_note is _compact.lower_bound_note


def test_per_rank_rows_are_labelled_with_their_ids():
    """A generic chart whose rows repeat a name, one per rank and GPU, labels each bar with its ids — written by
    hand here — whatever the id columns' dtypes (int, nullable Int64, float)."""
    from gpulens.reports._html_analyses import generic_panels

    t = pd.DataFrame({"name": ["allreduce", "allreduce", "gemm"], "rank": np.array([0, 1, 1], dtype="int64"),
                      "device_id": pd.array([0, 1, None], dtype="Int64"), "time_ns": [3e6, 2e6, 1e6]})
    r = AnalysisResult("collectives", t, {"name": "collective [text]", "rank": "rank [id]",
                                          "device_id": "GPU [id]", "time_ns": "time [ns]"})
    fig = generic_panels("collectives", r, 200)[0].figure
    ticks = fig["data"][0]["y"]
    assert len(ticks) == 3
    assert "allreduce · rank 0 · GPU 0" in ticks[0] and "allreduce · rank 1 · GPU 1" in ticks[1], ticks
    assert "gemm · rank 1 · GPU" in ticks[2] and "1 · GPU 1" not in ticks[2], ticks


def test_kernel_page_facts_read_as_the_row_reads_them(monkeypatch):
    """A kernel page's facts of a row read by position in its values equal those read label by label
    (``row[c]``: the path taken for a row whose labels repeat), for every dtype a result table holds; the facts
    hand-checked: the call count, the mean in µs, a blank note left out, the name not repeated."""
    from gpulens.reports._html_kernel import _kv_row

    t = pd.DataFrame({"name": ["k1", "k2"], "calls": np.array([3, 4], dtype="int64"), "mean_ns": [1500.0, np.nan],
                      "regs": pd.array([64, None], dtype="Int64"), "note": pd.array(["x", None], dtype="str"),
                      "kind": pd.Categorical(["gemm", "elementwise"])})
    docs = {"name": "kernel [text]", "calls": "launches [count]", "mean_ns": "mean [ns]", "regs": "registers [count]",
            "note": "a note [note]", "kind": "class [text]"}
    r = AnalysisResult("kernel_groups", t, docs)
    fast = [_kv_row(r, t.iloc[i]) for i in range(len(t))]
    monkeypatch.setattr(pd.Index, "is_unique", property(lambda self: False))
    slow = [_kv_row(r, t.iloc[i]) for i in range(len(t))]
    assert fast == slow
    assert "<th scope=\"row\">calls</th><td>3</td>" in fast[0] and "1.50 µs" in fast[0] and "k1" not in fast[0]
    assert "<td>4</td>" in fast[1] and ">x<" not in fast[1]


def test_escape_is_the_standard_librarys():
    """The HTML report's own escape gives what ``html.escape`` gives (with and without quotes) for every character
    up to U+2FFF, text mixing every special character, and already-escaped text (escaped again, never decoded)."""
    import html
    import random

    from gpulens.reports._html_parts import _escape

    rnd = random.Random(46)
    samples = [chr(c) for c in range(0x3000)] + ["", "a&b<c>d\"e'f", "&amp;&lt;", "&&<<>>\"\"''", "<script>'x'</script>"]
    samples += ["".join(rnd.choice("&<>\"'ab ‹›\u202e") for _ in range(rnd.randint(1, 30))) for _ in range(500)]
    for s in samples:
        assert _escape(s) == html.escape(s) == html.escape(s, quote=True), s
        assert _escape(s, quote=False) == html.escape(s, quote=False), s
    assert _escape("a<b & \"c\" 'd'") == "a&lt;b &amp; &quot;c&quot; &#x27;d&#x27;"  # written by hand
