"""Build the Kineto scanner's shared library (:mod:`._kineto_native`) with numba, llvmlite and the C compiler.

:func:`build` compiles a C-callable wrapper of :func:`._kineto_kernel._scan` with numba (its arguments are raw
pointers and sizes, turned into the kernel's arrays by ``numba.carray``), takes the LLVM IR of numba's inner function
(numba's calling convention: status, return slot, exception slot, then the arguments — it calls nothing outside the
module but ``memset``), adds a plain C entry point (:data:`._kineto_native.SYMBOL`) that returns the result or -1
when the compiled code reports an exception, keeps only what that entry point reaches (numba's Python-facing wrapper,
which needs numba's runtime and the Python C API, is dropped), and emits position-independent machine code for the
architecture's baseline CPU (``x86-64`` / ``generic``: the file may be read by another machine sharing the folder)
that the system C compiler (``$CC`` or ``cc``) links into a shared library. Written under a temporary name and
renamed into place, so that processes building at once never load a half-written file.

Used once per version of the scanner's sources, on the first large trace read (it costs what numba's first compile
of the scanner cost before, ≈ 20 s CPU); any failure leaves the numba entry point in use.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import tempfile
from pathlib import Path

from gpulens.collectors import _kineto_native as N


def compiler() -> str | None:
    """The C compiler that links the library: ``$CC`` when set (its first word), else ``cc``; None when neither is
    on the PATH."""
    cc = (os.environ.get("CC", "").split() or ["cc"])[0]
    return shutil.which(cc)


def _ir() -> tuple[str, str]:
    """(LLVM IR of the scanner behind the C entry point, the name of numba's function it calls) (module
    docstring)."""
    from numba import carray, cfunc, types

    from gpulens.collectors import _kineto_kernel as K
    from gpulens.collectors import _kineto_layout as L

    P = types.CPointer
    i64, u64, f64, u8, b1 = types.int64, types.uint64, types.float64, types.uint8, types.boolean
    nk_t, nd_t = len(L.TOP_TABLE[1]), len(L.TOP_TABLE[2])
    nk_a, nd_a = len(L.ARG_TABLE[1]), len(L.ARG_TABLE[2])
    nseen, ntseen, depth = len(L._ARG_KEYS), len(L._TOP_KEYS), L.MAX_DEPTH + 1
    ring, nf, nh, nout, nt = L.RING, L.NF, L.NH, L.NOUT, L.NT
    scan = K._scan
    # the argument order of _kineto_native.call
    sig = i64(P(u8), i64, P(i64), P(u64), P(f64), P(i64), P(f64), i64,
              P(i64), P(u64), P(u8), P(i64), P(i64), P(u64), P(u8), P(i64), P(b1), P(u8), P(b1), P(b1),
              P(i64), P(i64), P(i64), P(u64), P(i64), P(i64), i64, i64, u64, P(i64))

    def entry(buf, n, I, H, D, O, OD, cap, ts, tf, td, to, as_, af, ad, ao, sk, st, se, tse, sl, gs, ge, gh, gsl,
              ng, size, cells, mask, rows):
        status, r = scan(carray(buf, (n,)), carray(I, (ring, nf)), carray(H, (ring, nh)), carray(D, (ring, 4)),
                         carray(O, (nout, cap)), carray(OD, (4, cap)),
                         carray(ts, (1024,)), carray(tf, (nk_t,)), carray(td, (nd_t,)), carray(to, (nk_t + 1,)),
                         carray(as_, (1024,)), carray(af, (nk_a,)), carray(ad, (nd_a,)), carray(ao, (nk_a + 1,)),
                         carray(sk, (256,)), carray(st, (depth,)), carray(se, (nseen,)), carray(tse, (ntseen,)),
                         carray(sl, (nt, size)), carray(gs, (nt, cells)), carray(ge, (nt, cells)),
                         carray(gh, (nt, cells)), carray(gsl, (nt, cells)), carray(ng, (nt,)), mask)
        rows[0] = r
        return status

    compiled = cfunc(sig)(entry)
    wrapper = compiled.native_name  # numba's C wrapper "cfunc.<name>" calls <name>, numba's own function
    inner = wrapper.split(".", 1)[1] if wrapper.startswith("cfunc.") else wrapper
    ir = compiled.inspect_llvm()
    params = ", ".join(f"{'ptr' if isinstance(a, types.CPointer) else 'i64'} %a{i}" for i, a in enumerate(sig.args))
    return ir + f"""
define i64 @{N.SYMBOL}({params}) {{
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


def _writable_dir() -> Path | None:
    """The first folder of :func:`._kineto_native.cache_dirs` that exists (made if need be) and can be written."""
    for d in N.cache_dirs():
        try:
            d.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(d, os.W_OK | os.X_OK):
            return d
    return None


def build() -> Path:
    """Compile and link the library into the first writable folder of :func:`._kineto_native.cache_dirs`; returns
    its path. Raises whatever fails (no compiler, numba or llvmlite; compile or link error; no writable folder) —
    checked before compiling where it can be (no compiler, no folder). A failed build leaves a marker
    (:func:`._kineto_native.failed_marker`) so that later processes use numba's entry point at once instead of
    compiling again for nothing."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler to link the scanner's library")
    d = _writable_dir()
    if d is None:
        raise RuntimeError("no writable folder for the scanner's library")
    name = N.library_name()
    try:
        ir, _ = _ir()
        obj = _object(ir, N.SYMBOL)
        with tempfile.TemporaryDirectory(dir=d, prefix=".kineto-build-") as tmp:
            o, so = Path(tmp) / "scan.o", Path(tmp) / name
            o.write_bytes(obj)
            flags = ["-dynamiclib"] if platform.system() == "Darwin" else ["-shared"]
            subprocess.run([cc, *flags, "-o", str(so), str(o)], check=True, capture_output=True, timeout=120)
            os.replace(so, d / name)
    except Exception:
        try:
            N.failed_marker(d).write_text("the scanner's library could not be built here: numba's entry point is used\n")
        except OSError:
            pass
        raise
    return d / name
