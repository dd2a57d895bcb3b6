"""B20 variants (../shared/cases/README.md): Nsight Compute ``--csv`` details page with other units per row
(``nsecond``/``second`` durations, ``Tbyte``/``Kbyte`` per second throughputs, ``cycle/usecond`` and
``cycle/nsecond`` frequencies), thousands separators, ``n/a``, ``==PROF==`` lines before the header, and the
launches listed out of ID order (a page sorted by kernel name). Units as powers of 1000 (the README's assumption)."""

from __future__ import annotations

from pathlib import Path

import gpulens.collectors as collectors

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
GEMM = "gemm_kernel(float const*, float const*, float*, int)"
RED = "reduce_sum(float const*, float*, int)"


def _row(i, name, blk, grd, sec, metric, unit, value):
    return (f'"{i}","4242","demo","127.0.0.1","{name}","1","7","{blk}","{grd}","0","9.0","{sec}","{metric}",'
            f'"{unit}","{value}"\n')


def _file(tmp_path: Path) -> Path:
    red = [("GPU Speed Of Light Throughput", "Duration", "second", "0.00205"),
           ("GPU Speed Of Light Throughput", "Memory Throughput", "Kbyte/second", "812,500"),
           ("GPU Speed Of Light Throughput", "SM Frequency", "cycle/usecond", "1,980"),
           ("Occupancy", "Achieved Occupancy", "%", "n/a")]
    gemm = [("GPU Speed Of Light Throughput", "Duration", "nsecond", "1,234,560"),
            ("GPU Speed Of Light Throughput", "Memory Throughput", "Tbyte/second", "1.53241"),
            ("GPU Speed Of Light Throughput", "SM Frequency", "cycle/nsecond", "1.98"),
            ("GPU Speed Of Light Throughput", "Elapsed Cycles", "cycle", "1,845,220"),
            ("Launch Statistics", "Registers Per Thread", "register/thread", "128"),
            ("Occupancy", "Achieved Occupancy", "%", "61.5")]
    text = ('==PROF== Connected to process 4242 (/opt/app/bin/demo)\n'
            '==PROF== Profiling "reduce_sum" - 1: 0%....50%....100% - 9 passes\n==PROF== Disconnected\n' + HEADER
            # sorted by kernel name: launch 1 (reduce_sum) is listed before launch 0 (gemm_kernel)
            + "".join(_row(1, RED, "(1024, 1, 1)", "(132, 1, 1)", *r) for r in red)
            + "".join(_row(0, GEMM, "(256, 1, 1)", "(4096, 1, 1)", *r) for r in gemm))
    p = tmp_path / "details.csv"
    p.write_text(text)
    return p


def _metrics(tl) -> dict:
    names = tl.events["name"].astype(str).to_numpy()
    c = tl.counters
    return {(names[int(e)], str(m)): float(v) for e, m, v in zip(c["event_id"], c["metric"], c["value"])}


def test_units_per_row_separators_and_missing_values(tmp_path):
    """gemm: 1,234,560 ns; 1.53241 TB/s = 1.53241e12 B/s; 1.98 cycle/ns = 1.98e9 Hz; 1,845,220 cycles; 128 regs;
    block (256,1,1) grid (4096,1,1). reduce_sum: 0.00205 s = 2,050,000 ns; 812,500 KB/s = 8.125e8 B/s;
    1,980 cycle/µs = 1.98e9 Hz; occupancy n/a → absent (not 0)."""
    tl = collectors.collect(_file(tmp_path))
    ev = tl.events.set_index(tl.events["name"].astype(str))
    assert int(ev.loc[GEMM, "dur_ns"]) == 1_234_560 and int(ev.loc[RED, "dur_ns"]) == 2_050_000
    assert (int(ev.loc[GEMM, "block_x"]), int(ev.loc[GEMM, "grid_x"]), int(ev.loc[GEMM, "regs_per_thread"])) == (
        256, 4096, 128)
    assert (int(ev.loc[RED, "block_x"]), int(ev.loc[RED, "grid_x"])) == (1024, 132)
    m = _metrics(tl)
    assert abs(m[(GEMM, "Memory Throughput")] - 1.53241e12) < 1 and abs(m[(RED, "Memory Throughput")] - 8.125e8) < 1e-3
    assert abs(m[(GEMM, "SM Frequency")] - 1.98e9) < 1 and abs(m[(RED, "SM Frequency")] - 1.98e9) < 1
    assert m[(GEMM, "Elapsed Cycles")] == 1_845_220 and m[(GEMM, "Achieved Occupancy")] == 61.5
    assert (RED, "Achieved Occupancy") not in m


def test_synthetic_timeline_follows_launch_ids_not_file_order(tmp_path):
    """ncu replays launches one at a time; the synthetic starts lay them end to end in the order they ran (ID 0
    first): gemm 0 → 1,234,560 ns, reduce_sum 1,234,560 → 1,234,560 + 2,050,000 = 3,284,560 ns, although the page
    lists reduce_sum first."""
    tl = collectors.collect(_file(tmp_path))
    ev = tl.events.sort_values("start_ns")
    assert list(ev["name"].astype(str)) == [GEMM, RED]
    assert list(ev["start_ns"].astype(int)) == [0, 1_234_560]
    assert int((ev["start_ns"] + ev["dur_ns"]).max()) == 3_284_560


def test_raw_page_gzipped_with_other_units_out_of_id_order(tmp_path):
    """``--page raw`` in a gzip, units row ``Gbyte`` / ``msecond``: dram bytes 1.04858 GB = 1.04858e9 B and
    0.00052 GB = 5.2e5 B; durations 1.23456 ms = 1,234,560 ns and 2.05 ms = 2,050,000 ns; SM throughput 71.30 % /
    12.04 %; listed ID 1 first, laid out ID 0 first."""
    import gzip

    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
            '"Device","CC","dram__bytes_read.sum","gpu__time_duration.sum",'
            '"sm__throughput.avg.pct_of_peak_sustained_elapsed","launch__registers_per_thread"\n'
            '"","","","","","","","","","","","Gbyte","msecond","%","register/thread"\n')
    rows = (f'"1","4242","demo","h","{RED}","1","7","(1024, 1, 1)","(132, 1, 1)","0","9.0","0.00052","2.05","12.04",'
            '"32"\n'
            f'"0","4242","demo","h","{GEMM}","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","1.04858","1.23456",'
            '"71.30","128"\n')
    p = tmp_path / "raw.csv"
    p.write_bytes(gzip.compress((head + rows).encode()))
    tl = collectors.collect(p)
    m = _metrics(tl)
    assert abs(m[(GEMM, "dram__bytes_read.sum")] - 1.04858e9) < 1 and abs(m[(RED, "dram__bytes_read.sum")] - 5.2e5) < 1e-6
    assert abs(m[(GEMM, "sm__throughput.avg.pct_of_peak_sustained_elapsed")] - 71.30) < 1e-9
    ev = tl.events.sort_values("start_ns")
    assert list(ev["name"].astype(str)) == [GEMM, RED]
    assert list(ev["dur_ns"].astype(int)) == [1_234_560, 2_050_000]
    assert list(ev["regs_per_thread"].astype(int)) == [128, 32]
