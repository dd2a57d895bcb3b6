"""Session-47 fuzzing: the ``gpulens analyze`` command run as users run it — a separate process, its own
environment, its own standard streams — on structure-aware mutants of every input format, with a per-input
classification of what went wrong.

``python tests/fuzz_s47.py --seed S --count N --workdir DIR [--timeout 120] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Not part of the timed suite. Seeds: tests/fuzzing.py
``--extended`` (every format: Kineto JSON / .json.gz / rank folders, XLA / TensorFlow / Paddle / ONNX cases, rocprof
v1 CSV / JSON / SQLite / text, rocprofv3 CSV / JSON / folders, rocpd, rocprofiler-compute folders, nsys SQLite and
stats CSV, ncu details / raw CSV, text and ``.ncu-rep``, nvprof). Kinds (:data:`KINDS`):

* ``env_console`` — a seed whose kernel names hold emoji, CJK, RTL and NUL, analysed with a console that is not
  UTF-8 (``PYTHONIOENCODING=ascii / latin-1 / cp1252``, ``LC_ALL=C`` without UTF-8 mode), 1 or 10⁵ columns,
  ``TERM=dumb``, ``FORCE_COLOR``, ``HOME`` unset (and the cache on), or standard output closed after 100 bytes;
* ``one_field`` — every event of ONE kind (Kineto: kernel, runtime call, memcpy, flow, CPU op …), half of them or
  one, missing exactly one field (``ts``, ``dur``, ``name``, ``args.correlation`` …); a CSV's one required cell
  blank in 1 / half / every row; an SQLite kernel table's one column NULL in some rows;
* ``type_conf`` — one field of the kernels given another type or spelling: ``"1e3"``, ``" 12 "``, ``"0x10"``,
  ``true``, ``null``, ``[12]``, ``{"v": 12}``, ``-0``, ``1e308``, ``2**64``, ``NaN``, a negative ``ts``, a
  reversed interval (``ts`` at the end, ``dur`` negative);
* ``csv_quote`` — a CSV's kernel names given quoted commas (``f<int, float>(a, b)``), a quoted newline, doubled
  quotes, a spreadsheet formula, padding, an empty name — written by Python's ``csv`` (valid RFC 4180);
* ``text_enc`` — a text seed re-encoded: UTF-16 with a BOM, UTF-8 BOM + CRLF, CR-only line ends;
* ``many_files`` — a folder of 1,000–10,000 tiny files (one-kernel rank traces, empty files) or of 2,000 empty
  subfolders beside one real trace, or folders nested 150 deep;
* ``path_names`` — the input under a file name holding a newline, a leading ``-``, an RTL override, 240
  characters, ``%n``, ``:``.

Each input's outcome is classified: (1) a traceback, an internal error, an undocumented exit or an error of more
than one line; (2) a hang: past ``--timeout`` s, or > 10× the seed's CPU time (and > 5 s); (3) an impossible
figure (:func:`tests.report_invariants.violations`, Markdown rows of another width, ``nan`` / ``None`` / a raw
dict in the Markdown or HTML text outside the strings the JSON report holds); (4) kernels or copies silently
dropped: fewer than the seed's (or than the mutation keeps) with no warning that counts them. Totals — inputs per
format, findings per class — are printed as one JSON line; findings are kept under ``DIR/findings``. Every fault
found has its regression in tests/test_trust_s47_fuzz.py.
"""

from __future__ import annotations

import argparse
import codecs
import csv
import io
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s38 import md_table_widths  # noqa: E402
from tests.fuzz_s44 import _load, _put  # noqa: E402

KINDS = ["env_console", "one_field", "one_field", "type_conf", "csv_quote", "text_enc", "many_files", "path_names"]
ALLOWED = {0, 2, 5}
ENVS = [{"PYTHONIOENCODING": "ascii"}, {"PYTHONIOENCODING": "latin-1"}, {"PYTHONIOENCODING": "cp1252"},
        {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}, {"COLUMNS": "1"},
        {"COLUMNS": "100000"}, {"TERM": "dumb"}, {"FORCE_COLOR": "1"}, {"NO_COLOR": "1", "COLUMNS": "40"},
        {"HOME": None, "cache": "on"}, {"pipe": "100"}]
ODD_NAMES = ["gemm_🚀_fp8", "核函数<int, float>", "k_\u202eevil", "a\u0000b", "Ω" * 300, "naïve—µkernel"]
FIELDS = ["ts", "dur", "name", "ph", "pid", "tid", "cat", "args", "args.correlation", "args.stream", "args.device",
          "args.External id", "id"]
TYPED = ["1e3", " 12 ", "0x10", True, None, [12], {"v": 12}, -0.0, 1e308, 2 ** 64, float("nan"), "neg", "reversed"]
QUOTED = ["gemm<int, float>(a, b)", "line1\nline2", 'say "hi", twice', "=HYPERLINK(\"x\")", "  padded  ", ""]
PATH_NAMES = ["a\nb", "-x", "k \u202etxt", "n" * 240, "%n%s", "a:b"]
CSV_NAME = re.compile(r"(?i)^(kernel[ _]?name|name|kernel|function)$")
EXPECT: dict = {}


# ---------------------------------------------------------------------------------------------------- helpers
def _kineto_files(seeds: dict[str, Path]) -> list[Path]:
    out = []
    for p in seeds.values():
        if p.is_file() and (p.name.endswith(".json") or p.name.endswith(".json.gz")):
            doc, _ = _load(p)
            ev = doc.get("traceEvents") if isinstance(doc, dict) else None
            if isinstance(ev, list) and any(isinstance(e, dict) and e.get("ph") == "X" for e in ev[:3000]):
                out.append(p)
    return sorted(out)


def _csv_files(seeds: dict[str, Path]) -> list[Path]:
    return sorted(p for p in seeds.values() if p.is_file() and p.suffix == ".csv")


def _sqlite_files(seeds: dict[str, Path]) -> list[Path]:
    return sorted(p for p in seeds.values() if p.is_file() and p.read_bytes()[:15] == b"SQLite format 3")


def _kind_of(e: dict) -> str:
    if e.get("ph") in ("s", "f", "t"):
        return "flow"
    return str(e.get("cat") or e.get("ph") or "?")


def _rows(p: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(p.read_text(encoding="utf-8-sig", errors="replace"))))


def _write_rows(p: Path, rows: list[list[str]]) -> None:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    p.write_text(buf.getvalue(), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------- mutations
def env_console(rng, seeds, work: Path, i: int):
    src = rng.choice(_kineto_files(seeds))
    doc, gz = _load(src)
    ks = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("cat") == "kernel"
          and not str(e.get("name", "")).lower().startswith(("memcpy", "memset"))]  # a copy by its name
    for k in rng.sample(ks, min(len(ks), 4)):
        k["name"] = rng.choice(ODD_NAMES)
    p = work / f"in{i}_{src.name}"
    _put(p, doc, gz)
    EXPECT["env"] = rng.choice(ENVS)
    EXPECT["same_as"] = src  # renamed kernels: the counts stay the seed's
    return p, src


def one_field(rng, seeds, work: Path, i: int):
    fam = rng.choice(["kineto", "kineto", "csv", "sqlite"])
    frac = rng.choice(["one", "half", "all"])
    if fam == "kineto":
        src = rng.choice(_kineto_files(seeds))
        doc, gz = _load(src)
        ev = [e for e in doc["traceEvents"] if isinstance(e, dict)]
        kinds = sorted({_kind_of(e) for e in ev})
        kind = rng.choice(kinds)
        field = rng.choice(FIELDS)
        chosen = [e for e in ev if _kind_of(e) == kind]
        chosen = chosen[:1] if frac == "one" else chosen[::2] if frac == "half" else chosen
        n = 0
        for e in chosen:
            top, _, sub = field.partition(".")
            if sub and isinstance(e.get("args"), dict) and sub in e["args"]:
                del e["args"][sub]
                n += 1
            elif not sub and top in e:
                del e[top]
                n += 1
        if n == 0:
            return None
        p = work / f"in{i}_{src.name}"
        _put(p, doc, gz)
        EXPECT.update(op=f"{kind} without {field} ({frac}: {n})", mutated=n)
        return p, src
    if fam == "csv":
        src = rng.choice(_csv_files(seeds))
        rows = _rows(src)
        if len(rows) < 2:
            return None
        col = rng.randrange(len(rows[0]))
        body = [r for r in rows[1:] if len(r) > col]
        chosen = body[:1] if frac == "one" else body[::2] if frac == "half" else body
        for r in chosen:
            r[col] = ""
        p = work / f"in{i}_{src.name}"
        _write_rows(p, rows)
        EXPECT.update(op=f"{rows[0][col]!r} blank ({frac}: {len(chosen)})", mutated=len(chosen))
        return p, src
    src = rng.choice(_sqlite_files(seeds))
    p = work / f"in{i}_{src.name}"
    shutil.copyfile(src, p)
    con = sqlite3.connect(p)
    try:
        tabs = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
                if re.search(r"(?i)kernel|dispatch|op$|activity", r[0])]
        if not tabs:
            return None
        tab = rng.choice(tabs)
        cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
        col = rng.choice(cols)
        where = {"one": "rowid = (SELECT min(rowid) FROM \"%s\")" % tab, "half": "rowid % 2 = 0", "all": "1"}[frac]
        n = con.execute(f'UPDATE "{tab}" SET "{col}" = NULL WHERE {where}').rowcount
        con.commit()
    finally:
        con.close()
    EXPECT.update(op=f"{tab}.{col} NULL ({frac}: {n})", mutated=n)
    return p, src


def type_conf(rng, seeds, work: Path, i: int):
    src = rng.choice(_kineto_files(seeds))
    doc, gz = _load(src)
    ks = [e for e in doc["traceEvents"] if isinstance(e, dict) and e.get("cat") == "kernel"]
    if not ks:
        return None
    field = rng.choice(["ts", "dur", "pid", "tid", "args.stream", "args.device", "args.correlation", "args.grid"])
    val = rng.choice(TYPED)
    chosen = ks[:1] if rng.random() < 0.5 else ks
    for k in chosen:
        top, _, sub = field.partition(".")
        holder = k.get("args") if sub else k
        key = sub or top
        if not isinstance(holder, dict):
            continue
        if val == "neg":
            holder[key] = -abs(holder.get(key) or 1) if isinstance(holder.get(key), (int, float)) else -1
        elif val == "reversed":
            if isinstance(k.get("ts"), (int, float)) and isinstance(k.get("dur"), (int, float)):
                k["ts"], k["dur"] = k["ts"] + k["dur"], -k["dur"]
        else:
            holder[key] = val
    p = work / f"in{i}_{src.name}"
    _put(p, doc, gz)
    EXPECT.update(op=f"{field} = {val!r} ({len(chosen)} kernels)", mutated=len(chosen))
    return p, src


def csv_quote(rng, seeds, work: Path, i: int):
    files = [p for p in _csv_files(seeds) if any(CSV_NAME.match(h.strip()) for h in (_rows(p) or [[]])[0])]
    if not files:
        return None
    src = rng.choice(files)
    rows = _rows(src)
    col = next(j for j, h in enumerate(rows[0]) if CSV_NAME.match(h.strip()))
    name = rng.choice(QUOTED)
    body = [r for r in rows[1:] if len(r) > col and r[col] and not r[col].startswith(("(", "["))]
    chosen = rng.sample(body, max(1, len(body) // rng.choice([1, 2, 4]))) if body else []
    for r in chosen:
        r[col] = name
    p = work / f"in{i}_{src.name}"
    _write_rows(p, rows)
    EXPECT.update(op=f"name {name!r} in {len(chosen)} rows", mutated=len(chosen), same_as=src if name else None)
    return p, src


def text_enc(rng, seeds, work: Path, i: int):
    texts = [p for p in seeds.values() if p.is_file() and p.suffix in (".csv", ".json", ".txt")]
    src = rng.choice(sorted(texts))
    text = src.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
    how = rng.choice(["utf16", "utf16be", "bom_crlf", "cr"])
    p = work / f"in{i}_{src.name}"
    if how == "utf16":
        p.write_bytes(text.encode("utf-16"))
    elif how == "utf16be":
        p.write_bytes(codecs.BOM_UTF16_BE + text.encode("utf-16-be"))
    elif how == "bom_crlf":
        p.write_bytes(codecs.BOM_UTF8 + text.replace("\r\n", "\n").replace("\n", "\r\n").encode())
    else:
        p.write_bytes(text.replace("\r\n", "\n").replace("\n", "\r").encode())
    EXPECT.update(op=how, same_as=src)
    return p, src


_TINY = {"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2,
     "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 5,
     "args": {"correlation": 1, "device": 0, "stream": 7}}]}


def many_files(rng, seeds, work: Path, i: int):
    d = work / f"in{i}_many"
    d.mkdir()
    how = rng.choice(["ranks", "empties", "subdirs", "deep"])
    n = rng.choice([1000, 3000]) if how == "ranks" else 10000 if how == "empties" else 2000
    real = rng.choice(_kineto_files(seeds))
    if how == "ranks":
        for r in range(n):
            doc = json.loads(json.dumps(_TINY))
            doc["distributedInfo"] = {"rank": r, "world_size": n}
            (d / f"rank{r}.pt.trace.json").write_text(json.dumps(doc))
        EXPECT.update(op=f"{n} rank files")
        return d, real
    shutil.copyfile(real, d / real.name)
    if how == "empties":
        for r in range(n):
            (d / f"e{r}.json").write_bytes(b"")
    elif how == "subdirs":
        for r in range(n):
            (d / f"s{r}").mkdir()
    else:
        q = d
        for r in range(150):
            q = q / "d"
        q.mkdir(parents=True)
        shutil.copyfile(real, q / ("deep_" + real.name))
    EXPECT.update(op=f"{how} ({n})")
    return d, real


def path_names(rng, seeds, work: Path, i: int):
    src = rng.choice(sorted(p for p in seeds.values() if p.is_file()))
    base = rng.choice(PATH_NAMES)
    sub = work / f"in{i}"
    sub.mkdir()
    p = sub / (base + "".join(src.suffixes[-2:]) if src.suffixes else base)
    try:
        shutil.copyfile(src, p)
    except OSError:
        return None
    EXPECT.update(op=f"file name {base[:20]!r}", same_as=src)
    return p, src


MAKERS = {"env_console": env_console, "one_field": one_field, "type_conf": type_conf, "csv_quote": csv_quote,
          "text_enc": text_enc, "many_files": many_files, "path_names": path_names}


# ---------------------------------------------------------------------------------------------------- running
def run_cli(path: Path, out: Path, env_extra: dict | None = None, timeout: float = 120.0) -> dict:
    """``python -m gpulens analyze PATH --json/--markdown/--html`` in a child process: {code, text, cpu, wall}."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPULENS_")}
    env["PYTHONPATH"] = os.pathsep.join([str(HERE.parent / "src"), str(HERE.parent)])
    env["GPULENS_CACHE_DIR"] = str(out / "cache")
    extra = dict(env_extra or {})
    cache = extra.pop("cache", None)
    pipe = extra.pop("pipe", None)
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    if cache:
        env.pop("GPULENS_CACHE_DIR", None)
    cmd = [sys.executable, "-m", "gpulens", "analyze", str(path), "--json", str(out / "r.json"), "--markdown",
           str(out / "r.md"), "--html", str(out / "r.html")] + ([] if cache else ["--no-cache"])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        if pipe:
            pr = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(out))
            pr.stdout.read(int(pipe))
            pr.stdout.close()
            err = pr.stderr.read()
            code = pr.wait(timeout=timeout)
            text = err.decode("utf-8", "replace")
        else:
            r = subprocess.run(cmd, capture_output=True, env=env, cwd=str(out), timeout=timeout)
            code, text = r.returncode, (r.stderr + r.stdout).decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        if pipe:
            pr.kill()
            pr.wait()
        return {"code": None, "text": "", "cpu": timeout, "wall": timeout}
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {"code": code, "text": text, "cpu": cpu, "wall": time.monotonic() - t0}


def counts(doc: dict) -> tuple[int, int]:
    """(kernels, copies) summed over the report's sources."""
    k = c = 0
    for s in doc.get("sources") or []:
        sm = s.get("summary") or {}
        k += int(sm.get("kernel_count") or 0)
        c += int(sm.get("memcpy_count") or 0)
    return k, c


def _warned(doc: dict, n: int) -> bool:
    """Whether a warning (or note) of the report counts ``n`` events (the number written in it)."""
    texts = []
    for s in doc.get("sources") or []:
        texts += [str(w) for w in s.get("warnings") or []]
        texts += [str(s.get(k) or "") for k in ("partial_reason", "input_note", "clock_note")]
        texts += [str(x) for x in (s.get("summary") or {}).get("invalid_gpu_work") or []]
    pat = re.compile(rf"(?<![\d.,]){n:,}(?![\d.,]\d)|(?<![\d.,]){n}(?![\d.,]\d)")
    return any(pat.search(t) for t in texts)


def classify(res: dict, out: Path, base: dict | None) -> tuple[int, str] | None:
    """The class (1–4, see the module docstring) and text of what went wrong, or None."""
    from tests.report_invariants import violations
    from tests.test_acceptance_corpus import _json_strings
    from tests.test_report_text import bad_text

    code, text = res["code"], res["text"]
    if code is None:
        return 2, "no exit within the limit"
    if base and res["cpu"] > max(5.0, 10 * base["cpu"]):
        return 2, f"{res['cpu']:.1f} s CPU, the seed {base['cpu']:.1f} s"
    if code not in ALLOWED or "Traceback" in text or "internal error" in text:
        return 1, f"exit {code}: {text.strip()[-300:]!r}"
    errs = [ln for ln in text.splitlines() if ln.startswith("gpulens: error")]
    if code == 2 and (len(errs) != 1 or len([ln for ln in text.splitlines() if ln.strip()]) != 1):
        return 1, f"exit 2 without exactly one line: {text.strip()[:300]!r}"
    if code != 0 or not (out / "r.json").exists():
        return None
    doc = json.loads((out / "r.json").read_text())
    v = violations(doc)
    if v:
        return 3, "report invariant: " + "; ".join(v[:3])
    prose = _json_strings(doc, [])
    md = (out / "r.md").read_text() if (out / "r.md").exists() else ""
    row = md_table_widths(md)
    if row:
        return 3, f"markdown table row of another width: {row!r}"
    found = [b for b in bad_text(" ".join(md.replace("\\", "").split()), prose) if not b.startswith("raw ns")]
    if found:
        return 3, f"markdown text: {found[0][:200]}"
    if base is not None and base.get("kernels") is not None:
        k, c = counts(doc)
        # kernels and copies together: a kernel record named "Memcpy DtoD" is a copy, without its name a kernel
        for what, got, want in (("kernels and copies", k + c, base["kernels"] + (base["copies"] or 0)),):
            lost = want - got
            if lost > 0 and EXPECT.get("same_as") is not None:
                if not _warned(doc, lost):
                    return 4, f"{got} {what} read, the seed has {want}: {lost} dropped without a warning counting them"
            elif lost > 0 and not (_warned(doc, lost) or _warned(doc, EXPECT.get("mutated", -1))):
                return 4, f"{got} {what} read, the seed has {want}: {lost} dropped without a warning counting them"
    return None


def baseline(seed: Path, work: Path, cache: dict) -> dict | None:
    """The seed's own run (CPU time, kernels, copies), measured once."""
    key = str(seed)
    if key not in cache:
        res = run_cli(seed, work / "base")
        doc = None
        if res["code"] == 0 and (work / "base" / "r.json").exists():
            doc = json.loads((work / "base" / "r.json").read_text())
        k, c = counts(doc) if doc else (None, None)
        cache[key] = {"cpu": res["cpu"], "kernels": k, "copies": c}
    return cache[key]


def _family(src: Path) -> str:
    n = src.name
    if src.is_dir():
        return "folder"
    for suf, fam in ((".json.gz", "json.gz"), (".json", "json"), (".csv", "csv"), (".sqlite", "sqlite"),
                     (".db", "sqlite"), (".txt", "text"), (".ncu-rep", "ncu-rep")):
        if n.endswith(suf):
            return fam
    return "other"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=47047)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--kinds", default=",".join(sorted(set(KINDS))))
    a = ap.parse_args(argv)
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    chosen = [k for k in KINDS if k in a.kinds.split(",")]
    fdir = a.workdir / "findings"
    fdir.mkdir(parents=True, exist_ok=True)
    cache_file = a.workdir / "base.json"
    cache = json.loads(cache_file.read_text()) if cache_file.exists() else {}
    tot: dict = {"inputs": 0, "by_kind": {}, "by_family": {}, "classes": {"1": 0, "2": 0, "3": 0, "4": 0},
                 "findings": []}
    t0 = time.monotonic()
    ids = [a.only] if a.only is not None else range(a.start, a.start + a.count)
    for i in ids:
        rng = random.Random(a.seed * 7919 + i)
        kind = rng.choice(chosen)
        work = a.workdir / "work"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        EXPECT.clear()
        try:
            made = MAKERS[kind](rng, seeds, work, i)
        except (OSError, ValueError, sqlite3.Error, StopIteration, IndexError) as exc:
            print(f"{i} {kind}: not made ({exc})", file=sys.stderr)
            continue
        if made is None:
            continue
        path, src = made
        base = baseline(EXPECT.get("same_as") or src, a.workdir, cache) if kind != "many_files" else None
        if kind == "many_files":
            one = work / "one"
            one.mkdir()
            shutil.copyfile(src, one / src.name)
            # a folder of n files is n inputs: 10x the one file's CPU, plus 20 ms a file
            files = sum(len(f) for _, _, f in os.walk(path))
            base = {"cpu": run_cli(one, a.workdir / "base")["cpu"] + 0.002 * files, "kernels": None}
        if EXPECT.get("same_as") is None and kind in ("one_field", "type_conf", "csv_quote"):
            base = dict(base or {}, kernels=(base or {}).get("kernels"))
        res = run_cli(path, work / "out", EXPECT.get("env"), a.timeout * (3 if kind == "many_files" else 1))
        got = classify(res, work / "out", base)
        fam = _family(src)
        tot["inputs"] += 1
        tot["by_kind"][kind] = tot["by_kind"].get(kind, 0) + 1
        tot["by_family"][fam] = tot["by_family"].get(fam, 0) + 1
        if got is not None:
            cls, what = got
            tot["classes"][str(cls)] += 1
            rec = {"i": i, "kind": kind, "class": cls, "seed": src.name, "op": EXPECT.get("op"),
                   "env": EXPECT.get("env"), "what": what[:400]}
            tot["findings"].append(rec)
            keep = fdir / f"{i}_{kind}"
            shutil.rmtree(keep, ignore_errors=True)
            try:
                (shutil.copytree if path.is_dir() else shutil.copyfile)(path, keep if path.is_dir() else
                                                                         Path(str(keep) + "".join(src.suffixes)))
            except OSError:
                pass
            print(json.dumps(rec, default=str), file=sys.stderr, flush=True)
        cache_file.write_text(json.dumps(cache))
    tot["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(tot, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
