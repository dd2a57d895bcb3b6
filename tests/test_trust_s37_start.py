"""Issue 16, fixed costs: format detection of a folder reads each file's head once, and sharing it changes nothing.

Expected values come from the files written here (their bytes, names and what the folder holds), never from
gpulens's output: a folder file nothing recognises used to be opened six times (sniffing, the raw read for "empty /
NUL bytes", then the Git LFS, gpulens-output and SQLite checks, and the rank-file check); now its head is read once
for detection, plus the raw read and the rank-file check.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import pytest

from gpulens.collectors import collect, sniff
from gpulens.collectors._folder_files import _detect
from gpulens.collectors._io import one_read_of_heads, read_head
from gpulens.collectors.rocprof_v1 import csv_header
from tests.conftest import CASES


def _kineto_rank(rank: int) -> str:
    doc = json.loads((CASES / "B11.json").read_text())
    doc["distributedInfo"] = {"rank": rank, "world_size": 2, "backend": "nccl"}
    return json.dumps(doc, indent=1)


def _count_opens(monkeypatch, target: Path) -> list[str]:
    """Every open of ``target`` from now on (through ``io.open``, which ``Path.open`` and ``open`` use)."""
    seen: list[str] = []
    real = io.open

    def counting(file, *args, **kwargs):
        if str(file) == str(target):
            seen.append(str(file))
        return real(file, *args, **kwargs)

    monkeypatch.setattr(io, "open", counting)
    monkeypatch.setattr("builtins.open", counting)
    return seen


def test_an_unrecognised_file_is_detected_from_one_read_of_its_head(tmp_path, monkeypatch):
    log = tmp_path / "train.log.csv"
    log.write_text("step,loss\n1,0.5\n")
    opens = _count_opens(monkeypatch, log)
    c, why = _detect(log)
    assert c is None and why == "not a recognised trace format"
    # one head read shared by sniffing and the LFS / gpulens-output / SQLite checks, plus the raw read that tells
    # an empty or NUL-filled file (was 5: every check read the head again)
    assert len(opens) == 2


def test_a_recognised_file_is_opened_once_for_detection(tmp_path, monkeypatch):
    f = tmp_path / "rank-0.json"
    f.write_text(_kineto_rank(0))
    opens = _count_opens(monkeypatch, f)
    c, why = _detect(f)
    assert c is not None and c.name == "kineto" and why is None
    assert len(opens) == 1


def test_shared_head_is_the_head_read_alone(tmp_path):
    """Inside the block, a shorter head is the first bytes of the longer one read before — for plain text, gzip and
    a whole small file; UTF-16 text (transcoded: a character may be cut at the end) is read again."""
    plain = tmp_path / "a.txt"
    plain.write_bytes(b"x" * 10_000 + b"y" * 70_000)
    gz = tmp_path / "b.json.gz"
    gz.write_bytes(gzip.compress(b'{"traceEvents": [' + b" " * 100_000 + b"]}"))
    small = tmp_path / "c.csv"
    small.write_bytes(b"Name,Calls\nk,1\n")
    utf16 = tmp_path / "d.csv"
    utf16.write_bytes("Name,Calls,TotalDurationNs\nkernel_é,3,300\n".encode("utf-16"))
    for f in (plain, gz, small, utf16):
        alone = {n: read_head(f, n) for n in (16, 4096, 65536, 1 << 20)}
        with one_read_of_heads():
            shared = {n: read_head(f, n) for n in (65536, 16, 4096, 1 << 20)}
        assert shared == alone, f.name
    assert alone[16] == b"Name,Ca"  # the UTF-16 file's first 16 bytes (BOM + 7 characters), as UTF-8
    with one_read_of_heads():
        assert read_head(small, 4) == b"Name"
        assert read_head(small) == b"Name,Calls\nk,1\n"  # the whole file: 15 bytes


def test_a_file_changed_inside_the_block_is_read_again(tmp_path):
    f = tmp_path / "a.csv"
    f.write_bytes(b"Name,Calls\n")
    with one_read_of_heads():
        assert read_head(f) == b"Name,Calls\n"
        f.write_bytes(b"Index,KernelName,gpu-id\n")  # another size: another file for the block
        assert read_head(f) == b"Index,KernelName,gpu-id\n"


def test_csv_header_answers_each_head_and_each_caller_gets_its_own_list():
    a = b"Index,KernelName,gpu-id,BeginNs\n0,k,0,1\n"
    b = b"sep=;\nName;Calls;TotalDurationNs\n"
    first = csv_header(a)
    assert first == ["index", "kernelname", "gpu-id", "beginns"]
    first.append("changed by the caller")
    assert csv_header(a) == ["index", "kernelname", "gpu-id", "beginns"]
    assert csv_header(b) == ["name", "calls", "totaldurationns"]
    assert csv_header(bytes(a)) == ["index", "kernelname", "gpu-id", "beginns"]
    assert csv_header(b"") == []


def test_sniff_returns_a_fresh_collector_each_time(tmp_path):
    f = tmp_path / "rank-0.json"
    f.write_text(_kineto_rank(0))
    one, two = sniff(f), sniff(f)
    assert one is not None and one.name == two.name == "kineto" and one is not two


@pytest.mark.parametrize("n_logs", [3])
def test_folder_with_logs_and_a_lost_rank_reads_as_before(tmp_path, n_logs):
    """2 rank traces, 3 CSV logs and an empty ``rank-2.json``: 2 ranks read, the empty rank file lost (3 rank files
    in all: a partial result), the logs listed as not traces."""
    for r in range(2):
        (tmp_path / f"rank-{r}.json").write_text(_kineto_rank(r))
    for i in range(n_logs):
        (tmp_path / f"step-{i}.log.csv").write_text(f"step,loss\n{i},0.5\n")
    (tmp_path / "rank-2.json").write_bytes(b"")
    tl = collect(tmp_path)
    assert tl.ranks == [0, 1]
    assert tl.meta.rank_files == 3
    assert tl.meta.unread == {str(tmp_path / "rank-2.json"): "file is empty"}
    note = [w for w in tl.meta.warnings if "in the folder" in w]
    assert note == [f"{tmp_path}: 3 files in the folder are not traces and were not read: step-0.log.csv, "
                    "step-1.log.csv, step-2.log.csv (not a recognised trace format)"]
