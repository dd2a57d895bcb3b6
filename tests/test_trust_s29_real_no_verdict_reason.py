"""A report without a run verdict says why, in the words of the analysis that gave none.

rocprofv3 counter collection without timestamps (ROCm/rocprofiler-sdk's documentation example
``source/docs/data/counter_collection.csv`` in its 2024 form: one matrixTranspose dispatch, SQ_WAVES, no
Start/End_Timestamp columns) read "No run verdict (the verdict analysis did not run)", as if it had failed; the
verdicts analysis had run and skipped: no kernel durations.

Hand-made CSV of that layout.
"""

from __future__ import annotations

import gpulens
from gpulens.reports._answer import answer

CSV = ('"Correlation_Id","Dispatch_Id","Agent_Id","Queue_Id","Process_Id","Thread_Id","Grid_Size","Kernel_Name",'
       '"Workgroup_Size","LDS_Block_Size","Scratch_Size","VGPR_Count","SGPR_Count","Counter_Name","Counter_Value"\n'
       '0,1,1,139892123975680,5619,5619,1048576,"matrixTranspose(float*, float*, int)",16,0,0,8,16,"SQ_WAVES",65536\n')


def test_sentence_gives_the_verdict_analysis_reason(tmp_path):
    p = tmp_path / "counter_collection.csv"
    p.write_text(CSV)
    src = gpulens.analyze([p], cache=False).sources[0]
    vd = src.results["verdicts"]
    assert vd.skipped and vd.skipped_reason
    a = answer(src)
    assert "did not run" not in a.sentence
    assert vd.skipped_reason in a.sentence
