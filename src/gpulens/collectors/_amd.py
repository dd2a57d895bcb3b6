"""AMD device identity as recorded by the tools: rocminfo text (rocprof v1 ``results.sysinfo.txt``), rocprofiler-sdk
agent records, rocprofiler-compute ``sysinfo.csv``.

Every device dict written to ``TimelineMeta.devices`` by an AMD collector uses these keys (absent when unknown):

``rank``, ``device_id`` (HSA node id, the numbering of rocminfo ``Node`` and of rocprof ``gpu-id``),
``gpu_index`` (ordinal among GPU agents = HIP device index when all GPUs are visible), ``name`` (marketing / product
name as recorded, e.g. "AMD Instinct MI300A" or the generic "AMD Radeon Graphics"), ``gfx_arch`` ("gfx942"),
``num_sms`` (compute units), ``warp_size`` (wavefront size), ``simd_per_cu``, ``max_waves_per_cu``,
``max_clock_mhz``, ``num_xcc``, ``lds_per_cu_bytes``, ``hbm_bandwidth_bytes_per_s``, ``product_candidates``
(from :func:`product_candidates`), ``vendor`` ("AMD").
"""

from __future__ import annotations

import re
from typing import Any

#: (gfx arch, CUs per device) → products with that configuration. Sources: ROCm gpu-arch-specs table as summarised
#: in ../shared/reference/gpu-facts.md (MI100 120 CUs; MI210 104; MI250/MI250X 208/220 over two GCDs, one GCD each
#: is a device; MI300X/MI325X 304; MI300A 228; MI350X/MI355X 256; Vega 20 gfx906: MI60 64, MI50 and Radeon VII 60,
#: ROCm gpu-specs and :mod:`gpulens.devices.amd`). Ambiguous pairs list every candidate.
_PRODUCTS: dict[tuple[str, int], tuple[str, ...]] = {
    ("gfx906", 60): ("AMD Instinct MI50 32GB", "AMD Instinct MI50 16GB", "AMD Radeon VII"),
    ("gfx906", 64): ("AMD Instinct MI60",),
    ("gfx908", 120): ("AMD Instinct MI100",),
    ("gfx90a", 104): ("AMD Instinct MI210", "AMD Instinct MI250 (one GCD)"),
    ("gfx90a", 110): ("AMD Instinct MI250X (one GCD)",),
    ("gfx942", 304): ("AMD Instinct MI300X", "AMD Instinct MI325X"),
    ("gfx942", 228): ("AMD Instinct MI300A",),
    ("gfx950", 256): ("AMD Instinct MI350X", "AMD Instinct MI355X"),
}
GENERIC_NAMES = {"amd radeon graphics", "", "gfx"}


def product_candidates(gfx_arch: str | None, cu_count: int | None) -> tuple[str, ...]:
    """AMD Instinct products matching a gfx arch and CU count (empty when unknown). Pure lookup, no I/O."""
    if not gfx_arch or not cu_count:
        return ()
    return _PRODUCTS.get((str(gfx_arch).split(":")[0].lower(), int(cu_count)), ())


#: HIP ``major.minor`` (Kineto ``computeMajor``/``computeMinor`` on ROCm) → gfx archs reporting it (the HIP runtime
#: derives major/minor from the gfx target: gfx906, gfx908 and gfx90a all report 9.0 — ROCm gpu-specs "GFXIP 9.0" —,
#: gfx942 9.4, gfx950 9.5).
_HIP_CC_TO_GFX = {"9.0": ("gfx906", "gfx908", "gfx90a"), "9.4": ("gfx942",), "9.5": ("gfx950",)}


def device_candidates(device: dict[str, Any]) -> tuple[str, ...]:
    """Products a recorded device can be, from its ``gfx_arch`` (or, lacking it, its HIP ``compute_capability``)
    and ``num_sms`` (CU count) — for traces whose name is the generic "AMD Radeon Graphics".

    >>> device_candidates({"name": "AMD Radeon Graphics", "compute_capability": "9.0", "num_sms": 104})
    ('AMD Instinct MI210', 'AMD Instinct MI250 (one GCD)')
    """
    archs = (device["gfx_arch"],) if device.get("gfx_arch") else \
        _HIP_CC_TO_GFX.get(str(device.get("compute_capability")), ())
    out: list[str] = []
    for arch in archs:
        out += [c for c in product_candidates(arch, device.get("num_sms")) if c not in out]
    return tuple(out)


def finish_device(dev: dict[str, Any]) -> dict[str, Any]:
    """Add ``vendor`` and ``product_candidates``; drop None values."""
    out = {k: v for k, v in dev.items() if v is not None and v != ""}
    out.setdefault("vendor", "AMD")
    cands = product_candidates(out.get("gfx_arch"), out.get("num_sms"))
    if cands:
        out["product_candidates"] = list(cands)
    return out


def _num(text: str | None) -> int | None:
    m = re.match(r"\s*(-?[0-9]+)", text or "")
    return int(m.group(1)) if m else None


def parse_rocminfo(text: str, rank: int = 0) -> list[dict[str, Any]]:
    """GPU agents of a ``rocminfo`` dump (e.g. rocprof v1 ``results.sysinfo.txt``) as device dicts.

    Agents are the ``Agent N`` blocks; their first-level ``Key: value`` lines are read, and of the nested pool lines
    the ``GROUP`` segment's size (LDS per CU) and the first ``GLOBAL`` coarse-grained segment's size (the GPU's own
    memory, e.g. ``201310208(0xbffc000) KB`` = 192 GiB on an MI300X: ``total_memory_bytes``, which tells memory
    variants of one chip apart). CPU agents are skipped; ``gpu_index`` counts GPU agents in order.
    """
    devices = []
    blocks = re.split(r"\n\*+\s*\nAgent [0-9]+\s*\n\*+\s*\n", text)
    gpu_index = 0
    for block in blocks[1:]:
        kv: dict[str, str] = {}
        for line in block.splitlines():
            m = re.match(r"^  ([A-Za-z][^:]*?):\s+(.*?)\s*$", line)  # exactly two spaces: top level of the agent
            if m and m.group(1) not in kv:
                kv[m.group(1)] = m.group(2)
        if kv.get("Device Type", "").upper() != "GPU":
            continue
        lds_kb = None
        m = re.search(r"Segment:\s+GROUP\s*\n\s+Size:\s+([0-9]+)\(0x[0-9a-f]+\)\s*KB", block)
        if m:
            lds_kb = int(m.group(1))
        m = re.search(r"Segment:\s+GLOBAL; FLAGS: COARSE GRAINED\s*\n\s+Size:\s+([0-9]+)\(0x[0-9a-f]+\)\s*KB", block)
        mem_kb = int(m.group(1)) if m else None
        devices.append(finish_device({
            "rank": rank, "device_id": _num(kv.get("Node")), "gpu_index": gpu_index,
            "name": kv.get("Marketing Name"), "gfx_arch": kv.get("Name"), "num_sms": _num(kv.get("Compute Unit")),
            "warp_size": _num(kv.get("Wavefront Size")), "simd_per_cu": _num(kv.get("SIMDs per CU")),
            "max_waves_per_cu": _num(kv.get("Max Waves Per CU")),
            "max_clock_mhz": _num(kv.get("Max Clock Freq. (MHz)")),
            "lds_per_cu_bytes": lds_kb * 1024 if lds_kb else None, "chip_id": _num(kv.get("Chip ID")),
            "total_memory_bytes": mem_kb * 1024 if mem_kb else None,
            "uuid": kv.get("Uuid")}))
        gpu_index += 1
    return devices


def device_from_sdk_agent(agent: dict[str, Any], rank: int = 0) -> dict[str, Any] | None:
    """A rocprofiler-sdk agent record (JSON ``agents[]``, ``agent_info.csv`` row with lower-cased keys) → device
    dict; None for CPU agents (``type`` 1 / ``Agent_Type`` CPU), and for a record that names neither its type nor
    its node (every field NULL: an emptied row describes no GPU, and a device record without an id matches none of
    the events)."""
    raw = agent.get("type", agent.get("agent_type"))
    typ = str(raw if raw is not None else "").strip().upper()
    if typ in ("1", "CPU"):
        return None
    if typ in ("", "NAN", "NONE") and _int(agent.get("node_id")) is None:
        return None
    lds_kb = agent.get("lds_size_in_kb")
    return finish_device({
        "rank": rank, "device_id": _int(agent.get("node_id")),
        "gpu_index": _int(agent.get("logical_node_type_id")),
        "name": agent.get("product_name") or agent.get("marketing_name"), "gfx_arch": agent.get("name"),
        "num_sms": _int(agent.get("cu_count")), "warp_size": _int(agent.get("wave_front_size")),
        "simd_per_cu": _int(agent.get("simd_per_cu")), "max_waves_per_cu": _int(agent.get("max_waves_per_cu")),
        "max_clock_mhz": _int(agent.get("max_engine_clk_fcompute")), "num_xcc": _int(agent.get("num_xcc")),
        "lds_per_cu_bytes": int(lds_kb) * 1024 if _int(lds_kb) else None,
        "agent_handle": _int(agent.get("id", {}).get("handle")) if isinstance(agent.get("id"), dict) else None})


def _int(v: Any) -> int | None:
    try:
        return int(v) if v is not None and str(v).strip() != "" else None
    except (TypeError, ValueError):
        return _num(str(v))
