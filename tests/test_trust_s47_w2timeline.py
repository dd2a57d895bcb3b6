"""Session 47, wave 2 — timeline leftovers: clock domains, unended events, nsys exec sum, Paddle threads, hints,
corrupt-gzip wording. One test per kind of fault; every expected value is derived in the test from the input it
builds (or from the format's documentation, cited beside it)."""

from __future__ import annotations

import pytest

from gpulens.collectors._hints import unsupported_format

# --- a hint that tells the user to record a file that is already there ---------------------------------------
# rocprofv3's PC-sampling CSV (header as rocprofiler-sdk's docs print it) is not read; the hint said "rocprofv3
# --kernel-trace writes <pid>_kernel_trace.csv beside it" even when that file lay beside it. Kind: a companion file
# the hint asks for, present. The same for the ATT instruction table and the PyTorch memory timeline.
_PCS = ('"Sample_Timestamp","Exec_Mask","Dispatch_Id","Instruction","Instruction_Comment","Correlation_Id"\n'
        '346444441301720,18446744073709551615,1,"v_mov_b32 v1, s2","",1\n')
_MEM_TIMELINE = "[[1000, 0, 512, 1], [2000, 1, 512, 1]]\n"


@pytest.mark.parametrize("name, text, companion, ask", [
    ("4242_pc_sampling_host_trap.csv", _PCS, "4242_kernel_trace.csv", "--kernel-trace writes"),
    ("mem.raw.json", _MEM_TIMELINE, "run.pt.trace.json", "export_chrome_trace's"),
])
def test_hint_names_the_companion_file_only_when_absent(tmp_path, name, text, companion, ask):
    f = tmp_path / name
    f.write_text(text)
    alone = unsupported_format(f)
    assert alone is not None and ask in alone  # absent: say how to record it
    (tmp_path / "9999_other_kernel_trace.csv").write_text("x\n") if companion.endswith(".csv") else None
    (tmp_path / companion).write_text("{}\n")
    beside = unsupported_format(f)
    assert ask not in beside and f"{companion}, beside it" in beside  # present: name it (same run's first)


# --- corrupt gzip said as what happened -----------------------------------------------------------------------
# A gzip member ends with an 8-byte trailer: CRC-32 then ISIZE (RFC 1952 §2.3.1). A flipped trailer byte fails the
# check only after every byte of text decompressed: the reader said "what the file held after it is lost" and (for a
# Kineto trace) lost the events of the last decompress call. A flipped bit in the deflate data that still decodes
# makes the JSON stop parsing mid-file: it said "file ends inside traceEvents" though the file goes on. Kind: the
# words of a damaged gzip stream (cut short / corrupt / failed check) against what was lost.
def _gz_trace(n: int) -> tuple[bytes, bytes]:
    import gzip
    import json

    ev = [{"ph": "X", "cat": "kernel", "name": f"k{i % 5}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7, "correlation": i + 1}} for i in range(n)]
    raw = json.dumps({"traceEvents": ev}).encode()
    return raw, gzip.compress(raw, 6, mtime=0)


@pytest.mark.parametrize("at", [-8, -6, -2])  # a CRC-32 byte, another CRC-32 byte, an ISIZE byte
def test_bad_gzip_trailer_keeps_every_event_and_says_nothing_is_lost(tmp_path, at):
    import zlib

    from gpulens.collectors import collect

    raw, gz = _gz_trace(20_000)  # ≈ 3 MB of text: more than one decompress call of the stream reader
    bad = bytearray(gz)
    bad[at] ^= 0x01
    with pytest.raises(zlib.error, match="incorrect (data|length) check"):
        zlib.decompress(bytes(bad), 31)
    p = tmp_path / "t.json.gz"
    p.write_bytes(bytes(bad))
    tl = collect(p)
    assert len(tl.events) == 20_000  # every event of the text (the number written above)
    said = [w for w in tl.meta.warnings if "gzip" in w]
    assert said and all("lost" not in w.replace("nothing is lost", "") for w in said)
    assert any(f"all {len(raw):,} bytes" in w for w in said)


def test_gzip_corrupt_mid_stream_is_not_said_to_end(tmp_path):
    import zlib

    from gpulens.collectors import collect

    raw, gz = _gz_trace(20_000)
    # flip bits in the middle of the deflate data until the stream still decodes to full length but the text differs
    # (a corrupt literal: the check fails only at the trailer) — found by trying, decided by zlib itself
    for k in range(len(gz) // 2, len(gz) // 2 + 4000):
        bad = bytearray(gz)
        bad[k] ^= 0x10
        d = zlib.decompressobj(-15)  # the raw deflate data after the 10-byte header (gzip.compress writes no name)
        try:
            text = d.decompress(bytes(bad[10:]))
        except zlib.error:
            continue  # this flip breaks the stream earlier: not the case tested here
        if len(text) == len(raw) and text != raw:
            break
    else:
        pytest.skip("no flip found that keeps the length")
    p = tmp_path / "t.json.gz"
    p.write_bytes(bytes(bad))
    tl = collect(p, strict=False)
    first_diff = next(i for i, (a, b) in enumerate(zip(text, raw)) if a != b)
    assert tl.meta.truncated and tl.meta.truncated_at[str(p)] <= first_diff + 200
    assert not any("file ends inside" in w for w in tl.meta.warnings)
    assert any("corrupt" in w and "the file does not end there" in w for w in tl.meta.warnings)


# --- Paddle host thread ids "11(C++)" ----------------------------------------------------------------------------
# PaddlePaddle's Chrome trace names host threads "11(C++)" / "12(Python)": read as no thread, every host thread merged
# into one. Kind: an id written as a number with a parenthesised label after it. Both Kineto reading paths (the native
# scanner's and msgspec's) must give each event its own thread, the same on both.
@pytest.mark.parametrize("fast", ["0", "1"])
def test_paddle_thread_ids_read_on_both_paths(tmp_path, monkeypatch, fast):
    import json

    from gpulens.collectors import collect

    monkeypatch.setenv("GPULENS_KINETO_FAST", fast)
    threads = [11, 12, 11, 13]
    labels = {11: "11(C++)", 12: "12(Python)", 13: "13 (C++)"}
    ev = [{"ph": "X", "cat": "Operator", "name": f"op{i}", "pid": 7, "tid": labels[t], "ts": 1000 + 10 * i, "dur": 4,
           "args": {}} for i, t in enumerate(threads)]
    ev.append({"ph": "X", "cat": "Kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 1003, "dur": 2,
               "args": {"device": 0, "stream": 7, "correlation id": 5}})
    p = tmp_path / "paddle.json"
    p.write_text(json.dumps({"traceEvents": ev}))
    e = collect(p).events
    ops = e[e["name"].astype(str).str.startswith("op")].sort_values("start_ns")
    assert ops["tid"].astype("Int64").tolist() == threads  # the number before each label, as written above
