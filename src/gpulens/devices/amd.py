"""AMD Instinct GPUs as data (see :mod:`gpulens.devices.spec` for units and the figure format). Source keys are
those of ``shared/reference/gpu-facts.md`` §S: ROCM (ROCm gpu-arch-specs / mi100, mi250, mi300 pages; peak =
FLOP/clock/CU × CUs × clock), ROCM-7.13 (MI355X row), STAS, TL-ARCH. "vector" = VALU, "matrix" = MFMA; dense.
"achievable.matrix.<p>": what a tuned GEMM reaches (TL-ARCH max-achievable FLOPS; STAS MAMF where TraceLens gives none).

An MI250X is two GCDs and the runtime shows each as one device of 110 CUs, so its entry is **one GCD**: half the
package's peaks and bandwidth. An MI250 GCD (104 CUs, 1700 MHz) has the MI210's per-device figures; rocminfo names
both dual-GCD parts "AMD Instinct MI250X / MI250", so the CU count tells them apart (104: MI250, 110: MI250X). The
MI300A (APU, 228 CUs) is told from the MI300X (304 CUs) by name or CU count.

Radeon (RDNA3, gfx1100; not in gpu-facts): the RX 7900 XTX and the Radeon PRO W7900 share the 96-CU Navi 31 and
are told apart by name or memory size. Their "vector.fp32" counts RDNA3's dual-issue (2 FP32 FMAs per lane per
clock: 96 CUs × 64 lanes × 2 × 2 FLOP × clock), a rate compilers seldom reach (uncertain); their "matrix.fp16" is the
WMMA / packed-FP16 rate AMD quotes (twice that). Sources: AMD's RX 7900 series launch specifications as tabled in
Tom's Hardware's "AMD Radeon RX 7900 Series Deep Dive" (2022-11-14; RX-7900 below): 96 CUs, 2500 MHz boost,
61.4 TFLOPS FP32, 123 TFLOPS FP16, 24 GB GDDR6 at 960 GB/s; the W7900: 96 CUs, 48 GB GDDR6 at 864 GB/s
(itcreations.com Radeon PRO W7900 product page; W7900 below) and 122.6 TFLOPS FP16 (huggingface.co/hardware/
pro-w7900, whose RX 7900 XT figure, 103, is that table's FP16 103), so 61.3 FP32 and a 2495 MHz clock
(61.3e12 / (96 × 64 × 2 × 2)); L2 6 MiB for both (ROCm docs reference/gpu-specs, Radeon / Radeon PRO tables).
gpulens has no RDNA occupancy rules: these parts get a roofline, and occupancy says it has no rules for gfx1100.

Vega 20 (GCN 5.1, gfx906; not in gpu-facts): the Instinct MI60 (64 CUs), the MI50 (60 CUs, 16 or 32 GB) and the
Radeon VII (60 CUs, 16 GB, FP64 at 1/4 of FP32 where the Instincts run 1/2). Peak = CUs × 64 lanes × 2 FLOP (FMA) ×
clock for FP32, × 2 for packed FP16, × 1/2 (Instinct) or 1/4 (Radeon VII) for FP64 — no matrix units. Sources:
guru3d's "AMD Radeon VII 16 GB review", page 5 (VEGA20 below): Radeon VII 60 CUs at a 1800 MHz peak clock, 13.8 /
3.46 / 27.7 TFLOPS FP32 / FP64 / FP16, 16 GB HBM2 at 1 TB/s, MI60 64 CUs at 1800 MHz, 14.7 / 7.4 / 29.5; AMD's MI60
launch figures as reported at thelinx.net (MI60: 32 GB HBM2, 1024 GB/s); AMD's MI50 figures as tabled in
Wikipedia's "AMD Instinct" (60 CUs, 1024 GB/s, 26.5 TFLOPS FP16, 13.3 FP32) and huggingface.co/hardware/mi50
(26.5), whence the 1725 MHz clock (26.5e12 / (60 × 64 × 4)); CUs, memory sizes, LDS 64 KiB and the 4 MiB L2 of the
MI50 / MI60 rows of ROCm docs reference/gpu-specs (ROCm/rocm-docs). rocminfo of ROCm 4 names every Vega 20 "Vega
20" (dalg24/kokkos results.sysinfo.txt: gfx906, 64 CUs, Max Clock 1800 MHz, 32 GB): that chip name matches all four
entries, so the CU count and memory decide — 64 CUs: the MI60 (the only 64-CU Vega 20 with ROCm support; the Mac
Pro's Radeon Pro Vega II runs 1720 MHz); 60 CUs and 32 GB: the MI50 32 GB; 60 CUs and 16 GB or no memory size: an
MI50 or a Radeon VII, whose clocks and FP64 rates differ, so none is chosen (:func:`gpulens.devices.identify_device`).

Radeon AI PRO R9700 (RDNA4, Navi 48, gfx1201; not in gpu-facts): 64 CUs, 32 GB, L2 8 MiB (Infinity Cache 64 MiB),
wave32 or wave64 (ROCm docs reference/gpu-specs, Radeon PRO table); 95.7 TFLOPS FP16 vector (AMD's R9700
specifications and datasheet as cited in huggingface/huggingface.js PR #1895: "FP16 Vector = 95.7 TFLOPS"); the
clock 2920 MHz = 95.7e12 / (64 CUs × 64 lanes × 2 (dual issue) × 2 (packed FP16) × 2 (FMA)), and FP32 half the FP16
rate (dual-issue, uncertain). rocminfo records its Max Clock as 2350 MHz (JoursBleu/llama.cpp results.sysinfo.txt;
ROCm/rccl-tests issue #162). Its memory bandwidth and matrix (WMMA) peaks were not found in a source read here, so
they are left out (unknown); not the R9700S (own clocks).
"""

U = "uncertain"

#: ROCm 4's rocminfo name for every Vega 20 part (see the module docstring)
VEGA20_NAME = r"^\s*(?:AMD\s+)?Vega ?20\s*$"

#: the MI50's figures, the same for its 16 and 32 GB cards (VEGA20 sources in the module docstring)
_MI50 = {"clock_mhz": [1725, "VEGA20 (26.5 TFLOPS FP16 / (60 CUs × 64 × 4))", U],
        "memory_bandwidth": [1024, "VEGA20 (Wikipedia AMD Instinct table: 1024 GB/s)"],
        "l2": [4, "ROCm gpu-specs (MI50 row)"],
        "vector.fp64": [6.6, "VEGA20 (half of FP32: 60 × 64 × 2 × 1.725 GHz / 2)"],
        "vector.fp32": [13.3, "VEGA20 (60 CUs × 64 lanes × 2 FLOP × 1.725 GHz)"],
        "vector.fp16": [26.5, "VEGA20 (AMD MI50 FP16 peak)"]}

GPUS = [
    {"name": "AMD Instinct MI100", "gfx_arch": "gfx908", "num_sms": 120, "memory_gb": 32,
     "match": [r"MI100"],
     "figures": {"clock_mhz": [1502, "ROCM"], "memory_bandwidth": [1228.8, "ROCM"], "l2": [8, "ROCM"],
                 "vector.fp64": [11.5, "ROCM"], "vector.fp32": [23.1, "ROCM"], "matrix.fp32": [46.1, "ROCM"],
                 "matrix.bf16": [92.3, "ROCM"], "matrix.fp16": [184.6, "ROCM"], "matrix.int8": [184.6, "ROCM", U]}},
    {"name": "AMD Instinct MI210", "gfx_arch": "gfx90a", "num_sms": 104, "memory_gb": 64,
     "match": [r"MI210"],
     "figures": {"clock_mhz": [1700, "ROCM"], "memory_bandwidth": [1638.4, "ROCM"], "l2": [8, "ROCM"],
                 "vector.fp64": [22.6, "ROCM"], "matrix.fp64": [45.3, "ROCM"], "vector.fp32": [22.6, "PT-DI"],
                 "matrix.fp32": [45.3, "ROCM"], "matrix.bf16": [181, "ROCM"], "matrix.fp16": [181, "ROCM"],
                 "matrix.int8": [181, "ROCM"]}},
    {"name": "AMD Instinct MI250X (one GCD)", "gfx_arch": "gfx90a", "num_sms": 110, "memory_gb": 64,
     "match": [r"MI250X"],
     "figures": {"clock_mhz": [1700, "ROCM"], "memory_bandwidth": [1638.4, "ROCM (3277 GB/s per package, halved)"],
                 "l2": [8, "ROCM (per GCD)"],
                 "vector.fp64": [23.95, "ROCM (47.9 per package, halved)"],
                 "matrix.fp64": [47.85, "ROCM (95.7 per package, halved)"],
                 "vector.fp32": [23.95, "ROCM (47.9 per package, halved)"],
                 "matrix.fp32": [47.85, "ROCM (95.7 per package, halved)"],
                 "matrix.bf16": [191.5, "ROCM (383 per package, halved)"],
                 "matrix.fp16": [191.5, "ROCM (383 per package, halved)"],
                 "matrix.int8": [191.5, "ROCM (383 per package, halved)"]}},
    # rocminfo names both dual-GCD parts "AMD Instinct MI250X / MI250": the CU count per GCD (104 vs 110) decides
    {"name": "AMD Instinct MI250 (one GCD)", "gfx_arch": "gfx90a", "num_sms": 104, "memory_gb": 64,
     "match": [r"MI250(?!X)"],
     "figures": {"clock_mhz": [1700, "ROCM"], "memory_bandwidth": [1638.4, "ROCM (3276.8 GB/s per package, halved)"],
                 "l2": [8, "ROCM (per GCD)"],
                 "vector.fp64": [22.65, "ROCM (45.3 per package, halved)"],
                 "matrix.fp64": [45.25, "ROCM (90.5 per package, halved)"],
                 "vector.fp32": [22.65, "ROCM (45.3 per package, halved)"],
                 "matrix.fp32": [45.25, "ROCM (90.5 per package, halved)"],
                 "matrix.bf16": [181.05, "ROCM (362.1 per package, halved)"],
                 "matrix.fp16": [181.05, "ROCM (362.1 per package, halved)"],
                 "matrix.int8": [181.05, "ROCM (362.1 per package, halved)"]}},
    # APU: 228 CUs (6 XCDs × 38) at 2100 MHz; peaks by the ROCm formula FLOP/clk/CU (ROCM mi300.md, as MI300X)
    # × 228 × 2.1 GHz; 128 GB unified HBM3
    {"name": "AMD Instinct MI300A", "gfx_arch": "gfx942", "num_sms": 228, "memory_gb": 128, "unified_memory": True,
     "match": [r"MI300A"],
     "figures": {"clock_mhz": [2100, "ROCM (gpu-arch-specs: MI300A peak clock)"],
                 "memory_bandwidth": [5300, "AMD Instinct MI300A data sheet (5.3 TB/s; not in gpu-facts)", U],
                 "l2": [24, "ROCM (4 MB per XCD × 6 XCDs)"],
                 "vector.fp64": [61.3, "ROCM (derived: 128 FLOP/clk/CU × 228 × 2.1 GHz)"],
                 "matrix.fp64": [122.6, "ROCM (derived: 256 FLOP/clk/CU)"],
                 "vector.fp32": [61.3, "ROCM (derived: 128 FLOP/clk/CU, as the MI300X entry)"],
                 "matrix.fp32": [122.6, "ROCM (derived: 256 FLOP/clk/CU)"],
                 "matrix.tf32": [490.3, "ROCM (derived: 1024 FLOP/clk/CU)"],
                 "matrix.bf16": [980.6, "ROCM (derived: 2048 FLOP/clk/CU)"],
                 "matrix.fp16": [980.6, "ROCM (derived: 2048 FLOP/clk/CU)"],
                 "matrix.fp8": [1961.2, "ROCM (derived: 4096 FLOP/clk/CU)"],
                 "matrix.int8": [1961.2, "ROCM (derived: 4096 OP/clk/CU)"]}},
    {"name": "AMD Instinct MI300X", "gfx_arch": "gfx942", "num_sms": 304, "memory_gb": 192,
     "match": [r"MI300X"],
     "figures": {"clock_mhz": [2100, "ROCM"], "memory_bandwidth": [5300, "ROCM"], "l2": [32, "ROCM (4 MB per XCD)"],
                 "vector.fp64": [81.7, "ROCM"], "matrix.fp64": [163.4, "ROCM"],
                 "vector.fp32": [81.7, "ROCM (derived: 128 FLOP/clk/CU)"], "matrix.fp32": [163.4, "ROCM"],
                 "matrix.tf32": [653.7, "ROCM"], "matrix.bf16": [1307.4, "ROCM"], "matrix.fp16": [1307.4, "ROCM"],
                 "matrix.fp8": [2614.9, "ROCM"], "matrix.int8": [2614.9, "ROCM"],
                 "achievable.matrix.bf16": [708, "TL-ARCH (TraceLens max-achievable FLOPS, MI300X.json)"],
                 "achievable.matrix.fp16": [654, "TL-ARCH (TraceLens max-achievable FLOPS, MI300X.json)"],
                 "achievable.matrix.fp8": [1273, "TL-ARCH (TraceLens max-achievable FLOPS, MI300X.json)"]}},
    {"name": "AMD Instinct MI325X", "gfx_arch": "gfx942", "num_sms": 304, "memory_gb": 256,
     "match": [r"MI325X"],
     "figures": {"clock_mhz": [2100, "STAS"], "memory_bandwidth": [6000, "STAS, TL-ARCH"], "l2": [32, "ROCM"],
                 "vector.fp64": [81.7, "ROCM"], "matrix.fp64": [163.4, "ROCM"],
                 "vector.fp32": [81.7, "ROCM (derived)"], "matrix.fp32": [163.4, "ROCM"],
                 "matrix.tf32": [653.7, "ROCM"], "matrix.bf16": [1307.4, "ROCM"], "matrix.fp16": [1307.4, "ROCM"],
                 "matrix.fp8": [2614.9, "ROCM"], "matrix.int8": [2614.9, "ROCM"],
                 "achievable.matrix.bf16": [843, "TL-ARCH (TraceLens max-achievable FLOPS, MI325X.json)"],
                 "achievable.matrix.fp16": [794, "TL-ARCH (TraceLens max-achievable FLOPS, MI325X.json)"],
                 "achievable.matrix.fp8": [1519, "TL-ARCH (TraceLens max-achievable FLOPS, MI325X.json)"]}},
    {"name": "AMD Instinct MI350X", "gfx_arch": "gfx950", "num_sms": 256, "memory_gb": 288,
     "match": [r"MI350X"],
     "figures": {"clock_mhz": [2200, "AMD MI350X product page (not in gpu-facts)", U],
                 "memory_bandwidth": [8000, "STAS (as MI355X)"], "l2": [32, "ROCM-7.13"],
                 "vector.fp64": [72.1, "derived: MI355X per-CU rate at 2200 MHz", U],
                 "matrix.fp64": [72.1, "derived: MI355X per-CU rate at 2200 MHz", U],
                 "vector.fp32": [72.1, "derived: MI355X per-CU rate at 2200 MHz", U],
                 "matrix.fp32": [144.2, "derived: MI355X per-CU rate at 2200 MHz", U],
                 "matrix.bf16": [2306.9, "derived: 4096 FLOP/clk/CU at 2200 MHz", U],
                 "matrix.fp16": [2306.9, "derived: 4096 FLOP/clk/CU at 2200 MHz", U],
                 "matrix.fp8": [4613.7, "derived: 8192 FLOP/clk/CU at 2200 MHz", U],
                 "matrix.int8": [4613.7, "derived: 8192 OP/clk/CU at 2200 MHz", U]}},
    {"name": "AMD Instinct MI355X", "gfx_arch": "gfx950", "num_sms": 256, "memory_gb": 288,
     "match": [r"MI355X"],
     "figures": {"clock_mhz": [2400, "ROCM-7.13"], "memory_bandwidth": [8000, "STAS"], "l2": [32, "ROCM-7.13"],
                 "vector.fp64": [78.6, "ROCM-7.13", U], "matrix.fp64": [78.6, "ROCM-7.13", U],
                 "vector.fp32": [78.6, "ROCM-7.13 (derived)"], "matrix.fp32": [157.3, "ROCM-7.13"],
                 "matrix.bf16": [2516.6, "ROCM-7.13 (derived; ~2.5 PF)"],
                 "matrix.fp16": [2516.6, "ROCM-7.13 (derived; ~2.5 PF)"],
                 "matrix.fp8": [5033.2, "ROCM-7.13 (~5 PF)", U], "matrix.int8": [5033.2, "ROCM-7.13 (~5 POPS)", U],
                 "achievable.matrix.bf16": [1565, "STAS (measured BF16 matmul, MAMF)"]}},
    {"name": "AMD Radeon RX 7900 XTX", "gfx_arch": "gfx1100", "num_sms": 96, "memory_gb": 24,
     "match": [r"7900 ?XTX"],
     "figures": {"clock_mhz": [2500, "RX-7900 (boost)"], "memory_bandwidth": [960, "RX-7900"],
                 "l2": [6, "ROCm gpu-specs, Radeon table (L2 6 MiB; Infinity Cache 96 MiB)"],
                 "vector.fp32": [61.4, "RX-7900 (dual-issue FP32)", U],
                 "matrix.fp16": [122.8, "RX-7900 (123 TFLOPS FP16: 96 CUs × 512 FLOP/clk × 2.5 GHz)"],
                 "matrix.bf16": [122.8, "as FP16 (RDNA3 WMMA runs BF16 at the FP16 rate)", U]}},
    {"name": "AMD Radeon PRO W7900", "gfx_arch": "gfx1100", "num_sms": 96, "memory_gb": 48,
     "match": [r"W7900"],
     "figures": {"clock_mhz": [2495, "derived from W7900's 122.6 TFLOPS FP16 / (96 CUs × 512 FLOP/clk)", U],
                 "memory_bandwidth": [864, "W7900"],
                 "l2": [6, "ROCm gpu-specs, Radeon PRO table (L2 6 MiB; Infinity Cache 96 MiB)"],
                 "vector.fp32": [61.3, "W7900 (122.6 FP16 halved; dual-issue FP32)", U],
                 "matrix.fp16": [122.6, "W7900 (huggingface.co/hardware/pro-w7900)"],
                 "matrix.bf16": [122.6, "as FP16 (RDNA3 WMMA runs BF16 at the FP16 rate)", U]}},
    # Vega 20 (gfx906): see the module docstring (source key VEGA20); "Vega 20" is ROCm 4's rocminfo name for all
    {"name": "AMD Instinct MI60", "gfx_arch": "gfx906", "num_sms": 64, "memory_gb": 32,
     "match": [r"MI60\b", VEGA20_NAME],
     "figures": {"clock_mhz": [1800, "VEGA20 (MI60 peak clock; rocminfo Max Clock 1800 MHz)"],
                 "memory_bandwidth": [1024, "VEGA20 (thelinx.net: 1024 GB/s HBM2)"],
                 "l2": [4, "ROCm gpu-specs (MI60 row)"],
                 "vector.fp64": [7.4, "VEGA20 (64 CUs × 64 × 2 × 1.8 GHz / 2)"],
                 "vector.fp32": [14.7, "VEGA20 (64 CUs × 64 lanes × 2 FLOP × 1.8 GHz)"],
                 "vector.fp16": [29.5, "VEGA20 (packed FP16: twice FP32)"]}},
    {"name": "AMD Instinct MI50 32GB", "gfx_arch": "gfx906", "num_sms": 60, "memory_gb": 32,
     "match": [r"MI50\b", VEGA20_NAME], "figures": _MI50},
    {"name": "AMD Instinct MI50 16GB", "gfx_arch": "gfx906", "num_sms": 60, "memory_gb": 16,
     "match": [r"MI50\b", VEGA20_NAME], "figures": _MI50},
    {"name": "AMD Radeon VII", "gfx_arch": "gfx906", "num_sms": 60, "memory_gb": 16,
     "match": [r"Radeon VII\b", VEGA20_NAME],  # not the Radeon Pro VII (other clocks)
     "figures": {"clock_mhz": [1800, "VEGA20 (Radeon VII peak clock)"],
                 "memory_bandwidth": [1024, "VEGA20 (4096-bit HBM2 at 2 Gbps: 1 TB/s)"],
                 "l2": [4, "the Vega 20 die's L2, as the MI50 / MI60 rows of ROCm gpu-specs", U],
                 "vector.fp64": [3.46, "VEGA20 (1/4 of FP32 on the Radeon VII)"],
                 "vector.fp32": [13.8, "VEGA20 (60 CUs × 64 lanes × 2 FLOP × 1.8 GHz)"],
                 "vector.fp16": [27.7, "VEGA20 (packed FP16: twice FP32)"]}},
    # RDNA4 (gfx1201): see the module docstring
    {"name": "AMD Radeon AI PRO R9700", "gfx_arch": "gfx1201", "num_sms": 64, "memory_gb": 32,
     "match": [r"R9700(?!S)"],
     "figures": {"clock_mhz": [2920, "derived: 95.7 TFLOPS FP16 vector / (64 CUs × 512 FLOP/clk)", U],
                 "l2": [8, "ROCm gpu-specs, Radeon PRO table (L2 8 MiB; Infinity Cache 64 MiB)"],
                 "vector.fp32": [47.85, "half the FP16 vector rate (RDNA4 dual-issue FP32)", U],
                 "vector.fp16": [95.7, "AMD R9700 specifications (FP16 vector), per huggingface.js PR #1895"]}},
]
