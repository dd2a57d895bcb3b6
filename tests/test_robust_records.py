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
