"""Loading a directory of rank files with N workers: the process running the load is one of the N (session 45,
issue 16 target 5). It loads the last files (about 1/N of the bytes) itself while N - 1 pool processes load the
rest, instead of waiting on a pool of N while it receives and unpickles every file's columns. The Timeline is the
same whichever process loaded which file."""

from __future__ import annotations

import os
from pathlib import Path

import gpulens.collectors._parallel as par
from gpulens.collectors import collect
from tests.conftest import KINETO
from tests.test_cache_parallel import same

MULTI = KINETO / "multirank"
LOADED_HERE: list[str] = []
PARENT = os.getpid()


def recording_load_task(path, *args):
    """``load_task`` that notes the files this (the test's) process loads; pool processes only load."""
    if os.getpid() == PARENT:
        LOADED_HERE.append(Path(path).name)
    return ORIGINAL(path, *args)


ORIGINAL = par.load_task


def test_own_share_by_hand():
    # 8 equal files, 2 workers: half of the bytes = the last 4 files; 8 workers: the last file alone
    assert par.own_share([31] * 8, 2) == [4, 5, 6, 7]
    assert par.own_share([31] * 8, 8) == [7]
    # 8 × 5 bytes, 3 workers: room 13.3 → 5 + 5 + 5 (the third fits by more than half), never a fourth
    assert par.own_share([5] * 8, 3) == [5, 6, 7]
    # at least one file, never all: 2 files of 2 workers → the second; one large last file is taken alone
    assert par.own_share([10, 10], 2) == [1]
    assert par.own_share([1, 1, 1, 100], 2) == [3]
    assert par.own_share([100, 1, 1, 1], 2) == [1, 2, 3]


def test_this_process_loads_its_share_and_the_timeline_is_unchanged(monkeypatch):
    files = sorted(f for f in MULTI.iterdir() if f.is_file() and not f.name.startswith("."))
    assert len(files) >= 2
    monkeypatch.setattr(par, "load_task", recording_load_task)
    LOADED_HERE.clear()
    two = collect(MULTI, workers=2)
    want = [files[i].name for i in par.own_share([f.stat().st_size for f in files], 2)]
    assert LOADED_HERE == want and 0 < len(want) < len(files)
    LOADED_HERE.clear()
    one = collect(MULTI, workers=1)
    assert LOADED_HERE == [f.name for f in files]  # one worker: every file here, in order
    same(two, one)
