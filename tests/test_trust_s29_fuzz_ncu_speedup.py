"""s29 fuzzing: an ncu rule's ``Estimated Speedup`` of ±1e308 (or any value outside 0–100 %) crashed ``analyze``
(OverflowError in the ncu_rules time at stake, exit 70). ncu's estimated speedup is the share of the kernel's time
a fix could save, a percentage of a whole: values outside [0, 100] are now unknown, counted in a warning."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from gpulens.cli import main

SRC = Path(__file__).parents[2] / "shared" / "traces" / "ncu" / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"


def _mutate(dst: Path, value: str) -> int:
    """SRC with every non-empty Estimated Speedup set to ``value``; returns how many were set."""
    lines = SRC.read_text().splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if line.lstrip("\ufeff").startswith('"'))
    rows = list(csv.reader(io.StringIO("".join(lines[k:]))))
    ci, n = rows[0].index("Estimated Speedup"), 0
    for r in rows[1:]:
        if len(r) > ci and r[ci].strip():
            r[ci], n = value, n + 1
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    dst.write_text("".join(lines[:k]) + out.getvalue())
    return n


@pytest.mark.parametrize("value", ["-1e+308", "1e+308", "-5", "250"])
def test_speedup_outside_a_percentage_is_unknown(tmp_path, value):
    if not SRC.exists():
        pytest.skip("../shared/traces absent")
    p, out = tmp_path / "k_details.csv", tmp_path / "r.json"
    n = _mutate(p, value)
    assert n > 0
    try:
        code = main(["analyze", str(p), "-q", "--no-cache", "--json", str(out)])
    except SystemExit as e:
        code = e.code
    assert code == 0
    src = json.loads(out.read_text())["sources"][0]
    assert [w for w in src["warnings"] if f"{n:,} rule estimated speedup{'s' if n != 1 else ''} outside 0–100 %" in w]
    rows = (src["analyses"].get("ncu_rules") or {}).get("table") or []
    assert all(r.get("time_at_stake_ns") is None or r["time_at_stake_ns"] >= 0 for r in rows)
