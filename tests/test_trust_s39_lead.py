"""Session 39, lead: the run verdict's basis agrees with the kernel verdicts beside it."""

from __future__ import annotations

import gpulens
from tests.dig_traces import KTrace


def test_gpu_bound_basis_names_the_classified_kernels_beside_the_undetermined(tmp_path):
    """A 2021 Kineto ResNet trace: basis "kernel classes undetermined without counters…" while 5 of its 17 critical
    kernels were memory-bound (shape-based FLOP/byte model). Here: 3 × 300 µs float adds of 2^26 elements (3 × 4 B
    × 2^26 = 805 MB each, 2.68 TB/s on an H100: memory-bound by the shape model) and 3 × 1000 µs of a custom kernel
    with no shapes (undetermined). By hand: undetermined 3.00 ms of 3.90 ms, memory-bound 900 µs."""
    t = KTrace()
    n, ts = 1 << 26, 100.0
    for _ in range(3):
        e = t.op("aten::add", ts, 10, dims=[[n], [n], []], types=["float", "float", "Scalar"])
        t.launch(e, ts + 2, [("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::CUDAFunctor_add<float>>", ts + 10, 300.0)])
        ts += 310
        e = t.op("my_op", ts, 10)
        t.launch(e, ts + 2, [("custom_fused_kernel_xyz", ts + 10, 1000.0)])
        ts += 1010
    v = gpulens.analyze([t.write(tmp_path / "t.json")]).sources[0].results["verdicts"].summary
    assert v["run_verdict"] == "gpu-bound"
    assert v["kernel_time_by_verdict_ns"] == {"undetermined": 3_000_000, "memory-bound": 900_000}
    b = v["basis"]
    assert "kernel classes undetermined without counters" not in b   # it read as "no kernel has a class"
    assert "have no class (3.00 ms of their 3.90 ms" in b and "classified: memory-bound 900.00 µs" in b


def test_strict_refusal_of_damage_does_not_claim_the_file_is_whole(tmp_path):
    """Strict reading stops at the first damaged stretch: it cannot know whether the file's end is whole. A file
    damaged in the middle AND cut 300 bytes before its end was refused with "(it is not truncated)"."""
    import pytest

    from gpulens.collectors import collect
    from gpulens.errors import TraceFormatError

    t = KTrace()
    ts = 100.0
    for _ in range(50):
        e = t.op("aten::mm", ts, 10)
        t.launch(e, ts + 2, [("gemm_k", ts + 10, 50.0)])
        ts += 60
    b = t.write(tmp_path / "t.json").read_bytes()
    mid = len(b) // 2
    bad = tmp_path / "bad.json"
    bad.write_bytes(b[:mid] + b"@@garbage@@" + b[mid:len(b) - 300])
    with pytest.raises(TraceFormatError) as ei:
        collect(bad)
    msg = str(ei.value)
    import re
    at = int(re.search(r"damaged text from byte ([\d,]+)", msg).group(1).replace(",", ""))
    assert mid - 400 < at <= mid          # the damaged event starts at most one event before the garbage
    assert "not truncated" not in msg and "whether its end is whole is unknown" in msg and "--lenient" in msg


def test_diff_page_puts_its_warnings_under_the_headline_before_the_facts(tmp_path):
    """A warning qualifies the headline ("the runs are on different GPUs"): on the diff page it came after the
    facts table, a screen below the headline it qualifies."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_html
    from tests.dig_traces import MI300X

    paths = []
    for dev, name in ((None, "a.json"), (MI300X, "b.json")):
        t = KTrace(device=dev)
        e = t.op("aten::mm", 100.0, 10)
        t.launch(e, 102.0, [("gemm_k", 110.0, 50.0)])
        paths.append(t.write(tmp_path / name))
    r = diff(*paths)
    assert any("different GPUs" in w for w in r.warnings)
    page = render_html(r)
    head, warn, facts = (page.index('class="headline"'), page.index("different GPUs"), page.index('class="kv"'))
    assert head < warn < facts


def test_window_unit_written_once_applies_to_both_bounds():
    """`--window 100:200ms` read START as 100 ns (the run's first 200 ms kept, not 100–200 ms; found on GPT-2 H200:
    2,923 kernels instead of 1,399). A bare bound takes the other bound's unit; bare both stay ns."""
    import pytest

    from gpulens.errors import GpulensError
    from gpulens.timeline.selection import Selection

    ms, us = 1_000_000, 1_000
    assert Selection.parse(window="100:200ms").window_ns == (100 * ms, 200 * ms)
    assert Selection.parse(window="100ms:200").window_ns == (100 * ms, 200 * ms)
    assert Selection.parse(window="1500us:2ms").window_ns == (1500 * us, 2 * ms)   # each its own unit
    assert Selection.parse(window="100:200").window_ns == (100, 200)               # ns
    assert Selection.parse(window=":250ms").window_ns == (None, 250 * ms)
    with pytest.raises(GpulensError, match="end must come after the start"):
        Selection.parse(window="300:200ms")                                          # 300 ms after 200 ms
