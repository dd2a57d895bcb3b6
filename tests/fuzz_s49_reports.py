"""Session-49 fuzzing of the second-stage inputs: what ``gpulens diff``, ``gpulens gate`` and ``gpulens baseline save``
read besides traces — ``gpulens analyze --json`` reports (docs/report-schema.md) and baseline files — and the rank
folders ``gpulens analyze DIR`` reads.

``python tests/fuzz_s49_reports.py --count N --workdir DIR [--seed S] [--timeout 60] [--kinds a,b] [--inproc]``
(DIR under /tmp; not part of the timed suite). Seeds: the JSON reports of two small committed Kineto traces
(tests/data/kineto) and baselines saved from them (1 run, 5 runs). Kinds (:data:`MAKERS`):

* ``report_field`` — a report with one field the gate or diff reads (``schema_version``, ``status``, a source's
  ``summary`` / ``devices`` / ``top_kernels`` / ``environment``, any depth) set to a type-confused or impossible value:
  a string for a number, ``null``, a list for a dict, ``NaN`` / ``Infinity`` / ``1e308`` / ``-0``, a negative count or
  duration, a schema version from the future or the past, a huge array, a duplicated kernel, a unicode name;
* ``baseline_field`` — a baseline with one field mutated the same way (``gpulens_baseline``, ``metrics.*.samples`` /
  ``calls`` / ``share``, the environment, ``machine_key``), or with 0, 1 or 1000 runs, or runs of mismatched GPUs;
* ``file_level`` — a report or baseline truncated, gzipped, emptied, given as a list / number / string, a report
  where a baseline is expected and a baseline where a report is expected (gate candidate, diff side);
* ``rank_dir`` — a folder for ``gpulens analyze DIR``: mixed formats, an empty file, an unreadable file (chmod 000),
  a symlink loop, nested folders, files that disagree on ranks / GPUs, a thousand tiny files.

Each input goes through ``gpulens gate`` (as candidate and as baseline, ``--json --markdown --html --junit``),
``gpulens diff`` (``--json --markdown --html``), ``gpulens baseline save`` (the baseline is checked never to be
replaced) or ``gpulens analyze DIR`` (``--json --markdown --html``). Outcome classes as tests/fuzz_s48.py: (1)
traceback / internal error / undocumented exit / an exit-2 message of more than one line; (2) hang; (3) an impossible
figure (a share > 100 %, a negative time, ``nan`` / ``inf``) in a gate or diff report. Findings are kept under
``DIR/findings``; every fault found has its regression in tests/test_trust_s49_fuzz_reports.py.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzz_s48 as f48  # noqa: E402

SEEDS = ["hta_a100_simple_add_two_streams.json.gz", "aorta_mi350x_train_step.pt.trace.json"]
KINDS = ["report_field", "report_field", "baseline_field", "baseline_field", "file_level", "rank_dir"]
ODD = ["12", "abc", None, [], {}, [1, [2]], {"v": 1}, float("nan"), float("inf"), float("-inf"), 1e308, -1e308,
       -0.0, 0, -5, -1.5, 2 ** 63, 2 ** 70, True, "", "\u202e\u00e9\U0001f600", 5e-324]
FUTURE = [99, 0, -1, "2", "1.0", None, 1.5, "x", 10 ** 9]
EXPECT: dict = {}
NANTEXT = re.compile(r"(?<![\w])(?:nan|NaN|inf|Infinity|-inf)(?![\w])")


def _paths(o, at, out, cap=4):
    if isinstance(o, dict):
        for k, v in o.items():
            _paths(v, at + [k], out, cap)
    elif isinstance(o, list):
        for n, v in enumerate(o[:cap]):
            _paths(v, at + [n], out, cap)
    if at:
        out.append(at)
    return out


def _set(doc, at, val):
    holder = doc
    for k in at[:-1]:
        holder = holder[k]
    holder[at[-1]] = val


def _value(rng):
    v = rng.choice(ODD + ["huge"])
    if v == "huge":
        return [rng.random() for _ in range(20000)]
    return v


def _mutate_at(rng, doc, paths) -> None:
    """One of ``paths`` of ``doc`` set to an odd value (:func:`_value`), said in ``EXPECT["op"]``."""
    at = rng.choice(paths)
    val = _value(rng)
    _set(doc, at, val)
    EXPECT["op"] = f"{'.'.join(map(str, at))} = {str(val)[:40]}"


def _written(doc, p: Path, kind: str, base: str, name: str) -> Path:
    p.write_text(json.dumps(doc, allow_nan=True))
    EXPECT.update(kind=kind, base=base, name=name)
    return p


def report_field(rng, seeds, work: Path, i: int):
    """A report with one field changed (the fields the gate and diff read first, any other sometimes)."""
    name = rng.choice(list(seeds["reports"]))
    doc = json.loads(Path(seeds["reports"][name]).read_text())
    how = rng.random()
    if how < 0.15:
        v = rng.choice(FUTURE)
        doc["schema_version"] = v
        EXPECT["op"] = f"schema_version={v!r}"
    elif how < 0.25:  # a kernel written twice / a unicode kernel name / sources duplicated
        src = doc["sources"][0]
        tk = src.get("top_kernels") or []
        if rng.random() < 0.5 and isinstance(((src.get("analyses") or {}).get("hotspots") or {}).get("table"), list):
            tk = src["analyses"]["hotspots"]["table"]
        what = rng.choice(["dupkernel", "unicode", "dupsource", "nosources", "manysources"])
        if what == "dupkernel" and tk:
            tk.append(copy.deepcopy(tk[0]))
        elif what == "unicode" and tk:
            tk[0]["name"] = "\u202eker\u00e9\U0001f600\u0000\n<b>x</b>|"
        elif what == "dupsource":
            doc["sources"].append(copy.deepcopy(src))
        elif what == "nosources":
            doc["sources"] = []
        else:
            doc["sources"] = [copy.deepcopy(src) for _ in range(rng.choice([2, 50]))]
        EXPECT["op"] = what
    else:
        src = doc["sources"][0]
        pick = rng.random()
        if pick < 0.4:
            paths = [["sources", 0, "summary", k] for k in src.get("summary", {})]
        elif pick < 0.55:
            paths = [["sources", 0, "devices"] + p for p in _paths(src.get("devices"), [], [])] + [["sources", 0, "devices"]]
        elif pick < 0.62:
            paths = [["sources", 0, "top_kernels"] + p for p in _paths(src.get("top_kernels"), [], [], 2)]
        elif pick < 0.7:  # the table the gate reads its kernels from
            hot = ((src.get("analyses") or {}).get("hotspots") or {})
            paths = [["sources", 0, "analyses", "hotspots"] + p for p in _paths(hot, [], [], 2)]
        elif pick < 0.8:
            paths = [[k] for k in doc] + [["sources", 0, k] for k in src]
        else:
            paths = _paths(doc, [], [], 3)
        _mutate_at(rng, doc, paths)
    return _written(doc, work / f"r{i}.json", "report", seeds["reports"][name], name)


def baseline_field(rng, seeds, work: Path, i: int):
    """A baseline with one field changed, or with 0 / 1 / 1000 runs, or with runs of mismatched GPUs."""
    which = rng.choice(list(seeds["baselines"]))
    doc = json.loads(Path(seeds["baselines"][which]).read_text())
    how = rng.random()
    metrics = doc.get("metrics", {})
    if how < 0.12:
        v = rng.choice(FUTURE)
        doc["gpulens_baseline"] = v
        EXPECT["op"] = f"gpulens_baseline={v!r}"
    elif how < 0.3:  # the number of runs: 0, 1, 1000, or lengths that disagree
        n = rng.choice([0, 1, 1000, "ragged"])
        for m in metrics.values():
            for key in ("samples", "calls", "share"):
                if key in m and isinstance(m[key], list) and m[key]:
                    if n == "ragged":
                        m[key] = m[key] + m[key][:1] if key != "samples" else m[key][:1]
                    else:
                        m[key] = [m[key][0] * (1 + 0.001 * rng.random()) if key != "calls" else m[key][0]
                                  for _ in range(n)]
        EXPECT["op"] = f"runs={n}"
    elif how < 0.4:  # runs of mismatched GPUs
        env = doc.setdefault("environment", {})
        env["gpus"] = ["NVIDIA A100-SXM4-80GB", "AMD Instinct MI300X", "NVIDIA H100"]
        env["gpu_count"] = rng.choice([3, 0, -1, "3", None])
        EXPECT["op"] = f"mixed gpus count={env['gpu_count']!r}"
    elif how < 0.8 and metrics:
        mname = rng.choice(list(metrics))
        m = metrics[mname]
        key = rng.choice(list(m) + ["samples", "samples", "direction", "kind", "unit"])
        if key in ("samples", "calls", "share") and isinstance(m.get(key), list) and m[key] and rng.random() < 0.6:
            j = rng.randrange(len(m[key]))
            val = _value(rng)
            m[key][j] = val
            EXPECT["op"] = f"metrics[{mname[:30]}].{key}[{j}] = {str(val)[:40]}"
        else:
            val = _value(rng) if rng.random() < 0.7 else rng.choice(["higher", "sideways", "ms", "count", "memory"])
            m[key] = val
            EXPECT["op"] = f"metrics[{mname[:30]}].{key} = {str(val)[:40]}"
    else:
        _mutate_at(rng, doc, _paths({k: v for k, v in doc.items() if k != "metrics"}, [], [], 3) + [["metrics"]])
    return _written(doc, work / f"b{i}.json", "baseline", seeds["baselines"][which], which)


def file_level(rng, seeds, work: Path, i: int):
    """A report or baseline cut, gzipped, emptied, or of another JSON type; or one given where the other is read."""
    is_base = rng.random() < 0.5
    srcp = Path(rng.choice(list((seeds["baselines"] if is_base else seeds["reports"]).values())))
    raw = srcp.read_bytes()
    how = rng.choice(["cut", "gzip", "gzip_cut", "empty", "list", "number", "string", "swap", "swap", "bom", "nul"])
    p = work / f"f{i}.json"
    if how == "cut":
        raw = raw[: rng.randrange(1, len(raw))]
    elif how == "gzip":
        raw = gzip.compress(raw)
        p = work / f"f{i}.json.gz"
    elif how == "gzip_cut":
        z = gzip.compress(raw)
        raw = z[: rng.randrange(10, len(z))]
        p = work / f"f{i}.json.gz"
    elif how == "empty":
        raw = b""
    elif how == "list":
        raw = b"[" + raw + b"]"
    elif how == "number":
        raw = b"12"
    elif how == "string":
        raw = b'"gpulens"'
    elif how == "bom":
        raw = b"\xef\xbb\xbf" + raw
    elif how == "nul":
        raw = raw[:200] + b"\x00" * 50 + raw[200:]
    p.write_bytes(raw)
    EXPECT.update(kind="swap_base" if (how == "swap" and is_base) else ("swap_report" if how == "swap" else
                  ("baseline" if is_base else "report")), op=f"{'baseline' if is_base else 'report'} {how}",
                  base=str(srcp))
    return p


def rank_dir(rng, seeds, work: Path, i: int):
    """A folder of rank files for ``gpulens analyze DIR``."""
    d = work / f"dir{i}"
    d.mkdir()
    trace = json.loads(gzip.decompress(Path(seeds["traces"][SEEDS[0]]).read_bytes()))
    n = rng.choice([2, 3, 4])
    ops = []
    for r in range(n):
        doc = copy.deepcopy(trace)
        doc["distributedInfo"] = {"rank": r, "world_size": n, "backend": "nccl"}
        (d / f"rank{r}.pt.trace.json").write_text(json.dumps(doc))
    for _ in range(rng.choice([1, 1, 2])):
        how = rng.choice(["empty", "chmod", "loop", "nested", "disagree", "tiny1000", "mixed", "report", "baseline",
                          "gpus", "dupname", "dirlink"])
        ops.append(how)
        if how == "empty":
            (d / "rank9.pt.trace.json").write_bytes(b"")
        elif how == "chmod":
            q = d / "rank1.pt.trace.json"
            q.chmod(0)
        elif how == "loop":
            os.symlink(d, d / "loop")
            os.symlink(d / "l2", d / "l1")
            os.symlink(d / "l1", d / "l2")
        elif how == "nested":
            sub = d / "a" / "b"
            sub.mkdir(parents=True)
            shutil.copyfile(d / "rank0.pt.trace.json", sub / "rank0.pt.trace.json")
        elif how == "disagree":
            doc = json.loads((d / "rank0.pt.trace.json").read_text())
            doc["distributedInfo"] = {"rank": rng.choice([0, 7, -1, "x"]), "world_size": rng.choice([2, 1, 64])}
            (d / "rank1.pt.trace.json").write_text(json.dumps(doc))
        elif how == "gpus":
            doc = json.loads((d / "rank0.pt.trace.json").read_text())
            for dp in doc.get("deviceProperties", []):
                dp["name"] = "AMD Instinct MI300X"
            (d / "rank1.pt.trace.json").write_text(json.dumps(doc))
        elif how == "tiny1000":
            for k in range(1000):
                (d / f"t{k}.json").write_text('{"traceEvents": []}')
        elif how == "mixed":
            shutil.copyfile(seeds["traces"][SEEDS[1]], d / "other.pt.trace.json")
            (d / "x.csv").write_text("Kernel_Name,Start_Timestamp,End_Timestamp\nk,1,2\n")
        elif how == "report":
            shutil.copyfile(seeds["reports"][SEEDS[0]], d / "report.json")
        elif how == "baseline":
            shutil.copyfile(seeds["baselines"]["one"], d / "main.json")
        elif how == "dupname":
            shutil.copyfile(d / "rank0.pt.trace.json", d / "rank0.pt.trace.json.gz.json")
        elif how == "dirlink":
            os.symlink(d / "rank0.pt.trace.json", d / "link0.pt.trace.json")
    EXPECT.update(kind="dir", op=",".join(ops))
    return d


MAKERS = {"report_field": report_field, "baseline_field": baseline_field, "file_level": file_level,
          "rank_dir": rank_dir}


def _shares(text: str) -> str | None:
    """A share of a whole above 100 % in a gate / diff text (signed changes and times are legitimately negative)."""
    for m in f48.SHARE.finditer(text):
        if float(m.group(1).replace(",", "")) > 100.05:
            return text[max(0, m.start() - 80):m.end() + 40].replace("\n", " ")
    return None


def _odd_output(out: Path) -> str | None:
    """An impossible figure in the written gate / diff reports."""
    for f in sorted(out.glob("*")):
        if f.suffix not in (".md", ".json", ".html", ".xml") or not f.is_file():
            continue
        text = f.read_text(errors="replace")
        if f.suffix == ".json":
            m = re.search(r"[:\[,]\s*(NaN|-?Infinity)\b", text)  # a JSON value, not a word of a text
            if m:
                return f"{f.name}: {text[max(0, m.start() - 120):m.end() + 40]!r}"
        if f.suffix in (".md", ".html"):
            odd = _shares(re.sub(r"<[^>]+>", " ", text))
            if odd:
                return f"{f.name}: {odd}"
            m = NANTEXT.search(re.sub(r"<[^>]+>", " ", text))
            if m:
                return f"{f.name}: {text[max(0, m.start() - 120):m.end() + 40]!r}"
    return None


def check(path: Path, seeds: dict, work: Path, timeout: float) -> list[tuple]:
    found = []
    out = work / "out"
    kind = EXPECT["kind"]
    runs = []
    if kind in ("report", "swap_base"):  # something read as a report: candidate of gate and a diff side
        base = EXPECT.get("base") if kind == "report" else seeds["reports"][SEEDS[0]]
        runs.append(("gate-cand", ["gate", str(path), "--baseline", str(base), "--json", "o/g.json", "--markdown",
                                   "o/g.md", "--html", "o/g.html", "--junit", "o/g.xml"], {0, 1, 2, 3, 4}))
        runs.append(("diff", ["diff", str(base), str(path), "--json", "o/d.json", "--markdown", "o/d.md", "--html",
                              "o/d.html"], {0, 2, 5}))
        runs.append(("save", ["baseline", "save", str(path), "--name", "x", "--store", "o/store"], {0, 2, 4}))
    if kind in ("report", "baseline", "swap_report"):  # something read as a baseline
        cand = seeds["reports"][EXPECT.get("name", SEEDS[0])] if EXPECT.get("name") in seeds["reports"] else \
            seeds["reports"][SEEDS[0]]
        if kind == "baseline" and EXPECT.get("name") == "other":
            cand = seeds["reports"][SEEDS[1]]
        runs.append(("gate-base", ["gate", str(cand), "--baseline", str(path), "--json", "o/g.json", "--markdown",
                                   "o/g.md", "--html", "o/g.html", "--junit", "o/g.xml"], {0, 1, 2, 3, 4}))
    if kind == "baseline":
        runs.append(("diff-base", ["diff", str(path), seeds["reports"][SEEDS[0]]], {0, 2, 5}))
        runs.append(("save-over", ["baseline", "save", seeds["reports"][SEEDS[0]], "--name", str(path)], {0, 2, 4}))
    if kind == "dir":
        runs.append(("analyze-dir", ["analyze", str(path), "--json", "o/r.json", "--markdown", "o/r.md", "--html",
                                     "o/r.html", "--no-cache"], {0, 2, 5}))
    for name, argv, ok in runs:
        shutil.rmtree(out, ignore_errors=True)
        before = path.read_bytes() if path.is_file() else None
        (out / "o").mkdir(parents=True)
        argv = [str(out / a) if a.startswith("o/") else a for a in argv]
        res = f48.run(argv, out, timeout)
        bad = f48.bad_exit(res, ok)
        if bad:
            found.append((name, 2 if bad.startswith("hang") else 1, bad))
            continue
        if before is not None and path.exists() and path.read_bytes() != before:
            found.append((name, 1, "the input was overwritten"))
        if res["code"] in (0, 1, 3):
            odd = _odd_output(out / "o")
            if odd:
                found.append((name, 3, odd))
            if name in ("gate-cand", "gate-base", "diff"):
                odd = _shares(res["text"])
                if odd:
                    found.append((name, 3, f"console: {odd}"))
    return found


def make_seeds(workdir: Path, timeout: float) -> dict:
    """The seed traces' reports and baselines (1 run of the first, 5 runs of the first, 1 run of the other)."""
    sd = workdir / "seeds"
    cache = sd / "seeds.json"
    if cache.exists():
        return json.loads(cache.read_text())
    sd.mkdir(parents=True, exist_ok=True)
    seeds: dict = {"traces": {}, "reports": {}, "baselines": {}}
    for s in SEEDS:
        t = HERE / "data" / "kineto" / s
        seeds["traces"][s] = str(t)
        res = f48.run(["analyze", str(t), "-q", "--json", str(sd / (s + ".report.json")), "--no-cache"], sd, timeout)
        assert res["code"] == 0, res
        seeds["reports"][s] = str(sd / (s + ".report.json"))
    r0 = seeds["reports"][SEEDS[0]]
    for name, argv in (("one", [r0]), ("five", [r0] * 5), ("other", [seeds["reports"][SEEDS[1]]])):
        res = f48.run(["baseline", "save", *argv, "--name", str(sd / f"base_{name}.json")], sd, timeout)
        assert res["code"] == 0, res
        seeds["baselines"][name] = str(sd / f"base_{name}.json")
    cache.write_text(json.dumps(seeds))
    return seeds


def main(argv: list[str] | None = None) -> int:
    """The campaign: tests/fuzz_s48.py's loop (its options: ``--seed --count --start --workdir --timeout --only
    --minutes --kinds --inproc``) over :data:`MAKERS`, each input run by :func:`check` against :func:`make_seeds`."""
    made: dict = {}

    def seeds_of(workdir: Path, timeout: float) -> dict:
        made.update(make_seeds(workdir, timeout))
        return made

    makers = {k: (lambda rng, seeds, work, i, m=m, k=k: (m(rng, seeds, work, i), Path(k))) for k, m in MAKERS.items()}
    return f48.main(argv, makers, KINDS, 49049,
                    lambda path, src, work, rng, timeout, *_: check(path, made, work, timeout), seeds_of, EXPECT)


if __name__ == "__main__":
    sys.exit(main())
