"""What to do with a profiler output gpulens knows but does not read (the "not a recognised format" error).

A user who passes an Nsight Systems ``.nsys-rep``, a Perfetto ``.pftrace`` from rocprofv3 or a PyTorch execution
trace (Chakra ET) has a valid file of a real profiler; "not a recognised trace format" reads as a broken file. The
sentence returned here names the format and the command that turns it into one gpulens reads.

Recognised by content first (the file's magic or its first JSON keys), then by suffix:

=====================================  ==============================================================================
input                                  how it is told
=====================================  ==============================================================================
Nsight Systems report (.nsys-rep,      starts with ``NVIDIA Tegra Profiler Report`` (nsys 2021+), or suffix
.qdrep)                                ``.nsys-rep`` / ``.qdrep``
PyTorch execution trace (Chakra ET)    JSON holding a ``nodes`` list and ``"schema": "1.0.x[-chakra.0.0.4]"`` or node
                                       keys (``ctrl_deps``, ``op_schema``), in any key order (ExecutionTraceObserver;
                                       Chakra's trace_link output)
Chakra ET converted to JSON            ``chakra_jsonizer``'s concatenated protobuf-JSON objects: a GlobalMetadata
                                       ``attr`` whose ``stringVal`` names the ``…-chakra…`` schema, or nodes with
                                       ``"type": "COMP_NODE"`` (or another Chakra node type) and ``ctrlDeps``/``dataDeps``
Chakra ET protobuf                     suffix ``.et`` (``<prefix>.<rank>.et``, mlcommons/chakra's converter output)
Perfetto / rocprofv3 pftrace           suffix ``.pftrace`` / ``.perfetto-trace``
rocprofv3 OTF2                         suffix ``.otf2``
TensorFlow / JAX profiler XSpace       suffix ``.xplane.pb`` (``plugins/profile/<run>/<host>.xplane.pb``, what
                                       ``jax.profiler.trace`` / ``tf.profiler.experimental`` write)
nvprof / Visual Profiler               suffix ``.nvvp`` / ``.prof`` and an SQLite file that :mod:`.nvprof_sqlite`
                                       did not take (no activity tables: a --metrics/--events profile)
nvprof text report (console output)    ``==PID== NVPROF is profiling`` / ``Profiling result:`` / ``Metric result:``
                                       when no collector took it (its summary and GPU trace are read:
                                       :mod:`.nvprof_summary`, :mod:`.nvprof_trace_text`, :mod:`.nvprof_csv`)
rocprofv3 PC-sampling CSV              a header ``Sample_Timestamp, …, Instruction, …``
rocprofv3 thread-trace (ATT)           a header ``CodeObj, Vaddr, Instruction, Hitcount, Latency, …`` (the decoder's
instruction statistics                 per-instruction ``stats_*.csv`` of one dispatch)
PyTorch memory timeline (raw)          a JSON list of ``[timestamp, action, bytes, category]`` integer rows
                                       (``torch.profiler``'s ``export_memory_timeline`` to a ``.raw.gz`` / ``.json``)
ncu console log of an ``-o`` run       a ``==PROF== Report: NAME.ncu-rep`` line (the results are in that file)
an archive (tar, .tar.gz, zip, 7z)     ``ustar`` at byte 257 of the (decompressed) head, ``PK\\x03\\x04``, ``7z\\xbc\\xaf``
a stream compressed other than gzip    the magic bytes of bzip2 ``BZh``, xz ``\\xfd7zXZ\\x00``, zstd ``\\x28\\xb5\\x2f\\xfd``,
(bzip2, xz, zstd, lz4)                 lz4 frame ``\\x04\\x22\\x4d\\x18`` (gzip itself is read: B02 of the shared cases)
an nsys stats report holding no       a summary header ``Time (%),Total Time (ns),…`` (nsys 2021: ``Time(%)``) ending in
kernel (cuda_api_sum, osrt_sum,        ``Name`` after ``Num Calls`` (API calls), ``Range`` (NVTX) or ``Operation``
nvtx_sum, cuda_gpu_mem_time_sum /      (copies and fills; also the size summary ``Total (MB),Count,…,Operation``), or
mem_size_sum, cuda_api_trace; 2021     the API trace ``Start (ns),Duration (ns),Name,Result,CorrID``, when no collector
names)                                 took the file (a kernel summary beside them is read: :mod:`.nsys_stats`)
a Git LFS pointer (the trace itself    starts with ``version https://git-lfs.github.com/spec/v1`` (git-lfs's pointer
not checked out)                       file: ``version``, ``oid sha256:…``, ``size N`` lines)
=====================================  ==============================================================================
"""

from __future__ import annotations

import re
from pathlib import Path

from gpulens.collectors._io import read_head
from gpulens.errors import DeviceWorkNote

_NSYS_MAGIC = b"NVIDIA Tegra Profiler Report"
_LFS_POINTER = b"version https://git-lfs.github.com/spec/"
_LFS_SIZE = re.compile(rb"^size (\d+)\s*$", re.MULTILINE)
#: ExecutionTraceObserver's schema value: "1.0.1", "1.0.2-chakra.0.0.4", "1.1.1-chakra.0.0.4"… (any key order: a
#: file rewritten by json.dump may put ``nodes`` first)
_ET_SCHEMA = re.compile(rb'"schema"\s*:\s*"\d+\.\d+(?:\.\d+)?(?:-chakra[\w.]*)?"')
_ET_NODES = re.compile(rb'"nodes"\s*:\s*\[')
#: keys of an ExecutionTraceObserver node (schema 1.0.1: ``parent``; 1.0.2+: ``ctrl_deps``), for a file whose
#: ``schema`` comes after its nodes
_ET_NODE_KEYS = re.compile(rb'"(?:ctrl_deps|op_schema|fw_parent)"\s*:')
#: chakra_jsonizer's output (mlcommons/chakra src/jsonizer: MessageToJson of the GlobalMetadata, then of every Node,
#: written back to back): the schema attribute, or nodes of Chakra's NodeType with their dependency lists.
_CHAKRA_JSON_SCHEMA = re.compile(rb'"stringVal"\s*:\s*"[^"]*-chakra\.')
_CHAKRA_JSON_NODE = re.compile(rb'"type"\s*:\s*"(?:COMP|COMM_COLL|COMM_SEND|COMM_RECV|MEM_LOAD|MEM_STORE|METADATA)_NODE"')
_CHAKRA_JSON_DEPS = re.compile(rb'"(?:ctrlDeps|dataDeps)"\s*:')
#: rocprofv3 PC sampling (``--pc-sampling-method host_trap|stochastic``: ``<pid>_pc_sampling_host_trap.csv``): one row
#: per instruction sample — ``Sample_Timestamp``, ``Exec_Mask``, ``Dispatch_Id``, ``Instruction`` …, no kernel timing.
_PC_SAMPLING = re.compile(rb'^\s*"?Sample_Timestamp"?,.*"?Instruction"?', re.IGNORECASE)
#: rocprofv3's thread-trace decoder, per-instruction statistics of one dispatch: ``"CodeObj","Vaddr","Instruction",
#: "Hitcount","Latency","Stall","Idle","Source"`` (HGLiu1998/batched_gemm ``stats_ui_output_agent_5600_dispatch_1.csv``)
_ATT_STATS = re.compile(rb'^\s*"?CodeObj"?\s*,\s*"?Vaddr"?\s*,\s*"?Instruction"?\s*,\s*"?Hitcount"?', re.IGNORECASE)
#: torch.profiler's raw memory timeline (``export_memory_timeline(path.raw.gz)``): a JSON list of
#: ``[timestamp, action, numbytes, category]`` integer rows (HolisticTraceAnalysis ``memory_timeline.raw.gz``)
_MEMORY_TIMELINE = re.compile(rb"^\s*\[\s*\[\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*,\s*-?\d+\s*\]\s*,\s*\[")
#: ncu's console log when the results went to a report file (``ncu -o NAME``): ``==PROF== Report: NAME.ncu-rep``.
_NCU_REPORT_LINE = re.compile(rb"^==PROF== Report: (.+\.ncu-rep)\s*$", re.MULTILINE)
#: nvprof's console report (``nvprof ./app > log``): ``==PID== NVPROF is profiling process …`` /
#: ``==PID== Profiling result:`` / ``==PID== Metric result:`` lines (CUDA 10/11 nvprof).
_NVPROF_TEXT = re.compile(rb"^==\d+== (?:NVPROF is profiling|Profiling result:|Metric result:|Event result:)",
                          re.MULTILINE)
#: the CSV header of an ``nsys stats`` report that holds no kernel (``--format csv``; any ``--timeunit``), at the start
#: of a line: a summary (``Time (%),Total Time (ns),…``; nsys 2021 ``Time(%)``), the memory-size summary (``Total
#: (MB),Count,…``; 2021 ``Total,Operations,…``) or the per-call API trace (``Start (ns),Duration (ns),Name,Result``).
#: Group 1 is the header line. Source: the reports of ``nsys stats --help-reports`` (nsys 2021.3 to 2025.1).
_NSYS_STATS_HEAD = re.compile(
    rb'^("?Time ?\(%\)"?,"?Total Time[^\r\n]*|"?Total(?: \([KMG]?i?B\))?"?,"?(?:Count|Operations)"?,[^\r\n]*Operation"?'
    rb'|"?Start \(\w+\)"?,"?Duration \(\w+\)"?,"?Name"?,"?Result"?,[^\r\n]*)\s*$', re.MULTILINE)
#: the report's name in nsys' banner: `` ** CUDA API Summary (cuda_api_sum):`` or ``Running [.../cudaapisum.py ...]``
_NSYS_REPORT_NAME = re.compile(rb"\*\* [^\r\n]*\((\w+)\):|reports/(\w+)\.py")
#: what each kind of nsys stats report holds (by its header's last column, and ``Num Calls`` for API calls)
_NSYS_HOLDS = {"Range": ("NVTX ranges", "CPU-side ranges"), "Operation": ("memory operations",
                                                                         "GPU copies and fills")}
#: (magic bytes, name, command that decompresses keeping the file) of the compressed streams gpulens does not read
_COMPRESSED = ((b"BZh", "bzip2", "bunzip2 -k"), (b"\xfd7zXZ\x00", "xz", "unxz -k"),
               (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"), (b"\x04\x22\x4d\x18", "lz4", "unlz4"))
_BY_SUFFIX = {
    ".nsys-rep": "nsys",
    ".qdrep": "nsys",
    ".pftrace": "perfetto",
    ".perfetto-trace": "perfetto",
    ".otf2": "otf2",
    ".nvvp": "nvprof",
    ".prof": "nvprof",
    ".et": "chakra_pb",
    ".xplane.pb": "xplane",
}
_ADVICE = {
    "nsys": "an Nsight Systems report, which gpulens reads through its SQLite export: run "
            "`nsys export --type sqlite -o {stem}.sqlite {name}` and analyse the .sqlite",
    "et": "a PyTorch execution trace (ExecutionTraceObserver / Chakra ET): it records operators and tensors, not "
          "GPU timing; analyse the Kineto trace recorded beside it (torch.profiler's .pt.trace.json)",
    "chakra_json": "a Chakra execution trace converted to JSON (chakra_jsonizer): a dependency graph of operators and "
                   "collectives for replay and simulation, not a GPU timeline (no kernels, streams or devices); "
                   "analyse the Kineto trace it was linked from (torch.profiler's .pt.trace.json)",
    "chakra_pb": "a Chakra execution trace (protobuf .et): a dependency graph of operators and collectives for replay "
                 "and simulation, not a GPU timeline; analyse the Kineto trace it was linked from (torch.profiler's "
                 ".pt.trace.json)",
    "perfetto": "a Perfetto protobuf trace, which gpulens does not read: record with rocprofv3 "
                "--output-format csv (or json / rocpd), or torch.profiler's Chrome-trace JSON",
    "xplane": "a TensorFlow / JAX profiler XSpace (protobuf), which gpulens does not read: analyse its trace-events "
              "JSON instead (jax.profiler.trace(..., create_perfetto_trace=True) writes perfetto_trace.json.gz beside "
              "it; TensorBoard / XProf's trace viewer serves the same JSON)",
    "otf2": "an OTF2 trace, which gpulens does not read: record with rocprofv3 --output-format csv (or json / rocpd)",
    "archive": "an archive ({what}), which gpulens does not unpack: extract it (`{how}`) and pass the trace files, "
               "or the folder holding them, to gpulens",
    "compressed": "{what}-compressed data, which gpulens does not decompress (it reads gzip, found by its magic "
                  "bytes whatever the name): run `{how}` and analyse the result, or compress with gzip instead",
    "lfs": "a Git LFS pointer, not the trace: the repository stores the file ({what}) in Git LFS and it was not "
           "downloaded; run `git lfs pull --include {name}` in the clone (or download the file itself) and analyse it",
    "pc_sampling": "a rocprofv3 PC-sampling CSV (one row per sampled instruction, no kernel timing), which gpulens "
                   "does not read: analyse the kernel trace of the same run (rocprofv3 --kernel-trace writes "
                   "<pid>_kernel_trace.csv beside it)",
    "att_stats": "a rocprofv3 thread-trace (ATT) instruction table: hit counts and latencies per instruction of one "
                 "dispatch, no kernel timing, which gpulens does not read; analyse the kernel trace of the same run "
                 "(rocprofv3 --kernel-trace: <pid>_kernel_trace.csv, or its <pid>_results.db)",
    "memory_timeline": "a PyTorch memory timeline (torch.profiler's export_memory_timeline: memory use per category "
                       "over time, no GPU events), which gpulens does not read; analyse the trace of the same run "
                       "(export_chrome_trace's .pt.trace.json)",
    "ncu_log": "Nsight Compute's console log, without the results: ncu wrote them to {what} (its ==PROF== Report: "
               "line); analyse that .ncu-rep (or its `ncu --import … --csv --page details` export)",
    "nvprof_text": "nvprof's text report (its console output) without a GPU summary or GPU trace — metrics, events "
                   "or API calls —, which gpulens does not read: nvprof is retired (no Ampere or later support); its "
                   "summary (nvprof ./app) and its GPU trace are read (nvprof --csv --print-gpu-trace --log-file "
                   "FILE, or nvprof -o FILE.nvvp), or record with Nsight Systems (nsys profile, then nsys export "
                   "--type sqlite) for a timeline, or Nsight Compute (ncu --csv) for per-kernel counters",
    "nsys_stats": "{what}, no GPU kernels and no timeline: nothing gpulens "
                  "analyses; analyse the kernel summary of the same run (`nsys stats --report cuda_gpu_kern_sum "
                  "--format csv RUN.sqlite`, alone or in one stdout with this report) or the run's SQLite export "
                  "(`nsys export --type sqlite`)",
    "nvprof": "an nvprof / Visual Profiler SQLite file without the activity tables gpulens reads (StringTable "
              "plus CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, _KERNEL, _MEMCPY or _RUNTIME): record a timeline with "
              "`nvprof -o {name} ./app` (trace mode, no --metrics/--events), or with Nsight Systems (nsys profile, "
              "then nsys export --type sqlite)",
}


def lfs_pointer(path: str | Path) -> str | None:
    """``"a Git LFS pointer: N bytes not downloaded, run git lfs pull"`` when ``path`` is a Git LFS pointer file,
    else None (reads at most 4 KiB; never raises) — the short form for a folder's list of files not used."""
    head = read_head(Path(path), 4096)
    if not head.startswith(_LFS_POINTER):
        return None
    m = _LFS_SIZE.search(head)
    size = f"{int(m.group(1)):,} bytes" if m else "the file"
    return f"a Git LFS pointer: {size} not downloaded, run git lfs pull"


def unsupported_format(path: str | Path) -> str | None:
    """The sentence naming a known profiler format gpulens does not read and how to convert it, or None.

    Reads at most 4 KiB of the (decompressed) head; never raises.
    """
    p = Path(path)
    head = read_head(p, 4096)
    kind, what, how = None, "", ""
    if len(head) > 262 and head[257:262] == b"ustar":
        kind, what, how = "archive", "tar", f"tar xf {p.name}"
    elif head.startswith(b"PK\x03\x04"):
        kind, what, how = "archive", "zip", f"unzip {p.name}"
    elif head.startswith(b"7z\xbc\xaf\x27\x1c"):
        kind, what, how = "archive", "7z", f"7z x {p.name}"
    elif (m := next((c for c in _COMPRESSED if head.startswith(c[0])), None)) is not None:
        kind, what, how = "compressed", m[1], f"{m[2]} {p.name}"
    elif head.startswith(_LFS_POINTER):
        m = _LFS_SIZE.search(head)
        kind, what = "lfs", (f"{int(m.group(1)):,} bytes" if m else "size not given")
    elif head.startswith(_NSYS_MAGIC):
        kind = "nsys"
    elif head.lstrip().startswith(b"{") and _ET_NODES.search(head) and b'"traceEvents"' not in head and (
            _ET_SCHEMA.search(head) or _ET_NODE_KEYS.search(head)):
        kind = "et"
    elif head.lstrip().startswith(b"{") and b'"traceEvents"' not in head and (
            _CHAKRA_JSON_SCHEMA.search(head) or (_CHAKRA_JSON_NODE.search(head) and _CHAKRA_JSON_DEPS.search(head))):
        kind = "chakra_json"
    elif _NVPROF_TEXT.search(head):
        kind = "nvprof_text"
    elif _PC_SAMPLING.match(head):
        kind = "pc_sampling"
    elif _ATT_STATS.match(head):
        kind = "att_stats"
    elif _MEMORY_TIMELINE.match(head):
        kind = "memory_timeline"
    elif m := _NCU_REPORT_LINE.search(head):
        kind, what = "ncu_log", m.group(1).decode("utf-8", "replace").strip()
    elif (note := nsys_stats_note(head)) is not None:
        return note
    else:
        name = p.name.lower()
        kind = next((k for s, k in _BY_SUFFIX.items() if name.endswith(s)), None)
        if kind == "nvprof" and not head.startswith(b"SQLite format 3\x00"):
            kind = None  # nvprof writes SQLite; another ".prof" (a Python cProfile dump) is not one
    if kind is None:
        return None
    stem = p.name.split(".")[0] or "report"
    advice = _with_companion(p, kind, _ADVICE[kind].format(stem=stem, name=p.name, what=what, how=how))
    return DeviceWorkNote(advice) if kind in _DEVICE_WORK else advice


#: kinds of file that record GPU work without kernel timing (:class:`~gpulens.errors.DeviceWorkNote`: exit 5; so is
#: an nsys stats report holding no kernel: :func:`nsys_stats_note`)
_DEVICE_WORK = frozenset({"pc_sampling", "att_stats"})


def nsys_stats_holds(head: bytes) -> str | None:
    """What the ``nsys stats --format csv`` reports in ``head`` that hold no kernel record, each named with the
    report's name from nsys' banner when it is there — ``"an Nsight Systems stats report of CUDA API calls
    (cuda_api_sum) — host-side call times"`` —, or None when ``head`` holds no such report header
    (:data:`_NSYS_STATS_HEAD`; a kernel summary is no such report: its collector reads it)."""
    said, start = [], 0
    for m in _NSYS_STATS_HEAD.finditer(head):
        cols = [c.strip().strip('"') for c in m.group(1).decode("utf-8", "replace").split(",")]
        if cols[0].startswith("Start"):
            holds = ("CUDA API calls", "host-side call times")
        elif cols[-1] == "Name" and "Num Calls" in cols:
            row = head[m.end():].lstrip().split(b"\n", 1)[0].decode("utf-8", "replace")
            cuda = re.search(r",\s*\"?(?:cu|nccl)\w*\"?\s*$", row) is not None
            holds = ("CUDA API calls" if cuda else "API calls (OS runtime or other libraries)", "host-side call times")
        elif cols[-1] in _NSYS_HOLDS:
            holds = _NSYS_HOLDS[cols[-1]]
        else:  # a kernel summary no collector took, or a report of another layout: not named by guess
            return None
        names = list(_NSYS_REPORT_NAME.finditer(head[start:m.start()]))
        name = (names[-1].group(1) or names[-1].group(2)).decode() if names else ""
        report = f" ({name})" if name else ""
        if name.startswith("osrt"):  # osrt_sum / osrtsum: the OS runtime library's calls, whatever their names
            holds = ("OS runtime calls", holds[1])
        said.append(f"{holds[0]}{report} — {holds[1]}")
        start = m.end()
    if not said:
        return None
    return ("an Nsight Systems stats report of " if len(said) == 1 else "Nsight Systems stats reports of ") + \
        "; ".join(dict.fromkeys(said))


def nsys_stats_note(head: bytes) -> DeviceWorkNote | None:
    """The error reason (exit 5 from ``analyze``) for an ``nsys stats`` CSV whose reports hold no kernel
    (:func:`nsys_stats_holds` of its ``head``): what they hold and which report to analyse instead; None when
    ``head`` holds no such report."""
    what = nsys_stats_holds(head)
    return None if what is None else DeviceWorkNote(_ADVICE["nsys_stats"].format(what=what))


#: the file of the same run that a hint tells the user to record, by kind: (glob patterns beside the file, the
#: advice's parenthesis that says how to record it). When one is there, the hint names it instead of telling the
#: user to record what they have.
_COMPANIONS = {
    "pc_sampling": (("*kernel_trace.csv", "*results.db"),
                    " (rocprofv3 --kernel-trace writes <pid>_kernel_trace.csv beside it)"),
    "att_stats": (("*kernel_trace.csv", "*results.db"),
                  " (rocprofv3 --kernel-trace: <pid>_kernel_trace.csv, or its <pid>_results.db)"),
    "memory_timeline": (("*.pt.trace.json", "*.pt.trace.json.gz"), " (export_chrome_trace's .pt.trace.json)"),
}


def _with_companion(p: Path, kind: str, advice: str) -> str:
    """``advice`` with its "how to record the companion file" parenthesis replaced by the companion's name when a
    file of that kind lies beside ``p`` (the same process id prefix first); unchanged when none is there or the folder
    cannot be listed."""
    if kind not in _COMPANIONS:
        return advice
    patterns, how = _COMPANIONS[kind]
    try:
        found = sorted({f.name for pat in patterns for f in p.parent.glob(pat) if f.is_file() and f != p})
    except OSError:
        return advice
    if not found:
        return advice
    pid = p.name.split("_", 1)[0] + "_"
    same_run = [n for n in found if n.startswith(pid)] or found
    more = f" ({len(found) - 1} more of its kind there)" if len(found) > 1 else ""
    return advice.replace(how, f": {same_run[0]}, beside it{more}")
