"""One word per thing across a report's parts (session 49 new-user check, item 7).

Faults of one kind — two words for one figure, or one word for two things: the diff console's legend defined
"of Δ" over a table headed "of Σ|Δ|"; the gate's INCOMPARABLE lines read "driver: baseline CUDA 12.9" then
"runtime: baseline CUDA 12.4" (two versions under labels that did not say which); the Summary's clipped advice said
"+1 more step" where "step" is a profiler step everywhere else; the Other analyses page showed "Kernel counters …
this input has no such rows" as a highlighted box on an ordinary Kineto trace, where the Markdown lists it plainly
under "Not analysed".
"""

from __future__ import annotations

import re
from pathlib import Path

import gpulens
from gpulens.diff import diff
from gpulens.gate.compare import MUST_MATCH, NOTE_ONLY
from gpulens.reports import html, markdown
from gpulens.reports._html_answer import _more_text
from gpulens.reports.diff import render_console
from tests.conftest import KINETO

DEMO = Path(gpulens.__file__).parent / "data" / "demo_h100_bert-small.pt.trace.json.gz"


def test_diff_console_header_is_the_word_its_legend_defines():
    r = diff(KINETO / "tracelens_h100_bert-small.json.gz", KINETO / "tracelens_mi300x_bert-small.json.gz")
    text = render_console(r, width=250)
    legend = [ln.split()[0:2] for ln in text.splitlines() if ln.startswith("of ")]
    assert legend, "the console legend defines the share column"
    word = " ".join(legend[0])
    heads = [c.strip() for ln in text.splitlines() if "┃" in ln for c in ln.split("┃")]
    assert word in heads and not any("Σ" in h for h in heads), (word, heads)


def test_gate_version_labels_say_which_version_they_are():
    labels = dict((k, lab) for lab, k in MUST_MATCH + NOTE_ONLY)
    assert labels["driver"] != "driver" and labels["runtime"] != "runtime"
    assert "driver" in labels["driver"] and "runtime" in labels["runtime"]


def test_banner_more_text_does_not_say_a_bare_step():
    for n, cut in ((1, False), (2, True), (0, True)):
        text = _more_text(n, cut, "kernel-x")
        assert not re.search(r"\bsteps?\b", text.replace("next step", "")), text


def test_analyses_without_data_are_a_plain_list_like_the_markdown():
    rep = gpulens.analyze([DEMO])
    src = rep.sources[0]
    assert src.results["kernel_counters"].skipped  # an ordinary Kineto trace records no counter-collection rows
    page = html.render(rep)
    other = re.search(r'<section role="tabpanel" id="page-other".*?(?=<section role="tabpanel")', page, re.S).group(0)
    assert '<p class="empty"><strong>Kernel counters' not in other
    notrun = re.search(r'<section class="notrun"><h3>Not analysed</h3><ul>(.*?)</ul></section>', other, re.S)
    assert notrun and "Kernel counters" in notrun.group(1)
    md = markdown.render(rep)
    md_list = md.split("### Not analysed", 1)[1]
    for title in re.findall(r"<li><strong>(.*?)</strong>", notrun.group(1)):  # each one in the Markdown's list too
        assert f"- {title.replace('&amp;', '&')}:" in md_list.replace("\\", "")


def test_a_numbered_kernel_label_is_explained_under_its_table():
    """Item 7: the multi-rank Hot kernels table read "CatArrayBatchedCopy (2)" with no word on what "(2)" means.
    Four CatArrayBatchedCopy instantiations (template values 1/2 × 128/64) share one short name; any table that
    numbers them says what the number is."""
    import pandas as pd

    from gpulens.reports._html_parts import table_html

    names = [f"void CatArrayBatchedCopy<float, unsigned int, {a}, {b}, 1>(x)" for a in (1, 2) for b in (128, 64)]
    docs = {"name": "kernel name as recorded [text]", "time_ns": "time [ns]"}
    page = table_html(pd.DataFrame({"name": names, "time_ns": [1, 2, 3, 4]}), docs=docs)
    shown = re.findall(r'<td class="name"[^>]*>(.*?)</td>', page)
    assert len(set(shown)) == 4
    numbered = [x for x in shown if re.search(r" \(\d+\)$", x)]
    assert numbered  # these four share a short name no template value tells apart alone
    assert ("another kernel with the same short name" in page) == bool(numbered)
    plain = table_html(pd.DataFrame({"name": ["k_a", "k_b"], "time_ns": [1, 2]}), docs=docs)
    assert "another kernel with the same short name" not in plain
