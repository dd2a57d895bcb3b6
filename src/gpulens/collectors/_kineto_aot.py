"""Build the Kineto scanner's shared library (:mod:`._kineto_native`) with numba, llvmlite and the C compiler.

:func:`_ir` gives a C-callable wrapper of :func:`._kineto_kernel._scan` (its arguments are raw pointers and sizes,
turned into the kernel's arrays by ``numba.carray``); :func:`gpulens._native_build.build` compiles and links it
(numba's inner function behind a plain C entry point, :data:`._kineto_native.SYMBOL`, position-independent code for
the architecture's baseline CPU, written under a temporary name and renamed into place).

Used once per version of the scanner's sources, on the first large trace read (it costs what numba's first compile
of the scanner cost before, ≈ 20 s CPU); any failure leaves the numba entry point in use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from gpulens._native_build import build as _build
from gpulens._native_build import compiler  # noqa: F401  (re-exported: the tests ask whether one is there)
from gpulens.collectors import _kineto_native as N


def _ir() -> tuple[Any, Callable]:
    """(numba signature, C-callable Python function) of the scanner behind the C entry point, in the argument
    order of :func:`._kineto_native.call`."""
    from numba import carray, types

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
              P(i64), P(i64), P(i64), P(u64), P(i64), P(i64), i64, i64, u64, i64, P(i64))

    def entry(buf, n, I, H, D, O, OD, cap, ts, tf, td, to, as_, af, ad, ao, sk, st, se, tse, sl, gs, ge, gh, gsl,
              ng, size, cells, mask, framed, rows):
        status, r = scan(carray(buf, (n,)), carray(I, (ring, nf)), carray(H, (ring, nh)), carray(D, (ring, 4)),
                         carray(O, (nout, cap)), carray(OD, (4, cap)),
                         carray(ts, (1024,)), carray(tf, (nk_t,)), carray(td, (nd_t,)), carray(to, (nk_t + 1,)),
                         carray(as_, (1024,)), carray(af, (nk_a,)), carray(ad, (nd_a,)), carray(ao, (nk_a + 1,)),
                         carray(sk, (256,)), carray(st, (depth,)), carray(se, (nseen,)), carray(tse, (ntseen,)),
                         carray(sl, (nt, size)), carray(gs, (nt, cells)), carray(ge, (nt, cells)),
                         carray(gh, (nt, cells)), carray(gsl, (nt, cells)), carray(ng, (nt,)), mask, framed)
        rows[0] = r
        return status

    return sig, entry


def build() -> Path:
    """Compile and link the library into the first writable folder of :func:`._kineto_native.cache_dirs`; returns
    its path. Raises whatever fails (:func:`gpulens._native_build.build`; a failed build leaves a marker,
    :func:`._kineto_native.failed_marker`)."""
    return _build(N.LIB, _ir, N.cache_dirs())
