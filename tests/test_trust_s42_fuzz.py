"""Session-42 fuzzing (tests/fuzz_s42.py): one regression per fault kind, expected values counted from the inputs
built here (the rows of the nvprof database, the keys of the report), never from gpulens's output.

* a Visual Profiler session was read with regular expressions over its raw bytes: a session gzipped, saved as
  UTF-16, holding its base64 in CDATA, an XML comment naming a ``<pdm>``, an empty first ``<pdm>`` or an empty
  ``<timelinepdm>`` before the real one was refused ("without profile data" / "does not decode") though it holds
  the profile; it is now parsed as XML;
* a JSON report missing ``schema_version`` (a report of another gpulens version, or edited) was refused by ``diff``
  as "a gpulens JSON report, not a trace … compare two reports with `gpulens diff`" — advice to run the command
  being run; ``diff``, ``gate`` and ``baseline save`` now say in one line what is wrong with the report.
"""

from __future__ import annotations

import base64
import gzip
import json
import sqlite3
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def nvprof(tmp_path_factory) -> tuple[Path, int]:
    """tests/test_trust_s41_real.py's nvprof database, and its kernel rows counted with sqlite3."""
    from tests.test_trust_s41_real import nvprof_db

    db = nvprof_db(tmp_path_factory.mktemp("nvprof") / "app.nvvp")
    con = sqlite3.connect(db)
    n = con.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL").fetchone()[0]
    con.close()
    return db, n


def _session(nvprof_path: Path) -> str:
    from tests.test_trust_s41_real import nvvp_session

    p = nvvp_session(nvprof_path.with_name("s.nvvp"), [nvprof_path.read_bytes()])
    return p.read_text()


def _variant(text: str, how: str) -> tuple[bytes, str]:
    """(bytes, file name) of the session ``text`` written as ``how``."""
    b64 = text[text.index("<split>") + 7:text.index("</split>")]
    if how == "gzipped":
        return gzip.compress(text.encode()), "s.nvvp.gz"
    if how == "utf16":
        return text.encode("utf-16"), "s.nvvp"
    out = {"cdata": lambda: text.replace(b64, f"<![CDATA[{b64}]]>"),
           "comment": lambda: text.replace("<timelinepdm>\n", "<timelinepdm>\n<!-- <pdm><split>AAAA</split></pdm> -->"),
           "empty_first": lambda: text.replace("<timelinepdm>\n", "<timelinepdm>\n<pdm></pdm>\n"),
           "empty_timelinepdm": lambda: text.replace("<timelinestate>", "<timelinepdm/><timelinestate>"),
           "split_per_line": lambda: text.replace(f"<split>{b64}</split>", "".join(
               f"<split>{ln}</split>\n" for ln in b64.split("\n"))),
           }[how]()
    assert out != text
    return out.encode(), "s.nvvp"


@pytest.mark.parametrize("how", ["gzipped", "utf16", "cdata", "comment", "empty_first", "empty_timelinepdm",
                                 "split_per_line"])
def test_visual_profiler_session_variants_give_the_profile_they_embed(tmp_path, nvprof, how):
    from gpulens.collectors import collect

    db, kernels = nvprof
    assert kernels == 1
    data, name = _variant(_session(db), how)
    p = tmp_path / name
    p.write_bytes(data)
    tl = collect(p)  # was "without profile data" (gzipped, utf16, empty_*) or "does not decode" (cdata, comment)
    assert int((tl.events["kind"] == "kernel").sum()) == kernels
    assert not any("profiles" in w for w in tl.meta.warnings)  # an empty <pdm> is no second profile


def test_visual_profiler_session_cut_after_its_profile_is_read_with_a_warning(tmp_path, nvprof):
    from gpulens.collectors import collect

    db, kernels = nvprof
    text = _session(db)
    end = text.index("</timelinepdm>") + len("</timelinepdm>")
    p = tmp_path / "cut.nvvp"
    p.write_text(text[:end + 5])  # "\n<ana": the session's tail lost
    tl = collect(p)
    assert int((tl.events["kind"] == "kernel").sum()) == kernels
    assert [w for w in tl.meta.warnings if "XML is damaged past its profile data" in w and str(p) in w]


@pytest.mark.parametrize("where", ["cut_in_base64", "cut_before_profile"])
def test_visual_profiler_session_cut_in_its_profile_is_one_error_naming_the_file(tmp_path, nvprof, capsys, where):
    from gpulens.cli import main

    db, _ = nvprof
    text = _session(db)
    at = text.index("<split>") + (40 if where == "cut_in_base64" else 0)
    p = tmp_path / "cut.nvvp"
    p.write_text(text[:at])
    assert main(["analyze", str(p), "-q", "--no-cache"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(p) in err[0] and "Visual Profiler session" in err[0], err


def test_visual_profiler_session_gzip_bomb_is_refused_within_the_limit(tmp_path, nvprof, monkeypatch):
    from gpulens.collectors import collect
    from gpulens.errors import TraceFormatError

    db, _ = nvprof
    text = _session(db)
    b64 = text[text.index("<split>") + 7:text.index("</split>")]
    # 64 MiB of an SQLite header and zeros, gzipped (~65 KB): beyond a limit set to 8 MiB
    bomb = base64.b64encode(gzip.compress(b"SQLite format 3\x00" + bytes(64 << 20), 9)).decode()
    p = tmp_path / "bomb.nvvp"
    p.write_text(text.replace(b64, bomb))
    monkeypatch.setenv("GPULENS_MAX_DECOMPRESSED_BYTES", str(8 << 20))
    with pytest.raises(TraceFormatError, match="expands beyond 8,388,608 bytes"):
        collect(p)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """The JSON report of tests/data/cases/B13.json."""
    from gpulens.cli import main

    rep = tmp_path_factory.mktemp("report") / "r.json"
    assert main(["analyze", str(DATA / "cases" / "B13.json"), "-q", "--no-cache", "--json", str(rep)]) == 0
    return rep


@pytest.mark.parametrize("version", ["missing", None, "2"])
def test_report_without_a_schema_version_is_refused_as_a_damaged_report(tmp_path, report, capsys, version):
    from gpulens.cli import main

    doc = json.loads(report.read_text())
    assert doc["tool"]["name"] == "gpulens" and isinstance(doc["schema_version"], int)
    if version == "missing":
        del doc["schema_version"]
    else:
        doc["schema_version"] = version
    bad = tmp_path / "old.json"
    bad.write_text(json.dumps(doc))
    for args in (["diff", str(bad), str(report)], ["diff", str(report), str(bad)],
                 ["gate", str(bad), "--baseline", str(report)], ["gate", str(report), "--baseline", str(bad)],
                 ["baseline", "save", str(bad), "-n", str(tmp_path / "b.json")]):
        capsys.readouterr()
        assert main(args) == 2, args
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and str(bad) in err[0], (args, err)
        assert "schema_version is" in err[0] and "not a trace" not in err[0], (args, err)


@pytest.mark.parametrize("steps", ["\u0663", "\uff13", "1_0", "\u0662:\u0663", "2:\u0663"])
def test_steps_in_other_digits_are_refused_as_window_and_ranks_refuse_them(capsys, steps):
    from gpulens.cli import main

    trace = DATA / "kineto" / "aorta_mi350x_train_step.pt.trace.json"
    # was read as int("٣") == 3 (Python's int takes any script's digits and "1_0"), while --window '٣' and
    # --ranks '٣' were refused: one rule for the three options
    assert main(["analyze", str(trace), "-q", "--no-cache", "--steps", steps]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"gpulens: error: --steps: cannot read {steps!r} (expected A:B, A:, :B or N)"]


def test_a_window_past_the_run_names_the_run_s_profiled_window(tmp_path):
    from gpulens.cli import main

    trace = DATA / "cases" / "B13.json"
    doc = json.loads(trace.read_text())
    ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
    assert not any(str(e.get("name", "")).startswith("ProfilerStep#") for e in ev)
    # the profiled window: first start (µs) to last end, in ns
    length = (max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)) * 1000
    assert length == 90_000
    rep = tmp_path / "r.json"
    assert main(["analyze", str(trace), "-q", "--no-cache", "--window", "10s:20s", "--json", str(rep)]) == 5
    inp = json.loads(rep.read_text())["sources"][0]["inputs"][0]
    # was "the trace records no ProfilerStep#N ranges: run without --steps/--window to see the span it records"
    assert inp["selection_hint"] == ("the profiled window is 90.00 µs long (--window counts from its start): try "
                                     "--window 0:90us")
    assert main(["analyze", str(trace), "-q", "--no-cache", "--window", "0:90us", "--json", str(rep)]) == 0
    assert json.loads(rep.read_text())["sources"][0]["summary"]["kernel_count"] == sum(
        1 for e in ev if e.get("cat") == "kernel")
