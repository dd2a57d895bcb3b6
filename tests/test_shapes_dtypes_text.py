"""An op's input shapes and dtypes read as an engineer writes them in every human report (console, Markdown, HTML):
``[141×512]; [512×512]; –`` and ``bf16 ×3, scalar ×2`` — not the profiler's JSON text, which the JSON report keeps."""

from __future__ import annotations

import html as _html
import json

import pytest

from gpulens.reports._format import dtypes_text, fmt_value, shapes_text
from tests.test_cli import run


@pytest.mark.parametrize("recorded,shown", [
    ("[[512],[141,512],[512,512],[],[]]", "[512]; [141×512]; [512×512]; –; –"),  # aten::addmm: bias, mat1, mat2, β, α
    ("[[1,141,8,64],[],[],[],[]]", "[1×141×8×64]; 4 × –"),  # a run of 3+ non-tensor inputs is counted
    ("[[[2,3],[4]],[5]]", "[[2×3], [4]]; [5]"),  # a tensor list (aten::cat)
    ("[[1073741824]]", "[1073741824]"),  # a large 1-D tensor: a shape, not a bare number
    ("[]", "[]"),  # nothing recorded per input: as it is
    ("not json", "not json"),
])
def test_shapes_text(recorded, shown):
    assert shapes_text(recorded) == shown


@pytest.mark.parametrize("recorded,shown", [
    ('["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]', "bf16 ×3, scalar ×2"),
    ('["float","long int","","c10::Half","bool"]', "fp32, int64, –, fp16, bool"),
    ('["c10::Float8_e4m3fn","c10::SomethingNew"]', "fp8 e4m3, SomethingNew"),  # unknown: c10:: dropped
])
def test_dtypes_text(recorded, shown):
    assert dtypes_text(recorded) == shown


def test_columns_declare_the_units():
    from gpulens.analyzers.kernel_groups import COLUMNS as KG
    from gpulens.analyzers.op_rollup import COLUMNS as OR

    for cols in (KG, OR):
        assert fmt_value("[[2,3],[]]", "shapes", cols["shapes"]) == "[2×3]; –"
        assert fmt_value('["double"]', "dtypes", cols["dtypes"]) == "fp64"
        assert fmt_value("", "shapes", cols["shapes"]) == "unknown"  # not recorded


def test_reports_show_shapes_not_json(tmp_path):
    out = {k: tmp_path / f"r.{k}" for k in ("json", "md", "html")}
    con = run("analyze", "--demo", "--no-cache", "--json", str(out["json"]), "--markdown", str(out["md"]),
              "--html", str(out["html"]), columns=200).stdout
    doc = json.loads(out["json"].read_text())["sources"][0]["analyses"]
    raw = doc["op_rollup"]["table"][0]
    # the JSON keeps the profiler's text; by hand from the demo trace's first addmm (bias 512, mat1 141×512,
    # mat2 512×512, β, α — all bf16 but the two scalars)
    assert (raw["shapes"], raw["dtypes"]) == ('[[512],[141,512],[512,512],[],[]]',
                                              '["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"]')
    md = out["md"].read_text().replace("\\_", "_").replace("\\[", "[").replace("\\]", "]")  # Markdown escapes
    page = _html.unescape(out["html"].read_text())
    for text in (con, md, page):
        assert "[512]; [141×512]; [512×512]; –; –" in text and "bf16 ×3, scalar ×2" in text
        assert '"c10::BFloat16"' not in text and "[[512],[141,512]" not in text
        assert "GEMM shapes" in text and "Gemm shapes" not in text  # the field's spelling
    # two shares of one kernel's time, each header naming its denominator: flash_fwd_kernel's 37,408 ns is
    # 37,408 / 307,197 (kernel time) = 12.2 % under Top kernels and 37,408 / 309,437 (GPU time: kernels and the one
    # 2,240 ns copy) = 12.1 % under Op categories
    sm = json.loads(out["json"].read_text())["sources"][0]["summary"]
    assert sm["kernel_time_ns"] == 307_197
    top = con[con.index("Top kernels"):]
    top = top[:top.index("└")]
    assert "share of" in top and "kernel time ┃" in top  # the header wraps over two lines
    assert f"{100 * 37_408 / 307_197:.1f} %" == "12.2 %" and "12.2 %" in top
    cats = con[con.index("Op categories"):]
    cats = cats[:cats.index("└")]
    assert "share of" in cats and "GPU time ┃" in cats and "12.1 %" in cats
