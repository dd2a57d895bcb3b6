"""The command-line kinds of tests/fuzz_s37.py (``fs_change``, ``cli_opts``, ``gate_diff``: see its docstring),
and what its kinds share: the seed groups, :data:`_EXPECT` (the current input's expectations) and :func:`_pool`.
Not run on its own: ``python tests/fuzz_s37.py --kinds fs_change,cli_opts,gate_diff``."""

from __future__ import annotations

import gzip
import hashlib
import os
import random
import re
import shutil
import threading
import time
from pathlib import Path

from tests import fuzzing

_KINETO = ("kineto", "kineto_b12", "kineto_gz", "case_B02.pt.trace.json.gz", "case_B13.json", "case_T05.json",
           "case_B06.json", "case_T11.json")
_CSV = ("rocprof_v1", "rocprof_v1_stats", "rocprofv3_csv", "nsys_stats", "ncu_csv", "ncu_raw",
        "case_B05b.kernel_trace.csv", "case_B17.v1_results.csv", "case_B17.v2_results.csv",
        "case_T08.nsys_stats_stdout.csv", "case_B20.ncu_details_12col.csv")
_EXPECT: dict = {}


def _pool(seeds: dict[str, Path], names: list[str], want) -> list[Path]:
    return [seeds[n] for n in names if n in want and n in seeds]



# ---------------------------------------------------------------------------------------------------- file changes
def fs_change(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = _pool(seeds, names, _KINETO + _CSV + ("nsys_sqlite", "rocprofv3_json", "rank_dir", "v3_dir"))
    seed = rng.choice(pool)
    p = work / f"in{i}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    _EXPECT.update(change=rng.choice(["truncate", "half", "grow", "replace", "delete"]),
                   delay=rng.choice([0.0, 0.001, 0.005, 0.02, 0.1]))
    return p, seed


def _victim(path: Path) -> Path:
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.is_file())
        return files[0] if files else path
    return path


def _fs_check(path: Path, work: Path) -> str | None:
    from tests.fuzz_cli import ALLOWED
    from tests.fuzz_s8 import run_cli

    what, delay = _EXPECT["change"], _EXPECT["delay"]
    f = _victim(path)

    def change() -> None:
        time.sleep(delay)
        try:
            if what == "truncate":
                os.truncate(f, 0)
            elif what == "half":
                os.truncate(f, f.stat().st_size // 2)
            elif what == "grow":
                with open(f, "ab") as fh:
                    fh.write(b"\x00garbage" * 10000)
            elif what == "replace":
                tmp = f.with_name(f.name + ".new")
                tmp.write_bytes(b"Kind,Agent_Id\nKERNEL_DISPATCH,1\n")
                os.replace(tmp, f)
            else:
                f.unlink()
        except OSError:
            pass

    t = threading.Thread(target=change, daemon=True)
    t.start()
    code, text = run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(work / "r.json")])
    t.join(5)
    if code not in ALLOWED["analyze"] or "Traceback" in text or "internal error" in text:
        return f"{what} after {delay}s: exit {code}: {text.strip()[-300:]!r}"
    errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
    if code == 2 and len(errs) != 1:
        return f"{what} after {delay}s: exit 2 without one error line: {text.strip()[:300]!r}"
    return None


# ---------------------------------------------------------------------------------------------------- CLI options
def _digest(path: Path) -> str:
    h = hashlib.sha256()
    for f in sorted([path] if path.is_file() else [q for q in path.rglob("*") if q.is_file()]):
        h.update(str(f).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def cli_opts(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    seed = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite",
                                                       "rank_dir", "kineto_gz")])]
    p = work / f"in{i}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    _EXPECT.update(opts=rng.choice(["same_json_md", "same_json_html", "same_md_perfetto", "json_input",
                                    "md_input", "html_input_file", "workers0", "workers_neg", "workers_huge",
                                    "top0", "top_neg", "top_huge", "json_nodir", "json_dir", "diff_same_out",
                                    "diff_json_base", "gate_json_cand", "json_csv_same", "gate_same_out"]))
    return p, seed


def _expect_error(opts: str) -> bool:
    return opts in ("same_json_md", "same_json_html", "same_md_perfetto", "json_input", "md_input",
                    "html_input_file", "workers_neg", "top_neg", "json_nodir", "json_dir", "diff_same_out",
                    "diff_json_base", "gate_json_cand", "json_csv_same", "gate_same_out")


def _cli_check(path: Path, work: Path) -> str | None:
    from tests.fuzz_s8 import run_cli

    o = _EXPECT["opts"]
    out = work / "out"
    out.mkdir()
    inner = _victim(path)
    cmd = "analyze"
    args = ["analyze", str(path), "-q", "--no-cache"]
    if o == "same_json_md":
        args += ["--json", str(out / "r"), "--markdown", str(out / "r")]
    elif o == "same_json_html":
        args += ["--json", str(out / "r.json"), "--html", str(out / "." / "r.json")]
    elif o == "same_md_perfetto":
        args += ["--markdown", str(out / "r.md"), "--perfetto", str(out / "r.md")]
    elif o == "json_input":
        args += ["--json", str(inner)]
    elif o == "md_input":
        args += ["--markdown", str(inner)]
    elif o == "html_input_file":
        args += ["--html", str(inner.parent / ".." / inner.parent.name / inner.name)]
    elif o.startswith("workers"):
        args += ["--workers", {"workers0": "0", "workers_neg": "-1", "workers_huge": "1000000"}[o],
                 "--json", str(out / "r.json")]
    elif o.startswith("top"):
        args = ["analyze", str(path), "--no-cache", "--top", {"top0": "0", "top_neg": "-1", "top_huge":
                                                              "1000000000"}[o]]
    elif o == "json_nodir":
        args += ["--json", str(out / "no" / "such" / "r.json")]
    elif o == "json_dir":
        args += ["--json", str(out)]
    elif o == "json_csv_same":
        args += ["--json", str(out / "x"), "--csv", str(out / "x")]
    elif o == "diff_same_out":
        cmd = "diff"
        args = ["diff", str(path), str(path), "-q", "--json", str(out / "d"), "--markdown", str(out / "d")]
    elif o == "diff_json_base":
        cmd = "diff"
        args = ["diff", str(path), str(path), "-q", "--json", str(inner)]
    else:
        cmd = "gate"
        rep = work / "rep.json"
        run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(rep)])
        if not rep.exists():
            return None
        before_rep = _digest(rep)
        extra = ["--json", str(rep)] if o == "gate_json_cand" else ["--json", str(work / "g"), "--junit",
                                                                      str(work / "g")]
        code, text = run_cli(["gate", str(rep), "--baseline", str(rep), "-q"] + extra)
        if _digest(rep) != before_rep:
            return f"gate --json onto its candidate overwrote it (exit {code})"
        return _exit_check(cmd, code, text, o, True)
    before = _digest(path)
    code, text = run_cli(args)
    if _digest(path) != before:
        return f"{o}: the input was changed (exit {code})"
    bad = _exit_check(cmd, code, text, o, _expect_error(o) and o != "json_nodir")
    if bad:
        return bad
    if o in ("same_json_md", "same_json_html", "same_md_perfetto", "diff_same_out", "json_csv_same") and code == 0:
        return f"{o}: two reports written to one path, exit 0"
    return None


def _exit_check(cmd: str, code: int, text: str, o: str, want_error: bool) -> str | None:
    from tests.fuzz_cli import ALLOWED

    if code not in ALLOWED[cmd] or "Traceback" in text or "internal error" in text:
        return f"{o}: exit {code}: {text.strip()[-300:]!r}"
    errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
    if code == 2 and len(errs) != 1 and "Usage" not in text:
        return f"{o}: exit 2 without one error line: {text.strip()[:300]!r}"
    if code != 2 and want_error and o not in ("gate_json_cand",):
        return f"{o}: exit {code}, expected a usage error: {text.strip()[:200]!r}"
    return None


# ---------------------------------------------------------------------------------------------------- gate / diff
def gate_diff(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    seed = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite")])]
    p = work / f"in{i}_{seed.name}"
    shutil.copyfile(seed, p)
    _EXPECT.update(gd=rng.choice(["base_bom", "base_utf16", "base_dupkey", "base_nan", "base_bigint", "base_deep",
                                  "base_gz", "base_crlf", "diff_self", "diff_report_trace", "diff_formats",
                                  "diff_dir_file", "diff_report_utf16", "diff_report_dupkey"]))
    return p, seed


def _baseline_variant(rep: Path, how: str, dest: Path) -> Path:
    text = rep.read_text()
    if how == "bom":
        dest.write_bytes(b"\xef\xbb\xbf" + text.encode())
    elif how == "utf16":
        dest.write_bytes(text.encode("utf-16"))
    elif how == "dupkey":
        dest.write_text(re.sub(r'"sources"\s*:', '"sources": [], "sources":', text, count=1))
    elif how == "nan":
        dest.write_text(re.sub(r'("[a-z_]*_ns"\s*:\s*)(\d+)', r"\1NaN", text, count=3))
    elif how == "bigint":
        dest.write_text(re.sub(r'("[a-z_]*_ns"\s*:\s*)(\d+)', r"\g<1>1" + "0" * 400, text, count=3))
    elif how == "deep":
        dest.write_text(text[:-1].rstrip().rstrip("}") + ', "x": ' + "[" * 5000 + "]" * 5000 + "}")
    elif how == "gz":
        dest.write_bytes(gzip.compress(text.encode()))
    else:
        dest.write_bytes(text.replace("\n", "\r\n").encode())
    return dest


def _gate_diff_check(path: Path, work: Path) -> str | None:
    from tests.fuzz_s8 import run_cli

    g = _EXPECT["gd"]
    rep = work / "rep.json"
    code, text = run_cli(["analyze", str(path), "-q", "--no-cache", "--json", str(rep)])
    if not rep.exists():
        return None
    if g.startswith("base_"):
        b = _baseline_variant(rep, g[5:], work / f"baseline_{g}.json")
        before = _digest(b)
        code, text = run_cli(["gate", str(rep), "--baseline", str(b), "-q"])
        if _digest(b) != before:
            return f"{g}: the baseline file was changed"
        return _exit_check("gate", code, text, g, False)
    if g == "diff_self":
        a, b = path, path
    elif g == "diff_report_trace":
        a, b = rep, path
    elif g == "diff_formats":
        a, b = path, fuzzing.DATA / "rocprof" / "v3_csv_sdk_docs" / "kernel_trace.csv"
    elif g == "diff_dir_file":
        a, b = fuzzing.DATA / "kineto" / "multirank", path
    elif g == "diff_report_utf16":
        a, b = rep, _baseline_variant(rep, "utf16", work / "rep16.json")
    else:
        a, b = rep, _baseline_variant(rep, "dupkey", work / "repdup.json")
    before = (_digest(Path(a)), _digest(Path(b)))
    code, text = run_cli(["diff", str(a), str(b), "-q", "--json", str(work / "d.json"), "--markdown",
                          str(work / "d.md")])
    if (_digest(Path(a)), _digest(Path(b))) != before:
        return f"{g}: a diff input was changed"
    bad = _exit_check("diff", code, text, g, False)
    if bad is None and code == 0 and (work / "d.json").exists():
        from tests.fuzz_s10 import _strict_json

        s = _strict_json((work / "d.json").read_text())
        if s:
            return f"{g}: diff JSON not strict: {s}"
    return bad
