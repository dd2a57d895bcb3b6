"""How often does `gpulens gate` say REGRESSED / AMBIGUOUS / IMPROVED for a *whole run*? A seeded simulation.

    python benchmarks/gate_power.py                    # 1000 trials per scenario and noise model
    python benchmarks/gate_power.py --trials 200 --repeats 10 --noise 0.02 --seed 7

Each trial draws ``repeats`` baseline runs and ``repeats`` candidate runs of a synthetic workload shaped after the
demo trace shipped with gpulens (BERT-small inference on an H100: 11 kernels, per-kernel time and launches as its
hotspots table reports them; the largest kernel holds 32 % of kernel time), builds the gate's metrics exactly as
:func:`gpulens.gate.runs.collect_runs` would (whole-run timings, counts, one ``kernel:<name>`` timing per kernel
with its share and calls), and runs the real decision (:func:`gpulens.gate.compare.run_gate`). It counts the
*run-level* verdict — what CI sees — and, per scenario, how often the changed kernel's own row is REGRESSED.

Scenarios: ``A/A`` (no change); ``hot +5 %`` / ``hot +10 %`` (the 32 % kernel slower); ``20 % kernel +5 %``
(the profile rescaled so that the changed kernel holds exactly 20 % of kernel time); ``all −3 %`` (every time 3 %
shorter); ``extra launch`` (one more launch of a small elementwise kernel per run: a count change).

Noise models (``--noise`` σ, lognormal): ``kernel`` — every kernel's time in every run has its own independent
factor ``exp(σ·N(0,1))`` (the host idle time too); ``run`` — one factor per run shared by everything (clocks,
thermal state) times an independent per-kernel factor of σ/4.

Rates are printed with 95 % Wilson score intervals (``scipy.stats.binomtest(...).proportion_ci``).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import time
from collections import Counter

import numpy as np
from scipy.stats import binomtest

from gpulens.gate.baseline import Baseline
from gpulens.gate.compare import run_gate
from gpulens.gate.config import GateConfig
from gpulens.gate.runs import KERNEL_PREFIX, Metric, RunSet

#: (name, effective ns per run, launches per run): the demo trace's hotspots (gpulens analyze --demo).
PROFILE = (("cutlass_80_wmma_tensorop_bf16_gemm", 98718, 17), ("cutlass_80_tensorop_bf16_gemm_256x128", 41280, 1),
           ("flash_fwd_kernel", 37408, 4), ("sm90_xmma_gemm_bf16_64x64", 33089, 4),
           ("vectorized_layer_norm_kernel", 30912, 10), ("cutlass_80_gemm_relu_64x64", 24511, 4),
           ("elementwise_add", 16448, 10), ("indexSelectLargeIndex", 9824, 3), ("elementwise_gelu", 9599, 5),
           ("reduce_kernel", 3648, 1), ("elementwise_compare", 1760, 1))
MEMCPY_NS, MEMCPY_BYTES = 2240, 1          # one copy
IDLE_NS = 3_598_388                        # span − busy: the host-bound gaps of the demo run
STEP_EXTRA_NS = 4_426_114 - 3_907_825      # ProfilerStep time outside the GPU span
SMALL = 6                                  # index of the kernel given an extra launch ("elementwise_add")
ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
       "runtime": None, "torch": None, "collectors": ["kineto"], "tool_version": None, "sm_clock_mhz": None}


def _profile(hot_share: float | None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    names = [p[0] for p in PROFILE]
    t = np.array([p[1] for p in PROFILE], dtype=float)
    calls = np.array([p[2] for p in PROFILE], dtype=float)
    if hot_share is not None:  # rescale kernel 0 so it holds exactly hot_share of kernel time
        rest = t[1:].sum()
        t[0] = hot_share * rest / (1 - hot_share)
    return t, calls, names


def _draw(rng, n: int, model: str, sigma: float, t: np.ndarray, scale: np.ndarray, idle_scale: float):
    """(n, K) kernel times and (n,) idle / memcpy / step-extra times."""
    k = t.size
    if model == "kernel":
        f = np.exp(sigma * rng.standard_normal((n, k)))
        g = np.exp(sigma * rng.standard_normal((n, 3)))
    else:
        run = sigma * rng.standard_normal((n, 1))
        f = np.exp(run + sigma / 4 * rng.standard_normal((n, k)))
        g = np.exp(run + sigma / 4 * rng.standard_normal((n, 3)))
    kt = t * scale * f
    return kt, IDLE_NS * idle_scale * g[:, 0], MEMCPY_NS * g[:, 1], STEP_EXTRA_NS * idle_scale * g[:, 2]


def _metrics(kt, idle, mem, extra, calls, names) -> dict[str, Metric]:
    ktime = kt.sum(axis=1)
    busy = ktime + mem
    span = busy + idle
    n = kt.shape[0]
    out = {"step_ns": Metric("step_ns", "timing", "ns", (span + extra).tolist()),
           "span_ns": Metric("span_ns", "timing", "ns", span.tolist()),
           "gpu_busy_ns": Metric("gpu_busy_ns", "timing", "ns", busy.tolist()),
           "kernel_busy_ns": Metric("kernel_busy_ns", "timing", "ns", ktime.tolist()),
           "kernel_time_ns": Metric("kernel_time_ns", "timing", "ns", ktime.tolist()),
           "kernel_count": Metric("kernel_count", "count", "", [float(calls.sum())] * n),
           "unique_kernels": Metric("unique_kernels", "count", "", [float(len(names))] * n),
           "launch_calls": Metric("launch_calls", "count", "", [float(calls.sum())] * n),
           "memcpy_bytes": Metric("memcpy_bytes", "count", "bytes", [float(MEMCPY_BYTES)] * n)}
    share = kt / ktime[:, None]
    for i, name in enumerate(names):
        out[KERNEL_PREFIX + name] = Metric(KERNEL_PREFIX + name, "timing", "ns", kt[:, i].tolist(), "lower",
                                           share[:, i].tolist(), [int(calls[i])] * n)
    return out


SCENARIOS = {
    "A/A": dict(),
    "hot +5 %": dict(kernel=0, factor=1.05),
    "hot +10 %": dict(kernel=0, factor=1.10),
    "20 % kernel +5 %": dict(kernel=0, factor=1.05, hot_share=0.20),
    "all −3 %": dict(all_factor=0.97),
    "extra launch": dict(extra_launch=True),
}


def simulate(scenario: str, model: str, trials: int, repeats: int, sigma: float, seed: int,
             config: GateConfig | None = None) -> dict:
    """Run ``trials`` gates of one scenario; returns run-level verdict counts and the changed kernel's REGRESSED
    count (``row_regressed``)."""
    spec = SCENARIOS[scenario]
    t, calls, names = _profile(spec.get("hot_share"))
    rng = np.random.default_rng(seed)
    cfg = config or GateConfig()
    verdicts, row_hits = Counter(), 0
    for _ in range(trials):
        kt, idle, mem, ex = _draw(rng, repeats, model, sigma, t, np.ones(t.size), 1.0)
        base = Baseline("base", "2026-01-01T00:00:00+00:00", "sim", 1, "sim", ENV, [{}] * repeats,
                        _metrics(kt, idle, mem, ex, calls, names))
        scale, idle_scale, c_calls = np.ones(t.size), 1.0, calls.copy()
        if "kernel" in spec:
            scale[spec["kernel"]] = spec["factor"]
        if "all_factor" in spec:
            scale[:], idle_scale = spec["all_factor"], spec["all_factor"]
        if spec.get("extra_launch"):
            scale[SMALL] = (calls[SMALL] + 1) / calls[SMALL]
            c_calls[SMALL] += 1
        kt, idle, mem, ex = _draw(rng, repeats, model, sigma, t, scale, idle_scale)
        cand = RunSet([{"label": f"r{i}"} for i in range(repeats)], [], ENV, "sim", 1,
                      _metrics(kt, idle, mem, ex, c_calls, names))
        res = run_gate(base, cand, cfg)
        verdicts[res.verdict] += 1
        if "kernel" in spec:
            row = next(m for m in res.metrics if m.metric == KERNEL_PREFIX + names[spec["kernel"]])
            row_hits += row.verdict == "REGRESSED"
    return {"verdicts": verdicts, "row_regressed": row_hits, "trials": trials}


def rate(k: int, n: int) -> str:
    """``k/n`` as a percentage with its 95 % Wilson interval."""
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return f"{100 * k / n:5.1f} % [{100 * ci.low:4.1f}, {100 * ci.high:5.1f}]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--noise", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=20261201)
    ap.add_argument("--models", default="kernel,run")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    a = ap.parse_args(argv)
    t0 = time.time()
    print(f"gate_power {_dt.date.today().isoformat()}: {a.trials} trials, {a.repeats} vs {a.repeats} runs, "
          f"σ = {100 * a.noise:g} % lognormal, seed {a.seed}; run-level verdict rates with 95 % Wilson CIs")
    print(f"{'noise':7}{'scenario':18}{'REGRESSED':>24}{'AMBIGUOUS':>24}{'IMPROVED':>24}{'changed kernel REGRESSED':>28}")
    for model in a.models.split(","):
        for sc in a.scenarios.split(","):
            r = simulate(sc, model, a.trials, a.repeats, a.noise, a.seed)
            v, n = r["verdicts"], r["trials"]
            row = rate(r["row_regressed"], n) if "kernel" in SCENARIOS[sc] else "—"
            print(f"{model:7}{sc:18}{rate(v['REGRESSED'], n):>24}{rate(v['AMBIGUOUS'], n):>24}"
                  f"{rate(v['IMPROVED'], n):>24}{row:>28}", flush=True)
    print(f"({time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
