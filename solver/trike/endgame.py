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
gives the same answer (no randomness, no table carried between calls).

Contract: ``solve_region(t, state, limit, max_nodes, scratch)`` returns
``1`` if the side to move wins, ``0`` if it loses, ``-1`` when the region has
more than ``limit`` points, the search needed more than ``max_nodes`` nodes, or
the state is not an endgame (no pawn yet, or the pie-rule swap still
possible).  ``scratch`` is an ``int64`` buffer of at least
:func:`scratch_size` ``(limit)`` entries; ``state`` is not changed.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver.jit import kernel

MAX_LIMIT = 30
"""Largest region the masks hold (two ``int64`` masks of region points)."""

_DIRS = 6
# the array engine's cell values (trilab.solver.trike.agents: EMPTY, BLACK, WHITE, BORDER)
_EMPTY = 0
_BLACK = 1
_WHITE = 2
# the array engine's state and table columns used here
_S_PAWN, _S_COUNT, _S_B_SEAT, _S_PIE_RULE = range(4)
_S_CELLS = 4
_T_WIDTH = 2


def scratch_size(limit: int) -> int:
    """``int64`` entries :func:`solve_region` needs for regions up to ``limit`` points."""
    k = limit + 1
    return k + k * _DIRS * limit + k * _DIRS + 3 * limit + (limit + 2) * (4 + limit)


@nb.njit(cache=True, inline="always")
def _popcount(x: np.int64) -> int:
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@kernel
def _index_of(scratch: np.ndarray, k: int, cell: int) -> int:
    for i in range(k):
        if scratch[i] == cell:
            return i
    return -1


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
    # ---- flood fill: region cells into scratch[0 .. k-1] (breadth first)
    k = 0
    head = 0
    cur = pawn
    while True:
        for d in range(_DIRS):
            step = 1 if d == 0 else (-1 if d == 1 else (w if d == 2 else (
                -w if d == 3 else (w + 1 if d == 4 else -w - 1))))
            q = cur + step
            if state[_S_CELLS + q] == _EMPTY and _index_of(scratch, k, q) < 0:
                if k == limit:
                    return -1
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
            step = 1 if d == 0 else (-1 if d == 1 else (w if d == 2 else (
                -w if d == 3 else (w + 1 if d == 4 else -w - 1))))
            n = 0
            q = c + step
            while state[_S_CELLS + q] == _EMPTY:
                scratch[rays + (i * _DIRS + d) * limit + n] = _index_of(scratch, k, q)
                n += 1
                q += step
            scratch[ray_len + i * _DIRS + d] = n
            if i < k:
                v = state[_S_CELLS + c + step]
                if v == _EMPTY:
                    scratch[nb_mask + i] |= np.int64(1) << _index_of(scratch, k, c + step)
                elif v == _BLACK:
                    scratch[fixed_b + i] += 1
                elif v == _WHITE:
                    scratch[fixed_w + i] += 1
    # ---- depth-first win/loss search
    root_black = state[_S_COUNT] % 2 == 0  # the side to move at the root places black
    depth = 0
    nodes = 1
    scratch[stack + 0] = 0  # occupied region points
    scratch[stack + 1] = 0  # black region points
    scratch[stack + 2] = k  # the pawn's point
    scratch[stack + 3] = -1  # moves not generated yet
    result = False
    while True:
        base = stack + depth * frame
        occ = scratch[base]
        blk = scratch[base + 1]
        at = scratch[base + 2]
        mover_black = root_black == (depth % 2 == 0)
        if scratch[base + 3] < 0:  # generate this node's moves; take a winning end at once
            n = 0
            won = False
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
                # won: a winning end; n == 0: every move ends the game in the opponent's favour
                result = won
                scratch[base + 3] = 0
                if depth == 0:
                    return 1 if result else 0
                depth -= 1
                while True:  # back up result (of the child) into the parent at depth
                    if not result:  # the child loses: the parent wins
                        result = True
                        if depth == 0:
                            return 1
                        depth -= 1
                        continue
                    # the child wins: try the parent's next move
                    pb = stack + depth * frame
                    if scratch[pb + 3] == 0:  # no move left: the parent loses
                        result = False
                        if depth == 0:
                            return 0
                        depth -= 1
                        continue
                    break
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
