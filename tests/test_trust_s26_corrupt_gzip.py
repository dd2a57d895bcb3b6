"""A corrupt gzip stream cuts the trace at its first damage, in strict and lenient reading alike.

Kind: bytes flipped inside the deflate data of a ``.json.gz`` trace. zlib goes on producing text after the flip (the
data check fails only at the end), so the JSON reader meets damage with more text after it. That text is what zlib
made of bad data, not the trace: strict reading refused the file ("damage inside traceEvents … --lenient"), and
lenient reading would skip the damage and read the garbage after it as events. Expected: the events decompressed
before the damage are kept (their count is read off the file's own decompressed prefix here), the input is marked
truncated, and the warning says the gzip data is corrupt.
"""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

from gpulens.collectors import collect


def _trace(n: int = 4000) -> bytes:
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i % 7}", "pid": 0, "tid": 7, "ts": 1000 + 20 * i, "dur": 10,
           "args": {"device": 0, "stream": 7, "correlation": i}} for i in range(n)]
    return json.dumps({"traceEvents": ev}, indent=1).encode()


@pytest.mark.parametrize("strict", [True, False])
def test_corrupt_gzip_is_cut_at_its_first_damage(tmp_path, strict):
    raw = _trace()
    blob = bytearray(gzip.compress(raw, 6))
    mid = len(blob) // 2
    for i in range(mid, mid + 64):
        blob[i] ^= 0x55
    with pytest.raises(zlib.error):
        zlib.decompress(bytes(blob), 31)
    p = tmp_path / "t.json.gz"
    p.write_bytes(bytes(blob))
    d, out = zlib.decompressobj(31), []
    try:  # fed in small pieces: what zlib yields before it reports the damage
        for i in range(0, len(blob), 256):
            out.append(d.decompress(bytes(blob[i:i + 256])))
    except zlib.error:
        pass
    text = b"".join(out)
    # the events intact before the first byte where the decompressed text differs from the original
    same = next((i for i, (a, b) in enumerate(zip(text, raw)) if a != b), min(len(text), len(raw)))
    intact = raw[:same].count(b'"cat": "kernel"') - 1  # the last one reached may be cut
    tl = collect(p, strict=strict)
    assert tl.meta.truncated
    assert any("corrupt" in w for w in tl.meta.warnings)
    assert intact - 1 <= len(tl.events) <= intact + 1 < 4000
