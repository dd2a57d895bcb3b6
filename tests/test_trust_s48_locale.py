"""Session 48 — Nsight Compute text reports and CSV exports written in a decimal-comma locale.

ncu formats metric values with the locale's separators: the usual report shows ``96.32`` and ``56,344,784``; run
under a locale such as de_DE the same values read ``96,32`` and ``56.344.784``. Kind: numbers in another locale's
notation read as no number (durations unknown: "2 launches without a usable Duration") or as the wrong number
(``1.024`` threads per block read as 1.024, ``0,470`` as 470). Now one decision per report
(:func:`gpulens.collectors._ncu_units.decimal_comma`): when some value can only be a decimal-comma number and none
can only be a decimal-point one, every value is read that way, with a warning quoting one value. The CSV reader
(details and raw pages) takes the same decision per output over its value cells (not the ``CC`` or size columns).

Expected figures are written by hand from the report text (the de_DE report is the en_US one with the two
separators swapped in every value).
"""

from __future__ import annotations

import pytest

from gpulens.collectors import collect
from gpulens.collectors._ncu_units import decimal_comma, parse_number


def _report(values: dict[str, str], rules: str = "") -> str:
    """One launch (ncu 2023+ layout) whose Speed Of Light / Launch Statistics values are ``values`` as printed."""
    rows = [("DRAM Frequency", "cycle/nsecond"), ("Elapsed Cycles", "cycle"), ("Duration", "msecond"),
            ("SM Active Cycles", "cycle"), ("Memory Throughput", "%"), ("Block Size", ""), ("Threads", "thread")]
    body = "".join(f"    {n:<23} {u:>13} {values[n]:>13}\n" for n, u in rows)
    return ("[828] cuda_exec.out@127.0.0.1\n"
            "  sgemm(int, float *) (32, 32, 1)x(32, 32, 1), Context 1, Stream 7, Device 0, CC 7.5\n"
            "    Section: GPU Speed Of Light Throughput\n"
            "    ----------------------- ------------- -------------\n"
            "    Metric Name               Metric Unit  Metric Value\n"
            "    ----------------------- ------------- -------------\n" + body +
            "    ----------------------- ------------- -------------\n\n" + rules)


EN = {"DRAM Frequency": "5.00", "Elapsed Cycles": "56,344,784", "Duration": "96.32",
      "SM Active Cycles": "55,313,213.62", "Memory Throughput": "0.470", "Block Size": "1,024", "Threads": "1,048,576"}
DE = {k: v.replace(",", "\0").replace(".", ",").replace("\0", ".") for k, v in EN.items()}
#: by hand: 96.32 ms, 56,344,784 cycles, 55,313,213.62 cycles, 0.47 %, 1,024 threads/block, 1,048,576 threads
HAND = {"Elapsed Cycles": 56_344_784, "SM Active Cycles": 55_313_213.62, "Memory Throughput": 0.47,
        "Block Size": 1_024, "Threads": 1_048_576}
RULE = ("    OPT   Est. Speedup: 92,5%\n          This kernel exhibits low compute throughput.\n")


@pytest.mark.parametrize("values", [EN, DE], ids=["en_US", "de_DE"])
def test_ncu_text_values_in_either_locale(tmp_path, values):
    p = tmp_path / "ncu.txt"
    p.write_text(_report(values, RULE if values is DE else RULE.replace("92,5", "92.5")))
    tl = collect(p)
    k = tl.of_kind("kernel").reset_index(drop=True)
    assert list(k["dur_ns"]) == [96_320_000]
    c = tl.counters
    got = c[c["event_id"] == k.loc[0, "event_id"]].set_index("metric")["value"]
    for metric, want in HAND.items():
        assert got[metric] == pytest.approx(want, rel=1e-12), metric
    assert tl.tables["ncu_rules"]["estimated_speedup_pct"].tolist() == [92.5]
    said = [w for w in tl.meta.warnings if "decimal comma" in w]
    assert (len(said) == 1 and "'5,00' = 5.0" in said[0]) if values is DE else not said


def test_decimal_comma_decision_by_hand():
    """Values only one locale prints decide; ``1,234`` / ``1.234`` alone decide nothing; a report showing both
    kinds is read the usual way."""
    assert decimal_comma(["1.024", "96,32"]) == "96,32"
    assert decimal_comma(["56.344.784"]) == "56.344.784"
    assert decimal_comma(["1,024", "1.234"]) is None  # each a thousands group or three decimals: undecided
    assert decimal_comma(["96,32", "5.00"]) is None  # both kinds: the usual reading
    assert decimal_comma(["n/a", "(256, 1, 1)", "PolicySpread"]) is None
    assert parse_number("55.313.213,62", comma=True) == 55_313_213.62
    assert parse_number("1.024", comma=True) == 1_024 and parse_number("1,024") == 1_024
    assert parse_number("(256, 1, 1)", comma=True) is None


def _de(v: str) -> str:
    return v.replace(",", "\0").replace(".", ",").replace("\0", ".")


_HEAD = '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC"'
_LAUNCH = '"0","4242","demo","127.0.0.1","gemm_kernel(float const*, float*)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0"'


@pytest.mark.parametrize("locale", ["en_US", "de_DE"])
def test_ncu_csv_details_and_raw_in_either_locale(tmp_path, locale):
    """Details page: Duration 1,234.56 usecond, Elapsed Cycles 1,845,220, Memory Throughput 0.47 %; raw page: the
    same as gpu__time_duration.sum (usecond, units row) and sm__throughput 71.30 %. Expected by hand: 1,234,560 ns,
    1,845,220 cycles, 0.47 %, 71.3 % — in both locales; the CC column's "9.0" decides nothing."""
    conv = _de if locale == "de_DE" else (lambda v: v)
    rows = [("Duration", "usecond", "1,234.56"), ("Elapsed Cycles", "cycle", "1,845,220"),
            ("Memory Throughput", "%", "0.47")]
    details = _HEAD + ',"Section Name","Metric Name","Metric Unit","Metric Value"\n' + "".join(
        f'{_LAUNCH},"GPU Speed Of Light Throughput","{n}","{u}","{conv(v)}"\n' for n, u, v in rows)
    p = tmp_path / "details.csv"
    p.write_text(details)
    tl = collect(p)
    k = tl.of_kind("kernel").reset_index(drop=True)
    assert list(k["dur_ns"]) == [1_234_560]
    got = tl.counters.set_index("metric")["value"]
    assert got["Elapsed Cycles"] == 1_845_220 and got["Memory Throughput"] == pytest.approx(0.47, rel=1e-12)
    raw = (_HEAD + ',"gpu__time_duration.sum","sm__throughput.avg.pct_of_peak_sustained_elapsed"\n'
           + '"","","","","","","","","","",""' + ',"usecond","%"\n'
           + _LAUNCH + f',"{conv("1,234.56")}","{conv("71.30")}"\n')
    q = tmp_path / "raw.csv"
    q.write_text(raw)
    tl = collect(q)
    assert list(tl.of_kind("kernel")["dur_ns"]) == [1_234_560]
    got = tl.counters.set_index("metric")["value"]
    assert got["sm__throughput.avg.pct_of_peak_sustained_elapsed"] == pytest.approx(71.3, rel=1e-12)
    said = [w for w in tl.meta.warnings if "decimal comma" in w]
    assert bool(said) == (locale == "de_DE")
