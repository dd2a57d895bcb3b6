"""Small PyTorch workload profiled with torch.profiler (Kineto trace) for gpulens's H200 test data.

Per step (5 steps: wait 1, warmup 1, active 3): a bf16 GEMM 4096³ (tensor cores), y = 2·x + y over 2²⁴ fp32
(mul + add kernels), layernorm + softmax on 8192×1024 fp32, a 32-element tiny kernel, a pinned host→device copy
of 64 MiB and a device→host copy of 4 MiB, a bf16 GEMM 2048³ on a side stream overlapping the copy, and one replay
of a CUDA graph holding 3 kernels (relu, mul, add on 2²⁰ fp32). ``--cpu`` dry-runs it on the CPU.
Writes ``$OUT/h200_kineto.pt.trace.json.gz``.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def main() -> int:
    cpu = "--cpu" in sys.argv
    dev = "cpu" if cpu else "cuda"
    out = Path(os.environ.get("CAP", os.environ.get("OUT", "/tmp/devcap_out")))
    out.mkdir(parents=True, exist_ok=True)
    n = 1 << 12 if not cpu else 256
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    a2 = torch.randn(n // 2, n // 2, device=dev, dtype=torch.bfloat16)
    x = torch.randn((1 << 24) if not cpu else 1 << 12, device=dev)
    y = torch.randn_like(x)
    h = torch.randn(8192 if not cpu else 64, 1024, device=dev)
    ln = torch.nn.LayerNorm(1024, device=dev)
    tiny = torch.randn(32, device=dev)
    host = torch.randn(1 << 24 if not cpu else 1 << 10)  # 64 MiB fp32
    if not cpu:
        host = host.pin_memory()
    g_in = torch.randn(1 << 20 if not cpu else 1 << 8, device=dev)
    side = torch.cuda.Stream() if not cpu else None
    graph = None
    if not cpu:
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(2):
                g_out = (torch.relu(g_in) * 2.0) + 1.0
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            g_out = (torch.relu(g_in) * 2.0) + 1.0
        torch.cuda.synchronize()
    acts = [ProfilerActivity.CPU] + ([] if cpu else [ProfilerActivity.CUDA])
    with torch.inference_mode(), profile(activities=acts, record_shapes=True, with_flops=True,
                                         schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            c = a @ b
            y = 2.0 * x + y
            s_ = torch.softmax(ln(h), dim=-1)
            t = tiny * 3.0 + 1.0
            if not cpu:
                dev_copy = host.to(dev, non_blocking=True)
                with torch.cuda.stream(side):
                    c2 = a2 @ a2
                back = c[:1024].float().to("cpu")
                graph.replay()
                torch.cuda.synchronize()
            prof.step()
    raw = out / "h200_kineto.pt.trace.json"
    prof.export_chrome_trace(str(raw))
    with open(raw, "rb") as f, gzip.open(str(raw) + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    raw.unlink()
    ev = json.load(gzip.open(str(raw) + ".gz"))["traceEvents"]
    print("kineto events:", len(ev), "kernels:", sum(e.get("cat") == "kernel" for e in ev), float(c.sum()),
          float(s_.sum()), float(t.sum()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
