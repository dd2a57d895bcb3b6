"""Scale features: streamed loading, exact time parsing, the synthetic trace generator, load-time selection."""

import gzip
import sys
from pathlib import Path

import msgspec
import pandas as pd
import pytest

import gpulens
from gpulens.collectors import collect
from gpulens.collectors._kineto_columns import us_text_to_ns
from gpulens.collectors.kineto import KinetoCollector
from gpulens.errors import GpulensError
from gpulens.timeline.selection import Selection, parse_ranks
from tests.conftest import CASES, KINETO, shared_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import gen_kineto  # noqa: E402


def assert_same_timeline(a, b):
    for t in ("events", "counters", "rejected"):
        pd.testing.assert_frame_equal(getattr(a, t), getattr(b, t))
    assert a.meta.to_dict() == b.meta.to_dict()


STREAM_FILES = [KINETO / f for f in ("hta_alexnet_a100.json.gz", "tracelens_h100_bert-small.json.gz",
                                     "tracelens_mi300x_bert-small.json.gz", "aorta_mi350x_train_step.pt.trace.json",
                                     "multirank/sampled_rank-0.json.gz", "torch2.13_cpu_only_mm.pt.trace.json")]
STREAM_FILES += [CASES / f for f in ("B02.pt.trace.json.gz", "B04a.json", "B04b.json", "B05a.json", "B06.json",
                                     "B07.json", "B11.json", "B12.json", "B13.json")]
SHARED = ["kineto/hta_v100_rank0_ns_resolution.pt.trace.json.gz",
          "kineto/kineto_tbplugin_resnet50_legacy_worker0.pt.trace.json.gz",
          "kineto/tracelens_mi210_gpu_only.json.gz", "kineto/hta_mi250_minitoy_rocm6.2.json.gz"]


@pytest.mark.parametrize("path", STREAM_FILES, ids=lambda p: p.name)
def test_streamed_load_equals_whole_load(path):
    # 4 KiB pieces cut every file into many pieces; 1 TiB pieces decode it whole in one go
    kc = KinetoCollector()
    assert_same_timeline(kc.collect(path, chunk_bytes=4096), kc.collect(path, chunk_bytes=1 << 40))


@pytest.mark.parametrize("rel", SHARED)
def test_streamed_load_equals_whole_load_on_shared_traces(rel):
    path = shared_trace(rel)
    kc = KinetoCollector()
    whole = kc.collect(path, chunk_bytes=1 << 40)
    assert len(whole.events) > 100
    assert_same_timeline(kc.collect(path, chunk_bytes=64 << 10), whole)


def test_cut_inside_a_kernel_name_is_rejected_and_retried(tmp_path):
    # "}, {" inside a name looks like an event boundary; the streamed result must still be exact
    evs = [{"ph": "X", "cat": "kernel", "name": "k<{lambda()#1}, {lambda()#2}>" * 20, "pid": 0, "tid": 7,
            "ts": 10 + i, "dur": 0.5, "args": {"stream": 7, "device": 0}} for i in range(200)]
    p = tmp_path / "t.json"
    p.write_bytes(msgspec.json.encode({"traceEvents": evs}))
    kc = KinetoCollector()
    small = kc.collect(p, chunk_bytes=700)
    assert len(small.events) == 200 and small.events["dur_ns"].eq(500).all()
    assert_same_timeline(small, kc.collect(p, chunk_bytes=1 << 40))


def test_us_text_to_ns_is_exact():
    texts = [b"1712195495505583.123", b"4.928", b"2.4", b"12.34", b"0", b"-1", b"0.0005", b"0.0015", b"1e3",
             b'"12.5"', b"null", b"9223372036854775.807", b"9223372036854775.808"]
    raws = msgspec.json.decode(b"[" + b",".join(texts) + b"]", type=list[msgspec.Raw]) + [msgspec.Raw()]
    ns, ok = us_text_to_ns(raws)
    got = [int(v) if o else None for v, o in zip(ns, ok)]
    # by hand: µs × 1000, sub-ns digits rounded half-even (0.5 ns → 0, 1.5 ns → 2); beyond int64 / null → invalid
    assert got == [1712195495505583123, 4928, 2400, 12340, 0, -1000, 0, 2, 1_000_000, 12500, None,
                   9223372036854775807, None, None]


@pytest.mark.parametrize("dialect,gz", [("cuda", False), ("rocm", True)])
def test_generated_trace_loads_to_the_generators_facts(tmp_path, dialect, gz):
    facts = gen_kineto.generate(tmp_path / "t.pt.trace.json", 1234, dialect=dialect, gz=gz, steps=5)[0]
    path = Path(facts["path"])
    if gz:
        with path.open("rb") as fh:
            assert fh.read(2) == b"\x1f\x8b"
    src = gpulens.analyze([path]).sources[0]
    s = src.summary
    assert s["kernel_count"] == facts["kernels"] == 1234
    assert s["kernel_time_ns"] == facts["kernel_ns"]
    assert s["cpu_op_count"] == facts["cpu_ops"]
    tl = src.timeline
    assert int((tl.events["kind"] == "comm").sum()) == facts["comm_kernels"] == 1234 // 50
    assert int((tl.events["kind"] == "runtime").sum()) == facts["runtime"]
    # every kernel links to exactly one launch call
    k = tl.of_kind("kernel", "comm")
    assert set(k["correlation_id"]) == set(tl.of_kind("runtime")["correlation_id"])


def test_generated_ranks_directory(tmp_path):
    facts = gen_kineto.generate(tmp_path / "run", 300, ranks=3, steps=3)
    tl = collect(tmp_path / "run")
    assert tl.ranks == [0, 1, 2]
    per_rank = tl.of_kind("kernel", "comm").groupby("rank")["dur_ns"].agg(["size", "sum"])
    for f in facts:
        r = int(Path(f["path"]).name.split("-")[1].split(".")[0])
        assert per_rank.loc[r, "size"] == 300 and per_rank.loc[r, "sum"] == f["kernel_ns"]


def test_steps_selection_keeps_launched_gpu_work(tmp_path):
    facts = gen_kineto.generate(tmp_path / "t.json", 1000, steps=10)[0]
    tl = collect(facts["path"], select=Selection.parse(steps="3:4"))
    assert int(tl.of_kind("kernel", "comm").shape[0]) == facts["step_kernels"][3] + facts["step_kernels"][4] == 200
    assert sorted(tl.of_kind("annotation")["name"]) == ["ProfilerStep#3", "ProfilerStep#4"]
    assert tl.events["event_id"].tolist() == list(range(len(tl.events)))
    # counters follow their kernels: each kept compute kernel has its 3 Kineto estimates
    assert len(tl.counters) == 3 * int((tl.events["kind"] == "kernel").sum())
    assert tl.counters["event_id"].isin(tl.events["event_id"]).all()
    # the same selection applied to a fully loaded Timeline gives the same rows
    applied = Selection.parse(steps="3:4").apply(collect(facts["path"]))
    pd.testing.assert_frame_equal(applied.events, tl.events)
    pd.testing.assert_frame_equal(applied.counters, tl.counters)


def test_window_selection_by_hand(tmp_path):
    evs = [{"ph": "X", "cat": "cpu_op", "name": f"op{i}", "pid": 1, "tid": 1, "ts": 100 + 10 * i, "dur": 5}
           for i in range(10)]  # starts at 0, 10, ..., 90 µs after the first
    p = tmp_path / "w.json"
    p.write_bytes(msgspec.json.encode({"traceEvents": evs}))
    tl = collect(p, select=Selection.parse(window="20us:50us"))
    assert tl.events["name"].astype(str).tolist() == ["op2", "op3", "op4"]
    tl2 = collect(p, select=Selection.parse(window="85000:"))
    assert tl2.events["name"].astype(str).tolist() == ["op9"]


def test_ranks_selection_skips_other_rank_files():
    tl = collect(KINETO / "multirank", select=Selection.parse(ranks="1"))
    assert tl.ranks == [1]
    assert len(tl.meta.sources) == 1 and tl.meta.sources[0]["rank"] == 1


def test_selection_texts():
    assert parse_ranks("0-3,8") == frozenset({0, 1, 2, 3, 8})
    s = Selection.parse(steps="3", window="1.5ms:2s")
    assert s.steps == (3, 3) and s.window_ns == (1_500_000, 2_000_000_000)
    with pytest.raises(GpulensError):
        Selection.parse(steps="a:b")
    with pytest.raises(GpulensError):
        Selection.parse(window="10parsecs:20")


def test_gzip_streaming_reads_every_member(tmp_path):
    # two gzip members: the trace split in the middle of the events array
    data = (CASES / "B04a.json").read_bytes()
    half = len(data) // 2
    p = tmp_path / "two.json.gz"
    p.write_bytes(gzip.compress(data[:half]) + gzip.compress(data[half:]))
    a, b = KinetoCollector().collect(p, chunk_bytes=64), collect(CASES / "B04a.json")
    pd.testing.assert_frame_equal(a.events, b.events)


def test_us_text_to_ns_equals_decimal_arithmetic_on_mixed_texts():
    # every number's expected ns from Python's decimal: µs × 1000, half-even to whole ns, None outside int64; a JSON
    # string holding a number is read as that number (texts that are not JSON are left out: msgspec rejects them)
    from decimal import ROUND_HALF_EVEN, Decimal

    import numpy as np

    rng = np.random.default_rng(7)
    texts = [b"-0", b"-12.5", b"1e2", b"-2.5E-3", b"123456789012345678", b"1234567890123456789",
             b"9223372036854775.8071", b"-9223372036854775.808", b"12345678901234567.8", b'"-3.25"', b"0.1234"]
    for _ in range(400):
        digits = "".join(rng.choice(list("0123456789"), int(rng.integers(1, 21)))).lstrip("0") or "0"
        k = int(rng.integers(0, 6))
        t = digits if k == 0 or k >= len(digits) else digits[:-k] + "." + digits[-k:]
        texts.append((("-" if rng.random() < 0.3 else "") + t).encode())

    def expect(t: bytes):
        v = int((Decimal(t.decode().strip('"')) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN))
        return v if -(1 << 63) <= v < (1 << 63) else None

    raws = msgspec.json.decode(b"[" + b",".join(texts) + b"]", type=list[msgspec.Raw])
    ns, ok = us_text_to_ns(raws)
    got = [int(v) if o else None for v, o in zip(ns, ok)]
    assert got == [expect(t) for t in texts]
