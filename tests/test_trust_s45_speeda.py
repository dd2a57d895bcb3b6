"""Large Kineto files are read in larger blocks (:data:`gpulens.collectors._stream.LARGE_BLOCK`, issue 16: fewer
pieces, less fixed work per piece): which files get them, that a pipe is never opened twice for it, and that the
Timeline is the same whatever the block size."""

import gzip
import json
import os
import threading

import pandas as pd
import pytest

from gpulens.collectors import _stream
from gpulens.collectors.kineto import KinetoCollector


def _trace(n: int) -> dict:
    """``n`` launches, each a cpu_op, its cudaLaunchKernel and its kernel (linked by External id / correlation)."""
    ev = []
    for i in range(n):
        t = 1000.0 + 10 * i
        ev.append({"ph": "X", "cat": "cpu_op", "name": f"aten::op{i % 7}", "pid": 1, "tid": 1, "ts": t, "dur": 5.5,
                   "args": {"External id": i + 1, "Input Dims": [[i % 5 + 1, 8]], "Input type": ["float"]}})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 1,
                   "dur": 2.25, "args": {"External id": i + 1, "correlation": i + 1}})
        ev.append({"ph": "X", "cat": "kernel", "name": f"kernel_{i % 11}", "pid": 0, "tid": 7, "ts": t + 4,
                   "dur": 3.125, "args": {"External id": i + 1, "correlation": i + 1, "device": 0, "stream": 7,
                                          "grid": [i % 3 + 1, 1, 1], "block": [128, 1, 1],
                                          "registers per thread": 32, "shared memory": 0}})
    return {"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}


def _write(path, doc) -> None:
    path.write_text("{\"traceEvents\": [\n" + ",\n".join(json.dumps(e) for e in doc["traceEvents"])
                    + "\n], \"deviceProperties\": " + json.dumps(doc["deviceProperties"]) + "}")


def test_block_size_by_file_size_and_piece_size(tmp_path, monkeypatch):
    monkeypatch.setattr(_stream, "LARGE_FILE_BYTES", 1000)
    small, large, gz = tmp_path / "small.json", tmp_path / "large.json", tmp_path / "t.json.gz"
    small.write_bytes(b" " * 999)
    large.write_bytes(b" " * 1000)
    gz.write_bytes(gzip.compress(os.urandom(200)))  # ~220 bytes on disk: counted 8x, ~1760 >= 1000
    default = 8 << 20  # CHUNK_BYTES within [64 KiB, 8 MiB]
    assert _stream._block_size(small, _stream.CHUNK_BYTES) == 1 << 16  # a small file: its size, at least 64 KiB
    assert _stream._block_size(large, _stream.CHUNK_BYTES) == _stream.LARGE_BLOCK == 16 << 20
    assert _stream._block_size(gz, _stream.CHUNK_BYTES) == _stream.LARGE_BLOCK
    # a piece size asked for is kept (clamped as before), large file or not
    assert _stream._block_size(large, 20000) == 1 << 16
    assert _stream._block_size(large, 1 << 20) == 1 << 20
    assert _stream._block_size(tmp_path / "missing.json", _stream.CHUNK_BYTES) == default


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_is_not_opened_to_size_its_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(_stream, "LARGE_FILE_BYTES", 0)
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    got = []
    th = threading.Thread(target=lambda: got.append(_stream._block_size(fifo, _stream.CHUNK_BYTES)), daemon=True)
    th.start()
    th.join(10)  # opening the pipe for reading would block (no writer) and read what iter_blocks must read
    if th.is_alive():  # unblock the reader so that the thread ends, then fail
        with open(fifo, "wb"):
            pass
        pytest.fail("_block_size opened a named pipe")
    assert got == [8 << 20]


@pytest.mark.parametrize("fast", [False, True])
def test_large_blocks_give_the_same_timeline(tmp_path, monkeypatch, fast):
    path = tmp_path / "rank0.pt.trace.json"
    _write(path, _trace(3000))  # ~1 MB: one 8 MiB block, or 16 pieces of 64 KiB once "large"
    assert path.stat().st_size > 16 * (1 << 16)
    want = KinetoCollector().collect(path, fast=fast)
    monkeypatch.setattr(_stream, "LARGE_FILE_BYTES", 1 << 16)
    monkeypatch.setattr(_stream, "LARGE_BLOCK", 1 << 16)
    blocks = []
    real = _stream._Text.__init__

    def spy(self, block):
        blocks.append(block)
        real(self, block)

    monkeypatch.setattr(_stream._Text, "__init__", spy)
    got = KinetoCollector().collect(path, fast=fast)
    assert blocks == [1 << 16]  # the large-file block was used
    assert len(got.events) == 9000
    pd.testing.assert_frame_equal(got.events, want.events)
    pd.testing.assert_frame_equal(got.counters, want.counters)
    assert got.meta.warnings == want.meta.warnings


def _gpu_tl(gpus: list[tuple[int, int, int]]):
    """One kernel per (rank, device_id, dur_ns); meta lists a device record for GPUs 0 and 1 of ranks 0 and 1."""
    from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

    n = len(gpus)
    tl = Timeline(make_table(EVENT_COLUMNS, {
        "kind": ["kernel"] * n, "name": [f"k{i}" for i in range(n)], "start_ns": [100 * i for i in range(n)],
        "dur_ns": [d for _, _, d in gpus], "stream_id": [7] * n, "event_id": list(range(n)),
        "rank": [r for r, _, _ in gpus], "device_id": [g for _, g, _ in gpus], "source": ["t"] * n})).validate()
    tl.meta.devices = [{"rank": r, "device_id": g, "name": f"gpu r{r} d{g}"} for r in (0, 1) for g in (0, 1)]
    return tl


@pytest.mark.parametrize("gpus, want", [
    ([(0, 1, 5), (0, 1, 7)], "gpu r0 d1"),  # one GPU did all the work: its record, not the first listed
    ([(1, 0, 5), (1, 0, 9)], "gpu r1 d0"),
    ([(0, 0, 5), (0, 1, 3), (0, 1, 3)], "gpu r0 d1"),  # 6 ns on d1 against 5 on d0
    ([(0, 0, 5), (1, 0, 4)], "gpu r0 d0"),  # two ranks: the busier
])
def test_main_device_is_the_busiest_gpu(gpus, want):
    from gpulens.devices import _main_device

    assert _main_device(_gpu_tl(gpus))["name"] == want
