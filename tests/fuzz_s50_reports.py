"""Session-50 fuzzing of what ``gpulens diff`` / ``gate`` / ``baseline`` and the report writers read and write —
the kinds tests/fuzz_s49_reports.py did not try. Runs through :func:`tests.fuzz_s48.main` (its loop, findings and
totals; ``--inproc`` as there).

``python tests/fuzz_s50_reports.py --count N --workdir DIR [--seed S] [--timeout 60] [--kinds a,b] [--inproc]``
(DIR under /tmp; not part of the timed suite). Seeds: the JSON reports of two committed Kineto traces
(tests/data/kineto); for ``old_version``, reports and baselines written by older gpulens commits (``git archive`` of
:data:`OLD_COMMITS` into ``DIR/old``, made once). Kinds (:data:`MAKERS`):

* ``old_version`` — a report or baseline written by an older gpulens (report schema 1, older metric sets), maybe
  with one key of it dropped; gated both ways against today's report, and diffed;
* ``future`` — a baseline or report of an unknown newer gpulens: a newer ``gpulens_baseline`` / ``schema_version``,
  unknown keys at any level (a new metric kind, a new run field), a newer ``tool.version``;
* ``report_keys`` — a report with one key removed or one unknown key added at any depth;
* ``runs`` — reports of 0, 1, 2 or 1000 runs (sources), identical runs (zero variance), durations scaled to huge
  (×10⁹, up to 2⁶³) or tiny (1 ns, 0), kernels present on one side only, Unicode and 1 MB kernel names — saved as a
  baseline and gated, and diffed; identical sides must PASS;
* ``env_other`` — a baseline for another GPU model, device count, rank count, driver or gpulens options;
* ``store`` — a baseline store holding a damaged file (cut, empty, a folder named ``x.json``, unreadable chmod 000,
  a symlink loop), ``gate --baseline NAME --store``, ``baseline list`` and ``baseline save`` into it; or two
  ``baseline save`` processes into one store at once (one name or two);
* ``same_path`` — ``gate`` whose candidate is the baseline's own path; ``diff X X``.

Checks: tests/fuzz_s48.py's outcome classes (1) traceback / undocumented exit / multi-line exit-2 and (2) hang;
(3) an impossible figure in a written gate / diff output (tests/fuzz_s49_reports.py's checks: NaN / Infinity, a
share > 100 %) plus a raw dict / list / ``None`` / unfilled ``{placeholder}`` in Markdown or HTML, a negative or
non-finite noise / band / p-value / median in the gate JSON, and verdicts derived independently (identical sides
never REGRESSED or IMPROVED; a save into a store never leaves a file that is not a whole baseline).
"""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s48 as f48  # noqa: E402
from tests import fuzz_s49_reports as f49r  # noqa: E402

SEEDS = ["hta_a100_simple_add_two_streams.json.gz", "aorta_mi350x_train_step.pt.trace.json"]
#: Older commits whose reports and baselines are read back (first gate, mid-way, before ``unknown``/``notes``).
OLD_COMMITS = ["a411d314", "875a9070", "561ea33c", "64ad9cf5"]
KINDS = ["old_version", "future", "report_keys", "report_keys", "runs", "runs", "runs", "env_other", "store",
         "store", "same_path"]
EXPECT = f48.EXPECT
GATE_OK = {0, 1, 2, 3, 4}
_SEEDS: dict = {}
RAW = re.compile(r"\{'|\['|\bNone\b|\{[a-z_]+\}|<built-in|object at 0x")
TIME_KEYS = ("span_ns", "gpu_busy_ns", "kernel_busy_ns", "kernel_effective_ns", "kernel_time_ns", "device_span_ns",
             "computation_ns")


# ---------------------------------------------------------------------------------------------------- seeds
def _cli(argv: list[str], out: Path, timeout: float = 300.0) -> dict:
    return f48.run(argv, out, timeout)


def seeds_of(workdir: Path) -> dict:
    """Reports of the two seed traces (today's gpulens) and the old commits' reports and baselines, made once."""
    if _SEEDS:
        return _SEEDS
    sd = workdir / "s50seeds"
    cache = sd / "seeds.json"
    if cache.exists():
        _SEEDS.update(json.loads(cache.read_text()))
        return _SEEDS
    sd.mkdir(parents=True, exist_ok=True)
    seeds: dict = {"reports": {}, "old": []}
    for s in SEEDS:
        res = _cli(["analyze", str(HERE / "data" / "kineto" / s), "-q", "--json", str(sd / (s + ".json")),
                    "--no-cache"], sd)
        assert res["code"] == 0, res
        seeds["reports"][s] = str(sd / (s + ".json"))
    for c in OLD_COMMITS:
        d = workdir / "old" / c
        made = _old_artifacts(c, d)
        if made:
            seeds["old"].append(made)
    cache.write_text(json.dumps(seeds))
    _SEEDS.update(seeds)
    return _SEEDS


def _old_artifacts(commit: str, d: Path) -> dict | None:
    """Reports (``r1``, ``r2``) and baselines (``b1`` of three runs, ``b2`` of one) written by gpulens at ``commit``."""
    d.mkdir(parents=True, exist_ok=True)
    if not (d / "src").exists():
        arch = subprocess.run(["git", "-C", str(HERE.parent), "archive", commit, "src"], capture_output=True)
        if arch.returncode:
            return None
        subprocess.run(["tar", "-x", "-C", str(d)], input=arch.stdout, check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPULENS_")}
    env.update(PYTHONPATH=str(d / "src"), GPULENS_CACHE_DIR=str(d / "cache"))
    code = "import sys; from gpulens.cli import main; sys.exit(main(sys.argv[1:]))"
    steps = [["analyze", str(HERE / "data" / "kineto" / SEEDS[0]), "-q", "--json", "r1.json"],
             ["analyze", str(HERE / "data" / "kineto" / SEEDS[1]), "-q", "--json", "r2.json"],
             ["baseline", "save", "r1.json", "r1.json", "r1.json", "--name", str(d / "b1.json")],
             ["baseline", "save", "r2.json", "--name", str(d / "b2.json")]]
    for argv in steps:
        if not (d / argv[-1]).exists():
            subprocess.run([sys.executable, "-c", code, *argv], cwd=d, env=env, capture_output=True, timeout=600)
    got = {k: str(d / f"{k}.json") for k in ("r1", "r2", "b1", "b2") if (d / f"{k}.json").exists()}
    return dict(got, commit=commit) if len(got) == 4 else None


# ---------------------------------------------------------------------------------------------------- helpers
def _load(p) -> dict:
    return json.loads(Path(p).read_text())


def _write(doc, p: Path) -> Path:
    p.write_text(json.dumps(doc, allow_nan=True))
    return p


def _plan(*steps) -> None:
    """The runs of this input: (surface, argv, allowed exit codes, extra check or None)."""
    EXPECT.setdefault("plan", []).extend(steps)


def _gate(cand, base, extra=(), check=None, name="gate"):
    return (name, ["gate", str(cand), "--baseline", str(base), "--json", "o/g.json", "--markdown", "o/g.md",
                   "--html", "o/g.html", "--junit", "o/g.xml", *extra], GATE_OK, check)


def _diff(a, b, check=None):
    return ("diff", ["diff", str(a), str(b), "--json", "o/d.json", "--markdown", "o/d.md", "--html", "o/d.html"],
            {0, 2, 5}, check)


def _save(reports, name, store=None, check=None):
    return ("save", ["baseline", "save", *map(str, reports), "--name", str(name),
                     *(["--store", str(store)] if store else [])], {0, 2}, check)


def _scale_source(src: dict, f: float, cap: bool = True) -> None:
    """Every time figure the gate reads of one source multiplied by ``f`` (integers kept integers)."""
    def sc(v):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return v
        x = v * f
        if cap:
            x = min(x, 2 ** 63 - 1)
        return int(round(x)) if isinstance(v, int) else x
    s = src.get("summary") or {}
    for k in TIME_KEYS:
        if k in s:
            s[k] = sc(s[k])
    for row in ((src.get("analyses") or {}).get("hotspots") or {}).get("table") or []:
        for k in ("total_ns", "effective_ns", "min_ns", "max_ns", "mean_ns"):
            if k in row:
                row[k] = sc(row[k])
    st = ((src.get("analyses") or {}).get("steps") or {}).get("summary") or {}
    if "median_step_ns" in st:
        st["median_step_ns"] = sc(st["median_step_ns"])


def _verdict_not(*bad):
    """A check: the gate JSON's verdict is none of ``bad`` (identical sides are neither REGRESSED nor IMPROVED)."""
    def check(res, out: Path):
        p = out / "g.json"
        if res["code"] == 2 or not p.exists():
            return None
        v = json.loads(p.read_text()).get("verdict")
        return f"verdict {v} for {EXPECT.get('op')}" if v in bad else None
    return check


def _exit_is(*codes):
    def check(res, out: Path):
        return None if res["code"] in codes else f"exit {res['code']} (expected {codes}): {res['text'][-300:]!r}"
    return check


# ---------------------------------------------------------------------------------------------------- makers
def old_version(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    if not s["old"]:
        return None
    old = rng.choice(s["old"])
    which = rng.choice(["r1", "r2", "b1", "b2"])
    doc = _load(old[which])
    op = f"{old['commit']} {which}"
    if rng.random() < 0.4:  # one key of the old file dropped
        paths = f49r._paths(doc, [], [], 2)
        at = rng.choice(paths)
        holder = doc
        for k in at[:-1]:
            holder = holder[k]
        del holder[at[-1]]
        op += " without " + ".".join(map(str, at))
    p = _write(doc, work / f"old_{which}.json")
    today = s["reports"][SEEDS[0] if which in ("r1", "b1") else SEEDS[1]]
    EXPECT["op"] = op
    if which.startswith("r"):
        _plan(_gate(p, today), _gate(today, p), _diff(p, today), _save([p], "o/x.json"))
    else:
        _plan(_gate(today, p), _diff(p, today))
    return p, Path(today)


def future(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    r = s["reports"][SEEDS[0]]
    base = work / "b.json"
    res = _cli(["baseline", "save", r, r, "--name", str(base)], work / "mk")
    if res["code"] != 0:
        return None
    is_base = rng.random() < 0.6
    doc = _load(base if is_base else r)
    how = rng.choice(["version", "tool", "extra_top", "extra_deep", "new_metric", "new_run_field"])
    if how == "version":
        key = "gpulens_baseline" if is_base else "schema_version"
        doc[key] = rng.choice([2, 3, 1.5, "2"])
    elif how == "tool":
        doc["tool"] = {"name": "gpulens", "version": rng.choice(["9.0.0", "", "1.0.0.dev1+gabc"])}
    elif how == "extra_top":
        doc[rng.choice(["future_field", "signature", "metrics_v2"])] = rng.choice([{"a": [1, 2]}, None, "x", 3])
    elif how == "extra_deep":
        paths = [p for p in f49r._paths(doc, [], [], 2) if isinstance(_get(doc, p), dict)]
        holder = _get(doc, rng.choice(paths)) if paths else doc
        holder["x_future"] = rng.choice([{"v": 1}, [1], "text", 1e300])
    elif how == "new_metric" and is_base:
        doc["metrics"]["energy_j"] = {"kind": rng.choice(["energy", "timing"]), "unit": rng.choice(["J", "ns"]),
                                      "direction": "lower", "samples": [1.0, 1.1]}
    else:
        for run in doc.get("runs", []) if is_base else doc.get("sources", []):
            run["x_new"] = {"nested": [None]}
    EXPECT["op"] = f"{'baseline' if is_base else 'report'} {how}"
    p = _write(doc, work / "future.json")
    if is_base:
        _plan(_gate(r, p), _diff(p, r))
    else:
        _plan(_gate(p, r), _gate(r, p), _diff(r, p), _save([p], "o/x.json"))
    return p, Path(r)


def _get(doc, at):
    for k in at:
        doc = doc[k]
    return doc


def report_keys(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    name = rng.choice(SEEDS)
    r = s["reports"][name]
    doc = _load(r)
    paths = f49r._paths(doc, [], [], 2)
    at = rng.choice(paths)
    if rng.random() < 0.6:
        holder = _get(doc, at[:-1])
        if isinstance(holder, list):
            holder.pop(at[-1])
        else:
            del holder[at[-1]]
        EXPECT["op"] = "without " + ".".join(map(str, at))[:200]
    else:
        holder = _get(doc, at)
        holder = holder if isinstance(holder, dict) else _get(doc, at[:-1])
        if isinstance(holder, dict):
            holder[rng.choice(["extra", "name", "value", "ns", "\u00e9"])] = rng.choice([{"x": 1}, [None], "s", -1])
        elif isinstance(holder, list):
            holder.append(rng.choice([{"x": 1}, None, "s", -1, {}]))
        EXPECT["op"] = "extra under " + ".".join(map(str, at))[:200]
    p = _write(doc, work / "keys.json")
    _plan(_gate(p, r), _gate(r, p), _diff(r, p), _diff(p, r), _save([p], "o/x.json"))
    return p, Path(r)


def runs(rng, seeds, work: Path, i: int):
    """Reports of N runs, identical or scaled, huge or tiny, with one-side kernels or odd names."""
    s = seeds_of(work.parent)
    r = s["reports"][rng.choice(SEEDS)]
    doc = _load(r)
    src0 = doc["sources"][0]
    n = rng.choice([0, 1, 2, 2, 5, 1000])
    if n > 5:  # what the gate reads of a run, so that 1000 runs stay a few MB
        src0 = {k: v for k, v in src0.items() if k not in ("analyses", "findings", "top_kernels")}
        src0["analyses"] = {k: v for k, v in (doc["sources"][0].get("analyses") or {}).items()
                            if k in ("hotspots", "launches", "steps", "breakdown")}
    noise = rng.choice([0.0, 0.0, 0.02, 0.3])
    scale = rng.choice([1.0, 1.0, 1e9, 1e-9, 1e-3, 0.0])
    cand_f = rng.choice([1.0, 1.0, 1.1, 0.5, 2.0])
    names = rng.choice(["keep", "keep", "unicode", "mb", "oneside", "oneside_all"])
    if names == "mb" and n > 5:
        names = "unicode"
    hot = lambda src: ((src.get("analyses") or {}).get("hotspots") or {}).get("table") or []  # noqa: E731

    def side(f, drop: bool):
        d = copy.deepcopy(doc)
        out = []
        for k in range(n):
            src = copy.deepcopy(src0)
            _scale_source(src, scale * f * math.exp(rng.gauss(0, noise)) if noise else scale * f)
            if names in ("unicode", "mb") and hot(src):
                hot(src)[0]["name"] = ("\u202ek\u00e9rn\U0001f600\u0301\u4e2d" * 3) if names == "unicode" else \
                    "k" + "<>|`*_x" * 150_000
            if names.startswith("oneside") and drop and hot(src):
                tab = hot(src)
                cut = tab[:1] if names == "oneside" else tab
                for row in cut:
                    row["name"] = row["name"] + "_renamed"
            out.append(src)
        d["sources"] = out
        return d
    base_doc = side(1.0, False)
    cand_doc = side(cand_f, True)
    bp = _write(base_doc, work / "base_runs.json")
    cp = _write(cand_doc, work / "cand_runs.json")
    EXPECT["op"] = f"n={n} noise={noise} scale={scale:g} cand x{cand_f} names={names}"
    same = cand_f == 1.0 and noise == 0.0 and names in ("keep", "unicode", "mb")
    check = _verdict_not("REGRESSED", "IMPROVED") if same else None
    store = work / "store"
    _plan(_save([bp], "main", store), ("gate", ["gate", str(cp), "--baseline", "main", "--store", str(store),
                                                "--json", "o/g.json", "--markdown", "o/g.md", "--html", "o/g.html",
                                                "--junit", "o/g.xml"], GATE_OK, check),
          _gate(cp, bp, check=check), _diff(bp, cp))
    return cp, Path(r)


def env_other(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    r = s["reports"][SEEDS[0]]
    base = work / "b.json"
    res = _cli(["baseline", "save", r, r, r, r, r, "--name", str(base)], work / "mk")
    if res["code"] != 0:
        return None
    doc = _load(base)
    env = doc["environment"]
    how = rng.choice(["gpu", "count", "ranks", "driver", "arch", "options", "machine_key", "collectors"])
    if how == "gpu":
        env["gpus"] = [rng.choice(["AMD Instinct MI300X", "NVIDIA H100 80GB HBM3", "", "\u00e9GPU<b>"])]
    elif how == "count":
        env["gpu_count"] = rng.choice([0, 2, 8, 1000])
    elif how == "ranks":
        env["ranks"] = rng.choice([2, 64, 0])
    elif how == "driver":
        env["driver"] = rng.choice(["999.99", None, "", 12])
    elif how == "arch":
        env["arch"] = rng.choice([["gfx942"], ["9.0"], [], ["8.0", "9.0"]])
    elif how == "options":
        env[rng.choice(["options", "gpulens_options", "strict"])] = rng.choice([{"lenient": True}, "--lenient"])
    elif how == "machine_key":
        doc["machine_key"] = rng.choice(["other-x1-00000000", "", "../../etc"])
    else:
        env["collectors"] = rng.choice([["nsys_sqlite"], [], ["kineto", "ncu_csv"]])
    EXPECT["op"] = f"baseline env {how}"
    p = _write(doc, work / "env.json")
    _plan(_gate(r, p, check=_verdict_not("REGRESSED", "IMPROVED")), _diff(p, r))
    return p, Path(r)


def store(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    r = s["reports"][SEEDS[0]]
    st = work / "store"
    res = _cli(["baseline", "save", r, r, "--name", "main", "--store", str(st)], work / "mk")
    if res["code"] != 0:
        return None
    files = sorted(st.glob("*/main.json"))
    f = files[0]
    how = rng.choice(["cut", "empty", "dir", "chmod", "loop", "other_name", "history_damaged", "store_ro",
                      "concurrent_same", "concurrent_two"])
    EXPECT["op"] = f"store {how}"
    if how.startswith("concurrent"):
        EXPECT["concurrent"] = (how, str(st), r)
        return f, Path(r)
    target = f
    if how == "other_name":
        target = f.parent / "dev.json"
        shutil.copyfile(f, target)
    if how == "cut":
        raw = target.read_bytes()
        target.write_bytes(raw[: rng.randrange(1, len(raw))])
    elif how == "empty":
        target.write_bytes(b"")
    elif how == "dir":
        target.unlink()
        target.mkdir()
    elif how == "chmod":
        target.chmod(0)
    elif how == "loop":
        target.unlink()
        os.symlink(target, target)
    elif how == "other_name":
        target.write_bytes(b"{")
    elif how == "history_damaged":
        (st / "history.jsonl").write_bytes(b"\x00\xff{not json\n")
    elif how == "store_ro":
        f.parent.chmod(0o500)
    for name in ("main", "dev"):
        _plan(("gate", ["gate", r, "--baseline", name, "--store", str(st), "--json", "o/g.json", "--markdown",
                        "o/g.md", "--require-baseline"], GATE_OK, None))
    _plan(("list", ["baseline", "list", "--store", str(st)], {0, 2}, None),
          _save([r], "main", st), _save([r], "new", st))
    return f, Path(r)


def same_path(rng, seeds, work: Path, i: int):
    s = seeds_of(work.parent)
    r = Path(s["reports"][rng.choice(SEEDS)])
    p = work / rng.choice(["same.json", "same.json.gz"])
    raw = r.read_bytes()
    p.write_bytes(gzip.compress(raw) if p.suffix == ".gz" else raw)
    how = rng.choice(["report", "baseline", "trace"])
    if how == "baseline":
        res = _cli(["baseline", "save", str(r), str(r), "--name", str(work / "sb.json")], work / "mk")
        if res["code"] != 0:
            return None
        p = work / "sb.json"
    elif how == "trace":
        p = HERE / "data" / "kineto" / SEEDS[0]
    EXPECT["op"] = f"same path: {how} {p.name}"
    chk = _verdict_not("REGRESSED", "IMPROVED")
    _plan(_gate(p, p, check=chk), _diff(p, p), _save([p], str(p)) if how != "trace" else _diff(p, p))
    return p, r


MAKERS = {"old_version": old_version, "future": future, "report_keys": report_keys, "runs": runs,
          "env_other": env_other, "store": store, "same_path": same_path}


# ---------------------------------------------------------------------------------------------------- checks
def _gate_json(p: Path) -> str | None:
    """A negative or non-finite noise, band, threshold, p-value or median in a gate JSON; a p-value past 1."""
    try:
        d = json.loads(p.read_text())
    except ValueError as exc:
        return f"{p.name}: not JSON ({exc})"
    for m in d.get("metrics") or []:
        for k in ("base_spread", "band", "threshold", "p_value", "p_adjusted", "base_median", "cand_median",
                  "weight", "ratio", "share"):
            v = m.get(k)
            if v is None:
                continue
            if not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                return f"{p.name}: {m.get('metric', '')[:60]} {k} = {v!r}"
            if k in ("p_value", "p_adjusted", "share", "weight") and v > 1.0 + 1e-9:
                return f"{p.name}: {m.get('metric', '')[:60]} {k} = {v!r} > 1"
    return None


def _raw_text(out: Path) -> str | None:
    for f in sorted(out.glob("*")):
        if f.suffix not in (".md", ".html") or not f.is_file():
            continue
        text = f.read_text(errors="replace")
        if f.suffix == ".html":
            text = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", text, flags=re.S)
            text = re.sub(r"<[^>]+>", " ", text)
        m = RAW.search(text)
        if m:
            return f"{f.name}: raw value {text[max(0, m.start() - 100):m.end() + 60]!r}"
    return None


def _concurrent(how: str, st: str, r: str, timeout: float) -> list[tuple]:
    """Two ``baseline save`` processes into one store at once: one name (one saves, the other refuses) or two."""
    env = f48._env(Path(st))
    names = ["race", "race"] if how == "concurrent_same" else ["ra", "rb"]
    procs = [subprocess.Popen([sys.executable, "-m", "gpulens", "baseline", "save", r, r, "--name", n, "--store", st],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env) for n in names]
    outs = []
    for p in procs:
        try:
            outs.append((p.wait(timeout=timeout * 5), p.stdout.read().decode("utf-8", "replace")))
        except subprocess.TimeoutExpired:
            p.kill()
            return [("concurrent", 2, "hang")]
    found = []
    for code, text in outs:
        bad = f48.bad_exit({"code": code, "text": text}, {0, 2})
        if bad:
            found.append(("concurrent", 1, bad))
    codes = sorted(c for c, _ in outs)
    want = [0, 2] if how == "concurrent_same" else [0, 0]
    if codes != want:
        found.append(("concurrent", 3, f"exits {codes}, expected {want}: {[t[-200:] for _, t in outs]!r}"))
    for n in set(names):
        for f in Path(st).glob(f"*/{n}.json"):
            try:
                json.loads(f.read_text())["gpulens_baseline"]
            except (ValueError, KeyError) as exc:
                found.append(("concurrent", 3, f"{f.name} not a whole baseline: {exc}"))
    hist = (Path(st) / "history.jsonl").read_text().splitlines()
    saves = [json.loads(ln) for ln in hist if ln.strip()]
    if len([h for h in saves if h.get("name") in names]) != codes.count(0):
        found.append(("concurrent", 3, f"history has {len(saves)} lines for {codes.count(0)} saves"))
    return found


def run_one(path, src, work: Path, rng, timeout, workdir, cache, inproc) -> list[tuple]:
    """Every finding of one input: its plan's runs, each output checked."""
    try:
        if EXPECT.get("concurrent"):
            return _concurrent(*EXPECT["concurrent"], timeout)
        return _run_plan(work, timeout)
    finally:  # a store made unreadable: readable again, so the loop can remove it
        subprocess.run(["chmod", "-R", "u+rwx", str(work)], capture_output=True)


def _run_plan(work: Path, timeout: float) -> list[tuple]:
    found = []
    out = work / "out"
    for name, argv, ok, check in EXPECT.get("plan", []):
        shutil.rmtree(out, ignore_errors=True)
        (out / "o").mkdir(parents=True)
        argv = [str(out / a) if a.startswith("o/") else a for a in argv]
        before = {str(a): Path(a).read_bytes() for a in argv if Path(a).is_file() and not a.startswith(str(out))}
        res = f48.run(argv, out, timeout)
        bad = f48.bad_exit(res, ok)
        if bad:
            found.append((name, 2 if bad.startswith("hang") else 1, bad))
            continue
        for a, raw in before.items():
            if Path(a).exists() and Path(a).read_bytes() != raw:
                found.append((name, 1, f"input {Path(a).name} was overwritten"))
        if res["code"] in (0, 1, 3):
            for odd in (f49r._odd_output(out / "o"), _raw_text(out / "o"),
                        _gate_json(out / "o" / "g.json") if (out / "o" / "g.json").exists() else None):
                if odd:
                    found.append((name, 3, odd))
        if check:
            odd = check(res, out / "o")
            if odd:
                found.append((name, 3, odd))
    return found


def main(argv: list[str] | None = None) -> int:
    return f48.main(argv, makers=MAKERS, kinds=KINDS, seed=50050, run_one=run_one)


if __name__ == "__main__":
    sys.exit(main())
