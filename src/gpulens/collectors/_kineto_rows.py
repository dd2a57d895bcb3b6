"""The fields of one piece of decoded Kineto ``X`` events (msgspec structs), read column by column for
:meth:`gpulens.collectors._kineto_acc.Accumulator.add`.

:class:`EventRows` is one of the two row sources the accumulator turns into columns by the same code (the other,
:class:`gpulens.collectors._kineto_fast.ScannedRows`, reads the bytes of a piece directly). Every field is read in one
pass over the events and one over their ``args`` (``attrgetter`` of all the fields into an object matrix,
:func:`fields`), then converted per column in numpy.
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import attrgetter, is_
from typing import Any

import numpy as np

from gpulens.collectors._chrome_json import Args
from gpulens.collectors._kineto_columns import Dictionary, int_array, us_text_to_ns

_EMPTY = Args()
_EVENT_FIELDS = ("name", "cat", "pid", "tid", "args")  # ts/dur are read apart: joined as text, never a matrix cell
_TS, _DUR = attrgetter("ts"), attrgetter("dur")
_EV = {f: i for i, f in enumerate(_EVENT_FIELDS)}
#: args read on every row, and only on GPU rows (of GPU categories)
_ARG_FIELDS = ("correlation", "external_id", "external_id_legacy", "flops", "input_dims", "input_dims_legacy",
               "input_type", "concrete_inputs", "grid", "block", "registers", "shared_memory", "rank", "rank_comms",
               "kernel_details", "memcpy_details", "coll_name", "desc", "correlation_paddle",
               "start_time")
_AR = {f: i for i, f in enumerate(_ARG_FIELDS)}
#: args keys read under another spelling where the first is absent: the 2021 schema's ``external id``, PaddlePaddle's
#: ``correlation id`` (paddle/fluid/platform/profiler/chrometracing_logger.cc, runtime and device events)
_SPELLINGS = {"external_id": "external_id_legacy", "correlation": "correlation_paddle"}
_GPU_ARG_FIELDS = ("device", "stream", "bytes", "kind", "blocks_per_sm", "warps_per_sm", "est_occupancy")
_GA = {f: i for i, f in enumerate(_GPU_ARG_FIELDS)}


def fields(objs: list, names: tuple[str, ...]) -> np.ndarray:
    """``objs`` × ``names`` attribute values as an object matrix, read in one pass (one ``attrgetter`` call per
    object; ``np.fromiter`` never looks inside the values, so a list value stays one cell)."""
    get = attrgetter(*names)
    k = len(names)
    return np.fromiter(chain.from_iterable(map(get, objs)), dtype=object, count=len(objs) * k).reshape(-1, k)


def is_none(vals: np.ndarray) -> np.ndarray:
    """Per value: ``is None`` (identity, never ``==``)."""
    return np.fromiter(map(is_, vals, repeat(None)), dtype=bool, count=len(vals))


def floats(vals: list) -> np.ndarray:
    """Numbers (int/float) → float64, anything else NaN."""
    try:
        out = np.array(vals, dtype=np.float64)
        if out.shape == (len(vals),):
            return out
    except (TypeError, ValueError, OverflowError):
        pass
    # one value per row, always: a nested list ([1.5]) is no number, an integer beyond float64 (> 1.8e308) unknown
    return np.array([_one_float(v) for v in vals], dtype=np.float64)


def _one_float(v: Any) -> float:
    """One decoded JSON value → float64; NaN (unknown) for non-numbers, booleans and integers beyond float64."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return np.nan
    try:
        return float(v)
    except OverflowError:
        return np.nan


def raw_texts(raws: np.ndarray, legacy: np.ndarray | None = None) -> np.ndarray:
    """Raw JSON values (``msgspec.Raw``, empty when absent) → an object array of their bytes, None where absent;
    ``legacy`` is read where ``raws`` is absent."""
    n = len(raws)
    out = np.full(n, None, dtype=object)
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=n)
    have = np.flatnonzero(sizes)
    if len(have):
        out[have] = list(map(bytes, raws[have]))
    if legacy is not None and len(have) < n:
        alt = np.flatnonzero((sizes == 0) & (np.fromiter(map(len, legacy), dtype=np.int64, count=n) > 0))
        if len(alt):
            out[alt] = list(map(bytes, legacy[alt]))
    return out


def scatter(n: int, idx: np.ndarray, vals: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, valid) of ``n`` rows with ``vals``/``ok`` at rows ``idx``, zero/invalid elsewhere."""
    v = np.zeros(n, dtype=np.int64)
    m = np.zeros(n, dtype=bool)
    v[idx] = vals
    m[idx] = ok
    return v, m


def dim3(vals: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[x, y, z]`` lists (or None) → three (values, valid) pairs."""
    n = len(vals)
    idx = np.flatnonzero(~is_none(vals)).tolist()
    if not idx:
        z = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bool)
        return [z, z, z]
    sub = list(map(vals.__getitem__, idx)) if len(idx) < n else vals
    try:
        if sum(map(len, sub)) == 3 * len(sub):
            # as float64, then kept only when every value is a whole number that float64 holds exactly: an int64
            # read would cut a fraction (grid 7.5 → 7) without a word; anything else takes int_array's path
            f = np.fromiter(chain.from_iterable(sub), dtype=np.float64, count=3 * len(sub))
            exact = bool((np.abs(f) <= 2.0 ** 53).all())  # NaN fails it too; beyond it the cast may overflow
            a = f.astype(np.int64) if exact else None
            if a is not None and bool((a == f).all()):
                a = a.reshape(-1, 3)
                ia = np.asarray(idx)
                return [scatter(n, ia, a[:, j], np.ones(len(ia), dtype=bool)) for j in range(3)]
    except (TypeError, ValueError, OverflowError):
        pass
    cols = []
    for j in range(3):
        cols.append(int_array([v[j] if isinstance(v, (list, tuple)) and len(v) > j else None for v in vals]))
    return cols


def _axis(v: Any) -> int | None:
    """One launch dimension written as its own arg (ONNX Runtime: ``"grid_x": "216"``): a whole number ≥ 1 from an
    int or a decimal string, else None."""
    if isinstance(v, str):
        v = int(v.strip()) if v.strip().isascii() and v.strip().isdigit() else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 1 else None


class EventRows:
    """The ``X`` events of one decoded piece as a row source (see the module docstring).

    The accumulator calls, in order: :meth:`name_codes`, :meth:`cat_codes`, :meth:`times`, :meth:`keep` (rows
    that become Timeline rows), :meth:`set_gpu` (GPU rows among them), then the per-field readers. ``rows``
    arguments index the kept rows; ``gpu=True`` readers take GPU rows only (indices into the kept rows).
    """

    def __init__(self, xs: list) -> None:
        self.xs = xs
        self.n = len(xs)
        self.ev = fields(xs, _EVENT_FIELDS)
        self.ar: Any = None
        self.gar: Any = None
        self.gpos: Any = None

    def name_codes(self, names: Dictionary) -> np.ndarray:
        """Codes of the events' names in ``names`` (-1 for none), encoding new ones in order of appearance."""
        return names.encode(self.ev[:, _EV["name"]])

    def cat_codes(self, cats: Dictionary) -> np.ndarray:
        """Codes of the events' categories in ``cats``."""
        return cats.encode(self.ev[:, _EV["cat"]])

    def name_value(self, i: int) -> Any:
        """The decoded name of row ``i`` (before :meth:`keep`)."""
        return self.ev[i, _EV["name"]]

    def corr_values(self, rows: np.ndarray) -> list:
        """The ``correlation`` arg of ``rows`` (before :meth:`keep`): an int64 integer, else None."""
        out = []
        for a in self.ev[rows, _EV["args"]]:
            v = getattr(a, "correlation", None) if a is not None else None
            v = getattr(a, "correlation_paddle", None) if v is None and a is not None else v
            out.append(v if isinstance(v, int) and not isinstance(v, bool) and -(1 << 63) <= v < (1 << 63) else None)
        return out

    def times(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(ts ns, ts valid, dur ns, dur valid) of all rows (:func:`us_text_to_ns`)."""
        self._raw = {"ts": list(map(_TS, self.xs)), "dur": list(map(_DUR, self.xs))}
        return us_text_to_ns(self._raw["ts"]) + us_text_to_ns(self._raw["dur"])

    def time_text(self, col: str, i: int) -> bytes:
        """The raw JSON text of ``ts`` or ``dur`` of row ``i`` (empty when absent)."""
        return bytes(self._raw[col][i])

    def keep(self, good: np.ndarray | None) -> None:
        """Keep rows ``good`` (None: all) and read their ``args``."""
        del self._raw, self.xs
        if good is not None:
            self.ev = self.ev[good]
        self.n = len(self.ev)
        self.args = [a if a is not None else _EMPTY for a in self.ev[:, _EV["args"]]]
        self.ar = fields(self.args, _ARG_FIELDS)

    def start_args(self) -> tuple[np.ndarray, np.ndarray] | None:
        """(kept rows, ns) of PaddlePaddle's exact starts (``args.start_time``; :mod:`._paddle_times`), or None."""
        from gpulens.collectors._paddle_times import rel_start_ns

        vals = self._arg("start_time")
        return None if is_none(vals).all() else rel_start_ns(vals.tolist())

    def set_gpu(self, gi: np.ndarray) -> None:
        """Rows ``gi`` are GPU rows: read their GPU-only args."""
        self.gar = fields([self.args[i] for i in gi.tolist()], _GPU_ARG_FIELDS)
        self.gpos = np.full(self.n, -1, dtype=np.int64)
        self.gpos[gi] = np.arange(len(gi))

    def _arg(self, key: str, rows: Any = None, gpu: bool = False) -> np.ndarray:
        if gpu:
            return self.gar[self.gpos[rows], _GA[key]]
        return self.ar[:, _AR[key]] if rows is None else self.ar[rows, _AR[key]]

    def ids(self, key: str, rows: Any = None, gpu: bool = False, bad: list | None = None):
        """(int64 values, valid) of an id field (``pid``, ``tid``, an args key; ``external_id`` falls back to
        the legacy spelling); ``bad`` as in :func:`int_array`."""
        if key in ("pid", "tid"):
            return int_array(self.ev[:, _EV[key]], bad)
        vals = self._arg(key, rows, gpu)
        if key in _SPELLINGS:  # absent or null: the other spelling ("external id", Paddle's "correlation id")
            other = is_none(vals)
            if other.any():
                vals = np.where(other, self._arg(_SPELLINGS[key], rows), vals)
        return int_array(vals, bad)

    def floats(self, key: str, rows: Any = None, gpu: bool = False) -> np.ndarray:
        """float64 of a numeric args field, NaN where it is no number."""
        return floats(self._arg(key, rows, gpu).tolist())

    def text_codes(self, dictionary: Dictionary, key: str) -> np.ndarray:
        """Codes of the raw JSON text of ``input_dims`` (or its legacy spelling) / ``input_type`` /
        ``concrete_inputs``."""
        legacy = self._arg("input_dims_legacy") if key == "input_dims" else None
        return dictionary.encode(raw_texts(self._arg(key), legacy))

    def dim3(self, key: str) -> list[tuple[np.ndarray, np.ndarray]]:
        """``grid`` / ``block`` as three (values, valid) pairs."""
        vals = self._arg(key).tolist()
        gi = np.flatnonzero(getattr(self, "gpos", np.zeros(0, np.int64)) >= 0)
        for i in gi[is_none(np.asarray(vals, dtype=object)[gi])].tolist() if len(gi) else []:
            # ONNX Runtime's Kernel events: one arg per axis (grid_x … block_z), each a decimal string
            axes = [_axis(getattr(self.args[i], f"{key}_{a}", None)) for a in "xyz"]
            if axes[0] is not None:
                vals[i] = [axes[0], 1 if axes[1] is None else axes[1], 1 if axes[2] is None else axes[2]]
        return dim3(vals)

    def pid_labels(self) -> list | None:
        """The pids when they are text labels (fused traces: ``"RANK 2 - GPU 4"``), else None."""
        pids = self.ev[:, _EV["pid"]]
        return pids.tolist() if isinstance(pids[0], str) or isinstance(pids[-1], str) else None

    def values(self, key: str, rows: np.ndarray, gpu: bool = False) -> list:
        """Decoded values of an args field (``kind``, ``kernel_details``) at ``rows``; a field read on no row
        (``kernel``: a TensorFlow timeline op's) is looked up at ``rows`` alone."""
        if not gpu and key not in _AR:
            return [getattr(self.args[int(i)], key, None) for i in rows]
        return list(self._arg(key, rows, gpu))

    def collectives(self) -> tuple[np.ndarray, list]:
        """(rows, Args) of the rows with collective metadata (``Collective name``)."""
        ci = np.flatnonzero(~is_none(self._arg("coll_name")))
        return ci, [self.args[i] for i in ci]
