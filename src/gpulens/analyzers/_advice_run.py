"""Next steps for the run rather than one kernel: whether the program is PyTorch (:func:`uses_pytorch`) and training
(:func:`trains`), the idle-gap actions and details by cause (host, launch, sync, queued), exposed communication and
copy steps, and the runtime calls on the critical path (set-up calls, synchronous copies). Gated on what the input
shows, as described in :mod:`gpulens.analyzers._advice`, which re-exports every name here.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from gpulens.analyzers._advice_vendor import vendor_text, vendor_word
from gpulens.analyzers._kernel_owner import _PYTORCH_KERNEL
from gpulens.units import fmt_ns, pct_words


def uses_pytorch(timeline: Any) -> bool:
    """True when the input shows a PyTorch program (module doc). Computed once per Timeline."""
    from gpulens.analyzers.context import context_of

    def compute() -> bool:
        names = {str(s.get("collector", "")) for s in timeline.meta.sources}
        if any(n.startswith(("kineto", "torch", "pytorch")) for n in names):
            return True
        ev = timeline.events
        if not len(ev):
            return False
        if bool((ev["kind"] == "python").any()):
            return True
        col = ev["name"]
        cats = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else col.dropna().unique()
        return any(isinstance(n, str) and (n.startswith("aten::") or _PYTORCH_KERNEL.search(n)) for n in cats)

    return bool(context_of(timeline).memo("advice.uses_pytorch", compute))


#: The next step for each idle cause (bottlenecks' gap classes), in a few words: for a PyTorch program (True) and
#: for any other (False).
IDLE_ACTIONS = {
    True: {
        "host": "move work off the host thread that feeds the GPU (data loading, Python, CPU ops)",
        "launch": "fuse small kernels (torch.compile) or capture the step in {graphs}",
        "sync": "remove synchronisations and synchronous copies (.item(), .cpu(), .tolist(), "
                "{device_sync}) from the step loop, or copy into pinned memory with non_blocking=True and "
                "wait for the result only where it is needed",
        "queued": "look at cross-stream dependencies, event waits and late starts (the launch latency table's queue "
                  "delay)",
        "unattributed": "record the host side too (torch.profiler with CPU activity) to find what the GPU waited for",
    },
    False: {
        "host": "move work off the host thread that feeds the GPU (I/O, CPU-side preparation) or enqueue work further "
                "ahead",
        "launch": "fuse small kernels or capture the loop in {graphs} (stream capture)",
        "sync": "remove device/stream synchronisations and blocking copies from the loop",
        "queued": "look at cross-stream dependencies, event waits and late starts (the launch latency table's queue "
                  "delay)",
        "unattributed": "record the host side too (nsys with CUDA API tracing, rocprofv3 --runtime-trace) to find "
                        "what the GPU waited for",
    },
}


def idle_text(table: dict, pytorch: bool, cause: str, tool: str | None = None, linked: int = 0,
              vendor: str | None = None, recorded: int = 0) -> str:
    """An idle cause's advice from ``table`` (:data:`IDLE_ACTIONS` or :data:`IDLE_DETAILS`) in ``vendor``'s words
    (:func:`vendor_text`); for gaps no launch call explains, the host-side recording named in the input's own tool
    (``tool``, :func:`host_trace`) when known. ``linked``: launch calls the trace does link to GPU work — the host
    side *was* recorded, so the advice is to cover the launching threads/processes it missed, not to record the
    host side. ``recorded``: launch calls the trace holds, linked or not — when some are recorded and none is
    linked, the host side was recorded without the correlation ids that tie a call to its GPU work (rocprof v1's
    ``--hip-trace`` JSON), so the advice is a profiler that writes them (:func:`vendor_word` ``host_trace``: nsys,
    rocprofv3), not to record the host side again with the same tool."""
    if cause == "unattributed" and linked <= 0 and recorded > 0:
        how = vendor_word(vendor, "host_trace")
        calls = f"{recorded:,} launch call{'s' if recorded != 1 else ''}"
        return ((f"The trace records {calls} but no correlation id ties any of them to the GPU work: re-record "
                 f"with a profiler that writes correlation ids ({how}) to attribute them.") if table is IDLE_DETAILS
                else (f"the trace records {calls} but no correlation id ties any of them to the GPU work: re-record "
                      f"with a profiler that writes correlation ids ({how}) to find what the GPU waited for"))
    text = vendor_text(table[pytorch][cause], vendor)
    if cause == "unattributed" and linked > 0:
        how = f" ({tool})" if tool else ""
        return (("Their launch calls are missing although the trace links " if table is IDLE_DETAILS else
                 "their launch calls are missing although the trace links ")
                + f"{linked:,} other launch{'es' if linked != 1 else ''}: record every thread and process that "
                f"launches GPU work, for the whole window{how}, to find what the GPU waited for"
                + ("." if table is IDLE_DETAILS else ""))
    if cause != "unattributed" or not tool:
        return text
    return (f"Record the host side too ({tool}) to attribute them." if table is IDLE_DETAILS else
            f"record the host side too ({tool}) to find what the GPU waited for")


#: The detail sentence of each idle-cause finding (after its first, factual sentence), as :data:`IDLE_ACTIONS`.
IDLE_DETAILS = {
    True: {
        "host": "Move work off the critical host thread, prefetch data (DataLoader workers, pin_memory), or batch more "
                "work per step.",
        "launch": "Fuse small kernels (torch.compile) or capture the step in {graphs} so one launch replays "
                  "many kernels.",
        "sync": "Idle gaps overlap blocking host calls (.item(), .cpu(), {device_sync}, synchronous copies): "
                "each drains the queue, and the host launches nothing until it returns (a long one with the GPU idle "
                "throughout means the GPU was held back by a dependency: a stream waiting on an event, or work the "
                "trace does not show). Remove syncs from the step loop or defer them.",
        "unattributed": "Record the host side too (torch.profiler with CPU activity) to attribute them.",
    },
    False: {
        "host": "Move work off the host thread that launches the GPU work, prepare input data ahead (pinned host "
                "buffers, asynchronous copies), or enqueue more work per iteration.",
        "launch": "Fuse small kernels or capture the loop in {graphs} (stream capture) so one launch replays "
                  "many kernels.",
        "sync": "Idle gaps overlap blocking host calls ({device_sync}, {stream_sync}, "
                "blocking copies): each drains the queue. Remove them from the loop or defer them.",
        "unattributed": "Record the host side too (nsys with CUDA API tracing, rocprofv3 --runtime-trace) to "
                        "attribute them.",
    },
}


def exposed_comm_detail(pytorch: bool, training: bool | None = None) -> str:
    """The advice sentence of the exposed-communication finding (``training``: :func:`trains`)."""
    if pytorch and training is False:
        return ("Collectives run while no compute kernel does. Overlap them with independent computation of the "
                "forward pass on another stream (e.g. a tensor-parallel all-reduce beside another batch of requests: "
                "two-batch overlap), or reduce their size (fewer, larger messages; a lower tensor-parallel degree).")
    if pytorch:
        return ("Collectives run while no compute kernel does. Overlap them with computation (bucketed all-reduce "
                "during backward, FSDP prefetch) or reduce their size.")
    return ("Collectives run while no compute kernel does. Overlap them with computation (issue them on their own "
            "stream while independent work runs) or reduce their size.")


def pin_step(pytorch: bool, vendor: str | None = None) -> str:
    """The fix for copies to or from pageable host memory (a clause): pin the host side."""
    if pytorch:
        return ("pin the host tensors (tensor.pin_memory(), DataLoader(pin_memory=True)) and copy with "
                "non_blocking=True")
    return ("allocate the host buffers pinned ("
            + {"nvidia": "cudaMallocHost", "amd": "hipHostMalloc"}.get(vendor or "", "cudaMallocHost / hipHostMalloc")
            + ")")


def exposed_copy_detail(pytorch: bool, uvm_share: float = 0.0, vendor: str | None = None,
                        pageable: tuple[int, int, int] | None = None, unified: str | None = None) -> str:
    """The advice sentence of the exposed-memcpy finding, the asynchronous-copy call in ``vendor``'s API
    (``"nvidia"``: cudaMemcpyAsync, ``"amd"``: hipMemcpyAsync, unknown: both); ``uvm_share``: the part of the copy
    time that is unified-memory page migrations (copy kind ``UVM …``), which no pinned buffer or async copy call changes — at
    half or more, the advice is prefetching managed memory (CUDA Programming Guide, unified memory). ``pageable``:
    (copies, their time [ns], their bytes) of the copies to or from pageable host memory; when they hold half the
    copy time or more they are named first, with their bandwidth — a pageable copy is staged through a pinned
    buffer by the host, at a fraction of the link's bandwidth, and holds the host (CUDA Runtime API, "API
    synchronization behavior"). ``unified``: the name of the device when it is an APU whose CPU and GPU share one
    memory (:attr:`gpulens.devices.DeviceSpec.unified_memory`, AMD Instinct MI300A): there a host↔device copy moves
    data within the same HBM, and the step is to drop it — one allocation both sides use (HIP unified memory:
    hipMallocManaged, or with XNACK on, HSA_XNACK=1, system-allocated memory) — not to pin or overlap it."""
    if unified:
        return (f"The {unified} is an APU: its CPU and GPU share one HBM, so these host↔device copies move data "
                "within the same memory. Drop them: allocate each buffer once where both sides can use it "
                "(hipMallocManaged, or with XNACK on, HSA_XNACK=1, plain malloc'd memory) and let the kernels read it "
                "in place"
                + (", e.g. keep tensors on the device instead of copying them back and forth." if pytorch else "."))
    if pageable is not None and pageable[0] and uvm_share < 0.5:
        n, ns, nbytes = pageable
        rate = f" at {nbytes / ns:.1f} GB/s" if ns > 0 and nbytes > 0 else ""
        return (f"{n} cop{'ies' if n != 1 else 'y'} to or from pageable host memory take {fmt_ns(ns)}{rate}: the "
                f"host stages them and waits — {pin_step(pytorch, vendor)}, or keep the data on the device.")
    if uvm_share >= 0.5:
        return (f"{pct_words(100 * uvm_share)} of the copy time is unified-memory page migrations (managed pages "
                "moved by "
                "the driver on page faults): prefetch managed buffers to the processor that touches them next "
                "(cudaMemPrefetchAsync, cudaMemAdvise), or keep the data in device memory with explicit copies.")
    if pytorch:
        return ("Copies run with no kernel beside them. Use pinned memory and non_blocking copies on a side stream, "
                "or keep tensors on the device.")
    call = {"nvidia": "cudaMemcpyAsync", "amd": "hipMemcpyAsync"}.get(vendor or "", "cudaMemcpyAsync / hipMemcpyAsync")
    return ("Copies run with no kernel beside them. Use pinned host memory and asynchronous copies on a side stream "
            f"({call}), or keep the data on the device.")


#: At or above this share of the GPU's busy time during the host's waits, copies (memcpy, memset) are what the host
#: waited on, and the critical path's next step is about them, not the kernels.
COPY_WAIT_SHARE = 0.5


def busy_wait_action(copy_share: float, pytorch: bool, vendor: str | None = None) -> str:
    """The critical path's next step when the host waited while the GPU was busy (the path is GPU-bound): about the
    copies when they fill at least :data:`COPY_WAIT_SHARE` of that busy time (``copy_share``, 0–1) — fewer, larger
    transfers, pinned host memory, overlap with kernels (CUDA C++ Best Practices Guide, "Data Transfer Between Host
    and Device") — else about the kernels. An OpenMP-offload run on a T4 whose GPU was busy with copies 96 % of the
    time was once told to "shorten the kernels"."""
    if copy_share >= COPY_WAIT_SHARE:
        call = {"nvidia": "cudaMemcpyAsync", "amd": "hipMemcpyAsync"}.get(vendor or "",
                                                                          "cudaMemcpyAsync / hipMemcpyAsync")
        overlap = "non_blocking copies on a side stream" if pytorch else f"asynchronous copies ({call}) on a side stream"
        return (f"Treat these steps as bound by the GPU's copies ({pct_words(100 * copy_share)} of the GPU's busy "
                "time during the host's waits): move less data or fewer, larger transfers (batch the small ones, keep "
                f"data on the device between steps), {pin_step(pytorch, vendor)}, and overlap them with kernels "
                f"({overlap}); shortening the kernels or the host work would not shorten them.")
    return ("Treat these steps as GPU-bound: shorten the kernels that run during the host's waits (the kernel "
            "verdicts say how); cutting host work would not shorten them.")


def host_path_action(cls: str, pytorch: bool, vendor: str | None = None) -> str | None:
    """The critical-path next step for a path held by host work, for a program without PyTorch (None: keep the
    default, which names PyTorch remedies); graphs named in ``vendor``'s words. ``{top}`` is left for the caller."""
    if pytorch:
        return None
    return {"cpu_op": "Cut host overhead on the critical path (" + vendor_word(vendor, "graphs")
                      + ", fewer and larger launches), starting with the event holding most of it, {top}.",
            "host_idle": "No host thread that launches GPU work runs an event on the critical path: look for "
                         "host work the trace does not record (I/O, CPU-side preparation) between the "
                         "launches."}.get(cls)


#: Runtime calls that set up or tear down rather than feed the GPU: context creation (the first call of a process,
#: e.g. cudaDeviceGetStreamPriorityRange or cudaFree(0), creates the context), allocation, module loading, stream
#: and event creation — one-off costs, not per-launch overhead.
_SETUP_CALL = re.compile(r"^(?:cuda|cu|hip)(?:Ext)?(?:Malloc|Free|MemAlloc|MemFree|MemCreate|MemMap|MemUnmap|MemRelease|"
                         r"MemAddress|HostAlloc|HostMalloc|HostRegister|HostUnregister|HostFree|Module|Library|"
                         r"StreamCreate|StreamDestroy|EventCreate|EventDestroy|CtxCreate|CtxDestroy|DevicePrimaryCtx|"
                         r"DeviceReset|DeviceGetStreamPriorityRange|Init|SetDevice|GraphInstantiate|FuncGetAttributes|"
                         r"GetDevice|DeviceGetAttribute)")


def setup_step(pytorch: bool) -> str:
    """The next step for time held by set-up calls (:func:`is_setup_call`), read by the critical path's and the idle
    finding's advice: do them once before the loop and profile the steady state."""
    return ("do them once before the loop — warm up before profiling, keep allocations out of the step "
            + ("(PyTorch's caching allocator reuses memory after the first step)" if pytorch else
               "(allocate once and reuse)") + " — and profile the steady state")


def is_setup_call(call: str) -> bool:
    """Whether runtime call ``call`` sets up or tears down (:data:`_SETUP_CALL`: context creation, allocation,
    module loading, stream and event creation) rather than feeding the GPU — the one list, read by the critical path's
    and the idle findings' advice."""
    return bool(_SETUP_CALL.match(str(call)))


def runtime_path_action(call: str, pytorch: bool, vendor: str | None = None) -> tuple[str, str]:
    """What a runtime call that holds the critical path is, and the next step that fits it: ``(what, action)``.

    A blocking call (a synchronisation or a synchronous copy: :data:`gpulens.analyzers.bottlenecks.BLOCKING_RE`)
    is the host *waiting*, so the step is about what it waits for, not call overhead; a set-up call (context
    creation, allocation, module loading) is a one-off cost; a launch call is launch overhead; any other call is
    runtime-call overhead. Graphs are named in ``vendor``'s words (:func:`vendor_word`)."""
    from gpulens.analyzers.bottlenecks import BLOCKING_COPY_RE, BLOCKING_RE
    from gpulens.analyzers.launches import LAUNCH_RE

    if BLOCKING_COPY_RE.match(call):
        return ("a synchronous copy: the host waits for it and for the GPU work queued before it",
                f"The host is blocked in {call} (a synchronous copy) on the critical path: find what it waits for — "
                "the copy and the GPU work queued before it — then take it out of the step or overlap it "
                + ("(copy into pinned memory with non_blocking=True and wait only where the data is used)."
                   if pytorch else "(an asynchronous copy from pinned host memory, waited on only where it is used)."))
    if BLOCKING_RE.match(call):
        return ("a synchronisation: the host waits for GPU work",
                f"The host is blocked in {call} on the critical path: find what it waits for (the GPU work queued "
                "before it, another stream or an event), then remove the synchronisation from the step, defer it, "
                "or wait on an event only where the result is needed.")
    if _SETUP_CALL.match(call):
        return ("set-up or memory management (context creation, allocation, module loading): a one-off cost",
                f"Set-up calls hold the critical path ({call}: context creation, allocation or module loading): "
                f"{setup_step(pytorch)}.")
    if LAUNCH_RE.match(call):
        return ("kernel launches",
                "Launch calls hold the critical path: fewer, larger launches "
                + ("(fuse small kernels, torch.compile) or " if pytorch else "(fused kernels) or ")
                + vendor_word(vendor, "graphs") + " "
                + f"so one launch replays many kernels ({call}).")
    return ("runtime-call overhead", f"Cut runtime-call overhead on the critical path ({call}).")


_TRAINING = re.compile(r"Backward[0-9]*\b|autograd::engine|\bbackward\b|[Oo]ptimizer\.(?:step|zero_grad)|"
                       r"\boptimizer_step|_bwd\b|_bwd_|\bbwd_", re.I)


def trains(timeline: Any) -> bool | None:
    """True when a PyTorch input records a backward pass or an optimizer step (module doc), False when it records
    PyTorch work and neither (inference), None when the input shows no PyTorch. Computed once per Timeline."""
    from gpulens.analyzers.context import context_of

    if not uses_pytorch(timeline):
        return None

    def compute() -> bool:
        col = timeline.events["name"]
        cats = col.cat.categories if isinstance(col.dtype, pd.CategoricalDtype) else col.dropna().unique()
        return any(isinstance(n, str) and _TRAINING.search(n) for n in cats)

    return bool(context_of(timeline).memo("advice.trains", compute))


#: point-to-point and all-to-all collectives (pipeline stages, expert or embedding exchanges): gradient bucketing
#: and FSDP prefetch do not apply to them. DeepEP's kernels (deep_ep:: / DeepSeek's dpsk::ep::, namespaces
#: intranode / internode / internode_ll: dispatch, combine and their notify kernels) are the expert all-to-all
_P2P = re.compile(r"SendRecv|\bSend\b|\bRecv\b|_Send_|_Recv_|AllToAll|all_to_all|alltoall|\bsend\b|\brecv\b|"
                  r"ncclDevKernel_Send|ncclDevKernel_Recv|(deep_?ep|dpsk::ep)::|\b(intranode|internode(_ll)?)::", re.I)


def comm_steps(training: bool | None, name: str | None = None) -> list[str] | None:
    """The next steps of a communication-bound PyTorch kernel: a point-to-point / all-to-all kernel (``name``), or
    any collective of an inference program (``training`` False); None for a training collective (the DDP/FSDP steps
    apply) or an unknown program. An inference program is never told of micro-batches, backward or gradients: its
    independent work is another batch of requests (two-batch overlap) or compute that does not need the result."""
    if isinstance(name, str) and _P2P.search(name):
        if training is False:
            return ["Overlap it with compute: keep each pipeline stage computing another batch of requests while it "
                    "sends; for an all-to-all (experts, embeddings), overlap it with the independent compute of "
                    "another batch (two-batch overlap).",
                    "Shrink it: fewer and larger transfers, a narrower type, or a placement that keeps more of the "
                    "exchange inside a node."]
        return ["Overlap it with compute: with pipeline stages, more micro-batches or an interleaved schedule keep "
                "each stage computing while it sends; for an all-to-all (experts, embeddings), overlap it with the "
                "independent compute of another micro-batch.",
                "Shrink it: fewer and larger transfers, a narrower type, or a placement that keeps more of the "
                "exchange inside a node."]
    if training is not False:
        return None
    return ["Overlap it with compute: run it on its own stream beside work that does not need its result (another "
            "batch of requests, two-batch overlap) and wait only where its result is needed.",
            "Shrink it: fewer and larger messages (fuse the all-reduce with the norm after it), a narrower type, "
            "or a lower tensor-parallel degree."]
