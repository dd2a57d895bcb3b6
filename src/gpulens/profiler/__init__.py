"""Live capture: :class:`profile` (context manager/decorator around torch.profiler), the telemetry sampler, and the
runners behind ``gpulens profile`` (a Python script in-process, or a vendor profiler as a subprocess)."""

from gpulens.profiler.session import profile

__all__ = ["profile"]
