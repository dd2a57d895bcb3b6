"""Short kernel names that stay distinguishable, one rule for the console, HTML and Markdown reporters.

A C++/Tensile kernel name such as ``void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_32x32_128x2_tn
_align8>(cutlass_80_wmma_…::Params)`` is shown as a *base* — the demangled function name without namespaces,
return type, template arguments and parameters (a generic wrapper such as ``Kernel2`` or ``device_kernel`` is
replaced by its first template argument, which names the real kernel) — clipped to :data:`BASE_CHARS`. Names whose
bases read the same get the parts that tell them apart appended: the tile shapes (``128x2``) and the tokens of their
full names that the others in the group lack, in the order they appear. Any labels still equal get ``#2``, ``#3``…
The full name stays available (hover, drill-down, tables' title attribute).

Mangled names (``_Z…``) are demangled with ``gpulens.timeline.names`` (the gate's normaliser: cxxfilt or libstdc++),
else the identifiers of the mangled name are read directly (enough for a label; arguments are dropped); AMD
``.kd`` suffixes are dropped first.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from typing import Any, Iterable, Iterator, Sequence

#: Characters kept of the base name.
BASE_CHARS = 40
#: Distinguishing tokens appended at most.
MAX_EXTRA = 3
#: Function names that only wrap the real kernel given as first template argument (Composable Kernel's
#: ``ck_tile::kentry<MinBlocksPerCu, Kernel, Args>``: the first that is not a number).
WRAPPERS = {"kernel", "kernel2", "device_kernel", "kernel_entry", "kernel_impl", "launch_kernel", "global_kernel",
            "kernelfunc", "generic_kernel", "kentry"}
_TILE = re.compile(r"[0-9]+x[0-9]+(?:x[0-9]+)*")
_TOKEN = re.compile(r"[A-Za-z0-9_]+")
_NOISE = {"void", "const", "unsigned", "int", "long", "float", "bool", "char", "true", "false", "at", "native", "c10",
          "std", "detail", "cutlass", "anonymous", "namespace", "Params", "BFloat16", "Half"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A first template argument that names no kernel: a built-in or CUDA scalar type, or a template parameter (T7).
_PLAIN_TYPE = re.compile(r"^(?:void|bool|char|short|int|long|unsigned|signed|float|double|half|__half|__nv_bfloat16|"
                         r"__nv_fp8_e4m3|__nv_fp8_e5m2|u?int[0-9]+_t|size_t|[A-Z][0-9]*)$")
#: A template value argument: an integer literal with its suffix (256u, 1ul, -4) or a bool.
_LITERAL = re.compile(r"^(?:-?(?:0x[0-9a-fA-F]+|[0-9]+)[uUlL]*|true|false)$")


def _demangle(name: str) -> str:
    """The demangled, ``.kd``-free name, by ``gpulens.timeline.names`` (cxxfilt / libstdc++) when available, else by
    reading the identifiers of an Itanium mangled name (:func:`_itanium_idents`)."""
    try:  # the gate helper's normaliser
        from gpulens.timeline import names as _tn

        norm = getattr(_tn, "normalize_kernel_name", None)
        name = (norm(name) if norm is not None else name) or name
        fn = getattr(_tn, "demangle", None) or getattr(_tn, "_demangle", None)
        if fn is not None and name.startswith("_Z"):
            out = fn(name)
            if isinstance(out, str) and out and out != name:
                return out
    except Exception:  # noqa: BLE001 - optional module; the local fallback below always works
        pass
    return _itanium_idents(name)


#: The digits of a mangled name's length prefixes (``str.isdigit`` is true of every script's digits).
_DIGITS = frozenset("0123456789")


def _itanium_idents(name: str) -> str:
    """``_ZN7cutlass6KernelI…`` → ``cutlass::Kernel<…>``: the identifiers of the nested name, and for a kernel
    template the class names (8 characters or more) and shapes (``GemmShape<64, 128, 32>`` → ``64x128x32``) of its
    arguments, in order, once each — good enough for a label when the name was cut short and no demangler reads it
    (cuDNN's CUTLASS convolution kernels in a Kineto trace of ResNet-18 on an H200: 1,623–1,676 characters, cut)."""
    if not name.startswith("_Z"):
        return name
    s, i, parts = name[2:], 0, []
    if s.startswith("N"):
        i = 1
        while i < len(s) and s[i] in "rVKL":
            i += 1
    while i < len(s) and s[i] in _DIGITS:
        j = i
        while j < len(s) and s[j] in _DIGITS:
            j += 1
        n = int(s[i:j])
        parts.append(s[j:j + n])
        i = j + n
        if name[2:3] != "N":
            break
    head = "::".join(p for p in parts if p) or name
    if not (i < len(s) and s[i] == "I"):
        return head
    args: list[str] = []
    pos = i + 1
    while pos < len(s):
        # a length prefix starts a source name; digits after S/T (substitution S4_, template parameter T0_) or in a
        # literal (Li64E, Lb0E) are none
        if s[pos] not in _DIGITS or s[pos - 1] in _DIGITS or s[pos - 1] in "ST" or s[pos - 2:pos - 1] == "L":
            pos += 1
            continue
        j = pos
        while j < len(s) and s[j] in _DIGITS:
            j += 1
        n = int(s[pos:j])
        ident = s[j:j + n]
        if not n or len(ident) < n or not re.fullmatch(r"[A-Za-z_]\w*", ident):
            pos = j
            continue
        pos = j + n
        arg = ident if len(ident) >= 8 else ""
        if ident.endswith("Shape") and s.startswith("I", pos):  # GemmShape<64, 128, 32> → 64x128x32
            dims = re.match(r"I((?:Li[0-9]+E)+)", s[pos:])
            arg = "x".join(re.findall(r"[0-9]+", dims.group(1))) if dims else arg
            pos += dims.end() if dims else 0
        if arg and arg not in args:
            args.append(arg)
    return f"{head}<{', '.join(args)}>" if args else head


#: characters of a name :func:`_split` reads
SPLIT_CHARS = 16_384


def _split(name: str) -> tuple[str, str]:
    """(qualified function name, first top-level template argument) of a demangled name. Only the first
    :data:`SPLIT_CHARS` characters are scanned: the longest real template names (CUTLASS, CK) are a few thousand
    characters, and a 600 kB name took 0.8 s a scan, six scans per report (session 34 fuzzing)."""
    s = name.strip()[:SPLIT_CHARS]
    depth, paren, cut = 0, 0, len(s)
    for i, ch in enumerate(s):  # drop the parameter list: the first '(' at template depth 0 (not an anon ns)
        if ch == "(" and depth == 0 and not s.startswith("(anonymous", i):
            cut = i
            break
        if depth and ch in "()":  # parentheses inside a template argument: `<`/`>` there are comparisons
            paren = max(0, paren + (1 if ch == "(" else -1))
        elif ch == "<" and not paren:
            depth += 1
        elif ch == ">" and not paren:
            depth = max(0, depth - 1)
    s = s[:cut]
    depth, paren, head, args, start, done = 0, 0, [], [], None, False
    for i, ch in enumerate(s):
        if depth and ch in "()":  # std::enable_if<((8)>(0)), void>: the `>` in parentheses closes nothing
            paren = max(0, paren + (1 if ch == "(" else -1))
            continue
        if paren:
            continue
        if ch == "<":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == ">":
            depth -= 1
            if depth == 0 and start is not None and not done:
                args.append(s[start:i].strip())
                done = True
        elif depth == 0:
            head.append(ch)
            if ch == " " and not s.startswith("namespace)", i + 1):  # the return type ended (std::enable_if<…>::type
                args, start, done = [], None, False  # f<…>): its template arguments are not the function's
        elif depth == 1 and ch == "," and start is not None and not done:
            args.append(s[start:i].strip())
            start = i + 1
    qual = "".join(head).replace("(anonymous namespace)", "").strip()
    qual = _drop_return_type(qual)
    # a value argument (thrust's kernel<256u, functor...>: block size) names nothing: the first type argument does
    types = [a for a in args if not _LITERAL.match(a)]
    return qual, (types[0] if types else args[0] if args else "")


#: Words of a C++ return type before a kernel's name (``void``, ``unsigned int``, ``__global__ void``,
#: ``std::enable_if::type`` with its template arguments read off): keywords, qualified names, pointers.
_RETURN_WORD = re.compile(r"^(?:void|bool|char|short|int|long|unsigned|signed|float|double|auto|const|volatile|static|"
                          r"inline|extern|__global__|__device__|__host__|__launch_bounds__|size_t|\w*::[\w:]*|\w+[*&]+)$")


def _drop_return_type(qual: str) -> str:
    """``"void foo"`` → ``"foo"``: the last word of a demangled head when the words before it are a C++ return type
    (:data:`_RETURN_WORD`) and it can name a function. A name that is a phrase — a profiler's label for a record that
    is no kernel function (nsys' graph-level replay ``"CUDA graph 5"``, Kineto's ``"Memcpy HtoD"``) — is kept whole:
    its last word alone (``"5"``, ``"HtoD"``) says nothing of what it is."""
    words = qual.split()
    if len(words) < 2 or not _IDENT.fullmatch(words[-1].split("::")[-1] or "_"):
        return qual
    return words[-1] if all(_RETURN_WORD.match(w) for w in words[:-1]) else qual


@functools.lru_cache(maxsize=1 << 14)
def base_name(name: str) -> str:
    """The readable base of a kernel name (see the module docstring), not clipped. Memoised: every table and chart
    of a report labels the same few hundred names again, and the scan is linear in the name (a 100 kB templated
    name costs ~50 ms, once)."""
    full = _demangle(str(name))
    # ncu writes the anonymous namespace as "<unnamed>::" (and some exports lose the "<"): not a name, and a lone
    # ">" would read as the end of a template argument list
    full = re.sub(r"(?:^|(?<=[\s:]))<?unnamed>::", "", full)
    qual, targ = _split(full)
    parts = [p for p in qual.split("::") if p]
    base = (parts[-1] if parts else "") or qual or full
    if base.lower() in WRAPPERS:
        ids = _IDENT.findall(targ.split("<")[0]) if targ else []
        if ids and not _PLAIN_TYPE.match(ids[-1]):
            base = ids[-1]
        elif len(parts) > 1:  # cuBLAS' gemvx::kernel<int, int, __nv_bfloat16, …>: the namespace names the kernel
            base = "::".join(parts[-2:])
    return base or full


def _extra(full: str, others: list[str], digits: bool = False) -> list[str]:
    """Tokens of ``full`` (tile shapes first) that not every other name of the group has (``digits``: numbers too,
    e.g. the vector width of ``vectorized_elementwise_kernel<8, …>`` against ``<4, …>``)."""
    def toks(s: str) -> list[str]:
        words = [p for t in _TOKEN.findall(s) for p in (t.split("_") if len(t) > 24 else [t])]
        return [t for t in _TILE.findall(s) + words if t and t not in _NOISE and (digits or not t.isdigit())]

    mine = list(dict.fromkeys(toks(_demangle(full))))  # a mangled name's tokens are read off its demangled form
    other_sets = [set(toks(_demangle(o))) for o in others]
    unique = [t for t in mine if all(t not in s for s in other_sets)]
    some = [t for t in mine if t not in unique and any(t not in s for s in other_sets)]
    return (unique or some)[:MAX_EXTRA]



def is_name_column(column: str, doc: str = "") -> bool:
    """True for a column of kernel names (``doc``: the column's declared meaning): every report shows them short
    (:func:`short_names`; HTML: full name on hover, linked to the kernel's page). Operator and annotation names
    ("aten::mm") are not kernel names: every report shows them as recorded."""
    return column == "kernel" or (column == "name" and ("kernel" in doc.lower() or "event" in doc.lower()))

def short_names(names: Iterable[str], width: int = BASE_CHARS,
                runs: Iterable[Iterable[str]] | None = None) -> list[str]:
    """Distinguishable short labels for ``names`` (same order; equal names get equal labels); control and bidi
    characters shown as ``\\uXXXX`` (:func:`~gpulens.reports._md_safe.visible`). Inside :func:`label_scope`, the
    labels are those of the scope's whole set of names (with ``names`` added), so one kernel reads the same in every
    table of a report, whichever other kernels a table happens to show. ``runs``: the names of each run (a diff's
    two sides): a "(2)" number then tells apart only kernels of one run (:func:`_label_table`)."""
    from gpulens.reports._md_safe import visible

    names = [visible(str(n), bidi=True) for n in names]
    scope = _SCOPE.get()
    if runs is not None:
        sets = [{visible(str(n), bidi=True) for n in r} for r in runs]
        label = _label_table(list(dict.fromkeys(names)), width, sets)
    elif scope is None:
        label = _label_table(list(dict.fromkeys(names)), width)
    else:
        new = [n for n in dict.fromkeys(names) if n not in scope[0]]
        if new:
            label = _label_table(list(scope[0]) + new, width)
        else:
            label = scope[1].get(width)
            if label is None:
                label = scope[1][width] = _label_table(list(scope[0]), width)
    return [label[n] for n in names]


def label_in_text(text: str, name: str | None) -> str:
    """``text`` (a finding's title, written by an analyzer with the kernel's full name, whole or clipped with "…")
    with that name replaced by the kernel's label (:func:`short_names`, so inside :func:`label_scope` the label of
    the report's tables): "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616…: latency/occupancy-bound"
    → "cutlass_80_wmma_tensorop… 32x32 128x2: latency/occupancy-bound". ``text`` unchanged when it does not quote
    the name or the name is its own label."""
    if not name or not text:
        return text
    label = short_names([name])[0]
    if label == name:
        return text
    head = name[:24]
    i = text.find(head)
    if i < 0:
        return text
    if text.startswith(name, i):
        j = i + len(name)
    else:
        cut = text.find("…", i)
        if cut < 0 or not name.startswith(text[i:cut]):
            return text
        j = cut + 1
    return text[:i] + label + text[j:]


#: The names every label of the report being rendered is told apart from (:func:`label_scope`): (names as a dict
#: for order and lookup, label tables already computed per width), or None outside a report.
_SCOPE: contextvars.ContextVar[tuple[dict[str, None], dict[int, dict[str, str]]] | None] = \
    contextvars.ContextVar("gpulens_label_scope", default=None)


@contextlib.contextmanager
def label_scope(report: Any) -> Iterator[None]:
    """Within the block, :func:`short_names` labels every kernel of ``report`` (a Report: each source's
    ``hotspots`` table, which ranks every kernel and collective) as it would among all of them: a kernel whose base
    name it shares with another (two ``vectorized_elementwise_kernel``) keeps its ‹…› suffix in a table that shows
    only one of them, and the suffix is the same in every table, chart and report format."""
    from gpulens.reports._md_safe import visible

    names: dict[str, None] = {}
    for s in getattr(report, "sources", ()):
        hot = getattr(s, "results", {}).get("hotspots")
        table = getattr(hot, "table", None)
        if table is not None and len(table) and "name" in table.columns:
            names.update(dict.fromkeys(visible(str(n), bidi=True) for n in table["name"].astype(str).unique()))
    token = _SCOPE.set((names, {}))
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _label_table(uniq: list[str], width: int, runs: Sequence[set[str]] | None = None) -> dict[str, str]:
    """name → label for distinct (visible) ``uniq`` names: :func:`short_name`, then the ‹…› suffixes and numbers
    that tell equal labels apart (module docstring). With ``runs`` (the names of each run, e.g. a diff's base and
    candidate), a number ("(2)") is given only to a kernel that shares its label with another kernel *of the same
    run*: one kernel per run never reads "reduce_kernel (2)"."""
    label = {n: short_name(n, width) for n in uniq}
    groups: dict[str, list[str]] = {}
    for n in uniq:
        groups.setdefault(label[n], []).append(n)
    for lab, members in groups.items():
        if len(members) < 2:
            continue
        for n in members:
            extra = _extra(n, [m for m in members if m != n])
            if extra:
                label[n] = f"{lab} ‹{_clip(' '.join(extra), 40)}›"
    groups = {}
    for n in uniq:  # still equal: the first token where they differ, numbers included (<8, …> vs <4, …>)
        groups.setdefault(label[n], []).append(n)
    for lab, members in groups.items():
        if len(members) < 2:
            continue
        toks = {n: _TOKEN.findall(_demangle(n)) for n in members}
        first = {n: _first_difference(toks[n], [toks[m] for m in members if m != n]) for n in members}
        if all(first.values()) and len(set(first.values())) == len(members):
            for n in members:
                label[n] = f"{lab} ‹{_clip(first[n], 24)}›"
    groups = {}
    for n in uniq:  # still equal: number them in order of appearance (within a run, when runs are given)
        groups.setdefault(label[n], []).append(n)
    for lab, members in groups.items():
        if len(members) < 2:
            continue
        if runs is not None:
            members = [n for n in members if any(n in r and any(m != n and m in r for m in members) for r in runs)]
        for k, n in enumerate(members[1:], start=2):
            label[n] = f"{lab} ({k})"
    return label


def _first_difference(mine: list[str], others: list[list[str]]) -> str:
    """The token of ``mine`` at the first position where some other token list differs (``""`` when none)."""
    for i, t in enumerate(mine):
        if any(i >= len(o) or o[i] != t for o in others):
            return t
    return ""


#: The pass a library kernel's name says it computes (cuDNN's flash_fprop / flash_bprop attention, its xmma fprop /
#: dgrad / wgrad convolutions): kept in a short label when the clipped start drops it, so a forward and a backward
#: kernel of one family never read alike ("cudnn_generated… bprop 64x64x64 1x4x1").
_PASS = re.compile(r"(?:^|_)(fprop|bprop|dgrad|wgrad)(?=_|$)")


@functools.lru_cache(maxsize=1 << 14)
def short_name(name: str, width: int = BASE_CHARS) -> str:
    """The short label of one name on its own: its base, and when that is too long, its start plus the pass it
    computes (:data:`_PASS`) when even the shortest start would drop it, plus its tile shapes
    (``cutlass_80_tensorop_bf16… 256x128 64x3``, ``cudnn_generated… bprop 64x64x64 1x4x1``)."""
    base = base_name(name)
    if len(base) <= width:
        return base
    p = _PASS.search(base)
    pass_word = p.group(1) if p and p.end(1) > width - width // 2 - 1 else ""
    chosen: list[str] = []
    for t in dict.fromkeys(_TILE.findall(base)):  # whole tiles only: "16x16x128 16x16x" would name another tile
        if len(" ".join([pass_word] * bool(pass_word) + chosen + [t])) > width // 2:
            break
        chosen.append(t)
    tiles = " ".join([pass_word] * bool(pass_word) + chosen)
    head = _clip(base, width - len(tiles) - 1)
    seen = len(head) - 1 if head.endswith("…") else len(head)
    # a tile the clipped start would show is not said twice: the start stops before the first one it holds
    # ("nvjet_sm90_tst… 256x128 64x4 1x2", not "nvjet_sm90_tst_256x128… 256x128 64x4 1x2")
    at = [m.start() for t in chosen for m in re.finditer(re.escape(t) + r"(?![0-9x])", base) if m.end() <= seen]
    if at and base[:min(at)].rstrip("_"):
        head = base[:min(at)].rstrip("_") + "…"
    return head + (" " + tiles if tiles else "")


#: Where a label may be cut: between the words of an identifier (``ncclKernel_SendRecv_RING``), its scopes and
#: template arguments, never inside a word.
_CUT = re.compile(r"[_:<>,(). ]")


def _clip(s: str, n: int) -> str:
    """``s`` cut to at most ``n`` characters with an ellipsis — at the last word or template boundary (``_``, ``::``,
    ``<``, ``,``, space…) when one lies in the second half of the room, so a word is never cut in two
    (``ncclDevKernel_ReduceScatter_Sum_bf16…``, not ``…_bf16_R…``); a long unbroken word is cut where the room ends.
    The parts a cut drops are what :func:`short_names` appends when two labels would read alike."""
    if len(s) <= n:
        return s
    head = s[: n - 1]
    cuts = [m.start() for m in _CUT.finditer(head) if m.start() >= n // 2]
    if cuts and not _CUT.match(s, n - 1):  # the room does not end at a boundary already
        head = head[: cuts[-1]]
    return head.rstrip("_:<>,(. ") + "…"
