"""Sixth-session fuzzing: whole-file mutation kinds the earlier fuzzers (tests/fuzzing.py, fuzz_more.py) do not make,
and a check of every rendered report, not only the JSON one.

``python tests/fuzz_fresh.py --seed S --count N --workdir DIR``. Seeds: every format of tests/fuzzing.py (plus the
folders and cases of its ``--extended`` set). Mutation kinds (:data:`KINDS`):

* ``column_type`` — one key of *every* event/record set to one other type (string, number, null, list, object);
* ``column_number`` — one numeric key of every event set to an extreme (±1e308, -1, 0, 2**63, 1e-300, huge text);
* ``column_drop`` — one key deleted from every event (all ``ts``, all ``args``...);
* ``dup_key`` — a key written twice in every event, the valid value first or last;
* ``cut_struct`` — cut at one of 12 evenly spaced structural boundaries (``}`` ``]`` ``,`` newline);
* ``bom_crlf`` — UTF-8 BOM *and* CRLF line ends together; ``odd_names`` — names with NUL, RTL, zero-width,
  emoji, lone surrogates and 10 kB length;
* ``csv_header`` — the header line twice at the top, header renamed to another case, header only, trailing
  delimiter on every line, every number quoted;
* ``sqlite_page`` — bytes of one b-tree page (not the header page) overwritten; ``sqlite_empty`` — every table
  emptied; ``sqlite_case`` — every column renamed to upper case; ``sqlite_order`` — every table rebuilt with its
  columns in another order;
* ``mixed_ranks`` — a folder of 2-3 files of different formats (Kineto, gzip Kineto, rocprofv3 CSV, nsys SQLite,
  a truncated or empty one).

For every input: :func:`gpulens.analyze` (strict; lenient for every 3rd), then the JSON report checked by
:func:`tests.fuzz_more.impossible_figures` and the HTML, Markdown and console reports checked by
:func:`tests.test_report_text.bad_text` (no ``None``/``nan``/raw dict/list repr outside names and sentences the
trace and analyzers wrote). A finding is an exception other than a one-line :class:`gpulens.errors.GpulensError`,
a hang past ``--timeout`` s, an impossible figure or a bad text. Totals are printed as one JSON line; findings are
appended to ``DIR/findings.jsonl`` and the input kept under ``DIR/findings``.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import random
import re
import shutil
import sqlite3
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402

KINDS = ["column_type", "column_number", "column_drop", "dup_key", "cut_struct", "bom_crlf", "odd_names",
         "csv_header", "sqlite_page", "sqlite_empty", "sqlite_case", "sqlite_order", "mixed_ranks"]
TYPES = ["", "x", "12", 0, -1, 1.5, None, [], [1], {}, {"a": 1}, True]
EXTREMES = [1e308, -1e308, -1, 0, 2 ** 63, -(2 ** 63), 2 ** 64, 1e-300, "9" * 400, -0.0, 1e15, 4.5e18]
ODD = ["\x00", "\u202e", "\u200b", "\U0001f600", "\ud800", "é", "\t", "<b>x</b>", "${x}", "'\"", "k" * 10_000]


# ------------------------------------------------------------------------------------------------------ JSON
def _events(doc):
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        for k in ("traceEvents", "rocprofiler-sdk-tool"):
            if isinstance(doc.get(k), list):
                return doc[k]
    return []


def _records(doc) -> list[dict]:
    """Event-like dicts: trace events, or the dicts inside rocprofv3's per-process buffer lists."""
    evs = [e for e in _events(doc) if isinstance(e, dict)]
    if isinstance(doc, dict) and "rocprofiler-sdk-tool" in doc:
        out = []
        for t in evs:
            for v in (t.get("buffer_records") or {}).values() if isinstance(t.get("buffer_records"), dict) else []:
                out += [r for r in v if isinstance(r, dict)] if isinstance(v, list) else []
            out += [r for r in t.get("kernel_symbols") or [] if isinstance(r, dict)]
        return out or evs
    return evs


def mutate_json_whole(rng: random.Random, kind: str, data: bytes) -> bytes | None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    recs = _records(doc)
    if not recs:
        return None
    keys = sorted({k for r in recs for k in r})
    if kind == "column_number":
        keys = sorted({k for r in recs for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
                       or isinstance(v, str) and v.isdigit()}) or keys
    key = rng.choice(keys)
    dup = None
    if kind == "column_type":
        val = rng.choice(TYPES)
        for r in recs:
            if key in r:
                r[key] = val
    elif kind == "column_number":
        val = rng.choice(EXTREMES)
        for r in recs:
            if key in r and rng.random() < 0.7:
                r[key] = val
    elif kind == "column_drop":
        for r in recs:
            r.pop(key, None)
    else:  # dup_key: the key again in every record, with a value of another type, before or after the real one
        val, first = rng.choice(TYPES + EXTREMES[:4]), rng.random() < 0.5
        for r in recs:
            if key in r:
                items = list(r.items())
                r.clear()
                r.update(([("__dup__", 0)] if first else []) + items + ([] if first else [("__dup__", 0)]))
        dup = (key, val)
    text = json.dumps(doc, allow_nan=True)
    if dup:
        text = text.replace('"__dup__": 0', json.dumps(dup[0]) + ": " + json.dumps(dup[1], allow_nan=True))
    return text.encode("utf-8", "surrogatepass")


def cut_struct(rng: random.Random, data: bytes) -> bytes:
    marks = [i for i, c in enumerate(data[:2_000_000]) if c in b"}],\n"]
    if not marks:
        return data[: len(data) // 2]
    picks = [marks[int(j * (len(marks) - 1) / 11)] for j in range(12)]
    i = rng.choice(picks)
    return data[: i + rng.choice([0, 1])]


def odd_names(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", "replace")
    names = re.findall(r'"name": ?"([^"\\]{3,80})"', text) or re.findall(r',"?([A-Za-z_][\w:<>]{3,60})', text)
    if not names:
        return data
    for n in set(rng.sample(names, min(3, len(names)))):
        odd = rng.choice(ODD)
        new = n[:2] + odd + n[2:]
        text = text.replace(n, json.dumps(new)[1:-1] if text.lstrip()[:1] in "{[" else new.replace(",", ";"))
    return text.encode("utf-8", "surrogatepass")


# ------------------------------------------------------------------------------------------------------- CSV
def csv_header(rng: random.Random, data: bytes) -> bytes:
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    hi = next((i for i, ln in enumerate(lines[:60]) if ln.count(",") >= 2), None)
    if hi is None:
        return data
    op = rng.randrange(5)
    if op == 0:
        lines.insert(hi, lines[hi])
    elif op == 1:
        lines[hi] = rng.choice([str.upper, str.lower, str.title])(lines[hi])
    elif op == 2:
        lines = lines[: hi + 1]
    elif op == 3:
        lines = [ln + "," if i >= hi else ln for i, ln in enumerate(lines)]
    else:
        rows = list(csv.reader(io.StringIO("\n".join(lines[hi:]))))
        buf = io.StringIO()
        csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
        lines = lines[:hi] + buf.getvalue().splitlines()
    return ("\n".join(lines) + "\n").encode("utf-8")


# ---------------------------------------------------------------------------------------------------- SQLite
def mutate_sqlite_whole(rng: random.Random, kind: str, path: Path) -> None:
    if kind == "sqlite_page":
        blob = bytearray(path.read_bytes())
        page = int.from_bytes(blob[16:18], "big") or 4096
        page = 65536 if page == 1 else page
        npages = len(blob) // page
        if npages < 2:
            return
        p = rng.randrange(1, npages)
        base = p * page
        for _ in range(rng.randint(1, 6)):
            off = base + rng.randrange(page)
            blob[off] = rng.randrange(256)
        path.write_bytes(bytes(blob))
        return
    con = sqlite3.connect(path)
    try:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                            "'sqlite_%'")]
        for t in tables:
            cols = [r[1] for r in con.execute(f"PRAGMA table_info([{t}])")]
            if kind == "sqlite_empty":
                con.execute(f"DELETE FROM [{t}]")
            elif kind == "sqlite_case":
                for c in cols:
                    if c.upper() != c:
                        con.execute(f"ALTER TABLE [{t}] RENAME COLUMN [{c}] TO [{c.upper()}_]")
                        con.execute(f"ALTER TABLE [{t}] RENAME COLUMN [{c.upper()}_] TO [{c.upper()}]")
            elif kind == "sqlite_order" and len(cols) > 1:
                perm = cols[:]
                rng.shuffle(perm)
                sel = ", ".join(f"[{c}]" for c in perm)
                con.executescript(f"CREATE TABLE [_tmp] AS SELECT {sel} FROM [{t}]; DROP TABLE [{t}]; "
                                  f"ALTER TABLE [_tmp] RENAME TO [{t}];")
        con.commit()
    except sqlite3.Error:
        pass
    finally:
        con.close()


# ----------------------------------------------------------------------------------------------- whole input
def _text_kind(rng: random.Random, data: bytes) -> str:
    head = data.lstrip()[:1]
    if head in (b"{", b"["):
        return rng.choice(["column_type", "column_number", "column_drop", "dup_key", "cut_struct", "bom_crlf",
                           "odd_names"])
    return rng.choice(["csv_header", "cut_struct", "bom_crlf", "odd_names"])


def _mutate_file(rng: random.Random, f: Path) -> str:
    raw = f.read_bytes()
    if raw[:16] == b"SQLite format 3\x00":
        kind = rng.choice(["sqlite_page", "sqlite_empty", "sqlite_case", "sqlite_order"])
        mutate_sqlite_whole(rng, kind, f)
        return kind
    gz = raw[:2] == b"\x1f\x8b"
    data = gzip.decompress(raw) if gz else raw
    kind = _text_kind(rng, data)
    if kind in ("column_type", "column_number", "column_drop", "dup_key"):
        out = mutate_json_whole(rng, kind, data)
        data = out if out is not None else cut_struct(rng, data)
    elif kind == "cut_struct":
        data = cut_struct(rng, data)
    elif kind == "bom_crlf":
        data = b"\xef\xbb\xbf" + data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    elif kind == "odd_names":
        data = odd_names(rng, data)
    else:
        data = csv_header(rng, data)
    f.write_bytes(gzip.compress(data, compresslevel=1) if gz and rng.random() < 0.8 else data)
    return kind


MIX = ["kineto", "kineto_gz", "kineto_b12", "rocprofv3_csv", "nsys_sqlite", "rocpd", "case_T05.json",
       "case_B13.json", "case_B05a.json"]


def make_input(rng: random.Random, seeds: dict[str, Path], work: Path, i: int) -> tuple[Path, str]:
    if rng.random() < 0.1:
        d = work / f"in{i}_mixed"
        d.mkdir()
        for r, fmt in enumerate(rng.sample([m for m in MIX if m in seeds], rng.randint(2, 3))):
            src = seeds[fmt]
            dst = d / f"rank{r}_{src.name}"
            shutil.copyfile(src, dst)
            if rng.random() < 0.3:
                dst.write_bytes(dst.read_bytes()[: rng.randrange(1, 200)] if rng.random() < 0.5 else b"")
        return d, "mixed_ranks"
    fmt = rng.choice(sorted(seeds))
    seed = seeds[fmt]
    dst = work / f"in{i}_{seed.name}"
    if seed.is_dir():
        shutil.copytree(seed, dst)
        files = sorted(p for p in dst.rglob("*") if p.is_file())
        kind = _mutate_file(rng, rng.choice(files))
    else:
        shutil.copyfile(seed, dst)
        kind = _mutate_file(rng, dst)
    return dst, kind


def check(path: Path, strict: bool, extra=None) -> str | None:
    """None when gpulens behaved on ``path``; else what went wrong. ``extra(doc, path)``: more impossible figures
    to look for in the JSON report (a list of texts), beside :func:`tests.fuzz_more.impossible_figures`."""
    import gpulens
    from gpulens.errors import GpulensError, printable
    from gpulens.reports import console, html, json_report, markdown
    from tests.fuzz_more import impossible_figures
    from tests.test_report_text import bad_text, page_text, prose_of

    try:
        rep = gpulens.analyze([path], strict=strict)
    except GpulensError as exc:
        msg = str(exc)
        if "\n" in msg or not msg.startswith(printable(path)):  # a name with a newline is shown escaped
            return f"bad message {type(exc).__name__}: {msg[:200]!r}"
        return None
    except fuzzing.FuzzTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 — a finding
        return fuzzing._where(exc)
    try:
        doc = json.loads(json_report.render(rep))
        bad = impossible_figures(doc) + (extra(doc, path) if extra is not None else [])
        if bad:
            return "impossible figure: " + "; ".join(bad[:3])
        prose = prose_of(rep)
        text, _, _ = page_text(html.render(rep))
        for label, t in (("html", " ".join(text.split())),
                         ("markdown", " ".join(markdown.render(rep).replace("\\", "").split())),
                         ("console", " ".join(console.render(rep).split()))):
            found = [b for b in bad_text(t, prose) if not b.startswith("raw ns")
                     and not fuzzing.VISIBLE_ESCAPE.search(f"{label} text: {b}")]
            if found:
                return f"{label} text: {found[0][:200]}"
    except fuzzing.FuzzTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 — a finding in a reporter
        return "report " + fuzzing._where(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=6061)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--only", type=int, default=None)
    a = ap.parse_args(argv)
    c = fuzzing.Campaign(a)
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    for i in c.indices():
        rng = random.Random(a.seed * 104_729 + i)
        work = c.work()
        path, kind = make_input(rng, seeds, work, i)
        strict = i % 3 != 2
        what = c.run(i, kind, path.name, lambda: check(path, strict))
        if what is not None:
            c.record(path, {"i": i, "kind": kind, "strict": strict, "what": what})
    return c.done()


if __name__ == "__main__":
    sys.exit(main())
