"""``nsys stats --report cuda_kern_exec_sum`` read as the kernel summary it holds.

The report ("CUDA Kernel Launch & Exec Time Summary") has one row per (process, thread, device, launch API, kernel):
``PID, TID, DevId, Count, QCount, TAvg…TStdDev, AAvg…AStdDev, QAvg…QStdDev, KAvg (ns), KMed (ns), KMin (ns),
KMax (ns), KStdDev (ns), API Name, Kernel Name`` (T: launch call to kernel end, A: the API call, Q: queue wait, K: the
kernel's execution; times in the unit of ``--timeunit``, ns by default — NVIDIA Nsight Systems User Guide, "Report
Scripts"). Its K columns are what ``cuda_gpu_kern_sum`` gives per kernel: :func:`exec_sum_as_kern_sum` folds the rows
of each kernel name into one row of that report's CSV form (Instances = Σ Count, Total Time = Σ KAvg × Count, Min/Max
over the rows, Avg = Total / Instances; Med and StdDev only where the kernel has one row — a median or deviation of
merged rows is unknown), which :mod:`.nsys_stats` then reads as it reads ``cuda_gpu_kern_sum``.
"""

from __future__ import annotations

import csv
import io
import re

_HEAD = re.compile(r"^\s*(K(?:Avg|Med|Min|Max|StdDev))\s*(\([^()]*\))?\s*$", re.IGNORECASE)
#: the words every summary read from this report carries (its warning), so a reader can tell it from kern_sum
WHAT = ("read from nsys' cuda_kern_exec_sum: each kernel's execution times (its K columns; the API and queue times "
        "are not used), folded over its process/thread/API rows")


def exec_sum_as_kern_sum(lines: list[str]) -> tuple[list[str], int] | None:
    """The ``cuda_gpu_kern_sum`` CSV lines equivalent to the first ``cuda_kern_exec_sum`` table in ``lines`` and the
    number of its rows folded, or None when there is none (no header with ``Count``, ``KAvg`` and ``Kernel Name``).
    Rows whose Count or KAvg is no number are left out (they would be unknown kernel time)."""
    for h, ln in enumerate(lines):
        if "KAvg" not in ln or "Kernel Name" not in ln:
            continue
        head = [c.strip() for c in next(csv.reader([ln]))]
        col = {}
        unit = "(ns)"
        for i, c in enumerate(head):
            m = _HEAD.match(c)
            if m:
                col[m.group(1).lower()] = i
                unit = m.group(2) or unit
            elif c in ("Count", "Kernel Name"):
                col[c] = i
        if not {"kavg", "Count", "Kernel Name"} <= col.keys():
            continue
        body = []
        for r in csv.reader(io.StringIO("\n".join(lines[h + 1:]), newline="")):
            if not r or not any(x.strip() for x in r):
                break
            if len(r) > len(head):  # an unquoted name with commas in the last column
                r = r[:len(head) - 1] + [",".join(r[len(head) - 1:])]
            body.append(r)
        return _fold(body, col, unit), len(body)
    return None


def _num(r: list[str], i: int | None) -> float | None:
    if i is None or i >= len(r):
        return None
    try:
        return float(r[i].replace(",", "")) if r[i].strip() else None
    except ValueError:
        return None


def _fold(rows: list[list[str]], col: dict, unit: str) -> list[str]:
    """One cuda_gpu_kern_sum row per kernel name (see the module docstring)."""
    per: dict[str, list] = {}
    for r in rows:
        n, avg = _num(r, col["Count"]), _num(r, col["kavg"])
        if n is None or avg is None or n < 0 or col["Kernel Name"] >= len(r):
            continue
        per.setdefault(r[col["Kernel Name"]], []).append((n, avg, _num(r, col.get("kmin")), _num(r, col.get("kmax")),
                                                          _num(r, col.get("kmed")), _num(r, col.get("kstddev"))))
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([f"Total Time {unit}", "Instances", f"Avg {unit}", f"Med {unit}", f"Min {unit}", f"Max {unit}",
                f"StdDev {unit}", "Name"])
    for name, got in per.items():
        calls = sum(g[0] for g in got)
        total = sum(g[0] * g[1] for g in got)
        mins, maxs = [g[2] for g in got if g[2] is not None], [g[3] for g in got if g[3] is not None]
        one = got[0] if len(got) == 1 else None
        w.writerow([repr(total), int(calls), repr(total / calls) if calls else "", "" if one is None or one[4] is None
                    else repr(one[4]), repr(min(mins)) if mins else "", repr(max(maxs)) if maxs else "",
                    "" if one is None or one[5] is None else repr(one[5]), name])
    return out.getvalue().splitlines()
