"""Bytes after the end of a gzip stream (issue 17's robustness class: nothing lost silently).

A gzip file whose last member is followed by bytes that are not another member was read without a word: the bytes
were skipped. gzip(1) says "decompression OK, trailing garbage ignored" for such bytes and is silent about NUL
padding (written by block devices and some archivers); gpulens now warns with the count of bytes not read, for the
streamed Kineto reader and for every collector that reads the whole file (here ncu's CSV), and stays silent about
NUL padding. The events read are those of the plain file either way.

Inputs: tests/data/cases/B13.json (a small Kineto trace) and B20.ncu_raw.csv (ncu --csv --page raw, 2 kernels),
gzip-compressed here with the extra bytes appended.
"""

from __future__ import annotations

import gzip

import pytest

from gpulens.collectors import collect

from .conftest import CASES

TRAIL = b"GARBAGE after the stream\x00\x01"  # 26 bytes


@pytest.mark.parametrize("case", ["B13.json", "B20.ncu_raw.csv"])
def test_trailing_garbage_after_gzip_is_counted(tmp_path, case):
    raw = (CASES / case).read_bytes()
    plain = collect(CASES / case)
    p = tmp_path / (case + ".gz")
    p.write_bytes(gzip.compress(raw) + TRAIL)
    tl = collect(p)
    assert len(TRAIL) == 26
    said = [w for w in tl.meta.warnings if "trailing garbage" in w]
    assert said == [f"{p}: 26 bytes after the end of the gzip data are not gzip (trailing garbage): not read"]
    assert tl.events["name"].astype(str).tolist() == plain.events["name"].astype(str).tolist()
    assert len(tl.events) > 0


@pytest.mark.parametrize("case", ["B13.json", "B20.ncu_raw.csv"])
def test_nul_padding_after_gzip_is_silent(tmp_path, case):
    p = tmp_path / (case + ".gz")
    p.write_bytes(gzip.compress((CASES / case).read_bytes()) + b"\x00" * 4096)
    tl = collect(p)
    assert not [w for w in tl.meta.warnings if "gzip data" in w]
    assert len(tl.events) == len(collect(CASES / case).events)


def test_trailing_bytes_are_counted_beyond_the_first_block(tmp_path):
    # the count is the whole tail of the file, not what one read of it returned: 3 MiB of text after the stream
    # (the streamed reader reads the file in blocks of 8 MiB; a second member's magic is absent)
    p = tmp_path / "t.pt.trace.json.gz"
    tail = b"x" * (3 << 20)
    p.write_bytes(gzip.compress((CASES / "B13.json").read_bytes()) + tail)
    tl = collect(p)
    assert any(f"{3 << 20:,} bytes after the end of the gzip data" in w for w in tl.meta.warnings), \
        tl.meta.warnings
