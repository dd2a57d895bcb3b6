"""Session 34 robustness (fuzzing): inputs whose cost or output grew faster than their size.

* Annotation ranges nested thousands deep (a recursive model's ``record_function``, or a fuzzer's staircase of
  partly overlapping ranges, which nest by the stack sweep): the annotations table wrote every range's whole
  chain of enclosing names, n²/2 names for a chain of n (8,000 staircase ranges, 3.3 MB of trace: 17 s in the
  annotations analyzer and paths of 80,000 characters; 32,000 would need gigabytes). A path now shows at most
  ``PATH_FULL`` names (first and last ``PATH_ENDS`` around "… N more …"), rows stay grouped by the whole chain, and
  the inclusive sums take one pass per depth over that depth's ranges only.
* An ncu raw-page CSV with its units row written again between launches: read as an '(unnamed)' launch of
  unknown duration, so every time total of the file was unknown; now skipped and counted.
* A top-level ``traceEvents`` key written twice, the full array first: read as an empty trace (exit 5) with no
  word; now the longest array is read and the repeat is said.
* A 100 kB kernel name of RTL overrides: escaped again for every report cell (60 s for a 1.3 MB trace).
"""

from __future__ import annotations

import json

from gpulens.analyzers.annotations import PATH_ENDS, PATH_FULL
from gpulens.report import analyze


def _deep_annotations(path, n: int) -> None:
    """``n`` user annotations ``lvl0`` ⊃ ``lvl1`` ⊃ … on one thread; inside ``lvl{i}`` before ``lvl{i+1}`` opens, one
    launch call of a 1 µs kernel. So level i owns kernels i..n-1: inclusive GPU time (n − i) × 1000 ns, self 1000."""
    ev = []
    for i in range(n):
        ev.append(dict(ph="X", cat="user_annotation", name=f"lvl{i}", pid=1, tid=1, ts=10 * i,
                       dur=10 * (2 * n - 2 * i) + 5, args={}))
        ev.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", pid=1, tid=1, ts=10 * i + 1, dur=1,
                       args={"correlation": i + 1}))
        ev.append(dict(ph="X", cat="kernel", name="k", pid=0, tid="stream 7", ts=10 * i + 5, dur=1,
                       args={"device": 0, "stream": 7, "correlation": i + 1}))
    path.write_text(json.dumps({"traceEvents": ev}))


def test_annotation_paths_thousands_deep_stay_short_and_sums_exact(tmp_path):
    n = 3000
    trace = tmp_path / "deep.json"
    _deep_annotations(trace, n)
    t = analyze([trace]).sources[0].results["annotations"].table
    assert len(t) == n and int(t["depth"].max()) == n - 1
    t = t.set_index("depth")
    for k in (0, 1, PATH_FULL - 1, PATH_FULL, n // 2, n - 1):
        row = t.loc[k]
        assert row["annotation"] == f"lvl{k}"
        assert (row["gpu_time_ns"], row["self_gpu_time_ns"], row["gpu_events"]) == ((n - k) * 1000, 1000, n - k)
    # a chain up to PATH_FULL ranges is written whole; a deeper one keeps its ends and counts the rest
    assert t.loc[PATH_FULL - 1, "path"] == " / ".join(f"lvl{i}" for i in range(PATH_FULL))
    first = " / ".join(f"lvl{i}" for i in range(PATH_ENDS))
    last = " / ".join(f"lvl{i}" for i in range(n - PATH_ENDS, n))
    assert t.loc[n - 1, "path"] == f"{first} / … {n - 2 * PATH_ENDS} more … / {last}"
    assert t["path"].str.len().max() < 200  # the whole chain of 3000 names is ~ 24,000 characters


_NCU_RAW = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
    '"Device","CC","dram__bytes_read.sum","gpu__time_duration.sum"\n'
    '"","","","","","","","","","","","Mbyte","usecond"\n'
    '"0","4242","demo","h","gemm(float*)","1","7","(256, 1, 1)","(4096, 1, 1)","0","9.0","1,048.58","1,234.56"\n'
    '{again}'
    '"1","4242","demo","h","reduce(float*)","1","7","(1024, 1, 1)","(132, 1, 1)","0","9.0","0.52","2,050.00"\n')


def test_ncu_raw_units_row_written_again_is_no_launch(tmp_path):
    """An ncu raw-page CSV whose units row comes again between launches (two outputs spliced without their header,
    an edited file): that row is no launch. It was read as an '(unnamed)' launch of unknown duration, which made
    the kernel time of the whole file unknown; now it is skipped and counted."""
    from gpulens import collect

    f = tmp_path / "raw.csv"
    f.write_text(_NCU_RAW.format(again='"","","","","","","","","","","","Mbyte","usecond"\n,,,,,,,,,,,,\n'))
    tl = collect(f)
    k = tl.events[tl.events["kind"] == "kernel"]
    assert sorted(k["name"].astype(str)) == ["gemm(float*)", "reduce(float*)"]
    assert int(k["dur_ns"].sum()) == 1_234_560 + 2_050_000  # µs × 1000, thousands separators read
    assert any("2 rows without a launch ID" in w for w in tl.meta.warnings)


def _kernels(n: int, t0: int = 0) -> list[dict]:
    return [dict(ph="X", cat="kernel", name=f"k{i % 3}", pid=0, tid="stream 7", ts=t0 + 10 * i, dur=4,
                 args={"device": 0, "stream": 7, "correlation": i + 1}) for i in range(n)]


def test_traceevents_key_written_twice_reads_the_longest_array(tmp_path):
    """``{"traceEvents": [300 kernels], "traceEvents": []}`` (a hand-merged file): every JSON reader keeps the last
    key, so the trace read as empty ('no GPU work', exit 5) with no word about the 300 events. The longest array is
    read now — whole also when the file is streamed in pieces — and the repeat is said with each key's count."""
    from gpulens.collectors.kineto import KinetoCollector

    f = tmp_path / "twice.json"
    f.write_text('{"schemaVersion": 1, "traceEvents": ' + json.dumps(_kernels(300))
                 + ', "traceEvents": [], "displayTimeUnit": "ms"}')
    for chunk in (None, 2_000):  # whole, and streamed in pieces of 2 kB (the array split across them)
        tl = KinetoCollector().collect(f, **({} if chunk is None else {"chunk_bytes": chunk}))
        k = tl.events[tl.events["kind"] == "kernel"]
        assert len(k) == 300 and int(k["dur_ns"].sum()) == 300 * 4_000
        said = [w for w in tl.meta.warnings if "'traceEvents' is written 2 times" in w]
        assert len(said) == 1 and (chunk is not None or "order: 300, 0)" in said[0])
    # the longer array second: read as before (the last key), and said too
    g = tmp_path / "twice_b.json"
    g.write_text('{"traceEvents": ' + json.dumps(_kernels(2)) + ', "traceEvents": ' + json.dumps(_kernels(5)) + "}")
    tl = KinetoCollector().collect(g)
    assert (tl.events["kind"] == "kernel").sum() == 5
    assert any("2, 5" in w for w in tl.meta.warnings)


def test_visible_escape_of_a_long_name_is_computed_once():
    """A 100 kB kernel name of 100,000 U+202E (fuzz_s10 ``long_name``, seed 3403 input 18: 1.3 MB of trace, 60 s,
    past the fuzzer's 20 s CPU limit) was escaped again for each of 1,839 report cells (18 s of one HTML report);
    the escape is memoised now, and the name splitter reads only its first SPLIT_CHARS characters."""
    from gpulens.reports._md_safe import visible
    from gpulens.reports._names import SPLIT_CHARS, _split

    name = "mlp_down" + "\u202e" * 100_000
    first = visible(name, bidi=True)
    assert first == "mlp_down" + "\\u202e" * 100_000  # 6 visible characters per RTL override
    assert visible(name, bidi=True) is first  # the same object: not escaped again
    # the splitter's answer for a real templated name is unchanged; a longer tail is not scanned
    assert _split("void at::native::vectorized_elementwise_kernel<4, float>(int)") == (
        "at::native::vectorized_elementwise_kernel", "float")
    assert _split("k<float>" + "<" * (SPLIT_CHARS * 4) + "(int)") == ("k", "float")
