"""Command-line values turned into Python values without importing pydantic (0.1–0.2 s of every command).

typer (≥ 0.2x, as installed: 0.29) coerces every parameter that is not a boolean flag through a pydantic
``TypeAdapter`` it builds on the parameter's first use — even when the value is the default ``None`` — so every
``gpulens analyze`` imported pydantic and built 17 adapters (cProfile: 0.16 s importing ``typer._adapters`` and
pydantic, 0.03 s building adapters; a third of a cache hit's whole time). Our parameters are plain ``str``, ``int``,
``float``, ``bool``, ``Path`` and lists of them: :class:`LightGroup` (the command group class of :data:`gpulens.cli.app`
and its nested groups)
gives each such parameter a :class:`_Light` coercion that converts the values pydantic would accept unchanged
(a ``str``; a ``bool`` value; an ``int`` written as ASCII digits with an optional ``-`` within the option's bounds; a ``float``
written as digits with an optional fraction; a ``Path`` from text, then typer's own path checks
``coerce_cli_path``: existence, file/folder, readable) and hands **every other value** — a value pydantic would
refuse or convert otherwise, a type not listed — to typer's own pydantic coercion, which then imports pydantic and
words the error exactly as before. Where typer's internals differ from those this relies on (``_runtime_param``,
``typer._coercion.RuntimeParam``, ``typer._param_types.coerce_cli_path``), nothing is changed: typer coerces as it
always did. tests/test_trust_s42_speedc.py compares both coercions value by value on every parameter."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any, List, get_args, get_origin

from typer.core import TyperGroup

try:  # typer's coercion contract (its own module names: absent in other typer versions, then nothing changes)
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
except ImportError:  # pragma: no cover - another typer
    RuntimeParam = None  # type: ignore[assignment,misc]

#: Text pydantic's lax ``int`` reads as ``int(text)``: ASCII digits, an optional minus sign, no leading zero that
#: could make it read otherwise, at most 18 digits (inside int64).
_INT_TEXT = re.compile(r"-?(0|[1-9][0-9]{0,17})", re.ASCII)
#: Text pydantic's lax ``float`` reads as ``float(text)``: digits with an optional fraction (no exponent, no
#: ``inf``/``nan``, no underscores, no spaces).
_FLOAT_TEXT = re.compile(r"-?[0-9]{1,15}(\.[0-9]{1,15})?", re.ASCII)
_NOT_LIGHT = object()


def _leaf(annotation: Any, info: Any, value: Any, param: Any, ctx: Any) -> Any:
    """One value of a leaf type converted as pydantic would, or :data:`_NOT_LIGHT` when typer must do it."""
    if annotation is str or annotation is bool:
        return value if type(value) is annotation else _NOT_LIGHT
    if annotation is int or annotation is float:
        if type(value) is annotation:
            number = value
        elif type(value) is str and (_INT_TEXT if annotation is int else _FLOAT_TEXT).fullmatch(value):
            number = annotation(value)
        else:
            return _NOT_LIGHT
        if getattr(info, "clamp", False) or number != number:
            return _NOT_LIGHT
        lo, hi = getattr(info, "min", None), getattr(info, "max", None)
        if (lo is not None and number < lo) or (hi is not None and number > hi):
            return _NOT_LIGHT  # typer words the refusal
        return number
    if annotation is Path and getattr(info, "path_type", None) is None and getattr(info, "parser", None) is None:
        if type(value) is str and value and "\x00" not in value:
            return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
        return _NOT_LIGHT
    return _NOT_LIGHT


def _light_kind(annotation: Any, info: Any) -> tuple[bool, Any] | None:
    """(is a list, leaf annotation) for the annotations :class:`_Light` converts, else None."""
    if getattr(info, "parser", None) is not None:
        return None
    leaf, many = annotation, False
    if get_origin(annotation) in (list, List):
        args = get_args(annotation)
        if len(args) != 1:
            return None
        leaf, many = args[0], True
    return (many, leaf) if leaf in (str, int, float, bool, Path) else None


if RuntimeParam is not None:

    @dataclasses.dataclass(frozen=True)
    class _Light(RuntimeParam):  # type: ignore[misc,valid-type]
        """typer's runtime coercion of one parameter, done here for the values listed in the module docstring and by
        typer's own (pydantic) coercion for any other."""

        descriptor: Any = None
        many: bool = False
        leaf: Any = None

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            info = self.parameter_info
            if self.many:
                if isinstance(value, (list, tuple)):
                    out = [_leaf(self.leaf, info, v, param, ctx) for v in value]
                    if not any(v is _NOT_LIGHT for v in out):
                        return out
            else:
                one = _leaf(self.leaf, info, value, param, ctx)
                if one is not _NOT_LIGHT:
                    return one
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)


def light_coercion(params: Any) -> None:
    """Give every parameter in ``params`` (typer's click parameters) whose type :func:`_light_kind` accepts the
    pydantic-free coercion :class:`_Light`; leave any other as typer made it."""
    if RuntimeParam is None:  # pragma: no cover - another typer
        return
    for p in params:
        desc = getattr(p, "type_descriptor", None)
        if desc is None or getattr(p, "_runtime_param", _NOT_LIGHT) is not None or desc.file_annotation is not None:
            continue
        kind = _light_kind(desc.annotation, desc.parameter_info)
        if kind is not None:
            p._runtime_param = _Light(parameter_info=desc.parameter_info, annotation=desc.annotation,
                                      descriptor=desc, many=kind[0], leaf=kind[1])


def element_metavars(params: Any) -> None:
    """Show a list parameter's values in ``--help`` as what a user types, one value's type as for any other
    parameter (``paths... <path>``, ``command... <str>``), instead of typer's annotation (``<list[Path]>``,
    ``<list[str]>``): the ``...`` after the name already says that several may be given."""
    for p in params:
        desc = getattr(p, "type_descriptor", None)
        if desc is None or not getattr(desc, "is_list", False) or getattr(desc, "is_choice", False):
            continue
        args = get_args(desc.annotation)
        if len(args) != 1 or not isinstance(args[0], type):
            continue
        label = (getattr(desc, "path_type", None) or "path") if args[0] is Path else args[0].__name__
        p.display_type = lambda ctx, _text=f"<{label}>": _text


#: Parameters (their Python names, in every command) that name a file gpulens writes: ``--json``, ``--html``,
#: ``--markdown``, ``--perfetto`` of ``analyze`` and ``diff``, ``--junit`` of ``gate``.
OUTPUT_FILES = frozenset({"json_out", "html_out", "md_out", "perfetto_out", "markdown", "junit"})
#: Parameters that name a folder gpulens writes into: ``--csv``, ``--parquet`` (``analyze``), ``--out`` (``profile``).
OUTPUT_FOLDERS = frozenset({"csv_dir", "parquet_dir", "out"})


def path_text_refusal(text: str, name: str | None, is_path: bool) -> str | None:
    """Why the command-line text ``text`` of parameter ``name`` cannot name the path it should, or None.

    One rule for every path option and argument, decided here on the text as typed (a :class:`~pathlib.Path` made
    from it has already lost what matters: ``Path("")`` is ``.``, ``Path("new/")`` is ``new``):

    * ``""`` (any path parameter, ``is_path``): it would mean the current folder — a report written as ``.``
      or a folder of tables spilled into the current folder;
    * ``-`` for an output: gpulens does not write reports to standard output under that name (the console summary
      is there); ``/dev/stdout`` does (a device is written in place);
    * a report file's name ending in ``/``: a folder was meant, and the report would have become a file named like
      that folder.
    """
    output = name in OUTPUT_FILES or name in OUTPUT_FOLDERS
    if text == "" and (is_path or output):
        return "an empty path; give a " + ("folder" if name in OUTPUT_FOLDERS else "file" if output
                                           else "file or folder") + " name"
    if text == "-" and output:
        return ("'-' (standard output) is not supported; give a " + ("folder" if name in OUTPUT_FOLDERS else "file")
                + " name" + (" (/dev/stdout writes the report to standard output)" if name in OUTPUT_FILES else ""))
    if name in OUTPUT_FILES and text.endswith(("/", "\\")) and text.strip("/\\"):
        return "names a folder (it ends in '/'); give a file name for the report"
    return None


def _checked_process_value(param: Any, process_value: Any) -> Any:
    """``param.process_value`` preceded by :func:`path_text_refusal` on each text given (click hands the text as
    typed, before any conversion)."""
    desc = getattr(param, "type_descriptor", None)
    kind = _light_kind(desc.annotation, desc.parameter_info) if desc is not None else None
    is_path = kind is not None and kind[1] is Path

    def process(ctx: Any, value: Any) -> Any:
        for text in (value if isinstance(value, (list, tuple)) else [value]):
            why = path_text_refusal(text, param.name, is_path) if isinstance(text, str) else None
            if why is not None:
                from gpulens.errors import GpulensError

                if getattr(param, "param_type_name", "") != "option":  # an argument: the inputs
                    raise GpulensError(f"an input path is empty ({why[len('an empty path; '):]})")
                flag = max(getattr(param, "opts", None) or [param.name or "path"], key=len)
                raise GpulensError(f"{flag}: {why}" if text in ("", "-") else f"{flag} {text}: {why}")
        return process_value(ctx, value)

    return process


def path_texts_checked(params: Any) -> None:
    """Give every parameter in ``params`` the check :func:`path_text_refusal` of the texts typed (once)."""
    for p in params:
        if not getattr(p, "_gpulens_paths_checked", False):
            p.process_value = _checked_process_value(p, p.process_value)
            p._gpulens_paths_checked = True


class LightGroup(TyperGroup):
    """typer's command group whose own parameters and whose commands' parameters (``--help`` included, which click
    makes on first use) are coerced as :func:`light_coercion` says: no pydantic import for the values a command
    line holds. Nested groups use this class too (``typer.Typer(cls=LightGroup)``)."""

    def get_params(self, ctx: Any) -> list:
        params = super().get_params(ctx)
        light_coercion(params)
        element_metavars(params)
        path_texts_checked(params)
        return params

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None and not isinstance(cmd, LightGroup):
            params = cmd.get_params(ctx)
            light_coercion(params)
            element_metavars(params)
            path_texts_checked(params)
        return cmd
