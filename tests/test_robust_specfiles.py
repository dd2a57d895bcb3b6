"""User files other than traces (issue 17 class 2): ``--device-spec`` pointing at a device or a FIFO read forever
(``/dev/zero``: unbounded memory; a FIFO: blocked); it is refused before reading, with the one-line error of the
trace readers. A spec written with a UTF-8 byte-order mark is read.
"""

from __future__ import annotations

import codecs
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpulens.devices.spec import load_spec
from gpulens.errors import TraceFormatError

SRC = Path(__file__).resolve().parents[1] / "src"


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_device_spec_that_is_not_a_regular_file_is_refused(tmp_path, kind):
    target = "/dev/zero" if kind == "device" else str(tmp_path / "pipe")
    if kind == "fifo":
        os.mkfifo(target)
    # in a subprocess: a regression blocks (FIFO) or eats memory (/dev/zero) instead of failing
    code = ("import sys; from gpulens.devices.spec import load_spec\n"
            f"try:\n    load_spec({target!r})\nexcept Exception as e:\n    print(type(e).__name__, e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(SRC)})
    assert out.stdout.startswith(f"TraceFormatError {target}: is a "), out.stdout + out.stderr
    assert "regular files" in out.stdout and out.stdout.count("\n") == 1


def test_device_spec_with_a_byte_order_mark_is_read(tmp_path):
    p = tmp_path / "spec.json"
    spec = {"name": "Test GPU", "vendor": "nvidia", "compute_capability": "9.0", "num_sms": 10,
            "figures": {"clock_mhz": 1500}}
    p.write_bytes(codecs.BOM_UTF8 + json.dumps(spec).encode())
    s = load_spec(p)
    assert s.name == "Test GPU" and s.num_sms == 10


def test_device_spec_that_is_not_text_is_a_one_line_error(tmp_path):
    p = tmp_path / "spec.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(TraceFormatError) as ei:
        load_spec(p)
    assert str(ei.value).startswith(f"{p}: not a valid device spec file") and "\n" not in str(ei.value)
