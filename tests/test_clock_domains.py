"""One GPU's events on two clocks (kernels on one time base, copies written on another, 102 days apart): every span,
step, gap, overlap and critical path leaves the jump out (``_span.CLOCK_GAP_NS``, ``_span.clock_windows``), the
overlap of copies with kernels is unknown, and every report shows the clock warning beside the verdict.

Expected values are worked out by hand from the intervals written in the test.
"""

from __future__ import annotations

import base64
import gzip
import json
import re

import gpulens
from gpulens.analyzers._span import CLOCK_GAP_NS, clock_windows
from gpulens.report import Report
from gpulens.reports import console, html, json_report, markdown
from gpulens.timeline import EVENT_COLUMNS, Timeline, make_table

T_K = 1_000_000_000          # kernels' clock: t ≈ 1 s
T_C = 8_800_000 * 10**9      # copies' clock: t ≈ 8.8e15 ns (102 days later)
UNKNOWN_OVERLAP = "unknown: copies and kernels are on different clocks"


def _timeline() -> Timeline:
    # kernels (stream 1): [T_K, T_K+100 µs), [T_K+200 µs, T_K+250 µs)  → domain 250 µs, busy 150 µs, idle 100 µs
    # copies  (stream 2): [T_C, T_C+300 µs), [T_C+400 µs, T_C+500 µs)  → domain 500 µs, busy 400 µs, idle 100 µs
    rows = [("kernel", "gemm", T_K, 100_000, 1), ("kernel", "relu", T_K + 200_000, 50_000, 1),
            ("memcpy", "Memcpy HtoD", T_C, 300_000, 2), ("memcpy", "Memcpy DtoH", T_C + 400_000, 100_000, 2)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id"])}
    return Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "device_id": [0] * n,
                                               "event_id": list(range(n)), "source": ["t"] * n})).validate()


SPAN = 250_000 + 500_000     # the two clock domains, the jump left out
JUMP = T_C - (T_K + 250_000)


def test_clock_windows_split_at_the_jump():
    s = [T_K, T_K + 200_000, T_C, T_C + 400_000]
    e = [T_K + 100_000, T_K + 250_000, T_C + 300_000, T_C + 500_000]
    assert clock_windows(s, e) == [(T_K, T_K + 250_000), (T_C, T_C + 500_000)]
    assert JUMP >= CLOCK_GAP_NS


def test_two_clocks_every_figure_leaves_the_jump_out_in_every_report():
    tl = _timeline()
    src = gpulens.analyze_timeline(tl)
    rep = Report([src])
    bd = src.results["breakdown"].summary
    assert bd["span_ns"] == SPAN and bd["busy_ns"] == 550_000 and bd["idle_ns"] == 200_000
    assert bd["computation_ns"] == 150_000
    # the 200 µs is idle inside each clock domain (100 µs + 100 µs), an upper bound: each domain's gap may hold the
    # other domain's work — min(100, 400 copy µs) + min(100, 150 kernel µs) = 200 µs of it — so no verdict rests on
    # it and the idle finding has no time at stake (docs/bottlenecks.md "Clock domains")
    assert bd["idle_other_clock_ns"] == 200_000 and bd["idle_bound"].startswith("at most 200.00 µs: up to 200.00 µs")
    assert src.results["verdicts"].summary["run_verdict"] == "undetermined"
    assert src.results["bottlenecks"].summary["verdict"] == "undetermined"
    assert [f.time_at_stake_ns for f in src.findings() if f.key == "idle"] == [None]
    # copies and kernels never share a clock: their overlap is unknown, not 400 µs of exposed copies
    assert bd["exposed_memcpy_ns"] is None and bd["overlap_unknown"] == UNKNOWN_OVERLAP
    assert not any("Exposed memory copies" in f.title for f in src.findings())

    # critical path: one window per rank, walked per clock domain → step time 750 µs, never the 102 days
    cp = src.results["critical_path"].table
    assert set(cp["step_ns"]) == {SPAN}
    assert int(cp["time_ns"].sum()) == SPAN and float(cp["share"].max()) < 1.0
    # the waits hold only the two 100 µs gaps inside the domains; no launch call is recorded, so their cause is
    # unknown (unattributed, as the idle breakdown says), not a cross-stream dependency
    assert int(cp.loc[cp["class"] == "unattributed", "time_ns"].sum()) == 200_000
    assert "gpu_gap" not in set(cp["class"])
    seg = src.results["critical_path_segments"].table
    assert int((seg["offset_ns"] + seg["dur_ns"]).max()) == SPAN

    # the timeline's drawn extent is the two domains, the jump left out (and said)
    st = src.results["stream_timeline"].summary
    assert st["extent_ns"] == SPAN and st["clock_jump_ns"] == JUMP

    # console: the clock warning is above the verdict; the breakdown says the overlap is unknown
    raw = console.render(rep, width=160)
    text = " ".join(raw.split())  # rich wraps long titles
    assert text.index("CLOCKS: GPU events on different clocks") < text.index("Verdict:")
    assert UNKNOWN_OVERLAP in text and "│ exposed memcpy        │     unknown │  unknown │" in raw
    assert "│ idle                  │ ≤ 200.00 µs │ ≤ 26.7 % │" in raw
    assert "750.00 µs" in text and "100.0 %" not in text.split("Critical path")[-1].split("Findings")[0]

    # JSON: the note, the unknown part, the span
    js = json.loads(json_report.render(rep))["sources"][0]
    assert js["clock_note"].startswith("GPU events on different clocks")
    assert js["summary"]["span_ns"] == SPAN and js["summary"]["exposed_memcpy_ns"] is None
    assert js["analyses"]["breakdown"]["summary"]["overlap_unknown"] == UNKNOWN_OVERLAP
    assert {r["step_ns"] for r in js["analyses"]["critical_path"]["table"]} == {SPAN}

    # Markdown: the clock line right under the verdict, before the key figures
    md = markdown.render(rep)
    assert md.index("> **Verdict:**") < md.index("> **Clocks:** GPU events on different clocks") < md.index("| status")
    assert UNKNOWN_OVERLAP in md
    assert "| 0 | 1 | 750.00 µs | 150.00 µs | 0 ns | unknown | 0 ns | ≤ 200.00 µs |" not in md  # device 0, not 1
    assert "| 0 | 0 | 750.00 µs | 150.00 µs | 0 ns | unknown | 0 ns | ≤ 200.00 µs |" in md  # an upper bound, as in the console

    # HTML: the clock line inside the answer banner, the overlap unknown, the timeline extent without the jump
    page = html.render(rep)
    banner = page[page.index('<section class="answer"'):]
    banner = banner[:banner.index("</section>")]
    assert "<strong>Clocks:</strong> GPU events on different clocks" in banner
    assert UNKNOWN_OVERLAP in page and "Exposed memory copies" not in page
    spans = []
    for m in re.finditer(r"[A-Za-z0-9+/=]{200,}", page):
        try:
            payload = json.loads(gzip.decompress(base64.b64decode(m.group(0))))
        except Exception:
            continue
        if isinstance(payload, dict) and "span" in payload and "off" in payload:
            spans.append(payload["span"])
            assert max(o + d for o, d in zip(payload["off"], payload["dur"])) == SPAN
    assert spans == [SPAN]


def test_collectives_on_another_clock_than_kernels_leave_the_ranks_exposed_comm_unknown():
    # rank 0: kernel [T_K, T_K+100 µs), collective on another clock [T_C, T_C+50 µs); rank 1: kernel and
    # collective on one clock, [T_K, T_K+100 µs) and [T_K+100 µs, T_K+130 µs) → exposed 30 µs (no overlap)
    rows = [("kernel", "gemm", T_K, 100_000, 1, 0), ("comm", "ncclAllReduce", T_C, 50_000, 2, 0),
            ("kernel", "gemm", T_K, 100_000, 1, 1), ("comm", "ncclAllReduce", T_K + 100_000, 30_000, 2, 1)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "rank"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "device_id": [0] * n, "event_id": list(range(n)),
                                             "source": ["t"] * n})).validate()
    src = gpulens.analyze_timeline(tl)
    bd = src.results["breakdown"]
    row = {int(r["rank"]): r for r in bd.table.to_dict("records")}
    assert row[0]["span_ns"] == 150_000 and row[1]["span_ns"] == 130_000
    assert row[0]["exposed_comm_ns"] is None or row[0]["exposed_comm_ns"] != row[0]["exposed_comm_ns"] \
        or str(row[0]["exposed_comm_ns"]) == "<NA>"
    assert int(row[1]["exposed_comm_ns"]) == 30_000
    assert bd.summary["exposed_comm_ns"] is None
    assert bd.summary["overlap_unknown"] == "unknown: collectives and kernels are on different clocks"
    rk = src.results["ranks"].table.set_index("rank")
    assert str(rk.loc[0, "exposed_comm_ns"]) == "<NA>" and float(rk.loc[1, "exposed_comm_ns"]) == 30_000
    # every report renders the unknown as unknown (no crash on <NA>, no number for it)
    rep = Report([src])
    for text in (console.render(rep, width=160), markdown.render(rep), html.render(rep)):
        assert "collectives and kernels are on different clocks" in " ".join(text.split())
    assert json.loads(json_report.render(rep))["sources"][0]["summary"]["exposed_comm_ns"] is None
    # the collective's verdict: communication-bound, but no exposed time (its overlap is unknown, not 50 µs)
    from gpulens.analyzers.verdicts import exposed_comm_by_name

    assert exposed_comm_by_name(tl) == {"ncclAllReduce": None}
    v = src.results["verdicts"].table.set_index("name").loc["ncclAllReduce"]
    assert "overlap with compute unknown: collectives and kernels are on different clocks" in v["evidence"]
    assert str(v["time_at_stake_ns"]) == "<NA>"


def test_a_launch_a_day_before_its_kernel_is_a_clock_disagreement_not_a_latency():
    # host calls on the kernels' clock... except one whose kernel was written on the copies' clock:
    # call [T_K, +5 µs) → kernel at T_K+20 µs: latency 20 µs;
    # call [T_K+100 µs, +5 µs) → kernel at T_C: 102 days
    rows = [("runtime", "cudaLaunchKernel", T_K, 5_000, None, -1, 1),
            ("kernel", "gemm", T_K + 20_000, 10_000, 7, 0, 1),
            ("runtime", "cudaLaunchKernel", T_K + 100_000, 5_000, None, -1, 2),
            ("kernel", "gemm", T_C, 10_000, 7, 0, 2)]
    n = len(rows)
    cols = {k: [r[i] for r in rows] for i, k in enumerate(["kind", "name", "start_ns", "dur_ns", "stream_id",
                                                            "device_id", "correlation_id"])}
    tl = Timeline(make_table(EVENT_COLUMNS, {**cols, "rank": [0] * n, "pid": [1] * n,
                                             "tid": [1 if r[0] == "runtime" else None for r in rows],
                                             "event_id": list(range(n)), "source": ["t"] * n})).validate()
    src = gpulens.analyze_timeline(tl)
    ll = src.results["launch_latency"]
    assert ll.summary["launches"] == 1 and ll.summary["latency_max_ns"] == 20_000
    assert ll.summary["clock_skew_events"] == 1
    assert ll.summary["clock_skew_max_ns"] == T_C - (T_K + 100_000)
    assert any(w.startswith("GPU and host clocks disagree") for w in tl.meta.warnings)
    # the stream's queue (+1 at each call's start, −1 at its kernel's end): 1 over [T_K, T_K+30 µs), 0 over
    # [T_K+30 µs, T_K+100 µs), then 1 from T_K+100 µs to T_C+10 µs — a piece across the jump, no time: left out.
    # span 100 µs, mean queue 30/100 = 0.3, empty 70 %
    q = src.results["queue_length"].table.iloc[0]
    assert int(q["span_ns"]) == 100_000
    assert abs(float(q["mean_queue"]) - 0.3) < 1e-9 and abs(float(q["empty_share"]) - 0.7) < 1e-9
    # shown beside the verdict like the other clock warnings
    js = json.loads(json_report.render(Report([src])))["sources"][0]
    assert "GPU and host clocks disagree" in js["clock_note"]
