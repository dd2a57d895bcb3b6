"""Gate settings: defaults, per-metric overrides and ignores, read from ``[tool.gpulens.gate]`` or a TOML file.

Layout (every key optional; the values shown are the defaults)::

    [tool.gpulens.gate]            # in pyproject.toml; a separate file may use [gate] or top-level keys
    threshold = 0.05               # smallest relative change that counts (5 %)
    noise_multiplier = 2.0         # PASS band = max(threshold, noise_multiplier × baseline noise)
    alpha = 0.01                   # run-level (family-wise) one-sided significance level
    confidence = 0.95              # CI level of the ratio (the PASS band uses the 1 − 2(1 − confidence) TOST CI)
    bootstrap = 2000               # unused since the Welch test replaced the bootstrap; accepted for old configs
    seed = 0                       # unused (the decision has no randomness); accepted for old configs
    min_kernel_share = 0.01        # kernels under this share of GPU kernel time are reported, never gating
    count_tolerance = 0.0          # relative tolerance for deterministic counts (0 = exact)
    fail_on_ambiguous = false      # AMBIGUOUS fails the gate (exit 1)
    ignore = ["kernel:*nccl*"]     # fnmatch patterns of metric names: not compared at all
    baseline_dir = ".gpulens/baselines"

    [tool.gpulens.gate.metrics."span_ns"]          # per-metric overrides; the key is an fnmatch pattern
    threshold = 0.10
    [tool.gpulens.gate.metrics."kernel:*gemm*"]
    threshold = 0.08
    gating = true                  # also: direction = "lower" | "higher", ignore = true

Matching per-metric tables apply in file order, later ones overriding earlier ones.
"""

from __future__ import annotations

import fnmatch
import math
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gpulens.errors import GpulensError
from gpulens.units import plural

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_BASELINE_DIR = ".gpulens/baselines"
_METRIC_KEYS = {"threshold", "direction", "ignore", "gating", "noise_multiplier", "count_tolerance"}


class ConfigError(GpulensError):
    """The gate configuration is malformed (exit 2)."""


@dataclass(frozen=True)
class MetricRule:
    """Settings that apply to one metric after overrides (see module docstring for meanings)."""

    threshold: float
    noise_multiplier: float
    count_tolerance: float
    direction: str | None = None
    gating: bool | None = None
    ignore: bool = False


@dataclass
class GateConfig:
    """All gate settings (defaults in the module docstring).

    Attributes:
        metrics: ``[(fnmatch pattern, {key: value})]`` per-metric overrides in file order.
        source: file the settings were read from (None for defaults).
    """

    threshold: float = 0.05
    noise_multiplier: float = 2.0
    alpha: float = 0.01
    confidence: float = 0.95
    bootstrap: int = 2000
    seed: int = 0
    min_kernel_share: float = 0.01
    count_tolerance: float = 0.0
    fail_on_ambiguous: bool = False
    ignore: list[str] = field(default_factory=list)
    baseline_dir: str = DEFAULT_BASELINE_DIR
    metrics: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    source: str | None = None

    def rule(self, metric: str) -> MetricRule:
        """The settings for ``metric`` after applying ignores and matching per-metric overrides in order."""
        r = MetricRule(self.threshold, self.noise_multiplier, self.count_tolerance,
                       ignore=any(fnmatch.fnmatchcase(metric, p) for p in self.ignore))
        for pattern, over in self.metrics:
            if fnmatch.fnmatchcase(metric, pattern):
                r = replace(r, **over)
        return r

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (for the gate's JSON output)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["metrics"] = {p: o for p, o in self.metrics}
        return d


def _check(path: Path, key: str, value: Any, kind: type | tuple) -> Any:
    if isinstance(value, bool) and kind is not bool:
        raise ConfigError(f"{path}: gate setting '{key}' must be a number, not {value!r}")
    if not isinstance(value, kind):
        raise ConfigError(f"{path}: gate setting '{key}' has the wrong type ({type(value).__name__})")
    if kind in ((int, float), int) and not math.isfinite(value):  # TOML has nan and inf: nan < 0 is False
        raise ConfigError(f"{path}: gate setting '{key}' must be a finite number, not {value!r}")
    if kind in ((int, float), int) and value < 0:
        raise ConfigError(f"{path}: gate setting '{key}' must not be negative")
    return value


def from_mapping(table: dict[str, Any], path: Path | str = "<config>") -> GateConfig:
    """Build a GateConfig from the contents of a ``[tool.gpulens.gate]`` table.

    Raises:
        ConfigError: an unknown key, a value of the wrong type, a negative or non-finite number (``nan`` would
            pass every change, ``inf`` too), or an invalid direction.
    """
    path = Path(path)
    cfg = GateConfig(source=str(path))
    types = {"threshold": (int, float), "noise_multiplier": (int, float), "alpha": (int, float),
             "confidence": (int, float), "bootstrap": int, "seed": int, "min_kernel_share": (int, float),
             "count_tolerance": (int, float), "fail_on_ambiguous": bool, "ignore": list, "baseline_dir": str}
    for key, value in table.items():
        if key == "metrics":
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: 'metrics' must be a table of per-metric tables")
            for pattern, over in value.items():
                cfg.metrics.append((pattern, _metric_override(path, pattern, over)))
        elif key in types:
            setattr(cfg, key, _check(path, key, value, types[key]))
        else:
            raise ConfigError(f"{path}: unknown gate setting '{key}' (known: {', '.join(sorted(types))}, metrics)")
    if not 0 < cfg.alpha < 1 or not 0 < cfg.confidence < 1:
        raise ConfigError(f"{path}: alpha and confidence must lie strictly between 0 and 1")
    if cfg.bootstrap < 100:
        raise ConfigError(f"{path}: bootstrap must be at least 100 resamples")
    cfg.ignore = [str(p) for p in cfg.ignore]
    return cfg


def _metric_override(path: Path, pattern: str, over: Any) -> dict[str, Any]:
    if not isinstance(over, dict):
        raise ConfigError(f"{path}: metrics.\"{pattern}\" must be a table")
    unknown = set(over) - _METRIC_KEYS
    if unknown:
        raise ConfigError(f"{path}: metrics.\"{pattern}\": {plural(len(unknown), 'unknown key(s)')} "
                          f"{', '.join(sorted(unknown))}")
    if "direction" in over and over["direction"] not in ("lower", "higher"):
        raise ConfigError(f"{path}: metrics.\"{pattern}\".direction must be \"lower\" or \"higher\"")
    for k in ("threshold", "noise_multiplier", "count_tolerance"):
        if k in over:
            over[k] = float(_check(path, f"metrics.{pattern}.{k}", over[k], (int, float)))
    for k in ("ignore", "gating"):
        if k in over:
            _check(path, f"metrics.{pattern}.{k}", over[k], bool)
    return dict(over)


def load_config(path: str | Path | None = None, cwd: str | Path = ".") -> GateConfig:
    """Read the gate settings.

    Args:
        path: a TOML file (``pyproject.toml`` with ``[tool.gpulens.gate]``, or a file with ``[gate]`` or the keys
            at top level). None: ``pyproject.toml`` in ``cwd`` when it has ``[tool.gpulens.gate]``, else defaults.

    Raises:
        ConfigError: the file is missing (when given), not valid TOML, or has invalid settings.
    """
    if path is None:
        auto = Path(cwd) / "pyproject.toml"
        if not auto.is_file():
            return GateConfig()
        table = _gate_table(_read(auto), auto, auto=True)
        return from_mapping(table, auto) if isinstance(table, dict) else GateConfig()
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"{p}: {_not_a_file(p)}")
    return from_mapping(_gate_table(_read(p), p), p)


def _not_a_file(p: Path) -> str:
    """What a ``--config`` path that is not a regular file is, in one phrase: missing, a folder, or a FIFO, socket
    or device (never opened: reading a FIFO blocks until a writer comes)."""
    if not p.exists():
        return "no such config file"
    if p.is_dir():
        return "is a folder, not a config file (pass a TOML file)"
    from gpulens._inputs import special_kind

    return f"is {special_kind(p) or 'not a regular file'}, not a config file (pass a TOML file)"


def _gate_table(doc: dict[str, Any], p: Path, auto: bool = False) -> Any:
    """The gate table of a parsed TOML document: ``[tool.gpulens.gate]``, else ``[gate]``, else the top level.

    Raises:
        ConfigError: ``tool``, ``tool.gpulens`` or the gate table is not a table (not with ``auto``: a
            pyproject.toml found by itself without a gate table gives the defaults).
    """
    node: Any = doc
    for part in ("tool", "gpulens"):
        node = node.get(part, {}) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            if auto:
                return None
            raise ConfigError(f"{p}: '{part}' must be a table")
    table = node.get("gate")
    if table is None and not auto:
        table = doc.get("gate", doc if "tool" not in doc else {})
    if table is not None and not isinstance(table, dict):
        if auto:
            return None
        raise ConfigError(f"{p}: the gate settings must be a table ([tool.gpulens.gate] or [gate])")
    return table


def _read(p: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError, OSError) as exc:
        raise ConfigError(f"{p}: not valid TOML ({exc})") from None
