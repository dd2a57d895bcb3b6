"""Generators of *variants* of every case in ../shared/cases: the same kind of input with other numbers, names,
ordering, units and format variant, each with the answer a correct tool gives computed here from the generated
values (never from gpulens). Used by tests/test_robust_case_variants.py (a few seeds each) and runnable as a probe:
``python tests/case_variants.py --seeds 30`` prints every variant whose answer differs.

Each generator takes a ``random.Random`` and a folder, writes one input there, and returns ``(path, expect)`` where
``expect`` maps a check name to its value (see :func:`check`). Times are generated in µs (Kineto) or ns (CSV,
SQLite) as the format records them; expected values are in ns.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any, Callable

NAMES = ["gemm_{}", "void at::native::vectorized_elementwise_kernel<4, {}>", "flash_fwd_{}", "Cijk_Ailk_{}_MT64",
         "triton_poi_fused_{}", "reduce_{}", "rms_norm<{}, float>", "k_{}(float*, int)", "ünï_{}", "sm90_xmma_{}"]


def _name(rng: random.Random, used: set) -> str:
    while True:
        n = rng.choice(NAMES).format(rng.randrange(1000))
        if n not in used:
            used.add(n)
            return n


def _kernel(name, ts, dur, corr=None, stream=7, device=0, **args) -> dict:
    a = {"device": device, "stream": stream, **args}
    if corr is not None:
        a["correlation"] = corr
    return {"ph": "X", "cat": "kernel", "name": name, "pid": device, "tid": f"stream {stream}", "ts": ts, "dur": dur,
            "args": a}


def _launch(name, ts, dur, corr, pid=70) -> dict:
    return {"ph": "X", "cat": "cuda_runtime", "name": name, "pid": pid, "tid": pid, "ts": ts, "dur": dur,
            "args": {"correlation": corr}}


def _serial(rng: random.Random, n: int, t0: int, gap=(1, 30), dur=(1, 80)) -> list[tuple[int, int]]:
    """``n`` (ts, dur) µs that never overlap."""
    out, t = [], t0
    for _ in range(n):
        d = rng.randint(*dur)
        out.append((t, d))
        t += d + rng.randint(*gap)
    return out


def _doc(events: list[dict], rng: random.Random, extra: dict | None = None) -> dict:
    if rng.random() < 0.5:
        rng.shuffle(events)
    return {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
            **(extra or {}), "traceEvents": events, "baseTimeNanoseconds": 1_700_000_000_000_000_000}


def _write(path: Path, text: str | bytes) -> Path:
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


# ------------------------------------------------------------------------------------------------- Kineto cases
def b02(rng, d: Path):
    """B02: gzip in 1-5 members cut at random bytes, under a .gz, .json or extension-less name."""
    used: set = set()
    times = _serial(rng, rng.randint(2, 7), 1000)
    evs = [_launch("cudaLaunchKernel", 990, 3, 1)] + [_kernel(_name(rng, used), t, du, 1 if i == 0 else None)
                                                      for i, (t, du) in enumerate(times)]
    data = json.dumps(_doc(evs, rng), indent=rng.choice([None, 1])).encode()
    cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, 4)))
    parts = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    name = rng.choice(["t.pt.trace.json.gz", "t.json", "trace", "t.json.gz"])
    p = _write(d / name, b"".join(gzip.compress(x) for x in parts))
    return p, {"kernel_count": len(times), "gpu_busy_ns": 1000 * sum(du for _, du in times)}


def b03_meta(rng, d: Path):
    """B03a: valid events, then metadata that is not JSON (unescaped quotes, bare words, hex numbers)."""
    used: set = set()
    times = _serial(rng, rng.randint(2, 5), 5000)
    evs = [_kernel(_name(rng, used), t, du) for t, du in times]
    mt, mdur, mbytes = times[-1][0] + times[-1][1] + 10, rng.randint(1, 9), rng.choice([1024, 65536, 3 << 20])
    evs.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0,
                "tid": "stream 7", "ts": mt, "dur": mdur, "args": {"device": 0, "stream": 7, "bytes": mbytes}})
    bad = rng.choice(['"INFO": ["cudaEventRecord "event_id": 64 done"]', '"datatype": ncclFloat32',
                      '"Stream": 0x7f3a', '"log": "line\nnext"'.replace("\n", "\n"), '"x": [1, 2,, 3]'])
    text = json.dumps({"schemaVersion": 1, "traceEvents": evs})[:-1] + ", " + bad + "}"
    p = _write(d / "t.json", text)
    return p, {"kernel_count": len(times), "kernel_time_ns": 1000 * sum(du for _, du in times),
               "memcpy_count": 1, "memcpy_bytes": mbytes, "warned": True, "lenient": True}


def b03_numbers(rng, d: Path):
    """B03c: bare inf / nan / -inf / Infinity / NaN in args; a memcpy of dur 0 (no bandwidth figure)."""
    used: set = set()
    times = _serial(rng, rng.randint(2, 5), 5000)
    evs = [_kernel(_name(rng, used), t, du, **{"est. achieved occupancy %": "@SPECIAL@"}) for t, du in times]
    evs.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0,
                "tid": "stream 7", "ts": times[-1][0] + times[-1][1] + 5, "dur": 0,
                "args": {"device": 0, "stream": 7, "bytes": rng.choice([200, 4096]),
                         "memory bandwidth (GB/s)": "@SPECIAL@"}})
    text = json.dumps(_doc(evs, rng))
    while "@SPECIAL@" in text:
        text = text.replace('"@SPECIAL@"', rng.choice(["inf", "-inf", "nan", "NaN", "Infinity", "-Infinity"]), 1)
    p = _write(d / "t.json", text)
    return p, {"kernel_count": len(times), "kernel_time_ns": 1000 * sum(du for _, du in times), "lenient": True,
               "no_inf_bandwidth": True}


def b04a(rng, d: Path):
    """B04a: array form without its closing ``]`` (legal), maybe a trailing comma or whitespace."""
    used: set = set()
    times = _serial(rng, rng.randint(1, 6), 100)
    evs = [_kernel(_name(rng, used), t, du) for t, du in times]
    text = json.dumps(evs, indent=rng.choice([None, 1]))
    text = text.rstrip()[:-1].rstrip() + rng.choice(["", ",", "\n", ",\n  "])
    p = _write(d / "t.json", text)
    return p, {"kernel_count": len(times), "gpu_busy_ns": 1000 * sum(du for _, du in times), "no_warning": True}


def b04b(rng, d: Path):
    """B04b: object form cut at a random byte inside the last event."""
    used: set = set()
    times = _serial(rng, rng.randint(2, 6), 100)
    evs = [_kernel(_name(rng, used), t, du) for t, du in times]
    text = json.dumps({"schemaVersion": 1, "traceEvents": evs}, indent=rng.choice([None, 1]))
    last = text.rindex('{"ph"' if '{"ph"' in text else '"ph"')
    last = text.rindex("{", 0, last + 1)
    cut = rng.randrange(last + 2, text.rindex("}", 0, text.rindex("]")))
    p = _write(d / "t.json", text[:cut])
    return p, {"kernel_count": len(times) - 1, "gpu_busy_ns": 1000 * sum(du for _, du in times[:-1]),
               "truncated": True}


def b05(rng, d: Path):
    """B05: no GPU work: metadata only (Kineto), or a header-only CSV of another format."""
    k = rng.randrange(4)
    if k == 0:
        evs = [{"ph": "M", "name": rng.choice(["process_name", "thread_name", "process_labels"]), "pid": i,
                "tid": 0, "args": {"name": f"p{i}"}} for i in range(rng.randint(1, 5))]
        p = _write(d / "t.json", json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    elif k == 1:
        p = _write(d / "kernel_trace.csv", '"Kind","Agent_Id","Queue_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
                   '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size",'
                   '"Workgroup_Size_X","Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y",'
                   '"Grid_Size_Z"' + rng.choice(["\n", "\r\n", ""]))
    elif k == 2:
        p = _write(d / "results.csv", "Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,"
                   "arch_vgpr,accum_vgpr,sgpr,wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs\n")
    else:
        evs = [_launch("cudaLaunchKernel", 10 * i, 2, i) for i in range(3)]
        evs = [dict(e, cat="cpu_op", name="aten::add") for e in evs]
        p = _write(d / "t.json", json.dumps({"schemaVersion": 1, "traceEvents": evs}))
    return p, {"exit": 5}


def b06(rng, d: Path):
    """B06: ts 0 / dur 0, negative dur, dur -1 beside real events at a random epoch."""
    T = rng.randint(1_500_000_000_000_000, 1_800_000_000_000_000)
    used: set = set()
    times = _serial(rng, rng.randint(2, 4), T)
    end = times[-1][0] + times[-1][1]
    op = {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 100, "ts": T - 5, "dur": end - T + 10,
          "args": {"External id": 1}}
    evs = [op] + [_kernel(_name(rng, used), t, du) for t, du in times]
    bad = [_kernel("k_unset", 0, 0), _kernel("k_backwards", T + 3, -rng.randint(1, 50)),
           {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": 100, "tid": 100, "ts": T + 1, "dur": -1,
            "args": {}}]
    evs += rng.sample(bad, rng.randint(1, 3))
    busy = sum(du for _, du in times)
    span = end - times[0][0]  # GPU span: first to last GPU event
    p = _write(d / "t.json", json.dumps(_doc(evs, rng)))
    return p, {"kernel_count": len(times), "gpu_busy_ns": 1000 * busy, "span_ns": 1000 * span}


def _union(iv: list[tuple[int, int]]) -> int:
    tot, cur_a, cur_b = 0, None, None
    for a, b in sorted(iv):
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                tot += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    return tot + (cur_b - cur_a if cur_b is not None else 0)


def b07(rng, d: Path):
    """B07: kernels on one or two streams overrunning the next one on their stream (one by seconds)."""
    used: set = set()
    evs, clipped = [], []
    for stream in rng.sample([7, 13, 0], rng.randint(1, 2)):
        t, rows = 100, []
        for i in range(rng.randint(3, 6)):
            du = rng.randint(5, 50)
            rows.append((t, du))
            t += du + rng.randint(-20, 10)  # negative: the next kernel starts before this one ends
        rows.sort()  # then one runaway duration, never the stream's last kernel: the next one bounds it (a last one
        k = rng.randrange(len(rows) - 1)  # nothing bounds is of unknown duration: test_trust_s41_cases)
        rows[k] = (rows[k][0], rows[k][1] + 3_000_000)
        for i, (a, du) in enumerate(rows):
            end = a + du if i == len(rows) - 1 else min(a + du, rows[i + 1][0])
            clipped.append((a, max(end, a)))
            evs.append(_kernel(_name(rng, used), a, du, stream=stream))
    busy = _union(clipped)
    return _write(d / "t.json", json.dumps(_doc(evs, rng))), {"kernel_count": len(evs), "gpu_busy_ns": 1000 * busy}


def b11(rng, d: Path):
    """B11: HIP launch names, stream 0, kernels without device or correlation."""
    used: set = set()
    names = ["hipLaunchKernel", "hipExtModuleLaunchKernel", "hipModuleLaunchKernel", "hipExtLaunchKernel",
             "hipLaunchCooperativeKernel", "hipGraphLaunch"]
    times = _serial(rng, rng.randint(2, 5), 1000)
    evs, linked = [], 0
    for i, (t, du) in enumerate(times):
        k = _kernel(_name(rng, used), t, du, stream=0)
        if rng.random() < 0.3:
            del k["args"]["device"]
        if rng.random() < 0.7:
            k["args"]["correlation"] = i + 1
            evs.append(_launch(rng.choice(names), t - 5, 3, i + 1))
            linked += 1
        evs.append(k)
    return _write(d / "t.json", json.dumps(_doc(evs, rng))), {
        "kernel_count": len(times), "gpu_busy_ns": 1000 * sum(du for _, du in times), "linked": linked}


def b12(rng, d: Path):
    """B12: copies and fills under every category spelling; compute time excludes them."""
    used: set = set()
    t = 1000
    evs, mem_n, mem_b, set_n, comp, sized = [], 0, 0, 0, 0, 0
    for _ in range(rng.randint(3, 7)):
        du = rng.randint(1, 30)
        kind = rng.choice(["gemm", "cpy_cat", "cpy_old", "cpy_kernel", "set_cat", "set_old"])
        if kind == "gemm":
            evs.append(_kernel(_name(rng, used), t, du, grid=[64, 1, 1], block=[128, 1, 1]))
            comp += du
        elif kind.startswith("cpy"):
            cat = {"cpy_cat": "gpu_memcpy", "cpy_old": "Memcpy", "cpy_kernel": "kernel"}[kind]
            b = rng.choice([None, 4096, 1 << 20])
            a = {"device": 0, "stream": 7, **({"bytes": b} if b else {})}
            evs.append({"ph": "X", "cat": cat, "name": rng.choice(["Memcpy HtoD (Pageable -> Device)",
                                                                   "Memcpy DtoD (Device -> Device)",
                                                                   "Memcpy DtoH (Device -> Pinned)"]),
                        "pid": 0, "tid": "stream 7", "ts": t, "dur": du, "args": a})
            mem_n += 1
            mem_b, sized = mem_b + (b or 0), sized + (b is not None)
        else:
            cat = "gpu_memset" if kind == "set_cat" else "Memset"
            evs.append({"ph": "X", "cat": cat, "name": "Memset (Device)", "pid": 0, "tid": "stream 7", "ts": t,
                        "dur": du, "args": {"device": 0, "stream": 7, "bytes": 1024}})
            set_n += 1
        t += du + rng.randint(1, 5)
    return _write(d / "t.json", json.dumps(_doc(evs, rng))), {
        "memcpy_count": mem_n, "memcpy_bytes": mem_b if sized or not mem_n else None,  # no size recorded: unknown
        "computation_ns": 1000 * comp}


def b13(rng, d: Path):
    """B13: one graph launch → k kernels (shared correlation), plus ordinary launches."""
    used: set = set()
    k = rng.randint(2, 6)
    times = _serial(rng, k + rng.randint(0, 2), 1010)
    evs = [_launch(rng.choice(["cudaGraphLaunch", "cudaGraphLaunch_v10000", "cuGraphLaunch"]), 1000, 12, 500)]
    for i, (t, du) in enumerate(times):
        corr = 500 if i < k else 600 + i
        if i >= k:
            evs.append(_launch("cudaLaunchKernel", t - 4, 2, corr))
        evs.append(_kernel(_name(rng, used), t, du, corr))
    return _write(d / "t.json", json.dumps(_doc(evs, rng))), {
        "kernel_count": len(times), "gpu_busy_ns": 1000 * sum(du for _, du in times),
        "launch_calls": 1 + len(times) - k, "unlinked": 0}


def t05(rng, d: Path):
    """T05: ROCm HIP blit kernels (rocclr copy / fill) are copies / fills, not computation."""
    used: set = set()
    t, evs, comp, cp, fill = 1000, [], 0, 0, 0
    for _ in range(rng.randint(3, 7)):
        du = rng.randint(5, 100)
        kind = rng.choice(["comp", "copy", "fill"])
        if kind == "comp":
            name = _name(rng, used)
            comp += du
        elif kind == "copy":
            name = rng.choice(["__amd_rocclr_copyBuffer", "__amd_rocclr_copyBufferAligned",
                               "__amd_rocclr_copyBufferRect", "__amd_rocclr_copyBufferToImage"])
            cp += du
        else:
            name = rng.choice(["__amd_rocclr_fillBufferAligned", "__amd_rocclr_fillBuffer"])
            fill += du
        evs.append(_kernel(name, t, du, stream=0, grid=[1024, 1, 1], block=[256, 1, 1]))
        t += du
    return _write(d / "t.json", json.dumps(_doc(evs, rng))), {
        "computation_ns": 1000 * comp, "exposed_memcpy_ns": 1000 * cp, "exposed_memset_ns": 1000 * fill,
        "gpu_busy_ns": 1000 * (comp + cp + fill)}


def t11b(rng, d: Path):
    """T11b: a host ``X`` event without ``cat`` anywhere in the file is not GPU work."""
    used: set = set()
    times = _serial(rng, rng.randint(1, 4), 1000)
    evs = [_kernel(_name(rng, used), t, du, i + 1) for i, (t, du) in enumerate(times)]
    evs += [_launch("cudaLaunchKernel", t - 3, 2, i + 1) for i, (t, _) in enumerate(times)]
    for _ in range(rng.randint(1, 3)):
        evs.insert(rng.randrange(len(evs) + 1), {"ph": "X", "name": rng.choice(["dataloader_wait", "step", "x"]),
                                                 "pid": 70, "tid": rng.choice([70, 71]), "ts": 900,
                                                 "dur": rng.randint(100, 900_000)})
    return _write(d / "t.json", json.dumps({"traceEvents": evs})), {
        "kernel_count": len(times), "kernel_time_ns": 1000 * sum(du for _, du in times)}


# ------------------------------------------------------------------------------------------------ CSV cases
def b17(rng, d: Path):
    """B17: rocprof v1 results.csv with quoted names holding commas, rows in any order."""
    used: set = set()
    rows, tot = [], {}
    t = 100_000
    for i in range(rng.randint(1, 5)):
        name = f'"{_name(rng, used)}(float*, float const*, int{", int" * rng.randint(0, 3)}) [clone .kd]"'
        du = rng.randint(1, 90_000)
        rows.append(f"{i},{name},2,0,{i},4242,4242,65536,256,0,0,8,0,16,64,0,1400{i},{t - 500},{t},{t + du},"
                    f"{t + du + 400}")
        tot[name.strip('"')] = du
        t += du + 1000
    rng.shuffle(rows)
    head = ("Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,arch_vgpr,accum_vgpr,sgpr,"
            "wave_size,sig,obj,DispatchNs,BeginNs,EndNs,CompleteNs")
    nl = rng.choice(["\n", "\r\n"])
    return _write(d / "results.csv", nl.join([head] + rows) + nl), {"kernels": tot}


def t08(rng, d: Path):
    """T08: ``nsys stats --format csv`` stdout: the kernel table among other reports, in any position."""
    n = rng.randint(1, 4)
    kern, rows = {}, []
    for i in range(n):
        calls, avg = rng.randint(1, 50), rng.randint(1000, 900_000)
        name = rng.choice(['"void gemm_kernel<float, {}>(const float *, float *, int)"', "softmax_{}(float *, int)",
                           "k{}"]).format(i)
        kern[name.strip('"')] = (calls, calls * avg)
        rows.append(f"1.0,{calls * avg},{calls},{avg}.0,{avg}.0,{avg},{avg},0.0,{name}")
    kernel = ("\n ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n"
              "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
              + "\n".join(rows) + "\n")
    api = ("\n ** CUDA API Summary (cuda_api_sum):\n\nTime (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),"
           "Max (ns),StdDev (ns),Name\n" + "".join(f"1.0,{1000 + i},{i + 1},1.0,1.0,1,1,0.0,cudaApi{i}\n"
                                                    for i in range(rng.randint(1, 40))))
    mem = ("\n ** CUDA GPU MemOps Summary (by Time) (cuda_gpu_mem_time_sum):\n\nTime (%),Total Time (ns),Count,Avg (ns),"
           "Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n90.0,900000,3,300000.0,300000.0,290000,310000,10000.0,"
           "[CUDA memcpy Host-to-Device]\n")
    parts = [api, kernel, mem]
    rng.shuffle(parts)
    text = "Generating SQLite file run.sqlite from run.nsys-rep\n" + "".join(
        f"Processing [run.sqlite] with [/opt/x/reports/r{i}.py]... \n{p}" for i, p in enumerate(parts))
    return _write(d / "stats.csv", text), {"kernels_calls": kern}


_UNITS_T = {"nsecond": 1, "usecond": 1_000, "msecond": 1_000_000, "second": 1_000_000_000}


def b20(rng, d: Path):
    """B20: ncu ``--csv`` details page: prose before the header, thousands separators, a per-row Duration unit."""
    cols = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
            "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
    if rng.random() < 0.5:
        cols = [c for c in cols if c not in ("Block Size", "Grid Size", "Device")]
    lines, durs = [], {}
    for i in range(rng.randint(1, 4)):
        name = f"kern_{i}(float*, int)"
        ns = rng.randint(1_000, 50_000_000)  # ns, a whole number of ns
        unit = rng.choice([u for u, f in _UNITS_T.items() if ns % f == 0 or f <= 1_000])
        val = ns / _UNITS_T[unit]
        text = f"{val:,.3f}" if rng.random() < 0.5 else f"{val:.3f}"
        durs[name] = round(val * _UNITS_T[unit])
        base = {"ID": str(i), "Process ID": "4242", "Process Name": "demo", "Host Name": "127.0.0.1",
                "Kernel Name": name, "Context": "1", "Stream": "7", "Block Size": "(256, 1, 1)",
                "Grid Size": "(132, 1, 1)", "Device": "0", "CC": "9.0", "Section Name": "GPU Speed Of Light Throughput"}
        for metric, mu, mv in (("Duration", unit, text), ("Elapsed Cycles", "cycle", f"{rng.randint(1, 10 ** 7):,}")):
            row = dict(base, **{"Metric Name": metric, "Metric Unit": mu, "Metric Value": mv})
            lines.append(",".join(json.dumps(row[c]) for c in cols))
    rng.shuffle(lines)
    pre = "==PROF== Connected to process 4242 (/opt/app/bin/demo)\n" if rng.random() < 0.7 else ""
    return _write(d / "details.csv", pre + ",".join(json.dumps(c) for c in cols) + "\n" + "\n".join(lines) + "\n"), \
        {"kernel_durations": durs}


def b20_raw(rng, d: Path):
    """B20 raw page: a units row under the header; per-column units chosen at random."""
    t_unit = rng.choice(["nsecond", "usecond", "msecond", "ns", "us", "ms"])
    b_unit = rng.choice(["byte", "Kbyte", "Mbyte", "Gbyte"])
    tf = {"nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6}[t_unit]
    bf = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}[b_unit]
    cols = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Device", "CC",
            "dram__bytes_read.sum", "gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"]
    order = cols[:5] + rng.sample(cols[5:], len(cols) - 5)
    rows, durs, dram = [], {}, {}
    for i in range(rng.randint(1, 4)):
        name = f"kern_{i}(float const*, float*, int)"
        tv, bv = rng.randint(1, 10 ** 6) / 100, rng.randint(1, 10 ** 6) / 100
        durs[name], dram[name] = round(tv * tf), round(bv * bf)
        r = {"ID": str(i), "Process ID": "4242", "Process Name": "demo", "Host Name": "h", "Kernel Name": name,
             "Context": "1", "Stream": "7", "Device": "0", "CC": "9.0", "dram__bytes_read.sum": f"{bv:,.2f}",
             "gpu__time_duration.sum": f"{tv:,.2f}",
             "sm__throughput.avg.pct_of_peak_sustained_elapsed": f"{rng.uniform(0, 100):.2f}"}
        rows.append(",".join(json.dumps(r[c]) for c in order))
    units = {"dram__bytes_read.sum": b_unit, "gpu__time_duration.sum": t_unit,
             "sm__throughput.avg.pct_of_peak_sustained_elapsed": "%"}
    text = (",".join(json.dumps(c) for c in order) + "\n" + ",".join(json.dumps(units.get(c, "")) for c in order)
            + "\n" + "\n".join(rows) + "\n")
    return _write(d / "raw.csv", text), {"kernel_durations": durs, "dram_bytes": dram}


def b17_v2(rng, d: Path):
    """B17 v2: a header wider than its rows: a one-line error naming the file (no shifted columns)."""
    head = ("Dispatch_ID,GPU_ID,Queue_ID,Queue_Index,PID,TID,GRD,WGR,LDS,SCR,Arch_VGPR,ACCUM_VGPR,SGPR,Wave_Size,SIG,"
            "OBJ,Kernel_Name,Start_Timestamp,End_Timestamp,Correlation_ID," + ",".join(
                rng.sample(["GRBM_COUNT", "SQ_WAVES", "GRBM_GUI_ACTIVE", "TCC_HIT"], rng.randint(1, 3))))
    rows = []
    for i in range(rng.randint(1, 4)):
        t = 2_000_000 + 10_000 * i
        rows.append(f"{i + 1},4,1,4242,4242,1024,256,0,0,8,0,16,64,1400000000{i},1,"
                    f'"k{i}(float, float*, int) (.kd)",{t},{t + rng.randint(1, 9000)},{33 + i}')
    return _write(d / "results.csv", head + "\n" + "\n".join(rows) + "\n"), {"exit": 2, "error_names_file": True}


V3_HEAD = ('"Kind","Agent_Id","Queue_Id","Thread_Id","Dispatch_Id","Kernel_Id","Kernel_Name","Correlation_Id",'
           '"Start_Timestamp","End_Timestamp","Private_Segment_Size","Group_Segment_Size","Workgroup_Size_X",'
           '"Workgroup_Size_Y","Workgroup_Size_Z","Grid_Size_X","Grid_Size_Y","Grid_Size_Z"')


def v3_overlap(rng, d: Path):
    """B06 + B07 in a rocprofv3 kernel_trace.csv: end before start rejected, overruns on one queue clipped."""
    T = rng.randint(10 ** 15, 9 * 10 ** 15)
    used: set = set()
    rows, clipped, valid = [], [], 0
    for q in rng.sample([1, 2, 3], rng.randint(1, 2)):
        t, rr = T, []
        for _ in range(rng.randint(2, 5)):
            du = rng.randint(1000, 90_000)
            rr.append((t, du))
            t += du + rng.randint(-20_000, 5_000)
        rr.sort()
        for i, (a, du) in enumerate(rr):
            end = a + du if i == len(rr) - 1 else min(a + du, rr[i + 1][0])
            clipped.append((a, max(end, a)))
            rows.append((q, _name(rng, used), a, a + du))
            valid += 1
    for _ in range(rng.randint(0, 2)):  # end before start: not an event
        rows.append((1, "k_backwards", T + 500, T + 500 - rng.randint(1, 400)))
    rng.shuffle(rows)
    lines = [f'"KERNEL_DISPATCH",1,{q},69,{i + 1},16,"{n}",{i + 1},{a},{b},0,0,64,1,1,1024,1,1'
             for i, (q, n, a, b) in enumerate(rows)]
    return _write(d / "kernel_trace.csv", V3_HEAD + "\n" + "\n".join(lines) + "\n"), {
        "kernel_count": valid, "gpu_busy_ns": _union(clipped)}


def f_big_ints(rng, d: Path):
    """F04 class: an integer past int64 (or a float where an int belongs) in any id/time field of one event."""
    used: set = set()
    times = _serial(rng, rng.randint(3, 6), 1000)
    evs = [_kernel(_name(rng, used), t, du, i + 1) for i, (t, du) in enumerate(times)]
    victim = rng.randrange(len(evs))
    field = rng.choice(["tid", "pid", "correlation", "device", "stream", "External id"])
    val = rng.choice([2 ** 64, 2 ** 63, -(2 ** 63) - 1, 1e30, 10 ** 30])
    if field in ("tid", "pid"):
        evs[victim][field] = val
    else:
        evs[victim]["args"][field] = val
    return _write(d / "t.json", json.dumps({"traceEvents": evs})), {"exit_in": (0, 2), "loaded_if_0": len(times)}


def f_args_type(rng, d: Path):
    """F01 class: ``args`` (or another object field) of one event is a number, string, list or null."""
    used: set = set()
    times = _serial(rng, rng.randint(3, 6), 1000)
    evs = [_kernel(_name(rng, used), t, du, i + 1) for i, (t, du) in enumerate(times)]
    victim = rng.randrange(len(evs))
    evs[victim]["args"] = rng.choice([5, "x", [1, 2], None, True, 1.5])
    return _write(d / "t.json", json.dumps({"traceEvents": evs})), {
        "exit_in": (0, 2), "kernels_at_least": len(times) - 1}


def f_stats_negative(rng, d: Path):
    """F27 class: an ``nsys stats`` kernel summary with a negative or non-numeric total / instance count."""
    rows, good = [], {}
    for i in range(rng.randint(2, 4)):
        calls, avg = rng.randint(1, 50), rng.randint(1000, 900_000)
        rows.append([f"{50.0}", str(calls * avg), str(calls), f"{avg}.0", f"{avg}.0", str(avg), str(avg), "0.0", f"k{i}"])
        good[f"k{i}"] = (calls, calls * avg)
    v = rng.randrange(len(rows))
    col = rng.choice([1, 2])
    rows[v][col] = rng.choice(["-" + rows[v][col], "-4611686018427387904", "abc", "", "1e400", "nan"])
    del good[f"k{v}"]
    text = ("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
            + "\n".join(",".join(r) for r in rows) + "\n")
    return _write(d / "cuda_gpu_kern_sum.csv", text), {"exit_in": (0, 2), "kernels_calls_if_0": good,
                                                       "warned_if_0": True}


def _nsys_db(path: Path, strings: list[str], runtime: list[tuple], kernels: list[tuple] | None,
             graphs: list[tuple]) -> Path:
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE META_DATA_EXPORT (name TEXT, value TEXT);
        INSERT INTO META_DATA_EXPORT VALUES ('EXPORT_SCHEMA_VERSION', '3.11.1');
        CREATE TABLE TARGET_INFO_GPU (id INTEGER, name TEXT, busLocation TEXT, smCount INTEGER, computeMajor INTEGER,
            computeMinor INTEGER, totalMemory INTEGER);
        INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA L40S', '0000:01:00.0', 142, 8, 9, 48305799168);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, "end" INTEGER NOT NULL, eventClass INTEGER,
            globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE (start INTEGER NOT NULL, "end" INTEGER NOT NULL, deviceId INTEGER,
            contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, graphId INTEGER,
            graphExecId INTEGER);
    """)
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", list(enumerate(strings, 1)))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, 71168954514, ?, ?, 0)", runtime)
    if kernels is not None:
        con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, \"end\" INTEGER NOT NULL, "
                    "deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, "
                    "demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER, "
                    "blockX INTEGER, blockY INTEGER, blockZ INTEGER)")
        con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 1, ?, ?, 71168950272, ?, ?, 64, 1, 1, "
                        "256, 1, 1)", kernels)
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (?, ?, 0, 1, ?, ?, 71168950272, 5, 9)", graphs)
    con.commit()
    con.close()
    return path


def t07(rng, d: Path):
    """T07: graph replays traced at graph level beside ordinary kernels (nsys ``--cuda-graph-trace=graph``)."""
    strings = ["cudaLaunchKernel_v7000", "cudaGraphLaunch_v10000"]
    runtime, kernels, graphs, iv = [], [], [], []
    t, corr = 1000, 1
    for _ in range(rng.randint(2, 7)):
        du = rng.randint(1000, 300_000)
        stream = rng.choice([7, 7, 13])
        if rng.random() < 0.5:
            strings.append(f"kernel_{corr}")
            runtime.append((t - 500, t - 100, corr, 1))
            kernels.append((t, t + du, stream, corr, len(strings), len(strings)))
        else:
            runtime.append((t - 500, t - 100, corr, 2))
            graphs.append((t, t + du, stream, corr))
        iv.append((t, t + du))
        corr += 1
        t += du + rng.randint(0, 20_000)
    p = _nsys_db(d / "run.sqlite", strings, runtime, kernels, graphs)
    span = max(b for _, b in iv) - min(a for a, _ in iv)
    return p, {"gpu_busy_ns": _union(iv), "span_ns": span}


def t06(rng, d: Path):
    """T06: launches recorded, no kernel table (a capture that broke): no crash, said incomplete."""
    n = rng.randint(1, 9)
    c0 = rng.randint(1, 10 ** 6)
    runtime = [(1000 + 10_000 * i, 5000 + 10_000 * i, c0 + i, 1) for i in range(n)]
    p = _nsys_db(d / "run.sqlite", ["cudaLaunchKernel_v7000"], runtime, None, [])
    return p, {"exit_in": (0, 5), "incomplete": f"{n:,} launch call{'s' if n != 1 else ''}"}


def t12(rng, d: Path):
    """T12: one rocpd database per process: one rank per process, kernels of each kept apart."""
    import importlib

    mod = importlib.import_module("tests.test_rocpd")
    folder = d / "rocpd"
    folder.mkdir()
    pids = rng.sample(range(1000, 99999), rng.randint(2, 3))
    n = 0
    for pid in pids:
        rng.choice([mod.build_layout_a, mod.build_layout_b])(folder / f"{pid}_results.db")
        n += 1
    ref = [mod.build_layout_a, mod.build_layout_b]
    return folder, {"ranks": n, "per_file_ref": [folder / f"{pid}_results.db" for pid in pids], "_ref": ref}


GENERATORS: dict[str, Callable[[random.Random, Path], tuple[Path, dict]]] = {
    "B02": b02, "B03a": b03_meta, "B03c": b03_numbers, "B04a": b04a, "B04b": b04b, "B05": b05, "B06": b06,
    "B07": b07, "B11": b11, "B12": b12, "B13": b13, "B17": b17, "B20": b20, "T05": t05, "T08": t08, "T11b": t11b,
    "B20raw": b20_raw, "B17v2": b17_v2, "V3overlap": v3_overlap, "F04": f_big_ints, "F01": f_args_type,
    "F27": f_stats_negative, "T06": t06, "T07": t07, "T12": t12}


def check(path: Path, expect: dict[str, Any]) -> list[str]:
    """Differences between gpulens's answer on ``path`` and ``expect`` (empty when right)."""
    import gpulens
    from gpulens.cli import main

    problems: list[str] = []
    out = path.parent / "out.json"
    import contextlib
    import io

    with contextlib.redirect_stderr(io.StringIO()) as err, contextlib.redirect_stdout(io.StringIO()):
        code = main(["analyze", str(path), "-q", "--no-cache", "--json", str(out)]
                    + (["--lenient"] if expect.get("lenient") else []))
    want_exit = expect.get("exit_in", (expect.get("exit", 0),))
    msg = err.getvalue().strip()
    if code not in want_exit:
        return [f"exit {code} (want {want_exit}): {msg[:300]}"]
    if code == 2 and (msg.count("\n") or str(path) not in msg or "Traceback" in msg):
        return [f"exit 2 without a one-line error naming the file: {msg[:300]}"]
    if code != 0:
        return []
    if "loaded_if_0" in expect:
        expect = dict(expect, kernel_count=expect["loaded_if_0"])
    if "kernels_calls_if_0" in expect:
        expect = dict(expect, kernels_calls=expect["kernels_calls_if_0"], warned=True)
    src = json.loads(out.read_text())["sources"][0]
    sm = src["summary"]
    for k in ("kernel_count", "kernel_time_ns", "gpu_busy_ns", "span_ns", "memcpy_count", "memcpy_bytes",
              "computation_ns", "exposed_memcpy_ns", "exposed_memset_ns"):
        if k in expect and sm.get(k) != expect[k]:
            problems.append(f"{k} = {sm.get(k)} (want {expect[k]})")
    an = src["analyses"]
    if "kernels_at_least" in expect and (sm.get("kernel_count") or 0) < expect["kernels_at_least"]:
        problems.append(f"kernel_count = {sm.get('kernel_count')} (want >= {expect['kernels_at_least']})")
    if "dram_bytes" in expect:
        tl = gpulens.collectors.collect(path)
        co = tl.counters[tl.counters["metric"].astype(str) == "dram__bytes_read.sum"]
        names = tl.events["name"].astype(str).to_numpy()
        got = {names[int(e)]: round(float(v)) for e, v in zip(co["event_id"], co["value"])}
        if got != expect["dram_bytes"]:
            problems.append(f"dram bytes {got} (want {expect['dram_bytes']})")
    if "incomplete" in expect:
        note = " ".join(str(x.get("incomplete_capture", "")) for x in src.get("inputs") or []) + " ".join(
            src["warnings"])
        if expect["incomplete"] not in note:
            problems.append(f"incomplete capture not said ({expect['incomplete']!r}): {note[:200]}")
    if "per_file_ref" in expect:  # each process alone, then the folder: the same kernels, one rank per process
        per = []
        for f in expect["per_file_ref"]:
            s1 = gpulens.analyze([f]).sources[0].summary
            per.append((s1["kernel_count"], s1["gpu_busy_ns"]))
        if sm.get("kernel_count") != sum(k for k, _ in per) or sm.get("gpu_busy_ns") != sum(b for _, b in per):
            problems.append(f"folder {sm.get('kernel_count')} kernels / {sm.get('gpu_busy_ns')} ns; files {per}")
        if len(sm.get("ranks") or []) != expect["ranks"]:
            problems.append(f"ranks {sm.get('ranks')} (want {expect['ranks']})")
    if "warned" in expect and not src["warnings"]:
        problems.append("no warning")
    if expect.get("no_warning") and src["warnings"]:
        problems.append(f"warnings: {src['warnings'][:2]}")
    if expect.get("truncated") and not any("truncat" in w or "ends inside" in w or "incomplete" in w
                                           for w in src["warnings"]):
        problems.append(f"not flagged truncated: {src['warnings'][:2]}")
    if "launch_calls" in expect and an["launches"]["summary"].get("launch_calls") != expect["launch_calls"]:
        problems.append(f"launch_calls = {an['launches']['summary'].get('launch_calls')} "
                        f"(want {expect['launch_calls']})")
    if "kernels" in expect or "kernels_calls" in expect:
        hs = {r["name"]: (r["calls"], r["total_ns"]) for r in an["hotspots"]["table"]}
        want = expect.get("kernels_calls") or {k: (1, v) for k, v in expect["kernels"].items()}
        if hs != want:
            problems.append(f"hotspots {hs} (want {want})")
    if "kernel_durations" in expect:
        tl = gpulens.collectors.collect(path)
        k = tl.events[tl.events["kind"].astype(str) == "kernel"]
        got = dict(zip(k["name"].astype(str), k["dur_ns"].astype(int)))
        if got != expect["kernel_durations"]:
            problems.append(f"durations {got} (want {expect['kernel_durations']})")
    if expect.get("no_inf_bandwidth"):
        import re

        if re.search(r"[:\[,]\s*-?(?:Infinity|NaN)\b", out.read_text()):
            problems.append("Infinity/NaN in the JSON report")
    return problems


def main(argv: list[str] | None = None) -> int:
    import argparse
    import shutil
    import tempfile
    import warnings

    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--only", default="")
    a = ap.parse_args(argv)
    bad = 0
    root = Path(tempfile.mkdtemp(prefix="variants"))
    for case, gen in GENERATORS.items():
        if a.only and case not in a.only.split(","):
            continue
        for s in range(a.seeds):
            d = root / f"{case}_{s}"
            d.mkdir()
            path, expect = gen(random.Random(s), d)
            probs = check(path, expect)
            if probs:
                bad += 1
                print(f"{case} seed {s}: {path}: " + "; ".join(probs)[:600])
            else:
                shutil.rmtree(d, ignore_errors=True)
    print(f"{bad} variant(s) wrong; kept under {root}")
    return 0


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
