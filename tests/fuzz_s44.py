"""Session-44 fuzzing: mutation kinds no earlier fuzzer makes (tests/fuzzing.py, fuzz_more … fuzz_s43), on the seeds
of tests/fuzzing.py ``--extended`` (every case of tests/data/cases and ../shared/cases, the folder seeds).

``python tests/fuzz_s44.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``stacked`` — 2–4 mutations of earlier campaigns (:data:`STACK`: fuzz_s40 value / cell / cut, fuzz_s41 layout /
  shape / schema / packing) applied one after another to the same input;
* ``order`` — the records of a Kineto trace or a CSV input reversed, shuffled or sorted by name: a metamorphic
  check — the kernels read and their summed duration must equal the seed's;
* ``splice`` — two seeds of one family joined: the events of two Kineto traces in one document (the second moved
  by a random offset or not), the rows of two CSV files of one tool under the first header;
* ``field_swap`` — two fields of every record (or of half of them) swapped: ``ts``/``dur``, ``pid``/``tid``,
  ``name``/``cat``, a CSV's start/end columns, name/id columns;
* ``wrong_name`` — the content of one seed under the file name of another (a Kineto trace named
  ``kernel_trace.csv``, a SQLite export named ``.json.gz``, a CSV named ``.sqlite``), alone or inside a folder seed;
* ``launch_cfg`` — a Kineto trace with launch configurations and ``deviceProperties`` (../shared/traces:
  TraceLens H100, HTA A100) whose kernels' ``grid`` / ``block`` / registers / shared memory / Kineto occupancy
  estimates (all, half or 5 % of them) or whose device records (every record) take values at or past their limits
  (:data:`LAUNCH_VALUES`, :data:`PROP_VALUES`);
* ``repeat`` — time: one event (or a launch/kernel pair) of a seed repeated 20,000–60,000 times, all at one time
  or spread; the report must be written within the limit and the JSON report stays under 20 MB.

``analyze`` runs are checked with :func:`tests.fuzz_s38.report_check`; every fourth input also runs ``diff`` and
``gate`` (:func:`tests.fuzz_s40.diff_gate_check`) against the seed's report. Every fault found by this campaign has
its regression in tests/test_trust_s44_fuzz.py.
"""

from __future__ import annotations

import csv
import gzip
import importlib
import io
import json
import math
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import _EXPECT, report_check  # noqa: E402
from tests.fuzz_s40 import _into, _seed_files, _target  # noqa: E402

KINDS = ["stacked", "order", "splice", "field_swap", "wrong_name", "repeat", "launch_cfg"]
STACK = [("fuzz_s40", "json_value"), ("fuzz_s40", "csv_cell"), ("fuzz_s40", "sqlite_cell"),
         ("fuzz_s40", "struct_cut"), ("fuzz_s41", "csv_layout"), ("fuzz_s41", "json_shape"),
         ("fuzz_s41", "sqlite_schema"), ("fuzz_s41", "packing")]
JSON_SUFFIXES = (".json", ".json.gz")
SWAPS = [("ts", "dur"), ("pid", "tid"), ("name", "cat"), ("ts", "pid"), ("dur", "tid")]


def _load(p: Path):
    data = p.read_bytes()
    gz = data[:2] == b"\x1f\x8b"
    try:
        return json.loads(gzip.decompress(data) if gz else data), gz
    except (ValueError, OSError, EOFError):
        return None, gz


def _events(doc) -> list | None:
    if isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        return doc["traceEvents"]
    return doc if isinstance(doc, list) else None


def _put(p: Path, doc, gz: bool) -> None:
    text = json.dumps(doc, allow_nan=True).encode()
    p.write_bytes(gzip.compress(text) if gz else text)


def _kineto_files(seeds, names) -> list[Path]:
    out = []
    for f in _seed_files(seeds, names, JSON_SUFFIXES):
        doc, _ = _load(f)
        ev = _events(doc)
        if ev and any(isinstance(e, dict) and e.get("ph") == "X" for e in ev[:2000]):
            out.append(f)
    return out


def _csv_rows(p: Path) -> list[list[str]] | None:
    try:
        rows = list(csv.reader(io.StringIO(p.read_text(encoding="utf-8-sig", errors="replace"))))
    except (csv.Error, OSError):
        return None
    return rows if len(rows) >= 3 and rows[0] else None


def _write_csv(p: Path, rows) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text(buf.getvalue())


# ---------------------------------------------------------------------------------------------------- kinds
def stacked(rng, seeds, names, work: Path, i: int):
    steps = rng.randint(2, 4)
    cur, first, ops = seeds, None, []
    cnames = names
    for s in range(steps):
        mod, fn = rng.choice(STACK)
        w = work / f"s{s}"
        w.mkdir()
        _EXPECT.pop("op", None)
        try:
            got = getattr(importlib.import_module(f"tests.{mod}"), fn)(rng, cur, cnames, w, i)
        except Exception:  # noqa: BLE001 - the kind finds no file of its format here, or cannot read it
            got = None
        if got is None:
            continue
        target, seed = got
        first = first or seed
        ops.append(f"{fn}: {_EXPECT.get('op', '?')}")
        cur, cnames = {"x": target}, ["x"]
    if first is None or len(ops) < 2:
        return None
    _EXPECT["op"] = " + ".join(ops)
    return cur["x"], first


def order(rng, seeds, names, work: Path, i: int):
    if rng.random() < 0.6:
        cands = _kineto_files(seeds, names)
        src = rng.choice(cands)
        doc, gz = _load(src)
        ev = _events(doc)
        p, seed = _into(work, src, seeds, names)
        op = rng.choice(["reverse", "shuffle", "by_name"])
        ev2 = list(reversed(ev)) if op == "reverse" else (
            sorted(ev, key=lambda e: str(e.get("name")) if isinstance(e, dict) else "") if op == "by_name"
            else rng.sample(ev, len(ev)))
        ev[:] = ev2
        _put(p, doc, gz)
    else:
        src = rng.choice(_seed_files(seeds, names, (".csv",)))
        rows = _csv_rows(src)
        if rows is None or any(len(r) != len(rows[0]) for r in rows):
            return None  # a CSV with a units row or a preamble: its body is not one table
        p, seed = _into(work, src, seeds, names)
        op = rng.choice(["reverse", "shuffle"])
        body = rows[1:]
        body = list(reversed(body)) if op == "reverse" else rng.sample(body, len(body))
        _write_csv(p, [rows[0]] + body)
    _EXPECT["op"] = f"{src.name}: records {op}"
    _EXPECT["order"] = (src, p)
    return _target(p, seed, work), seed


def splice(rng, seeds, names, work: Path, i: int):
    if rng.random() < 0.6:
        cands = _kineto_files(seeds, names)
        a, b = rng.choice(cands), rng.choice(cands)
        da, gz = _load(a)
        db, _ = _load(b)
        ea, eb = _events(da), _events(db)
        shift = rng.choice([0, 0, 1, 10**6, 10**12, -10**6])
        for e in eb:
            if isinstance(e, dict) and isinstance(e.get("ts"), (int, float)) and shift:
                e = dict(e)
                e["ts"] = e["ts"] + shift
            ea.append(e)
        p = work / a.name
        _put(p, da, gz)
        _EXPECT["op"] = f"{a.name} + events of {b.name} shifted {shift} µs"
        return p, a
    cands = _seed_files(seeds, names, (".csv",))
    a = rng.choice(cands)
    ra = _csv_rows(a)
    if ra is None:
        return None
    same = [c for c in cands if c != a and (_csv_rows(c) or [[]])[0][:3] == ra[0][:3]]
    b = rng.choice(same) if same else a
    rb = _csv_rows(b) or []
    p, seed = _into(work, a, seeds, names)
    _write_csv(p, ra + rb[1:])
    _EXPECT["op"] = f"{a.name} + rows of {b.name}"
    return _target(p, seed, work), seed


_CSV_PAIRS = [("Start_Timestamp", "End_Timestamp"), ("BeginNs", "EndNs"), ("Start (ns)", "Duration (ns)"),
              ("Kernel_Name", "Kernel_Id"), ("KernelName", "Index"), ("Name", "Instances"), ("Agent_Id", "Queue_Id"),
              ("gpu-id", "queue-id"), ("Kernel Name", "ID"), ("Total Time (ns)", "Avg (ns)")]


def field_swap(rng, seeds, names, work: Path, i: int):
    half = rng.random() < 0.5
    if rng.random() < 0.6:
        src = rng.choice(_kineto_files(seeds, names))
        doc, gz = _load(src)
        a, b = rng.choice(SWAPS)
        p, seed = _into(work, src, seeds, names)
        for j, e in enumerate(_events(doc)):
            if isinstance(e, dict) and (not half or j % 2) and a in e and b in e:
                e[a], e[b] = e[b], e[a]
        _put(p, doc, gz)
    else:
        src = rng.choice(_seed_files(seeds, names, (".csv",)))
        rows = _csv_rows(src)
        if rows is None:
            return None
        hd = rows[0]
        pairs = [(x, y) for x, y in _CSV_PAIRS if x in hd and y in hd]
        if not pairs:
            return None
        a, b = rng.choice(pairs)
        ja, jb = hd.index(a), hd.index(b)
        p, seed = _into(work, src, seeds, names)
        for j, r in enumerate(rows[1:]):
            if len(r) > max(ja, jb) and (not half or j % 2):
                r[ja], r[jb] = r[jb], r[ja]
        _write_csv(p, rows)
    _EXPECT["op"] = f"{src.name}: {a} <-> {b}{' (every other record)' if half else ''}"
    return _target(p, seed, work), seed


def wrong_name(rng, seeds, names, work: Path, i: int):
    files = [p for n in names for p in ([seeds[n]] if seeds[n].is_file() else [])]
    a, b = rng.sample(files, 2)
    if rng.random() < 0.4:
        dirs = [seeds[n] for n in names if seeds[n].is_dir()]
        d = rng.choice(dirs)
        inner = [f for f in sorted(d.rglob("*")) if f.is_file()]
        if not inner:
            return None
        victim = rng.choice(inner)
        dest = work / d.name
        shutil.copytree(d, dest)
        shutil.copyfile(a, dest / victim.relative_to(d))
        _EXPECT["op"] = f"{d.name}/{victim.relative_to(d)} holds {a.name}"
        return dest, d
    p = work / b.name
    shutil.copyfile(a, p)
    _EXPECT["op"] = f"{a.name} named {b.name}"
    return p, a


def repeat(rng, seeds, names, work: Path, i: int):
    n = rng.choice([20_000, 40_000, 60_000])
    spread = rng.random() < 0.5
    src = rng.choice(_kineto_files(seeds, names))
    doc, gz = _load(src)
    ev = _events(doc)
    ks = [e for e in ev if isinstance(e, dict) and e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy")
          and isinstance(e.get("ts"), (int, float))]
    if not ks:
        return None
    k = rng.choice(ks)
    corr = (k.get("args") or {}).get("correlation")
    pair = [e for e in ev if isinstance(e, dict) and e.get("cat") == "cuda_runtime"
            and (e.get("args") or {}).get("correlation") == corr][:1] if corr is not None else []
    unit = [k] + pair
    out = []
    for j in range(n // len(unit)):
        for e in unit:
            if spread:
                e = dict(e, ts=e["ts"] + j * max(1, int(k.get("dur") or 1)) if isinstance(e.get("ts"), (int, float))
                         else e.get("ts"))
            out.append(e)
    ev[:] = [e for e in ev if not (isinstance(e, dict) and e.get("ph") == "X")] + out
    p = work / src.name
    _put(p, doc, gz)
    _EXPECT["op"] = f"{src.name}: {k.get('name')!s:.40} ×{n} {'spread' if spread else 'at one time'}"
    _EXPECT["repeat"] = True
    return p, src


LAUNCH_VALUES = {
    "registers per thread": [0, -1, 255, 256, 1000, 2**31, 1.5, "32", None],
    "shared memory": [0, -1, 2**31, 10**12, 232448, 300000, "x", 1.5],
    "grid": [[0, 1, 1], [-1, 1, 1], [2**31, 1, 1], [1, 65536, 1], [1, 1], [1, 1, 1, 1], "564,1,1", [], [1.5, 1, 1],
             [2**63, 2**63, 2]],
    "block": [[0, 1, 1], [2048, 1, 1], [1024, 2, 1], [-128, 1, 1], [32, 32, 2], [1], [96, 1, 1], [2**31, 1, 1]],
    "blocks per SM": [-1, 1e9, "nan", 0], "warps per SM": [-3, 1e9, 0], "est. achieved occupancy %": [150, -5, 1e9, "x"]}
PROP_VALUES = {
    "numSms": [0, -1, 1, 10**9, 1.5, "132"], "maxThreadsPerMultiprocessor": [0, 1, -2048, 31],
    "regsPerMultiprocessor": [0, 1, -1, 100], "sharedMemPerMultiprocessor": [0, -1, 1], "warpSize": [0, 1, 33, -32],
    "maxThreadsPerBlock": [0, 1], "regsPerBlock": [0, 1], "computeMajor": [0, 99, -1, "9"], "computeMinor": [99, -1],
    "name": ["", "NVIDIA H100 80GB HBM3\u0000", "AMD Instinct MI300X", 5], "totalGlobalMem": [0, -1],
    "sharedMemPerBlockOptin": [0, -1], "id": [1, -1, "0", None]}
LAUNCH_SEEDS = ("tracelens_h100_bert-small.json.gz", "hta_alexnet_a100.json.gz")


def launch_cfg(rng, seeds, names, work: Path, i: int):
    cands = [seeds[n] for n in names if seeds[n].name in LAUNCH_SEEDS]
    if not cands:
        return None
    src = rng.choice(cands)
    doc, gz = _load(src)
    ks = [e for e in _events(doc) if isinstance(e, dict) and e.get("cat") == "kernel" and isinstance(e.get("args"), dict)]
    ops = []
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.55:
            k = rng.choice(sorted(LAUNCH_VALUES))
            v, frac = rng.choice(LAUNCH_VALUES[k]), rng.choice([1.0, 0.5, 0.05])
            for e in ks:
                if rng.random() < frac:
                    e["args"][k] = v
            ops.append(f"{k}={v!r} on {frac:.0%}")
        else:
            k = rng.choice(sorted(PROP_VALUES))
            v = rng.choice(PROP_VALUES[k])
            for dp in doc.get("deviceProperties") or []:
                dp[k] = v
            ops.append(f"deviceProperties.{k}={v!r}")
    p = work / src.name
    _put(p, doc, gz)
    _EXPECT["op"] = f"{src.name}: " + "; ".join(ops)
    return p, src


# ---------------------------------------------------------------------------------------------------- checks
def _kernel_sum(path: Path) -> tuple[int, float]:
    from gpulens.collectors import collect

    ev = collect(path, strict=False).events
    k = ev[ev["kind"].isin(["kernel", "comm"])]
    return int(len(k)), float(k["dur_ns"].sum())


def _order_check(o: str) -> str | None:
    from gpulens.errors import GpulensError

    src, p = _EXPECT["order"]
    try:
        want = _kernel_sum(src)
    except GpulensError:
        return None
    try:
        got = _kernel_sum(p)
    except GpulensError as exc:
        return f"{o}: the seed reads, the reordered input is refused: {exc}"
    if got[0] != want[0] or not math.isclose(got[1], want[1], rel_tol=1e-9, abs_tol=1):
        return f"{o}: kernels {want} in the seed, {got} after reordering"
    return None


#: words that are no figure: a non-finite number, Python's None, a raw dict or list, a format placeholder
_NOT_FIGURES = re.compile(r"(?<![\w./-])(?:nan|NaN|-?inf|-?Infinity|None)(?![\w./-])|\{'|\['|\{\}|%\(|\{[a-z_]+\}",
                          re.ASCII)


def _shown_words(text: str, names: set[str]) -> str | None:
    """The first non-figure word (:data:`_NOT_FIGURES`) of ``text`` outside the input's own names."""
    for m in _NOT_FIGURES.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1:text.find("\n", m.end())]
        if not any(m.group(0) in n for n in names if n in line):
            return f"{m.group(0)!r} shown: {line.strip()[:160]!r}"
    return None


def _names(path: Path) -> set[str]:
    from gpulens.collectors import collect

    try:
        ev = collect(path, strict=False).events
    except Exception:  # noqa: BLE001 - the report check has seen how it failed
        return set()
    return {str(n) for n in ev["name"].astype(str).unique()[:5000]}


def shared_seeds(a) -> dict[str, Path]:
    """Every real trace of ../shared/traces (files and run folders), when the developer corpus is there."""
    root = HERE.parents[1] / "shared" / "traces"
    out: dict[str, Path] = {}
    if root.is_dir():
        for fam in sorted(p for p in root.iterdir() if p.is_dir()):
            for p in sorted(fam.iterdir()):
                if p.name != "reference_tracelens_outputs":
                    out[f"shared_{p.name}"] = p
    return out


def make(rng, seeds, names, work, i, kind):
    return make_with(globals()[kind], rng, seeds, names, work, i)


def make_with(build, rng, seeds, names, work, i):
    """``build(rng, seeds, names, work, i)`` → (mutant, seed) or None, with :data:`_EXPECT` cleared first and the
    seed recorded in it (``"seed"``)."""
    _EXPECT.clear()
    got = build(rng, seeds, names, work, i)
    if got is not None:
        _EXPECT["seed"] = got[1]
    return got


def _one(kind: str, rng, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    o = _EXPECT.get("op", "?")
    extra = [] if strict else ["--lenient"]
    what = report_check(path, work, extra)
    if what:
        return f"{o}: {what}"
    md = work / "o" / "r.md"
    if md.exists():
        bad = _shown_words(md.read_text(errors="replace"), _names(path))
        if bad:
            return f"{o}: Markdown report: {bad}"
    if kind == "repeat":
        r = work / "o" / "r.json"
        if r.exists() and r.stat().st_size > 20e6:
            return f"{o}: JSON report of {r.stat().st_size / 1e6:.0f} MB"
    if kind == "order":
        what = _order_check(o)
        if what:
            return what
    if cli and (work / "o" / "r.json").exists():
        from tests.fuzz_s40 import diff_gate_check
        from tests.fuzz_s8 import run_cli

        good = work / "good.json"
        code, _ = run_cli(["analyze", str(_EXPECT.get("seed", path)), "-q", "--no-cache", "--json", str(good)])
        if good.exists():
            return diff_gate_check(work / "o" / "r.json", good, o)
    return None


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=44044, timeout=25.0, cli_every=4,
                                 more_seeds=shared_seeds)


if __name__ == "__main__":
    sys.exit(main())
