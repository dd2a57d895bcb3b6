"""GPU telemetry sampled on a background thread: utilisation, clocks, power, temperature, memory, throttle reasons.

Backends (imported lazily; install with ``pip install 'gpulens[telemetry]'``):

* ``nvml`` — nvidia-ml-py (``pynvml``): ``nvmlDeviceGetUtilizationRates`` (``.gpu``/``.memory`` %),
  ``nvmlDeviceGetClockInfo`` (SM and memory clocks, MHz), ``nvmlDeviceGetPowerUsage`` (mW),
  ``nvmlDeviceGetTemperature`` (°C), ``nvmlDeviceGetMemoryInfo`` (bytes) and
  ``nvmlDeviceGetCurrentClocksEventReasons`` (older drivers: ``…ThrottleReasons``; a bitmask decoded by
  :mod:`gpulens.analyzers.telemetry`). Source: NVML API reference, nvml.h.
* ``rocm`` — pyrsmi (``pyrsmi.rocml``): ``smi_get_device_utilization`` (%), ``smi_get_device_memory_busy`` (%),
  ``smi_get_device_memory_used`` (bytes), ``smi_get_device_average_power`` (W); a value of -1 means "not read".

Every value is stored in a base unit (:data:`QUANTITIES`): clocks in Hz, power in W, memory in bytes. Samples become
rows of the Timeline's Counters table with ``event_id`` -1, ``time_ns`` on the Timeline's clock and ``metric``
``telemetry.<quantity>.gpu<N>`` where N is the CUDA/HIP device ordinal the process sees.

Metric names, quantities and units are defined in :mod:`gpulens.analyzers.telemetry` (which reads them back).
The sampler never raises into the user's program: a missing package, driver or device is recorded in
:attr:`Sampler.status` (``available`` False, ``reason``) and the run goes on without telemetry.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable

from gpulens.analyzers.telemetry import QUANTITIES, metric_name, parse_metric
from gpulens.timeline import COUNTER_COLUMNS, make_table

log = logging.getLogger("gpulens.profiler")

def _visible_ordinals(env: str | None, count: int) -> list[tuple[int, str | int]]:
    """(CUDA ordinal, NVML index or UUID) for each device the process sees, honouring CUDA_VISIBLE_DEVICES."""
    if env is None or not env.strip():
        return [(i, i) for i in range(count)]
    out: list[tuple[int, str | int]] = []
    for k, tok in enumerate(t.strip() for t in env.split(",")):
        if not tok or tok.startswith("-"):
            break  # CUDA stops at the first invalid entry
        out.append((k, int(tok) if tok.isdigit() else tok))
    return out


class NvmlBackend:
    """NVIDIA telemetry through nvidia-ml-py. Raises on construction when NVML cannot start (the reason)."""

    name = "nvml"

    def __init__(self, devices: list[int] | None = None):
        import pynvml  # noqa: PLC0415 (optional dependency)

        self.nv = pynvml
        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        pairs = _visible_ordinals(os.environ.get("CUDA_VISIBLE_DEVICES"), count)
        if devices is not None:
            pairs = [p for p in pairs if p[0] in set(devices)]
        self.handles: dict[int, Any] = {}
        for ordinal, ref in pairs:
            h = (pynvml.nvmlDeviceGetHandleByIndex(ref) if isinstance(ref, int)
                 else pynvml.nvmlDeviceGetHandleByUUID(ref))
            self.handles[ordinal] = h
        if not self.handles:
            pynvml.nvmlShutdown()
            raise RuntimeError("NVML sees no GPU")
        self._reasons = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            getattr(pynvml, "nvmlDeviceGetCurrentClocksThrottleReasons")

    def devices(self) -> list[int]:
        """Device ordinals sampled."""
        return sorted(self.handles)

    def readers(self, device: int) -> dict[str, Callable[[], float]]:
        """quantity → zero-argument reader returning the value in base units."""
        nv, h = self.nv, self.handles[device]
        return {
            "gpu_util": lambda: float(nv.nvmlDeviceGetUtilizationRates(h).gpu),
            "mem_util": lambda: float(nv.nvmlDeviceGetUtilizationRates(h).memory),
            "sm_clock": lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM) * 1e6,
            "mem_clock": lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM) * 1e6,
            "power": lambda: nv.nvmlDeviceGetPowerUsage(h) / 1000.0,
            "temperature": lambda: float(nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU)),
            "memory_used": lambda: float(nv.nvmlDeviceGetMemoryInfo(h).used),
            "clock_event_reasons": lambda: float(self._reasons(h)),
        }

    def close(self) -> None:
        """Shut NVML down."""
        self.nv.nvmlShutdown()


class RocmBackend:
    """AMD telemetry through pyrsmi. Raises on construction when the SMI library cannot start."""

    name = "rocm"

    def __init__(self, devices: list[int] | None = None):
        from pyrsmi import rocml  # noqa: PLC0415 (optional dependency)

        self.rocml = rocml
        rocml.smi_initialize()
        count = int(rocml.smi_get_device_count())
        ids = [d for d in range(count) if devices is None or d in devices]
        if not ids:
            raise RuntimeError("ROCm SMI sees no GPU")
        self._ids = ids

    def devices(self) -> list[int]:
        """Device indices sampled."""
        return list(self._ids)

    def readers(self, device: int) -> dict[str, Callable[[], float]]:
        """quantity → reader; pyrsmi returns -1 for a failed read, turned into ``None`` (no row)."""
        r = self.rocml

        def ok(v: Any) -> float | None:
            return None if v is None or v < 0 else float(v)

        return {
            "gpu_util": lambda: ok(r.smi_get_device_utilization(device)),
            "mem_util": lambda: ok(r.smi_get_device_memory_busy(device)),
            "power": lambda: ok(r.smi_get_device_average_power(device)),
            "memory_used": lambda: ok(r.smi_get_device_memory_used(device)),
        }

    def close(self) -> None:
        """Shut the SMI library down."""
        self.rocml.smi_shutdown()


BACKENDS: dict[str, type] = {"nvml": NvmlBackend, "rocm": RocmBackend}
_PACKAGE = {"nvml": "nvidia-ml-py", "rocm": "pyrsmi"}


def _describe(exc: BaseException) -> str:
    text = str(exc).strip() or exc.__class__.__name__
    return text.splitlines()[0][:200]


def open_backend(kind: str = "auto", devices: list[int] | None = None, factories: dict[str, Any] | None = None
                 ) -> tuple[Any | None, str | None]:
    """Start the first telemetry backend that works.

    Args:
        kind: ``"auto"`` (NVML, then pyrsmi), ``"nvml"`` or ``"rocm"``.
        devices: device ordinals to sample (all visible when None).
        factories: name → backend class, to replace :data:`BACKENDS` (tests, new vendors).

    Returns:
        ``(backend, None)`` or ``(None, reason)`` where reason names each backend tried and why it failed.
    """
    factories = factories or BACKENDS
    names = list(factories) if kind == "auto" else [kind]
    reasons = []
    for name in names:
        if name not in factories:
            reasons.append(f"{name}: unknown telemetry backend")
            continue
        try:
            return factories[name](devices), None
        except ImportError:
            pkg = _PACKAGE.get(name, name)
            reasons.append(f"{name}: the '{pkg}' package is not installed (pip install 'gpulens[telemetry]')")
        except Exception as exc:  # driver/library missing, no device: record why, never break the run
            reasons.append(f"{name}: {_describe(exc)}")
    return None, "; ".join(reasons)


class Sampler:
    """Background thread sampling telemetry every ``interval_s`` seconds.

    Args:
        backend: ``"auto"``, ``"nvml"``, ``"rocm"``, or an already-open backend object (with ``name``,
            ``devices()``, ``readers(device)``, ``close()``).
        interval_s: sampling period in seconds (default 0.1).
        devices: device ordinals to sample (all visible when None).

    After :meth:`stop`, :attr:`status` holds ``available``, ``backend``, ``reason`` (why unavailable),
    ``interval_ms``, ``samples`` (sampling rounds), ``unsupported`` (quantities the device would not report),
    ``errors`` and ``cpu_ns`` (CPU time the sampling thread used).
    """

    def __init__(self, backend: Any = "auto", interval_s: float = 0.1, devices: list[int] | None = None):
        self.interval_s = float(interval_s)
        self._spec, self._devices = backend, devices
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._rows: list[tuple[int, str, float]] = []  # (monotonic ns, metric, value)
        self.status: dict[str, Any] = {"available": False, "backend": None, "reason": None,
                                       "interval_ms": self.interval_s * 1000, "samples": 0, "unsupported": [],
                                       "errors": 0, "cpu_ns": 0}
        #: Timeline ns = monotonic ns + offset (the profiler's clock is Unix-epoch ns; see session).
        self.clock_offset_ns = time.time_ns() - time.monotonic_ns()

    def start(self) -> "Sampler":
        """Open the backend and start the thread; on failure record why and return without a thread."""
        try:
            if isinstance(self._spec, str):
                self._backend, reason = open_backend(self._spec, self._devices)
            else:
                self._backend, reason = self._spec, None
            if self._backend is None:
                self.status["reason"] = reason
                log.info("gpulens: telemetry unavailable: %s", reason)
                return self
            self.status.update(available=True, backend=self._backend.name)
            self._readers = {d: self._backend.readers(d) for d in self._backend.devices()}
        except Exception as exc:
            self.status.update(available=False, reason=f"telemetry failed to start: {_describe(exc)}")
            return self
        self._thread = threading.Thread(target=self._run, name="gpulens-telemetry", daemon=True)
        self._thread.start()
        return self

    def _sample_once(self) -> None:
        now = time.monotonic_ns()
        for dev, readers in self._readers.items():
            for q, read in list(readers.items()):
                try:
                    v = read()
                except Exception as exc:  # NotSupported on this GPU, or a transient driver error
                    if "NotSupported" in type(exc).__name__ or "Not Supported" in str(exc):
                        readers.pop(q)
                        self.status["unsupported"].append(f"{q}.gpu{dev}")
                    else:
                        self.status["errors"] += 1
                    continue
                if v is not None:
                    self._rows.append((now, metric_name(q, dev), float(v)))
        self.status["samples"] += 1

    def _run(self) -> None:
        t0 = time.thread_time_ns()
        try:
            while True:
                self._sample_once()
                if self.status["errors"] > 50:
                    self.status["reason"] = "telemetry stopped after repeated read errors"
                    break
                if self._stop.wait(self.interval_s):
                    break
        except Exception as exc:  # never let the sampler disturb the user's program
            self.status["reason"] = f"telemetry stopped: {_describe(exc)}"
        finally:
            self.status["cpu_ns"] = time.thread_time_ns() - t0

    def stop(self) -> dict[str, Any]:
        """Stop the thread (taking one last sample) and close the backend; returns :attr:`status`."""
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=max(5.0, 3 * self.interval_s))
            self._thread = None
            try:
                self._backend.close()
            except Exception:
                pass
        return self.status

    def counters(self, window_ns: tuple[int, int] | None = None):
        """The samples as a Counters table (:data:`~gpulens.timeline.schema.COUNTER_COLUMNS`).

        Args:
            window_ns: keep only samples whose Timeline time lies in ``[start, end]`` (ns), when given.
        """
        rows = [(t + self.clock_offset_ns, m, v) for t, m, v in self._rows]
        if window_ns is not None:
            rows = [r for r in rows if window_ns[0] <= r[0] <= window_ns[1]]
        units = [QUANTITIES.get((parse_metric(m) or ("", 0))[0], "") for _, m, _ in rows]
        return make_table(COUNTER_COLUMNS, {
            "event_id": [-1] * len(rows), "metric": [m for _, m, _ in rows], "value": [v for _, _, v in rows],
            "unit": units, "source": ["telemetry"] * len(rows), "time_ns": [t for t, _, _ in rows]}, n=len(rows))
