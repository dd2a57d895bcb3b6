"""Benchmark: the command users run (``gpulens analyze``) against Holistic Trace Analysis (HTA) on the same trace.

    python benchmarks/run.py                          # 100k and 1M kernels
    python benchmarks/run.py --kernels 100000 --skip-hta
    python benchmarks/run.py --with-5m                # also 5M kernels (≈ 6 GB of JSON; HTA skipped there)
    python benchmarks/run.py --ranks 8 --rank-kernels 50000   # + a directory of 8 rank files, 1 vs 2 workers (5 pairs)

For each N it generates ``WORKDIR/kN/rank0.pt.trace.json`` once (:mod:`gen_kineto`), then runs each measurement as
its own process and reads that process's wall time, CPU time (user + system) and peak RSS from ``wait4``:

* ``hta``           HTA ``TraceAnalysis(trace_dir)`` then ``get_temporal_breakdown`` and ``get_gpu_kernel_breakdown``
                    (:mod:`_measure`, in HTA's own virtual environment: ``--hta-python`` or ``benchmarks/.venv-hta``
                    created on first use); the load call and load + breakdowns are also timed inside the process;
* ``gl_json``       ``gpulens analyze FILE --no-cache --json out.json -q`` — the headline;
* ``gl_all``        ``gpulens analyze FILE --no-cache --json --html --markdown -q``;
                    both run ``--repeat`` times (default 3) as back-to-back pairs, each figure the median of its runs
                    (HTA, two minutes a run at 1M, runs once);
* ``gl_cached``     ``gpulens analyze FILE --json out.json -q`` after one cache-writing run of the full command (cache
                    hit: the analysis results — and the reports rendered from them — come from the cache; the
                    Timeline is not loaded);
* ``gl_cached_all`` the cached re-run writing JSON, HTML and Markdown.

Process figures include interpreter start-up and imports for both tools; ``_measure`` also reports HTA's load call
alone (imports excluded) — the issue's reference ("HTA's load"). Ratios: HTA ÷ gpulens (above 1 = gpulens faster / smaller).
``--json FILE`` keeps every figure; ``--markdown FILE`` writes the tables of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _hta_python(given: str | None) -> str:
    if given:
        return given
    venv = HERE / ".venv-hta"
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"creating {venv} with holistictraceanalysis (once) …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        # HTA 0.5.0 fails on pandas 3 (int16 dtype coercion in its parser): pin pandas 2 in its environment
        subprocess.run([str(py), "-m", "pip", "install", "-q", "holistictraceanalysis", "pandas<3"], check=True)
    return str(py)


def run_process(cmd: list[str], env: dict[str, str] | None = None, ok_codes: tuple[int, ...] = (0,)) -> dict:
    """Run ``cmd``; return wall s, CPU s (user + system) and peak RSS MiB of that process alone (``wait4``)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, cwd=tempfile.gettempdir(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.stdout.read(), p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    res = {"wall_s": round(wall, 3), "cpu_s": round(ru.ru_utime + ru.ru_stime, 3),
           "peak_rss_mb": round(ru.ru_maxrss / 1024, 1), "rc": p.returncode}
    if p.returncode not in ok_codes:
        res["error"] = (err.decode(errors="replace").strip().splitlines() or ["failed"])[-1]
    res["stdout"] = out.decode(errors="replace").strip().splitlines()[-1:] if out else []
    return res


def _gpulens(path: Path, out: Path, env: dict, *flags: str) -> dict:
    cmd = [sys.executable, "-c", "import sys; from gpulens.cli import main; sys.exit(main())", "analyze", str(path),
           "-q", "--json", str(out / "r.json"), *flags]
    return run_process(cmd, env, ok_codes=(0, 1))  # 1: a finding crossed a regression threshold, not a failure


def median_run(runs: list[dict]) -> dict:
    """One figure per measure from repeated runs of one command: the median wall time, CPU time and peak RSS, each
    taken on its own (a single run swings by a third on a shared 2-core VM, e.g. right after HTA's 7 GB process
    ended); ``runs`` keeps every run. A failed run makes the whole measurement that run (its error is reported)."""
    import statistics

    bad = [r for r in runs if "error" in r]
    if bad:
        return bad[0]
    m = {k: round(statistics.median(r[k] for r in runs), 3) for k in ("wall_s", "cpu_s", "peak_rss_mb")}
    m["rc"] = runs[0]["rc"]
    m["runs"] = [{k: r[k] for k in ("wall_s", "cpu_s", "peak_rss_mb")} for r in runs]
    return m


def measure_one(trace: Path, workdir: Path, skip_hta: bool, hta_python: str | None, repeat: int = 3) -> dict:
    """Every measurement of one trace (see module docstring); the two ``--no-cache`` commands are run ``repeat``
    times as back-to-back pairs and reported as medians (:func:`median_run`)."""
    out = workdir / "out"  # outside the trace's folder: HTA reads every file of that folder
    out.mkdir(parents=True, exist_ok=True)
    cache = workdir / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    env = {**os.environ, "GPULENS_CACHE_DIR": str(cache)}
    res: dict = {"file_mb": round(trace.stat().st_size / 2**20, 1)}
    if not skip_hta:  # one HTA process: its load call and its two breakdowns are timed separately inside it
        r = run_process([_hta_python(hta_python), str(HERE / "_measure.py"), "hta", str(trace.parent),
                         "--breakdowns"], env)
        if r.get("stdout"):
            try:
                r["call"] = json.loads(r["stdout"][-1])
            except ValueError:
                r["error"] = "no measurement printed"
        res["hta"] = r
    html_md = ["--html", str(out / "r.html"), "--markdown", str(out / "r.md")]
    runs: dict[str, list[dict]] = {"gl_json": [], "gl_all": []}
    for _ in range(max(1, repeat)):  # back-to-back pairs: both sides of a pair share the machine's state
        runs["gl_json"].append(_gpulens(trace, out, env, "--no-cache"))
        runs["gl_all"].append(_gpulens(trace, out, env, "--no-cache", *html_md))
    for key, rs in runs.items():
        res[key] = median_run(rs)
    # one cache-writing run of the full command (Timeline, analysis results and the rendered reports); the two
    # re-runs then measure what a user re-running the same command on the unchanged trace waits for
    _gpulens(trace, out, env, *html_md)
    res["gl_cached"] = _gpulens(trace, out, env)
    res["gl_cached_all"] = _gpulens(trace, out, env, *html_md)
    shutil.rmtree(cache, ignore_errors=True)
    return res


def measure_ranks(workdir: Path, ranks: int, kernels: int, pairs: int = 5) -> dict:
    """A directory of ``ranks`` rank files: ``gpulens analyze DIR --no-cache --json`` with 1 and with 2 workers,
    ``pairs`` times, each pair run back to back (1 worker, then 2) so both sides of a pair share the machine's state.

    Returns ``pairs`` (every run), ``speedups`` (1-worker wall ÷ 2-worker wall of each pair), ``speedup_median``
    (their median: the figure reported; one pair swings 1.3–2.0× on a shared 2-core VM) and ``workers1`` /
    ``workers2`` (the run of median wall time on each side, for the tables)."""
    import statistics

    import gen_kineto

    d = workdir / f"ranks{ranks}x{kernels}"
    if not (d / "rank-0.pt.trace.json").exists():
        print(f"generating {d} ({ranks} × {kernels} kernels) …", flush=True)
        gen_kineto.generate(d, kernels, ranks=ranks)
    out = workdir / "out"
    out.mkdir(exist_ok=True)
    env = {**os.environ, "GPULENS_CACHE_DIR": str(workdir / "cache")}
    res: dict = {"ranks": ranks, "kernels_per_rank": kernels,
                 "dir_mb": round(sum(f.stat().st_size for f in d.iterdir()) / 2**20, 1), "pairs": []}
    for _ in range(max(1, pairs)):
        res["pairs"].append({f"workers{w}": _gpulens(d, out, env, "--no-cache", "--workers", str(w)) for w in (1, 2)})
    ok = [p for p in res["pairs"] if "error" not in p["workers1"] and "error" not in p["workers2"]]
    if ok:
        res["speedups"] = [round(p["workers1"]["wall_s"] / p["workers2"]["wall_s"], 3) for p in ok]
        res["speedup_median"] = round(statistics.median(res["speedups"]), 3)
        for w in (1, 2):
            runs = sorted((p[f"workers{w}"] for p in ok), key=lambda m: m["wall_s"])
            res[f"workers{w}"] = runs[(len(runs) - 1) // 2]
    else:
        res["workers1"], res["workers2"] = res["pairs"][0]["workers1"], res["pairs"][0]["workers2"]
    return res


ROWS = [("hta", "HTA: TraceAnalysis + temporal & kernel breakdowns, whole process"),
        ("gl_json", "gpulens analyze --no-cache --json"),
        ("gl_all", "gpulens analyze --no-cache --json --html --markdown"),
        ("gl_cached", "gpulens analyze --json, cache hit"),
        ("gl_cached_all", "gpulens analyze --json --html --markdown, cache hit")]


def ratios(r: dict) -> dict:
    """HTA ÷ gpulens ratios and the report-writing overhead of one N."""
    out = {}
    g, h = r.get("gl_json"), r.get("hta")
    ok = lambda m: m and "error" not in m  # noqa: E731
    if ok(g) and ok(h) and "call" in h:
        c = h["call"]
        out["HTA load call / gpulens analyze --json"] = {k: round(c[f"load_{k}"] / g[k], 2)
                                                         for k in ("wall_s", "cpu_s")}
        out["HTA load call / gpulens analyze --json"]["peak_rss_mb"] = round(c["load_peak_rss_mb"] /
                                                                             g["peak_rss_mb"], 2)
        out["HTA load + breakdowns (calls) / gpulens"] = {k: round(c[k] / g[k], 2) for k in ("wall_s", "cpu_s")}
        out["HTA whole process / gpulens whole process"] = {k: round(h[k] / g[k], 2)
                                                           for k in ("wall_s", "cpu_s", "peak_rss_mb")}
    a = r.get("gl_all")
    if ok(g) and ok(a):
        out["--html --markdown / --json alone"] = {k: round(a[k] / g[k], 3) for k in ("wall_s", "cpu_s")}
    return out


def _print(n: int, r: dict) -> None:
    print(f"\n{n:,} kernels, {r['file_mb']} MiB of JSON")
    print(f"{'':58}{'wall s':>9}{'cpu s':>9}{'peak MiB':>10}")
    for key, label in ROWS:
        m = r.get(key)
        if not m:
            continue
        if "error" in m:
            print(f"{label:58}error: {m['error']}")
            continue
        print(f"{label:58}{m['wall_s']:>9.2f}{m['cpu_s']:>9.2f}{m['peak_rss_mb']:>10.0f}")
        if "call" in m:
            c = m["call"]
            print(f"{'  HTA TraceAnalysis() call alone (imports excluded)':58}{c['load_wall_s']:>9.2f}"
                  f"{c['load_cpu_s']:>9.2f}{c['load_peak_rss_mb']:>10.0f}")
            print(f"{'  HTA load + breakdowns calls (imports excluded)':58}{c['wall_s']:>9.2f}{c['cpu_s']:>9.2f}"
                  f"{c['peak_rss_mb']:>10.0f}")
    for k, v in r.get("ratios", {}).items():
        print(f"ratio {k}: " + ", ".join(f"{a} {b}×" for a, b in v.items()))


def exponent(rows: dict[int, dict], key: str = "gl_json", what: str = "cpu_s") -> float | None:
    """Least-squares slope of log(cost) over log(N): 1.0 = linear."""
    pts = [(math.log(n), math.log(r[key][what])) for n, r in rows.items() if key in r and "error" not in r[key]]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    return round(sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts), 3)


def markdown(doc: dict) -> str:
    """The tables of RESULTS.md from a results document."""
    lines = ["| kernels | file MiB | measurement | wall s | CPU s | peak RSS MiB |", "|---|---|---|---|---|---|"]
    for n, r in doc["traces"].items():
        first = True
        for key, label in ROWS:
            m = r.get(key)
            if not m or "error" in m:
                continue
            lines.append(f"| {int(n):,} | {r['file_mb'] if first else ''} | {label} | {m['wall_s']:.2f} | "
                         f"{m['cpu_s']:.2f} | {m['peak_rss_mb']:,.0f} |")
            if "call" in m:
                c = m["call"]
                lines.append(f"| | | … HTA `TraceAnalysis()` call alone (imports excluded) | {c['load_wall_s']:.2f} | "
                             f"{c['load_cpu_s']:.2f} | {c['load_peak_rss_mb']:,.0f} |")
                lines.append(f"| | | … HTA load + breakdown calls (imports excluded) | {c['wall_s']:.2f} | "
                             f"{c['cpu_s']:.2f} | {c['peak_rss_mb']:,.0f} |")
            first = False
    lines += ["", "| kernels | ratio | wall | CPU | peak RSS |", "|---|---|---|---|---|"]
    for n, r in doc["traces"].items():
        for k, v in r.get("ratios", {}).items():
            lines.append(f"| {int(n):,} | {k} | {v.get('wall_s', '')}× | {v.get('cpu_s', '')}× | "
                         f"{str(v['peak_rss_mb']) + '×' if 'peak_rss_mb' in v else ''} |")
    for n, r in doc["traces"].items():
        for key in ("gl_json", "gl_all"):
            rs = (r.get(key) or {}).get("runs") or []
            if len(rs) > 1:
                label = dict(ROWS)[key]
                lines += ["", f"{int(n):,} kernels, {label}: the median of {len(rs)} back-to-back runs (wall / CPU s: "
                              + ", ".join(f"{x['wall_s']:.2f} / {x['cpu_s']:.2f}" for x in rs) + ")."]
    if doc.get("exponent") is not None:
        lines += ["", f"Growth exponent of `gpulens analyze --no-cache --json` CPU time over N: "
                      f"**{doc['exponent']}** (1.0 = linear)."]
    if doc.get("machine", {}).get("bytecode"):
        lines += ["", f"Bytecode: {doc['machine']['bytecode']}."]
    if doc.get("machine", {}).get("scanner_warmup"):
        w = doc["machine"]["scanner_warmup"]
        lines += ["", f"Compiled Kineto scanner ready before measuring: one run on a 20,000-kernel trace with "
                      f"`GPULENS_KINETO_FAST=1` took {w['cpu_s']} s CPU, {w['peak_rss_mb']} MiB peak (when far above a "
                      f"plain run it includes the one-time build of the scanner's shared library: a user pays it once, "
                      f"on their first large trace)."]
    rk = doc.get("ranks")
    if rk:
        lines += ["", _ranks_line(rk)]
    return "\n".join(lines) + "\n"


def _ranks_line(rk: dict) -> str:
    """One sentence on the rank-directory measurement: the median runs, every pair's speed-up and their median."""
    w1, w2 = rk["workers1"], rk["workers2"]
    line = (f"{rk['ranks']} rank files × {rk['kernels_per_rank']:,} kernels ({rk['dir_mb']} MiB): 1 worker "
            f"{w1['wall_s']:.2f} s wall / {w1['cpu_s']:.2f} s CPU; 2 workers {w2['wall_s']:.2f} s wall / "
            f"{w2['cpu_s']:.2f} s CPU (CPU of all processes; the median run of each side)")
    if rk.get("speedups"):
        line += (f" — speed-up **{rk['speedup_median']:.2f}×**, the median of {len(rk['speedups'])} back-to-back "
                 f"pairs ({', '.join(f'{x:.2f}' for x in rk['speedups'])}).")
    else:
        line += f" — speed-up **{w1['wall_s'] / w2['wall_s']:.2f}×**."
    return line


def compile_gpulens() -> str:
    """Write gpulens's bytecode (``__pycache__``) before measuring, as ``pip install`` of a wheel does: an editable
    install under ``PYTHONDONTWRITEBYTECODE=1`` would otherwise recompile every gpulens module in every measured
    process (~0.3 s before the work starts), a cost installed users do not pay. HTA's and the libraries' bytecode
    comes with their wheels. Returns what was done, for the results."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("gpulens")
    if spec is None or not spec.submodule_search_locations:
        return "gpulens not importable here: bytecode not prepared"
    pkg = list(spec.submodule_search_locations)[0]
    ok = compileall.compile_dir(pkg, quiet=1)
    return f"gpulens bytecode compiled before measuring ({pkg}){'' if ok else ': some modules failed to compile'}"


def warm_scanner(workdir: Path) -> dict:
    """Run the Kineto byte scanner once (``GPULENS_KINETO_FAST=1`` on a small generated trace) before measuring, so
    that its compiled shared library (``collectors/__pycache__/kineto_scan-*.so``, built on first use by numba +
    llvmlite + cc) exists, as it does for a user from their second large trace on. Returns that run's figures: its
    CPU time includes the one-time build when the library was missing (≈ 15–20 s on 2 cores), else it is a plain
    20,000-kernel run."""
    import gen_kineto

    trace = workdir / "warm20k" / "rank0.pt.trace.json"
    if not trace.exists():  # several 8 MiB pieces: the last piece of a file is always decoded by msgspec
        gen_kineto.generate(trace, 20000)
    env = {**os.environ, "GPULENS_KINETO_FAST": "1", "GPULENS_CACHE_DIR": str(workdir / "warm-cache")}
    r = _gpulens(trace, trace.parent, env, "--no-cache")
    r.pop("stdout", None)
    return r


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--with-5m", action="store_true", help="also 5M kernels (gpulens only)")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "gpulens-bench")
    ap.add_argument("--skip-hta", action="store_true", help="measure gpulens only")
    ap.add_argument("--hta-python", help="python of an environment where holistictraceanalysis is installed")
    ap.add_argument("--ranks", type=int, default=0, help="also a directory of this many rank files (1 vs 2 workers)")
    ap.add_argument("--rank-kernels", type=int, default=50_000)
    ap.add_argument("--rank-pairs", type=int, default=5,
                    help="back-to-back 1-worker/2-worker pairs on the rank directory; the median speed-up is reported")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each --no-cache gpulens command (back-to-back pairs); medians are reported")
    ap.add_argument("--json", type=Path, help="write every figure here")
    ap.add_argument("--markdown", type=Path, help="write the result tables (Markdown) here")
    a = ap.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import gen_kineto

    a.workdir.mkdir(parents=True, exist_ok=True)
    ns = list(a.kernels) + ([5_000_000] if a.with_5m else [])
    load = os.getloadavg()
    doc: dict = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": sys.version.split()[0],
                             "loadavg_at_start": [round(x, 2) for x in load]},
                 "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "traces": {}}
    print(f"load average at start: {load[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    doc["machine"]["bytecode"] = compile_gpulens()
    doc["machine"]["scanner_warmup"] = warm_scanner(a.workdir)
    print(f"Kineto scanner warm-up run: {doc['machine']['scanner_warmup']['cpu_s']} s CPU", flush=True)
    for n in ns:
        trace = a.workdir / f"k{n}" / "rank0.pt.trace.json"
        if not trace.exists():
            print(f"generating {trace} ({n:,} kernels) …", flush=True)
            gen_kineto.generate(trace, n)
        r = measure_one(trace, a.workdir / f"k{n}-work", a.skip_hta or n > 1_000_000, a.hta_python,
                        1 if n > 1_000_000 else a.repeat)
        r["ratios"] = ratios(r)
        doc["traces"][str(n)] = r
        _print(n, r)
    doc["exponent"] = exponent({int(n): r for n, r in doc["traces"].items()})
    print(f"\ngrowth exponent (CPU, gpulens analyze --no-cache --json): {doc['exponent']}")
    if a.ranks:
        doc["ranks"] = measure_ranks(a.workdir, a.ranks, a.rank_kernels, a.rank_pairs)
        print(_ranks_line(doc["ranks"]))
    doc["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    if a.json:
        a.json.write_text(json.dumps(doc, indent=1))
    if a.markdown:
        a.markdown.write_text(markdown(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main())
