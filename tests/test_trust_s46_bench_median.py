"""The benchmark's repeated measurements (benchmarks/run.py): each reported figure is the median of its runs, taken
per measure, and a failed run is never hidden behind a median."""

import importlib.util
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"


def _run_module():
    spec = importlib.util.spec_from_file_location("bench_run_s46", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_median_per_measure_and_runs_kept():
    m = _run_module()
    runs = [{"wall_s": 12.29, "cpu_s": 12.63, "peak_rss_mb": 1584.0, "rc": 0},  # the outlier right after HTA
            {"wall_s": 6.87, "cpu_s": 8.25, "peak_rss_mb": 1630.0, "rc": 0},
            {"wall_s": 6.66, "cpu_s": 8.04, "peak_rss_mb": 1610.0, "rc": 0}]
    got = m.median_run(runs)
    # by hand: sorted walls 6.66, 6.87, 12.29 → 6.87; CPUs 8.04, 8.25, 12.63 → 8.25; RSS 1584, 1610, 1630 → 1610
    assert (got["wall_s"], got["cpu_s"], got["peak_rss_mb"]) == (6.87, 8.25, 1610.0)
    assert [r["wall_s"] for r in got["runs"]] == [12.29, 6.87, 6.66]


def test_failed_run_reported_not_averaged_away():
    m = _run_module()
    runs = [{"wall_s": 1.0, "cpu_s": 1.0, "peak_rss_mb": 10.0, "rc": 0},
            {"wall_s": 0.2, "cpu_s": 0.2, "peak_rss_mb": 10.0, "rc": 2, "error": "bad file"},
            {"wall_s": 1.1, "cpu_s": 1.1, "peak_rss_mb": 10.0, "rc": 0}]
    assert m.median_run(runs)["error"] == "bad file"
