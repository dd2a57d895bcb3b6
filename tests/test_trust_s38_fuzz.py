"""Regressions of the session-38 fuzzing (tests/fuzz_s38.py), one per kind of fault, each with its expected value
worked out by hand from the input written here:

* digits of other scripts read as numbers — Python's ``Decimal``/``int`` read ``"٨٨١٩"`` (Arabic-Indic) and
  ``"１２"`` (full-width) as 8819 and 12; no profiler writes them, so such a timestamp is unreadable (the row is not an
  event, counted in a warning) and such an id is none;
* sizes recorded as no whole number — a rocprofv3 ``Grid_Size_X`` of ``1024.5`` was unknown without a word: now
  counted in a warning;
* a recorded count contradicted by the data — three rank files of a world of 2 gave ``world_size`` 2 beside 3 ranks;
* ``gpulens profile`` of a script calling ``os._exit(n)`` — it ended gpulens too: no trace, no report, exit 0 (the
  script's status lost); the script's traceback went through gpulens's and ``runpy``'s frames;
* a script running its own ``torch.profiler`` block — gpulens then stopped and exported a session torch had already
  ended: a segmentation fault (exit -11).
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

V3_HEAD = ("Kind,Agent_Id,Queue_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp,"
           "Private_Segment_Size,Group_Segment_Size,Workgroup_Size_X,Workgroup_Size_Y,Workgroup_Size_Z,"
           "Grid_Size_X,Grid_Size_Y,Grid_Size_Z\n")


def _v3(tmp_path: Path, rows: list[str]) -> Path:
    p = tmp_path / "run_kernel_trace.csv"
    p.write_text(V3_HEAD + "".join(r + "\n" for r in rows), encoding="utf-8")
    return p


def _collect(p: Path):
    import gpulens.collectors as col

    return col.collect(p, strict=False, cache=False)


def test_digits_of_other_scripts_are_no_number():
    from gpulens.collectors._numbers import exact_int, id_of_text

    assert exact_int("\u0661\u0662\u0663") is None  # ١٢٣
    assert exact_int("\uff11\uff12") is None  # １２
    assert exact_int(" 123 ") == 123  # ASCII digits still read
    assert id_of_text("\u0661") is None
    assert id_of_text("GPU \uff11") is None  # a trailing full-width digit is no id either
    assert id_of_text("Agent 1") == 1


def test_arabic_indic_timestamp_is_an_unreadable_row(tmp_path):
    # 3 dispatches of 1000 ns each; the second's start written in Arabic-Indic digits (٢٠٠٠ = 2000)
    start = "".join(chr(0x0660 + int(c)) for c in "2000")
    p = _v3(tmp_path, ["KERNEL_DISPATCH,1,1,7,k_a,1,1000,2000,0,0,64,1,1,64,1,1",
                       f"KERNEL_DISPATCH,1,1,7,k_b,2,{start},3000,0,0,64,1,1,64,1,1",
                       "KERNEL_DISPATCH,1,1,7,k_c,3,4000,5000,0,0,64,1,1,64,1,1"])
    tl = _collect(p)
    k = tl.events[tl.events["kind"].astype(str) == "kernel"]
    assert sorted(k["name"].astype(str)) == ["k_a", "k_c"]  # k_b is not read as 2000 → 3000
    assert int(k["dur_ns"].sum()) == 2000  # 1000 + 1000
    assert any("1 row is no event: unreadable timestamp" in w for w in tl.meta.warnings)


def test_fractional_sizes_are_counted(tmp_path):
    # grid 1024.5 on k_a and workgroup 64.25 on k_b: 2 values no whole number; k_c intact (grid 128 × block 64)
    p = _v3(tmp_path, ["KERNEL_DISPATCH,1,1,7,k_a,1,1000,2000,0,0,64,1,1,1024.5,1,1",
                       "KERNEL_DISPATCH,1,1,7,k_b,2,3000,4000,0,0,64.25,1,1,64,1,1",
                       "KERNEL_DISPATCH,1,1,7,k_c,3,5000,6000,0,0,64,1,1,128,1,1"])
    tl = _collect(p)
    notes = [w for w in tl.meta.warnings if "no whole number" in w]
    assert len(notes) == 1 and notes[0].startswith(f"{p}: 2 size or count values"), tl.meta.warnings
    ev = tl.events.set_index(tl.events["name"].astype(str))
    assert ev.loc["k_c", "block_x"] == 64
    assert ev.loc["k_b", "block_x"] is None or str(ev.loc["k_b", "block_x"]) in ("<NA>", "nan")
    assert len(ev) == 3  # the rows stay events: only the size is unknown


def test_whole_float_sizes_are_not_counted(tmp_path):
    p = _v3(tmp_path, ["KERNEL_DISPATCH,1,1,7,k_a,1,1000,2000,0,0,64.0,1,1,1024,1,1"])
    tl = _collect(p)
    assert not any("no whole number" in w for w in tl.meta.warnings)


def _kineto(rank: int, world: int) -> dict:
    return {"distributedInfo": {"rank": rank, "world_size": world, "backend": "nccl"},
            "traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 100, "dur": 10,
                             "args": {"device": 0, "stream": 7}}]}


def test_world_size_unknown_when_more_ranks_are_read(tmp_path):
    import gpulens
    from gpulens.reports import json_report
    from report_invariants import violations

    d = tmp_path / "ranks"
    d.mkdir()
    for r in range(3):  # three files, each saying world of 2: rank 2 cannot belong to it
        (d / f"rank{r}.pt.trace.json").write_text(json.dumps(_kineto(r, 2)))
    doc = json.loads(json_report.render(gpulens.analyze([d])))
    src = doc["sources"][0]
    assert src["summary"]["world_size"] is None
    assert violations(doc) == []
    assert any("rank 2 of a world of 2" in w for w in src["warnings"])


def test_world_size_kept_when_a_sample_of_the_ranks_is_read(tmp_path):
    import gpulens
    from gpulens.reports import json_report

    d = tmp_path / "ranks"
    d.mkdir()
    for r in range(2):  # 2 of 8 ranks: the world size recorded is the run's
        (d / f"rank{r}.pt.trace.json").write_text(json.dumps(_kineto(r, 8)))
    doc = json.loads(json_report.render(gpulens.analyze([d])))
    assert doc["sources"][0]["summary"]["world_size"] == 8


class _Block:
    """Stands in for gpulens.profile in run_script: records how the script's block ended."""

    def __init__(self):
        self.seen = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.seen = (exc_type, getattr(exc, "code", None))
        return False


def test_script_os_exit_ends_the_script_not_gpulens(tmp_path):
    import os

    from gpulens.profiler.runner import run_script

    s = tmp_path / "hard.py"
    s.write_text("import os\nos._exit(7)\nraise RuntimeError('not reached')\n")
    real = os._exit
    block = _Block()
    assert run_script(s, [], block) == 7  # this process is still here: os._exit(7) was the script's end
    assert issubclass(block.seen[0], SystemExit) and block.seen[1] == 7  # the profile saw "exited with status 7"
    assert os._exit is real  # restored


def test_script_traceback_shows_the_script_frames_only(tmp_path, monkeypatch):
    from gpulens.profiler.runner import run_script

    s = tmp_path / "boom.py"
    s.write_text("def f():\n    raise ValueError('boom')\n\nf()\n")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert run_script(s, [], _Block()) == 4
    text = err.getvalue()
    assert text.startswith("Traceback (most recent call last):")
    assert 'boom.py", line 4' in text and 'boom.py", line 2, in f' in text
    assert "runpy" not in text and "runner.py" not in text
    assert text.rstrip().endswith("ValueError: boom")


def test_script_syntax_error_shows_the_error_alone(tmp_path, monkeypatch):
    from gpulens.profiler.runner import run_script

    s = tmp_path / "bad.py"
    s.write_text("def f(:\n")
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert run_script(s, [], _Block()) == 4
    text = err.getvalue()
    assert "SyntaxError" in text and "runpy" not in text and "Traceback" not in text


def test_script_own_torch_profiler_is_detected():
    torch = pytest.importorskip("torch")
    from gpulens.profiler.session import _stopped_by_another

    outer = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
    outer.__enter__()
    assert not _stopped_by_another(outer)  # recording, still on
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]):
        torch.ones(2) * 2
    assert _stopped_by_another(outer)  # the inner block ended torch's one session: never stop/export outer now


# ---- GPU work on a negative device id (found: rocprofv3 Agent_Id -1 / -2 read as "GPU -1" — the host's mark —
# beside a breakdown row for it; Kineto args.device -3 read silently)
def test_rocprofv3_negative_agent_is_not_recorded(tmp_path):
    # k_a on agent -2, k_b and k_c on agent 1: the file lists no agents, so k_a goes to the stand-in device 0
    p = _v3(tmp_path, ["KERNEL_DISPATCH,-2,1,7,k_a,1,1000,2000,0,0,64,1,1,64,1,1",
                       "KERNEL_DISPATCH,1,1,7,k_b,2,3000,4000,0,0,64,1,1,64,1,1",
                       "KERNEL_DISPATCH,1,1,7,k_c,3,5000,6000,0,0,64,1,1,64,1,1"])
    tl = _collect(p)
    by_dev = tl.events.groupby("device_id").size().to_dict()
    assert by_dev == {0: 1, 1: 2}  # never a device -2
    assert any("1 GPU row records a negative device (agent) id (e.g. -2)" in w for w in tl.meta.warnings)
    # device 1 is no "dangling id": the file lists no device at all (device 0 is gpulens's stand-in)
    assert not any("dangling" in w for w in tl.meta.warnings), tl.meta.warnings


def test_kineto_negative_device_is_warned(tmp_path):
    import gpulens
    from gpulens.reports import json_report
    from report_invariants import violations

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 100 + 20 * i, "dur": 10,
           "args": {"device": dev, "stream": 7}} for i, dev in enumerate([0, -3, 0])]
    p = tmp_path / "neg.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    doc = json.loads(json_report.render(gpulens.analyze([p])))
    notes = [w for w in doc["sources"][0]["warnings"] if "negative device id" in w]
    assert len(notes) == 1 and "1 GPU event on a negative device id (-3)" in notes[0]
    assert violations(doc) == []


# ---- rocprof results.txt read its fields with int(): ``time(1000,2000,٥٠٠٠,5100)`` gave a kernel 2000 → 5000 ns,
# and ``grd(1048576.5)`` an unknown grid without a word
_TXT = ('dispatch[0], gpu-id(1), queue-id(0), queue-index(0), pid(42), tid(42), grd({grd}), wgr(256), lds(0), scr(0), '
        'arch_vgpr(8), accum_vgpr(4), sgpr(16), wave_size(64), sig(0x0), obj(0x7f00), kernel-name("k_a"), '
        'time(1000,2000,{end},5100)\n'
        'dispatch[1], gpu-id(1), queue-id(0), queue-index(1), pid(42), tid(42), grd(4096), wgr(64), lds(512), scr(0), '
        'arch_vgpr(4), accum_vgpr(0), sgpr(8), wave_size(64), sig(0x0), obj(0x7f01), kernel-name("k_b"), '
        'time(5200,6000,6500,6600)\n')


def test_results_txt_other_script_digits_are_an_unreadable_time(tmp_path):
    p = tmp_path / "42_results.txt"
    p.write_text(_TXT.format(grd=1048576, end="\u0665\u0660\u0660\u0660"), encoding="utf-8")  # ٥٠٠٠
    tl = _collect(p)
    assert tl.events["name"].astype(str).tolist() == ["k_b"]  # k_a has no readable end
    assert int(tl.events["dur_ns"].iloc[0]) == 500  # 6500 − 6000
    assert any("1 row is no event: unreadable timestamp" in w for w in tl.meta.warnings)


def test_results_txt_fractional_grid_is_counted(tmp_path):
    p = tmp_path / "42_results.txt"
    p.write_text(_TXT.format(grd="1048576.5", end=5000), encoding="utf-8")
    tl = _collect(p)
    assert len(tl.events) == 2 and int(tl.events["dur_ns"].sum()) == 3000 + 500
    assert any(": 1 size or count value" in w and "no whole number" in w for w in tl.meta.warnings)


# ---- nsys stats kernel summary: float() read "٤٠٠" as 400; a row dropped for an unreadable Total Time made the
# share check call the whole table "truncated: rows are missing" (its 40.0 % counted as lost rows)
_KSUM = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
         "60.0,600,2,300.0,300.0,200,400,141.4,k_a\n"
         "40.0,{total},4,100.0,100.0,90,110,8.2,k_b\n")


@pytest.mark.parametrize("total", ["abc", "\u0664\u0660\u0660"])  # text, Arabic-Indic 400
def test_nsys_stats_unreadable_total_is_dropped_not_truncation(tmp_path, total):
    p = tmp_path / "kern_sum.csv"
    p.write_text(_KSUM.format(total=total), encoding="utf-8")
    tl = _collect(p)
    t = tl.tables["kernel_summary"]
    assert t["name"].tolist() == ["k_a"] and t["total_ns"].tolist() == [600]
    assert any("1 kernel row dropped" in w for w in tl.meta.warnings)
    assert not any("truncated" in w for w in tl.meta.warnings), tl.meta.warnings


def test_nsys_stats_cut_table_still_truncated(tmp_path):
    p = tmp_path / "kern_sum.csv"
    p.write_text(_KSUM.split("40.0")[0], encoding="utf-8")  # k_b's row gone: 60.0 % of the time is all there is
    tl = _collect(p)
    assert any("truncated" in w and "60.1 % at most" in w for w in tl.meta.warnings), tl.meta.warnings
