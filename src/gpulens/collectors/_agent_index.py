"""rocprofv3 agent ids in their three index spaces, resolved to the HSA node id gpulens calls ``device_id``.

rocprofv3 writes ``Agent_Id`` (kernel trace, counter collection) and ``Source_Agent_Id`` /
``Destination_Agent_Id`` (memory copies) in the space ``--agent-index`` picks (rocprofiler-sdk
``how-to/using-rocprofv3.rst``, "Agent index"; ``metadata::get_agent_index`` in its output library):

* ``absolute`` — ``Agent <node_id>``: the KFD topology node, CPUs included (``Agent 0`` is usually a CPU);
* ``relative`` (the default) — ``Agent <logical_node_id>``: the same count over the nodes cgroups leave visible;
* ``type-relative`` — ``GPU <logical_node_type_id>`` / ``CPU <…>``: counted per agent type from 0, the HIP device
  ordinal of a GPU when every GPU is visible.

Older rocprofv3 (rocprofiler-sdk ≤ 0.5) wrote the bare ``node_id`` number. ``agent_info.csv`` lists every agent
with ``Node_Id``, ``Logical_Node_Id`` and ``Agent_Type`` (no type-relative column: it is the agent's place among the
agents of its type, in logical-node order). :func:`agent_table` reads those rows; :func:`resolve_agents` re-points
the rows of a :class:`~gpulens.collectors._dispatch.Dispatches` from the index the file wrote to the agent's
``node_id``, so ``GPU 0`` and ``Agent 1`` name the same device when the table says they are one GPU (read by its
number alone, ``GPU 0`` was taken for HSA node 0 — the CPU — and its kernels for work on an unlisted device).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

#: an agent label as rocprofv3 writes it: the index space's word and the index (``Agent 1``, ``GPU 0``, ``CPU-1``)
AGENT_LABEL = re.compile(r"^\s*(agent|gpu|cpu)[\s_-]*([0-9]+)\s*$", re.ASCII | re.IGNORECASE)


@dataclass
class AgentTable:
    """The agents of one ``agent_info.csv``: ``devices`` (GPU device dicts, CPU agents left out, ``gpu_index`` =
    the type-relative index) and ``node_of`` (``("agent", logical_node_id)``, ``("gpu", n)``, ``("cpu", n)`` →
    ``node_id``)."""

    devices: list[dict[str, Any]] = field(default_factory=list)
    node_of: dict[tuple[str, int], int] = field(default_factory=dict)


def _int(v: Any) -> int | None:
    try:
        return int(str(v).strip())
    except (TypeError, ValueError):
        return None


def agent_table(rows: list[dict[str, Any]], to_device) -> AgentTable:
    """Rows of ``agent_info.csv`` (lower-cased column → cell) → :class:`AgentTable`. ``to_device`` turns one row
    into a device dict or None for a CPU (:func:`gpulens.collectors._amd.device_from_sdk_agent`). An agent's
    type-relative index is its place among the agents of its type ordered by ``Logical_Node_Id`` (then
    ``Node_Id``); a ``Logical_Node_Type_Id`` column, where a file has one, wins."""
    table = AgentTable()
    keyed = []
    for r in rows:
        node, logical = _int(r.get("node_id")), _int(r.get("logical_node_id"))
        typ = str(r.get("agent_type", r.get("type", ""))).strip().lower()
        typ = {"1": "cpu", "2": "gpu"}.get(typ, typ)
        keyed.append((logical if logical is not None else node, node, typ, r))
    seen: dict[str, int] = {}
    for logical, node, typ, r in sorted(keyed, key=lambda k: (k[0] is None, k[0] or 0, k[1] or 0)):
        n = seen.get(typ, 0)
        seen[typ] = n + 1
        own = _int(r.get("logical_node_type_id"))
        ordinal = own if own is not None else n
        if node is not None:
            if logical is not None:
                table.node_of[("agent", logical)] = node
            if typ in ("gpu", "cpu"):
                table.node_of[(typ, ordinal)] = node
        dev = to_device({**r, "logical_node_type_id": ordinal} if typ == "gpu" else r)
        if dev:
            table.devices.append(dev)
    return table


def resolve_agents(d: Any, table: AgentTable | None) -> int:
    """Re-point ``d.cols["device_id"]`` from the index each row's ``d.agent_text`` wrote to the agent's node id
    (see the module docstring); a label the table does not hold, and a bare number (the node id itself), stay as
    read. Returns how many rows changed device."""
    texts = getattr(d, "agent_text", None)
    if table is None or not table.node_of or texts is None or "device_id" not in d.cols:
        return 0
    parts = pd.Series(texts, dtype=object).where(lambda v: v.map(lambda x: isinstance(x, str)), None) \
        .astype("string").str.extract(AGENT_LABEL)  # one vectorised pass: the space's word, the index
    keys = parts[0].str.lower() + ":" + parts[1]
    lookup = {f"{w}:{n}": node for (w, n), node in table.node_of.items()}
    node = pd.to_numeric(keys.map(lookup), errors="coerce").to_numpy(dtype="float64")
    dev = pd.to_numeric(pd.Series(d.cols["device_id"]).reset_index(drop=True), errors="coerce") \
        .to_numpy(dtype="float64")
    change = ~np.isnan(node) & (node != dev)
    if change.any():
        d.cols["device_id"] = pd.Series(np.where(change, node, dev)).astype("Int64")
    return int(change.sum())


def agent_texts(values: pd.Series) -> list | None:
    """The cells of an agent column kept as text for :func:`resolve_agents` (None when none is a label)."""
    if values.dtype != object:
        return None
    out = values.tolist()
    return out if any(isinstance(v, str) and AGENT_LABEL.match(v) for v in out) else None


def chosen(a: list | None, b: list | None, take_b: np.ndarray) -> list | None:
    """Per row, the cell of ``b`` where ``take_b`` else of ``a`` (a copy's device: the destination of a
    host-to-device copy, else the source); None when neither column holds a label."""
    if a is None and b is None:
        return None
    a = a or [None] * len(take_b)
    b = b or [None] * len(take_b)
    return [y if t else x for x, y, t in zip(a, b, take_b)]
