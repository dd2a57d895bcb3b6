"""Session 48 (wave 2, a new user's report): what gpulens shows at its surfaces.

Kind 1 — a closed pipe: ``gpulens analyze truncated.json 2>&1 | head -4`` exited 1 (the README's code of a
*performance regression*) because the one-line error went into a pipe whose reader had gone (BrokenPipeError). With
its standard output and/or standard error closed early, every command still exits with the code of what happened
(2 bad input or usage, 0 success) and never 1."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

_PKG_ROOT = str(Path(__import__("gpulens").__file__).resolve().parents[1])
_ENV = {**os.environ, "PYTHONPATH": _PKG_ROOT, "GPULENS_CACHE_DIR": ""}
_KINETO = Path("/work/shared/traces/kineto")

#: README: "2 bad input or usage", "0 success" (gpulens.errors: EXIT_USAGE / EXIT_OK); 1 is a regression only
BAD_INPUT, OK = 2, 0


def _closed_early(args: list[str], closed: str, cwd: Path) -> tuple[int, str]:
    """Run ``gpulens ARGS`` with its pipe(s) closed by the reader before it writes: ``both`` (``2>&1 | head -0``),
    ``stderr`` (stdout to /dev/null) or ``stdout`` (stderr read). Returns (exit code, stderr text if it was read)."""
    env = {**_ENV, "GPULENS_CACHE_DIR": str(cwd / "cache")}
    out = subprocess.PIPE if closed in ("both", "stdout") else subprocess.DEVNULL
    err = subprocess.STDOUT if closed == "both" else subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-m", "gpulens", *args], stdout=out, stderr=err, env=env, cwd=cwd)
    if closed in ("both", "stdout"):
        proc.stdout.close()
    if closed == "stderr":
        proc.stderr.close()
    text = proc.stderr.read().decode(errors="replace") if closed == "stdout" else ""
    if closed == "stdout":
        proc.stderr.close()
    return proc.wait(timeout=300), text


@pytest.fixture(scope="module")
def truncated(tmp_path_factory) -> Path:
    """The first 2,000 bytes of a real Kineto trace: JSON cut mid-way, bad input by any reading."""
    src = next(p for p in sorted(_KINETO.glob("*.json")) if p.stat().st_size > 4000) if _KINETO.is_dir() else None
    if src is None:
        pytest.skip("needs /work/shared/traces/kineto")
    path = tmp_path_factory.mktemp("w2") / "truncated.json"
    path.write_bytes(src.read_bytes()[:2000])
    return path


@pytest.mark.parametrize("closed", ["both", "stderr", "stdout"])
def test_bad_input_into_a_closed_pipe_exits_2_not_1(truncated, closed):
    code, err = _closed_early(["analyze", str(truncated)], closed, truncated.parent)
    assert code == BAD_INPUT, (closed, code, err)
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["diff", "{t}", "{t}"],
    ["baseline", "{t}", "-o", "{d}/baseline_out.json"],
    ["devices", "--no-such-option"],
    ["cache", "--no-such-option"],
    ["gate", "--no-such-option"],
])
def test_every_command_keeps_its_bad_input_code_into_a_closed_pipe(truncated, args):
    args = [a.format(t=truncated, d=truncated.parent) for a in args]
    code, _ = _closed_early(args, "both", truncated.parent)
    assert code == BAD_INPUT, (args, code)


@pytest.mark.parametrize("args", [["devices"], ["analyze", "--demo"]])
def test_success_into_a_closed_pipe_exits_0(tmp_path, args):
    code, _ = _closed_early(args, "both", tmp_path)
    assert code == OK, (args, code)


# Kinds 2 and 3 — the HTML report's roofline words: a ridge label named its roof in brackets inside brackets
# ("ridge 39.9 FLOP/B (vector bf16 (CUDA cores))"), and a kernel page showed "unit of that % (its peak): roofline"
# with the share it names left out (said once as "% of roofline"): a unit of no row beside two other shares.

def _nested_brackets(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch == "("
        if depth > 1:
            return True
        depth -= ch == ")"
    return False


@pytest.fixture(scope="module")
def h100():
    import gpulens

    trace = _KINETO / "tracelens_h100_bert-small.json.gz"
    if not trace.exists():
        pytest.skip("needs the shared H100 trace")
    return gpulens.analyze([trace])


@pytest.fixture(scope="module")
def h100_page(h100):
    from gpulens.reports import html

    return html.render(h100)


def test_ridge_labels_have_no_brackets_in_brackets(h100_page):
    import json
    import re

    specs = [json.loads(m.group(1)) for m in
             re.finditer(r'<script type="application/json" id="fig-\d+-spec">(.*?)</script>', h100_page, re.S)]
    ridges = [a["text"] for s in specs for a in s.get("layout", {}).get("annotations", [])
              if str(a.get("text", "")).startswith("ridge ")]
    assert ridges, "the H100 roofline draws at least one ridge point"
    # the figure first, then the roof it belongs to: "ridge 39.9 FLOP/B · vector bf16 (CUDA cores)"
    assert all(re.match(r"ridge [\d.,]+ [kM]?FLOP/B · (matrix|vector) ", t) for t in ridges), ridges
    assert not [t for t in ridges if _nested_brackets(t)], ridges


def test_kernel_page_names_no_unit_of_a_share_it_left_out(h100_page):
    import re

    pages = re.findall(r'<section class="kpage".*?</section>', h100_page, re.S)
    assert pages
    unit = "unit of that % (its peak)"
    for page in pages:
        if unit in page:
            assert "bound&#x27;s % of peak" in page or "bound's % of peak" in page, page[:300]


def test_roofline_legend_carries_each_kernels_verdict_word(h100, h100_page):
    """Each marker's legend entry names the verdict table's word of its kernels (its ``verdict`` column): the points
    per word on the chart are the plotted kernels (AI and FLOP/s above 0) with that verdict; none claims a cause
    ("latency / occupancy / launch") that the verdict table does not give."""
    import json
    import re
    from collections import Counter

    src = h100.sources[0]
    vt, rt = src.results["verdicts"].table, src.results["roofline"].table
    verdict = dict(zip(vt["name"].astype(str), vt["verdict"].astype(str)))
    plotted = rt[(rt["arithmetic_intensity"].astype(float) > 0) & (rt["flops_per_s"].astype(float) > 0)]
    want = Counter(verdict[str(n)] for n in plotted["name"] if str(n) in verdict)
    specs = [json.loads(m.group(1)) for m in
             re.finditer(r'<script type="application/json" id="fig-\d+-spec">(.*?)</script>', h100_page, re.S)]
    marks = [t for sp in specs for t in sp["data"] if str(t.get("mode", "")).startswith("markers")]
    assert marks and want
    got: Counter = Counter()
    for t in marks:
        assert "latency / occupancy / launch" not in t["name"]
        words = [w for w in want if f"verdict {w} " in t["name"] or t["name"].startswith(f"{w} ")]
        assert len(words) == 1, t["name"]
        got[words[0]] += len(t["x"])
    assert got == want


# Kind 4 — the diff page's per-kernel table (16 columns: three kernel-name columns, base and candidate figures, Δ)
# was 1,634 px wide in a 1,280 px window (tracelens H100 vs HTA A100): it scrolled sideways. Every table now fits.

def test_diff_tables_fit_a_1280px_window(tmp_path):
    from tests.test_trust_s35_html import headless_chromium

    a, b = _KINETO / "tracelens_h100_bert-small.json.gz", _KINETO / "hta_a100_triton_example.json.gz"
    if not (a.exists() and b.exists()):
        pytest.skip("needs the shared Kineto traces")
    page = tmp_path / "d.html"
    subprocess.run([sys.executable, "-m", "gpulens", "diff", str(a), str(b), "--html", str(page)], env=_ENV,
                   cwd=tmp_path, timeout=300, capture_output=True)
    assert page.exists()
    drv = headless_chromium("--window-size=1280,900")
    try:
        drv.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                            {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
        drv.get(page.as_uri())
        wide = drv.execute_script(
            "return Array.prototype.map.call(document.querySelectorAll('.tablewrap'),"
            "function(w){return [w.closest('section').id, w.scrollWidth, w.clientWidth]})")
    finally:
        drv.quit()
    assert any(s == "kernels" for s, _, _ in wide)
    assert [x for x in wide if x[1] > x[2] + 1] == [], wide
