"""Rank files given one by one are separate reports; a note names the way to read them as one run."""

from __future__ import annotations

import json
import shutil

from tests.test_cli import run


def _rank_file(path, rank):
    ev = [{"ph": "X", "cat": "kernel", "name": f"k{rank}", "pid": 0, "tid": 7, "ts": 1000 + 10 * i, "dur": 5,
           "args": {"device": 0, "stream": 7}} for i in range(3)]
    path.write_text(json.dumps({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}))
    return path


def test_two_rank_files_alone_in_their_folder_name_the_folder(tmp_path):
    a, b = _rank_file(tmp_path / "r0.json", 0), _rank_file(tmp_path / "r1.json", 1)
    r = run("analyze", str(a), str(b), "--no-cache")
    out = " ".join(r.stdout.split())
    assert r.returncode == 0
    assert "these 2 files hold ranks 0, 1, one each" in out and f"`gpulens analyze {tmp_path.resolve()}`" in out
    # read as one: one source with both ranks (2 × 3 kernels of 5 µs)
    rj = tmp_path / "one.json"
    assert run("analyze", str(tmp_path), "--no-cache", "-q", "--json", str(rj)).returncode == 0
    src = json.loads(rj.read_text())["sources"]
    assert len(src) == 1 and src[0]["summary"]["ranks"] == [0, 1] and src[0]["summary"]["kernel_count"] == 6


def test_folder_with_other_files_asks_for_a_folder_of_their_own(tmp_path):
    a, b = _rank_file(tmp_path / "r0.json", 0), _rank_file(tmp_path / "r1.json", 1)
    shutil.copy(a, tmp_path / "other.json")
    out = " ".join(run("analyze", str(a), str(b), "--no-cache").stdout.split())
    assert "put them in one directory and pass the directory" in out


def test_no_note_for_one_rank_twice_or_a_joined_run(tmp_path):
    a, b = _rank_file(tmp_path / "a.json", 0), _rank_file(tmp_path / "b.json", 0)
    assert "Note: these" not in run("analyze", str(a), str(b), "--no-cache").stdout  # rank 0 in both files
    c = _rank_file(tmp_path / "c.json", 1)
    assert "Note: these" not in run("analyze", str(a), str(c), "--no-cache", "--join").stdout
