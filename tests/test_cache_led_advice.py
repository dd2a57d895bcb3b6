"""A memory-bound kernel whose busiest memory unit is L2 gets L2 advice, not L1's (register tiling, shared-memory
bank conflicts) — the fresh audit of the twenty-fourth session.

Input: tests/data/nvidia/codegandee_rtx5090_ncu-v2_kernel_0010_details.csv (ncu --csv details page, one bf16
``elementwise_kernel`` on an RTX 5090; MIT, see PROVENANCE.md). Its GPU Speed Of Light section, read here from the
file: Memory Throughput 93.99 % = L2 Cache Throughput 93.99 %, L1/TEX Cache Throughput 41.59 % (of the cycles the
SMs were active: 184,925.60 of 191,264 elapsed), DRAM Throughput 10.29 %, Compute (SM) 12.07 %. ncu's own
SOLBottleneck rule points at L2. The step said "Its busiest memory unit is L1/shared memory (40 % of peak; DRAM
10 %): … register tiling … no bank conflicts" because only L1 was compared with DRAM.
"""

from __future__ import annotations

import csv
import json

from gpulens.cli import main

from .conftest import DATA

NCU = DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0010_details.csv"


def _sol() -> dict[str, float]:
    out = {}
    for r in csv.DictReader(NCU.open(newline="")):
        if r["Section Name"] == "GPU Speed Of Light Throughput":
            out[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return out


def test_l2_led_memory_bound_kernel_gets_l2_advice(tmp_path, capsys):
    sol = _sol()
    l2, l1, dram = sol["L2 Cache Throughput"], sol["L1/TEX Cache Throughput"], sol["DRAM Throughput"]
    assert l2 > l1 + 20 and dram < 60  # the premise: L2 leads, DRAM is not busy
    l1_run = l1 * sol["SM Active Cycles"] / sol["Elapsed Cycles"]  # L1 over the whole run, as the step shows it
    js = tmp_path / "r.json"
    assert main(["analyze", str(NCU), "--json", str(js)]) in (0, 1)
    doc = json.loads(js.read_text())
    row = doc["sources"][0]["analyses"]["verdicts"]["table"][0]
    assert row["verdict"] == "memory-bound"
    first = row["next_steps"][0]
    def p(x):  # the tables' digits: one decimal, a whole number with its ".0" too (s48: as the table beside it)
        return f"{x:.1f} %"

    # L1 over the kernel's elapsed cycles, said so (session 41: it read a bare "L1 40.2 %", below ncu's 41.59 %)
    assert first.startswith(f"Its busiest memory unit is L2 ({p(l2)} of peak; L1 {p(l1_run)} of peak over its elapsed "
                            f"cycles; DRAM {p(dram)})")
    assert "register tiling" not in " ".join(row["next_steps"]) and "bank conflicts" not in " ".join(row["next_steps"])
    assert "L2 hit rate" in row["next_steps"][1] and "ncu" in row["next_steps"][1]
    assert "L1/shared memory" not in capsys.readouterr().out
