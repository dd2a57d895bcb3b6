"""Text encodings of every text format (issue 17 class 1): a UTF-8 byte-order mark, UTF-16 (LE/BE, with or without
a BOM — PowerShell 5's ``nsys stats ... > out.csv`` writes UTF-16 LE) and UTF-32 are read as the same text
(:func:`gpulens.collectors._io.as_utf8`, one rule for the sniffers, :func:`read_input` and the Kineto stream);
they were "not a recognised trace format".

Inputs: committed seeds re-encoded here; the expected result is the one of the UTF-8 file itself.
"""

from __future__ import annotations

import codecs
import gzip

import pytest

from gpulens.collectors import collect
from gpulens.collectors._io import as_utf8, text_codec

from .conftest import CASES, DATA

SEEDS = [
    (CASES / "B13.json", "t.pt.trace.json"),
    (DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv", "kernel_trace.csv"),
    (CASES / "B20.ncu_details_15col.csv", "details.csv"),
    (DATA / "nvidia" / "codegandee_rtx5090_dsocr_prefill_cuda_gpu_kern_sum.csv", "kern_sum.csv"),
    (CASES / "B17.v1_results.csv", "results.csv"),
]
ENCODINGS = {
    "utf-8-bom": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "utf-16": lambda t: t.encode("utf-16"),  # with BOM (native order: LE here)
    "utf-16-be-bom": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
    "utf-16-le-no-bom": lambda t: t.encode("utf-16-le"),
    "utf-32": lambda t: t.encode("utf-32"),
    "utf-16-gzip": lambda t: gzip.compress(t.encode("utf-16")),
}


def _sig(tl):
    """Events (kind, name, start, duration) and, for summary formats (nsys stats), the kernel summary rows."""
    ev = tl.events.sort_values(["start_ns", "name"], kind="stable")
    rows = list(zip(ev["kind"].astype(str), ev["name"].astype(str), ev["start_ns"].tolist(), ev["dur_ns"].tolist()))
    summ = tl.tables.get("kernel_summary")
    return rows + ([] if summ is None else sorted(zip(summ["name"].astype(str), summ["total_ns"].tolist())))


@pytest.mark.parametrize("enc", sorted(ENCODINGS))
@pytest.mark.parametrize("src, name", SEEDS, ids=[n for _, n in SEEDS])
def test_every_text_format_reads_the_same_in_any_unicode_encoding(tmp_path, src, name, enc):
    text = src.read_text(encoding="utf-8")
    (tmp_path / "u").mkdir()
    (tmp_path / "e").mkdir()
    plain, other = tmp_path / "u" / name, tmp_path / "e" / name
    plain.write_text(text, encoding="utf-8")
    other.write_bytes(ENCODINGS[enc](text))
    want = _sig(collect(plain))
    assert want  # the seed has events (or summary rows)
    assert _sig(collect(other)) == want


def test_codec_detection_and_incremental_transcoding():
    assert text_codec(b'{"traceEvents"') is None and text_codec(b"SQLite format 3\x00" * 4) is None
    assert text_codec("Kernel_Name,Start".encode("utf-16-be")) == "utf-16-be"
    # a character split between two blocks is joined again (é is 2 bytes in UTF-16, cut after the first)
    data = "\ufeffname,é\n".encode("utf-16-le")
    blocks = [data[:13], data[13:]]
    assert b"".join(as_utf8(iter(blocks))) == "name,é\n".encode("utf-8")
