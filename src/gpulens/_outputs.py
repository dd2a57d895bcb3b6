"""Where gpulens may write: the one rule that keeps every report and export off the user's inputs.

Light on purpose (no numpy/pandas): the CLI checks an output path on a cache hit too, where nothing heavy is imported.
"""

from __future__ import annotations

from pathlib import Path


def overwrites_input(path: str | Path, inputs: list[Path]) -> bool:
    """True when writing ``path`` would replace an input: it is one of ``inputs``, or an existing file inside an
    input folder (a rank file of a rank directory), however either is spelled (links, ``..``)."""
    try:
        rp = Path(path).resolve()
        for p in inputs:
            q = Path(p).resolve()
            if rp == q or (q.is_dir() and rp.is_relative_to(q) and rp.exists()):
                return True
    except (OSError, RuntimeError, ValueError):  # a link loop: the write fails later with its own message
        return False
    return False
