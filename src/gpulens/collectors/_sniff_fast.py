"""The Kineto fast path of :func:`gpulens.collectors.sniff` (issue 16: the fixed cost of ``gpulens analyze``).

The Kineto collector is the last in sniffing order (``priority`` 40: the Chrome-trace cousins and the text and table
formats are offered a file first), so recognising a Kineto trace imported every collector module — ≈ 40 ms of CPU
and 46 modules per ``gpulens analyze`` of a Kineto trace. A file whose head declares the Kineto trace object itself
is given to the Kineto collector at once: its first key is one PyTorch writes first (``schemaVersion``,
``deviceProperties``, ``distributedInfo``), it holds no marker of a cousin that sniffs before Kineto
(:data:`COUSIN_MARKERS`), and the Kineto sniffer accepts it. No other collector claims such a file: the text and
table formats' sniffers look for lines (CSV headers, tool banners, ``Domain(...)`` records) that a JSON object opening
with these keys does not hold. tests/test_trust_s49_sniff_fast.py checks that every input of the corpus is given to
the same collector with and without this path.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

#: The first key of a Kineto trace object (PyTorch writes schemaVersion, deviceProperties or distributedInfo first).
KINETO_FIRST_KEY = re.compile(rb'\{\s*"(?:schemaVersion|deviceProperties|distributedInfo)"\s*:')
#: Markers of the Chrome-trace formats sniffed before Kineto (rocprof v1 ``results.json``: ``BeginNs``; rocprofv3
#: JSON: its ``rocprofiler-sdk-tool`` record): a head holding one is offered to every collector in order.
COUSIN_MARKERS = (b'"BeginNs"', b'"rocprofiler-sdk-tool"')


def declared_kineto(path: Path, head: bytes) -> Any:
    """A fresh :class:`~gpulens.collectors.kineto.KinetoCollector` when ``head`` (the file's first bytes,
    decompressed) declares a Kineto trace as the module docstring says, else None (the caller offers the file to
    every collector in order). Imports the Kineto collector only for a head opening with ``{``."""
    h = head.lstrip()
    if not KINETO_FIRST_KEY.match(h) or any(m in h for m in COUSIN_MARKERS):
        return None
    from gpulens.collectors.kineto import KinetoCollector

    c = KinetoCollector()
    return c if c.sniff(path, head) else None
