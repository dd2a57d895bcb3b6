"""Two parts of one die and CU count are told apart by the engine clock the trace records (rocminfo's "Max Clock
Freq. (MHz)", rocprofv3's ``max_engine_clk_fcompute``): AMD documents the Instinct MI350X at 2200 MHz and the MI355X
at 2400 MHz, both gfx950 with 256 CUs. Without a clock — or with one that is neither's — no spec is chosen (their peaks
differ by 9 %), never the first in table order. The aiter rocprof v1 sysinfo (tests/data/rocprof/v1_aiter_gfx950)
records 2200 MHz, 256 CUs and the generic name "AMD Radeon Graphics"."""

from __future__ import annotations

import pytest

from gpulens.devices import identify_device

BASE = {"name": "AMD Radeon Graphics", "gfx_arch": "gfx950", "num_sms": 256}


@pytest.mark.parametrize("mhz, want", [(2200, "AMD Instinct MI350X"), (2400, "AMD Instinct MI355X"),
                                       (2210, "AMD Instinct MI350X"), (None, None), (2300, None)])
def test_engine_clock_tells_mi350x_from_mi355x(mhz, want):
    rec = dict(BASE, **({"max_clock_mhz": mhz} if mhz else {}))
    spec = identify_device(rec)
    assert (spec.name if spec else None) == want


def test_a_clock_never_overrides_the_cu_count():
    # an MI300X (304 CUs, 2100 MHz) stays an MI300X whatever clock is recorded: the CU count narrows first
    spec = identify_device({"name": "AMD Radeon Graphics", "gfx_arch": "gfx942", "num_sms": 304, "max_clock_mhz": 2400})
    assert spec is not None and spec.name == "AMD Instinct MI300X"
