"""Session-36 fuzzing: structural mutation kinds per format that no earlier fuzzer makes (tests/fuzzing.py,
fuzz_more, fuzz_fresh, fuzz_cli, fuzz_s8 … fuzz_s11, fuzz_s34, fuzz_s35), checked through ``gpulens.analyze`` with
every report and, every ``--cli-every``-th input, the ``analyze`` command with ``--json --html --markdown``
(:func:`tests.fuzz_s10.check_kind`), plus a count check per kind where the right count is known.

``python tests/fuzz_s36.py --seed S --count N --workdir DIR [--timeout 20] [--kinds a,b] [--only I]`` (run it from
a folder outside the repository, DIR under /tmp). Kinds (:data:`KINDS`):

* ``nsys_struct`` — an Nsight Systems export changed by one SQL statement of :data:`NSYS_OPS`: name ids pointing
  past ``StringIds``, kernels of negative or zero length, overlapping on their stream, on a device no
  ``TARGET_INFO_GPU`` row lists, TEXT/REAL/NULL where nsys writes INTEGER, ``StringIds`` values stored as BLOBs,
  ``TARGET_INFO_GPU`` gone, written twice or with a text id, and an event table kept behind a view of its name;
* ``rocpd_struct`` — a rocpd database changed by :data:`ROCPD_OPS`: views turned into tables (and the suffixed
  tables dropped), the views dropped, every agent row deleted, dispatches naming agents or kernel symbols that do
  not exist, a view left over a dropped table, negative kernels, text times;
* ``rpd_struct`` — a rocmProfileData trace changed by :data:`RPD_OPS`: the string table emptied, kernel names
  pointing past it, operations of negative or zero length or text times, ``rocpd_op`` behind a view, the
  convenience views dropped, the api→op links gone or written twice, overlapping operations;
* ``ncu_rep_damage`` — an ``.ncu-rep`` cut (at 8 bytes, in half, one byte short), its magic changed, 0.1 % of its
  bytes flipped, written twice back to back, a length field set to 2^28, or zeros after its header: a clear
  error, or launches no more than the intact report's with a warning when fewer;
* ``omniperf_dir`` — a rocprofiler-compute workload with ``pmc_perf.csv`` (and ``timestamps.csv``) gone,
  ``sysinfo.csv`` naming an odd or an NVIDIA GPU, zero/negative/text CU counts and clocks, two rows, a
  ``roofline.csv`` of −1 / 0 / inf peaks, or two workloads of different architectures in one folder;
* ``kineto_time`` — Kineto traces whose kernels start before their launch calls, whose times are mirrored (the
  file's order reversed in time), streams named by a string, devices beyond the device list, negative ``dur`` on
  CPU ops, odd ``displayTimeUnit``/``baseTimeNanoseconds``/``deviceProperties``/``distributedInfo``;
* ``out_special`` — ``analyze`` told to write its report to a FIFO being read (named directly or through a link,
  as ``/dev/stdout`` is), or to a path whose name is too long: the FIFO must stay a FIFO and get the report, the
  long name one error line. (``/dev/null`` and ``/dev/full`` are not tried: on a build with the fault, run as root,
  the check itself would replace the machine's devices by regular files.)
* ``case_shift`` — a Kineto case of ../shared/cases with its time base moved (keeping ``ts`` 0 placeholders at 0)
  or written as two ranks of one folder: the answer (kernels, busy, span, top kernels) must be the case's own
  (for the two ranks: counts and per-GPU sums twice the case's, the same span and top kernels).

A finding: an exception other than a one-line GpulensError naming the file, a hang past ``--timeout`` CPU s, an
impossible figure or bad text in any report, for the command an undocumented exit code, a traceback or a
multi-line exit-2 message, and the per-kind checks above.
"""

from __future__ import annotations

import contextlib
import copy
import gzip
import json
import os
import random
import shutil
import sqlite3
import stat
import sys
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests import fuzzing  # noqa: E402
from tests.fuzz_s10 import _events, _gpu, _is_json, _text_of, check_kind  # noqa: E402

KINDS = ["nsys_struct", "rocpd_struct", "rpd_struct", "ncu_rep_damage", "omniperf_dir", "kineto_time",
         "out_special", "case_shift"]
#: the cases folder: $GPULENS_CASES, else ../shared/cases beside the checkout, else tests/data/cases (a subset)
CASES = next(p for p in (Path(os.environ.get("GPULENS_CASES", HERE.parents[1] / "shared" / "cases")),
                         HERE / "data" / "cases") if p.is_dir())
_K = "CUPTI_ACTIVITY_KIND_KERNEL"
#: name → SQL applied to a copy of an nsys export (statements that fail on a seed without that table are skipped)
NSYS_OPS = {
    "fk_missing_string": f"UPDATE {_K} SET shortName = shortName + 100000, demangledName = demangledName + 100000",
    "fk_missing_runtime": "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = nameId + 100000",
    "neg_kernels": f'UPDATE {_K} SET "end" = start - 1000 WHERE rowid % 2 = 0',
    "zero_kernels": f'UPDATE {_K} SET "end" = start',
    "overlap": f'UPDATE {_K} SET "end" = "end" + 1000000',
    "device_missing": f"UPDATE {_K} SET deviceId = deviceId + 7",
    "stream_text": f"UPDATE {_K} SET streamId = 'stream ' || streamId",
    "start_text": f"UPDATE {_K} SET start = 'x' || start WHERE rowid % 3 = 0",
    "start_real": f"UPDATE {_K} SET start = start + 0.5",
    "strings_blob": "UPDATE StringIds SET value = CAST(value AS BLOB)",
    "gpu_dropped": "DROP TABLE TARGET_INFO_GPU",
    "gpu_text_id": "UPDATE TARGET_INFO_GPU SET id = 'GPU 0'",
    "gpu_twice": "INSERT INTO TARGET_INFO_GPU SELECT * FROM TARGET_INFO_GPU",
    "corr_null": f"UPDATE {_K} SET correlationId = NULL",
    "grid_odd": f"UPDATE {_K} SET gridX = -5, blockX = 0",
    "kernel_view": f"ALTER TABLE {_K} RENAME TO k_kept; CREATE VIEW {_K} AS SELECT * FROM k_kept",
    "runtime_view": "ALTER TABLE CUPTI_ACTIVITY_KIND_RUNTIME RENAME TO r_kept; "
                    "CREATE VIEW CUPTI_ACTIVITY_KIND_RUNTIME AS SELECT * FROM r_kept",
    "broken_view": "CREATE TABLE gone(a); CREATE VIEW odd_view AS SELECT a FROM gone; DROP TABLE gone",
    "start_far": f'UPDATE {_K} SET start = 9223372036854775000, "end" = 9223372036854775807 WHERE rowid = 1',
    "start_negative": f'UPDATE {_K} SET start = -5000000000, "end" = -4000000000 WHERE rowid = 1',
    "memcpy_odd": "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -100, copyKind = 99",
    "gpu_name_markup": "UPDATE TARGET_INFO_GPU SET name = '<script>x</script>' || char(10) || 'NVIDIA H100'",
}
#: ops that keep every kernel row readable: the kernels read must be the seed's
NSYS_SAME_KERNELS = {"kernel_view", "runtime_view", "broken_view", "fk_missing_string", "zero_kernels", "overlap",
                     "device_missing", "gpu_dropped", "gpu_text_id", "gpu_twice", "corr_null", "strings_blob"}
ROCPD_OPS = {
    "views_as_tables": lambda t: "; ".join(f"DROP VIEW rocpd_{n}; CREATE TABLE rocpd_{n} AS SELECT * FROM {t(n)}; "
                                           f"DROP TABLE {t(n)}" for n in ("info_agent", "kernel_dispatch", "string",
                                                                          "info_kernel_symbol")),
    "views_dropped": lambda t: "; ".join(f"DROP VIEW IF EXISTS rocpd_{n}" for n in (
        "metadata", "string", "info_node", "info_process", "info_agent", "info_queue", "info_stream",
        "info_code_object", "info_kernel_symbol", "event", "kernel_dispatch")),
    "agents_gone": lambda t: f"DELETE FROM {t('info_agent')}",
    "agent_missing": lambda t: f"UPDATE {t('kernel_dispatch')} SET agent_id = agent_id + 50",
    "symbol_missing": lambda t: f"UPDATE {t('kernel_dispatch')} SET kernel_id = kernel_id + 50",
    "view_over_nothing": lambda t: f"DROP TABLE {t('kernel_dispatch')}",
    "neg_kernels": lambda t: f'UPDATE {t("kernel_dispatch")} SET "end" = start - 10',
    "time_text": lambda t: f"UPDATE {t('kernel_dispatch')} SET start = 'abc'",
    "agent_odd": lambda t: f"UPDATE {t('info_agent')} SET type = 5, name = NULL",
}
#: ops that keep every kernel row readable: the kernels read must be the seed's
ROCPD_SAME_KERNELS = {"views_as_tables", "views_dropped", "agents_gone", "agent_missing", "symbol_missing",
                      "agent_odd"}

#: name → SQL applied to a copy of a rocmProfileData (``.rpd``) trace
RPD_OPS = {
    "strings_gone": "DELETE FROM rocpd_string",
    "names_nowhere": "UPDATE rocpd_op SET description_id = description_id + 100000",
    "ops_negative": 'UPDATE rocpd_op SET "end" = start - 5',
    "ops_zero": 'UPDATE rocpd_op SET "end" = start',
    "start_text": "UPDATE rocpd_op SET start = 'x' || start WHERE id % 4 = 0",
    "op_view": "ALTER TABLE rocpd_op RENAME TO op_kept; CREATE VIEW rocpd_op AS SELECT * FROM op_kept",
    "views_dropped": "DROP VIEW IF EXISTS api; DROP VIEW IF EXISTS op; DROP VIEW IF EXISTS kernel; "
                     "DROP VIEW IF EXISTS copy; DROP VIEW IF EXISTS copyop",
    "api_ops_gone": "DELETE FROM rocpd_api_ops",
    "api_ops_twice": "INSERT INTO rocpd_api_ops (api_id, op_id) SELECT api_id, op_id FROM rocpd_api_ops",
    "gpu_negative": "UPDATE rocpd_op SET gpuId = -1",
    "overlap": 'UPDATE rocpd_op SET "end" = "end" + 100000000',
}
#: ops that keep every kernel row readable: the kernels read must be the seed's
RPD_SAME_KERNELS = {"names_nowhere", "ops_zero", "op_view", "views_dropped", "api_ops_gone", "overlap"}


def _nsys_seeds(seeds: dict[str, Path], names: list[str]) -> list[Path]:
    out = [seeds[n] for n in names if n == "nsys_sqlite"]
    out += [p for p in (CASES / "T07.nsys.sqlite", HERE / "data" / "nvidia" / "fuser_h200_nsys2024.6_report1.sqlite")
            if p.is_file()]
    return out


def _rocpd_seeds() -> list[Path]:
    d = CASES / "T12.rocpd_two_procs"
    return sorted(d.glob("*.db")) if d.is_dir() else []


def _kernels(path: Path) -> int | None:
    """Kernel rows gpulens reads from ``path`` (lenient), None when it refuses the input."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError:
        return None
    return int(tl.events["kind"].astype(str).isin(["kernel", "comm"]).sum())


def _sql_mutant(seed: Path, p: Path, sql: str, op: str, same: bool) -> tuple[Path, Path] | None:
    """``seed`` copied to ``p`` and changed by ``sql`` (None when a statement fails on it: not this seed's op);
    when ``same``, the kernels gpulens reads from the seed are what the mutant must give (:func:`_count_check`)."""
    shutil.copyfile(seed, p)
    p.chmod(0o644)
    try:
        with contextlib.closing(sqlite3.connect(p)) as con:
            con.executescript(sql)
            con.commit()
    except sqlite3.Error:
        return None
    if same:
        _EXPECT.update(kernels=_kernels(seed), op=op)
    return p, seed


def nsys_struct(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    seed = rng.choice(_nsys_seeds(seeds, names))
    op = rng.choice(sorted(NSYS_OPS))
    return _sql_mutant(seed, work / f"in{i}_{op}_{seed.name}", NSYS_OPS[op], op, op in NSYS_SAME_KERNELS)


def rocpd_struct(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = _rocpd_seeds() + [seeds[n] for n in names if n in ("rocpd", "rocpd_b")]
    seed = rng.choice(pool)
    op = rng.choice(sorted(ROCPD_OPS))
    with contextlib.closing(sqlite3.connect(seed)) as con:
        disp = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE "
                                          "'rocpd_kernel_dispatch_%'")]
    if not disp:
        return None
    sfx = disp[0][len("rocpd_kernel_dispatch_"):]
    return _sql_mutant(seed, work / f"in{i}_{op}_{seed.name}", ROCPD_OPS[op](lambda n: f'"rocpd_{n}_{sfx}"'), op,
                       op in ROCPD_SAME_KERNELS)


def rpd_struct(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    seed = HERE / "data" / "rocprof" / "rpd_matmul" / "matmul_result.rpd"
    op = rng.choice(sorted(RPD_OPS))
    return _sql_mutant(seed, work / f"in{i}_{op}.rpd", RPD_OPS[op], op, op in RPD_SAME_KERNELS)


def ncu_rep_damage(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = [seeds[n] for n in names if n == "ncu_rep"] + [p for p in (HERE / "data" / "nvidia" / "h200").glob(
        "*.ncu-rep")]
    if not pool:
        return None
    seed = rng.choice(pool)
    raw = seed.read_bytes()
    op = rng.choice(["cut8", "half", "minus1", "magic", "flip", "twice", "length", "zeros"])
    if op == "cut8":
        out = raw[:8]
    elif op == "half":
        out = raw[:len(raw) // 2]
    elif op == "minus1":
        out = raw[:-1]
    elif op == "magic":
        out = b"NVX\x00" + raw[4:]
    elif op == "flip":
        b = bytearray(raw)
        for _ in range(max(1, len(b) // 1000)):
            b[rng.randrange(8, len(b))] ^= rng.randrange(1, 256)
        out = bytes(b)
    elif op == "twice":
        out = raw + raw
    elif op == "zeros":  # the header kept, every byte after it zero
        out = raw[:8 + int.from_bytes(raw[4:8], "little")] + bytes(rng.choice([1, 100, 100_000]))
    else:
        b = bytearray(raw)
        at = rng.randrange(4, min(len(b) - 4, 4000))
        b[at:at + 4] = (1 << 28).to_bytes(4, "little")
        out = bytes(b)
    p = work / f"in{i}_{op}.ncu-rep"
    p.write_bytes(out)
    _EXPECT.update(at_most=_kernels(seed), op=op)
    return p, seed


def _sysinfo_edit(d: Path, **kv: str) -> None:
    import csv
    import io

    f = d / "sysinfo.csv"
    rows = list(csv.reader(io.StringIO(f.read_text())))
    for k, v in kv.items():
        if k in rows[0]:
            rows[1][rows[0].index(k)] = v
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    f.write_text(buf.getvalue())


def omniperf_dir(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = [seeds[n] for n in names if n in ("omniperf_dir", "omniperf_300")]
    seed = rng.choice(pool)
    op = rng.choice(["no_pmc", "no_pmc_no_ts", "gpu_odd", "gpu_nvidia", "cu_zero", "cu_text", "two_rows",
                     "roofline_odd", "two_arch"])
    d = work / f"in{i}_{op}"
    if op == "two_arch":
        d.mkdir()
        for s in pool + [seeds[n] for n in names if n.startswith("omniperf")][:2]:
            if not (d / s.name).exists():
                shutil.copytree(s, d / s.name)
        return d, seed
    shutil.copytree(seed, d)
    if op == "no_pmc":
        (d / "pmc_perf.csv").unlink(missing_ok=True)
    elif op == "no_pmc_no_ts":
        (d / "pmc_perf.csv").unlink(missing_ok=True)
        (d / "timestamps.csv").unlink(missing_ok=True)
    elif op == "gpu_odd":
        _sysinfo_edit(d, gpu_model="<b>MI999</b>\u202e", gpu_arch="gfx9999")
    elif op == "gpu_nvidia":
        _sysinfo_edit(d, gpu_model="NVIDIA H100", gpu_arch="sm_90")
    elif op == "cu_zero":
        _sysinfo_edit(d, cu_per_gpu="0", max_sclk="0", hbm_bw="-1", wave_size="0")
    elif op == "cu_text":
        _sysinfo_edit(d, cu_per_gpu="many", max_sclk="1.7 GHz", num_xcd="x")
    elif op == "two_rows":
        f = d / "sysinfo.csv"
        t = f.read_text().splitlines()
        f.write_text("\n".join(t + [t[1].replace("MI200", "MI300X").replace("gfx90a", "gfx942")]) + "\n")
    else:
        f = d / "roofline.csv"
        if not f.is_file():
            return None
        t = f.read_text().splitlines()
        bad = rng.choice(["-1", "0", "inf", "-inf", "1e400"])
        f.write_text(t[0] + "\n" + ",".join(["0"] + [bad] * (len(t[0].split(",")) - 1)) + "\n")
    return d, seed


def json_doc(seed: Path) -> tuple[object, list] | None:
    """(parsed document, its event list) of a JSON seed (plain or gzip); None when it is no JSON or has no list."""
    data, _ = _text_of(seed.read_bytes())
    if not _is_json(data):
        return None
    doc = json.loads(data)
    ev = _events(doc)
    return (doc, ev) if isinstance(ev, list) else None


def kineto_time(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = [seeds[n] for n in names if n in ("kineto", "kineto_b12", "kineto_gz")]
    seed = rng.choice(pool)
    got = json_doc(seed)
    if got is None or not isinstance(got[0], dict):
        return None
    doc, ev = got
    op = rng.choice(["before_launch", "mirrored", "stream_text", "device_beyond", "cpu_neg", "display_unit",
                     "base_time", "device_props", "dist_info", "only_meta"])
    timed = [e for e in ev if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))]
    if op == "before_launch":
        for e in ev:
            if _gpu(e) and isinstance(e.get("ts"), (int, float)):
                e["ts"] -= rng.choice([1, 50, 10_000])
    elif op == "mirrored" and timed:
        lo, hi = min(e["ts"] for e in timed), max(e["ts"] for e in timed)
        for e in timed:
            if e.get("ph") == "X":
                d = e.get("dur", 0) if isinstance(e.get("dur"), (int, float)) else 0
                e["ts"] = hi + lo - e["ts"] - d
    elif op == "stream_text":
        for e in ev:
            if _gpu(e) and isinstance(e.get("args"), dict):
                e["args"]["stream"] = rng.choice(["compute", "", "0x7f", "stream 7"])
                e["tid"] = f"stream {e['args']['stream']}"
    elif op == "device_beyond":
        for e in ev:
            if _gpu(e) and isinstance(e.get("args"), dict):
                e["args"]["device"] = e["pid"] = rng.choice([9, 255, 4096])
    elif op == "cpu_neg":
        for e in ev:
            if isinstance(e, dict) and e.get("cat") in ("cpu_op", "user_annotation", "python_function"):
                e["dur"] = rng.choice([-1, -1000, -(e.get("dur") or 1) if isinstance(e.get("dur"), int) else -1])
    elif op == "display_unit":
        doc["displayTimeUnit"] = rng.choice(["ns", "ms", "s", "bogus", 5, None])
    elif op == "base_time":
        doc["baseTimeNanoseconds"] = rng.choice([0, -1, "x", 1.5e18, 2 ** 70, None, [], True])
    elif op == "device_props":
        doc["deviceProperties"] = rng.choice(["x", [], [{"id": 0, "name": "<b>GPU</b>", "totalGlobalMem": -1,
                                                         "numSms": 0, "computeMajor": 99}], [None, 5]])
    elif op == "dist_info":
        doc["distributedInfo"] = rng.choice([{"rank": -3, "world_size": 0}, {"rank": "x", "world_size": "2"},
                                             {"rank": 2 ** 40}, "rank0", []])
    else:
        doc["traceEvents"] = [e for e in ev if isinstance(e, dict) and e.get("ph") == "M"]
    p = work / f"in{i}_{op}.pt.trace.json"
    p.write_text(json.dumps(doc))
    if op in ("before_launch", "mirrored", "stream_text", "device_beyond", "display_unit", "base_time",
              "device_props", "dist_info"):
        _EXPECT.update(kernels=_kernels(seed), op=op)
    return p, seed


def out_special(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    seed = seeds[rng.choice([n for n in names if n in ("kineto", "kineto_b12", "rocprofv3_csv", "nsys_sqlite")])]
    p = work / f"in{i}_{seed.name}"
    (shutil.copytree if seed.is_dir() else shutil.copyfile)(seed, p)
    _EXPECT.update(out=rng.choice(["fifo", "fifo_link", "long"]))
    return p, seed


def _case_doc(name: str):
    p = CASES / name
    raw = p.read_bytes()
    raw = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    try:
        return json.loads(raw)
    except ValueError:
        return None


def case_shift(rng: random.Random, seeds, names, work: Path, i: int) -> tuple[Path, Path] | None:
    pool = sorted(p.name for p in CASES.glob("*.json")) + sorted(p.name for p in CASES.glob("*.json.gz"))
    if not pool:
        return None
    name = rng.choice(pool)
    doc = _case_doc(name)
    ev = _events(doc)
    if not isinstance(ev, list):
        return None
    op = rng.choice(["shift", "shift", "ranks"])
    if op == "shift":
        k = rng.choice([1e9, 1e12, 0.5, 123456.789, -1e6])
        doc = copy.deepcopy(doc)
        for e in _events(doc):
            if isinstance(e, dict) and isinstance(e.get("ts"), (int, float)) and e.get("ph") != "M" and e["ts"] != 0:
                e["ts"] = e["ts"] + k
        p = work / f"in{i}_shift_{name}".removesuffix(".gz")
        p.write_text(json.dumps(doc))
    else:
        if not isinstance(doc, dict):
            return None
        p = work / f"in{i}_ranks_{name.replace('.', '_')}"
        p.mkdir()
        for r in (0, 1):
            d = dict(doc, distributedInfo={"rank": r, "world_size": 2, "backend": "nccl"})
            (p / f"rank{r}.{name}".removesuffix(".gz")).write_text(json.dumps(d))
    _EXPECT.update(case=name, op=op)
    return p, CASES / name


def make(rng: random.Random, seeds: dict[str, Path], names: list[str], work: Path, i: int,
         kind: str) -> tuple[Path, Path] | None:
    """(mutant, seed) for ``kind``; None when ``kind`` does not apply to the drawn seed."""
    _EXPECT.clear()
    return {"nsys_struct": nsys_struct, "rocpd_struct": rocpd_struct, "rpd_struct": rpd_struct,
            "ncu_rep_damage": ncu_rep_damage,
            "omniperf_dir": omniperf_dir, "kineto_time": kineto_time, "out_special": out_special,
            "case_shift": case_shift}[kind](rng, seeds, names, work, i)


_EXPECT: dict = {}


def _count_check(path: Path) -> str | None:
    """The kernels read are the seed's (``kernels``) or no more than the seed's (``at_most``, with a warning when
    fewer)."""
    import gpulens.collectors as col
    from gpulens.errors import GpulensError

    try:
        tl = col.collect(path, strict=False, cache=False)
    except GpulensError:
        return None if "at_most" in _EXPECT or _EXPECT.get("kernels") is None else \
            f"{_EXPECT['op']}: refused, the seed's {_EXPECT['kernels']} kernels are all readable"
    got = int(tl.events["kind"].astype(str).isin(["kernel", "comm"]).sum())
    if _EXPECT.get("kernels") is not None and got != _EXPECT["kernels"]:
        return f"{_EXPECT['op']}: {got} kernels read, the seed has {_EXPECT['kernels']}"
    return at_most_check(_EXPECT, got, bool(tl.meta.warnings))


def at_most_check(expect: dict, got: int, warned: bool) -> str | None:
    """A damaged input's kernels: no more than ``expect["at_most"]`` (the intact seed's), and a warning when fewer."""
    most = expect.get("at_most")
    if most is not None and got > most:
        return f"{expect['op']}: {got} kernels read from a damaged input of {most}"
    if most is not None and got < most and not warned:
        return f"{expect['op']}: {got} of {most} kernels read without a warning"
    return None


def _out_check(path: Path, work: Path) -> str | None:
    """``out_special``: a report sent to a device, a FIFO or a too-long name."""
    from tests.fuzz_s8 import run_cli

    what = _EXPECT["out"]
    got: list = []
    reader = None
    if what.startswith("fifo"):
        fifo = work / "report.fifo"
        os.mkfifo(fifo)
        target = str(fifo)
        if what == "fifo_link":
            (work / "stdout-like").symlink_to(fifo)
            target = str(work / "stdout-like")
        reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
        reader.start()
    else:
        target = str(work / ("r" * 300 + ".json"))
    code, text = run_cli(["analyze", str(path), "-q", "--no-cache", "--json", target])
    if reader is not None:
        if code not in (0, 5):  # nothing was written: free the reader
            with open(fifo, "wb"):
                pass
        reader.join(10)
    if "Traceback" in text or "internal error" in text:
        return f"--json {what}: {text.strip()[-300:]!r}"
    if what.startswith("fifo"):
        if not stat.S_ISFIFO(os.stat(work / "report.fifo").st_mode):
            return f"--json {what}: the pipe was replaced by a regular file"
        if code not in (0, 5):
            return f"--json {what}: exit {code}: {text.strip()[-300:]!r}"
        if not got or not got[0].lstrip().startswith(b"{"):
            return f"--json {what}: the reader got no JSON report ({(got or [b''])[0][:80]!r})"
        return None
    errs = [ln for ln in text.strip().splitlines() if ln.startswith("gpulens: error")]
    if code != 2 or len(errs) != 1:
        return f"--json {what}: exit {code}, expected one error line: {text.strip()[-300:]!r}"
    return None


_SIG = ("kernel_count", "gpu_busy_ns", "span_ns", "kernel_time_ns", "memcpy_count")


def _case_check(path: Path, work: Path) -> str | None:
    """``case_shift``: the shifted case, or each of its two ranks, gives the case's own answer."""
    from tests.fuzz_variants import analyze

    case = CASES / _EXPECT["case"]
    code0, ref, _ = analyze(case, work / "ref.json")
    code, got, err = analyze(path, work / "var.json")
    if code != code0:
        return f"{_EXPECT['op']} {case.name}: exit {code}, the case gives {code0}: {err[:200]!r}"
    if not ref:
        return None
    want = {k: ref[0].get(k) for k in _SIG} | {"top": ref[0].get("top")}
    if _EXPECT["op"] == "ranks":  # one source of two identical ranks: counts and per-GPU sums twice, the same span
        want = {k: (2 * v if k != "span_ns" and isinstance(v, int) else v) for k, v in want.items()}
    for i, s in got.items():
        have = {k: s.get(k) for k in _SIG} | {"top": s.get("top")}
        if have != want:
            diff = {k: (want[k], have[k]) for k in want if want[k] != have[k]}
            return f"{_EXPECT['op']} {case.name}: source {i} differs from the case: {diff}"
    if _EXPECT["op"] == "ranks" and len(got) not in (1, 2):
        return f"ranks {case.name}: {len(got)} sources for two rank files"
    return None


def _one(kind: str, rng: random.Random, path: Path, work: Path, strict: bool, cli: bool) -> str | None:
    if kind == "out_special":
        return _out_check(path, work)
    if kind == "case_shift":
        return _case_check(path, work)
    what = check_kind(kind, {}, rng, path, work, strict, cli)
    if what is None and ("kernels" in _EXPECT or "at_most" in _EXPECT):
        what = _count_check(path)
    return what


def main(argv: list[str] | None = None) -> int:
    return fuzzing.kind_campaign(argv, KINDS, make, _one, seed=36036, timeout=20.0,
                                 keep=lambda kind: kind != "out_special")


if __name__ == "__main__":
    sys.exit(main())
