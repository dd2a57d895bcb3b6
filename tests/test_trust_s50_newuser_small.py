"""Small findings of a new user's README-only trial (session 50):

* README's "how many repeats" matches the gate's own power rule (gpulens.gate.stats.baseline_limits: a one-sided
  Welch test at α = 0.01 detecting a 5 % change with 95 % power from the baseline's runs) — the trial's baseline of
  5 runs at 4.3 % noise was told "5 runs are too few to detect a 5.0 % change" after README said "≥ 5 repeats";
* ``gpulens devices "H100 SXM"``: figures sourced from a web copy of the datasheet (WEB-…, "lower confidence" in the
  legend) now say so in the "uncertain" column;
* the CPU operators' "nested calls" column counts calls inside a call of the same name: its header says that.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from scipy.stats import nct
from scipy.stats import t as student_t

from gpulens.gate.stats import TimingTest, baseline_limits
from gpulens.reports._format import column_label
from tests.test_cli import run

ROOT = Path(__file__).resolve().parents[1]


def _limits(n: int, noise: float) -> bool:
    test = TimingTest(ratio=1.0, ci_low=0.9, ci_high=1.1, eq_low=0.95, eq_high=1.05, p_worse=0.5, p_better=0.5,
                      sd_log=math.log1p(noise), n_base=n, n_cand=n, threshold=0.05, spread=noise, direction="lower")
    return baseline_limits(test, 0.01)


def _power_by_hand(n: int, noise: float) -> float:
    """Power of a one-sided t test (n − 1 df, level 0.01) for a 5 % change at SD log(1 + noise), the candidate mean
    known exactly: noncentral t with noncentrality log(1.05)·√n / SD (Cohen 1988, ch. 2)."""
    return float(nct.sf(student_t.isf(0.01, n - 1), n - 1, math.log(1.05) * math.sqrt(n) / math.log1p(noise)))


def test_readme_repeats_match_the_gates_power_rule():
    text = (ROOT / "README.md").read_text()
    gate = text[text.index("## CI regression gate"):]
    gate = gate[:gate.index("```")]
    pairs = [(int(n), float(x) / 100) for n, x in re.findall(r"≥ ([0-9]+)(?:\s+runs)?\s+at\s+([0-9.]+) %", gate)]
    assert len(pairs) >= 3
    for n, noise in pairs:
        assert _power_by_hand(n, noise) >= 0.95 > _power_by_hand(n - 1, noise), (n, noise)
        assert not _limits(n, noise) and _limits(n - 1, noise)  # the gate's own rule agrees
    # the trial's case: 5 runs at 4.3 % noise are too few, as the gate said
    assert _limits(5, 0.043)
    assert "≥ 5 repeats" not in gate and "Profile 10 repeats" in gate
    assert "for i in $(seq 10)" in text


def test_devices_flags_web_copy_figures():
    r = run("devices", "H100 SXM", columns=250)
    assert r.returncode == 0, r.stderr
    rows = [line for line in r.stdout.splitlines() if line.startswith("│")]
    web = [line for line in rows if "│ WEB-H100" in line]
    assert len(web) >= 5
    for line in web:
        assert line.rstrip("│ ").endswith("⚠ web copy"), line
    others = [line for line in rows if "│ STAS" in line]
    assert others and all(not line.rstrip("│ ").endswith("web copy") for line in others)
    assert "WEB-H100 = a copy of the H100 datasheet (web; lower confidence)" in " ".join(r.stdout.split())


def test_nested_calls_header_says_what_it_counts():
    from gpulens.analyzers.cpu_ops import COLUMNS

    assert "same name" in COLUMNS["nested_calls"]
    assert column_label("nested_calls", COLUMNS["nested_calls"]) == "calls inside a same-name call"
