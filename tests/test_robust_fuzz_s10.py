"""Tenth-session fuzzing (tests/fuzz_s10.py): one test per kind of fault it found, each on a small input built
here, with the expected value worked out from the input itself."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gpulens.reports.json_report import capped_records

DATA = Path(__file__).resolve().parent / "data"


def test_capped_other_row_never_sums_shares_of_several_wholes_nor_their_denominator():
    """Kind: the "other" row of a table cut at MAX_TABLE_ROWS summed every share column and the ns column each
    share is divided by. critical_path has one row per (rank, class) with ``share = time_ns / step_ns``: 300 ranks
    of a 90 µs step summed to a "share" of 65.9 and a 17.7 ms "step" (fuzz_s10 ranks_many). Per-rank shares sum to
    1 per rank, not over the table: their sum is no share; step_ns repeats the one step of each rank. A share of
    one whole (hot kernels' share of all kernel time) is still summed, and so is time_ns."""
    ranks = 5
    rows = [{"rank": r, "step_ns": 90_000, "class": c, "time_ns": t, "share": t / 90_000}
            for r in range(ranks) for c, t in (("kernel", 65_000), ("gpu_gap", 15_000), ("launch_delay", 10_000))]
    df = pd.DataFrame(rows)
    cols = {"rank": "rank [id]", "step_ns": "duration of the step [ns]", "class": "class [text]",
            "time_ns": "time of the class on the path [ns]", "share": "time_ns / step_ns [share]"}
    other = capped_records(df, cols, limit=3)[-1]
    assert other["other_rows"] == 12
    assert other["time_ns"] == 4 * 90_000  # the 4 other ranks' whole paths, by hand
    assert other["share"] is None and other["step_ns"] is None

    hot = pd.DataFrame({"name": list("abcdef"), "total_ns": [40, 20, 15, 10, 10, 5]})
    hot["share"] = hot["total_ns"] / 100
    other = capped_records(hot, {"name": "kernel [text]", "total_ns": "time [ns]",
                                 "share": "share of all kernel time [share]"}, limit=2)[-1]
    assert other["total_ns"] == 40 and abs(other["share"] - 0.40) < 1e-12  # 15+10+10+5 of 100


def test_damaged_cache_entries_are_rebuilt_never_served(tmp_path, monkeypatch):
    """Kind: a cached analysis (pickled results, rendered JSON/HTML/Markdown reports) damaged on disk was served as
    it was: a flipped byte in the cached JSON report was written to the user's ``--json`` file, which no longer
    parsed (fuzz_s10 cache_corrupt). Every way of damaging every cache file (cut in half, emptied, 8 bytes flipped,
    replaced by random bytes) must give the report of a fresh analysis."""
    import json
    import random

    from gpulens.cli import main

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    trace = tmp_path / "t.json"
    trace.write_bytes((DATA / "cases" / "B13.json").read_bytes())
    fresh = tmp_path / "fresh.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(fresh)]) == 0
    want = _stable(json.loads(fresh.read_text()))
    rng = random.Random(5)
    out = tmp_path / "out.json"
    assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0  # fills the cache
    entries = sorted(p.name for p in (tmp_path / "cache").iterdir() if p.is_file())
    assert len(entries) >= 2  # the results and at least the rendered JSON report
    for name in entries + ["(the Timeline's arrays)"]:
        for how in ("cut", "empty", "flip", "random"):
            assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0  # (re)fills the cache
            files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()
                     and (p.name == name if name in entries else p.suffix == ".npy")]
            assert files
            for p in files:
                raw = p.read_bytes()
                if how == "cut":
                    p.write_bytes(raw[: len(raw) // 2])
                elif how == "empty":
                    p.write_bytes(b"")
                elif how == "flip" and raw:  # one byte in the middle changed: still a whole file, with another value
                    b = bytearray(raw)
                    b[len(b) // 2] ^= 0x01
                    p.write_bytes(bytes(b))
                else:
                    p.write_bytes(rng.randbytes(64))
            assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0
            assert _stable(json.loads(out.read_text())) == want, (name, how)


def _stable(doc: dict) -> str:
    """A JSON report without the fields that differ between two runs of the same analysis (times of the run)."""
    import json
    import re

    text = json.dumps(doc, sort_keys=True)
    return re.sub(r'"(created|generated_at|created_at|cached|elapsed_s|elapsed|analysis_s)": [^,}]+', "", text)
