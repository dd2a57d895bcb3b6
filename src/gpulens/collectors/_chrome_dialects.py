"""Which program wrote a Chrome-trace JSON file, and how its process/thread metadata places events.

The Kineto collector reads any ``{"traceEvents": [...]}`` file; only PyTorch Profiler (Kineto) output may be analysed
as Kineto. This module decides the producer from what the file itself says (rules below, as data) and, for the one
other producer gpulens reads — the JAX / XLA / TensorFlow profiler's GPU traces — which process is which GPU and
which thread is a GPU stream.

Producer rules (first match wins; ``reads`` says whether gpulens analyses it):

=================  ==================================================================  =====  =======================
producer           evidence in the file                                                reads  source
=================  ==================================================================  =====  =======================
TensorFlow 1.x     ``process_name`` ``<device> Compute`` of a GPU tracer device          yes    TensorFlow
timeline           (``/device:GPU:N/stream:S``, ``…/stream:all``, ``…/memcpy``; TF ≤ 1.4         python/client/
                   ``/gpu:N/…``), its events of category ``Op``                                 timeline.py
XLA (JAX/TF) GPU   a ``process_name`` ``/device:GPU:N`` (optionally ``/job:…/…``        yes    TensorFlow profiler
                   prefix, or ``/device:XLA_GPU:N``)                                           trace_events_to_json.cc
XLA (JAX/TF) TPU   ``/device:TPU:N`` processes and no GPU process                       no     same
XLA (JAX/TF) host  only ``/host:CPU`` processes                                         no     same
Chrome browser     categories ``devtools.timeline``, ``blink``, ``v8``, ``toplevel``,    no     Chromium trace_event
                   ``disabled-by-default-…``                                                   categories
Kineto             any interval event of a Kineto category (``kernel``, ``cpu_op``,      yes    kineto output_json.cpp
                   ``cuda_runtime``, …) or Kineto header keys (``deviceProperties``,
                   ``schemaVersion``, ``distributedInfo``, ``baseTimeNanoseconds``)
rpd2tracing        category-less events; ``process_name`` ``GPU<N>`` metadata of pid ``N``   yes    rocmProfileData
(rocmProfileData)  for each GPU (the RPD ``gpuId``), no Kineto category                           tools/rpd2tracing.py
ONNX Runtime       only ``Session`` / ``Node`` categories (``SessionOptions.enable_profiling``   no     onnxruntime
(no GPU kernels)   without CUDA profiling; with it, ``Kernel`` events make it read as Kineto,         profiler.cc
                   their device unknown → GPU 0, see :mod:`._kineto_ranks`)
legacy autograd    category-less events of pids ``"CPU functions"`` / ``"CUDA           no     torch/autograd/
profiler           functions"`` (``torch.autograd.profiler`` before Kineto, PyTorch            profiler.py ≤ 1.7
                   ≤ 1.7): its GPU intervals are per *operator* (CUDA events around            export_chrome_trace
                   each op, nested like the ops), not kernels — refused with the
                   command that records a Kineto trace
unknown            interval events, none with a Kineto category, no Kineto keys         no     —
                   (or no interval event, no Kineto key, only foreign categories in
                   the first 64 KiB: :func:`foreign_events_refusal`)
=================  ==================================================================  =====  =======================

XLA GPU dialect (TensorFlow profiler ``ConvertXSpaceToTraceEvents``): each ``/device:GPU:N`` process is GPU ``N``;
its threads named ``Stream #S(…)`` hold the GPU activities of stream ``S`` (kernels, ``Memcpy*``, ``Memset*``);
its other threads (``XLA Modules``, ``XLA Ops``, ``Steps``, …) are ranges over those activities (annotations, so
they are never counted twice). An unnamed thread of a GPU process is taken as a stream with its ``tid``.
Events of ``/host:…`` processes are host events of kind ``other``.

TensorFlow 1.x timeline dialect (``tf.python.client.timeline.Timeline.generate_chrome_trace_format``, from a
``RunMetadata``'s step stats): one process ``<device> Compute`` per step-stats device, every op an ``X`` event of
category ``Op`` named by its op type (``args.name`` = the node); tids are drawing lanes, not threads. The GPU tracer's
devices (``/device:GPU:N/stream:S``, ``/device:GPU:N/stream:all``, ``/device:GPU:N/memcpy``) hold its CUPTI
records: each kernel is written to ``stream:all`` *and* to its ``stream:S``, each copy to ``memcpy`` and to its
``stream:S`` (TensorFlow core/platform/default/device_tracer.cc), so only the ``stream:S`` processes are GPU work (kind
from the name: ``MEMCPYHtoD``… are copies) and the other two are ranges over it (``annotation``, never counted twice;
when a GPU has no ``stream:S`` process, its ``stream:all`` or ``memcpy`` events are its work). TensorFlow on ROCm
writes the kernel's name in the op's ``args.kernel`` (its event name is the op type): that name is the kernel's. The
executor's op events (``/job:…/device:GPU:N Compute``, ``…/device:CPU:N Compute``) are host events of kind ``other``.

Several hosts in one XLA / TensorFlow trace (``/job:J/replica:R/task:T/device:GPU:N`` processes of two tasks or more):
each host numbers its GPUs from 0, so each host is a rank (:func:`host_ranks`) and GPU 0 of two hosts stays two GPUs.

rpd2tracing dialect (rocmProfileData ``tools/rpd2tracing.py``, a Chrome trace converted from an RPD SQLite file):
every GPU operation (``rocpd_op``) is an ``X`` event of pid ``gpuId`` (named ``GPU<gpuId>``) and tid ``queueId``,
named by its kernel name (or its op type when it has none), with ``args.desc`` = its op type, mapped as the RPD
collector maps op types (:data:`gpulens.collectors.rpd.OP_KINDS`: kernel, copy, fill); the other events of a GPU
process are ranges over that work (``UserMarker frame: N ops``, ``Graph <exec>`` with ``args.kernels``) →
``annotation``, and barrier/marker packets stay ``other``. Host events (pid = process id) are the HIP/HSA calls
(name = API, ``args.desc`` = its arguments) → ``runtime``, and roctx ranges (``UserMarker``: name = ``args.desc`` =
the range text) → ``annotation``. The ``api_op`` flow events linking a call to its ops are not read: launches are
not linked to their kernels (analysing the ``.rpd`` file itself links them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gpulens.collectors._numbers import DIGITS

#: ``/device:GPU:3``, ``/job:localhost/replica:0/task:0/device:GPU:3``, ``/device:XLA_GPU:3``
_XLA_DEVICE = re.compile(rf"^(?:/job:[^/]+/replica:[0-9]+/task:[0-9]+)?/device:(XLA_)?(GPU|TPU|CPU):({DIGITS})\b")
_XLA_HOST = re.compile(r"^/host:")
#: a TensorFlow 1.x timeline GPU-tracer process: ``/device:GPU:0/stream:22 Compute``, ``/gpu:0/stream:all Compute``,
#: ``/device:GPU:1/memcpy Compute``, a ROCm fork's ``/device:GPU:0/stream:MemcpyHtoD`` (group 1: GPU, 2: stream
#: number, ``all`` or None for the copy processes)
_TF_TRACER = re.compile(rf"^(?:/job:[^/]+/replica:[0-9]+/task:[0-9]+)?/(?:device:)?(?:XLA_)?GPU:({DIGITS})"
                        rf"/(?:stream\s*[:#]\s*({DIGITS}|all)|memcpy|stream:Memcpy[A-Za-z]*)(?: Compute)?$",
                        re.ASCII | re.IGNORECASE)
#: a TensorFlow 1.x timeline's executor process of a GPU: ``/job:localhost/replica:0/task:0/device:GPU:0 Compute``
_TF_GPU_DEVICE = re.compile(rf"^(?:/job:[^/]+/replica:[0-9]+/task:[0-9]+)?/(?:device:)?(?:XLA_)?GPU:({DIGITS}) "
                            r"Compute$", re.ASCII | re.IGNORECASE)
TF_TIMELINE = "tensorflow-timeline"  #: the producer label of TensorFlow 1.x's timeline.py Chrome trace
PLACED_BY_PROCESS = ("xla-gpu", TF_TIMELINE)  #: producers whose GPU work is placed by process / thread names
_XLA_STREAM = re.compile(rf"^Stream\s*#?\s*({DIGITS})", re.IGNORECASE)
_RPD_GPU = re.compile(r"^GPU([0-9]+)$")
_BROWSER_CATS = re.compile(r"^(devtools\.timeline|blink|v8|toplevel|cc|gpu|viz|disabled-by-default-)")
RPD_JSON = "rpd2tracing"  #: the producer label of rocmProfileData's Chrome trace (see the module docstring)
KINETO_HEADER_KEYS = ("deviceProperties", "computeProperties", "schemaVersion", "distributedInfo", "baseTimeNanoseconds", "traceName")


@dataclass
class Dialect:
    """What the metadata of a Chrome trace says about its producer.

    Attributes:
        producer: ``"kineto"``, ``"xla-gpu"``, or the label of a producer gpulens does not read.
        reads: gpulens analyses this producer's files.
        reason: one sentence with the evidence (for the refusal message).
        gpu_pids: XLA: pid → GPU index of each ``/device:GPU:N`` process.
        stream_of: XLA: (pid, tid) → stream of the GPU threads named ``Stream #S``.
        ranges: XLA: (pid, tid) of the other named threads of GPU processes (ranges over the GPU work).
        pid_stream: TensorFlow timeline: pid → stream of each ``…/stream:S`` process (-1: a GPU's ``stream:all`` or
            ``memcpy`` process read as its work because the GPU has no ``stream:S`` process).
        range_pids: TensorFlow timeline: the ``stream:all`` / ``memcpy`` processes that repeat the ``stream:S`` work.
        placement: how the events were placed (the end of the collector's "read as" warning).
        gpu_devices: XLA / TensorFlow timeline: the process names that are GPU devices (for
            :func:`untraced_gpu_note`).
        pid_rank: XLA / TensorFlow timeline of several hosts: pid → rank of each process named under a
            ``/job:J/replica:R/task:T`` host (:func:`host_ranks`), so GPU 0 of two hosts stays two GPUs.
    """

    producer: str
    reads: bool
    reason: str = ""
    gpu_pids: dict[int, int] = field(default_factory=dict)
    stream_of: dict[tuple[int, int], int] = field(default_factory=dict)
    ranges: set[tuple[int, int]] = field(default_factory=set)
    pid_stream: dict[int, int] = field(default_factory=dict)
    range_pids: set[int] = field(default_factory=set)
    placement: str = ("events of GPU processes on 'Stream' threads are GPU work; host events are kept as kind "
                      "'other'")
    gpu_devices: list[str] = field(default_factory=list)
    pid_rank: dict[int, int] = field(default_factory=dict)


def identify(process_names: dict[int, str], thread_names: dict[tuple[int, int], str], categories: set[str],
             interval_events: int, header_keys: set[str]) -> Dialect:
    """The producer of a Chrome trace (rules in the module docstring).

    Args:
        process_names: pid → ``process_name`` metadata.
        thread_names: (pid, tid) → ``thread_name`` metadata.
        categories: lower-cased categories of the interval (``X``) events (``""`` for an event without one).
        interval_events: number of ``X`` events.
        header_keys: top-level keys of the document that were present.
    """
    from gpulens.collectors._kineto_kinds import CATEGORY_KIND

    gpus, tpus, hosts = {}, [], []
    for pid, name in process_names.items():
        m = _XLA_DEVICE.match(name or "")
        if m and m.group(2) == "GPU":
            gpus[pid] = int(m.group(3))
        elif m and m.group(2) == "TPU":
            tpus.append(name)
        elif m or _XLA_HOST.match(name or ""):
            hosts.append(name)
    kineto_cats = categories & (set(CATEGORY_KIND) | {"trace"})
    if not kineto_cats and (tf := tensorflow_timeline(process_names)) is not None:
        tf.pid_rank = host_ranks(process_names)
        return tf
    if gpus and not kineto_cats:
        streams = {}
        for (pid, tid), tname in thread_names.items():
            if pid in gpus:
                m = _XLA_STREAM.match(tname or "")
                if m:
                    streams[(pid, tid)] = int(m.group(1))
        ranges = {k for k in thread_names if k[0] in gpus} - set(streams)
        return Dialect("xla-gpu", True, "process names /device:GPU:N", gpus, streams, ranges,
                       gpu_devices=sorted(process_names[p] for p in gpus), pid_rank=host_ranks(process_names))
    if tpus and not kineto_cats:
        return Dialect("JAX/XLA profiler (TPU)", False,
                       f"its processes are TPU devices ({tpus[0]!r}); gpulens reads GPU traces only")
    if hosts and not kineto_cats:
        return Dialect("JAX/XLA profiler (host only)", False,
                       f"it records only host processes ({hosts[0]!r}) and no GPU device (if the program ran on a "
                       "GPU, the profiler's GPU tracer recorded nothing: CUPTI not loaded or not permitted)")
    if "node" in categories and categories <= {"node", "session", ""}:
        return Dialect("ONNX Runtime profiler", False, "its events are Session and Node (operator) timings, no GPU "
                       "kernel: ONNX Runtime records its CUDA kernels (Kernel events, which gpulens reads) only in "
                       "builds with CUDA profiling (onnxruntime_ENABLE_CUDA_PROFILING)")
    rpd_gpus = {pid: int(m.group(1)) for pid, name in process_names.items()
                if (m := _RPD_GPU.match(name or "")) and int(m.group(1)) == pid}
    if rpd_gpus and not kineto_cats and not header_keys & set(KINETO_HEADER_KEYS) and categories <= {"", "api_op"}:
        return Dialect(RPD_JSON, True, "process names GPU<N> of pid N, no categories (rocmProfileData "
                       "rpd2tracing output)", rpd_gpus)
    browser = sorted(c for c in categories if _BROWSER_CATS.match(c))
    if browser and not kineto_cats:
        return Dialect("Chrome browser / Perfetto", False, f"its categories are Chromium's ({browser[0]!r})")
    if kineto_cats or header_keys & set(KINETO_HEADER_KEYS) or not interval_events:
        return Dialect("kineto", True)
    shown = ", ".join(repr(c) for c in sorted(categories)[:3] if c) or "no categories at all"
    return Dialect("unknown producer", False,
                   f"none of its {interval_events} interval events has a PyTorch Profiler category ({shown})")


def tensorflow_timeline(process_names: dict[int, str]) -> Dialect | None:
    """The TensorFlow 1.x timeline dialect (module docstring) when a process is a GPU-tracer device, else None.

    Args:
        process_names: pid → ``process_name`` metadata.
    """
    tracer = {pid: m for pid, name in process_names.items() if (m := _TF_TRACER.match(name or ""))}
    devices = sorted(name for name in process_names.values() if _TF_GPU_DEVICE.match(name or ""))
    if not tracer:  # GPU executors without the GPU tracer's processes: the GPU side was not recorded
        return Dialect(TF_TIMELINE, True, "process names /device:GPU:N Compute, no /stream:S process",
                       placement="its events are the executor's ops (kind 'other'): no GPU tracer process",
                       gpu_devices=devices) if devices else None
    gpus = {pid: int(m.group(1)) for pid, m in tracer.items()}
    numbered = {pid: int(m.group(2)) for pid, m in tracer.items() if m.group(2) and m.group(2).lower() != "all"}
    with_streams = {gpus[pid] for pid in numbered}
    repeats = {pid for pid in tracer if pid not in numbered and gpus[pid] in with_streams}
    alone = {pid: -1 for pid in tracer if pid not in numbered and pid not in repeats}
    return Dialect(TF_TIMELINE, True, "process names /device:GPU:N/stream:S Compute", gpus,
                   pid_stream={**numbered, **alone}, range_pids=repeats,
                   placement="events of the /device:GPU:N/stream:S processes are GPU N's work on stream S (TensorFlow "
                             "1.x's timeline.py names them by op type, not kernel name); the stream:all and memcpy "
                             "processes repeat them (not counted twice); the executor's op events are kept as kind "
                             "'other'", gpu_devices=devices or sorted(process_names[p] for p in gpus))


#: the host prefix of a distributed TensorFlow / XLA device name: ``/job:worker/replica:0/task:3/…``
_TASK = re.compile(rf"^/job:([^/]+)/replica:({DIGITS})/task:({DIGITS})/")


def host_ranks(process_names: dict[int, str]) -> dict[int, int]:
    """pid → rank of the processes whose names start with a ``/job:J/replica:R/task:T/`` host when the trace names
    two hosts or more (a multi-host XLA / distributed TensorFlow trace: each host's ``/device:GPU:N`` numbering starts
    at 0, so the GPU index alone would merge GPU 0 of every host); {} for one host or none. The rank is the task
    number when every host is of one job and replica (``/job:worker/replica:0/task:3`` → rank 3), else the host's
    position among the hosts sorted by (job, replica, task)."""
    hosts = {pid: (m.group(1), int(m.group(2)), int(m.group(3)))
             for pid, name in process_names.items() if (m := _TASK.match(name or ""))}
    keys = sorted(set(hosts.values()))
    if len(keys) < 2:
        return {}
    one_job = len({(j, r) for j, r, _ in keys}) == 1
    order = {k: (k[2] if one_job else i) for i, k in enumerate(keys)}
    return {pid: order[k] for pid, k in hosts.items()}


def untraced_gpu_note(dialect: Dialect, gpu_events: int) -> str | None:
    """The incomplete-capture sentence for an XLA / TensorFlow timeline trace that names GPU devices but holds no
    GPU activity (``gpu_events`` = 0): its GPU tracer (CUPTI) recorded nothing, so the GPU work is missing, not
    absent; None otherwise."""
    if dialect.producer not in PLACED_BY_PROCESS or gpu_events or not dialect.gpu_devices:
        return None
    shown = ", ".join(repr(n) for n in dialect.gpu_devices[:2]) + (", …" if len(dialect.gpu_devices) > 2 else "")
    return (f"the trace names GPU devices ({shown}) but holds no GPU activity: the profiler's GPU tracer recorded "
            "nothing (CUPTI, or roctracer on ROCm, not loaded — libcupti not on LD_LIBRARY_PATH — or not permitted: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES); profile again with the GPU tracer available")


#: PaddlePaddle's profiler (paddle/fluid/platform/profiler/chrometracing_logger.cc, ``"%s[%s]"``) appends each event's
#: duration to its name: ``volta_sgemm_128x64_nn[30.700 us]``, ``matmul dygraph[1.234 ms]``
_PADDLE_SUFFIX = re.compile(r"\[[0-9]+\.[0-9]{3} (?:us|ms)\]\Z", re.ASCII)


def paddle_names(names):
    """The event names of a PaddlePaddle profiler trace without the duration Paddle appends to each (so the calls of
    one kernel or op are grouped as one name), or None when the names are not Paddle's (fewer than 95 % of the
    distinct names end with such a suffix).

    Args:
        names: the ``name`` column (a pandas Categorical).
    Returns:
        A Categorical of the stripped names (names that become equal are one category), or None.
    """
    import numpy as np
    import pandas as pd

    cats = names.categories
    if not len(cats) or sum(bool(_PADDLE_SUFFIX.search(str(c))) for c in cats[:20]) < 0.95 * min(len(cats), 20):
        return None  # the first names tell a Kineto trace apart at once (no pass over thousands of names)
    cats = pd.Index(cats).astype(str)
    if cats.str.contains(_PADDLE_SUFFIX).mean() < 0.95:
        return None
    uniq, inv = np.unique(np.asarray(cats.str.replace(_PADDLE_SUFFIX, "", regex=True), dtype=object),
                          return_inverse=True)
    codes = np.asarray(names.codes)
    return pd.Categorical.from_codes(np.where(codes >= 0, inv[np.maximum(codes, 0)], -1), categories=uniq)


_LEGACY_PID = re.compile(rb'"pid"\s*:\s*"(CPU|CUDA) functions"')


def legacy_autograd_refusal(path) -> str | None:
    """The refusal for a pre-Kineto ``torch.autograd.profiler`` Chrome trace (see the producer table), or None.

    Looks at the first 64 KiB of the (decompressed) file for its ``"pid": "CPU functions"`` / ``"CUDA functions"``.
    """
    from gpulens.collectors._io import read_head

    m = _LEGACY_PID.search(read_head(path, 65536))
    if m is None:
        return None
    return ("a legacy torch.autograd.profiler trace (PyTorch ≤ 1.7: pids \"CPU functions\" / \"CUDA functions\"): "
            "its GPU times are per operator, measured with CUDA events and nested like the operators, not "
            "kernels, so kernel counts and GPU busy time cannot be derived from it; record a Kineto trace with "
            "torch.profiler.profile(activities=[CPU, CUDA]) (PyTorch ≥ 1.8.1) and prof.export_chrome_trace()")


_CATEGORY = re.compile(rb'"cat"\s*:\s*"([^"\\]{0,80})"')
#: Kineto's categories gpulens reads no kind from (libkineto ActivityType names, flow and "Trace" events)
_KINETO_OTHER_CATEGORIES = {"external_correlation", "cpu_instant_event", "overhead", "glow_runtime",
                            "mtia_ccp_events", "mtia_insight", "hpu_op", "collective_comm", "ac2g", "fwdbwd",
                            "trace"}


def foreign_events_refusal(path) -> str | None:
    """The refusal for a Chrome trace with no interval (``X``) event and no Kineto header key whose events all carry
    categories no PyTorch Profiler writes (an application's own trace of async ``b``/``e`` spans: ``"cat":
    "resnet50"``), judged from the first 64 KiB of the (decompressed) file; None when a Kineto category, or no
    category at all, is found there (an empty Kineto trace is read as one: no GPU work)."""
    from gpulens.collectors._io import read_head
    from gpulens.collectors._kineto_kinds import CATEGORY_KIND, category_key

    cats = {m.group(1).decode("utf-8", "replace") for m in _CATEGORY.finditer(read_head(path, 65536))}
    if not cats or {category_key(c) for c in cats} & (set(CATEGORY_KIND) | _KINETO_OTHER_CATEGORIES):
        return None
    shown = ", ".join(repr(c) for c in sorted(cats)[:3])
    return refusal(Dialect("unknown producer", False, "it has no interval (X) events and none of its events has a "
                                                      f"PyTorch Profiler category ({shown})"))


def refusal(dialect: Dialect) -> str:
    """The one-line message for a Chrome trace gpulens does not read."""
    return (f"not a PyTorch Profiler (Kineto) trace: looks like {dialect.producer} output — {dialect.reason}; "
            "gpulens does not analyse it as Kineto")


#: not re.ASCII: DIGITS' lookarounds must see other scripts' digits (``grid:8,4,1٣`` is no grid, not 8×4×1)
_DETAIL = re.compile(rf"(?<![\w])(regs|static_shared|dynamic_shared|grid|block|size):\s*({DIGITS}(?:,{DIGITS})*)(?!,)")


def xla_kernel_details(text: str) -> dict[str, int]:
    """XLA's ``kernel_details`` text (``regs:128 static_shared:0 dynamic_shared:73728 grid:8,8,1 block:256,1,1``;
    grid in blocks) → Timeline launch columns keyed as the Kineto accumulator's (``grid_x``…, ``regs``, ``smem``);
    a copy's ``memcpy_details`` (``kind_src:pinned kind_dst:device size:4194304 dest:0 async:1``, older XLA
    ``kind:pageable size:8 dest:0 async:1``: XLA's GPU tracer, xla/backends/profiler/gpu) → ``bytes``."""
    out: dict[str, int] = {}
    for key, val in _DETAIL.findall(text or ""):
        if key == "size":
            out["bytes"] = int(val.split(",")[0])
            continue
        nums = [int(v) for v in val.split(",") if v]
        if key in ("grid", "block"):
            out.update({f"{key}_{a}": n for a, n in zip("xyz", nums)})
        elif key == "regs" and nums:
            out["regs"] = nums[0]
        elif key == "static_shared" and nums:
            out["smem"] = nums[0]
    return out
