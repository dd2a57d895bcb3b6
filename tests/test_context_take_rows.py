"""``AnalysisContext.take_rows`` builds the frame ``events.loc[mask, columns]`` (or ``.iloc[positions]``, or with a
fresh RangeIndex) column by column from numpy takes: it must equal pandas' own selection for every column type of
the event table (int64, nullable Int64/Int32, float, categorical), on real traces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gpulens.analyzers.context import context_of
from gpulens.collectors import collect
from tests.conftest import KINETO


@pytest.mark.parametrize("trace", ["hta_alexnet_a100.json.gz"])
def test_same_frame_as_loc(trace):
    tl = collect(KINETO / trace)
    ev = tl.events
    ctx = context_of(tl)
    cols = list(ev.columns)  # every column type the events table has
    for kinds in (("kernel",), ("cpu_op", "runtime", "sync"), ("no-such-kind",)):
        mask = ctx.mask_of(*kinds)
        pd.testing.assert_frame_equal(ctx.take_rows(mask, cols), ev.loc[mask, cols])
        pd.testing.assert_frame_equal(ctx.take_rows(mask, cols, keep_index=False),
                                      ev.loc[mask, cols].reset_index(drop=True))
    pos = np.flatnonzero(ctx.mask_of("runtime"))[::3]
    pd.testing.assert_frame_equal(ctx.take_rows(pos, cols[:5]), ev[cols[:5]].iloc[pos])
