"""Column docs are what a reader sees in the HTML header tooltips and the JSON: reader wording, not Python's.

A GPU engineer hovering "precision" read "None without FP work" and "NaN when ncu gives none": Python values, not
what the report shows (an unknown figure reads "unknown", an empty note "—"). Module paths (``analyzers._stake``)
and reST markup (double backquotes) are the developer's too.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import gpulens
import gpulens.analyzers
import gpulens.collectors

#: Developer wording a column doc must not show: Python / pandas values, private module paths, reST markup.
DEV_WORDS = re.compile(r"\b(?:None|NaN|nan|null|NA|Int64|float64)\b|\banalyzers\._|``|:func:|:data:")


def _column_dicts():
    for pkg in (gpulens.analyzers, gpulens.collectors):
        for m in pkgutil.iter_modules(pkg.__path__):
            mod = importlib.import_module(f"{pkg.__name__}.{m.name}")
            for k, v in vars(mod).items():
                if isinstance(v, dict) and k.isupper() and ("COLUMN" in k or k.endswith("DOCS")):
                    yield f"{m.name}.{k}", v


def test_declared_column_docs_use_reader_wording():
    seen = 0
    bad = []
    for where, d in _column_dicts():
        for col, doc in d.items():
            if isinstance(doc, str):
                seen += 1
                hit = DEV_WORDS.search(doc)
                if hit:
                    bad.append(f"{where}[{col}]: …{doc[max(0, hit.start() - 40):hit.end() + 20]}…")
    assert seen > 200  # the scan reached the analyzers' tables (roofline, breakdown, occupancy …)
    assert not bad, "\n".join(bad)


def test_the_docs_a_report_carries_use_reader_wording():
    """Docs built at run time (kernel_counters' per-counter columns, summary columns) as a real report carries them."""
    rep = gpulens.analyze([Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_kernels.ncu-rep"])
    src = rep.sources[0]
    bad = []
    for name, r in src.results.items():
        for attr in ("columns", "summary_columns"):
            for col, doc in (getattr(r, attr, None) or {}).items():
                if isinstance(doc, str) and DEV_WORDS.search(doc):
                    bad.append(f"{name}.{attr}[{col}]: {doc[:120]}")
    assert not bad, "\n".join(bad)
    rules = src.results["ncu_rules"].columns["max_speedup_pct"]
    assert "unknown when ncu gives none" in rules
