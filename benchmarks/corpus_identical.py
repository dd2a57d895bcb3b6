"""Before/after equality of ``gpulens analyze`` on a corpus (issue 16: speed work must not change any figure).

Two steps, each run with the gpulens to test first on ``PYTHONPATH`` (e.g. a ``git archive`` of main, then the
branch):

    PYTHONPATH=/tmp/main/src python benchmarks/corpus_identical.py run /tmp/out_main /work/shared/traces \\
        /work/shared/cases tests/data /tmp/gpulens-bench/k1000000/rank0.pt.trace.json
    PYTHONPATH=src python benchmarks/corpus_identical.py run /tmp/out_branch ...same inputs...
    python benchmarks/corpus_identical.py compare /tmp/out_main /tmp/out_branch

``run`` analyses every input in one process — each file and each folder under the given roots (a folder may be one
input: rank files, rocprof output), or a file named directly — as ``gpulens analyze INPUT --no-cache -q --json``
does (the command-line entry point called in-process), and writes each JSON report with its ``created`` stamp
removed (keys sorted), plus ``index.json``: input path, exit code, the end of what it printed on stderr, CPU
seconds. ``run --all-outputs`` also writes each input's HTML report, Markdown summary and console summary (the
command without ``-q``, as printed to a pipe) beside it, creation times and the output folder masked (:data:`STAMP`), and ``compare``
then requires them byte-identical too (rendering speed work must not change a character; an HTML report's
gzip-compressed blocks are compared decompressed: :func:`rendering_bytes`). ``compare`` prints each input whose exit code, report or (without a report) error text differs, and the
counts; it exits 1 when any differs. Files named ``*.md`` are not inputs.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import re
import sys
import time
from pathlib import Path


#: A report's creation time (ISO 8601 to the second, with its UTC offset): masked in the compared renderings.
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?", re.ASCII)
#: Renderings written by ``run --all-outputs`` (suffix of the file beside the JSON report).
RENDERINGS = (".html", ".md", ".console.txt")


def inputs_of(roots: list[Path]) -> list[Path]:
    """Every file and folder under each root (sorted), or the root itself when it is a file; no ``*.md``."""
    out: list[Path] = []
    for r in roots:
        if r.is_file():
            out.append(r)
            continue
        out.extend(p for p in sorted(r.rglob("*")) if not (p.is_file() and p.suffix.lower() == ".md"))
    return out


def run(out: Path, roots: list[Path], all_outputs: bool = False) -> None:
    """Analyse every input of ``roots`` into ``out`` (see the module docstring)."""
    from gpulens.cli import main

    out.mkdir(parents=True, exist_ok=True)
    index = []
    for p in inputs_of(roots):
        dst = out / (hashlib.blake2b(str(p).encode(), digest_size=6).hexdigest() + ".json")
        err, said = io.StringIO(), io.StringIO()
        args = ["analyze", str(p), "--no-cache", "--json", str(dst)]
        args += [a for suffix, opt in zip(RENDERINGS[:2], ("--html", "--markdown"))
                 for a in (opt, str(dst.with_suffix(suffix)))] if all_outputs else ["-q"]
        t = time.process_time()
        try:
            with contextlib.redirect_stdout(said), contextlib.redirect_stderr(err):
                rc = main(args)
        except SystemExit as e:
            rc = e.code
        except Exception as e:  # noqa: BLE001 - recorded, compared like any outcome
            rc = f"exception {type(e).__name__}: {e}"
        rec = {"path": str(p), "rc": rc, "err": err.getvalue()[-500:], "cpu_s": round(time.process_time() - t, 2)}
        if dst.exists():
            doc = json.loads(dst.read_text())
            doc.pop("created", None)
            dst.write_text(json.dumps(doc, sort_keys=True, indent=0, default=str))
            rec["json"] = dst.name
        if all_outputs:
            dst.with_suffix(RENDERINGS[2]).write_text(said.getvalue())
            rec["renderings"] = []
            for suffix in RENDERINGS:
                r = dst.with_suffix(suffix)
                if r.exists():
                    # the report files' own paths ("JSON report written to OUT/…") differ between the two runs
                    r.write_text(STAMP.sub("<created>", r.read_text()).replace(str(out), "<out>"))
                    rec["renderings"].append(r.name)
        index.append(rec)
        print(rec["cpu_s"], rc, p, flush=True)
    (out / "index.json").write_text(json.dumps(index, indent=1))


#: An HTML report's embedded gzip + base64 block (plotly.js, the timeline payload): compared by its decompressed text,
#: not its bytes — the compression level changes the bytes, never what the page reads.
_GZ_BLOCK = re.compile(rb'(<script type="application/octet-stream" id="[^"]*">)([A-Za-z0-9+/=]*)(</script>)', re.ASCII)


def rendering_bytes(path: Path) -> bytes:
    """A rendering's bytes as compared: an HTML report's gzip + base64 blocks replaced by their decompressed
    content (:data:`_GZ_BLOCK`); anything else as written."""
    import base64
    import gzip

    data = path.read_bytes()
    if path.suffix != ".html":
        return data

    def plain(m: re.Match) -> bytes:
        try:
            return m.group(1) + gzip.decompress(base64.b64decode(m.group(2))) + m.group(3)
        except (ValueError, OSError, EOFError):  # not gzip: compared as written
            return m.group(0)

    return _GZ_BLOCK.sub(plain, data)


def compare(a: Path, b: Path) -> int:
    """Differences between two ``run`` folders, printed; 0 when every input came out the same, else 1."""
    ia = {r["path"]: r for r in json.loads((a / "index.json").read_text())}
    ib = {r["path"]: r for r in json.loads((b / "index.json").read_text())}
    same = reports = rendered = 0
    for p in sorted(set(ia) | set(ib)):
        ra, rb = ia.get(p), ib.get(p)
        if ra is None or rb is None:
            print("only in", a if rb is None else b, p)
            continue
        ok = ra["rc"] == rb["rc"] and ra.get("json") == rb.get("json")
        if ok and ra.get("json"):
            reports += 1
            ok = (a / ra["json"]).read_bytes() == (b / rb["json"]).read_bytes()
        if ok and (ra.get("renderings") or rb.get("renderings")):
            ok = ra.get("renderings") == rb.get("renderings") and all(
                rendering_bytes(a / n) == rendering_bytes(b / n) for n in ra["renderings"])
            rendered += ok and bool(ra["renderings"])
            if not ok:
                print("rendering differs:", p)
        if ok and not ra.get("json"):
            ok = ra["err"] == rb["err"]
        same += ok
        if not ok:
            print("differs:", p, ra["rc"], rb["rc"])
    n = len(set(ia) | set(ib))
    print(f"{n} inputs: {same} identical ({reports} JSON reports compared, {rendered} inputs' console, HTML and "
          f"Markdown renderings byte-identical, HTML gzip blocks compared decompressed), {n - same} different")
    return 0 if same == n else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="analyse every input into a folder")
    r.add_argument("out", type=Path)
    r.add_argument("roots", type=Path, nargs="+")
    r.add_argument("--all-outputs", action="store_true", help="also the console summary, HTML and Markdown")
    c = sub.add_parser("compare", help="compare two run folders")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    args = ap.parse_args(argv)
    if args.cmd == "run":
        run(args.out, args.roots, args.all_outputs)
        return 0
    return compare(args.a, args.b)


if __name__ == "__main__":
    sys.exit(main())
