"""Advice whose premise the evidence beside it contradicts: a checker for kernel verdicts' next steps.

``premise_violations(verdict, steps, evidence)`` returns the codes of the rules a verdict's next steps break, given
what is known of the kernel (:class:`gpulens.analyzers.verdict_rules.Evidence`, or any object with those
attributes). ``python -m tests.advice_premises [PATH...]`` runs ``gpulens.analyze`` on every trace under
/work/shared/traces and /tmp/extra (or the paths given) and prints each violation, rebuilding the evidence from the
report's roofline, occupancy and hotspots tables.

Rules (the premise each piece of advice needs):

* ``occupancy-high`` — "raise occupancy" (or relax its limiter) needs room to raise it: not at ≥ 99.5 % theoretical
  or ≥ 80 % achieved occupancy.
* ``memory-bound-low-roof`` / ``compute-bound-low-roof`` — a memory- (compute-) bound verdict needs the kernel near
  that roof: not below 50 % of it when its roof position is known.
* ``launch-bound-long-kernel`` — launch-bound needs kernels shorter than a launch: not a mean above 50 µs.
* ``split-k-not-gemm`` / ``split-kv-not-attention`` / ``tensor-cores-not-matmul`` — techniques of one kernel family.
* ``circular-condition`` — "if it is shown latency-bound" beside a latency-bound verdict.
* ``library-registers`` — a vendor-library kernel cannot be given ``__launch_bounds__`` / ``-maxrregcount``.
* ``torch-without-pytorch`` — torch.* advice for a program that shows no PyTorch.
* ``more-blocks-full-grid`` — "give it more blocks" for a grid of at least 90 % of one wave (without the wave
  count: a block on at least 90 % of the SMs/CUs — 296 blocks on 304 CUs leave 2.6 % idle).
* ``torch-profiler-advice-for-another-tool`` — torch.profiler options for an input recorded by another profiler
  (nsys, rocprof, ncu): the user is told their own tool's options.
* ``lower-precision-already`` — "a lower precision (TF32, BF16 …)" or "narrower dtypes (BF16 …)" for a kernel
  already at BF16/FP16 or narrower (the roofline's precision, or the type its name spells).
* ``training-advice-in-inference`` — "during backward", DDP bucketing or FSDP prefetch for a PyTorch program that
  records no backward pass or optimizer step.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

_RAISE_OCC = re.compile(r"higher occupancy|raise (?:the )?occupancy|increase occupancy|__launch_bounds__|"
                        r"maxrregcount|cut registers|less shared memory per block", re.I)
_MORE_BLOCKS = re.compile(r"give the launch more blocks|too few blocks|fewer blocks than", re.I)


def _g(e: Any, k: str) -> Any:
    return getattr(e, k, None)


def premise_violations(verdict: str, steps: list[str], e: Any) -> list[str]:
    """Codes of the rules (module docstring) that ``steps`` break for a kernel with evidence ``e``."""
    out: list[str] = []
    text = " ".join(steps or [])
    theo, ach = _g(e, "theoretical_occupancy_pct"), _g(e, "achieved_occupancy_pct")
    if _RAISE_OCC.search(text) and not _g(e, "library") and (
            (theo is not None and theo >= 99.5) or (ach is not None and ach >= 80)):
        out.append("occupancy-high")
    roof = _g(e, "roof_pct")
    if verdict == "memory-bound" and roof is not None and roof < 50:
        out.append("memory-bound-low-roof")
    if verdict == "compute-bound" and roof is not None and roof < 50:
        out.append("compute-bound-low-roof")
    calls, t = _g(e, "calls") or 0, _g(e, "time_ns")
    if verdict == "launch-bound" and calls and t and t / calls > 50_000:
        out.append("launch-bound-long-kernel")
    fam = _g(e, "family") or "other"
    if re.search(r"split-K\b(?!V)", text) and fam != "gemm":
        out.append("split-k-not-gemm")
    if "split-KV" in text and fam != "attention":
        out.append("split-kv-not-attention")
    if "tensor cores" in text and fam not in ("gemm", "attention"):
        out.append("tensor-cores-not-matmul")
    if re.search(r"if it is (?:shown )?latency-bound", text) and verdict == "latency/occupancy-bound":
        out.append("circular-condition")
    if _g(e, "library") and re.search(r"__launch_bounds__|maxrregcount", text):
        out.append("library-registers")
    if _g(e, "pytorch") is False and re.search(r"torch\.|DataLoader|torch\.compile", text):
        out.append("torch-without-pytorch")
    prec = (_g(e, "precision") or "").lower()
    if prec in ("bf16", "fp16", "fp8", "int8") and re.search(r"lower precision \(TF32|narrower dtypes \(BF16", text):
        out.append("lower-precision-already")
    if _g(e, "training") is False and re.search(r"during backward|DDP|FSDP", text):
        out.append("training-advice-in-inference")
    blocks, sms, waves = _g(e, "mean_blocks"), _g(e, "num_sms"), _g(e, "waves_per_sm")
    # a grid with a block on (nearly) every SM/CU — 296 blocks on 304 CUs — is not short of blocks (0.9: gpulens's
    # FULL_GRID_SHARE, the same as one wave of 90 %)
    full = waves >= 0.9 if waves is not None else bool(blocks and sms and blocks >= 0.9 * sms)
    if _MORE_BLOCKS.search(text) and full:
        out.append("more-blocks-full-grid")
    if _g(e, "torch_trace") is False and re.search(r"torch\.profiler", text):
        out.append("torch-profiler-advice-for-another-tool")
    return out


def _evidence_from(source: Any, row: dict) -> Any:
    """What the report knows of one kernel verdict row: roofline, occupancy and hotspot figures by name."""
    from gpulens.analyzers import _advice

    name = str(row["name"])

    def first(result: str, col: str) -> Any:
        r = source.results.get(result)
        if r is None or r.skipped or not len(r.table) or col not in r.table or "name" not in r.table:
            return None
        m = r.table[r.table["name"].astype(str) == name]
        v = m[col].iloc[0] if len(m) else None
        return None if v is None or v != v else v

    import re as _re

    blocks = _re.search(r"([\d.]+) blocks on (\d+) SMs", str(row.get("evidence", "")))
    return SimpleNamespace(
        name=name, calls=row.get("calls"), time_ns=row.get("time_ns"),
        roof_pct=first("roofline", "roof_pct"), theoretical_occupancy_pct=first("occupancy", "theoretical_occupancy_pct"),
        achieved_occupancy_pct=first("occupancy", "achieved_occupancy_pct"), family=_advice.family(name),
        library=_advice.is_library(name), pytorch=_advice.uses_pytorch(source.timeline),
        torch_trace=all(str(x.get("collector", "")).startswith("kineto") for x in source.timeline.meta.sources),
        training=_advice.trains(source.timeline),
        precision=first("roofline", "precision") or _advice.name_precision(name),
        waves_per_sm=first("occupancy", "waves_per_sm"),
        mean_blocks=float(blocks.group(1)) if blocks else None, num_sms=int(blocks.group(2)) if blocks else None)


def check_source(source: Any) -> list[tuple[str, str, str]]:
    """(kernel, rule, step) for every kernel verdict of ``source`` whose next steps break a rule."""
    vd = source.results.get("verdicts")
    if vd is None or vd.skipped or not len(vd.table):
        return []
    out = []
    for row in vd.table.to_dict("records"):
        steps = list(row.get("next_steps") or [])
        for code in premise_violations(str(row["verdict"]), steps, _evidence_from(source, row)):
            out.append((str(row["name"])[:80], code, " ".join(steps)[:160]))
    return out


def check_findings(source: Any) -> list[tuple[str, str, str]]:
    """(kernel, rule, action) for every finding about one kernel whose next step breaks a rule, judged with that
    kernel's verdict (``verdicts`` table) and evidence."""
    vd = source.results.get("verdicts")
    rows = {str(r["name"]): r for r in vd.table.to_dict("records")} if vd is not None and not vd.skipped else {}
    out = []
    for f in source.findings():
        if not f.kernel or not f.action:
            continue
        row = rows.get(str(f.kernel), {"name": f.kernel, "verdict": "", "calls": None, "time_ns": None})
        for code in premise_violations(str(row["verdict"]), [f.action], _evidence_from(source, row)):
            out.append((str(f.kernel)[:80], code, f.action[:160]))
    return out


def _inputs() -> list[Path]:
    roots = [Path("/work/shared/traces"), Path("/tmp/extra")]
    out = []
    for r in roots:
        if r.is_dir():
            out += sorted(p for p in r.rglob("*") if p.is_file() and p.suffix in (".gz", ".json", ".sqlite", ".csv"))
    return out


if __name__ == "__main__":  # pragma: no cover - a tool, run by hand
    import gpulens

    paths = [Path(p) for p in sys.argv[1:]] or _inputs()
    bad = 0
    for p in paths:
        try:
            rep = gpulens.analyze([p], strict=False)
        except Exception as exc:  # noqa: BLE001 - unreadable inputs are not this checker's subject
            print(f"skip {p.name}: {type(exc).__name__}")
            continue
        for s in rep.sources:
            for k, code, step in check_source(s) + check_findings(s):
                bad += 1
                print(f"{p.name}: {k}: {code}: {step}")
    print(f"{bad} violation(s)")
    sys.exit(1 if bad else 0)
