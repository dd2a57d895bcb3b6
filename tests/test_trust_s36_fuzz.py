"""Regression tests of the fault kinds session 36's fuzzing (tests/fuzz_s36.py) found, one or more per kind, on
small generated inputs. Expected values come from the inputs themselves (rows written, cells broken, launches listed
by ncu's own CSV export), never from gpulens's output.

Kinds:
1. a report written to a pipe or device was renamed over it (as root ``--json /dev/null`` replaced the system's
   ``/dev/null`` by a regular file; ``--json /dev/stdout`` failed);
2. an nsys export whose event table is a view read as "kernel table absent" (every kernel lost in silence);
3. a damaged ``.ncu-rep`` whose results ``ncu_report`` could not read was reported as "no kernels profiled";
4. the HTML kernels chart crashed on a kernel of unknown duration (an ncu launch without ``Duration``);
5. rocprof-compute ``roofline.csv`` peaks of −1 / 0 / inf were used as roofs (a DRAM share of −86,424 %);
6. a rocprof-compute workload without ``pmc_perf.csv`` and ``timestamps.csv`` was read as 8 ranks, every dispatch
   counted once per counter pass;
7. a path the OS refuses to stat (a name too long) was an internal error instead of one line naming it.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.errors import EXIT_USAGE, TraceFormatError

DATA = Path(__file__).resolve().parent / "data"
B13 = DATA / "cases" / "B13.json"  # README: 4 kernels, GPU busy 65 µs


def _read_fifo(fifo: Path, into: list) -> threading.Thread:
    t = threading.Thread(target=lambda: into.append(fifo.read_bytes()), daemon=True)
    t.start()
    return t


# ------------------------------------------------------------------------------------- 1. reports to pipes/devices
def test_write_atomic_writes_into_a_fifo_and_keeps_it_a_fifo(tmp_path):
    from gpulens._outputs import write_atomic

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list = []
    t = _read_fifo(fifo, got)
    write_atomic(fifo, b"0123456789")
    t.join(10)
    assert got == [b"0123456789"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # renamed over, it became a regular file
    link = tmp_path / "stdout-like"  # /dev/stdout is a link to /proc/self/fd/1: written through the link
    link.symlink_to(fifo)
    t = _read_fifo(fifo, got)
    write_atomic(link, b"abc")
    t.join(10)
    assert got[-1] == b"abc" and link.is_symlink() and stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_analyze_json_into_a_fifo_carries_the_whole_report(tmp_path, capsys):
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    got: list = []
    t = _read_fifo(fifo, got)
    assert main(["analyze", str(B13), "-q", "--no-cache", "--json", str(fifo)]) == 0
    t.join(20)
    summary = json.loads(got[0])["sources"][0]["summary"]
    assert (summary["kernel_count"], summary["gpu_busy_ns"]) == (4, 65_000)  # README B13
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


# ------------------------------------------------------------------------------------------- 2. nsys views
def _nsys(path: Path, kernels: list[tuple[int, int]]) -> None:
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'gemm'), (2, 'cudaLaunchKernel_v7000');
        CREATE TABLE k_kept (start INT, end INT, deviceId INT, streamId INT, correlationId INT, globalPid INT,
            shortName INT, demangledName INT);
        CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM k_kept;
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, globalTid INT, correlationId INT, nameId INT);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        CREATE TABLE gone (a INT);
        CREATE VIEW stale AS SELECT a FROM gone;
        DROP TABLE gone;
    """)
    for i, (s, e) in enumerate(kernels):
        con.execute("INSERT INTO k_kept VALUES (?, ?, 0, 7, ?, 5033164800, 1, 1)", (s, e, 10 + i))
        con.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 5033164842, ?, 2)", (s - 100, s - 50, 10 + i))
    con.commit()
    con.close()


def test_nsys_kernel_table_behind_a_view_is_read(tmp_path):
    p = tmp_path / "viewed.sqlite"
    kernels = [(1_000, 1_500), (2_000, 2_600), (3_000, 3_300)]
    _nsys(p, kernels)  # plus a stale view over a dropped table: skipped, not "not a readable database"
    tl = collect(p, cache=False)
    ev = tl.events[tl.events["kind"].astype(str) == "kernel"]
    assert len(ev) == 3 and set(ev["name"].astype(str)) == {"gemm"}
    assert int(ev["dur_ns"].sum()) == sum(e - s for s, e in kernels)  # 500 + 600 + 300 ns
    assert not any("incomplete capture" in w for w in tl.meta.warnings)


# ------------------------------------------------------------------------------------------- 3. damaged .ncu-rep
REP = DATA / "nvidia" / "h200" / "h200_kernels.ncu-rep"


def _launches_in_raw_csv() -> int:
    """Launches ncu's own ``--page raw`` CSV export of the same report lists (rows after header and units)."""
    lines = (DATA / "nvidia" / "h200" / "h200_kernels_raw.csv").read_text().strip().splitlines()
    return len(lines) - 2


def test_ncu_rep_result_blocks_are_the_launches_ncu_lists():
    from gpulens.collectors.ncu_rep import framing, result_blocks

    data = REP.read_bytes()
    assert result_blocks(data) == _launches_in_raw_csv() == 4
    assert framing(data)[1] is None


def test_ncu_rep_whose_results_ncu_report_cannot_read_is_an_error_not_an_empty_run(tmp_path):
    pytest.importorskip("ncu_report")
    p = tmp_path / "twice.ncu-rep"
    p.write_bytes(REP.read_bytes() * 2)  # two reports back to back: ncu_report reads no launch of either
    with pytest.raises(TraceFormatError) as err:
        collect(p, cache=False)
    msg = str(err.value)
    assert msg.startswith(str(p)) and "\n" not in msg
    assert f"{_launches_in_raw_csv()} complete result blocks" in msg and "no kernels profiled" not in msg


# ------------------------------------------------------------------------------ 4. HTML chart, a kernel of no time
def test_html_renders_a_kernel_whose_duration_is_unknown(tmp_path):
    from gpulens import analyze
    from gpulens.reports import html, markdown

    p = tmp_path / "two.ncu.csv"
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
            '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
    row = '"{i}","42","demo","host","{k}","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","SOL","{m}","{u}","{v}"\n'
    p.write_text(head + row.format(i=0, k="gemm_kernel", m="Duration", u="usecond", v="10.00")
                 + row.format(i=1, k="relu_kernel", m="SM Frequency", u="cycle/nsecond", v="1.50"))
    rep = analyze([p], strict=False)
    t = rep.sources[0].results["hotspots"].table.set_index("name")
    assert int(t.loc["gemm_kernel", "effective_ns"]) == 10_000  # 10.00 µs written in the file
    page = html.render(rep)  # crashed: "boolean value of NA is ambiguous" in the kernels chart
    assert "relu_kernel" in page and "gemm_kernel" in page
    assert markdown.render(rep).startswith("# gpulens report")


# ------------------------------------------------------------------------------------- 5. rocprof-compute roofs
def _workload(tmp_path: Path) -> Path:
    d = tmp_path / "vcopy"
    shutil.copytree(DATA / "omniperf" / "vcopy_MI200", d)
    return d


def test_roofline_peaks_that_are_no_positive_rate_are_unknown(tmp_path):
    d = _workload(tmp_path)
    f = d / "roofline.csv"
    lines = f.read_text().splitlines()
    cols = lines[0].split(",")
    bad = ["-1", "0", "inf"]
    broken = 0
    for i in range(1, len(lines)):
        cells = lines[i].split(",")
        for j in range(1, len(cells)):  # every peak of every device: -1, 0 or inf in turn
            cells[j] = bad[(i + j) % 3]
            broken += 1
        lines[i] = ",".join(cells)
    f.write_text("\n".join(lines) + "\n")
    tl = collect(d, cache=False)
    roofs = tl.tables["empirical_roofs"]
    assert roofs[["value", "low", "high"]].isna().all().all()
    assert broken == (len(lines) - 1) * (len(cols) - 1)
    assert any(f"{broken} measured peaks zero, negative or not finite" in w for w in tl.meta.warnings)
    from gpulens import analyze

    sol = analyze([d]).sources[0].results.get("speed_of_light")
    if sol is not None and len(sol.table):
        pct = sol.table.select_dtypes("number").filter(like="pct").to_numpy(dtype="float64")
        assert not (pct[np.isfinite(pct)] < 0).any()


def test_workload_without_its_dispatch_list_is_an_error_naming_it(tmp_path, capsys):
    d = _workload(tmp_path)
    (d / "pmc_perf.csv").unlink()
    (d / "timestamps.csv").unlink()
    with pytest.raises(TraceFormatError, match="pmc_perf.csv and timestamps.csv are both missing") as err:
        collect(d, cache=False)
    assert str(err.value).startswith(str(d))
    assert main(["analyze", str(d), "-q", "--no-cache"]) == EXIT_USAGE
    out = capsys.readouterr().err
    assert out.count("\n") == 1 and out.startswith(f"gpulens: error: {d}: ")


# --------------------------------------------------------------------------------------- 7. paths too long
def test_names_too_long_are_one_line_errors(tmp_path, capsys):
    name = "a" * 300  # NAME_MAX is 255 on Linux file systems
    with pytest.raises(TraceFormatError, match="File name too long"):
        collect(tmp_path / f"{name}.json", cache=False)
    for args in (["analyze", str(tmp_path / f"{name}.json"), "-q", "--no-cache"],
                 ["analyze", str(B13), "-q", "--no-cache", "--json", str(tmp_path / f"{name}.json")],
                 ["analyze", str(B13), "-q", "--no-cache", "--html", str(tmp_path / name / "r.html")],
                 ["baseline", "save", str(B13), "-n", str(tmp_path / f"{name}.json")]):
        assert main(args) == EXIT_USAGE, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("gpulens: error: ") and "File name too long" in err, err
        assert "internal error" not in err


def test_output_folder_with_a_name_too_long_is_one_line(tmp_path):
    from gpulens.errors import GpulensError, check_output_dir

    with pytest.raises(GpulensError, match="File name too long") as err:
        check_output_dir(tmp_path / ("z" * 300), "out")
    assert "\n" not in str(err.value) and str(err.value).startswith(f"out {tmp_path}")


# ------------------------------------------------------------------------------- 8. gpulens.profile odd arguments
@pytest.mark.parametrize("kw, error, words", [
    ({"warmup": -1}, ValueError, "warmup=-1"),
    ({"wait": 1.5}, ValueError, "wait=1.5"),
    ({"activities": "cpu"}, TypeError, "not str 'cpu'"),  # torch stopped with a bare AssertionError
])
def test_profile_odd_arguments_are_refused_before_profiling(tmp_path, kw, error, words):
    import gpulens

    with pytest.raises(error, match=words.replace(".", r"\.")):
        gpulens.profile(out=tmp_path / "p", **kw)
    assert not (tmp_path / "p").exists()  # refused before the folder was made


def test_sysinfo_rows_of_two_gpus_are_named_not_passed_over(tmp_path):
    d = _workload(tmp_path)
    f = d / "sysinfo.csv"
    head, row = f.read_text().splitlines()[:2]
    assert ",MI200,gfx90a," in row
    f.write_text("\n".join([head, row, row.replace(",MI200,gfx90a,", ",MI300X,gfx942,")]) + "\n")
    tl = collect(d, cache=False)
    assert tl.meta.devices[0]["gfx_arch"] == "gfx90a"  # the first row, as written above
    (w,) = [w for w in tl.meta.warnings if "sysinfo.csv" in w]
    assert "2 rows of different GPUs (MI200 (gfx90a), then MI300X (gfx942))" in w


# ---------------------------------------------------------------------------- 9. rpd names pointing nowhere
def test_rpd_kernel_names_missing_from_the_string_table_are_counted_not_fatal(tmp_path):
    p = tmp_path / "t.rpd"
    shutil.copyfile(DATA / "rocprof" / "rpd_matmul" / "matmul_result.rpd", p)
    con = sqlite3.connect(p)
    kernels = con.execute("SELECT count(*) FROM rocpd_op o JOIN rocpd_string s ON s.id = o.opType_id "
                          "WHERE s.string = 'KernelExecution'").fetchone()[0]
    con.execute("UPDATE rocpd_op SET description_id = description_id + 100000")
    con.commit()
    con.close()
    tl = collect(p, cache=False)  # was: "malformed rpd data (TypeError: Invalid value '' for dtype 'Int64')"
    assert int((tl.events["kind"].astype(str) == "kernel").sum()) == kernels == 29
    assert any(f"{kernels} kernels whose description id is not in rocpd_string" in w for w in tl.meta.warnings)


def test_ncu_rep_results_the_library_skips_are_counted(tmp_path, monkeypatch):
    mod = pytest.importorskip("ncu_report")
    import gpulens.collectors.ncu_rep as nr

    class Range:  # ncu_report reading one launch fewer than the report's result blocks (a damaged result)
        def __init__(self, r):
            self.r = r

        def num_actions(self):
            return self.r.num_actions() - 1

        def action_by_idx(self, i):
            return self.r.action_by_idx(i)

    class Ctx:
        def __init__(self, c):
            self.c = c

        def num_ranges(self):
            return self.c.num_ranges()

        def range_by_idx(self, i):
            return Range(self.c.range_by_idx(i))

    class Mod:
        def __getattr__(self, name):
            return getattr(mod, name)

        def load_report(self, path):
            return Ctx(mod.load_report(path))

    monkeypatch.setattr(nr, "load_module", lambda path=None: Mod())
    tl = collect(REP, cache=False)
    n = _launches_in_raw_csv()
    assert len(tl.events) == n - 1
    assert any(f"1 profiled result of the report's {n} not read by ncu_report" in w for w in tl.meta.warnings)


def test_ncu_rep_of_zeros_after_its_header_is_corrupt_not_empty(tmp_path):
    pytest.importorskip("ncu_report")
    raw = REP.read_bytes()
    header = 8 + int.from_bytes(raw[4:8], "little")  # magic, uint32 length, the file header
    p = tmp_path / "zeros.ncu-rep"
    p.write_bytes(raw[:header] + b"\0" * 100_000)
    with pytest.raises(TraceFormatError, match="none of the 100,000 bytes after its header is a readable block"):
        collect(p, cache=False)


def test_nsys_view_is_read_in_chunks_without_rowids(tmp_path):
    import signal

    from gpulens.collectors._nsys_db import _Db

    p = tmp_path / "viewed.sqlite"
    kernels = [(1_000 * i, 1_000 * i + 100 + i) for i in range(1, 8)]  # 7 rows: chunks of 2 need 4 reads
    _nsys(p, kernels)
    signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError("select_ints looped")))
    signal.alarm(20)  # a view's rowid is NULL: keyset pagination on it repeated its first chunk forever
    try:
        got = _Db(p).select_ints("CUPTI_ACTIVITY_KIND_KERNEL", {"s": "{start}", "e": "{end}"}, chunk=2)
    finally:
        signal.alarm(0)
    assert sorted(zip(got["s"].tolist(), got["e"].tolist())) == kernels
