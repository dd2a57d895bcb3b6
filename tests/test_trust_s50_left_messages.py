"""One-line errors that say what the thing is: a FIFO given as ``--config`` or ``--baseline`` is called a named
pipe (never "no such config file" nor "the file"), and a gzip limit set to 0 by the environment is named as that
setting (never "at least 256 MiB" beside a limit of 0)."""

import gzip
import json
import os

import pytest

from gpulens.errors import GpulensError

fifo_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


@fifo_only
def test_config_fifo_is_named_pipe(tmp_path):
    from gpulens.gate.config import ConfigError, load_config

    f = tmp_path / "gate.toml"
    os.mkfifo(f)
    with pytest.raises(ConfigError) as ei:
        load_config(f)
    msg = str(ei.value)
    assert "named pipe (FIFO)" in msg and "no such" not in msg and "\n" not in msg


def test_config_folder_is_a_folder(tmp_path):
    from gpulens.gate.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="is a folder"):
        load_config(tmp_path)


@fifo_only
def test_baseline_fifo_bare_name(tmp_path, monkeypatch):
    from gpulens.gate.baseline import BaselineError, find_baseline

    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "main")
    with pytest.raises(BaselineError) as ei:
        find_baseline("main", "any-machine", store=tmp_path / "store")
    msg = str(ei.value)
    assert "named pipe (FIFO)" in msg and "the file" not in msg


def test_zero_decompress_limit_names_the_setting(tmp_path, monkeypatch):
    import gpulens

    p = tmp_path / "t.pt.trace.json.gz"
    doc = {"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}
    p.write_bytes(gzip.compress(json.dumps(doc).encode()))
    monkeypatch.setenv("GPULENS_MAX_DECOMPRESSED_BYTES", "0")
    with pytest.raises(GpulensError) as ei:
        gpulens.analyze([str(p)])
    msg = str(ei.value)
    assert "GPULENS_MAX_DECOMPRESSED_BYTES=0" in msg and "256 MiB" not in msg
