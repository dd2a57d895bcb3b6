"""Fixed costs of the command line and of rank-sized Kineto files (issue 16), held to values from outside gpulens.

* The Kineto byte scanner is used unasked from 8 MiB of trace text when its compiled library is built (it loads in
  milliseconds), from 64 MiB when using it means importing numba or building the library: a file the size of one
  rank of ``gen_kineto.py --ranks 8 --kernels 25000`` (31.5 MB) or of 7,500 kernels (9.4 MB) is scanned once the
  library is there, and read exactly as msgspec reads it; a 6 MiB file is not.
* The console command ends without the interpreter's teardown only when nothing is lost by it: the ``atexit``
  handlers still run, the standard streams are complete, the exit status is the command's own, a non-daemon thread
  is still waited for, and ``python -m cProfile`` still prints its statistics.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens.collectors.kineto as kineto_mod
from gpulens.collectors import _kineto_fast
from gpulens.collectors.kineto import KinetoCollector

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import gen_kineto  # noqa: E402

#: where the gpulens this test imports lives (site-packages after ``pip install .``, as in CI; src/ when editable)
_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])
_MiB = 1 << 20


def _child(args: list[str], **env: str) -> subprocess.CompletedProcess:
    """Run ``python args…`` in a fresh interpreter that imports the same gpulens as this test."""
    full = {**os.environ, "PYTHONPATH": _PKG_ROOT, **env}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=full, timeout=300)


# --- the scanner from 8 MiB on --------------------------------------------------------------------------------------

def _collect(path: Path, fast: bool | None):
    """(Timeline, the piece reader the collector used) — ``fast=None``: the automatic choice."""
    readers = []
    orig = kineto_mod.piece_reader

    def spy(*a, **k):
        readers.append(orig(*a, **k))
        return readers[-1]

    kineto_mod.piece_reader = spy
    try:
        return KinetoCollector().collect(path, fast=fast), readers[0]
    finally:
        kineto_mod.piece_reader = orig


def test_the_automatic_bound_is_8_mib_with_the_library_and_64_mib_without(monkeypatch):
    monkeypatch.delenv(_kineto_fast.ENV, raising=False)
    assert (_kineto_fast.NATIVE_MIN_BYTES, _kineto_fast.AUTO_MIN_BYTES) == (8 * _MiB, 64 * _MiB)
    monkeypatch.setattr(_kineto_fast, "_library_ready", lambda: True)
    # one rank file of the 8-rank benchmark directory (31,500,186 bytes) and a 9.4 MB trace: scanned
    assert _kineto_fast.wanted(None, 31_500_186, False) and _kineto_fast.wanted(None, 9_417_372, False)
    assert not _kineto_fast.wanted(None, 6_277_458, False)  # 6.3 MB: the scanner cost more than it saved
    # a gzip file counts as 8× its bytes on disk: 1.2 MB of gzip (≈ 9.6 MB of text) is scanned
    assert _kineto_fast.wanted(None, 1_200_000, True) and not _kineto_fast.wanted(None, 1_000_000, True)
    monkeypatch.setattr(_kineto_fast, "_library_ready", lambda: False)  # numba imported or the library built first
    assert not _kineto_fast.wanted(None, 31_500_186, False) and _kineto_fast.wanted(None, 64 * _MiB, False)


def test_the_library_counts_as_ready_only_when_built_and_turned_on(monkeypatch):
    from gpulens.collectors import _kineto_native

    monkeypatch.setattr(_kineto_native, "find", lambda: None)
    assert not _kineto_fast._library_ready()
    monkeypatch.setattr(_kineto_native, "find", lambda: Path("/built/kineto_scan.so"))
    monkeypatch.setenv(_kineto_native.ENV, "0")
    assert not _kineto_fast._library_ready()
    monkeypatch.delenv(_kineto_native.ENV, raising=False)
    assert _kineto_fast._library_ready()


def test_a_9_mib_trace_is_scanned_unasked_and_read_as_msgspec_reads_it(tmp_path, monkeypatch):
    if not _kineto_fast._available():
        pytest.skip("the Kineto scanner cannot be built or loaded here (numba or a C compiler missing)")
    monkeypatch.delenv(_kineto_fast.ENV, raising=False)
    path = tmp_path / "rank0.pt.trace.json"
    gen_kineto.generate(path, 7_500, steps=4)
    size = path.stat().st_size
    assert 8 * _MiB <= size < 64 * _MiB  # under the old bound, over the new one
    if not _kineto_fast._library_ready():  # _available() above builds it where a C compiler is found
        pytest.skip("no compiled scanner library here (numba's entry point only): the 64 MiB bound applies")
    auto, reader = _collect(path, None)
    assert reader.on and reader.scanned >= 1
    plain, plain_reader = _collect(path, False)
    assert plain_reader.scanned == 0 and plain_reader.decoded >= 1
    from tests.test_kineto_scanner import _assert_same  # skips without numba, as that module does

    _assert_same(auto, plain)
    # every GPU kernel event of the file (read by the standard library) is one kernel or collective row
    raw = json.loads(path.read_text(encoding="utf-8"))["traceEvents"]
    kernels = sum(1 for e in raw if e.get("ph") == "X" and e.get("cat") == "kernel")
    assert kernels >= 7_500 and int(auto.events["kind"].isin(["kernel", "comm"]).sum()) == kernels


# --- the end of the process ----------------------------------------------------------------------------------------

_ATEXIT_RUN = """
import atexit, sys, threading, time
from pathlib import Path
atexit.register(lambda: print("atexit handler ran", file=sys.stderr))
if {thread!r}:
    def late():
        time.sleep(0.5)
        Path({marker!r}).write_text("written by a non-daemon thread")
    threading.Thread(target=late).start()
sys.argv = ["gpulens"] + {argv!r}
from gpulens.cli import main
main()
"""


def test_the_command_ends_with_its_atexit_handlers_streams_and_status(tmp_path):
    out = tmp_path / "demo.json"
    r = _child(["-c", _ATEXIT_RUN.format(thread=False, marker="", argv=["analyze", "--demo", "--no-cache",
                                                                            "--json", str(out)])])
    assert r.returncode == 0, r.stderr
    # the last console line reached the pipe (rich wraps a long path at the console's width: compare without spaces)
    assert "".join(r.stdout.split()).endswith("".join(f"JSON report written to {out}".split())), r.stdout
    assert "atexit handler ran" in r.stderr
    assert out.read_text(encoding="utf-8").rstrip().endswith("}")
    missing = tmp_path / "absent.json"
    r = _child(["-c", _ATEXIT_RUN.format(thread=False, marker="", argv=["analyze", str(missing)])])
    assert r.returncode == 2  # EXIT_USAGE, as documented in gpulens.errors
    assert f"gpulens: error: {missing}: {os.strerror(2).lower()}" in r.stderr.lower()
    assert "atexit handler ran" in r.stderr


def test_a_non_daemon_thread_is_still_waited_for(tmp_path):
    marker = tmp_path / "late.txt"
    r = _child(["-c", _ATEXIT_RUN.format(thread=True, marker=str(marker), argv=["devices"])])
    assert r.returncode == 0, r.stderr
    assert marker.read_text() == "written by a non-daemon thread"
    assert "atexit handler ran" in r.stderr


def test_cprofile_still_prints_its_statistics(tmp_path):
    r = _child(["-m", "cProfile", "-s", "cumulative", "-m", "gpulens", "devices"])
    assert r.returncode == 0, r.stderr
    assert "function calls" in r.stdout and "Ordered by: cumulative time" in r.stdout
