"""One threshold per figure for "bound". The roofline names a roof from 50 % of the attainable roof
(``verdict_rules.ROOF_BOUND_PCT``: a FLOP/byte model's placement), the measured speed of light a unit from 60 % of its
peak (Nsight Compute's SOLBottleneck rule: "Achieved compute throughput and/or memory bandwidth below 60.0% of peak
typically indicate latency issues"). Two figures, two thresholds: the speed-of-light analyzer's own latency line is
now the one SOL constant the verdicts use (it was a second 60.0 literal), and the roofline's "bound at % of peak"
column says both thresholds in its label, so a row "below-roofs | measured speed of light | 53.5 %" does not read as
crossing the roofline's 50 % line.
"""

from __future__ import annotations

from gpulens.analyzers import _stake, speed_of_light, verdict_rules
from gpulens.reports._format import column_label


def test_one_speed_of_light_threshold():
    assert speed_of_light.LATENCY_BELOW_PCT is _stake.SOL_BOUND_PCT
    assert _stake.SOL_BOUND_PCT == 60.0  # ncu's rule text: "below 60.0% of peak"


def test_bound_pct_label_names_both_thresholds():
    from gpulens.analyzers.roofline import COLUMNS

    label = column_label("bound_pct", COLUMNS["bound_pct"])
    assert label.startswith("bound's % of peak (") and label.endswith(
        f"bound from ≥ {verdict_rules.ROOF_BOUND_PCT:g} % of roofline, ≥ {_stake.SOL_BOUND_PCT:g} % SOL)")
    assert "50 % of roof" in label and "60 % SOL" in label
