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


def collector_class(name: str) -> type[Collector]:
    """The registered collector class named ``name``, importing every collector module only when its own module has
    not registered it yet (a rank file sniffed in this process is loaded without importing the other 60).

    Raises:
        KeyError: no collector has that name.
    """
    return _REGISTRY.get(name) or registry()[name]


#: The modules whose collectors read a folder as one input (``accepts_dirs``): sniffing a folder imports just these,
#: not every collector module (issue 16: ``gpulens analyze RUN_DIR/`` of Kineto rank files imported all of them,
#: ≈ 20 ms of CPU). tests/test_trust_s50_fixed_costs.py checks the list against the registry.
FOLDER_COLLECTOR_MODULES = ("omniperf", "rocprof_v1_dir", "rocprof_v1_text", "rocprofv2_tracer", "rocprofv3_csv")
_FOLDER_ORDER: tuple[tuple[type[Collector], ...], list[Collector]] = ((), [])


def folder_collectors() -> list[Collector]:
    """One instance of every collector that accepts a folder (``accepts_dirs``), in sniffing order (``priority``,
    then ``name``, as :func:`gpulens.collectors.sniff` offers a file to every collector), made once per set of such
    classes; imports :data:`FOLDER_COLLECTOR_MODULES`, not the whole registry."""
    global _FOLDER_ORDER
    import importlib

    for mod in FOLDER_COLLECTOR_MODULES:
        importlib.import_module(f"gpulens.collectors.{mod}")
    classes = tuple(c for c in _REGISTRY.values() if c.accepts_dirs)
    if classes != _FOLDER_ORDER[0]:
        _FOLDER_ORDER = (classes, [cls() for cls in sorted(classes, key=lambda c: (c.priority, c.name))])
    return _FOLDER_ORDER[1]
