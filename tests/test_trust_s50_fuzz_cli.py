"""Session-50 fuzzing (tests/fuzz_s50.py, ``cli_values``): ``--scheduler`` at an address that holds no Dask
scheduler. A malformed address was blamed on the rank folder ("malformed trace data (ValueError: invalid address
…)"), another service answering was "not enough memory to read this file" (Dask read its reply as a frame length),
and a listener that accepts and never answers hung forever (Dask's ``timeout`` covers the connection, not the
handshake). Each is now one line naming ``--scheduler``; the silent one ends at the connect deadline.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from gpulens.cli import main
from gpulens.collectors import _parallel

pytest.importorskip("distributed")


def _ranks(d):
    for r in range(2):
        ev = [{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 100, "dur": 50,
               "args": {"device": 0, "stream": 7, "correlation": 1}}]
        (d / f"rank{r}.json").write_text(json.dumps({"traceEvents": ev,
                                                     "distributedInfo": {"rank": r, "world_size": 2}}))
    return d


def _listener(answer: bytes | None) -> str:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    held = []

    def serve():
        while True:
            c, _ = srv.accept()
            held.append(c)
            if answer:
                c.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}"


def _one_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("gpulens: error: --scheduler: cannot reach a Dask scheduler"), err
    assert "malformed trace" not in err and "memory" not in err
    return err


def test_malformed_address_names_the_option(tmp_path, capsys):
    assert main(["analyze", str(_ranks(tmp_path)), "-q", "--no-cache", "--scheduler", "::::"]) == 2
    assert "ValueError" in _one_error(capsys)


def test_another_service_is_not_a_memory_error(tmp_path, capsys):
    addr = _listener(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 40)
    assert main(["analyze", str(_ranks(tmp_path)), "-q", "--no-cache", "--scheduler", addr]) == 2
    assert addr in _one_error(capsys)


def test_silent_listener_ends_at_the_deadline(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_parallel, "CONNECT_DEADLINE_S", 2.0)
    t0 = time.monotonic()
    assert main(["analyze", str(_ranks(tmp_path)), "-q", "--no-cache", "--scheduler", _listener(None)]) == 2
    assert time.monotonic() - t0 < 30  # was: no end
    assert "no Dask answer within 2 s" in _one_error(capsys)
