"""Session 40, the lead's own fixes (expected values by hand)."""

from gpulens.timeline.selection import Selection


def test_open_window_bound_reads_start_or_end_not_a_dangling_colon():
    """``--window 463380us:`` (the MI300X decode hint) was described "window 463380000: ns" in the selection warning
    (``kept 1117 of 1471 events``): the unit sat after the colon of an open bound. 463,380 µs = 463,380,000 ns."""
    assert Selection.parse(window="463380us:").describe() == "window 463380000 ns to the end"
    assert Selection.parse(window=":250ms").describe() == "window the start to 250000000 ns"
    assert Selection.parse(window="100:200ms").describe() == "window 100000000 ns to 200000000 ns"


def test_softmax_backward_ops_have_a_byte_and_flop_model():
    """GPT-2 H200's ``cunn_SoftMaxBackward`` (5.25 ms, a critical kernel) read "unknown" in every roofline column
    while its forward was modelled, though the trace records ``aten::_log_softmax_backward_data [[8192, 50257],
    [8192, 50257], [], []]`` float (new user's finding). Backward reads dy and y and writes dx: 3 × 8192 × 50257 × 4 B
    = 4.94 GB per call; 4 FLOP per element (dy·y or exp(y), the row sum, the subtraction, the product)."""
    from gpulens.analyzers._flop_models import op_cost

    n = 8192 * 50257
    for op in ("aten::_log_softmax_backward_data", "aten::_softmax_backward_data"):
        c = op_cost(op, "[[8192, 50257], [8192, 50257], [], []]", '["float", "float", "Scalar", "Scalar"]')
        assert c is not None and c.flops == 4 * n and c.bytes == 3 * n * 4
    c = op_cost("aten::_softmax_backward_data", "[[4, 16], [4, 16], [], []]",
                '["c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"]')
    assert c.flops == 4 * 64 and c.bytes == 3 * 64 * 2
