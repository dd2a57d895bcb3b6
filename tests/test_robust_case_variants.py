"""Variants of every case of ../shared/cases (tests/case_variants.py): the same kind of input with other numbers,
names, ordering, units and format variant must give the answer computed from the generated values — not only the
committed case file. Two seeds per generator; ``python tests/case_variants.py --seeds 30`` runs many more.

The expected values are computed by each generator from the values it writes (sums of durations, the union of
clipped intervals for overlapping kernels, the units' factors), never from gpulens. Needs nothing from ../shared.
"""

from __future__ import annotations

import random

import pytest

from tests.case_variants import GENERATORS, check


@pytest.mark.parametrize("seed", [3, 11])
@pytest.mark.parametrize("case", sorted(GENERATORS))
def test_case_variant_gives_the_right_answer(case, seed, tmp_path):
    path, expect = GENERATORS[case](random.Random(seed), tmp_path)
    assert check(path, expect) == []
