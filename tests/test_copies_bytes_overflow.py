"""Copy sizes that are each a valid int64 but add up past 2^63 (two copies of 2^62 bytes, fuzzer) made the copies
analyzer raise "cannot safely cast non-equivalent uint64 to int64" — an internal error for the whole command. Such
a total is unknown (null), never a wrapped or clipped number; realistic totals stay exact.

Hand-made traces (tests/dig_traces.KTrace: each launch enqueues a gpu_memcpy of 1 MiB unless ``bytes`` is set).
"""

from __future__ import annotations

import json

from gpulens.analyzers import run_all
from gpulens.cli import main
from gpulens.collectors import collect

from .dig_traces import KTrace


def _copies(path, sizes):
    k = KTrace()
    for i, n in enumerate(sizes):
        ext = k.op("aten::copy_", 100 + 100 * i, 50)
        k.launch(ext, 105 + 100 * i, [("Memcpy HtoD (Pageable -> Device)", 110 + 100 * i, 10)], cat="gpu_memcpy")
        k.ev[-1]["args"]["bytes"] = n
    return k.write(path)


def test_byte_totals_beyond_int64_are_unknown(tmp_path):
    p = _copies(tmp_path / "t.json", [2 ** 62, 2 ** 62])  # 2^63: one past int64's largest value
    res = run_all(collect(p))["copies"]
    assert res.summary["copies"] == 2 and res.summary["copy_bytes"] is None
    assert res.table["bytes"].isna().all()
    js = tmp_path / "r.json"
    assert main(["analyze", str(p), "-q", "--no-cache", "--json", str(js), "--markdown", str(tmp_path / "r.md")]) \
        in (0, 1)
    assert json.loads(js.read_text())["sources"][0]["analyses"]["copies"]["summary"]["copy_bytes"] is None


def test_realistic_byte_totals_stay_exact(tmp_path):
    sizes = [1 << 20, 3 * (1 << 20) + 7]
    res = run_all(collect(_copies(tmp_path / "t.json", sizes)))["copies"]
    assert res.summary["copy_bytes"] == sum(sizes) == 4_194_311
    assert res.table["bytes"].dropna().astype("int64").sum() == sum(sizes)
