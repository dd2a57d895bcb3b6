"""Reporters: one module per output format; each renders a :class:`~gpulens.report.Report` and computes nothing."""
