"""User-facing wording follows the input's vendor: an AMD input reads CU / wavefront / LDS / rocprofv3 / HIP, an
NVIDIA one SM / warp / shared memory / nsys / CUDA, and one whose vendor is unknown both (``SM/CU``) — in the
console, Markdown, HTML and JSON alike, never another vendor's tool or unit.

The inputs: the rocprof v1 Gunrock directory recorded on an MI300X (``results.sysinfo.txt`` names gfx942: AMD) and
its kernels leave GPU gaps no launch call explains (a GPU-only trace: the host-trace advice appears); an Nsight
Systems SQLite export from an H200 (NVIDIA).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gpulens.analyzers import _advice
from gpulens.report import analyze
from gpulens.reports import console, html, json_report, markdown

DATA = Path(__file__).parent / "data"
AMD = DATA / "rocprof" / "v1_gunrock_mi300x"
#: rocprof-compute workload (MI300X): occupancy limiters, stall classes, speed of light in AMD counters
AMD_COUNTERS = DATA / "omniperf" / "vcopy_MI300X_A1"
NVIDIA = DATA / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite"
#: ncu --page details CSV (RTX 5090): occupancy and speed of light in NVIDIA counters
NVIDIA_COUNTERS = DATA / "nvidia" / "codegandee_rtx5090_ncu-v2_kernel_0005_details.csv"

#: Another vendor's words in advice or headers (the tool's own API names, e.g. torch.cuda, are not advice words).
NOT_ON_AMD = re.compile(r"\bSMs?\b|SM/CU|SMs/CUs|blk/SM|blocks / SM|\bnsys\b|CUDA API|CUDA graphs|CUDA/HIP|"
                        r"\bwarps?\b|cudaLaunch")
NOT_ON_NVIDIA = re.compile(r"\bCUs?\b|SM/CU|SMs/CUs|blk/CU|blocks / CU|wavefront|rocprof|HIP graphs|CUDA/HIP|"
                           r"\bLDS\b|hipLaunch")


def _texts(path: Path) -> dict[str, str]:
    rep = analyze([str(path)])
    js = json.loads(json_report.render(rep))
    # JSON: the sentences a person reads (findings, next steps, skip reasons); the column documentation is one
    # vendor-neutral schema for every input ("SMs / CUs of the device"), not advice
    words = [v for v in _strings(_drop_docs(js)) if " " in v]
    return {"console": console.render(rep, width=200), "markdown": markdown.render(rep),
            "html": html.render(rep), "json": "\n".join(words)}


def _drop_docs(v):
    if isinstance(v, dict):
        # limiter codes ("warps, blocks") are data values documented once for both vendors, not prose
        return {k: _drop_docs(x) for k, x in v.items() if k not in ("columns", "summary_columns", "limiter",
                                                                     "limiters")}
    return [_drop_docs(x) for x in v] if isinstance(v, list) else v


def _strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)


def _hits(pattern: re.Pattern, text: str) -> list[str]:
    return sorted({text[max(m.start() - 40, 0):m.end() + 40].replace("\n", " ") for m in pattern.finditer(text)})


@pytest.mark.parametrize("fmt", ["console", "markdown", "html", "json"])
def test_amd_input_reads_amd_words(fmt):
    text = _amd()[fmt]
    assert "rocprof" in text  # the AMD host-trace advice is there (a GPU-only trace: unattributed idle)
    assert _hits(NOT_ON_AMD, _visible(text, fmt)) == []


@pytest.mark.parametrize("fmt", ["console", "markdown", "html", "json"])
def test_amd_counter_input_reads_amd_words(fmt):
    assert _hits(NOT_ON_AMD, _visible(_cached("amd_counters", AMD_COUNTERS)[fmt], fmt)) == []


@pytest.mark.parametrize("fmt", ["console", "markdown", "html", "json"])
def test_nvidia_input_reads_nvidia_words(fmt):
    assert _hits(NOT_ON_NVIDIA, _visible(_nvidia()[fmt], fmt)) == []


@pytest.mark.parametrize("fmt", ["console", "markdown", "html", "json"])
def test_nvidia_counter_input_reads_nvidia_words(fmt):
    assert _hits(NOT_ON_NVIDIA, _visible(_cached("nvidia_counters", NVIDIA_COUNTERS)[fmt], fmt)) == []


def _visible(text: str, fmt: str) -> str:
    """HTML: the page's text without scripts and styles (the embedded plotting library is not user-facing text)."""
    if fmt != "html":
        return text
    text = re.sub(r"(?s)<(script|style)\b.*?</\1>", " ", text)
    return re.sub(r"<[^>]+>", " ", text)


_CACHE: dict[str, dict[str, str]] = {}


def _cached(key: str, path: Path) -> dict[str, str]:
    if key not in _CACHE:
        _CACHE[key] = _texts(path)
    return _CACHE[key]


def _amd() -> dict[str, str]:
    return _CACHE.setdefault("amd", _texts(AMD))


def _nvidia() -> dict[str, str]:
    return _CACHE.setdefault("nvidia", _texts(NVIDIA))


def test_vendor_words_unknown_vendor_names_both():
    assert _advice.vendor_word(None, "sms") == "SMs/CUs"
    assert _advice.vendor_word("amd", "sm") == "CU" and _advice.vendor_word("nvidia", "sm") == "SM"
    assert "nsys" in _advice.vendor_word(None, "host_trace") and "rocprofv3" in _advice.vendor_word(None, "host_trace")


def test_ncu_rules_absence_reads_in_the_vendors_terms():
    """Kind: the "Not analysed" list told a user of an AMD input that it held "no Nsight Compute rule results", as
    if NVIDIA's profiler had been forgotten; on AMD the reason names what plays that part there, on NVIDIA the
    missing ncu input stays the reason."""
    amd = analyze([AMD]).sources[0].results["ncu_rules"]
    nvidia = analyze([NVIDIA]).sources[0].results["ncu_rules"]
    assert amd.skipped and nvidia.skipped
    assert "AMD" in amd.skipped_reason and "rocprof-compute" in amd.skipped_reason
    assert "no Nsight Compute rule results in the input" == nvidia.skipped_reason
    assert "Not analysed" in markdown.render(analyze([AMD]))
