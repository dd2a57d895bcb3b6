"""``gpulens diff`` says how the run's GPU span and busy % changed, not only the summed GPU time.

The diff headline compared only Σ GPU event time: a candidate whose kernels got 40 µs faster but whose run grew by
almost 1 ms (longer idle gaps between them) read as a plain improvement. The span and busy % are the ones `gpulens
analyze` reports (breakdown ``span_ns`` / ``busy_pct``), taken from a trace or from a JSON report alike.

Expected values are hand calculations from the kernel times each test writes.
"""

from __future__ import annotations

import json

from gpulens.diff import diff
from gpulens.reports.diff import headline, render_markdown, to_dict
from tests.dig_traces import H100, KTrace

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"


def _run(path, kernels):
    """Kernels [(gpu start µs, dur µs)] of one GEMM, each launched 10 µs apart on the host."""
    t = KTrace(H100)
    ext = t.op("aten::mm", 0.0, 5.0, [[64, 64], [64, 64]], ["float", "float"])
    for i, (ts, us) in enumerate(kernels):
        t.launch(ext, 1.0 + 10 * i, [(GEMM, ts, us)])
    return t.write(path)


def test_span_grows_while_gpu_time_falls(tmp_path):
    # base: 100 µs at 1000 and 100 µs at 1100 → span 1000 → 1200 = 200 µs, busy 200/200 = 100 %
    # cand: 80 µs at 1000 and 80 µs at 2000 → span 1000 → 2080 = 1080 µs, busy 160/1080 = 14.81 %
    b = _run(tmp_path / "b.json", [(1000.0, 100.0), (1100.0, 100.0)])
    c = _run(tmp_path / "c.json", [(1000.0, 80.0), (2000.0, 80.0)])
    r = diff(b, c)
    s = r.summary
    assert s["delta_ns"] == -40_000
    assert s["base_span_ns"] == 200_000 and s["cand_span_ns"] == 1_080_000
    assert s["span_delta_ns"] == 880_000
    assert abs(s["span_delta_pct"] - 440.0) < 1e-9
    assert abs(s["base_busy_pct"] - 100.0) < 1e-9
    assert abs(s["cand_busy_pct"] - 100 * 160 / 1080) < 1e-9
    h = headline(r)
    assert "GPU span (first → last GPU event) 200.00 µs → 1.08 ms: +880.00 µs (+440.0 %)" in h
    assert "GPU busy 100.0 % → 14.8 % of it" in h
    assert "idle gaps" in h and "not in the kernels" in h
    assert "GPU span" in render_markdown(r).splitlines()[2]


def test_same_direction_has_no_gap_sentence(tmp_path):
    # both shrink: kernels 100 → 50 µs back to back; span 200 → 100 µs
    b = _run(tmp_path / "b.json", [(1000.0, 100.0), (1100.0, 100.0)])
    c = _run(tmp_path / "c.json", [(1000.0, 50.0), (1050.0, 50.0)])
    r = diff(b, c)
    assert r.summary["span_delta_ns"] == -100_000
    assert "idle gaps" not in headline(r) and "span shrank" not in headline(r)


def test_span_from_reports_and_unknown_without_breakdown(tmp_path):
    b = _run(tmp_path / "b.json", [(1000.0, 100.0), (1100.0, 100.0)])
    c = _run(tmp_path / "c.json", [(1000.0, 80.0), (2000.0, 80.0)])
    from typer.testing import CliRunner

    from gpulens.cli import app

    run = CliRunner()
    for src, out in ((b, "b_rep.json"), (c, "c_rep.json")):
        res = run.invoke(app, ["analyze", str(src), "--json", str(tmp_path / out), "-q", "--no-cache"])
        assert res.exit_code == 0, res.output
    r = diff(tmp_path / "b_rep.json", tmp_path / "c_rep.json")
    assert r.summary["base_span_ns"] == 200_000 and r.summary["cand_span_ns"] == 1_080_000
    # a report whose breakdown was removed: span unknown (null), no span sentence — never 0 ns
    doc = json.loads((tmp_path / "c_rep.json").read_text())
    del doc["sources"][0]["analyses"]["breakdown"]
    (tmp_path / "c_nobd.json").write_text(json.dumps(doc))
    r2 = diff(tmp_path / "b_rep.json", tmp_path / "c_nobd.json")
    assert r2.summary["cand_span_ns"] is None and r2.summary["span_delta_ns"] is None
    assert to_dict(r2)["summary"]["span_delta_pct"] is None
    assert "GPU span" not in headline(r2)
