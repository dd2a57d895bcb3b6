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
