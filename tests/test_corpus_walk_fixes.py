"""Classes found by the newcomer walk of the README (closing review of 2026-12-01).

- Kernel categories: ``fbgemm_gpu`` embedding/permute/quantise kernels are not GEMMs because their namespace
  contains the letters "gemm"; real GEMM kernels (cuBLAS/CUTLASS, Tensile ``Cijk_``) still are.
- Counter-collection replays (ncu) have no workload timeline: the critical path is skipped, not computed from the
  replay's serialised kernels.
"""

from pathlib import Path

import gpulens
from gpulens.analyzers._categories import kernel_category

DATA = Path(__file__).parent / "data" / "nvidia"


def test_fbgemm_namespace_is_not_a_gemm():
    not_gemm = ["void fbgemm_gpu::split_embedding_codegen_forward_kernel<float>(int)",
                "void fbgemm_gpu::permute_2D_data_kernel<float, int>(int)",
                "void fbgemm_gpu::bounds_check_indices_kernel<long>(long)"]
    assert [kernel_category(n) for n in not_gemm] != ["GEMM"] * 3
    assert all(kernel_category(n) != "GEMM" for n in not_gemm)
    assert kernel_category("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn>") \
        == "GEMM"
    assert kernel_category("Cijk_Alik_Bljk_BBS_BH_MT128x128x64_MI32x32x8") == "GEMM"


def test_counter_replay_has_no_critical_path():
    rep = gpulens.analyze([DATA / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"])
    cp = rep.sources[0].results["critical_path"]
    assert cp.skipped and "no workload timeline" in cp.skipped_reason
    assert not [f for f in rep.sources[0].findings() if f.category == "critical-path"]


def test_ncu_metrics_csv_names_its_gpu_from_the_program_output_and_saxpy_is_memory_bound():
    """The olajide saxpy file: the CSV has no device name column; its preamble line reads
    ``device: NVIDIA GeForce RTX 5070 (sm_120), 48 SMs``. Issue 14 item 2: a saxpy moving 134 MB in 293 µs is
    memory-bound (not "latency/occupancy-bound, raise parallelism")."""
    path = DATA / "olajide_rtx5070_metrics_saxpy.csv"
    line = next(ln for ln in path.read_text(encoding="utf-8-sig").splitlines() if ln.startswith("device:"))
    want = line.split(":", 1)[1].split("(")[0].strip()
    rep = gpulens.analyze([path])
    s = rep.sources[0]
    assert s.timeline.meta.devices[0]["name"] == want == "NVIDIA GeForce RTX 5070"
    assert s.device is not None and s.device.num_sms == int(line.split(",")[1].split()[0]) == 48
    v = s.results["verdicts"].table
    assert list(v["verdict"]) == ["memory-bound"]


def test_console_diff_per_category_table_keeps_its_category_column():
    from gpulens.reports.diff import CONSOLE, _cols
    import pandas as pd

    df = pd.DataFrame({"category": ["GEMM"], "kernels": [3], "base_time_ns": [10], "cand_time_ns": [12],
                       "delta_ns": [2]})
    assert _cols("categories", df, CONSOLE)[0] == "category"
    assert "category" not in _cols("kernels", df.assign(name=["k"]), CONSOLE)


def test_timeline_tab_draws_every_stream_when_over_its_segment_budget():
    """3 streams holding 900, 90 and 10 segments with a budget of 200: every stream is drawn (10 + 90 + 100 = 200;
    the small streams' unused share goes to the big one), the big one by its longest segments."""
    import re
    from types import SimpleNamespace

    import pandas as pd

    from gpulens.analyzers import AnalysisResult
    from gpulens.reports._html_pages import timeline_page

    rows = [(0, s, i, 1 + i) for s, n in ((7, 900), (23, 90), (84, 10)) for i in range(n)]
    t = pd.DataFrame(rows, columns=["rank", "stream_id", "i", "busy_ns"]).assign(
        device_id=0, start_ns=lambda d: d["i"] * 10, end_ns=lambda d: d["i"] * 10 + d["busy_ns"],
        offset_ns=lambda d: d["i"] * 10, events=1, kind="kernel", name="k")
    st = AnalysisResult("stream_timeline", t, {}, {"event_count": 1000, "track_count": 3, "start_ns": 0,
                                                  "end_ns": 9000, "decimated": False})
    import base64
    import gzip
    import json

    panel = timeline_page(SimpleNamespace(results={"stream_timeline": st}), 10, 200)[0]
    assert re.search(r"200 of 1000 segments embedded", panel.takeaway)
    raw = panel.data if isinstance(panel.data, str) else panel.data.result()  # a Future: compressed in a thread
    data = json.loads(gzip.decompress(base64.b64decode(raw)))
    per_lane = {lab: data["lane"].count(i) for i, lab in enumerate(data["lanes"])}
    assert per_lane == {"rank 0 · GPU 0 · stream 7": 100, "rank 0 · GPU 0 · stream 23": 90,
                        "rank 0 · GPU 0 · stream 84": 10}
    # the big stream keeps its longest segments: busy 801..900 ns (i = 800..899)
    big = [b for b, ln in zip(data["busy"], data["lane"]) if data["lanes"][ln].endswith("stream 7")]
    assert sorted(big) == list(range(801, 901))


def test_roofline_skip_says_the_critical_set_is_communication(tmp_path):
    """An NCCL kernel of 900 µs and a GEMM of 10 µs: the 80 % critical set is the NCCL kernel alone (98.9 %), so the
    roofline has no kernel to place — and must say that, not "no compute kernels in the trace"."""
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": d,
           "args": {"device": 0, "stream": 7, "correlation": i}}
          for i, (n, ts, d) in enumerate((("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", 1000, 900),
                                          ("ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_tn", 1950, 10)))]
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"traceEvents": ev, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}]}))
    s = gpulens.analyze([f]).sources[0]
    reason = s.results["roofline"].skipped_reason
    assert "critical set holds no compute kernel" in reason and "comm" in reason and "98.9 %" in reason
