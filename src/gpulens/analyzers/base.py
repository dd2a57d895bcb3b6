"""The analyzer plug-in shape: results, findings and the registry.

An analyzer answers one question about a Timeline. It computes, never prints or draws, and returns an
:class:`AnalysisResult` — a table with documented columns and units, a list of :class:`Finding`, a summary dict,
or a ``skipped_reason`` when the data it needs is not there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import pandas as pd

from gpulens.timeline import Timeline

_REGISTRY: dict[str, type["Analyzer"]] = {}

#: The unit vocabulary of column and summary declarations: the text inside the trailing ``[...]`` of a
#: ``"meaning [unit]"`` doc string. ``share`` is a 0–1 fraction, ``%`` a 0–100 percentage; ``text``, ``id`` and
#: ``bool`` are shown as they are. A doc string without a bracketed unit is treated as ``text``. ``note`` is a remark
#: that applies to some rows only (``stake_note``, ``roof_note``): a missing one means none applies and reads "—",
#: never "unknown" — "roof note: unknown" beside a kernel's known % of roof reads as doubt about that figure.
#: ``shapes`` and ``dtypes`` are an op's input shapes and dtypes as the profiler records them (compact JSON text,
#: ``[[141,512],[512,512],[]]`` and ``["c10::BFloat16","c10::BFloat16","Scalar"]``), stored as recorded and shown as
#: ``[141×512]; [512×512]; –`` and ``bf16 ×2, scalar``. ``KiB`` is a byte amount a profiler counts in units of
#: 1,024 bytes and that is kept as recorded (rocprof ``FETCH_SIZE`` / ``WRITE_SIZE``); reporters show it in bytes.
#: ``number`` is a figure whose unit is not known (a profiler counter no documentation names as a count, a ratio or
#: a percentage): shown as recorded, with no unit claimed. ``code`` is a code kept for programs (``host_idle``,
#: ``cpu_op``) that reporters show in words (:mod:`gpulens.analyzers._code_words`). A ``note`` that does not apply
#: reads "—" (nothing to say), not "none".
UNITS: tuple[str, ...] = ("ns", "bytes", "FLOP", "FLOP/s", "B/s", "FLOP/B", "%", "share", "count", "ratio",
                          "text", "id", "bool", "timestamp", "version", "Hz", "note", "shapes", "dtypes", "KiB",
                          "number", "code")


def is_clock_column(column: str) -> bool:
    """Whether an ``[ns]`` column places an event on the trace clock rather than measuring a duration: ``start_ns``,
    ``end_ns``, ``ts_ns``, ``*_start_ns``, ``*_end_ns``, ``*_at_ns`` (absolute points; reporters show them as
    timestamps). The one definition, read by reporters and by :func:`is_clock_position`."""
    c = column.lower()
    return c in ("start_ns", "end_ns", "ts_ns") or c.endswith(("_start_ns", "_end_ns", "_at_ns"))


def is_clock_position(column: str) -> bool:
    """Whether an ``[ns]`` column is a point on the clock — absolute (:func:`is_clock_column`) or an offset from a
    reference point (``offset_ns``, ``*_offset_ns``: "bin start from the rank's first allocator event") — rather than
    a duration. A 0 there is a position, never an unknown duration."""
    c = column.lower()
    return is_clock_column(c) or c == "offset_ns" or c.endswith("_offset_ns")


def declared_unit(doc: str) -> str:
    """The unit a ``"meaning [unit]"`` doc string declares (``"text"`` when none, or when it is not in UNITS)."""
    doc = doc.rstrip()
    if doc.endswith("]") and "[" in doc:
        unit = doc[doc.rindex("[") + 1:-1].strip()
        if unit in UNITS:
            return unit
    return "text"


@dataclass
class Finding:
    """One thing worth telling the user.

    Attributes:
        title: one line (``"3 kernels overrun the next kernel on their stream"``).
        detail: a sentence or two of evidence and what to do.
        severity: ``"info"``, ``"warning"`` or ``"critical"``.
        category: short class of the finding (``"data-quality"``, ``"memory-bound"``, ``"launch-bound"``...).
        time_at_stake_ns: an estimate (upper bound) of the GPU time fixing this cause could recover, in ns — not the
            time of what it concerns (a kernel's 20 ms with a 7 %-full last wave puts ~(1 − W/⌈W⌉) of it at stake,
            not 20 ms); None when the gain is unknown (ranked after every estimate). The formulas, one per kind of
            finding: :mod:`gpulens.analyzers._stake` and docs/bottlenecks.md "Time at stake".
        kernel: kernel name the finding is about, if any.
        rank: rank the finding is about, if any.
        action: the next step in one imperative sentence ("Capture CUDA graphs for the decode loop"), or "".
        key: stable id of the finding within its source (``"idle"``, ``"idle/host"``...), or None.
        parent: ``key`` of the finding this one details: its time is part of the parent's time, so totals and
            rankings count only findings without a parent (each nanosecond once), and reporters nest it.
        premise: the condition its time at stake rests on that the evidence has not shown, as a clause a reporter
            can put after the figure (``"if the kernel is not memory-bound (its bound is undetermined)"``); "" when
            the figure follows from what was measured. A finding with a premise ranks after every finding without
            one (:func:`gpulens.analyzers._tree.rank_key`): an upper bound that may not hold never outranks a
            determined figure — except a premise resting only on the assumed GPU's figures
            (:func:`gpulens.analyzers._stake.only_assumed_gpu`), the best estimate the input allows, ranked by size.
        stake_upper_ns: when ``time_at_stake_ns`` is a measured lower bound (an L1-led memory-bound kernel's distance
            to its saturated L1 peak), the most fixing it could recover in ns (its distance to the roofline, or its
            time less 2 µs a launch when that is unknown); None when ``time_at_stake_ns`` is the one figure. Rankings
            and totals use ``time_at_stake_ns``; the findings under it are capped at this figure, not at the lower
            bound (:func:`gpulens.analyzers._tree.cap_children`).
    """

    title: str
    detail: str = ""
    severity: str = "info"
    category: str = "general"
    time_at_stake_ns: int | None = None
    kernel: str | None = None
    rank: int | None = None
    action: str = ""
    key: str | None = None
    parent: str | None = None
    premise: str = ""
    stake_upper_ns: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict."""
        return dict(self.__dict__)


@dataclass
class AnalysisResult:
    """What an analyzer returns.

    Attributes:
        analyzer: the analyzer's name.
        table: result rows; column meanings and units in ``columns``.
        columns: column name → ``"meaning [unit]"`` documentation (see :data:`UNITS`; reporters format every
            cell from this declared unit, never from the column's name).
        summary: scalar results (plain JSON types).
        summary_columns: summary key → ``"meaning [unit]"``, as ``columns`` (keys not declared here are not
            shown to a person).
        findings: ordered, most important first.
        skipped_reason: set (and the table empty) when the analysis could not run, saying why.
        applies: False when the analysis belongs to another GPU vendor's tool (Nsight Compute's rules on an AMD
            input): skipped, and left out of the reports' "Not analysed" lists — nothing the user could collect
            for this run would fill it.
    """

    analyzer: str
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    columns: dict[str, str] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    skipped_reason: str | None = None
    summary_columns: dict[str, str] = field(default_factory=dict)
    applies: bool = True

    @property
    def skipped(self) -> bool:
        """True when the analysis did not run."""
        return self.skipped_reason is not None

    def __repr__(self) -> str:
        """One line (``AnalysisResult('hotspots': 21 rows × 12 columns, 3 findings)``): a REPL echo of a result must
        not print its whole table and column documentation; ``table``, ``summary`` and ``findings`` hold them."""
        if self.skipped:
            return f"AnalysisResult({self.analyzer!r}: skipped — {self.skipped_reason})"
        rows, cols = (len(self.table), len(self.table.columns)) if self.table is not None else (0, 0)
        from gpulens.units import plural

        return f"AnalysisResult({self.analyzer!r}: {plural(rows, 'row')} × {plural(cols, 'column')}, " \
               f"{plural(len(self.findings), 'finding')})"


class Analyzer:
    """Base class of analyzers; subclasses with a ``name`` register themselves.

    Class attributes:
        name: unique id, also the key of its result in a report.
        order: run order (lower first) so later analyzers may use earlier results.
    """

    name: ClassVar[str] = ""
    order: ClassVar[int] = 50

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            _REGISTRY[cls.name] = cls

    def analyze(self, timeline: Timeline, device: Any = None, results: dict[str, AnalysisResult] | None = None
                ) -> AnalysisResult:
        """Answer this analyzer's question.

        Args:
            timeline: a validated Timeline.
            device: the device spec when known (see :mod:`gpulens.devices`), else None.
            results: results of analyzers that ran before this one, by name.
        """
        raise NotImplementedError


def registry() -> dict[str, type[Analyzer]]:
    """All registered analyzers by name (importing every analyzer module first)."""
    from gpulens.analyzers import _load_all

    _load_all()
    return dict(_REGISTRY)
