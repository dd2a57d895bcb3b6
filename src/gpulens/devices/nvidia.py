"""NVIDIA GPUs as data: SMs, clocks, dense peaks per precision, bandwidth, L2 (see :mod:`gpulens.devices.spec` for
units and the figure format). Source keys are those of ``shared/reference/gpu-facts.md`` §S: WEB-* (datasheet
copies), STAS (stas00/ml-engineering accelerator tables), PT-DI (torch inductor device_info), NV-TC, AO-PR
(B200 device query), OCC. Tensor peaks are dense (datasheets since Hopper print them with sparsity; halved).
"achievable.matrix.<p>": the measured matmul peak (STAS MAMF table), what a tuned GEMM reaches in practice.
Parts not in gpu-facts carry their sources in the comment above their entry ("2060S": RTX 2060 SUPER spec tables;
"3080": RTX 3080 spec tables), with each peak derived as units × FLOP/clk × boost clock where no datasheet prints it.
"""

U = "uncertain"
# the non-tensor (CUDA-core) 16-bit peaks NVIDIA prints: Hopper runs FP16 and BF16 at twice its FP32 rate, the A100
# FP16 at four times and BF16 at twice (A100 whitepaper Table 1 / Hopper blog Table 3: A100 78 / 39 TFLOPS)
HOPPER_VEC16 = "NVIDIA Hopper whitepaper Table 3, non-tensor FP16/BF16 = 2 × FP32"
AMPERE_VEC16 = "NVIDIA A100 whitepaper Table 1 (via the Hopper blog's Table 3): non-tensor FP16 78, BF16 39 TFLOPS"

GPUS = [
    # the SXM2 part ("Tesla V100-SXM2-32GB", the DGX Station's "V100-DGXS"): V100 PCIe / FHHL (1380 / 1290 MHz
    # boost; the nsys TARGET_INFO_CUDA_GPU of a "Tesla V100-PCIE-32GB" records coreClockRate 1380000 kHz), SXM3 and
    # V100S run other clocks, so their names match no spec (unknown, not these figures)
    # Tesla P100 SXM2 (GP100, NVLink mezzanine): 56 SMs × 64 FP32 lanes = 3,584 CUDA cores at 1,480 MHz boost; FP64
    # at 1/2 and FP16 (half2) at 2× the FP32 rate, no tensor cores; 16 GB HBM2, 4 MB L2 (NVIDIA's Tesla P100 launch
    # specifications, GTC 2016: 5.3 / 10.6 / 21.2 TFLOPS; not in gpu-facts). Bandwidth 732 GB/s as NVIDIA's P100
    # datasheet states it (launch material said 720) and as nvprof records the part (eganhila/mandelbrot_csgf_2017
    # output.nvvp: globalMemoryBandwidth 732,160,000 kB/s, coreClockRate 1,480,500 kHz, 4,194,304 B of L2).
    {"name": "NVIDIA Tesla P100 SXM2", "compute_capability": "6.0", "num_sms": 56, "memory_gb": 16,
     "match": [r"P100(?!.*PCI)"],
     "figures": {"clock_mhz": [1480, "NVIDIA Tesla P100 specifications (boost; not in gpu-facts)", U],
                 "memory_bandwidth": [732, "NVIDIA Tesla P100 datasheet (not in gpu-facts)", U],
                 "l2": [4, "NVIDIA Tesla P100 specifications (not in gpu-facts)", U],
                 "vector.fp64": [5.3, "NVIDIA Tesla P100 SXM2: 3,584 × 2 × 1.48 GHz / 2 (not in gpu-facts)", U],
                 "vector.fp32": [10.6, "NVIDIA Tesla P100 SXM2: 3,584 × 2 × 1.48 GHz (not in gpu-facts)", U],
                 "vector.fp16": [21.2, "NVIDIA Tesla P100 SXM2: half2 at 2× FP32 (not in gpu-facts)", U]}},
    {"name": "NVIDIA V100 SXM2", "compute_capability": "7.0", "num_sms": 80, "memory_gb": 32,
     "match": [r"V100(?![Ss])(?!.*(?:PCI|FHHL|SXM3))"],
     "figures": {"clock_mhz": [1530, "WEB-V100", U], "memory_bandwidth": [900, "WEB-V100"], "l2": [6, "WEB-V100"],
                 "vector.fp64": [7.8, "WEB-V100", U], "vector.fp32": [15.7, "WEB-V100", U],
                 "matrix.fp16": [125, "NV-TC"]}},
    # Tesla V100 PCIe ("Tesla V100-PCIE-16GB" / "-32GB"; source "V100-PCIE"): the same GV100 (80 SMs, 5,120 FP32
    # lanes, 640 tensor cores) at a lower boost, 1,380 MHz; 16 or 32 GB HBM2 at 1.75 Gbps on 4,096 bits = 900 GB/s;
    # NVIDIA's launch figures 7 / 14 / 112 TFLOPS FP64 / FP32 / tensor (io-tech.fi "NVIDIA esitteli Tesla V100 PCI
    # Express", 2017; sysrqmts.com V100 PCIe 16 GB table: boost 1,380 MHz, 897 GB/s; the nsys TARGET_INFO_CUDA_GPU of
    # a "Tesla V100-PCIE-32GB" records coreClockRate 1,380,000 kHz). 6 MB L2 as the SXM2 part (Volta whitepaper
    # table, WEB-V100). Not the V100S (1,597 MHz, 1,134 GB/s) nor the 150 W FHHL card (other clocks).
    {"name": "NVIDIA V100 PCIe", "compute_capability": "7.0", "num_sms": 80, "memory_gb": 32,
     "match": [r"V100(?![Ss])[-\s]*PCI"],
     "figures": {"clock_mhz": [1380, "V100-PCIE (boost; nsys coreClockRate 1,380,000 kHz)", U],
                 "memory_bandwidth": [900, "V100-PCIE (4,096-bit HBM2 at 1.75 Gbps)"], "l2": [6, "WEB-V100"],
                 "vector.fp64": [7, "V100-PCIE"], "vector.fp32": [14, "V100-PCIE (5,120 × 2 × 1.38 GHz = 14.1)"],
                 "matrix.fp16": [112, "V100-PCIE (640 tensor cores × 128 FLOP/clk × ~1.37 GHz)", U]}},
    {"name": "NVIDIA A100 40GB SXM", "compute_capability": "8.0", "num_sms": 108, "memory_gb": 40,
     "match": [r"A100(?!.*PCI)"],
     "figures": {"clock_mhz": [1410, "PT-DI"], "memory_bandwidth": [1555, "STAS"], "l2": [40, "STAS"],
                 "vector.fp64": [9.7, "PT-DI"], "matrix.fp64": [19.5, "PT-DI"], "vector.fp32": [19.5, "PT-DI"],
                 "vector.fp16": [78, AMPERE_VEC16], "vector.bf16": [39, AMPERE_VEC16],
                 "matrix.tf32": [156, "PT-DI"], "matrix.bf16": [312, "PT-DI"], "matrix.fp16": [312, "PT-DI"],
                 "matrix.int8": [624, "WEB-A100"],
                 "achievable.matrix.bf16": [271, "STAS (measured BF16 matmul, MAMF)"]}},
    {"name": "NVIDIA A100 80GB SXM", "compute_capability": "8.0", "num_sms": 108, "memory_gb": 80,
     "match": [r"A100(?!.*PCI)"],
     "figures": {"clock_mhz": [1410, "PT-DI"], "memory_bandwidth": [2039, "STAS"], "l2": [40, "STAS"],
                 "vector.fp64": [9.7, "PT-DI"], "matrix.fp64": [19.5, "PT-DI"], "vector.fp32": [19.5, "PT-DI"],
                 "vector.fp16": [78, AMPERE_VEC16], "vector.bf16": [39, AMPERE_VEC16],
                 "matrix.tf32": [156, "PT-DI"], "matrix.bf16": [312, "PT-DI"], "matrix.fp16": [312, "PT-DI"],
                 "matrix.int8": [624, "STAS"],
                 "achievable.matrix.bf16": [271, "STAS (measured BF16 matmul, MAMF)"]}},
    # A100 PCIe cards ("NVIDIA A100 80GB PCIe", "A100-PCIE-40GB"): the same GA100 at the same 1410 MHz boost, so the
    # same peaks; the 80 GB card's HBM2e runs at 1,935 GB/s (SXM: 2,039), the 40 GB card's at 1,555 GB/s like its
    # SXM part (NVIDIA A100 datasheet figures as tabled at thundercompute.com/blog/nvidia-a100-specs-full-guide:
    # source "A100-PCIE" below).
    {"name": "NVIDIA A100 40GB PCIe", "compute_capability": "8.0", "num_sms": 108, "memory_gb": 40,
     "match": [r"A100.*PCI"],
     "figures": {"clock_mhz": [1410, "PT-DI"], "memory_bandwidth": [1555, "A100-PCIE"], "l2": [40, "STAS"],
                 "vector.fp64": [9.7, "PT-DI"], "matrix.fp64": [19.5, "PT-DI"], "vector.fp32": [19.5, "PT-DI"],
                 "vector.fp16": [78, AMPERE_VEC16], "vector.bf16": [39, AMPERE_VEC16],
                 "matrix.tf32": [156, "PT-DI"], "matrix.bf16": [312, "PT-DI"], "matrix.fp16": [312, "PT-DI"],
                 "matrix.int8": [624, "WEB-A100"]}},
    {"name": "NVIDIA A100 80GB PCIe", "compute_capability": "8.0", "num_sms": 108, "memory_gb": 80,
     "match": [r"A100.*PCI"],
     "figures": {"clock_mhz": [1410, "PT-DI"], "memory_bandwidth": [1935, "A100-PCIE"], "l2": [40, "STAS"],
                 "vector.fp64": [9.7, "PT-DI"], "matrix.fp64": [19.5, "PT-DI"], "vector.fp32": [19.5, "PT-DI"],
                 "vector.fp16": [78, AMPERE_VEC16], "vector.bf16": [39, AMPERE_VEC16],
                 "matrix.tf32": [156, "PT-DI"], "matrix.bf16": [312, "PT-DI"], "matrix.fp16": [312, "PT-DI"],
                 "matrix.int8": [624, "WEB-A100"]}},
    # A30 (GA100, the A100's SM at a 1,440 MHz boost; 56 SMs, 3,584 FP32 lanes; 24 GB HBM2 on 3,072 bits at
    # 933 GB/s; 24 MB L2 — sysrqmts.com's A30 PCIe table: source "A30"). Peaks with the A100 entries' GA100 per-SM
    # rates (PT-DI: 312 TFLOPS BF16 = 108 SMs × 2,048 FLOP/clk × 1.41 GHz): BF16/FP16 56 × 2,048 × 1.44 GHz = 165.2,
    # TF32 half that, INT8 twice, FP64 tensor 56 × 128 × 1.44 = 10.3, FP32 3,584 × 2 × 1.44 = 10.3, FP64 half of it
    # (NVIDIA's A30 datasheet prints 165 / 82 / 330 / 10.3 / 10.3 / 5.2).
    {"name": "NVIDIA A30", "compute_capability": "8.0", "num_sms": 56, "memory_gb": 24,
     "match": [r"\bA30\b"],
     "figures": {"clock_mhz": [1440, "A30 (boost)"], "memory_bandwidth": [933, "A30 (3,072-bit HBM2)"],
                 "l2": [24, "A30"], "vector.fp64": [5.16, "A30 (1/2 of FP32)"],
                 "matrix.fp64": [10.32, "56 SMs × 128 FLOP/clk × 1.44 GHz (GA100 rate, as the A100)", U],
                 "vector.fp32": [10.32, "A30 (3,584 × 2 × 1.44 GHz)"],
                 "vector.fp16": [41.3, f"{AMPERE_VEC16}: 4 × FP32", U],
                 "vector.bf16": [20.6, f"{AMPERE_VEC16}: 2 × FP32", U],
                 "matrix.tf32": [82.6, "56 SMs × 1,024 FLOP/clk × 1.44 GHz (GA100 rate, as the A100)", U],
                 "matrix.bf16": [165.2, "56 SMs × 2,048 FLOP/clk × 1.44 GHz (GA100 rate, as the A100)", U],
                 "matrix.fp16": [165.2, "56 SMs × 2,048 FLOP/clk × 1.44 GHz (GA100 rate, as the A100)", U],
                 "matrix.int8": [330.3, "56 SMs × 4,096 OP/clk × 1.44 GHz (GA100 rate, as the A100)", U]}},
    {"name": "NVIDIA H100 SXM", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 80,
     "match": [r"H100.*(SXM|HBM3)"],
     "figures": {"clock_mhz": [1980, "WEB-H100"], "memory_bandwidth": [3350, "WEB-H100"], "l2": [50, "STAS"],
                 "memory_clock_mhz": [2619, "nvidia-smi max memory clock of an H100 80GB HBM3: 2619 MHz × 2 × "
                                            "5120-bit bus / 8 = 3.35 TB/s, the datasheet bandwidth"],
                 "vector.fp64": [33.5, "WEB-H100"], "matrix.fp64": [66.9, "WEB-H100"],
                 "vector.fp32": [66.9, "WEB-H100"], "matrix.tf32": [494.7, "WEB-H100"],
                 "vector.fp16": [133.8, f"{HOPPER_VEC16} (133.8 TFLOPS)"],
                 "vector.bf16": [133.8, f"{HOPPER_VEC16} (133.8 TFLOPS)"],
                 "matrix.bf16": [989.4, "WEB-H100"], "matrix.fp16": [989.4, "WEB-H100"],
                 "matrix.fp8": [1978.9, "WEB-H100"], "matrix.int8": [1978.9, "WEB-H100"],
                 "achievable.matrix.bf16": [795, "STAS (measured BF16 matmul, MAMF)"],
                 "achievable.matrix.fp8": [1403, "STAS (measured FP8 matmul, MAMF)"]}},
    {"name": "NVIDIA H100 PCIe", "compute_capability": "9.0", "num_sms": 114, "memory_gb": 80,
     "match": [r"H100.*PCIe"],
     "figures": {"clock_mhz": [1755, "WEB-H100", U], "memory_bandwidth": [2000, "WEB-H100"], "l2": [50, "STAS"],
                 "vector.fp64": [25.6, "WEB-H100"], "matrix.fp64": [51, "WEB-H100"], "vector.fp32": [51, "WEB-H100"],
                 "vector.fp16": [102, f"{HOPPER_VEC16} (2 × 51)"], "vector.bf16": [102, f"{HOPPER_VEC16} (2 × 51)"],
                 "matrix.tf32": [378, "WEB-H100"], "matrix.bf16": [756, "WEB-H100"], "matrix.fp16": [756, "WEB-H100"],
                 "matrix.fp8": [1513, "WEB-H100"], "matrix.int8": [1513, "WEB-H100"]}},
    {"name": "NVIDIA H200 SXM", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 141,
     # not "GH200" (the Grace Hopper superchip has its own figures below), not the "H200 NVL" (a PCIe card with
     # its own power limit and clocks)
     "match": [r"(?<![A-Za-z])H200(?!.*NVL)"],
     "figures": {"clock_mhz": [1980, "nsys TARGET_INFO_GPU of an H200 (NVIDIA/Fuser report1.sqlite)"],
                 "memory_bandwidth": [4800, "STAS"],
                 "l2": [60, "nsys TARGET_INFO_GPU of an H200 (NVIDIA/Fuser report1.sqlite): 62914560 B"],
                 "memory_clock_mhz": [3201, "nvidia-smi of an H200 (device capture 2026-12-04: Memory 3201 MHz; "
                                            "ncu DRAM Frequency 3.20 GHz)"],
                 "vector.fp64": [33.5, "STAS"], "matrix.fp64": [66.9, "STAS"], "vector.fp32": [66.9, "STAS"],
                 "vector.fp16": [133.8, "as H100 SXM (same GH100 SMs at 1980 MHz)"],
                 "vector.bf16": [133.8, "as H100 SXM (same GH100 SMs at 1980 MHz)"],
                 "matrix.tf32": [494.7, "STAS"], "matrix.bf16": [989.4, "STAS"], "matrix.fp16": [989.4, "STAS"],
                 "matrix.fp8": [1978.9, "STAS"], "matrix.int8": [1978.9, "STAS"],
                 "achievable.matrix.bf16": [795, "as H100 SXM (the same GH100 tensor cores at 1980 MHz; STAS "
                                                 "MAMF); an H200 here ran 8192³ bf16 matmuls at 769–798 TFLOP/s and "
                                                 "cuBLAS's 4096³ nvjet GEMM at 768 TFLOP/s (device capture "
                                                 "2026-12-04)"],
                 "achievable.matrix.fp8": [1453, "STAS (measured FP8 matmul, MAMF)"]}},
    # GH200 Grace Hopper superchip: its Hopper GPU is the 132-SM GH100 at 1980 MHz (wikimili "Hopper
    # (microarchitecture)": "GPU: 132 Hopper SMs", "Shader clock rate 1980 MHz", "96 GB HBM3 or 144 GB HBM3e"), so
    # its dense peaks are the H100 SXM's; the memory differs by variant, told apart by the memory size the trace
    # records (a 96 GB part reports ~94.5 GiB, "NVIDIA GH200 480GB" in Kineto: 101,468,602,368 B). Bandwidth:
    # 4 TB/s for 96 GB HBM3 (NVIDIA's GH200 announcement, as reported at nishikiout.net/entry/2023/08/09/143040:
    # "96GB HBM3@4TB/s"; 96 GB HBM3 also spheron.network/blog/nvidia-gh200-guide); 4.9 TB/s for 144 GB HBM3e
    # (NVIDIA's later GH200 datasheet figure; its August 2023 announcement said ~5 TB/s — uncertain).
    {"name": "NVIDIA GH200 96GB HBM3", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 96,
     "match": [r"GH200"],
     "figures": {"clock_mhz": [1980, "wikimili Hopper (microarchitecture): GH200 shader clock"],
                 "memory_bandwidth": [4000, "NVIDIA GH200 announcement (nishikiout.net 2023-08-09): 96GB HBM3 "
                                            "@ 4TB/s"],
                 "l2": [50, "STAS (GH100 as in H100 SXM)"],
                 "vector.fp64": [33.5, "as H100 SXM (same 132-SM GH100 at 1980 MHz)"],
                 "matrix.fp64": [66.9, "as H100 SXM"], "vector.fp32": [66.9, "as H100 SXM"],
                 "vector.fp16": [133.8, "as H100 SXM"], "vector.bf16": [133.8, "as H100 SXM"],
                 "matrix.tf32": [494.7, "as H100 SXM"], "matrix.bf16": [989.4, "as H100 SXM"],
                 "matrix.fp16": [989.4, "as H100 SXM"], "matrix.fp8": [1978.9, "as H100 SXM"],
                 "matrix.int8": [1978.9, "as H100 SXM"]}},
    {"name": "NVIDIA GH200 144GB HBM3e", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 144,
     "match": [r"GH200"],
     "figures": {"clock_mhz": [1980, "wikimili Hopper (microarchitecture): GH200 shader clock"],
                 "memory_bandwidth": [4900, "NVIDIA GH200 datasheet, 144 GB HBM3e (the August 2023 announcement "
                                            "said ~5 TB/s)", U],
                 "l2": [50, "STAS (GH100 as in H100 SXM)"],
                 "vector.fp64": [33.5, "as H100 SXM (same 132-SM GH100 at 1980 MHz)"],
                 "matrix.fp64": [66.9, "as H100 SXM"], "vector.fp32": [66.9, "as H100 SXM"],
                 "vector.fp16": [133.8, "as H100 SXM"], "vector.bf16": [133.8, "as H100 SXM"],
                 "matrix.tf32": [494.7, "as H100 SXM"], "matrix.bf16": [989.4, "as H100 SXM"],
                 "matrix.fp16": [989.4, "as H100 SXM"], "matrix.fp8": [1978.9, "as H100 SXM"],
                 "matrix.int8": [1978.9, "as H100 SXM"]}},
    {"name": "NVIDIA B200", "compute_capability": "10.0", "num_sms": 148, "memory_gb": 180,
     "match": [r"(?<![A-Za-z])B200"],  # not "GB200": the Grace Blackwell superchip's GPU has its own figures
     "figures": {"clock_mhz": [1965, "ncu device__attribute_max_gpu_frequency_khz (meinie B200 CSV)", U],
                 "memory_bandwidth": [8000, "STAS (DGX sheet; HGX page 7700)", U], "l2": [126.5, "AO-PR"],
                 "vector.fp64": [37, "STAS"], "matrix.fp64": [37, "STAS"], "vector.fp32": [75, "AO", U],
                 "matrix.tf32": [1125, "STAS"], "matrix.bf16": [2250, "STAS"], "matrix.fp16": [2250, "STAS"],
                 "matrix.fp8": [4500, "STAS"], "matrix.int8": [4500, "STAS"],
                 "achievable.matrix.bf16": [1745, "STAS (measured BF16 matmul, MAMF)"],
                 "achievable.matrix.fp8": [3433, "STAS (measured FP8 matmul, MAMF)"]}},
    # L4 SM count: 58 from 7424 CUDA cores / 128 (one site says 60) — uncertain (gpu-facts ⚠ 4)
    {"name": "NVIDIA L4", "compute_capability": "8.9", "num_sms": 58, "memory_gb": 24,
     "match": [r"\bL4\b"],
     "figures": {"clock_mhz": [2040, "WEB-L4"], "memory_bandwidth": [300, "WEB-L4"], "l2": [48, "WEB-L4"],
                 "vector.fp64": [0.47, "WEB-L4", U], "vector.fp32": [30.3, "WEB-L4"], "matrix.tf32": [60, "WEB-L4"],
                 "matrix.bf16": [121, "WEB-L4"], "matrix.fp16": [121, "WEB-L4"], "matrix.fp8": [242.5, "WEB-L4"],
                 "matrix.int8": [242.5, "WEB-L4"]}},
    {"name": "NVIDIA L40S", "compute_capability": "8.9", "num_sms": 142, "memory_gb": 48,
     "match": [r"L40S"],
     "figures": {"clock_mhz": [2520, "WEB-L40S"], "memory_bandwidth": [864, "WEB-L40S"], "l2": [96, "WEB-L40S"],
                 "vector.fp64": [1.43, "WEB-L40S"], "vector.fp32": [91.6, "WEB-L40S"],
                 "matrix.tf32": [183, "WEB-L40S"], "matrix.bf16": [362, "WEB-L40S"],
                 "matrix.fp16": [362, "WEB-L40S"], "matrix.fp8": [733, "WEB-L40S"], "matrix.int8": [733, "WEB-L40S"]}},
    # L40 (AD102, the L40S's 142 SMs and 18,176 CUDA cores, 568 tensor cores, 48 GB GDDR6 at 864 GB/s): NVIDIA's L40
    # datasheet prints its tensor peaks at half the L40S's (dense TF32 90.5, BF16/FP16 181.05, FP8/INT8 362; 2× with
    # sparsity), FP32 90.5 (mullet.se's copy of the NVIDIA L40/L40S datasheet table: source "L40"); boost 2,490 MHz
    # and FP64 1.41 TFLOPS (1/64) as hmc-tech.com's L40 page lists them: 18,176 × 2 × 2.49 GHz = 90.52.
    {"name": "NVIDIA L40", "compute_capability": "8.9", "num_sms": 142, "memory_gb": 48,
     "match": [r"\bL40\b(?!S)"],
     "figures": {"clock_mhz": [2490, "hmc-tech.com NVIDIA L40 (boost)", U], "memory_bandwidth": [864, "L40"],
                 "l2": [96, "as the L40S entry (WEB-L40S; the same AD102 configuration, 142 SMs)", U],
                 "vector.fp64": [1.41, "hmc-tech.com NVIDIA L40 (1/64 of FP32)", U], "vector.fp32": [90.5, "L40"],
                 "matrix.tf32": [90.5, "L40 (181 sparse), dense"], "matrix.bf16": [181.05, "L40 (362.1 sparse), dense"],
                 "matrix.fp16": [181.05, "L40 (362.1 sparse), dense"], "matrix.fp8": [362, "L40 (724 sparse), dense"],
                 "matrix.int8": [362, "L40 (724 sparse), dense"]}},
    {"name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9", "num_sms": 128, "memory_gb": 24,
     "match": [r"RTX 4090(?!\s*D\b)(?!.*(?:Laptop|Mobile))"],
     "figures": {"clock_mhz": [2520, "WEB-4090"], "memory_bandwidth": [1008, "WEB-4090"], "l2": [72, "WEB-4090"],
                 "vector.fp64": [1.29, "WEB-4090"], "vector.fp32": [82.6, "WEB-4090"],
                 "matrix.tf32": [82.6, "WEB-4090"],
                 "matrix.bf16": [165.2, "WEB-4090 (FP32 accumulate, as PyTorch uses)", U],
                 "matrix.fp16": [165.2, "WEB-4090 (FP32 accumulate, as PyTorch uses)", U],
                 "matrix.fp8": [330.3, "WEB-4090 (FP32 accumulate)", U], "matrix.int8": [660.6, "WEB-4090"]}},
    # RTX 4060 Ti (AD106): 34 SMs × 128 FP32 lanes = 4,352 CUDA cores at 2.535 GHz boost; 8 GB GDDR6 (a 16 GB
    # variant has the same chip and clocks) on 128 bits at 18 Gbps = 288 GB/s; 32 MB L2 (thefpsreview.com's RTX 4060
    # Ti review, ?p=133840, from NVIDIA's reviewer specifications — its table's "228 GB/s" is a typo for the 288 its
    # text derives; an nsys export of the card, 0x822a5b87/test-cuda report1.sqlite, records 34 SMs, 33,554,432 B
    # of L2 and 288.032 GB/s). FP32 = 4,352 × 2 × 2.535 GHz; tensor peaks scaled from the RTX 4090 (same Ada SM,
    # GeForce rates) by SMs × clock: 34/128 × 2.535/2.52.
    {"name": "NVIDIA GeForce RTX 4060 Ti", "compute_capability": "8.9", "num_sms": 34, "memory_gb": 8,
     "match": [r"RTX 4060 Ti(?!.*Laptop)"],
     "figures": {"clock_mhz": [2535, "thefpsreview.com RTX 4060 Ti review (boost; not in gpu-facts)", U],
                 "memory_bandwidth": [288, "128-bit GDDR6 at 18 Gbps, thefpsreview.com (not in gpu-facts)", U],
                 "l2": [32, "thefpsreview.com RTX 4060 Ti review (not in gpu-facts)", U],
                 "vector.fp64": [0.345, "1/64 of FP32 (Ada GeForce; not in gpu-facts)", U],
                 "vector.fp32": [22.06, "4,352 cores × 2 FLOP × 2.535 GHz (not in gpu-facts)", U],
                 "matrix.tf32": [22.06, "RTX 4090 × (34/128 SMs) × (2.535/2.52 GHz) (not in gpu-facts)", U],
                 "matrix.bf16": [44.1, "RTX 4090 × (34/128 SMs) × (2.535/2.52 GHz), FP32 accumulate", U],
                 "matrix.fp16": [44.1, "RTX 4090 × (34/128 SMs) × (2.535/2.52 GHz), FP32 accumulate", U],
                 "matrix.fp8": [88.3, "RTX 4090 × (34/128 SMs) × (2.535/2.52 GHz), FP32 accumulate", U],
                 "matrix.int8": [176.5, "RTX 4090 × (34/128 SMs) × (2.535/2.52 GHz)", U]}},
    # RTX 4060 (AD107): 3,072 CUDA cores (24 SMs × 128 FP32 lanes) at 2.46 GHz boost, 8 GB GDDR6 on 128 bits
    # (NVIDIA's GeForce RTX 4060 family specifications page); 17 Gbps GDDR6 → 272 GB/s and 24 MB L2 — the figures an
    # nsys export of the card records itself (frasertajima/WeatherBench2 report1.sqlite, TARGET_INFO_GPU: AD107,
    # 24 SMs, 25,165,824 B L2, 272.032 GB/s, 2.46 GHz). FP32 = 3,072 × 2 × 2.46 GHz; tensor peaks scaled from the
    # RTX 4090 (same Ada SM, GeForce rates) by SMs × clock: 24/128 × 2.46/2.52.
    {"name": "NVIDIA GeForce RTX 4060", "compute_capability": "8.9", "num_sms": 24, "memory_gb": 8,
     "match": [r"RTX 4060(?! Ti)(?!.*Laptop)"],
     "figures": {"clock_mhz": [2460, "NVIDIA GeForce RTX 4060 family specifications (boost; not in gpu-facts)", U],
                 "memory_bandwidth": [272, "128-bit GDDR6 at 17 Gbps; the card's nsys record (not in gpu-facts)", U],
                 "l2": [24, "the card's nsys TARGET_INFO_GPU record: 25,165,824 B (not in gpu-facts)", U],
                 "vector.fp64": [0.236, "1/64 of FP32 (Ada GeForce; not in gpu-facts)", U],
                 "vector.fp32": [15.11, "3,072 cores × 2 FLOP × 2.46 GHz (not in gpu-facts)", U],
                 "matrix.tf32": [15.12, "RTX 4090 × (24/128 SMs) × (2.46/2.52 GHz) (not in gpu-facts)", U],
                 "matrix.bf16": [30.2, "RTX 4090 × (24/128 SMs) × (2.46/2.52 GHz), FP32 accumulate", U],
                 "matrix.fp16": [30.2, "RTX 4090 × (24/128 SMs) × (2.46/2.52 GHz), FP32 accumulate", U],
                 "matrix.fp8": [60.5, "RTX 4090 × (24/128 SMs) × (2.46/2.52 GHz), FP32 accumulate", U],
                 "matrix.int8": [120.9, "RTX 4090 × (24/128 SMs) × (2.46/2.52 GHz)", U]}},
    {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "num_sms": 170, "memory_gb": 32,
     "match": [r"RTX 5090(?!\s*D\b)(?!.*(?:Laptop|Mobile))"],
     "figures": {"clock_mhz": [2407, "NVIDIA RTX Blackwell whitepaper (not in gpu-facts)", U],
                 "memory_bandwidth": [1792, "512-bit GDDR7 at 28 Gbps (not in gpu-facts)", U],
                 "l2": [96, "NVIDIA RTX Blackwell whitepaper (not in gpu-facts)", U],
                 "vector.fp64": [1.64, "1/64 of FP32 (not in gpu-facts)", U],
                 "vector.fp32": [104.8, "NVIDIA RTX Blackwell whitepaper (not in gpu-facts)", U],
                 "matrix.tf32": [104.8, "NVIDIA RTX Blackwell whitepaper, dense (not in gpu-facts)", U],
                 "matrix.bf16": [209.5, "NVIDIA RTX Blackwell whitepaper, dense FP32 acc. (not in gpu-facts)", U],
                 "matrix.fp16": [209.5, "NVIDIA RTX Blackwell whitepaper, dense FP32 acc. (not in gpu-facts)", U],
                 "matrix.fp8": [419, "NVIDIA RTX Blackwell whitepaper, dense (not in gpu-facts)", U],
                 "matrix.int8": [838, "NVIDIA RTX Blackwell whitepaper, dense (not in gpu-facts)", U]}},
    # RTX 5070: 48 SMs × 128 FP32 lanes = 6,144 CUDA cores at 2.51 GHz boost; 12 GB GDDR7 on 192 bits at 28 Gbps
    # (NVIDIA GeForce RTX 5070 product specifications). Tensor figures scaled from the RTX 5090 by SMs × clock.
    {"name": "NVIDIA GeForce RTX 5070", "compute_capability": "12.0", "num_sms": 48, "memory_gb": 12,
     "match": [r"RTX 5070(?! Ti)(?!.*(?:Laptop|Mobile))"],
     "figures": {"clock_mhz": [2510, "NVIDIA RTX 5070 specifications (boost; not in gpu-facts)", U],
                 "memory_bandwidth": [672, "192-bit GDDR7 at 28 Gbps (not in gpu-facts)", U],
                 "l2": [48, "NVIDIA RTX Blackwell whitepaper, GB205 (not in gpu-facts)", U],
                 "vector.fp64": [0.48, "1/64 of FP32 (not in gpu-facts)", U],
                 "vector.fp32": [30.84, "6,144 cores × 2 FLOP × 2.51 GHz (not in gpu-facts)", U],
                 "matrix.tf32": [30.84, "as FP32, dense; scaled from the RTX 5090 (not in gpu-facts)", U],
                 "matrix.bf16": [61.7, "RTX 5090 × (48/170 SMs) × (2.51/2.407 GHz), dense (not in gpu-facts)", U],
                 "matrix.fp16": [61.7, "RTX 5090 × (48/170 SMs) × (2.51/2.407 GHz), dense (not in gpu-facts)", U],
                 "matrix.fp8": [123.4, "RTX 5090 × (48/170 SMs) × (2.51/2.407 GHz), dense (not in gpu-facts)", U],
                 "matrix.int8": [246.8, "RTX 5090 × (48/170 SMs) × (2.51/2.407 GHz), dense (not in gpu-facts)", U]}},
    # RTX 5060 (desktop, GB206): 30 SMs × 128 FP32 lanes = 3,840 CUDA cores at 2.497 GHz boost; 8 GB GDDR7 on 128
    # bits at 28 Gbps = 448 GB/s (NVIDIA GeForce RTX 5060 product specifications and launch figures: "19 shader
    # TFLOPS", "614 AI TOPS" = FP4 with 2:4 sparsity). FP32 = 3,840 × 2 × 2.497 GHz = 19.18 TFLOPS; tensor peaks
    # scaled from the RTX 5090 by SMs × clock, which agrees with 614 AI TOPS: FP4 dense 307, FP8 (FP32 accumulate,
    # as the 5090 entry) 614 / 8 = 76.8, BF16 38.4. L2: the GB206 die's 32 MiB, as deviceQuery prints it on the RTX
    # 5060 Laptop GPU (WEB-5060: same die, same 128-bit bus). The Laptop GPU (26 SMs, 3,328 cores) is not this part.
    {"name": "NVIDIA GeForce RTX 5060", "compute_capability": "12.0", "num_sms": 30, "memory_gb": 8,
     "match": [r"RTX 5060(?! Ti)(?!.*Laptop)"],
     "figures": {"clock_mhz": [2497, "NVIDIA RTX 5060 specifications (boost; not in gpu-facts)", U],
                 "memory_bandwidth": [448, "128-bit GDDR7 at 28 Gbps (not in gpu-facts)", U],
                 "l2": [32, "WEB-5060 deviceQuery of the GB206 RTX 5060 Laptop GPU: 33,554,432 bytes", U],
                 "vector.fp64": [0.30, "1/64 of FP32 (not in gpu-facts)", U],
                 "vector.fp32": [19.18, "3,840 cores × 2 FLOP × 2.497 GHz; NVIDIA: 19 TFLOPS (not in gpu-facts)", U],
                 "matrix.tf32": [19.18, "as FP32, dense; scaled from the RTX 5090 (not in gpu-facts)", U],
                 "matrix.bf16": [38.4, "RTX 5090 × (30/170 SMs) × (2.497/2.407 GHz), dense (not in gpu-facts)", U],
                 "matrix.fp16": [38.4, "RTX 5090 × (30/170 SMs) × (2.497/2.407 GHz), dense (not in gpu-facts)", U],
                 "matrix.fp8": [76.7, "RTX 5090 × (30/170 SMs) × (2.497/2.407 GHz), dense; 614 AI TOPS / 8", U],
                 "matrix.int8": [153.5, "RTX 5090 × (30/170 SMs) × (2.497/2.407 GHz), dense; 614 AI TOPS / 4",
                                 U]}},
    # Turing / GA10x parts common in public traces (Colab/Kaggle T4, cloud A10/A40, workstations). Figures from
    # NVIDIA's product datasheets and the Turing / GA102 whitepapers (not in gpu-facts); tensor peaks dense (the
    # datasheets print Ampere's with 2:4 sparsity: halved here). Each peak checks against cores × 2 × boost clock
    # (FP32) or SMs × 1024 FLOP/clk × boost clock (FP16 tensor, FP32 accumulate; GeForce parts at half that rate).
    {"name": "NVIDIA T4", "compute_capability": "7.5", "num_sms": 40, "memory_gb": 16,
     "match": [r"\bT4\b"],
     "figures": {"clock_mhz": [1590, "NVIDIA T4 datasheet (boost)"], "memory_bandwidth": [320, "NVIDIA T4 datasheet"],
                 "l2": [4, "Turing whitepaper (TU104)"], "vector.fp64": [0.25, "1/32 of FP32 (Turing)", U],
                 "vector.fp32": [8.1, "NVIDIA T4 datasheet"],
                 "matrix.fp16": [65, "NVIDIA T4 datasheet (mixed FP16/FP32)"],
                 "matrix.int8": [130, "NVIDIA T4 datasheet"]}},
    {"name": "NVIDIA GeForce RTX 2080 Ti", "compute_capability": "7.5", "num_sms": 68, "memory_gb": 11,
     "match": [r"2080 Ti"],
     "figures": {"clock_mhz": [1545, "Turing whitepaper (reference boost)"],
                 "memory_bandwidth": [616, "Turing whitepaper (352-bit GDDR6 at 14 Gbps)"],
                 "l2": [5.5, "Turing whitepaper"], "vector.fp64": [0.42, "1/32 of FP32 (Turing)", U],
                 "vector.fp32": [13.4, "Turing whitepaper"],
                 "matrix.fp16": [53.8, "Turing whitepaper (FP32 accumulate, as PyTorch uses)", U],
                 "matrix.int8": [215.2, "Turing whitepaper"]}},
    # Quadro RTX 6000 (TU102, the professional part: tensor cores at the full FP32-accumulate rate, unlike GeForce):
    # 72 SMs × 64 FP32 lanes = 4,608 CUDA cores and 576 tensor cores at 1,770 MHz boost; 24 GB GDDR6 on 384 bits at
    # 14 Gbps = 672 GB/s; 6 MB L2 (NVIDIA Quadro RTX 6000 datasheet: 16.3 TFLOPS FP32, 130.5 TFLOPS tensor, 261 TOPS
    # INT8; source "QRTX6000" below; not in gpu-facts). Each checks: 4,608 × 2 × 1.77 GHz = 16.3; 72 × 1024 × 1.77 =
    # 130.5; INT8 2× that. An nsys export's TARGET_INFO_GPU of the card (bwyogatama/Mordred-Deprecated
    # report1.sqlite) records 72 SMs, 1,770,000 kHz, 672,096,000,000 B/s and 6,291,456 B of L2. Not the laptop
    # "Quadro RTX 6000" parts (lower clocks) nor the Ada "RTX 6000 Ada Generation".
    {"name": "NVIDIA Quadro RTX 6000", "compute_capability": "7.5", "num_sms": 72, "memory_gb": 24,
     "match": [r"Quadro RTX 6000(?!.*(?:Mobile|Max-Q|Laptop))"],
     "figures": {"clock_mhz": [1770, "QRTX6000 (boost)"],
                 "memory_bandwidth": [672, "QRTX6000 (384-bit GDDR6 at 14 Gbps)"],
                 "l2": [6, "QRTX6000 (TU102: 6 MB)"], "vector.fp64": [0.51, "1/32 of FP32 (Turing)", U],
                 "vector.fp32": [16.3, "QRTX6000"],
                 "matrix.fp16": [130.5, "QRTX6000 (tensor, FP32 accumulate: 72 SMs × 1024 FLOP/clk × 1.77 GHz)"],
                 "matrix.int8": [261, "QRTX6000 (INT8 tensor)"]}},
    # RTX 2060 SUPER (TU106-410, desktop): 34 SMs × 64 FP32 lanes = 2,176 CUDA cores at the 1650 MHz reference
    # boost; 8 GB GDDR6 on 256 bits at 14 Gbps = 448 GB/s; 4 MB L2; 272 tensor cores (RTX 2060 SUPER spec tables of
    # guru3d's "GeForce RTX 2060 SUPER and 2070 SUPER review" and topcpu.net: source "2060S" below). Peaks derived
    # with the Turing per-SM rates of the RTX 2080 Ti entry (53.8 = 68 SMs × 512 FLOP/clk × 1.545 GHz FP16 tensor
    # with FP32 accumulate at the GeForce half rate; INT8 215.2 = 68 × 2048 × 1.545): FP32 2,176 × 2 × 1.65 GHz =
    # 7.18 TFLOP/s, FP16 34 × 512 × 1.65 = 28.7, INT8 34 × 2048 × 1.65 = 114.9. Not the RTX 2060 (30 SMs, 1680 MHz).
    {"name": "NVIDIA GeForce RTX 2060 SUPER", "compute_capability": "7.5", "num_sms": 34, "memory_gb": 8,
     "match": [r"RTX 2060 SUPER"],
     "figures": {"clock_mhz": [1650, "2060S (reference boost)"],
                 "memory_bandwidth": [448, "2060S (256-bit GDDR6 at 14 Gbps: 256 × 14 / 8)"],
                 "l2": [4, "2060S (TU106: 4 MB)"], "vector.fp64": [0.22, "1/32 of FP32 (Turing)", U],
                 "vector.fp32": [7.18, "2,176 FP32 lanes × 2 × 1.65 GHz"],
                 "matrix.fp16": [28.7, "34 SMs × 512 FLOP/clk (FP32 accumulate, as PyTorch uses) × 1.65 GHz", U],
                 "matrix.int8": [114.9, "34 SMs × 2048 OP/clk × 1.65 GHz (as RTX 2080 Ti)", U]}},
    {"name": "NVIDIA A10", "compute_capability": "8.6", "num_sms": 72, "memory_gb": 24,
     "match": [r"\bA10\b"],
     "figures": {"clock_mhz": [1695, "NVIDIA A10 datasheet (boost)"],
                 "memory_bandwidth": [600, "NVIDIA A10 datasheet"],
                 "l2": [6, "GA102 whitepaper"], "vector.fp64": [0.49, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [31.2, "NVIDIA A10 datasheet"], "matrix.tf32": [62.5, "NVIDIA A10 datasheet, dense"],
                 "matrix.bf16": [125, "NVIDIA A10 datasheet, dense"],
                 "matrix.fp16": [125, "NVIDIA A10 datasheet, dense"],
                 "matrix.int8": [250, "NVIDIA A10 datasheet, dense"]}},
    {"name": "NVIDIA A40", "compute_capability": "8.6", "num_sms": 84, "memory_gb": 48,
     "match": [r"\bA40\b"],
     "figures": {"clock_mhz": [1740, "NVIDIA A40 datasheet (boost)"],
                 "memory_bandwidth": [696, "NVIDIA A40 datasheet"],
                 "l2": [6, "GA102 whitepaper"], "vector.fp64": [0.58, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [37.4, "NVIDIA A40 datasheet"], "matrix.tf32": [74.8, "NVIDIA A40 datasheet, dense"],
                 "matrix.bf16": [149.7, "NVIDIA A40 datasheet, dense"],
                 "matrix.fp16": [149.7, "NVIDIA A40 datasheet, dense"],
                 "matrix.int8": [299.3, "NVIDIA A40 datasheet, dense"]}},
    {"name": "NVIDIA GeForce RTX 3090", "compute_capability": "8.6", "num_sms": 82, "memory_gb": 24,
     "match": [r"RTX 3090(?! Ti)"],
     "figures": {"clock_mhz": [1695, "GA102 whitepaper (boost)"],
                 "memory_bandwidth": [936, "GA102 whitepaper (384-bit GDDR6X at 19.5 Gbps)"],
                 "l2": [6, "GA102 whitepaper"], "vector.fp64": [0.56, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [35.6, "GA102 whitepaper"], "matrix.tf32": [35.6, "GA102 whitepaper, dense"],
                 "matrix.bf16": [71, "GA102 whitepaper, dense (FP32 accumulate, as PyTorch uses)", U],
                 "matrix.fp16": [71, "GA102 whitepaper, dense (FP32 accumulate, as PyTorch uses)", U],
                 "matrix.int8": [284, "GA102 whitepaper, dense"]}},
    # RTX 3080 (10 GB, GA102-200): 68 SMs × 128 FP32 lanes = 8,704 CUDA cores at the 1710 MHz reference boost; 10 GB
    # GDDR6X on 320 bits at 19 Gbps = 760 GB/s; 272 tensor cores (itcreations.com RTX 3080 page, TechPowerUp/
    # sysrqmts and cputronic tables: 1710 MHz, 29.77 TFLOPS; source "3080" below); 5 MiB L2 as nsys
    # TARGET_INFO_CUDA_GPU records it (PolPuigPuy/OpenACC_Project_PolPuig report: l2CacheSize 5,242,880 B,
    # 760,080,000 kB/s). Peaks derived with the GA102 per-SM rates of the RTX 3090 entry (35.6 TF32 = 82 SMs × 256
    # FLOP/clk × 1.695 GHz; 71 FP16/BF16 = 82 × 512 × 1.695, FP32 accumulate at the GeForce half rate; INT8 284 =
    # 82 × 2048 × 1.695): FP32 8,704 × 2 × 1.71 = 29.77, TF32 68 × 256 × 1.71 = 29.77, FP16 68 × 512 × 1.71 = 59.5,
    # INT8 68 × 2048 × 1.71 = 238.1. Not the RTX 3080 Ti (80 SMs), the RTX 3080 12 GB (70 SMs: its SM count
    # decides) nor the Laptop GPU (48 SMs, GA104).
    {"name": "NVIDIA GeForce RTX 3080", "compute_capability": "8.6", "num_sms": 68, "memory_gb": 10,
     "match": [r"RTX 3080(?! Ti)(?!.*Laptop)"],
     "figures": {"clock_mhz": [1710, "3080 (reference boost)"],
                 "memory_bandwidth": [760, "3080 (320-bit GDDR6X at 19 Gbps: 320 × 19 / 8); nsys 760,080,000 kB/s"],
                 "l2": [5, "nsys TARGET_INFO_CUDA_GPU l2CacheSize 5,242,880 B"],
                 "vector.fp64": [0.47, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [29.77, "8,704 FP32 lanes × 2 × 1.71 GHz"],
                 "matrix.tf32": [29.77, "68 SMs × 256 FLOP/clk × 1.71 GHz, dense (as RTX 3090)", U],
                 "matrix.bf16": [59.5, "68 SMs × 512 FLOP/clk (FP32 accumulate, as PyTorch uses) × 1.71 GHz", U],
                 "matrix.fp16": [59.5, "68 SMs × 512 FLOP/clk (FP32 accumulate, as PyTorch uses) × 1.71 GHz", U],
                 "matrix.int8": [238.1, "68 SMs × 2048 OP/clk × 1.71 GHz, dense (as RTX 3090)", U]}},
    # RTX 3070 (GA104): 5,888 CUDA cores (46 SMs × 128) at the 1.725 GHz boost, 8 GB GDDR6 on 256 bits at 14 Gbps =
    # 448 GB/s (NVIDIA GeForce RTX 3070 specifications); the card's own ncu record agrees (thedavidchu/speedy_scan
    # profile.ncu-rep: 46 SMs, 4,194,304 B L2, 256-bit bus at 7,001,000 kHz, 1,725,000 kHz max clock, CC 8.6).
    # Peaks with the GA10x per-SM rates of the entries above: FP32 5,888 × 2 × 1.725 = 20.31, TF32 46 × 256 × 1.725,
    # FP16/BF16 46 × 512 × 1.725 (FP32 accumulate, GeForce half rate), INT8 46 × 2048 × 1.725.
    {"name": "NVIDIA GeForce RTX 3070", "compute_capability": "8.6", "num_sms": 46, "memory_gb": 8,
     "match": [r"RTX 3070(?! Ti)(?!.*Laptop)"],
     "figures": {"clock_mhz": [1725, "NVIDIA GeForce RTX 3070 specifications (boost); ncu max_gpu_frequency", U],
                 "memory_bandwidth": [448, "256-bit GDDR6 at 14 Gbps: 256 × 14 / 8 (not in gpu-facts)", U],
                 "l2": [4, "ncu device__attribute_l2_cache_size 4,194,304 B (not in gpu-facts)", U],
                 "vector.fp64": [0.317, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [20.31, "5,888 FP32 lanes × 2 × 1.725 GHz", U],
                 "matrix.tf32": [20.31, "46 SMs × 256 FLOP/clk × 1.725 GHz, dense (as RTX 3090)", U],
                 "matrix.bf16": [40.63, "46 SMs × 512 FLOP/clk (FP32 accumulate, as PyTorch uses) × 1.725 GHz", U],
                 "matrix.fp16": [40.63, "46 SMs × 512 FLOP/clk (FP32 accumulate, as PyTorch uses) × 1.725 GHz", U],
                 "matrix.int8": [162.5, "46 SMs × 2048 OP/clk × 1.725 GHz, dense (as RTX 3090)", U]}},
    # RTX 3060 (desktop, 12 GB; GA106, some boards a cut GA104): 28 SMs × 128 FP32 lanes at the 1777 MHz boost; the
    # SM count, 360 GB/s and the 2.25 MiB L2 as nsys TARGET_INFO_GPU records them (p4arth/cuda-perf-sandbox and
    # blbadger/threebody report1.sqlite); tensor rates per SM as the GA10x parts above (32 TF32 / 128 FP16 dense
    # FMA per clock per tensor core, 4 per SM, FP32 accumulate at half rate on GeForce), so each peak is
    # units × 2 × clock: FP32 3584 × 2 × 1.777 GHz = 12.74 TFLOP/s. Not the Laptop GPU (30 SMs, other clocks).
    {"name": "NVIDIA GeForce RTX 3060", "compute_capability": "8.6", "num_sms": 28, "memory_gb": 12,
     "match": [r"RTX 3060(?! Ti)(?! Laptop)"],
     "figures": {"clock_mhz": [1777, "NVIDIA GeForce RTX 3060 specifications (boost)", U],
                 "memory_bandwidth": [360, "nsys TARGET_INFO_GPU memoryBandwidth 360,048,000,000 B/s"],
                 "l2": [2.25, "nsys TARGET_INFO_GPU l2CacheSize 2,359,296 B"],
                 "vector.fp64": [0.2, "1/64 of FP32 (GA10x)", U],
                 "vector.fp32": [12.74, "3584 FP32 lanes × 2 × 1.777 GHz"],
                 "matrix.tf32": [12.74, "112 tensor cores × 32 TF32 FMA/clk × 2 × 1.777 GHz, dense", U],
                 "matrix.bf16": [25.5, "112 TC × 64 FMA/clk (FP32 accumulate, as PyTorch uses) × 2 × 1.777 GHz", U],
                 "matrix.fp16": [25.5, "112 TC × 64 FMA/clk (FP32 accumulate, as PyTorch uses) × 2 × 1.777 GHz",
                                 U]}},
    {"name": "NVIDIA RTX A5000", "compute_capability": "8.6", "num_sms": 64, "memory_gb": 24,
     "match": [r"RTX A5000(?!.*(?:Laptop|Mobile))"],
     "figures": {"clock_mhz": [1695, "NVIDIA RTX A5000 datasheet (boost)", U],
                 "memory_bandwidth": [768, "NVIDIA RTX A5000 datasheet"], "l2": [6, "GA102 whitepaper"],
                 "vector.fp64": [0.43, "1/64 of FP32 (GA10x)", U], "vector.fp32": [27.8, "NVIDIA RTX A5000 datasheet"],
                 "matrix.bf16": [111.1, "NVIDIA RTX A5000 datasheet (222.2 sparse), dense"],
                 "matrix.fp16": [111.1, "NVIDIA RTX A5000 datasheet (222.2 sparse), dense"]}},
    {"name": "NVIDIA RTX A6000", "compute_capability": "8.6", "num_sms": 84, "memory_gb": 48,
     "match": [r"RTX A6000(?!.*(?:Laptop|Mobile|Ada))"],
     "figures": {"clock_mhz": [1800, "NVIDIA RTX A6000 datasheet (boost)", U],
                 "memory_bandwidth": [768, "NVIDIA RTX A6000 datasheet"], "l2": [6, "GA102 whitepaper"],
                 "vector.fp64": [0.6, "1/64 of FP32 (GA10x)", U], "vector.fp32": [38.7, "NVIDIA RTX A6000 datasheet"],
                 "matrix.bf16": [154.8, "NVIDIA RTX A6000 datasheet (309.7 sparse), dense"],
                 "matrix.fp16": [154.8, "NVIDIA RTX A6000 datasheet (309.7 sparse), dense"]}},
    # RTX 6000 Ada Generation (AD102 workstation card): 142 SMs, 18,176 FP32 / 568 tensor cores, 48 GB GDDR6 on 384
    # bits at 960 GB/s, FP32 91.1 TFLOPS (NVIDIA's published specifications as tabled by grafikkarten.com, "NVIDIA
    # RTX 6000 Grafikkarte der Ada-Generation": source "RTX6000ADA"); boost 2,505 MHz and 96 MB L2 (cputronic.com's
    # RTX 6000 Ada page; 18,176 × 2 × 2.505 GHz = 91.06). Its dense tensor peaks were not found in a datasheet copy:
    # unknown, not scaled from another Ada part (GeForce and L40 / L40S rates differ by 2×).
    {"name": "NVIDIA RTX 6000 Ada Generation", "compute_capability": "8.9", "num_sms": 142, "memory_gb": 48,
     "match": [r"RTX 6000 Ada"],
     "figures": {"clock_mhz": [2505, "cputronic.com RTX 6000 Ada (boost)", U],
                 "memory_bandwidth": [960, "RTX6000ADA (384-bit GDDR6 at 20 Gbps)"],
                 "l2": [96, "cputronic.com RTX 6000 Ada", U], "vector.fp64": [1.42, "1/64 of FP32 (Ada)", U],
                 "vector.fp32": [91.1, "RTX6000ADA"]}},
    # Pascal / Volta / Kepler parts of older public traces (nvprof CSV and .nvvp of CUDA 8–10 course and paper
    # repositories). Not in gpu-facts; each peak is units × FLOP/clk × boost clock from NVIDIA's launch figures.
    # GeForce GTX 1080 Ti (GP102-350, CC 6.1): 28 SMs × 128 FP32 lanes = 3,584 CUDA cores at 1,582 MHz boost, 11 GB
    # GDDR5X on 352 bits at 11 Gbps = 484 GB/s, 11 of GP102's 12 L2 slices of 256 KiB = 2.75 MiB (NVIDIA's GTX
    # 1080 Ti launch specifications, GDC 2017, as tabled by gecid.com / gamegpu.com: source "1080TI"). FP32
    # 3,584 × 2 × 1.582 GHz = 11.34 TFLOP/s (NVIDIA: 11.3); GP102 runs FP64 at 1/32 and FP16 at 1/64 of FP32.
    {"name": "NVIDIA GeForce GTX 1080 Ti", "compute_capability": "6.1", "num_sms": 28, "memory_gb": 11,
     "match": [r"GTX 1080 Ti"],
     "figures": {"clock_mhz": [1582, "1080TI (boost)"],
                 "memory_bandwidth": [484, "1080TI (352-bit GDDR5X at 11 Gbps: 352 × 11 / 8)"],
                 "l2": [2.75, "1080TI (11 × 256 KiB)", U],
                 "vector.fp64": [0.354, "1/32 of FP32 (GP102)", U],
                 "vector.fp32": [11.34, "3,584 FP32 lanes × 2 × 1.582 GHz"],
                 "vector.fp16": [0.177, "1/64 of FP32 (GP102)", U]}},
    # GeForce GTX 1060 6GB (GP106, CC 6.1): 10 SMs × 128 = 1,280 CUDA cores at 1,708 MHz boost, 192-bit GDDR5 at
    # 8 Gbps = 192 GB/s, 1.5 MiB L2 (NVIDIA's GTX 1060 specifications: source "1060"). Only the name stating 6GB: the
    # 3GB card has 9 SMs, and a bare "GeForce GTX 1060" may be a laptop part (other clocks). Later 6GB boards with
    # 9 Gbps memory (216 GB/s) or a GP104 die carry the same name: the bandwidth is marked uncertain.
    {"name": "NVIDIA GeForce GTX 1060 6GB", "compute_capability": "6.1", "num_sms": 10, "memory_gb": 6,
     "match": [r"GTX 1060 6GB"],
     "figures": {"clock_mhz": [1708, "1060 (boost)"],
                 "memory_bandwidth": [192, "1060 (192-bit GDDR5 at 8 Gbps; 9 Gbps boards: 216)", U],
                 "l2": [1.5, "1060 (GP106)", U],
                 "vector.fp64": [0.137, "1/32 of FP32 (GP106)", U],
                 "vector.fp32": [4.37, "1,280 FP32 lanes × 2 × 1.708 GHz"],
                 "vector.fp16": [0.068, "1/64 of FP32 (GP106)", U]}},
    # NVIDIA TITAN V (GV100, CC 7.0): 80 SMs × 64 FP32 lanes = 5,120 CUDA cores and 640 tensor cores at 1,455 MHz
    # boost; 12 GB HBM2 on 3,072 bits at 1.7 Gbps = 652.8 GB/s; 4.5 MiB L2 (NVIDIA's TITAN V specifications as
    # tabled by AnandTech's "Titan V Deep Learning Deep Dive", 2018: source "TITANV"). Peaks at the boost clock:
    # FP32 5,120 × 2 × 1.455 = 14.9, FP64 half that, tensor 640 × 64 FMA × 2 × 1.455 = 119.2 (NVIDIA prints 13.8 /
    # 6.9 / 110, figures at ~1.35 GHz: uncertain). Not the TITAN V CEO Edition (32 GB, 4,096-bit HBM2).
    {"name": "NVIDIA TITAN V", "compute_capability": "7.0", "num_sms": 80, "memory_gb": 12,
     "match": [r"TITAN V(?![A-Za-z0-9])(?!.*CEO)"],
     "figures": {"clock_mhz": [1455, "TITANV (boost)"],
                 "memory_bandwidth": [652.8, "TITANV (3,072-bit HBM2 at 1.7 Gbps)"], "l2": [4.5, "TITANV"],
                 "vector.fp64": [7.45, "5,120 × 2 × 1.455 GHz / 2 (NVIDIA: 6.9)", U],
                 "vector.fp32": [14.9, "5,120 × 2 × 1.455 GHz (NVIDIA: 13.8)", U],
                 "matrix.fp16": [119.2, "640 tensor cores × 128 FLOP/clk × 1.455 GHz (NVIDIA: 110)", U]}},
    # Tesla K20m / K20c / K20 (GK110, CC 3.5): 13 SMX × 192 = 2,496 CUDA cores at 706 MHz (no boost), 5 GB GDDR5 on
    # 320 bits = 208 GB/s; 3.52 TFLOP/s FP32 (2,496 × 2 × 0.706), 1.17 FP64 (1/3 rate) — NVIDIA's Tesla K20
    # specifications (as listed by Microway's "Tesla K20 GPU Accelerator up close", 2013: source "K20"). Not the
    # K20X (14 SMX, 6 GB, 250 GB/s).
    {"name": "NVIDIA Tesla K20m", "compute_capability": "3.5", "num_sms": 13, "memory_gb": 5,
     "match": [r"\bK20[cm]?\b"],
     "figures": {"clock_mhz": [706, "K20"], "memory_bandwidth": [208, "K20"],
                 "l2": [1.25, "GK110's 256 KiB per 64-bit memory controller × 5 (320-bit bus; K20X: 6, 1.5 MiB)", U],
                 "vector.fp64": [1.17, "K20"], "vector.fp32": [3.52, "K20 (2,496 × 2 × 0.706 GHz)"]}},
]
