"""One file reached twice in a folder: through a symbolic (or hard) link to a file already listed, or through a
link to a folder that is the folder itself or one above it (``run/again -> run``). Read twice, its events would
count twice (a second "process" or "rank" holding the same kernels), so every folder reader keeps the first path of
each file (:func:`first_of_each_file`) and says which were passed over (:func:`links_twice_warning`).
"""

from __future__ import annotations

import os
from pathlib import Path

from gpulens.units import agree, plural


def first_of_each_file(files: list[Path]) -> tuple[list[Path], list[str]]:
    """``files`` (in their order) keeping one path per file (same device and inode): the first that is no symbolic
    link, else the first; and ``"name (= kept name)"`` for each left out. A file that cannot be stat-ed is kept
    (its reader says why)."""
    keys: dict[Path, tuple[int, int]] = {}
    kept_of: dict[tuple[int, int], Path] = {}
    for f in files:
        try:
            st = f.stat()
        except OSError:
            continue
        keys[f] = k = (st.st_dev, st.st_ino)
        first = kept_of.get(k)
        if first is None or (first.is_symlink() and not f.is_symlink()):
            kept_of[k] = f
    kept = [f for f in files if f not in keys or kept_of[keys[f]] == f]
    twice = [f"{f.name} (= {kept_of[keys[f]].name})" for f in files if f in keys and kept_of[keys[f]] != f]
    return kept, twice


def loops_back(sub: Path, folder: Path) -> bool:
    """Whether the subfolder ``sub`` of ``folder`` is a link to ``folder`` itself or to a folder above it (its files
    are the folder's own, read again). Never raises: an unresolvable link is no loop (its reader says why)."""
    try:
        if not sub.is_symlink():
            return False
        real, top = Path(os.path.realpath(sub)), Path(os.path.realpath(folder))
    except (OSError, RuntimeError):
        return False
    return real == top or real in top.parents


def links_twice_warning(folder: Path, twice: list[str]) -> str:
    """The warning of the files of ``folder`` not read because they are a file already read (``twice``: the
    entries of :func:`first_of_each_file`, a folder link named as ``"name/ (= folder)"``)."""
    return (f"{folder}: {plural(len(twice), 'file(s)')} {agree(len(twice), 'is a link to a trace already read and was', 'are links to a trace already read and were')} "
            f"not read again (their events would count twice): {'; '.join(twice[:8])}"
            + (f"; and {len(twice) - 8} more" if len(twice) > 8 else ""))
