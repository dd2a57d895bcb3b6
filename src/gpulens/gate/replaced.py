"""Kernels the candidate replaced: baseline kernels it no longer runs, and new kernels of the same work category.

A renamed, re-tiled or re-fused kernel leaves the baseline's kernel with zero time ("−100 %, IMPROVED") and puts its
time on a new kernel that has no baseline (NO_BASELINE, never gating): the gate read a pure rename as a speed-up,
and a 30 % slower replacement passed. Per work category (:func:`gpulens.analyzers._categories.kernel_category`:
GEMM, attention, elementwise, reduction, normalisation, communication, copy; never ``other``), the vanished
kernels' time and the new kernels' time form one metric ``kernels:<category> replaced`` compared like a kernel (run-level samples:
the sums per run); the member rows stay, informational.

Elementwise and reduction kernels are one family here (:data:`REPLACEMENT_FAMILY`): a fusing compiler folds pointwise
ops into the reduction that consumes them (TorchInductor's ``triton_per_fused_add_mul_sum`` / ``triton_red_fused_…``
replace an eager ``vectorized_elementwise_kernel`` and a ``reduce_kernel``), so an elementwise kernel that vanished
beside a new reduction kernel is one replacement — ``kernels:elementwise + reduction replaced`` —, never a −100 %
"improvement" beside a new kernel that gates nothing. Normalisation kernels (layer/RMS/batch/group norm, softmax)
join that family: a norm is a reduction (mean, variance, max) and elementwise ops, and a fusing compiler renames it
into either — TorchInductor's RMS norm is ``triton_per_fused_mean_mul_pow_rsqrt`` (a reduction by name) where eager
PyTorch ran an ``rms_norm_kernel``, and its ``triton_per_fused_add_native_layer_norm`` folds the residual add (an
elementwise kernel) into the layer norm. Their work categories stay apart everywhere else.
"""

from __future__ import annotations

from gpulens.analyzers._categories import CATEGORIES, kernel_category
from gpulens.gate.runs import KERNEL_PREFIX, Metric

#: Metric id prefix of the replaced-kernel metrics (``kernels:GEMM replaced``).
REPLACED_PREFIX = "kernels:"


#: Work categories the gate pairs as one replacement family (see the module docstring); a category not named is its
#: own family.
REPLACEMENT_FAMILY = {"elementwise": "pointwise", "reduction": "pointwise", "normalisation": "pointwise"}


def kernel_like(name: str) -> bool:
    """A per-kernel metric (one kernel, or the kernels of a category replaced): weighted by its share of kernel
    time, and under ``min_kernel_share`` reported without gating."""
    return name.startswith(KERNEL_PREFIX) or name.startswith(REPLACED_PREFIX)


def _summed(name: str, parts: list[Metric]) -> Metric:
    """One metric whose samples, shares and calls are the run-by-run sums of ``parts``."""
    first = parts[0]
    add = lambda rows: [sum(v) for v in zip(*rows)] if all(rows) else []
    return Metric(name, first.kind, first.unit, add([p.samples for p in parts]), first.direction,
                  add([p.share for p in parts]), [int(v) for v in add([p.calls for p in parts])])


def replaced(base: dict[str, Metric], cand: dict[str, Metric]) -> tuple[dict[str, tuple[Metric, Metric]],
                                                                         dict[str, str]]:
    """The replaced-kernel metrics and their members.

    Returns:
        ``{metric id: (baseline metric, candidate metric)}`` and ``{member kernel metric id: replaced metric id}``.
    """
    cats: dict[str, set[str]] = {}  # family → the work categories of its members

    def by_class(names: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for n in names:
            cat = kernel_category(n[len(KERNEL_PREFIX):])
            if cat != "other":
                fam = REPLACEMENT_FAMILY.get(cat, cat)
                out.setdefault(fam, []).append(n)
                cats.setdefault(fam, set()).add(cat)
        return out

    gone = by_class([n for n in base if n.startswith(KERNEL_PREFIX) and n not in cand])
    new = by_class([n for n in cand if n.startswith(KERNEL_PREFIX) and n not in base])
    pairs: dict[str, tuple[Metric, Metric]] = {}
    members: dict[str, str] = {}
    for fam in sorted(set(gone) & set(new)):
        mid = f"{REPLACED_PREFIX}{' + '.join(c for c in CATEGORIES if c in cats[fam])} replaced"
        pairs[mid] = (_summed(mid, [base[n] for n in gone[fam]]), _summed(mid, [cand[n] for n in new[fam]]))
        members.update(dict.fromkeys(gone[fam] + new[fam], mid))
    return pairs, members
