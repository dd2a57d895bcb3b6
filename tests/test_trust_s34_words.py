"""Count words agree with their counts (s34 review: "1 graph launch(es)", "Over 1 GPU(s)").

Every count sentence in src/ is written through :func:`gpulens.units.plural` (and :func:`gpulens.units.agree` for
its verb), never as "N noun(s)": the expected strings below are English written by hand, not gpulens output."""
from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import numpy as np
import pytest

from gpulens.timeline.rates import rate_warning
from gpulens.units import agree, plural

SRC = Path(__file__).parents[1] / "src" / "gpulens"


@pytest.mark.parametrize("n, phrase, want", [
    (1, "graph launch(es)", "1 graph launch"), (2, "graph launch(es)", "2 graph launches"),
    (1, "GPU(s)", "1 GPU"), (8, "GPU(s)", "8 GPUs"), (0, "kernel(s)", "0 kernels"),
    (1, "begin/end (B/E) pair(s)", "1 begin/end (B/E) pair"), (3, "begin/end (B/E) pair(s)", "3 begin/end (B/E) pairs"),
    (1, "kernel", "1 kernel"), (2, "kernel", "2 kernels"), (1234, "dispatch(es)", "1,234 dispatches"),
])
def test_plural_phrases(n, phrase, want):
    assert plural(n, phrase) == want


def test_agree_verb():
    assert f"{plural(1, 'launch call(s)')} {agree(1, 'has', 'have')} no GPU record" == "1 launch call has no GPU record"
    assert f"{plural(3, 'launch call(s)')} {agree(3, 'has', 'have')} no GPU record" == "3 launch calls have no GPU record"


def test_one_value_warning_reads_singular():
    """One byte-rate value beyond 1 PB/s: 'value', not 'value(s)'; two: 'values'."""
    one = rate_warning(np.array([True, False]), ["dram__bytes.sum.per_second"] * 2)
    two = rate_warning(np.array([True, True]), ["dram__bytes.sum.per_second"] * 2)
    assert one.startswith("1 throughput counter value above 1 PB/s dropped")
    assert two.startswith("2 throughput counter values above 1 PB/s dropped")


_COUNT_THEN_MARKER = re.compile(r"\}(?: [^\s{}]+){0,4}? ?[A-Za-z][\w\-]*\((?:e)?s\)")


def _fstrings_with_count_markers(path: Path) -> list[str]:
    """f-string pieces of ``path`` where a replacement field is followed (within 4 words) by a "(s)"/"(es)" noun."""
    out = []
    for t in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if t.type != tokenize.STRING:
            continue
        m = re.match(r"([rRbBfFuU]*)", t.string)
        if "f" in m.group(1).lower() and _COUNT_THEN_MARKER.search(t.string):
            out.append(f"{path.relative_to(SRC)}:{t.start[0]}: {t.string[:80]}")
    return out


def test_no_count_sentence_with_plural_markers_in_src():
    """No f-string in src/ writes a count beside a "noun(s)" marker (the form read "1 graph launch(es)")."""
    found = [x for p in sorted(SRC.rglob("*.py")) for x in _fstrings_with_count_markers(p)]
    assert found == [], "\n".join(found)


def test_html_timeline_bar_count_agrees():
    """The timeline's status line (JavaScript) says '1 bar' / 'N bars', not 'bar(s)'."""
    js = (SRC / "reports" / "_html_timeline.py").read_text()
    assert "bar(s)" not in js and "' bar':' bars'" in js


def test_one_kernel_launched_once_reads_singular_in_the_html(tmp_path):
    """One kernel, one launch (written below): the kernel page says "1 launch," and the hot-kernel panel "1 of 1
    kernel covers", never "1 launches" / "1 of 1 kernels cover" (both seen in real reports)."""
    import gpulens
    from gpulens.reports import html
    from tests.synth import write_kineto

    p = tmp_path / "one.json"
    write_kineto(p, n_kernels=1, n_names=1, name_len=20, streams=1, device="NVIDIA H100 80GB HBM3")
    page = html.render(gpulens.analyze([p]))
    assert "1 launches" not in page and "1 launch," in page
    assert "1 of 1 kernels" not in page and "1 of 1 kernel covers" in page
