"""Tabula Trivium: the Numba rule kernels (movements, results, hashing, move codes).

Contract (the rules are stated in full in :mod:`trilab.solver.tabula_trivium.game`; this
module implements their movement, loss and draw part, **[choice]** marks a
decision of this project):

* A turn (one ply): first a pawn movement (mandatory; there is always one,
  see the loss rules), then a stone movement (mandatory if any stone of the
  mover can move after the pawn movement, otherwise skipped).
* Pawn movement (:func:`pawn_moves`): one or two steps in a straight line to
  an empty node, never through an occupied node; or a jump over an adjacent
  piece of either colour (pawn or stone) onto the empty node directly beyond
  it, capturing the jumped piece.  One jump per turn.
* Stone movement (:func:`stone_moves`): any number of steps in a straight
  line over empty nodes.  Stones never jump or capture.
* Loss (:func:`material_status`, :func:`status`): right after a pawn
  movement, a seat with no stones ("no stones") or no pawns ("no pawns")
  loses at once, also when the mover captured its own last piece; the stone
  movement is then not played.  For arbitrary states seat 0 is checked before
  seat 1 and stones before pawns.  A seat that cannot move any pawn at the
  start of its turn loses ("pawns blocked").
* Draws **[choice]**: "ply cap" after ``ply_cap`` turns (default
  :data:`DEFAULT_PLY_CAP`), "repetition" when a position (board and side to
  move) occurs :data:`REPETITION_LIMIT` times; positions are compared by
  Zobrist hash (:func:`zobrist`, keys :func:`zobrist_keys` from
  :data:`ZOBRIST_SEED`).  The game loop applies them
  (:func:`trilab.solver.tabula_trivium.game.play_game`).

Move lists (the order the policies draw from): pawn movements sorted by
``(from, to)`` node index (a pawn movement is determined by its two nodes:
a two-step move and a jump along the same line differ by the middle node
being empty or occupied); stone movements sorted by ``(from, to)``.

Buffers: a pawn movement list is an ``int64[n, 3]`` array with columns
:data:`M_FROM`, :data:`M_TO`, :data:`M_CAP` (captured node or -1), a stone
movement list an ``int64[n, 2]`` array with columns :data:`M_FROM`,
:data:`M_TO`.  A full turn is an ``int64[5]`` row with columns :data:`T_PF`,
:data:`T_PT`, :data:`T_PC` (the pawn movement) and :data:`T_SF`, :data:`T_ST`
(the stone movement, -1 -1 when there is none).

Position: four ``uint64`` bitboards (bit ``i`` = node ``i``) in a
``uint64[4]`` array, ``pieces[2*seat]`` the pawns and ``pieces[2*seat + 1]``
the stones of a seat, plus the side to move.

Move code (:func:`turn_code`): the non-negative integer a game's move digest
(:func:`trilab.solver.rng.digest_step`) folds for each played turn ``(pf, pt, pc,
sf, st)``: ``(((pf * 64 + pt) * 64 + pc + 1) * 64 + sf + 1) * 64 + st + 1``
(base :data:`CODE_BASE` = 64 > 37 nodes + 1, so distinct turns get distinct
codes).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.bitboard import bit, popcount
from trilab.solver.bitboard import lowest_bit_index as lowest_bit
from trilab.solver.jit import kernel
from trilab.solver.tabula_trivium.board import MAX_RAY, N_DIRS, N_NODES

DEFAULT_PLY_CAP = 400
"""[choice] Turns after which a game is a draw ("ply cap")."""
REPETITION_LIMIT = 3
"""[choice] A position (board and side to move) occurring this often is a draw."""
ZOBRIST_SEED = 0x7AB17A7121B1
"""Seed of the Zobrist keys (a fixed SplitMix64 stream, see :func:`zobrist_keys`)."""
SIDE_KEY = 4 * N_NODES
"""Index of the side-to-move key in :func:`zobrist_keys` (piece keys come first)."""

END_REASONS = ("no stones", "no pawns", "pawns blocked", "ply cap", "repetition")
R_NO_STONES, R_NO_PAWNS, R_BLOCKED, R_PLY_CAP, R_REPETITION = range(5)
DRAW_REASONS = ("ply cap", "repetition")

# Columns of a pawn (from, to, captured) or stone (from, to) movement list.
M_FROM, M_TO, M_CAP = range(3)
# Columns of a full turn: pawn from, to, captured; stone from, to.
T_PF, T_PT, T_PC, T_SF, T_ST = range(5)
TURN_SIZE = 5
"""Length of a full turn row ``(pf, pt, pc, sf, st)``."""
CODE_BASE = 64
"""Radix of :func:`turn_code` (> N_NODES + 1)."""

# ------------------------------------------------------------------ bit helpers


@kernel(inline="always")
def drop_lowest(x: np.uint64) -> np.uint64:
    return x & (x - np.uint64(1))


@kernel(inline="always")
def occupied(pieces: np.ndarray) -> np.uint64:
    return pieces[0] | pieces[1] | pieces[2] | pieces[3]


@kernel(inline="always")
def copy4(src: np.ndarray, dst: np.ndarray) -> None:
    for k in range(4):
        dst[k] = src[k]


@kernel(inline="always")
def seat_bit(seat: int) -> int:
    """Winner bitmask of ``seat``."""
    return 1 << seat


# ------------------------------------------------------------------ movements


@kernel(inline="always")
def pawn_destinations(nbr: np.ndarray, occ: np.uint64, f: int) -> np.uint64:
    """Destinations of a pawn on ``f``: 1 or 2 empty steps, or a jump over a piece."""
    out = np.uint64(0)
    for d in range(N_DIRS):
        n1 = nbr[f, d]
        if n1 < 0:
            continue
        n2 = nbr[n1, d]
        if (occ & bit(n1)) == np.uint64(0):
            out |= bit(n1)
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                out |= bit(n2)
        elif n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
            out |= bit(n2)
    return out


@kernel
def pawn_moves(nbr: np.ndarray, mid: np.ndarray, pieces: np.ndarray, side: int,
               out: np.ndarray) -> int:
    """Write the legal pawn movements ``(from, to, captured or -1)`` of ``side`` into
    ``out`` sorted by ``(from, to)``; return their count.

    Not ``inline="always"`` (nor :func:`stone_moves`): Numba inlines such a kernel
    in its IR, typing and lowering it again in each of its 17 callers; called, it
    compiles once and LLVM still inlines it where that pays (cold Tabula Trivium
    compile 23.8 -> 20.3 s, the same games at the same speed)."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        m = pawn_destinations(nbr, occ, f)
        while m:
            t = lowest_bit(m)
            m = drop_lowest(m)
            c = mid[f, t]
            if c >= 0 and (occ & bit(c)) == np.uint64(0):
                c = -1  # a two-step move over an empty node
            out[n, M_FROM] = f
            out[n, M_TO] = t
            out[n, M_CAP] = c
            n += 1
    return n


@kernel(inline="always")
def count_pawn_moves(nbr: np.ndarray, pieces: np.ndarray, side: int) -> int:
    """Number of legal pawn movements of ``side``."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side]
    while x:
        n += popcount(pawn_destinations(nbr, occ, lowest_bit(x)))
        x = drop_lowest(x)
    return n


@kernel(inline="always")
def has_pawn_move(nbr: np.ndarray, pieces: np.ndarray, side: int) -> bool:
    """True when ``side`` can move a pawn (an empty neighbour or a possible jump)."""
    occ = occupied(pieces)
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        for d in range(N_DIRS):
            n1 = nbr[f, d]
            if n1 < 0:
                continue
            if (occ & bit(n1)) == np.uint64(0):
                return True
            n2 = nbr[n1, d]
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                return True
    return False


@kernel(inline="always")
def can_capture(nbr: np.ndarray, pieces: np.ndarray, side: int, victim: int) -> bool:
    """True when a pawn of ``side`` can jump over a pawn or stone of ``victim``."""
    occ = occupied(pieces)
    targets = pieces[2 * victim] | pieces[2 * victim + 1]
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        for d in range(N_DIRS):
            n1 = nbr[f, d]
            if n1 < 0 or (targets & bit(n1)) == np.uint64(0):
                continue
            n2 = nbr[n1, d]
            if n2 >= 0 and (occ & bit(n2)) == np.uint64(0):
                return True
    return False


@kernel(inline="always")
def stone_destinations(rays: np.ndarray, occ: np.uint64, f: int) -> np.uint64:
    """Destinations of a stone on ``f``: along each ray up to the first occupied node."""
    m = np.uint64(0)
    for d in range(N_DIRS):
        for k in range(MAX_RAY):
            q = rays[f, d, k]
            if q < 0 or (occ & bit(q)) != np.uint64(0):
                break
            m |= bit(q)
    return m


@kernel
def stone_moves(rays: np.ndarray, pieces: np.ndarray, side: int, out: np.ndarray) -> int:
    """Write the legal stone movements ``(from, to)`` of ``side`` into ``out`` sorted by
    ``(from, to)``; return their count."""
    occ = occupied(pieces)
    n = 0
    x = pieces[2 * side + 1]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        m = stone_destinations(rays, occ, f)
        while m:
            out[n, M_FROM] = f
            out[n, M_TO] = lowest_bit(m)
            n += 1
            m = drop_lowest(m)
    return n


@kernel(inline="always")
def apply_pawn_move(pieces: np.ndarray, side: int, f: int, t: int, c: int) -> None:
    """Move the pawn of ``side`` from ``f`` to ``t``, removing the piece on ``c`` if >= 0."""
    pieces[2 * side] ^= bit(f) | bit(t)
    if c >= 0:
        keep = ~bit(c)
        for k in range(4):
            pieces[k] &= keep


@kernel(inline="always")
def apply_stone_move(pieces: np.ndarray, side: int, f: int, t: int) -> None:
    """Move the stone of ``side`` from ``f`` to ``t``."""
    pieces[2 * side + 1] ^= bit(f) | bit(t)


# ------------------------------------------------------------------ results


@kernel(inline="always")
def material_status(pieces: np.ndarray) -> tuple[int, int]:
    """``(winners, reason)`` when a seat has no stones or no pawns, else ``(0, -1)``.

    Seat 0 is checked before seat 1, stones before pawns."""
    for seat in range(2):
        if pieces[2 * seat + 1] == np.uint64(0):
            return seat_bit(1 - seat), R_NO_STONES
        if pieces[2 * seat] == np.uint64(0):
            return seat_bit(1 - seat), R_NO_PAWNS
    return 0, -1


@kernel
def status(nbr: np.ndarray, pieces: np.ndarray, side: int) -> tuple[int, int]:
    """Result at the start of ``side``'s turn: ``(winners, reason)`` or ``(0, -1)``."""
    w, r = material_status(pieces)
    if r >= 0:
        return w, r
    if not has_pawn_move(nbr, pieces, side):
        return seat_bit(1 - side), R_BLOCKED
    return 0, -1


# ------------------------------------------------------------------ hashing and codes


@nb.njit(cache=True)
def zobrist_keys() -> np.ndarray:
    """``4 * N_NODES`` piece keys (index ``kind * N_NODES + node``) and a side key
    (index :data:`SIDE_KEY`)."""
    st = rng.game_stream(np.uint64(ZOBRIST_SEED), np.uint64(0))
    keys = np.empty(4 * N_NODES + 1, dtype=np.uint64)
    for i in range(keys.shape[0]):
        keys[i] = rng.next_u64(st)
    return keys


@kernel
def zobrist(keys: np.ndarray, pieces: np.ndarray, side: int) -> np.uint64:
    """Zobrist hash of ``(pieces, side to move)``."""
    h = np.uint64(0)
    for k in range(4):
        x = pieces[k]
        while x:
            h ^= keys[k * N_NODES + lowest_bit(x)]
            x = drop_lowest(x)
    if side == 1:
        h ^= keys[SIDE_KEY]
    return h


@kernel(inline="always")
def turn_code(pf: int, pt: int, pc: int, sf: int, st: int) -> np.int64:
    """The move code of the turn ``(pf, pt, pc, sf, st)`` (-1: no capture / no stone
    movement), folded into the game's move digest (module docstring)."""
    code = (pf * CODE_BASE + pt) * CODE_BASE + pc + 1
    code = (code * CODE_BASE + sf + 1) * CODE_BASE + st + 1
    return np.int64(code)
