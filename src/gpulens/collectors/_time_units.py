"""The one table of time units the collectors read, and the factor of each to ns.

Profilers print a time unit in a column header (``nsys stats --timeunit``: ``Total Time (us)``) or beside each
value (ncu: ``usecond``, ``msecond``). Every spelling below converts to ns; any other text — ``cycle``, ``tick``,
a typo — is **not** a time unit: :func:`ns_factor` returns None and the caller makes the figure unknown (or stops
with an error when it cannot do without it), never reads it as ns.

==================================================  ======
spellings (case-insensitive)                        × ns
==================================================  ======
ns, nsec, nsecond(s), nanosecond(s)                 1
us, µs, μs, usec, usecond(s), microsecond(s)        1e3
ms, msec, msecond(s), millisecond(s)                1e6
s, sec, secs, second(s)                             1e9
==================================================  ======
"""

from __future__ import annotations

_FACTORS = {
    1.0: ("ns", "nsec", "nsecond", "nseconds", "nanosecond", "nanoseconds"),
    1e3: ("us", "µs", "μs", "usec", "usecond", "useconds", "microsecond", "microseconds"),
    1e6: ("ms", "msec", "msecond", "mseconds", "millisecond", "milliseconds"),
    1e9: ("s", "sec", "secs", "second", "seconds"),
}
#: spelling (lower case) → factor to ns
TIME_NS = {name: f for f, names in _FACTORS.items() for name in names}


def ns_factor(unit: str | None) -> float | None:
    """Factor from ``unit`` to ns (``"usecond"`` → 1e3, ``"Total Time (ms)"``'s ``"ms"`` → 1e6), or None when
    ``unit`` is no time unit of the table above (``"cycle"``, ``""``)."""
    if unit is None:
        return None
    return TIME_NS.get(unit.strip().lower())
