"""A capture holding collective-library calls (NCCL / RCCL) and no GPU record is incomplete, not "nothing ran".

The input is rocprofv3's RCCL API trace layout (``rccl_api_trace.csv``: Domain, Function, Process_Id, Thread_Id,
Correlation_Id, Start/End_Timestamp, as the rocprofiler-sdk documentation shows it), written here: one
``ncclAllReduce`` — which runs kernels on the GPU — and one ``ncclGetVersion``, which enqueues nothing.
"""

from __future__ import annotations

from gpulens.cli import main
from gpulens.report import analyze

HEADER = '"Domain","Function","Process_Id","Thread_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def _write(tmp_path, rows):
    p = tmp_path / "rccl_api_trace.csv"
    p.write_text(HEADER + "".join(rows))
    return p


def test_rccl_calls_without_kernels_make_an_incomplete_capture(tmp_path, capsys):
    p = _write(tmp_path, ['"RCCL_API","ncclGetVersion",11,11,416,18413845573432,18413845577374\n',
                          '"RCCL_API","ncclAllReduce",11,11,89097,18414380653860,18414380693574\n'])
    assert main(["analyze", "--no-cache", str(p)]) == 5
    out = capsys.readouterr().out
    assert "incomplete" in out and "1 collective-library call (ncclAllReduce ×1)" in out
    assert "nothing ran on a GPU" not in out
    notes = [s.get("incomplete_capture") for s in analyze([p]).sources[0].timeline.meta.sources]
    assert any(n and "ncclGetVersion" not in n for n in notes)


def test_setup_calls_alone_are_no_gpu_work(tmp_path):
    """``ncclGetVersion`` / ``ncclCommInitRank`` enqueue no GPU work: no sentence about a missing GPU record."""
    p = _write(tmp_path, ['"RCCL_API","ncclGetVersion",11,11,416,18413845573432,18413845577374\n',
                          '"RCCL_API","ncclCommInitRank",11,11,417,18413845577400,18413845579000\n'])
    notes = [s.get("incomplete_capture") for s in analyze([p]).sources[0].timeline.meta.sources]
    assert not any(notes)
