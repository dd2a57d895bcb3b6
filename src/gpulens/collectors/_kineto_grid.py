"""One grid unit in the Timeline: ``grid_{x,y,z}`` are blocks (CUDA) / workgroups (HIP). ROCm Kineto traces record
other units, converted here:

* roctracer backend (ROCm ≤ 6): kernels launched by ``hipExtModuleLaunchKernel`` (Tensile/hipBLASLt, MIOpen) carry
  the launch's *global work size* (work-items) as ``grid`` — HIP's ``hipExtModuleLaunchKernel(f, globalWorkSizeX,
  …, localWorkSizeX, …)`` signature — so ``grid = ceil(grid / block)`` per axis (e.g. 73728 work-items in
  workgroups of 256 = 288 workgroups). Kernels of ``hipLaunchKernel``/``hipModuleLaunchKernel`` give ``gridDim``
  in blocks already and are kept.
* rocprofiler-sdk backend (ROCm ≥ 6.4; the trace carries ``rocprofiler-sdk_version``): ``grid`` holds the
  *workgroup size* and ``block`` the *grid size in work-items* (rocprofiler-sdk's ``workgroup_size``/``grid_size``
  written in swapped places), e.g. ``grid [256,1,1]``, ``block [524288,1,1]``. Swapped back, then converted:
  ``block = grid field``, ``grid = ceil(block field / block)``. Without the version key the swap is recognised per
  kernel by a "block" larger than any GPU allows (> 1024 threads). Later traces of that backend write the launch's
  own grid (workgroups) and block, as ``hipLaunchKernel``'s arguments beside them (ROCm 7.1, HIP 70125424:
  ``grid [16384,1,1]``, ``block [256,1,1]``): a "grid" field larger than any workgroup can be (> 1024 threads) with a
  block that fits is no swapped record. When a trace has such records and no record whose "block" is too large for a
  workgroup, its records are taken as written (grid in workgroups); else the swap holds for every record but those.

  The rule by version (:func:`sdk_convention`), for the records whose sizes alone cannot tell (grid and block both
  fit a workgroup: ``grid [256,1,1] block [256,1,1]`` is 256 workgroups as launched, 1 workgroup swapped): a trace
  recording HIP runtime ≥ 7.1 (``hip_runtime_version`` ≥ 70100000, HIP's major·10⁷ + minor·10⁵ + patch: TraceLens'
  MI300X traces, 70125424, write as launched) keeps them as written; HIP 7.0 or older (the aorta MI350X trace,
  70051831, swapped) or no HIP version: swapped. Records that do tell (an impossible block, a grid no workgroup can
  be) decide the trace's convention whatever its version says, as above.

CUDA traces are never changed (no ``hip`` runtime, no ``gcnArchName``).
"""

from __future__ import annotations

import numpy as np

_EXT_MODULE = ("hipExtModuleLaunchKernel",)
MAX_THREADS_PER_BLOCK = 1024  # HIP and CUDA limit on workgroup/block size


def _ceil_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a + b - 1) // np.maximum(b, 1)


#: First HIP runtime version (``hip_runtime_version``: major·10⁷ + minor·10⁵ + patch) whose rocprofiler-sdk-backend
#: Kineto traces write grid (workgroups) and block as launched: ROCm 7.1 (module doc).
AS_LAUNCHED_HIP = 70_100_000


def sdk_convention(sdk_version: object, hip_runtime_version: object) -> str | None:
    """How a rocprofiler-sdk-backend trace writes grid and block, by its recorded versions (module doc): None (no
    ``rocprofiler-sdk_version``: the roctracer backend), ``"as launched"`` (HIP runtime ≥ 7.1), ``"swapped"`` (HIP
    7.0 or older), ``"swapped (no HIP version recorded)"``."""
    if sdk_version is None:
        return None
    try:
        hip = int(float(hip_runtime_version))  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return "swapped (no HIP version recorded)"
    return "as launched" if hip >= AS_LAUNCHED_HIP else "swapped"


def fix_rocm_grid(rows: np.ndarray, grid: list[tuple[np.ndarray, np.ndarray]],
                  block: list[tuple[np.ndarray, np.ndarray]], sdk: bool | str | None,
                  ext_module: np.ndarray) -> dict[str, int]:
    """Convert the grid/block columns of GPU kernel ``rows`` of a ROCm trace in place; return counts per rule.

    Args:
        rows: indices of kernel rows (kinds kernel/comm/memcpy/memset recorded as kernels).
        grid, block: three (values, valid) pairs each, edited in place.
        sdk: the trace's rocprofiler-sdk convention by version (:func:`sdk_convention`; True: as "swapped"), or
            None/False: not that backend.
        ext_module: per row, launched by ``hipExtModuleLaunchKernel`` (roctracer global-work-size convention).
    """
    counts = {"swapped": 0, "work_items": 0}
    if not len(rows):
        return counts
    g = np.stack([grid[i][0][rows] for i in range(3)])
    b = np.stack([block[i][0][rows] for i in range(3)])
    ok = np.all(np.stack([grid[i][1][rows] for i in range(3)] + [block[i][1][rows] for i in range(3)]), axis=0)
    # a 0 (the launch configuration was not recorded: grid [0,0,0]) is no size in any convention: left as written,
    # for the impossible-launch check, and not counted as swapped or converted
    ok &= np.all(g > 0, axis=0) & np.all(b > 0, axis=0)
    threads = np.prod(np.maximum(b, 1), axis=0)
    too_big_block = ok & (threads > MAX_THREADS_PER_BLOCK)  # a "block" no GPU runs: grid and block swapped
    # a "grid" too large to be a workgroup size with a block that fits: written as launched, not swapped
    as_launched = ok & ~too_big_block & (np.prod(np.maximum(g, 1), axis=0) > MAX_THREADS_PER_BLOCK)
    if as_launched.any() or too_big_block.any():  # the trace's own records tell its convention
        sdk_swaps = bool(sdk) and not (as_launched.any() and not too_big_block.any())
    else:  # no record tells: the recorded version does
        sdk_swaps = bool(sdk) and sdk != "as launched"
    swapped = too_big_block | (ok & ~as_launched & sdk_swaps)
    items = ok & ~swapped & ext_module[rows]
    if swapped.any():
        wg, it = g[:, swapped], b[:, swapped]
        g[:, swapped], b[:, swapped] = _ceil_div(it, wg), wg
        counts["swapped"] = int(swapped.sum())
    if items.any():
        g[:, items] = _ceil_div(g[:, items], b[:, items])
        counts["work_items"] = int(items.sum())
    for i in range(3):
        grid[i][0][rows] = g[i]
        block[i][0][rows] = b[i]
    return counts


def is_ext_module(launcher_names: list) -> np.ndarray:
    """Per launcher name (or None): a ``hipExtModuleLaunchKernel`` launch."""
    return np.array([isinstance(n, str) and n.startswith(_EXT_MODULE) for n in launcher_names], dtype=bool)
