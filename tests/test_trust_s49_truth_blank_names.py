"""A blank name cell reads "unknown" in the console as in the HTML and Markdown tables (session 49).

SGLang's Qwen3 decode on an MI300X (tests/data/kineto/tracelens_mi300x_sglang_qwen3_decode.json.gz) replays most
kernels from a HIP graph: no op launched them, so ``kernel_groups``' ``op`` is '' ("'' when unlinked"). The
Markdown and HTML tables said "unknown"; the console printed an empty cell beside "unknown" shapes. Kind: the
console formatted name columns (op, annotation, …) as recorded, blank included, while the other reports formatted
a blank through the column's unit. Now a blank name goes through the same formatter.
"""

from __future__ import annotations

from pathlib import Path

import gpulens
from gpulens.reports import console, markdown

PATH = Path(__file__).parent / "data" / "kineto" / "tracelens_mi300x_sglang_qwen3_decode.json.gz"


def _rows(text: str, title: str) -> list[list[str]]:
    lines = text.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.startswith(title))
    out = []
    for ln in lines[at + 1:]:
        if ln.startswith("└"):
            break
        if ln.startswith("│"):
            out.append([c.strip() for c in ln.strip("│").split("│")])
    return out


def test_unlinked_kernels_op_is_unknown_in_console_and_markdown():
    rep = gpulens.analyze([PATH])
    t = rep.sources[0].results["kernel_groups"].table
    blank = (t["op"].astype(str).str.strip() == "").to_numpy()
    assert blank[:5].any()  # the top groups include graph-replayed kernels without an op
    rows = _rows(console.render(rep, width=400), "Kernel groups")
    # columns: rank, kind, kernel, time, op, …
    for shown, is_blank, op in zip(rows, blank[:len(rows)], t["op"].astype(str).tolist()):
        assert shown[4] == ("unknown" if is_blank else op)
    md = markdown.render(rep)
    md_rows = [ln for ln in md.split("### Kernel groups", 1)[1].split("\n#")[0].splitlines() if ln.startswith("| 0 |")]
    assert md_rows
    for ln, is_blank in zip(md_rows, blank):
        if is_blank:
            assert ln.split(" | ")[4] == "unknown"
