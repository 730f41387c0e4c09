"""Trike on the boards people play (sides 2..19): the array engine of the agents.

Same rules, notation and point numbering as :mod:`trilab.solver.trike.engine` (read
its docstring), which keeps the one-``uint64`` bitboard engine of the exact
solvers (sides up to 10).  Here a board of up to 190 points is a fixed
``int64`` array, so one engine serves every size that Ludii (13),
boardspace (7-13) and AbstractPlay (7-15) offer.

The board is a *mailbox* (as in chess engines before bitboards): a grid of
``W = size + 2`` columns and rows holding the triangle with a one-cell
``BORDER`` around it and above its diagonal, so the six directions are fixed
index steps ``+1, -1, +W, -W, +W+1, -W-1`` and a ray ends at the first cell
that is not ``EMPTY``.  Point ``(row, col)`` is cell ``(row + 1) * W + col + 1``.

State (``int64``, columns named ``S_*``):

* ``S_PAWN``: the pawn's cell, ``-1`` before the opening;
* ``S_COUNT``: checkers on the board (``b`` moves when it is even);
* ``S_B_SEAT``: the seat that owns colour ``b`` (0; 1 after a swap);
* ``S_PIE_RULE``: 1 if the game is played with the pie rule: the second
  player may swap right after the opening (while ``S_COUNT == 1`` and
  ``S_B_SEAT == 0``; a swap makes ``S_B_SEAT`` 1, so it happens once);
* ``S_CELLS + cell``: ``EMPTY``, ``BLACK``, ``WHITE`` or ``BORDER``;
* then the *line words* (offset ``t[T_LINES]``), the occupancy of each line
  of the board as bits, for the playouts: ``size`` rows (point ``(r, c)`` is
  bit ``c`` of row ``r``), ``size`` columns (bit ``r`` of column ``c``; bits
  below ``c``, off the board, are set) and ``size`` diagonals (bit ``c`` of
  diagonal ``r - c``), each with a set *sentinel* bit just past its last
  point.  A pawn's reach along a line is then a count of zero bits
  (``trailing_zeros`` above it, ``leading_zeros`` below it): six bit scans a
  ply instead of walking the rays, without the mispredicted branch at the
  end of each ray.

Seats: seat 0 places the opening checker (colour ``b``); seat 1 answers.
Actions are point indices (the notation's numbering): ``0 .. n_points - 1``
put the pawn (and a checker) on that point; ``SWAP = n_points`` is the
pie-rule swap: seat 1 takes colour ``b`` and the position as it stands, and
seat 0, now ``w``, moves next.

Tables (``int64``, one flat array so that every game's agent kernels share
one signature, see :mod:`trilab.solver.mcts`): ``T_SIZE``, ``T_POINTS``,
``T_WIDTH``, ``T_LINES`` (where the line words start in a state),
``T_ENDGAME_LIMIT`` and ``T_ENDGAME_NODES`` (the playout's exact endgames, 0: none;
:mod:`trilab.solver.trike.endgame`), ``T_TACTICS`` (the playout: ``RANDOM``,
:func:`random_playout`; ``TRAP``, :func:`tactical_playout`, which sees the moves that
end the game; ``SQUEEZE``, :func:`squeeze_playout`, which also prefers moves that leave
the other side few neighbours), then the cell of each point, then the point of
each cell
(``-1`` off the board).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numba as nb
import numpy as np
from numba import types
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
from trilab.solver import mcts, rng
from trilab.solver.game_api import AgentKernels
from trilab.solver.jit import kernel
from trilab.solver.mcts import AgentGame
from trilab.solver.trike.endgame import MAX_LIMIT as MAX_ENDGAME_LIMIT
from trilab.solver.trike.endgame import scratch_size, solve_region
from trilab.solver.trike.engine import TrikePosition, point_coords

MIN_SIZE = 2
MAX_SIZE = 19

EMPTY = 0
BLACK = 1
WHITE = 2
BORDER = 3

S_PAWN, S_COUNT, S_B_SEAT, S_PIE_RULE = range(4)
S_CELLS = 4

T_SIZE, T_POINTS, T_WIDTH, T_LINES, T_ENDGAME_LIMIT, T_ENDGAME_NODES, T_TACTICS = range(7)
T_CELL_OF_POINT = 7

RANDOM, TRAP, SQUEEZE = range(3)
"""The playouts of ``T_TACTICS``."""



def n_points(size: int) -> int:
    return size * (size + 1) // 2


def check_size(size: int) -> int:
    """``size`` if the array engine plays it, else ``ValueError`` with one line."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) \
            or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size {size!r} is not in {MIN_SIZE}..{MAX_SIZE}")
    return int(size)


def width(size: int) -> int:
    """Columns (and rows) of the mailbox grid."""
    return size + 2


def cell_of(size: int, row: int, col: int) -> int:
    """The mailbox cell of point ``(row, col)``."""
    return (row + 1) * width(size) + col + 1


@functools.cache
def tables(size: int, endgame_limit: int = 0, endgame_nodes: int = 0,
           tactics: bool = False, squeeze: bool = False) -> np.ndarray:
    """The flat ``int64`` table of one board side (built once, read-only); with
    ``endgame_limit > 0`` the playout kernel first solves pawn regions of at most
    that many points exactly (:mod:`trilab.solver.trike.endgame`, at most
    ``endgame_nodes`` nodes a solve); with ``tactics`` its random playouts are
    :func:`tactical_playout`, with ``squeeze`` (too) :func:`squeeze_playout`."""
    check_size(size)
    if squeeze and not tactics:
        raise ValueError("the squeeze playout is a tactical playout: squeeze needs tactics")
    npts = n_points(size)
    w = width(size)
    cell_of_point = np.array([cell_of(size, r, c) for r, c in point_coords(size)], dtype=np.int64)
    point_of_cell = np.full(w * w, -1, dtype=np.int64)
    point_of_cell[cell_of_point] = np.arange(npts)
    header = np.array([size, npts, w, S_CELLS + w * w, endgame_limit, endgame_nodes,
                       SQUEEZE if squeeze else TRAP if tactics else RANDOM], dtype=np.int64)
    flat = np.concatenate([header, cell_of_point, point_of_cell])
    flat.setflags(write=False)
    return flat


@nb.njit(cache=True, inline="always")
def _point_of_cell(t: np.ndarray, cell: int) -> int:
    return t[T_CELL_OF_POINT + t[T_POINTS] + cell]


@nb.njit(cache=True, inline="always")
def _cell_of_point(t: np.ndarray, point: int) -> int:
    return t[T_CELL_OF_POINT + point]


# ---------------------------------------------------------------- kernels


@nb.njit(cache=True, inline="always")
def pawn_moves(t: np.ndarray, state: np.ndarray, out: np.ndarray) -> int:
    """Write the pawn's destination *cells* into ``out`` (direction by
    direction, nearest first); return their count (0: the side to move is
    trapped)."""
    w = t[T_WIDTH]
    pawn = state[S_PAWN]
    n = 0
    for step in (1, -1, w, -w, w + 1, -w - 1):
        q = pawn + step
        while state[S_CELLS + q] == EMPTY:
            out[n] = q
            n += 1
            q += step
    return n


@nb.njit(cache=True, inline="always")
def place(t: np.ndarray, state: np.ndarray, cell: int) -> None:
    """The side to move puts the pawn and a checker of its colour on ``cell``."""
    state[S_CELLS + cell] = BLACK if state[S_COUNT] % 2 == 0 else WHITE
    state[S_PAWN] = cell
    state[S_COUNT] += 1
    size = t[T_SIZE]
    w = t[T_WIDTH]
    lines = t[T_LINES]
    r = cell // w - 1
    c = cell % w - 1
    state[lines + r] |= np.int64(1) << c
    state[lines + size + c] |= np.int64(1) << r
    state[lines + 2 * size + r - c] |= np.int64(1) << c


@nb.njit(cache=True, inline="always")
def _reach_up(word: np.int64, p: int) -> int:
    """Empty points above bit ``p`` before the next set bit (the sentinel at worst)."""
    return np.int64(trailing_zeros(np.uint64(word) >> np.uint64(p + 1)))


@nb.njit(cache=True, inline="always")
def _reach_down(word: np.int64, p: int) -> int:
    """Empty points below bit ``p`` before the next set bit or the end of the word."""
    below = (np.uint64(word) & ((np.uint64(1) << np.uint64(p)) - np.uint64(1)))
    highest = 63 - np.int64(leading_zeros((below << np.uint64(1)) | np.uint64(1)))
    return p - highest


@nb.njit(cache=True, inline="always")
def may_swap(state: np.ndarray) -> bool:
    """True when the second player may use the pie rule now."""
    return state[S_PIE_RULE] == 1 and state[S_COUNT] == 1 and state[S_B_SEAT] == 0


@nb.njit(cache=True, inline="always")
def black_margin(t: np.ndarray, state: np.ndarray) -> int:
    """``b``'s checkers minus ``w``'s on the pawn's point and its neighbours."""
    w = t[T_WIDTH]
    pawn = state[S_PAWN]
    m = 0
    for step in (0, 1, -1, w, -w, w + 1, -w - 1):
        c = state[S_CELLS + pawn + step]
        if c == BLACK:
            m += 1
        elif c == WHITE:
            m -= 1
    return m


@nb.njit(cache=True, inline="always")
def winning_seat(t: np.ndarray, state: np.ndarray) -> int:
    """The seat that wins a finished game (there is never a tie)."""
    b_seat = state[S_B_SEAT]
    return b_seat if black_margin(t, state) > 0 else 1 - b_seat


@nb.njit(cache=True, inline="always")
def seat_to_move(state: np.ndarray) -> int:
    colour_b = state[S_COUNT] % 2 == 0
    return state[S_B_SEAT] if colour_b else 1 - state[S_B_SEAT]


@nb.njit(cache=True, inline="always")
def _reaches(t: np.ndarray, state: np.ndarray, cell: int) -> tuple:
    """The pawn's reach from ``cell`` (empty points before the first occupied one) in
    the six directions (0,+1), (0,-1), (+1,0), (-1,0), (+1,+1), (-1,-1), read from the
    line words."""
    size = t[T_SIZE]
    w = t[T_WIDTH]
    lines = t[T_LINES]
    r = cell // w - 1
    c = cell % w - 1
    row = state[lines + r]
    col = state[lines + size + c]
    diag = state[lines + 2 * size + r - c]
    return (_reach_up(row, c), _reach_down(row, c), _reach_up(col, r), _reach_down(col, r),
            _reach_up(diag, c), _reach_down(diag, c))


@nb.njit(cache=True, inline="always")
def _kth_move(cell: int, w: int, k: int, reach: tuple) -> int:
    """The cell of move ``k`` (0-based) from ``cell``, the moves counted direction by
    direction in the order of :func:`_reaches`, nearest first."""
    east, west, south, north, down, up = reach
    if k < east:
        return cell + 1 + k
    k -= east
    if k < west:
        return cell - 1 - k
    k -= west
    if k < south:
        return cell + w * (1 + k)
    k -= south
    if k < north:
        return cell - w * (1 + k)
    k -= north
    if k < down:
        return cell + (w + 1) * (1 + k)
    return cell - (w + 1) * (1 + k - down)


@nb.njit(cache=True, inline="always")
def trap_result(t: np.ndarray, state: np.ndarray, cell: int, colour: int) -> int:
    """What putting a checker of ``colour`` (the pawn's move) on the empty ``cell`` next
    to the pawn does: 0 if the game goes on (``cell`` has an empty neighbour), else
    the game ends with the other side trapped: 1 if the mover wins, -1 if it loses."""
    w = t[T_WIDTH]
    m = 1 if colour == BLACK else -1
    for step in (1, -1, w, -w, w + 1, -w - 1):
        c = state[S_CELLS + cell + step]
        if c == EMPTY:
            return 0
        if c == BLACK:
            m += 1
        elif c == WHITE:
            m -= 1
    return 1 if (m > 0) == (colour == BLACK) else -1


@nb.njit(cache=True, inline="always")
def empty_neighbours(t: np.ndarray, state: np.ndarray, cell: int) -> int:
    """Empty points next to ``cell``."""
    w = t[T_WIDTH]
    n = 0
    for step in (1, -1, w, -w, w + 1, -w - 1):
        if state[S_CELLS + cell + step] == EMPTY:
            n += 1
    return n


@nb.njit(cache=True, inline="always")
def _step_index(diff: int, w: int) -> int:
    """Which of the six steps ``diff`` is (0..5), -1 for a farther move."""
    if diff == 1:
        return 0
    if diff == -1:
        return 1
    if diff == w:
        return 2
    if diff == -w:
        return 3
    if diff == w + 1:
        return 4
    if diff == -w - 1:
        return 5
    return -1


@nb.njit(cache=True, inline="always")
def _draw_move(stream: np.ndarray, cell: int, w: int, n: int, reach: tuple, losing: int,
               n_losing: int) -> int:
    """A uniform move of the ``n`` in ``reach`` from ``cell``, one onto a losing trap
    (bit ``i`` of ``losing``: the step ``i``) drawn again unless all ``n`` are."""
    while True:
        dest = _kth_move(cell, w, rng.below(stream, n), reach)
        if n_losing == n:
            return dest
        j = _step_index(dest - cell, w)
        if j < 0 or (losing >> j) & 1 == 0:
            return dest


@kernel
def _playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray, kind: int) -> int:
    """:func:`random_playout`, :func:`tactical_playout` or :func:`squeeze_playout`
    (``kind`` ``RANDOM``, ``TRAP`` or ``SQUEEZE``)."""
    plies = 0
    if state[S_COUNT] == 0:
        place(t, state, _cell_of_point(t, rng.below(stream, t[T_POINTS])))
        plies += 1
    w = t[T_WIDTH]
    while True:
        cell = state[S_PAWN]
        reach = _reaches(t, state, cell)
        n = reach[0] + reach[1] + reach[2] + reach[3] + reach[4] + reach[5]
        if n == 0:
            return plies
        k = -1
        if may_swap(state):
            k = rng.below(stream, n + 1)
            if k == n:
                state[S_B_SEAT] = 1
                plies += 1
                continue
        if kind == RANDOM:
            if k < 0:
                k = rng.below(stream, n)
            place(t, state, _kth_move(cell, w, k, reach))
            plies += 1
            continue
        colour = BLACK if state[S_COUNT] % 2 == 0 else WHITE
        losing = 0  # bit i: step i traps the other side and loses
        n_losing = 0
        won = -1
        i = 0
        for step in (1, -1, w, -w, w + 1, -w - 1):
            # only a neighbour with no empty point beyond it (reach exactly 1) can trap
            if reach[i] == 1:
                q = cell + step
                res = trap_result(t, state, q, colour)
                if res > 0:
                    won = q
                    break
                if res < 0:
                    losing |= 1 << i
                    n_losing += 1
            i += 1
        if won >= 0:
            place(t, state, won)
            return plies + 1
        # a uniform move, a losing trap drawn again unless every move is one
        dest = _draw_move(stream, cell, w, n, reach, losing, n_losing)
        if kind == SQUEEZE and n - n_losing > 1:  # a second one; the squeezing one of two
            other = _draw_move(stream, cell, w, n, reach, losing, n_losing)
            if empty_neighbours(t, state, other) < empty_neighbours(t, state, dest):
                dest = other
        place(t, state, dest)
        plies += 1


@kernel
def random_playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray) -> int:
    """Play uniformly random legal moves (swap included while the pie rule
    allows it, opening on a uniform point) until the side to move is trapped;
    return the plies played.  No scratch: the moves are counted on the line
    words, not listed."""
    return _playout(t, state, stream, RANDOM)


@kernel
def tactical_playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray) -> int:
    """:func:`random_playout` that sees the moves ending the game: only a move onto a
    neighbour of the pawn can trap the other side (a longer move leaves the point it
    passed last empty next to the pawn), so before each move the six neighbours are
    checked (:func:`trap_result`); a winning trap is played at once, a losing one only
    when every move is one; otherwise a uniform move (the pie rule's swap drawn first,
    as in :func:`random_playout`, and that draw not reused).  Returns the plies
    played."""
    return _playout(t, state, stream, TRAP)


@kernel
def squeeze_playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray) -> int:
    """:func:`tactical_playout` whose other moves squeeze: when at least two moves are
    not losing traps, a second move is drawn as the first was (uniform, a losing trap
    drawn again) and the one whose point has fewer empty neighbours is played (the
    first on a tie): fewer points next to the pawn for the other side, so the playout
    heads for the traps that decide real games instead of wandering.  Returns the
    plies played."""
    return _playout(t, state, stream, SQUEEZE)


@nb.njit(cache=True)
def playouts(t: np.ndarray, start: np.ndarray, seed: np.uint64, first: np.int64,
             count: np.int64) -> np.ndarray:
    """Random playouts ``first .. first + count - 1`` from ``start``, game ``g``
    drawing from ``rng.game_stream(seed, g)``: the winning seat of each."""
    state = np.empty_like(start)
    winners = np.empty(count, dtype=np.int64)
    for i in range(count):
        stream = rng.game_stream(seed, np.uint64(first + i))
        state[:] = start
        random_playout(t, state, stream)
        winners[i] = winning_seat(t, state)
    return winners


# ---------------------------------------------------------------- agent contract
# (see trilab.solver.mcts: every game's agent kernels share these signatures)

_I64 = types.int64[::1]


@nb.cfunc(types.int64(_I64, _I64, _I64), cache=True)
def mcts_legal(t, state, out):
    if state[S_COUNT] == 0:
        for p in range(t[T_POINTS]):
            out[p] = p
        return t[T_POINTS]
    n = pawn_moves(t, state, out)
    for i in range(n):
        out[i] = _point_of_cell(t, out[i])
    if n > 0 and may_swap(state):
        out[n] = t[T_POINTS]
        n += 1
    return n


@nb.cfunc(types.int64(_I64, _I64, types.int64), cache=True)
def mcts_apply(t, state, action):
    if action == t[T_POINTS]:
        state[S_B_SEAT] = 1
    else:
        place(t, state, _cell_of_point(t, action))
    return 0


@nb.cfunc(types.int64(_I64, _I64), cache=True)
def mcts_seat(t, state):
    return seat_to_move(state)


@nb.cfunc(types.int64(_I64, _I64, types.float64[::1]), cache=True)
def mcts_rewards(t, state, out):
    w = winning_seat(t, state)
    out[w] = 1.0
    out[1 - w] = 0.0
    return 0


@nb.cfunc(types.int64(_I64, _I64, types.uint64[::1], _I64, types.float64[::1]), cache=True)
def mcts_playout(t, state, stream, scratch, out):
    # with an endgame limit (the scratch then holds endgame.scratch_size(limit)), a small
    # pawn region is solved exactly: 0 plies, exact rewards; else a random playout
    if t[T_ENDGAME_LIMIT] > 0:
        won = solve_region(t, state, t[T_ENDGAME_LIMIT], t[T_ENDGAME_NODES], scratch)
        if won >= 0:
            me = seat_to_move(state)
            out[me] = float(won)
            out[1 - me] = float(1 - won)
            return 0
    plies = _playout(t, state, stream, t[T_TACTICS])
    w = winning_seat(t, state)
    out[w] = 1.0
    out[1 - w] = 0.0
    return plies


@nb.cfunc(types.int64(_I64, _I64, types.uint64[::1]), cache=True)
def mcts_chance(t, state, stream):
    return -1  # Trike has no chance events


# ---------------------------------------------------------------- Python API


def new_state(size: int, pie: bool = True) -> np.ndarray:
    """The empty board of side ``size`` (seat 0 to place the opening checker)."""
    t = tables(check_size(size))
    w = int(t[T_WIDTH])
    state = np.full(S_CELLS + w * w + 3 * size, BORDER, dtype=np.int64)
    state[S_CELLS + t[T_CELL_OF_POINT:T_CELL_OF_POINT + t[T_POINTS]]] = EMPTY
    lines = int(t[T_LINES])
    for k in range(size):
        state[lines + k] = 1 << (k + 1)  # row k: points 0..k, sentinel k + 1
        state[lines + size + k] = (1 << k) - 1 | 1 << size  # column k: rows k..size-1
        state[lines + 2 * size + k] = 1 << (size - k)  # diagonal k: points 0..size-1-k
    state[S_PAWN] = -1
    state[S_COUNT] = 0
    state[S_B_SEAT] = 0
    state[S_PIE_RULE] = int(pie)
    return state


def initial_state(size: int, pie: bool = True) -> np.ndarray:
    """The game's first state for the agent contract (:func:`new_state`)."""
    return new_state(size, pie)


def from_position(pos: TrikePosition, pie: bool = True) -> np.ndarray:
    """The state of a position in :mod:`trilab.solver.trike.engine` notation.

    Seat 0 owns ``b`` (no swap so far).  With ``pie``, a position with one
    checker lets the mover swap.
    """
    size = pos.size
    state = new_state(size, pie)
    lines = int(tables(size)[T_LINES])
    for p, (r, c) in enumerate(point_coords(size)):
        cell = S_CELLS + cell_of(size, r, c)
        if (pos.black | pos.white) >> p & 1:
            state[cell] = BLACK if pos.black >> p & 1 else WHITE
            state[lines + r] |= 1 << c
            state[lines + size + c] |= 1 << r
            state[lines + 2 * size + r - c] |= 1 << c
    r, c = point_coords(pos.size)[pos.pawn]
    state[S_PAWN] = cell_of(pos.size, r, c)
    state[S_COUNT] = pos.checkers
    return state


def size_of(state: np.ndarray) -> int:
    """The board side of a state (``len = 4 + (size + 2)**2 + 3 * size``)."""
    for size in range(MIN_SIZE, MAX_SIZE + 1):
        if len(state) == S_CELLS + width(size) ** 2 + 3 * size:
            return size
    raise ValueError(f"a state of {len(state)} numbers is no Trike board")


def legal_points(state: np.ndarray) -> list[int]:
    """The pawn's destinations from ``state`` as point indices (engine order)."""
    t = tables(size_of(state))
    out = np.empty(6 * int(t[T_SIZE]), dtype=np.int64)
    k = pawn_moves(t, state, out)
    return [int(_point_of_cell(t, c)) for c in out[:k]]


def pawn_point(state: np.ndarray) -> int:
    """The pawn's point index (``-1`` before the opening)."""
    if state[S_PAWN] < 0:
        return -1
    return int(_point_of_cell(tables(size_of(state)), state[S_PAWN]))


def black_points(state: np.ndarray) -> tuple[int, int]:
    """``(black, white)`` bitboards (Python ints) of a state."""
    t = tables(size_of(state))
    black = white = 0
    for p in range(int(t[T_POINTS])):
        v = state[S_CELLS + t[T_CELL_OF_POINT + p]]
        if v == BLACK:
            black |= 1 << p
        elif v == WHITE:
            white |= 1 << p
    return black, white


@functools.cache
def agent_game(size: int, endgame_limit: int = 0, endgame_nodes: int = 0,
               tactics: bool = False, squeeze: bool = False):
    """Trike of side ``size`` for the agents (:class:`trilab.solver.mcts.AgentGame`);
    ``endgame_limit > 0``: its playouts solve pawn regions of at most that many points
    exactly (at most ``endgame_nodes`` nodes each), which the search then treats as
    proven nodes (``mcts-solve`` agents, :func:`parse_agent`); ``tactics``: its random
    playouts are :func:`tactical_playout` (``mcts-trap`` agents); ``squeeze``:
    :func:`squeeze_playout` (``mcts-squeeze`` agents)."""

    t = tables(size, endgame_limit, endgame_nodes, tactics, squeeze)
    kernels = AgentKernels(mcts_legal, mcts_apply, mcts_seat, mcts_rewards, mcts_playout,
                           mcts_chance)
    return AgentGame(name="trike", n_seats=2, kernels=kernels, tables=np.array(t),
                     max_actions=int(t[T_POINTS]) + 1,
                     playout_scratch=scratch_size(endgame_limit) if endgame_limit > 0 else 0)


# ---------------------------------------------------------------- agent specs

ENDGAME_LIMIT = 18
"""Pawn regions of at most this many empty points are solved exactly by the
``mcts-solve`` agents (calibrated on sizes 6-8, ``results/trike/calibration/``)."""
ENDGAME_NODES = 20_000
"""Node cap of one endgame solve (a solve that needs more falls back to a random
playout), the same on every board size."""
DEFAULT_AGENT = "mcts-squeeze:1s"
"""The computer of ``trilab play trike`` and ``trilab explore`` unless ``--agent``
says otherwise: the strongest agent, the one calibrated against perfect play
(docs/findings.md), one second a move on one thread."""
AGENT_FORMS = ("mcts:N or mcts:Ns (UCT with random playouts, N simulations or N seconds "
               "a move), mcts-solve:N or mcts-solve:Ns (the same search with exact "
               f"endgames of at most {ENDGAME_LIMIT} empty points; mcts-solve:N:L for L), "
               "mcts-trap:N or mcts-trap:Ns (mcts-solve whose playouts take a winning trap "
               "and avoid a losing one; mcts-trap:N:L), mcts-squeeze:N or mcts-squeeze:Ns "
               "(mcts-trap whose playouts also squeeze: of two moves, the one leaving fewer "
               "empty neighbours; mcts-squeeze:N:L); a budget N@T or Ns@T searches T trees "
               "in parallel threads (mcts-squeeze:0.0084s@2); Ns@Tt grows one tree on T "
               "threads (mcts-squeeze:0.0084s@2t)")


@dataclass(frozen=True)
class TrikeAgent:
    """A Trike agent: the search budget (:class:`trilab.solver.mcts.AgentSpec`), the
    size of the endgames its playouts solve exactly (0: none, plain ``mcts``) and
    whether its playouts are :func:`tactical_playout` (``mcts-trap``) or
    :func:`squeeze_playout` (``mcts-squeeze``, ``tactics`` and ``squeeze``)."""

    text: str
    spec: mcts.AgentSpec
    endgame_limit: int = 0
    endgame_nodes: int = 0
    tactics: bool = False
    squeeze: bool = False

    def game(self, size: int) -> AgentGame:
        """The :class:`AgentGame` this agent searches on a board of side ``size``."""
        return agent_game(size, self.endgame_limit, self.endgame_nodes, self.tactics,
                          self.squeeze)

    def search(self, size: int, state: np.ndarray, stream: np.ndarray,
               max_nodes: int | None = None) -> mcts.SearchResult:
        """One move's search from ``state`` (see :func:`trilab.solver.mcts.search`)."""
        return self.game(size).search(state, self.spec, stream, max_nodes=max_nodes)

    def self_play(self, size: int, moves: tuple[int, ...], stream: np.ndarray
                  ) -> tuple[bool, int]:
        """One game against itself without the pie rule, after the actions ``moves``
        (the opening, perhaps a reply), every search drawing from ``stream``:
        ``(the placer won, plies the agent played)``."""
        game = self.game(size)
        state = new_state(size, pie=False)
        for action in moves:
            game.apply(state, action)
        plies = 0
        while game.legal(state):
            game.apply(state, game.search(state, self.spec, stream).action)
            plies += 1
        return game.rewards(state)[0] == 1.0, plies


def parse_agent(text: str) -> TrikeAgent:
    """``mcts:N``, ``mcts:Ns``, ``mcts-solve:N[:L]``, ``mcts-solve:Ns[:L]``,
    ``mcts-trap:N[:L]``, ``mcts-trap:Ns[:L]``, ``mcts-squeeze:N[:L]`` or
    ``mcts-squeeze:Ns[:L]``, each budget ``N`` or ``Ns`` perhaps
    ``@T`` (T root-parallel threads, :func:`trilab.solver.mcts.search`);
    ``ValueError`` with one line when ``text`` is none of them."""
    text = text.strip()
    name, _, arg = text.partition(":")
    if name == "mcts":
        return TrikeAgent(text, mcts.parse_budget(text, arg))
    if name not in ("mcts-solve", "mcts-trap", "mcts-squeeze"):
        raise ValueError(f"unknown agent {text!r}; agents: {AGENT_FORMS}")
    budget, _, limit_text = arg.partition(":")
    spec = mcts.parse_budget(text, budget)
    limit = ENDGAME_LIMIT
    if limit_text:
        try:
            limit = int(limit_text)
        except ValueError:
            raise ValueError(f"agent {text!r}: the endgame size L must be a whole number "
                             f"of points, not {limit_text!r}") from None
        if not 1 <= limit <= MAX_ENDGAME_LIMIT:
            raise ValueError(f"agent {text!r}: the endgame size L must be 1..{MAX_ENDGAME_LIMIT}")
    return TrikeAgent(text, spec, limit, ENDGAME_NODES, name != "mcts-solve",
                      name == "mcts-squeeze")
