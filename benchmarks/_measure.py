"""One measurement in a fresh process: load a trace with one tool, print one JSON line.

    python benchmarks/_measure.py gpulens PATH [--no-cache]
    python benchmarks/_measure.py hta TRACE_DIR [--breakdowns]

Prints ``{"tool", "wall_s", "cpu_s", "peak_rss_mb", "rows"}``: wall and CPU seconds of the load call alone (imports
excluded for both tools), peak resident memory of the whole process (``ru_maxrss``, includes the interpreter and
libraries), and the rows the tool built. ``--breakdowns`` (HTA) also times ``get_temporal_breakdown`` and
``get_gpu_kernel_breakdown`` after the load; the load call alone is then reported as ``load_wall_s``,
``load_cpu_s`` and ``load_peak_rss_mb``.
"""

from __future__ import annotations

import json
import resource
import sys
import time


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    tool, path = sys.argv[1], sys.argv[2]
    if tool == "gpulens":
        import gpulens

        use_cache = "--no-cache" not in sys.argv
        t0, c0 = time.perf_counter(), _cpu()
        tl = gpulens.collect(path, cache=use_cache)
        rows = len(tl.events)
    elif tool == "hta":
        import logging

        logging.disable(logging.INFO)
        from hta.trace_analysis import TraceAnalysis

        t0, c0 = time.perf_counter(), _cpu()
        ta = TraceAnalysis(trace_dir=path)
        load = {"load_wall_s": round(time.perf_counter() - t0, 3), "load_cpu_s": round(_cpu() - c0, 3),
                "load_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
        if "--breakdowns" in sys.argv:
            ta.get_temporal_breakdown(visualize=False)
            ta.get_gpu_kernel_breakdown(visualize=False)
        rows = sum(len(ta.t.get_trace(r)) for r in ta.t.get_ranks())
    else:
        raise SystemExit(f"unknown tool {tool}")
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"tool": tool, "wall_s": round(wall, 3), "cpu_s": round(cpu, 3), "peak_rss_mb": round(peak, 1),
                      "rows": rows, **(load if tool == "hta" else {})}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
