"""Shared fixtures: paths to the small committed test data and to the optional developer corpus in ../shared."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"
KINETO = DATA / "kineto"
CASES = DATA / "cases"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "traces"


def shared_trace(rel: str) -> Path:
    """Path of a file of the developer corpus (../shared/traces); skips the test when it is absent."""
    p = SHARED / rel
    if not p.exists():
        # allow_module_level: some test files resolve their corpus paths at import (a skip there skips the file,
        # where a plain skip is a collection error that fails the run on a clone without ../shared)
        pytest.skip(f"developer corpus file {rel} not present (../shared/traces)", allow_module_level=True)
    return p
