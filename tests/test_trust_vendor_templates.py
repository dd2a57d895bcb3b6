"""Every sentence of advice is written once as a template and read in the input's vendor's words (session 10,
"trust"): an AMD report never names SMs, warps, CUDA, ncu or nsys, an NVIDIA one never CUs, wavefronts, HIP, LDS,
MFMA or rocprof. Before, the stall guidance, the limiter and stall steps, the idle advice ("CUDA/HIP graphs"), the
wave finding ("resident per SM"), the roofline coverage note ("ncu, rocprof-compute") and ``gpulens devices``
("SMs/CUs" for an MI300X) were written for both vendors at once.

The expected vendor of each real input is read from the file itself (its gfx architecture or GPU name), not from
gpulens; recorded names (kernels, ops, runtime calls) are left out of the check: they are the user's, not advice."""

from __future__ import annotations

import gzip
import json
import re

import pytest

import gpulens
from gpulens.analyzers import _advice, stalls, verdict_rules
from tests.conftest import KINETO

NOT_ON = {"amd": re.compile(r"\bSMs?\b|SM/CU|\bwarps?\b|\bCUDA\b|\bncu\b|\bnsys\b|cp\.async|\bTMA\b|tensor cores"),
          "nvidia": re.compile(r"\bCUs?\b|SM/CU|wavefronts?|\bHIP\b|\bLDS\b|MFMA|rocprof|amdgpu|s_barrier")}


def _templates():
    """Every advice template table (text with {key} placeholders) of the analyzers."""
    for table in (verdict_rules._LIMITER_STEP, verdict_rules._STALL_STEP, stalls.GUIDANCE):
        yield from table.values()
    for steps in verdict_rules.STEPS.values():
        yield from steps
    for table in (_advice.IDLE_ACTIONS, _advice.IDLE_DETAILS):
        for cause, text in {**table[True], **table[False]}.items():
            if cause != "unattributed":  # "record the host side" names both tools' host tracing, as a fallback
                yield text


def _rendered(vendor):
    out = [_advice.vendor_text(t, vendor) for t in _templates()]
    out += [_advice.whole_waves(fam, lib, "gemm_kernel", pt, vendor)
            for fam in ("gemm", "elementwise") for lib in (False, True) for pt in (False, True)]
    out += [_advice.precision_step(p, roof, pt, vendor) or "" for p in (None, "bf16", "fp32", "tf32")
            for roof in ("matrix.bf16", "vector.fp32", "matrix.tf32") for pt in (False, True)]
    out += [_advice.host_path_action("cpu_op", False, vendor) or ""]
    out += [_advice.runtime_path_action(call, pt, vendor)[1] for call in ("LaunchKernel", "Memcpy")
            for pt in (False, True)]
    return out


@pytest.mark.parametrize("vendor", ["amd", "nvidia"])
def test_every_template_reads_in_one_vendors_words(vendor):
    texts = _rendered(vendor)
    assert all("{" not in t or "{top}" in t for t in texts)  # every placeholder filled ({top}: the caller's)
    hits = sorted({m.group(0) + ": " + t[:90] for t in texts for m in NOT_ON[vendor].finditer(t)})
    assert hits == []


def test_unknown_vendor_names_both():
    text = " ".join(_rendered(None))
    assert "SMs/CUs" in text and "warps/wavefronts" in text and "CUDA/HIP graphs" in text


def _file_vendor(path):
    """The vendor as the Kineto file records it: an AMD gfx architecture ("gcnArchName") or an NVIDIA compute
    capability / GPU name in ``deviceProperties``."""
    op = gzip.open if str(path).endswith(".gz") else open
    with op(path, "rt") as fh:
        props = json.load(fh).get("deviceProperties") or []
    text = json.dumps(props)
    return "amd" if re.search(r"gfx\d|Instinct|AMD", text) else "nvidia" if re.search(
        r"computeMajor|NVIDIA|Tesla|A100|H100", text) else None


@pytest.mark.parametrize("name", ["tracelens_mi300x_bert-small.json.gz", "hta_mi250_minitoy_rocm6.2.json.gz",
                                  "aorta_mi350x_train_step.pt.trace.json", "tracelens_h100_bert-small.json.gz",
                                  "hta_alexnet_a100.json.gz"])
def test_kineto_reports_speak_their_vendors_words(name):
    path = KINETO / name
    vendor = _file_vendor(path)
    assert vendor in ("amd", "nvidia")
    src = gpulens.analyze([path]).sources[0]
    recorded = sorted({str(n) for n in src.timeline.events["name"].dropna().unique()}, key=len, reverse=True) \
        if hasattr(src, "timeline") and src.timeline is not None else []
    texts = [t for f in src.findings() for t in (f.title, f.detail, f.action or "")]
    texts += [r.skipped_reason for r in src.results.values() if r.skipped and r.skipped_reason]
    texts += [s for r in src.results.values() if r.table is not None and "next_steps" in r.table
              for steps in r.table["next_steps"] for s in (steps or [])]
    hits = []
    for t in texts:
        for n in recorded:  # the user's own names are not advice
            if len(n) > 3 and n in t:
                t = t.replace(n, "")
        hits += [m.group(0) + ": " + t[max(0, m.start() - 50):m.end() + 30] for m in NOT_ON[vendor].finditer(t)]
    assert hits == []


def test_device_record_of_a_rocm_kineto_trace_reads_in_amd_words():
    # tracelens_mi300x_bert-small's deviceProperties: HIP reports "compute capability" 9.4 and no gfx field; the
    # name says AMD. Its environment page read "SMs 304, warp size 64, shared memory / SM"
    from gpulens.reports._html_pages import record_items

    rec = {"name": "AMD Instinct MI300X VF", "compute_capability": "9.4", "num_sms": 304, "warp_size": 64,
           "max_threads_per_sm": 2048, "smem_per_sm_bytes": 65536, "smem_per_block_bytes": 65536,
           "hip_driver_version": 60443483}
    labels = [label for label, _ in record_items(rec)]
    # s32: AMD says work-items and workgroups (HIP Programming Guide), not threads and blocks
    assert {"CUs", "wavefront size", "max work-items / CU", "LDS / CU", "LDS / workgroup"} <= set(labels)
    assert not any(NOT_ON["amd"].search(label) for label in labels)
    nv = dict(record_items({"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "num_sms": 132,
                            "smem_per_sm_bytes": 233472}))
    assert nv["SMs"] == "132" and "shared memory / SM" in nv
