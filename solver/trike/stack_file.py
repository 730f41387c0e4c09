"""A suspended alpha-beta search on disk, so a stopped search goes on where it was.

The alpha-beta solver (:mod:`trilab.solver.trike.alphabeta`) searches
iteratively with an explicit stack and suspends between chunks of nodes.  The
stack (a few small arrays: for every open node its position, window, best value
so far and the moves still to try) is the whole state of the search except the
transposition table, and the table only saves work: every entry is a true
bound, so the search from a saved stack with an empty table gives the same
answer, only with more nodes.  :class:`SearchCheckpoint` writes the stack of one
probe every ``every_seconds`` (atomically: a temporary file renamed over the
last) and hands it back to a later search of the same probe, in this process or
another one, on this machine or another.

Contract.  :meth:`SearchCheckpoint.load` returns the saved arrays only when the
file holds a stack of the same probe (``key``: the format version, board,
scoring mode, root position, window and the settings that shape the search)
with the same array shapes and types as a fresh stack; anything else (no file,
another probe, a damaged file) is None, and the search starts afresh.  A
search resumed from a stack counts the nodes and seconds the saved stack had
cost (:attr:`prior_nodes`, :attr:`prior_seconds`), so records of the work stay
whole.  With several threads only the calling thread's stack is saved; the
helpers start afresh from the root, as they do when a search starts.
"""

from __future__ import annotations

import os
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np

STACK_FORMAT = 1
"""Version of the saved stack: bump it when the meaning of the stack's arrays
changes (then older files are ignored, never misread)."""
ARRAYS = ("ist", "ust", "order", "img_m", "img_t", "ctl")
"""The stack's arrays, in the solver's order."""


class SearchCheckpoint:
    """The saved stack of one search probe at ``path`` (module docstring)."""

    def __init__(self, path: str | os.PathLike, every_seconds: float = 30.0):
        self.path = Path(path)
        self.every_seconds = every_seconds
        self.prior_nodes = 0
        self.prior_seconds = 0.0
        self.resumed = False
        self._started = time.perf_counter()
        self._last_save = self._started

    def load(self, key: str, template: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...] | None:
        """The saved stack of probe ``key`` if the file holds one shaped like
        ``template`` (a fresh stack), else None."""
        self._started = self._last_save = time.perf_counter()
        try:
            with np.load(self.path, allow_pickle=False) as z:
                if str(z["key"]) != key:
                    return None
                arrays = tuple(np.ascontiguousarray(z[name]) for name in ARRAYS)
                nodes, seconds = int(z["nodes"]), float(z["seconds"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
            return None
        if any(a.shape != t.shape or a.dtype != t.dtype for a, t in zip(arrays, template)):
            return None
        self.prior_nodes, self.prior_seconds, self.resumed = nodes, seconds, True
        return arrays

    def seconds(self) -> float:
        """Seconds of the probe so far, those of the saved stack included."""
        return self.prior_seconds + time.perf_counter() - self._started

    def due(self) -> bool:
        """Whether ``every_seconds`` have passed since the last save."""
        return time.perf_counter() - self._last_save >= self.every_seconds

    def save(self, key: str, stack: tuple[np.ndarray, ...], nodes: int) -> None:
        """Write the stack of probe ``key`` after ``nodes`` nodes of this search (the
        saved stack's own are added); a folder it cannot write (a remote worker's
        view of a shared disk) is skipped: saving is optional."""
        self._last_save = time.perf_counter()
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=self.path.name,
                                       suffix=".tmp")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez_compressed(fh, key=np.array(key), nodes=np.int64(self.prior_nodes + nodes),
                                    seconds=np.float64(self.seconds()),
                                    **dict(zip(ARRAYS, stack)))
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
