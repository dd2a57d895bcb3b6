"""Collectors: one module per source format, found by content, all producing the same Timeline.

Public entry points:

* :func:`sniff` — which collector reads a path;
* :func:`collect` — read a file or a directory (a directory of per-rank files becomes one multi-rank Timeline).

Every module in this package that defines a :class:`~gpulens.collectors.base.Collector` subclass with a ``name``
joins the registry; nothing else needs editing to add a format.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from gpulens.collectors._io import read_head
from gpulens.collectors.base import Collector, registry
from gpulens.errors import TraceFormatError, UnknownFormatError
from gpulens.timeline import Timeline, concat

_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_") and mod.name != "base":
            importlib.import_module(f"{__name__}.{mod.name}")
    _loaded = True


def _ordered() -> list[Collector]:
    return [cls() for cls in sorted(registry().values(), key=lambda c: (c.priority, c.name))]


def sniff(path: str | Path) -> Collector | None:
    """Return the collector that recognises ``path`` by content, or None.

    Directories are offered only to collectors with ``accepts_dirs``.
    """
    p = Path(path)
    if p.is_dir():
        for c in _ordered():
            if c.accepts_dirs and c.sniff(p, b""):
                return c
        return None
    head = read_head(p)
    for c in _ordered():
        if c.sniff(p, head):
            return c
    return None


def collect(path: str | Path, strict: bool = True, format: str | None = None) -> Timeline:
    """Read a trace file or directory into one Timeline.

    Args:
        path: a file of any supported format (gzip allowed), or a directory. A directory claimed by a
            directory-aware collector is read by it; otherwise every recognised file in it (not recursive) is
            read and the results concatenated (one Timeline for several ranks).
        strict: see :meth:`Collector.collect`.
        format: collector name to force instead of sniffing.

    Raises:
        TraceFormatError: the path does not exist, is empty, or no collector recognises it (UnknownFormatError).
    """
    p = Path(path)
    if not p.exists():
        raise TraceFormatError(p, "no such file or directory")
    if format:
        reg = registry()
        if format not in reg:
            raise UnknownFormatError(p, f"unknown format {format!r}; known: {', '.join(sorted(reg))}")
        return reg[format]().collect(p, strict=strict)
    c = sniff(p)
    if c is not None:
        return c.collect(p, strict=strict)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and not f.name.startswith("."))
        parts = []
        for f in files:
            fc = sniff(f)
            if fc is not None:
                parts.append(fc.collect(f, strict=strict))
        if not parts:
            raise UnknownFormatError(p, "directory holds no trace file gpulens recognises")
        return concat(parts)
    from gpulens.collectors._io import read_input

    read_input(p)  # raises the precise reason for empty, unreadable or corrupt-gzip files
    names = ", ".join(sorted(registry()))
    raise UnknownFormatError(p, f"not a recognised trace format (tried: {names})")


__all__ = ["Collector", "collect", "registry", "sniff"]
