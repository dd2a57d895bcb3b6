"""Advice and evidence on an AMD input say workgroups, never CUDA's blocks (HIP Programming Guide: a thread block is
a workgroup). rocprof v1 gunrock MI300X read "27260 blocks on 304 CUs", "Give the launch more blocks", "empty block
slots" and, in the occupancy skip reason of ROCm Kineto traces, "LDS per block". Names are never touched: Triton's
``BLOCK_M`` and a kernel called ``reduce_block_kernel`` keep their spelling."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpulens.analyzers._advice import amd_block_words
from gpulens.cli import app

DATA = Path(__file__).parent / "data"


def test_words_swap_only_on_amd_and_only_whole_words():
    s = ("Give the launch more blocks: smaller BLOCK sizes (BLOCK_M…); reduce_block_kernel<block 4> fills "
         "the GPU's resident-block capacity; a thread block of 256; Blocks / CU")
    a = amd_block_words(s, "amd")
    assert "more workgroups:" in a and "resident-workgroup capacity" in a and "a workgroup of 256" in a
    assert "Workgroups / CU" in a
    assert "BLOCK sizes (BLOCK_M…)" in a and "reduce_block_kernel" in a
    assert amd_block_words(s, "nvidia") == s and amd_block_words(s, None) == s


def _report(tmp_path, src):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["analyze", str(src), "--json", str(out), "-q", "--no-cache"])
    assert res.exit_code == 0, res.output
    return json.loads(out.read_text())["sources"][0]


def test_gunrock_mi300x_verdict_evidence_says_workgroups(tmp_path):
    src = _report(tmp_path, DATA / "rocprof" / "v1_gunrock_mi300x")
    rows = src["analyses"]["verdicts"]["table"]
    # the hottest kernel's time-weighted mean grid over 304 CUs (MI300X: 304 CUs, AMD CDNA3 datasheet)
    ev = " ".join(str(r.get("evidence") or "") for r in rows)
    assert " workgroups on 304 CUs" in ev and " blocks on 304 CUs" not in ev
    texts = json.dumps(src["findings"]) + json.dumps(rows)
    assert " blocks" not in texts.replace("BLOCK", "")


def test_rocm_kineto_occupancy_reason_says_workgroup(tmp_path):
    src = _report(tmp_path, DATA / "kineto" / "hta_mi250_minitoy_rocm6.2.json.gz")
    why = src["analyses"]["occupancy"].get("skipped_reason") or src["analyses"]["occupancy"].get("reason") or ""
    why = why or json.dumps(src["analyses"]["occupancy"])
    assert "LDS per workgroup" in why and "per block" not in why


def test_amd_environment_tab_says_work_items_and_workgroups(tmp_path):
    # TraceLens SGLang MI300X (ROCm Kineto deviceProperties: maxThreadsPerBlock, regsPerBlock) read "max threads /
    # block" and "registers / block" beside "LDS / workgroup"
    import gpulens
    from gpulens.reports import html

    page = html.render(gpulens.analyze([DATA / "kineto" / "tracelens_mi300x_sglang_qwen3_decode.json.gz"]))
    assert "max work-items / workgroup" in page and "registers / workgroup" in page
    assert "max threads / block" not in page and "registers / block" not in page
