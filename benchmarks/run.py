"""Benchmark: load the same synthetic Kineto trace with gpulens and with Holistic Trace Analysis (HTA).

    python benchmarks/run.py                       # N = 100k and 1M kernels, CUDA dialect
    python benchmarks/run.py --kernels 100000 --skip-hta

For each N it generates ``WORKDIR/kN/rank0.pt.trace.json`` (once; :mod:`gen_kineto`), then measures, each in a fresh
process (:mod:`_measure`): HTA's ``TraceAnalysis(trace_dir)`` (in its own virtual environment, created on first use
with ``pip install holistictraceanalysis`` — a benchmark-only dependency, never one of gpulens), gpulens without the
cache, gpulens' first load writing the cache, and gpulens' cached re-open. It prints wall time, CPU time and peak RSS
of each, and HTA ÷ gpulens ratios. Wall times on a loaded machine vary; CPU times vary less.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _hta_python(workdir: Path, given: str | None) -> str:
    if given:
        return given
    venv = HERE / ".venv-hta"
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"creating {venv} with holistictraceanalysis (once) …", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(py), "-m", "pip", "install", "-q", "holistictraceanalysis"], check=True)
    return str(py)


def _measure(python: str, tool: str, path: Path, env: dict[str, str], extra: list[str] = ()) -> dict:
    out = subprocess.run([python, str(HERE / "_measure.py"), tool, str(path), *extra], env=env, cwd=tempfile.gettempdir(),
                         capture_output=True, text=True)
    if out.returncode != 0:
        return {"tool": tool, "error": (out.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(kernels: list[int], workdir: Path, dialect: str, skip_hta: bool, hta_python: str | None) -> list[dict]:
    """Generate, measure and print; return one dict per N."""
    sys.path.insert(0, str(HERE))
    import gen_kineto

    rows = []
    for n in kernels:
        d = workdir / f"k{n}-{dialect}"
        trace = d / "rank0.pt.trace.json"
        if not trace.exists():
            print(f"generating {trace} ({n} kernels) …", flush=True)
            gen_kineto.generate(trace, n, dialect=dialect)
        size_mb = trace.stat().st_size / 2**20
        cache = workdir / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        env = {**os.environ, "GPULENS_CACHE_DIR": str(cache)}
        res = {"kernels": n, "file_mb": round(size_mb, 1)}
        res["gpulens"] = _measure(sys.executable, "gpulens", trace, env, ["--no-cache"])
        res["gpulens_first_cached"] = _measure(sys.executable, "gpulens", trace, env)
        res["gpulens_reopen"] = _measure(sys.executable, "gpulens", trace, env)
        if not skip_hta:
            res["hta"] = _measure(_hta_python(workdir, hta_python), "hta", d, env)
        rows.append(res)
        _print(res)
    return rows


def _print(r: dict) -> None:
    print(f"\n{r['kernels']:,} kernels, {r['file_mb']} MiB of JSON")
    print(f"{'':24}{'wall s':>10}{'cpu s':>10}{'peak RSS MiB':>14}{'rows':>12}")
    for key in ("hta", "gpulens", "gpulens_first_cached", "gpulens_reopen"):
        m = r.get(key)
        if not m:
            continue
        if "error" in m:
            print(f"{key:24}error: {m['error']}")
            continue
        print(f"{key:24}{m['wall_s']:>10.2f}{m['cpu_s']:>10.2f}{m['peak_rss_mb']:>14.0f}{m['rows']:>12,}")
    h, g, c = r.get("hta"), r.get("gpulens"), r.get("gpulens_reopen")
    if h and g and "error" not in h and "error" not in g:
        print(f"ratio HTA / gpulens: wall {h['wall_s'] / g['wall_s']:.1f}×, cpu {h['cpu_s'] / g['cpu_s']:.1f}×, "
              f"peak memory {h['peak_rss_mb'] / g['peak_rss_mb']:.1f}×")
        if c and "error" not in c:
            print(f"ratio HTA / gpulens cached re-open: wall {h['wall_s'] / c['wall_s']:.1f}×")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--dialect", choices=("cuda", "rocm"), default="cuda")
    ap.add_argument("--workdir", type=Path, default=Path(tempfile.gettempdir()) / "gpulens-bench")
    ap.add_argument("--skip-hta", action="store_true", help="measure gpulens only")
    ap.add_argument("--hta-python", help="python of an environment where holistictraceanalysis is installed")
    ap.add_argument("--json", type=Path, help="also write the results here")
    a = ap.parse_args(argv)
    a.workdir.mkdir(parents=True, exist_ok=True)
    rows = run(a.kernels, a.workdir, a.dialect, a.skip_hta, a.hta_python)
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
