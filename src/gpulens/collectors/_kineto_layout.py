"""The Kineto byte scanner's output layout and key tables: plain constants (numpy only, no numba).

What :mod:`._kineto_kernel`'s compiled pass writes where — the status codes, the value types (``T_*``), the field
rows of its outputs (:data:`F`), the interning tables, the top-level and ``args`` key tables (:func:`_table`) and
the ring size — kept apart from the numba code so that :mod:`._kineto_scan` and the compiled library's loader
(:mod:`._kineto_native`) read them without importing numba. Compiled into the scanner as constants: a change here
is a change of the scanner (this file is one of the sources its caches are keyed by).
"""

from __future__ import annotations

import numpy as np

#: 2^64 / golden ratio, odd: a multiply that spreads a word's bits upwards (the key tables' slot and the text hash)
_MIX_INT = 0x9E3779B97F4A7C15

#: containers nested deeper than this in a value make :func:`_skip` answer 1 (the piece is left to msgspec)
MAX_DEPTH = 60
_KEY_SHIFT = 54  # a key table's slot: the top 10 bits of a product (they depend on all of its input's bits)


def _key_slot(first: int, n: int) -> int:
    """:func:`._kineto_lex._key`'s slot of a key of ``n`` bytes whose first (up to) 8 bytes are the little-endian word ``first``."""
    return (((first ^ n) * _MIX_INT) & ((1 << 64) - 1)) >> _KEY_SHIFT


def _table(keys: tuple[bytes, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Key table for :func:`._kineto_lex._key`: (slot → key id or -1 over 1024 slots (:func:`_key_slot`), each key's first
    word (its first 8 bytes, zero-padded), the concatenated key bytes and 8 zero bytes (a word may be read at any
    key's start), the keys' offsets in them)."""
    slots = np.full(1024, -1, dtype=np.int64)
    firsts = np.array([int.from_bytes(k[:8], "little") for k in keys], dtype=np.uint64)
    for i, k in enumerate(keys):
        s = _key_slot(int(firsts[i]), len(k))
        while slots[s] >= 0:
            s = (s + 1) & 1023
        slots[s] = i
    data = np.frombuffer(b"".join(keys) + bytes(8), dtype=np.uint8).copy()
    offs = np.zeros(len(keys) + 1, dtype=np.int64)
    offs[1:] = np.cumsum([len(k) for k in keys])
    return slots, firsts, data, offs



OK, FALLBACK, FULL = 0, 1, 2
T_ABSENT, T_NULL, T_GOOD, T_OTHER, T_ESCAPED, T_SLOW = 0, 1, 2, 3, 4, 5

_FIELDS = ("PID_V", "PID_T", "TID_V", "TID_T",
           "TS_V", "TS_T", "TS_S", "TS_E", "DUR_V", "DUR_T", "DUR_S", "DUR_E",
           "CORR_V", "CORR_T", "EXT_V", "EXT_T", "EXTL_V", "EXTL_T", "DEV_V", "DEV_T", "STREAM_V", "STREAM_T",
           "REGS_V", "REGS_T", "SMEM_V", "SMEM_T", "BYTES_V", "BYTES_T", "RANK_V", "RANK_T", "RANKC_V", "RANKC_T",
           "GRID_X", "GRID_Y", "GRID_Z", "GRID_T", "BLOCK_X", "BLOCK_Y", "BLOCK_Z", "BLOCK_T",
           "FLOPS_S", "FLOPS_E", "FLOPS_T", "BPS_S", "BPS_E", "BPS_T", "WPS_S", "WPS_E", "WPS_T",
           "OCC_S", "OCC_E", "OCC_T", "KIND_S", "KIND_E", "KIND_T", "COLL_T", "KD_T", "MD_T",
           "NAME_G", "CAT_G", "TEXT_DIMS_G", "TYPES_G", "CONC_G",
           # read in the scan only (spans and types of the interned texts): not copied out (:data:`NOUT`)
           "NAME_S", "NAME_E", "NAME_T", "CAT_S", "CAT_E", "CAT_T", "ARGS_T",
           "DIMS_S", "DIMS_E", "DIMS_T", "DIMSL_S", "DIMSL_E", "DIMSL_T", "TYPES_S", "TYPES_E", "TYPES_T",
           "CONC_S", "CONC_E", "CONC_T")
F = {f: i for i, f in enumerate(_FIELDS)}
NF = len(_FIELDS)
#: fields :func:`scan` hands out (``F[f] < NOUT``): the others are read in the scan only
NOUT = F["NAME_S"]
H_NAME, H_CAT, H_DIMS, H_DIMSL, H_TYPES, H_CONC = range(6)
NH = 6
#: interning tables (see :func:`_intern`): names, categories, ``Input Dims`` texts (else the legacy ``Input dims``),
#: ``Input type`` texts, ``Concrete Inputs`` texts (the scalar arguments)
T_NAMES, T_CATS, T_DIMS, T_TYPES, T_CONC = range(5)
NT = 5

# key ids: top-level keys, then args keys read from X events
_TOP_KEYS = (b"ph", b"cat", b"name", b"pid", b"tid", b"ts", b"dur", b"args")
_ARG_KEYS = (b"correlation", b"External id", b"external id", b"device", b"stream", b"registers per thread",
             b"shared memory", b"bytes", b"rank", b"Rank", b"grid", b"block", b"flops", b"blocks per SM",
             b"warps per SM", b"est. achieved occupancy %", b"Input Dims", b"Input dims", b"Input type",
             b"Concrete Inputs", b"kind", b"Collective name", b"kernel_details", b"memcpy_details")
# the int-valued args keys in _ARG_KEYS order → their (value, type) fields
_INT_ARG_FIELDS = ("CORR", "EXT", "EXTL", "DEV", "STREAM", "REGS", "SMEM", "BYTES", "RANK", "RANKC")
_FLOAT_ARG_FIELDS = ("FLOPS", "BPS", "WPS", "OCC")
_RAW_ARG_FIELDS = ("DIMS", "DIMSL", "TYPES", "CONC")
#: Trace Event Format phases whose events are skipped (see ``_kineto_columns.SKIPPED_PHASES``; kept in step there)
SKIPPED = b"CbnestfPONDRSTpFc()Vv"

TOP_TABLE = _table(_TOP_KEYS)
ARG_TABLE = _table(_ARG_KEYS)

F_INT_V = np.array([F[f + "_V"] for f in _INT_ARG_FIELDS], dtype=np.int64)
F_FLOAT_S = np.array([F[f + "_S"] for f in _FLOAT_ARG_FIELDS], dtype=np.int64)
F_RAW_S = np.array([F[f + "_S"] for f in _RAW_ARG_FIELDS], dtype=np.int64)
_SKIPPED_SET = np.zeros(256, dtype=np.bool_)
_SKIPPED_SET[np.frombuffer(SKIPPED, dtype=np.uint8)] = True

RING = 64  # rows of the row-major rings :func:`_scan` writes (64 × 77 cells: 39 KiB, in the L1/L2 cache)
