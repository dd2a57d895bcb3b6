"""What a profiler counter measures — a count, a ratio, a percentage, bytes — from its name and recorded unit.

rocprof, rocprofv3 and rocprof-compute record no unit for most counters, and the kernel-counters table labelled
every such counter ``ratio`` — although ``SQ_WAVES`` ("count number of waves sent to SQs"), ``GRBM_COUNT`` (GPU
clocks) and ``TCC_HIT_sum`` are event counts. :func:`counter_unit` names the unit of the report vocabulary
(:data:`gpulens.analyzers.base.UNITS`) that a counter is, and ``number`` (a value whose unit is not known: shown
as recorded, no unit claimed) when neither its recorded unit nor its name says:

* ``%``: :func:`gpulens.timeline.percent.is_percent_counter` (unit ``%``; AMD derived percentages ``GPUBusy``…);
  ncu metrics ending ``.pct``.
* a recorded report unit (``KiB`` for rocprof ``FETCH_SIZE``/``WRITE_SIZE``, ``bytes``, ``ns``): as recorded.
* ``count``: AMD hardware counters, named by their hardware block (``SQ_``, ``SQC_``, ``GRBM_``, ``SPI_``, ``TA_``,
  ``TD_``, ``TCP_``, ``TCC_``, ``TCA_``, ``CPC_``, ``CPF_``, ``GDS_``, ``GL2C_``, ``GCEA_``, ``UTCL``…; the
  ``_sum`` of one over its instances): each counts events or clock cycles of that block (rocprofiler basic
  counters, ``rocprof --list-basic``; rocprofiler-sdk ``counter_defs.yaml``). The derived ``Wavefronts`` ("total
  wavefronts"). The dispatch's resources rocprof writes beside its counters: ``arch_vgpr``, ``accum_vgpr``, ``sgpr``
  (registers), ``wave_size`` (lanes), ``wgr``/``grd`` (work-items). ncu launch statistics
  ``launch__grid_size``, ``launch__block_size``, ``launch__thread_count``, ``launch__registers_per_thread``,
  ``launch__occupancy_limit_*`` (blocks).
* ``ratio``: rocprof derived instruction mixes documented as "the average number of … instructions executed per
  work-item" (``VALUInsts``, ``SALUInsts``, ``VFetchInsts``, ``SFetchInsts``, ``VWriteInsts``, ``FlatVMemInsts``,
  ``LDSInsts``, ``FlatLDSInsts``, ``GDSInsts``; rocprof derived metrics, ``metrics.xml``); ncu ``*.ratio`` metrics
  and ``launch__waves_per_multiprocessor`` (grid blocks / resident blocks per SM × SMs).
"""

from __future__ import annotations

import re

from gpulens.timeline.percent import is_percent_counter

#: Recorded counter units that are report units: declared as recorded.
RECORDED_UNITS = ("KiB", "bytes", "ns")
#: AMD hardware blocks whose counters count events or cycles (rocprofiler basic counters).
_AMD_BLOCK = re.compile(r"^(SQ|SQC|GRBM|SPI|TA|TD|TCP|TCC|TCA|CPC|CPF|CPG|GDS|GL2C|GCEA|GCR|GUS|RLC|SX|SDMA|"
                        r"UTCL[0-9]?)_")
_COUNTS = frozenset({"Wavefronts", "arch_vgpr", "accum_vgpr", "sgpr", "wave_size", "wgr", "grd",
                     "launch__grid_size", "launch__block_size", "launch__thread_count",
                     "launch__registers_per_thread"})
_RATIOS = frozenset({"VALUInsts", "SALUInsts", "VFetchInsts", "SFetchInsts", "VWriteInsts", "FlatVMemInsts",
                     "LDSInsts", "FlatLDSInsts", "GDSInsts", "launch__waves_per_multiprocessor"})


def counter_unit(metric: str, unit: str = "") -> str:
    """The report unit of counter ``metric`` recorded with ``unit`` (see the module docstring): ``%``, ``KiB``,
    ``bytes``, ``ns``, ``count``, ``ratio``, or ``number`` when what it measures is not known."""
    m, u = str(metric), str(unit or "").strip()
    if is_percent_counter(m, u) or m.endswith(".pct"):
        return "%"
    if u in RECORDED_UNITS:
        return u
    if m in _RATIOS or m.endswith(".ratio"):
        return "ratio"
    if m in _COUNTS or m.startswith("launch__occupancy_limit_") or _AMD_BLOCK.match(m):
        return "count"
    return "number"
