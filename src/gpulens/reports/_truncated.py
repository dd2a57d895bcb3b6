"""The lead words of a truncated input's partial-result line (one rule for the verdict line and the partial
reason, :mod:`gpulens.reports._answer`)."""
from __future__ import annotations

from typing import Any


def truncated_lead(tl: Any) -> tuple[str, str]:
    """The words around :func:`~gpulens.reports._answer.truncated_text` for a Timeline marked truncated; when every such input was read whole
    and only failed its gzip check (:data:`~gpulens.collectors._gzip_words.NOTHING_LOST`), not "truncated"."""
    return damage_lead(getattr(tl.meta, "truncated_at", {}) or {}, tl.meta.warnings)


def damage_lead(at: Any, warnings: Any) -> tuple[str, str]:
    """:func:`truncated_lead` from the parts of a Timeline's meta (or of a JSON report's source, as the gate reads
    it): ``at``, the truncated inputs' paths (``truncated_at``); ``warnings``, the input's warnings."""
    from gpulens.collectors._gzip_words import NOTHING_LOST
    whole = bool(at) and all(any(str(w).startswith(f"{p}:") and NOTHING_LOST in str(w) for w in warnings or ())
                             for p in at)
    return (("input damaged", "the figures cover all of its text") if whole else
            ("input truncated", "the figures cover the part read"))
