"""``gpulens analyze … --csv DIR / --parquet DIR``: every analysis table written, every column documented."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from gpulens.cli import main
from tests.conftest import KINETO
from tests.dig_traces import kernel_durations

BERT = KINETO / "tracelens_h100_bert-small.json.gz"


def test_csv_and_parquet_export_every_table_with_documented_columns(tmp_path):
    csv, pq = tmp_path / "csv", tmp_path / "pq"
    assert main(["analyze", str(BERT), "-q", "--no-cache", "--csv", str(csv), "--parquet", str(pq)]) == 0
    docs = pd.read_csv(csv / "columns.csv")
    summaries = json.loads((csv / "summaries.json").read_text())
    tables = sorted(p.stem for p in csv.glob("*.csv") if p.name != "columns.csv")
    assert {"hotspots", "kernel_groups", "op_rollup", "critical_path", "memory_timeline"} <= set(tables)
    assert set(tables) <= set(summaries)
    for name in tables:
        cols = list(pd.read_csv(csv / f"{name}.csv").columns)
        documented = docs.loc[docs["analyzer"] == name, "column"].tolist()
        assert cols == documented, name
        assert list(pd.read_parquet(pq / f"{name}.parquet").columns) == cols, name
    # the exported hotspots table holds the file's kernel time (json-read sum of kernel durations)
    hs = pd.read_csv(csv / "hotspots.csv")
    assert hs["total_ns"].sum() == pytest.approx(sum(kernel_durations(BERT, ("kernel",)).values()) * 1000)
    units = docs.set_index(["analyzer", "column"])["unit"]
    assert units[("hotspots", "total_ns")] == "ns" and units[("op_rollup", "flops")] == "FLOP"
    op = pd.read_parquet(pq / "op_rollup.parquet")
    assert op["gpu_time_ns"].tolist() == pd.read_csv(csv / "op_rollup.csv")["gpu_time_ns"].tolist()


def test_export_into_a_file_is_a_one_line_error(tmp_path, capsys):
    f = tmp_path / "afile"
    f.write_text("x")
    assert main(["analyze", str(BERT), "-q", "--no-cache", "--csv", str(f)]) == 2
    err = capsys.readouterr().err
    assert "afile" in err and "Traceback" not in err
