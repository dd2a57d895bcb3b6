"""The comparison behind ``gpulens diff``: match two runs' GPU work and explain the difference.

Both sides are :mod:`kernel_groups` tables (GPU time per rank, kernel key, launching op, op shapes/dtypes,
category). Matching, in order:

1. **by name** — groups whose kernel ``key`` (demangled, normalised name) occurs on both sides;
2. **by operator + shapes** — for kernels whose key occurs on one side only (another vendor's or library's
   kernel for the same work: ``cutlass_80_wmma…`` vs ``Cijk_Alik_Bljk…``), groups launched by the same framework
   op with the same input shapes and dtypes and of the same event kind (kernels and collectives with kernels, a
   memset with memsets, a memcpy with memcpys: cuBLAS's workspace memset under ``aten::mm`` is never counted as a
   GEMM kernel); all events of such a signature form one row;
3. **by variant** — kernels still unmatched whose keys are equal once every number is read as ``#`` (the same
   kernel instantiated with other template values or tile sizes: ``…cta_per_row_1<float, 2ul>`` vs ``<float, 5ul>``,
   ``vectorized_elementwise_kernel<4, add>`` vs ``<8, add>``); the row is the key with ``#`` for the numbers;
4. **by category** — what is left (kernels no External id links to an operator, as in a trace whose launch records
   were cut off, or whose operator or shapes differ) is matched by what it is: its work category (GEMM, attention,
   elementwise, normalisation, communication, copy) and event kind (memsets with memsets, memcpys with memcpys of
   the same direction — of any when one side's names say none, HIP blit kernels: :func:`_undirected_copies`);
   all such events of one category form one row ``"unmatched GEMM kernels (by category)"`` (``"unmatched copy
   memsets (by category)"``) — the same work categories as the ``categories`` table, whose rows hold every event of
   the category, matched or not (the word "unmatched" says the row holds fewer) — so a
   vendor's unlinked GEMMs are compared with the other's instead of showing as "vanished" on one side and "new" on
   the other;
5. the rest (category ``other``, or a category found on one side only) is **new** (candidate only) or
   **vanished** (base only).

Every GPU event lands in exactly one row of each table, so each table's ``delta_ns`` sums to the total Δ
(candidate GPU time − base GPU time). Δ % is Δ / base time × 100 (NaN for new rows). Shares are of each run's
own GPU time. Times are effective (overrun-clipped) GPU event durations in ns.

**Contribution** ("of Δ") is a row's part of the *gross* change: Δ / Σ|Δ| over the rows of its table (for the
contributors, over the kernel rows), signed, so it stays within ±1 and the absolute values sum to 1. A part of the
*net* change (Δ / total Δ) is not used: when rows move in opposite directions the net is small and such parts
exceed ±100 % (a 3.9 ms saving read "+152 %" of a −2.6 ms net change).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import re

import numpy as np
import pandas as pd

from gpulens.diff._labels import assumed_gpu_differs, category_label, copy_direction
from gpulens.gate.workload import kernel_overlap, steps_differ, workload_text
from gpulens.reports._names import short_names

#: Per-side and delta columns shared by every diff table (prefix ``base_`` / ``cand_``).
SIDE_COLUMNS = {
    "base_count": "GPU events in the base run [count]",
    "base_time_ns": "GPU time in the base run [ns]",
    "base_mean_ns": "base time / base count [ns]",
    "base_share": "share of the base run's GPU time [share]",
    "cand_count": "GPU events in the candidate run [count]",
    "cand_time_ns": "GPU time in the candidate run [ns]",
    "cand_mean_ns": "candidate time / candidate count [ns]",
    "cand_share": "share of the candidate run's GPU time [share]",
    "delta_ns": "candidate time − base time [ns]",
    "delta_pct": "delta / base time × 100 (unknown for new rows) [%]",
    "contribution": "delta / Σ|delta| over the table's rows: the row's signed part of the gross change, within "
                    "±1, absolute values sum to 1; null when no row changed [ratio]",
}
KERNEL_COLUMNS = {
    "kernel": "kernel key, 'op shapes' for kernels matched through their launching operator (' memset' / "
              "' memcpy' appended for those events), the key with '#' for its numbers (variant rows), or "
              "'unmatched <category> kernels (by category)' ('unmatched <category> memsets (by category)' for "
              "memsets…: only the events left unmatched, unlike the categories table's rows) [text]",
    "match": "how the row was matched: name, op+shapes, variant (same key but its numbers), category (work "
             "category of kernels left unmatched), new (candidate only) or vanished (base only) [text]",
    "category": "work category; a copy with its direction, e.g. 'copy (DtoH)' [text]",
    "kernels": "short base kernel names → short candidate kernel names ('(none)' for a side without the row: new "
               "or vanished), or 'names (both runs)' when both sides hold the same kernels (name rows); one naming "
               "over both runs [text]",
    "base_kernels": "base kernel keys in the row ('|'-separated) [text]",
    "cand_kernels": "candidate kernel keys in the row ('|'-separated) [text]",
    **SIDE_COLUMNS,
}
OPERATOR_COLUMNS = {"op": "launching framework op ('(no op)' for GPU work without one); its memsets and memcpys "
                          "are rows of their own ('aten::mm (memset)') [text]", **SIDE_COLUMNS}
CATEGORY_COLUMNS = {"category": "work category; a copy with its direction, e.g. 'copy (DtoH)' [text]",
                    **SIDE_COLUMNS}
RANK_COLUMNS = {"rank": "distributed rank [id]", **SIDE_COLUMNS}
#: Each table's rows in words: its "of Δ" divides by the Σ|Δ| of its own rows, which differs between tables (rows
#: that net rises and falls in one table are apart in another: BERT H100 → MI300X, flash attention +76.25 µs is
#: 51.4 % of the kernel rows' Σ|Δ| 148.34 µs and 58.8 % of the operator rows' 129.78 µs), so each says which.
ROW_WORDS = {"kernels": "kernel rows", "operators": "operator rows", "categories": "category rows",
             "ranks": "rank rows", "contributors": "kernel rows"}


def _of_delta_doc(table: str) -> str:
    """The ``contribution`` column's doc in table ``table``: the Σ|Δ| it divides, named."""
    return (f"delta / Σ|delta| over the {ROW_WORDS[table]} (summary gross_delta_ns_by_table[{table!r}]): the row's "
            "signed part of that table's gross change, within ±1, absolute values sum to 1 over the table; null when no "
            "row changed (Σ|delta| = 0) [ratio]")


for _name, _cols in (("kernels", KERNEL_COLUMNS), ("operators", OPERATOR_COLUMNS), ("categories", CATEGORY_COLUMNS),
                     ("ranks", RANK_COLUMNS)):
    _cols["contribution"] = _of_delta_doc(_name)
CONTRIBUTOR_COLUMNS = {
    "kernel": "kernel row (see kernels), or 'all other rows (N)' [text]",
    "match": "how the row was matched [text]",
    "kernels": "base kernels → candidate kernels (short names; see the kernels table), '' for the 'all other "
               "rows' line [text]",
    "delta_ns": "candidate time − base time [ns]",
    "contribution": "delta / Σ|delta| of the kernel rows (signed part of the gross change, within ±1; null when no "
                    "kernel row changed) [ratio]",
    "cumulative_delta_ns": "running sum of delta; the last row equals the total delta [ns]",
}
SUMMARY_COLUMNS = {
    "base_runs": "runs the base figures (counts, times, span) are the mean of: a report's repeats; 1 for one run "
                 "[count]",
    "cand_runs": "runs the candidate figures are the mean of (as base_runs) [count]",
    "base_time_ns": "base run GPU time [ns]",
    "cand_time_ns": "candidate run GPU time [ns]",
    "delta_ns": "candidate − base GPU time [ns]",
    "delta_pct": "delta / base time × 100 [%]",
    "matched_by_name": "kernel rows matched by name [count]; copies' and memsets' rows included",
    "matched_by_name_transfers": "of matched_by_name, the rows of copies and memsets (the workload overlap counts "
                                 "kernel names only) [count]",
    "matched_by_op": "kernel rows matched through operator + shapes [count]",
    "matched_by_variant": "kernel rows matched by their key with numbers read as '#' [count]",
    "matched_by_category": "kernel rows matched by work category (kernels left unmatched by name and operator) [count]",
    "gross_delta_ns": "Σ|delta| over the kernel rows: the gross change the kernel rows' and contributors' parts "
                      "divide [ns]",
    "gross_delta_ns_by_table": "Σ|delta| over each table's rows ({table: ns}): the gross change that table's "
                               "\"of Δ\" divides — tables net rises and falls differently, so a row's part differs "
                               "between them [ns]",
    "new_kernels": "kernel rows only in the candidate [count]",
    "vanished_kernels": "kernel rows only in the base [count]",
    "cross_vendor": "the two runs ran on different GPU models [bool]",
    "base_ranks": "distinct ranks of the base run [count]",
    "cand_ranks": "distinct ranks of the candidate run [count]",
    "ranks_differ": "the ranks of each run ({\"base\": [...], \"candidate\": [...]}) when they differ (the warning "
                    "says so), else null [ranks]",
    "one_run_ranks_delta_ns": "the part of delta from ranks only one run has (0 when both have the same ranks) [ns]",
    "base_span_ns": "base run GPU span, first → last GPU event (wall span over several GPUs), as `gpulens "
                    "analyze` reports it; null when unknown [ns]",
    "cand_span_ns": "candidate run GPU span (same definition) [ns]",
    "span_delta_ns": "candidate − base GPU span: the change a user waits for, idle gaps included [ns]",
    "span_delta_pct": "span delta / base span × 100 [%]",
    "base_busy_pct": "union of the base run's GPU events / its GPU span × 100 (analyze's GPU busy %) [%]",
    "cand_busy_pct": "the same for the candidate run [%]",
    "base_vendors": "GPU vendors of the base run (AMD, NVIDIA, …) [text]",
    "cand_vendors": "GPU vendors of the candidate run [text]",
}


def vendors_of(devices: list[str]) -> list[str]:
    """The GPU vendors of device names (``AMD Instinct MI300X`` → AMD, ``NVIDIA H100`` / ``Tesla V100`` → NVIDIA),
    sorted; a name without a known vendor word is left out."""
    import re

    out = set()
    for d in devices:
        if re.search(r"\b(AMD|Instinct|Radeon)\b|gfx[0-9]", d, re.IGNORECASE):
            out.add("AMD")
        elif re.search(r"\b(NVIDIA|Tesla|GeForce|Quadro|RTX|GTX)\b|^(A|H|B|L)[0-9]{2,3}\b", d, re.IGNORECASE):
            out.add("NVIDIA")
        elif re.search(r"\bIntel\b", d, re.IGNORECASE):
            out.add("Intel")
    return sorted(out)


@dataclass
class DiffSide:
    """One side of a diff: a label, its kernel-group table and what it ran on.

    Attributes:
        label: the path as given.
        groups: kernel_groups table (columns of :data:`gpulens.analyzers.kernel_groups.COLUMNS`; count and
            time_ns may be fractional when a report's several sources were averaged).
        devices: GPU model names recorded.
        note: how the side was read (``"trace"``, ``"report"``, ``"report (hotspots only)"``).
        warnings: what the reader noticed that the comparison must say (a truncated input, no GPU work).
        times_unknown: the recording has no kernel durations (e.g. rocprof-compute timestamps lost, an ncu CSV
            without a duration metric: :func:`gpulens.analyzers._span.durations_unknown`); its time columns are
            unknown, never 0 ns.
        span_ns: the run's GPU span as ``gpulens analyze`` defines it (breakdown ``span_ns``: first → last GPU
            event; the wall span over several GPUs), the mean over a report's repeats [ns]; None when unknown.
        busy_pct: union of GPU events / GPU span × 100 (breakdown ``busy_pct``), span-weighted over repeats [%];
            None when unknown.
        analysed_as: the device specs the side was analysed as, where the recorded names do not say them (the
            report's ``device_spec``; the trace's resolved spec).
        assumed: those of ``analysed_as`` that were assumed, the input naming no GPU (a report's
            ``device_spec_assumed``; the spec's note): the header says "analysed as an assumed X", as ``analyze`` does.
        runs: how many runs (a report's sources: repeats) the side's figures are the mean of — counts and times
            per run; 1 for one run (whole counts).
        steps: the distinct numbers of ``ProfilerStep#N`` steps its runs profiled (``[]``: no steps recorded).
    """

    label: str
    groups: pd.DataFrame
    devices: list[str] = field(default_factory=list)
    note: str = "trace"
    warnings: list[str] = field(default_factory=list)
    times_unknown: bool = False
    span_ns: float | None = None
    busy_pct: float | None = None
    runs: int = 1
    analysed_as: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)

    def device_label(self) -> str:
        """The GPUs as the header names them, by the rule of ``gpulens analyze``'s device row: the recorded names,
        then the spec they were analysed as where a name does not say it ("AMD Radeon Graphics, analysed as AMD
        Instinct MI300X"); "GPU not recorded" when neither is known."""
        names = ", ".join(self.devices)
        specs = [f"an assumed {n}" if n in self.assumed else n for n in self.analysed_as]
        spec = f"analysed as {', '.join(specs)}" if specs else ""
        return ", ".join(x for x in (names, spec) if x) or "GPU not recorded"


@dataclass
class DiffResult:
    """The comparison: tables (name → DataFrame), their column docs, a summary and warnings."""

    base: DiffSide
    cand: DiffSide
    tables: dict[str, pd.DataFrame]
    columns: dict[str, dict[str, str]]
    summary: dict[str, Any]
    warnings: list[str] = field(default_factory=list)


def _sides(b: pd.DataFrame, c: pd.DataFrame, by: list[str], btot: float, ctot: float) -> pd.DataFrame:
    """Outer-join base and candidate sums by ``by`` and add the per-side and delta columns."""
    def agg(df: pd.DataFrame, p: str) -> pd.DataFrame:
        if not len(df):
            return pd.DataFrame(columns=[*by, f"{p}_count", f"{p}_time_ns"]).set_index(by)
        g = df.groupby(by, sort=False, dropna=False)
        # a group holding a launch without a duration (time NaN, analyzers._unknown_time) has an unknown time
        unknown = df["time_ns"].isna().groupby([df[k] for k in by], sort=False, dropna=False).any()
        return pd.DataFrame({f"{p}_count": g["count"].sum(), f"{p}_time_ns": g["time_ns"].sum().mask(unknown)})

    t = agg(b, "base").join(agg(c, "cand"), how="outer")
    for p in ("base", "cand"):  # a row only the other run has: none of it here (0), never unknown
        absent = t[f"{p}_count"].isna()
        t[f"{p}_count"] = t[f"{p}_count"].fillna(0)
        t[f"{p}_time_ns"] = t[f"{p}_time_ns"].astype(float).mask(absent, 0.0)
    t = t.reset_index()
    for p, tot in (("base", btot), ("cand", ctot)):
        t[f"{p}_count"] = t[f"{p}_count"].astype(float)
        t[f"{p}_time_ns"] = t[f"{p}_time_ns"].astype(float)
        cnt = t[f"{p}_count"].where(t[f"{p}_count"] > 0)
        t[f"{p}_mean_ns"] = t[f"{p}_time_ns"] / cnt
        t[f"{p}_share"] = t[f"{p}_time_ns"] / tot if tot else 0.0
    t["delta_ns"] = t["cand_time_ns"] - t["base_time_ns"]
    t["delta_pct"] = 100 * t["delta_ns"] / t["base_time_ns"].where(t["base_time_ns"] > 0)
    gross = float(t["delta_ns"].abs().sum())
    t["contribution"] = t["delta_ns"] / gross if gross else np.nan  # no change at all: no part of it to show
    order = t["delta_ns"].abs().to_numpy()
    return t.iloc[np.lexsort((t[by[0]].astype(str).to_numpy(), -order))].reset_index(drop=True)


def short_shapes(shapes: str) -> str:
    """Shapes text without trailing empty (scalar) arguments: ``[[512],[141,512],[],[]]`` → ``[[512],[141,512]]``."""
    s = str(shapes)
    while s.endswith(",[]]"):
        s = s[:-4] + "]"
    return s


#: Event kinds matched with one another through an operator: compute work (kernels, collective kernels), else only
#: the same kind (a memset with memsets).
_WORK_KIND = {"kernel": "", "comm": ""}


def _work_kind(kind: pd.Series) -> pd.Series:
    """'' for kernels and collectives, else the kind (``memset``, ``memcpy``…): the kind part of an op signature."""
    k = kind.astype(str)
    return k.map(lambda x: _WORK_KIND.get(x, x))


def _op_kind(df: pd.DataFrame) -> pd.Series:
    """The kind part of an op signature (:func:`_work_kind`), a copy's with its direction: the same op and shapes
    copying device → host in one run and device → device in the other are two different pieces of work."""
    wk = _work_kind(df["kind"])
    copy = (wk == "memcpy").to_numpy()
    if copy.any():
        wk = wk.copy()
        d = df.loc[copy, "name"].astype(str).map(copy_direction)
        wk[copy] = (wk[copy] + " " + d).str.strip()
    return wk


_DIGITS = re.compile(r"[0-9]+")


def variant_key(key: str) -> str:
    """A kernel key with each run of digits read as ``#`` (the variant match)."""
    return _DIGITS.sub("#", key)


def class_row(category: str, work_kind: str = "") -> str:
    """The row label of the events of ``category`` matched by work category: ``"unmatched GEMM kernels (by
    category)"`` for kernels (and collectives), ``"unmatched copy memsets (by category)"`` for another event kind (a
    memset is never counted as a kernel); a copy's row names its direction (``work_kind`` "memcpy DtoH", from
    :func:`_op_kind`): ``"unmatched copy memcpys (DtoH) (by category)"`` — a device-to-host copy is other work than a
    device-to-device one, never one row "DtoH | HtoD → DtoD". "unmatched": the row holds only the events no name,
    operator or variant matched — the categories table's row of the same category holds them all."""
    kind, _, direction = work_kind.partition(" ")
    return (f"unmatched {category} {kind + 's' if kind else 'kernels'}" + (f" ({direction})" if direction else "")
            + " (by category)")


def _label_rows(b: pd.DataFrame, c: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, int]]:
    """Give every group a ``row`` label and ``match`` kind (see module docstring)."""
    b, c = b.copy(), c.copy()
    common = set(b["key"]) & set(c["key"])
    sig = lambda df: (df["op"].astype(str) + " " + df["shapes"].astype(str) + " " + df["dtypes"].astype(str) + " "
                      + _op_kind(df))
    for df in (b, c):
        df["row"] = df["key"].astype(str)
        df["match"] = np.where(df["key"].isin(common), "name", "")
        df["sig"] = sig(df)
    ob, oc = b["match"] == "", c["match"] == ""
    both = set(b.loc[ob & (b["op"] != ""), "sig"]) & set(c.loc[oc & (c["op"] != ""), "sig"])
    for df, orphan in ((b, ob), (c, oc)):
        by_op = orphan & df["sig"].isin(both)
        df.loc[by_op, "match"] = "op+shapes"
        wk = _op_kind(df.loc[by_op])
        df.loc[by_op, "row"] = (df.loc[by_op, "op"].astype(str) + " "
                                + df.loc[by_op, "shapes"].astype(str).map(short_shapes) + " " + wk).str.strip()
    # by variant: the key with its numbers read as '#' (other template values, tile sizes)
    ob, oc = b["match"] == "", c["match"] == ""
    for df in (b, c):
        df["variant"] = df["key"].astype(str).map(variant_key)
    variants = set(b.loc[ob, "variant"]) & set(c.loc[oc, "variant"])
    for df, orphan in ((b, ob), (c, oc)):
        by_variant = orphan & df["variant"].isin(variants)
        df.loc[by_variant, "match"] = "variant"
        df.loc[by_variant, "row"] = df.loc[by_variant, "variant"]
    # by category: the events still unmatched, by work category (never 'other': it says nothing of what they are)
    ob, oc = b["match"] == "", c["match"] == ""
    # and by event kind: kernels with kernels, memsets with memsets
    for df in (b, c):
        df["cls"] = [class_row(cat, wk) if cat not in ("other", "") else "" for cat, wk in
                     zip(df["category"].astype(str), _op_kind(df))]
    classes = (set(b.loc[ob, "cls"]) & set(c.loc[oc, "cls"])) - {""}
    classes |= _undirected_copies(b, c, ob, oc, classes)
    for df, orphan, rest in ((b, ob, "vanished"), (c, oc, "new")):
        by_class = orphan & df["cls"].isin(classes)
        df.loc[by_class, "match"] = "category"
        df.loc[by_class, "row"] = df.loc[by_class, "cls"]
        df.loc[orphan & ~by_class, "match"] = rest
    counts = {"name": len(common), "op+shapes": len(both), "variant": len(variants), "category": len(classes)}
    return b, c, counts


def _undirected_copies(b: pd.DataFrame, c: pd.DataFrame, ob: pd.Series, oc: pd.Series, classes: set[str]) -> set[str]:
    """Rows of copies still unmatched whose direction one side's names do not say (a HIP blit kernel,
    ``__amd_rocclr_copyBuffer``, on ROCm 7; ``Memcpy DtoD`` on ROCm 6: case T05) relabelled, on both sides, as the
    category's copies of any direction (``"unmatched copy memcpys (by category)"``); the labels so matched. Copies whose
    directions both sides name and differ (DtoH vs DtoD) stay apart."""
    lab: list[pd.Series] = []
    for df, orphan in ((b, ob), (c, oc)):
        wk = _op_kind(df)
        left = orphan & ~df["cls"].isin(classes) & (df["cls"] != "") & wk.str.startswith("memcpy").to_numpy()
        lab.append(pd.Series([class_row(cat, "memcpy") for cat in df.loc[left, "category"].astype(str)],
                             index=df.index[left], dtype=object))
        lab.append(lab[-1][(wk[left] == "memcpy").to_numpy()])  # the labels of copies whose direction is unknown
    matched = (set(lab[0]) & set(lab[2])) & (set(lab[1]) | set(lab[3]))
    for df, rows in ((b, lab[0]), (c, lab[2])):
        hit = rows[rows.isin(matched)]
        df.loc[hit.index, "cls"] = hit
    return matched


def _name_rows_of_transfers(b: pd.DataFrame, c: pd.DataFrame) -> int:
    """Rows matched by name (``b`` / ``c``: the labelled groups of :func:`_label_rows`) whose work is a copy or a
    memset, not a kernel or collective [count]."""
    rows = pd.concat([df.loc[df["match"] == "name", ["row", "kind"]] for df in (b, c)])
    if not len(rows):
        return 0
    return int(rows.loc[(_work_kind(rows["kind"]) != "").to_numpy(), "row"].nunique())


def _run_keys(k: pd.DataFrame) -> tuple[set[str], set[str]]:
    """The kernel keys of each run (base, candidate) in the kernels table ``k`` (its ``base_kernels`` /
    ``cand_kernels`` cells: keys joined by ``" | "``)."""
    return tuple({x for keys in k[c].astype(str) for x in keys.split(" | ") if x}  # type: ignore[return-value]
                 for c in ("base_kernels", "cand_kernels"))


def compare(base: DiffSide, cand: DiffSide, top: int = 10) -> DiffResult:
    """Compare two runs (see the module docstring); ``top`` contributors are listed before an 'all other' row."""
    b, c = base.groups, cand.groups
    # a launch without a duration on a side makes its summed time unknown (NaN), never the sum of the others
    btot = float(b["time_ns"].sum(skipna=False)) if len(b) else 0.0
    ctot = float(c["time_ns"].sum(skipna=False)) if len(c) else 0.0
    total = ctot - btot
    b, c, counts = _label_rows(b, c)
    for df in (b, c):  # a copy's category with its direction, in the kernels and categories tables alike
        df["category"] = category_label(df)
    tables: dict[str, pd.DataFrame] = {}
    k = _sides(b, c, ["row", "match"], btot, ctot)
    # each row's kernel keys, the most time first (a class row may gather many: the names that matter lead)
    names = lambda df: df.sort_values("time_ns", ascending=False, kind="stable").groupby("row", sort=False)[
        "key"].agg(lambda s: " | ".join(dict.fromkeys(map(str, s))))
    cats = pd.concat([b, c]).groupby("row", sort=False)["category"].agg(
        lambda s: s.value_counts().index[0]) if len(b) + len(c) else pd.Series(dtype=object)
    k["category"] = k["row"].map(cats)
    k["base_kernels"] = k["row"].map(names(b)).fillna("") if len(b) else ""
    k["cand_kernels"] = k["row"].map(names(c)).fillna("") if len(c) else ""
    # short names that tell kernels apart (cutlass::Kernel2<cutlass_80_…_128x2…> reads by its real kernel, never
    # "Kernel2"): one naming over every kernel of both runs, so a label means the same kernel on either side
    every = sorted({x for keys in list(k["base_kernels"]) + list(k["cand_kernels"]) for x in keys.split(" | ") if x})
    # a "(2)" tells apart two kernels of one run only, never one kernel per run (_names._label_table)
    short = dict(zip(every, short_names(every, runs=_run_keys(k))))
    def shorten(keys: str, most: int = 4) -> str:
        labels = list(dict.fromkeys(short[x] for x in keys.split(" | ") if x))
        return " | ".join(labels[:most]) + (f" (+{len(labels) - most} more)" if len(labels) > most else "")

    def pair(bk: str, ck: str) -> str:
        sb, sc = shorten(bk), shorten(ck)
        if sb and bk == ck:  # matched by name: the same kernel(s) on both sides
            return f"{sb} (both runs)"
        return f"{sb or '(none)'} → {sc or '(none)'}"

    k["kernels"] = [pair(bk, ck) for bk, ck in zip(k["base_kernels"], k["cand_kernels"])]
    tables["kernels"] = k.rename(columns={"row": "kernel"})[list(KERNEL_COLUMNS)]
    for df in (b, c):
        df["op"] = df["op"].where(df["op"].astype(str) != "", "(no op)")
        # an op's memsets/memcpys are their own row: 96 aten::mm calls with a cuBLAS workspace memset each are 96
        # GEMM launches and 96 memsets, never "192 calls" against the other run's 96
        wk = _work_kind(df["kind"])
        df["op_row"] = df["op"].astype(str) + np.where(wk != "", " (" + wk + ")", "")
    tables["operators"] = _sides(b, c, ["op_row"], btot, ctot).rename(columns={"op_row": "op"})[
        list(OPERATOR_COLUMNS)]
    tables["categories"] = _sides(b, c, ["category"], btot, ctot)[list(CATEGORY_COLUMNS)]
    tables["ranks"] = _sides(b, c, ["rank"], btot, ctot)[list(RANK_COLUMNS)]
    tables["ranks"] = tables["ranks"].sort_values("rank", kind="stable").reset_index(drop=True)
    gross = float(tables["kernels"]["delta_ns"].abs().sum())
    tables["contributors"] = contributors(tables["kernels"], gross, top)
    m = tables["kernels"]["match"]
    cross = bool(base.devices and cand.devices and set(base.devices) != set(cand.devices))
    vendors = (vendors_of(base.devices), vendors_of(cand.devices))
    known = lambda v: None if v != v else v  # noqa: E731 (NaN: unknown, None in every output)
    summary = {"base_time_ns": known(btot), "cand_time_ns": known(ctot), "delta_ns": known(total),
               "delta_pct": known(100 * total / btot) if btot else None,
               "matched_by_name": int((m == "name").sum()),
               # of them copies and memsets: the workload sentence counts kernel names only ("2 of 8 kernel names in
               # common" beside "3 matched by name", a Memset the third — H200 eager vs compiled)
               "matched_by_name_transfers": _name_rows_of_transfers(b, c), "matched_by_op": int((m == "op+shapes").sum()),
               "matched_by_variant": int((m == "variant").sum()),
               "matched_by_category": int((m == "category").sum()), "gross_delta_ns": gross,
               "gross_delta_ns_by_table": {n: float(tables[n]["delta_ns"].abs().sum())
                                           for n in ("kernels", "operators", "categories", "ranks")},
               "new_kernels": int((m == "new").sum()), "vanished_kernels": int((m == "vanished").sum()),
               "cross_vendor": cross, "base_vendors": vendors[0], "cand_vendors": vendors[1],
               **_span_summary(base, cand)}
    warnings = base.warnings + cand.warnings + _rank_check(tables["ranks"], summary) + _graph_check(base, cand, summary)
    # kernel names tell workloads apart within one vendor's libraries (another vendor's are all other names)
    summary["workload"] = None if vendors[0] != vendors[1] else kernel_overlap(*(
        side.groups[side.groups["kind"].astype(str) == "kernel"].groupby("key")["time_ns"].sum().to_dict()
        if len(side.groups) else {} for side in (base, cand)))
    if summary["workload"] is not None and not summary["workload"]["same_workload"]:
        warnings.insert(0, workload_text(summary["workload"], "base", "candidate"))  # first: it explains the rest
    steps = steps_differ({"steps": base.steps}, {"steps": cand.steps}, "base", "summed GPU time, kernel times, calls")
    if steps:  # every Δ below is then mostly the amount profiled: said first
        warnings.insert(0, steps)
    if cross:
        vb, vc = ", ".join(vendors[0]) or "unknown vendor", ", ".join(vendors[1]) or "unknown vendor"
        warnings.append(f"the runs are on different GPUs (base: {', '.join(base.devices)}; candidate: "
                        f"{', '.join(cand.devices)})"
                        + (f", from different vendors ({vb} vs {vc}): their kernels differ, so kernels are matched "
                           "through the launching operator and its input shapes where they can be, else by work "
                           "category (GEMM, attention, elementwise, …)"
                           if vendors[0] != vendors[1] else "")
                        + ": the differences measure the hardware as well as the code")
    warnings += [] if cross else assumed_gpu_differs(base, cand)
    if cross and not counts["op+shapes"] and (b["op"] == "(no op)").all():
        warnings.append("the runs are on different GPUs and the base records no framework ops: kernels could be "
                        "matched by name and work category only")
    cols = {"kernels": KERNEL_COLUMNS, "operators": OPERATOR_COLUMNS, "categories": CATEGORY_COLUMNS,
            "ranks": RANK_COLUMNS, "contributors": CONTRIBUTOR_COLUMNS}
    for p, side in (("base", base), ("cand", cand)):  # a side averaged over repeats: its counts and times per run
        if side.runs > 1:
            cols = {n: {c: (d.replace(" [", f" — per run, the mean of {side.runs} runs [", 1)
                            if c in (f"{p}_count", f"{p}_time_ns") else d) for c, d in cs.items()}
                    for n, cs in cols.items()}
    unknown = [p for p, side in (("base", base), ("cand", cand)) if side.times_unknown]
    if unknown:
        _times_unknown(tables, summary, unknown)
        for p, side in (("base", base), ("cand", cand)):
            if side.times_unknown:
                warnings.append(f"{side.label}: the recording has no kernel durations, so its GPU times are unknown "
                                "and no time difference can be computed; only call counts are compared")
    return DiffResult(base, cand, tables, cols, summary, warnings)


def _span_summary(base: DiffSide, cand: DiffSide) -> dict[str, Any]:
    """Span and busy % of each side and the span's change (None where a side's span is unknown or 0)."""
    bs, cs = base.span_ns, cand.span_ns
    both = bs is not None and cs is not None
    return {"base_span_ns": bs, "cand_span_ns": cs, "span_delta_ns": cs - bs if both else None,
            "span_delta_pct": 100 * (cs - bs) / bs if both and bs > 0 else None,
            "base_busy_pct": base.busy_pct, "cand_busy_pct": cand.busy_pct,
            "base_runs": int(base.runs), "cand_runs": int(cand.runs)}


def _times_unknown(tables: dict[str, pd.DataFrame], summary: dict[str, Any], sides: list[str]) -> None:
    """Blank every figure that rests on the times of ``sides`` ("base"/"cand"): their time, mean and share, every Δ
    and part of Δ (NaN: "unknown" in every output), and the contributors (a ranking of unknown changes)."""
    for name, t in tables.items():
        if name == "contributors":
            tables[name] = t.iloc[0:0]
            continue
        for p in sides:
            for c in (f"{p}_time_ns", f"{p}_mean_ns", f"{p}_share"):
                if c in t:
                    t[c] = np.nan
        for c in ("delta_ns", "delta_pct", "contribution"):
            if c in t:
                t[c] = np.nan
    for p in sides:
        summary[f"{p}_time_ns"] = None
    summary.update(delta_ns=None, delta_pct=None, gross_delta_ns=None, gross_delta_ns_by_table=None,
                   times_unknown=sides)


def _graph_check(base: DiffSide, cand: DiffSide, summary: dict[str, Any]) -> list[str]:
    """A warning when one run traced CUDA graphs at graph level (nsys ``--cuda-graph-trace=graph``: a replay is one
    record, ``CUDA graph 5``, :func:`gpulens.timeline.names.is_graph_replay`) and the other did not: a replay's time
    is one row on one side and its kernels' rows on the other, so the per-kernel rows are not like for like (they
    read as a vanished "CUDA graph 5" and new kernels). ``summary["graph_capture_differs"]``: the side that did."""
    from gpulens.timeline.names import graph_capture_text, is_graph_replay

    def graphs(side: DiffSide) -> list[str]:
        g = side.groups
        return sorted({n for n in g["name"].astype(str) if is_graph_replay(n)}) if len(g) and "name" in g else []

    b, c = graphs(base), graphs(cand)
    summary["graph_capture_differs"] = None if bool(b) == bool(c) else ("base" if b else "candidate")
    if bool(b) == bool(c):
        return []
    side, other = ("base", "candidate") if b else ("candidate", "base")
    return [f"{graph_capture_text(side, other, b or c)}: the runs are not like for like — a replay's time is one "
            "row on one side and its kernels' rows on the other, so kernel rows read as vanished and new (trace "
            "both with the same nsys --cuda-graph-trace)"]


def _rank_check(ranks: pd.DataFrame, summary: dict[str, Any]) -> list[str]:
    """Rank counts into ``summary``, and a warning when the runs hold different ranks: GPU time is summed over each
    run's ranks, so a rank traced in one run only reads as a saving or a slowdown of every kernel it ran."""
    def fmt(ids: list) -> str:
        return f"{len(ids)} rank{'s' if len(ids) != 1 else ''} ({', '.join(map(str, ids[:8]))}{', …' if len(ids) > 8 else ''})"

    rb = sorted(ranks.loc[ranks["base_count"] > 0, "rank"].tolist())
    rc = sorted(ranks.loc[ranks["cand_count"] > 0, "rank"].tolist())
    one = ranks[(ranks["base_count"] > 0) != (ranks["cand_count"] > 0)]
    single = len(rb) == 1 == len(rc)  # one rank each (rank 0 of one file against rank 1 of another): compared whole
    summary.update(base_ranks=len(rb), cand_ranks=len(rc),
                   one_run_ranks_delta_ns=0.0 if single else float(one["delta_ns"].sum()))
    differ = not (rb == rc or not rb or not rc or single)
    summary["ranks_differ"] = {"base": [int(x) for x in rb], "candidate": [int(x) for x in rc]} if differ else None
    if single and rb != rc:  # rank 0 of one file against rank 1 of another: said, as the README promises
        return [f"the runs hold different ranks (base: rank {rb[0]}; candidate: rank {rc[0]}), one each: they are "
                "compared as one run each; the per-rank table lists each rank apart (−100 % / unknown there is the "
                "rank missing from the other run)"]
    if not differ:
        return []
    from gpulens.units import fmt_ns

    d = summary["one_run_ranks_delta_ns"]
    return [f"the runs hold different ranks (base: {fmt(rb)}; candidate: {fmt(rc)}): GPU time is summed over each "
            f"run's ranks, so {'+' if d > 0 else ''}{fmt_ns(d)} of the difference is ranks only one run has; compare "
            "the per-rank table, or runs of the same ranks"]


def contributors(kernels: pd.DataFrame, gross: float, top: int) -> pd.DataFrame:
    """The ``top`` kernel rows by |Δ|, then one 'all other rows (N)' row, so the ``delta_ns`` column sums exactly to
    the total Δ; ``contribution`` is Δ / ``gross`` (Σ|Δ| of the kernel rows)."""
    if not len(kernels):
        return pd.DataFrame(columns=list(CONTRIBUTOR_COLUMNS))
    k = kernels[["kernel", "match", "kernels", "delta_ns"]].copy()
    k = k.iloc[np.argsort(-np.abs(k["delta_ns"].to_numpy()), kind="stable")]
    head = k.head(top)
    rest = k.iloc[top:]
    if len(rest):
        head = pd.concat([head, pd.DataFrame({"kernel": [f"all other rows ({len(rest)})"], "match": [""], "kernels": [""],
                                              "delta_ns": [float(rest["delta_ns"].sum())]})], ignore_index=True)
    head = head.reset_index(drop=True)
    head["contribution"] = head["delta_ns"] / gross if gross else np.nan  # no change (or none known): no part
    head["cumulative_delta_ns"] = head["delta_ns"].cumsum()
    return head[list(CONTRIBUTOR_COLUMNS)]
