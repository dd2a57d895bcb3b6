"""The time breakdown's "of span" shares follow the one rule for shares of a whole (``units.share_pct_text``).

Kind: the console and HTML breakdown tables formatted each part's share with one decimal of their own, so a part that
took time read "0.0 %" (rocprofv3 MI350X run: exposed memcpy 7.04 ms of a 15.12 s span = 0.047 % → "0.0 %"), while
the headline, findings and Markdown say "under 0.1 %" for such a share (and "over 99.9 %" for 99.95 ≤ share < 100).
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulens.report import analyze
from gpulens.reports import console, html

_KH = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
       '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
       '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"\n')
_MH = '"Kind","Direction","Source_Agent_Id","Destination_Agent_Id","Correlation_Id","Start_Timestamp","End_Timestamp"\n'


def _run(tmp_path: Path) -> Path:
    """rocprofv3 CSV: kernel A [0, 5 ms), a 1 µs device-to-host copy [6 ms, 6.001 ms), kernel B [9.999 ms, 10 ms)
    (timestamps ns, offset by 10^9). By hand: span 10 ms; exposed memcpy 1 µs = 0.01 % of it; idle 10 − 5 − 0.001
    − 0.001 = 4.998 ms = 49.98 %; computation 5.001 ms = 50.01 %."""
    o = 1_000_000_000
    d = tmp_path / "run"
    d.mkdir()
    rows = [(1, o, o + 5_000_000), (2, o + 9_999_000, o + 10_000_000)]
    (d / "kernel_trace.csv").write_text(_KH + "".join(
        f'"KERNEL_DISPATCH",1,1,69,{i},16,"void k{i}(float*)",{i},{s},{e},0,0,256,1,1,262144,1,1\n'
        for i, s, e in rows))
    (d / "memory_copy_trace.csv").write_text(
        _MH + f'"MEMORY_COPY","MEMORY_COPY_DEVICE_TO_HOST",1,0,9,{o + 6_000_000},{o + 6_001_000}\n')
    return d


def test_a_small_part_of_the_span_is_not_zero_percent(tmp_path):
    rep = analyze([str(_run(tmp_path))])
    sm = rep.sources[0].results["breakdown"].summary
    assert sm["exposed_memcpy_ns"] == 1_000 and sm["idle_ns"] == 4_998_000  # the hand figures
    text = console.render(rep, width=160)
    row = next(ln for ln in text.splitlines() if "exposed memcpy" in ln and "µs" in ln)
    assert "under 0.1 %" in row and "0.0 %" not in row, row
    idle = next(ln for ln in text.splitlines() if ln.strip("│ ").startswith("idle"))
    assert "50.0 %" in idle, idle  # 49.98 % with one decimal, as before
    page = html.render(rep)
    cell = re.search(r"exposed memcpy</th><td[^>]*>[^<]*</td><td class='num'>([^<]*)</td>", page)
    assert cell and cell.group(1) == "under 0.1 %", cell and cell.group(1)


def test_profiled_window_share_is_not_zero_percent():
    """HTA's Triton example (A100): one 1.76 µs kernel (``triton_poi_fused_add_cos_sin_0``, dur 1.76 µs) in a
    profiled window of 13.34 s (its events run from ts 2413668742269 µs to 2413682432405 µs; the window leaves out
    the profiler's own session record) — by hand 1.76e-6 / 13.34 × 100 = 0.000013 % of it: "under 0.1 %", not
    "0.0 %" (console and Markdown share the one wording)."""
    import gzip
    import json

    from gpulens.reports import markdown

    p = Path(__file__).parent / "data" / "kineto" / "hta_a100_triton_example.json.gz"
    ev = [e for e in json.loads(gzip.open(p).read())["traceEvents"] if e.get("ph") == "X"]
    gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    assert [e["dur"] for e in gpu] == [1.76]
    assert 100 * 1.76e-6 / 13.0 < 0.05  # any window over 13 s
    rep = analyze([str(p)])
    sm = rep.sources[0].summary
    assert sm["window_ns"] > 13e9 and 0 < sm["gpu_utilization_pct"] < 0.05
    text = " ".join(console.render(rep, width=160).split())
    assert "GPU busy under 0.1 % of it" in text and "GPU busy 0.0 % of it" not in text
    assert "| profiled window | 13.34 s: GPU busy under 0.1 % of it |" in markdown.render(rep)
