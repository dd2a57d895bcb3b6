"""A kernel page's key/value tables wrap a long unbroken kernel key inside the page (the demo's
``void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn_align8>`` pushed the "Kernel
groups" table past a 1400 px window: ``overflow-wrap: break-word`` does not lower a table cell's min-content width,
``anywhere`` does — CSS Text Module Level 3, overflow-wrap)."""

from __future__ import annotations

import re

from gpulens.reports.html import CSS


def test_kernel_page_kv_cells_may_break_anywhere():
    rules = re.findall(r"section\.kpage table\.kv td\{([^}]*)\}", CSS)
    assert any("overflow-wrap:anywhere" in r for r in rules)
