"""What a reader copies from a rendered Markdown report is the name the trace recorded (s33 review: a step read
"ProfilerStep#\u200d5" — a zero-width joiner, inserted to stop GitHub linking "#5" as an issue, stayed in the copied
text). The Markdown reporters split "@user", "#12" and URLs with an empty HTML comment instead: invisible when
rendered, split into two text nodes (no mention, reference or autolink), and never part of the copied text.
"""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

NAMES = ["ProfilerStep#5", "nccl:all_reduce @rank0", "see https://example.com/x", "www.example.com"]


def _rendered_text(md: str) -> str:
    """The text of the rendered Markdown (CommonMark with inline HTML, as GitHub renders it): tags and comments
    dropped, entities decoded — what a reader selects and copies."""
    out = MarkdownIt("commonmark", {"html": True}).enable("table").render(md)
    return html.unescape(re.sub(r"<!--.*?-->|<[^>]+>", "", out)).strip()


@pytest.mark.parametrize("name", NAMES)
def test_copied_text_is_the_recorded_name(name):
    from gpulens.reports.gate_markdown import md_escape
    from gpulens.reports.markdown import md_text

    for text in (md_text(name, 500), md_escape(name)):
        assert "\u200d" not in text
        assert _rendered_text(text) == name
        # still inert: no "#5" / "@rank0" / scheme:// / www. left whole in the Markdown source
        assert not re.search(r"(?i)[@#][\w-]|\bhttps?://|\bwww\.", text)


def test_markdown_report_has_no_invisible_joiner(tmp_path):
    from gpulens.report import analyze
    from gpulens.reports.markdown import render
    from tests.test_critical_path import _trace

    md = render(analyze([_trace(tmp_path)]))
    assert "\u200d" not in md
