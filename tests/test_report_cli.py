"""``gpulens analyze --html/--markdown/--perfetto``: the files are written, and an input is never overwritten."""

import json
import shutil

from gpulens.cli import main
from tests.conftest import KINETO


def test_analyze_writes_all_three_reports(tmp_path):
    html, md, pf = tmp_path / "r.html", tmp_path / "sub" / "r.md", tmp_path / "r.perfetto.json"
    assert main(["analyze", "-q", str(KINETO / "hta_alexnet_a100.json.gz"), "--html", str(html),
                 "--markdown", str(md), "--perfetto", str(pf)]) == 0
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "ampere_sgemm_32x32_sliced1x4_tn" in page
    assert "ampere\\_sgemm\\_32x32\\_sliced1x4\\_tn" in md.read_text()
    doc = json.loads(pf.read_text())
    kernels = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "kernel"]
    assert len(kernels) == 79  # the A100 AlexNet trace's kernel count (as in test_cli)


def test_refuses_to_overwrite_the_input(tmp_path, capsys):
    trace = tmp_path / "t.json.gz"
    shutil.copy(KINETO / "hta_mi250_minitoy_rocm6.2.json.gz", trace)
    before = trace.read_bytes()
    for opt in ("--html", "--markdown", "--perfetto"):
        assert main(["analyze", "-q", str(trace), opt, str(trace)]) == 2
        assert "refusing to overwrite an input trace" in capsys.readouterr().err
    assert trace.read_bytes() == before
