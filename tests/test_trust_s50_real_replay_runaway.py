"""A long kernel of a counter-collection replay is a measurement, not a duration "far past the end of the run".

danae-pan/hpc_assignment3 @ d8d684be9721af6df6edc7266534e24a3c09f354 ``ncu_prof_23883732.ncu-rep`` (Nsight Compute on
an H100 PCIe, an OpenACC matrix multiply; no licence file, so not copied) holds four launches: three
``__pgi_uacc_cuda_fill_44`` (gpu__time_duration.sum 4,864, 4,864 and 4,928 ns) and ``nvkernel_matmult_mkn_offload_
F1L85_3`` (1,321,072,896 ns). ncu records no timeline; gpulens lays the launches end to end from 0 ns (synthetic
starts), and the runaway rule — a stream's last event ending more than 1,000 times the rest of the run past it is a
recording fault (shared case B07) — then cut the matmul kernel to nothing: "1 GPU event ends far past every other
event of the run", "unknown summed: 1 of 4 launches without a duration (the 3 with one: 14.66 µs)" and the verdict
"every critical kernel is latency/occupancy-bound (14.66 µs of GPU time)" — the 1.32 s kernel, over 99.9 % of the
GPU time, gone. Kind: a rule about time on a timeline applied to starts that are no workload time. Now events whose
start is synthetic (:func:`gpulens.analyzers._span.synthetic_start_mask`) are never runaways; their durations are
ncu's measurements.

The CSV below is ``ncu --csv --page details`` of the same four launches (their names, durations as ncu's base-unit
nanoseconds, H100's CC 9.0); expected values are the sums of those rows.
"""

from __future__ import annotations

import json

from gpulens.cli import main
from gpulens.collectors import collect

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
          '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
FILL = "__pgi_uacc_cuda_fill_44"
MATMUL = "nvkernel_matmult_mkn_offload_F1L85_3"
LAUNCHES = [(FILL, 4864), (FILL, 4864), (FILL, 4928), (MATMUL, 1321072896)]


def _csv(tmp_path):
    rows = [HEADER]
    for i, (name, ns) in enumerate(LAUNCHES):
        rows.append(f'"{i}","23883732","matmult_f.nvc++","127.0.0.1","{name}","1","7","(32, 1, 1)","(114, 1, 1)",'
                    f'"0","9.0","GPU Speed Of Light Throughput","Duration","nsecond","{ns:,}"')
    p = tmp_path / "ncu_prof.csv"
    p.write_text("\n".join(rows) + "\n")
    return p


def test_replayed_long_kernel_keeps_its_measured_duration(tmp_path):
    p = _csv(tmp_path)
    tl = collect(p)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 4 and int(k["dur_ns"].sum()) == 4864 + 4864 + 4928 + 1321072896
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", str(p), "--json", str(out)]) == 0
    src = json.loads(out.read_text())["sources"][0]
    assert not any("far past every other event" in str(w) for w in src["warnings"])
    sm = src["summary"]
    total = 4864 + 4864 + 4928 + 1321072896
    assert sm["kernel_time_ns"] == total and sm["kernel_effective_ns"] == total  # nothing cut
    assert not sm["kernel_runaway_events"] and not sm["untimed_launches"]
    hot = {r["name"]: r for r in src["analyses"]["hotspots"]["table"]}
    assert hot[MATMUL]["total_ns"] == hot[MATMUL]["effective_ns"] == 1321072896
    assert hot[FILL]["calls"] == 3 and hot[FILL]["total_ns"] == 4864 + 4864 + 4928


def test_replayed_kernel_times_sum_in_the_report(tmp_path):
    # the kernel time summed over the launches is the four measurements: 1,321,087,552 ns = 1.32 s
    p = _csv(tmp_path)
    out = tmp_path / "r.md"
    assert main(["analyze", "-q", "--no-cache", str(p), "--markdown", str(out)]) == 0
    md = out.read_text()
    assert "1.32 s" in md and "14.66 µs of GPU time" not in md
