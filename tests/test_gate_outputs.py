"""Gate outputs: JUnit XML in the common JUnit structure, size-limited escaped Markdown, console order, JSON."""

import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from gpulens.gate import GateConfig, run_gate
from gpulens.gate.baseline import Baseline
from gpulens.gate.runs import Metric, RunSet
from gpulens.reports import gate_console, gate_fmt, gate_junit, gate_markdown

ENV = {"gpus": ["NVIDIA H100 80GB HBM3"], "gpu_count": 1, "arch": ["9.0"], "ranks": 1, "driver": "12040",
       "runtime": "12040", "torch": None, "collectors": ["kineto"], "tool_version": "0.1.0"}
EVIL = "<script>alert(1)</script> | `x` *y*"
EVIL_KEY = "<script>alert(1)</script> | `x`*y*"  # kernel_key: no blank before '*' (C++ pointer spelling)


def _sets(n_kernels: int, slow: dict[str, float], n: int = 6, name_len: int = 20, seed: int = 0):
    """A baseline and a candidate with ``n_kernels`` kernels; ``slow`` maps kernel index names to slowdowns."""
    rng = np.random.default_rng(seed)
    names = [EVIL] + [f"k{i:05d}_" + "t" * name_len for i in range(n_kernels - 1)]
    share = {k: 0.5 if i == 0 else 0.5 / (n_kernels - 1) for i, k in enumerate(names)}

    def metrics(factor):
        out = {"span_ns": Metric("span_ns", "timing", "ns", list(1e6 * factor.get("span", 1) *
                                                                 (1 + 0.01 * rng.standard_normal(n)))),
               "kernel_count": Metric("kernel_count", "count", "", [100.0 + factor.get("count", 0)] * n)}
        for k in names:
            key = "kernel:" + k
            out[key] = Metric(key, "timing", "ns", list(1e4 * factor.get(k, 1) * (1 + 0.01 * rng.standard_normal(n))),
                              share=[share[k]] * n, calls=[4] * n)
        return out

    runs = [{"label": f"r{i}", "report": "x.json", "status": "ok", "created": None} for i in range(n)]
    base = Baseline("main", "2026-01-01T00:00:00+00:00", "0.1.0", 1, "h100-x1", ENV, runs, metrics({}))
    cand = RunSet(runs, [], ENV, "h100-x1", 1, metrics(slow))
    return base, cand, names


def test_verdicts_order_and_non_gating_small_kernels():
    base, cand, names = _sets(30, {EVIL: 1.3, "count": 1})
    res = run_gate(base, cand, GateConfig())
    assert res.verdict == "REGRESSED"
    first = res.metrics[0]
    assert first.metric == "kernel:" + EVIL_KEY and first.verdict == "REGRESSED"
    kc = next(m for m in res.metrics if m.metric == "kernel_count")
    assert kc.verdict == "REGRESSED" and kc.reason == "100 → 101 (+1)"
    # 0.5 / 29 = 1.7 % of kernel time each: gating; with a 2 % floor they are reported only
    assert all(m.gating for m in res.metrics)
    res2 = run_gate(base, cand, GateConfig(min_kernel_share=0.02))
    small = [m for m in res2.metrics if m.metric.startswith("kernel:k")]
    assert small and not any(m.gating for m in small)
    assert res2.metrics[-1].gating is False      # non-gating rows come last


def test_console_lists_regressions_first():
    base, cand, _ = _sets(5, {EVIL: 1.3})
    text = gate_console.render(run_gate(base, cand, GateConfig()), width=160)
    lines = [x for x in text.splitlines() if x.startswith("│")]
    # the console shows the kernel by its short name ("alert": the name before its "(...)" argument list)
    assert lines and "REGRESSED" in lines[0] and "kernel alert " in lines[0]
    assert text.splitlines()[0] == "gpulens gate: REGRESSED"


ALLOWED = {"testsuites": {"testsuite"}, "testsuite": {"properties", "testcase", "system-out", "system-err"},
           "properties": {"property"}, "property": set(),
           "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
           "failure": set(), "error": set(), "skipped": set(), "system-out": set(), "system-err": set()}
ATTRS = {"testsuites": ({"name", "time", "tests", "failures", "errors"}, set()),
         "testsuite": ({"name", "tests", "failures", "errors", "time", "skipped", "timestamp", "hostname", "id",
                        "package", "group", "file", "log", "url"}, {"name", "tests", "failures", "errors"}),
         "testcase": ({"name", "time", "classname", "group"}, {"name"}),
         "property": ({"name", "value"}, {"name", "value"}),
         "failure": ({"type", "message"}, set()), "error": ({"type", "message"}, set()),
         "skipped": ({"type", "message"}, set()), "properties": (set(), set()),
         "system-out": (set(), set()), "system-err": (set(), set())}


def check_junit(text: str) -> ET.Element:
    """Validate against the common JUnit XML structure (the Jenkins/Surefire layout): allowed children and
    attributes per element, required attributes, numeric counts that match the testcases, decimal times."""
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    for el in root.iter():
        assert el.tag in ALLOWED, el.tag
        for child in el:
            assert child.tag in ALLOWED[el.tag], (el.tag, child.tag)
        allowed, required = ATTRS[el.tag]
        assert set(el.attrib) <= allowed, (el.tag, set(el.attrib) - allowed)
        assert required <= set(el.attrib), (el.tag, required - set(el.attrib))
        if "time" in el.attrib:
            assert re.fullmatch(r"\d+(\.\d*)?", el.attrib["time"])
    for suite in [root, *root.iter("testsuite")]:
        cases = list(suite.iter("testcase"))
        assert int(suite.get("tests")) == len(cases)
        assert int(suite.get("failures")) == sum(1 for c in cases if c.find("failure") is not None)
        assert int(suite.get("errors")) == sum(1 for c in cases if c.find("error") is not None)
    return root


def test_junit_has_one_testcase_per_metric_and_the_common_structure():
    base, cand, names = _sets(8, {EVIL: 1.3})
    res = run_gate(base, cand, GateConfig())
    root = check_junit(gate_junit.render(res))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert len(cases) == len(res.metrics) == 8 + 2
    assert cases["kernel:" + EVIL_KEY].find("failure").get("type") == "REGRESSED"
    assert cases["span_ns"].find("failure") is None
    suite = root.find("testsuite")
    assert suite.get("failures") == "1"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["verdict"] == "REGRESSED" and props["baseline"] == "main"


def test_junit_for_run_level_outcomes():
    base, cand, _ = _sets(3, {})
    cand.runs, cand.metrics = [], {}
    cand.excluded = [{"label": "x", "report": "x", "status": "no_gpu_work", "reason": "no GPU work (0 kernels)"}]
    root = check_junit(gate_junit.render(run_gate(base, cand, GateConfig())))
    (case,) = root.iter("testcase")
    assert case.get("name") == "gate" and case.find("error") is not None
    other = dict(ENV, gpus=["NVIDIA A100-SXM4-80GB"])
    base, cand, _ = _sets(3, {})
    cand.environment = other
    root = check_junit(gate_junit.render(run_gate(base, cand, GateConfig())))
    assert all(c.find("skipped") is not None for c in root.iter("testcase"))


def test_junit_survives_control_characters():
    base, cand, _ = _sets(3, {})
    bad = "kernel:weird\x01name\x1b[0m"
    for rs in (base, cand):
        rs.metrics[bad] = Metric(bad, "timing", "ns", [5.0] * 6, share=[0.001] * 6, calls=[1] * 6)
    check_junit(gate_junit.render(run_gate(base, cand, GateConfig())))


def test_markdown_is_escaped_and_stays_under_the_limit():
    base, cand, _ = _sets(800, {EVIL: 1.3}, name_len=150)     # ~800 rows of ~300 characters
    res = run_gate(base, cand, GateConfig(bootstrap=200))
    md = gate_markdown.render(res)
    assert len(md) < 65_000
    # the kernel is named by its short label (headline and table alike): no raw markup from its name anywhere
    label = gate_fmt.metric_labels(res.metrics)["kernel:" + EVIL_KEY]
    assert "<script>" not in md and "</script>" not in md and label == "kernel alert"
    assert "omitted to stay under 65,000 characters" in md
    visible = md.split("<details>")[0]
    assert "▲ REGRESSED" in visible and visible.count(label) >= 2     # headline and the top table's row
    # a table row never has more cells than its header (escaped pipes do not split cells)
    rows = [x for x in md.splitlines() if x.startswith("| ")]
    widths = {len(re.split(r"(?<!\\)\|", x)) for x in rows}
    assert len(widths) == 1


def test_markdown_small_result_is_complete():
    base, cand, _ = _sets(4, {})
    md = gate_markdown.render(run_gate(base, cand, GateConfig()))
    assert md.startswith("## ✓ gpulens gate: PASS")
    assert "omitted" not in md and md.count("| ✓ PASS") == 6


@pytest.mark.parametrize("limit", [3000, 10_000])
def test_markdown_respects_smaller_limits(limit):
    base, cand, _ = _sets(200, {EVIL: 1.3}, name_len=60)
    md = gate_markdown.render(run_gate(base, cand, GateConfig(bootstrap=200)), limit=limit)
    assert len(md) <= limit and "REGRESSED" in md


def test_json_document_round_trips():
    base, cand, _ = _sets(4, {EVIL: 1.3})
    res = run_gate(base, cand, GateConfig())
    doc = json.loads(json.dumps(res.to_dict(), allow_nan=False))
    assert doc["gpulens_gate"] == 1 and doc["verdict"] == "REGRESSED"
    assert doc["counts"]["REGRESSED"] == 1 and doc["counts"]["PASS"] == 5
    assert doc["config"]["threshold"] == 0.05


def test_console_at_a_narrow_width_never_cuts_a_change():
    # the change column of a regressed metric reads whole at the width of a CI log (a +30 % slowdown was "+3")
    base, cand, _ = _sets(5, {EVIL: 1.3})
    text = gate_console.render(run_gate(base, cand, GateConfig()), width=64)
    assert max(len(line) for line in text.splitlines()) <= 64
    rows = [x for x in text.splitlines() if x.startswith("│") and "REGRESSED" in x]
    assert rows and all(re.search(r"\+\d+(\.\d+)? %", x) for x in rows), rows


def test_headline_names_a_kernel_as_its_table_row_does():
    """The headline's reason named a regressed kernel by its full id (``kernel:void ns::flash_fwd_kernel<…>``)
    while the table row said ``kernel flash_fwd_kernel``: console and Markdown headlines use the row's label; the
    JSON keeps the id."""
    from rich.console import Console

    long = ("void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4, false, "
            "false, cutlass::bfloat16_t>, false, true>")
    base, cand, names = _sets(3, {})
    for side in (base, cand):
        m = side.metrics.pop("kernel:" + names[1])
        side.metrics["kernel:" + long] = Metric("kernel:" + long, "timing", "ns", m.samples, share=m.share,
                                                calls=m.calls)
    cand.metrics["kernel:" + long].samples = [v * 1.3 for v in cand.metrics["kernel:" + long].samples]
    res = run_gate(base, cand, GateConfig())
    assert res.verdict == "REGRESSED" and ("kernel:" + long) in res.reason  # the JSON's reason: the metric id
    con = Console(width=300, record=True)
    con.print(gate_console.renderable(res, width=300))
    lines = con.export_text().splitlines()
    row = next(x for x in lines if "REGRESSED" in x and "flash_fwd_kernel" in x)
    label = re.search(r"(kernel flash_fwd_kernel\S*)", row).group(1)
    assert "pytorch_flash::" not in lines[1] and label in lines[1] and "(+3" in lines[1]
    head = gate_markdown.render(res).split("\n\n")[1].replace("\\", "")  # Markdown escapes '_'
    assert "Flash_fwd_kernel_traits" not in head and label in head
