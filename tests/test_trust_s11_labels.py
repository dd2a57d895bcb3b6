"""Labels that say which kernels a row is about, the same in every report (trust, eleventh session).

* diff: a kernel row matched by name had an empty ``kernels`` column (only operator, variant and class rows said which
  kernels they hold), so a name row labelled ``vectorized_elementwise_kernel`` did not say which of that template's
  kernels it was. Every row now says base kernels → candidate kernels, in one naming over both runs.
"""

from __future__ import annotations

from pathlib import Path

from gpulens.diff import diff
from gpulens.reports.diff import render_console, render_markdown
from tests.dig_traces import H100, KTrace

EQ = "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<long, long, bool, " \
     "at::native::(anonymous namespace)::CompareEqFunctor<long>>, std::array<char*, 2>>"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3>>"
GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"


def _run(path: Path, kernels: list[tuple[str, float]]) -> Path:
    t = KTrace(H100)
    cpu, gpu = 100.0, 1000.0
    for name, us in kernels:
        t.launch(0, cpu, [(name, gpu, us)], linked=False)
        cpu, gpu = cpu + 10, gpu + us + 1
    return t.write(path)


def test_every_diff_row_names_its_kernels(tmp_path):
    # base: two elementwise kernels (10 + 4 µs) + the GEMM 50 µs; candidate: the same two (12 + 4 µs) + a new kernel
    b = _run(tmp_path / "b.json", [(EQ, 10.0), (ADD, 4.0), (GEMM, 50.0)])
    c = _run(tmp_path / "c.json", [(EQ, 12.0), (ADD, 4.0), ("my_new_kernel", 3.0)])
    r = diff(b, c)
    k = r.tables["kernels"].set_index("kernel")
    row = k.loc[EQ]
    assert row["match"] == "name" and row["delta_ns"] == 2_000
    # the name row: the same kernel on both sides, shown by the part that tells the two templates apart (the
    # functor), not blank
    assert row["kernels"].endswith("(both runs)") and "CompareEqFunctor" in row["kernels"]
    assert "CUDAFunctor_add" in k.loc[ADD, "kernels"]
    assert all(str(x).strip() for x in r.tables["kernels"]["kernels"])  # no row without its kernels
    new = k.loc["my_new_kernel"]
    assert new["match"] == "new" and new["kernels"] == "(none) → my_new_kernel"
    gone = k.loc[GEMM]
    assert gone["match"] == "vanished" and gone["kernels"].startswith("sm90_xmma_gemm") and \
        gone["kernels"].endswith("→ (none)")
    # the same cell in the contributors table and the reports
    con = r.tables["contributors"].set_index("kernel")
    assert con.loc[EQ, "kernels"] == row["kernels"]
    assert "CompareEqFunctor" in render_markdown(r)
    assert "(both runs)" in render_console(r, width=200)


# ---- kernel labels are cut between words, never inside one -------------------------------------------------------

NCCL = ["ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
        "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)",
        "void ncclKernel_AllReduce_RING_LL_Sum_bfloat16<(ncclProtocol)0>(ncclDevComm*, ncclWork*)"]


def test_nccl_labels_cut_at_a_word_boundary():
    from gpulens.reports._names import BASE_CHARS, base_name, short_names

    for name, label in zip(NCCL, short_names(NCCL)):
        base = base_name(name)
        assert len(label) <= BASE_CHARS
        if label.endswith("…"):
            kept = label[:-1]
            # a prefix of the name that ends where one of its words ends (the next character is the "_" separator)
            assert base.startswith(kept) and base[len(kept)] == "_", (label, base)
        else:
            assert label == base
    # ReduceScatter_Sum_bf16_RING_LL (44 characters) keeps its whole words: "…_bf16…", never "…_bf16_R…"
    assert short_names(NCCL[:1]) == ["ncclDevKernel_ReduceScatter_Sum_bf16…"]


def test_two_nccl_kernels_cut_alike_are_told_apart():
    # the same prefix up to the cut: the part that differs (the data type) is appended, in every report
    from gpulens.reports._names import short_names

    a = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
    b = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE(ncclDevComm*, unsigned long, ncclWork*)"
    la, lb = short_names([a, b])
    assert la != lb and "LL" in la and "SIMPLE" in lb


def test_console_tables_use_one_label_per_kernel(tmp_path):
    """The console's top-kernels and verdict tables label a kernel alike (one width for every table)."""
    import re as _re

    import gpulens
    from gpulens.reports import console

    t = KTrace(H100)
    cpu, gpu = 100.0, 1000.0
    for _ in range(3):
        t.launch(0, cpu, [(NCCL[2], gpu, 400.0)], linked=False)
        cpu, gpu = cpu + 10, gpu + 401
    out = console.render(gpulens.analyze([t.write(tmp_path / "n.json")]))
    # every shortened occurrence (finding titles print the full name, folded) reads the same, in >= 2 tables
    labels = _re.findall(r"ncclKernel_SendRecv\w*…", out)
    assert len(labels) >= 2 and set(labels) == {"ncclKernel_SendRecv_RING_SIMPLE_Sum…"}, labels
