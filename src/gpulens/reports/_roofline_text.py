"""Roofline phrases shared by every report (console, HTML, Markdown): the heading (hardware spec, FLOP coverage,
which roofs are achievable peaks or measured), the bound's words and % of peak with its unit, and the cells of rows
drawn above a roof (marked, their figures said unknown). One definition per figure's wording; the values come from
the roofline analyzer's results. Re-exported by :mod:`gpulens.reports._format`; moved out of
:mod:`gpulens.reports._run_text`.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpulens.reports._run_text import spec_label, stake_notes
from gpulens.reports._values import fmt_unit
from gpulens.units import is_missing, pct_words


def roofline_heading(summary: Mapping[str, Any]) -> str:
    """The one heading of the roofline in every report: the hardware spec it used and the FLOP coverage
    (``"Roofline on NVIDIA H100 SXM (FLOPs known for 100 % of the critical kernels' time)"``), and which compute
    roofs are documented achievable peaks (``"; matrix bf16 roof at the achievable peak, not the datasheet's"``) —
    then that the memory roof is the datasheet's, unless it was measured or the user's device spec file gave it (the
    roofs a spec file gave are named)."""
    basis = "launches" if summary.get("coverage_basis") == "launches" else "time"
    cov = summary.get("coverage")
    known = "unknown" if is_missing(cov) else pct_words(100 * float(cov))
    dev = spec_label(summary.get("device"), summary.get("device_note")) if summary.get("device") else "an unidentified GPU"
    ach = [str(k).removeprefix("achievable.").replace(".", " ") for k in summary.get("achievable_roofs") or []]
    at = f"; {', '.join(ach)} roof at the achievable peak, not the datasheet's" if ach else ""
    meas = [str(k).replace("memory_bandwidth", "memory").replace(".", " ") for k in summary.get("measured_roofs") or []]
    filed = [str(k).replace("memory_bandwidth", "memory").replace(".", " ") for k in summary.get("spec_file_roofs")
             or []]
    if ach and not {"memory_bandwidth"} & {*(summary.get("measured_roofs") or []),
                                          *(summary.get("spec_file_roofs") or [])}:
        # two bases on one chart: the ridge point (compute roof / memory roof) sits left of an all-achievable one
        at += "; the memory roof is the datasheet bandwidth (no achievable figure is documented)"
    if filed:  # the user's figures: % of roof is of those
        at += f"; {', '.join(filed)} roof{'s' if len(filed) > 1 else ''} from the device spec file, not the datasheet"
    if meas:  # % of roof is then of the measured peaks; the speed of light's % of peak is of the datasheet's
        at += (f"; {', '.join(meas)} roof{'s' if len(meas) > 1 else ''} measured (rocprof-compute roofline.csv), not "
               "the datasheet's")
    at += f"; {summary['roof_clock']}" if summary.get("roof_clock") else ""  # the SM clock measured (devices.clocks)
    return f"Roofline on {dev} (FLOPs known for {known} of the critical kernels' {basis}{at})"


def bound_pct_differs(table: Any) -> bool:
    """Whether the roofline table's bound's % of peak (``bound_pct``) differs from its % of roofline (``roof_pct``) on
    some row (by 0.05 points or more, the shown rounding): only then are they two figures. On a roofline basis every
    row's ``bound_pct`` is its ``roof_pct``, and reports show one column (H200 resnet18 Kineto: two equal columns)."""
    import pandas as pd

    if table is None or not len(table) or "bound_pct" not in table or "roof_pct" not in table:
        return False
    diff = (pd.to_numeric(table["bound_pct"], errors="coerce") - pd.to_numeric(table["roof_pct"], errors="coerce"))
    return bool((diff.abs() >= 0.05).any())


def bound_pct_legend(table: Any) -> str:
    """What the roofline table's two percentages are, said under the table where they differ on some row ("" where
    every row's two figures agree): the bound's share of peak and the share of the DRAM/compute roofline are two
    quantities (ncu H200 CSV: gemm_wmma "bound at 96.4 %" beside "3.5 % roof" with no legend read as one figure
    contradicting itself). ``table``: the roofline table (``bound_pct``, ``roof_pct``, ``bound_basis``)."""
    if not bound_pct_differs(table):
        return ""
    return ("Two shares: the bound's % of peak is the share its bound rests on — on a roofline basis its % of the "
            "roofline; on the measured speed of light its limiting unit's (named beside it: compute, memory, DRAM, L1 "
            "or L2) % of that unit's own peak, the peak its time at stake is the distance to. The % of roofline is attained work over what the DRAM and compute roofs allow at its "
            "arithmetic intensity: a kernel near a cache's peak can sit far below that roofline.")


def bound_words(bound: Any, unit: Any, pct_unit: Any = None) -> Any:
    """A roofline row's bound as shown: a measured memory bound with the level its % of peak is of — the cache
    (``bound_unit``, "L1/TEX" → "memory (L1)", as the verdict's next step names it: "Its busiest memory unit is L1")
    or DRAM (``bound_pct_unit`` "DRAM") — so the bound and the % beside it name one unit
    (:func:`gpulens.analyzers._stake.sol_limit` picks it for both); the bound itself otherwise (None stays None: the
    table says unknown)."""
    if isinstance(bound, str) and bound == "memory":
        if isinstance(unit, str) and unit:
            return f"memory ({unit.split('/')[0]})"
        if isinstance(pct_unit, str) and pct_unit.startswith("DRAM"):
            return "memory (DRAM)"
    return bound


def roofline_display(table: Any) -> Any:
    """The roofline table as every report shows it (a copy; the analysis result is untouched): ``bound`` names the
    level of a measured memory bound (:func:`bound_words`). ``table``: the roofline result's table."""
    if table is None or not len(table) or "bound" not in table or "bound_unit" not in table:
        return table
    out = table.copy()
    pct_units = table["bound_pct_unit"] if "bound_pct_unit" in table else [None] * len(table)
    out["bound"] = [bound_words(b, u, pu) for b, u, pu in zip(table["bound"], table["bound_unit"], pct_units)]
    return out


#: Marks of the roofline's notes (:func:`roof_note_display`): "*", "**", …, apart from the time-at-stake marks of
#: the verdict table that may stand beside it (:data:`STAKE_MARKS`).
ROOF_MARKS = ("*",)

#: The roofline cells an above-roof note (``roof_note``) marks, one rule for every report: those it left unknown
#: (the attained rates, the roofline's bound and shares, its time at stake) — a bound the measured speed of light
#: gave stands and is not marked, nor a rate unknown for want of a FLOP count — and those resting on the figure that
#: made it impossible: the op shapes' bytes (their FLOP/B), or the GPU's peak figures (roofs, ridge point) when
#: counters measured the work.
ABOVE_ROOF_UNKNOWN = ("flops_per_s", "bytes_per_s", "bound", "bound_basis", "roof_pct", "datasheet_roof_pct",
                      "time_at_stake_ns")
ABOVE_ROOF_RESTS_ON = {"shapes": ("bytes", "arithmetic_intensity"),
                       "counters": ("peak_flops_per_s", "peak_bytes_per_s", "ridge_point")}


def _above_roof_cells(row: Mapping[str, Any], note: str) -> list[str]:
    """The cells of a roofline ``row`` its above-roof ``note`` marks (:data:`ABOVE_ROOF_UNKNOWN`,
    :data:`ABOVE_ROOF_RESTS_ON`)."""
    def gone(v: Any) -> bool:
        return is_missing(v) or v == "unknown"

    src = "shapes" if note.startswith("the op shapes") else "counters"
    return [c for c in ABOVE_ROOF_UNKNOWN if c in row and gone(row[c])
            and not (c == "flops_per_s" and gone(row.get("flops")))] + \
        [c for c in ABOVE_ROOF_RESTS_ON[src] if c in row and not gone(row[c])]


def _cell_text(column: str, value: Any) -> str:
    """A roofline cell as the Markdown and HTML tables write it (its declared unit)."""
    from gpulens.analyzers._roofline_columns import COLUMNS
    from gpulens.reports._format import unit_of

    return fmt_unit(value, unit_of(column, COLUMNS.get(column, "")))


def roof_note_display(table: Any, shown: int | None = None, fmt: Any = None) -> tuple[Any, list[str]]:
    """The roofline table with the figures a row's note is about marked (a copy), and the lines to print under the
    table saying why — so the reason stands where the figure does (it was in the JSON and a finding only):

    * ``roof_note`` (the kernel's figures put it above its roof, :func:`gpulens.analyzers.roofline._above_roof`):
      every cell :func:`_above_roof_cells` names — "unknown *" where the impossible share made the figure unknown,
      "0.0833 FLOP/B *" where it rests on the doubtful bytes (only "% of roofline" was marked: the FLOP/B of the
      same impossible bytes read as a result);
    * ``placement_note`` (the measured speed of light overrules the roofline's placement): its "% of roofline",
      which says another bound than the row's (53.5 beside latency/occupancy on an assumed GPU's peaks).

    ``shown``: the rows a report shows (the notes of the others are not listed); ``fmt(column, value) -> str``:
    the report's own cell text (default: the column's declared unit, as Markdown and HTML write it). ``(table,
    [])`` when no row has a note."""
    if table is None or not len(table) or not ({"roof_note", "placement_note"} & set(table.columns)):
        return table, []
    fmt = fmt or _cell_text
    rows = table.to_dict("records")
    notes = stake_notes([{"n": r.get("roof_note") or r.get("placement_note")} for r in rows], "n", ROOF_MARKS)
    if not notes:
        return table, []
    out = table.copy()
    listed: dict[str, str] = {}
    for i, (mark, note) in sorted(notes.items()):
        above = isinstance(rows[i].get("roof_note"), str) and rows[i].get("roof_note")
        cells = _above_roof_cells(rows[i], above) if above else ("roof_pct",)
        for c in cells:
            if c in out.columns:
                col = out[c].astype(object)
                col.iloc[i] = fmt(c, rows[i].get(c)) + mark
                out[c] = col
        if shown is None or i < shown:
            listed.setdefault(mark, f"{mark.strip()} the marked figures of this row are unknown or rest on a figure "
                              f"above its roof: {note}." if above else f"{mark.strip()} {note}.")
    return out, list(listed.values())


def bound_pct_text(pct: Any, unit: Any, num: Any) -> str:
    """The bound's % of peak in a console cell: ``num(pct)`` with the unit it is of — "79.6 (L2)" — where the row
    names one (``bound_pct_unit``: the measured limiting unit, or "roofline"); ``num``: the table's number
    formatter (its "unknown" for a missing figure)."""
    text = num(pct)
    return f"{text} ({unit})" if isinstance(unit, str) and unit and not is_missing(pct) else text
