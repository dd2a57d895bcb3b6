"""The idle-gap classes as small integer codes: :data:`GAP_CLASSES` and the class code of each gap of a
:func:`gpulens.analyzers.bottlenecks.classify_gaps` frame.

The frame holds each gap's class as text (``cls``: the same few str objects) and, beside it, its position in
:data:`GAP_CLASSES` (``cls_code``, int8). A comparison of the text column against one class visits a million Python
objects at 1M kernels (~30 ms each, and the analyzers make some twenty); the code column answers the same question
with one byte per gap. Frames built elsewhere (tests, hand-made gap tables) carry only the texts: their codes are
worked out from the texts, with the same result.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np
import pandas as pd

#: The idle causes, in the order of the bottlenecks analyzer's columns (see :mod:`gpulens.analyzers.bottlenecks`).
GAP_CLASSES = ("host", "launch", "sync", "queued", "unattributed", "boundary")

#: The column of :func:`~gpulens.analyzers.bottlenecks.classify_gaps` holding each gap's class code.
CODE_COLUMN = "cls_code"


def gap_class_codes(gaps: pd.DataFrame) -> np.ndarray:
    """Position in :data:`GAP_CLASSES` of each gap's class ``cls`` (int8 numpy array, one per row of ``gaps``; −1
    for any other value, a missing one included): the frame's ``cls_code`` column where it has one, else one
    comparison of the texts per class."""
    if CODE_COLUMN in gaps:
        return gaps[CODE_COLUMN].to_numpy(dtype=np.int8)
    cls = gaps["cls"].to_numpy(dtype=object)
    code = np.full(len(cls), -1, dtype=np.int8)
    for j, c in enumerate(GAP_CLASSES):
        code[cls == c] = j
    return code


def gap_class_mask(gaps: pd.DataFrame, classes: str | Iterable[str]) -> np.ndarray:
    """Boolean numpy mask of the rows of ``gaps`` whose class ``cls`` is ``classes`` (one class name, or several);
    a name that is no gap class matches no row."""
    wanted = [classes] if isinstance(classes, str) else list(classes)
    table = np.zeros(len(GAP_CLASSES) + 1, dtype=bool)  # last slot: code −1 (any other value), never selected
    table[[GAP_CLASSES.index(c) for c in wanted if c in GAP_CLASSES]] = True
    return table[gap_class_codes(gaps)]
