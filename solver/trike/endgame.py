"""Exact Trike endgames for the agents: win/loss of a small pawn region.

Once the pawn's *region* (the empty points connected to the pawn through
neighbouring empty points) is small, the rest of the game happens inside it:
every pawn move runs along a line of empty points, all of them in the region,
and the points around it never change.  Its result is then a function of the
region, the pawn's point, the colours of the occupied points bordering the
region and whose turn it is, which this module solves exactly.

The solve (:func:`solve_region`) works on the array engine's state
(:mod:`trilab.solver.trike.agents`): it collects the region by a flood fill
from the pawn (giving up when it has more than ``limit`` points), numbers its
points ``0 .. k - 1`` (the pawn's own point is ``k``), lists for every point
and each of the six directions the region points along that line, then runs a
depth-first win/loss search (negamax on booleans: the side to move wins iff
one of its moves leads to a position the other side loses) over the bit masks
``occupied`` and ``black`` of the region, with the trapped side's score
counted as in the rules (own checkers on and around the pawn's point; the
margin is never 0).  A move that ends the game in the mover's favour is taken
before any deeper move is searched.  The search gives up after ``max_nodes``
nodes, so its cost per call is bounded whatever the board; a given call always
gives the same answer (no randomness, and no entry of an earlier call is ever
read: each call stamps its table entries with its own generation number, so a
call's table starts as good as empty without being cleared; it is cleared once
every :data:`GENERATIONS` calls).

Contract: ``solve_region(t, state, limit, max_nodes, scratch)`` returns
``1`` if the side to move wins, ``0`` if it loses, ``-1`` when the region has
more than ``limit`` points, the search needed more than ``max_nodes`` nodes, or
the state is not an endgame (no pawn yet, or the pie-rule swap still
possible).  ``scratch`` is an ``int64`` buffer of at least
:func:`scratch_size` ``(limit)`` entries, **zero before its first call** and then
passed only to :func:`solve_region` (its last entry holds the generation and the
``limit`` of the last call: a call with another limit clears the table);
``state`` is the same on return (the flood fill marks the region's cells in it and
empties them again).
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver.jit import kernel

MAX_LIMIT = 24
"""Largest region solved (a table key packs two masks of region points and the pawn's
point into 53 bits)."""
TT_BITS = 13
TT_SIZE = 1 << TT_BITS
"""Entries of the solve's transposition table: one ``int64`` each, the generation of
the call that wrote it (bits 54-61), the position's key (bits 1-53) and its result
(bit 0), replaced on collision.  An entry of another generation is a miss, so a
solve's answer depends on nothing but the state."""
GENERATIONS = 255
"""Calls between two clearings of the table (generations 1..255; 0: never written)."""
_GEN_SHIFT = 54
_KEY_MASK = (np.int64(1) << 53) - 1

_DIRS = 6
# the array engine's cell values (trilab.solver.trike.agents: EMPTY, BLACK, WHITE, BORDER)
_EMPTY = 0
_BLACK = 1
_WHITE = 2
_MARK = 16  # a region cell during the flood fill: _MARK + its index
# the array engine's state and table columns used here
_S_PAWN, _S_COUNT, _S_B_SEAT, _S_PIE_RULE = range(4)
_S_CELLS = 4
_T_WIDTH = 2


def scratch_size(limit: int) -> int:
    """``int64`` entries :func:`solve_region` needs for regions up to ``limit`` points."""
    k = limit + 1
    return (k + k * _DIRS * limit + k * _DIRS + 3 * limit + (limit + 2) * (4 + limit)
            + TT_SIZE + 1)


@nb.njit(cache=True, inline="always")
def _popcount(x: np.int64) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True, inline="always")
def _tt_slot(key: np.int64) -> int:
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - TT_BITS))


@nb.njit(cache=True, inline="always")
def _tt_key(occ: np.int64, blk: np.int64, at: np.int64) -> np.int64:
    return occ | (blk << 24) | (at << 48)


@nb.njit(cache=True, inline="always")
def _tt_probe(scratch: np.ndarray, tt: int, gen: np.int64, occ: np.int64, blk: np.int64,
              at: np.int64) -> int:
    """1 or 0 if the table holds the result of the side to move (written in generation
    ``gen``), else -1."""
    key = _tt_key(occ, blk, at)
    e = scratch[tt + _tt_slot(key)]
    if e >> _GEN_SHIFT == gen and (e >> 1) & _KEY_MASK == key:
        return e & 1
    return -1


@nb.njit(cache=True, inline="always")
def _tt_store(scratch: np.ndarray, tt: int, gen: np.int64, occ: np.int64, blk: np.int64,
              at: np.int64, win: bool) -> None:
    key = _tt_key(occ, blk, at)
    scratch[tt + _tt_slot(key)] = (gen << _GEN_SHIFT) | (key << 1) | (1 if win else 0)


@nb.njit(cache=True, inline="always")
def _step(w: int, d: int) -> int:
    """The cell step of direction ``d``: east, west, south, north, down-right, up-left."""
    if d == 0:
        return 1
    if d == 1:
        return -1
    if d == 2:
        return w
    if d == 3:
        return -w
    if d == 4:
        return w + 1
    return -w - 1


@kernel
def _unmark(state: np.ndarray, scratch: np.ndarray, k: int) -> None:
    """Empty again the ``k`` region cells the flood fill marked."""
    for i in range(k):
        state[_S_CELLS + scratch[i]] = _EMPTY


@kernel
def solve_region(t: np.ndarray, state: np.ndarray, limit: int, max_nodes: int,
                 scratch: np.ndarray) -> int:
    """Win (1) or loss (0) of the side to move, or -1 (see the module docstring)."""
    if state[_S_COUNT] == 0 or limit <= 0 or limit > MAX_LIMIT:
        return -1
    if state[_S_PIE_RULE] == 1 and state[_S_COUNT] == 1 and state[_S_B_SEAT] == 0:
        return -1  # the swap is still open: not an endgame
    w = t[_T_WIDTH]
    pawn = state[_S_PAWN]
    # ---- flood fill: region cells into scratch[0 .. k-1] (breadth first); each found
    # cell is marked in the state with _MARK + its index (restored below)
    k = 0
    head = 0
    cur = pawn
    while True:
        for d in range(_DIRS):
            q = cur + _step(w, d)
            if state[_S_CELLS + q] == _EMPTY:
                if k == limit:
                    _unmark(state, scratch, k)
                    return -1
                state[_S_CELLS + q] = _MARK + k
                scratch[k] = q
                k += 1
        if head == k:
            break
        cur = scratch[head]
        head += 1
    if k == 0:
        return -1  # a finished game: the caller scores it
    scratch[k] = pawn
    # ---- layout of the rest of the scratch
    n_cells = limit + 1
    rays = n_cells  # rays[(i * 6 + d) * limit + j]
    ray_len = rays + n_cells * _DIRS * limit  # ray_len[i * 6 + d]
    nb_mask = ray_len + n_cells * _DIRS  # region neighbours of point i
    fixed_b = nb_mask + limit  # black checkers around point i outside the region
    fixed_w = fixed_b + limit
    stack = fixed_w + limit  # per depth: occ, blk, pawn, n_moves, moves[limit]
    frame = 4 + limit
    for i in range(k + 1):
        c = scratch[i]
        if i < k:
            scratch[nb_mask + i] = 0
            scratch[fixed_b + i] = 0
            scratch[fixed_w + i] = 0
        for d in range(_DIRS):
            step = _step(w, d)
            n = 0
            q = c + step
            while state[_S_CELLS + q] >= _MARK:
                scratch[rays + (i * _DIRS + d) * limit + n] = state[_S_CELLS + q] - _MARK
                n += 1
                q += step
            scratch[ray_len + i * _DIRS + d] = n
            if i < k:
                v = state[_S_CELLS + c + step]
                if v >= _MARK:
                    scratch[nb_mask + i] |= np.int64(1) << (v - _MARK)
                elif v == _BLACK:
                    scratch[fixed_b + i] += 1
                elif v == _WHITE:
                    scratch[fixed_w + i] += 1
    _unmark(state, scratch, k)
    # ---- depth-first win/loss search
    tt = stack + (limit + 2) * frame
    # the last entry: 256 * the limit of the last call + its generation (0 at first);
    # the table is cleared when the generations wrap or the limit (so its place) changed
    last = scratch.shape[0] - 1
    gen = (scratch[last] & 255) + 1
    if gen > GENERATIONS or scratch[last] >> 8 != limit:
        for i in range(TT_SIZE):
            scratch[tt + i] = 0
        gen = np.int64(1)
    scratch[last] = limit * 256 + gen
    root_black = state[_S_COUNT] % 2 == 0  # the side to move at the root places black
    depth = 0
    nodes = 1
    scratch[stack + 0] = 0  # occupied region points
    scratch[stack + 1] = 0  # black region points
    scratch[stack + 2] = k  # the pawn's point
    scratch[stack + 3] = -1  # moves not generated yet
    while True:
        base = stack + depth * frame
        occ = scratch[base]
        blk = scratch[base + 1]
        at = scratch[base + 2]
        mover_black = root_black == (depth % 2 == 0)
        if scratch[base + 3] < 0:  # a new node: the table, a winning end, else its moves
            n = 0
            known = _tt_probe(scratch, tt, gen, occ, blk, at)
            won = known == 1
            if known < 0:
                for d in range(_DIRS):
                    rl = scratch[ray_len + at * _DIRS + d]
                    for j in range(rl):
                        q = scratch[rays + (at * _DIRS + d) * limit + j]
                        bit = np.int64(1) << q
                        if occ & bit:
                            break
                        nocc = occ | bit
                        if scratch[nb_mask + q] & ~nocc == 0:  # the opponent is trapped at q
                            nblk = blk | bit if mover_black else blk
                            nbrs = scratch[nb_mask + q]
                            black = scratch[fixed_b + q] + _popcount(nbrs & nblk) + (
                                1 if mover_black else 0)
                            white = scratch[fixed_w + q] + _popcount(nbrs & ~nblk) + (
                                0 if mover_black else 1)
                            if (black > white) == mover_black:
                                won = True
                                break
                        else:
                            scratch[base + 4 + n] = q
                            n += 1
                    if won:
                        break
            if won or n == 0:
                # won: a winning end (or a stored win); n == 0: every move ends the game
                # in the opponent's favour (or a stored loss)
                result = won
                if known < 0:
                    _tt_store(scratch, tt, gen, occ, blk, at, result)
                scratch[base + 3] = 0
                if depth == 0:
                    return 1 if result else 0
                depth -= 1
                while True:  # back up ``result`` (of the child) into the parent at depth
                    pb = stack + depth * frame
                    if not result:  # the child loses: the parent wins
                        result = True
                    elif scratch[pb + 3] == 0:  # the child wins and no move is left: a loss
                        result = False
                    else:
                        break  # the child wins: try the parent's next move
                    _tt_store(scratch, tt, gen, scratch[pb], scratch[pb + 1], scratch[pb + 2],
                              result)
                    if depth == 0:
                        return 1 if result else 0
                    depth -= 1
                continue
            scratch[base + 3] = n
        # ---- descend into the next untried move (they are taken from the end)
        base = stack + depth * frame
        n = scratch[base + 3]
        q = scratch[base + 4 + n - 1]
        scratch[base + 3] = n - 1
        bit = np.int64(1) << q
        mover_black = root_black == (depth % 2 == 0)
        child = base + frame
        scratch[child] = scratch[base] | bit
        scratch[child + 1] = scratch[base + 1] | bit if mover_black else scratch[base + 1]
        scratch[child + 2] = q
        scratch[child + 3] = -1
        depth += 1
        nodes += 1
        if nodes > max_nodes:
            return -1
