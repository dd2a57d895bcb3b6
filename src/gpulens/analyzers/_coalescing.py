"""Coalescing of global loads and stores from Nsight Compute's sectors-per-request counters.

A warp's global load or store is one *request* to L1TEX; the memory it touches is fetched in 32-byte *sectors*.
When the 32 threads of a warp access 32 consecutive 32-bit words the request needs 128 B = **4 sectors** — the ideal
the Nsight Compute Kernel Profiling Guide gives for 32-bit accesses (8 for 64-bit, 16 for 128-bit vector accesses).
A strided or scattered access touches up to one sector per thread: **32 sectors per request**, 8× the traffic of a
coalesced 32-bit access (the naive matrix transpose writes its output column-wise: stores at 32 sectors/request).

Per kernel name, summed over its launches:
``sectors per request = l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum /
l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum`` (or ncu's own
``l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{ld,st}.ratio``, launch-weighted by duration).

Reading (:func:`uncoalesced`): above :data:`WIDEST_IDEAL` (16, the ideal of the widest, 128-bit access) the accesses
are uncoalesced whatever their width; above the coalesced figure of the element type the kernel's signature spells
(``double*`` → 8, ``float*`` → 4, ``half*`` → 2; 4 when unknown) × :data:`TOLERANCE` but at most 16 they are
uncoalesced unless the kernel uses wider vector accesses (float4 loads of a float array touch 16 sectors) — said
so, not asserted.
"""

from __future__ import annotations

import re

from gpulens.analyzers.context import named_counter_rows
from gpulens.timeline import Timeline

#: Sectors per request of a fully coalesced warp access of 32-bit words (32 × 4 B = 128 B = 4 × 32 B sectors).
IDEAL_32BIT = 4.0
#: Sectors per request of a fully coalesced warp access of 128-bit vectors (32 × 16 B = 512 B): above it no access
#: width makes the request coalesced.
WIDEST_IDEAL = 16.0
#: Slack above the 32-bit ideal before an access is called uncoalesced (misaligned starts add a sector).
TOLERANCE = 1.25
_OPS = {"load": "ld", "store": "st"}


def _metrics(op: str) -> tuple[str, str, str]:
    return (f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum", f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum",
            f"l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_{op}.ratio")


def sectors_per_request(timeline: Timeline) -> dict[str, dict[str, float]]:
    """Per kernel name, ``{"load": sectors/request, "store": sectors/request}`` (a key only where counted; kernels
    with neither are absent). Sums of sectors over sums of requests; ncu's ratio metric when the sums are absent."""
    rows = named_counter_rows(timeline, {m for op in _OPS.values() for m in _metrics(op)})
    if not len(rows):
        return {}
    out: dict[str, dict[str, float]] = {}
    for name, g in rows.groupby("name", sort=False):
        vals: dict[str, float] = {}
        for word, op in _OPS.items():
            sec, req, ratio = _metrics(op)
            s = g.loc[g["metric"] == sec, "value"].dropna()
            r = g.loc[g["metric"] == req, "value"].dropna()
            if len(s) and len(r) and float(r.sum()) > 0:
                vals[word] = float(s.sum()) / float(r.sum())
                continue
            m = g[(g["metric"] == ratio) & g["value"].notna()]
            if len(m):
                w = m["dur_ns"].to_numpy(float)
                v = m["value"].to_numpy(float)
                vals[word] = float((v * w).sum() / w.sum()) if w.sum() > 0 else float(v.mean())
        if vals:
            out[str(name)] = vals
    return out


_TYPE_BYTES = ((re.compile(r"\b(double|int64_t|long|uint64_t|c10::complex<float>)\b"), 8),
               (re.compile(r"\b(float|int|int32_t|uint32_t|unsigned)\b"), 4),
               (re.compile(r"\b(half|__half|Half|BFloat16|__nv_bfloat16|bfloat16|short|int16_t)\b"), 2),
               (re.compile(r"\b(char|int8_t|uint8_t|bool)\b"), 1))


def element_bytes(name: str | None) -> int | None:
    """The element size [bytes] of the pointer parameters a kernel's signature spells (``transpose(float const*,
    float*, int)`` → 4), when they all agree; None when unknown or mixed."""
    if not name or "(" not in name:
        return None
    params = name[name.index("(") + 1:]
    sizes = set()
    for p in params.split(","):
        if "*" not in p:
            continue
        hit = next((b for pat, b in _TYPE_BYTES if pat.search(p)), None)
        if hit is None:
            return None
        sizes.add(hit)
    return sizes.pop() if len(sizes) == 1 else None


def ideal_sectors(name: str | None = None) -> float:
    """Sectors per request of a coalesced warp access of the kernel's element type (4 B → 4; 8 B → 8; 2 B → 2),
    :data:`IDEAL_32BIT` when the type is unknown."""
    b = element_bytes(name)
    return float(b) if b else IDEAL_32BIT


def uncoalesced(spr: dict[str, float] | None, name: str | None = None) -> list[tuple[str, float, bool]]:
    """The uncoalesced accesses of one kernel: ``[(load | store, sectors per request, certain)]``, worst first.
    Above the coalesced figure of its element type (:func:`ideal_sectors`, 4 for 32-bit or unknown types) × the
    tolerance; ``certain`` when above :data:`WIDEST_IDEAL` (uncoalesced at any access width, vector accesses
    included), else uncoalesced unless the kernel uses wider (vector) accesses."""
    ideal = ideal_sectors(name)
    out = [(w, v, v > WIDEST_IDEAL) for w, v in (spr or {}).items()
           if v == v and v > ideal * TOLERANCE]
    return sorted(out, key=lambda x: -x[1])


def evidence_text(spr: dict[str, float] | None, name: str | None = None) -> str | None:
    """``"global loads 4.0, stores 32.0 sectors per request (coalesced 32-bit access: 4)"`` — the width of the
    element type the kernel's signature spells; None without counters."""
    if not spr:
        return None
    parts = [f"{w}s {v:.1f}" for w, v in spr.items()]
    b = element_bytes(name)
    bits = f"{8 * b}-bit" if b else "32-bit"
    return f"global {', '.join(parts)} sectors per request (coalesced {bits} access: {ideal_sectors(name):.0f})"


def step(spr: dict[str, float] | None, name: str | None = None) -> str | None:
    """The next step naming the uncoalesced global accesses (one imperative sentence), None when all are coalesced
    or not counted. Each access says how far above a coalesced access of the kernel's element type it is; one that
    wider vector accesses could explain says so."""
    bad = uncoalesced(spr, name)
    if not bad:
        return None
    ideal = ideal_sectors(name)
    bits = f"{8 * int(ideal)}-bit" if element_bytes(name) else "32-bit"
    parts = []
    for w, v, certain in bad:
        cond = "" if certain else ", unless they are wider vector accesses"
        parts.append(f"{w}s ({v:.0f} sectors per request, {v / ideal:.0f}× a coalesced {bits} access{cond})")
    how = ("stage the tile through shared memory so both the reads and the writes run along rows (tiled "
           "transpose)" if any(w == "store" for w, _, _ in bad) else
           "make consecutive threads read consecutive addresses (or stage the data through shared memory)")
    return f"Global {' and '.join(parts)} are uncoalesced: {how}."


def finding_detail(spr: dict[str, float], name: str | None = None) -> str:
    """One sentence on how the figure was read (for the finding)."""
    bad = uncoalesced(spr, name)
    worst = max(v for _, v, _ in bad) if bad else float("nan")
    return (f"Each warp-wide request touches {worst:.0f} 32-byte sectors; a coalesced access of 32-bit words touches "
            f"{IDEAL_32BIT:.0f} (8 for 64-bit, 16 for 128-bit vector accesses: Nsight Compute Kernel Profiling Guide, "
            "L1TEX sectors per request). The extra sectors are traffic through L1, L2 and DRAM the data does not need.")


__all__ = ["sectors_per_request", "uncoalesced", "evidence_text", "step", "finding_detail", "IDEAL_32BIT",
           "WIDEST_IDEAL", "TOLERANCE"]

