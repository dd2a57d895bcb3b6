"""Words a person reads for the codes some result columns and summary keys hold (declared unit ``code``).

A result keeps the code (``host_idle``, ``cpu_op``, ``gpu``): other analyzers and JSON consumers read it. Every
reporter that shows it to a person (console, HTML, Markdown) shows the words of :data:`CODE_WORDS` instead,
through one function (:func:`code_text`, used by :func:`gpulens.reports._values.fmt_unit`), so that a table cell,
a summary line and a sentence name a class alike: a critical-path table read "host_idle 52.2 %" beside the
finding's "host idle gaps hold 52.2 % of the step time" (s48 review, tracelens H100 BERT).
"""

from __future__ import annotations

from typing import Any

#: How each event class of the critical path (:data:`gpulens.analyzers._critical_walk.CLASSES`) reads, in a table
#: cell and in a sentence (plural: "… hold N % of the step time") — one set of words for both.
PATH_CLASS_WORDS: dict[str, str] = {
    "cpu_op": "CPU ops", "runtime": "runtime calls", "sync": "synchronisations", "host_idle": "host idle gaps",
    "launch_delay": "launch delays", "kernel": "kernels", "comm": "collectives", "memcpy": "memory copies",
    "memset": "memory fills", "gpu_gap": "cross-stream waits",
    "unattributed": "GPU waits with no cause the trace shows", "queued": "late starts of work already queued"}

#: Which side holds most of a critical path (``bound``, ``steady_bound`` of critical_path's summary).
PATH_BOUND_WORDS: dict[str, str] = {"gpu": "GPU", "cpu": "CPU (host)"}

#: Every code a ``[code]`` column or summary key may hold → its words.
CODE_WORDS: dict[str, str] = {**PATH_CLASS_WORDS, **PATH_BOUND_WORDS}


def code_text(v: Any) -> str:
    """The words of code ``v`` (:data:`CODE_WORDS`); a code without words is shown with its underscores as spaces
    (never a bare ``snake_case`` token in a report)."""
    s = str(v).strip()
    return CODE_WORDS.get(s) or s.replace("_", " ")
