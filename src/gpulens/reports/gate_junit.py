"""JUnit XML rendering of a gate result: one ``<testcase>`` per metric, for CI test-report views.

Structure (the common JUnit layout read by Jenkins, GitLab, GitHub test-report actions and Ant/Surefire tools)::

    <testsuites name="gpulens gate" tests failures errors skipped time>
      <testsuite name="gpulens.gate" tests failures errors skipped time timestamp>
        <properties><property name value/>…</properties>    verdict, baseline, machine keys, settings
        <testcase classname="gpulens.gate.<timing|count|kernel>" name="<metric>" time="0">
          <failure message type="REGRESSED">…</failure>      gating REGRESSED (and AMBIGUOUS with fail_on_ambiguous)
          <error message type="ERROR">…</error>              ERROR
          <skipped message="AMBIGUOUS: …"/>                   AMBIGUOUS, INCOMPARABLE, NO_BASELINE
          <system-out>ratio, CI, p, threshold, baseline noise, PASS band, medians</system-out>
        </testcase>

Non-gating rows never fail: their verdict is in ``system-out``. A run-level ERROR / NO_BASELINE / INCOMPARABLE
with no metric rows yields one testcase named ``gate``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from gpulens.gate.result import (AMBIGUOUS, ERROR, INCOMPARABLE, NO_BASELINE, REGRESSED, GateResult,
                                 MetricResult)
from gpulens.reports.gate_fmt import LIMIT_COLUMNS, fmt_center, fmt_change, fmt_ci, fmt_p, limit_cells

SKIP = (AMBIGUOUS, INCOMPARABLE, NO_BASELINE)
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(s: str) -> str:
    """``s`` without the characters XML 1.0 cannot carry (control characters from odd kernel names)."""
    return _NOT_XML.sub("\ufffd", str(s))


def _classname(m: MetricResult) -> str:
    return "gpulens.gate." + ("kernel" if m.metric.startswith("kernel:") else m.kind)


def _detail(m: MetricResult) -> str:
    return (f"{m.verdict}{'' if m.gating else ' (not gating)'}: {m.reason}\n"
            f"baseline {m.center} {fmt_center(m, 'base')} (n={m.base_n}), candidate {fmt_center(m, 'cand')} "
            f"(n={m.cand_n}), change {fmt_change(m)}, CI {fmt_ci(m)}, p {fmt_p(m)}, "
            + "".join(f"{t} {v}, " for t, v in zip(LIMIT_COLUMNS, limit_cells(m)))  # the reports' three limit columns
            + f"method {m.method or '—'}")


def _case(suite: ET.Element, m: MetricResult, fail_on_ambiguous: bool) -> str:
    tc = ET.SubElement(suite, "testcase", classname=_classname(m), name=xml_text(m.metric), time="0")
    outcome = "pass"
    if m.gating and (m.verdict == REGRESSED or (m.verdict == AMBIGUOUS and fail_on_ambiguous)):
        ET.SubElement(tc, "failure", message=xml_text(f"{m.verdict}: {m.reason}"),
                      type=m.verdict).text = xml_text(_detail(m))
        outcome = "failure"
    elif m.verdict == ERROR:
        ET.SubElement(tc, "error", message=xml_text(m.reason), type=ERROR).text = xml_text(_detail(m))
        outcome = "error"
    elif (m.gating and m.verdict in SKIP) or m.verdict in (INCOMPARABLE, NO_BASELINE):
        ET.SubElement(tc, "skipped", message=xml_text(f"{m.verdict}: {m.reason}"))
        outcome = "skipped"
    ET.SubElement(tc, "system-out").text = xml_text(_detail(m))
    return outcome


def render(result: GateResult) -> str:
    """The JUnit XML document (UTF-8 text with an XML declaration)."""
    fail_amb = bool(result.config.get("fail_on_ambiguous"))
    root = ET.Element("testsuites", name="gpulens gate")
    suite = ET.SubElement(root, "testsuite", name="gpulens.gate", timestamp=result.created)
    props = ET.SubElement(suite, "properties")
    b = result.baseline or {}
    for k, v in (("verdict", result.verdict), ("reason", result.reason), ("exit_code", result.exit_code),
                 ("baseline", b.get("name", "")), ("baseline_machine_key", b.get("machine_key", "")),
                 ("candidate_machine_key", result.candidate.get("machine_key", "")),
                 ("gpulens_version", result.tool_version)):
        ET.SubElement(props, "property", name=k, value=xml_text(str(v)))
    rows = result.metrics
    outcomes = []
    if not rows:
        m = MetricResult("gate", "run", "", "lower", result.verdict, True, result.reason)
        outcomes.append(_case(suite, m, fail_amb))
    else:
        outcomes = [_case(suite, m, fail_amb) for m in rows]
    counts = {k: str(outcomes.count(v)) for k, v in (("failures", "failure"), ("errors", "error"),
                                                       ("skipped", "skipped"))}
    for el in (root, suite):
        el.set("tests", str(len(outcomes)))
        el.set("time", "0")
        for k, v in counts.items():
            if el is suite or k != "skipped":  # <testsuites> carries no 'skipped' attribute in the common schema
                el.set(k, v)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
