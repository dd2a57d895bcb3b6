"""The environment of a run — what a gate comparison must hold equal (GPU models, count, architecture, ranks,
driver...) — and the machine key a baseline is stored under, from ``gpulens analyze --json`` reports
(docs/report-schema.md); and :func:`_get`, the report accessor they share with :mod:`gpulens.gate.runs`.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from gpulens.errors import GpulensError

#: environment field → the keys of a report's ``inputs[]`` / top-level ``environment`` that record it
_VERSION_KEYS = {"driver": ("cuda_driver_version", "hip_driver_version", "driver_version"),
                 "runtime": ("cuda_runtime_version", "hip_runtime_version", "runtime_version"),
                 "torch": ("torch_version",)}


#: a run metric's path → the path read in a report that lacks it (a report written before the figure existed)
OLDER_PATH = {("summary", "kernel_effective_ns"): ("summary", "kernel_time_ns")}


def _get(d: dict, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in the report dict ``d`` (None when absent), or at its :data:`OLDER_PATH`."""
    v = _walk(d, path)
    return _walk(d, OLDER_PATH[path]) if v is None and path in OLDER_PATH else v


def _walk(d: Any, path: tuple[str, ...]) -> Any:
    """The value at ``path`` in nested dicts ``d``; None when a step is missing or not a dict."""
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def environment_of(source: dict[str, Any], report: dict[str, Any]) -> dict[str, Any]:
    """What the comparison must hold equal, from one source of a report.

    Returns:
        ``gpus`` (sorted distinct GPU names), ``gpu_count`` (GPUs with GPU work, the breakdown's ``gpu_count``;
        the devices recorded when the report lacks it), ``gpu_count_basis`` (``"with GPU work"`` or
        ``"recorded"``; absent from baselines saved before session 48: recorded), ``arch`` (sorted compute
        capabilities / gfx arch names), ``ranks`` (rank count), ``driver``, ``runtime``, ``torch`` (str or None
        when the source does not record them), ``collectors``, ``tool_version``, ``sm_clock_mhz`` (mean SM clock
        during the run from the ``telemetry`` analysis, MHz; None when not recorded), ``steps`` (``[N]``: the
        ``ProfilerStep#N`` steps the run profiled: distinct step numbers, ``analyses.steps.summary.steps``, so each
        rank's steps count once; ``[]`` without steps — for a side, the sorted distinct counts of its runs).
    """
    devs = [d for d in source.get("devices") or [] if isinstance(d, dict)]
    inputs = [i for i in source.get("inputs") or [] if isinstance(i, dict)]
    # GPUs the run used: the breakdown's gpu_count ("GPUs with GPU work", one definition for every report) — a
    # Kineto trace lists every device the process could see (8 on an 8-GPU node for a job on one of them: the
    # MI300X replay trace ran its 29 kernels on device 2 of 8 listed); the devices recorded when that is unknown
    worked = _get(source, ("analyses", "breakdown", "summary", "gpu_count"))
    used = isinstance(worked, int) and not isinstance(worked, bool) and worked > 0
    env: dict[str, Any] = {
        "gpus": sorted({str(d["name"]) for d in devs if d.get("name")}),
        "gpu_count": worked if used else len({(d.get("rank"), d.get("device_id")) for d in devs}),
        "gpu_count_basis": "with GPU work" if used else "recorded",
        "arch": sorted({str(d.get("gfx_arch") or d.get("compute_capability")) for d in devs
                        if d.get("gfx_arch") or d.get("compute_capability")}),
        "ranks": len(_get(source, ("summary", "ranks")) or [0]),
    }
    extra = report.get("environment") if isinstance(report.get("environment"), dict) else {}
    for key, names in _VERSION_KEYS.items():
        vals = {str(i[n]) for i in inputs for n in names if i.get(n) is not None}
        vals |= {str(extra[n]) for n in names if extra.get(n) is not None}
        env[key] = ",".join(sorted(vals)) or None
    env["collectors"] = sorted({str(c) for c in source.get("collectors") or []})
    env["tool_version"] = _get(report, ("tool", "version"))
    clocks = [r.get("mean") for r in _get(source, ("analyses", "telemetry", "table")) or []
              if isinstance(r, dict) and r.get("quantity") == "sm_clock" and r.get("mean")]
    env["sm_clock_mhz"] = round(float(np.mean(clocks)) / 1e6) if clocks else None
    steps = _get(source, ("analyses", "steps", "summary", "steps"))  # distinct step numbers: per rank, not summed
    n = len(set(steps)) if isinstance(steps, list) else _get(source, ("analyses", "steps", "summary", "step_count"))
    env["steps"] = [n] if isinstance(n, int) and not isinstance(n, bool) and n > 0 else []
    return env


def machine_key(env: dict[str, Any]) -> str:
    """A stable, readable key of the hardware: GPU model slug, GPU count and a short hash of model + arch.

    Only stable fields go in (no clocks, no driver: a driver update is reported as a mismatch instead).
    ``"unknown-gpu"`` when the source records no device.
    """
    if not env.get("gpus"):
        return "unknown-gpu"
    slug = re.sub(r"[^a-z0-9]+", "-", env["gpus"][0].lower()).strip("-")[:40]
    h = hashlib.sha256(json.dumps([env["gpus"], env["arch"], env["gpu_count"]]).encode()).hexdigest()[:8]
    return f"{slug}-x{env['gpu_count']}-{h}"


def common_env(envs: list[dict[str, Any]], paths: list[Path]) -> dict[str, Any]:
    """The environment of a side from its runs' (:func:`environment_of`): the first run's that records a GPU, with
    the collectors, versions (comma-joined when they differ), median SM clock and distinct step counts of all.

    Raises:
        GpulensError: the runs come from different machine types (:func:`machine_key`).
    """
    if not envs:
        return {"gpus": [], "gpu_count": 0, "gpu_count_basis": "recorded", "arch": [], "ranks": 0, "driver": None,
                "runtime": None,
                "torch": None, "collectors": [], "tool_version": None, "sm_clock_mhz": None, "steps": []}
    keys = {machine_key(e) for e in envs if e["gpus"]}
    if len(keys) > 1:
        raise GpulensError(f"the runs in {', '.join(map(str, paths))} come from different GPUs "
                           f"({'; '.join(sorted({', '.join(e['gpus']) for e in envs if e['gpus']}))}): "
                           "compare runs from one machine type")
    known = [e for e in envs if e["gpus"]] or envs
    env = dict(known[0])
    env["collectors"] = sorted({c for e in envs for c in e["collectors"]})
    for k in ("driver", "runtime", "torch", "tool_version"):
        vals = sorted({str(e[k]) for e in envs if e.get(k) is not None})
        env[k] = ",".join(vals) or None
    clocks = [e["sm_clock_mhz"] for e in envs if e.get("sm_clock_mhz")]
    env["sm_clock_mhz"] = round(float(np.median(clocks))) if clocks else None
    env["steps"] = sorted({n for e in envs for n in e.get("steps") or []})
    return env
