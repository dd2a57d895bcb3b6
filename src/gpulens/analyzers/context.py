"""One analysis context per Timeline: the intermediates every analyzer needs, computed once.

Several analyzers need the same derived tables — the GPU events, kernel rows, the launch↔GPU-event links, the
stream-overrun repair, the hot set. Recomputing them per analyzer cost most of ``gpulens analyze``'s time on large
traces (``link_gpu_to_launch`` four times, ``of_kind`` 31 times). An :class:`AnalysisContext` computes each one
lazily, once, and every analyzer reads it through :func:`context_of`.

Rules for analyzers:

* get the context with ``ctx = context_of(timeline)``; never mutate what it returns (copy first);
* prefer ``ctx.kind_codes`` / ``ctx.name_codes`` (category codes, numpy arrays) to per-row strings on hot paths;
* a new shared intermediate goes here as a ``cached_property`` with a docstring stating columns and units.

The context is cached on the Timeline object and dropped automatically when ``timeline.events`` is replaced by a
different DataFrame (the join functions build new Timelines, so a stale context is never served).
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from gpulens.timeline import Timeline
from gpulens.timeline.schema import GPU_KINDS

_ATTR = "_gpulens_analysis_context"


class AnalysisContext:
    """Lazily computed, shared intermediates of one Timeline.

    Attributes:
        timeline: the Timeline analysed.
    """

    def __init__(self, timeline: Timeline):
        self.timeline = timeline
        self._kinds: dict[tuple[str, ...], pd.DataFrame] = {}

    # -- row selections ---------------------------------------------------------------------------------------
    @cached_property
    def kind_codes(self) -> np.ndarray:
        """``events["kind"]`` as int category codes (int8/int16 numpy array, one per event row)."""
        return self.timeline.events["kind"].cat.codes.to_numpy()

    @cached_property
    def name_codes(self) -> np.ndarray:
        """``events["name"]`` as int category codes (numpy array, one per event row); −1 where the name is missing."""
        return self.timeline.events["name"].cat.codes.to_numpy()

    def mask_of(self, *kinds: str) -> np.ndarray:
        """Boolean numpy mask of the event rows whose kind is one of ``kinds``."""
        cats = list(self.timeline.events["kind"].cat.categories)
        codes = [cats.index(k) for k in kinds if k in cats]
        return np.isin(self.kind_codes, codes) if codes else np.zeros(len(self.kind_codes), dtype=bool)

    def of_kind(self, *kinds: str) -> pd.DataFrame:
        """Rows of those kinds (original index kept), computed once per distinct ``kinds`` tuple. Do not mutate."""
        key = tuple(kinds)
        if key not in self._kinds:
            self._kinds[key] = self.timeline.events[self.mask_of(*kinds)]
        return self._kinds[key]

    @property
    def gpu(self) -> pd.DataFrame:
        """GPU events (kernel, comm, memcpy, memset rows; the Timeline's index kept). Do not mutate."""
        return self.of_kind(*GPU_KINDS)

    @property
    def kernels(self) -> pd.DataFrame:
        """Kernel rows (kind ``kernel``). Do not mutate."""
        return self.of_kind("kernel")

    # -- shared derived tables --------------------------------------------------------------------------------
    @cached_property
    def overruns(self) -> pd.DataFrame:
        """Stream-overrun repair of the GPU events: ``effective_ns`` and ``overrun_ns`` [ns], indexed like ``gpu``.

        See :func:`gpulens.analyzers.intervals.repair_stream_overruns`.
        """
        from gpulens.analyzers.intervals import repair_stream_overruns

        return repair_stream_overruns(self.gpu)

    @cached_property
    def effective_ns(self) -> pd.Series:
        """Effective (overrun-clipped) duration of each GPU event [ns], indexed like ``gpu``."""
        return self.overruns["effective_ns"]

    @cached_property
    def links(self) -> pd.DataFrame:
        """``launch_event_id`` and ``op_event_id`` (nullable Int64) per GPU event, indexed like ``gpu``.

        See :func:`gpulens.analyzers.launches.link_gpu_to_launch`.
        """
        from gpulens.analyzers.launches import _link_gpu_to_launch

        return _link_gpu_to_launch(self.timeline, self.gpu)

    def memo(self, key: str, compute: Any) -> Any:
        """A value computed once per context under ``key`` (``compute()`` is called on first use).

        For intermediates owned by one analyzer module but read by others (e.g. the hot set); prefer a named
        ``cached_property`` here when the intermediate is general.
        """
        store = self.__dict__.setdefault("_memo", {})
        if key not in store:
            store[key] = compute()
        return store[key]


def context_of(timeline: Timeline) -> AnalysisContext:
    """The :class:`AnalysisContext` of ``timeline``, created on first use and cached on the Timeline object.

    A cached context is reused only while ``timeline.events`` is the same DataFrame object with the same length.
    """
    ctx = getattr(timeline, _ATTR, None)
    ev = timeline.events
    if ctx is None or ctx[0] is not ev or ctx[1] != len(ev):
        ctx = (ev, len(ev), AnalysisContext(timeline))
        setattr(timeline, _ATTR, ctx)
    return ctx[2]
