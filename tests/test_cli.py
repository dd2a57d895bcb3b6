import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gpulens
from gpulens.cli import main
from tests.conftest import CASES, KINETO


def run(*args, columns: int | None = None):
    """``gpulens ARGS`` in a fresh process (stdout a pipe: the console is 80 columns wide unless ``columns``)."""
    env = {**os.environ, "COLUMNS": str(columns)} if columns else None
    return subprocess.run([sys.executable, "-c", "from gpulens.cli import main; main()", *args],
                          capture_output=True, text=True, env=env)


def test_demo_runs_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    r = run("analyze", "--demo", "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert "NVIDIA H100 80GB HBM3" in r.stdout
    doc = json.loads(out.read_text())
    assert doc["schema_version"] == 2
    s = doc["sources"][0]
    assert s["summary"]["kernel_count"] == 60
    assert s["summary"]["kernel_time_ns"] == 307_197
    assert s["top_kernels"][0]["calls"] == 17
    assert set(s["analyses"]) >= {"hotspots", "breakdown", "launches"}


def test_json_per_source_fields(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", str(KINETO / "hta_alexnet_a100.json.gz"), str(CASES / "B13.json"),
                 "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    a, b = doc["sources"]
    assert a["summary"]["kernel_count"] == 79 and a["summary"]["kernel_time_ns"] == 10_692_000
    assert b["summary"]["kernel_busy_ns"] == 65_000
    assert a["top_kernels"][0]["name"] == "ampere_sgemm_32x32_sliced1x4_tn"


@pytest.mark.parametrize("content,needle", [(b"", "file is empty"), (b"not a trace", "not a recognised")])
def test_bad_input_one_line_no_traceback(tmp_path, content, needle):
    p = tmp_path / "x.json"
    p.write_bytes(content)
    r = run("analyze", str(p))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert needle in r.stderr and str(p) in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_missing_file_and_no_input():
    r = run("analyze", "/nonexistent/trace.json")
    assert r.returncode == 2 and "no such file" in r.stderr and "Traceback" not in r.stderr
    r = run("analyze")
    assert r.returncode == 2 and "no input" in r.stderr


def test_no_gpu_work_has_its_own_exit_code(tmp_path):
    out = tmp_path / "r.json"
    assert main(["analyze", "-q", str(CASES / "B05a.json"), "--json", str(out)]) == 5
    assert json.loads(out.read_text())["status"] == "no_gpu_work"


def test_never_overwrites_an_input(tmp_path):
    p = tmp_path / "t.json"
    p.write_bytes((CASES / "B04a.json").read_bytes())
    before = p.read_bytes()
    assert main(["analyze", "-q", str(p), "--json", str(p)]) == 2
    assert p.read_bytes() == before


def test_one_file_named_for_two_reports_is_refused(tmp_path):
    """Kind: ``--json X --html X`` wrote the JSON report, then replaced it with the HTML one without a word. Two
    reports sent to one file (also through another spelling of its path) are refused before the analysis runs, and
    a file already there is left as it was."""
    out = tmp_path / "r.out"
    out.write_text("kept")
    r = run("analyze", "--demo", "-q", "--json", str(out), "--html", str(tmp_path / "." / "r.out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "JSON report" in r.stderr and "HTML report" in r.stderr
    assert out.read_text() == "kept"


def test_public_api_is_sorted_and_importable():
    assert gpulens.__all__ == sorted(gpulens.__all__)
    for name in gpulens.__all__:
        assert hasattr(gpulens, name), name


def test_devices_lists_and_shows_specs():
    r = run("devices")
    assert r.returncode == 0 and "NVIDIA H100 SXM" in r.stdout and "AMD Instinct MI355X" in r.stdout
    r = run("devices", "B200")
    assert r.returncode == 0 and "2250 TFLOP/s" in r.stdout and "⚠" in r.stdout  # uncertain bandwidth
    r = run("devices", "Voodoo 5")
    assert r.returncode == 2 and "unknown GPU" in r.stderr


@pytest.mark.parametrize("target", ["dir", "unwritable"])
def test_report_output_errors_are_one_line(tmp_path, target):
    out = tmp_path if target == "dir" else tmp_path / "a_file" / "r.json"
    if target == "unwritable":
        (tmp_path / "a_file").write_text("x")  # the parent of the output is a file
    r = run("analyze", "--demo", "-q", "--json", str(out))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert str(out) in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_help_keeps_bracketed_text():
    r = run("analyze", "--help")
    assert "gpulens[dask]" in r.stdout  # no markup eating "[...]"


def test_closed_stdout_still_writes_the_reports_and_keeps_the_exit_code(tmp_path):
    """`gpulens analyze … | head -1`: the reader goes away before the console output. The command must still write
    its --html/--markdown/--json files and exit with its own code (0), not the command-line library's silent exit 1
    (the exit code of a regression) on the broken pipe (fresh-user walk, seventh session)."""
    import os

    from tests.dig_traces import KTrace

    t = KTrace()
    ext = t.op("aten::mm", 1000.0, 20.0)
    t.launch(ext, 1002.0, [("ampere_sgemm_128x64_tn", 1010.0, 50.0)])
    trace = t.write(tmp_path / "t.json")
    out = {k: tmp_path / f"r.{k}" for k in ("json", "html", "md")}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parents[1] / "src")] +
                                                       [p for p in [os.environ.get("PYTHONPATH")] if p]))
    p = subprocess.Popen([sys.executable, "-c", "from gpulens.cli import main; main()", "analyze", str(trace),
                          "--no-cache", "--json", str(out["json"]), "--html", str(out["html"]),
                          "--markdown", str(out["md"])], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.close()  # the reader is gone before the first byte: every console write hits a broken pipe
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err.decode()
    assert all(f.exists() and f.stat().st_size > 0 for f in out.values())
    assert b"Traceback" not in err


def test_an_error_about_a_file_named_with_a_newline_is_one_line(tmp_path):
    """``str(err)`` of every GpulensError is one line, for the library as for the command: a control character in
    the message (a file named ``a<newline>b_r.ncu-rep``, fuzz_s10 seed 5150 #20) is written as its escape."""
    from gpulens.errors import GpulensError

    p = tmp_path / "a\nb_r.ncu-rep"
    p.write_bytes(b"NVIDIA Nsight Compute\x00" + b"\x00" * 10)  # not a complete report
    with pytest.raises(GpulensError) as err:
        gpulens.analyze([p])
    msg = str(err.value)
    assert "\n" not in msg and msg.startswith(str(tmp_path / "a\\nb_r.ncu-rep"))
    r = run("analyze", str(p))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "a\\nb_r.ncu-rep" in r.stderr
