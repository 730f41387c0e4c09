"""Trike: rules, board geometry and the Numba bitboard engine.

Rules implemented (see ``shared/RULES.md`` section 1):

* The board is a triangle of side ``n`` (2 <= n <= 10) on the triangular
  lattice with ``n(n+1)/2`` points.  A point is ``(row, col)`` with
  ``0 <= col <= row < n``; row 0 is the apex and the point index is
  ``row*(row+1)/2 + col``.  Neighbours lie in the six directions
  ``(0,+1) (0,-1) (+1,0) (-1,0) (+1,+1) (-1,-1)``.
* The first player puts a checker of their colour (called ``b``) on any point
  and the pawn on it.  With the pie rule the second player may then swap
  sides; the position on the board does not change.
* A move slides the pawn one or more points in a straight line over empty
  points only (no jumping, no landing on a checker); the mover puts a checker
  of their colour on the destination and the pawn on top of it.  No passing.
* The game ends when the player to move has no move (every neighbour of the
  pawn is occupied).  Each player scores one point per checker of their
  colour on the pawn's point or next to it; the scored cells number 3, 5 or 7
  and are all occupied, so there is never a tie.

Engine representation: a position is ``(mine, theirs, pawn)`` seen from the
side to move: two ``uint64`` bitboards (bit ``i`` = point ``i``) and the pawn's
point index.  Playing ``dest`` gives ``(theirs, mine | bit(dest), dest)``.
All tables are precomputed per size (:func:`tables`) and passed to the
``@njit`` kernels as arguments.

The six board symmetries act on barycentric coordinates
``(a, b, e) = (col, row - col, n - 1 - row)``, which sum to ``n - 1``; each
symmetry permutes them.  Symmetry 0 is the identity.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.cpython.unsafe.numbers import leading_zeros
from trilab.solver.bitboard import bit, lowest_bit_index, popcount  # noqa: F401  (re-exported)
from trilab.solver.game_api import SolvableSpec
from trilab.solver.rng import PyRng
from trilab.solver.trike import reference as trike_reference

MIN_SIZE = 2
MAX_SIZE = 10
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))
N_SYMMETRIES = 6

Point = int
"""A point index ``row*(row+1)/2 + col``."""
Bitboard = int
"""A set of points as an integer, bit ``i`` for point ``i``."""


def n_points(size: int) -> int:
    """Number of points on a board of side ``size``."""
    return size * (size + 1) // 2


def point_index(row: int, col: int) -> Point:
    """Index of point ``(row, col)``."""
    return row * (row + 1) // 2 + col


def point_coords(size: int) -> list[tuple[int, int]]:
    """``(row, col)`` of every point, by index."""
    return [(r, c) for r in range(size) for c in range(r + 1)]


class TrikeTables(NamedTuple):
    """Precomputed geometry of one board size (all numpy arrays)."""

    size: int
    n_points: int
    rays: np.ndarray  # int8[n_points, 6, size]: points along each direction, -1 padded
    ray_masks: np.ndarray  # uint64[n_points, 6]: the points of each ray as a bitboard
    neighbours: np.ndarray  # uint64[n_points]: neighbour mask
    score_mask: np.ndarray  # uint64[n_points]: neighbours plus the point itself
    symmetry: np.ndarray  # int8[6, n_points]: image of each point under each symmetry
    coords: np.ndarray  # int8[n_points, 2]: (row, col)
    symmetry_bytes: np.ndarray  # uint64[6, 8, 256]: image of byte k of a bitboard


def symmetry_permutations(size: int) -> np.ndarray:
    """The six symmetries as point permutations (any board side): row ``s`` maps
    each point to its image under symmetry ``s``."""
    coords = point_coords(size)
    perms = []
    for perm in itertools.permutations(range(3)):
        image = []
        for r, c in coords:
            bary = (c, r - c, size - 1 - r)
            a2, _b2, e2 = (bary[perm[0]], bary[perm[1]], bary[perm[2]])
            image.append(point_index(size - 1 - e2, a2))
        perms.append(image)
    return np.array(perms, dtype=np.int16)


@functools.cache
def tables(size: int) -> TrikeTables:
    """Build (once) the ray, neighbour, score and symmetry tables for ``size``."""
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"Trike size must be in {MIN_SIZE}..{MAX_SIZE}, got {size}")
    npts = n_points(size)
    coords = point_coords(size)
    rays = np.full((npts, 6, size), -1, dtype=np.int8)
    neighbours = np.zeros(npts, dtype=np.uint64)
    ray_masks = np.zeros((npts, 6), dtype=np.uint64)
    for p, (r, c) in enumerate(coords):
        for d, (dr, dc) in enumerate(DIRECTIONS):
            k = 0
            rr, cc = r + dr, c + dc
            while 0 <= cc <= rr < size:
                rays[p, d, k] = point_index(rr, cc)
                ray_masks[p, d] |= np.uint64(1) << np.uint64(rays[p, d, k])
                k += 1
                rr, cc = rr + dr, cc + dc
            if rays[p, d, 0] >= 0:
                neighbours[p] |= np.uint64(1) << np.uint64(rays[p, d, 0])
    score_mask = neighbours.copy()
    for p in range(npts):
        score_mask[p] |= np.uint64(1) << np.uint64(p)
    for arr in (rays, ray_masks, neighbours, score_mask):
        arr.setflags(write=False)
    sym = symmetry_permutations(size).astype(np.int8)  # sizes <= 10: at most 55 points
    sym.setflags(write=False)
    crd = np.array(coords, dtype=np.int8).reshape(npts, 2)
    crd.setflags(write=False)
    sym_bytes = np.zeros((N_SYMMETRIES, 8, 256), dtype=np.uint64)
    for s in range(N_SYMMETRIES):
        for k in range(8):
            for byte in range(256):
                img = 0
                for j in range(8):
                    p = 8 * k + j
                    if byte >> j & 1 and p < npts:
                        img |= 1 << int(sym[s, p])
                sym_bytes[s, k, byte] = img
    sym_bytes.setflags(write=False)
    return TrikeTables(size, npts, rays, ray_masks, neighbours, score_mask, sym, crd, sym_bytes)


# ---------------------------------------------------------------- kernels

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@nb.njit(cache=True)
def generate_moves(rays: np.ndarray, occ: np.uint64, pawn: int, out: np.ndarray) -> int:
    """Write the legal destinations of the pawn into ``out``; return their count.

    Order: direction by direction, nearest point first.
    """
    n = 0
    for d in range(6):
        for k in range(rays.shape[2]):
            q = rays[pawn, d, k]
            if q < 0 or (occ >> np.uint64(q)) & np.uint64(1):
                break
            out[n] = q
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def move_mask(ray_masks: np.ndarray, occ: np.uint64, pawn: int) -> np.uint64:
    """All legal destinations of the pawn as one bitboard (sliding-piece rays).

    Directions 0, 2, 4 run towards higher indices: the nearest blocker is the
    lowest set bit and the pawn reaches the ray points below it.  Directions
    1, 3, 5 run towards lower indices: the nearest blocker is the highest set
    bit and the pawn reaches the ray points above it.
    """
    out = np.uint64(0)
    for d in range(0, 6, 2):
        ray = ray_masks[pawn, d]
        blockers = ray & occ
        first = blockers & (~blockers + np.uint64(1))  # 0 when no blocker
        out |= ray & (first - np.uint64(1))  # wraps to all ones when first == 0
    for d in range(1, 6, 2):
        ray = ray_masks[pawn, d]
        # points above the highest blocker; no blocker: shift by 0 keeps the ray
        above = np.uint64(64) - leading_zeros(ray & occ)
        out |= ray & (np.uint64(0xFFFFFFFFFFFFFFFF) << above)
    return out


@nb.njit(cache=True, inline="always")
def is_trapped(neighbours: np.ndarray, occ: np.uint64, pawn: int) -> bool:
    """True when every neighbour of the pawn is occupied (the mover has no move)."""
    return (neighbours[pawn] & ~occ) == np.uint64(0)


@nb.njit(cache=True, inline="always")
def final_margin(score_mask: np.ndarray, mine: np.uint64, theirs: np.uint64, pawn: int) -> int:
    """Score of the side to move minus the opponent's, counted around the pawn."""
    m = score_mask[pawn]
    return popcount(mine & m) - popcount(theirs & m)


@nb.njit(cache=True)
def transform_bitboard(sym_row: np.ndarray, board: np.uint64) -> np.uint64:
    """Image of a bitboard under one symmetry (``sym_row`` = ``symmetry[s]``)."""
    out = np.uint64(0)
    x = board
    p = 0
    while x:
        if x & np.uint64(1):
            out |= np.uint64(1) << np.uint64(sym_row[p])
        x >>= np.uint64(1)
        p += 1
    return out


@nb.njit(cache=True, inline="always")
def transform_by_bytes(symmetry_bytes: np.ndarray, s: int, board: np.uint64) -> np.uint64:
    """Image of a bitboard under symmetry ``s``, one table look-up per byte
    (``symmetry_bytes`` from :func:`tables`; same result as :func:`transform_bitboard`)."""
    out = np.uint64(0)
    x = board
    k = 0
    while x:
        out |= symmetry_bytes[s, k, x & np.uint64(0xFF)]
        x >>= np.uint64(8)
        k += 1
    return out


@nb.njit(cache=True)
def canonical(symmetry: np.ndarray, mine: np.uint64, theirs: np.uint64, pawn: int):
    """Smallest symmetric image of a position, ordered by (pawn, mine, theirs).

    Returns ``(mine, theirs, pawn, s)`` where ``s`` is the symmetry used.
    """
    best_m = mine
    best_t = theirs
    best_p = pawn
    best_s = 0
    for s in range(1, symmetry.shape[0]):
        p = int(symmetry[s, pawn])
        if p > best_p:
            continue
        m = transform_bitboard(symmetry[s], mine)
        t = transform_bitboard(symmetry[s], theirs)
        if p < best_p or m < best_m or (m == best_m and t < best_t):
            best_m, best_t, best_p, best_s = m, t, p, s
    return best_m, best_t, best_p, best_s


# ---------------------------------------------------------------- Python API


@dataclass(frozen=True)
class TrikePosition:
    """A Trike position: ``black`` and ``white`` bitboards and the pawn's point.

    ``b`` is the colour of the first checker placed; the side to move follows
    from the counts (equal counts: ``b`` moves; one more ``b``: ``w`` moves).
    """

    size: int
    black: Bitboard
    white: Bitboard
    pawn: Point

    @property
    def to_move(self) -> str:
        """``"b"`` or ``"w"``."""
        return "b" if self.black.bit_count() == self.white.bit_count() else "w"

    @property
    def checkers(self) -> int:
        return self.black.bit_count() + self.white.bit_count()

    def mine_theirs(self) -> tuple[int, int]:
        """Bitboards of (side to move, opponent)."""
        return (self.black, self.white) if self.to_move == "b" else (self.white, self.black)

    def legal_moves(self) -> list[Point]:
        """Legal pawn destinations in engine order."""
        t = tables(self.size)
        out = np.empty(6 * self.size, dtype=np.int64)
        occ = np.uint64(self.black | self.white)
        k = generate_moves(t.rays, occ, self.pawn, out)
        return [int(x) for x in out[:k]]

    def play(self, dest: Point) -> TrikePosition:
        """The position after the side to move places on ``dest`` (not validated)."""
        if self.to_move == "b":
            return TrikePosition(self.size, self.black | (1 << dest), self.white, dest)
        return TrikePosition(self.size, self.black, self.white | (1 << dest), dest)

    def is_terminal(self) -> bool:
        t = tables(self.size)
        return bool(is_trapped(t.neighbours, np.uint64(self.black | self.white), self.pawn))

    def margin(self) -> int:
        """Final score of the side to move minus the opponent's (terminal only)."""
        t = tables(self.size)
        mine, theirs = self.mine_theirs()
        return int(final_margin(t.score_mask, np.uint64(mine), np.uint64(theirs), self.pawn))

    def transformed(self, s: int) -> TrikePosition:
        """Image under symmetry ``s`` (0..5)."""
        sym = tables(self.size).symmetry[s]
        b = int(transform_bitboard(sym, np.uint64(self.black)))
        w = int(transform_bitboard(sym, np.uint64(self.white)))
        return TrikePosition(self.size, b, w, int(sym[self.pawn]))

    def to_notation(self) -> str:
        return format_position(self)


def opening(size: int, point: Point) -> TrikePosition:
    """The position after the first checker (``b``) is placed on ``point``."""
    return TrikePosition(size, 1 << point, 0, point)


def opening_classes(size: int) -> list[list[Point]]:
    """Points grouped by symmetry, each class sorted, classes by smallest point."""
    sym = tables(size).symmetry
    seen: dict[int, list[int]] = {}
    for p in range(n_points(size)):
        rep = min(int(sym[s, p]) for s in range(N_SYMMETRIES))
        seen.setdefault(rep, []).append(p)
    return [sorted(v) for _, v in sorted(seen.items())]


def check_size(size: int) -> int:
    """``size`` if the engine supports it, else ``ValueError`` with one line."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) \
            or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size {size!r} is not in {MIN_SIZE}..{MAX_SIZE}")
    return int(size)


def seeded_game(size: int, seed: int, game: int) -> tuple[list[Point], int]:
    """A whole game of uniformly random legal moves, played by the engine.

    The stream ``PyRng(seed, game)`` picks the opening point ``below(points)``
    and then each move ``below(len(moves))`` from the legal moves sorted by
    point index.  Returns the points played (opening first) and the final
    margin for ``b`` (the first player).  The reference plays the same game
    with :func:`trilab.solver.trike.reference.seeded_game`.
    """

    check_size(size)
    stream = PyRng(seed, game)
    pos = opening(size, stream.below(n_points(size)))
    played = [pos.pawn]
    while not pos.is_terminal():
        moves = sorted(pos.legal_moves())
        pos = pos.play(moves[stream.below(len(moves))])
        played.append(pos.pawn)
    margin = pos.margin()
    return played, margin if pos.to_move == "b" else -margin


# ---------------------------------------------------------------- notation


class NotationError(ValueError):
    """A position string that does not describe a Trike position."""


def parse_position(text: str, size: int | None = None, max_size: int = MAX_SIZE) -> TrikePosition:
    """Parse ``rows from the apex joined by '/'``; ``.`` empty, ``b``/``w``
    checkers, the pawn's cell in upper case.  Example (size 3): ``B/../...``.
    ``max_size`` is the largest board accepted (the agents play up to 19).
    """
    text = text.strip()
    rows = text.split("/")
    n = len(rows)
    if size is not None and n != size:
        raise NotationError(f"position has {n} rows but the board size is {size}")
    if not MIN_SIZE <= n <= max_size:
        raise NotationError(f"position has {n} rows; board sizes are {MIN_SIZE}..{max_size}")
    black = white = 0
    pawn = -1
    for r, row in enumerate(rows):
        if len(row) != r + 1:
            raise NotationError(f"row {r} has {len(row)} cells, expected {r + 1}")
        for c, ch in enumerate(row):
            p = point_index(r, c)
            if ch in "bB":
                black |= 1 << p
            elif ch in "wW":
                white |= 1 << p
            elif ch != ".":
                raise NotationError(f"unknown character {ch!r} at row {r}, col {c}")
            if ch in "BW":
                if pawn >= 0:
                    raise NotationError("more than one pawn (upper-case cell)")
                pawn = p
    if pawn < 0:
        raise NotationError("no pawn: mark the pawn's cell in upper case (B or W)")
    nb_, nw = black.bit_count(), white.bit_count()
    if nb_ != nw and nb_ != nw + 1:
        raise NotationError(
            f"{nb_} b and {nw} w checkers: b must have as many as w or one more"
        )
    last_mover_board = white if nb_ == nw else black
    if not last_mover_board >> pawn & 1:
        last = "w" if nb_ == nw else "b"
        raise NotationError(
            f"the pawn must stand on the last checker placed, a {last} checker "
            f"(upper-case {last.upper()}), since {'b' if last == 'w' else 'w'} is to move"
        )
    return TrikePosition(n, black, white, pawn)


def format_position(pos: TrikePosition) -> str:
    """Inverse of :func:`parse_position`."""
    rows = []
    for r in range(pos.size):
        cells = []
        for c in range(r + 1):
            p = point_index(r, c)
            ch = "b" if pos.black >> p & 1 else "w" if pos.white >> p & 1 else "."
            cells.append(ch.upper() if p == pos.pawn else ch)
        rows.append("".join(cells))
    return "/".join(rows)


SOLVABLE = SolvableSpec(name="trike", min_size=MIN_SIZE, max_size=MAX_SIZE,
                        check_size=check_size, seeded_game=seeded_game,
                        reference_seeded_game=trike_reference.seeded_game)
"""The game API record of the exact solvers (:mod:`trilab.solver.game_api`)."""
