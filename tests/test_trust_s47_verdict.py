"""Session 47, verdict: conclusions that contradicted the numbers beside them. Each test writes its input (or names the
bundled demo), works the expected figure out by hand in its docstring, and checks every report that shows it.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from gpulens.cli import main

sys.path.insert(0, str(Path(__file__).parent))
from test_trust_s46_w2cases import _graph_trace  # noqa: E402  (the session-46 lost-graph-work input, µs)


def _run(path: Path | None, tmp_path: Path, *extra: str) -> tuple[dict, str, str]:
    """(JSON source, Markdown, HTML) of ``gpulens analyze`` on ``path`` (None: the bundled demo)."""
    j, m, h = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "r.html"
    args = ["analyze", "-q", "--no-cache", *(["--demo"] if path is None else [str(path)]),
            "--json", str(j), "--markdown", str(m), "--html", str(h), *extra]
    assert main(args) == 0
    return json.loads(j.read_text())["sources"][0], m.read_text(), h.read_text()


def test_waves_read_the_same_in_the_occupancy_table_and_the_advice(tmp_path):
    """The demo's cutlass_80_wmma GEMM (H100 SXM, 132 SMs): grid 80 blocks of 128 threads, 88 registers per thread
    → 5 resident blocks per SM (the occupancy table), so 80 / (5 × 132) = 0.12121 waves: the table's cell reads
    "0.121" (three significant digits) and the advice beside it read "(0.12 waves)" — one figure, two readings.
    Expected: every sentence that names the waves uses the table's digits."""
    src, md, html = _run(None, tmp_path)
    occ = src["analyses"]["occupancy"]["table"]
    row = next(r for r in occ if "cutlass_80_wmma" in str(r["name"]))
    assert (row["active_blocks_per_sm"], round(row["waves_per_sm"], 5)) == (5, round(80 / (5 * 132), 5))
    text = json.dumps(src["analyses"]["verdicts"]) + md + html
    assert "0.121 waves" in text and "(0.12 waves)" not in text
    # flash_fwd: 16 blocks, 2 per SM → 16 / 264 = 0.060606: "0.0606" in the table, never "0.061" in a sentence
    assert "0.0606 waves" in text and "0.061 waves" not in text
    assert ">0.121<" in html  # the HTML occupancy table's waves cell


def test_queued_idle_that_lost_graph_work_filled_has_nothing_at_stake(tmp_path):
    """Session 46's input: gemm_a [10, 30] µs, two cudaGraphLaunch calls at 32 and 45 µs whose graph kernels were not
    recorded, gemm_b [210, 230] µs queued behind them: one gap [30, 210] = 180 µs of the 220 µs span, all of it
    queued idle after launch calls with no GPU record. The run verdict is undetermined ("not a measured idle … no
    verdict rests on it"), yet the idle finding and its queued cause each kept 180 µs at stake and the critical path
    145 µs of late starts with "move or remove that dependency". Expected: 180 − 180 = 0 µs of measured idle, so no
    time at stake (unknown) on all three, each saying why, and no dependency advice; the control (the same graph
    launches after gemm_b, the capture cut their work) keeps its measured 180 µs at stake."""
    p = tmp_path / "graphs.json"
    p.write_text(json.dumps(_graph_trace(32)))
    src, md, _ = _run(p, tmp_path)
    b = src["analyses"]["bottlenecks"]["summary"]
    assert (b["idle_queued_ns"], b["idle_queued_lost_ns"], b["verdict"]) == (180_000, 180_000, "undetermined")
    idle = next(f for f in src["analyses"]["breakdown"]["findings"] if f["key"] == "idle")
    queued = next(f for f in src["analyses"]["bottlenecks"]["findings"] if f["key"] == "idle/queued")
    path = next(f for f in src["analyses"]["critical_path"]["findings"] if f["key"] == "critical_path")
    assert idle["time_at_stake_ns"] is None and queued["time_at_stake_ns"] is None
    assert path["time_at_stake_ns"] is None and "dependency to move" in path["action"]
    assert "leaves out the 180.00 µs in gaps after launch calls with no GPU record" in queued["detail"]
    assert "180.00 µs at stake" not in md and "145.00 µs at stake" not in md
    q = tmp_path / "cut.json"
    q.write_text(json.dumps(_graph_trace(300)))
    src, _, _ = _run(q, tmp_path)
    queued = next(f for f in src["analyses"]["bottlenecks"]["findings"] if f["key"] == "idle/queued")
    assert queued["time_at_stake_ns"] == 180_000


def test_a_block_size_bound_is_not_labelled_unknown_in_the_occupancy_chart(tmp_path):
    """ncu olajide_rtx5070 gemm_naive: 32 × 32 = 1,024-thread blocks (32 warps) on an sm_120 SM (1,536 threads, 48
    warp slots), no register or shared-memory metric: one block, at most 32 / 48 = 66.7 % whatever the registers.
    The chart's bar label read "≤ 66.7 % (registers and shared memory not recorded) · unknown" — the trailing
    "unknown" (the limiter) read as if the bound itself were unknown. Expected: the bound alone, its reason beside it."""
    from conftest import shared_trace

    src, _, html = _run(shared_trace("ncu/olajide_rtx5070_metrics_gemm_naive.csv"), tmp_path)
    row = src["analyses"]["occupancy"]["table"][0]
    assert row["theoretical_occupancy_pct"] is None and round(row["theoretical_max_pct"], 1) == round(100 * 32 / 48, 1)
    labels = [json.loads(f'"{m}"') for m in re.findall(r'"text":\["(\\u2264[^"]*)"', html)]
    assert labels == ["≤ 66.7 %"]  # the bound alone on the outlined bar; its reason in the hover and the legend
    assert "registers and shared memory not recorded" in html and "· unknown" not in html


def test_the_console_speed_of_light_table_shows_the_measured_peak_share_beside_the_rated_one():
    """rocprof-compute vcopy MI200: the verdict reads vecCopy's DRAM share of the *measured* HBM peak (roofline.csv
    HBMBw 1,388.93 GB/s), the console's speed-of-light table showed only its share of the *rated* one (sysinfo.csv
    hbm_bw 1,638.4 GB/s): "52.7 %" under a verdict of "62.2 %", nothing saying both are one throughput. Expected: the
    console row shows both, and their ratio is the two peaks' ratio, 1638.4 / 1388.93 (rounding of one decimal each
    allowed)."""
    import gpulens
    from conftest import shared_trace
    from gpulens.reports import console

    rep = gpulens.analyze([shared_trace("omniperf/vcopy_MI200")])
    text = console.render(rep, width=220)
    table = text[text.index("Speed of light"):]
    head = " ".join(table[:table.index("┡")].split())
    assert "of rated peak" in head and "measured peak" in head
    row = next(line for line in table.splitlines() if line.startswith("│ vecCopy"))
    pcts = [float(x) for x in re.findall(r"([\d.]+) %", row)]
    rated, measured = pcts[-2], pcts[-1]  # memory SOL (rated), DRAM SOL (measured peak): the last two cells
    assert abs(measured / rated - 1638.4 / 1388.93) < 0.1 / rated * 2 + 1e-3


def test_a_printed_share_its_own_total_contradicts_is_flagged(tmp_path):
    """An nsys kernel summary whose rows print 50.0 / 30.0 / 20.0 % with Total Times 0.5 / 0.3 / 2 ms (each row's
    Avg × Instances = its Total: nothing else is wrong). The first two put the table's whole at 100 × 0.5 / 50 = 1 ms;
    kernel_c's 2 ms cannot be 20 % of it (that whole is 10 ms): gpulens showed kernel_c at 2 / 2.8 = 71.4 % of kernel
    time with no word that the file says 20.0 %. Expected: a warning naming the row, both figures, and that which
    is wrong is unknown; a consistent table (kernel_c 0.2 ms) and one cut after its rows (10.0 % of 1 ms, the rest
    missing) raise no such warning."""
    import gpulens

    head = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"

    def table(c_pct: str, c_ns: int) -> list[str]:
        p = tmp_path / f"kern_sum_{c_ns}.csv"
        avg = c_ns // 10
        p.write_text(head + "50.0,500000,10,50000.0,50000.0,50000,50000,0.0,kernel_a\n"
                     "30.0,300000,10,30000.0,30000.0,30000,30000,0.0,kernel_b\n"
                     f"{c_pct},{c_ns},10,{avg}.0,{avg}.0,{avg},{avg},0.0,kernel_c\n")
        return [str(w) for w in gpulens.analyze([p]).sources[0].timeline.meta.warnings]

    said = [w for w in table("20.0", 2_000_000) if "disagrees with its Total Time" in w]
    assert len(said) == 1 and "kernel_c prints 20.0 % but holds 71.4 %" in said[0]  # 2 / (0.5 + 0.3 + 2)
    assert not [w for w in table("20.0", 200_000) if "disagrees" in w]
    assert not [w for w in table("10.0", 100_000) if "disagrees" in w]
