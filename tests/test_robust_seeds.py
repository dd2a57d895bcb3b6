"""The fuzz tools share one seed writer (tests/fuzzing.py :func:`write_seeds`)."""

from __future__ import annotations

import inspect

from . import fuzz_cli, fuzz_fresh, fuzzing


def test_write_seeds_writes_every_format_once(tmp_path):
    seeds = fuzzing.write_seeds(tmp_path, extended=False)
    # one seed per format of the table, each a non-empty file or folder under tmp_path
    assert set(seeds) == set(fuzzing.SEEDS)
    for fmt, p in seeds.items():
        assert p.parent == tmp_path and p.name == fuzzing.SEEDS[fmt][0]
        assert p.is_dir() or p.stat().st_size > 0
    # a second call keeps what is there (the campaign's seeds never change under it)
    f = seeds["kineto"]
    f.write_text("kept")
    assert fuzzing.write_seeds(tmp_path, extended=False)["kineto"].read_text() == "kept"


def test_every_fuzz_tool_uses_the_one_writer():
    for mod in (fuzz_cli, fuzz_fresh, fuzzing):
        src = inspect.getsource(mod.main)
        assert "write_seeds(" in src and "copytree(" not in src.split("write_seeds(")[0], mod.__name__
