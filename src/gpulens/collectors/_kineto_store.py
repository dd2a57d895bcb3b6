"""A growable column for the Kineto accumulator: pieces appended into reserved capacity, no concatenation at the end.

Gathering each piece's column and concatenating them at the end held every column twice at its peak (the pieces and
the joined array) and wrote it twice. A :class:`ColumnStore` appends each piece into one buffer instead and hands out
a view of it when the load is done. On Linux the buffer is an anonymous memory map grown with ``mremap`` (Python's
``mmap.resize``): growing moves page-table entries, not bytes, so it neither copies the column nor holds it twice,
and capacity not yet written costs no memory. Elsewhere (no ``mremap``) a numpy array doubled by copying is used.
"""

from __future__ import annotations

import mmap
import sys

import numpy as np

#: rows reserved at first; the capacity then doubles whenever an append does not fit
FIRST_ROWS = 1 << 16
#: whether an anonymous map can grow in place (``mremap``): Linux
GROWABLE_MAP = sys.platform.startswith("linux") and hasattr(mmap.mmap, "resize")
_HUGE = getattr(mmap, "MADV_HUGEPAGE", None)


class ColumnStore:
    """One column of a fixed dtype, appended to piece by piece.

    Args:
        dtype: the numpy dtype of every value.
        use_map: grow an anonymous memory map (default: :data:`GROWABLE_MAP`); False: a numpy array doubled by
            copying (the fallback elsewhere).

    Attributes:
        rows: values appended so far.
    """

    def __init__(self, dtype: np.dtype | type | str, use_map: bool | None = None) -> None:
        self.dtype = np.dtype(dtype)
        self.rows = 0
        self._map: mmap.mmap | None = None
        self._arr: np.ndarray | None = None
        self._cap = 0
        self._use_map = GROWABLE_MAP if use_map is None else use_map
        self._done = False

    def _reserve(self, rows: int) -> None:
        """Capacity for at least ``rows`` values (doubling), keeping the values appended so far."""
        cap = max(self._cap, FIRST_ROWS)
        while cap < rows:
            cap *= 2
        if cap == self._cap:
            return
        nbytes = cap * self.dtype.itemsize
        if self._use_map:
            if self._map is None:
                # private: a shared anonymous map grown by mremap has no pages past its first size (SIGBUS)
                self._map = mmap.mmap(-1, nbytes, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
            else:
                self._map.resize(nbytes)  # mremap: the pages move with their contents, nothing is copied
            if _HUGE is not None:  # 2 MB pages where the kernel gives them only on request (as numpy asks for its own)
                self._map.madvise(_HUGE)
        else:
            arr = np.empty(cap, dtype=self.dtype)
            if self._arr is not None:
                arr[:self.rows] = self._arr[:self.rows]
            self._arr = arr
        self._cap = cap

    def append(self, values: np.ndarray) -> None:
        """Append ``values`` (converted to the store's dtype as numpy assignment converts).

        Raises:
            RuntimeError: after :meth:`finish`.
        """
        if self._done:
            raise RuntimeError("ColumnStore.append after finish")
        n = len(values)
        if not n:
            return
        self._reserve(self.rows + n)
        if self._map is not None:
            # a view only for the copy: a map cannot be resized while a view of it exists
            np.frombuffer(self._map, dtype=self.dtype, count=n, offset=self.rows * self.dtype.itemsize)[:] = values
        else:
            self._arr[self.rows:self.rows + n] = values
        self.rows += n

    def finish(self) -> np.ndarray:
        """The values appended, in order, as a writable 1-D array of the store's dtype (a view of the buffer: no
        copy; it keeps the buffer alive). Nothing can be appended afterwards."""
        self._done = True
        if not self.rows:
            return np.zeros(0, dtype=self.dtype)
        if self._map is not None:
            return np.frombuffer(self._map, dtype=self.dtype, count=self.rows)
        return self._arr[:self.rows]
