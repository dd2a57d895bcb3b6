"""Build a :class:`._native.Library` with numba, llvmlite and the C compiler.

:func:`build` compiles a C-callable function (numba's ``cfunc``: its arguments are raw pointers and 64-bit
integers, the pointers turned into arrays by ``numba.carray``), takes the LLVM IR of numba's inner function (numba's
calling convention: status, return slot, exception slot, then the arguments — it calls nothing outside the module
but ``memset``), adds a plain C entry point (:attr:`._native.Library.symbol`) that returns the result or -1 when the
compiled code reports an exception, keeps only what that entry point reaches (numba's Python-facing wrapper, which
needs numba's runtime and the Python C API, is dropped), and emits position-independent machine code for the
architecture's baseline CPU (``x86-64`` / ``generic``: the file may be read by another machine sharing the folder)
that the system C compiler (``$CC`` or ``cc``) links into a shared library. Written under a temporary name in the
target folder and renamed into place (:func:`os.replace`, atomic), so that processes building at once never load a
half-written file: each renames a complete library over the other's.

Used once per version of a library's sources; any failure leaves a marker and the caller's fallback in use.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Callable

from gpulens._native import Library


def compiler() -> str | None:
    """The C compiler that links a library: ``$CC`` when set (its first word), else ``cc``; None when neither is
    on the PATH."""
    cc = (os.environ.get("CC", "").split() or ["cc"])[0]
    return shutil.which(cc)


def entry_ir(sig: Any, entry: Callable, symbol: str) -> tuple[str, str]:
    """(LLVM IR of numba's ``cfunc(sig)(entry)`` plus the C entry point ``symbol`` calling numba's inner function,
    that function's name) (module docstring). ``sig`` returns int64 and takes pointers and 64-bit integers only:
    the C entry point passes every argument on as ``ptr`` or ``i64``."""
    from numba import cfunc, types

    for a in sig.args:
        if not isinstance(a, types.CPointer) and getattr(a, "bitwidth", 0) != 64:
            raise TypeError(f"argument of type {a}: a library's entry point takes pointers and 64-bit integers")
    compiled = cfunc(sig)(entry)
    wrapper = compiled.native_name  # numba's C wrapper "cfunc.<name>" calls <name>, numba's own function
    inner = wrapper.split(".", 1)[1] if wrapper.startswith("cfunc.") else wrapper
    params = ", ".join(f"{'ptr' if isinstance(a, types.CPointer) else 'i64'} %a{i}" for i, a in enumerate(sig.args))
    return compiled.inspect_llvm() + f"""
define i64 @{symbol}({params}) {{
entry:
  %ret = alloca i64
  %exc = alloca ptr
  store i64 -1, ptr %ret
  %s = call i32 @"{inner}"(ptr %ret, ptr %exc, {params})
  %ok = icmp eq i32 %s, 0
  br i1 %ok, label %good, label %bad
good:
  %v = load i64, ptr %ret
  ret i64 %v
bad:
  ret i64 -1
}}
""", inner


def _object(ir: str, keep: str) -> bytes:
    """Position-independent machine code of ``ir`` for the architecture's baseline CPU, with only the function
    ``keep`` exported and what it reaches."""
    import llvmlite.binding as ll

    ll.initialize_native_target()
    ll.initialize_native_asmprinter()
    mod = ll.parse_assembly(ir)
    for f in mod.functions:
        if not f.is_declaration and f.name != keep:
            f.linkage = "internal"  # unreferenced ones (numba's Python-facing wrapper) are then dropped
    for g in mod.global_variables:
        if not g.is_declaration:
            g.linkage = "internal"
    mod.verify()
    cpu = "x86-64" if platform.machine() in ("x86_64", "AMD64") else "generic"
    tm = ll.Target.from_default_triple().create_target_machine(cpu=cpu, opt=3, reloc="pic", codemodel="default")
    pm = ll.create_new_module_pass_manager()
    pm.add_global_dead_code_eliminate_pass()
    pm.add_strip_dead_prototype_pass()
    pm.run(mod, ll.create_pass_builder(tm, ll.create_pipeline_tuning_options()))
    return tm.emit_object(mod)


def _writable_dir(dirs: list[Path]) -> Path | None:
    """The first folder of ``dirs`` that exists (made if need be) and can be written."""
    for d in dirs:
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(d, os.W_OK | os.X_OK):
            return d
    return None


def prune_stale(lib: Library, folder: Path) -> list[Path]:
    """Remove from ``folder`` the files of ``lib`` built from other sources — same stem and architecture, another
    digest (the library and its failed-build marker) — after a build of the current one; returns what was removed.

    Only in the sources' own ``__pycache__`` (``folder`` is ``lib.sources[0].parent / "__pycache__"``): what was
    built there from another version of those sources can never be loaded again, while a shared cache
    (``$NUMBA_CACHE_DIR``, ``~/.cache/gpulens``) may serve another install at the same time. Safe beside
    concurrent processes: a process that loaded an old file keeps its mapping (unlinking does not unmap it); one
    that found it and had not opened it yet gets OSError from :meth:`Library.open`, reads the library as not built
    and builds the current one. A file that cannot be removed is left."""
    if folder.resolve() != (lib.sources[0].parent / "__pycache__").resolve():
        return []
    keep, arch = lib.name(), platform.machine() or "unknown"
    gone = []
    for p in folder.glob(f"{lib.stem}-*-{arch}.*"):
        stale = p.name not in (keep, keep + ".failed") and len(p.name.split("-")) == len(keep.split("-"))
        if stale and p.name.endswith((".so", ".dylib", ".failed")):
            try:
                p.unlink()
                gone.append(p)
            except OSError:
                pass
    return gone


def build(lib: Library, ir: Callable[[], tuple[Any, Callable]], dirs: list[Path] | None = None) -> Path:
    """Compile ``ir()`` — (numba signature, C-callable Python function) — and link it as ``lib`` into the first
    writable folder of ``dirs`` (default ``lib.cache_dirs()``); returns its path. Raises whatever fails (no
    compiler, numba or llvmlite; compile or link error; no writable folder) — checked before compiling where it can
    be (no compiler, no folder). A failed build leaves a marker (:meth:`._native.Library.failed_marker`) so that
    later processes use the fallback at once instead of compiling again for nothing."""
    cc = compiler()
    if cc is None:
        raise RuntimeError(f"no C compiler to link the {lib.stem} library")
    d = _writable_dir(lib.cache_dirs() if dirs is None else dirs)
    if d is None:
        raise RuntimeError(f"no writable folder for the {lib.stem} library")
    name = lib.name()
    try:
        sig, entry = ir()
        obj = _object(entry_ir(sig, entry, lib.symbol)[0], lib.symbol)
        with tempfile.TemporaryDirectory(dir=d, prefix=f".{lib.stem}-build-") as tmp:
            o, so = Path(tmp) / "lib.o", Path(tmp) / name
            o.write_bytes(obj)
            flags = ["-dynamiclib"] if platform.system() == "Darwin" else ["-shared"]
            subprocess.run([cc, *flags, "-o", str(so), str(o)], check=True, capture_output=True, timeout=120)
            os.replace(so, d / name)  # atomic: a concurrent reader sees no file or a whole one
    except Exception:
        try:
            lib.failed_marker(d).write_text(f"the {lib.stem} library could not be built here: its fallback is used\n")
        except OSError:
            pass
        raise
    try:  # the build succeeded: what this folder holds of other versions of these sources goes
        prune_stale(lib, d)
    except OSError:
        pass
    return d / name
