"""Tabula Trivium for the agents: the agent kernels of :mod:`trilab.solver.mcts`.

Same rules as :mod:`trilab.solver.tabula_trivium.game` (read its docstring): the
kernels here call the rule kernels of :mod:`trilab.solver.tabula_trivium.rules`
(movement destinations and lists, captures, results, Zobrist hashes, move
codes) on a state array, so that the one compiled MCTS of
:mod:`trilab.solver.mcts` plays the game like any other.

State (one ``int64`` array, columns named ``S_*``; :func:`state_size` numbers):

* ``S_PIECES .. S_PIECES + 3``: the four bitboards of the engine, seat-0
  pawns, seat-0 stones, seat-1 pawns, seat-1 stones (bit ``i`` = node ``i``;
  37 bits, so the ``int64`` holds the ``uint64`` value unchanged; the kernels
  read them through a ``uint64`` view);
* ``S_SIDE``: the seat to move (0 or 1);
* ``S_PLY``: turns played so far (one turn = one ply);
* ``S_PLY_CAP``: the ply cap of the game (a draw once ``S_PLY`` reaches it);
* ``S_SINCE``: the ply of the last capture (0 if none): the first history
  entry the repetition rule compares, since no earlier position can recur;
* ``S_WINNERS``: the winners bitmask of a finished game (0 for a draw);
* ``S_REASON``: the index of the end reason in
  :data:`~trilab.solver.tabula_trivium.rules.END_REASONS`, ``-1`` while the
  game goes on (so the end rules are applied when a turn is played, and
  ``legal`` only reads this column);
* ``S_HIST + k`` for ``k = 0 .. S_PLY``: the Zobrist hash (board and side to
  move, ``uint64`` bits) of the position after ``k`` turns; entries before
  ``S_SINCE`` are never read.  The array has ``S_HIST + ply_cap + 1`` entries.

End rules, as in :func:`trilab.solver.tabula_trivium.game.play_game`: right after a
pawn movement, a seat out of stones or pawns loses (no stone movement then);
after a complete turn, a position occurring :data:`REPETITION_LIMIT` times
since the last capture draws ("repetition"); then, at the start of the next
turn, a seat without pawn movement loses ("pawns blocked") and otherwise the
game is drawn if ``ply_cap`` turns were played ("ply cap").

Actions: one action is one full turn (pawn movement, then the stone movement
or none), identified by its move code
:func:`~trilab.solver.tabula_trivium.rules.turn_code` (the code the game's
move digest folds, ``< 2**30``): a stable id, independent of list order, that
``apply`` decodes in constant time.  ``legal`` lists them in the order of
:func:`~trilab.solver.tabula_trivium.policies.full_turns` (pawn movements by
``(from, to)``, then stone movements by ``(from, to)``; a turn whose pawn
movement ends the game, or after which no stone can move, has none).

Rewards: 1 to the winner, 0 to the loser; a draw (ply cap or repetition)
gives 0.5 to each seat.  The playout plays one policy of
:mod:`trilab.solver.tabula_trivium.policies` for both seats to the end of
the game, chosen by the table's :data:`TB_PLAYOUT` number:
:data:`PLAYOUT_RANDOM` (the ``random`` policy: uniform pawn movement, then
uniform stone movement) or :data:`PLAYOUT_GREEDY` (the ``greedy`` policy,
random among equals), with the policy's own draws from the stream, so a
playout from :func:`initial_state` is the engine's random-vs-random (or
greedy-vs-greedy) game of that stream.  A greedy playout stops early after
the table's :data:`TB_PLAYOUT_PLIES` turns when that number is positive
(``mcts-greedy:N:K``); a game that goes on is then scored from the material
by :func:`material_rewards` (in ``(0, 1)``, summing to 1), so the search sees
estimates rather than results there (only finished games are proven).  No
chance nodes: ``seat`` is the side to move, ``chance`` -1.

Tables (one flat ``int64`` array, named offsets ``TB_*``): the neighbour
table ``nbr[N_NODES, N_DIRS]`` at :data:`TB_NBR`, the rays
``rays[N_NODES, N_DIRS, MAX_RAY]`` at :data:`TB_RAYS`, the middle nodes
``mid[N_NODES, N_NODES]`` at :data:`TB_MID` (all from
:func:`trilab.solver.tabula_trivium.board.tables`, row-major) and the Zobrist
keys of :func:`~trilab.solver.tabula_trivium.rules.zobrist_keys` (``uint64``
bits) at :data:`TB_KEYS`, then the playout policy at :data:`TB_PLAYOUT` and
its cutoff at :data:`TB_PLAYOUT_PLIES`; :data:`TABLES_SIZE` numbers in all.
The kernels take views of them by offset (no copy).  So the same six cfuncs
(:data:`KERNELS`) serve every playout: ``agent_game(playout=...)`` and the
game loop (:func:`mcts_turn`) set the two fields.
"""

from __future__ import annotations

import functools
import math

import numba as nb
import numpy as np
from trilab.solver import mcts, rng
from trilab.solver.bitboard import bit
from trilab.solver.bitboard import lowest_bit_index as lowest_bit
from trilab.solver.game_api import (
    APPLY_SIG,
    CHANCE_SIG,
    LEGAL_SIG,
    PLAYOUT_SIG,
    REWARDS_SIG,
    SEAT_SIG,
    AgentKernels,
)
from trilab.solver.jit import kernel
from trilab.solver.mcts import AgentGame, MctsWork
from trilab.solver.tabula_trivium.board import (
    MAX_PAWN_MOVES,
    MAX_RAY,
    MAX_STONE_MOVES,
    MAX_TURNS,
    N_DIRS,
    N_NODES,
    Pieces,
    initial_pieces,
    tables,
)
from trilab.solver.tabula_trivium.policies import (
    ALL_PAWN_MOVES,
    MAX_PLAYOUT_PLIES,
    NO_CLASSES,
    PAWN_VALUE,
    WORKSPACE_SIZE,
    evaluate,
    full_turns,
    greedy_turn,
    new_workspace,
    workspace_in,
)
from trilab.solver.tabula_trivium.rules import (
    CODE_BASE,
    DEFAULT_PLY_CAP,
    M_CAP,
    M_FROM,
    M_TO,
    R_PLY_CAP,
    R_REPETITION,
    REPETITION_LIMIT,
    SIDE_KEY,
    T_PC,
    T_PF,
    T_PT,
    T_SF,
    T_ST,
    TURN_SIZE,
    apply_pawn_move,
    apply_stone_move,
    count_pawn_moves,
    drop_lowest,
    material_status,
    occupied,
    pawn_destinations,
    pawn_moves,
    status,
    stone_destinations,
    stone_moves,
    turn_code,
    zobrist,
    zobrist_keys,
)

# ------------------------------------------------------------------ layouts

S_PIECES = 0
"""First of the four bitboard columns (seat-0 pawns, seat-0 stones, seat-1 pawns,
seat-1 stones)."""
S_SIDE, S_PLY, S_PLY_CAP, S_SINCE, S_WINNERS, S_REASON = range(4, 10)
S_HIST = 10
"""First column of the Zobrist history (entry ``k`` = the hash after ``k`` turns)."""

TB_NBR = 0
TB_RAYS = TB_NBR + N_NODES * N_DIRS
TB_MID = TB_RAYS + N_NODES * N_DIRS * MAX_RAY
TB_KEYS = TB_MID + N_NODES * N_NODES
TB_PLAYOUT = TB_KEYS + SIDE_KEY + 1
"""The playout policy: :data:`PLAYOUT_RANDOM` or :data:`PLAYOUT_GREEDY`."""
TB_PLAYOUT_PLIES = TB_PLAYOUT + 1
"""The most turns a greedy playout plays before it is scored by material
(:func:`material_rewards`); 0: to the end of the game."""
TABLES_SIZE = TB_PLAYOUT_PLIES + 1

PLAYOUT_RANDOM, PLAYOUT_GREEDY = 0, 1
PLAYOUTS = {"random": PLAYOUT_RANDOM, "greedy": PLAYOUT_GREEDY}
"""``agent_game``'s ``playout`` names (``greedy:K`` besides) and their table values."""

MAX_ACTIONS = MAX_TURNS
"""Bound on the full turns of any position (the ``out`` size of ``legal``)."""
_PAWN_LIST = 3 * MAX_PAWN_MOVES
_RANDOM_SCRATCH = _PAWN_LIST + 2 * MAX_STONE_MOVES
PLAYOUT_SCRATCH = WORKSPACE_SIZE + TURN_SIZE
"""``int64`` scratch of the playout: a policies workspace
(:func:`~trilab.solver.tabula_trivium.policies.workspace_in`) and a turn for the
greedy playout; the random playout uses its first numbers (a pawn and a stone
movement list)."""

GREEDY_EXPAND = 1.0
"""[choice] Expansion threshold (:func:`trilab.solver.mcts.run_simulations`) of the
searches with greedy playouts (``mcts-greedy:N[:K]``): a node is expanded once it has
as many visits as legal turns (about 160 from the setup), and simulated by a greedy
playout until then.  With the plain UCT rule (expanded at the second visit) every
turn of a new node is tried once before any twice, so the node's mean became the
average over uniformly random replies, not the greedy reply that punishes a hung
pawn: the more simulations, the more nodes so diluted, and ``mcts-greedy:2000:4``
lost 20 of 20 games to ``mcts-greedy:200:4`` (seed 11, both seat orders; 20 of 20
won with this threshold, see ``tests/test_tabula_agents.py``).  Measured at 2000
simulations, a threshold of 4 played even with 1 (3 wins, 14 draws, 3 losses)."""
EVAL_SCALE = float(PAWN_VALUE)
"""[choice] Scale of :func:`material_rewards` (not tuned): a pawn ahead scores 0.73."""
NO_RESULT = -1
"""``S_REASON`` while the game goes on."""


def state_size(ply_cap: int) -> int:
    """Length of a state of a game with this ply cap."""
    return S_HIST + ply_cap + 1


def check_ply_cap(ply_cap: int) -> int:
    """``ply_cap`` if it is an integer >= 1, else ``ValueError`` with one line."""
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, (int, np.integer)) or ply_cap < 1:
        raise ValueError(f"ply_cap must be an integer >= 1, got {ply_cap!r}")
    return int(ply_cap)


# ------------------------------------------------------------------ views


@kernel(inline="always")
def geometry(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(nbr, rays, mid, keys)``: views of the flat table (``keys`` as ``uint64``)."""
    nbr = t[TB_NBR:TB_RAYS].reshape((N_NODES, N_DIRS))
    rays = t[TB_RAYS:TB_MID].reshape((N_NODES, N_DIRS, MAX_RAY))
    mid = t[TB_MID:TB_KEYS].reshape((N_NODES, N_NODES))
    keys = t[TB_KEYS:TB_PLAYOUT].view(np.uint64)
    return nbr, rays, mid, keys


@kernel(inline="always")
def pieces_view(state: np.ndarray) -> np.ndarray:
    """The four bitboards of ``state`` as a ``uint64[4]`` view (writes go to the state)."""
    return state[S_PIECES:S_PIECES + 4].view(np.uint64)


@kernel(inline="always")
def history_view(state: np.ndarray) -> np.ndarray:
    """The Zobrist history of ``state`` as a ``uint64`` view."""
    return state[S_HIST:].view(np.uint64)


# ------------------------------------------------------------------ rules on a state


@kernel(inline="always")
def decode(code: int) -> tuple[int, int, int, int, int]:
    """``(pf, pt, pc, sf, st)`` of a move code (inverse of ``turn_code``)."""
    st = code % CODE_BASE - 1
    code //= CODE_BASE
    sf = code % CODE_BASE - 1
    code //= CODE_BASE
    pc = code % CODE_BASE - 1
    code //= CODE_BASE
    return code // CODE_BASE, code % CODE_BASE, pc, sf, st


@kernel(inline="always")
def decode_into(code: int, out: np.ndarray) -> None:
    """Write the turn of a move code into ``out`` (columns ``T_PF`` .. ``T_ST``)."""
    out[T_PF], out[T_PT], out[T_PC], out[T_SF], out[T_ST] = decode(code)


@kernel
def list_turns(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
               side: int, out: np.ndarray) -> int:
    """Write the move codes of the full turns of ``side`` into ``out`` in the order of
    ``full_turns`` (module docstring); return their count.  ``pieces`` (``uint64[4]``) is
    changed while listing and restored before returning."""
    occ = occupied(pieces)
    p0, p1, p2, p3 = pieces[0], pieces[1], pieces[2], pieces[3]
    n = 0
    x = pieces[2 * side]
    while x:
        f = lowest_bit(x)
        x = drop_lowest(x)
        m = pawn_destinations(nbr, occ, f)
        while m:
            to = lowest_bit(m)
            m = drop_lowest(m)
            c = mid[f, to]
            if c >= 0 and (occ & bit(c)) == np.uint64(0):
                c = -1  # a two-step move over an empty node
            apply_pawn_move(pieces, side, f, to, c)
            first = n
            if material_status(pieces)[1] < 0:
                after = occupied(pieces)
                y = pieces[2 * side + 1]
                while y:
                    sf = lowest_bit(y)
                    y = drop_lowest(y)
                    d = stone_destinations(rays, after, sf)
                    while d:
                        out[n] = turn_code(f, to, c, sf, lowest_bit(d))
                        n += 1
                        d = drop_lowest(d)
            if n == first:
                out[n] = turn_code(f, to, c, -1, -1)
                n += 1
            pieces[0], pieces[1], pieces[2], pieces[3] = p0, p1, p2, p3
    return n


@kernel(inline="always")
def _finish(state: np.ndarray, winners: int, reason: int) -> None:
    state[S_WINNERS] = winners
    state[S_REASON] = reason


@kernel
def check_start(nbr: np.ndarray, state: np.ndarray) -> None:
    """Apply the start-of-turn rules (out of material, pawns blocked, then ply cap) to a
    state whose game goes on."""
    w, r = status(nbr, pieces_view(state), state[S_SIDE])
    if r >= 0:
        _finish(state, w, r)
    elif state[S_PLY] >= state[S_PLY_CAP]:
        _finish(state, 0, R_PLY_CAP)


@kernel
def pawn_step(state: np.ndarray, pf: int, pt: int, pc: int) -> bool:
    """Play the pawn movement of the side to move and count the ply; True if the game
    ended by material (the turn's stone movement is then not played)."""
    pieces = pieces_view(state)
    apply_pawn_move(pieces, state[S_SIDE], pf, pt, pc)
    state[S_PLY] += 1
    if pc >= 0:
        state[S_SINCE] = state[S_PLY]
    w, r = material_status(pieces)
    if r >= 0:
        _finish(state, w, r)
        return True
    return False


@kernel
def stone_step(nbr: np.ndarray, keys: np.ndarray, state: np.ndarray, sf: int, st: int) -> None:
    """End the turn after :func:`pawn_step`: the stone movement (none if ``sf < 0``),
    the side change, the history and the repetition rule, then :func:`check_start`."""
    pieces = pieces_view(state)
    side = state[S_SIDE]
    if sf >= 0:
        apply_stone_move(pieces, side, sf, st)
    side = 1 - side
    state[S_SIDE] = side
    ply = state[S_PLY]
    hist = history_view(state)
    h = zobrist(keys, pieces, side)
    hist[ply] = h
    seen = 0
    for i in range(state[S_SINCE], ply + 1):
        if hist[i] == h:
            seen += 1
    if seen >= REPETITION_LIMIT:
        _finish(state, 0, R_REPETITION)
        return
    check_start(nbr, state)


@kernel
def play_code(nbr: np.ndarray, keys: np.ndarray, state: np.ndarray, code: int) -> None:
    """Play the full turn of move code ``code`` (not validated) on an unfinished state."""
    pf, pt, pc, sf, st = decode(code)
    if not pawn_step(state, pf, pt, pc):
        stone_step(nbr, keys, state, sf, st)


@kernel
def random_playout(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, keys: np.ndarray,
                   state: np.ndarray, stream: np.ndarray, scratch: np.ndarray) -> int:
    """Both seats play the ``random`` policy (its draws, in its order) until the game
    ends; return the plies played.  ``scratch``: at least the first
    ``3 * MAX_PAWN_MOVES + 2 * MAX_STONE_MOVES`` numbers of ``PLAYOUT_SCRATCH``."""
    pbuf = scratch[:_PAWN_LIST].reshape((MAX_PAWN_MOVES, 3))
    sbuf = scratch[_PAWN_LIST:_RANDOM_SCRATCH].reshape((MAX_STONE_MOVES, 2))
    pieces = pieces_view(state)
    plies = 0
    while state[S_REASON] == NO_RESULT:
        side = state[S_SIDE]
        n = pawn_moves(nbr, mid, pieces, side, pbuf)
        k = rng.below(stream, n)
        plies += 1
        if pawn_step(state, pbuf[k, M_FROM], pbuf[k, M_TO], pbuf[k, M_CAP]):
            break
        sf = -1
        st = -1
        ns = stone_moves(rays, pieces, side, sbuf)
        if ns > 0:
            k = rng.below(stream, ns)
            sf = sbuf[k, M_FROM]
            st = sbuf[k, M_TO]
        stone_step(nbr, keys, state, sf, st)
    return plies


@kernel
def greedy_playout(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, keys: np.ndarray,
                   state: np.ndarray, stream: np.ndarray, scratch: np.ndarray,
                   max_plies: int) -> int:
    """Both seats play the ``greedy`` policy
    (:func:`~trilab.solver.tabula_trivium.policies.greedy_turn`: one draw a turn, random
    among the best class) until the game ends, or until ``max_plies`` turns were played
    if ``max_plies > 0``; return the plies played.  ``scratch``: ``PLAYOUT_SCRATCH``
    numbers (a policies workspace, then the turn)."""
    ws = workspace_in(scratch)
    turn = scratch[WORKSPACE_SIZE:PLAYOUT_SCRATCH]
    pieces = pieces_view(state)
    plies = 0
    while state[S_REASON] == NO_RESULT and (max_plies <= 0 or plies < max_plies):
        greedy_turn(nbr, mid, rays, pieces, state[S_SIDE], stream, ws, turn)
        plies += 1
        if not pawn_step(state, turn[T_PF], turn[T_PT], turn[T_PC]):
            stone_step(nbr, keys, state, turn[T_SF], turn[T_ST])
    return plies


@kernel(inline="always")
def write_rewards(state: np.ndarray, out: np.ndarray) -> None:
    """1 to each winner, 0 to the others; 0.5 each for a draw (no winner)."""
    w = state[S_WINNERS]
    for s in range(2):
        out[s] = 0.5 if w == 0 else float((w >> s) & 1)


@kernel
def material_rewards(nbr: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """Rewards of a game that goes on, from the material: the side to move gets
    ``1 / (1 + exp(-e / EVAL_SCALE))`` for its score ``e`` by
    :func:`~trilab.solver.tabula_trivium.policies.evaluate` (pawns, stones, pawn
    mobility), the other seat ``1 -`` that."""
    side = state[S_SIDE]
    pieces = pieces_view(state)
    e = evaluate(nbr, pieces, side, count_pawn_moves(nbr, pieces, side))
    p = 1.0 / (1.0 + math.exp(-e / EVAL_SCALE))
    out[side] = p
    out[1 - side] = 1.0 - p


@kernel
def fill_state(state: np.ndarray, pieces: np.ndarray, side: int, ply: int, ply_cap: int,
               hist: np.ndarray, since: int) -> None:
    """Write a game in progress into ``state`` (``state_size(ply_cap)`` numbers): the
    bitboards ``pieces`` (``uint64[4]``), ``side`` to move after ``ply`` turns, the
    Zobrist history ``hist[since .. ply]`` since the last capture (``uint64``); the result
    column is set by the start-of-turn rules, the repetition rule being the caller's."""
    view = pieces_view(state)
    for k in range(4):
        view[k] = pieces[k]
    state[S_SIDE] = side
    state[S_PLY] = ply
    state[S_PLY_CAP] = ply_cap
    state[S_SINCE] = since
    state[S_WINNERS] = 0
    state[S_REASON] = NO_RESULT
    mine = history_view(state)
    for i in range(since, ply + 1):
        mine[i] = hist[i]


# ------------------------------------------------------------------ agent contract
# (see trilab.solver.mcts: every game's agent kernels share these signatures)


@nb.cfunc(LEGAL_SIG, cache=True)
def mcts_legal(t, state, out):
    if state[S_REASON] != NO_RESULT:
        return 0
    nbr, rays, mid, _ = geometry(t)
    return list_turns(nbr, mid, rays, pieces_view(state), state[S_SIDE], out)


@nb.cfunc(APPLY_SIG, cache=True)
def mcts_apply(t, state, action):
    nbr, _, _, keys = geometry(t)
    play_code(nbr, keys, state, action)
    return 0


@nb.cfunc(SEAT_SIG, cache=True)
def mcts_seat(t, state):
    return state[S_SIDE]


@nb.cfunc(REWARDS_SIG, cache=True)
def mcts_rewards(t, state, out):
    write_rewards(state, out)
    return 0


@nb.cfunc(PLAYOUT_SIG, cache=True)
def mcts_playout(t, state, stream, scratch, out):
    nbr, rays, mid, keys = geometry(t)
    if t[TB_PLAYOUT] == PLAYOUT_GREEDY:
        plies = greedy_playout(nbr, mid, rays, keys, state, stream, scratch,
                               t[TB_PLAYOUT_PLIES])
    else:
        plies = random_playout(nbr, mid, rays, keys, state, stream, scratch)
    if state[S_REASON] == NO_RESULT:
        material_rewards(nbr, state, out)
    else:
        write_rewards(state, out)
    return plies


@nb.cfunc(CHANCE_SIG, cache=True)
def mcts_chance(t, state, stream):
    return -1  # Tabula Trivium has no chance events


KERNELS = AgentKernels(mcts_legal, mcts_apply, mcts_seat, mcts_rewards, mcts_playout,
                       mcts_chance)
"""The agent kernels, in :class:`trilab.solver.game_api.AgentKernels` order."""


# ------------------------------------------------------------------ Python API


@nb.njit(cache=True)
def pack_tables(nbr: np.ndarray, rays: np.ndarray, mid: np.ndarray,
                keys: np.ndarray) -> np.ndarray:
    """The flat table (module docstring) of these geometry arrays and Zobrist keys, with
    the random playout (:data:`PLAYOUT_RANDOM` at :data:`TB_PLAYOUT`)."""
    t = np.empty(TABLES_SIZE, dtype=np.int64)
    t[TB_NBR:TB_RAYS] = nbr.ravel()
    t[TB_RAYS:TB_MID] = rays.ravel()
    t[TB_MID:TB_KEYS] = mid.ravel()
    t[TB_KEYS:TB_PLAYOUT] = keys.view(np.int64)
    t[TB_PLAYOUT] = PLAYOUT_RANDOM
    t[TB_PLAYOUT_PLIES] = 0
    return t


PLAYOUT_FORMS = f"random, greedy or greedy:K (1 <= K <= {MAX_PLAYOUT_PLIES})"


def check_playout(playout: str) -> tuple[int, int]:
    """``(TB_PLAYOUT value, TB_PLAYOUT_PLIES value)`` of a playout name: "random",
    "greedy" (to the end) or "greedy:K" (cut after K turns); else ``ValueError`` with one
    line."""
    if isinstance(playout, str):
        name, colon, k = playout.partition(":")
        if name in PLAYOUTS and not colon:
            return PLAYOUTS[name], 0
        if name == "greedy" and k.isascii() and k.isdigit() and \
                1 <= int(k) <= MAX_PLAYOUT_PLIES:
            return PLAYOUT_GREEDY, int(k)
    raise ValueError(f"playout must be {PLAYOUT_FORMS}, got {playout!r}")


@functools.cache
def flat_tables(playout: str = "random") -> np.ndarray:
    """The flat ``int64`` table with this playout (:func:`check_playout`; built once per
    playout, read-only)."""
    kind, plies = check_playout(playout)
    g = tables()
    t = pack_tables(g.nbr, g.rays, g.mid, zobrist_keys())
    t[TB_PLAYOUT] = kind
    t[TB_PLAYOUT_PLIES] = plies
    t.setflags(write=False)
    return t


@nb.njit(cache=True)
def _start(t: np.ndarray, pieces: np.ndarray, side: int, ply: int, ply_cap: int) -> np.ndarray:
    nbr, _, _, keys = geometry(t)
    state = np.zeros(S_HIST + ply_cap + 1, dtype=np.int64)
    hist = np.zeros(ply + 1, dtype=np.uint64)
    hist[ply] = zobrist(keys, pieces, side)
    fill_state(state, pieces, side, ply, ply_cap, hist, ply)
    check_start(nbr, state)
    return state


def from_position(pieces: Pieces, side: int = 0, ply_cap: int = DEFAULT_PLY_CAP,
                  ply: int = 0) -> np.ndarray:
    """The state of a position (bitboards as in :data:`Pieces`) with ``side`` to move
    after ``ply`` turns and no known history (the repetition rule counts from here);
    finished already if the start-of-turn rules end it."""
    ply_cap = check_ply_cap(ply_cap)
    if side not in (0, 1) or not 0 <= ply <= ply_cap:
        raise ValueError(f"side must be 0 or 1 and ply in 0..{ply_cap}, got {side!r}, {ply!r}")
    arr = np.array([int(x) for x in pieces], dtype=np.uint64)
    return _start(flat_tables(), arr, np.int64(side), np.int64(ply), np.int64(ply_cap))


def initial_state(ply_cap: int = DEFAULT_PLY_CAP, playout: str = "random") -> np.ndarray:
    """The state of a new game (the setup, seat 0 to move).  ``playout`` is checked and
    otherwise ignored (the playout lives in the table): the registry passes the same
    options to :func:`agent_game` and here."""
    check_playout(playout)
    return from_position(initial_pieces(), 0, ply_cap)


def pieces_of(state: np.ndarray) -> Pieces:
    """The four bitboards of a state."""
    return tuple(int(x) for x in state[S_PIECES:S_PIECES + 4])


def result_of(state: np.ndarray) -> tuple[int, int]:
    """``(winners, reason index)`` of a finished state; ``(0, -1)`` while it goes on."""
    return int(state[S_WINNERS]), int(state[S_REASON])


def code_of(turn: tuple[int, int, int, int, int]) -> int:
    """The move code (action id) of a turn ``(pf, pt, pc, sf, st)``."""
    return int(turn_code(*(np.int64(v) for v in turn)))


def turn_of(code: int) -> tuple[int, int, int, int, int]:
    """The turn ``(pf, pt, pc, sf, st)`` of a move code (action id)."""
    return tuple(int(v) for v in decode(np.int64(code)))


@nb.njit(cache=True)
def _full_turns(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray,
                side: int) -> np.ndarray:
    ws = new_workspace()
    n_pm = pawn_moves(nbr, mid, pieces, side, ws.pawn_moves)
    ws.pawn_class[:n_pm] = 0
    n = full_turns(nbr, mid, rays, pieces, side, ws.pawn_moves, n_pm, ws.pawn_class,
                   ALL_PAWN_MOVES, NO_CLASSES, ws)
    return ws.turns[:n, :TURN_SIZE].copy()


def policy_turns(pieces: Pieces, side: int) -> list[tuple[int, int, int, int, int]]:
    """The full turns ``(pf, pt, pc, sf, st)`` of ``side`` as the policies list them
    (:func:`~trilab.solver.tabula_trivium.policies.full_turns`), for checks."""
    g = tables()
    rows = _full_turns(g.nbr, g.mid, g.rays, np.array([int(x) for x in pieces], dtype=np.uint64),
                       np.int64(side))
    return [tuple(int(v) for v in r) for r in rows]


@functools.cache
def agent_game(ply_cap: int = DEFAULT_PLY_CAP, playout: str = "random") -> AgentGame:
    """Tabula Trivium for the agents (:class:`trilab.solver.mcts.AgentGame`), whose
    playouts (``AgentGame.playout`` and the search's) play ``playout`` for both seats:
    "random" or "greedy" to the end of the game (module docstring), or "greedy:K", which
    stops after K turns: the state may then go on, with the material rewards of
    :func:`material_rewards` (the ``mcts-greedy:N:K`` policy).  The ply cap lives in the
    state (:func:`initial_state`); it is an option here so that the registry passes the
    same options to both.  Bad options: ``ValueError`` with one line."""
    check_ply_cap(ply_cap)
    kind, _ = check_playout(playout)
    return AgentGame(name="tabula-trivium", n_seats=2, kernels=KERNELS,
                     tables=np.array(flat_tables(playout)), max_actions=MAX_ACTIONS,
                     playout_scratch=PLAYOUT_SCRATCH, expand=expand_of(kind))


def expand_of(playout_kind: int) -> float:
    """The expansion threshold of the searches with this playout: :data:`GREEDY_EXPAND`
    for greedy playouts, the plain UCT rule for random ones."""
    return GREEDY_EXPAND if playout_kind == PLAYOUT_GREEDY else mcts.DEFAULT_EXPAND


# ------------------------------------------------------------------ MCTS inside a game loop


@nb.njit(cache=True)
def new_mcts_work(t: np.ndarray, ply_cap: int, nodes: int) -> MctsWork:
    """The buffers of :func:`mcts_turn` (:func:`trilab.solver.mcts.new_work`) for trees of
    up to ``nodes`` nodes in games of this ply cap, with the flat table ``t``."""
    return mcts.new_work(t, S_HIST + ply_cap + 1, 2, nodes, MAX_ACTIONS, PLAYOUT_SCRATCH,
                         mcts.MAX_PATH)


@kernel
def mcts_turn(legal, apply, seat, rewards, playout, chance, w: MctsWork,
              pieces: np.ndarray, side: int, ply: int, ply_cap: int, hist: np.ndarray,
              since: int, stream: np.ndarray, simulations: int, exploration: float,
              playout_kind: int, playout_plies: int, out: np.ndarray) -> None:
    """The ``mcts:N`` (``playout_kind`` :data:`PLAYOUT_RANDOM`) and ``mcts-greedy:N[:K]``
    (:data:`PLAYOUT_GREEDY`, ``playout_plies`` K or 0) policies inside a game loop:
    :func:`trilab.solver.mcts.search_turn` (``simulations`` simulations on a tree of
    :func:`trilab.solver.mcts.loop_tree_nodes` nodes, drawing from ``stream``) from the
    game in progress (bitboards ``pieces``, ``side`` to move after ``ply`` turns, Zobrist
    history ``hist[since .. ply]``), written into ``w.root``, with that playout (written
    into ``w.tables`` at :data:`TB_PLAYOUT` and :data:`TB_PLAYOUT_PLIES`) and its
    expansion threshold (:data:`GREEDY_EXPAND` for greedy playouts); writes the
    chosen turn into ``out`` (``T_PF`` .. ``T_ST``).  The game must go on.  ``legal .. chance``:
    the :data:`KERNELS`, one by one."""
    fill_state(w.root, pieces, side, ply, ply_cap, hist, since)
    w.tables[TB_PLAYOUT] = playout_kind
    w.tables[TB_PLAYOUT_PLIES] = playout_plies
    expand = GREEDY_EXPAND if playout_kind == PLAYOUT_GREEDY else mcts.DEFAULT_EXPAND
    code = mcts.search_turn(legal, apply, seat, rewards, playout, chance, w, stream,
                            simulations, exploration,
                            mcts.loop_tree_nodes(simulations, MAX_ACTIONS), expand)
    decode_into(code, out)
