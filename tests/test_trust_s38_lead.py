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


def test_diff_console_shows_the_contributors_remainder_row_and_counts_kernel_rows():
    """bert-small H100 → MI300X: the contributors table is the top N kernel rows plus one 'all other rows (K)' row
    (what makes Δ add up). The console showed the first N and said "first N of N+1 rows" — one hidden row, where the
    hidden one was that remainder standing for K kernel rows. It now shows the remainder and counts kernel rows."""
    from gpulens.diff import diff
    from gpulens.reports import diff as diff_report

    k = Path(__file__).parent / "data" / "kineto"
    r = diff(k / "tracelens_h100_bert-small.json.gz", k / "tracelens_mi300x_bert-small.json.gz", top=3)
    c = r.tables["contributors"]
    last = str(c["kernel"].iloc[-1])
    assert last.startswith("all other rows (")
    n_rest = int(last.split("(")[1].rstrip(")"))
    text = " ".join(diff_report.render_console(r, width=300, top=3).split())
    assert last in text  # the remainder row is on the console
    # the per-kernel table holds 3 shown + n_rest others: no "first 3 of 4 rows" for 3 rows and one remainder
    assert f"first 3 of {len(c)} rows" not in text
    assert n_rest >= 1


def test_multirank_overlap_column_names_its_denominator():
    """'communication hidden by compute' is (comm − exposed comm) / comm, not a share of the rank's span: the
    column label says so (rank 0 of the two-rank folder: 59.22 ms of 396.20 ms = 14.9 %, which is 4.8 % of its span)."""
    from gpulens.reports._format import LABELS

    assert LABELS["overlap_pct"].endswith("(of its communication time)")
