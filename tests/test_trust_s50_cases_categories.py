"""Session 50: the T11 / B12 kind (GPU work told apart by its category, the same work under another spelling) in the
Trace Event Format's own spelling of ``cat``: "The event categories. This is a comma separated list of categories for
the event" (Trace Event Format, Google, "Event Descriptions"). A kernel written ``"cat": "kernel,gpu"`` was kept as
an event of "other categories": 0 kernels, exit 5, and its launch call called lost work ("incomplete capture"); a
copy under ``"gpu_memcpy,cuda"`` was no copy; a launch under ``"cuda_runtime,api"`` no launch call.

Every expected figure is worked out by hand from the events written here (µs in the file, ns in the report).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpulens.cli import main
from gpulens.collectors._kineto_kinds import category_key

US = 1000  # ns per µs


def _analyze(path: Path, tmp_path: Path) -> tuple[int, dict | None]:
    out = tmp_path / "out.json"
    code = main(["analyze", "-q", "--no-cache", str(path), "--json", str(out)])
    return code, (json.loads(out.read_text())["sources"][0] if out.exists() else None)


def _ev(cat: str, name: str, ts: float, dur: float, pid=0, tid="stream 7", **args) -> dict:
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args}


def _trace(tmp_path: Path, kernel_cat: str, copy_cat: str, launch_cat: str, reverse: bool) -> Path:
    """One launch call (corr 1, 5 µs) → ``gemm`` (10 µs at 100), a second kernel ``softmax`` (5 µs at 120, corr 2,
    launched by a call of the plain category), a 4,096 B HtoD copy of 2 µs at 130 and a host ``aten::mm`` op."""
    evs = [_ev("cpu_op", "aten::mm", 80, 40, pid=70, tid=70),
           _ev(launch_cat, "cudaLaunchKernel", 90, 5, pid=70, tid=70, correlation=1),
           _ev("cuda_runtime", "cudaLaunchKernel", 110, 5, pid=70, tid=70, correlation=2),
           _ev(kernel_cat, "gemm", 100, 10, device=0, stream=7, correlation=1),
           _ev(kernel_cat, "softmax", 120, 5, device=0, stream=7, correlation=2),
           _ev(copy_cat, "Memcpy HtoD (Pageable -> Device)", 130, 2, device=0, stream=7, bytes=4096)]
    p = tmp_path / "t.pt.trace.json"
    p.write_text(json.dumps({"schemaVersion": 1, "traceEvents": evs[::-1] if reverse else evs}))
    return p


@pytest.mark.parametrize("scanner", ["0", "1"])  # msgspec decoding and the byte scanner read the same categories
@pytest.mark.parametrize("kernel_cat, copy_cat, launch_cat", [
    ("kernel", "gpu_memcpy", "cuda_runtime"),  # the usual spelling: the reference
    ("kernel,gpu", "gpu_memcpy,cuda", "cuda_runtime,api"),
    ("gpu,Kernel", "cuda, Memcpy", "api, CUDA_RUNTIME"),  # the kind's category anywhere in the list, any case
])
def test_category_lists_read_as_their_known_category(tmp_path, monkeypatch, scanner, kernel_cat, copy_cat,
                                                     launch_cat):
    """2 kernels, 10 + 5 = 15 µs = 15,000 ns; 1 copy of 4,096 B (2 µs); 2 launch calls, no kernel unlinked; GPU busy
    10 + 5 + 2 = 17 µs over the GPU span 100 → 132 µs = 32,000 ns."""
    monkeypatch.setenv("GPULENS_KINETO_FAST", scanner)
    for reverse in (False, True):
        code, src = _analyze(_trace(tmp_path, kernel_cat, copy_cat, launch_cat, reverse), tmp_path)
        assert code == 0, src and src["warnings"]
        sm, la = src["summary"], src["analyses"]["launches"]["summary"]
        assert (sm["kernel_count"], sm["kernel_time_ns"]) == (2, 15 * US)
        assert (sm["memcpy_count"], sm["memcpy_bytes"]) == (1, 4096)
        assert (sm["gpu_busy_ns"], sm["span_ns"]) == (17 * US, 32 * US)
        assert (la["launch_calls"], la["kernels_unlinked"]) == (2, 0)
        assert not any("other categories" in w or "incomplete capture" in w for w in src["warnings"])


def test_begin_end_kernel_under_a_category_list(tmp_path):
    """A GPU slice written as a ``B``/``E`` pair under ``"kernel,gpu"`` is a kernel: 30 → 42 µs = 12,000 ns; one
    more ``B`` on the stream never ended is a GPU slice left unended (not extended to the end of the trace)."""
    evs = [{"ph": "B", "cat": "kernel,gpu", "name": "k_be", "pid": 0, "tid": "stream 7", "ts": 30,
            "args": {"device": 0, "stream": 7}},
           {"ph": "E", "cat": "kernel,gpu", "name": "k_be", "pid": 0, "tid": "stream 7", "ts": 42},
           _ev("kernel", "k_x", 50, 8, device=0, stream=7),
           {"ph": "B", "cat": "gpu,kernel", "name": "k_open", "pid": 0, "tid": "stream 7", "ts": 60,
            "args": {"device": 0, "stream": 7}}]
    p = tmp_path / "be.json"
    p.write_text(json.dumps({"traceEvents": evs}))
    code, src = _analyze(p, tmp_path)
    assert code == 0
    kt = {r["name"]: r["total_ns"] for r in src["analyses"]["hotspots"]["table"]}
    assert kt.get("k_be") == 12 * US and kt.get("k_x") == 8 * US  # 42 − 30 µs; the X kernel's 8 µs
    assert src["summary"]["span_ns"] <= (58 - 30) * US  # the unended k_open does not stretch the GPU span


@pytest.mark.parametrize("cat, key", [
    ("kernel", "kernel"), ("Kernel", "kernel"), ("kernel,gpu", "kernel"), ("gpu, gpu_memset", "gpu_memset"),
    ("foo,bar", "foo,bar"), ("", ""), (None, ""), (5, ""), (",", ","),
])
def test_category_key(cat, key):
    """The first listed category with a kind, lower-cased; a list of unknown ones stays as written (lower-cased)."""
    assert category_key(cat) == key
