"""Fixed costs of the command line and the report writers (issue 16), held to values from outside gpulens.

* An input that does not exist is refused before pandas (and every analyzer) is imported, by ``analyze``, ``diff``,
  ``gate`` and ``baseline save``, in the words the OS uses for ENOENT (``os.strerror``).
* ``--help`` shows a list parameter's values as one value's type (``paths... <path>``), never ``<list[Path]>``.
* numpy's OpenBLAS starts no worker thread under the command line (gpulens calls no BLAS routine); a user's own
  ``OPENBLAS_NUM_THREADS`` is kept, and ``profile`` (the user's own script) is left alone.
* The fast paths of the writers give what the plain ones gave: the timeline payload's JSON is the standard library's
  ``json.dumps`` byte for byte, its name positions are pandas' ``get_indexer``, a report's UTF-8 bytes are
  ``writable(text).encode()``, and Markdown's neutralising leaves plain text alone and still breaks mentions, links
  and math (expected texts written by hand).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gpulens.errors import TraceFormatError

#: where the gpulens this test imports lives (site-packages after ``pip install .``, as in CI; src/ when editable)
_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])


def _child(code: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter that imports the same gpulens as this test."""
    full = {**os.environ, "PYTHONPATH": _PKG_ROOT, **env}
    for k, v in list(full.items()):
        if v is None:
            del full[k]
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=120)


# --- a missing input is said first ----------------------------------------------------------------------------------

_MISSING_RUN = """
import io, sys, contextlib
from gpulens.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err):
    rc = main({argv!r})
print(rc)
print(err.getvalue().strip())
print("pandas" in sys.modules, "gpulens.analyzers" in sys.modules)
"""


@pytest.mark.parametrize("argv", [
    ["analyze", "{m}"],
    ["analyze", "{m}", "--json", "{d}/out.json", "--html", "{d}/out.html"],
    ["diff", "{m}", "{m}"],
    ["gate", "{m}", "--baseline", "main"],
    ["baseline", "save", "{m}", "--name", "main", "--store", "{d}/store"],
])
def test_a_missing_input_is_refused_before_pandas_is_imported(tmp_path, argv):
    missing = tmp_path / "no-such-trace.json"
    args = [a.format(m=missing, d=tmp_path) for a in argv]
    r = _child(_MISSING_RUN.format(argv=args))
    assert r.returncode == 0, r.stderr
    rc, line, imported = r.stdout.strip().splitlines()
    assert rc == "2"  # gpulens.errors: 2 = unreadable input
    # the OS's own words for ENOENT, lower-cased as every gpulens error line is
    assert line == f"gpulens: error: {missing}: {os.strerror(errno.ENOENT).lower()}"
    assert imported == "False False"  # neither pandas nor an analyzer was loaded to say so
    assert not (tmp_path / "out.json").exists() and not (tmp_path / "store").exists()


def test_check_input_refuses_a_fifo_and_passes_files_and_folders(tmp_path):
    from gpulens._inputs import check_input

    f = tmp_path / "t.json"
    f.write_text("{}")
    assert check_input(str(f)) == f and check_input(tmp_path) == tmp_path
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(TraceFormatError, match=r"pipe: is a named pipe \(FIFO\); gpulens reads regular files"):
        check_input(fifo)
    with pytest.raises(TraceFormatError, match="no such file or directory"):
        check_input(tmp_path / "absent" / "x.json")


def test_collectors_still_refuse_what_check_input_refuses(tmp_path):
    """The library path (``gpulens.collect``, ``load_side`` of a diff) uses the same check."""
    from gpulens.collectors import collect
    from gpulens.diff.sides import load_side

    for call in (collect, load_side):
        with pytest.raises(TraceFormatError, match="no such file or directory"):
            call(tmp_path / "absent.json")


# --- --help shows what a user types ---------------------------------------------------------------------------------

def test_help_shows_a_list_parameter_as_its_element_type():
    r = _child("""
import io, contextlib
from gpulens.cli import main
for argv in (["analyze", "--help"], ["profile", "--help"], ["gate", "--help"], ["baseline", "save", "--help"],
             ["diff", "--help"], ["devices", "--help"]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    print("=====", argv[0])
    print(out.getvalue())
""", COLUMNS="100")
    assert r.returncode == 0, r.stderr
    text = r.stdout
    assert "list[" not in text  # typer's annotation text (<list[Path]>, <list[str]>) is shown nowhere
    pages = dict(p.split("\n", 1) for p in text.split("===== ")[1:])
    assert "paths... <path>" in pages["analyze"]
    assert "command... <str>" in pages["profile"]
    assert "candidates... <path>" in pages["gate"]
    assert "reports... <path>" in pages["baseline"]
    assert "--json <path>" in pages["analyze"]  # a single-valued option reads as before


# --- OpenBLAS -------------------------------------------------------------------------------------------------------

_THREADS = """
import os
from gpulens.cli import main
main({argv!r})
import numpy
print(os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir() or (os.cpu_count() or 1) < 2,
                    reason="needs /proc and at least 2 cores (OpenBLAS starts no worker on one core)")
def test_numpy_starts_no_blas_worker_under_the_command_line(tmp_path):
    argv = ["analyze", str(tmp_path / "absent.json")]
    ours = _child(_THREADS.format(argv=argv), OPENBLAS_NUM_THREADS=None)
    users = _child(_THREADS.format(argv=argv), OPENBLAS_NUM_THREADS="2")
    assert ours.returncode == 0 and users.returncode == 0, ours.stderr + users.stderr
    (v1, n1), (v2, n2) = ours.stdout.split(), users.stdout.split()
    assert (v1, v2) == ("1", "2")  # set when unset; the user's own value kept
    assert int(n1) == int(n2) - 1  # OpenBLAS with 2 threads runs 1 worker beside the main thread


def test_profile_leaves_the_blas_threads_alone():
    r = _child(_THREADS.format(argv=["profile", "--help"]).replace("import numpy\n", ""),
               OPENBLAS_NUM_THREADS=None)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-2] == "None"


# --- the writers' fast paths ----------------------------------------------------------------------------------------

def _timeline_table() -> pd.DataFrame:
    """A stream_timeline table: two levels, a GPU lane and a host lane, launch links, names with text that JSON
    escapes (quotes, non-ASCII, a lone surrogate), empty and "nan" launch names."""
    rows = []
    for i in range(40):
        gpu = i % 2 == 0
        rows.append({
            "level": i // 30, "window": i % 3, "rank": 0, "device_id": 0 if gpu else -1,
            "stream_id": 7 if gpu else -1, "thread_id": -1 if gpu else 4242,
            "start_ns": 1000 + 10 * i, "end_ns": 1005 + 10 * i, "offset_ns": 10 * i, "busy_ns": 5, "events": 1 + i % 4,
            "kind": "kernel" if gpu else ("cpu_op" if i % 3 else "runtime"),
            "name": ["gemm \"nt\" é", "softmax\udcff", "aten::mm", "k<T>"][i % 4],
            "launch_offset_ns": float(10 * i - 3) if gpu else np.nan, "launch_thread": 4242 if gpu else -1,
            "launch_name": ["cudaLaunchKernel", "", "nan", "cudaGraphLaunch"][i % 4] if gpu else "",
            "op_name": "aten::linear" if i % 5 == 0 else "",
        })
    cols = {k: [r[k] for r in rows] for k in rows[0]}
    # as the analyzer makes them: kind and name object columns (a name may hold a lone surrogate), launch and op
    # names str columns
    return pd.DataFrame({k: pd.Series(v, dtype=object if k in ("kind", "name") else
                                      "str" if k in ("launch_name", "op_name") else None) for k, v in cols.items()})


def test_timeline_payload_json_is_the_standard_librarys_text_byte_for_byte():
    from gpulens.reports._html_timeline import _payload, payload_json

    t = _timeline_table()
    sm = {"extent_ns": 400, "bin_ns": 10, "bins": 40, "branch": 8, "decimated": True}
    for cap in (20000, 30, 5):
        payload, drawn = _payload(t, sm, cap)
        expected = json.dumps(payload, separators=(",", ":"), allow_nan=False).encode("utf-8", "surrogatepass")
        assert payload_json(payload) == expected
    payload, drawn = _payload(t, sm, 20000)
    assert drawn == 40 and payload["levels"] == [0, 1]
    # rows in table order (every level kept): even rows are kernels launched by "cudaLaunchKernel" (i % 4 == 0) or
    # by a call whose name reads "nan" (i % 4 == 2: no name, -1); odd rows are host rows, launched by nothing
    launch = payload["names"].index("cudaLaunchKernel")
    assert payload["launchName"][:8] == [launch, -1, -1, -1, launch, -1, -1, -1]
    host_lane = payload["lanes"].index("rank 0 · CPU thread 4242")
    assert payload["launchLane"][:4] == [host_lane, -1, host_lane, -1]
    assert payload["launchOff"][:4] == [-3, -1, 17, -1]
    assert [payload["kinds"][k] for k in payload["kind"][:4]] == ["kernel", "cpu_op", "kernel", "runtime"]


def test_payload_json_keeps_a_value_msgspec_cannot_encode_as_json_dumps_does():
    from gpulens.reports._html_timeline import payload_json

    big = {"off": [2 ** 70, 1], "dur": [1.5, 2], "lane": [True, 0], "names": ["é", "\u2028"]}
    assert payload_json(big) == json.dumps(big, separators=(",", ":")).encode()


@pytest.mark.parametrize("items,values", [
    (["a", "b", "c"], ["c", "a", "x", "", "b", "b"]),
    (["a", np.nan, "b"], ["b", np.nan, "a", None]),  # NaN/None: pandas' own matching
    (["a", "b"], [None, "a"]),
    ([], ["a"]),
    (["a", "b", "c"], []),
])
def test_positions_are_pandas_get_indexer(items, values):
    from gpulens.reports._html_timeline import positions

    vals = np.array(values, dtype=object)
    assert positions(items, vals) == pd.Index(items, dtype=object).get_indexer(vals).tolist()


@pytest.mark.parametrize("text,expected", [
    ("plain table cell 1.23 ms", b"plain table cell 1.23 ms"),
    ("tab\tand newline\n stay", b"tab\tand newline\n stay"),
    ("bell\x07 and escape\x1b[31m", b"bell\\x07 and escape\\x1b[31m"),
    ("lone \udcff byte", b"lone \\xff byte"),
    ("gr\u00fc\u00dfe \u2014 \U0001f600", "gr\u00fc\u00dfe \u2014 \U0001f600".encode("utf-8")),
    ("DEL \x7f and NEL \x85 kept", "DEL \x7f and NEL \x85 kept".encode("utf-8")),
])
def test_writable_utf8_is_writable_then_encoded(text, expected):
    from gpulens.timeline.secrets import writable, writable_utf8

    assert writable_utf8(text) == expected == writable(text).encode("utf-8")


@pytest.mark.parametrize("text,expected", [
    ("aten::mm 12.5 ms", "aten::mm 12.5 ms"),  # nothing to neutralise: returned as is
    ("ping @octocat", "ping @<!-- -->octocat"),
    ("see #1234", "see #<!-- -->1234"),
    ("cost $5$", "cost \\$5\\$"),
    ("https://evil.example", "https<!-- -->://evil.example"),
    ("WWW.example.com", "WWW<!-- -->.example.com"),
    ("ab\u202ecd", "abcd"),
    ("ctrl\x01", "ctrl\\u0001"),
])
def test_neutralise_fast_path_and_substitutions(text, expected):
    from gpulens.reports._md_safe import neutralise

    assert neutralise(text) == expected


def test_the_html_report_module_imports_no_plotly_and_reads_plotlys_own_version():
    r = _child("""
import sys
import gpulens.reports.html as H
print("plotly" in sys.modules)
v = H.plotlyjs_version()
print("plotly" in sys.modules, v)
from plotly.offline import get_plotlyjs_version
print(v == get_plotlyjs_version())
""")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False", r.stdout.split()[2], "True"]


def test_unknown_everywhere_is_pandas_isna_all_per_column():
    from gpulens.reports._values import unknown_everywhere

    t = pd.DataFrame({"a": [np.nan, np.nan], "b": [1.0, np.nan], "c": [None, None], "d": ["", None],
                      "e": pd.array([pd.NA, pd.NA], dtype="Int64"), "f": pd.Series([None, None], dtype="str")})
    expected = {c: bool(t[c].isna().all()) for c in t.columns}
    assert expected == {"a": True, "b": False, "c": True, "d": False, "e": True, "f": True}
    assert {c: unknown_everywhere(t, c) for c in reversed(t.columns)} == expected


def test_compact_tables_keep_the_duration_the_rows_are_ranked_by():
    """The sort column: the first [ns] duration that never rises down the table over two distinct values or more."""
    from types import SimpleNamespace

    from gpulens.reports.console_other import _sort_column

    t = pd.DataFrame({"op": ["a", "b", "c"], "start_ns": [3.0, 2.0, 1.0], "flat_ns": [5.0, 5.0, 5.0],
                      "rising_ns": [1.0, 2.0, 3.0], "gpu_ns": [9.0, np.nan, 4.0], "host_ns": [8.0, 7.0, 1.0]})
    cols = {"op": "operator [text]", "start_ns": "start on the profiler clock [ns]", "flat_ns": "a [ns]",
            "rising_ns": "b [ns]", "gpu_ns": "GPU time [ns]", "host_ns": "host time [ns]"}
    r = SimpleNamespace(table=t, columns=cols)  # what the function reads of a result
    assert _sort_column(r, list(t.columns)) == "gpu_ns"  # flat (one value) and rising are not; NaN left out
    assert _sort_column(r, ["op", "flat_ns", "rising_ns"]) is None
    assert _sort_column(r, ["host_ns", "gpu_ns"]) == "host_ns"
