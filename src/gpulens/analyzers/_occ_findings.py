"""Findings of the occupancy analyzer: the grid's waves, resource limiters, achieved vs theoretical, and
disagreements between ncu's theoretical occupancy and gpulens's calculator.

Time at stake (the formulas and their sources: :mod:`gpulens.analyzers._stake`; docs/bottlenecks.md):

* partly filled waves (grid fill below one wave, or a partly full last wave): ``Σ launches t × (1 − W / ⌈W⌉)`` —
  the table's ``wave_loss_ns``, each launch with its own waves ``W`` — capped at the roofline's time at stake when
  the kernel has one (no fix runs it past its roof);
* a register / shared-memory limiter, or achieved occupancy below theoretical: unknown (``None``, ranked after every
  finding with an estimate) unless the roofline puts the kernel below both roofs (latency-bound by evidence; the
  verdict does the same from speed-of-light counters, :func:`bound_by_verdict`); then at most
  ``min(t × (1 − occupancy / possible), t × (1 − attained / attainable))``.

The findings about one kernel form one tree (``key`` / ``parent``): the one with the largest estimate is the root,
the others detail it, so the kernel's time is counted once in totals and rankings whatever the number of findings.
"""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from gpulens.analyzers import _advice
from gpulens.analyzers._hot import short_name as _short
from gpulens.analyzers._stake import FLOOR_WHY, floor_cap_words, floor_capped, floor_stake, occupancy_gain_bound_ns
from gpulens.analyzers._verdict_facts import persistent_grid
from gpulens.analyzers.base import Finding
from gpulens.units import fmt_ns, fmt_num, pct_words, plural

#: Below this theoretical occupancy [%] a register / shared-memory limiter is worth a finding.
LOW_THEORETICAL_PCT = 50.0
#: A partly-filled-wave finding needs at least this share of the kernel's time at stake (wave loss / time).
MIN_WAVE_LOSS_SHARE = 0.10
#: A finding is a warning when its time at stake exceeds this share of the hot kernels' time (as verdicts: 5 %).
SEVERE_SHARE = 0.05
#: The premise of a wave-quantization estimate while nothing shows what bounds the kernel: the estimate assumes every
#: block takes the same time however many share its SM — so of a compute- or latency-bound kernel; a memory-bound
#: kernel's blocks in a partly filled wave share the bandwidth among fewer blocks and finish sooner (it loses less).
WAVE_PREMISE = "if it is not memory-bound (its bound is undetermined)"
#: Roofline bounds under which the wave estimate needs no premise: compute / below both roofs (equal-time blocks),
#: memory (the estimate is then capped at the distance to the memory roof, a bound that holds whatever the blocks do).
KNOWN_BOUNDS = ("compute", "memory", "below-roofs")
#: Kept for readers of the old thresholds: a grid under this many waves leaves block slots empty for the whole kernel.
FEW_WAVES = 1.0


def fill_text(w: float) -> str:
    """A grid's fill of one wave as a percentage that is never rounded to a false 0 % ("0.058 %" for 1 block of
    1,728 slots; "80 %" for 0.8 waves)."""
    p = 100.0 * w
    # the table's digits (pct_words) from 1 %, never a false "100 %" of a wave either; two significant digits below
    return pct_words(p) if p >= 1 or p == 0 else f"{fmt_num(p, 2)} %"


def waves_text(w: float) -> str:
    """Waves per SM in a sentence with the digits of the occupancy table's ``waves`` cell (a ``ratio``:
    :func:`gpulens.units.fmt_num`, three significant digits: "1.07", "0.121", "0.00058") — one figure, one reading:
    two decimals here read the table's 0.121 "0.12" and its 0.0606 "0.061" in the finding beside it."""
    return fmt_num(w, 3)


def _up_to(pct: float) -> str:
    """A wave finding's share in its title: "up to 33 %" (an upper bound), never a false 100 %: "over 99.9 %"."""
    text = pct_words(pct)
    return text if text.startswith(("over ", "under ")) else f"up to {text}"


def _wave_stake(loss: float, r: Any, roof_ns: Any) -> tuple[int, list[str]]:
    """The wave finding's time at stake [ns] — the wave loss, capped at the kernel's distance to its roof and at its
    time less the per-launch floor — and the sentences naming the caps that applied (none: the loss itself)."""
    stake = int(loss)
    caps = []
    cap = _int(roof_ns)
    fl = floor_stake(r.time_ns, getattr(r, "calls", None))
    # no fix runs the kernel past its roof — unless that distance is itself the launch floor (the roofline's
    # stake keeps 2 µs per launch, _stake.floor_capped): then the floor is the cap named (the demo's CUTLASS GEMM,
    # 98.72 µs − 17 × 2 µs = 64.72 µs, read "capped at its distance to the roof")
    if cap is not None and cap < stake and cap < fl:
        stake = cap
        caps.append(f"Capped at its distance to the roof ({fmt_ns(cap)}): it cannot run faster than its roof.")
    if fl < stake:  # every launch keeps the 2 µs no kernel runs under
        stake = fl
        caps.append(f"Capped {floor_cap_words(stake_ns=fl)}.")
    return stake, caps


def _wave_finding(r: Any, sev: str, key: str, fam: str, library: bool, roof_ns: Any = None,
                  bound: Any = None, pytorch: bool = False, vendor: str | None = None,
                  sms_premise: str = "") -> Finding | None:
    """The partly-filled-wave finding of one kernel row (None below :data:`MIN_WAVE_LOSS_SHARE`, and for a grid
    sized to the GPU: :func:`gpulens.analyzers._verdict_facts.persistent_grid`); its time at stake
    is the wave loss, capped at the kernel's distance to its roof ``roof_ns`` when the roofline gives one. Without a
    roofline ``bound`` (:data:`KNOWN_BOUNDS`) the estimate carries :data:`WAVE_PREMISE` (the verdict may settle it
    later: :func:`settle_wave_premise`); with waves counted on an assumed GPU's SMs, ``sms_premise`` too (no verdict
    settles that one). SMs or CUs in ``vendor``'s words."""
    sm = _advice.vendor_word(vendor, "sm")
    loss, w = r.wave_loss_ns, r.waves_per_sm
    if loss is None or loss != loss or not r.time_ns or loss < MIN_WAVE_LOSS_SHARE * r.time_ns or w is None \
            or w != w:
        return None
    gb0, ab0 = _int(r.grid_blocks), _int(r.active_blocks_per_sm)
    if gb0 and ab0 and w > 0 and (_int(r.grid_sizes) or 1) <= 1 and persistent_grid(
            gb0, round(gb0 / (w * ab0)), w, str(r.name)) is not None:
        # a grid sized to the GPU (k blocks on every SM: a persistent kernel looping over its work) is under one
        # wave by design: each SM gets its share of the work whatever the block count, so no slot time is lost to
        # waves and "more blocks" does not apply (the verdict's step says what limits it instead)
        return None
    stake, caps = _wave_stake(loss, r, roof_ns)
    # the title's share is that of the time at stake the finding reports: the loss, or what a cap leaves of it
    share = _up_to(100.0 * stake / r.time_ns)
    # one wording whether or not a cap applied, as in every other finding's title: the share is of the time at stake
    lost = "at stake from empty block slots"
    if caps:  # the share is below the empty slots' own share (a grid 12 % full leaves 88 %): the title says why
        why = floor_cap_words() if FLOOR_WHY in caps[-1] else "at its distance to the roof"
        lost += f" ({pct_words(100.0 * loss / r.time_ns)} of it with slots empty, capped {why})"
    gb, ab = _int(r.grid_blocks), _int(r.active_blocks_per_sm)
    cfg = f"{plural(gb, 'block(s)')}, {ab} resident per {sm}" if gb is not None and ab is not None else "its launch configuration"
    varies = (_int(r.grid_sizes) or 0) > 1
    main = (f" in its main configuration ({cfg}; {pct_words(100 * (r.config_time_share or 0))} of its time — its "
            f"{r.grid_sizes} grid sizes each counted with their own waves)" if varies else f" ({cfg})")
    formula = ("At stake: Σ over launches of time × (1 − W / ⌈W⌉), W = that launch's waves — the time block slots "
               "stay empty in partly filled waves if every block took the same time (an upper bound: a lone block may "
               f"run faster than one sharing its {sm}).")
    own = 1.0 - w / math.ceil(w) if w > 0 else 0.0  # the main configuration's own loss share
    # the fill shown is the main grid's, the loss every launch's: said so, or a reader recomputes 1 − fill from the
    # title and gets another figure (1.07 waves "up to 54 %" where the main grid alone loses 47 %)
    over = f", over all its {_int(r.grid_sizes)} grid sizes," if varies else ""
    if varies and own < MIN_WAVE_LOSS_SHARE:
        title = (f"Partly filled waves of {_short(r.name)}: {share} of its time {lost} "
                 f"({_int(r.grid_sizes)} grid sizes; the main one is {waves_text(w)} waves)")
        detail = (f"Its launches use {_int(r.grid_sizes)} grid sizes; the main configuration ({cfg}, "
                  f"{pct_words(100 * (r.config_time_share or 0))} of its time) runs {waves_text(w)} waves, the others leave "
                  f"partly filled waves. {formula}")
        act = _advice.whole_waves(fam, library, str(r.name), pytorch, vendor)
    elif w < 1:
        title = (f"{'Main grid' if varies else 'Grid'} of {_short(r.name)} fills {fill_text(w)} of one wave: "
                 f"{share} of its time{over} {lost}")
        detail = (f"{waves_text(w)} waves{main}: fewer blocks than the GPU holds at once, so block slots stay empty for the "
                  f"whole launch. {formula}")
        act = _advice.more_blocks(fam, library, str(r.name))
    else:
        title = (f"Last wave of {_short(r.name)}{' in its main grid' if varies else ''} is {pct_words(r.tail_wave_pct)} "
                 f"full ({waves_text(w)} waves): {share} of its time{over} {lost}")
        detail = f"{waves_text(w)} waves{main}: the final wave runs with most block slots empty (tail effect). {formula}"
        act = _advice.whole_waves(fam, library, str(r.name), pytorch, vendor)
    for c in caps:
        detail += " " + c
    premise = join_premises("" if bound in KNOWN_BOUNDS else WAVE_PREMISE, sms_premise)
    return Finding(title, detail, severity="info" if premise else sev, category="occupancy",
                   time_at_stake_ns=stake, kernel=r.name, action=act, key=f"{key}/waves", premise=premise)


def join_premises(*parts: str) -> str:
    """Premises that all must hold, as one clause ("" when none)."""
    return "; and ".join(p for p in parts if p)


def drop_premise(premise: str, settled: str) -> str:
    """``premise`` less the part ``settled`` (:func:`join_premises` order kept)."""
    return join_premises(*(p for p in premise.split("; and ") if p != settled))


_WAVE_SHARE = re.compile(r"((?:up to|over|under) [^ ]+ %) of its time(, over all its [0-9]+ grid sizes,)? "
                         r"(?:lost to|at stake from) empty block slots")
_CAP_NOTE = re.compile(r" \(([^()]* of it with slots empty), capped[^()]*\)")


def retitle_wave(f: Finding, time_ns: Any) -> None:
    """After a later cap of a wave finding's time at stake (the verdict's distance to the memory roof, a parent
    finding's time), its title's share follows, in place: the share of the kernel's time ``time_ns`` that the
    finding now puts at stake, "at stake from empty block slots" (no longer all of the empty slots' time)."""
    if not (f.key or "").endswith("/waves") or f.time_at_stake_ns is None:
        return
    try:
        t = float(time_ns)
    except (TypeError, ValueError):
        return
    if not t > 0:
        return
    share = _up_to(100.0 * f.time_at_stake_ns / t)
    m = _WAVE_SHARE.search(f.title)
    if m is None or m.group(1) == share:
        return
    # the title keeps the empty slots' own share beside the new, lower one, and says it was capped (the detail
    # says by what): a grid 12 % full reading "up to 30 %" with nothing else contradicts 1 − fill
    tail = f.title[m.end():]
    own = (_CAP_NOTE.match(tail).group(1) if _CAP_NOTE.match(tail)
           else m.group(1).removeprefix("up to ") + " of it with slots empty")
    tail = _CAP_NOTE.sub("", tail, count=1)
    f.title = (f.title[:m.start()] + f"{share} of its time{m.group(2) or ''} at stake from empty block slots "
               f"({own}, capped: see the detail)" + tail)


def settle_wave_premise(found: list[Finding], name: str, verdict: str, stake_ns: int | None,
                        sev_total: float, time_ns: Any = None, calls: int | None = None) -> None:
    """Once the verdict says what bounds kernel ``name``, its wave finding's premise is settled — in place:
    compute-, latency/occupancy-bound or below-roofs: the premise holds (equal-time blocks), the estimate stands; memory-bound:
    the estimate is capped at the verdict's time at stake ``stake_ns`` (its distance to the memory roof, which
    holds whatever the blocks do; a memory-bound kernel's tail blocks run faster, so the equal-time estimate is an
    upper bound too; ``time_ns`` and ``calls``, the kernel's, tell when the launch floor set that stake and is the
    cap to name). Other verdicts (undetermined, launch, communication) leave the premise. The severity is then
    that of a determined figure (warning above :data:`SEVERE_SHARE` of ``sev_total``)."""
    if verdict not in ("compute-bound", "latency/occupancy-bound", "below-roofs", "memory-bound"):
        return
    for f in found:
        if f.kernel != name or WAVE_PREMISE not in f.premise or not (f.key or "").endswith("/waves"):
            continue
        if verdict == "memory-bound":
            if stake_ns is None:
                continue
            if f.time_at_stake_ns is not None and stake_ns < f.time_at_stake_ns:
                f.time_at_stake_ns = int(stake_ns)
                # the verdict's stake keeps 2 µs per launch: when that floor set it, the floor is the cap named
                f.detail += (f" Capped {floor_cap_words(stake_ns=stake_ns)}."
                             if floor_capped(stake_ns, time_ns, calls) else
                             f" Capped at its distance to the memory roof ({fmt_ns(stake_ns)}): memory-bound, it "
                             "cannot run faster than its roof.")
                retitle_wave(f, time_ns)
        f.premise = drop_premise(f.premise, WAVE_PREMISE)  # an assumed GPU's SM count stays a premise
        f.severity = _sev(f.time_at_stake_ns, max(sev_total, 1)) if not f.premise else "info"


#: The first words of a wave finding's action once the kernel's verdict asks to fuse its launches first.
AFTER_FUSION = "Once its launches are fused (the verdict's first step: they run shorter than their launch calls), "


def defer_to_fusion(found: list[Finding], name: str) -> None:
    """The wave finding of kernel ``name`` (its grid fills a fraction of one wave) asks for more blocks; when the
    kernel's verdict first asks to fuse its launches ("more blocks per launch alone would not pay back the launch"),
    that action reads as a contradiction under it. In place: the action says it comes after the fusion."""
    for f in found:
        if f.kernel == name and (f.key or "").endswith("/waves") and f.action and not f.action.startswith(AFTER_FUSION):
            f.action = AFTER_FUSION + f.action[0].lower() + f.action[1:]


def _sev(stake: int | None, total: int) -> str:
    return "warning" if stake is not None and stake > SEVERE_SHARE * total else "info"


def _int(v: Any) -> int | None:
    """An integer table cell, None when missing (integer columns with a gap come back as floats)."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if f != f else int(f)


_UNKNOWN = ("Gain unknown: higher occupancy speeds up only a latency-bound kernel, and nothing here shows this "
            "one is (no roofline or speed-of-light figure below both roofs).")


#: Why a library GEMM / attention kernel's low occupancy puts no time at stake: its tile holds the accumulators in
#: registers and the operand pipeline stages in shared memory by design, and it hides latency with
#: instruction-level parallelism and asynchronous copies rather than resident warps (V. Volkov, "Better Performance
#: at Lower Occupancy", GTC 2010; CUTLASS's tensor-core kernels run one or two blocks per SM).
_TILE_NOTE = ("That is the library's tile (accumulators in registers, operand stages in shared memory), chosen so: "
              "it hides latency with instruction-level parallelism and asynchronous copies, not with resident warps, "
              "so higher occupancy is not its lever and no time is at stake here; its verdict names what is.")


def _latency_note(bound_ns: int | None, by: str = "The roofline") -> str:
    if bound_ns is None:
        return _UNKNOWN
    return (f"{by} puts it below both roofs (latency-bound), so at most {fmt_ns(bound_ns)}: time × (1 − "
            "occupancy / possible occupancy), capped by its distance to the roof.")


def bound_by_verdict(found: list[Finding], name: str, time_ns: float, theo: float | None, ach: float | None,
                     stake_ns: int | None, by: str) -> None:
    """Give the limiter / achieved-occupancy findings of kernel ``name`` their bound once a later analysis (the
    verdict, from speed-of-light counters: ``by``) shows the kernel latency-bound with ``stake_ns`` to its roof —
    in place, only where the gain was still unknown."""
    if stake_ns is None:
        return
    for f in found:
        if f.kernel != name or f.time_at_stake_ns is not None or not f.key or _TILE_NOTE in (f.detail or ""):
            continue
        if f.key.endswith("/limiter"):
            bound = occupancy_gain_bound_ns(time_ns, theo, 100.0, stake_ns)
        elif f.key.endswith("/achieved"):
            bound = occupancy_gain_bound_ns(time_ns, ach, theo, stake_ns)
        else:
            continue
        if bound is not None:
            f.time_at_stake_ns = bound
            f.detail = f.detail.replace(_UNKNOWN, _latency_note(bound, by))


def settle_condition(found: list[Finding], name: str, pytorch: bool = False, vendor: str | None = None) -> None:
    """Once the verdict shows kernel ``name`` latency-bound, its limiter findings' next step loses its condition
    (the step to measure it first, :func:`gpulens.analyzers._advice.latency_check`, beside a latency-bound verdict
    would be circular) — in place."""
    for f in found:
        if f.kernel != name or not f.key or not f.key.endswith("/limiter") or not f.action:
            continue
        check = _advice.latency_check(vendor)
        if _advice.is_library(name):
            f.action = _advice.limiter("registers", name, pytorch, latency_bound=True, vendor=vendor)
        else:
            f.action = f.action.replace(check + ".", ".")


def findings(t: pd.DataFrame, kin_optin: int, dis: pd.DataFrame, word: dict[str, str],
             roof: dict[str, dict] | None = None, pytorch: bool = False,
             owners: dict[str, str] | None = None, vendor: str | None = None, sms_premise: str = "") -> list[Finding]:
    """Findings for the per-kernel occupancy table ``t`` (columns of :data:`gpulens.analyzers.occupancy.COLUMNS`).

    ``roof``: kernel name → its ``roofline`` row (``bound``, ``time_at_stake_ns``), the evidence that a kernel is
    latency-bound; ``pytorch``: whether the program is a PyTorch one (gates the advice, :mod:`._advice`);
    ``owners``: kernel name → ``triton`` / ``aotriton`` (:func:`gpulens.analyzers._advice.triton_kernels`);
    ``vendor``: ``amd`` / ``nvidia`` (None: unknown), the words of the advice (:func:`._advice.vendor_word`);
    ``sms_premise``: the premise of wave estimates counted on an assumed GPU's SMs
    (:func:`gpulens.analyzers._stake.assumed_premise`), "" when the SM count was recorded."""
    owners = owners or {}
    out: list[Finding] = []
    roof = roof or {}
    total = max(int(t["time_ns"].sum()), 1)
    for r in t.itertuples():
        theo, ach, w = r.theoretical_occupancy_pct, r.achieved_occupancy_pct, r.waves_per_sm
        sev = "warning" if (r.wave_loss_ns or 0) > SEVERE_SHARE * total else "info"
        key = f"occupancy/{r.name}"
        fam, library = _advice.family(r.name), _advice.is_library(r.name)
        rr = roof.get(r.name) or {}
        roof_stake = rr.get("time_at_stake_ns") if rr.get("bound") == "below-roofs" else None
        mine: list[Finding] = []
        wf = _wave_finding(r, sev, key, fam, library, rr.get("time_at_stake_ns"), rr.get("bound"), pytorch, vendor,
                           sms_premise)
        if wf is not None:
            mine.append(wf)
        if r.limiter in ("registers", "shared_memory") and theo is not None and theo < LOW_THEORETICAL_PCT:
            tied_all = [x for x in str(r.limiters or r.limiter).split(", ") if x]
            res = [x for x in ("registers", "shared_memory") if x in tied_all]  # both bind at once: both named
            regs_w = f"{_int(r.regs_per_thread)} registers/thread" if _int(r.regs_per_thread) is not None \
                else "registers"
            smem = _advice.vendor_word(vendor, "smem")  # LDS on AMD, shared memory on NVIDIA
            smem_w = f"{int(r.smem_bytes):,} B {smem}/block" if r.smem_bytes == r.smem_bytes and \
                r.smem_bytes is not None else smem
            what = " and ".join(regs_w if x == "registers" else smem_w for x in res)
            named = {"shared_memory": smem, "warps": _advice.vendor_word(vendor, "warp") + " slots"}
            rest = [named.get(x, x.replace("_", " ")) for x in tied_all if x not in res]
            tied = f" (tied with {', '.join(rest)})" if rest else ""
            blocks = plural(_int(r.active_blocks_per_sm), 'block(s)') if _int(r.active_blocks_per_sm) is not None \
                else "few blocks"
            # a library matrix kernel's register / shared-memory use is its tile: occupancy is not its lever
            by_design = library and fam in ("gemm", "attention")
            bound = None if by_design else occupancy_gain_bound_ns(r.time_ns, theo, 100.0, roof_stake)
            both = len(res) == 2
            action = _advice.limiter(r.limiter, r.name, pytorch, latency_bound=roof_stake is not None,
                                     hint=owners.get(r.name), vendor=vendor)
            if both and not library and _advice.code_owner(r.name, owners.get(r.name)) == "user":
                action = (f"Cut registers per thread and {smem} per block together (both allow the same "
                          "number of blocks: relieving one alone leaves occupancy where it is)"
                          + ("" if roof_stake is not None else _advice.latency_check(vendor)) + ".")
            mine.append(Finding(
                (f"{word['registers']} and {smem} limit" if both else
                 f"{smem[:1].upper() + smem[1:] if r.limiter == 'shared_memory' else word[r.limiter]} "
                 # the verb agrees: "Registers limit", "Shared memory (LDS, the block cap) limits"
                 + ("limit" if r.limiter in ("registers", "warps", "barriers") else "limits"))
                + f" occupancy of {_short(r.name)} to {pct_words(theo)}",
                f"{what}{tied} {'each leave' if both else 'leaves'} room for {blocks} per "
                f"{_advice.vendor_word(vendor, 'sm')} ({r.occupancy_source})"
                + (": relieving one alone does not raise occupancy" if both else "") + "."
                + f" {_TILE_NOTE if by_design else _latency_note(bound)}",
                severity=_sev(bound, total), category="occupancy", time_at_stake_ns=bound, kernel=r.name,
                action=action, key=f"{key}/limiter"))
        if ach is not None and theo and ach < 0.5 * theo and not (w is not None and w < FEW_WAVES):
            bound = occupancy_gain_bound_ns(r.time_ns, ach, theo, roof_stake)
            mine.append(Finding(
                f"{_short(r.name)} achieves {pct_words(ach)} occupancy of a possible {pct_words(theo)}",
                _advice.vendor_text("{Warps} finish unevenly (tail effect, load imbalance) or blocks are not "
                                    "scheduled fast enough. ", vendor) + _latency_note(bound),
                severity=_sev(bound, total), category="occupancy", time_at_stake_ns=bound, kernel=r.name,
                action=_advice.balance(library, vendor), key=f"{key}/achieved"))
        out.extend(_one_tree(mine))
    if len(dis):
        worst = dis.assign(d=(dis["theo"] - dis["calc_theo"]).abs()).sort_values("d").iloc[-1]
        out.append(Finding(
            f"gpulens's occupancy calculator disagrees with ncu on {plural(len(dis), 'launch(es)')}",
            f"e.g. {_short(str(worst['name']))}: ncu {worst['theo']:.2f} %, calculator {worst['calc_theo']:.2f} %. "
            "ncu's figure is shown; the calculator's architecture table may miss a limit of this GPU.",
            severity="info", category="data-quality", action="Trust ncu's Occupancy section for these kernels.",
            key="occupancy/calculator-disagrees"))
    if kin_optin:
        out.append(Finding(
            f"Kineto's occupancy estimate is 0 % for {plural(kin_optin, 'launch(es)')} using > 48 KiB shared memory",
            "Kineto computes occupancy without the opt-in shared-memory limit; gpulens uses the opt-in limit "
            "the launch must have had.", severity="info", category="data-quality",
            action="Ignore Kineto's 'est. achieved occupancy' for these launches.", key="occupancy/kineto-optin"))
    out.sort(key=lambda f: (f.parent is not None, -(f.time_at_stake_ns or 0)))
    if vendor == "amd":  # "empty block slots", "Give the launch more blocks": workgroups on AMD
        for f in out:
            f.title, f.detail = _advice.amd_block_words(f.title, vendor), _advice.amd_block_words(f.detail, vendor)
            f.action = _advice.amd_block_words(f.action, vendor)
            f.premise = _advice.amd_block_words(f.premise, vendor)
    return out


def _one_tree(mine: list[Finding]) -> list[Finding]:
    """One kernel's findings as one tree: the largest estimate (the first when none has one) is the root, the others
    its children (their time is within the kernel's, counted once)."""
    if len(mine) < 2:
        return mine
    root = max(mine, key=lambda f: f.time_at_stake_ns or -1)
    for f in mine:
        if f is not root:
            f.parent = root.key
    return [root] + [f for f in mine if f is not root]
