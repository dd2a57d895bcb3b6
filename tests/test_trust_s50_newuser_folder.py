"""A folder of unrelated traces (session 50, a new user's `gpulens analyze tests/data/kineto/`): the folder-wide
note on how it was split into runs is said once, and each run's INPUT line holds that file's own warnings only.

Inputs are built here: two Kineto traces recording different GPUs (the split rule of gpulens._split_runs), one of
them with a warning of its own (a kernel record with a negative duration, dropped by the collector).
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.report import analyze
from gpulens.reports import console, markdown
from gpulens.reports._warnings import input_note, reading_notes


def _trace(path: Path, gpu: str, bad: bool = False) -> None:
    ev = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 95, "dur": 4,
           "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 100, "dur": 50,
           "args": {"device": 0, "stream": 7, "correlation": 1, "grid": [80, 1, 1], "block": [256, 1, 1]}}]
    if bad:
        ev.append({"ph": "X", "cat": "kernel", "name": "broken_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": -3,
                   "args": {"device": 0, "stream": 7, "correlation": 2}})
    path.write_text(json.dumps({"schemaVersion": 1, "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": gpu, "computeMajor": 8, "computeMinor": 0, "numSms": 108}]}))


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "traces"
    d.mkdir()
    _trace(d / "a.pt.trace.json", "NVIDIA A100-SXM4-40GB")
    _trace(d / "b.pt.trace.json", "NVIDIA H100 80GB HBM3", bad=True)
    _trace(d / "c.pt.trace.json", "NVIDIA A100-SXM4-40GB")
    return d


def test_folder_note_is_said_once_and_input_lines_hold_each_files_own(tmp_path):
    d = _folder(tmp_path)
    rep = analyze([d], cache=False)
    assert len(rep.sources) == 3  # 2 GPU names in 3 files: each file a run of its own
    for s in rep.sources:
        # the split is a reading note (how the folder was read), never one of the file's input warnings
        assert not any("record different GPUs" in w for w in s.timeline.meta.warnings)
        assert sum("record different GPUs" in n for n in reading_notes(s.timeline.meta)) == 1
        note = input_note(s)
        assert "record different GPUs" not in note
    by = {Path(s.label).name: s for s in rep.sources}
    # b's own warning (its dropped record) is its INPUT line; a and c have none of their own
    assert input_note(by["a.pt.trace.json"]) == "" and input_note(by["c.pt.trace.json"]) == ""
    assert "broken_kernel" in input_note(by["b.pt.trace.json"]) or "negative" in input_note(by["b.pt.trace.json"])
    text = console.render(rep, width=200)
    assert text.count("record different GPUs") == 1  # once for the folder, before the first report
    assert text.index("record different GPUs") < text.index("gpulens · ")
    assert "INPUT:" in text and text.count("INPUT:") == 1  # b's own line only
    md = markdown.render(rep)
    assert md.count("record different GPUs") == 1


def test_a_single_file_report_keeps_its_note(tmp_path):
    """Control: one run analysed alone (not a multi-input report) still says how it was read."""
    d = _folder(tmp_path)
    rep = analyze([d], cache=False)
    one = type(rep)([rep.sources[0]])
    assert "record different GPUs" in console.render(one, width=200)
