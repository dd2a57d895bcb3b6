"""A kernel-variation finding quoted a long kernel name cut at 80 characters without "…"
("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, in varies across ranks"), so the
reports could not put the kernel's label in its place and showed a raw half C++ name where every table said
"DeviceRadixSortOnesweepKernel ‹int›" (fresh-user walk). The cut now ends in "…" and the reports label it.
"""

from __future__ import annotations

from gpulens.analyzers.base import Finding
from gpulens.analyzers.variation import _clipped
from gpulens.reports._names import label_in_text, short_names

LONG = ("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long, int, int, unsigned int>::Policy800, "
        "false, long, int, int, unsigned int, cub::detail::identity_decomposer_t>(int*, int*, long const*, long*, "
        "int const*, int*, long, int, int, cub::detail::identity_decomposer_t)")


def test_long_name_is_clipped_with_an_ellipsis_and_labelled():
    c = _clipped(LONG)
    assert len(c) == 80 and c.endswith("…") and LONG.startswith(c[:-1])
    title = Finding(f"{c} varies across ranks (slowest median 2.5× the fastest)", "", kernel=LONG).title
    shown = label_in_text(title, LONG)
    assert shown == f"{short_names([LONG])[0]} varies across ranks (slowest median 2.5× the fastest)"
    assert "cub::" not in shown


def test_short_name_is_kept_whole():
    assert _clipped("vecCopy") == "vecCopy"
