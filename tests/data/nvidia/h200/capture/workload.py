"""Small PyTorch workload profiled with torch.profiler (Kineto trace) for gpulens's H200 test data.

Kernels: a bf16 GEMM (tensor cores), a saxpy-like elementwise op over ~134 MB, layernorm + softmax, a tiny-grid
kernel, over a few steps. Writes ``$OUT/h200_kineto.pt.trace.json.gz`` (< 2 MB). ``--cpu`` dry-runs it on the CPU.
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
    out = Path(os.environ.get("OUT", "/tmp/devcap_out"))
    out.mkdir(parents=True, exist_ok=True)
    n = 1 << 12 if not cpu else 256
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    x = torch.randn((1 << 24) if not cpu else 1 << 12, device=dev)  # 64 MB in + 64 MB out ≈ 134 MB moved
    y = torch.randn_like(x)
    h = torch.randn(8192 if not cpu else 64, 1024, device=dev)
    ln = torch.nn.LayerNorm(1024, device=dev)
    tiny = torch.randn(32, device=dev)
    acts = [ProfilerActivity.CPU] + ([] if cpu else [ProfilerActivity.CUDA])
    with torch.inference_mode(), profile(activities=acts, record_shapes=True, with_flops=True,
                 schedule=schedule(wait=1, warmup=1, active=3)) as prof:
        for _ in range(5):
            c = a @ b
            y = 2.0 * x + y
            s = torch.softmax(ln(h), dim=-1)
            t = tiny * 3.0 + 1.0
            if not cpu:
                torch.cuda.synchronize()
            prof.step()
    raw = out / "h200_kineto.pt.trace.json"
    prof.export_chrome_trace(str(raw))
    with open(raw, "rb") as f, gzip.open(str(raw) + ".gz", "wb", compresslevel=9) as g:
        shutil.copyfileobj(f, g)
    raw.unlink()
    ev = json.load(gzip.open(str(raw) + ".gz"))["traceEvents"]
    print("kineto events:", len(ev), "kernels:", sum(e.get("cat") == "kernel" for e in ev), float(c.sum()),
          float(s.sum()), float(t.sum()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
