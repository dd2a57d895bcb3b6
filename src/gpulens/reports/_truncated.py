"""The lead words of a truncated input's partial-result line (one rule for the verdict line and the partial
reason, :mod:`gpulens.reports._answer`)."""
from __future__ import annotations

from typing import Any


def truncated_lead(tl: Any) -> tuple[str, str]:
    """The words around :func:`~gpulens.reports._answer.truncated_text` for a Timeline marked truncated; when every such input was read whole
    and only failed its gzip check (:data:`~gpulens.collectors._gzip_words.NOTHING_LOST`), not "truncated"."""
    from gpulens.collectors._gzip_words import NOTHING_LOST
    meta = tl.meta
    at = getattr(meta, "truncated_at", {}) or {}
    whole = bool(at) and all(any(str(w).startswith(f"{p}:") and NOTHING_LOST in str(w) for w in meta.warnings)
                             for p in at)
    return (("input damaged", "the figures cover all of its text") if whole else
            ("input truncated", "the figures cover the part read"))
