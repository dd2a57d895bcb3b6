"""Regressions of the session-39 fuzzing (tests/fuzz_s39.py), one per kind of fault, each with its expected value
worked out by hand from the input written here:

* a ``--device-spec`` file with figures at the edge of their type — ``num_sms: 1e400`` or ``memory_gb: Infinity``
  was an internal error (``int(inf)``), a NaN / zero / infinite peak made every "% of peak" NaN or infinite, a
  peak of ``1e-300`` made a percentage of 10^302 that :func:`gpulens.units._half_up` could not format (an internal
  error while reporting), 13.5 SMs became 13 without a word;
* ``gpulens cache clear`` with ``GPULENS_CACHE_DIR`` naming a user's folder deleted the user's ``notes.results``
  and ``notes.results.bak`` (any name ending ``.results``, and every ``<that>.*`` beside it);
* rocprofv2 tracer file-plugin CSV read ``"1_000"``, ``"+5"`` and digits of other scripts (``"٣٠٠٠"``) as
  numbers through ``int()`` (the cli form reads ASCII digits only); a 5,000-digit field refused the whole file
  (``int()``'s digit limit); one process written by both plugins was read as two ranks (every total doubled);
* patterns reading numbers out of file text (rank in a file name, ``ProfilerStep#N``, ncu grids, device ids)
  matched ``\\d`` — any script's digits — so ``rank٣.pt.trace.json`` was rank 3.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "gpulens"


# ---------------------------------------------------------------------------------------------------- device spec
def _spec(tmp_path: Path, **over) -> Path:
    d = {"name": "Test GPU", "compute_capability": "9.0", "num_sms": 132, "memory_gb": 80,
         "figures": {"memory_bandwidth": 3350, "matrix.bf16": 989}}
    figs = over.pop("figures", {})
    d.update(over)
    d["figures"].update(figs)
    p = tmp_path / "spec.json"
    p.write_text(json.dumps(d))  # Python's json writes inf / nan as Infinity / NaN, as it reads them
    return p


@pytest.mark.parametrize("over, words", [
    ({"num_sms": 1e400}, "'num_sms' must be a whole number"),  # 1e400 is inf: int(inf) raised OverflowError
    ({"num_sms": 13.5}, "'num_sms' must be a whole number"),
    ({"num_sms": 0}, "'num_sms' must be a whole number from 1"),
    ({"num_sms": -5}, "'num_sms' must be a whole number from 1"),
    ({"memory_gb": float("inf")}, "'memory_gb' must be a number"),
    ({"figures": {"memory_bandwidth": float("nan")}}, "'memory_bandwidth' must be a positive number"),
    ({"figures": {"memory_bandwidth": 0}}, "'memory_bandwidth' must be a positive number"),
    ({"figures": {"matrix.bf16": 1e308}}, "'matrix.bf16' must be a positive number of at most 1e+09"),
])
def test_device_spec_at_the_edge_is_one_line_error(tmp_path, over, words):
    from gpulens.devices.spec import load_spec
    from gpulens.errors import TraceFormatError

    p = _spec(tmp_path, **over)
    with pytest.raises(TraceFormatError) as e:
        load_spec(p)
    msg = str(e.value)
    assert words in msg and str(p) in msg and "\n" not in msg


def test_device_spec_whole_numbers_as_written_are_read(tmp_path):
    from gpulens.devices.spec import load_spec
    from gpulens.errors import TraceFormatError

    assert load_spec(_spec(tmp_path, num_sms="132")).num_sms == 132  # text of ASCII digits
    assert load_spec(_spec(tmp_path, num_sms=132.0)).num_sms == 132  # an integral float
    # tiny but positive was once kept (a roof of 1e-291 B/s); no GPU has it: refused in one line since session 44
    # (devices.spec.check_plausible; tests/test_trust_s44_figures.py)
    # the smallest built-in bandwidth: GeForce GTX 1060 6GB (added in session 47), 192-bit bus × 8 Gbit/s GDDR5 / 8
    # = 192 GB/s; 192 / 1e-300 = 1.9e302
    with pytest.raises(TraceFormatError, match=r"1/1\.9e302 of the smallest built-in GPU's \(192 GB/s") as e:
        load_spec(_spec(tmp_path, figures={"memory_bandwidth": 1e-300}))
    assert "\n" not in str(e.value)


def test_device_spec_nan_sms_cli_is_one_error_line(tmp_path, capsys):
    from gpulens.cli import main

    trace = tmp_path / "t.pt.trace.json"
    trace.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
         "args": {"device": 0, "stream": 7}}]}))
    spec = _spec(tmp_path, memory_gb=float("inf"))
    code = main(["analyze", str(trace), "-q", "--no-cache", "--device-spec", str(spec)])
    err = capsys.readouterr().err
    assert code == 2  # was 70, "internal error: OverflowError"
    assert [ln for ln in err.splitlines() if ln.startswith("gpulens: error")] == [
        f"gpulens: error: {spec}: Test GPU: 'memory_gb' must be a number from 0 to 1e9, got inf"]


def test_half_up_formats_any_finite_figure():
    from gpulens.units import _half_up, share_pct_text

    # 1e300 has 301 digits before the point: the default 28-digit context raised InvalidOperation
    assert _half_up(1e300, 1) == "1" + "0" * 300 + ".0"
    assert share_pct_text(2.5e20) == "250000000000000000000.0 %"
    assert _half_up(62.5, 0) == "63" and _half_up(0.25, 1) == "0.3"  # the halves-up rule kept


# ---------------------------------------------------------------------------------------------------- cache
def test_cache_clear_removes_only_what_gpulens_wrote(tmp_path, monkeypatch):
    from gpulens import cache
    from gpulens.cli import main

    d = tmp_path / "mine"
    d.mkdir()
    monkeypatch.setenv("GPULENS_CACHE_DIR", str(d))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    user = {"notes.results": b"my notes\n", "notes.results.bak": b"backup\n",
            "x-0123456789abcdef0123456789abcdef.results": b"not sealed\n", ".tmp-mine": b"keep\n"}
    for n, data in user.items():
        (d / n).write_bytes(data)
    (d / ".tmp-folder").mkdir()  # a user's folder of that prefix (not tempfile's 8-character name)
    trace = tmp_path / "t.pt.trace.json"
    trace.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
         "args": {"device": 0, "stream": 7}}]}))
    assert main(["analyze", str(trace), "-q", "--json", str(tmp_path / "r.json")]) == 0
    ours = [f for f in d.iterdir() if f.is_file() and f.read_bytes().startswith(b"gpulens-sealed-1\n")]
    ours += [f for f in d.iterdir() if f.is_dir() and (f / "gpulens-cache.json").is_file()]
    assert ours  # the run stored its results (and its Timeline)
    cache.clear()
    for n, data in user.items():
        assert (d / n).read_bytes() == data, n
    assert (d / ".tmp-folder").is_dir()
    left = [f for f in d.iterdir() if f.is_file() and f.read_bytes().startswith(b"gpulens-sealed-1\n")]
    assert not left and not any((f / "gpulens-cache.json").exists() for f in d.iterdir() if f.is_dir())


# ---------------------------------------------------------------------------------------------------- rocprofv2
_V2_HEAD = "Domain,Operation,Kernel_Name,Start_Timestamp,Stop_Timestamp,Correlation_ID\n\n"
_V2_CLI = ("Domain(HIP_OPS_DOMAIN), Operation_Name(KernelExecution), Kernel_Name(k), Start_Timestamp({}), "
           "End_Timestamp({}), Correlation_ID({})\n")


def test_rocprofv2_csv_times_of_other_scripts_are_dropped_rows(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "hcc_ops_trace_4242.csv"
    three = "".join(chr(0x0660 + int(c)) for c in "3000")  # ٣٠٠٠ — int() reads 3000
    p.write_text(_V2_HEAD + 'HIP_OPS_DOMAIN,"KernelExecution","k",1000,2000,1\n'
                 f'HIP_OPS_DOMAIN,"KernelExecution","k",{three},4000,2\n'
                 'HIP_OPS_DOMAIN,"KernelExecution","k",1_000,5000,3\n'
                 'HIP_OPS_DOMAIN,"KernelExecution","k",+6000,7000,4\n')
    tl = collect(p, strict=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    # one well-formed row: 1000..2000 ns; the other three (٣٠٠٠, 1_000, +6000) are damage
    assert k["start_ns"].tolist() == [1000] and k["dur_ns"].tolist() == [1000]
    assert any("3 rows dropped" in w for w in tl.meta.warnings)


def test_rocprofv2_field_past_int_digit_limit_drops_its_row(tmp_path):
    from gpulens.collectors import collect

    p = tmp_path / "4242_hcc_ops_trace.txt"
    p.write_text(_V2_CLI.format(1000, "9" * 5000, 1) + _V2_CLI.format(3000, 3500, 2))
    tl = collect(p, strict=False)  # was: the whole file refused ("Exceeds the limit (4300 digits)")
    k = tl.events[tl.events["kind"] == "kernel"]
    assert k["start_ns"].tolist() == [3000] and k["dur_ns"].tolist() == [500]
    assert any("beyond int64" in w for w in tl.meta.warnings)


def test_rocprofv2_one_process_by_both_plugins_is_read_once(tmp_path):
    from gpulens.collectors import collect

    recs = [(1000, 2000, 1), (3000, 3400, 2), (5000, 5100, 3)]  # 3 kernels, 1000 + 400 + 100 = 1500 ns
    (tmp_path / "4242_hcc_ops_trace.txt").write_text("".join(_V2_CLI.format(*r) for r in recs))
    (tmp_path / "hcc_ops_trace_4242.csv").write_text(_V2_HEAD + "".join(
        f'HIP_OPS_DOMAIN,"KernelExecution","k",{b},{e},{c}\n' for b, e, c in recs))
    tl = collect(tmp_path, strict=False)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert len(k) == 3 and int(k["dur_ns"].sum()) == 1500  # was 6 kernels on "ranks" 0 and 1, 3000 ns
    assert any("process 4242 again" in w and "hcc_ops_trace_4242.csv" in w for w in tl.meta.warnings)


def test_rocprofv2_two_processes_numbered_as_ranks_is_said(tmp_path):
    from gpulens.collectors import collect

    for pid, start in ((4242, 1000), (4343, 9000)):
        (tmp_path / f"{pid}_hcc_ops_trace.txt").write_text(_V2_CLI.format(start, start + 100, 1))
    tl = collect(tmp_path, strict=False)
    assert sorted(tl.events.loc[tl.events["kind"] == "kernel", "rank"].tolist()) == [0, 1]
    assert any("2 processes' outputs read as ranks 0–1" in w and "rank 1 = 4343_hcc_ops_trace.txt" in w
               for w in tl.meta.warnings)


# ---------------------------------------------------------------------------------------------------- digits
_FUNCS = {"compile", "match", "search", "fullmatch", "findall", "finditer", "sub", "subn", "split"}


def _unicode_digit_patterns(folder: Path) -> list[str]:
    """``re`` calls under ``folder`` whose pattern is a str literal holding ``\\d`` without ``re.ASCII``: in a str
    pattern ``\\d`` matches every script's digits, which ``int()`` then reads as numbers."""
    out = []
    for f in sorted(folder.rglob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FUNCS
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == "re" and n.args):
                continue
            a = n.args[0]
            if not (isinstance(a, ast.Constant) and isinstance(a.value, str) and "\\d" in a.value):
                continue
            flags = " ".join(ast.unparse(x) for x in [*n.args[1:], *(k.value for k in n.keywords)])
            if "ASCII" not in flags and "re.A" not in flags.replace("re.ASCII", ""):
                out.append(f"{f.relative_to(SRC)}:{n.lineno}")
    return out


def test_patterns_reading_numbers_from_files_take_ascii_digits_only():
    bad = [x for d in ("collectors", "timeline", "devices", "analyzers", "reports", "diff")
           for x in _unicode_digit_patterns(SRC / d)]
    assert bad == []


def test_rank_and_step_in_other_script_digits_are_no_number(tmp_path):
    from gpulens.collectors._parallel import file_rank
    from gpulens.timeline.selection import STEP_NAME

    f = tmp_path / "rank\u0663.pt.trace.json"  # rank٣
    f.write_text('{"traceEvents": []}')
    assert file_rank(f) is None  # was 3
    g = tmp_path / "rank_3.pt.trace.json"
    g.write_text('{"traceEvents": []}')
    assert file_rank(g) == 3
    assert STEP_NAME.match("ProfilerStep#\uff13") is None  # full-width ３: was step 3
    assert STEP_NAME.match("ProfilerStep#3").group(1) == "3"


# ---------------------------------------------------------------------------------------------------- console text
def test_gate_console_shows_a_baseline_name_escape_visibly(tmp_path, capsys):
    from gpulens.cli import main

    trace = tmp_path / "t.pt.trace.json"
    trace.write_text(json.dumps({"traceEvents": [
        {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,
         "args": {"device": 0, "stream": 7}}]}))
    rep = tmp_path / "r.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(rep)]) == 0
    capsys.readouterr()
    main(["gate", str(rep), "--baseline", "x\x1b[31m", "--store", str(tmp_path / "store")])
    out = capsys.readouterr()
    text = out.out + out.err
    # the reason line quotes the name: ESC (0x1b) written as the 6 visible characters \u001b, never raw
    assert "\x1b" not in text and "no baseline file x\\u001b[31m (no such file)" in text  # no store name has an ESC
