"""What to fix first when a run has two readings — the run verdict (the largest measured share of the span) and a
secondary cause — said in one sentence with the times at stake in order (the ``verdicts`` summary's ``fix_first``).

GPT-2 on an H200 read three host shares beside a "below both roofs" verdict — critical path 74.1 % host, CPU ops
64.6 % of the step time, host idle 21.0 % of the span — and nothing said which to fix first or whether the run was
host-bound. The two readings answer different questions: the verdict names where the span's time goes (computing
75.4 % of it), the secondary cause an overhead that idles the GPU (the GPU waiting for the host 21.0 % of it); the
order of work is set by the time at stake. This sentence gives both readings in nanoseconds, largest first, with the
window each share is of, and names the largest single finding as the first step.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gpulens.units import fmt_ns


#: Where the ``fix_first`` sentence names its first step (the largest single finding's title up to its colon).
FIX_FIRST_START = " — start with the largest single finding: "


#: The stake note of a communication-bound kernel under the exposed-communication finding: one time, not two to add.
COMM_PART = "the same time as the exposed-communication finding, not added to it"


def title_head(title: str) -> str:
    """A finding title up to its first colon ("GPU idle 24.5 % of its span (55.16 ms)")."""
    return str(title).split(": ", 1)[0]


def kernel_stakes(t: pd.DataFrame) -> tuple[int, int, int]:
    """(Σ time at stake [ns], kernels counted, the largest one's [ns]) over the critical kernels with a determined
    verdict and a known time at stake (the verdict table's rows: disjoint kernel time, so their stakes add)."""
    if t is None or not len(t) or "time_at_stake_ns" not in t:
        return 0, 0, 0
    st = pd.to_numeric(t["time_at_stake_ns"], errors="coerce")
    ok = st.notna() & (t["verdict"].astype(str) != "undetermined") & (st > 0)
    if not ok.any():
        return 0, 0, 0
    return int(st[ok].sum()), int(ok.sum()), int(st[ok].max())


def fix_first(t: pd.DataFrame, ranked: list[Any], run: str, secondary: tuple[str, float] | None,
              secondary_ns: int | None, secondary_idle: bool = True,
              figures: dict[str, Any] | None = None) -> str | None:
    """The ``fix_first`` sentence (module doc), or None when the run has one reading (no secondary cause), no finding
    has a time at stake, or the run verdict is undetermined — the times at stake, largest first (reporters label it
    "At stake, largest first"): "72.54 ms in the 18 critical kernels with a determined verdict (summed; the largest 17.65 ms); 55.16 ms of GPU idle, 47.38 ms of it the
    host-bound cause — start with the largest single finding: GPU idle 24.5 % of its span (55.16 ms)".

    Args:
        t: the verdict table (critical kernels: ``verdict``, ``time_at_stake_ns``).
        ranked: the root findings with a time at stake, largest first (each nanosecond once).
        run: the run verdict class; ``secondary``: (class, share of the span [%]) of the secondary cause.
        secondary_ns: the secondary cause's time [ns] (None when not known); ``secondary_idle``: whether that
            cause is a part of the GPU idle (an idle cause: host, launch, sync, queued, unattributed), not busy time
            (exposed communication or copies).
        figures: the bottlenecks summary, naming an idle cause the trace records (:func:`class_label`).
    """
    from gpulens.analyzers.bottlenecks import class_label

    if not secondary or not ranked or run in (None, "undetermined") or secondary[0] == run:
        return None
    total, n, top = kernel_stakes(t)
    stakes = []
    if n:
        # "determined": an undetermined verdict has no time at stake (README's verdict words include undetermined)
        stakes.append((total, f"{fmt_ns(total)} in the {n} critical kernel{'s' if n != 1 else ''} with a determined "
                              f"verdict (summed; the largest {fmt_ns(top)})"))
    idle = next((f for f in ranked if f.category == "gpu-idle" and f.time_at_stake_ns), None)
    if idle is not None:
        # only an idle cause is a part of the GPU idle (exposed communication is busy time)
        part = (f", {fmt_ns(secondary_ns)} of it the {class_label(secondary[0], figures)} cause"
                if secondary_ns and secondary_idle and secondary_ns <= idle.time_at_stake_ns else "")
        stakes.append((int(idle.time_at_stake_ns), f"{fmt_ns(idle.time_at_stake_ns)} of GPU idle{part}"))
    first = ranked[0]
    if first is not idle and first.kernel is None:  # a run-level finding of its own (exposed copies): listed too
        name = title_head(first.title)
        name = name[:1].lower() + name[1:] if name[1:2].islower() else name  # "Exposed memory copies", not "GPU"
        stakes.append((int(first.time_at_stake_ns), f"{fmt_ns(first.time_at_stake_ns)} in {name}"))
    if len(stakes) < 2:  # one reading holds every figure at stake: the findings' order says it
        return None
    stakes.sort(key=lambda x: -x[0])
    name = title_head(first.title)
    if fmt_ns(first.time_at_stake_ns) not in name:
        name += f" ({fmt_ns(first.time_at_stake_ns)})"
    return "; ".join(x for _, x in stakes) + f"{FIX_FIRST_START}{name}"
