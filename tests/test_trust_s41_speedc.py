"""Speed of ``gpulens analyze``'s fixed costs, report writers and cache (issue 16): what is imported, and what is
worked out once — never a change of what the reports say.

* ``--json`` alone imports neither plotly (the HTML report's charts) nor rich's live display (a spinner, shown on a
  terminal only), nor ``webbrowser`` / ``rich.table`` (other commands'), nor the HTML writer; ``--html`` does import
  the HTML writer (so the check can fail) — and no plotly either since session 43 (the page embeds the plotly.js bundle
  shipped in gpulens/data; plotly's version is read from its version module);
* the recorded devices split into those that ran GPU work and the idle ones (:func:`gpulens.devices.split_by_work`,
  a pass over every event) is worked out once per source, whichever reports are written, and a cache hit of the
  analysis results names the devices without loading the Timeline's events again;
* the stand-in for the spinner where rich draws nothing leaves the console's output as rich's status leaves it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.test_trust_s28_real import _kineto_two_gpus

#: the folder holding the imported gpulens package (site-packages when installed, src/ in a checkout)
_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])

#: kernels of the two-GPU trace run on device 0, the A100; the A40 is recorded and idle (the trace's own props)
_USED, _IDLE = "NVIDIA A100-SXM4-80GB", "NVIDIA A40"

_CHILD = r"""
import atexit, sys
watch = ("plotly", "rich.live", "rich.status", "webbrowser", "rich.table", "gpulens.reports.html")
atexit.register(lambda: sys.stderr.write("IMPORTED=" + ",".join(m for m in watch if m in sys.modules) + "\n"))
sys.argv = ["gpulens", "analyze", *sys.argv[1:]]
from gpulens.cli import main
main()
"""


def _run_cli(tmp_path: Path, *args: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": _PKG_ROOT, "GPULENS_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("COLUMNS", None)
    p = subprocess.run([sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    line = [x for x in p.stderr.splitlines() if x.startswith("IMPORTED=")][-1]
    return set(filter(None, line[len("IMPORTED="):].split(",")))


def test_a_json_report_imports_no_chart_library_nor_live_display(tmp_path):
    """The console script's own process (stdout a pipe, as in CI): ``--json`` alone needs no plotly and no rich live
    display; ``--html`` imports the HTML writer (the same check finds it), and no plotly."""
    trace = _kineto_two_gpus(tmp_path / "t.json", 0)
    got = _run_cli(tmp_path, str(trace), "--no-cache", "-q", "--json", str(tmp_path / "r.json"))
    assert got == set()
    assert json.loads((tmp_path / "r.json").read_text())["sources"][0]["device_text"].startswith(_USED)
    got = _run_cli(tmp_path, str(trace), "--no-cache", "-q", "--html", str(tmp_path / "r.html"))
    assert got == {"gpulens.reports.html"}


def test_the_devices_that_ran_work_are_worked_out_once_per_source(tmp_path, monkeypatch):
    """JSON, HTML, Markdown and the console summary all name the run's GPU (the A100, device 0, ran the 3 kernels)
    and the idle A40 apart — from one pass over the events, not one per report."""
    import gpulens.devices as D
    from gpulens.report import analyze
    from gpulens.reports import html, json_report, markdown
    from gpulens.reports.console import print_report
    from rich.console import Console

    calls = []
    real = D.split_by_work

    def counting(tl):
        calls.append(1)
        return real(tl)

    monkeypatch.setattr(D, "split_by_work", counting)
    rep = analyze([_kineto_two_gpus(tmp_path / "t.json", 0)])
    text = json.loads(json_report.render(rep))["sources"][0]["device_text"]
    assert text.startswith(_USED) and text.endswith(f"also recorded, no GPU work on it: {_IDLE}")
    page, md = html.render(rep), markdown.render(rep)
    con = Console(file=io.StringIO(), width=200)
    print_report(rep, con)
    assert f"no GPU work on it: {_IDLE}" in page and text in md
    assert f"no GPU work on it: {_IDLE}" in con.file.getvalue()
    assert len(calls) == 1


def test_a_cache_hit_names_the_devices_without_loading_the_timeline(tmp_path, monkeypatch):
    """Analysis results served from the cache (a report not rendered before, here the HTML and Markdown): the device
    line is the same as the fresh analysis's, and the Timeline (every event of the trace) is not read for it."""
    from gpulens.report import LazyTimeline, analyze
    from gpulens.reports import html, json_report, markdown

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    trace = _kineto_two_gpus(tmp_path / "t.json", 1)  # the A40 ran the kernels this time; the A100 idled
    fresh = json.loads(json_report.render(analyze([trace], cache=True)))["sources"][0]["device_text"]
    hit = analyze([trace], cache=True)
    tl = hit.sources[0].timeline
    assert isinstance(tl, LazyTimeline)
    again = json.loads(json_report.render(hit))["sources"][0]["device_text"]
    page, md = html.render(hit), markdown.render(hit)
    assert tl._tl is None  # never loaded
    assert again == fresh and fresh.startswith("NVIDIA A40") and fresh.endswith("no GPU work on it: "
                                                                                 "NVIDIA A100-SXM4-80GB")
    assert "no GPU work on it: NVIDIA A100-SXM4-80GB" in page and fresh in md


def test_the_spinner_stand_in_leaves_the_output_as_rich_leaves_it():
    """Where rich draws no status (output not a terminal), the stand-in changes nothing the console writes; on a
    terminal the command still gets rich's spinner."""
    from rich.console import Console
    from rich.status import Status

    from gpulens.cli._console import status

    outs = []
    for make in (lambda c: c.status("Loading x …"), lambda c: status(c, "Loading x …")):
        con = Console(file=io.StringIO(), width=80)
        with make(con) as st:
            st.update("Loading y …")
            con.print("figure 1.00 ms")
        outs.append(con.file.getvalue())
    assert outs[0] == outs[1] == "figure 1.00 ms\n"
    assert not isinstance(status(Console(file=io.StringIO())), Status)
    assert isinstance(status(Console(file=io.StringIO(), force_terminal=True)), Status)
