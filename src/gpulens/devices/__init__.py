"""Device specs: peak figures and occupancy limits of known GPUs, and which one a Timeline ran on.

* :class:`DeviceSpec` / :class:`Figure` — one GPU's figures, each with its source (:mod:`gpulens.devices.spec`).
* :data:`SPECS` — the built-in GPUs (data in :mod:`gpulens.devices.nvidia` and :mod:`gpulens.devices.amd`).
* :func:`identify` — the spec matching what a Timeline recorded (name, compute capability / gfx arch, SM/CU
  count, memory size); :func:`load_spec` — a user's own spec file.
* :mod:`gpulens.devices.arch` — per-architecture occupancy limits; :mod:`gpulens.devices.occupancy` — the
  occupancy calculators (CUDA and CDNA).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from gpulens.devices import amd as _amd
from gpulens.devices import nvidia as _nvidia
from gpulens.devices.arch import AMD_CC_TO_GFX, ArchLimits, limits_for
from gpulens.devices.spec import PRECISIONS, SMS_INFERRED_FROM, DeviceSpec, Figure, load_spec, spec_from_dict

#: Built-in device specs (NVIDIA then AMD), in data-file order.
SPECS: tuple[DeviceSpec, ...] = tuple(spec_from_dict(d) for d in _nvidia.GPUS + _amd.GPUS)


def get_spec(name: str) -> DeviceSpec | None:
    """The built-in spec named ``name`` (case-insensitive; exact canonical name first, then a match pattern)."""
    low = name.lower()
    for s in SPECS:
        if s.name.lower() == low:
            return s
    for s in SPECS:
        if any(re.search(p, name, re.IGNORECASE) for p in s.match):
            return s
    return None


_WORD = re.compile(r"[a-z0-9]+")


def find_spec(name: str) -> tuple[DeviceSpec | None, list[str]]:
    """The built-in spec a person means by ``name`` (``gpulens devices NAME``, ``--device-spec NAME``).

    Rules, the first that fits any spec decides: the canonical name, case-insensitive (``nvidia h100 sxm``); the
    canonical names holding every word of ``name`` as a whole word (``4090``, ``H200``, ``MI300X``,
    ``A100 80GB SXM``; the vendor word may be left out, ``A10`` is not ``A100``); the match patterns the built-in
    table has for names as profilers record them (``NVIDIA A100-SXM4-80GB``; :func:`get_spec`'s rule).

    Returns:
        (spec, []) when one spec fits; (None, canonical names) when several fit the words (``H100``: SXM and PCIe);
        (None, []) when none does; (None, their names) when the patterns fit parts with other clocks or peaks.
    """
    low = name.strip().lower()
    if not low:
        return None, []
    for s in SPECS:
        if s.name.lower() == low:
            return s, []
    words = set(_WORD.findall(low))
    hits = [s for s in SPECS if words and words <= set(_WORD.findall(s.name.lower()))]
    if len(hits) > 1:
        return None, [s.name for s in hits]
    if hits:
        return hits[0], []
    by_pattern = [s for s in SPECS if any(re.search(p, name, re.IGNORECASE) for p in s.match)]
    if _peaks_differ(by_pattern):  # a chip name ("Vega 20") that fits parts with other peaks: the person must choose
        return None, [s.name for s in by_pattern]
    by_pattern = _narrow(by_pattern, {"name": name})  # memory variants: the size the name states (A100-SXM4-80GB)
    return (by_pattern[0] if by_pattern else None), []


def builtin_spec(name: str) -> DeviceSpec:
    """The one built-in spec ``name`` means, by :func:`find_spec`'s rule — the one rule for every place a person
    names a built-in GPU: ``--device-spec NAME``, ``gpulens devices NAME`` and a spec file's ``base`` key.

    Raises:
        ValueError: no built-in GPU fits (``"no built-in GPU has that name (`gpulens devices` lists them)"``), or
            several do (``"the name fits 2 built-in GPUs (NVIDIA H100 SXM, NVIDIA H100 PCIe): give one of them"``);
            one line, without the name (the caller says where it was given).
    """
    spec, several = find_spec(name)
    if spec is not None:
        return spec
    if several:
        raise ValueError(f"the name fits {len(several)} built-in GPUs ({', '.join(several)}): give one of them")
    raise ValueError("no built-in GPU has that name (`gpulens devices` lists them)")


#: What a skip reason tells a user whose trace does not say which GPU ran it.
SPEC_HINT = "pass --device-spec NAME, a built-in GPU that `gpulens devices` lists, or --device-spec FILE"


def _is_amd(rec: Mapping[str, Any]) -> bool:
    name = str(rec.get("name") or "")
    return bool(rec.get("gfx_arch")) or rec.get("warp_size") == 64 or bool(
        re.search(r"\b(AMD|Instinct|Radeon)\b", name, re.IGNORECASE))


def _gfx_of(rec: Mapping[str, Any]) -> str | None:
    if rec.get("gfx_arch"):
        return str(rec["gfx_arch"]).split(":")[0].lower()
    cc = rec.get("compute_capability")
    if cc is None:
        return None
    if str(cc) == "9.0" and rec.get("num_sms") == 120:
        return "gfx908"  # MI100 reports 9.0 like gfx90a; 120 CUs tells it apart
    if str(cc) == "9.0" and rec.get("num_sms") == 60:
        return "gfx906"  # an MI50 / Radeon VII (Vega 20) reports 9.0 too; no gfx90a part has 60 CUs
    if str(cc) == "9.0" and rec.get("num_sms") == 64:
        return None  # 64 CUs at 9.0: an MI60 (gfx906) or a Vega 10 (gfx900), never a gfx90a part
    return AMD_CC_TO_GFX.get(str(cc))


#: Relative difference above which two candidate parts' clock or peak figures count as different (MI210 and an MI250
#: GCD differ by 0.2 %: one part's figures; an MI50 and a Radeon VII by 4 % in clock and 2× in FP64: two parts)
PEAK_TOLERANCE = 0.03


def _peaks_differ(cands: list[DeviceSpec]) -> bool:
    """Whether the remaining candidates differ in clock or any vector / matrix peak both give by more than
    :data:`PEAK_TOLERANCE` (memory variants of one part, A100 40 / 80 GB, do not)."""
    keys = {k for s in cands for k in s.figures if k == "clock_mhz" or k.startswith(("vector.", "matrix."))}
    for k in keys:
        vals = [v for v in (s.figure_value(k) for s in cands) if v]
        if vals and max(vals) > (1 + PEAK_TOLERANCE) * min(vals):
            return True
    return False

#: How far a recorded DRAM clock may be from a part's documented one and still match it (ncu rounds to 10 MHz).
MEMORY_CLOCK_TOLERANCE = 0.05


#: A memory size written in a device name, as NVIDIA names its memory variants ("NVIDIA A100-SXM4-80GB",
#: "A100-PCIE-40GB", "NVIDIA H100 80GB HBM3"; nvidia-smi's "NVIDIA GH200 144G HBM3e" writes a bare G)
_NAME_MEMORY = re.compile(r"(?<![0-9A-Za-z])([1-9][0-9]{1,2})\s*G(?:i?B)?(?![A-Za-z])", re.IGNORECASE)


def memory_in_name(name: Any) -> int | None:
    """The memory size [bytes, GiB units as the built-in specs' ``memory_gb``] a device name states
    (``"NVIDIA A100-SXM4-80GB"``: 80 GiB), None when it states none: it tells the memory variants of one part apart
    (A100 40 / 80 GB: 1,555 / 2,039 GB/s) where the record has no memory size — only when it is one variant's size
    (``"NVIDIA GH200 480GB"`` counts the Grace CPU's memory too: no GPU variant has 480 GB)."""
    m = _NAME_MEMORY.search(str(name or ""))
    return int(m.group(1)) * 2**30 if m else None


def _narrow(cands: list[DeviceSpec], rec: Mapping[str, Any]) -> list[DeviceSpec]:
    sms = rec.get("num_sms")
    if sms:
        same = [s for s in cands if s.num_sms == int(sms)]
        cands = same or cands
    mhz = rec.get("max_clock_mhz")
    if mhz and len(cands) > 1:
        # the engine clock rocminfo / rocprofv3 record ("Max Clock Freq. (MHz)") tells apart parts of one die and CU
        # count (gfx950 with 256 CUs: an MI350X at 2200 MHz, an MI355X at 2400): the parts whose documented clock is
        # within PEAK_TOLERANCE of it stay; a clock that matches none decides nothing
        near = [s for s in cands if s.figure_value("clock_mhz")
                and abs(s.figure_value("clock_mhz") - float(mhz)) <= PEAK_TOLERANCE * s.figure_value("clock_mhz")]
        cands = near or cands
    clk = rec.get("memory_clock_hz")
    if clk and len(cands) > 1:
        # the DRAM clock tells memory generations apart where the record has no name or memory size (an ncu
        # details export: "DRAM Frequency" 3.20 GHz is an H200's HBM3e, an H100 SXM's HBM3 runs at 2.62 GHz):
        # when a part's documented memory clock is within 5 %, the parts whose clock is documented and off are
        # out (those without one stay possible, after it); a clock that matches no documented part decides nothing
        def off(s: DeviceSpec) -> bool:
            own = s.figure_value("memory_clock_mhz")
            return own is not None and abs(own * 1e6 - float(clk)) > MEMORY_CLOCK_TOLERANCE * float(clk)

        match = [s for s in cands if s.figure_value("memory_clock_mhz") and not off(s)]
        if match:
            cands = match + [s for s in cands if not s.figure_value("memory_clock_mhz")]
    mem = rec.get("total_memory_bytes")
    named = None if mem else memory_in_name(rec.get("name"))
    if named and any(s.memory_bytes == named for s in cands):  # a size naming a variant, not "GH200 480GB" (Grace
        mem = named  # memory and HBM together: no GPU variant's size, so it decides nothing)
    if mem and len(cands) > 1 and all(s.memory_bytes for s in cands):
        best = min(abs(s.memory_bytes - float(mem)) for s in cands)
        cands = [s for s in cands if abs(s.memory_bytes - float(mem)) == best]
    return cands


#: Recorded device names that name no part (ROCm's "AMD Radeon Graphics", a bare gfx target, a family such as
#: rocprofiler-compute's "MI200", NVIDIA's "Graphics Device" of an unreleased board): only these let the
#: architecture and SM/CU count choose a spec
GENERIC_NAME = re.compile(r"^\s*(?:(?:AMD|ATI|NVIDIA)\s*)?(?:Radeon\s+Graphics|Graphics\s+Device|GPU|Device)?\s*\d*\s*$"
                          r"|^\s*gfx[0-9a-f]+\b|^\s*(?:AMD\s+)?(?:Instinct\s+)?MI\d00\s*$", re.IGNORECASE | re.ASCII)


#: An NVIDIA MIG instance's name: the parent GPU's with the profile ("NVIDIA A100-SXM4-40GB MIG 1g.5gb",
#: "NVIDIA H100 80GB HBM3 MIG 3g.40gb"; nvidia-smi and CUDA name instances so). An instance has its profile's share
#: of the SMs (GPCs) and of the memory slices, not the parent's figures (NVIDIA Multi-Instance GPU User Guide).
MIG_NAME = re.compile(r"\bMIG\b(?:\s+(?P<profile>[0-9]+g\.[0-9]+gb))?", re.ASCII | re.IGNORECASE)


def mig_slice(rec: Mapping[str, Any]) -> str | None:
    """Why a recorded MIG instance has no built-in figures: ``"a MIG instance (1g.5gb) of an NVIDIA
    A100-SXM4-40GB: …"``; None for a name that is no MIG instance. Its share of the SMs and of the DRAM bandwidth
    is no datasheet figure (the SMs per compute slice differ by part, the bandwidth by the memory slices the
    instance holds), so its peaks are unknown rather than the whole GPU's (7× too high for a 1g slice)."""
    name = str(rec.get("name") or "")
    m = MIG_NAME.search(name)
    if m is None:
        return None
    profile = f" ({m.group('profile')})" if m.group("profile") else ""
    parent = name[:m.start()].strip() or "an NVIDIA GPU"
    return (f"a MIG instance{profile} of {parent}: it has its profile's share of the SMs and of the DRAM bandwidth, "
            "not the whole GPU's, and that share is no datasheet figure")


def _candidates(rec: Mapping[str, Any]) -> tuple[list[DeviceSpec], str, bool]:
    """(built-in specs the record can be, how they were found, chosen by compute capability alone): the rules of
    :func:`identify_device` before it picks one; no specs when the record names a part with no built-in figures."""
    name = str(rec.get("name") or "")
    cc_alone = False  # chosen by compute capability alone: other GPUs of that capability are as likely
    amd = _is_amd(rec)
    vendor = "amd" if amd else "nvidia"
    pool = [s for s in SPECS if s.vendor == vendor]
    if not amd and mig_slice(rec):  # a slice of the named GPU: never the whole GPU's SMs and bandwidth
        return [], "", False
    cands = [s for s in pool if name and any(re.search(p, name, re.IGNORECASE) for p in s.match)]
    how = f"name {name!r}"
    if not cands and name and not GENERIC_NAME.match(name):
        return [], "", False  # a named part with no built-in figures (an L40, an RTX 6000 Ada): no other of its arch
    if cands and not amd and rec.get("num_sms") and not any(s.num_sms == int(rec["num_sms"]) for s in cands):
        return [], "", False  # a variant of the named part with other SMs (RTX 4090 D: 114, a MIG slice)
    if not cands:
        sms = rec.get("num_sms")
        if amd:
            gfx = _gfx_of(rec)
            cands = [s for s in pool if gfx and s.gfx_arch == gfx and sms and s.num_sms == int(sms)]
            how = f"architecture {gfx} with {sms} CUs" + (f" (the name {name!r} does not say)" if name else "")
        else:
            cc = rec.get("compute_capability")
            cands = [s for s in pool if cc and s.compute_capability == str(cc) and sms and s.num_sms == int(sms)]
            how = f"compute capability {cc} with {sms} SMs"
            if not cands and cc and not sms:
                cc_alone = True
                cands = [s for s in pool if s.compute_capability == str(cc)]
                how = f"compute capability {cc} alone (no device name or SM count recorded): "
    sms = rec.get("num_sms")
    if amd and cands and sms and not any(s.num_sms == int(sms) for s in cands):
        # the name disagrees with the CU count (e.g. "MI250X" on a 104-CU GCD): the CU count of the same arch wins
        by_cu = [s for s in pool if s.gfx_arch in {c.gfx_arch for c in cands} and s.num_sms == int(sms)]
        family = re.search(r"MI[0-9]+", cands[0].name)
        by_cu.sort(key=lambda s: not (family and family.group(0) in s.name))  # same family first (MI250X → MI250)
        if by_cu:
            how = f"{sms} CUs ({name!r} names a part with {cands[0].num_sms})"
            cands = by_cu
    return _narrow(cands, rec), how, cc_alone


def identify_device(rec: Mapping[str, Any]) -> DeviceSpec | None:
    """The built-in spec for one recorded device (a ``Timeline.meta.devices`` entry), or None.

    Matching: the recorded name against each spec's patterns, narrowed by SM/CU count and memory size; when the
    name says nothing (ROCm's generic "AMD Radeon Graphics", :data:`GENERIC_NAME`), the architecture (gfx arch, or
    ROCm's compute capability 9.0/9.4/9.5) together with the CU count. A name that names a part no spec matches is
    unknown (None): another GPU of the same architecture and SM count has other clocks and peaks (an NVIDIA L40 or
    RTX 6000 Ada is no L40S, an H100 NVL no H100 SXM); so is an NVIDIA record whose SM count is none of the named
    part's (an RTX 4090 D's 114 SMs, a MIG slice). When an NVIDIA record has only a compute capability (an
    ncu details CSV: ``CC`` column, no name, no SM count), the built-in GPU of that capability is *assumed* (the first
    in data-file order when several share it) and the note says so and why. Otherwise, when the parts left differ in
    clock or peaks (:data:`PEAK_TOLERANCE`) and the record does not tell them apart — a 60-CU "Vega 20" without its
    memory size (an MI50 or a Radeon VII), an "AMD Radeon Graphics" gfx950 with 256 CUs (MI350X or MI355X) — none is
    chosen (:func:`ambiguous_parts` names them) rather than the first. The returned spec's ``note`` says how it was
    chosen.
    """
    cands, how, cc_alone = _candidates(rec)
    if not cands or (not cc_alone and _peaks_differ(cands)):
        return None  # none, or parts with other clocks / peaks the record cannot tell apart: none, not the first one
    name = str(rec.get("name") or "")
    spec = cands[0]
    if cc_alone:  # different GPUs of one compute capability, not memory variants of one: name the alternatives
        how += ("the only built-in GPU of that compute capability" if len(cands) == 1 else
                "the first built-in GPU of that compute capability (also possible: "
                + ", ".join(s.name for s in cands[1:]) + "), so peak figures may not be this GPU's (pass "
                "--device-spec FILE to be exact)")
    note = f"identified from {how}"
    clk, own = rec.get("memory_clock_hz"), spec.figure_value("memory_clock_mhz")
    if not name and clk and own and abs(own * 1e6 - float(clk)) <= MEMORY_CLOCK_TOLERANCE * float(clk):
        note += f"; its recorded DRAM clock ({float(clk) / 1e9:.2f} GHz) is the {spec.name}'s ({own:.0f} MHz)"
    others = [s.name for s in cands[1:]]
    if spec.name == "AMD Instinct MI210" and "MI210" not in name and not any("MI250" in o for o in others):
        note += "; an MI250 GCD has the same per-device figures"
    if cc_alone:
        pass  # the alternatives are named in ``how`` already
    elif len(cands) > 1 and not rec.get("total_memory_bytes") and len({s.memory_bytes for s in cands}) == len(cands):
        # variants told apart only by their memory (GH200 96 GB HBM3 / 144 GB HBM3e): say which one was assumed
        note += (f"; the memory size is not recorded, so the {spec.name} variant is assumed (also possible: "
                 + ", ".join(s.name for s in cands[1:]) + "; pass --device-spec FILE to be exact)")
    elif len(cands) > 1:  # the parts left share clock and peaks (_peaks_differ): which one it is changes no figure
        note += (f"; also matches {', '.join(others)}, whose clock and peaks are the same (within "
                 f"{PEAK_TOLERANCE * 100:g} %): the figures hold for either")
    if rec.get("name_assumed"):
        note = str(rec["name_assumed"])
    return spec.with_note(note)


def ambiguous_parts(rec: Mapping[str, Any]) -> list[str]:
    """Names of the built-in parts a record may be when :func:`identify_device` chose none because they differ in
    clock or peaks and the record does not tell them apart (a 60-CU "Vega 20": an MI50 or a Radeon VII); else []."""
    cands, _, cc_alone = _candidates(rec)
    return [s.name for s in cands] if not cc_alone and _peaks_differ(cands) else []


def limits_of_record(rec: Mapping[str, Any]) -> ArchLimits | None:
    """Occupancy limits for a recorded device from its architecture alone (no full spec needed)."""
    if _is_amd(rec):
        return limits_for(None, _gfx_of(rec))
    return limits_for(rec.get("compute_capability"))


def no_spec_reason(timeline: Any, need_arch: bool = False) -> str:
    """Why an analysis needing a device spec is skipped when none was identified, in the trace's own terms: the GPU
    the trace names (then gpulens simply has no figures for it), or that it records none. ``need_arch``: the
    analysis could have used the architecture's occupancy rules alone, so say whether the architecture is recorded
    and has none. A trace without any kernel says so instead (a CPU-only run needs no device spec)."""
    from gpulens.analyzers._span import has_summary_kernels  # lazy: analyzers import this module

    ev = getattr(timeline, "events", None)
    if (ev is not None and "kind" in ev and not ev["kind"].isin(("kernel", "comm")).any()
            and not has_summary_kernels(timeline)):
        return "no kernel in the trace (no device spec is needed)"  # no --device-spec advice for a CPU run
    rec = _main_device(timeline) or {}
    name = str(rec.get("name") or "").strip()
    arch = str(rec.get("gfx_arch") or "").strip() or (
        f"compute capability {rec['compute_capability']}" if rec.get("compute_capability") else "")
    told = f"the trace names the GPU {name!r}" if name else "the GPU was not identified from the trace"
    parts = ambiguous_parts(rec)
    if parts:
        told += (f", which may be any of {', '.join(parts)} — parts with other clocks or peaks that the trace's "
                 "architecture, SM/CU count and memory size do not tell apart")
    elif mig_slice(rec):
        told += f", {mig_slice(rec)}"
    elif name and find_spec(name)[1]:  # "NVIDIA H100": the name's words fit variants with other clocks and peaks
        told += (f", which names no variant: it may be any of {', '.join(find_spec(name)[1])} (other clocks, peaks "
                 "or bandwidth), or another variant")
    elif name:
        told += ", a GPU with no built-in figures"
    hint = "pass --device-spec FILE" if name else SPEC_HINT  # a GPU the table lacks needs its own figures
    if not need_arch:
        return f"no device spec: {told} ({hint})"
    if arch:
        return (f"no device spec: {told}, and its architecture ({arch}) has no built-in occupancy rules (gpulens has "
                "them for CUDA compute capability 3.5, 6.0, 6.1 and 7.0–12.1, AMD GCN gfx906 and CDNA gfx908–gfx950 only)")
    return f"no device spec: {told} and its architecture is not recorded ({hint})"


def main_device(timeline: Any) -> Mapping[str, Any] | None:
    """The recorded device (``meta.devices`` entry) with the most kernel time, or the first one."""
    return _main_device(timeline)


def _gpu_keys(ev: Any, gpu_kinds: Any) -> set[tuple[int, int]]:
    """The distinct ``(rank, device_id)`` of the GPU rows (kind in ``gpu_kinds``, ``device_id`` >= 0) of an events
    table. A categorical ``kind`` with numpy integer keys (the Timeline's schema) is read by category code, one
    test per category, and a run on one GPU needs no per-row hashing (the 1M-kernel trace: 0.075 → 0.025 s); any
    other table by pandas, as before."""
    import pandas as pd

    kind, rank, dev = ev["kind"], ev["rank"], ev["device_id"]
    if isinstance(kind.dtype, pd.CategoricalDtype) and all(
            isinstance(c.dtype, np.dtype) and c.dtype.kind in "iu" for c in (rank, dev)):
        table = np.append(np.asarray(kind.cat.categories.isin(list(gpu_kinds)), dtype=bool), False)  # −1: missing
        g, r = dev.to_numpy(), rank.to_numpy()
        sel = table.take(kind.array.codes)
        sel &= g >= 0
        if not sel.any():
            return set()
        if r.min() == r.max():  # one rank: only the GPU rows' devices are selected
            gs = g[sel]
            if gs.min() == gs.max():
                return {(int(r[0]), int(gs[0]))}
        r, g = r[sel].astype(np.int64), g[sel].astype(np.int64)
        rlo, glo = int(r.min()), int(g.min())
        rspan, gspan = int(r.max()) - rlo + 1, int(g.max()) - glo + 1
        if rspan * gspan < 1 << 62:  # each pair as one integer: a presence table over a small span, else a 1-D sort
            key = (r - rlo) * gspan + (g - glo)  # (np.unique(axis=0) sorted the rows as records: 0.13 s, 8 ranks)
            if rspan * gspan <= max(4 * len(key), 1 << 16):
                present = np.zeros(rspan * gspan, dtype=bool)
                present[key] = True
                keys = np.flatnonzero(present)
            else:
                keys = np.unique(key)
            return {(int(k) // gspan + rlo, int(k) % gspan + glo) for k in keys.tolist()}
        pairs = np.unique(np.stack([r, g], axis=1), axis=0)
        return {(int(a), int(b)) for a, b in pairs.tolist()}
    # the two key columns only: a row selection of the whole table copied every column of every GPU row
    gpu = ev[["rank", "device_id"]][kind.isin(gpu_kinds) & (dev >= 0)]
    return {(int(r), int(g)) for r, g in gpu.drop_duplicates().itertuples(index=False)}


def split_by_work(timeline: Any) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The recorded devices (``meta.devices``) split into those that ran GPU work (kernels, collectives, copies,
    fills) and those that ran none, matched on ``(rank, device_id)`` as :func:`main_device` matches them.

    An nsys export lists every GPU of the machine (``TARGET_INFO_GPU``), a Kineto trace every visible device: a
    run on one A100 of a node that also holds two A40s records all three. When no recorded device matches a GPU
    event (another numbering, no GPU work) all are returned as working and none as idle: nothing is claimed. A busy
    record with ``one_of`` (a GPU numbered otherwise than the list, :mod:`gpulens.collectors._unlisted`) is one of
    those listed ids: one of them is left out of the idle ones.
    """
    devs = [d for d in timeline.meta.devices if isinstance(d, Mapping)]
    ev = timeline.events
    if not devs or not len(ev):
        return devs, []
    from gpulens.timeline import GPU_KINDS

    keys = _gpu_keys(ev, GPU_KINDS)

    def key(d: Mapping[str, Any]) -> tuple[int, int] | None:
        try:
            return int(d.get("rank", 0) or 0), int(d.get("device_id", 0) or 0)
        except (TypeError, ValueError):
            return None

    busy = [d for d in devs if key(d) in keys]
    if not busy:
        return devs, []
    idle = [d for d in devs if key(d) not in keys]
    # a busy GPU numbered otherwise than the list (``one_of``: the listed ids it is one of, a Kineto trace on ROCm)
    # is one of the idle-looking listed GPUs: one of them is not idle (which one is unknown; the names are alike)
    for b in busy:
        one_of = b.get("one_of") or ()
        twin = next((d for d in idle if key(d) is not None and key(d)[0] == key(b)[0] and key(d)[1] in one_of), None)
        if twin is not None:
            idle.remove(twin)
    return busy, idle


def _main_device(timeline: Any) -> Mapping[str, Any] | None:
    devs = [d for d in timeline.meta.devices if isinstance(d, Mapping)]
    if not devs:
        return None
    k = timeline.of_kind("kernel", "comm")
    if len(k):
        r, g = k["rank"].to_numpy(), k["device_id"].to_numpy()
        if r.dtype.kind in "iu" and g.dtype.kind in "iu" and r.min() == r.max() and g.min() == g.max():
            top = (r[0], g[0])  # one GPU did all the work: no per-GPU sums (~0.03 s per call at 1M kernels)
        else:
            top = k.groupby(["rank", "device_id"], observed=True)["dur_ns"].sum().idxmax()
        for d in devs:
            if (d.get("rank", 0), d.get("device_id", 0)) == tuple(int(x) for x in top):
                return d
    return devs[0]


def inferred_num_sms(timeline: Any) -> int | None:
    """SM count implied by Kineto's per-kernel occupancy estimate when the trace records no device.

    Kineto (CUPTI activity, ``CuptiActivity.cpp``) writes ``blocks per SM`` = grid blocks / SMs and ``warps per
    SM`` = blocks per SM × warps per block (⌈block threads / 32⌉), so SMs = grid blocks / ``blocks per SM`` or
    grid blocks × warps per block / ``warps per SM``; older traces (2021 TensorBoard-plugin ones) carry only the
    second. The median over kernels of at least 100 blocks (the printed ratio keeps enough digits); None without
    such kernels.
    """
    c = timeline.counters
    for metric, per_block_warps in (("kineto.blocks_per_sm", False), ("kineto.warps_per_sm", True)):
        rows = c[c["metric"] == metric]
        if not len(rows):
            continue
        ev = timeline.events.set_index("event_id").loc[rows["event_id"].to_numpy()]

        def f(cols: list[str]) -> np.ndarray:
            x = ev[cols[0]] * ev[cols[1]] * ev[cols[2]]
            return x.astype("Float64").to_numpy(dtype=float, na_value=float("nan"))

        grid = f(["grid_x", "grid_y", "grid_z"])
        units = grid * np.ceil(f(["block_x", "block_y", "block_z"]) / 32) if per_block_warps else grid
        v = rows["value"].to_numpy(dtype=float)
        ok = (v > 0) & (units == units) & (grid >= 100)
        if ok.any():
            est = np.sort(np.round(units[ok] / v[ok]))
            return int(est[len(est) // 2])
    return None


def spec_conflict(timeline: Any, given: DeviceSpec | None) -> str | None:
    """Why ``given`` (the user's ``--device-spec``) is not the GPU the trace records, or None when it may be.

    The recorded device (:func:`main_device`) conflicts with ``given`` when it is identified as another built-in
    GPU and ``given`` is a built-in one (a trace of an H200 analysed as an H100 SXM: other bandwidth, other roofs),
    or — for a spec file, which may hold the same GPU's own measured peaks under any name, and for a record no
    built-in spec matches — when a recorded hardware fact differs: vendor, architecture (compute capability / gfx
    arch) or SM/CU count. Returns one sentence naming both GPUs and which spec the figures use; None when the trace
    records nothing to compare, or nothing contradicts ``given``.
    """
    rec = _main_device(timeline)
    if rec is None or given is None:
        return None
    ident = identify_device(rec)
    ident = None if ident is not None and ident.assumed else ident  # an assumed GPU is no record to contradict
    recorded = str(rec.get("name") or "") or (ident.name if ident else "")
    why = ""
    if ident is not None and ident.name != given.name and given.origin == "builtin":
        why = f"identified as the built-in {ident.name}"
    else:
        amd = _is_amd(rec)
        arch = _gfx_of(rec) if amd else (f"sm_{str(rec['compute_capability']).replace('.', '')}"
                                         if rec.get("compute_capability") else None)
        sms = rec.get("num_sms")
        if (recorded or arch) and amd != (given.vendor == "amd"):
            why = f"an {'AMD' if amd else 'NVIDIA'} GPU"
        elif arch and given.arch != "sm_?" and arch != given.arch:
            why = f"architecture {arch}, the spec's {given.arch}"
        elif isinstance(sms, int) and sms > 0 and given.num_sms and sms != given.num_sms:
            why = f"{sms} {'CUs' if amd else 'SMs'}, the spec's {given.num_sms}"
    if not why:
        return None
    return (f"--device-spec {given.name} is not the GPU this trace records: {recorded or 'the recorded device'} "
            f"({why}); the roofline, occupancy and times at stake use the {given.name}'s figures, as asked")


def identify(timeline: Any) -> DeviceSpec | None:
    """The spec of the GPU a Timeline ran on (the device with the most kernel time), or None when unknown.

    A recorded NVIDIA GPU that no built-in spec names gets the figures its record implies (compute capability, SM
    count, clock, memory interface: :func:`gpulens.devices.derived.derived_spec`), its name saying so. Falls back,
    when the trace records no device at all, to the SM count implied by Kineto's per-kernel
    ``blocks per SM`` or ``warps per SM`` (:func:`inferred_num_sms`; NVIDIA only): the first built-in GPU with that
    many SMs is then *assumed* (:attr:`DeviceSpec.assumed`; the note says so), since an SM count names no part.
    """
    rec = _main_device(timeline)
    if rec is not None:
        spec = identify_device(rec)
        if spec is None and not ambiguous_parts(rec):  # a GPU no built-in spec names: its own recorded figures
            from gpulens.devices.derived import derived_spec

            spec = derived_spec(rec, SPECS)
        return spec
    sms = inferred_num_sms(timeline)
    if sms is None:
        return None
    cands = [s for s in SPECS if s.vendor == "nvidia" and s.num_sms == sms]
    if not cands:
        return None
    # an SM count names no GPU: other parts (and variants of this one) have as many SMs, so the GPU is assumed
    note = (f"{cands[0].name} assumed from {sms}{SMS_INFERRED_FROM} (any GPU with as many SMs is as likely")
    note += ("" if len(cands) == 1 else ", among the built-in ones " + ", ".join(s.name for s in cands[1:]))
    note += "; pass --device-spec FILE to be exact)"
    return cands[0].with_note(note)


__all__ = ["PRECISIONS", "SPECS", "SPEC_HINT", "ArchLimits", "DeviceSpec", "Figure", "ambiguous_parts", "builtin_spec",
           "find_spec", "get_spec", "identify", "identify_device", "inferred_num_sms", "limits_for", "limits_of_record",
           "load_spec", "spec_conflict",
           "main_device", "no_spec_reason", "spec_from_dict", "split_by_work"]
