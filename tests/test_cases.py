"""The shared cases of ../shared/cases (README.md there: inputs that broke other tools, with the value a correct
tool gives) that gpulens handles today — one test per case, each asserting the README's expected value through the
public API (``gpulens.analyze``) or the CLI. Skipped when ../shared is absent. Other helpers add the cases they fix.

Every expected number below is quoted from the README (µs there, ns here: × 1000) or recomputed from the file
itself in the test (gzip sizes)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pandas as pd
import pytest

import gpulens
from gpulens.analyzers.context import context_of
from gpulens.cli import main
from gpulens.errors import EXIT_NO_GPU_WORK, EXIT_WORKLOAD_FAILED

CASES = Path(__file__).resolve().parents[2] / "shared" / "cases"


def case(name: str) -> Path:
    """Path of a shared case file; skips the test when ../shared/cases does not have it."""
    p = CASES / name
    if not p.exists():
        pytest.skip(f"shared case {name} not present (../shared/cases)")
    return p


def report(path: Path, tmp_path: Path, *extra: str) -> tuple[int, dict]:
    """`gpulens analyze FILE --no-cache --json out.json`: exit code and the JSON report."""
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), *extra, "--json", str(out)])
    return code, json.loads(out.read_text()) if out.exists() else {}


def kernels(src: dict) -> dict[str, tuple[int, int]]:
    """Hotspot rows as {name: (calls, total ns)}."""
    return {r["name"]: (r["calls"], r["total_ns"]) for r in src["analyses"]["hotspots"]["table"]}


@pytest.mark.parametrize("name", ["B02.pt.trace.json.gz", "B02.renamed.json"])
def test_b02_gzip_found_by_content_and_every_member_read(name, tmp_path):
    p = case(name)
    code, doc = report(p, tmp_path)
    assert code == 0
    src = doc["sources"][0]
    # README: 5 events (1 cudaLaunchKernel + 4 kernels gemm_a..gemm_d), GPU busy 80 µs
    assert src["summary"]["event_count"] == 5
    assert sorted(kernels(src)) == ["gemm_a", "gemm_b", "gemm_c", "gemm_d"]
    assert src["summary"]["gpu_busy_ns"] == 80_000
    assert src["analyses"]["launches"]["summary"]["launch_calls"] == 1
    # compressed and uncompressed sizes reported; the uncompressed size is that of *all* gzip members
    raw = p.read_bytes()
    assert raw[:2] == b"\x1f\x8b"                     # gzip by magic bytes, whatever the name says
    inp = src["inputs"][0]
    assert inp["compressed"] is True and inp["size_bytes"] == len(raw)
    assert inp["uncompressed_bytes"] == len(gzip.decompress(raw))


def test_b04a_array_without_closing_bracket_is_legal(tmp_path):
    code, doc = report(case("B04a.json"), tmp_path)
    src = doc["sources"][0]
    assert code == 0 and src["status"] == "ok" and not src["truncated"] and src["warnings"] == []
    # README: kernels k1, k2, k3, 5 µs each, busy 15 µs, no warning
    assert kernels(src) == {"k1": (1, 5_000), "k2": (1, 5_000), "k3": (1, 5_000)}
    assert src["summary"]["gpu_busy_ns"] == 15_000


def test_b04b_cut_object_trace_keeps_complete_events_and_is_partial(tmp_path):
    p = case("B04b.json")
    code, doc = report(p, tmp_path)
    src = doc["sources"][0]
    # README: 2 kernels (k1, k2), busy 10 µs, truncated flag set; k3 not invented
    assert kernels(src) == {"k1": (1, 5_000), "k2": (1, 5_000)}
    assert src["summary"]["gpu_busy_ns"] == 10_000
    assert src["truncated"] is True and src["status"] == "partial"
    # the cut is reported at the byte where the partial event (k3) starts: the last '{"ph"' of the file
    assert list(src["truncated_at"].values()) == [p.read_bytes().rindex(b'{"ph"')]
    # the CI gate must not treat it as comparable to a complete baseline: excluded, so ERROR (exit 4), never PASS
    base = tmp_path / "base.json"
    assert main(["analyze", "-q", "--no-cache", str(case("B04a.json")), "--json", str(base)]) == 0
    assert main(["gate", "--baseline", str(base), str(tmp_path / "out.json")]) == EXIT_WORKLOAD_FAILED


@pytest.mark.parametrize("name", ["B05a.json", "B05b.kernel_trace.csv"])
def test_b05_empty_input_is_no_data_not_a_crash_and_never_passes_the_gate(name, tmp_path):
    p = case(name)
    code, doc = report(p, tmp_path)
    # README: 0 kernels, 0 µs, no exception, a "no data" status and a distinct exit status
    assert code == EXIT_NO_GPU_WORK
    src = doc["sources"][0]
    assert src["status"] == "no_gpu_work"
    assert src["summary"]["kernel_count"] == 0 and src["summary"]["gpu_busy_ns"] == 0
    assert src["analyses"]["hotspots"]["table"] == []
    base = tmp_path / "base.json"
    assert main(["analyze", "-q", "--no-cache", str(case("B04a.json")), "--json", str(base)]) == 0
    gate_out = tmp_path / "gate.json"
    code = main(["gate", "--baseline", str(base), str(tmp_path / "out.json"), "--json", str(gate_out)])
    assert code == EXIT_WORKLOAD_FAILED and json.loads(gate_out.read_text())["verdict"] == "ERROR"


def test_b11_rocm_dialect(tmp_path):
    src = gpulens.analyze([case("B11.json")]).sources[0]
    k = src.timeline.of_kind("kernel")
    # README: 3 kernels, GPU busy 38 µs (20 + 10 + 8), all on device 0 / stream 0
    assert len(k) == 3 and set(k["device_id"]) == {0} and set(k["stream_id"]) == {0}
    assert sorted(k["dur_ns"]) == [8_000, 10_000, 20_000]
    assert src.summary["gpu_busy_ns"] == 38_000
    # links: hipLaunchKernel -> Cijk_… (corr 1), hipExtModuleLaunchKernel -> triton_poi_fused_add_0 (corr 2);
    # hipModuleLaunchKernel (corr 3) has no kernel; elementwise_kernel unlinked
    ev = src.timeline.events
    name_of = dict(zip(ev["event_id"], ev["name"].astype(str)))
    links = context_of(src.timeline).links  # per GPU event (index = its event_id): the launch call's event_id
    launched = {name_of[kid]: (None if pd.isna(lid) else name_of[lid]) for kid, lid in links["launch_event_id"].items()}
    assert launched[next(n for n in launched if n.startswith("Cijk_"))] == "hipLaunchKernel"
    assert launched["triton_poi_fused_add_0"] == "hipExtModuleLaunchKernel"
    assert launched[next(n for n in launched if "elementwise_kernel" in n)] is None
    la = src.results["launches"]
    assert la.table.set_index("launch_name").loc["hipModuleLaunchKernel", "gpu_events"] == 0
    assert la.summary["kernels_unlinked"] == 1


def test_b13_cuda_graph_launch_is_one_to_many(tmp_path):
    code, doc = report(case("B13.json"), tmp_path)
    src = doc["sources"][0]
    # README: 4 kernels, GPU busy 65 µs; cudaGraphLaunch -> fused_qkv_proj, flash_attn_fwd, mlp_down (60 µs);
    # cudaLaunchKernel -> rmsnorm; 2 launch calls for 4 kernels; no kernel unlinked
    assert code == 0
    ks = kernels(src)
    assert set(ks) == {"fused_qkv_proj", "flash_attn_fwd", "mlp_down", "rmsnorm"}
    assert sum(ks[n][1] for n in ("fused_qkv_proj", "flash_attn_fwd", "mlp_down")) == 60_000
    assert src["summary"]["gpu_busy_ns"] == 65_000
    la = src["analyses"]["launches"]["summary"]
    assert la["launch_calls"] == 2 and la["kernels"] == 4 and la["kernels_unlinked"] == 0
    assert la["graph_launches"] == 1 and la["gpu_events_from_graphs"] == 3


def test_b17_rocprof_v1_quoted_commas(tmp_path):
    code, doc = report(case("B17.v1_results.csv"), tmp_path)
    # README: 2 kernels, `transpose_tile(float*, float const*, int, int) [clone .kd]` 60,000 ns and
    # `void demo::axpy<float, 256>(float, float const*, float*, int) [clone .kd]` 10,000 ns (EndNs − BeginNs)
    assert code == 0
    assert kernels(doc["sources"][0]) == {
        "transpose_tile(float*, float const*, int, int) [clone .kd]": (1, 60_000),
        "void demo::axpy<float, 256>(float, float const*, float*, int) [clone .kd]": (1, 10_000)}


def test_b17_v2_width_mismatch_is_one_line_error_naming_the_file(capsys):
    p = case("B17.v2_results.csv")
    # README: width-mismatch error (header 21 columns, rows 19) — never shifted columns
    assert main(["analyze", "-q", "--no-cache", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and p.name in err
