"""A live run whose telemetry sampler was unavailable does not list "telemetry" among its sources.

Kind (new-user walk, `gpulens profile` on a CPU machine): the header read "source kineto, telemetry" beside the
warning "telemetry unavailable: …". The telemetry source entry only says why there is none; the sources a reader sees
are the ones whose data the report holds.
"""

from __future__ import annotations

from io import StringIO

from rich.console import Console

import gpulens
from gpulens.reports import console
from gpulens.timeline.timeline import TimelineMeta
from tests.conftest import KINETO


def test_unavailable_telemetry_is_not_a_source():
    meta = TimelineMeta(sources=[{"collector": "kineto"},
                                 {"collector": "telemetry", "available": False, "reason": "no NVML"}])
    assert meta.collectors() == ["kineto"]
    meta.sources[1]["available"] = True
    assert meta.collectors() == ["kineto", "telemetry"]


def test_console_header_uses_the_same_list():
    rep = gpulens.analyze([KINETO / "torch2.13_cpu_only_mm.pt.trace.json"])
    tl = rep.sources[0].timeline
    tl.meta.sources.append({"collector": "telemetry", "path": "telemetry:none", "available": False,
                            "reason": "no GPU sampler"})
    buf = StringIO()
    Console(file=buf, width=160).print(console.source_renderable(rep.sources[0]))
    text = buf.getvalue()
    row = next(line for line in text.splitlines() if line.startswith("format"))  # the input's format, in words
    assert "telemetry" not in row and "Kineto" in row
