"""Tabula Trivium: the Monte Carlo policies (random, greedy, lookahead:D) as Numba kernels.

Contract: :func:`choose_turn` writes the full turn ``(pf, pt, pc, sf, st)``
(columns :data:`~trilab.solver.tabula_trivium.rules.T_PF` ..
:data:`~trilab.solver.tabula_trivium.rules.T_ST`; ``sf = st = -1``: no stone
movement) that a seat's policy plays from a position where it has a pawn
movement.  Every draw comes from the game's stream
:func:`trilab.solver.rng.game_stream`; the policies (one per seat, **[choice]**
marks a decision of this project):

* ``random``: one draw ``below(n)`` picks a pawn movement uniformly from the
  list; if the game goes on and the stone list of the resulting position is
  non-empty, a second draw picks a stone movement uniformly.  A draw is made
  whenever the list is non-empty, even with one entry.
* ``greedy``: classes the pawn movements: winning captures (an opponent's
  last pawn or last stone) > other captures of opponent pieces > steps >
  captures of its own pieces (taken only when forced).  It keeps the best
  non-empty class and lists the full turns (those pawn movements times the
  stone movements that follow) in list order, each classed: *win* (the
  opponent has lost: out of pawns/stones, or no pawn movement at the start of
  its turn) > *safe* (no opponent pawn movement would capture one of the
  mover's pawns or stones) > *unsafe* > *lose* (the mover captured its own
  last pawn/stone).  One draw picks uniformly among the turns of the best
  class present.
* ``lookahead:D`` (1 <= D <= :data:`MAX_DEPTH`): negamax alpha-beta over full
  turns, D turns deep (D = 1: the mover's turn then evaluate).  The root's
  full turns are first shuffled with a Fisher-Yates pass (``for i = n-1 ..
  1: swap(i, below(i + 1))``, n - 1 draws); the first turn of maximal value
  in that order is played, so ties are broken uniformly.  Leaves are scored
  for the side to move by :func:`evaluate` **[choice]**: ``PAWN_VALUE * pawn
  difference + STONE_VALUE * stone difference + MOBILITY_VALUE * difference
  in the number of legal pawn movements``.  A position decided ``k`` turns
  below the root scores ``+-(WIN_SCORE - k)`` (faster wins, slower losses).
  The search ignores repetition and the ply cap.  Values are exact integers,
  so the choice does not depend on the move ordering used for pruning.
* ``mcts:N`` (1 <= N <= :data:`MAX_SIMULATIONS`): the Monte Carlo tree search
  of :mod:`trilab.solver.mcts` (UCT + MCTS-Solver, random playouts) with N
  simulations per turn, on the agent kernels of
  :mod:`trilab.solver.tabula_trivium.agents` (draws 0.5, repetition and ply cap
  included).  It is played by the game loop
  (:func:`trilab.solver.tabula_trivium.game.play_game`), not by :func:`choose_turn`, and
  draws from the game's stream like the others.
* ``mcts-greedy:N`` (1 <= N <= :data:`MAX_SIMULATIONS`): the same search
  whose playouts are played by ``greedy`` for both seats to the end of the
  game (its draws, from the same stream) instead of uniformly random turns;
  also played by the game loop.
* ``mcts-greedy:N:K`` (1 <= K <= :data:`MAX_PLAYOUT_PLIES`): ``mcts-greedy:N``
  whose playouts stop after K turns, a game that goes on then being scored
  from the material (:func:`evaluate` squashed to [0, 1], see
  :func:`trilab.solver.tabula_trivium.agents.material_rewards`) **[choice]**: greedy
  playouts to the end are slow (from the setup about 380 turns, 86 to 89
  games in 100 reaching the ply cap of 400) and their draws say little.  Measured (20
  games in each seat order, seed 1): ``mcts-greedy:40`` loses all 40 to
  ``greedy``, ``mcts-greedy:200:4`` wins all 40.  The searches with greedy
  playouts expand a node only once it has as many visits as legal turns
  (:data:`trilab.solver.tabula_trivium.agents.GREEDY_EXPAND`, issue 24): with
  the plain UCT rule more simulations were weaker (``mcts-greedy:1000:4`` won
  26 of 40, ``mcts-greedy:3000:4`` 18 of 40), as an expanded node's mean
  averaged over uniformly random replies instead of the greedy one.

Full turns are listed by pawn movement (list order), then stone movement
(list order).  A turn whose pawn movement ends the game, or after which no
stone can move, has no stone movement.

Buffers: every kernel works in a :class:`Workspace` made by
:func:`new_workspace`, or carved by :func:`workspace_in` out of
:data:`WORKSPACE_SIZE` numbers of a caller's ``int64`` buffer (the kernels
allocate nothing).  Its ``turns`` rows are full turns plus a greedy class
column :data:`T_CLASS`; its ``stack`` has one row per search level with the
columns :data:`S_N_PAWN` .. :data:`S_SIDE`.
"""

from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.bitboard import bit, popcount
from trilab.solver.jit import kernel
from trilab.solver.tabula_trivium.board import MAX_PAWN_MOVES, MAX_STONE_MOVES, MAX_TURNS
from trilab.solver.tabula_trivium.rules import (
    M_CAP,
    M_FROM,
    M_TO,
    T_PC,
    T_PF,
    T_PT,
    T_SF,
    T_ST,
    TURN_SIZE,
    apply_pawn_move,
    apply_stone_move,
    can_capture,
    copy4,
    count_pawn_moves,
    has_pawn_move,
    material_status,
    pawn_moves,
    seat_bit,
    stone_moves,
)

PAWN_VALUE = 100
"""[choice] Evaluation weight of a pawn (lookahead policy)."""
STONE_VALUE = 60
"""[choice] Evaluation weight of a stone (lookahead policy)."""
MOBILITY_VALUE = 2
"""[choice] Evaluation weight of one legal pawn movement (lookahead policy)."""
WIN_SCORE = 1_000_000
"""Score of a decided position (minus its distance in turns from the root)."""
INF = 1 << 40
MAX_DEPTH = 4
"""Deepest lookahead accepted by :func:`parse_policy`."""
MAX_SIMULATIONS = 10_000_000
"""Most MCTS simulations per turn accepted by :func:`parse_policy`."""
MAX_PLAYOUT_PLIES = 10_000
"""Longest playout cutoff K of ``mcts-greedy:N:K`` (one beyond the ply cap plays to the
end)."""

POLICY_RANDOM, POLICY_GREEDY, POLICY_LOOKAHEAD, POLICY_MCTS, POLICY_MCTS_GREEDY = range(5)
POLICIES = {
    "random": "uniform pawn movement, then uniform stone movement",
    "greedy": "captures (winning ones first), else a turn leaving nothing capturable, else any",
    "lookahead:D": f"depth-D alpha-beta over full turns (1 <= D <= {MAX_DEPTH}), "
    "material + pawn mobility, ties random",
    "mcts:N": "Monte Carlo tree search (UCT + solver, random playouts), N simulations per turn",
    "mcts-greedy:N": "Monte Carlo tree search (UCT + solver) with greedy playouts, "
    "N simulations per turn",
    "mcts-greedy:N:K": f"mcts-greedy:N, playouts cut after K turns (1 <= K <= "
    f"{MAX_PLAYOUT_PLIES}) and scored by material",
}
POLICY_FORMS = (f"random, greedy, lookahead:D (1 <= D <= {MAX_DEPTH}), "
                f"mcts:N, mcts-greedy:N (1 <= N <= {MAX_SIMULATIONS}) "
                f"or mcts-greedy:N:K (1 <= K <= {MAX_PLAYOUT_PLIES})")
MCTS_NAMES = {"mcts": POLICY_MCTS, "mcts-greedy": POLICY_MCTS_GREEDY}
"""The tree-search policy names (before ``:N``) and their kinds."""

# Greedy classes of pawn movements and of full turns.
PCAT_OWN, PCAT_STEP, PCAT_CAPTURE, PCAT_WINNING = 0, 1, 2, 3
CLASS_LOSE, CLASS_UNSAFE, CLASS_SAFE, CLASS_WIN = 0, 1, 2, 3

T_CLASS = TURN_SIZE
"""Column of a ``turns`` row after the turn itself: its greedy class."""
TURN_COLS = TURN_SIZE + 1

# Columns of the search stack (one row per level, i.e. per full turn below the root).
S_N_PAWN, S_PAWN, S_N_STONE, S_STONE, S_ALPHA, S_BETA, S_BEST, S_SIDE = range(8)
"""Pawn movements of the level, the current one (index), the stone movements after
it, the next one to try, the window, the best value so far and the side to move."""
STACK_COLS = 8


class Workspace(NamedTuple):
    """Preallocated buffers of the policies and the search (see :func:`new_workspace`)."""

    pawn_moves: np.ndarray  # int64[MAX_PAWN_MOVES, 3]: a pawn movement list
    stone_moves: np.ndarray  # int64[MAX_STONE_MOVES, 2]: a stone movement list
    turns: np.ndarray  # int64[MAX_TURNS, TURN_COLS]: full turns and their greedy class
    pawn_class: np.ndarray  # int64[MAX_PAWN_MOVES]: greedy class of each pawn movement
    after: np.ndarray  # uint64[4]: the position after a pawn movement
    child: np.ndarray  # uint64[4]: the position after a full turn
    stack_pieces: np.ndarray  # uint64[MAX_DEPTH + 1, 4]: the position of each level
    stack_after: np.ndarray  # uint64[MAX_DEPTH + 1, 4]: it after the current pawn movement
    stack_pawn_moves: np.ndarray  # int64[MAX_DEPTH + 1, MAX_PAWN_MOVES, 3]: ordered
    stack_stone_moves: np.ndarray  # int64[MAX_DEPTH + 1, MAX_STONE_MOVES, 2]
    stack: np.ndarray  # int64[MAX_DEPTH + 1, STACK_COLS]: columns S_N_PAWN .. S_SIDE


@nb.njit(cache=True)
def new_workspace() -> Workspace:
    """The buffers of the policies and the search (one workspace per kernel call)."""
    return Workspace(
        np.empty((MAX_PAWN_MOVES, 3), dtype=np.int64),
        np.empty((MAX_STONE_MOVES, 2), dtype=np.int64),
        np.empty((MAX_TURNS, TURN_COLS), dtype=np.int64),
        np.empty(MAX_PAWN_MOVES, dtype=np.int64),
        np.empty(4, dtype=np.uint64),
        np.empty(4, dtype=np.uint64),
        np.empty((MAX_DEPTH + 1, 4), dtype=np.uint64),
        np.empty((MAX_DEPTH + 1, 4), dtype=np.uint64),
        np.empty((MAX_DEPTH + 1, MAX_PAWN_MOVES, 3), dtype=np.int64),
        np.empty((MAX_DEPTH + 1, MAX_STONE_MOVES, 2), dtype=np.int64),
        np.empty((MAX_DEPTH + 1, STACK_COLS), dtype=np.int64),
    )


_LEVELS = MAX_DEPTH + 1
# Offsets of the Workspace fields in a flat int64 buffer (workspace_in), in field order.
WS_PAWN_MOVES = 0
WS_STONE_MOVES = WS_PAWN_MOVES + MAX_PAWN_MOVES * 3
WS_TURNS = WS_STONE_MOVES + MAX_STONE_MOVES * 2
WS_PAWN_CLASS = WS_TURNS + MAX_TURNS * TURN_COLS
WS_AFTER = WS_PAWN_CLASS + MAX_PAWN_MOVES
WS_CHILD = WS_AFTER + 4
WS_STACK_PIECES = WS_CHILD + 4
WS_STACK_AFTER = WS_STACK_PIECES + _LEVELS * 4
WS_STACK_PAWN_MOVES = WS_STACK_AFTER + _LEVELS * 4
WS_STACK_STONE_MOVES = WS_STACK_PAWN_MOVES + _LEVELS * MAX_PAWN_MOVES * 3
WS_STACK = WS_STACK_STONE_MOVES + _LEVELS * MAX_STONE_MOVES * 2
WORKSPACE_SIZE = WS_STACK + _LEVELS * STACK_COLS
"""``int64`` numbers of a :class:`Workspace` carved by :func:`workspace_in`."""


@kernel(inline="always")
def workspace_in(buf: np.ndarray) -> Workspace:
    """A :class:`Workspace` of views into ``buf`` (``int64``, contiguous, at least
    :data:`WORKSPACE_SIZE` numbers; the ``uint64`` fields reinterpret their numbers), the
    same shapes as :func:`new_workspace`; nothing is allocated or initialised."""
    return Workspace(
        buf[WS_PAWN_MOVES:WS_STONE_MOVES].reshape((MAX_PAWN_MOVES, 3)),
        buf[WS_STONE_MOVES:WS_TURNS].reshape((MAX_STONE_MOVES, 2)),
        buf[WS_TURNS:WS_PAWN_CLASS].reshape((MAX_TURNS, TURN_COLS)),
        buf[WS_PAWN_CLASS:WS_AFTER],
        buf[WS_AFTER:WS_CHILD].view(np.uint64),
        buf[WS_CHILD:WS_STACK_PIECES].view(np.uint64),
        buf[WS_STACK_PIECES:WS_STACK_AFTER].view(np.uint64).reshape((_LEVELS, 4)),
        buf[WS_STACK_AFTER:WS_STACK_PAWN_MOVES].view(np.uint64).reshape((_LEVELS, 4)),
        buf[WS_STACK_PAWN_MOVES:WS_STACK_STONE_MOVES].reshape((_LEVELS, MAX_PAWN_MOVES, 3)),
        buf[WS_STACK_STONE_MOVES:WS_STACK].reshape((_LEVELS, MAX_STONE_MOVES, 2)),
        buf[WS_STACK:WORKSPACE_SIZE].reshape((_LEVELS, STACK_COLS)),
    )


# ------------------------------------------------------------------ greedy


@kernel(inline="always")
def pawn_category(pieces: np.ndarray, side: int, c: int) -> int:
    """Greedy class of a pawn movement capturing ``c`` (-1: none)."""
    if c < 0:
        return PCAT_STEP
    opp = 1 - side
    b = bit(c)
    if (pieces[2 * opp] & b) != np.uint64(0):
        return PCAT_WINNING if popcount(pieces[2 * opp]) == 1 else PCAT_CAPTURE
    if (pieces[2 * opp + 1] & b) != np.uint64(0):
        return PCAT_WINNING if popcount(pieces[2 * opp + 1]) == 1 else PCAT_CAPTURE
    return PCAT_OWN


@kernel(inline="always")
def turn_class(nbr: np.ndarray, pieces: np.ndarray, side: int) -> int:
    """Greedy class of the position after a full turn of ``side`` (game not decided)."""
    opp = 1 - side
    if not has_pawn_move(nbr, pieces, opp):
        return CLASS_WIN
    if can_capture(nbr, pieces, opp, side):
        return CLASS_UNSAFE
    return CLASS_SAFE


ALL_PAWN_MOVES = np.int64(-1)
"""``want`` of :func:`full_turns`: every pawn movement (a typed global, not a literal)."""
CLASSIFY = np.bool_(True)
NO_CLASSES = np.bool_(False)


@kernel
def full_turns(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
               side: int, pm: np.ndarray, n_pm: int, pcat: np.ndarray, want: int,
               classify: bool, ws: Workspace) -> int:
    """List the full turns ``(pf, pt, pc, sf, st, class)`` built on the pawn movements
    ``pm[i]`` with ``pcat[i] == want`` (all of them when ``want < 0``) into
    ``ws.turns``, in list order; ``sf = st = -1`` for no stone movement.  The class
    (greedy) is computed when ``classify``; return the count.

    Callers pass ``want`` and ``classify`` as variables (:data:`ALL_PAWN_MOVES`,
    :data:`CLASSIFY`, :data:`NO_CLASSES`), never as literals: Numba compiles a kernel
    once per argument type, and ``-1``, ``True`` and a loop variable initialised to
    ``0`` are each a type of their own (``Literal[int](-1)``, ...); this kernel was
    compiled 6 times (11 s of a cold Tabula Trivium compile), now once."""
    sbuf, turns, after, child = ws.stone_moves, ws.turns, ws.after, ws.child
    n = 0
    for i in range(n_pm):
        if want >= 0 and pcat[i] != want:
            continue
        copy4(pieces, after)
        apply_pawn_move(after, side, pm[i, M_FROM], pm[i, M_TO], pm[i, M_CAP])
        w, r = material_status(after)
        ns = 0
        if r < 0:
            ns = stone_moves(rays, after, side, sbuf)
        for j in range(max(ns, 1)):
            turns[n, T_PF] = pm[i, M_FROM]
            turns[n, T_PT] = pm[i, M_TO]
            turns[n, T_PC] = pm[i, M_CAP]
            turns[n, T_SF] = -1
            turns[n, T_ST] = -1
            turns[n, T_CLASS] = 0
            if r >= 0:
                turns[n, T_CLASS] = CLASS_WIN if w == seat_bit(side) else CLASS_LOSE
            elif ns == 0:
                if classify:
                    turns[n, T_CLASS] = turn_class(nbr, after, side)
            else:
                turns[n, T_SF] = sbuf[j, M_FROM]
                turns[n, T_ST] = sbuf[j, M_TO]
                if classify:
                    copy4(after, child)
                    apply_stone_move(child, side, sbuf[j, M_FROM], sbuf[j, M_TO])
                    turns[n, T_CLASS] = turn_class(nbr, child, side)
            n += 1
    return n


# ------------------------------------------------------------------ random and greedy turns


@kernel
def random_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, st: np.ndarray, ws: Workspace, out: np.ndarray) -> None:
    """The ``random`` policy: write ``(pf, pt, pc, sf, st)`` into ``out``."""
    pbuf, sbuf, after = ws.pawn_moves, ws.stone_moves, ws.after
    n = pawn_moves(nbr, mid, pieces, side, pbuf)
    k = rng.below(st, n)
    out[T_PF] = pbuf[k, M_FROM]
    out[T_PT] = pbuf[k, M_TO]
    out[T_PC] = pbuf[k, M_CAP]
    out[T_SF] = -1
    out[T_ST] = -1
    copy4(pieces, after)
    apply_pawn_move(after, side, out[T_PF], out[T_PT], out[T_PC])
    if material_status(after)[1] >= 0:
        return
    ns = stone_moves(rays, after, side, sbuf)
    if ns > 0:
        k = rng.below(st, ns)
        out[T_SF] = sbuf[k, M_FROM]
        out[T_ST] = sbuf[k, M_TO]


@kernel(inline="always")
def copy_turn(turns: np.ndarray, i: int, out: np.ndarray) -> None:
    """``out[:TURN_SIZE] = turns[i, :TURN_SIZE]`` (the turn without its class)."""
    for c in range(TURN_SIZE):
        out[c] = turns[i, c]


@kernel
def greedy_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, st: np.ndarray, ws: Workspace, out: np.ndarray) -> None:
    """The ``greedy`` policy (see the module docstring): one draw."""
    pbuf, turns, pcat = ws.pawn_moves, ws.turns, ws.pawn_class
    n_pm = pawn_moves(nbr, mid, pieces, side, pbuf)
    want = np.int64(0)  # not a literal 0: see full_turns
    for i in range(n_pm):
        pcat[i] = pawn_category(pieces, side, pbuf[i, M_CAP])
        want = max(want, pcat[i])
    n = full_turns(nbr, mid, rays, pieces, side, pbuf, n_pm, pcat, want, CLASSIFY, ws)
    best = 0
    for i in range(n):
        best = max(best, turns[i, T_CLASS])
    count = 0
    for i in range(n):
        if turns[i, T_CLASS] == best:
            count += 1
    k = rng.below(st, count)
    for i in range(n):
        if turns[i, T_CLASS] == best:
            if k == 0:
                copy_turn(turns, i, out)
                return
            k -= 1


# ------------------------------------------------------------------ lookahead


@kernel
def evaluate(nbr: np.ndarray, pieces: np.ndarray, side: int, mobility: int) -> int:
    """Static score for ``side`` to move (``mobility`` = its pawn movements, > 0)."""
    opp = 1 - side
    return (
        PAWN_VALUE * (popcount(pieces[2 * side]) - popcount(pieces[2 * opp]))
        + STONE_VALUE * (popcount(pieces[2 * side + 1]) - popcount(pieces[2 * opp + 1]))
        + MOBILITY_VALUE * (mobility - count_pawn_moves(nbr, pieces, opp))
    )


@kernel
def leaf_value(nbr: np.ndarray, pieces: np.ndarray, side: int, dist: int) -> int:
    """Value for ``side`` to move at a leaf ``dist`` turns below the root."""
    mob = count_pawn_moves(nbr, pieces, side)
    if mob == 0:
        return -(WIN_SCORE - dist)
    return evaluate(nbr, pieces, side, mob)


@kernel
def _open_level(nbr: np.ndarray, mid: np.ndarray, ws: Workspace, level: int, side: int,
                alpha: int, beta: int) -> None:
    """Start the node ``ws.stack_pieces[level]``: pawn movements with opponent captures
    first."""
    pbuf, s_pm, s = ws.pawn_moves, ws.stack_pawn_moves, ws.stack
    pcs = ws.stack_pieces[level]
    n = pawn_moves(nbr, mid, pcs, side, pbuf)
    opp_pieces = pcs[2 * (1 - side)] | pcs[2 * (1 - side) + 1]
    k = 0
    for first in (True, False):
        for i in range(n):
            c = pbuf[i, M_CAP]
            cap = c >= 0 and (opp_pieces & bit(c)) != np.uint64(0)
            if cap == first:
                s_pm[level, k, M_FROM] = pbuf[i, M_FROM]
                s_pm[level, k, M_TO] = pbuf[i, M_TO]
                s_pm[level, k, M_CAP] = c
                k += 1
    s[level, S_N_PAWN] = n
    s[level, S_PAWN] = -1
    s[level, S_N_STONE] = 0
    s[level, S_STONE] = 0
    s[level, S_ALPHA] = alpha
    s[level, S_BETA] = beta
    s[level, S_BEST] = -INF
    s[level, S_SIDE] = side


@kernel
def search(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, root: np.ndarray, side: int,
           depth: int, alpha: int, beta: int, dist0: int, ws: Workspace) -> int:
    """Fail-soft negamax alpha-beta value of ``root`` for ``side`` to move, ``depth``
    >= 1 full turns deep, ``dist0`` turns below the decision.  ``root`` must be
    undecided (material present, ``side`` has a pawn movement).  Explicit stack, no
    recursion; values are exact inside ``(alpha, beta)``."""
    s_pcs, s_post, s_pm, s_sm, s = (ws.stack_pieces, ws.stack_after, ws.stack_pawn_moves,
                                    ws.stack_stone_moves, ws.stack)
    copy4(root, s_pcs[0])
    _open_level(nbr, mid, ws, np.int64(0), side, alpha, beta)
    lv = 0
    while True:
        me = s[lv, S_SIDE]
        have_child = False
        v = 0
        if s[lv, S_STONE] < s[lv, S_N_STONE]:
            j = s[lv, S_STONE]
            s[lv, S_STONE] = j + 1
            copy4(s_post[lv], s_pcs[lv + 1])
            apply_stone_move(s_pcs[lv + 1], me, s_sm[lv, j, M_FROM], s_sm[lv, j, M_TO])
            have_child = True
        else:
            i = s[lv, S_PAWN] + 1
            s[lv, S_PAWN] = i
            s[lv, S_N_STONE] = 0
            s[lv, S_STONE] = 0
            if i >= s[lv, S_N_PAWN]:  # all children seen
                if lv == 0:
                    return s[0, S_BEST]
                v = -s[lv, S_BEST]
                lv -= 1
            else:
                post = s_post[lv]
                copy4(s_pcs[lv], post)
                apply_pawn_move(post, me, s_pm[lv, i, M_FROM], s_pm[lv, i, M_TO],
                                s_pm[lv, i, M_CAP])
                w, r = material_status(post)
                if r >= 0:
                    decided = WIN_SCORE - (dist0 + lv + 1)
                    v = decided if w == seat_bit(me) else -decided
                else:
                    ns = stone_moves(rays, post, me, s_sm[lv])
                    s[lv, S_N_STONE] = ns
                    if ns > 0:
                        continue
                    copy4(post, s_pcs[lv + 1])
                    have_child = True
        if have_child:
            opp = 1 - me
            cdist = dist0 + lv + 1
            if depth - lv - 1 == 0:
                v = -leaf_value(nbr, s_pcs[lv + 1], opp, cdist)
            elif not has_pawn_move(nbr, s_pcs[lv + 1], opp):
                v = WIN_SCORE - cdist
            else:
                _open_level(nbr, mid, ws, lv + 1, opp, -s[lv, S_BETA], -s[lv, S_ALPHA])
                lv += 1
                continue
        # deliver v to level lv, popping finished (cut-off) levels
        while True:
            if v > s[lv, S_BEST]:
                s[lv, S_BEST] = v
            if v > s[lv, S_ALPHA]:
                s[lv, S_ALPHA] = v
            if s[lv, S_ALPHA] < s[lv, S_BETA]:
                break
            if lv == 0:
                return s[0, S_BEST]
            v = -s[lv, S_BEST]
            lv -= 1


@kernel
def lookahead_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                   side: int, depth: int, st: np.ndarray, ws: Workspace,
                   out: np.ndarray) -> None:
    """The ``lookahead:depth`` policy (see the module docstring)."""
    pbuf, turns, pcat, child = ws.pawn_moves, ws.turns, ws.pawn_class, ws.child
    n_pm = pawn_moves(nbr, mid, pieces, side, pbuf)
    pcat[:n_pm] = 0
    n = full_turns(nbr, mid, rays, pieces, side, pbuf, n_pm, pcat, ALL_PAWN_MOVES,
                   NO_CLASSES, ws)
    for i in range(n - 1, 0, -1):
        j = rng.below(st, i + 1)
        for c in range(TURN_SIZE):
            turns[i, c], turns[j, c] = turns[j, c], turns[i, c]
    opp = 1 - side
    best = -INF
    bi = 0
    for i in range(n):
        copy4(pieces, child)
        apply_pawn_move(child, side, turns[i, T_PF], turns[i, T_PT], turns[i, T_PC])
        w, r = material_status(child)
        if r >= 0:
            v = WIN_SCORE - 1 if w == seat_bit(side) else -(WIN_SCORE - 1)
        else:
            if turns[i, T_SF] >= 0:
                apply_stone_move(child, side, turns[i, T_SF], turns[i, T_ST])
            if depth == 1:
                v = -leaf_value(nbr, child, opp, np.int64(1))
            elif not has_pawn_move(nbr, child, opp):
                v = WIN_SCORE - 1
            else:
                v = -search(nbr, mid, rays, child, opp, depth - 1, -INF, -best, 1, ws)
        if v > best:
            best = v
            bi = i
    copy_turn(turns, bi, out)


@kernel
def choose_turn(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int, kind: int, depth: int, st: np.ndarray, ws: Workspace,
                out: np.ndarray) -> None:
    """Write the turn ``(pf, pt, pc, sf, st)`` chosen by the policy into ``out``.

    ``side`` must have a pawn movement.  ``sf = st = -1``: no stone movement.
    ``kind`` is random, greedy or lookahead (``mcts:N`` and ``mcts-greedy:N`` are played
    by the game loop)."""
    if kind == POLICY_RANDOM:
        random_turn(nbr, mid, rays, pieces, side, st, ws, out)
    elif kind == POLICY_GREEDY:
        greedy_turn(nbr, mid, rays, pieces, side, st, ws, out)
    else:
        lookahead_turn(nbr, mid, rays, pieces, side, depth, st, ws, out)


# ------------------------------------------------------------------ names


class PolicySpec(NamedTuple):
    """A parsed policy name (:func:`parse_policy_spec`)."""

    kind: int  # POLICY_RANDOM .. POLICY_MCTS_GREEDY
    arg: int  # the depth of lookahead:D, the simulations of mcts:N / mcts-greedy:N, else 0
    playout_plies: int  # K of mcts-greedy:N:K, else 0 (playouts to the end)


def _bounded(text: str, high: int) -> bool:
    """``text`` is an ASCII integer in ``1 .. high``."""
    return text.isascii() and text.isdigit() and 1 <= int(text) <= high


def parse_policy_spec(text: str) -> PolicySpec:
    """The :class:`PolicySpec` of a policy name; ``ValueError`` with one line if it is
    none."""
    if not isinstance(text, str):
        raise ValueError(f"policy must be a string, got {text!r}")
    name = text.strip()
    if name == "random":
        return PolicySpec(POLICY_RANDOM, 0, 0)
    if name == "greedy":
        return PolicySpec(POLICY_GREEDY, 0, 0)
    if name.startswith("lookahead:"):
        arg = name.split(":", 1)[1]
        if not arg.isdigit() or not 1 <= int(arg) <= MAX_DEPTH:
            raise ValueError(
                f"bad lookahead depth {arg!r} in {name!r}: expected an integer 1..{MAX_DEPTH}"
            )
        return PolicySpec(POLICY_LOOKAHEAD, int(arg), 0)
    head, colon, arg = name.partition(":")
    if colon and head in MCTS_NAMES:
        cut = ""
        if head == "mcts-greedy" and ":" in arg:
            arg, _, cut = arg.partition(":")
            if not _bounded(cut, MAX_PLAYOUT_PLIES):
                raise ValueError(
                    f"bad {head} playout cutoff {cut!r} in {name!r}: expected an integer "
                    f"1..{MAX_PLAYOUT_PLIES} (turns before the material score)"
                )
        if arg.endswith("s") and arg[:-1].replace(".", "", 1).isdigit():
            raise ValueError(
                f"bad {head} simulations {arg!r} in {name!r}: a time budget is not "
                f"reproducible in a study; give simulations per turn, {head}:N"
            )
        if not _bounded(arg, MAX_SIMULATIONS):
            raise ValueError(
                f"bad {head} simulations {arg!r} in {name!r}: expected an integer "
                f"1..{MAX_SIMULATIONS}"
            )
        return PolicySpec(MCTS_NAMES[head], int(arg), int(cut) if cut else 0)
    raise ValueError(f"unknown policy {name!r}: expected {POLICY_FORMS}")


def parse_policy(text: str) -> tuple[int, int]:
    """``(kind, arg)`` of a policy name (:class:`PolicySpec` without the playout
    cutoff): ``arg`` is the depth of ``lookahead:D``, the simulations of ``mcts:N`` and
    ``mcts-greedy:N[:K]``, else 0; ``ValueError`` with one line if it is none."""
    spec = parse_policy_spec(text)
    return spec.kind, spec.arg
