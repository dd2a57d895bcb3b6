"""Load time of the nsys SQLite collector on a synthetic one-million-kernel export.

Generates (in a temporary folder, never committed) an export with the column layout of nsys 2024.6 — N kernels in
CUPTI_ACTIVITY_KIND_KERNEL, N runtime launch calls in CUPTI_ACTIVITY_KIND_RUNTIME, StringIds, TARGET_INFO_GPU, no
indexes — then times, in the same run:

* ``floor``: a bare ``SELECT * FROM`` of the two big tables through sqlite3 (the least any reader must pay);
* ``gpulens``: ``gpulens.collect(path)`` (validated Timeline).

Usage: ``python benchmarks/nsys_sqlite_load.py [N]`` (default 1,000,000).
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

KERNEL_COLS = ("start INT, end INT, deviceId INT, contextId INT, greenContextId INT, streamId INT, correlationId INT, "
               "globalPid INT, demangledName INT, shortName INT, mangledName INT, launchType INT, cacheConfig INT, "
               "registersPerThread INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT, blockZ INT, "
               "staticSharedMemory INT, dynamicSharedMemory INT, localMemoryPerThread INT, localMemoryTotal INT, "
               "gridId INT, sharedMemoryExecuted INT, graphNodeId INT, sharedMemoryLimitConfig INT")


def make_export(path: Path, n: int, n_names: int = 200, seed: int = 0) -> None:
    """Write a synthetic nsys-like export with ``n`` kernels and ``n`` runtime calls."""
    rng = np.random.default_rng(seed)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
    strings = [(i, f"void kernel_{i}<float, {i % 7}>(float const*, float*, int)") for i in range(1, n_names + 1)]
    strings += [(n_names + 1, "cudaLaunchKernel_v7000")]
    con.executemany("INSERT INTO StringIds VALUES (?, ?)", strings)
    con.execute(f"CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL ({KERNEL_COLS})")
    dur = rng.integers(1_000, 200_000, n)
    start = np.cumsum(dur + rng.integers(100, 5_000, n))
    names = rng.integers(1, n_names + 1, n)
    gpid = (1234 << 24)
    rows = ((int(start[i]), int(start[i] + dur[i]), 0, 1, 0, 7, i + 1, gpid, int(names[i]), int(names[i]),
             int(names[i]), 0, 0, 32, 128, 1, 1, 256, 1, 1, 0, 0, 0, 0, i, 0, 0, 0) for i in range(n))
    con.executemany(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * 28)})", rows)
    con.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INT, end INT, eventClass INT, globalTid INT, "
                "correlationId INT, nameId INT, returnValue INT, callchainId INT)")
    rows = ((int(start[i]) - 3_000, int(start[i]) - 1_000, 1, gpid + 1234, i + 1, n_names + 1, 0, None)
            for i in range(n))
    con.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rows)
    con.execute("CREATE TABLE TARGET_INFO_GPU (id INT, name TEXT, computeMajor INT, computeMinor INT, smCount INT)")
    con.execute("INSERT INTO TARGET_INFO_GPU VALUES (0, 'NVIDIA H100 80GB HBM3', 9, 0, 132)")
    con.commit()
    con.close()


def main(n: int = 1_000_000) -> None:
    import gpulens

    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "synthetic.sqlite"
        t0 = time.perf_counter()
        make_export(path, n)
        print(f"generated {n:,} kernels + {n:,} runtime calls in {time.perf_counter() - t0:.1f} s "
              f"({path.stat().st_size / 2**20:.0f} MiB)")
        t0 = time.perf_counter()
        con = sqlite3.connect(path)
        for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"):
            con.execute(f"SELECT * FROM {t}").fetchall()
        con.close()
        floor = time.perf_counter() - t0
        t0 = time.perf_counter()
        tl = gpulens.collect(path)
        took = time.perf_counter() - t0
        k = tl.of_kind("kernel")
        assert len(k) == n and len(tl.of_kind("runtime")) == n
        print(f"floor (bare sqlite3 fetchall of both tables): {floor:.2f} s")
        print(f"gpulens.collect: {took:.2f} s for {len(tl.events):,} events "
              f"({tl.events.memory_usage(deep=True).sum() / 2**20:.0f} MiB in memory)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
