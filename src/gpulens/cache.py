"""A cache of loaded Timelines, so that re-opening a large trace takes a fraction of a second.

The first full load of a trace file writes its Timeline into a cache folder — ``$GPULENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpulens``, else ``~/.cache/gpulens`` — never beside the user's
file. An entry is found again by a key made of

* the file's absolute path, device, inode, size in bytes, modification and status-change times (ns) — as version-control
  tools compare them; a file rewritten in place keeps neither its ctime nor (usually) its inode,
* a content fingerprint: BLAKE2b of the first and last 4 MiB and of 16 evenly spaced 64 KiB samples (a full hash of
  a multi-GB trace would cost more than the cached load it guards; size and mtime catch ordinary rewrites),
* the collector name, the gpulens version and the Timeline format version (a new gpulens never reads old entries).

An entry holds each column of the Timeline's tables as the raw numpy arrays pandas keeps in memory (``.npy``
values, NA masks, category codes; categories and dtypes in ``meta.json``), memory-mapped copy-on-write when
re-opened: no decoding, and pages are read from disk only when touched. Parquet (:meth:`Timeline.save`, the format for keeping a Timeline) is ~10× smaller but decoding it
costs ~2 s of CPU for the 3-million-event Timeline of a 1M-kernel trace — more than the < 1 s a cached re-open is
for. Side tables (rare, small) are stored as Arrow IPC.

Only files of at least :data:`MIN_BYTES` (``$GPULENS_CACHE_MIN_BYTES``) are cached: smaller ones load faster than a
cache lookup pays for. Entries are written to a temporary folder and renamed into place, so a crash never leaves a
half-written entry behind. Entries are private to their owner (folders 0700, files 0600); an entry that fails
validation (its mark names another file or key, a table cannot be read or breaks the schema) is rebuilt, never
trusted. :func:`source_key` is the one key function for anything cached from a trace.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from gpulens.timeline import Timeline
from gpulens.timeline.timeline import FORMAT_VERSION

MIN_BYTES = 4 << 20
_SAMPLE = 64 << 10
_EDGE = 4 << 20
_MARK = "gpulens-cache.json"


def cache_dir() -> Path:
    """The cache folder (not created)."""
    env = os.environ.get("GPULENS_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "gpulens"


def min_bytes() -> int:
    """Smallest file size that is cached (``$GPULENS_CACHE_MIN_BYTES`` or :data:`MIN_BYTES`)."""
    try:
        return int(os.environ.get("GPULENS_CACHE_MIN_BYTES", MIN_BYTES))
    except ValueError:
        return MIN_BYTES


def fingerprint(path: Path) -> str:
    """BLAKE2b (16-byte digest, hex) of the file's identity and sampled content (see module docstring).

    Identity is what version-control tools compare to notice a change without reading the file: device, inode,
    size, mtime_ns and ctime_ns (ctime cannot be set back by ``touch``/``os.utime``, so a file rewritten in place with
    its old size and mtime still gets a new key); the content sample adds a check of what the file holds.
    """
    st = path.stat()
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode())
    with path.open("rb") as fh:
        h.update(fh.read(_EDGE))
        if st.st_size > 2 * _EDGE:
            for i in range(1, 17):
                fh.seek(st.st_size * i // 17)
                h.update(fh.read(_SAMPLE))
            fh.seek(st.st_size - _EDGE)
            h.update(fh.read(_EDGE))
    return h.hexdigest()


def source_key(path: Path, *parts: str) -> str:
    """The one cache key of anything derived from the file ``path`` (the Timeline cache here; cached analysis
    results add their own ``parts``): resolved path, gpulens and Timeline format versions, :func:`fingerprint`,
    and ``parts`` (collector name, options...). Hex BLAKE2b, 32 characters."""
    from gpulens import __version__

    p = Path(path).resolve()
    text = "|".join([str(p), __version__, str(FORMAT_VERSION), fingerprint(p), *parts])
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def entry_path(path: Path, collector: str) -> Path:
    """Folder of the cache entry for ``path`` read by ``collector`` (exists only once written)."""
    p = Path(path).resolve()
    return cache_dir() / f"{p.name[:40]}-{source_key(p, collector)}"


def _private(folder: Path) -> None:
    """Owner-only permissions: folders 0700, files 0600 (traces and their names are the user's business)."""
    os.chmod(folder, 0o700)
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o700)
        for f in files:
            os.chmod(os.path.join(root, f), 0o600)


def load_or_collect(path: Path, collector: str, load: Callable[[], Timeline]) -> Timeline:
    """The cached Timeline of ``path`` if there is one, else ``load()`` and store its result.

    A cache that cannot be read or written is ignored (the load result is returned all the same).
    """
    p = Path(path)
    try:
        if p.stat().st_size < min_bytes():
            return load()
        entry = entry_path(p, collector)
    except OSError:
        return load()
    key = entry.name.rsplit("-", 1)[-1]
    if (entry / _MARK).is_file():
        try:
            mark = json.loads((entry / _MARK).read_text())
            if mark.get("key") != key or mark.get("source") != str(p.resolve()):
                raise ValueError("cache entry does not belong to this file")
            return _read(entry)
        except Exception:  # a damaged or foreign entry is never trusted: drop it and load again
            shutil.rmtree(entry, ignore_errors=True)
    tl = load()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=entry.parent))
        _write(tl, tmp / "tl")
        (tmp / "tl" / _MARK).write_text(json.dumps({"source": str(p.resolve()), "collector": collector,
                                                     "key": key}))
        _private(tmp / "tl")
        os.replace(tmp / "tl", entry)
        shutil.rmtree(tmp, ignore_errors=True)
    except OSError:
        pass
    return tl


def _write(tl: Timeline, folder: Path) -> None:
    """Write each schema table column as raw numpy arrays (``.npy``: values, NA mask, category codes) plus a JSON
    manifest; side tables as Arrow IPC."""
    import numpy as np
    import pandas as pd
    from pyarrow import feather

    folder.mkdir(parents=True)
    manifest: dict[str, list] = {}
    for name in ("events", "counters", "rejected"):
        cols = []
        for i, (col, s) in enumerate(getattr(tl, name).items()):
            stem = f"{name}.{i}"
            if isinstance(s.dtype, pd.CategoricalDtype):
                np.save(folder / f"{stem}.codes.npy", s.cat.codes.to_numpy())
                cols.append([col, "category", [str(c) for c in s.cat.categories]])
            elif isinstance(s.dtype, pd.Int64Dtype):
                np.save(folder / f"{stem}.values.npy", s.to_numpy(dtype="int64", na_value=0))
                np.save(folder / f"{stem}.mask.npy", s.isna().to_numpy())
                cols.append([col, "Int64", None])
            else:
                np.save(folder / f"{stem}.values.npy", s.to_numpy())
                cols.append([col, str(s.dtype), None])
        manifest[name] = cols
    for name, table in tl.tables.items():
        feather.write_feather(table, folder / f"table.{name}.arrow", compression="uncompressed")
    doc = {"format_version": FORMAT_VERSION, "meta": tl.meta.to_dict(), "tables": sorted(tl.tables),
           "columns": manifest}
    (folder / "meta.json").write_text(json.dumps(doc, default=str))


def _read(folder: Path) -> Timeline:
    """Read an entry written by :func:`_write`: the arrays are memory-mapped copy-on-write (no parsing, pages read
    on first touch); dtypes checked by :meth:`Timeline.validate`."""
    import numpy as np
    import pandas as pd
    from pyarrow import feather

    from gpulens.timeline import TimelineMeta

    doc = json.loads((folder / "meta.json").read_text())
    if doc.get("format_version") != FORMAT_VERSION:
        raise ValueError("old cache entry")

    def load(stem: Path, part: str) -> np.ndarray:
        # copy-on-write mapping: pages are read when touched, and writes stay private to this process
        return np.asarray(np.load(f"{stem}.{part}.npy", mmap_mode="c", allow_pickle=False))

    def read(name: str) -> pd.DataFrame:
        out = {}
        for i, (col, kind, cats) in enumerate(doc["columns"][name]):
            stem = folder / f"{name}.{i}"
            if kind == "category":
                out[col] = pd.Categorical.from_codes(load(stem, "codes"), categories=pd.Index(cats, dtype="str"))
            elif kind == "Int64":
                out[col] = pd.arrays.IntegerArray(load(stem, "values"), load(stem, "mask"))
            else:
                out[col] = load(stem, "values")
        return pd.DataFrame(out, copy=False)

    tables = {n: feather.read_table(folder / f"table.{n}.arrow").to_pandas() for n in doc.get("tables", [])}
    return Timeline(read("events"), read("counters"), read("rejected"), TimelineMeta.from_dict(doc["meta"]),
                    tables).validate()


@dataclass
class CacheInfo:
    """Folder, number of entries and their total size in bytes."""

    folder: Path
    entries: int
    size_bytes: int


def _entries() -> list[Path]:
    d = cache_dir()
    if not d.is_dir():
        return []
    return [e for e in d.iterdir() if e.is_dir() and (e / _MARK).is_file()]


def info() -> CacheInfo:
    """What the cache holds."""
    ents = _entries()
    size = sum(f.stat().st_size for e in ents for f in e.rglob("*") if f.is_file())
    return CacheInfo(cache_dir(), len(ents), size)


def clear() -> int:
    """Delete every cache entry (folders marked as gpulens cache entries only); return how many."""
    ents = _entries()
    for e in ents:
        shutil.rmtree(e, ignore_errors=True)
    d = cache_dir()
    if d.is_dir():
        for t in d.glob(".tmp-*"):
            shutil.rmtree(t, ignore_errors=True)
    return len(ents)
