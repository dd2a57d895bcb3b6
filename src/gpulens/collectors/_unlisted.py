"""GPU events on a device that the file's own device records do not list (a dangling agent / device id).

rocprofv3 (``dispatch_info.agent_id`` with no ``agents`` record, rocpd ``agent_id`` with no ``rocpd_info_agent``
row), nsys (a ``deviceId`` with no ``TARGET_INFO_GPU`` row) and the other collectors that list devices name each
GPU event's device by a key into that list. A damaged or hand-edited file can name a key the list lacks: the
events are still GPU work, but their hardware is unknown. :func:`add_unlisted` records such a device (``name``
None: unknown) so every GPU the breakdown names is among the run's devices, and warns, counting the events.

One dangling id is not damage: rocprof v1 of ROCm 4 (dalg24/kokkos @ d60b181a, 2021) wrote HIP-trace ops with
``dev-id`` 0 — the HIP device ordinal — beside a rocminfo whose GPU agents are HSA nodes 4–7 (nodes 0–3 are its CPU
agents; later rocprof writes the node id: Gunrock's and HGLiu1998's MI300X runs, ``gpu-id``/``dev-id`` 2 with GPU
nodes 2–9). A GPU event's id below every GPU agent's node names no GPU agent (rocminfo lists the CPU agents first),
so it is an ordinal. Which GPU it was is then unknown, but when every GPU agent the rank lists has the same hardware
(marketing name, gfx arch, CU count) its hardware is not: the record takes theirs, and the warning says so.

Kineto numbers devices twice on ROCm: ``deviceProperties`` lists the process's visible GPUs by HIP ordinal (ids
0–3), while roctracer's kernel records carry another index (hyukjlee/traceMap @ 68b9e54
``1_mi300x_1000isl_10osl_32con.pt.trace.json.gz``, a vLLM run: 12,840 kernels on device 6 beside four listed
"AMD Instinct MI300X"). A kernel runs on a GPU its process sees, so it ran on one of the listed GPUs: which one is
unknown, but when all of them have the same hardware (name, compute capability, SM/CU count, all known) so has it —
the record takes theirs with ``one_of`` (the listed ids it is one of, so no report counts that GPU idle twice).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gpulens.timeline import GPU_KINDS, Timeline
from gpulens.units import agree, plural

#: collectors whose device record may number the device otherwise than its events (Kineto ``deviceProperties``
#: id 0 with events on device 2 of an MI300X VF): with a single record per rank the events' ids are not checked
_LOOSE_IDS = {"kineto"}


def add_unlisted(tl: Timeline, path: Path, collector: str) -> Timeline:
    """Add a device record (rank, device_id, ``name`` None) for each (rank, device) that GPU events of ``tl`` use
    and its device records of that rank do not list, when the rank lists at least one device (two for
    :data:`_LOOSE_IDS` collectors); append one warning naming the file, the devices and the events' count — none
    for a rank whose only record is gpulens's stand-in device 0 (``stand_in``: the file lists no GPU, which the
    collector's warning already says).

    Returns ``tl`` (changed in place)."""
    _warn_negative(tl, path)
    listed: dict[int, set[int]] = {}
    stand_in: set[int] = set()  # ranks whose only record is gpulens's device 0 for GPU rows of no device (_dispatch)
    for d in tl.meta.devices:
        if isinstance(d, dict) and d.get("device_id") is not None and d.get("rank") is not None:
            listed.setdefault(int(d["rank"]), set()).add(int(d["device_id"]))
            if d.get("stand_in"):
                stand_in.add(int(d["rank"]))
    stand_in -= {int(d["rank"]) for d in tl.meta.devices if isinstance(d, dict) and d.get("rank") is not None
                 and d.get("device_id") is not None and not d.get("stand_in")}
    need = 2 if collector in _LOOSE_IDS else 1
    ranks = {r for r, ids in listed.items() if len(ids) >= need}
    ev = tl.events
    if not ranks or not len(ev):
        return tl
    gpu = ev[ev["kind"].isin(GPU_KINDS) & ev["device_id"].notna() & ev["rank"].isin(list(ranks))]
    if not len(gpu):
        return tl
    pairs = gpu.groupby(["rank", "device_id"], observed=True).size()
    missing = [(int(r), int(d), int(n)) for (r, d), n in pairs.items() if int(d) not in listed[int(r)]]
    if not missing:
        return tl
    vendor = {int(d["rank"]): d.get("vendor") for d in tl.meta.devices if isinstance(d, dict) and d.get("rank") is not None}
    unknown, alike, visible = [], [], []
    for r, d, n in missing:
        twin = _agents_alike(tl.meta.devices, r, d)
        seen = _listed_alike(tl.meta.devices, r, d) if twin is None and collector in _LOOSE_IDS else None
        if seen is not None:
            ids = sorted(int(x["device_id"]) for x in tl.meta.devices if _listed(x, r))
            tl.meta.devices.append({**{k: v for k, v in seen.items() if k not in _NOT_HARDWARE},
                                    "rank": r, "device_id": d, "one_of": ids})
            visible.append((d, n, ids, seen))
        elif twin is None:
            tl.meta.devices.append({"rank": r, "device_id": d, "name": None, "vendor": vendor.get(r)})
            unknown.append((r, d, n))
        else:
            tl.meta.devices.append({**{k: v for k, v in twin.items() if k in _HARDWARE}, "rank": r, "device_id": d})
            alike.append((r, d, n))
    # the file lists no GPU (nothing dangles), or a negative id (its own warning above): recorded, not said again
    unknown = [m for m in unknown if m[0] not in stand_in and m[1] >= 0]
    if unknown:
        n = int(np.sum([m[2] for m in unknown]))
        ids = ", ".join(str(d) for _, d, _ in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        tl.meta.warnings.append(f"{path}: {plural(n, 'GPU event(s)')} on {'device' if len(unknown) == 1 else 'devices'} {ids} that the file's device "
                                "records do not list (a dangling device id): their hardware is unknown")
    for r, d, n in alike:
        gpus = [x for x in tl.meta.devices if _agent(x, r)]
        tl.meta.warnings.append(
            f"{path}: {plural(n, 'GPU event(s)')} on device {d}, below every GPU agent of the device list (HSA nodes "
            f"{min(int(x['device_id']) for x in gpus)}–{max(int(x['device_id']) for x in gpus)}; the lower nodes are "
            f"CPU agents): the id is a HIP device ordinal (rocprof of ROCm 4 and earlier), not a node — which GPU is "
            f"unknown, but all {len(gpus)} GPU agents are {gpus[0].get('name') or gpus[0].get('gfx_arch')} "
            f"({gpus[0].get('gfx_arch')}, {gpus[0].get('num_sms')} CUs), so that is its hardware")
    for d, n, ids, seen in visible:
        tl.meta.warnings.append(
            f"{path}: {plural(n, 'GPU event(s)')} on device {d}, which the trace's deviceProperties (ids "
            f"{_id_text(ids)}) do not list: the tracer numbered the GPU otherwise than the process's visible devices "
            f"(ROCm's roctracer) — which listed GPU ran {agree(n, 'it', 'them')} is unknown, but all {len(ids)} are "
            f"{seen.get('name')}, so that is its hardware")
    return tl


#: the largest device index read as another numbering of a listed GPU (no node holds more GPUs); above it, damage
_MAX_INDEX = 255

#: keys of a Kineto device record that are not its hardware (not copied to a device numbered otherwise)
_NOT_HARDWARE = ("rank", "device_id", "stand_in", "gpu_index", "one_of")


def _listed(d: object, rank: int) -> bool:
    """A device record of ``rank`` read from the file (not gpulens's stand-in, not one added here)."""
    return isinstance(d, dict) and d.get("rank") is not None and int(d["rank"]) == rank \
        and d.get("device_id") is not None and not d.get("stand_in") and "one_of" not in d


def _listed_alike(devices: list, rank: int, device_id: int) -> dict | None:
    """The first device record of ``rank`` when ``device_id`` (0 … :data:`_MAX_INDEX`) is none of them and all of
    them have the same hardware (name, compute capability, SM/CU count; name and count known); else None (see the
    module docstring: a Kineto trace numbering its GPUs twice)."""
    listed = [d for d in devices if _listed(d, rank)]
    if not listed or not 0 <= device_id <= _MAX_INDEX:
        return None
    keys = {(d.get("name"), d.get("compute_capability"), d.get("num_sms")) for d in listed}
    if len(keys) != 1:
        return None
    name, _, sms = next(iter(keys))
    return listed[0] if name and sms else None


def _id_text(ids: list[int]) -> str:
    """``"0–3"`` for consecutive ids, else ``"0, 2, 5"`` (at most five, then "…")."""
    if len(ids) > 1 and ids == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]}–{ids[-1]}"
    return ", ".join(map(str, ids[:5])) + (" …" if len(ids) > 5 else "")


def _warn_negative(tl: Timeline, path: Path) -> None:
    """One warning counting the GPU events of ``tl`` on a negative device id (Kineto ``args.device`` −3, an nsys
    ``deviceId`` −1), which no GPU has — −1 is the host's mark, so such events would read as host work in some
    analyses and as a GPU's in others. They are kept as recorded; the rocprof family reads such an agent id as not
    recorded (:func:`._dispatch.build_timeline`)."""
    ev = tl.events
    if not len(ev):
        return
    neg = (ev["kind"].isin(GPU_KINDS) & (ev["device_id"] < 0)).to_numpy(dtype=bool)
    if neg.any():
        ids = sorted({int(x) for x in ev.loc[neg, "device_id"]})
        n = int(neg.sum())
        tl.meta.warnings.append(f"{path}: {plural(n, 'GPU event(s)')} on a negative device id "
                                f"({', '.join(map(str, ids[:5]))}), which no GPU has (-1 marks the host): kept as "
                                f"recorded; which GPU ran {agree(n, 'it', 'them')} and its hardware are unknown")


#: device keys describing the hardware (copied to an ordinal device from its identical GPU agents)
_HARDWARE = ("name", "gfx_arch", "num_sms", "warp_size", "simd_per_cu", "max_waves_per_cu", "max_clock_mhz",
             "lds_per_cu_bytes", "chip_id", "total_memory_bytes", "product_candidates", "vendor", "num_xcc",
             "hbm_bandwidth_bytes_per_s")


def _agent(d: object, rank: int) -> bool:
    """A GPU agent record of ``rank`` (a rocminfo / rocprofiler-sdk record: it carries ``gpu_index``)."""
    return isinstance(d, dict) and d.get("rank") is not None and int(d["rank"]) == rank \
        and d.get("gpu_index") is not None and d.get("device_id") is not None


def _agents_alike(devices: list, rank: int, device_id: int) -> dict | None:
    """The first GPU agent record of ``rank`` when ``device_id`` lies below every GPU agent's HSA node and all of
    them have the same hardware (name, gfx arch, CU count, all known); else None (see the module docstring)."""
    gpus = [d for d in devices if _agent(d, rank)]
    if not gpus or device_id < 0 or device_id >= min(int(d["device_id"]) for d in gpus):
        return None
    keys = {(d.get("name"), d.get("gfx_arch"), d.get("num_sms")) for d in gpus}
    if len(keys) != 1 or any(v is None for v in next(iter(keys))):
        return None
    return gpus[0]
