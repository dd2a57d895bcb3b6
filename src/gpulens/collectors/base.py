"""The collector plug-in shape and the registry every collector joins by subclassing.

A collector turns one source format into a :class:`~gpulens.timeline.Timeline`. It declares ``name`` (short id,
also written to the Timeline's ``source`` column), ``suffixes`` (typical file endings, informative only: detection
is by content), ``priority`` (lower sniffs first) and implements ``sniff`` and ``collect``.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from gpulens.timeline import Timeline

_REGISTRY: dict[str, type["Collector"]] = {}


class Collector:
    """Base class of every collector; subclasses register themselves by name.

    Class attributes:
        name: unique short id (``"kineto"``, ``"rocprof_v1"``, ``"nsys_sqlite"``...).
        suffixes: usual file endings, for help texts.
        priority: sniff order, lower first (specific formats before generic ones).
        accepts_dirs: True when ``sniff``/``collect`` understand a directory as one input
            (e.g. a rocprofiler-compute workload folder).
    """

    name: ClassVar[str] = ""
    suffixes: ClassVar[tuple[str, ...]] = ()
    priority: ClassVar[int] = 50
    accepts_dirs: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.name:
            if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
                raise ValueError(f"two collectors named {cls.name!r}")
            _REGISTRY[cls.name] = cls

    def sniff(self, path: Path, head: bytes) -> bool:
        """Return True when the input looks like this collector's format.

        Args:
            path: the input path (file, or directory when ``accepts_dirs``).
            head: up to 64 KiB of the file's decompressed content (empty for directories).
        """
        raise NotImplementedError

    def sniff_further(self, path: Path) -> bool:
        """Return True when a file that no collector recognised by its 64 KiB head is this format further in (a
        format whose first record may follow a program's own output, as a captured stdout). Called only for a file
        whose head was full and matched nothing; reads a bounded part of it. False unless a collector says so."""
        return False

    def collect(self, path: Path, strict: bool = True) -> Timeline:
        """Read ``path`` into a validated Timeline.

        Args:
            path: input file or directory.
            strict: when True, a malformed input raises; when False, what could be read is returned and what was
                dropped is listed in ``timeline.meta.warnings``.

        Raises:
            TraceFormatError: the input is empty, truncated beyond recovery, or not this format.
        """
        raise NotImplementedError


def registry() -> dict[str, type[Collector]]:
    """All registered collector classes by name (importing every collector module first)."""
    from gpulens.collectors import _load_all

    _load_all()
    return dict(_REGISTRY)
