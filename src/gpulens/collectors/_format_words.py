"""Each collector's format in words for people (console, error lines): ``"Nsight Systems SQLite export"``, never
the collector's id (``nsys_sqlite``), which stays the machine-readable name in JSON reports (``collectors``) and the
value of ``--format``.
"""

from __future__ import annotations

#: collector id → the format it reads, as its profiler's documentation names it.
FORMAT_WORDS: dict[str, str] = {
    "kineto": "PyTorch profiler (Kineto) trace",
    "ncu_csv": "Nsight Compute CSV",
    "ncu_rep": "Nsight Compute report (.ncu-rep)",
    "ncu_text": "Nsight Compute text report",
    "nsys_gpu_trace": "Nsight Systems cuda_gpu_trace CSV",
    "nsys_sqlite": "Nsight Systems SQLite export",
    "nsys_stats": "Nsight Systems kernel summary CSV",
    "nvprof_csv": "nvprof GPU trace CSV",
    "nvprof_sqlite": "nvprof / Visual Profiler output (.nvvp)",
    "nvprof_summary": "nvprof summary",
    "nvprof_trace_text": "nvprof GPU trace text",
    "omniperf": "rocprofiler-compute (Omniperf) workload",
    "omniperf_sysinfo": "rocprofiler-compute sysinfo.csv",
    "omniperf_roofline": "rocprofiler-compute roofline.csv",
    "rocpd": "rocpd SQLite database",
    "rocpd_summary": "rocpd summary text",
    "rocprof_results_txt": "rocprof results.txt",
    "rocprof_v1": "rocprof v1/v2 CSV",
    "rocprof_stats": "rocprof kernel statistics CSV (*.stats.csv)",
    "rocminfo": "rocminfo text",
    "rocprof_v1_dir": "rocprof v1 output folder",
    "rocprof_v1_text": "rocprof v1 trace text",
    "rocprof_v1_json": "rocprof v1 results.json",
    "rocprof_v1_db": "rocprof v1 results.db",
    "rocprofv2_tracer": "rocprofv2 tracer output",
    "rocprofv3_csv": "rocprofv3 CSV",
    "rocprofv3_csv_dir": "rocprofv3 CSV folder",
    "rocprofv3_json": "rocprofv3 JSON",
    "rocprofv3_summary": "rocprofv3 summary text",
    "rpd": "rocmProfileData (RPD) trace",
}


def format_words(name: str) -> str:
    """The format collector ``name`` reads, in words (:data:`FORMAT_WORDS`); an unknown id (a collector added
    without words, a report from another gpulens version) as it is."""
    return FORMAT_WORDS.get(str(name), str(name))
