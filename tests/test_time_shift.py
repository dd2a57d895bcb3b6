"""Moving a trace in time changes no figure but its absolute times.

A profiler's clock origin is arbitrary: Kineto writes µs since 1970 (~1.7e15 µs = 1.7e18 ns), other writers µs
since boot or since the first event. Every duration, offset, share and verdict must be the same for a trace whose
``ts`` values were all shifted by one constant; only absolute clock readings (``start_ns``/``end_ns`` columns and
summaries) move, by exactly the shift. The kind of fault this pins: an absolute ns time turned into a double before
a subtraction (a double steps by 256 ns at 1.7e18 ns; stream_timeline's ``launch_offset_ns`` was rounded so).
The shifts are decimal (digit for digit, no float round trip) and include a move to the epoch scale from 0.
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from tests.conftest import KINETO
from tests.test_event_order import _NUM, _dump, _load, _report

#: clock readings: the only figures a shift may move — by exactly the shift (absolute: ``start_ns`` of a step) or
#: not at all (relative: ``bin_start_ns`` of a series, from the trace's start)
_ABSOLUTE = ("start_ns", "end_ns")


def _shifted(src: Path, dst: Path, by_us: Decimal) -> None:
    doc = _load(src)
    for e in doc["traceEvents"]:
        if isinstance(e, dict) and isinstance(e.get("ts"), str) and e["ts"].startswith(_NUM):
            e["ts"] = _NUM + str(Decimal(e["ts"][len(_NUM):]) + by_us)
    _dump(doc, dst)


def _differences(a, b, shift_ns: int, where: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out = [] if set(a) == set(b) else [f"{where}: keys differ"]
        for k in set(a) & set(b):
            if k.endswith(_ABSOLUTE) and isinstance(a[k], int) and isinstance(b[k], int):
                if b[k] - a[k] not in (0, shift_ns):
                    out.append(f"{where}/{k}: {a[k]} → {b[k]} (moved, but not by the shift {shift_ns})")
                continue
            out += _differences(a[k], b[k], shift_ns, f"{where}/{k}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} != {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _differences(x, y, shift_ns, f"{where}[{i}]")]
    return [] if a == b else [f"{where}: {str(a)[:120]} != {str(b)[:120]}"]


@pytest.mark.parametrize("rel,by_us", [
    ("aorta_mi350x_train_step.pt.trace.json", Decimal("1000.001")),       # ROCm training step, epoch clock
    ("tracelens_h100_bert-small.json.gz", Decimal("-12345.678")),         # CUDA inference, launches and ops
    ("hta_mi250_minitoy_rocm6.2.json.gz", Decimal("86400000000.5")),      # a day later
])
def test_shifting_every_ts_moves_only_absolute_times(rel, by_us, tmp_path):
    src = KINETO / rel
    dst = tmp_path / src.name
    _shifted(src, dst, by_us)
    base, got = _report(src), _report(dst)
    assert base["sources"][0]["summary"]["kernel_count"] > 0
    diffs = _differences(base, got, int(by_us * 1000))
    assert not diffs, diffs[:5]
