"""Overhead of gpulens.profile() over bare torch.profiler on a CPU training loop, and the telemetry sampler's CPU use.

Three ways of running the same loop (an MLP 256→512→512→10, batch 64, SGD; ``--steps`` steps, the last
``--record`` of them recorded after ``--warmup`` warm-up steps, shapes + FLOPs on, trace exported as .json.gz):

* ``torch``     bare ``torch.profiler.profile`` with the same schedule and an ``on_trace_ready`` that exports the trace;
* ``gpulens``   ``gpulens.profile()`` (telemetry "auto": on a machine without a GPU driver no thread runs);
* ``gpulens+s`` ``gpulens.profile()`` with the sampler thread running (a backend answering 8 quantities without a
  driver call, every ``--interval-ms``), to price the thread itself.

Runs alternate ``--repeat`` times (the order rotated each round, garbage collected before each run); the median wall time of the loop (the user's block, trace export
included since torch calls it inside ``prof.step()``) is compared. gpulens' post-processing after the block
(collect, analyze, write JSON/HTML) is reported separately. The sampler's CPU use is the sampling thread's own
``time.thread_time_ns`` over a ``--sampler-seconds`` run, as a share of one core.

    python benchmarks/profile_overhead.py [--repeat 12] [--steps 60]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import tempfile
import time
from pathlib import Path

import torch

import gpulens
from gpulens.profiler.telemetry import Sampler


class FreeBackend:
    """A telemetry backend with 8 quantities that cost nothing to read (prices the sampler's own machinery)."""

    name = "free"

    def devices(self):
        return [0]

    def readers(self, device):
        return {q: (lambda: 1.0) for q in ("gpu_util", "mem_util", "sm_clock", "mem_clock", "power", "temperature",
                                           "memory_used", "clock_event_reasons")}

    def close(self):
        pass


def make_workload():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))

    def step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    return step


def _loop(step, prof, n) -> tuple[float, float]:
    """(wall s, process CPU s) of n profiled steps."""
    w0, c0 = time.perf_counter(), time.process_time()
    for _ in range(n):
        step()
        prof.step()
    return time.perf_counter() - w0, time.process_time() - c0


def run_torch(args, out: Path) -> tuple[tuple[float, float], float]:
    step = make_workload()
    sched = torch.profiler.schedule(wait=args.steps - args.warmup - args.record, warmup=args.warmup,
                                    active=args.record, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched, record_shapes=True,
                                with_flops=True,
                                on_trace_ready=lambda p: p.export_chrome_trace(str(out / "t.pt.trace.json.gz"))) as p:
        loop = _loop(step, p, args.steps)
    return loop, 0.0


def run_gpulens(args, out: Path, telemetry) -> tuple[tuple[float, float], float]:
    step = make_workload()
    with gpulens.profile(out=out, steps=args.record, warmup=args.warmup, wait=args.steps - args.warmup - args.record,
                         telemetry=telemetry, telemetry_interval_s=args.interval_ms / 1000) as prof:
        loop = _loop(step, prof, args.steps)
    assert prof.error is None, prof.error
    return loop, prof.timings_ns["finalize"] / 1e9


def sampler_cpu(seconds: float, interval_ms: float) -> tuple[float, int]:
    s = Sampler(FreeBackend(), interval_s=interval_ms / 1000).start()
    time.sleep(seconds)
    st = s.stop()
    return st["cpu_ns"] / 1e9 / seconds, st["samples"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=12)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--record", type=int, default=5)
    ap.add_argument("--interval-ms", type=float, default=100.0)
    ap.add_argument("--sampler-seconds", type=float, default=5.0)
    ap.add_argument("--threads", type=int, default=1, help="torch intra-op threads (1: no OpenMP spinning)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    step = make_workload()
    for _ in range(10):  # warm torch's kernels and allocator before any timed run
        step()
    bare_t0 = time.perf_counter()
    for _ in range(args.steps):
        step()
    bare = time.perf_counter() - bare_t0
    runs = {"torch": [], "gpulens": [], "gpulens+s": []}
    post = {"gpulens": [], "gpulens+s": []}
    with tempfile.TemporaryDirectory() as tmp:
        names = list(runs)
        for i in range(args.repeat):
            for name in names[i % 3:] + names[:i % 3]:  # rotate the order so no config always follows another
                gc.collect()  # free the previous run's reports before timing the next loop
                out = Path(tmp) / f"{name}-{i}"
                out.mkdir()
                if name == "torch":
                    block, fin = run_torch(args, out)
                else:
                    block, fin = run_gpulens(args, out, "auto" if name == "gpulens" else FreeBackend())
                    post[name].append(fin)
                runs[name].append(block)
    print(f"workload: {args.steps} steps of an MLP 256-512-512-10, batch 64 (CPU, {torch.get_num_threads()} threads);"
          f" {args.record} recorded after {args.warmup} warm-up; {args.repeat} alternating runs; medians")
    print(f"  no profiler        {bare * 1e3:8.1f} ms wall (single run, for scale)")
    for i, what in ((0, "wall"), (1, "process CPU")):
        med = {k: statistics.median(x[i] for x in v) for k, v in runs.items()}
        for k, v in med.items():
            rel = (v / med["torch"] - 1) * 100
            print(f"  {k:<10} {what:<12} {v * 1e3:8.1f} ms  ({rel:+.1f} % vs bare torch.profiler; runs "
                  + ", ".join(f"{x[i] * 1e3:.0f}" for x in runs[k]) + ")")
    for k, v in post.items():
        print(f"  {k:<10} after the block (FLOP counts, collect, analyze, write reports): "
              f"{statistics.median(v) * 1e3:.1f} ms")
    share, n = sampler_cpu(args.sampler_seconds, args.interval_ms)
    print(f"sampler thread: {share * 100:.3f} % of one core over {args.sampler_seconds:.0f} s "
          f"({n} rounds of 8 quantities at {args.interval_ms:.0f} ms; driver call cost not included)")


if __name__ == "__main__":
    main()
