"""A cache hit of ``gpulens analyze`` served from stored renderings (issue 16, target 2: the re-run on an unchanged
trace takes well under 1.5 s because nothing is analysed, rendered or even imported beyond the command line).

Each run is a separate process, as a user's re-run is: the first stores the results, the reports and the console
summary; the second must print and write exactly the same (apart from the report's creation time) without importing
pandas or any analyzer; any change of what the output depends on (the trace, ``--top``, an output not stored) must
not be served from the stored renderings.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
_RUN = """
import sys
from gpulens.cli import main
try:
    main(sys.argv[1:])
finally:
    heavy = sorted(m for m in ("pandas", "numpy", "gpulens.analyzers", "gpulens.collectors") if m in sys.modules)
    sys.stderr.write("IMPORTED " + ",".join(heavy) + "\\n")
"""
_CREATED = re.compile(r"20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00")


def _gpulens(env: dict, *args: str) -> tuple[int, str, set[str]]:
    p = subprocess.run([sys.executable, "-c", _RUN, *args], capture_output=True, text=True, env=env, timeout=300)
    imported = re.search(r"IMPORTED (.*)", p.stderr).group(1)
    return p.returncode, p.stdout, set(filter(None, imported.split(",")))


@pytest.fixture
def setup(tmp_path):
    trace = tmp_path / "gen.pt.trace.json"
    gen_kineto.generate(trace, 2000, steps=3)
    env = dict(os.environ, GPULENS_CACHE_DIR=str(tmp_path / "cache"), GPULENS_CACHE_MIN_BYTES="0",
               PYTHONPATH=str(ROOT / "src"), COLUMNS="100")
    return trace, env, tmp_path


def _outputs(tmp: Path, tag: str) -> list[str]:
    return ["--json", str(tmp / f"{tag}.json"), "--html", str(tmp / f"{tag}.html"), "--markdown", str(tmp / f"{tag}.md")]


def _same_apart_from_created(a: Path, b: Path) -> None:
    ta, tb = a.read_text(), b.read_text()
    assert len(_CREATED.findall(ta)) >= 1  # the creation time is in the report, and only it may differ
    assert _CREATED.sub("T", ta) == _CREATED.sub("T", tb)


def test_rerun_is_served_without_analysing_or_importing_pandas(setup):
    trace, env, tmp = setup
    code1, out1, imp1 = _gpulens(env, "analyze", str(trace), *_outputs(tmp, "a"))
    assert code1 == 0 and "pandas" in imp1 and "gpulens.analyzers" in imp1  # the first run analyses
    code2, out2, imp2 = _gpulens(env, "analyze", str(trace), *_outputs(tmp, "b"))
    assert code2 == 0
    assert imp2 == set(), imp2  # nothing heavy: served from the stored renderings
    # the console summary is the same text, bar the report paths it names
    assert out1.replace(str(tmp / "a."), "X.") == out2.replace(str(tmp / "b."), "X.")
    assert "2,000" in out1 or "2000" in out1  # the generator's kernel count is in the summary
    for ext in ("json", "html", "md"):
        _same_apart_from_created(tmp / f"a.{ext}", tmp / f"b.{ext}")
    assert json.loads((tmp / "b.json").read_text())["sources"][0]["summary"]["kernel_count"] == 2000


def test_quiet_runs_are_served_too(setup):
    trace, env, tmp = setup
    code, out, imp = _gpulens(env, "analyze", str(trace), "--json", str(tmp / "a.json"), "-q")
    assert code == 0 and out == "" and "pandas" in imp
    code, out, imp = _gpulens(env, "analyze", str(trace), "--json", str(tmp / "b.json"), "-q")
    assert code == 0 and out == "" and imp == set()
    _same_apart_from_created(tmp / "a.json", tmp / "b.json")


def test_what_the_output_depends_on_is_never_served_stale(setup):
    trace, env, tmp = setup
    _gpulens(env, "analyze", str(trace), "--json", str(tmp / "a.json"), "--top", "5")
    # --top changes the console summary: another stored rendering, so the run analyses (from the results cache)
    code, out, imp = _gpulens(env, "analyze", str(trace), "--top", "2")
    assert code == 0 and "pandas" in imp
    code, out_again, imp = _gpulens(env, "analyze", str(trace), "--top", "2")
    assert imp == set() and out_again == out
    # a Perfetto export is never stored: it needs the Timeline
    code, _, imp = _gpulens(env, "analyze", str(trace), "--top", "2", "--perfetto", str(tmp / "p.json"))
    assert code == 0 and "pandas" in imp and (tmp / "p.json").stat().st_size > 0
    # the trace changes: another key, so the new content is analysed (the generator made 1,500 kernels)
    gen_kineto.generate(trace, 1500, steps=3, seed=1)
    code, _, imp = _gpulens(env, "analyze", str(trace), "--json", str(tmp / "c.json"), "--top", "5")
    assert code == 0 and "gpulens.analyzers" in imp
    assert json.loads((tmp / "c.json").read_text())["sources"][0]["summary"]["kernel_count"] == 1500
