"""The run verdict names the leading share in words that parse: a class label holding a clause ("GPU idle, cause
not recorded", "dependency-bound (GPU idle with work queued)") is never split by the word "share" (rocprofv3 JSON
MI350X read "the GPU idle, cause not recorded share is the largest")."""

from __future__ import annotations

from gpulens.analyzers.bottlenecks import CLASS_LABELS, class_label
from gpulens.reports._answer import _share_words


def test_share_words_keep_each_label_whole():
    assert _share_words(class_label("host-bound")) == "host-bound share"
    assert _share_words(class_label("idle-unattributed")) == "share of GPU idle, cause not recorded"
    assert _share_words(class_label("dependency-bound")) == "dependency-bound share (GPU idle with work queued)"
    assert _share_words("below both roofs") == "share of time below both roofs"
    for label in CLASS_LABELS.values():  # every label with a clause: "share" never lands inside it
        words = _share_words(label)
        assert not words.endswith(f"{label} share")


def test_one_rank_reads_rank_not_ranks():
    # TraceLens BERT-small H100 (the demo's trace) has one rank, id 0: "ranks 0" read as "zero ranks"
    from pathlib import Path

    import gpulens
    from gpulens.reports import console, html

    rep = gpulens.analyze([Path(__file__).parent / "data" / "kineto" / "tracelens_h100_bert-small.json.gz"])
    lines = [ln.split()[:2] for ln in console.render(rep, width=200).splitlines() if ln.strip()]
    assert ["rank", "0"] in lines and ["ranks", "0"] not in lines
    assert '<th scope="row">rank</th><td>0</td>' in html.render(rep)
