"""The Timeline cache, parallel loading of rank directories (process pool and Dask), and their CLI."""

import os
import shutil

import pandas as pd
import pytest

import gpulens
from gpulens import cache
from gpulens.cli import main
from gpulens.collectors import collect
from gpulens.collectors._parallel import default_workers, file_rank
from tests.conftest import KINETO

MULTI = KINETO / "multirank"


def same(a, b):
    for t in ("events", "counters", "rejected"):
        pd.testing.assert_frame_equal(getattr(a, t), getattr(b, t))
    assert a.meta.to_dict() == b.meta.to_dict()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(d))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    return d


def test_cache_roundtrip_and_key(cache_dir, tmp_path):
    src = tmp_path / "in" / "t.json.gz"
    src.parent.mkdir()
    shutil.copy(KINETO / "hta_alexnet_a100.json.gz", src)
    before = sorted(os.listdir(src.parent))
    first = collect(src, cache=True)
    assert cache.info().entries == 1
    assert sorted(os.listdir(src.parent)) == before  # nothing written beside the user's file
    entry = cache.entry_path(src, "kineto")
    assert entry.parent == cache_dir and (entry / "events.0.values.npy").is_file()
    second = collect(src, cache=True)
    same(first, second)
    # a rewrite (new mtime) is a new key: the old entry is not used for the new content
    os.utime(src, ns=(1, 1))
    assert cache.entry_path(src, "kineto") != entry
    collect(src, cache=True)
    assert cache.info().entries == 2
    assert cache.clear() == 2 and cache.info().entries == 0


def test_cache_entry_is_read_back_with_every_nullable_dtype(cache_dir, tmp_path, monkeypatch):
    """A cached load reads the entry, not the trace: every nullable column (Int64 ids, the Int32 launch
    configuration of schema NARROW_COLUMNS, with missing values on the host rows) comes back with its dtype and NA.
    An entry that failed validation was silently dropped and the trace parsed again on every run."""
    from gpulens.collectors import kineto
    from gpulens.timeline.schema import NARROW_COLUMNS

    src = tmp_path / "t.json.gz"
    shutil.copy(KINETO / "hta_alexnet_a100.json.gz", src)
    first = collect(src, cache=True)
    narrow = [c for c in NARROW_COLUMNS if str(first.events[c].dtype) == "Int32"]
    assert narrow and all(first.events[c].isna().any() for c in narrow)  # host rows: no launch configuration

    def no_parse(*a, **k):
        raise AssertionError("trace parsed again instead of read from the cache")

    monkeypatch.setattr(kineto.KinetoCollector, "collect", no_parse)
    second = collect(src, cache=True)
    same(first, second)


def test_cache_applies_selection_after_a_full_cached_load(cache_dir):
    full = collect(MULTI / "sampled_rank-0.json.gz", cache=True)
    assert cache.info().entries == 1
    sel = gpulens.timeline.selection.Selection.parse(window="0:1ms")
    cached = collect(MULTI / "sampled_rank-0.json.gz", cache=True, select=sel)
    direct = collect(MULTI / "sampled_rank-0.json.gz", select=sel)
    assert 0 < len(direct.events) < len(full.events)
    pd.testing.assert_frame_equal(cached.events, direct.events)


def test_small_files_are_not_cached_by_default(tmp_path, monkeypatch):
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "c"))
    monkeypatch.delenv("GPULENS_CACHE_MIN_BYTES", raising=False)
    collect(KINETO / "hta_alexnet_a100.json.gz", cache=True)
    assert cache.info().entries == 0


def test_cache_folder_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("GPULENS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache.cache_dir() == tmp_path / "gpulens"


def test_process_pool_matches_single_process():
    same(collect(MULTI, workers=2), collect(MULTI, workers=1))


def test_workers_are_bounded_by_files_and_cores():
    files = sorted(MULTI.iterdir())
    assert file_rank(files[0]) == 0 and file_rank(files[1]) == 1
    w = default_workers(files)
    assert 1 <= w <= min(len(files), os.cpu_count() or 1)
    assert default_workers(files[:1]) == 1


def test_dask_local_cluster_matches_single_process():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=False, dashboard_address=None) as cl, \
            distributed.Client(cl) as client:
        on_dask = gpulens.analyze([MULTI], scheduler=client).sources[0]
    local = gpulens.analyze([MULTI], workers=1).sources[0]
    same(on_dask.timeline, local.timeline)
    assert on_dask.summary == local.summary
    for name, res in local.results.items():
        pd.testing.assert_frame_equal(on_dask.results[name].table, res.table)
        assert on_dask.results[name].summary == res.summary
    # the facts of SOURCES.md hold on the Dask result too
    k = on_dask.timeline.of_kind("kernel", "comm").groupby("rank")["dur_ns"].sum()
    assert k.loc[0] == 606_519_000 and k.loc[1] == 651_026_000


def test_cli_cache_commands_and_no_cache(cache_dir, tmp_path, capsys):
    trace = KINETO / "hta_alexnet_a100.json.gz"
    assert main(["analyze", "-q", "--no-cache", str(trace)]) == 0
    assert cache.info().entries == 0
    assert main(["analyze", "-q", str(trace)]) == 0
    # one analysed trace leaves two entries: its Timeline and its analysis results (issue 16)
    assert cache.info().entries == 2
    assert main(["analyze", "-q", str(trace)]) == 0  # a cache hit adds nothing
    assert cache.info().entries == 2
    assert main(["cache", "info"]) == 0
    assert "entries: 2" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 2 cache entries" in capsys.readouterr().out
    assert cache.info().entries == 0


def test_cli_selection_options(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", "--no-cache", "--ranks", "1", str(MULTI), "--json", str(out)]) == 0
    import json

    doc = json.loads(out.read_text())
    assert doc["sources"][0]["summary"]["ranks"] == [1]
    assert doc["sources"][0]["summary"]["kernel_count"] == 1104
    assert main(["analyze", "-q", "--steps", "x", str(MULTI)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--steps" in err


def test_timeline_entry_keyed_by_collector_code(cache_dir, tmp_path, monkeypatch):
    """A Timeline cached by other collector code (same version number, e.g. an editable install after a collector
    fix) is never served: the entry's key includes the code stamp, as the analysis-results cache's does."""
    src = tmp_path / "t.json.gz"
    shutil.copy(KINETO / "hta_alexnet_a100.json.gz", src)
    collect(src, cache=True)
    before = cache.entry_path(src, "kineto")
    assert before.is_dir()
    monkeypatch.setattr(cache, "code_stamp", lambda: "0123456789abcdef")  # the package's modules changed
    after = cache.entry_path(src, "kineto")
    assert after != before and not after.exists()
    collect(src, cache=True)  # read again from the file and stored under the new key
    assert after.is_dir() and cache.info().entries == 2
