"""A cache of loaded Timelines, so that re-opening a large trace takes a fraction of a second.

The first full load of a trace file writes its Timeline into a cache folder — ``$GPULENS_CACHE_DIR``, else ``$XDG_CACHE_HOME/gpulens``, else ``~/.cache/gpulens`` — never beside the user's
file. An entry is found again by a key made of

* the file's absolute path, device, inode, size in bytes, modification and status-change times (ns) — as version-control
  tools compare them; a file rewritten in place keeps neither its ctime nor (usually) its inode,
* a content fingerprint: BLAKE2b of the first and last 4 MiB and of 16 evenly spaced 64 KiB samples (a full hash of
  a multi-GB trace would cost more than the cached load it guards; size and mtime catch ordinary rewrites),
* the collector name, the gpulens version, the Timeline format version and :func:`code_stamp` (a new gpulens, or
  changed collector code within one version number — an editable install —, never reads old entries).

An entry holds each column of the Timeline's tables as the raw numpy arrays pandas keeps in memory (``.npy``
values, NA masks, category codes; categories and dtypes in ``meta.json``), memory-mapped copy-on-write when
re-opened: no decoding. ``meta.json`` is sealed (:func:`_sealed`) and lists every file of the entry with its size and
CRC-32 (:func:`_crc`), checked before anything is mapped: an entry with a damaged, missing or extra file (a flipped
byte in an array, a cut file) is rebuilt from the trace, never served. Parquet (:meth:`Timeline.save`, the format for keeping a Timeline) is ~10× smaller but decoding it
costs ~2 s of CPU for the 3-million-event Timeline of a 1M-kernel trace — more than the < 1 s a cached re-open is
for. Side tables (rare, small) are stored as Arrow IPC.

Only files of at least :data:`MIN_BYTES` (``$GPULENS_CACHE_MIN_BYTES``) are cached: smaller ones load faster than a
cache lookup pays for. Entries are written to a temporary folder and renamed into place, so a crash never leaves a
half-written entry behind. Entries are private to their owner (folders 0700, files 0600); an entry that fails
validation (its mark names another file or key, a table cannot be read or breaks the schema) is rebuilt, never
trusted.

Analysis results are cached too (:func:`results_path`, :func:`load_results`, :func:`store_results`): ``gpulens
analyze`` on an unchanged trace with the same options reads the pickled analyzer results, the source's summary,
status, Timeline meta and rejected rows instead of running every analysis again — the Timeline itself is not even
opened unless a reporter needs its events (``--perfetto``, ``--csv``). Their key is :func:`trace_key` (the same
trace identity as Timeline entries) plus the analysis options and a stamp of the installed gpulens modules. The
JSON, HTML and Markdown reports rendered from them are kept beside the results entry (:func:`render_path`, with
the report's creation time substituted on reuse) and removed with it. Pickles and rendered reports are only read
from files owned by the current user and not writable by others, and are sealed with their BLAKE2b digest and length
(:func:`_sealed`): one damaged on disk (cut, emptied, a flipped byte — or not a regular file at all, such
as a FIFO, which is never waited on: :func:`_open_regular`) is rebuilt, never served — a rendered report is
written to the user's file as it is stored.
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pandas is imported only where a Timeline is written or read: a cache hit never needs it
    from gpulens.timeline import Timeline

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
    its old size and mtime still gets a new key); the content sample adds a check of what the file holds. The
    identity of a ``<file>-wal`` beside it counts too: a WAL-mode SQLite database changes there first.
    """
    st = path.stat()
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}".encode())
    try:  # a WAL-mode SQLite database's committed pages may live in its -wal, which changes without the main file
        sw = Path(f"{path}-wal").stat()
        h.update(f"|wal:{sw.st_ino}:{sw.st_size}:{sw.st_mtime_ns}:{sw.st_ctime_ns}".encode())
    except OSError:
        pass
    with path.open("rb") as fh:
        h.update(fh.read(_EDGE))
        if st.st_size > 2 * _EDGE:
            for i in range(1, 17):
                fh.seek(st.st_size * i // 17)
                h.update(fh.read(_SAMPLE))
            fh.seek(st.st_size - _EDGE)
            h.update(fh.read(_EDGE))
    return h.hexdigest()


def _open_regular(file: Path):
    """``file`` opened for binary reading if it is a regular file; else :class:`OSError`. Opened without blocking
    and checked on the open descriptor: a FIFO (or device) put in the cache in place of an entry's file would block
    every later run on its first read (the cache is read before any trace); it is treated as a damaged entry."""
    fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{file}: not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb", buffering=0)
    except BaseException:
        os.close(fd)
        raise


def _read_regular(file: Path) -> bytes:
    """The bytes of ``file`` if it is a regular file (:func:`_open_regular`); else :class:`OSError`."""
    with _open_regular(file) as fh:
        return fh.readall()


def trace_key(path: Path, *parts: str) -> str:
    """The one cache key of a trace file (hex): its identity (absolute path and :func:`fingerprint`), the gpulens
    version and ``parts`` (what is stored: collector and Timeline format, or analysis options).

    Both cached Timelines (:func:`entry_path`) and cached analysis results (:func:`results_path`) are keyed by it.
    """
    from gpulens import __version__

    p = Path(path).resolve()
    return hashlib.blake2b("|".join([str(p), *parts[:1], __version__, *parts[1:], fingerprint(p)]).encode(),
                           digest_size=16).hexdigest()


def entry_path(path: Path, collector: str) -> Path:
    """Folder of the cache entry for ``path`` read by ``collector`` (exists only once written); keyed by the code
    stamp too, so a Timeline read by other collector code is never served (a collector fix in an editable install
    would otherwise keep serving the Timeline of the code before it)."""
    from gpulens.timeline.timeline import FORMAT_VERSION

    p = Path(path).resolve()
    return cache_dir() / f"{p.name[:40]}-{trace_key(p, collector, str(FORMAT_VERSION), code_stamp())}"


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
        st = p.stat()
        if st.st_size < min_bytes() or not stat.S_ISREG(st.st_mode):  # a FIFO is read once, by its collector
            return load()
        entry = entry_path(p, collector)
    except OSError:
        return load()
    key = entry.name.rsplit("-", 1)[-1]
    if (entry / _MARK).is_file():
        try:
            mark = json.loads(_read_regular(entry / _MARK))
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
    import pandas as pd
    from pyarrow import feather

    from gpulens.timeline.timeline import FORMAT_VERSION

    folder.mkdir(parents=True)
    manifest: dict[str, list] = {}
    crcs: dict[str, int] = {}

    def save(file_name: str, values: Any) -> None:
        crcs[file_name] = _save_npy(folder / file_name, values)

    for name in ("events", "counters", "rejected"):
        cols = []
        for i, (col, s) in enumerate(getattr(tl, name).items()):
            stem = f"{name}.{i}"
            if isinstance(s.dtype, pd.CategoricalDtype):
                save(f"{stem}.codes.npy", s.cat.codes.to_numpy())
                cols.append([col, "category", [str(c) for c in s.cat.categories]])
            elif isinstance(s.array, pd.arrays.IntegerArray):  # Int64 and the narrow Int32 columns alike
                save(f"{stem}.values.npy", s.to_numpy(dtype=s.dtype.numpy_dtype, na_value=0))
                save(f"{stem}.mask.npy", s.isna().to_numpy())
                cols.append([col, str(s.dtype), None])
            else:
                save(f"{stem}.values.npy", s.to_numpy())
                cols.append([col, str(s.dtype), None])
        manifest[name] = cols
    for name, table in tl.tables.items():
        feather.write_feather(table, folder / f"table.{name}.arrow", compression="uncompressed")
    doc = {"format_version": FORMAT_VERSION, "meta": tl.meta.to_dict(), "tables": sorted(tl.tables),
           "columns": manifest,
           "files": {f.name: [f.stat().st_size, crcs[f.name] if f.name in crcs else _crc(f)]
                     for f in sorted(folder.iterdir())}}
    (folder / "meta.json").write_bytes(_sealed(json.dumps(doc, default=str).encode("utf-8")))


def _save_npy(file: Path, values: Any) -> int:
    """``np.save(file, values)``; returns the CRC-32 of the file written (:func:`_crc`'s value) from the array in
    memory and the file's few header bytes, instead of reading the whole file back (37 of the 80 ms a 100k-kernel
    Timeline took to store). An array ``np.save`` does not write as its raw memory (objects, not C-contiguous) is
    read back."""
    import numpy as np

    arr = np.asanyarray(values)
    np.save(file, arr)
    if type(arr) is not np.ndarray or arr.dtype.hasobject or not arr.flags.c_contiguous:
        return _crc(file)
    head = file.stat().st_size - arr.nbytes
    with _open_regular(file) as fh:
        header = fh.read(head)
    if head <= 0 or len(header) != head:
        return _crc(file)
    return zlib.crc32(arr.reshape(-1).view(np.uint8), zlib.crc32(header))


def _crc(file: Path) -> int:
    """CRC-32 of a whole file, read in 4 MiB chunks (~3 GB/s: a 1 GB Timeline costs ~0.3 s of CPU to check; a
    BLAKE2b of it would cost ~1.2 s, more than the cached load is for). CRC-32 catches every burst of damage up to 32
    bits and all but 1 in 2**32 other damage — the check of gzip, PNG and zip; entries are private to their owner,
    so it guards against damage on disk, not against an adversary."""
    crc = 0
    buf = bytearray(4 << 20)
    view = memoryview(buf)
    with _open_regular(file) as fh:  # a FIFO in place of an array: damaged, never waited on
        while n := fh.readinto(buf):
            crc = zlib.crc32(view[:n], crc)
    return crc


def _read(folder: Path) -> Timeline:
    """Read an entry written by :func:`_write`: the arrays are memory-mapped copy-on-write (no parsing, pages read
    on first touch); dtypes checked by :meth:`Timeline.validate`."""
    import numpy as np
    import pandas as pd
    from pyarrow import feather

    from gpulens.timeline import Timeline, TimelineMeta
    from gpulens.timeline.timeline import FORMAT_VERSION

    sealed = _unsealed(_read_regular(folder / "meta.json"))
    if sealed is None:
        raise ValueError("damaged or unsealed cache entry")
    doc = json.loads(sealed)
    if doc.get("format_version") != FORMAT_VERSION:
        raise ValueError("old cache entry")
    files = doc["files"]
    if sorted(files) != sorted(f.name for f in folder.iterdir() if f.name not in ("meta.json", _MARK)):
        raise ValueError("cache entry files missing or added")
    for name, (size, crc) in files.items():  # before anything is mapped: a damaged array is never served
        f = folder / name
        if f.stat().st_size != size or _crc(f) != crc:
            raise ValueError(f"damaged cache file {name}")

    def load(stem: Path, part: str) -> np.ndarray:
        # copy-on-write mapping: pages are read when touched, and writes stay private to this process
        return np.asarray(np.load(f"{stem}.{part}.npy", mmap_mode="c", allow_pickle=False))

    def read(name: str) -> pd.DataFrame:
        out = {}
        for i, (col, kind, cats) in enumerate(doc["columns"][name]):
            stem = folder / f"{name}.{i}"
            if kind == "category":
                out[col] = pd.Categorical.from_codes(load(stem, "codes"), categories=pd.Index(cats, dtype="str"))
            elif kind in ("Int64", "Int32", "Int16", "Int8", "UInt64", "UInt32", "UInt16", "UInt8"):
                values, mask = load(stem, "values"), load(stem, "mask")
                if values.dtype != np.dtype(kind.lower()) or mask.dtype != np.bool_ or mask.shape != values.shape:
                    raise ValueError(f"cache column {col} is not {kind}")
                out[col] = pd.arrays.IntegerArray(values, mask)
            else:
                out[col] = load(stem, "values")
        return pd.DataFrame(out, copy=False)

    tables = {n: feather.read_table(folder / f"table.{n}.arrow").to_pandas() for n in doc.get("tables", [])}
    return Timeline(read("events"), read("counters"), read("rejected"), TimelineMeta.from_dict(doc["meta"]),
                    tables).validate()


#: Version of the stored analysis results (bump when AnalysisResult/SourceReport change shape).
RESULTS_FORMAT = 3
_RESULTS_MARK = ".results"


@functools.lru_cache(maxsize=1)
def code_stamp() -> str:
    """Hash of the size and modification time of every module of the installed gpulens package: cached analysis
    results are never served to different analyzer code, even within one version number (editable installs)."""
    root = Path(__file__).resolve().parent
    h = hashlib.blake2b(digest_size=8)
    for f in sorted(root.rglob("*.py")):
        st = f.stat()
        h.update(f"{f.relative_to(root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def results_path(path: Path, options: dict) -> Path:
    """File of the cached analysis results of ``path`` under ``options`` (exists only once written).

    Keyed by :func:`trace_key` (trace identity, gpulens version) plus :func:`code_stamp`, :data:`RESULTS_FORMAT` and
    the analysis options (JSON of ``options``: format, strictness, selection, analyzers, device spec).
    """
    p = Path(path).resolve()
    opts = json.dumps(options, sort_keys=True, default=repr)
    key = trace_key(p, "analysis", str(RESULTS_FORMAT), code_stamp(), opts)
    return cache_dir() / f"{p.name[:40]}-{key}{_RESULTS_MARK}"


def results_file_for(path: str | Path, strict: bool, format: str | None, only: list[str] | None, select: Any,
                     device_spec: Any) -> Path | None:
    """Where the analysis results of one input analysed with these options are cached (:func:`results_path`), or
    None when they are not: the input is a directory or smaller than :func:`min_bytes`. The key covers the trace's
    identity and every option that changes the results (format, strictness, analyzers, selection, device spec).

    The caller decides whether the cache applies at all (it does not for several inputs, ``--join`` or a Dask
    scheduler)."""
    p = Path(path)
    try:
        if not p.is_file() or p.stat().st_size < min_bytes():
            return None
        options = {"format": format, "strict": bool(strict), "only": sorted(only) if only is not None else None,
                   "select": repr(select), "device_spec": repr(device_spec)}
        return results_path(p, options)
    except OSError:
        return None


def load_results(file: Path) -> Any | None:
    """The object stored by :func:`store_results` in ``file``, or None (absent, unreadable, or not a private file
    of this user: results are pickled, so a file another user could have written is never loaded)."""
    import pickle

    try:
        if not _owned_private(file):
            return None
        payload = _unsealed(_read_regular(file))
        return None if payload is None else pickle.loads(payload)
    except Exception:  # absent or damaged: analyse again (a damaged file is replaced by the next store)
        return None


def store_results(file: Path, value: Any) -> None:
    """Pickle ``value`` into ``file`` (mode 0600, written to a temporary file and renamed); errors are ignored."""
    import pickle

    try:
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        for old in _companions(file):  # reports rendered from the results this file held before
            old.unlink(missing_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=file.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_sealed(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)))
            os.replace(tmp, file)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass


_SEAL = b"gpulens-sealed-1\n"


def _sealed(payload: bytes) -> bytes:
    """``payload`` framed with its BLAKE2b-256 digest and length, so that :func:`_unsealed` can tell a damaged file
    (cut, emptied, a flipped byte on disk) from an intact one."""
    digest = hashlib.blake2b(payload, digest_size=32).digest()
    return _SEAL + digest + len(payload).to_bytes(8, "little") + payload


def _unsealed(blob: bytes) -> bytes | None:
    """The payload :func:`_sealed` framed, or None when ``blob`` is not such a frame or its digest or length does
    not match (the cached results or report are then rebuilt, never served damaged)."""
    head = len(_SEAL) + 32 + 8
    if len(blob) < head or not blob.startswith(_SEAL):
        return None
    digest, size = blob[len(_SEAL):len(_SEAL) + 32], int.from_bytes(blob[head - 8:head], "little")
    payload = blob[head:]
    if len(payload) != size or hashlib.blake2b(payload, digest_size=32).digest() != digest:
        return None
    return payload


def _owned_private(file: Path) -> bool:
    """True when ``file`` belongs to the current user and nobody else may write it."""
    st = file.stat()
    return not (hasattr(os, "getuid") and (st.st_uid != os.getuid() or st.st_mode & 0o022))


def render_path(results_file: Path, renderer: str, label: str) -> Path:
    """File of a report rendered from the cached results in ``results_file`` by ``renderer`` (``json``, ``html``,
    ``markdown``) for the input labelled ``label``: a companion of the results entry (listed and cleared with it)."""
    tag = hashlib.blake2b(f"{renderer}|{label}".encode(), digest_size=8).hexdigest()
    return Path(results_file).with_name(f"{Path(results_file).name}.{renderer}-{tag}")


def load_render(file: Path) -> str | None:
    """The rendered report text stored by :func:`store_render` (None: absent, unreadable, not UTF-8, or not a
    private file of this user — then the report is rendered again and the file replaced)."""
    try:
        if not _owned_private(file):
            return None
        payload = _unsealed(_read_regular(file))
        return None if payload is None else payload.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def store_render(file: Path, text: str) -> None:
    """Store a rendered report (mode 0600, written to a temporary file and renamed); errors are ignored."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=file.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(_sealed(text.encode("utf-8")))
            os.replace(tmp, file)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    except OSError:
        pass


def _companions(entry: Path) -> list[Path]:
    """Rendered reports stored beside a results entry (:func:`render_path`): named ``<entry>.<renderer>-<16 hex>``
    and sealed (:func:`_is_sealed_file`) — a user's ``<entry>.bak`` beside it is none."""
    if not entry.is_file():
        return []
    # glob.escape: a trace named ``run[1].json`` names its entry so, and ``[1]`` is no pattern
    return [f for f in entry.parent.glob(f"{glob.escape(entry.name)}.*-*")
            if _RENDER_NAME.fullmatch(f.name[len(entry.name):]) and _is_sealed_file(f)]


#: What :func:`render_path` appends to a results entry's name.
_RENDER_NAME = re.compile(r"\.[^/]+-[0-9a-f]{16}", re.ASCII)
#: A results entry's name (:func:`results_path`): the trace's name, ``-``, the 32-hex :func:`trace_key`, ``.results``.
_RESULTS_NAME = re.compile(r".*-[0-9a-f]{32}\.results", re.ASCII | re.DOTALL)
#: A temporary file or folder of :mod:`tempfile` made with the ``.tmp-`` prefix (8 characters of its alphabet).
_TMP_NAME = re.compile(r"\.tmp-[a-z0-9_]{8}", re.ASCII)


def _is_sealed_file(f: Path) -> bool:
    """True when ``f`` is a regular file that :func:`_sealed` framed (gpulens wrote it); never raises."""
    try:
        if not f.is_file() or f.is_symlink():
            return False
        with open(f, "rb") as fh:
            return fh.read(len(_SEAL)) == _SEAL
    except OSError:
        return False


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
    # only what gpulens wrote: a folder marked as an entry, or a sealed file named as a results entry — the cache
    # folder may be one a user named (GPULENS_CACHE_DIR) holding their own ``notes.results``
    return [e for e in d.iterdir() if _is_entry_folder(e) or (_RESULTS_NAME.fullmatch(e.name) and _is_sealed_file(e))]


#: A Timeline entry's folder name (:func:`entry_path`): the trace's name, ``-``, the 32-hex :func:`trace_key`.
_ENTRY_NAME = re.compile(r".*-([0-9a-f]{32})", re.ASCII | re.DOTALL)


def _is_entry_folder(e: Path) -> bool:
    """True when ``e`` is a Timeline entry gpulens wrote: a real folder named as :func:`entry_path` names one, whose
    mark (``gpulens-cache.json``) records that same key — not any folder of a user's that holds a file of that name
    (``cache clear`` deleted such a folder whole). Never raises."""
    m = _ENTRY_NAME.fullmatch(e.name)
    try:
        if m is None or not e.is_dir() or e.is_symlink() or not (e / _MARK).is_file():
            return False
        mark = json.loads(_read_regular(e / _MARK))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(mark, dict) and mark.get("key") == m.group(1)


def info() -> CacheInfo:
    """What the cache holds."""
    ents = _entries()
    size = sum(e.stat().st_size + sum(f.stat().st_size for f in _companions(e)) if e.is_file()
               else sum(f.stat().st_size for f in e.rglob("*") if f.is_file()) for e in ents)
    return CacheInfo(cache_dir(), len(ents), size)


def clear() -> int:
    """Delete every cache entry (folders marked as gpulens cache entries only); return how many."""
    ents = _entries()
    for e in ents:
        if e.is_file():
            for f in _companions(e):
                f.unlink(missing_ok=True)
            e.unlink(missing_ok=True)
        else:
            shutil.rmtree(e, ignore_errors=True)
    d = cache_dir()
    if d.is_dir():
        for t in d.glob(".tmp-*"):
            if not _TMP_NAME.fullmatch(t.name) or t.is_symlink():
                continue  # not one of gpulens's temporary entries
            if t.is_dir():
                shutil.rmtree(t, ignore_errors=True)
            else:
                t.unlink(missing_ok=True)
    return len(ents)
