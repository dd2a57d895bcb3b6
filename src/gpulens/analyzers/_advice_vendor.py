"""Tool and vendor words of the advice (read by :mod:`gpulens.analyzers._advice` and every analyzer through it):
how to record the host side or limit the recording in the tool that wrote the input, and the GPU engineers' words
(SM or CU, warp or wavefront, shared memory or LDS) of the input's vendor."""

from __future__ import annotations

import re
from typing import Any

from gpulens.devices.naming import is_amd


#: How to record the host side (the launch calls that tie a GPU gap to its cause) with the tool that wrote the
#: input, by collector-name prefix (first match): advice in the user's own tool, not another one.
HOST_TRACE = (("kineto", "torch.profiler with ProfilerActivity.CPU"),
              ("rocprofv3", "rocprofv3 --runtime-trace: HIP API calls beside the kernel dispatches"),
              ("rocpd", "rocprofv3 --runtime-trace: HIP API calls beside the kernel dispatches"),
              ("omniperf", "rocprofv3 --runtime-trace: HIP API calls beside the kernel dispatches"),
              ("rocprof", "rocprof --hip-trace, or rocprofv3 --runtime-trace"),
              ("nsys", "nsys profile --trace=cuda,osrt: CUDA API calls beside the kernels"),
              ("ncu", "nsys profile --trace=cuda,osrt: ncu replays kernels one at a time and records no gaps"))


#: GPU engineers' words for the same things, per vendor (NVIDIA CUDA Programming Guide; AMD HIP Programming Guide):
#: an NVIDIA input reads SM / warp / shared memory / nsys, an AMD one CU / wavefront / LDS / rocprofv3, and one whose
#: vendor is unknown reads both (``SM/CU``). Every user-facing sentence that names one goes through :func:`vendor_word`.
VENDOR_WORDS = {
    "nvidia": {"sm": "SM", "sms": "SMs", "warp": "warp", "warps": "warps", "smem": "shared memory",
               "graphs": "CUDA graphs", "graph": "CUDA graph",
               "host_trace": "nsys profile --trace=cuda,osrt: CUDA API calls beside the kernels",
               "counters": "ncu", "tensor": "tensor cores", "barrier": "__syncthreads()",
               "async_copy": "cp.async/TMA or shared-memory double-buffering",
               "reg_cap": "__launch_bounds__ / -maxrregcount", "device_sync": "cudaDeviceSynchronize",
               "stream_sync": "cudaStreamSynchronize", "occ_section": "ncu's Occupancy section",
               "full_counters": "ncu --set full", "lmem": "local memory",
               "block": "block", "blocks": "blocks", "regs": "registers"},
    "amd": {"sm": "CU", "sms": "CUs", "warp": "wavefront", "warps": "wavefronts", "smem": "LDS",
            "graphs": "HIP graphs", "graph": "HIP graph",
            "host_trace": "rocprofv3 --runtime-trace: HIP API calls beside the kernel dispatches",
            "counters": "rocprof-compute", "tensor": "MFMA matrix cores", "barrier": "__syncthreads() (s_barrier)",
            "async_copy": "LDS double-buffering", "reg_cap": "__launch_bounds__ or amdgpu_waves_per_eu",
            "device_sync": "hipDeviceSynchronize", "stream_sync": "hipStreamSynchronize",
            "occ_section": "rocprof-compute's wavefront occupancy figures", "full_counters": "rocprof-compute profile",
            "lmem": "scratch memory", "block": "workgroup", "blocks": "workgroups", "regs": "VGPRs"},
    None: {"sm": "SM/CU", "sms": "SMs/CUs", "warp": "warp/wavefront", "warps": "warps/wavefronts",
           "smem": "shared memory (LDS)", "graphs": "CUDA/HIP graphs", "graph": "CUDA/HIP graph",
           "host_trace": "nsys with CUDA API tracing, rocprofv3 --runtime-trace", "counters": "ncu / rocprof-compute",
           "tensor": "tensor cores / MFMA", "barrier": "__syncthreads()/s_barrier",
           "async_copy": "cp.async/TMA or LDS double-buffering",
           "reg_cap": "__launch_bounds__ / -maxrregcount (AMD: __launch_bounds__ or amdgpu_waves_per_eu)",
           "device_sync": "cudaDeviceSynchronize", "stream_sync": "cudaStreamSynchronize",
           "occ_section": "ncu's Occupancy section / rocprof-compute's wavefront stats",
           "full_counters": "ncu --set full, or rocprof-compute", "lmem": "local (scratch) memory",
           "block": "block (workgroup)", "blocks": "blocks (workgroups)", "regs": "registers (VGPRs)"},
}
_AMD_COLLECTORS = ("rocprof", "rocpd", "omniperf", "rocminfo")
_NVIDIA_COLLECTORS = ("ncu", "nsys")


def vendor_word(vendor: str | None, key: str) -> str:
    """The word for ``key`` (``sm``, ``sms``, ``warp``, ``warps``, ``smem``, ``graphs``, ``host_trace``,
    ``counters``) in ``vendor``'s terms (:data:`VENDOR_WORDS`; ``"amd"``, ``"nvidia"``, anything else: both)."""
    return VENDOR_WORDS.get(vendor if vendor in ("amd", "nvidia") else None)[key]


def vendor_text(template: str, vendor: str | None) -> str:
    """``template`` with each ``{key}`` of :data:`VENDOR_WORDS` in ``vendor``'s words (``{Key}``: capitalised), so
    one sentence of advice serves both vendors and never tells an AMD user about SMs, warps or CUDA, nor an NVIDIA
    user about CUs, wavefronts or HIP; both vendors' words when the vendor is unknown."""
    words = VENDOR_WORDS.get(vendor if vendor in ("amd", "nvidia") else None)
    return template.format_map({**words, **{k[:1].upper() + k[1:]: v[:1].upper() + v[1:] for k, v in words.items()}})


#: NVIDIA's "block" in AMD's word (HIP Programming Guide: a thread block is a workgroup): whole lower-case words
#: only, so a Triton ``BLOCK_M`` or a kernel name's ``reduce_block_kernel`` is never touched.
_AMD_BLOCK_WORDS = ((re.compile(r"\bthread blocks\b"), "workgroups"), (re.compile(r"\bthread block\b"), "workgroup"),
                    (re.compile(r"(?<![_<>\w])blocks\b(?![_>])"), "workgroups"),
                    (re.compile(r"(?<![_<>\w])block\b(?![_>])"), "workgroup"),
                    (re.compile(r"(?<![_<>\w])Blocks\b(?![_>])"), "Workgroups"),
                    (re.compile(r"(?<![_<>\w])Block\b(?![_>])"), "Workgroup"))


def amd_block_words(text: str, vendor: str | None) -> str:
    """``text`` with CUDA's "block(s)" / "thread block(s)" as AMD's "workgroup(s)" when ``vendor`` is ``amd``
    (advice sentences built around a grid of blocks: "Give the launch more blocks", "empty block slots",
    "resident-block capacity"); unchanged for NVIDIA or an unknown vendor."""
    if vendor != "amd" or not text:
        return text
    for rx, word in _AMD_BLOCK_WORDS:
        text = rx.sub(word, text)
    return text


def for_vendor(vendor: str | None, nvidia: str, amd: str) -> str:
    """The NVIDIA or the AMD phrase of a collection hint for ``vendor``'s input; both (``"<nvidia>, or <amd>"``)
    when the vendor is unknown — a skip reason never sends an ncu user to rocprof, nor the reverse."""
    return nvidia if vendor == "nvidia" else amd if vendor == "amd" else f"{nvidia}, or {amd}"


def vendor_of(timeline: Any, device: Any = None) -> str | None:
    """``"amd"`` / ``"nvidia"`` of the input: the device spec's vendor, else the recorded device (an AMD ``gfx``
    architecture / a CUDA compute capability), else the collectors that read it when all are one vendor's
    (rocprof*/rocpd/omniperf/rocminfo; ncu/nsys), else the runtime API its host calls use (:func:`_runtime_vendor`);
    None when unknown (a Kineto trace without device properties or runtime calls)."""
    v = getattr(device, "vendor", None)
    if v in ("amd", "nvidia"):
        return v
    seen = set()
    for d in getattr(timeline.meta, "devices", None) or []:
        if not isinstance(d, dict):
            continue
        if str(d.get("vendor") or "").lower() in ("amd", "nvidia"):
            seen.add(str(d["vendor"]).lower())
        elif str(d.get("arch") or "").startswith("gfx") or is_amd(d):
            # a gfx target, a 64-wide wavefront or an AMD name: ROCm's PyTorch profiler records a compute
            # capability too (9.4 on an MI300X), which is no CUDA one
            seen.add("amd")
        elif d.get("compute_major") is not None or d.get("compute_capability") is not None:
            seen.add("nvidia")
    if len(seen) == 1:
        return seen.pop()
    names = {str(s.get("collector", "")) for s in timeline.meta.sources}
    if names and all(n.startswith(_AMD_COLLECTORS) for n in names):
        return "amd"
    if names and all(n.startswith(_NVIDIA_COLLECTORS) for n in names):
        return "nvidia"
    return _runtime_vendor(timeline)


#: A runtime/driver call of one vendor's API: CUDA runtime (``cudaLaunchKernel``) or driver (``cuLaunchKernel``);
#: HIP (``hipLaunchKernel``, ``hipExtModuleLaunchKernel``).
_CUDA_CALL = re.compile(r"^(?:cuda[A-Z]|cu[A-Z])")
_HIP_CALL = re.compile(r"^hip[A-Z]")


def _runtime_vendor(timeline: Any) -> str | None:
    """The vendor whose runtime API the input's host calls use, when they use one only: a Kineto trace without
    device properties (the legacy TensorBoard-plugin ResNet-50 trace records cudaLaunchKernel and no GPU name) is
    an NVIDIA run when its runtime calls are cuda*/cu* and an AMD one when they are hip*; None when it records no
    such call or both. Computed once per Timeline."""
    from gpulens.analyzers.context import context_of

    def compute() -> str | None:
        ev = timeline.events
        if not len(ev):
            return None
        names = ev.loc[ev["kind"] == "runtime", "name"]
        names = names.astype(object).dropna().unique()
        cuda = any(isinstance(n, str) and _CUDA_CALL.match(n) for n in names)
        hip = any(isinstance(n, str) and _HIP_CALL.match(n) for n in names)
        return "nvidia" if cuda and not hip else "amd" if hip and not cuda else None

    return context_of(timeline).memo("advice.runtime_vendor", compute)


def host_trace(timeline: Any, device: Any = None) -> str | None:
    """How to record the host side with the profiler that wrote ``timeline`` (:data:`HOST_TRACE`; collectors that
    read no events, such as rocminfo's device file, left out), else in the input's vendor's tool
    (:func:`vendor_of`); None when neither is known (the generic wording then names both vendors')."""
    names = {str(s.get("collector", "")) for s in timeline.meta.sources}
    hits = {next((how for pre, how in HOST_TRACE if n.startswith(pre)), None) for n in names} - {None}
    if len(hits) == 1:
        return hits.pop()
    vendor = vendor_of(timeline, device)
    return vendor_word(vendor, "host_trace") if vendor else None


#: How to limit the recording to the GPU work with the tool that wrote the input (collector-name prefix → phrase).
PROFILER_RANGE = (("kineto", "torch.profiler's schedule (wait/warmup/active)"),
                  ("rocprofv3", "rocprofv3 --collection-period, or roctxProfilerPause/Resume with --selected-regions"),
                  ("rocpd", "rocprofv3 --collection-period, or roctxProfilerPause/Resume with --selected-regions"),
                  ("rocprof", "rocprofv3 --collection-period, or roctxProfilerPause/Resume with --selected-regions"),
                  ("omniperf", "rocprofv3 --collection-period, or roctxProfilerPause/Resume with --selected-regions"),
                  ("nsys", "nsys --capture-range=cudaProfilerApi with cudaProfilerStart/Stop around the region, or "
                           "--delay/--duration"))


def profiler_range(timeline: Any) -> str:
    """How to make the recording cover the GPU work, in the input's own tool (:data:`PROFILER_RANGE`; collectors
    that read no events left out), else in its vendor's (:func:`vendor_of`: rocprofv3 for AMD); PyTorch's and
    Nsight Systems' ways for an NVIDIA or mixed input, and rocprofv3's too when the vendor is unknown."""
    names = {str(s.get("collector", "")) for s in timeline.meta.sources}
    hits = {next((how for pre, how in PROFILER_RANGE if n.startswith(pre)), None) for n in names} - {None}
    if len(hits) == 1:  # collectors that read no events (rocminfo's device file) do not count
        return hits.pop()
    vendor = vendor_of(timeline)
    if vendor == "amd":
        return dict(PROFILER_RANGE)["rocprofv3"]
    both = "" if vendor == "nvidia" else ", or rocprofv3 --collection-period"
    return ("torch.profiler's schedule, or nsys --capture-range=cudaProfilerApi with "
            "cudaProfilerStart/Stop around the region" + both)
