"""The gate's calls on variants of a real trace whose right answer is known from the change injected.

Source: ``tests/data/kineto/hpctrain_mi300x_tracelens_replay.json`` (a real MI300X Kineto trace, 10
``ProfilerStep#N`` steps, two MIOpen convolution kernels on one stream). Each "run" is a copy of it with every
timestamp and duration scaled by a run factor ``exp(σ·N(0,1))`` drawn here (σ = 1 %, the run-to-run noise), and a
kernel slowed by inserting the extra time after each of its launches (every later event moves by it, as on a
stream). Because the noise is drawn here, the right ratio of geometric means is known exactly:
``(1 + injected change) · exp(mean log f_cand − mean log f_base)``.

Kinds checked:

* a kernel 30 % slower in **one** step (a spike worth ``0.3 × that step's share`` of the kernel's time, under half
  the 5 % threshold) is PASS, in **every** step it is REGRESSED (exit 1) with the injected ratio;
* identical inputs PASS with every ratio exactly 1;
* a candidate that profiled 5 of the baseline's 10 steps is INCOMPARABLE (exit 0; 3 with ``--require-baseline``),
  never REGRESSED on its median step nor IMPROVED by 40 % on its totals (before: ``step_ns`` REGRESSED +6.2 %,
  span and kernel times "IMPROVED" −40 %, exit 1), from a report and from a stored baseline alike.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpulens.cli import main

TRACE = Path(__file__).parent / "data" / "kineto" / "hpctrain_mi300x_tracelens_replay.json"
KERNEL = "f3x2_stride1"  # miopenSp3AsmConv_v30_3_1_gfx9_fp16_dot2_edc_f3x2_stride1
RUNS, SIGMA = 6, 0.01


def _trace() -> dict:
    return json.loads(TRACE.read_text())


def _steps(d: dict) -> list[tuple[float, float, int]]:
    """Host ``ProfilerStep#N`` ranges ``(start, end, N)`` in µs, in order."""
    return sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"]), int(e["name"].split("#")[1]))
                  for e in d["traceEvents"] if e.get("cat") == "user_annotation"
                  and str(e.get("name", "")).startswith("ProfilerStep#"))


def _kernel_step(d: dict) -> dict[int, int | None]:
    """Correlation id of each kernel → the step whose host range holds its launch call (None: outside steps)."""
    launch = {e["args"]["correlation"]: float(e["ts"]) for e in d["traceEvents"]
              if e.get("cat") == "cuda_runtime" and "correlation" in (e.get("args") or {})}
    out = {}
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel":
            t = launch.get(e["args"]["correlation"])
            out[e["args"]["correlation"]] = next((n for a, b, n in _steps(d) if t is not None and a <= t <= b), None)
    return out


def _variant(d: dict, factor: float, scale: float = 1.0, steps: set[int] | None = None) -> dict:
    """``d`` with the kernel ``KERNEL`` ``scale`` times longer (in ``steps``, or all), later events moved by the
    extra time, then every time scaled by ``factor`` about the first event."""
    d = json.loads(json.dumps(d))
    step_of = _kernel_step(d)
    ends, extra = [], []
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and KERNEL in e["name"] and (steps is None or step_of[e["args"]["correlation"]]
                                                                   in steps):
            ends.append(float(e["ts"]) + float(e["dur"]) - 0.002)  # the next kernel starts at this end
            extra.append(float(e["dur"]) * (scale - 1))
    order = np.argsort(ends)
    ends_s, shift = np.asarray(ends)[order], np.cumsum(np.asarray(extra)[order])

    def moved(t: float) -> float:
        i = int(np.searchsorted(ends_s, t, side="right"))
        return t + (float(shift[i - 1]) if i else 0.0)

    timed = [e for e in d["traceEvents"] if "ts" in e]
    t0 = min(float(e["ts"]) for e in timed)
    for e in timed:
        a = moved(float(e["ts"]))
        b = moved(float(e["ts"]) + float(e.get("dur", 0) or 0))
        e["ts"] = round(t0 + (a - t0) * factor, 3)
        if "dur" in e:
            e["dur"] = round((b - a) * factor, 3)
    return d


def _report(tmp: Path, name: str, d: dict, seed: int, **kw) -> tuple[Path, np.ndarray]:
    """Analyze ``RUNS`` variants (run factors from ``seed``) into one report; returns it and the factors."""
    factors = np.exp(SIGMA * np.random.default_rng(seed).standard_normal(RUNS))
    paths = []
    for i, f in enumerate(factors):
        p = tmp / f"{name}{i}.pt.trace.json"
        p.write_text(json.dumps(_variant(d, float(f), **kw)))
        paths.append(str(p))
    out = tmp / f"{name}.report.json"
    assert main(["analyze", "-q", *paths, "--json", str(out)]) == 0
    return out, factors


def _gate(base, cand, out: Path, *extra: str) -> tuple[int, dict]:
    code = main(["gate", "-q", "--baseline", str(base), str(cand), "--json", str(out), *extra])
    return code, json.loads(out.read_text())


def _row(res: dict, sub: str) -> dict:
    return next(m for m in res["metrics"] if sub in m["metric"])


def _geo(f: np.ndarray) -> float:
    return float(np.exp(np.mean(np.log(f))))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("s47gate")
    d = _trace()
    base, fb = _report(tmp, "base", d, seed=1)
    return tmp, d, base, fb


def test_spike_in_one_step_passes_every_step_regresses(runs):
    tmp, d, base, fb = runs
    # the kernel's time per step, from the trace: the spike goes in the step with the largest share whose 30 %
    # slowdown stays under half the 5 % threshold (what the gate reads as noise-sized, never a regression)
    step_of, per_step, total = _kernel_step(d), {}, 0.0
    for e in d["traceEvents"]:
        if e.get("cat") == "kernel" and KERNEL in e["name"]:
            s = step_of[e["args"]["correlation"]]
            per_step[s] = per_step.get(s, 0.0) + float(e["dur"])
            total += float(e["dur"])
    step, share = max(((s, t / total) for s, t in per_step.items() if s is not None and 0.3 * t / total < 0.025),
                      key=lambda x: x[1])
    spike, fs = _report(tmp, "spike", d, seed=2, scale=1.3, steps={step})
    code, res = _gate(base, spike, tmp / "spike.gate.json")
    assert (code, res["verdict"]) == (0, "PASS"), res["reason"]
    assert _row(res, KERNEL)["ratio"] == pytest.approx((1 + 0.3 * share) * _geo(fs) / _geo(fb), rel=2e-3)

    every, fe = _report(tmp, "every", d, seed=2, scale=1.3)
    code, res = _gate(base, every, tmp / "every.gate.json")
    assert (code, res["verdict"]) == (1, "REGRESSED")
    row = _row(res, KERNEL)
    assert row["verdict"] == "REGRESSED" and row["gating"]
    assert row["ratio"] == pytest.approx(1.3 * _geo(fe) / _geo(fb), rel=2e-3)
    assert KERNEL in res["reason"]

    # identical inputs: PASS with no change at all, never "regressed 0 %"
    code, res = _gate(base, base, tmp / "same.gate.json")
    assert (code, res["verdict"]) == (0, "PASS")
    for m in res["metrics"]:  # a count of 0 on both sides has no ratio (0/0): said unchanged, not a figure
        assert m["ratio"] == 1.0 or (m["ratio"] is None and m["base_median"] == m["cand_median"] == 0), m
    assert "regress" not in res["reason"].lower()


def test_fewer_profiled_steps_is_incomparable(runs, capsys):
    tmp, d, base, _ = runs
    steps = _steps(d)
    keep, cut = steps[:5], steps[5][0]  # the first 5 steps: host events from the 6th step on and their GPU work go
    lost = {e["args"]["correlation"] for e in d["traceEvents"]
            if e.get("cat") == "cuda_runtime" and float(e["ts"]) >= cut and "correlation" in (e.get("args") or {})}
    short = dict(d, traceEvents=[e for e in d["traceEvents"] if not (
        (e.get("cat") in ("kernel", "gpu_user_annotation") and (e.get("args") or {}).get("correlation") in lost)
        or (e.get("cat") == "gpu_user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#")
            and int(e["name"].split("#")[1]) > keep[-1][2])
        or (e.get("ph") == "X" and e.get("cat") not in ("kernel", "gpu_user_annotation") and float(e["ts"]) >= cut))])
    assert len(_steps(short)) == 5 and len(steps) == 10
    cand, _ = _report(tmp, "short", short, seed=2)
    code, res = _gate(base, cand, tmp / "short.gate.json")
    assert (code, res["verdict"]) == (0, "INCOMPARABLE")
    assert "the baseline's 10 per run, the candidate's 5" in res["reason"]
    assert res["counts"].get("REGRESSED", 0) == 0 and res["counts"].get("IMPROVED", 0) == 0
    assert _gate(base, cand, tmp / "short2.gate.json", "--require-baseline")[0] == 3
    # asked for, it compares and says so in a note
    code, res = _gate(base, cand, tmp / "short3.gate.json", "--allow-other-workload")
    assert res["verdict"] != "INCOMPARABLE"
    assert any(n.startswith("allowed: the runs profiled different numbers of steps") for n in res["notes"])
    # a stored baseline records the steps its runs profiled, and refuses the same way
    store = tmp / "store"
    assert main(["baseline", "save", "--store", str(store), "--name", "main", str(base)]) == 0
    saved = json.loads(next(store.rglob("main.json")).read_text())
    assert saved["environment"]["steps"] == [10]
    capsys.readouterr()
    code = main(["gate", "-q", "--store", str(store), "--baseline", "main", str(cand)])
    assert code == 0
    assert main(["gate", "-q", "--store", str(store), "--baseline", "main", str(cand), "--require-baseline"]) == 3
    # one short run among full ones: the sides share the count 10 (compared), and the note names the odd run
    mixed = tmp / "mixed.report.json"
    assert main(["analyze", "-q", *(str(tmp / f"base{i}.pt.trace.json") for i in range(1, RUNS)),
                 str(tmp / "short0.pt.trace.json"), "--json", str(mixed)]) == 0
    code, res = _gate(base, mixed, tmp / "mixed.gate.json")
    assert res["verdict"] != "INCOMPARABLE"
    note = next(n for n in res["notes"] if n.startswith("candidate: "))
    assert f"1 of the {RUNS} runs profiled another number of steps than the others' 10: " in note
    assert "short0.pt.trace.json (5)" in note
    # `gpulens diff` says the same first, for traces and reports alike; two runs of 10 steps: nothing said
    for b, c, want in ((tmp / "base0.pt.trace.json", tmp / "short0.pt.trace.json", True), (base, cand, True),
                       (tmp / "base0.pt.trace.json", tmp / "base1.pt.trace.json", False)):
        js = tmp / "steps.diff.json"
        assert main(["diff", str(b), str(c), "--json", str(js), "--force"]) == 0
        warnings = json.loads(js.read_text())["warnings"]
        said = [w for w in warnings if w.startswith("the runs profiled different numbers of steps")]
        assert bool(said) == want, (b, c, warnings)
        assert not want or warnings[0] == said[0] and "the base's 10 per run, the candidate's 5" in said[0]


def test_steps_differ_rule():
    from gpulens.gate.workload import steps_differ

    # disjoint per-run step counts: not one measurement
    assert "the baseline's 10 per run, the candidate's 5" in steps_differ({"steps": [10]}, {"steps": [5]})
    assert "the baseline's 9 or 10 per run" in steps_differ({"steps": [9, 10]}, {"steps": [4]})
    # a count in common (one run with a step cut) or no steps recorded on one side (an older baseline, an nsys
    # export): nothing to hold against the runs
    assert steps_differ({"steps": [9, 10]}, {"steps": [10]}) == ""
    assert steps_differ({}, {"steps": [5]}) == "" and steps_differ({"steps": []}, {"steps": [5]}) == ""
    assert steps_differ({"steps": 10}, {"steps": [5]}) == ""  # a hand-edited non-list is not read as counts


def test_gzipped_baseline_file_reads_as_the_baseline(runs, capsys):
    import gzip

    tmp, _, base, _ = runs
    plain = tmp / "saved.json"
    assert main(["baseline", "save", "--name", str(plain), str(base)]) == 0
    gz = tmp / "saved.json.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))  # a CI artifact kept compressed
    capsys.readouterr()
    code_p, res_p = _gate(plain, base, tmp / "plain.gate.json")
    code_g, res_g = _gate(gz, base, tmp / "gz.gate.json")
    # before: "saved.json.gz: is a gpulens baseline, not a report (pass it to --baseline)", exit 2, although it was
    assert (code_g, res_g["verdict"]) == (code_p, res_p["verdict"]) == (0, "PASS")
    assert [(m["metric"], m["ratio"]) for m in res_g["metrics"]] == [(m["metric"], m["ratio"]) for m in res_p["metrics"]]
    assert res_g["baseline"]["runs"] == res_p["baseline"]["runs"] == 6
    assert "not a report" not in capsys.readouterr().err


def test_diff_of_identical_runs_has_no_parts_of_a_change(runs, tmp_path):
    """Σ|Δ| = 0 between a run and itself: a row's part of the change is 0/0 — null in the JSON, "—" in the tables —
    never "+0.0 %" of a change that did not happen (before: every row "+0.0 %" of Σ|Δ|)."""
    tmp, _, _, _ = runs
    run = tmp / "base0.pt.trace.json"
    js, md = tmp_path / "d.json", tmp_path / "d.md"
    assert main(["diff", str(run), str(run), "--json", str(js), "--markdown", str(md)]) == 0
    res = json.loads(js.read_text())
    assert res["summary"]["gross_delta_ns"] == 0 and res["summary"]["delta_ns"] == 0
    for name, rows in res["tables"].items():
        assert rows and all(r["delta_ns"] == 0 and r["contribution"] is None for r in rows), name
    text = md.read_text()
    assert "+0.0 %" not in text.split("### Top contributors", 1)[1].split("### Per kernel", 1)[0]
    assert "| — |" in text


def test_added_rank_is_incomparable_for_its_rank_count_only(tmp_path):
    """A candidate folder with a second rank (each rank profiled the same 2 steps, 551 and 552): INCOMPARABLE for the
    rank count; the steps are counted per rank (2 and 2), not summed over ranks (2 against 4)."""
    import shutil

    src = Path(__file__).parent / "data" / "kineto" / "multirank"
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir(), two.mkdir()
    shutil.copy(src / "sampled_rank-0.json.gz", one)
    for f in ("sampled_rank-0.json.gz", "sampled_rank-1.json.gz"):
        shutil.copy(src / f, two)
    code, res = _gate(one, two, tmp_path / "g.json")
    assert (code, res["verdict"]) == (0, "INCOMPARABLE")
    # its two ranks ran kernels on two GPUs (GPUs with GPU work, session 48), the baseline's one rank on one
    assert res["mismatches"] == ["GPU count: baseline 1, candidate 2", "rank count: baseline 1, candidate 2"]
    assert res["baseline"]["environment"]["steps"] == res["candidate"]["environment"]["steps"] == [2]


def test_baseline_ref_that_is_no_name_is_never_a_store_lookup(runs, tmp_path):
    """``--baseline 'ma*'`` was globbed in the store (``*/ma*.json``) and gated against 'main' without a word; a
    missing ``dir/base.json.gz`` was reported as a missing store name with a save hint that cannot make it. Neither
    is a name ``baseline save --name`` accepts: NO_BASELINE, said as the missing file, exit 3 when required."""
    _, _, base, _ = runs
    store = tmp_path / "store"
    assert main(["baseline", "save", "--store", str(store), "--name", "main", str(base)]) == 0
    for ref in ("ma*", str(tmp_path / "ci" / "base.json.gz")):
        code, res = _gate(ref, base, tmp_path / "g.json", "--store", str(store))
        assert (code, res["verdict"]) == (0, "NO_BASELINE"), ref
        assert res["reason"] == f"no baseline file {ref} (no such file)"
        assert _gate(ref, base, tmp_path / "g.json", "--store", str(store), "--require-baseline")[0] == 3
    code, res = _gate("main", base, tmp_path / "g.json", "--store", str(store))  # the name itself still resolves
    assert (code, res["verdict"]) == (0, "PASS") and res["baseline"]["name"] == "main"
