"""Session 39: conclusions that contradicted the figures beside them — one name per verdict, one meaning per id.

Each test derives its expected value from the input itself (events written here, or counted in a real trace), never
from gpulens's own output.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import gpulens
import gpulens.cli
from tests.conftest import shared_trace

DATA = Path(__file__).parent / "data"
NON_GPU = DATA / "kineto" / "hta_rank_non_gpu.json.gz"


# --- one verdict, one name: the JSON run verdict is the case the console heads with -----------------------------

def test_host_only_trace_with_gpu_only_ops_is_one_verdict_everywhere(tmp_path, capsys):
    """HTA's rank trace holds host operators only, among them ``aten::record_stream`` (an op only GPU work has),
    and no GPU event: the console said "incomplete capture" while the JSON run verdict said ``no-gpu-work``."""
    events = json.loads(gzip.open(NON_GPU).read())["traceEvents"]
    gpu_cats = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
    assert not [e for e in events if e.get("cat") in gpu_cats]            # no GPU event in the file
    assert sum(e.get("name") == "aten::record_stream" for e in events) == 48  # the GPU-only op, counted here
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    gpulens.cli.main(["analyze", "--no-cache", str(NON_GPU), "--json", str(out), "--markdown", str(md)])
    said = " ".join(capsys.readouterr().out.split())
    assert "Verdict: incomplete capture" in said
    src = json.loads(out.read_text())["sources"][0]
    assert src["summary"]["verdict"] == "incomplete-capture"  # was "no-gpu-work" beside the console's words
    vd = src["analyses"]["verdicts"]["summary"]
    assert vd["run_verdict"] == "incomplete-capture" and "aten::record_stream ×48" in vd["basis"]
    assert "incomplete capture" in md.read_text().lower()


def test_cpu_only_trace_keeps_no_gpu_work(tmp_path):
    """A host-only trace with no GPU-only operator: nothing ran on a GPU, and both names say so."""
    p = tmp_path / "cpu.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {}}]}))
    src = gpulens.analyze([p], cache=False).sources[0]
    assert src.summary["verdict"] == "no-gpu-work"
    from gpulens.reports._answer import answer

    assert answer(src).verdict == "no GPU work"


def test_truncated_host_part_is_named_truncated_in_json_too(tmp_path):
    """A trace cut before any GPU event: the answer said "truncated input", the JSON run verdict ``no-gpu-work``."""
    ops = [{"ph": "X", "cat": "cpu_op", "name": f"aten::op{i}", "pid": 1, "tid": 1, "ts": 10 * i, "dur": 5,
            "args": {"External id": i + 1}} for i in range(200)]
    text = json.dumps({"traceEvents": ops})
    p = tmp_path / "cut.pt.trace.json"
    p.write_text(text[: len(text) // 2])  # cut inside the host events: the GPU events a profiler writes last are lost
    src = gpulens.analyze([p], cache=False).sources[0]
    assert src.timeline.meta.truncated
    from gpulens.reports._answer import answer

    assert answer(src).verdict == "truncated input"
    assert src.summary["verdict"] == "truncated-input"


# --- --top 0: no empty tables, no "the 0 least busy of 1 GPUs" ---------------------------------------------------

def test_top_zero_names_what_it_leaves_out(tmp_path, capsys):
    p = DATA / "kineto" / "hta_a100_simple_add_two_streams.json.gz"
    events = json.loads(gzip.open(p).read())["traceEvents"]
    kernels = {e["name"] for e in events if e.get("cat") == "kernel"}
    assert gpulens.cli.main(["analyze", "--no-cache", str(p), "--top", "0"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"{len(kernels)} kernel rows not shown (--top 0)" in out
    assert "first 0 of" not in out and "the 0 least busy" not in out
    assert "Time breakdown (rank" in out  # the breakdown is per GPU, not per kernel: still shown


# --- correlation / external id 0 is "no link" ---------------------------------------------------------------------

def _kernel(name: str, ts: int, corr: int, ext: int) -> dict:
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": 10,
            "args": {"device": 0, "stream": 7, "correlation": corr, "External id": ext,
                     "grid": [1024, 1, 1], "block": [256, 1, 1]}}


def _call(ts: int, corr: int, ext: int) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts,
            "dur": 10, "args": {"correlation": corr, "External id": ext}}


def _op(name: str, ts: int, ext: int) -> dict:
    return {"ph": "X", "cat": "cpu_op", "name": name, "pid": 100, "tid": 100, "ts": ts, "dur": 20,
            "args": {"External id": ext}}


def test_correlation_zero_links_no_kernel_to_a_launch(tmp_path):
    """One launch call and one op carrying id 0, three kernels 370 µs apart carrying 0 (Kineto's "none"), and one
    kernel properly linked (correlation 9, external id 5): only that one has a launch call and an op. Before, the
    single 0-call was read as the launch of all three (a 770 µs "launch latency") and aten::add as their op."""
    p = tmp_path / "c0.pt.trace.json"
    p.write_text(json.dumps({"traceEvents": [
        _op("aten::add", 0, 0), _call(5, 0, 0), _kernel("kernA", 30, 0, 0), _kernel("kernB", 400, 0, 0),
        _kernel("kernC", 800, 0, 0), _op("aten::mul", 700, 5), _call(705, 9, 5), _kernel("kernD", 820, 9, 5)]}))
    src = gpulens.analyze([p], cache=False).sources[0]
    from gpulens.analyzers.launches import link_gpu_to_launch

    ev = src.timeline.events
    links = link_gpu_to_launch(src.timeline)
    names = ev.loc[links.index, "name"].astype(str).tolist()
    linked = {n for n, missing in zip(names, links["launch_event_id"].isna()) if not missing}
    assert linked == {"kernD"}
    with_op = {n for n, v in zip(names, links["op_event_id"].isna()) if not v}
    assert with_op == {"kernD"}
    lt = src.results["launches"].table
    assert int(lt["gpu_events"].sum()) == 1  # one GPU event has a launch call: kernD
    ll = src.results["launch_latency"].table
    assert set(ll["name"].astype(str)) == {"kernD"}
    assert int(ll["latency_p50_ns"].iloc[0]) == (820 - 705) * 1000  # its own call: 820 − 705 µs


def test_zero_ids_of_a_real_trace_are_missing_not_zero():
    """The TensorBoard-plugin ResNet-50 trace writes ``"external id": 0`` on GPU events and runtime calls no operator
    made: counted in the file here; the Timeline holds them as missing, and no event keeps an id of 0."""
    p = shared_trace("kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz")
    events = json.loads(gzip.open(p).read())["traceEvents"]
    zero = sum(1 for e in events if (e.get("args") or {}).get("external id") == 0)
    assert zero == 937
    import gpulens.collectors as col

    tl = col.collect(p, cache=False)
    for c in ("external_id", "correlation_id"):
        assert not (tl.events[c] == 0).fillna(False).any()
    assert int(tl.events["external_id"].isna().sum()) >= zero


# --- diff: one definition per count; a copy's direction is part of its work -------------------------------------

def _prog(path: Path, device: dict, gemm: str, gemm_us: float, copy: str, copy_us: float) -> Path:
    """Three rounds of: a GEMM, a ``Memset (Device)`` of 2 µs and a copy ``copy`` of ``copy_us``, none linked to an
    operator (so no operator match can pair them)."""
    from tests.dig_traces import KTrace

    t = KTrace(device)
    cpu, gpu = 100.0, 1000.0
    for _ in range(3):
        t.launch(0, cpu, [(gemm, gpu, gemm_us)], linked=False)
        t.launch(0, cpu + 5, [("Memset (Device)", gpu + gemm_us + 1, 2.0)], linked=False, cat="gpu_memset",
                 api="cudaMemsetAsync")
        t.launch(0, cpu + 10, [(copy, gpu + gemm_us + 5, copy_us)], linked=False, cat="gpu_memcpy",
                 api="cudaMemcpyAsync")
        cpu, gpu = cpu + 30, gpu + gemm_us + copy_us + 10
    return t.write(path)


def test_matched_by_name_says_how_many_are_copies_or_memsets(tmp_path):
    """Same GEMM and the same memset on both sides, other copies: 2 rows match by name — the GEMM and the memset —
    and 1 kernel name is in common. The header said "2 matched by name" beside the workload's kernel count of 1."""
    from gpulens.diff import diff
    from gpulens.reports.diff import render_markdown
    from tests.dig_traces import H100

    gemm = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
    r = diff(_prog(tmp_path / "a.json", H100, gemm, 100.0, "Memcpy DtoH (Device -> Pageable)", 10.0),
             _prog(tmp_path / "b.json", H100, gemm, 90.0, "Memcpy DtoD (Device -> Device)", 4.0))
    s = r.summary
    assert (s["matched_by_name"], s["matched_by_name_transfers"]) == (2, 1)
    assert s["workload"]["common"] == 1  # kernel names only: the GEMM
    assert "2 matched by name (1 kernel, 1 copy or memset)" in " ".join(render_markdown(r).split())


def test_cross_vendor_copies_of_other_directions_are_not_one_row(tmp_path):
    """H100 copies device → host (3 × 10 µs), the MI300X device → device (3 × 4 µs): two pieces of other work. One
    category row once held both ("DtoH | HtoD → DtoD"); now the device-to-host copies vanish (−30 µs) and the
    device-to-device ones are new (+12 µs), each its own row."""
    from gpulens.diff import diff
    from tests.dig_traces import H100, MI300X

    r = diff(_prog(tmp_path / "h.json", H100, "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", 100.0,
                   "Memcpy DtoH (Device -> Pageable)", 10.0),
             _prog(tmp_path / "m.json", MI300X, "Cijk_Alik_Bljk_B_MT256x128x64_MI16x16x1", 130.0,
                   "Memcpy DtoD (Device -> Device)", 4.0))
    k = r.tables["kernels"]
    both = k[k["base_kernels"].str.contains("DtoH") & k["cand_kernels"].str.contains("DtoD")]
    assert both.empty, both[["kernel", "kernels"]].to_string()
    dtoh = k[k["base_kernels"].str.contains("DtoH")]
    dtod = k[k["cand_kernels"].str.contains("DtoD")]
    assert len(dtoh) == 1 and int(dtoh["delta_ns"].iloc[0]) == -30_000
    assert len(dtod) == 1 and int(dtod["delta_ns"].iloc[0]) == 12_000


# --- wordings that read as another quantity -------------------------------------------------------------------------

def test_clipped_sum_that_prints_alike_names_what_was_clipped():
    """401,440,000 ns recorded, 401,439,998 ns after clipping: both print 401.44 ms, so the text says the 2 ns
    (401,440,000 − 401,439,998) clipped — "401.44 ms … (401.44 ms after clipping …)" read as a clipping of nothing."""
    from gpulens.reports._run_text import kernel_time_text

    sm = {"kernel_time_ns": 401_440_000, "kernel_effective_ns": 401_439_998, "kernel_busy_ns": 400_000_000}
    assert kernel_time_text(sm).startswith(
        "401.44 ms summed as recorded (401.44 ms after clipping 2 ns of overruns of the next event on their stream)")
    sm = {"kernel_time_ns": 19_000, "kernel_effective_ns": 15_000, "kernel_busy_ns": 15_000}  # 19 − 15 µs visible
    assert "(15.00 µs after clipping overruns of" in kernel_time_text(sm)


def test_one_off_gap_scope_names_the_time_judged_not_the_gap():
    """A verdict judged without a one-off gap between kernels: the figure after the colon is the span less the gap
    (what was judged), never read as the gap: span 1000 µs, gap 800 µs → "… less a one-off gap: 200.00 µs"."""
    from types import SimpleNamespace

    from gpulens.analyzers._run_shares import verdict_scope

    bn = SimpleNamespace(skipped=False, summary={
        "idle_boundary_ns": 800_000, "device_span_ns": 1_000_000, "steady_span_ns": 200_000, "min_share": 0.1,
        "boundary_gaps": [{"position": "between", "dur_ns": 800_000}]})
    assert verdict_scope(bn) == "judged on the span less a one-off gap: 200.00 µs, 20.0 % of the span"


def test_gap_against_median_names_the_median_first():
    """SGLang decode on an MI300X: a 463.30 ms warm-up gap beside back-to-back kernels (median gap 1 ns)."""
    from gpulens.analyzers._idle_findings import _against_median

    assert _against_median({"dur_ns": 463_295_405, "median_other_gap_ns": 1}) == \
        "the other gaps' median is 1 ns (work back to back): it is over 1000× that"
    assert _against_median({"dur_ns": 1_200_000, "median_other_gap_ns": 100_000}) == \
        "the other gaps' median is 100.00 µs: it is 12× that"


# --- the legend words a bound as the rule decides it ----------------------------------------------------------------

def test_latency_legend_covers_each_case_the_rule_calls_latency_bound():
    """The rule calls a kernel latency/occupancy-bound (a) on measured speed of light with its busiest unit under
    SOL_BOUND_PCT (60 %) — ncu's "tiny" kernel: memory 0.4 %, compute 0 % — and (b) with no throughput figure at all,
    on a grid of 1 block on 132 SMs. The legend said only "under 50 % of both roofs": neither case's words."""
    from gpulens.analyzers._verdict_facts import Evidence
    from gpulens.analyzers.verdict_rules import SOL_BOUND_PCT, decide
    from gpulens.reports._html_answer import bound_meanings

    by_sol = decide(Evidence("k", "kernel", 1, 10_000, sol_bound="latency", sol_pct=55.0, roof_source="sol",
                             compute_pct=10.0, memory_pct=55.0, mean_blocks=1.0, num_sms=132))
    by_grid = decide(Evidence("k", "kernel", 1, 10_000, mean_blocks=1.0, num_sms=132))
    assert by_sol.verdict == by_grid.verdict == "latency/occupancy-bound"
    words = bound_meanings()["latency/occupancy-bound"]
    assert f"under {SOL_BOUND_PCT:g} % of peak" in words  # case (a): 55 % of peak is not "under 50 %"
    assert "with no throughput figure, a grid of fewer blocks (workgroups) than 90 % of the SMs / CUs" in words  # (b)
    # in the vendor's words where the report knows it (test_vendor_words: no CUs on an NVIDIA page, no warps on AMD)
    assert "a grid of fewer blocks than 90 % of the SMs (" in bound_meanings("nvidia")["latency/occupancy-bound"]
    amd = bound_meanings("amd")["latency/occupancy-bound"]
    assert "too few wavefronts in flight" in amd and "fewer workgroups than 90 % of the CUs (" in amd
