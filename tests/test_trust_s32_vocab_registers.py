"""Registers per thread beyond the vendor's limit are unknown, with a warning (s32 vocabulary/sanity review).

NVIDIA: at most 255 32-bit registers per thread (CUDA C++ Programming Guide, "Technical Specifications per Compute
Capability", "Maximum number of 32-bit registers per thread" = 255 for compute capability 3.5 and later). The reader
used the largest cap of any GPU (512 unified VGPRs+AGPRs per work-item on AMD gfx90a and later, LLVM
AMDGPUUsage), so an NVIDIA launch recording 256–512 registers passed as a real figure. Every collector that reads
registers is covered: Kineto ``registers per thread``, ncu CSV ``Registers Per Thread``, nsys SQLite
``registersPerThread``. An AMD launch of 300 VGPRs is possible (≤ 512) and stays.
"""

from __future__ import annotations

import sqlite3

import pytest

from gpulens.collectors import collect

from .dig_traces import H100, MI300X, KTrace

NVIDIA_MAX = 255  # CUDA C++ Programming Guide, technical specifications table (CC >= 3.5)


def _kineto(tmp_path, device, regs):
    k = KTrace(device=device)
    for i, r in enumerate(regs):
        ext = k.op("aten::mm", 100 * i, 8)
        k.launch(ext, 100 * i + 10, [(f"kernel_{r}", 100 * i + 20, 50)])
        k.ev[-1]["args"]["shared memory"] = 0
        k.ev[-1]["args"]["registers per thread"] = r
    return collect(k.write(tmp_path / "t.json"))


def _regs(tl):
    k = tl.events[tl.events["kind"] == "kernel"]
    return {str(n): (None if v is None or v != v else int(v))
            for n, v in zip(k["name"].astype(str), k["regs_per_thread"].astype(object).where(k["regs_per_thread"].notna(), None))}


def _warning(tl):
    return [w for w in tl.meta.warnings if "impossible launch configuration" in str(w)]


def test_kineto_nvidia_above_255_is_unknown_with_a_warning(tmp_path):
    tl = _kineto(tmp_path, H100, [NVIDIA_MAX, NVIDIA_MAX + 1, 300, 512, 32])
    regs = _regs(tl)
    assert regs == {"kernel_255": 255, "kernel_256": None, "kernel_300": None, "kernel_512": None, "kernel_32": 32}
    (w,) = _warning(tl)
    assert "registers ×3" in w and "255 registers per thread on NVIDIA" in w


def test_kineto_amd_300_vgprs_stay(tmp_path):
    tl = _kineto(tmp_path, MI300X, [300, 512])
    assert _regs(tl) == {"kernel_300": 300, "kernel_512": 512}
    assert not _warning(tl)


def test_ncu_csv_registers_above_255_unknown(tmp_path):
    head = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
            '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n')
    rows = []
    for i, (name, regs) in enumerate((("k_ok", 128), ("k_bad", 300))):
        pre = f'"{i}","1","demo","h","{name}","1","7","(256, 1, 1)","(64, 1, 1)","0","9.0",'
        rows.append(pre + '"GPU Speed Of Light Throughput","Duration","usecond","10.00"\n')
        rows.append(pre + f'"Launch Statistics","Registers Per Thread","register/thread","{regs}"\n')
    p = tmp_path / "k.csv"
    p.write_text(head + "".join(rows))
    tl = collect(p)
    assert _regs(tl) == {"k_ok": 128, "k_bad": None}
    assert "registers ×1" in _warning(tl)[0]


def test_nsys_sqlite_registers_above_255_unknown(tmp_path):
    p = tmp_path / "n.sqlite"
    con = sqlite3.connect(p)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
        INSERT INTO StringIds VALUES (1, 'k_ok'), (2, 'k_bad');
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INT, end INT, deviceId INT, streamId INT,
            correlationId INT, globalPid INT, shortName INT, gridX INT, blockX INT, registersPerThread INT);
        INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
            (1000, 1500, 0, 7, 10, 5033164800, 1, 64, 128, 64),
            (2000, 2500, 0, 7, 11, 5033164800, 2, 64, 128, 400);
    """)
    con.commit()
    con.close()
    tl = collect(p)
    assert _regs(tl) == {"k_ok": 64, "k_bad": None}
    assert "registers ×1" in _warning(tl)[0]
