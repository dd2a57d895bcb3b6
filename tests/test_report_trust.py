"""Every figure a report shows is right, and the same in console, JSON, HTML and Markdown (the TRUST leftovers a
newcomer found on real traces): breakdowns add up to the span, the hardware spec used is named everywhere, raw
driver/architecture numbers are decoded, different GPUs are noted in a diff, short kernel names tell kernels apart,
and the console stays readable at 80 columns without splitting a number from its unit.

Expected values come from the trace files themselves (events read with ``json``, unions computed here) or from the
vendors' documented encodings, never from gpulens's own output.
"""

from __future__ import annotations

import gzip
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

import gpulens
from gpulens.report import Report
from gpulens.reports import console, html, json_report, markdown
from tests.conftest import KINETO, shared_trace

H100 = KINETO / "tracelens_h100_bert-small.json.gz"
_MS = {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1e3}


def _ms(text: str) -> float:
    """``"585.43 µs"`` → 0.58543 (ms)."""
    v, u = text.replace(",", "").split()
    return float(v) * _MS[u]


def _trace(path: Path, events: list[tuple[str, str, float, float]], device: str = "NVIDIA H100 80GB HBM3",
           extra: dict | None = None, props: dict | None = None) -> Path:
    """A tiny Kineto trace: (category, name, ts µs, dur µs) GPU events on stream 7 of device 0 (``props``: the
    device record instead of an H100's)."""
    evs = [{"ph": "X", "cat": c, "name": n, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": i + 1, "grid": [132, 1, 1], "block": [256, 1, 1],
                     "registers per thread": 32, "shared memory": 0}}
           for i, (c, n, ts, dur) in enumerate(events)]
    doc = {"schemaVersion": 1, "deviceProperties": [props or {"id": 0, "name": device, "computeMajor": 9,
                                                               "computeMinor": 0, "numSms": 132,
                                                               "totalGlobalMem": 85018279936}],
           "traceEvents": evs, **(extra or {})}
    path.write_text(json.dumps(doc))
    return path


# --- 1. the breakdown adds up to the span in every report --------------------------------------------------------

#: kernel 0–10 µs, memset 12–15 µs, memcpy 20–24 µs, kernel 30–40 µs: span 40 µs = computation 20 +
#: exposed memcpy 4 + exposed memset 3 + idle 13 (hand calculation; nothing overlaps).
SMALL = [("kernel", "k_a", 1000.0, 10.0), ("gpu_memset", "Memset (Device)", 1012.0, 3.0),
         ("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 1020.0, 4.0), ("kernel", "k_b", 1030.0, 10.0)]


def _console_breakdown(text: str) -> dict[str, str]:
    sec = text[text.index("Time breakdown"):]
    sec = sec[:sec.index("└")]
    return {m.group(1).strip(): m.group(2) for m in re.finditer(r"│ ([=\w ]+?) +│ +([\d.,]+ [µnm]?s) │", sec)}


def test_breakdown_parts_add_up_to_the_span_in_every_report(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path / "t.json", SMALL)])
    expected = {"computation": 0.020, "exposed communication": 0.0, "exposed memcpy": 0.004,
                "exposed memset": 0.003, "idle": 0.013}
    for width in (80, 120):
        parts = _console_breakdown(console.render(rep, width=width))
        assert {k: round(_ms(v), 6) for k, v in parts.items() if k != "= GPU span"} == expected
        assert _ms(parts["= GPU span"]) == pytest.approx(0.040)
    md = markdown.render(rep)
    row = next(line for line in md.splitlines() if line.startswith("| 0 | 0 |"))
    head = md.splitlines()[md.splitlines().index(row) - 2]
    cells = dict(zip([c.strip() for c in head.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    assert _ms(cells["exposed memset"]) == pytest.approx(0.003)
    assert sum(_ms(cells[k]) for k in expected) == pytest.approx(_ms(cells["span"]))
    sm = json.loads(json_report.render(rep))["sources"][0]["summary"]
    assert sm["exposed_memset_ns"] == 3000
    assert sum(sm[k] for k in ("computation_ns", "exposed_comm_ns", "exposed_memcpy_ns", "exposed_memset_ns",
                               "idle_ns")) == sm["span_ns"] == 40_000
    page = html.render(rep)
    assert re.search(r"exposed memset</th><td class='num' data-v='3000'>3\.00 µs", page)
    assert "exposed memset 3.00 µs" in page


def _union(ivs: list[tuple[int, int]]) -> int:
    tot, cur = 0, None
    for s, e in sorted(ivs):
        if cur is None or s > cur[1]:
            tot += cur[1] - cur[0] if cur else 0
            cur = [s, e]
        else:
            cur[1] = max(cur[1], e)
    return tot + (cur[1] - cur[0] if cur else 0)


def test_v100_breakdown_shows_the_exposed_memset_that_closed_the_row():
    """The V100 trace's console row was 0.59 ms short of its span: the exposed memset had no column."""
    path = shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")
    doc = json.load(gzip.open(path), parse_float=Decimal)
    gpu = ("kernel", "gpu_memcpy", "gpu_memset")
    ev = [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") in gpu]
    iv = lambda cats: [(int(e["ts"] * 1000), int((e["ts"] + e["dur"]) * 1000)) for e in ev if e["cat"] in cats]
    every = iv(("kernel", "gpu_memcpy", "gpu_memset"))
    memset_ns = _union(every) - _union(iv(("kernel", "gpu_memcpy")))  # 585,435 ns from the file
    span_ns = max(e for _, e in every) - min(s for s, _ in every)
    rep = gpulens.analyze([path])
    parts = _console_breakdown(console.render(rep, width=80))
    assert _ms(parts["exposed memset"]) == pytest.approx(memset_ns / 1e6, abs=1e-5)  # shown to 0.01 µs
    assert _ms(parts["= GPU span"]) == pytest.approx(span_ns / 1e6, abs=5e-3)
    shown = sum(_ms(v) for k, v in parts.items() if k != "= GPU span")
    assert shown == pytest.approx(_ms(parts["= GPU span"]), abs=0.02)  # 5 parts rounded to 0.01 ms at most


# --- 2. the hardware spec the analysis used is named in every report ---------------------------------------------

def test_every_report_names_the_spec_the_analysis_used(tmp_path):
    # an "H100 80GB HBM3" with 132 SMs is the SXM part (the PCIe card has 114 SMs: NVIDIA H100 datasheet)
    rep = gpulens.analyze([_trace(tmp_path / "t.json", SMALL)])
    want = "NVIDIA H100 80GB HBM3 (analysed as NVIDIA H100 SXM)"
    assert want in console.render(rep, width=120)
    assert want in markdown.render(rep)
    page = html.render(rep)
    key = page[page.index("<h3>Key figures</h3>"):]
    assert want in key[:key.index("</section>")]


def test_no_spec_identified_is_said_not_left_blank(tmp_path):
    rep = gpulens.analyze([_trace(tmp_path / "t.json", SMALL, props={"id": 0, "name": "Mystery Accelerator 9000"})])
    for text in (console.render(rep, width=120), markdown.render(rep)):
        assert "Mystery Accelerator 9000 (no hardware spec identified" in " ".join(text.split())


# --- 3. raw driver and architecture numbers are decoded where the encoding is documented --------------------------

def test_versions_decoded_by_their_documented_encodings():
    from gpulens.devices.naming import arch_text, version_text

    # cuDriverGetVersion: 1000 × major + 10 × minor (CUDA 9.2 = 9020) → 12090 = 12.9, 12040 = 12.4
    assert version_text(12090, "cuda_driver_version") == "CUDA 12.9"
    assert version_text(12040, "cuda_runtime_version") == "CUDA 12.4"
    # hipDriverGetVersion: major × 10,000,000 + minor × 100,000 + patch → 60443483 = 6.4.43483
    assert version_text(60443483, "hip_driver_version") == "HIP 6.4.43483"
    assert version_text(60443483) == "HIP 6.4.43483"  # no vendor in the key: the magnitude says which
    assert version_text(4, "driver_version") == "4 (raw driver value, encoding unknown)"
    # ROCm reports gfx94x as "9.4"; a 304-CU MI300X is gfx942 (AMD CDNA3 ISA guide)
    assert arch_text({"name": "AMD Instinct MI300X VF", "compute_capability": "9.4", "num_sms": 304,
                      "warp_size": 64}) == "gfx942 (HIP reports 9.4)"
    assert arch_text({"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}) == \
        "compute capability 9.0 (sm_90)"


def test_html_environment_and_gate_show_decoded_versions(tmp_path):
    amd = shared_trace("kineto/tracelens_mi300x_bert-small.json.gz")
    raw = json.load(gzip.open(amd))
    assert raw["hip_driver_version"] == 60443483  # what Kineto wrote at the top level
    # the same trace's torch metadata spells the HIP version out: the decoding must agree with it
    spelled = re.search(r'"hip_runtime_version": "([\d.]+)"', json.dumps(raw["metadata"])).group(1)
    assert spelled == "6.4.43483"
    page = html.render(gpulens.analyze([amd]))
    env = " ".join(re.sub(r"<[^>]+>", " ", page[page.index('id="page-environment"'):]).split())
    assert f"HIP driver {spelled}" in env and "gfx942 (HIP reports 9.4)" in env and "60443483" not in env
    from gpulens.cli import main

    outs = []
    for name, trace in (("amd", amd), ("nv", H100)):
        outs.append(tmp_path / f"{name}.json")
        assert main(["analyze", str(trace), "--json", str(outs[-1]), "-q", "--no-cache"]) == 0
    gate_json = tmp_path / "gate.json"
    main(["gate", "--baseline", str(outs[0]), str(outs[1]), "--json", str(gate_json), "-q"])
    mism = " ".join(json.loads(gate_json.read_text())["mismatches"])
    assert "driver (the runtime version it supports): baseline HIP 6.4.43483, candidate CUDA 12.9" in mism
    assert "gfx942 (HIP reports 9.4)" in mism and "compute capability 9.0 (sm_90)" in mism


# --- 4. a diff across different GPUs says so in every output ------------------------------------------------------

def test_diff_across_vendors_notes_the_different_gpus(tmp_path):
    from gpulens.diff import diff
    from gpulens.reports.diff import render_console, render_html, render_json, render_markdown

    base = _trace(tmp_path / "b.json", SMALL, device="AMD Instinct MI300X")
    cand = _trace(tmp_path / "c.json", SMALL, device="NVIDIA H100 80GB HBM3")
    r = diff(base, cand)
    doc = json.loads(render_json(r))
    assert doc["summary"]["base_vendors"] == ["AMD"] and doc["summary"]["cand_vendors"] == ["NVIDIA"]
    for text in (render_console(r, width=200), render_markdown(r), render_html(r), json.dumps(doc["warnings"])):
        flat = " ".join(text.split())
        assert "different GPUs" in flat and "AMD vs NVIDIA" in flat
    same = diff(base, _trace(tmp_path / "c2.json", SMALL, device="AMD Instinct MI300X"))
    assert not any("different GPUs" in w for w in same.warnings)


# --- 5. short kernel names tell different kernels apart -----------------------------------------------------------

CUTLASS = [  # as nsys writes them (codegandee_rtx5090 cuda_gpu_kern_sum.csv) and as Kineto does (void …::Params)
    "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_32x4_nn_align8>(T1::Params)",
    "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_64x3_tn_align8>(T1::Params)",
    "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>(T1::Params)",
    "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>"
    "(cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8::Params)",
    "void at::native::vectorized_elementwise_kernel<8, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>>",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
    "std::array<char*, 3ul>>",
]


def test_short_names_tell_cutlass_and_template_variants_apart():
    from gpulens.reports._names import short_names

    labels = short_names(CUTLASS)
    assert len(set(labels)) == len(CUTLASS)
    assert not any("Kernel2" in s for s in labels)
    # the tile shapes name the CUTLASS configuration; the vector width <8> / <4> the elementwise variant
    assert "128x128 32x4" in labels[0] and "128x128 64x3" in labels[1] and "32x32 128x2" in labels[3]
    assert labels[4].endswith("‹8›") and labels[5].endswith("‹4›")
    assert not any(re.search(r"\(\d+\)$", s) for s in labels)  # never told apart by a mere "(2)"


def test_diff_names_cutlass_kernels_by_their_real_name():
    from gpulens.diff import diff

    r = diff(shared_trace("kineto/tracelens_mi300x_bert-small.json.gz"), H100)
    k = r.tables["kernels"]
    cells = " ".join(k.loc[k["match"] == "op+shapes", "kernels"])
    assert "cutlass" in cells and "Kernel2" not in cells


# --- 6. readable at 80 columns; a number never parted from its unit -----------------------------------------------

def test_verdict_next_steps_leave_the_table_at_80_columns():
    rep = gpulens.analyze([H100])
    for width in (80, 120):
        text = console.render(rep, width=width)
        assert max(len(line) for line in text.splitlines()) <= width
        sec = text[text.index("Kernel verdicts"):]
        table = sec[:sec.index("└")]
        rows = [line for line in table.splitlines() if line.startswith("│")]
        starts = [line for line in rows if re.match(r"│ +\d+ │", line)]
        assert starts and len(rows) <= 2 * len(starts)  # a row takes at most two lines (was ~17 at 80 columns)
        if width == 80:
            assert "[1] next step: " in sec


def test_number_and_unit_never_break_apart():
    from rich.console import Console

    from gpulens.reports._fit import Col, FitTable, GluedText, _two_lines

    advice = "The grid fills only 12 % of the GPU (0.12 waves): 3.56 ms waiting, 25 % idle"
    for width in range(16, 40):  # wider than the longest glued word, "(0.12 waves):"
        lines = [str(x) for x in GluedText(advice).wrap(Console(width=200), width)]
        for a, b in zip(lines, lines[1:]):
            assert not (re.search(r"\d$", a.rstrip()) and re.match(r"(%|ms|waves)\b", b.lstrip())), (width, a, b)
        assert " ".join(" ".join(lines).split()) == advice
    for width in (40, 50, 60):
        c = Console(width=width, record=True, file=open("/dev/null", "w"), color_system=None)
        c.print(FitTable("t", [Col("kernel", "left", figure=False), Col("note", "left", figure=False)],
                         [["k", advice]]))
        cells = [ln.split("│")[2].strip() for ln in c.export_text().splitlines() if ln.startswith("│")]
        for a, b in zip(cells, cells[1:]):
            assert not (re.search(r"\d$", a) and b.startswith(("%", "ms", "waves"))), (width, a, b)
    assert _two_lines("95 % CI") == "95 %\nCI"


def test_multi_gpu_breakdown_fits_80_columns_with_every_part():
    """Two ranks: the per-GPU row of times is 89 characters wide; at 80 columns it was cut after 'exposed memset'
    (the idle column lost). Every layout keeps every part, and each GPU's parts add up to its span."""
    rep = gpulens.analyze([shared_trace("kineto/multirank_hta_trace_filter")])
    bd = rep.sources[0].results["breakdown"].table
    for width in (80, 120):
        text = console.render(rep, width=width)
        sec = text[text.index("Time breakdown"):]
        sec = sec[:sec.index("└")]
        assert max(len(line) for line in sec.splitlines()) <= width
        assert "idle" in sec and "memset" in sec
        for idle in bd["idle_ns"]:  # each GPU's idle time is on the page (the column cut at 80 columns before)
            assert f"{idle / 1e6:.2f} ms" in sec


def test_device_capacities_read_as_vendors_print_them():
    """Memory, caches and shared memory in binary units (nvidia-smi, rocminfo), never '233.47 kB' for 228 KiB."""
    page = html.render(gpulens.analyze([H100]))
    env = " ".join(re.sub(r"<[^>]+>", " ", page[page.index("Devices as recorded"):]).split())
    # the trace records totalGlobalMem 85018279936 B = 79.18 GiB, sharedMemPerMultiprocessor 233472 B = 228 KiB
    raw = json.load(gzip.open(H100))["deviceProperties"][0]
    assert raw["totalGlobalMem"] == 85018279936 and raw["sharedMemPerMultiprocessor"] == 233472
    assert "memory 79.18 GiB" in env and "shared memory / SM 228 KiB" in env and "233.47 kB" not in env
    assert "architecture compute capability 9.0 (sm_90)" in env


def test_markdown_idle_causes_add_up_to_idle():
    """The Markdown showed the first 8 columns of the idle table: host and launch, not the 5.48 ms queued."""
    rep = gpulens.analyze([shared_trace("kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz")])
    lines = markdown.render(rep).splitlines()
    i = lines.index("### Where the idle time went")
    head = next(x for x in lines[i:] if x.startswith("| rank"))
    row = lines[lines.index(head) + 2]
    cells = dict(zip([c.strip() for c in head.strip("|").split("|")], [c.strip() for c in row.strip("|").split("|")]))
    causes = [k for k in cells if k.startswith("idle: ")]
    assert "idle: queued" in causes
    assert sum(_ms(cells[k]) for k in causes) == pytest.approx(_ms(cells["idle"]), abs=0.01 * len(causes))


def test_gate_kernel_labels_never_read_alike():
    """Two rocBLAS/Tensile kernels share their first 80 characters: the gate Markdown clipped both to one text."""
    from types import SimpleNamespace

    from gpulens.reports.gate_fmt import metric_labels

    stem = "Cijk_Alik_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT128x144x64_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_"
    ids = [f"kernel:{stem}GRVWA8_WG32_8_1", f"kernel:{stem}GRVWA4_WG16_16_1", "span_ns"]
    assert ids[0][:88] == ids[1][:88]  # the same first 80 characters after "kernel "
    labels = metric_labels([SimpleNamespace(metric=i) for i in ids])
    assert labels[ids[0]] != labels[ids[1]] and labels["span_ns"] == "GPU span"
    assert all(len(labels[i]) < 100 for i in ids)


def test_multi_gpu_verdict_sentence_says_whose_busy_share_it_is():
    """'the GPU was busy 46.0 % of its 1.23 s span' for two GPUs read as 566 ms busy; the figure is Σ busy / Σ span."""
    folder = shared_trace("kineto/multirank_hta_trace_filter")
    busy = span = 0
    for f in sorted(folder.glob("*.json.gz")):  # per rank: union of its GPU events over its first → last GPU event
        doc = json.load(gzip.open(f), parse_float=Decimal)
        iv = [(int(e["ts"] * 1000), int((e["ts"] + e["dur"]) * 1000)) for e in doc["traceEvents"]
              if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        busy += _union(iv)
        span += max(e for _, e in iv) - min(s for s, _ in iv)
    text = " ".join(console.render(gpulens.analyze([folder]), width=200).split())
    m = re.search(r"the 2 GPUs were busy ([\d.]+) % of their summed spans \(([\d.]+ s);", text)
    assert m, text[:400]
    assert float(m.group(1)) == pytest.approx(100 * busy / span, abs=0.2)
    assert _ms(m.group(2)) == pytest.approx(span / 1e6, rel=0.01)


def test_roofline_heading_names_the_spec_in_every_report():
    """The console titled the roofline with its spec and FLOP coverage; the HTML and Markdown said neither."""
    rep = gpulens.analyze([H100])
    head = "Roofline on NVIDIA H100 SXM (FLOPs known for"
    assert head in console.render(rep, width=160)
    assert f"### {head}" in markdown.render(rep)
    page = html.render(rep)
    assert head in page[page.index('id="page-roofline"'):]
