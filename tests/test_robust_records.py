"""Fifth-session fuzzing (tests/fuzzing.py --extended, seed 31337): values of the wrong type outside the event
tables, and repeated records.

* device properties: a Kineto ``deviceProperties`` entry with a list, a word, NaN or a negative number where a count
  or size belongs made device identification raise (``int()`` of a list, exit 70). Every collector's device records
  now pass one check (:func:`gpulens.timeline.launch.scrub_device_records`, run by ``Timeline.validate``): such a
  value is dropped (unknown) with one warning counting them; integers written as text become ints.
* NVTX: a range recorded twice (duplicate rows of ``NVTX_EVENTS``) or nested in itself counted its GPU work twice:
  ``gpu_share`` 1.375 of all GPU time. The share now counts each GPU event once per range name.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from gpulens.collectors import collect
from gpulens.report import analyze_timeline
from gpulens.timeline.launch import scrub_device_records

from .conftest import CASES
from .fuzzing import _nsys


def test_device_properties_of_the_wrong_type_are_dropped_with_a_warning(tmp_path):
    doc = json.loads((CASES / "B13.json").read_text())
    doc["deviceProperties"] = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "numSms": [[132]], "warpSize": "abc",
                                "totalGlobalMem": -5, "maxThreadsPerBlock": "1024", "computeMajor": 9,
                                "computeMinor": 0}]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(doc))
    tl = collect(p)
    dev = tl.meta.devices[0]
    # three impossible values dropped (a list, a word, a negative size); the count written as text kept as an int
    assert "num_sms" not in dev and "warp_size" not in dev and "total_memory_bytes" not in dev
    assert dev["max_threads_per_block"] == 1024 and dev["compute_capability"] == "9.0"
    assert any(w.startswith("3 device propert") for w in tl.meta.warnings), tl.meta.warnings
    res = analyze_timeline(tl, str(p))  # identified from the name alone, no exception
    assert res.summary["kernel_count"] == 4  # README B13: 4 kernels


def test_scrub_device_records_rules():
    devs = [{"name": ["x"], "num_sms": 1e400, "clock_hz": 1.5e9, "compute_capability": "9.0; rm",
             "l2_bytes": float("nan"), "device_id": "3", "name_assumed": "why"}, "not a dict"]
    dropped = scrub_device_records(devs)
    assert devs == [{"clock_hz": 1_500_000_000, "device_id": 3, "name_assumed": "why"}]
    assert len(dropped) == 5  # name (a list), num_sms (inf), compute capability (not major.minor), l2 (NaN), record


def test_a_repeated_nvtx_range_counts_its_gpu_work_once(tmp_path):
    p = tmp_path / "r.sqlite"
    _nsys(p)
    con = sqlite3.connect(p)
    con.execute("INSERT INTO NVTX_EVENTS SELECT * FROM NVTX_EVENTS")  # the range 800–4000 ns recorded twice
    con.commit()
    con.close()
    res = analyze_timeline(collect(p), str(p)).results["nvtx"]
    row = res.table.set_index("name").loc["step 0"]
    # the range holds the launches of correlation 10 (kernel 1000–1500) and 11 (kernel 2000–2600): 500 + 600 ns;
    # all GPU work: those two, kernel 3000–3300 (no launch call) and the memcpy 500–700: 500+600+300+200 = 1,600 ns
    assert row["gpu_share"] == 1100 / 1600
    assert row["instances"] == 2


def test_negative_or_infinite_counter_values_are_dropped_with_a_warning(tmp_path):
    # e2 (seed 777) input 916: an ncu raw page whose SM throughput read -5 % gave speed_of_light.compute_pct -5.
    # No counter gpulens reads (counts, bytes, times, rates, %) can be negative: every collector's counters pass
    # Timeline.validate, which drops negative and infinite values as unknown, with one warning counting them.
    text = (CASES / "B20.ncu_raw.csv").read_text(encoding="utf-8")
    text = text.replace('"71.30"', '"-5"').replace('"0.52"', '"inf"')
    p = tmp_path / "raw.csv"
    p.write_text(text, encoding="utf-8")
    tl = collect(p)
    co = tl.counters
    sm = co[co["metric"] == "sm__throughput.avg.pct_of_peak_sustained_elapsed"]["value"].tolist()
    assert sm == [12.04]  # README B20: 71.30 % and 12.04 %; the first replaced by -5 is gone
    dram = co[co["metric"] == "dram__bytes_read.sum"]["value"].tolist()
    assert dram == [pytest.approx(1_048_580_000.0)]  # 1,048.58 Mbyte (powers of 1000, README B20); the "inf" one is gone
    # the -5 is dropped by the check; ncu's reader already makes "inf" unknown (parse_number), so one is counted
    assert any(w.startswith("1 counter value negative or infinite dropped") and "sm__throughput" in w
               for w in tl.meta.warnings), tl.meta.warnings
    sol = analyze_timeline(tl, str(p)).results["speed_of_light"]
    if not sol.skipped and "compute_pct" in sol.table:
        assert (sol.table["compute_pct"].dropna() >= 0).all()
