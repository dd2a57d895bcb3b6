"""Metamorphic variants of every case in ../shared/cases (and tests/data/cases): the answer must not change.

``python tests/fuzz_variants.py --workdir DIR [--cases DIR]``. For each case file, writes variants that keep its
meaning — gzip (one and several members) under the same or another name, no extension, a UTF-8 BOM, CRLF line ends,
JSON re-dumped compact or indented, events in reverse / shuffled order, extra unrelated metadata events, CSV columns
reordered, noise lines after the data — and compares ``gpulens analyze --json`` of each variant with that of the
original: exit code, kernel count, kernel time, GPU busy, span, memcpy count and the set of top-kernel names. Any
difference is printed as a finding (one JSON line per case at the end).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gzip
import io
import json
import random
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
KEYS = ("kernel_count", "kernel_time_ns", "gpu_busy_ns", "span_ns", "memcpy_count", "memcpy_bytes", "computation_ns")


def analyze(path: Path, out: Path, extra: list[str] | None = None) -> tuple[int, dict, str]:
    from gpulens.cli import main

    if out.exists():
        out.unlink()
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(["analyze", str(path), "-q", "--no-cache", "--json", str(out), *(extra or [])])
    sig: dict = {}
    if out.exists():
        doc = json.loads(out.read_text())
        for i, src in enumerate(doc["sources"]):
            sm = src["summary"]
            sig[i] = {k: sm.get(k) for k in KEYS}
            sig[i]["top"] = sorted(str(k["name"]) for k in src.get("top_kernels") or [])
    return code, sig, err.getvalue().strip()


def _json_variants(name: str, data: bytes, rng: random.Random) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    try:
        doc = json.loads(data)
    except ValueError:
        return out
    out["compact"] = json.dumps(doc, separators=(",", ":")).encode()
    out["indented"] = json.dumps(doc, indent=4).encode()
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc if isinstance(doc, list) else None
    if isinstance(evs, list) and len(evs) > 1:
        def with_events(e):
            if isinstance(doc, dict):
                return json.dumps(dict(doc, traceEvents=e)).encode()
            return json.dumps(e).encode()
        out["reversed"] = with_events(list(reversed(evs)))
        sh = list(evs)
        rng.shuffle(sh)
        out["shuffled"] = with_events(sh)
        noise = [{"ph": "M", "name": "process_labels", "pid": 987654, "args": {"labels": "noise"}},
                 {"ph": "i", "name": "marker", "pid": 987654, "tid": 1, "ts": evs[-1].get("ts", 0)
                  if isinstance(evs[-1], dict) else 0, "s": "t"},
                 {"ph": "C", "name": "counter", "pid": 987654, "ts": 0, "args": {"v": 1}}]
        out["noise"] = with_events(evs[:1] + noise + evs[1:])
    return out


def _csv_variants(data: bytes, rng: random.Random) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    text = data.decode("utf-8", "replace")
    lines = text.splitlines()
    hi = next((i for i, ln in enumerate(lines[:40]) if ln.count(",") >= 2), None)
    if hi is None:
        return out
    rows = list(csv.reader(io.StringIO("\n".join(lines[hi:]))))
    if not rows or len(rows[0]) < 2:
        return out
    width = len(rows[0])
    if all(len(r) == width for r in rows if r):
        perm = list(range(width))
        rng.shuffle(perm)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL if lines[hi].startswith('"') else
                       csv.QUOTE_MINIMAL)
        for r in rows:
            w.writerow([r[i] for i in perm] if r else [])
        out["cols_reordered"] = ("\n".join(lines[:hi] + [buf.getvalue()])).encode()
    out["quoted_all"] = None  # type: ignore[assignment]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    for r in rows:
        w.writerow(r)
    out["quoted_all"] = ("\n".join(lines[:hi] + [buf.getvalue()])).encode()
    out["trailing_blank"] = data.rstrip(b"\r\n") + b"\n\n\n"
    return out


def variants(path: Path, rng: random.Random) -> dict[str, tuple[str, bytes]]:
    """name → (file name, bytes) of the variants of one case file."""
    raw = path.read_bytes()
    gz = raw[:2] == b"\x1f\x8b"
    data = gzip.decompress(raw) if gz else raw
    name = path.name
    stem = name[:-3] if name.endswith(".gz") else name
    out: dict[str, tuple[str, bytes]] = {
        "gzip": (stem + ".gz", gzip.compress(data)),
        "gzip_renamed": (stem, gzip.compress(data)),
        "gzip_3members": (stem + ".gz", b"".join(gzip.compress(data[i:i + max(1, len(data) // 3 + 1)])
                                                  for i in range(0, len(data), max(1, len(data) // 3 + 1)))),
        "bom": (stem, b"\xef\xbb\xbf" + data),
        "crlf": (stem, data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")),
        "renamed": ("renamed_" + stem.replace(".", "_") + ("." + stem.rsplit(".", 1)[1] if "." in stem else ""),
                    data),
    }
    if data.lstrip()[:1] in (b"{", b"["):
        for k, v in _json_variants(name, data, rng).items():
            out[k] = (stem, v)
        out["no_extension"] = ("trace_noext", data)
    elif data[:16] == b"SQLite format 3\x00":
        out = {"renamed": ("renamed_" + stem.replace(".", "_") + "." + stem.rsplit(".", 1)[-1], data),
               "other_ext": (stem.rsplit(".", 1)[0] + ".db" if not stem.endswith(".db") else stem[:-3] + ".sqlite",
                             data)}
    else:
        for k, v in _csv_variants(data, rng).items():
            out[k] = (stem, v)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--cases", type=Path, default=HERE.parents[1] / "shared" / "cases")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--only", default="")
    a = ap.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    rng = random.Random(a.seed)
    findings = []
    n = 0
    for case in sorted(a.cases.iterdir()):
        if case.name == "README.md" or case.is_dir() or (a.only and a.only not in case.name):
            continue
        ref_code, ref, ref_err = analyze(case, a.workdir / "ref.json")
        for label, (fname, data) in variants(case, rng).items():
            d = a.workdir / "v" / label
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            p = d / fname
            p.write_bytes(data)
            code, sig, err = analyze(p, a.workdir / "var.json")
            n += 1
            if code != ref_code or sig != ref:
                diff = {k: (ref.get(0, {}).get(k), sig.get(0, {}).get(k)) for k in (ref.get(0) or sig.get(0) or {})
                        if ref.get(0, {}).get(k) != sig.get(0, {}).get(k)}
                findings.append({"case": case.name, "variant": label, "codes": [ref_code, code], "diff": diff,
                                 "err": err[:200], "ref_err": ref_err[:120]})
                print(json.dumps(findings[-1]), flush=True)
    print(json.dumps({"variants": n, "findings": len(findings)}))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent))
    sys.exit(main())
