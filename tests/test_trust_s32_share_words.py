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
    for label in CLASS_LABELS.values():  # every label with a clause: "share" never lands inside it
        words = _share_words(label)
        assert not words.endswith(f"{label} share")
