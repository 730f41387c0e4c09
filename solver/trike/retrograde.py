"""Tiered retrograde analysis of Trike: a strong solution stored as a database.

Algorithm (GamesmanOne-style tiers).  Every move adds one checker, so the
positions with ``k`` checkers form tier ``k`` and every move goes from tier
``k`` to tier ``k + 1``: the game graph is acyclic and layered.

1. Forward: tier 1 is the set of openings; tier ``k + 1`` is the set of
   children of tier ``k``.  Each position is reduced to its canonical
   symmetric image and packed into one ``uint64`` key
   ``black | white << N | pawn << 2N`` (N points; fits for sizes up to 7).
   Each tier is a sorted array of unique keys, so the key's rank is a perfect
   index and lookups are binary searches.
2. Backward: from the last tier to the first, each position gets, for the
   side to move, its exact ``margin`` (max over moves of minus the child's
   margin; the final margin at a terminal position) and its ``remoteness``
   (terminal 0; a win: 1 + least remoteness among lost children; a loss:
   1 + greatest remoteness among children).

The database file (``.npz``) holds per tier the sorted keys, ``int8``
margins and ``uint8`` remoteness, plus a format name and version.
"""

from __future__ import annotations

import os
import tempfile
import time
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numba as nb
import numpy as np
from trilab.solver.trike import engine as trike
from trilab.solver.trike.engine import TrikePosition

DB_FORMAT = "trilab-trike-retrograde"
DB_VERSION = 1
MAX_RETROGRADE_SIZE = 7  # 2N + 6 bits must fit in one uint64 key


@nb.njit(cache=True)
def _canonical_key(symmetry, black, white, pawn, npts):
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(symmetry.shape[0]):
        b = trike.transform_bitboard(symmetry[s], black)
        w = trike.transform_bitboard(symmetry[s], white)
        key = b | (w << np.uint64(npts)) | (np.uint64(symmetry[s, pawn]) << np.uint64(2 * npts))
        if key < best:
            best = key
    return best


@nb.njit(cache=True, inline="always")
def _decode(key, npts):
    m = (np.uint64(1) << np.uint64(npts)) - np.uint64(1)
    black = key & m
    white = (key >> np.uint64(npts)) & m
    pawn = np.int64(key >> np.uint64(2 * npts))
    return black, white, pawn


@nb.njit(cache=True)
def _children(keys, npts, rays, symmetry):
    """All canonical child keys of a tier (with duplicates)."""
    scratch = np.empty(60, dtype=np.int64)
    total = 0
    for i in range(keys.shape[0]):
        black, white, pawn = _decode(keys[i], npts)
        total += trike.generate_moves(rays, black | white, pawn, scratch)
    out = np.empty(total, dtype=np.uint64)
    n = 0
    for i in range(keys.shape[0]):
        black, white, pawn = _decode(keys[i], npts)
        black_moves = trike.popcount(black) == trike.popcount(white)
        nm = trike.generate_moves(rays, black | white, pawn, scratch)
        for j in range(nm):
            d = scratch[j]
            bd = np.uint64(1) << np.uint64(d)
            if black_moves:
                out[n] = _canonical_key(symmetry, black | bd, white, d, npts)
            else:
                out[n] = _canonical_key(symmetry, black, white | bd, d, npts)
            n += 1
    return out


@nb.njit(cache=True)
def _solve_tier(keys, next_keys, next_margin, next_rem, npts, rays, score_mask, symmetry):
    """Margin and remoteness of every position of a tier from the next tier."""
    n = keys.shape[0]
    margin = np.empty(n, dtype=np.int8)
    rem = np.empty(n, dtype=np.uint8)
    scratch = np.empty(60, dtype=np.int64)
    for i in range(n):
        black, white, pawn = _decode(keys[i], npts)
        black_moves = trike.popcount(black) == trike.popcount(white)
        nm = trike.generate_moves(rays, black | white, pawn, scratch)
        if nm == 0:
            if black_moves:
                margin[i] = trike.final_margin(score_mask, black, white, pawn)
            else:
                margin[i] = trike.final_margin(score_mask, white, black, pawn)
            rem[i] = 0
            continue
        best = -100
        win_rem = 1000
        any_rem = -1
        for j in range(nm):
            d = scratch[j]
            bd = np.uint64(1) << np.uint64(d)
            if black_moves:
                ck = _canonical_key(symmetry, black | bd, white, d, npts)
            else:
                ck = _canonical_key(symmetry, black, white | bd, d, npts)
            idx = np.searchsorted(next_keys, ck)
            cm = np.int64(next_margin[idx])
            cr = np.int64(next_rem[idx])
            if -cm > best:
                best = -cm
            if cm < 0 and cr < win_rem:
                win_rem = cr
            if cr > any_rem:
                any_rem = cr
        margin[i] = best
        rem[i] = win_rem + 1 if best > 0 else any_rem + 1
    return margin, rem


class DatabaseError(ValueError):
    """A database file this trilab cannot use (one line naming the file)."""


@dataclass
class RetrogradeDatabase:
    """A strong solution of one board size: per tier, keys, margins, remoteness."""

    size: int
    keys: list[np.ndarray]  # index k-1 holds tier k (k checkers)
    margin: list[np.ndarray]
    remoteness: list[np.ndarray]
    seconds: float = 0.0
    meta: dict = field(default_factory=dict)

    @property
    def positions(self) -> int:
        return sum(len(k) for k in self.keys)

    def key_of(self, pos: TrikePosition) -> int:
        t = trike.tables(self.size)
        return int(_canonical_key(t.symmetry, np.uint64(pos.black), np.uint64(pos.white),
                                  pos.pawn, t.n_points))

    def lookup(self, pos: TrikePosition) -> tuple[int, int] | None:
        """``(margin, remoteness)`` for the side to move, or None if unreachable."""
        if pos.size != self.size:
            raise ValueError("position size does not match the database")
        tier = pos.checkers
        if not 1 <= tier <= len(self.keys):
            return None
        keys = self.keys[tier - 1]
        k = np.uint64(self.key_of(pos))
        i = int(np.searchsorted(keys, k))
        if i >= len(keys) or keys[i] != k:
            return None
        return int(self.margin[tier - 1][i]), int(self.remoteness[tier - 1][i])

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically (temp file in the same folder, then rename)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays = {
            "format": np.array(DB_FORMAT),
            "version": np.array(DB_VERSION),
            "size": np.array(self.size),
        }
        for k, (keys, m, r) in enumerate(zip(self.keys, self.margin, self.remoteness), 1):
            arrays[f"keys_{k}"] = keys
            arrays[f"margin_{k}"] = m
            arrays[f"remoteness_{k}"] = r
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        os.close(fd)
        try:
            with open(tmp, "wb") as fh:
                np.savez_compressed(fh, **arrays)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike, size: int | None = None) -> RetrogradeDatabase:
        """Read a database written by :meth:`save`; with ``size``, it must be of that size.

        Anything else (a text file, a truncated or foreign ``.npz``, arrays of
        the wrong shape or type, unsorted keys, values no Trike position can
        have) raises :class:`DatabaseError` naming the file, never a numpy or
        zip error."""
        try:
            if not zipfile.is_zipfile(path):
                raise DatabaseError(f"{path}: not a trilab Trike database (not an .npz file)")
            with np.load(path, allow_pickle=False) as z:
                db = cls._from_arrays(path, {k: z[k] for k in z.files})
        except DatabaseError:
            raise
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as e:
            why = str(e).splitlines()[0] if str(e) else ""
            raise DatabaseError(f"{path}: not a readable trilab Trike database "
                                f"({type(e).__name__}{': ' + why if why else ''})") from None
        if size is not None and db.size != size:
            raise DatabaseError(f"{path} is a database of size {db.size}, not size {size}")
        return db

    @classmethod
    def _from_arrays(cls, path, z: dict[str, np.ndarray]) -> RetrogradeDatabase:
        def bad(why: str) -> DatabaseError:
            return DatabaseError(f"{path}: damaged trilab Trike database ({why})")

        if "format" not in z or str(z["format"]) != DB_FORMAT:
            raise DatabaseError(f"{path}: not a trilab Trike database")
        version = int(z["version"]) if "version" in z else -1
        if version != DB_VERSION:
            raise DatabaseError(f"{path}: database version {version}, "
                                f"this trilab reads version {DB_VERSION}")
        size = int(z["size"]) if "size" in z else -1
        if not trike.MIN_SIZE <= size <= MAX_RETROGRADE_SIZE:
            raise bad(f"size {size}")
        points = trike.n_points(size)
        keys, margin, rem = [], [], []
        for k in range(1, points + 1):
            names = (f"keys_{k}", f"margin_{k}", f"remoteness_{k}")
            if names[0] not in z:
                break
            if not all(n in z for n in names):
                raise bad(f"tier {k} incomplete")
            kk, mm, rr = (z[n] for n in names)
            if kk.ndim != 1 or not len(kk) == len(mm) == len(rr):
                raise bad(f"tier {k} arrays of unequal length")
            if kk.dtype != np.uint64 or (len(kk) > 1 and not np.all(kk[1:] > kk[:-1])):
                raise bad(f"tier {k} keys are not sorted uint64")
            if len(mm) and (np.abs(mm).max() > points or rr.min() < 0 or rr.max() > points):
                raise bad(f"tier {k} values out of range")
            keys.append(kk)
            margin.append(mm)
            rem.append(rr)
        if not keys:
            raise bad("no tiers")
        return cls(size, keys, margin, rem)


def enumerate_tiers(size: int, progress=None) -> list[np.ndarray]:
    """Forward pass: sorted unique canonical keys of every reachable tier."""
    if size > MAX_RETROGRADE_SIZE:
        raise ValueError(f"retrograde keys fit sizes up to {MAX_RETROGRADE_SIZE}")
    t = trike.tables(size)
    openings = np.array(
        [_canonical_key(t.symmetry, np.uint64(1 << p), np.uint64(0), p, t.n_points)
         for p in range(t.n_points)], dtype=np.uint64)
    tiers = [np.unique(openings)]
    while True:
        children = _children(tiers[-1], t.n_points, t.rays, t.symmetry)
        if len(children) == 0:
            break
        tiers.append(np.unique(children))
        if progress:
            progress(len(tiers), len(tiers[-1]))
    return tiers


def solve(size: int, progress=None) -> RetrogradeDatabase:
    """Strongly solve ``size``: every reachable position's margin and remoteness."""
    t0 = time.perf_counter()
    t = trike.tables(size)
    keys = enumerate_tiers(size, progress)
    margin: list[np.ndarray] = [np.empty(0, np.int8)] * len(keys)
    rem: list[np.ndarray] = [np.empty(0, np.uint8)] * len(keys)
    empty_u = np.empty(0, np.uint64)
    for k in range(len(keys) - 1, -1, -1):
        nxt = keys[k + 1] if k + 1 < len(keys) else empty_u
        nm = margin[k + 1] if k + 1 < len(keys) else np.empty(0, np.int8)
        nr = rem[k + 1] if k + 1 < len(keys) else np.empty(0, np.uint8)
        margin[k], rem[k] = _solve_tier(keys[k], nxt, nm, nr, t.n_points, t.rays,
                                        t.score_mask, t.symmetry)
    return RetrogradeDatabase(size, keys, margin, rem, time.perf_counter() - t0)


def default_db_path(size: int, results_dir: str | os.PathLike = "results") -> Path:
    return Path(results_dir) / "trike" / "db" / f"size-{size}.npz"
