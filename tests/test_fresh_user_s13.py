"""Thirteenth-session fresh-user walk: figures that read as contradictions beside the numbers next to them."""

from __future__ import annotations

import re

import gpulens
from gpulens.units import fmt_ns
from tests.conftest import shared_trace


def _path_finding(src):
    return next(f for f in src.findings() if f.key == "critical_path")


def test_critical_path_title_names_its_basis_and_its_stake_is_explained():
    """gunrock (rocprof v1, MI300X): no ProfilerStep, so the path's share is of the traced time, not "the step
    time"; its time at stake (the steady idle, 2.57 ms) is below the 81.00 ms of unattributed waits it describes,
    and the detail says so with both figures, taken from the critical_path table itself."""
    src = gpulens.analyze([shared_trace("rocprof/v1_gunrock_mi300x")]).sources[0]
    f = _path_finding(src)
    t = src.results["critical_path"].table
    top = t[t["class"] == src.results["critical_path"].summary["top_class"]]["time_ns"].sum()
    share = 100 * top / t.drop_duplicates(["rank", "step"])["step_ns"].sum()
    assert f"hold {share:.1f} % of the path window" in f.title and "step time" not in f.title
    assert f.time_at_stake_ns < top
    assert f"At stake: {fmt_ns(f.time_at_stake_ns)} of the {fmt_ns(top)} described" in f.detail


def test_multirank_path_title_gives_the_summed_path_beside_the_summed_class_time():
    """Two ranks' steps: "CPU ops hold 50 % of the step time (1.24 s …)" read as if the step time were 1.24 s;
    the title now gives both sums (class time of summed path)."""
    src = gpulens.analyze([shared_trace("kineto/multirank_hta_trace_filter")]).sources[0]
    f = _path_finding(src)
    t = src.results["critical_path"].table
    path = t.drop_duplicates(["rank", "step"])["step_ns"].sum()
    top = t[t["class"] == src.results["critical_path"].summary["top_class"]]["time_ns"].sum()
    # s39: the title leads with the host share of the summed path (the headline's figure), then the top class's
    # summed time as its largest part — both sums, and what they sum over
    assert f" of {fmt_ns(path)}, summed over 2 ranks' steps" in f.title
    assert f.title.endswith(f" of the step time ({fmt_ns(top)}), the largest part")


def test_the_verdict_line_leads_with_the_steady_figure_it_rests_on():
    """gunrock: the run is gpu-bound on the steady span (77.8 % busy outside the one-off 78.42 ms gap); the verdict
    line led with "busy 10.0 % of its 90.02 ms span" and read as a contradiction of "gpu-bound"."""
    from gpulens.reports import console

    rep = gpulens.analyze([shared_trace("rocprof/v1_gunrock_mi300x")])
    bn = rep.sources[0].results["bottlenecks"].summary
    text = " ".join(console.render(rep).split())  # the console wraps the line
    line = text[text.index("Verdict:"):]
    m = re.search(r"busy ([\d.]+) % of the ([\d.]+ \w+) outside", line)
    assert m and abs(float(m.group(1)) - bn["steady_busy_pct"]) < 0.05
    assert m.group(2) == fmt_ns(bn["steady_span_ns"])
    assert line.index(m.group(0)) < line.index("of its whole")


def test_shared_memory_sizes_read_in_binary_units_in_every_table():
    """Shared memory / LDS sizes are powers of two that GPU documentation gives in KiB (48 KiB, 228 KiB); the HTML
    occupancy tab showed "49.15 kB" beside the environment tab's "48 KiB" (fresh-user walk). Every table cell of a
    shared-memory byte column now uses the capacity format; other byte counts keep decimal prefixes."""
    from gpulens.reports._format import fmt_value

    assert fmt_value(49152, "smem_bytes", "shared memory per block [bytes]") == "48 KiB"  # 49152 / 1024
    assert fmt_value(33792, "smem_per_block_bytes") == "33 KiB"  # 33 × 1024
    assert fmt_value(1536, "lds_bytes") == "1.50 KiB"
    assert fmt_value(49152, "bytes") == "49.15 kB"  # a payload size: decimal, as before

    from gpulens.cli.analyze import demo_trace_path
    from gpulens.reports import html

    rep = gpulens.analyze([demo_trace_path()])
    occ = rep.sources[0].results["occupancy"].table
    sizes = {int(v) for v in occ["smem_bytes"].dropna()} if "smem_bytes" in occ else set()
    page = html.render(rep)
    for b in sizes:
        if b >= 1024:
            shown = f"{b // 1024} KiB" if b % 1024 == 0 else f"{b / 1024:.2f} KiB"
            assert shown in page
