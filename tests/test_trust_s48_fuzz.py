"""Regressions of the faults tests/fuzz_s48.py found (session 48): one test per kind of fault, each on a small
hand-made input with its expected value derived here (the input itself, a hand count)."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _analyze(path: Path, tmp: Path, *extra: str) -> tuple[int, str, dict | None]:
    """``gpulens analyze PATH --json`` in this process: (exit code, console + stderr text, JSON report or None)."""
    from gpulens.cli import main

    out = tmp / "r.json"
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(["analyze", str(path), "--no-cache", "--force", "--json", str(out), *extra])
    return code, buf.getvalue(), json.loads(out.read_text()) if out.exists() else None


def _null_table(db: Path, prefix: str) -> list[str]:
    """Every value of the first table named ``prefix…`` set to NULL (the table re-made without declared types, so
    nothing is coerced); returns its columns."""
    con = sqlite3.connect(db)
    tab = next(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
               if r[0].startswith(prefix))
    cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
    n = con.execute(f'SELECT count(*) FROM "{tab}"').fetchone()[0]
    con.execute(f'DROP TABLE "{tab}"')
    con.execute(f'CREATE TABLE "{tab}" ({", ".join(cols)})')
    con.executemany(f'INSERT INTO "{tab}" VALUES ({", ".join("?" * len(cols))})', [[None] * len(cols)] * n)
    con.commit()
    con.close()
    return cols


def test_agent_rows_with_every_field_null_are_no_gpu_devices(tmp_path):
    """Kind: a device (agent) record with every field NULL — no type, no node, no id — was taken for a GPU: the
    report listed two devices of rank 0 with no id while its per-GPU time breakdown named GPU 2, a device the list
    does not hold. Such a row identifies no GPU: no device record is made of it; the kernels (their own table is
    intact) are all still read."""
    from tests.test_rocpd import build_layout_a

    db = tmp_path / "results.db"
    build_layout_a(db)
    con = sqlite3.connect(db)
    tab = next(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_kernel_dispatch%' "
                                         "AND type = 'table'"))
    n_kernels = con.execute(f'SELECT count(*) FROM "{tab}"').fetchone()[0]
    con.close()
    assert n_kernels == 2  # build_layout_a: two dispatches (gemm, add)
    _null_table(db, "rocpd_info_agent")
    code, _, doc = _analyze(db, tmp_path)
    assert code == 0
    src = doc["sources"][0]
    assert src["summary"]["kernel_count"] == n_kernels
    devs = src.get("devices") or []
    assert all(d.get("device_id") is not None for d in devs), devs
    ids = {(d.get("rank"), d.get("device_id")) for d in devs}
    for row in (src.get("breakdown") or {}).get("table") or []:
        if len([d for d in devs if d.get("rank") == row.get("rank")]) > 1:
            assert (row.get("rank"), row.get("device_id")) in ids


@pytest.mark.parametrize("typ", [None, "", float("nan")])
def test_sdk_agent_record_without_type_or_node_is_no_device(typ):
    """The reader behind it: an agent record with neither a type nor a node id describes no GPU; one with a node
    id (a GPU whose type cell is blank) is still a device, numbered by that node."""
    from gpulens.collectors._amd import device_from_sdk_agent

    assert device_from_sdk_agent({"type": typ, "node_id": None}) is None
    dev = device_from_sdk_agent({"type": typ, "node_id": 2})
    assert dev is not None and dev["device_id"] == 2
    assert device_from_sdk_agent({"type": "CPU", "node_id": 0}) is None


def _retype_table(db: Path, prefix: str, cast: str) -> int:
    """Every value of the first table named ``prefix…`` stored as ``cast`` (REAL, TEXT: the table re-made without
    declared types, so SQLite keeps the cast's storage class); returns its row count."""
    con = sqlite3.connect(db)
    tab = next(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
               if r[0].startswith(prefix))
    cols = [r[1] for r in con.execute(f'PRAGMA table_info("{tab}")')]
    con.execute(f'CREATE TABLE "{tab}__n" ({", ".join(cols)})')
    con.execute(f'INSERT INTO "{tab}__n" SELECT {", ".join(f"CAST({c} AS {cast})" for c in cols)} FROM "{tab}"')
    con.execute(f'DROP TABLE "{tab}"')
    con.execute(f'ALTER TABLE "{tab}__n" RENAME TO "{tab}"')
    n = con.execute(f'SELECT count(*) FROM "{tab}"').fetchone()[0]
    con.commit()
    con.close()
    return n


def test_untimed_dispatches_are_counted_once(tmp_path):
    """Kind: kernel dispatches recorded without a usable time (here: a rocpd dispatch table whose every value is
    REAL, so its ``guid`` 'g' became 0.0 and neither its timestamps nor its symbols resolve) in a run whose copies
    are timed were counted twice — once through their launch-resource rows (the count of a run without timed
    kernels) and again as launches that are no events: "4 launches" of a database holding 2 dispatches, and a kernel
    table summing to 2. Each dispatch is one launch."""
    from tests.report_invariants import violations
    from tests.test_rocpd import build_layout_a

    db = tmp_path / "results.db"
    build_layout_a(db)
    n = _retype_table(db, "rocpd_kernel_dispatch", "REAL")
    assert n == 2  # build_layout_a: gemm and add
    code, out, doc = _analyze(db, tmp_path)
    assert code == 0, out
    sm = doc["sources"][0]["summary"]
    assert sm["kernel_count"] == n
    assert sm["untimed_launches"] == n  # none of them has a time
    assert f"{n} launches of" in out
    assert not violations(doc)
