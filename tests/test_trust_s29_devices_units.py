"""`gpulens devices NAME` prints each spec figure in its own unit: a memory clock stored in MHz had been divided by
1e12 and printed as '2.619e-09 TFLOP/s'. Expected from the spec's own stored figures: clocks print the stored MHz,
the int8 matrix peak in TOP/s (integer operations, not FLOP), bandwidth bytes/s / 1e9 in GB/s."""
from __future__ import annotations

import re

from typer.testing import CliRunner

from gpulens.cli import app
from gpulens.devices import SPECS


def test_devices_prints_clocks_in_mhz_and_int8_in_tops():
    spec = next(s for s in SPECS if s.figures.get("memory_clock_mhz") and s.figures.get("matrix.int8"))
    out = CliRunner().invoke(app, ["devices", spec.name], env={"COLUMNS": "250"}).output
    rows = {m.group(1): m.group(2).strip() for m in re.finditer(r"│\s*([\w.]+)\s*│\s*([^│]+)│", out)}
    assert rows["memory_clock_mhz"] == f"{spec.figures['memory_clock_mhz'].value:g} MHz"
    assert rows["matrix.int8"] == f"{spec.figures['matrix.int8'].value / 1e12:g} TOP/s"
    assert rows["memory_bandwidth"] == f"{spec.figures['memory_bandwidth'].value / 1e9:g} GB/s"
    assert "TFLOP/s" not in rows["memory_clock_mhz"]
