"""A throughput counter beyond any GPU's bandwidth is unknown, with a counted warning (s32 counter sanity).

An ncu "Memory Throughput" (Memory Workload Analysis: DRAM bytes per second) of 1,532 Tbyte/second = 1.532e15 B/s
was kept and shown. The largest bandwidth any GPU counter can measure is an on-chip aggregate, L1/LDS over all
SMs/CUs: about 157 TB/s at most (MI355X: 256 CUs × 256 B/clk × 2.4 GHz), 37 TB/s on B200 (148 × 128 B/clk × 1.965
GHz); HBM peaks are 8 TB/s. So 1.532e15 B/s is no measurement, while 1,532.41 Gbyte/second (1.53241e12 B/s, the
B20 case's H100-plausible figure) is one and stays.
"""

from __future__ import annotations

from gpulens.analyzers import run_all
from gpulens.collectors import collect

_HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
         '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')


def _ncu(tmp_path, rows):
    lines = []
    for i, (name, unit, value) in enumerate(rows):
        pre = f'"{i}","1","demo","h","{name}","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0",'
        lines.append(pre + '"GPU Speed Of Light Throughput","Duration","usecond","100.00"\n')
        lines.append(pre + '"GPU Speed Of Light Throughput","Compute (SM) Throughput","%","50.00"\n')
        lines.append(pre + f'"Memory Workload Analysis","Memory Throughput","{unit}","{value}"\n')
    p = tmp_path / "k.csv"
    p.write_text(_HEAD + "".join(lines))
    return collect(p)


def _throughput(tl):
    co = tl.counters[tl.counters["metric"].astype(str) == "Memory Throughput"]
    names = tl.events.set_index("event_id")["name"].astype(str)
    return {names[e]: v for e, v in zip(co["event_id"], co["value"])}


def test_throughput_beyond_any_gpu_is_dropped_and_counted(tmp_path):
    tl = _ncu(tmp_path, [("k_real", "Gbyte/second", "1,532.41"), ("k_bad", "Tbyte/second", "1,532.00"),
                         ("k_bad2", "Gbyte/second", "2,000,000.00")])
    # 1,532.41 × 1e9 B/s stays; 1,532 × 1e12 = 1.532e15 and 2e6 × 1e9 = 2e15 B/s exceed 1e15 B/s
    assert _throughput(tl) == {"k_real": 1532.41e9}
    (w,) = [w for w in tl.meta.warnings if "throughput counter" in w]
    assert w.startswith("2 throughput counter values above 1 PB/s dropped") and "Memory Throughput" in w


def test_dropped_throughput_is_unknown_in_the_report(tmp_path):
    tl = _ncu(tmp_path, [("k_bad", "Tbyte/second", "1,532.00")])
    sol = run_all(tl)["speed_of_light"]
    assert sol.skipped_reason is None
    row = sol.table.iloc[0]
    assert row["compute_pct"] == 50.0
    # no 1,532 TB/s figure reaches the table: the throughput is unknown
    v = row["memory_throughput"]
    assert v is None or v != v
