"""Table headers in the vendor's words (s32 vocabulary review).

On ROCm inputs the occupancy and kernel tables read "block size", "registers / thread", "blocks / CU", "grid blocks",
"shared memory" — CUDA's words. AMD's (HIP Programming Guide; CDNA ISA): a work-item runs in a wavefront, wavefronts
form a workgroup, workgroups run on a CU; registers are VGPRs per work-item (rocprof's ``arch_vgpr`` +
``accum_vgpr``); shared memory is LDS. NVIDIA's (CUDA C++ Programming Guide): thread, warp, block, SM, registers per
thread, shared memory. Each header that names such a unit is now in the input's vendor's words — console, Markdown
and HTML (tables and kernel pages); the JSON keeps its keys (``block_size``, ``regs_per_thread``…: stable for tools).

Inputs: the rocprof v1 Gunrock run on an MI300X (gfx942) and the rocprof-compute vcopy workload on an MI300X (AMD);
the ncu details CSV of an RTX 5090 (NVIDIA).
"""

from __future__ import annotations

import html as _html
import json
import re
from pathlib import Path

import pytest

from gpulens.report import analyze
from gpulens.reports import console, html, json_report, markdown

DATA = Path(__file__).parent / "data"
AMD_INPUTS = [DATA / "rocprof" / "v1_gunrock_mi300x", DATA / "omniperf" / "vcopy_MI300X_A1"]
NVIDIA_INPUT = DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"

#: CUDA's unit words in a header (as whole words): never on an AMD input's table.
CUDA_HEADER = re.compile(r"\bblocks?\b|\bblk/|\bregs\b|registers / thread|shared memory|smem|\bwarps?\b|\bSMs?\b|"
                         r"\bthreads?\b")
#: AMD's unit words in a header: never on an NVIDIA input's table.
AMD_HEADER = re.compile(r"workgroups?|\bWG\b|VGPRs?|work-items?|\bLDS\b|\bCUs?\b|wavefronts?")


def _headers(rep) -> dict[str, list[str]]:
    """Every table header a person reads: HTML ``<th>`` and kernel-page labels, Markdown header rows, the console's
    occupancy header block."""
    page = html.render(rep)
    page = re.sub(r"<script.*?</script>", "", page, flags=re.S)
    th = [_html.unescape(re.sub(r"<[^>]+>", "", h)) for h in re.findall(r"<th\b[^>]*>(.*?)</th>", page, flags=re.S)]
    kv = [_html.unescape(h) for h in re.findall(r'<td class="k">(.*?)</td>', page)]
    kv += [_html.unescape(h) for h in re.findall(r"<dt>(.*?)</dt>", page)]
    md: list[str] = []
    md_lines = markdown.render(rep).splitlines()
    for i, line in enumerate(md_lines[:-1]):
        if line.startswith("| ") and md_lines[i + 1].startswith("|---"):
            md += [h.strip().replace("\\", "") for h in line.strip("| ").split(" | ")]
    text = console.render(rep, width=200)
    occ = text.split("Occupancy (", 1)[1].split("└", 1)[0] if "Occupancy (" in text else ""
    cons = [ln for ln in occ.splitlines() if ln.startswith("┃")]
    return {"html": th + kv, "markdown": md, "console": cons}


@pytest.mark.parametrize("path", AMD_INPUTS, ids=lambda p: p.name)
def test_amd_tables_use_amd_words(path):
    if not path.exists():
        pytest.skip(f"{path} absent")
    rep = analyze([str(path)])
    heads = _headers(rep)
    for where, hs in heads.items():
        cuda = sorted({h for h in hs if CUDA_HEADER.search(h)})
        # "lane" (GPU stream or CPU thread) is a timeline lane, not a launch unit; "launch thread" likewise
        cuda = [h for h in cuda if not re.search(r"\blane\b|launch thread|thread id", h)]
        assert not cuda, f"{path.name} {where}: CUDA words in AMD headers: {cuda}"
    occ = rep.sources[0].results["occupancy"]
    if not occ.skipped and len(occ.table):
        assert "workgroup size" in heads["html"] and "VGPRs / work-item" in heads["html"]
        assert "workgroups / CU" in heads["html"] and "LDS / workgroup" in heads["html"]
        assert "workgroup size" in heads["markdown"] and "VGPRs / work-item" in heads["markdown"]
        joined = " ".join(heads["console"])
        assert "WG" in joined and "VGPRs" in joined and "WG/CU" in joined
        # JSON keys stay the schema's
        js = json.loads(json_report.render(rep))
        occ_js = js["sources"][0]["analyses"]["occupancy"]
        assert {"block_size", "regs_per_thread", "active_blocks_per_sm", "smem_bytes"} <= set(occ_js["columns"])


def test_amd_occupancy_limiter_words():
    path = DATA / "omniperf" / "vcopy_MI300X_A1"
    if not path.exists():
        pytest.skip(f"{path} absent")
    text = console.render(analyze([str(path)]), width=200)
    occ = text.split("Occupancy (", 1)[1].split("└", 1)[0]
    # the vcopy kernel's tied block limits are wavefront slots and workgroup slots (rocprof-compute: 256 work-items
    # per workgroup, 8 workgroups per CU at most on CDNA3 = 32 wavefronts of 64 at most per CU…), but at 100 %
    # theoretical occupancy neither limits anything: the cell reads "no limiter" (s47: one wording in every report);
    # a limiter cell is in AMD words
    from gpulens.reports._values import limiter_text

    assert "│ 100.0 │" in occ and "│ no limiter │" in occ and "blocks" not in occ
    assert limiter_text("warps, blocks", "amd") == "wavefronts + workgroups"


def test_nvidia_tables_keep_cuda_words():
    if not NVIDIA_INPUT.exists():
        pytest.skip(f"{NVIDIA_INPUT} absent")
    rep = analyze([str(NVIDIA_INPUT)])
    heads = _headers(rep)
    for where, hs in heads.items():
        amd = sorted({h for h in hs if AMD_HEADER.search(h)})
        assert not amd, f"{where}: AMD words in NVIDIA headers: {amd}"
    assert "grid blocks" in heads["html"] + heads["markdown"]


def _findings(rep):
    return [f for r in rep.sources[0].results.values() for f in r.findings]


def test_small_grid_and_balance_advice_in_the_vendor_words():
    mi300 = DATA / "kineto" / "tracelens_mi300x_bert-small.json.gz"
    h100 = DATA / "kineto" / "tracelens_h100_bert-small.json.gz"
    vcopy = DATA / "omniperf" / "vcopy_MI300X_A1"
    if not (mi300.exists() and h100.exists() and vcopy.exists()):
        pytest.skip("test data absent")
    (amd,) = [f for f in _findings(analyze([str(mi300)])) if f.key == "small-grid"]
    assert "fewer workgroups than 90 % of the CUs" in amd.title and "Give them more workgroups" in amd.detail
    (nv,) = [f for f in _findings(analyze([str(h100)])) if f.key == "small-grid"]
    assert "fewer blocks than 90 % of the SMs" in nv.title and "Give them more blocks" in nv.detail
    actions = [f.action for f in _findings(analyze([str(vcopy)]))]
    assert any("Balance work across wavefronts and workgroups, or launch more workgroups per grid wave" in a
               for a in actions)
    assert not any("and blocks" in a for a in actions)
