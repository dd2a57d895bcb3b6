"""The Kineto byte scanner, split over several modules, keeps numba's on-disk cache honest.

numba keys a cached function by its own source file (its bytes, or time stamp and size in older numba) and, for a
closure, by the pickled values of its closure cells; a change in another module whose functions are compiled into
it goes unseen, and the old machine code would be loaded. The scanner's one cached entry point holds a digest of
the source of every module compiled into it in a closure cell, and every other scanner function is compiled
uncached.
"""

from __future__ import annotations

import hashlib
import inspect
import types
from pathlib import Path

import pytest

pytest.importorskip("numba")


def _reachable(fn) -> dict[str, object]:
    """The numba functions (dispatchers and intrinsics) a jitted function calls, directly or not: qualified name →
    object, found through the global names its code (and nested code) reads."""
    from numba.core.dispatcher import Dispatcher
    from numba.core.extending import _Intrinsic

    seen: dict[str, object] = {}
    todo = [fn]
    while todo:
        f = todo.pop()
        py = f.py_func
        codes = [py.__code__]
        names: set[str] = set()
        while codes:
            c = codes.pop()
            names.update(c.co_names)
            codes += [k for k in c.co_consts if isinstance(k, types.CodeType)]
        for name in names:
            obj = py.__globals__.get(name)
            if isinstance(obj, Dispatcher):
                key = f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"
                if key not in seen:
                    seen[key] = obj
                    todo.append(obj)
            elif isinstance(obj, _Intrinsic):
                seen[f"{inspect.getmodule(obj._defn).__name__}.{obj._name}"] = obj
    return seen


def test_the_cache_key_covers_every_module_compiled_into_the_scanner():
    from gpulens.collectors import _kineto_kernel as K

    entry = K.scan_entry
    # the digest in the entry point's closure: SHA-256 of the four source files (layout constants, word primitives,
    # grammar, kernel), computed here from their bytes
    files = [Path(m.__file__) for m in (K._kineto_layout, K._kineto_words, K._kineto_lex, K)]
    want = hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()
    cells = [c.cell_contents for c in entry.py_func.__closure__]
    assert want in cells
    # every numba function the scan compiles in lives in one of those modules (a new module must join the digest)
    reached = _reachable(entry)
    assert "gpulens.collectors._kineto_kernel._scan" in reached and len(reached) > 20
    modules = {k.rsplit(".", 1)[0] for k in reached}
    assert modules <= {m.__name__ for m in K.KERNEL_MODULES}, modules
    # and none of them is cached by itself (its cache would be keyed by its own file only)
    cached = [k for k, d in reached.items()
              if type(getattr(d, "_cache", None)).__name__ not in ("NullCache", "NoneType")]
    assert cached == [], cached
    assert type(entry._cache).__name__ == "FunctionCache"


def test_the_digest_changes_with_any_source_byte(tmp_path):
    from gpulens.collectors._kineto_kernel import sources_digest

    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_bytes(b"X = 1\n")
    b.write_bytes(b"Y = 2\n")
    ma, mb = types.ModuleType("ma"), types.ModuleType("mb")
    ma.__file__, mb.__file__ = str(a), str(b)
    assert sources_digest((ma, mb)) == hashlib.sha256(b"X = 1\nY = 2\n").hexdigest()
    b.write_bytes(b"Y = 3\n")
    assert sources_digest((ma, mb)) == hashlib.sha256(b"X = 1\nY = 3\n").hexdigest()
    # a module without a readable file (a frozen application) contributes its name
    mc = types.ModuleType("mc")
    assert sources_digest((mc,)) == hashlib.sha256(b"mc").hexdigest()
