"""Tenth-session fuzzing (tests/fuzz_s10.py): one test per kind of fault it found, each on a small input built
here, with the expected value worked out from the input itself."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gpulens.reports.json_report import capped_records

DATA = Path(__file__).resolve().parent / "data"


def test_capped_other_row_never_sums_shares_of_several_wholes_nor_their_denominator():
    """Kind: the "other" row of a table cut at MAX_TABLE_ROWS summed every share column and the ns column each
    share is divided by. critical_path has one row per (rank, class) with ``share = time_ns / step_ns``: 300 ranks
    of a 90 µs step summed to a "share" of 65.9 and a 17.7 ms "step" (fuzz_s10 ranks_many). Per-rank shares sum to
    1 per rank, not over the table: their sum is no share; step_ns repeats the one step of each rank. A share of
    one whole (hot kernels' share of all kernel time) is still summed, and so is time_ns."""
    ranks = 5
    rows = [{"rank": r, "step_ns": 90_000, "class": c, "time_ns": t, "share": t / 90_000}
            for r in range(ranks) for c, t in (("kernel", 65_000), ("gpu_gap", 15_000), ("launch_delay", 10_000))]
    df = pd.DataFrame(rows)
    cols = {"rank": "rank [id]", "step_ns": "duration of the step [ns]", "class": "class [text]",
            "time_ns": "time of the class on the path [ns]", "share": "time_ns / step_ns [share]"}
    other = capped_records(df, cols, limit=3)[-1]
    assert other["other_rows"] == 12
    assert other["time_ns"] == 4 * 90_000  # the 4 other ranks' whole paths, by hand
    assert other["share"] is None and other["step_ns"] is None

    hot = pd.DataFrame({"name": list("abcdef"), "total_ns": [40, 20, 15, 10, 10, 5]})
    hot["share"] = hot["total_ns"] / 100
    other = capped_records(hot, {"name": "kernel [text]", "total_ns": "time [ns]",
                                 "share": "share of all kernel time [share]"}, limit=2)[-1]
    assert other["total_ns"] == 40 and abs(other["share"] - 0.40) < 1e-12  # 15+10+10+5 of 100


def test_damaged_cache_entries_are_rebuilt_never_served(tmp_path, monkeypatch):
    """Kind: a cached analysis (pickled results, rendered JSON/HTML/Markdown reports) damaged on disk was served as
    it was: a flipped byte in the cached JSON report was written to the user's ``--json`` file, which no longer
    parsed (fuzz_s10 cache_corrupt). Every way of damaging every cache file (cut in half, emptied, 8 bytes flipped,
    replaced by random bytes) must give the report of a fresh analysis."""
    import json
    import random

    from gpulens.cli import main

    monkeypatch.setenv("GPULENS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GPULENS_CACHE_MIN_BYTES", "0")
    trace = tmp_path / "t.json"
    trace.write_bytes((DATA / "cases" / "B13.json").read_bytes())
    fresh = tmp_path / "fresh.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--json", str(fresh)]) == 0
    want = _stable(json.loads(fresh.read_text()))
    rng = random.Random(5)
    out = tmp_path / "out.json"
    assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0  # fills the cache
    entries = sorted(p.name for p in (tmp_path / "cache").iterdir() if p.is_file())
    assert len(entries) >= 2  # the results and at least the rendered JSON report
    for name in entries + ["(the Timeline's arrays)"]:
        for how in ("cut", "empty", "flip", "random") if name in entries else ("cut", "flip"):
            assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0  # (re)fills the cache
            files = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()
                     and (p.name == name if name in entries else p.suffix == ".npy")]
            assert files
            for p in files:
                raw = p.read_bytes()
                if how == "cut":
                    p.write_bytes(raw[: len(raw) // 2])
                elif how == "empty":
                    p.write_bytes(b"")
                elif how == "flip" and raw:  # one byte in the middle changed: still a whole file, with another value
                    b = bytearray(raw)
                    b[len(b) // 2] ^= 0x01
                    p.write_bytes(bytes(b))
                else:
                    p.write_bytes(rng.randbytes(64))
            assert main(["analyze", str(trace), "-q", "--json", str(out)]) == 0
            assert _stable(json.loads(out.read_text())) == want, (name, how)


def _stable(doc: dict) -> str:
    """A JSON report without the fields that differ between two runs of the same analysis (times of the run)."""
    import json
    import re

    text = json.dumps(doc, sort_keys=True)
    return re.sub(r'"(created|generated_at|created_at|cached|elapsed_s|elapsed|analysis_s)": [^,}]+', "", text)


def test_error_for_a_path_with_control_characters_is_one_line(tmp_path, capsys):
    """Kind: the exit-2 message names the file, and a file name may hold a newline, a carriage return or an escape
    sequence (fuzz_s10 odd_path): the message then spread over two lines, or recoloured the terminal. Every error
    line is printed with control characters as backslash escapes."""
    from gpulens.cli import main

    d = tmp_path / "run\nlog\x1b[31m"
    d.mkdir()
    f = d / "t.json"
    f.write_text('{"traceEvents": [')  # cut inside its first line: exit 2, naming the file
    assert main(["analyze", str(f), "-q", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err
    assert str(f).replace("\n", "\\n").replace("\x1b", "\\x1b") in err


def test_control_characters_in_trace_names_never_reach_a_report(tmp_path):
    """Kind: kernel names are text anyone can write; one with an escape sequence (``ESC[31m`` recolours, ``ESC]0;…
    BEL`` retitles the terminal) was printed raw by the console report and the Markdown report (fuzz_s10
    long_name / odd names with controls). Names and trace metadata (a device name) reach every report with control
    characters as visible escapes, and two names that differ only there stay two kernels with their own times."""
    import json

    import gpulens
    from gpulens.reports import console, json_report, markdown

    doc = json.loads((DATA / "cases" / "B13.json").read_text())
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    assert len(kernels) >= 2
    kernels[0]["name"] = "evil\x1b[31mRED\x1b]0;title\x07"
    kernels[1]["name"] = "evil\x1b[31mRED\x1b]0;title\x07\r"
    doc["deviceProperties"] = [{"id": 0, "name": "GPU\x1b]0;owned\x07", "totalGlobalMem": 85899345920,
                                "computeMajor": 9, "computeMinor": 0, "numSms": 132}]  # trace metadata too
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    rep = gpulens.analyze([f])
    for text in (console.render(rep), markdown.render(rep), json_report.render(rep)):
        assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    names = set(rep.sources[0].timeline.events["name"].astype(str))
    # the data keep the names as recorded (the reporters write them visibly): still two kernels
    assert kernels[0]["name"] in names and kernels[1]["name"] in names
    hot = rep.sources[0].results["hotspots"].table
    by = dict(zip(hot["name"].astype(str), hot["total_ns"]))
    assert by[kernels[0]["name"]] == round(kernels[0]["dur"] * 1000)


def test_report_labels_scan_each_long_kernel_name_once(tmp_path, monkeypatch):
    """Kind: kernel names of 100 kB (fuzz_s10 long_name) made the HTML report take 15-20 s on a 0.7 MB CSV: every
    table and chart re-derived each name's short label, a linear scan of the whole name each time (327 scans of 3
    names). The label of a name is derived once per process, whatever the number of reports, tables and charts."""
    import json

    import gpulens
    from gpulens.reports import _names, console, html, markdown

    doc = json.loads((DATA / "cases" / "B13.json").read_text())
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    for i, e in enumerate(kernels[:3]):
        e["name"] = f"k{i}<" + "T, " * 30_000 + "int>(float*)"  # ~90 kB, a template list that never closes early
    f = tmp_path / "t.json"
    f.write_text(json.dumps(doc))
    rep = gpulens.analyze([f])
    for f in (_names.base_name, _names.short_name):
        getattr(f, "cache_clear", lambda: None)()
    scanned: list[str] = []
    real = _names._split
    monkeypatch.setattr(_names, "_split", lambda name: (scanned.append(name), real(name))[1])
    html.render(rep)
    markdown.render(rep)
    console.render(rep)
    long_scans = [n for n in scanned if len(n) > 10_000]
    assert long_scans and len(long_scans) == len(set(long_scans)) <= 3


def test_report_figures_of_another_type_are_refused_by_diff_and_gate(tmp_path, capsys):
    """Kind: a JSON report read back by ``diff``/``gate`` with one figure key given another type everywhere (every
    ``*_ns`` an object, text, true, NaN, a number beyond int64: fuzz_s10 report_mut) made ``gate`` exit 70 (float()
    of a dict) and ``diff`` compare garbage. Each is refused with exit 2 and one line naming the file and the
    figure; the intact report still gates and diffs."""
    import json
    import re

    from gpulens.cli import main

    good = tmp_path / "good.json"
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--json", str(good)]) == 0
    text = good.read_text()
    assert main(["gate", str(good), "--baseline", str(good), "-q"]) == 0
    assert main(["diff", str(good), str(good), "-q"]) == 0
    capsys.readouterr()
    for odd in ("{}", '"12"', "true", "NaN", "18446744073709551616", "-1"):
        bad = tmp_path / "bad.json"
        bad.write_text(re.sub(r'("[a-z_]*_ns"\s*:\s*)(-?[0-9.eE+]+)', lambda m: m.group(1) + odd, text))
        json.loads(bad.read_text())  # still JSON (NaN/Infinity as Python reads them)
        for args in (["gate", str(good), "--baseline", str(bad), "-q"], ["gate", str(bad), "--baseline", str(good),
                                                                        "-q"], ["diff", str(good), str(bad), "-q"]):
            assert main(args) == 2, (odd, args[0])
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and err[0].startswith(f"gpulens: error: {bad}: report figure sources[0]."), err


def test_rank_folder_links_never_count_twice_and_broken_links_make_it_partial(tmp_path):
    """Kind: file-system oddities in a rank folder (fuzz_s10 fs_odd): a symbolic link to a rank file already in the
    folder was read as one more rank (its kernels counted twice), and a link to nothing was passed over in silence
    (status ok, a rank lost). A link to a file already read is read once, with a warning; a broken link is an
    unread rank file: the result is partial and names it."""
    import json

    import gpulens

    doc = json.loads((DATA / "cases" / "B13.json").read_text())
    kernel_ns = sum(round(e["dur"] * 1000) for e in doc["traceEvents"] if e.get("cat") == "kernel")
    d = tmp_path / "run"
    d.mkdir()
    for r in (0, 1):
        (d / f"rank{r}.json").write_text(json.dumps(doc))
    (d / "rank2.json").symlink_to("rank0.json")
    (d / "rank3.json").symlink_to(tmp_path / "gone.json")
    src = gpulens.analyze([d]).sources[0]
    assert src.status == "partial"
    assert set(src.timeline.events["rank"].unique()) == {0, 1}
    assert src.summary["kernel_time_ns"] == 2 * kernel_ns  # two rank files, not three
    warnings = " ".join(src.timeline.meta.warnings)
    assert "rank3.json: broken symbolic link" in warnings and "rank2.json (= rank0.json)" in warnings


def test_baseline_samples_that_are_no_figure_are_refused(tmp_path, capsys):
    """Kind: a baseline file's metric samples edited or damaged (fuzz_s10 report_mut on a saved baseline): a
    sample of -1 gated a "-1 kernel launches → 4: -500 % REGRESSED", ``true`` read as 1 ns (+6,499,900 %), 1e308 ns
    printed 300-digit cells, ``"7"`` was read as 7. A sample, share or call count that is not a number from 0 to
    2^63 (a share above 1, a fractional call count) makes the baseline malformed: exit 2, one line naming it."""
    import re

    from gpulens.cli import main

    rep = tmp_path / "r.json"
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--json", str(rep)]) == 0
    store = tmp_path / "st"
    assert main(["baseline", "save", str(rep), "-n", "m", "--store", str(store)]) == 0
    (base,) = store.rglob("m.json")
    text = base.read_text()
    assert main(["gate", str(rep), "-b", "m", "--store", str(store), "-q"]) == 0
    capsys.readouterr()
    for key, odd in (("samples", "-1"), ("samples", "true"), ("samples", '"7"'), ("samples", "1e308"),
                     ("samples", "18446744073709551616"), ("share", "1.5"), ("calls", "2.5"), ("calls", "-3")):
        base.write_text(re.sub(r'("%s": \[)([^\]]*)\]' % key, lambda m: m.group(1) + odd + "]", text))
        assert main(["gate", str(rep), "-b", "m", "--store", str(store), "-q"]) == 2, (key, odd)
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(base) in err[0] and "malformed baseline" in err[0], (key, odd, err)


def test_file_names_that_are_not_utf8_are_written_visibly(tmp_path):
    """Kind: a trace whose file name is not UTF-8 (a Latin-1 byte: Python holds it as a lone surrogate, PEP 383)
    made every report writer fail with UnicodeEncodeError, exit 70 (fuzz_s10 odd_path): the Markdown, HTML and
    Perfetto outputs of analyze, those of diff, and analyze of a rank folder holding such a file. Every output is
    written, as UTF-8, with the byte shown as ``\\xff``."""
    import os

    from gpulens.cli import main

    raw = (DATA / "cases" / "B13.json").read_bytes()
    base = os.fsencode(str(tmp_path))
    one = os.fsdecode(base + b"/ok\xff.json")
    Path(one).write_bytes(raw)
    ranks = os.fsdecode(base + b"/ranks")
    os.mkdir(ranks)
    Path(os.fsdecode(base + b"/ranks/rank0\xff.json")).write_bytes(raw)
    Path(os.fsdecode(base + b"/ranks/rank1.json")).write_bytes(raw)
    Path(os.fsdecode(base + b"/ranks/rank2\xfe.json")).write_bytes(b"x")  # unreadable: named in the warnings
    out = tmp_path / "out"
    for i, args in enumerate((["analyze", one], ["analyze", ranks], ["diff", one, ranks])):
        files = {ext: out / f"{i}.{ext}" for ext in ("json", "html", "md")}
        extra = ["--perfetto", str(out / f"{i}.perfetto.json")] if args[0] == "analyze" else []
        assert main(args + ["-q", "--no-cache"] * (args[0] == "analyze") + ["-q"] * (args[0] == "diff")
                    + ["--json", str(files["json"]), "--html", str(files["html"]), "--markdown", str(files["md"])]
                    + extra) == 0, args
        for f in list(files.values()) + [out / f"{i}.perfetto.json"] * bool(extra):
            f.read_bytes().decode("utf-8")  # written, valid UTF-8
        assert "ok\\xff.json" in files["md"].read_text().replace("\\\\", "\\") or i == 1, args  # the byte shown


def test_report_header_of_another_type_is_refused(tmp_path, capsys):
    """Kind: the same for a report's header and texts: ``schema_version`` given as a list made ``gate`` exit 70
    (unhashable in the set of versions: fuzz_s10 report_mut, run 4); a label or status of another type. Refused with
    exit 2 and one line naming the file and the field."""
    import json

    from gpulens.cli import main

    good = tmp_path / "good.json"
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--json", str(good)]) == 0
    capsys.readouterr()
    for where, key, odd in ((None, "schema_version", []), (None, "schema_version", "2"), (None, "status", {}),
                            (0, "label", 5), (0, "status", ["ok"])):
        doc = json.loads(good.read_text())
        (doc if where is None else doc["sources"][where])[key] = odd
        bad = tmp_path / "bad.json"
        bad.write_text(json.dumps(doc))
        for args in (["gate", str(good), "--baseline", str(bad), "-q"], ["gate", str(bad), "--baseline", str(good),
                                                                        "-q"]):
            assert main(args) == 2, (key, odd)
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and err[0].startswith(f"gpulens: error: {bad}: report ") and key in err[0], err


def test_notes_added_after_loading_are_printable_and_analyze_takes_one_path(tmp_path, monkeypatch):
    """Kind: a warning appended after the collector's validate (here ncu_csv naming the device after the program's
    own output line ``device: NVIDIA GeForce RTX 5070 …``) kept the raw file name; for a name that is not UTF-8 (a
    Latin-1 byte, a lone surrogate under PEP 383) the console report failed with UnicodeEncodeError (fuzz_s10
    odd_path). Every note of a SourceReport is made printable as the label is, the byte shown as ``\\xe9``. And
    ``gpulens.analyze("file")`` read the string as a list of one-letter paths ("l: no such file")."""
    import io
    import os

    from rich.console import Console

    import gpulens
    from gpulens.reports import console

    base = os.fsencode(str(tmp_path))
    src = DATA / "nvidia" / "olajide_rtx5070_metrics_saxpy.csv"  # its preamble names the GPU
    Path(os.fsdecode(base + b"/lat\xe9.csv")).write_bytes(src.read_bytes())
    monkeypatch.chdir(tmp_path)
    p = os.fsdecode(b"lat\xe9.csv")
    rep = gpulens.analyze(p)  # one path, not its characters (was: "l: no such file or directory")
    assert len(rep.sources) == 1
    notes = rep.sources[0].timeline.meta.warnings
    named = [w for w in notes if "records no device name" in w]
    assert named and named[0].startswith("lat\\xe9.csv:")  # the byte made visible
    assert not any("\udce9" in w for w in notes)
    out = io.BytesIO()
    w = io.TextIOWrapper(out, encoding="utf-8")  # a terminal's strict UTF-8 stdout
    console.print_report(rep, Console(file=w, width=120))
    w.flush()
    assert "lat\\xe9.csv" in out.getvalue().decode("utf-8")
    assert len(gpulens.analyze(Path(p)).sources) == 1


def test_control_characters_are_escaped_in_linear_time():
    """Kind: every report escapes control characters of names (B03: ``\\u0001<module>``) with one Python callback
    per character; a kernel name of 100 kB of control bytes, shown ~200 times by the HTML report, took 11 s of CPU
    (fuzz_s10 long_name: over its 20 s limit on a loaded machine). The escape is now a table lookup. Expected
    value from the definition, not from the code: a C0 character but tab/newline/CR, DEL, a C1 character (and with
    ``bidi`` the bidirectional marks U+061C, U+200E/F, U+202A–E, U+2066–9, U+FEFF) becomes ``\\uXXXX``."""
    import time
    import unicodedata

    from gpulens.reports._md_safe import visible

    bidi_marks = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF}
    for bidi in (False, True):
        for c in range(0x10000):
            ch = chr(c)
            shown = (unicodedata.category(ch) == "Cc" and ch not in "\t\n\r") or (bidi and c in bidi_marks)
            assert visible(f"a{ch}b", bidi) == (f"a\\u{c:04x}b" if shown else f"a{ch}b"), (hex(c), bidi)
    name = "k\x01\x1b" * 1_700_000  # 5 MB, two of three characters escaped
    t = time.process_time()
    out = visible(name)
    assert len(out) == len(name) + 2 * 1_700_000 * 5
    assert time.process_time() - t < 2.0  # a callback per character: ~5 s here


def test_json_boolean_ids_are_unknown_not_gpu_1(tmp_path):
    """Kind (fuzz_s10 ids_odd): a Kineto kernel with ``"device": true`` was read as device 1 — numpy turns true
    into 1 — so a GPU that does not exist got a busy time and the run's summed busy time passed its span. A JSON
    boolean is no id: unknown, counted in the warning. Hand-derived: three 50 µs kernels on GPU 0, 100 µs apart
    → span 250 µs, busy 150 µs, one GPU."""
    import json

    import gpulens

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 0, "tid": 7, "ts": 1000 + 100 * i, "dur": 50,
           "args": {"device": dev, "stream": 7, "correlation": i + 1}} for i, dev in enumerate([0, True, 0])]
    f = tmp_path / "t.json"
    f.write_text(json.dumps({"traceEvents": ev}))
    s = gpulens.analyze([f]).sources[0]
    assert set(s.timeline.events["device_id"].dropna().astype(int)) == {0}
    assert s.summary["span_ns"] == 250_000 and s.summary["gpu_busy_ns"] == 150_000
    assert any("true/false" in w and "device ×1" in w for w in s.timeline.meta.warnings)


def test_every_figure_the_gate_compares_is_checked_whatever_its_key_spelling(tmp_path, capsys):
    """Kind: a figure the gate compares whose key does not end like a figure (``launch_calls``,
    ``unique_kernels``) was not checked when a report was read back, so a NaN there reached the statistics and the
    gate's JSON output (exit 70: "Out of range float values are not JSON compliant", fuzz_s10 seed 1212 #20).
    Each figure the gate reads, spoiled alone in a baseline report, is refused with exit 2 and one line naming it.
    The figures and their places are the gate's documented metrics (docs/gate.md), written out here."""
    import json

    from gpulens.cli import main
    from gpulens.cli.analyze import demo_trace_path

    good = tmp_path / "good.json"
    assert main(["analyze", str(demo_trace_path()), "-q", "--no-cache", "--json", str(good)]) == 0
    capsys.readouterr()
    places = [("summary", "span_ns"), ("summary", "kernel_count"), ("summary", "unique_kernels"),
              ("summary", "kernel_time_ns"), ("analyses", "launches", "summary", "launch_calls")]
    doc = json.loads(good.read_text())
    for place in places:
        node = doc["sources"][0]
        for k in place[:-1]:
            node = node[k]
        assert place[-1] in node, place  # the demo report holds every one of them
        for odd in (float("nan"), "12", -1):
            bad_doc = json.loads(good.read_text())
            node = bad_doc["sources"][0]
            for k in place[:-1]:
                node = node[k]
            node[place[-1]] = odd
            bad = tmp_path / "bad.json"
            bad.write_text(json.dumps(bad_doc))
            out = tmp_path / "g.json"
            assert main(["gate", str(good), "--baseline", str(bad), "-q", "--json", str(out)]) == 2, (place, odd)
            err = capsys.readouterr().err.strip().splitlines()
            assert len(err) == 1 and f"sources[0].{'.'.join(place)} is" in err[0], err


def test_table_export_keeps_missing_cells_of_object_columns(tmp_path):
    """Kind: an analysis table column of object dtype holding ``pd.NA`` (bottlenecks' ``exposed_memcpy_ns`` of a
    rocprofv3 folder whose counter CSV lost its columns: fuzz_s8 seed 7777 #48) made ``--csv``/``--parquet`` exit 70
    ("boolean value of NA is ambiguous"). Missing cells — None, NaN, pd.NA — stay missing in both formats; a column
    of mixed types becomes text for Parquet."""
    import pandas as pd

    from gpulens.export import flat_table

    df = pd.DataFrame({"only_na": pd.Series([pd.NA], dtype=object).repeat(3).reset_index(drop=True),
                       "mixed": pd.Series([1, "x", pd.NA], dtype=object),
                       "lists": pd.Series([[1, 2], None, pd.NA], dtype=object)})
    out = flat_table(df)
    assert out["only_na"].isna().all()
    assert list(out["mixed"][:2]) == ["1", "x"] and pd.isna(out["mixed"][2])
    assert out["lists"][0] == "[1, 2]" and out["lists"][1:].isna().all()
    out.to_csv(tmp_path / "t.csv", index=False)
    out.to_parquet(tmp_path / "t.parquet", index=False)
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert back["only_na"].isna().all() and list(back["mixed"][:2]) == ["1", "x"] and pd.isna(back["mixed"][2])
