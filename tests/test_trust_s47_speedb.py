"""Session 47, speedb: fixed costs of ``gpulens analyze`` and of each file of a rank folder (issue 16).

Each test names what it checks and where its expected value comes from (the input written here, a subprocess's own
``sys.modules``, the file's size).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _events(n_kernels: int, rank: int = 0, steps: int = 2) -> list[dict]:
    """A small valid Kineto trace: ``steps`` ProfilerStep annotations, each with launches and their kernels."""
    ev: list[dict] = []
    t = 1000.0
    per = max(1, n_kernels // steps)
    k = 0
    for s in range(steps):
        start = t
        for _ in range(per):
            k += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t,
                       "dur": 4.0, "args": {"correlation": k}})
            ev.append({"ph": "X", "cat": "kernel", "name": f"gemm_{k % 3}", "pid": 0, "tid": 7, "ts": t + 5,
                       "dur": 20.0 + k % 5, "args": {"correlation": k, "device": 0, "stream": 7}})
            t += 30.0
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
                   "ts": start - 1, "dur": t - start + 2})
    return ev


def _trace(path: Path, n_kernels: int = 12, rank: int = 0) -> Path:
    doc = {"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 4},
           "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85899345920,
                                 "computeMajor": 9, "computeMinor": 0, "numSms": 132}],
           "traceEvents": _events(n_kernels, rank)}
    path.write_text(json.dumps(doc, indent=1))
    return path


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("FORCE_COLOR", None)
    env.pop("TTY_COMPATIBLE", None)
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300,
                          env=env, stdin=subprocess.DEVNULL)


_CLI_MODULES = ("import sys\nfrom gpulens.cli import main\ncode = main(sys.argv[1:])\n"
                "print('RICH', 'rich.console' in sys.modules, 'CODE', code)")


def test_a_quiet_json_run_never_imports_rich_and_a_summary_run_still_prints(tmp_path):
    """``analyze -q --json`` prints nothing, so rich's console module (≈ 20 ms of import) must not be loaded; the
    same command without ``-q`` prints its summary through rich, and both write the same JSON report."""
    trace = _trace(tmp_path / "t.pt.trace.json")
    quiet = _run(_CLI_MODULES, "analyze", str(trace), "-q", "--no-cache", "--json", str(tmp_path / "q.json"))
    assert quiet.stdout.split()[-4:] == ["RICH", "False", "CODE", "0"], quiet.stdout + quiet.stderr
    loud = _run(_CLI_MODULES, "analyze", str(trace), "--no-cache", "--json", str(tmp_path / "l.json"))
    assert loud.stdout.split()[-4:] == ["RICH", "True", "CODE", "0"], loud.stdout + loud.stderr
    assert "JSON report written to" in loud.stdout
    q, lo = (json.loads((tmp_path / f).read_text()) for f in ("q.json", "l.json"))
    q.pop("created"), lo.pop("created")
    assert q == lo


def test_a_quiet_run_with_no_gpu_work_still_says_so(tmp_path):
    """The deferred console of ``-q`` still prints the one line a run without GPU work owes the user (exit 5)."""
    p = tmp_path / "cpu_only.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                                              "ts": 10.0, "dur": 5.0}]}))
    out = _run(_CLI_MODULES, "analyze", str(p), "-q", "--no-cache")
    assert "CODE 5" in out.stdout, out.stdout + out.stderr
    assert "No GPU work found" in out.stderr


def test_the_spinner_is_not_asked_of_rich_where_nothing_could_show_it(monkeypatch):
    """A deferred console on a stream that is not a terminal gets the do-nothing status without being made; forced
    colour makes rich decide (and rich's own answer is used)."""
    import io

    from gpulens.cli import _console

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    con = _console.Deferred(stderr=True)
    with _console.status(con, "Loading …") as st:
        st.update("x")
    assert con._con is None
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    assert _console._may_show(True)
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert not _console._may_show(True)  # rich: TTY_COMPATIBLE=0 wins over FORCE_COLOR


def test_a_small_file_is_never_given_a_buffer_for_more_than_it_holds(tmp_path):
    """A file read whole by its first block: the stream's text buffer holds its bytes (the file's size, read here)
    and is not the four blocks a large file's reads need (a zero-filled 32 MiB per rank file of a folder)."""
    from gpulens.collectors._stream import StreamInfo, _Text, iter_blocks

    p = _trace(tmp_path / "small.json", 40)
    size = p.stat().st_size
    block = 1 << 20
    assert size < block
    t, info = _Text(block), StreamInfo()
    for blk in iter_blocks(p, info, block=block, into=t.read_into):
        if not isinstance(blk, int):
            t.append(blk)
    assert info.nbytes == size and bytes(t.buf[:t.hi]) == p.read_bytes()
    assert len(t.buf) <= 2 * size < block


def test_a_file_longer_than_a_block_is_read_whole_into_the_buffer(tmp_path):
    """Reads after the first block never ask past the file's end, and every byte arrives once, in order (the file
    itself is the expected text), at any block size."""
    from gpulens.collectors._stream import StreamInfo, _Text, iter_blocks

    p = _trace(tmp_path / "mid.json", 400)
    data = p.read_bytes()
    for block in (1 << 12, 5000, len(data) - 1, len(data), len(data) + 1):
        t, info = _Text(block), StreamInfo()
        asked: list[int] = []

        def into(fh, n, _t=t):
            asked.append(n)
            return _t.read_into(fh, n)

        for blk in iter_blocks(p, info, block=block, into=into):
            if not isinstance(blk, int):
                t.append(blk)
        assert info.nbytes == len(data)
        assert sum(asked) == len(data) - min(block, len(data))  # exactly the rest of the file, nothing past it


def test_a_small_rank_file_skips_the_heap_trim_and_a_large_one_keeps_it(monkeypatch, tmp_path):
    """The heap trim after decoding walks the whole heap: skipped below ``TRIM_AFTER_BYTES`` of trace text, kept at
    or above it (the threshold set here around the file's own size) in a library process, which also trims once
    after the columns are assembled; a process keeping freed memory (the command line) trims after decoding only
    below ``LARGE_FILE_BYTES`` of text, never after assembly (session 50)."""
    from gpulens.collectors import kineto

    p = _trace(tmp_path / "r.json", 20)
    trims: list[int] = []
    monkeypatch.setattr(kineto, "release_free_memory", lambda: trims.append(1))
    monkeypatch.setattr(kineto, "keeping_freed_memory", lambda: False)  # a library process
    kineto.KinetoCollector().collect(p)
    assert len(trims) == 1  # after assembly only
    monkeypatch.setattr(kineto, "TRIM_AFTER_BYTES", p.stat().st_size)
    trims.clear()
    kineto.KinetoCollector().collect(p)
    assert len(trims) == 2  # after decoding and after assembly
    monkeypatch.setattr(kineto, "keeping_freed_memory", lambda: True)  # the command line's policy
    trims.clear()
    kineto.KinetoCollector().collect(p)
    assert len(trims) == 1  # after decoding: a file below LARGE_FILE_BYTES
    monkeypatch.setattr(kineto, "LARGE_FILE_BYTES", p.stat().st_size)  # the file counts as large from here
    trims.clear()
    kineto.KinetoCollector().collect(p)
    assert trims == []  # its analysis reuses the freed pages


def test_critical_path_segments_of_many_windows_add_up_per_window(tmp_path):
    """A folder of 4 ranks × 2 steps: each window's segments are numbered from 0, each offset is the sum of the
    window's earlier segment lengths, and a window's segments sum to the positive lengths of its path (the path's
    own arrays); the longest runtime-call segment of the finding is the longest runtime row of that table."""
    from gpulens.analyzers._critical_paths import paths
    from gpulens.collectors import collect
    from gpulens.report import analyze_timeline

    d = tmp_path / "run"
    d.mkdir()
    for r in range(4):
        _trace(d / f"rank-{r}.pt.trace.json", 12 + 4 * r, rank=r)
    tl = collect(d)
    want = {(int(r), s): int(np.asarray(sg.cols["ns"])[np.asarray(sg.cols["ns"]) > 0].sum())
            for r, s, _, sg in paths(tl)}
    res = analyze_timeline(tl, str(d), ["critical_path", "critical_path_segments"]).results
    seg = res["critical_path_segments"].table
    assert len(want) == 8 and len(seg)
    for (rank, step), g in seg.groupby(["rank", "step"], sort=False):
        assert g["order"].tolist() == list(range(len(g)))
        dur = g["dur_ns"].to_numpy()
        assert (g["offset_ns"].to_numpy() == np.cumsum(dur) - dur).all()
        assert int(dur.sum()) == want[(int(rank), int(step))]
    assert str(seg["step"].dtype) == "Int64" and seg["rank"].dtype == np.int64
    assert seg["class"].map(type).eq(str).all() and seg["event"].map(type).eq(str).all()
