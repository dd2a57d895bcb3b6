"""Link ids as the Timeline holds them: 0 is no link.

Kineto, CUPTI and ROCm's tracers number the ids that link a launch call to its GPU work (``correlation_id``) and an
operator to the calls and work it caused (``external_id``) from 1; a 0 is written on events that nothing launched
or no operator made. Read as a value, every 0 links to every other 0."""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The link ids whose value 0 stands for "no link": Kineto writes ``"correlation": 0`` / ``"External id": 0`` on
#: events that no launch call or operator made (the TensorBoard-plugin ResNet-50 trace: 937 GPU events and runtime
#: calls with external id 0), and CUPTI and ROCm's tracers number their real ids from 1.
LINK_ID_COLUMNS = ("correlation_id", "external_id")


def no_zero_ids(table: pd.DataFrame) -> None:
    """Set the link ids (:data:`LINK_ID_COLUMNS`) of ``table`` that are 0 to missing, in place: every id 0 linked to
    every other, so one launch call with correlation 0 was read as the launch of every kernel with correlation 0
    (three kernels 400 µs apart behind one 10 µs call) and an operator with external id 0 as their op. A column
    that is absent, or not the schema's nullable integers, is left as it is."""
    for c in LINK_ID_COLUMNS:
        if c not in table:
            continue
        a = table[c].array
        if not isinstance(a, pd.arrays.IntegerArray) or not len(a):
            continue
        zero = a.to_numpy(dtype="int64", na_value=1) == 0
        if zero.any():
            table[c] = pd.arrays.IntegerArray(a.to_numpy(dtype=str(a.dtype.numpy_dtype), na_value=0),
                                              np.asarray(a.isna(), dtype=bool) | zero)
