"""Two ``ncu --csv`` outputs in one file (``ncu --csv … >> out.csv`` run twice, or two exports concatenated): a
second header line mid-file and launch IDs that start at 0 again. Both runs are read, one launch after another,
with a warning saying so — never the second run's rows folded into the first run's launch 0.

Expected values come from the files themselves (../shared/traces/SOURCES.md, "Verified facts (ncu)"):
kernel_0005 is one launch of ``void Kernel2<cutlass_80_tensorop…`` with Duration 111.81 us, kernel_0010 one launch
of ``void elementwise_kernel<128, 4, …`` with Duration 94.91 us; the raw page of the B200 file has 16 launches whose
gpu__time_duration.sum add up to 11,869,152 ns.
"""

from __future__ import annotations

from gpulens.collectors import collect
from tests.conftest import shared_trace

NCU = shared_trace("ncu")
K5 = NCU / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"
K10 = NCU / "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv"
RAW = NCU / "meinie_b200_raw_torch_sdpa_flash__gqa_bf16_b32_ctx8k_p64.ncu.csv"


def _kernels(tl):
    k = tl.of_kind("kernel").sort_values("event_id")
    return [str(n)[:22] for n in k["name"]], k["dur_ns"].tolist()


def test_two_details_outputs_appended_are_two_launches(tmp_path):
    p = tmp_path / "both.csv"
    p.write_bytes(K5.read_bytes() + K10.read_bytes())
    tl = collect(p)
    names, durs = _kernels(tl)
    assert names == ["void Kernel2<cutlass_8", "void elementwise_kerne"]
    assert durs == [111_810, 94_910]
    c = tl.counters
    # each launch keeps its own metrics: kernel_0010's Duration is not attached to the first launch
    dur = c[c["metric"] == "Duration"].sort_values("event_id")
    assert dur["value"].tolist() == [111_810.0, 94_910.0]
    rules = tl.tables["ncu_rules"]
    assert set(rules.loc[rules["event_id"] == 1, "rule"]) >= {"AchievedOccupancy"}
    assert "AchievedOccupancy" not in set(rules.loc[rules["event_id"] == 0, "rule"])
    assert any("2 ncu outputs appended" in w and "line 50" in w for w in tl.meta.warnings)


def test_ids_restarting_without_a_second_header_are_new_launches(tmp_path):
    p = tmp_path / "both.csv"
    second = K10.read_text().splitlines(keepends=True)[1:]  # the header line dropped: only the IDs say it
    p.write_text(K5.read_text() + "".join(second))
    tl = collect(p)
    assert _kernels(tl)[1] == [111_810, 94_910]
    assert any("launch IDs restart 1 time" in w for w in tl.meta.warnings)


def test_two_raw_pages_appended(tmp_path):
    p = tmp_path / "raw2.csv"
    p.write_bytes(RAW.read_bytes() * 2)  # each copy: ==PROF== lines, header, units row, 16 launches
    tl = collect(p)
    k = tl.of_kind("kernel")
    assert len(k) == 32
    assert int(k["dur_ns"].sum()) == 2 * 11_869_152


def test_one_output_is_unchanged():
    tl = collect(K5)
    assert _kernels(tl)[1] == [111_810]
    assert not any("appended" in w for w in tl.meta.warnings)
