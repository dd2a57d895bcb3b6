"""``nsys stats`` kernel summaries written with every field quoted (a quote-all CSV dialect) read as the same table
as the plain dialect: a name whose pieces were quoted one by one is re-joined, and a row whose extra trailing field
is a bare number after a text name is still skipped and counted (case T08; the kernel-summary reader
``collectors/nsys_stats``)."""

from __future__ import annotations

import csv
import io

from gpulens.collectors import collect

HEADER = ["Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)", "StdDev (ns)",
          "Name"]
# (total ns, instances, name); written unquoted the second name splits at its comma into two fields
ROWS = [(8_000_000, 20, "void gemm_kernel<float, 128>(const float *, float *, int)"),
        (3_000_000, 10, "softmax_kernel(float *, int)")]


def _fields(total, calls, name):
    avg = total / calls
    return [f"{100 * total / 11_000_000:.1f}", str(total), str(calls), f"{avg:.1f}", f"{avg:.1f}", str(int(avg)),
            str(int(avg)), "0.0"] + name.split(",")


def _quote_all(records):
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL).writerows(records)
    return buf.getvalue()


def _table(path):
    t = collect(path, strict=False).tables["kernel_summary"]
    return {(n, int(c), int(d)) for n, c, d in zip(t["name"], t["calls"], t["total_ns"])}


def test_quote_all_rows_with_a_split_name_read_as_the_plain_dialect(tmp_path):
    # every field quoted, the names' pieces one by one (what re-quoting a plainly written file gives)
    p = tmp_path / "kern_sum_quoted.csv"
    p.write_text(_quote_all([HEADER] + [_fields(*r) for r in ROWS]))
    want = {(name, calls, total) for total, calls, name in ROWS}  # the table as written, by hand above
    assert _table(p) == want
    assert sum(total for total, _, _ in ROWS) == 11_000_000
    plain = tmp_path / "kern_sum_plain.csv"
    plain.write_text(",".join(f'"{h}"' for h in HEADER) + "\n"
                     + "\n".join(",".join(_fields(*r)) for r in ROWS) + "\n")
    assert _table(plain) == want


def test_quote_all_row_with_a_trailing_number_is_skipped_not_joined(tmp_path):
    # "k","5": a name followed by a shifted number is not the name "k,5" in either dialect
    p = tmp_path / "kern_sum_quoted.csv"
    bad = _fields(1_000_000, 4, "shifted_kernel") + ["5"]
    p.write_text(_quote_all([HEADER, _fields(*ROWS[0]), bad]))
    tl = collect(p, strict=False)
    t = tl.tables["kernel_summary"]
    assert list(t["name"]) == [ROWS[0][2]]
    assert any("1 row with a wrong field count skipped" in w for w in tl.meta.warnings)
