"""A rank selection applied to a built Timeline (``Selection.apply``: cached Timelines, the one-off-gap check of a
suggested ``--window``) keeps only the selected ranks — their events and also their side-table rows (allocator
events) — and does no work per unselected rank.

Found on a folder of many small rank files: the suggested window's check applied ``ranks=R`` to the whole folder's
Timeline and built one empty part per other rank (a second per ~20 ranks); those empty parts also carried the other
ranks' allocator rows into the selection.

Expected values are counted by hand from the two tiny rank files written below.
"""

from __future__ import annotations

import json
from pathlib import Path

from gpulens.collectors import collect
from gpulens.timeline.selection import Selection

#: rank r: 2 + r kernels (10 µs each, 1 ms apart) and 3 allocator events
def _rank_file(path: Path, rank: int) -> None:
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000.0 * (i + 1), "dur": 10.0,
           "args": {"device": 0, "stream": 7}} for i in range(2 + rank)]
    ev += [{"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
            "ts": 1500.0 + 100 * j, "args": {"Total Reserved": 1024, "Total Allocated": 100 * (j + 1), "Bytes": 8,
                                             "Addr": 1, "Device Id": 0, "Device Type": 1}} for j in range(3)]
    path.write_text(json.dumps({"schemaVersion": 1, "distributedInfo": {"rank": rank, "world_size": 2},
                                "traceEvents": ev, "deviceProperties": [
        {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132}]}))


def test_rank_selection_keeps_only_that_ranks_rows(tmp_path):
    for r in (0, 1):
        _rank_file(tmp_path / f"rank{r}.pt.trace.json", r)
    tl = collect(tmp_path)
    assert sorted(set(tl.events["rank"].astype(int))) == [0, 1]
    sub = Selection.parse(ranks="1").apply(tl)
    ev = sub.events
    assert set(ev["rank"].astype(int)) == {1}
    assert int((ev["kind"].astype(str) == "kernel").sum()) == 3  # rank 1 wrote 2 + 1 kernels
    for name, df in sub.tables.items():
        if "rank" in getattr(df, "columns", ()):
            assert set(df["rank"].dropna().astype(int)) <= {1}, name
    mem = [df for name, df in tl.tables.items() if "rank" in getattr(df, "columns", ()) and "time_ns" in df.columns]
    assert mem, "the allocator events form a rank-keyed side table"


def test_rank_selection_of_no_present_rank_is_empty(tmp_path):
    for r in (0, 1):
        _rank_file(tmp_path / f"rank{r}.pt.trace.json", r)
    tl = collect(tmp_path)
    assert len(Selection.parse(ranks="5").apply(tl).events) == 0


def test_gate_headline_counts_every_inconclusive_metric():
    """A REGRESSED headline that also lists inconclusive metrics names how many there are and says "and N more"
    past the three it names (it named 3 of 5 with nothing saying 2 were left out, beside 'AMBIGUOUS 5')."""
    from types import SimpleNamespace

    from gpulens.gate.compare import _overall

    def row(metric, verdict, pct):
        return SimpleNamespace(metric=metric, verdict=verdict, gating=True, change_pct=pct, share=0.1,
                               repeats_needed=None, threshold=0.05, reason="")
    rows = [row("kernel:flash_fwd", "REGRESSED", 28.4)] + [row(f"kernel:k{i}", "AMBIGUOUS", 3.0) for i in range(5)]
    verdict, text = _overall(rows, SimpleNamespace(runs=[{}] * 5), "")
    assert verdict == "REGRESSED"
    assert "1 of 6 gating metrics regressed" in text
    assert "5 inconclusive: kernel:k0, kernel:k1, kernel:k2 and 2 more" in text
    verdict, text = _overall(rows[:3], SimpleNamespace(runs=[{}] * 5), "")
    assert text.endswith("; 2 inconclusive: kernel:k0, kernel:k1")


AGENTS = ('"Node_Id","Logical_Node_Id","Logical_Node_Type_Id","Agent_Type","Cu_Count","Simd_Count","Wave_Front_Size",'
          '"Gfx_Target_Version","Name","Vendor_Name","Product_Name","Model_Name"\n'
          '0,0,0,"CPU",64,0,0,0,"AMD EPYC 9654","CPU","AMD EPYC 9654",""\n'
          '1,1,0,"GPU",304,1216,64,90402,"gfx942","AMD","AMD Instinct MI300X","ip discovery"\n')


def test_amd_stake_note_says_workgroup_slots(tmp_path):
    """On an AMD GPU the verdict's stake note beside the wave-quantization figure speaks of workgroups, as the
    finding it points to does ("empty workgroup slots"; it said "empty block slots" beside it). rocprofv3 CSV
    folder of the rocprofiler-sdk docs with an MI300X agent table: 16,384 workgroups over 304 CUs × 32 slots =
    1.68 waves, so a wave finding with a stake exists for its kernels."""
    import shutil

    from tests.conftest import shared_trace

    src = shared_trace("rocprof/v3_csv_sdk_docs")
    d = tmp_path / "run"
    shutil.copytree(src, d)
    for f in d.iterdir():
        f.chmod(0o644)
    (d / "agent_info.csv").write_text(AGENTS)
    import gpulens

    rep = gpulens.analyze([d])
    notes = [str(x) for x in rep.sources[0].results["verdicts"].table["stake_note"] if isinstance(x, str)]
    waves = [n for n in notes if "wave-quantization" in n]
    assert waves, notes
    assert all("empty workgroup slots" in n and "block" not in n for n in waves), waves
