"""Session 38, lead: the HTML answer banner says the first step once.

The ``fix_first`` sentence ends "— start with the largest single finding: X"; the banner's numbered list right below
opens with X, so the banner leaves that tail out (every other reporter keeps it) — with the new "At stake" line the
banner of GPT-2 on an H200 and of the two-rank folder no longer fit the first 1280×800 screen
(tests/test_report_browser.py measures that in a browser)."""

from __future__ import annotations

import re
from pathlib import Path

import gpulens
from gpulens.reports import html, markdown

H200 = Path(__file__).parent / "data" / "nvidia" / "h200" / "h200_gpt2_train.pt.trace.json.gz"


def test_banner_names_the_first_step_once():
    s = gpulens.analyze([H200])
    page = html.render(s)
    md = markdown.render(s)
    tail = " — start with the largest single finding: GPU idle"
    assert tail in " ".join(md.split())  # the Markdown keeps the whole sentence
    banner = page.split('<section class="answer"', 1)[1].split("</section>", 1)[0]
    at_stake = re.search(r"At stake, largest first:</strong> ([^<]*)</p>", banner).group(1)
    assert "start with" not in at_stake and "55.16 ms of GPU idle" in at_stake
    # the list's first item is that finding: GPU idle over the 225.55 ms span, 55.16 ms of it (24.5 %)
    first_item = re.search(r'<ol class="top"><li>(.*?)</li>', banner).group(1)
    assert "GPU idle 24.5 % of its span (55.16 ms)" in first_item
