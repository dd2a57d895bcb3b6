"""rocprof ``results.txt`` dispatch records (v1 tool, rocprofv2 file plugin): values read back by hand.

The record layouts are the ones rocprof's sources print (ROCm/rocprofiler src/tool/tool.cpp for v1, the v2 file
plugin's ``start_time/end_time``, and the oldest ``queue_index/kernel_name/time(…):`` form parsed by tblextr.py);
the numbers are small hand-made ones, so each expected figure is written out below.
"""

from __future__ import annotations

import pytest

from gpulens.collectors import collect, sniff

V1 = """\
dispatch[0], gpu-id(1), queue-id(0), queue-index(0), pid(4242), tid(4242), grd(1048576), wgr(256), lds(0), scr(0), arch_vgpr(8), accum_vgpr(4), sgpr(16), wave_size(64), sig(0x0), obj(0x7f00), kernel-name("vector_add(float*, float const*, int) [clone .kd]"), time(1000,2000,5000,5100)
  SQ_WAVES (16384)
  GRBM_GUI_ACTIVE (9000)
dispatch[1], gpu-id(1), queue-id(0), queue-index(1), pid(4242), tid(4242), grd(4096), wgr(64), lds(512), scr(0), arch_vgpr(4), accum_vgpr(0), sgpr(8), wave_size(64), sig(0x0), obj(0x7f01), kernel-name("reduce"), time(5200,6000,6500,6600)
  SQ_WAVES (64)
"""

V2 = """\
dispatch[1], gpu_id(0), queue_id(3), queue_index(0), pid(7), tid(7), grd(4096), wgr(64), lds(512), scr(0), arch_vgpr(4), accum_vgpr(0), sgpr(8), wave_size(64), sig(0), obj(123), kernel-name("k2"), start_time(6000), end_time(6500)
, SQ_WAVES (64)
"""

OLD = """\
dispatch[0], queue_index(0), kernel_name("SimpleConvolution"), time(1048928000311041,1048928006154674,1048928006168274,1048928006170503):
  GRBM_GUI_ACTIVE (74332)
  SQ_WAVES (4096)
"""


def write_v1(path) -> None:
    """The v1 records above as one file (the fuzzing seed of this format)."""
    path.write_text(V1)


def _counter(tl, name, metric):
    ev = tl.events
    eid = int(ev.loc[ev["name"] == name, "event_id"].iloc[0])
    c = tl.counters
    return float(c.loc[(c["event_id"] == eid) & (c["metric"] == metric), "value"].iloc[0])


def test_v1_records_and_counters(tmp_path):
    p = tmp_path / "4242_results.txt"
    p.write_text(V1)
    assert sniff(p).name == "rocprof_results_txt"
    tl = collect(p)
    ev = tl.events.sort_values("start_ns")
    assert list(ev["dur_ns"]) == [5000 - 2000, 6500 - 6000]  # time(dispatch, BEGIN, END, complete)
    k = ev.iloc[0]
    assert k["name"] == "vector_add(float*, float const*, int) [clone .kd]"
    assert int(k["grid_x"]) == 1048576 // 256 and int(k["block_x"]) == 256  # grd/wgr are work-items
    assert int(k["regs_per_thread"]) == 8 + 4  # arch + accum VGPRs
    assert int(k["device_id"]) == 1 and int(k["stream_id"]) == 0
    assert int(ev.iloc[1]["smem_static_bytes"]) == 512
    assert _counter(tl, "reduce", "SQ_WAVES") == 64
    assert _counter(tl, k["name"], "GRBM_GUI_ACTIVE") == 9000


def test_v2_start_end_and_comma_counters(tmp_path):
    p = tmp_path / "7_results.txt"
    p.write_text(V2)
    tl = collect(p)
    k = tl.events.iloc[0]
    assert k["dur_ns"] == 500 and int(k["stream_id"]) == 3 and int(k["grid_x"]) == 4096 // 64
    assert _counter(tl, "k2", "SQ_WAVES") == 64


def test_oldest_layout(tmp_path):
    p = tmp_path / "results.txt"
    p.write_text(OLD)
    tl = collect(p)
    k = tl.events.iloc[0]
    assert k["dur_ns"] == 1048928006168274 - 1048928006154674
    assert _counter(tl, "SimpleConvolution", "SQ_WAVES") == 4096


def test_junk_lines_counted(tmp_path):
    p = tmp_path / "results.txt"
    p.write_text(V1 + "ROCProfiler: 2 contexts collected\n")
    tl = collect(p)
    assert any("1 line dropped" in w for w in tl.meta.warnings)


@pytest.mark.parametrize("text", ["dispatch is a word\n", "hello\n"])
def test_not_claimed(tmp_path, text):
    p = tmp_path / "results.txt"
    p.write_text(text)
    assert sniff(p) is None


def test_folder_with_results_csv_counts_each_dispatch_once(tmp_path):
    """rocprof converts results.txt into results.csv in the same folder: the same two dispatches, read once."""
    d = tmp_path / "rocprof_out"
    d.mkdir()
    (d / "results.txt").write_text(V1)
    (d / "results.csv").write_text(
        '"Index","KernelName","gpu-id","queue-id","queue-index","pid","tid","grd","wgr","lds","scr","arch_vgpr",'
        '"accum_vgpr","sgpr","wave_size","sig","obj","DispatchNs","BeginNs","EndNs","CompleteNs","SQ_WAVES"\n'
        '0,"vector_add(float*, float const*, int) [clone .kd]",1,0,0,4242,4242,1048576,256,0,0,8,4,16,64,0x0,0x7f00,'
        '1000,2000,5000,5100,16384\n'
        '1,"reduce",1,0,1,4242,4242,4096,64,512,0,4,0,8,64,0x0,0x7f01,5200,6000,6500,6600,64\n')
    tl = collect(d)
    assert (tl.events["kind"] == "kernel").sum() == 2
    assert int(tl.events.loc[tl.events["kind"] == "kernel", "dur_ns"].sum()) == 3000 + 500


def test_long_mangled_line_is_read_in_one_pass(tmp_path):
    """A record whose closing quote was replaced by 300k word characters (a fuzzing finding): the key(value) scan
    backtracked once per start position (minutes); it must stay linear. Guarded by an alarm, not timed."""
    import signal

    p = tmp_path / "results.txt"
    p.write_text(V1.replace('[clone .kd]")', '[clone .kd]"' + "k" * 300_000, 1))

    def boom(*_):
        raise TimeoutError("results.txt scan did not finish in 30 s")

    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(30)
    try:
        tl = collect(p, strict=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert (tl.events["name"] == "reduce").sum() == 1  # the intact second record is still read
