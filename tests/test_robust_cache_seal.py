"""Eleventh-session robustness (tests/fuzz_s11.py ``cache_npy``): the cached Timeline (``.npy`` arrays, Arrow side
tables, ``meta.json``) is served only when every byte is as written, and it is served at all."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from gpulens import cache
from gpulens.collectors import collect

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def trace(tmp_path, monkeypatch):
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    doc = json.loads((DATA / "cases" / "B13.json").read_text())
    for e in doc["traceEvents"][1:3]:  # two kernels with a launch configuration; runtime calls have none
        e["args"].update({"grid": [132, 1, 1], "block": [256, 1, 1], "registers per thread": 64,
                          "shared memory": 4096})
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    return p


def _counting(p: Path):
    calls = []

    def load():
        calls.append(1)
        return collect(p, cache=False)
    return load, calls


def test_a_timeline_with_unknown_launch_sizes_is_served_from_the_cache(trace):
    """Kind: nullable columns of a narrow integer type (block size, registers, shared memory are Int32) were written
    as float arrays (NA → NaN) and failed validation on every re-open: the cache was rebuilt on every run, never
    served. The trace (B13 with a launch configuration given to two kernels) has block_x known on those two rows
    and unknown (NA) on the others."""
    fresh = collect(trace, cache=False)
    assert fresh.events["block_x"].isna().any() and fresh.events["block_x"].eq(256).sum() == 2
    load, calls = _counting(trace)
    first = cache.load_or_collect(trace, "kineto", load)
    second = cache.load_or_collect(trace, "kineto", load)
    assert len(calls) == 1  # the second open is a cache hit
    pd.testing.assert_frame_equal(second.events, fresh.events)
    pd.testing.assert_frame_equal(first.events, fresh.events)
    assert str(second.events["block_x"].dtype) == "Int32"


def _damage(rng: random.Random, f: Path, how: str) -> None:
    raw = bytearray(f.read_bytes())
    if how == "flip_tail":  # the last byte: inside the last value of an array (past every header)
        raw[-1] ^= 0x01
    elif how == "flip_any":
        raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    elif how == "cut":
        raw = raw[: len(raw) // 2]
    elif how == "empty":
        raw = bytearray()
    f.write_bytes(bytes(raw))


@pytest.mark.parametrize("how", ["flip_tail", "flip_any", "cut", "empty", "removed", "extra"])
def test_a_damaged_cached_timeline_is_rebuilt_never_served(trace, how):
    """Kind: the cached Timeline's arrays were memory-mapped unchecked: a flipped byte in, say, the dur_ns array
    (a duration off by 1 ns, a kernel renamed by a changed category code) passed validation and was served to
    every analysis and to ``--perfetto`` / ``--csv``. Each way of damaging each file of the entry must give a
    Timeline equal to a fresh load of the trace, loaded again (not from the damaged entry)."""
    fresh = collect(trace, cache=False)
    load, calls = _counting(trace)
    cache.load_or_collect(trace, "kineto", load)
    entry = cache.entry_path(trace, "kineto")
    names = sorted(f.name for f in entry.iterdir() if f.name != "gpulens-cache.json")
    assert "meta.json" in names and any(n.endswith(".npy") for n in names)
    rng = random.Random(11)
    for name in names:
        cache.load_or_collect(trace, "kineto", load)  # rebuilt by the previous round: healthy again
        before = len(calls)
        f = entry / name
        if how == "removed":
            f.unlink()
        elif how == "extra":
            (entry / f"{name}.extra").write_bytes(b"\x93NUMPY")
        else:
            _damage(rng, f, how)
        got = cache.load_or_collect(trace, "kineto", load)
        assert len(calls) == before + 1, f"{how} {name}: the damaged entry was served"
        pd.testing.assert_frame_equal(got.events, fresh.events)
        pd.testing.assert_frame_equal(got.counters, fresh.counters)


def test_perfetto_export_after_a_flipped_array_byte_is_the_fresh_export(trace, tmp_path):
    """The same kind end to end: ``gpulens analyze --perfetto`` re-reads the cached Timeline; after one byte of the
    dur_ns array is flipped it must write the trace's own durations (the export of a ``--no-cache`` run)."""
    from gpulens.cli import main

    want, got = tmp_path / "want.json", tmp_path / "got.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--perfetto", str(want)]) == 0
    assert main(["analyze", str(trace), "-q", "--perfetto", str(tmp_path / "first.json")]) == 0
    entry = cache.entry_path(trace, "kineto")
    doc = json.loads(cache._unsealed((entry / "meta.json").read_bytes()))
    i = [c[0] for c in doc["columns"]["events"]].index("dur_ns")
    _damage(random.Random(0), entry / f"events.{i}.values.npy", "flip_tail")
    assert main(["analyze", str(trace), "-q", "--perfetto", str(got)]) == 0
    assert json.loads(got.read_text()) == json.loads(want.read_text())


@pytest.mark.parametrize("which", ["results", "json_report", "state", "meta.json", "gpulens-cache.json", "npy"])
def test_a_fifo_in_place_of_a_cache_file_is_a_damaged_entry_not_a_hang(trace, tmp_path, which):
    """Kind: the cache read its files with a plain open: a FIFO put in place of a rendered report, of an entry's
    ``meta.json`` or of an array blocked every later ``gpulens analyze`` of that trace forever (before any trace is
    read). Each cache file replaced by a FIFO must give the report of a fresh run, within seconds."""
    import os

    from gpulens.cli import main

    want, got = tmp_path / "want.json", tmp_path / "got.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(want)]) == 0
    assert main(["analyze", str(trace), "-q", "--json", str(tmp_path / "first.json")]) == 0
    root = tmp_path / "cache"
    entry = cache.entry_path(trace, "kineto")
    results = [f for f in root.iterdir() if f.name.endswith(".results")]
    assert len(results) == 1
    if which in ("meta.json", "gpulens-cache.json", "npy"):  # the Timeline entry is read when results are not
        for f in root.iterdir():
            if f.is_file():
                f.unlink()
        victim = entry / which if which != "npy" else next(entry.glob("events.*.npy"))
    elif which == "results":
        victim = results[0]
    else:
        (victim,) = [f for f in root.iterdir() if f.name.startswith(results[0].name + "." + which)]
    victim.unlink()
    os.mkfifo(victim, 0o600)

    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))  # a new process: nothing memoised in this one
    try:
        run = subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", str(trace),
                              "-q", "--json", str(got)], env=env, timeout=120, capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"blocked on the FIFO {victim.name}")
    assert run.returncode == 0, run.stderr
    a, b = json.loads(want.read_text()), json.loads(got.read_text())
    for d in (a, b):
        d.pop("created", None)
    assert a == b
