"""Numba-compiled loops as plain shared libraries, loaded with :mod:`ctypes` without importing numba.

Importing numba and loading a cached numba function costs ≈ 0.2–0.5 s CPU in every process (measured, fortieth
session: ``import numba`` 0.16–0.21 s, its first cached function 0.3 s more — numba's own modules and its BLAS probe
importing ``scipy.linalg``). So a hot loop is compiled once by numba into a shared library (:mod:`._native_build`:
numba compiles, llvmlite emits position-independent machine code for the architecture's baseline CPU, the system C
compiler links it) and later processes load that file with ctypes. ctypes releases the GIL during a call, as numba's
``nogil`` entry points do. Two libraries use it: the Kineto scanner (:mod:`gpulens.collectors._kineto_native`) and
the critical path's chain walk (:mod:`gpulens.analyzers._critical_chain`).

A :class:`Library` is named by :meth:`Library.digest`: SHA-256 of every source compiled into it, this module and the
builder included, so an edit to any of them builds a new file instead of loading old code. It is looked for in, and
written to, the first usable of :func:`cache_dirs`. Anything missing (no C compiler, numba, llvmlite; a read-only
install; not Linux or macOS) leaves the caller's numba or plain-Python fallback in use.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

_HERE = Path(__file__).resolve().parent
#: the generic loader and builder: part of every library's digest
GENERIC_SOURCES = (_HERE / "_native.py", _HERE / "_native_build.py")


def files_digest(files: Iterable[tuple[Any, bytes]]) -> str:
    """SHA-256 (hex) of the bytes of each ``(path, fallback)`` file, in order; a file that cannot be read (no path,
    a frozen application) contributes its ``fallback`` bytes instead."""
    h = hashlib.sha256()
    for path, fallback in files:
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except (OSError, TypeError):
            h.update(fallback)
    return h.hexdigest()


def sources_digest(paths: Iterable[Path]) -> str:
    """:func:`files_digest` of ``paths``; a file that cannot be read contributes its name and the version of
    gpulens (a frozen application, whose sources do not change)."""
    from gpulens import __version__

    return files_digest((p, f"{Path(p).name} {__version__}".encode()) for p in paths)


def cache_dirs(home: Path) -> list[Path]:
    """Where a library is looked for, in order, and written to (the first writable one): ``$NUMBA_CACHE_DIR/gpulens``
    when that is set (numba's cache lives there), the ``__pycache__`` folder of ``home`` (the package of the
    library's sources: where numba keeps its cache of an install it can write to), then ``$XDG_CACHE_HOME/gpulens``
    (default ``~/.cache/gpulens``)."""
    out = []
    numba_dir = os.environ.get("NUMBA_CACHE_DIR", "").strip()
    if numba_dir:
        out.append(Path(numba_dir) / "gpulens")
    out.append(home / "__pycache__")
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    out.append((Path(xdg) if xdg else Path.home() / ".cache") / "gpulens")
    return out


@dataclass(frozen=True)
class Library:
    """One compiled loop as a shared library.

    Attributes:
        stem: the start of the file name (``kineto_scan``).
        symbol: the C symbol of its entry point (returns int64; the builder's wrapper returns -1 when the compiled
            code raised).
        env: the environment variable that turns it off (``0``): the caller's fallback is used.
        sources: the files compiled into it, hashed in order with :data:`GENERIC_SOURCES` (:meth:`digest`); the
            first one's folder is the ``home`` of :func:`cache_dirs`.
    """

    stem: str
    symbol: str
    env: str
    sources: tuple[Path, ...]

    def enabled(self) -> bool:
        """Not turned off by :attr:`env`, on a platform whose shared libraries are built and loaded here (Linux,
        macOS)."""
        return os.environ.get(self.env, "").strip() != "0" and sys.platform.startswith(("linux", "darwin"))

    def digest(self) -> str:
        """:func:`sources_digest` of :attr:`sources` then :data:`GENERIC_SOURCES`."""
        return sources_digest((*self.sources, *GENERIC_SOURCES))

    def name(self) -> str:
        """The file name: the stem, the digest (first 24 hex digits), the machine architecture, the platform's
        suffix."""
        return f"{self.stem}-{self.digest()[:24]}-{platform.machine() or 'unknown'}" + (
            ".dylib" if sys.platform == "darwin" else ".so")

    def cache_dirs(self) -> list[Path]:
        """:func:`cache_dirs` of the sources' folder."""
        return cache_dirs(self.sources[0].parent)

    def find(self, dirs: list[Path] | None = None) -> Path | None:
        """The library built for these sources, when one exists in ``dirs`` (default :meth:`cache_dirs`)."""
        name = self.name()
        for d in self.cache_dirs() if dirs is None else dirs:
            p = d / name
            if p.is_file():
                return p
        return None

    def failed_marker(self, folder: Path) -> Path:
        """The file a failed build leaves in ``folder`` (:func:`._native_build.build`)."""
        return folder / (self.name() + ".failed")

    def build_failed(self, dirs: list[Path] | None = None) -> bool:
        """Whether a build failed before, in any of ``dirs`` (default :meth:`cache_dirs`): not tried again until
        the sources change (another name) or the marker is removed."""
        return any(self.failed_marker(d).is_file() for d in (self.cache_dirs() if dirs is None else dirs))

    def open(self, path: Path) -> Callable[..., int]:
        """The entry point of the library at ``path``, restype int64, no argtypes (the caller passes ctypes
        values); raises OSError / AttributeError when it cannot be loaded."""
        fn = ctypes.CDLL(str(path))[self.symbol]
        fn.restype = ctypes.c_int64
        fn.argtypes = None
        return fn

    def load(self, dirs: list[Path] | None = None) -> Callable[..., int] | None:
        """The entry point of the library built for these sources, or None when turned off, not built, or not
        loadable (a damaged file is built again by the caller)."""
        if not self.enabled():
            return None
        path = self.find(dirs)
        if path is None:
            return None
        try:
            return self.open(path)
        except (OSError, AttributeError):
            return None

    def load_or_build(self, ir: Callable[[], tuple[Any, Callable]], dirs: list[Path] | None = None
                      ) -> Callable[..., int] | None:
        """:meth:`load`, else (enabled, no failed build before) :func:`._native_build.build` with ``ir`` (numba
        signature and C-callable Python function, see there) then :meth:`open`; None when any of it fails."""
        fn = self.load(dirs)
        if fn is None and self.enabled() and not self.build_failed(dirs):
            try:
                from gpulens._native_build import build

                fn = self.open(build(self, ir, dirs))
            except Exception:  # noqa: BLE001  (no compiler, numba or llvmlite; a read-only install: the fallback)
                fn = None
        return fn
