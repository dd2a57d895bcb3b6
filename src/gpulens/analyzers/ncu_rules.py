"""Nsight Compute's own rule results (``timeline.tables["ncu_rules"]``) as findings.

ncu evaluates guided-analysis rules per launch (SOLBottleneck, AchievedOccupancy, IssueSlotUtilization, ...), each
with a type (OPT optimisation advice, WRN warning, INF information, ERR), a text and often an estimated speedup in
percent of the kernel's duration. This analyzer groups the results by (rule, kernel name) and turns every
non-informational one into a :class:`Finding`; the time at stake is ``estimated speedup % × the launches' summed
duration`` (ncu's own estimate, not ours). A rule can fire several times on one launch (WorkloadImbalance once for the
SMs, the SMSPs, the L1 and the L2 slices; LaunchConfiguration once per message): those are views of one limiter, not
additive gains, so a launch counts with its largest estimate (summing them put 32 % of a cutlass sm100 GEMM at stake
beside a 14.6 % "largest estimated speedup", and can pass 100 % of the kernel's time). With no estimate on any
launch the time at stake is unknown, not 0.

Rule texts of a ``.ncu-rep`` carry ncu's link markup (``ncu_report``'s ``IRuleResult.rule_message`` documents
``@url:<hypertext>:<link>@``, ``@section:<identifier>:<hypertext>@``, ``@sass:<address>:<hypertext>@``,
``@source:<file>:<line>:<hypertext>@``); the table, the findings and their next steps show it as the plain text
ncu's own CSV export prints (:func:`plain_text`): the hypertext, a URL in parentheses after it — "Look at Launch
Statistics", never "Look at @section:LaunchStats:Launch Statistics@".

Only a *global* estimate is a cut in the kernel's duration. ncu types each estimate (the CSV's ``Estimated Speedup
Type``; ``.ncu-rep`` ``IFrontend.SpeedupType``): NVIDIA's NvRules API defines ``SpeedupType_LOCAL`` as "the
proportional increase in efficiency of the hardware usage when viewing the performance problem in isolation" — a
rule's own unit (the compute pipes, the issue slots), which shortens the kernel only as far as that unit limits it.
On a memory-bound H200 elementwise kernel at 88 % of DRAM bandwidth, HighPipeUtilization's local 96.8 % ("the pipes
are 3 % busy") was shown as "up to 96.8 % less time" and led the findings. A local estimate is kept in the table
(``speedup_type``) and its finding says what it measures; its time at stake is unknown. An estimate with no type
(exports that lack the column) is read as global, as before.

One figure for the table and the finding: a rule's estimate is a part of what its kernel can give, so it is capped
at (1) the kernel's time on those launches less the 2 µs each launch keeps whatever the fix
(:func:`gpulens.analyzers._stake.floor_stake`) and (2) the kernel's verdict time at stake when the ``verdicts``
analyzer quantified one — the finding is that verdict's child in the findings tree (:mod:`gpulens.analyzers._tree`),
which shows no child above its parent — and (3) for LaunchConfiguration's tail-effect message, the occupancy
analyzer's wave loss: ncu's figure there is the time the partial wave runs, not what its empty slots lose
(:func:`_tail_waves`). ``stake_note`` says which cap applied. (The table was uncapped: 75.92 µs for
IssueSlotUtilization beside its finding's 51.99 µs on the same RTX 5090 GEMM.)
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pandas as pd

from gpulens.analyzers.base import AnalysisResult, Analyzer, Finding
from gpulens.timeline import Timeline

COLUMNS = {
    "rule": "rule name as ncu spells it",
    "kernel": "kernel name",
    "type": "OPT, WRN, ERR or INF as ncu's CSV export words it (a .ncu-rep's numeric message type mapped to the "
            "same words)",
    "launches": "launches of this kernel on which the rule fired",
    "max_speedup_pct": "largest estimated speedup over those launches [%] (unknown when ncu gives none)",
    "speedup_type": "'global' (a cut in the kernel's duration) or 'local' (the rule's hardware unit used that much "
                    "better, viewed in isolation: not a time saving) for the largest estimate; '' when ncu gives "
                    "no type [text]",
    "time_at_stake_ns": "Σ over launches of the launch's largest global estimated speedup % × its duration, capped at the "
                        "kernel's time less 2 µs for each launch (the GPU time even an empty kernel takes), at its verdict's time at stake and, for the tail-effect "
                        "(partial wave) message, at the occupancy analyzer's wave loss: the figure its finding shows "
                        "[ns] (unknown when ncu gives no estimate)",
    "stake_note": "which cap applied to the time at stake, if any [note]",
    "description": "the rule's text (first launch)",
}
#: Rule types that are information only (kept in the table, not made findings).
INFO_TYPES = {"INF", "OK", ""}
#: Estimated speedup at or above which a finding is a warning rather than info [%].
WARN_SPEEDUP_PCT = 10.0


class NcuRules(Analyzer):
    """Turn ncu rule results into findings (see module docstring)."""

    name = "ncu_rules"
    order = 72  # after ``verdicts`` (70): a rule's time at stake is capped at its kernel's verdict

    def analyze(self, timeline: Timeline, device: Any = None, results=None) -> AnalysisResult:
        rules = timeline.tables.get("ncu_rules")
        if rules is None or not len(rules):
            from gpulens.analyzers._advice import vendor_of

            amd = vendor_of(timeline, device) == "amd"
            why = ("Nsight Compute's rules are for NVIDIA GPUs; on this AMD input, rocprof-compute's analysis plays "
                   "their part" if amd else "no Nsight Compute rule results in the input")
            return AnalysisResult(self.name, pd.DataFrame(columns=list(COLUMNS)), COLUMNS, skipped_reason=why,
                                  applies=not amd)
        dur = timeline.events.set_index("event_id")["dur_ns"]
        r = rules.copy()
        r["description"] = [plain_text(x) for x in r["description"].astype(object).where(r["description"].notna(), "")]
        r["dur_ns"] = r["event_id"].map(dur).fillna(0).astype("float64")
        kind = r["speedup_type"].astype(object).where(r["speedup_type"].notna(), "").astype(str).str.strip() \
            .str.lower() if "speedup_type" in r else pd.Series("", index=r.index)
        r["speedup_type"] = kind
        # a local estimate is no cut in the kernel's time (module doc): no time at stake from it
        r["stake"] = ((r["estimated_speedup_pct"] / 100.0) * r["dur_ns"]).where(kind != "local")
        # one launch, one estimate: the largest of the rule's rows on that launch (rows are views, not additive)
        per_launch = r.groupby(["rule", "kernel", "event_id"], sort=False)["stake"].max()
        stake = per_launch.groupby(level=["rule", "kernel"], sort=False).sum(min_count=1)
        launch_dur = r.drop_duplicates(["rule", "kernel", "event_id"]).groupby(["rule", "kernel"], sort=False)
        g = r.groupby(["rule", "kernel"], sort=False)
        rep = _representative(r)
        t = pd.DataFrame({
            "type": rep["type"], "launches": g["event_id"].nunique(),
            "max_speedup_pct": g["estimated_speedup_pct"].max(), "speedup_type": _largest_type(r),
            "time_at_stake_ns": stake,
            "kernel_ns": launch_dur["dur_ns"].sum(), "description": rep["description"],
        }).reset_index()
        t["time_at_stake_ns"], t["stake_note"] = _capped(t, _verdict_stakes(results))
        tail = _tail_waves(t, results)
        t["time_at_stake_ns"] = t["time_at_stake_ns"].astype("Int64")
        t = t.sort_values(["time_at_stake_ns", "max_speedup_pct"], ascending=False, kind="stable",
                          na_position="last")[list(COLUMNS)].reset_index(drop=True)
        findings = []
        for row in t.itertuples():
            if str(row.type).upper() in INFO_TYPES:
                continue
            sp = row.max_speedup_pct
            has_sp = isinstance(sp, float) and not np.isnan(sp)
            local = row.speedup_type == "local"
            severe = str(row.type).upper() in ("WRN", "ERR") or (has_sp and not local and sp >= WARN_SPEEDUP_PCT)
            kern = str(row.kernel) if len(str(row.kernel)) <= 50 else str(row.kernel)[:49] + "…"
            # ncu's global "Est. Speedup" is a cut in the kernel's duration (its time at stake below), not a rate:
            # 67.9 % means about a third of the time left, which "67.9 % faster" (1.68× the speed) would misstate
            gain = ("advice" if not has_sp else
                    f"its unit up to {sp:.1f} % better used, viewed in isolation (ncu's local estimate, not a cut "
                    "in the kernel's time)" if local else f"up to {sp:.1f} % less time (ncu's estimate)")
            if row.kernel in tail and tail_effect(row.description) and has_sp:
                waves, fill, loss, time = tail[row.kernel]
                gain = tail_gain_text(sp, waves, fill, loss)
                # weighed by what the empty slots lose, not by the partial wave's running time
                severe = str(row.type).upper() in ("WRN", "ERR") or (time > 0 and 100 * loss / time >= WARN_SPEEDUP_PCT)
            title = f"ncu {row.rule} on {kern}: {gain} ({row.launches} launch{'es' if row.launches != 1 else ''})"
            findings.append(Finding(title, str(row.description), "warning" if severe else "info", "ncu-rule",
                                    None if pd.isna(row.time_at_stake_ns) else int(row.time_at_stake_ns) or None,
                                    kernel=row.kernel,
                                    action=_action(str(row.description)), key=f"ncu/{row.rule}/{row.kernel}"))
        summary = {"rule_results": int(len(rules)), "rules": int(t["rule"].nunique()),
                   "findings": len(findings)}
        return AnalysisResult(self.name, t, COLUMNS, summary, findings)


#: ncu's link markup in rule texts: ``@<kind>:<fields>:<hypertext>@`` (kinds url, section, sass, source; any other
#: lower-case kind is read the same way, its last field the hypertext). Not after a word character or a dot, so a
#: mail-like ``a@b:c@`` in prose is left alone.
_MARKUP = re.compile(r"(?<![\w.])@([a-z]+):([^@\n]*)@")
_URL = re.compile(r"^(.*?):?([a-z][a-z0-9+.-]*://\S*)$", re.IGNORECASE)
_SOURCE = re.compile(r"^(.*?):([0-9]+):(.*)$", re.DOTALL)


def plain_text(text: Any) -> str:
    """A rule text with ncu's link markup rendered as plain text, the way ncu's CSV export prints it:
    ``@url:Hardware Model:https://…@`` → ``Hardware Model (https://…)``; ``@section:LaunchStats:Launch
    Statistics@`` → ``Launch Statistics``; ``@sass:0x1a0:this load@`` → ``this load``; ``@source:k.cu:42:line
    42@`` → ``line 42 (k.cu:42)``. Text without markup is returned unchanged."""
    s = str(text)
    if "@" not in s:
        return s

    def render(m: re.Match) -> str:
        kind, body = m.group(1).lower(), m.group(2)
        if kind == "url":
            u = _URL.match(body)
            if u:
                hyper, link = u.group(1).strip(), u.group(2)
                return f"{hyper} ({link})" if hyper else link
            return body
        if kind == "source":
            src = _SOURCE.match(body)
            if src:
                hyper = src.group(3).strip()
                where = f"{src.group(1)}:{src.group(2)}"
                return f"{hyper} ({where})" if hyper else where
        return body.split(":", 1)[-1] if ":" in body else body

    return _MARKUP.sub(render, s)


#: ncu's note that a rule ran without an optional metric ("The optional metric smsp__pcsamp_sample_count could not
#: be found. Collecting it as an additional metric could enable the rule to provide more guidance.", typed WRN, seen
#: on every CPIStall of an H200 capture with ncu 2025.3): a remark on the collection, not on the kernel.
_COLLECTION_NOTE = re.compile(r"^\s*The optional metrics? \S+ could not be found\b", re.IGNORECASE)
#: Message types by weight: the group's type is its weightiest message's.
_TYPE_WEIGHT = {"ERR": 3, "WRN": 2, "OPT": 1}


def _representative(r: pd.DataFrame) -> pd.DataFrame:
    """(rule, kernel) → the message that speaks for the group (its ``type`` and ``description``): the one with the
    largest estimate, else the first of the weightiest type. A rule writes several messages per launch (CPIStall: a
    WRN that an optional metric was missing, the OPT advice with its estimate, an INF pointer to a table); the first
    one was shown before, so the H200 CPIStall finding read "The optional metric … could not be found" as its advice.
    Collection notes weigh as information."""
    typ = r["type"].astype(object).where(r["type"].notna(), "").astype(str).str.upper()
    note = r["description"].astype(str).str.match(_COLLECTION_NOTE)
    weight = typ.map(_TYPE_WEIGHT).fillna(0).where(~note, 0)
    order = pd.DataFrame({"rule": r["rule"], "kernel": r["kernel"], "est": r["estimated_speedup_pct"],
                          "weight": weight, "pos": np.arange(len(r)), "type": typ.where(~note, "INF"),
                          "description": r["description"]})
    order = order.sort_values(["est", "weight", "pos"], ascending=[False, False, True], na_position="last",
                              kind="stable")
    top = order.drop_duplicates(["rule", "kernel"]).set_index(["rule", "kernel"])
    heavy = order.sort_values(["weight", "pos"], ascending=[False, True], kind="stable") \
        .drop_duplicates(["rule", "kernel"]).set_index(["rule", "kernel"])
    keys = r.drop_duplicates(["rule", "kernel"]).set_index(["rule", "kernel"]).index
    top, heavy = top.reindex(keys), heavy.reindex(keys)
    # the group's type is its weightiest message's, whichever message carries the estimate
    return pd.DataFrame({"type": heavy["type"], "description": top["description"]})


def _largest_type(r: pd.DataFrame) -> pd.Series:
    """(rule, kernel) → the speedup type of its largest estimate ('' for a group with no estimate)."""
    top = r[r["estimated_speedup_pct"].notna()].sort_values("estimated_speedup_pct", ascending=False, kind="stable")
    top = top.drop_duplicates(["rule", "kernel"]).set_index(["rule", "kernel"])["speedup_type"]
    keys = r.drop_duplicates(["rule", "kernel"]).set_index(["rule", "kernel"]).index
    return top.reindex(keys).fillna("")


def _verdict_stakes(results: Any) -> dict[str, tuple[float, str]]:
    """kernel name → (the most its verdict lets a finding under it show [ns], what that figure is) for the kernels the
    ``verdicts`` analyzer quantified: its time at stake, or the upper bound beside it where that figure is a
    measured lower bound (:func:`gpulens.analyzers._tree.children_cap` of its finding)."""
    from gpulens.analyzers._tree import children_cap

    v = (results or {}).get("verdicts")
    if v is None or v.skipped or not len(v.table):
        return {}
    upper = {f.kernel: children_cap(f) for f in v.findings
             if f.kernel is not None and f.key == f"kernel:{f.kernel}" and f.stake_upper_ns is not None}
    out = {k: (float(c), "") for k, c in upper.items() if c is not None}
    for name, verdict, st in zip(v.table["name"].tolist(), v.table["verdict"].tolist(),
                                 v.table["time_at_stake_ns"].tolist()):
        if verdict != "undetermined" and st is not None and not pd.isna(st) and not out.get(str(name), (0, ""))[1]:
            out[str(name)] = ((out[str(name)][0], f"{verdict} verdict's upper bound at stake") if str(name) in out
                              else (float(st), f"{verdict} verdict time at stake"))
    return out


def _capped(t: pd.DataFrame, verdicts: dict[str, tuple[float, str]]) -> tuple[list, list]:
    """Each row's time at stake capped as the module doc says (rounded to ns; NaN stays unknown), and the note
    naming the cap that applied (None when none did)."""
    from gpulens.analyzers._stake import floor_cap_words, floor_stake
    from gpulens.units import fmt_ns

    stakes, notes, whose = [], [], "the kernel's"
    for kern, raw, dur, n in zip(t["kernel"].tolist(), t["time_at_stake_ns"].tolist(), t["kernel_ns"].tolist(),
                                 t["launches"].tolist()):
        if raw is None or pd.isna(raw):
            stakes.append(np.nan), notes.append(None)
            continue
        val, note = float(raw), None
        floor = float(floor_stake(dur, n))
        if dur > 0 and val > floor:
            val, note = floor, f"capped {floor_cap_words(whose, floor)}"
        cap = verdicts.get(str(kern))
        if cap is not None and val > cap[0]:
            val, note = cap[0], f"capped at the kernel's {cap[1]} ({fmt_ns(cap[0])})"
        stakes.append(float(round(val))), notes.append(note)
    return stakes, notes


#: ncu's tail-effect message (LaunchConfiguration: "This kernel launch results in 1 full waves and a partial wave of
#: 992 thread blocks. Under the assumption of a uniform execution duration of all thread blocks, this partial wave
#: may account for up to 50.0% of the total runtime of this kernel."): its estimate is the partial wave's share of
#: the runtime — the time the last wave runs — not the time its empty block slots lose.
_TAIL_EFFECT = re.compile(r"\bpartial wave\b", re.IGNORECASE)


def tail_effect(text: Any) -> bool:
    """Whether an ncu rule text is the tail-effect (partial wave) message (:data:`_TAIL_EFFECT`)."""
    return bool(_TAIL_EFFECT.search(str(text or "")))


def _tail_waves(t: pd.DataFrame, results: Any) -> dict[str, tuple[float, float, float, float]]:
    """kernel → (waves, last wave's fill [%], wave loss [ns], the kernel's time [ns]) from the ``occupancy`` result for the kernels whose
    ncu rule row is the tail-effect message, and — in place, on ``t`` — each such row's time at stake capped at
    that wave loss, with a note saying which figure is which. ncu's estimate (the partial wave's share of the
    runtime, if every block takes as long) is the time the last wave *runs*; what a grid with no partial wave saves
    is the time its empty block slots idle, ``time × (1 − W / ⌈W⌉)`` (the occupancy analyzer's ``wave_loss_ns``,
    :func:`gpulens.analyzers._stake.wave_loss_ns`): on an H200 ncu CSV, gemm_wmma's 1.94 waves put 312.77 µs (50 %
    of 625.54 µs) at stake beside an occupancy wave loss of 18.96 µs — a last wave 93.9 % full loses 6.1 % of one
    wave's time."""
    from gpulens.units import fmt_ns

    occ = (results or {}).get("occupancy")
    if occ is None or occ.skipped or occ.table is None or not len(occ.table) \
            or not {"name", "waves_per_sm", "tail_wave_pct", "wave_loss_ns"} <= set(occ.table.columns):
        return {}
    by_name = {str(r["name"]): r for r in occ.table.to_dict("records")}
    out: dict[str, tuple[float, float, float, float]] = {}
    for i, (kern, text) in enumerate(zip(t["kernel"].tolist(), t["description"].tolist())):
        o = by_name.get(str(kern))
        if o is None or not tail_effect(text):
            continue
        vals = [pd.to_numeric(o.get(k), errors="coerce") for k in ("waves_per_sm", "tail_wave_pct", "wave_loss_ns",
                                                                   "time_ns")]
        if any(v is None or pd.isna(v) for v in vals):
            continue
        waves, fill, loss, time = (float(v) for v in vals)
        out[str(kern)] = (waves, fill, loss, time)
        st = t.at[i, "time_at_stake_ns"]
        if st is not None and not pd.isna(st) and float(st) > loss:
            t.at[i, "time_at_stake_ns"] = float(round(loss))
            t.at[i, "stake_note"] = (f"capped at the occupancy wave loss ({fmt_ns(loss)}: what the empty block slots "
                                     f"of its partial wave idle); ncu's estimate, {fmt_ns(st)}, is the time that "
                                     "partial wave runs")
    return out


def tail_gain_text(pct: float, waves: float, fill: float, loss: float) -> str:
    """The tail-effect finding's figure in words, ncu's and gpulens's side by side: "a partial wave running up to
    50.0 % of its time (ncu's tail-effect estimate, if every block takes as long); its empty block slots lose
    18.96 µs (1.94 waves, the last 93.9 % full: the occupancy wave loss)"."""
    from gpulens.analyzers._occ_findings import waves_text
    from gpulens.units import fmt_ns, pct_words

    return (f"a partial wave running up to {pct_words(pct)} of its time (ncu's tail-effect estimate, if every block takes "
            f"as long); its empty block slots lose {fmt_ns(loss)} ({waves_text(waves)} waves, the last {pct_words(fill)} "
            "full: the occupancy wave loss)")


def _action(text: str) -> str:
    """ncu's own advice sentence from a rule text (the first sentence that tells the user what to do), or ""."""
    import re

    for sent in re.split(r"(?<=\.)\s+", text.strip()):
        if re.match(r"^(Consider|Look at|Check|Try|Reduce|Increase|Avoid|Use|To increase|To reduce)\b", sent):
            return sent
    return ""
