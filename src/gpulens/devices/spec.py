"""DeviceSpec: one GPU's peak figures (each with its source) and its architecture's occupancy limits.

Figures are written in the data files (:mod:`gpulens.devices.nvidia`, :mod:`gpulens.devices.amd`, or a user's
JSON/TOML file) in datasheet units and converted here to base units:

============================  ===================  =====================
file key                      unit in the file     DeviceSpec unit
============================  ===================  =====================
``clock_mhz``                 MHz                  MHz
``memory_clock_mhz``          MHz                  MHz (DRAM clock)
``memory_bandwidth``          GB/s (10^9 B/s)      bytes/s
``l2``                        MiB (2^20 B)         bytes
``vector.<prec>``             TFLOPS (10^12)       FLOP/s
``matrix.<prec>``             TFLOPS / TOPS        FLOP/s (OP/s for int8)
``achievable.<unit>.<prec>``  TFLOPS               FLOP/s
============================  ===================  =====================

Precisions: ``fp64, fp32, tf32, bf16, fp16, fp8, int8``. ``vector`` = SIMT/VALU units, ``matrix`` = tensor cores /
MFMA. Every peak is **dense** (no 2:4 sparsity). ``achievable.matrix.<prec>`` is a documented *achievable* peak of the
same unit — what a tuned GEMM reaches in practice (TraceLens' Max-Achievable FLOPS, or a measured matmul
benchmark, MAMF): the roofline judges kernels against it where one is known (:meth:`DeviceSpec.achievable_flops`).
A figure is ``[value, source]`` or ``[value, source, "uncertain"]`` or a dict ``{"value", "source", "uncertain"}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

from gpulens.devices.arch import ArchLimits, limits_for
from gpulens.errors import TraceFormatError

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")
_SCALE = {"clock_mhz": 1.0, "memory_clock_mhz": 1.0, "memory_bandwidth": 1e9, "l2": 2**20}
#: The unit a spec file writes each figure in (the key of :data:`_SCALE`; compute peaks: TFLOPS).
_UNIT_NAME = {"clock_mhz": "MHz", "memory_clock_mhz": "MHz", "memory_bandwidth": "GB/s", "l2": "MiB"}


#: What the short source keys of the built-in figures stand for (``shared/reference/gpu-facts.md`` §S): the
#: legend ``gpulens devices NAME`` prints under a GPU's figures. ``WEB-<part>`` keys are read by :func:`source_legend`.
SOURCE_KEYS: dict[str, str] = {
    "STAS": "stas00/ml-engineering accelerator tables (TFLOPS, memory, cache; MAMF = measured matmul peak)",
    "PT-DI": "PyTorch inductor's device table (torch/_inductor/analysis/device_info.py)",
    "ROCM": "AMD ROCm GPU architecture specs (gpu-arch-specs; peak = FLOP/clock/CU × CUs × clock)",
    "ROCM-7.13": "AMD ROCm 7.13 GPU specs page (MI355X row)",
    "TL-ARCH": "AMD TraceLens per-GPU architecture files (max achievable FLOPS)",
    "NV-TC": "NVIDIA 'Programming Tensor Cores in CUDA 9' (developer blog)",
    "AO-PR": "pytorch/ao PR #4002 (a B200 device query)",
    "AO": "pytorch/ao's roofline figures (torchao/testing/training/roofline_utils.py)",
    "A100-PCIE": "NVIDIA A100 datasheet figures for the PCIe cards (as tabled by thundercompute.com)",
    "RX-7900": "AMD's RX 7900 series launch specifications (Tom's Hardware deep dive, 2022-11-14)",
    "W7900": "Radeon PRO W7900 product figures (itcreations.com, huggingface.co/hardware/pro-w7900)",
    "VEGA20": "Vega 20 figures: guru3d's Radeon VII review, AMD's MI50/MI60 launch figures",
    "QRTX6000": "NVIDIA Quadro RTX 6000 datasheet (FP32, tensor and INT8 peaks, GDDR6 bandwidth, L2)",
    "TITANV": "NVIDIA TITAN V specifications (as tabled by AnandTech's Titan V deep-learning deep dive, 2018)",
    "K20": "NVIDIA Tesla K20 specifications (as listed by Microway's 'Tesla K20 GPU Accelerator up close', 2013)",
    "A30": "NVIDIA A30 PCIe figures (sysrqmts.com's A30 table: 56 SMs, 1,440 MHz boost, 933 GB/s, 24 MB L2)",
    "L40": "NVIDIA L40 datasheet (table copy at mullet.se: FP32, dense / sparse tensor peaks, GDDR6 bandwidth)",
    "V100-PCIE": "NVIDIA Tesla V100 PCIe launch figures (io-tech.fi, 2017; sysrqmts.com's V100 PCIe table)",
    "RTX6000ADA": "NVIDIA RTX 6000 Ada Generation specifications (as tabled by grafikkarten.com)",
}


def source_legend(sources: Any) -> list[str]:
    """``["STAS = stas00/ml-engineering accelerator tables (…)", …]``: the meaning of each source key that leads one
    of ``sources`` (figure source texts such as ``"STAS (measured BF16 matmul, MAMF)"``), in first-seen order;
    ``WEB-H100`` → "a copy of the H100 datasheet (web)". Sources that are sentences need no legend."""
    out: dict[str, str] = {}
    for src in sources:
        key = str(src).split(" ", 1)[0].rstrip(",;:")
        if key in SOURCE_KEYS:
            out.setdefault(key, SOURCE_KEYS[key])
        elif web_copy(src):
            out.setdefault(key, f"a copy of the {key[4:]} datasheet (web; lower confidence)")
    return [f"{k} = {v}" for k, v in out.items()]


def web_copy(source: Any) -> bool:
    """Whether a figure's source text is a web copy of a datasheet (a ``WEB-<part>`` key, gpu-facts.md §S): lower
    confidence than the vendor's own document, said in the legend (:func:`source_legend`) and flagged beside the
    figure wherever its uncertainty is shown (``gpulens devices NAME``'s "uncertain" column, :func:`doubt_text`)."""
    key = str(source).split(" ", 1)[0].rstrip(",;:")
    return key.startswith("WEB-") and len(key) > 4 and key not in SOURCE_KEYS


def doubt_text(fig: Any) -> str:
    """How far one :class:`Figure` may be off, in words for its "uncertain" cell: ``"⚠"`` when its sources conflict
    or it is derived (``uncertain``), ``"⚠ web copy"`` when it rests on a web copy of the datasheet
    (:func:`web_copy`; the legend says "lower confidence"), both when both; ``""`` otherwise."""
    marks = (["⚠"] if getattr(fig, "uncertain", False) else []) + (["web copy"] if web_copy(getattr(fig, "source", ""))
                                                                    else [])
    return " ".join(marks if not marks or marks[0] == "⚠" else ["⚠", *marks])


@dataclass(frozen=True)
class Figure:
    """One hardware figure with where it came from.

    Attributes:
        value: in the DeviceSpec unit (FLOP/s, bytes/s, bytes, MHz).
        source: citation key or URL (see ``shared/reference/gpu-facts.md`` §S), or ``"user"``.
        uncertain: True when the sources conflict or the figure is derived/inferred.
    """

    value: float
    source: str
    uncertain: bool = False


#: How an assumed GPU's note (:func:`gpulens.devices.identify`) says its SM count was inferred from the input (Kineto's
#: per-kernel ``blocks per SM`` / ``warps per SM``) rather than taken from the assumed part's datasheet.
SMS_INFERRED_FROM = " SMs inferred from Kineto's 'blocks per SM' / 'warps per SM'"


def is_assumed_note(note: Any) -> bool:
    """Whether a device spec's ``note`` says the GPU was assumed rather than read from the input (the wording
    :func:`gpulens.devices.identify_device` writes: "<name> assumed from …")."""
    return " assumed from " in str(note or "")


@dataclass(frozen=True)
class DeviceSpec:
    """Peak figures of one GPU as the runtime sees it (one GCD of a dual-die MI250X is one device).

    Attributes:
        name: canonical name (``"NVIDIA H100 SXM"``).
        vendor: ``"nvidia"`` or ``"amd"``.
        compute_capability: ``"9.0"`` (NVIDIA) or None.
        gfx_arch: ``"gfx942"`` (AMD) or None.
        num_sms: SMs (NVIDIA) or CUs (AMD) per device.
        memory_bytes: device memory size (used to tell variants apart), or None.
        figures: ``clock_mhz``, ``memory_clock_mhz`` (the DRAM clock, used to tell memory generations apart),
            ``memory_bandwidth`` (bytes/s), ``l2`` (bytes), ``vector.<prec>`` and ``matrix.<prec>`` (FLOP/s), each
            a :class:`Figure`.
        match: regular expressions (case-insensitive) matched against the recorded device name.
        origin: ``"builtin"`` or the path of the user's spec file.
        note: how the spec was chosen for a trace (set by :func:`gpulens.devices.identify`).
        unified_memory: the CPU and the GPU share one physical memory (an APU: AMD Instinct MI300A, whose CPU and GPU
            dies use the same HBM), so a host↔device copy copies within that memory.
        file_figures: the keys of :attr:`figures` the user's spec file gave (all of them without a ``base``; only
            its own over a ``base``); empty for a built-in spec — reports say a roof is the spec file's, not the
            datasheet's.
    """

    name: str
    vendor: str
    compute_capability: str | None
    gfx_arch: str | None
    num_sms: int
    memory_bytes: int | None = None
    figures: Mapping[str, Figure] = field(default_factory=dict)
    match: tuple[str, ...] = ()
    origin: str = "builtin"
    note: str = ""
    unified_memory: bool = False
    file_figures: tuple[str, ...] = ()

    @property
    def arch(self) -> str:
        """``"sm_90"`` or ``"gfx942"``."""
        if self.gfx_arch:
            return self.gfx_arch
        return "sm_" + (self.compute_capability or "?").replace(".", "")

    @property
    def limits(self) -> ArchLimits | None:
        """Occupancy limits of the architecture (None for an architecture without a table)."""
        return limits_for(self.compute_capability, self.gfx_arch)

    def figure_value(self, key: str) -> float | None:
        """The value of figure ``key`` in base units (``memory_clock_mhz``: MHz), None when the spec has none."""
        f = self.figures.get(key)
        return f.value if f else None

    @property
    def memory_bandwidth(self) -> float | None:
        """Peak DRAM/HBM bandwidth [bytes/s]."""
        f = self.figures.get("memory_bandwidth")
        return f.value if f else None

    def peak_flops(self, precision: str, matrix: bool = True) -> tuple[float, str] | None:
        """The applicable compute roof for ``precision``.

        Args:
            precision: one of :data:`PRECISIONS`.
            matrix: prefer the tensor/MFMA unit (GEMM, conv, attention); False for elementwise/reduction work.

        Returns:
            ``(FLOP/s, key)`` where key names the figure used (``"matrix.bf16"``); falls back from matrix to vector
            and from a 16-bit vector figure to ``vector.fp32``; None when the spec has no such figure.
        """
        order = [f"matrix.{precision}", f"vector.{precision}"] if matrix else [f"vector.{precision}"]
        if precision in ("bf16", "fp16", "tf32"):
            order.append("vector.fp32")
        for k in order:
            f = self.figures.get(k)
            if f is not None:
                return f.value, k
        return None

    def achievable_flops(self, key: str) -> tuple[float, str] | None:
        """The documented achievable peak of the compute roof ``key`` (``"matrix.bf16"`` → the figure
        ``achievable.matrix.bf16``) as ``(FLOP/s, key)``; None when none is documented, when it is not below the
        roof itself, or when the roof was measured on this GPU (rocprof-compute's microbenchmark: already what is
        achievable here)."""
        peak, ach = self.figures.get(key), self.figures.get(f"achievable.{key}")
        if peak is None or ach is None or "measured" in peak.source or not 0 < ach.value < peak.value:
            return None
        return ach.value, f"achievable.{key}"

    def uncertain_figures(self) -> list[str]:
        """Keys of figures marked uncertain."""
        return sorted(k for k, f in self.figures.items() if f.uncertain)

    @property
    def assumed(self) -> bool:
        """Whether this GPU was *assumed* rather than read from the input (an ncu CSV that records only a compute
        capability: :func:`gpulens.devices.identify_device` says so in ``note``, "X assumed from …"): its peak
        figures may not be the profiled GPU's, so a roofline placed on them is a guess, never a measurement."""
        return is_assumed_note(self.note)

    @property
    def sms_inferred(self) -> bool:
        """Whether this assumed GPU's SM count was inferred from the input (:data:`SMS_INFERRED_FROM`), not recorded
        by it nor read off the assumed part alone."""
        return self.assumed and SMS_INFERRED_FROM in str(self.note or "")

    def with_note(self, note: str) -> "DeviceSpec":
        """A copy with ``note`` set."""
        return replace(self, note=note)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe summary (figures in base units, with sources)."""
        return {"name": self.name, "vendor": self.vendor, "arch": self.arch, "num_sms": self.num_sms,
                "compute_capability": self.compute_capability, "gfx_arch": self.gfx_arch,
                "memory_bytes": self.memory_bytes, "origin": self.origin, "note": self.note,
                "figures": {k: {"value": f.value, "source": f.source, "uncertain": f.uncertain}
                            for k, f in sorted(self.figures.items())}}


def _figure(key: str, raw: Any, where: str) -> Figure:
    if isinstance(raw, Mapping):
        value, source, unc = raw.get("value"), raw.get("source", "user"), bool(raw.get("uncertain", False))
    elif isinstance(raw, (list, tuple)) and raw:
        value = raw[0]
        source = str(raw[1]) if len(raw) > 1 else "user"
        unc = len(raw) > 2 and str(raw[2]).lower() in ("uncertain", "true", "1")
    else:
        value, source, unc = raw, "user", False
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= _MAX_FIGURE:
        # a zero, NaN or infinite peak made every "% of peak" infinite or NaN (an internal error while reporting)
        unit = _UNIT_NAME.get(key, "TFLOPS")
        raise ValueError(f"{where}: figure {key!r} must be a positive number of at most {_MAX_FIGURE:.0e} (a plain "
                         f"number in {unit}, the unit of the spec file's table), got {value!r}")
    scale = _SCALE.get(key, 1e12 if re.fullmatch(r"(achievable\.)?(vector|matrix)\.\w+", key) else None)
    if scale is None:
        raise ValueError(f"{where}: unknown figure {key!r} (known: clock_mhz, memory_clock_mhz, memory_bandwidth, "
                         "l2, "
                         f"vector.<precision>, matrix.<precision>, achievable.matrix.<precision>)")
    prec = key.rsplit(".", 1)[1] if "." in key else None
    if prec is not None and prec not in PRECISIONS:
        raise ValueError(f"{where}: unknown precision {prec!r} in {key!r} (known: {', '.join(PRECISIONS)})")
    return Figure(float(value) * scale, source, unc)


#: The largest figure a spec file may give, in its table's unit (TFLOPS, GB/s, MHz, MiB): 10^9 TFLOPS is 10^21
#: FLOP/s, six orders above any GPU; a larger value (``1e308``) overflowed to an infinite peak once scaled.
_MAX_FIGURE = 1e9
#: The most SMs / CUs a spec may give: the largest GPU has a few hundred.
_MAX_SMS = 100_000


def _count(where: str, key: str, raw: Any, low: int, high: int) -> int:
    """``raw`` as a whole number in ``[low, high]`` (an int, an integral float, or its ASCII digits), else
    ValueError naming ``key``: ``int()`` made 13.5 SMs 13 and ``1e400`` an OverflowError (an internal error)."""
    value = raw.strip() if isinstance(raw, str) else raw
    if isinstance(value, str) and value.isascii() and value.lstrip("-").isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{where}: {key!r} must be a whole number from {low} to {high:,}, got {raw!r}")
    return value


def spec_from_dict(d: Mapping[str, Any], origin: str = "builtin") -> DeviceSpec:
    """Build a DeviceSpec from a data-file entry (units as in the module docstring).

    Keys: ``name`` (required), ``vendor``, ``compute_capability`` or ``gfx_arch``, ``num_sms`` (required),
    ``memory_gb``, ``match`` (list of regexes), ``figures`` (key → figure), ``unified_memory`` (true for an APU
    whose CPU and GPU share one memory).

    Raises:
        ValueError: a required key is missing or a figure is malformed.
    """
    where = f"{origin}: {d.get('name', '?')}"
    for req in ("name", "num_sms"):
        if req not in d:
            raise ValueError(f"{where}: missing {req!r}")
    cc, gfx = d.get("compute_capability"), d.get("gfx_arch")
    if cc is None and gfx is None:
        raise ValueError(f"{where}: give compute_capability (NVIDIA) or gfx_arch (AMD)")
    figs = {k: _figure(k, v, where) for k, v in dict(d.get("figures", {})).items()}
    mem = d.get("memory_gb")
    if mem is not None and (isinstance(mem, bool) or not isinstance(mem, (int, float)) or not 0 <= mem <= 1e9):
        raise ValueError(f"{where}: 'memory_gb' must be a number from 0 to 1e9, got {mem!r}")
    for pattern in d.get("match", ()):
        try:
            re.compile(str(pattern))
        except re.error as exc:
            raise ValueError(f"{where}: 'match' entry {str(pattern)!r} is not a regular expression ({exc})") from None
    return DeviceSpec(
        name=str(d["name"]), vendor=str(d.get("vendor") or ("amd" if gfx else "nvidia")),
        compute_capability=str(cc) if cc is not None else None, gfx_arch=str(gfx) if gfx else None,
        num_sms=_count(where, "num_sms", d["num_sms"], 1, _MAX_SMS),
        memory_bytes=int(float(mem) * 2**30) if mem else None, figures=figs,
        match=tuple(d.get("match", ())) or (re.escape(str(d["name"])),), origin=origin,
        unified_memory=bool(d.get("unified_memory", False)))


_MAX_SPEC_BYTES = 16 << 20  # a spec is a few hundred bytes; anything this large is not one


def _builtin(p: Path) -> DeviceSpec:
    """The built-in spec named by ``p`` (not a file), or the one-line error saying why none is."""
    from gpulens.devices import builtin_spec

    try:
        return builtin_spec(str(p))
    except ValueError as exc:
        # a figure given in place of a GPU ("3.35 TB/s", "989"): say where figures go (a spec file, their units)
        hint = ("; a figure is no GPU name: write figures in a spec file (memory_bandwidth in GB/s, FLOP/s in "
                "TFLOPS: README, GPU specs) and give its path") if _FIGURE_LIKE.match(str(p)) else ""
        raise TraceFormatError(p, f"no such file, and {exc}{hint}") from None


#: ``--device-spec`` text that is a number, with or without a unit ("3.35 TB/s", "989 TFLOPS", "2000"): a figure
_FIGURE_LIKE = re.compile(r"^\s*[0-9][0-9.,]*\s*[A-Za-z/]*\s*$", re.ASCII)


def load_spec(path: str | Path) -> DeviceSpec:
    """Read a user's device spec file (JSON, or TOML on Python ≥ 3.11; YAML that is not JSON is refused with one
    line saying so) with the keys of :func:`spec_from_dict`; a ``path`` that is no file names a built-in GPU
    (:func:`gpulens.devices.find_spec`: ``H200``, ``MI300X``).

    A ``base`` key names a built-in spec to start from (e.g. ``"NVIDIA H100 SXM"``, or ``"H200"``: the rule of
    ``--device-spec NAME``, :func:`gpulens.devices.builtin_spec`); the file's figures then
    override or add to the built-in ones (e.g. measured peaks).

    Raises:
        TraceFormatError: the file cannot be read or is not a valid spec, or no file and no single built-in GPU
            has that name (one-line reason, naming the GPUs it fits when several do).
    """
    from gpulens.collectors._io import check_special

    p = Path(path)
    if not p.exists() and not p.is_symlink():
        return _builtin(p)
    check_special(p)  # /dev/zero or a FIFO would be read forever
    try:
        if p.stat().st_size > _MAX_SPEC_BYTES:
            raise TraceFormatError(p, f"not a device spec file (larger than {_MAX_SPEC_BYTES >> 20} MiB)")
        text = p.read_bytes().decode("utf-8-sig")  # a byte-order mark (Windows editors) is not part of the JSON
    except OSError as exc:
        raise TraceFormatError(p, f"cannot read device spec ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise TraceFormatError(p, f"not a valid device spec file (not UTF-8 text: {exc.reason} at byte "
                                  f"{exc.start})") from None
    try:
        if p.suffix.lower() == ".toml":
            import tomllib

            d = tomllib.loads(text)
        else:
            d = json.loads(text)
    except (ValueError, ImportError, RecursionError) as exc:
        if p.suffix.lower() in (".yaml", ".yml"):  # JSON is YAML, so a .yaml holding JSON was read above
            raise TraceFormatError(p, "a device spec is read as JSON or TOML, not YAML: write it as .json or .toml "
                                      "(same keys)") from None
        raise TraceFormatError(p, "not a valid device spec file "
                                  f"({(str(exc).splitlines() or [type(exc).__name__])[0]})") from None
    if not isinstance(d, dict):
        raise TraceFormatError(p, "a device spec must be a JSON/TOML object")
    try:
        own = tuple(sorted(str(k) for k in dict(d.get("figures") or {})))
        if "base" in d:
            from gpulens.devices import builtin_spec

            try:  # named as --device-spec NAME names a built-in GPU: one resolution rule
                base = builtin_spec(str(d["base"]))
            except ValueError as exc:
                raise ValueError(f"unknown base device {d['base']!r}: {exc}") from None
            merged = base.to_dict()
            figs = {k: {"value": v["value"] / _unit_scale(k), "source": v["source"], "uncertain": v["uncertain"]}
                    for k, v in merged["figures"].items()}
            figs.update(d.get("figures", {}))
            mem = base.memory_bytes / 2**30 if base.memory_bytes else None
            d = {"name": base.name, "compute_capability": base.compute_capability, "gfx_arch": base.gfx_arch,
                 "num_sms": base.num_sms, "memory_gb": mem, "vendor": base.vendor, "match": list(base.match),
                 **{k: v for k, v in d.items() if k != "base"}, "figures": figs}
        spec = replace(spec_from_dict(d, origin=str(p)), file_figures=own)
        check_plausible(spec, own)
        return spec
    except (ValueError, TypeError) as exc:
        raise TraceFormatError(p, str(exc).replace(f"{p}: ", "")) from None


#: How far a spec file's figure may lie outside the built-in GPUs' range of that figure (:func:`check_plausible`):
#: 50 × the largest or 1/50 of the smallest. The GPUs known span about 30 × in bandwidth (RTX 4060 272 GB/s, B200
#: 8,000 GB/s); a unit slip is 1,000 × (MB/s or TB/s written as GB/s, GFLOPS or PFLOPS as TFLOPS).
PLAUSIBLE_FACTOR = 50


def check_plausible(spec: DeviceSpec, keys: Any) -> None:
    """Refuse a figure of ``spec`` among ``keys`` (those a user's file gave) that no GPU could have: above
    :data:`PLAUSIBLE_FACTOR` × the largest built-in GPU's figure of that key, or below 1/PLAUSIBLE_FACTOR of the
    smallest (``achievable.matrix.<p>`` against ``matrix.<p>``; a key no built-in GPU gives against every compute
    peak). A memory bandwidth of 3,350,000 GB/s (an H100's 3.35 TB/s written in MB/s) made every kernel a
    "% of roof" near 0 without a word.

    Raises:
        ValueError: naming the key, the value in the file's unit, the built-in range and the GPUs at its ends.
    """
    from gpulens.devices import SPECS

    for key in keys:
        f = spec.figures.get(key)
        if f is None:
            continue
        ref = key.removeprefix("achievable.")
        known = [(g.figures[ref].value, g.name) for g in SPECS if ref in g.figures]
        if not known and "." in ref:  # a compute peak no built-in GPU gives: every compute peak's range
            known = [(x.value, g.name) for g in SPECS for k, x in g.figures.items() if "." in k]
        if not known:
            continue
        (lo, lo_gpu), (hi, hi_gpu) = min(known), max(known)
        if lo / PLAUSIBLE_FACTOR <= f.value <= hi * PLAUSIBLE_FACTOR:
            continue
        scale, unit = _unit_scale(key), _UNIT_NAME.get(key, "TFLOPS")
        num = lambda v: f"{v / scale:,.0f}" if float(v / scale).is_integer() else f"{v / scale:,.6g}"  # noqa: E731
        times = lambda r: f"{r:,.0f}" if r < 1e6 else f"{r:.2g}".replace("e+", "e")  # noqa: E731 (1e300: not 301 digits)
        where = (f"{times(f.value / hi)} × the largest built-in GPU's ({num(hi)} {unit}, {hi_gpu})" if f.value > hi
                 else f"1/{times(lo / f.value)} of the smallest built-in GPU's ({num(lo)} {unit}, {lo_gpu})")
        raise ValueError(f"figure {key!r} {num(f.value)} {unit} is {where}: no GPU's figure — the file's unit is "
                         f"{unit} (a unit slip?)")


def _unit_scale(key: str) -> float:
    return _SCALE.get(key, 1e12)


#: rocprof-compute ``roofline.csv`` column → figure key (values in GB/s and GFLOP/s).
MEASURED_COLUMNS = {"HBMBw": "memory_bandwidth", "FP32Flops": "vector.fp32", "FP64Flops": "vector.fp64",
                    "MFMAF16Flops": "matrix.fp16", "MFMABF16Flops": "matrix.bf16", "MFMAF32Flops": "matrix.fp32",
                    "MFMAF64Flops": "matrix.fp64", "MFMAI8Ops": "matrix.int8"}


def measured_roofs(table: Any, device: int = 0) -> dict[str, float]:
    """rocprof-compute's measured roofs for one device, by the tool's names (``HBMBw``, ``L2Bw``, ``L1Bw``,
    ``FP32Flops``, ``MFMABF16Flops``...), in base units (bytes/s, FLOP/s).

    Args:
        table: ``roofline.csv`` as read (wide, GB/s and GFLOP/s) or the collector's long ``empirical_roofs``
            table (``device``, ``roof``, ``value`` in base units); None or empty gives ``{}``.
        device: the ``device`` to use, else the first device listed.
    """
    if table is None or not len(table):
        return {}
    devs = table["device"] if "device" in table else None
    if devs is not None and not (devs == device).any():
        device = devs.iloc[0]
    rows = table[devs == device] if devs is not None else table
    if "roof" in rows and "value" in rows:  # long form, base units
        return {str(r): float(v) for r, v in zip(rows["roof"], rows["value"]) if v == v}
    return {c: float(rows[c].iloc[0]) * 1e9 for c in rows.columns
            if c != "device" and not c.lower().endswith(("low", "high")) and rows[c].iloc[0] == rows[c].iloc[0]}


def apply_measured_peaks(spec: DeviceSpec, table: Any, device: int = 0) -> DeviceSpec:
    """A copy of ``spec`` whose peaks are replaced by those rocprof-compute measured (its ``roofline.csv``).

    Args:
        spec: the datasheet spec.
        table, device: as for :func:`measured_roofs`.

    Returns:
        The spec with measured figures (source ``"rocprof-compute roofline.csv (measured)"``); unchanged when the
        table gives none.
    """
    measured = measured_roofs(table, device)
    figs = dict(spec.figures)
    for col, key in MEASURED_COLUMNS.items():
        v = measured.get(col)
        if v is not None and v > 0:
            figs[key] = Figure(v, "rocprof-compute roofline.csv (measured)")
    if figs == dict(spec.figures):
        return spec
    return replace(spec, figures=figs, note=(spec.note + "; " if spec.note else "") + "measured peaks")
