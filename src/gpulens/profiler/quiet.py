"""Keep torch's profiler marker lines out of the user's console, and say why a profile recorded no GPU work.

torch's profiler (libkineto) writes ``USDT:<date> <pid>:<tid> SyncActivityProfilerHandler.cpp:52] profiler_start``
and ``… profiler_stop`` to the process's standard error (file descriptor 2, from C++) each time a recording starts
or stops. Its only switch, ``KINETO_LOG_LEVEL``, hides them only with every error too (``USDT`` is its highest
level, torch 2.x). :func:`quiet_markers` instead sends fd 2 to a temporary file for the duration of one profiler
call made by gpulens (start, step, stop — never the user's code), then writes back to fd 2 every line that is not
such a marker: the user's own output, and any real error, still reach the console, in order.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from typing import Iterator

#: Why a profile has no GPU work when torch sees no GPU (``torch.cuda.is_available()`` is False; it covers ROCm/HIP
#: builds too): recorded in the trace's ``profile`` entry and said by the report's verdict.
NO_DEVICE = ("torch saw no CUDA or ROCm device (torch.cuda.is_available() is False: a CPU-only torch build, or no "
             "GPU driver), so only CPU activity was recorded")

#: A libkineto marker line: ``USDT:`` then its time stamp and source position, ending in profiler_start/stop.
MARKER = re.compile(rb"^USDT:[^\n]*\] profiler_(?:start|stop)\r?$")


def keep_lines(data: bytes) -> bytes:
    """``data`` without libkineto's marker lines (:data:`MARKER`); every other byte kept, in order."""
    return b"".join(line for line in data.splitlines(keepends=True) if not MARKER.match(line.rstrip(b"\n")))


@contextlib.contextmanager
def quiet_markers() -> Iterator[None]:
    """Run the body with fd 2 sent to a temporary file, then write back what it received less the marker lines.
    Does nothing (runs the body as is) where fd 2 cannot be duplicated (closed, or no file descriptors)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):
        yield
        return
    with tempfile.TemporaryFile() as tmp:
        try:
            os.dup2(tmp.fileno(), 2)
            yield
        finally:  # also when the call raised: what it wrote still reaches the console
            with contextlib.suppress(OSError, ValueError, AttributeError):
                sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            rest = memoryview(keep_lines(tmp.read()))
            with contextlib.suppress(OSError):
                while rest:
                    rest = rest[os.write(2, rest):]
