"""Seeded fuzzing of every ``gpulens`` command line: ``python tests/fuzz_cli.py --seed S --count N --workdir DIR``.

Each input is one command run in-process through :func:`gpulens.cli.main` under an alarm: ``analyze`` with a random
set of reports (JSON, Markdown, HTML, CSV, Parquet, Perfetto) and random ``--steps/--window/--ranks/--top/--format/
--device-spec`` values, ``analyze --join``, ``diff`` of traces and of (mutated) JSON reports, ``gate`` against a
(mutated) baseline / report / config, ``baseline save/list`` with odd names and stores, ``cache info/clear`` with an
odd cache folder, ``devices`` with odd names, and ``profile`` argument errors (nothing is ever executed: the script
does not exist or an option is invalid). Inputs are mutated with tests/fuzzing.py and tests/fuzz_more.py.

An outcome is a finding when the exit code is not a documented one (70 = internal error included), stderr shows a
traceback, an exit 2 prints more than one line, or the JSON report shows an impossible figure. Totals are printed as
one JSON line.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_more import impossible_figures, mutate_json_typed  # noqa: E402

ALLOWED = {"analyze": {0, 2, 5}, "diff": {0, 2}, "gate": {0, 1, 2, 3, 4}, "baseline": {0, 2, 4}, "cache": {0, 2},
           "devices": {0, 2}, "profile": {2, 4}}
ODD = ["", "-1", "0", "1:", ":", "3:1", "a:b", "1e9", "nan", "-5:-1", "99999999999999999999", "0-", "1,,2", "7-3",
       "1.5", "1500us", "12ms:1s", "-1ms:2ms", "inf", "\x00", "é", " ", "0:0", "2s:1s", "1" * 40]


def _run(args: list[str]) -> tuple[int, str]:
    from gpulens.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(args)
    return code, err.getvalue()


def _mutant(rng: random.Random, seeds: dict[str, Path], work: Path, i: int) -> Path:
    if rng.random() < 0.35:  # the sixth session's whole-column / structural mutations (tests/fuzz_fresh.py)
        from tests import fuzz_fresh

        sub = work / f"fresh{i}"
        sub.mkdir(exist_ok=True)
        return fuzz_fresh.make_input(rng, seeds, sub, i)[0]
    return fuzzing.make_input(rng, seeds, work, i, extended=rng.random() < 0.6)


def _report(rng: random.Random, seeds, work: Path, i: int, mutate: bool) -> Path:
    """A JSON report of a clean case input, maybe mutated (type swaps)."""
    src = seeds[rng.choice(sorted(k for k in seeds if k.startswith(("kineto", "case_B1", "nsys", "case_T0"))))]
    out = work / f"rep{i}_{rng.randrange(1000)}.json"
    _run(["analyze", str(src), "-q", "--no-cache", "--json", str(out)])
    if mutate and out.exists():
        data = mutate_json_typed(rng, out.read_bytes())
        if data is not None:
            out.write_bytes(data)
    return out


def build_command(rng: random.Random, seeds, work: Path, i: int) -> tuple[str, list[str], Path | None]:
    """(command name, argv, JSON report path to check or None)."""
    cmd = rng.choice(["analyze"] * 5 + ["diff"] * 2 + ["gate"] * 2 + ["baseline", "cache", "devices", "profile"])
    if cmd == "analyze":
        paths = [str(_mutant(rng, seeds, work, i))]
        args = ["analyze", "-q", "--no-cache"]
        if rng.random() < 0.15:
            args.append("--join")
            paths.append(str(_mutant(rng, seeds, work, i + 1_000_000)))
        out = work / "out.json"
        args += ["--json", str(out)]
        for opt, p in (("--markdown", "o.md"), ("--html", "o.html"), ("--csv", "csv"), ("--parquet", "pq"),
                       ("--perfetto", "o.perfetto.json")):
            if rng.random() < 0.3:
                args += [opt, str(work / p)]
        for opt in ("--steps", "--window", "--ranks"):
            if rng.random() < 0.12:
                args += [opt, rng.choice(ODD)]
        if rng.random() < 0.1:
            args += ["--top", rng.choice(["0", "-3", "1", "100000", "x"])]
        if rng.random() < 0.08:
            args += ["--format", rng.choice(["kineto", "nsys_sqlite", "ncu_csv", "rocpd", "rocprof_v1", "omniperf",
                                             "rocprofv3_csv", "bogus", ""])]
        if rng.random() < 0.08:
            spec = work / rng.choice(["spec.json", "spec.toml"])
            base = {"name": "X", "peak_flops": {"fp32": rng.choice([1e12, -1, 0, "x", None, 1e308])},
                    "hbm_bandwidth": rng.choice([3e12, 0, -5, "fast", None]), "sm_count": rng.choice([132, 0, -1])}
            text = json.dumps(base) if spec.suffix == ".json" else rng.choice(['name = "X"\npeak = "', "[x\n", ""])
            spec.write_text(text)
            args += ["--device-spec", str(spec)]
        if rng.random() < 0.25:
            args.append("--lenient")
        return cmd, args + paths, out
    if cmd == "diff":
        a = _report(rng, seeds, work, i, rng.random() < 0.5) if rng.random() < 0.4 else _mutant(rng, seeds, work, i)
        b = _report(rng, seeds, work, i + 1, rng.random() < 0.5) if rng.random() < 0.4 else \
            _mutant(rng, seeds, work, i + 1_000_000)
        args = ["diff", str(a), str(b), "-q"]
        for opt, p in (("--json", "d.json"), ("--html", "d.html"), ("--markdown", "d.md")):
            if rng.random() < 0.4:
                args += [opt, str(work / p)]
        if rng.random() < 0.1:
            args += ["--top", rng.choice(["1", "10000", "0", "x"])]
        return cmd, args, None
    if cmd == "gate":
        store = work / "store"
        base_reports = [str(_report(rng, seeds, work, i + k, False)) for k in range(rng.choice([1, 2]))]
        _run(["baseline", "save", *base_reports, "-n", "main", "--store", str(store), "--force"])
        blfile = store / "main.json"
        if blfile.exists() and rng.random() < 0.6:
            data = mutate_json_typed(rng, blfile.read_bytes())
            if data is not None:
                blfile.write_bytes(data)
        cand = _report(rng, seeds, work, i + 7, rng.random() < 0.5) if rng.random() < 0.7 else \
            _mutant(rng, seeds, work, i)
        args = ["gate", str(cand), "-b", rng.choice(["main", str(blfile), "nope", base_reports[0]]), "--store",
                str(store), "-q"]
        for opt, p in (("--json", "g.json"), ("--markdown", "g.md"), ("--junit", "g.xml")):
            if rng.random() < 0.5:
                args += [opt, str(work / p)]
        for flag in ("--warn-only", "--require-baseline", "--fail-on-ambiguous", "--allow-cross-machine"):
            if rng.random() < 0.2:
                args.append(flag)
        if rng.random() < 0.2:
            cfg = work / "pyproject.toml"
            cfg.write_text(rng.choice(["[tool.gpulens.gate]\nthreshold = -1\n", "[tool.gpulens.gate]\nalpha = 'x'\n",
                                       "[tool.gpulens.gate\n", "[tool.gpulens.gate]\nmetrics = 5\n",
                                       "[tool.gpulens.gate]\nthreshold_pct = 1e308\nmin_runs = -3\n", "\x00"]))
            args += ["--config", str(cfg)]
        return cmd, args, None
    if cmd == "baseline":
        store = work / rng.choice(["s", "s/deep/er", "out.json"])
        if store.name == "out.json":
            store.write_text("x")
        if rng.random() < 0.3:
            return cmd, ["baseline", "list", "--store", str(store)], None
        rep = _report(rng, seeds, work, i, rng.random() < 0.5) if rng.random() < 0.7 else _mutant(rng, seeds, work, i)
        name = rng.choice(["main", "../up", "a/b", "x.json", "", "ünï", ".", "n" * 300, str(work / "abs.json")])
        return cmd, ["baseline", "save", str(rep), "-n", name, "--store", str(store)], None
    if cmd == "cache":
        os.environ["GPULENS_CACHE_DIR"] = str(work / rng.choice(["c", "c/x", "file"]))
        if (work / "file").parent.exists() and os.environ["GPULENS_CACHE_DIR"].endswith("file"):
            (work / "file").write_text("x")
        return cmd, ["cache", rng.choice(["info", "clear"])], None
    if cmd == "devices":
        return cmd, ["devices"] + ([] if rng.random() < 0.2 else [rng.choice(["H100", "MI300X", "", "x" * 500,
                                                                            "h100 sxm", "\x00", "A", "NVIDIA"])]), None
    prof = [["profile", str(work / "missing.py")], ["profile", "--steps", "-1", str(work / "m.py")],
            ["profile", "--backend", "bogus", "--", "true"], ["profile", "--telemetry", "x", str(work / "m.py")],
            ["profile", "--interval-ms", "nan", str(work / "m.py")], ["profile", "--label", "../x", str(work / "m.py")],
            ["profile", "--warmup", "-2", str(work / "m.py")], ["profile", "-o", str(work / "f.txt"), "x.py"]]
    (work / "f.txt").write_text("x")
    return cmd, rng.choice(prof), None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--timeout", type=float, default=90.0)
    ap.add_argument("--only", type=int, default=None, help="replay input I only and print its stderr")
    a = ap.parse_args(argv)
    import warnings

    warnings.simplefilter("ignore")
    os.environ.setdefault("GPULENS_CACHE_DIR", str(a.workdir / "cache"))
    cache0 = os.environ["GPULENS_CACHE_DIR"]
    seeds = fuzzing.write_seeds(a.workdir / "seeds")
    signal.signal(signal.SIGALRM, fuzzing._alarm)
    tot: dict = {"runs": 0, "by_command": {}, "codes": {}, "findings": [], "timeouts": 0}
    t0 = time.monotonic()
    fdir = a.workdir / "findings"
    fdir.mkdir(exist_ok=True)
    for i in ([a.only] if a.only is not None else range(a.count)):
        rng = random.Random(a.seed * 7_919 + i)
        work = a.workdir / "w"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir()
        os.environ["GPULENS_CACHE_DIR"] = cache0
        cmd, args, out = build_command(rng, seeds, work, i)
        (a.workdir / "current").write_text(f"{i} {args!r}")
        signal.setitimer(signal.ITIMER_REAL, a.timeout)
        what = None
        try:
            code, err = _run(args)
            if a.only is not None:
                print(args, code, err, file=sys.stderr)
            if code not in ALLOWED[cmd] or "Traceback" in err or (code == 2 and err.strip().count("\n") > 0 and
                                                                  cmd != "analyze" and "Usage" not in err):
                what = f"exit {code}: {err.strip().splitlines()[-1] if err.strip() else ''}"[:300]
            elif code == 2 and cmd == "analyze" and err.strip().count("\n") > 0 and "Usage" not in err:
                what = f"exit 2 with {err.count(chr(10))} lines: {err.strip()[:200]}"
            elif out is not None and code == 0 and out.exists():
                bad = impossible_figures(json.loads(out.read_text()))
                if bad:
                    what = "impossible figure: " + "; ".join(bad[:3])
        except fuzzing.FuzzTimeout:
            tot["timeouts"] += 1
            what, code = f"timeout > {a.timeout:g} s", -1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        tot["runs"] += 1
        tot["by_command"][cmd] = tot["by_command"].get(cmd, 0) + 1
        tot["codes"][str(code)] = tot["codes"].get(str(code), 0) + 1
        if what:
            keep = fdir / str(i)
            shutil.copytree(work, keep, dirs_exist_ok=True)
            tot["findings"].append({"i": i, "args": [x.replace(str(work), "W") for x in args], "what": what})
            with open(a.workdir / "findings.jsonl", "a") as fh:
                fh.write(json.dumps(tot["findings"][-1]) + "\n")
    tot["seconds"] = round(time.monotonic() - t0, 1)
    print(json.dumps(tot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
