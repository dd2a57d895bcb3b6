"""README commands a new user copies chain into each other (session 49 new-user check, item 3).

The gate example analysed ``run*.pt.trace.json`` while ``gpulens profile`` writes ``<name>.pt.trace.json.gz``: the
glob matched nothing. The kind of fault: a README command whose input is another README command's output, named
otherwise. Here the names come from the profiler's own naming function (five repeats in one folder), and the
README's analyze glob must match each of them.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from pathlib import Path

from gpulens.profiler.session import _free_stem

README = Path(__file__).parents[1] / "README.md"


def _gate_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    sec = text[text.index("## CI regression gate"):]
    block = re.search(r"```bash\n(.*?)```", sec, re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def test_gate_example_analyzes_the_files_profile_writes(tmp_path):
    lines = _gate_block()
    prof = [ln for ln in lines if "gpulens profile" in ln]
    assert prof, "the gate example says how the runs are recorded"
    args = shlex.split(prof[0].split("do ", 1)[-1].split(";")[0])
    script = Path(args[-1]).stem
    out = tmp_path / "gpulens-out"  # profile's default --out
    out.mkdir()
    written = []
    for _ in range(5):  # five repeats into one folder, as the example runs them
        stem = _free_stem(out, script)
        (out / f"{stem}.pt.trace.json.gz").write_bytes(b"")
        written.append(f"gpulens-out/{stem}.pt.trace.json.gz")
    analyze = next(ln for ln in lines if ln.startswith("gpulens analyze"))
    globs = [a for a in shlex.split(analyze)[2:] if not a.startswith("-") and "*" in a]
    assert globs, analyze
    for w in written:
        assert any(fnmatch.fnmatch(w, g) for g in globs), (w, globs)
    # the analyze output is what baseline save and gate read
    json_out = shlex.split(analyze)[shlex.split(analyze).index("--json") + 1]
    assert any(ln.startswith("gpulens baseline save") and json_out in ln for ln in lines)
