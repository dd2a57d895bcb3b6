"""What a GPU engineer reads for the raw device and driver numbers a trace records: one wording for every report,
the diff and the gate.

Decoded where the encoding is documented:

* CUDA versions (``cuda_driver_version``, ``cuda_runtime_version``; Kineto ``cudaDriverVersion``) are
  ``1000 × major + 10 × minor`` — CUDA Driver API, "Version Management", ``cuDriverGetVersion``: "CUDA 9.2 would be
  represented by 9020" (https://docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__VERSION.html). ``12090`` → ``CUDA
  12.9``.
* HIP versions (``hip_driver_version``, ``hip_runtime_version``) are ``HIP_VERSION_MAJOR × 10,000,000 +
  HIP_VERSION_MINOR × 100,000 + HIP_VERSION_PATCH`` — HIP ``hip_runtime_api.h``, ``hipDriverGetVersion``: "HIP driver
  version shows up in the format: HIP_VERSION_MAJOR * 10000000 + HIP_VERSION_MINOR * 100000 + HIP_VERSION_PATCH"
  (the same encoding as ``HIP_VERSION`` in ``hip_version.h``). ``60443483`` → ``HIP 6.4.43483``.
* The "compute capability" ROCm reports for an AMD GPU (``hipDeviceProp_t.major.minor``, which Kineto writes as
  ``computeCapability``) is the gfx family, not a CUDA capability: ``9.4`` is gfx94x (MI300), read with the
  device's name and CU count by :func:`gpulens.devices._gfx_of` → ``gfx942 (HIP reports 9.4)``. NVIDIA's reads
  ``compute capability 9.0 (sm_90)``.

Anything else is shown as recorded with what it is: ``60443483 (raw driver value, encoding unknown)``.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Mapping

_AMD_NAME = re.compile(r"\b(AMD|Instinct|Radeon|gfx[0-9])", re.IGNORECASE)


def _int(v: Any) -> int | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return int(f) if f == f and f.is_integer() else None


def cuda_version_text(v: Any) -> str | None:
    """``12090`` → ``"CUDA 12.9"`` (1000 × major + 10 × minor); None when ``v`` is not such an integer."""
    n = _int(v)
    if n is None or not 1000 <= n < 100_000:
        return None
    return f"CUDA {n // 1000}.{(n % 1000) // 10}"


def hip_version_text(v: Any) -> str | None:
    """``60443483`` → ``"HIP 6.4.43483"`` (major × 10⁷ + minor × 10⁵ + patch); None when ``v`` is not such an
    integer."""
    n = _int(v)
    if n is None or not 10_000_000 <= n < 1_000_000_000:
        return None
    return f"HIP {n // 10_000_000}.{(n % 10_000_000) // 100_000}.{n % 100_000}"


def version_text(v: Any, key: str = "") -> str:
    """A driver/runtime version as a person reads it.

    ``key`` names the field (``cuda_driver_version``, ``hip_runtime_version``...): its vendor decides the decoding.
    Without a vendor in the key, the value's magnitude does (a CUDA version is below 100,000, a HIP one 10⁷ or
    more). A value with no documented decoding reads ``"<value> (raw <what>, encoding unknown)"``.
    """
    if v is None:
        return "unknown"
    k = key.lower()
    what = "runtime" if "runtime" in k else "driver"
    if isinstance(v, str) and "," in v:  # several values joined (the gate's environment)
        return ", ".join(version_text(x.strip(), key) for x in v.split(",") if x.strip())
    if k.startswith("cuda"):
        text = cuda_version_text(v)
    elif k.startswith("hip") or k.startswith("rocm"):
        text = hip_version_text(v)
    else:
        text = cuda_version_text(v) or hip_version_text(v)
    if text:
        return text
    n = _int(v)
    raw = str(n) if n is not None else str(v).strip()
    if n is None and re.fullmatch(r"[0-9]+(\.[0-9]+)+", raw):  # already dotted ("6.4.1"): as recorded
        return raw
    return f"{raw} (raw {what} value, encoding unknown)"


def is_amd(rec: Mapping[str, Any]) -> bool:
    """True for a device record of an AMD GPU (gfx arch recorded, wavefront of 64, or an AMD name)."""
    return bool(rec.get("gfx_arch")) or rec.get("warp_size") == 64 or bool(_AMD_NAME.search(str(rec.get("name") or "")))


def arch_text(rec: Mapping[str, Any]) -> str | None:
    """A device record's architecture: ``"compute capability 9.0 (sm_90)"`` for NVIDIA, ``"gfx942"`` or
    ``"gfx942 (HIP reports 9.4)"`` for AMD, ``"9.4 (as reported; gfx family unknown)"`` when an AMD value has no
    known gfx name; None when nothing is recorded."""
    gfx, cc = rec.get("gfx_arch"), rec.get("compute_capability")
    if gfx:
        return str(gfx).split(":")[0]
    if cc in (None, ""):
        return None
    cc = str(cc)
    if is_amd(rec):
        from gpulens.devices import _gfx_of

        g = _gfx_of(rec)
        return f"{g} (HIP reports {cc})" if g else f"{cc} (as reported by HIP; gfx family unknown)"
    m = re.fullmatch(r"([0-9]+)\.([0-9]+)", cc)
    return f"compute capability {cc} (sm_{m.group(1)}{m.group(2)})" if m else f"compute capability {cc}"


def arch_list_text(archs: Iterable[Any], gpus: Iterable[Any] = ()) -> str:
    """The gate environment's ``arch`` list (compute capabilities or gfx names) with the GPU names it came with."""
    names = [str(g) for g in gpus]
    amd = any(_AMD_NAME.search(n) for n in names)
    out = []
    for a in archs:
        rec = {"compute_capability": a, "name": names[0] if len(names) == 1 else ("AMD" if amd else "")}
        if str(a).lower().startswith("gfx"):
            rec = {"gfx_arch": a}
        out.append(arch_text(rec) or str(a))
    return ", ".join(out) or "unknown"
