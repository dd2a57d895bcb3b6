"""``gpulens diff`` conclusions that must not mislead (session 5, walking the H100 vs MI300 TraceLens pairs):

* kernels no External id links to an operator were "vanished" on one side and "new" on the other, so the headline
  led with a 3.94 ms GEMM saving while GEMM time rose 4.09 ms: unmatched kernels are now matched by what they are
  (variant of the same kernel, else work category);
* "of Δ" was Δ / net Δ and read +152 % when rows moved in opposite directions: it is Δ / Σ|Δ| (gross change),
  within ±100 %, the same number in console, Markdown, HTML and JSON;
* an operator-matched row counted cuBLAS's workspace memset as one of the op's kernels.

Expected values are hand sums of the durations each test writes, or plain-json sums over the real traces.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from gpulens.diff import diff
from gpulens.reports.diff import headline, render_console, render_html, render_markdown, to_dict
from tests.dig_traces import H100, MI300X, KTrace

EXTRA = Path("/tmp/extra")


def _unlinked(path: Path, device: dict, kernels: list[tuple[str, float]], reps: int = 3) -> Path:
    """``reps`` rounds of ``kernels`` [(name, µs)], each launched by a runtime call outside every framework op and
    without External id (as when a trace's launch records were cut off): no operator links them."""
    t = KTrace(device)
    cpu, gpu = 100.0, 1000.0
    for _ in range(reps):
        for name, us in kernels:
            t.launch(0, cpu, [(name, gpu, us)], linked=False)
            cpu += 10
            gpu += us + 1
    return t.write(path)


H_GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"
M_GEMM = "Cijk_Alik_Bljk_B_MT256x128x64_MI16x16x1"
H_EW = "void at::native::elementwise_kernel<128, 4, at::native::CUDAFunctor_add<float>>"
M_EW = "void at::native::elementwise_kernel_manual_unroll<128, 8, at::native::CUDAFunctor_add<float>>"


@pytest.fixture
def cross(tmp_path):
    """H100: GEMM 100 µs + add 50 µs + a kernel of no known kind 5 µs; MI300X: GEMM 130 µs + add 30 µs; ×3."""
    b = _unlinked(tmp_path / "h100.json", H100, [(H_GEMM, 100.0), (H_EW, 50.0), ("mystery_kernel", 5.0)])
    c = _unlinked(tmp_path / "mi300.json", MI300X, [(M_GEMM, 130.0), (M_EW, 30.0)])
    return diff(b, c)


def test_unlinked_kernels_are_matched_by_work_category(cross):
    k = cross.tables["kernels"].set_index("kernel")
    # GEMM: 3 × (130 − 100) = +90 µs; elementwise: 3 × (30 − 50) = −60 µs — never a "vanished" GEMM saving
    assert k.loc["unmatched GEMM kernels (by category)", "match"] == "category"
    assert k.loc["unmatched GEMM kernels (by category)", "delta_ns"] == 90_000
    assert k.loc["unmatched GEMM kernels (by category)", "base_count"] == 3 == k.loc["unmatched GEMM kernels (by category)", "cand_count"]
    assert k.loc["unmatched elementwise kernels (by category)", "delta_ns"] == -60_000
    # a kernel of no known kind ("other") says nothing of what it is: it stays vanished (3 × 5 µs)
    assert k.loc["mystery_kernel", "match"] == "vanished" and k.loc["mystery_kernel", "delta_ns"] == -15_000
    assert set(k["match"]) == {"category", "vanished"}
    assert cross.summary["matched_by_category"] == 2 and cross.summary["new_kernels"] == 0
    head = headline(cross)
    # total 3 × 160 − 3 × 155 = +15 µs; per category GEMM +90 µs, elementwise −60 µs, other −15 µs
    assert "+15.00 µs" in head and "By category: GEMM +90.00 µs, elementwise -60.00 µs, other -15.00 µs" in head
    assert "Largest changes: unmatched GEMM kernels (by category) +90.00 µs" in head


def test_share_of_the_change_stays_within_bounds_and_reads_the_same_everywhere(cross):
    """Net Δ = +15 µs, gross Σ|Δ| = 90 + 60 + 15 = 165 µs: the GEMM row is 90/165 = +54.5 % (a part of the net
    change would read +600 %)."""
    for name, t in cross.tables.items():
        c = t["contribution"].astype(float)
        assert (c.abs() <= 1 + 1e-12).all(), name
        if name != "contributors":  # every row of the table: |parts| sum to 1
            assert c.abs().sum() == pytest.approx(1.0), name
    assert cross.summary["gross_delta_ns"] == 165_000
    row = lambda text: next(line for line in text.splitlines()  # the contributors table's row (its first)
                            if "unmatched GEMM kernels (by category)" in line and line.lstrip()[:1] in "|│")
    assert "+54.5 %" in row(render_markdown(cross))
    assert "+54.5 %" in row(render_console(cross, width=200))
    html = render_html(cross)
    contrib = re.search(r'<section id="contributors">.*?</section>', html, re.S).group(0)
    assert ">+54.5 %</td>" in contrib
    rows = to_dict(cross)["tables"]["contributors"]
    assert next(r for r in rows if r["kernel"] == "unmatched GEMM kernels (by category)")["contribution"] == pytest.approx(90 / 165)


def test_operator_rows_count_kernels_not_the_memsets_beside_them(tmp_path):
    """cuBLAS on the H100 clears a workspace (a memset) inside aten::mm; the MI300X's aten::mm launches one kernel.
    The aten::mm row compares 3 GEMMs (3 × 100 µs) with 3 GEMMs (3 × 120 µs): +60 µs; the memsets (3 × 2 µs) are
    their own row (copy work), not a fourth "kernel" of the op."""
    dims = [[64, 128], [128, 256]]

    def prog(path, device, gemm, us, memset):
        t = KTrace(device)
        cpu, gpu = 100.0, 1000.0
        for _ in range(3):
            ext = t.op("aten::mm", cpu, 20.0, dims, ["float", "float"])
            if memset:
                t.launch(ext, cpu + 1, [("Memset (Device)", gpu, 2.0)], cat="gpu_memset", api="cudaMemsetAsync")
                gpu += 3
            t.launch(ext, cpu + 5, [(gemm, gpu, us)])
            cpu, gpu = cpu + 30, gpu + us + 1
        return t.write(path)

    r = diff(prog(tmp_path / "h.json", H100, H_GEMM, 100.0, True),
             prog(tmp_path / "m.json", MI300X, M_GEMM, 120.0, False))
    k = r.tables["kernels"].set_index("kernel")
    mm = k.loc["aten::mm [[64,128],[128,256]]"]
    assert mm["match"] == "op+shapes" and mm["base_count"] == 3 and mm["cand_count"] == 3
    assert mm["delta_ns"] == 60_000 and "Memset" not in mm["kernels"]
    assert k.loc["Memset (Device)", "delta_ns"] == -6_000 and k.loc["Memset (Device)", "category"] == "copy"
    # per operator: 3 GEMM launches on each side (never "6 calls" against 3), the memsets a row of their own
    ops = r.tables["operators"].set_index("op")
    assert ops.loc["aten::mm", "base_count"] == 3 == ops.loc["aten::mm", "cand_count"]
    assert ops.loc["aten::mm", "delta_ns"] == 60_000 and ops.loc["aten::mm (memset)", "delta_ns"] == -6_000


def test_the_same_kernel_with_other_template_values_is_one_row(tmp_path):
    """``…cta_per_row_1<float, 2ul>`` (3 × 40 µs) → ``<float, 5ul>`` (3 × 55 µs): one variant row, +45 µs."""
    name = "void split_embedding_backward_codegen_rowwise_adagrad_unweighted_kernel_cta_per_row_1<float, float, {}ul>"
    r = diff(_unlinked(tmp_path / "a.json", H100, [(name.format(2), 40.0)]),
             _unlinked(tmp_path / "b.json", H100, [(name.format(5), 55.0)]))
    k = r.tables["kernels"]
    assert len(k) == 1 and k["match"].iloc[0] == "variant" and k["delta_ns"].iloc[0] == 45_000
    assert "#ul" in k["kernel"].iloc[0]


def _raw_gemm_us(path: Path) -> float:
    """Σ dur (µs) of the kernels a GEMM library names (attention kernels first: flash kernels carry cutlass types)."""
    ev = json.load(gzip.open(path))["traceEvents"]
    gemm = re.compile(r"gemm|Cijk_|cutlass|nvjet|xmma", re.I)
    return sum(e["dur"] for e in ev if e.get("cat") == "kernel" and not re.search(r"flash|attn|fmha", e["name"])
               and gemm.search(e["name"]))


def test_h100_vs_mi300_gemm_direction_is_the_traces():
    """Qwen1.5-0.5B on H100 and MI300X (TraceLens test data): 3.94 ms of the H100's GEMMs have no launch record,
    so no operator. GEMM time rose (plain-json sums below: 12.79 → 16.89 ms); the diff must say so, with no GEMM
    row 'vanished' or 'new'."""
    b = EXTRA / "AMD-AGI__tests_traces_h100_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
    c = EXTRA / "AMD-AGI__tests_traces_mi300_Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
    if not (b.exists() and c.exists()):
        pytest.skip("TraceLens H100/MI300 traces not present (/tmp/extra)")
    want_ns = (_raw_gemm_us(c) - _raw_gemm_us(b)) * 1000
    assert want_ns > 4e6
    r = diff(b, c)
    k = r.tables["kernels"]
    gemm = k[k["category"] == "GEMM"]
    assert set(gemm["match"]) <= {"name", "op+shapes", "variant", "category"}
    assert gemm["delta_ns"].sum() == pytest.approx(want_ns, rel=1e-3)
    assert f"GEMM +{want_ns / 1e6:.2f} ms" in headline(r)
    assert (k["contribution"].abs() <= 1).all()


def test_class_rows_keep_memsets_apart_from_copy_kernels(tmp_path):
    """Unmatched copy work on both sides: memsets (3 × 2 µs → 3 × 3 µs) and copy kernels (3 × 10 µs → 3 × 12 µs)
    form two class rows, +3 µs and +6 µs; a memset is never counted among the kernels."""
    def prog(path, memset, copy, ms_us, cp_us):
        t = KTrace(H100)
        cpu, gpu = 100.0, 1000.0
        for _ in range(3):
            t.launch(0, cpu, [(memset, gpu, ms_us)], linked=False, cat="gpu_memset", api="cudaMemsetAsync")
            t.launch(0, cpu + 5, [(copy, gpu + 5, cp_us)], linked=False)
            cpu, gpu = cpu + 20, gpu + 30
        return t.write(path)

    r = diff(prog(tmp_path / "a.json", "Memset (Device)", "void at::native::direct_copy_kernel_cuda<float>", 2.0, 10.0),
             prog(tmp_path / "b.json", "__amd_rocclr_fillBufferAligned",
                  "void at::native::elementwise_kernel_manual_unroll<direct_copy_kernel_cuda<c10::Half>>", 3.0, 12.0))
    k = r.tables["kernels"].set_index("kernel")
    assert k.loc["unmatched copy memsets (by category)", "delta_ns"] == 3_000 and k.loc["unmatched copy memsets (by category)", "base_count"] == 3
    assert k.loc["unmatched copy kernels (by category)", "delta_ns"] == 6_000 and k.loc["unmatched copy kernels (by category)", "cand_count"] == 3
    assert set(k["match"]) == {"category"}


def test_a_rank_traced_in_one_run_only_is_named_not_read_as_a_saving(tmp_path):
    """Base: ranks 0 and 1 (GEMM 3 × 100 µs each); candidate: rank 0 only (3 × 90 µs). The total falls by
    600 − 270 = 330 µs, of which rank 1's 300 µs is a rank the candidate does not have: the diff says so."""
    def rank(path, r, us):
        t = KTrace(H100, rank=r)
        for i in range(3):
            t.launch(t.op("aten::mm", 100 + 20 * i, 10), 101 + 20 * i, [(H_GEMM, 1000 + 200 * i, us)])
        return t.write(path)

    (tmp_path / "base").mkdir()
    rank(tmp_path / "base" / "rank0.json", 0, 100.0)
    rank(tmp_path / "base" / "rank1.json", 1, 100.0)
    r = diff(tmp_path / "base", rank(tmp_path / "cand.json", 0, 90.0))
    assert r.summary["delta_ns"] == -330_000 and r.summary["one_run_ranks_delta_ns"] == -300_000
    assert (r.summary["base_ranks"], r.summary["cand_ranks"]) == (2, 1)
    assert any("different ranks" in w and "-300.00 µs" in w for w in r.warnings)
    assert "ranks only one run has" in headline(r)
    # one rank each (rank 1 of one file against rank 0 of another) is a whole-run comparison — none of the
    # difference is put on a missing rank — but the diff still says the ranks differ (README: every output says so)
    r1 = diff(rank(tmp_path / "r1.json", 1, 100.0), rank(tmp_path / "r0.json", 0, 90.0))
    assert r1.summary["one_run_ranks_delta_ns"] == 0 and "ranks only one run has" not in headline(r1)
    assert [w for w in r1.warnings if "different ranks" in w] == [
        "the runs hold different ranks (base: rank 1; candidate: rank 0), one each: they are compared as one run "
        "each; the per-rank table lists each rank apart (−100 % / unknown there is the rank missing from the other "
        "run)"]
    r2 = diff(rank(tmp_path / "s0.json", 0, 100.0), rank(tmp_path / "s0b.json", 0, 90.0))
    assert not any("ranks" in w for w in r2.warnings)  # the same rank: nothing to say


def test_gemm_kernels_without_a_library_word_are_gemm_work():
    """The class match is only as good as the classes: TensorRT-LLM's batched GEMMs (``bmm_…``, the B200 trace's
    largest kernels) and Triton's ``_matmul_ogs_…`` read "other", so a diff left them new/vanished."""
    from gpulens.analyzers._categories import kernel_category

    for name in ("bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_sm100f",
                 "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x256x128x1_swiglu"):
        assert kernel_category(name) == "GEMM", name
    assert kernel_category("triton_poi_fused_bmm_0") == "elementwise"  # a fused pointwise kernel named after its op
