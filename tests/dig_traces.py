"""Hand-built Kineto (PyTorch Profiler, CUDA dialect) traces for the dig analyses' tests (diff, op roll-up,
annotations, distributions, memory, critical path). Every event is placed explicitly by the test, so expected
values can be derived by hand from what the test wrote. Times are in µs as Kineto writes them.
"""

from __future__ import annotations

import json
from pathlib import Path

H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "computeMajor": 9, "computeMinor": 0, "numSms": 132,
        "totalGlobalMem": 85031714816, "warpSize": 32}
MI300X = {"id": 0, "name": "AMD Instinct MI300X", "computeMajor": 9, "computeMinor": 4, "numSms": 304,
          "totalGlobalMem": 205822885888, "warpSize": 64}


class KTrace:
    """Accumulates trace events; :meth:`write` saves them as a Kineto JSON file."""

    def __init__(self, device: dict | None = None, rank: int | None = None):
        self.ev: list[dict] = []
        self.device = device or H100
        self.rank = rank
        self.corr = 1000
        self.ext = 1

    def op(self, name: str, ts: float, dur: float, dims: list | None = None, types: list | None = None,
           tid: int = 1) -> int:
        """A cpu_op; returns its External id."""
        ext = self.ext
        self.ext += 1
        args = {"External id": ext}
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types or []
        self.ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                        "args": args})
        return ext

    def launch(self, ext: int, ts: float, kernels: list[tuple[str, float, float]], stream: int = 7,
               api: str = "cudaLaunchKernel", dur: float = 4.0, tid: int = 1, cat: str = "kernel",
               linked: bool = True) -> int:
        """A runtime launch call at ``ts`` (host) enqueuing ``kernels`` = [(name, gpu_ts, gpu_dur)]; returns the
        correlation id. ``linked=False`` leaves out the External id (as for CUDA graph replays: the kernels link to
        the launch by correlation only)."""
        self.corr += 1
        c = self.corr
        rargs = {"correlation": c, "External id": ext} if linked else {"correlation": c}
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": api, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                        "args": rargs})
        for name, gts, gdur in kernels:
            args = {"device": 0, "stream": stream, "correlation": c, "grid": [132, 1, 1], "block": [256, 1, 1]}
            if linked:
                args["External id"] = ext
            if cat == "gpu_memcpy":
                args.update({"bytes": 1 << 20})
            self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": gts, "dur": gdur,
                            "args": args})
        return c

    def sync(self, ts: float, dur: float, name: str = "cudaDeviceSynchronize", tid: int = 1) -> None:
        """A host-side synchronisation runtime call."""
        self.corr += 1
        self.ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                        "args": {"correlation": self.corr}})

    def annotation(self, name: str, ts: float, dur: float, cat: str = "user_annotation", tid: int = 1,
                   gpu: bool = False) -> None:
        """A host (``user_annotation``) or GPU-side (``gpu_user_annotation``, stream 7) range."""
        if gpu:
            self.ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": name, "pid": 0, "tid": 7, "ts": ts,
                            "dur": dur, "args": {"device": 0, "stream": 7}})
        else:
            self.ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur,
                            "args": {}})

    def memory(self, ts: float, allocated: int, reserved: int, nbytes: int, device: int = 0) -> None:
        """A ``[memory]`` instant event (profile_memory=True) after an allocation of ``nbytes``."""
        self.ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1,
                        "ts": ts, "args": {"Total Reserved": reserved, "Total Allocated": allocated,
                                           "Bytes": nbytes, "Addr": 140000000 + len(self.ev), "Device Id": device,
                                           "Device Type": 1}})

    def write(self, path: Path) -> Path:
        doc = {"schemaVersion": 1, "deviceProperties": [self.device], "traceEvents": self.ev}
        if self.rank is not None:
            doc["distributedInfo"] = {"backend": "nccl", "rank": self.rank, "world_size": 2}
        Path(path).write_text(json.dumps(doc))
        return Path(path)


def kernel_durations(path: Path, cats: tuple[str, ...] = ("kernel", "gpu_memcpy", "gpu_memset")) -> dict[str, float]:
    """Sum of ``dur`` (µs) per event name over the GPU events of a Kineto file (gzip or plain), read with json."""
    import gzip

    raw = Path(path).read_bytes()
    doc = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
    out: dict[str, float] = {}
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in cats:
            out[e["name"]] = out.get(e["name"], 0.0) + float(e["dur"])
    return out


def interval_union(intervals) -> list[list]:
    """Sorted (start, end) intervals merged where they overlap (a hand-written union, independent of gpulens)."""
    out: list[list] = []
    for s, e in intervals:
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out
