"""Trio (1917) board game for the agents: the agent kernels of :mod:`trilab.solver.mcts`.

Same rules as :mod:`trilab.solver.trio_board.rules` (read its docstring): the
kernels here call that engine's rule kernels (``destinations``,
``legal_moves``, ``apply_move``, ``choose_move``, ``remove_seat``) on a state
array, so that the one compiled MCTS of :mod:`trilab.solver.mcts` plays the
game like any other, with one reward per seat (max^n for the 3 seats).

State (one ``int64`` array of :data:`STATE_SIZE` numbers, columns named
``S_*``): its first :data:`trilab.solver.trio_board.rules.STATE_SIZE` columns are
the engine's state, so the engine's kernels run on it unchanged:

* :data:`S_SIDE`: the seat to move (never a removed seat, see below);
* :data:`S_PLY`: plies played so far (moves and passes);
* :data:`S_GENERAL` + seat: the cell of that seat's General, ``-1`` once it is
  lost (captured; a Fortress node once it entered one, which ends the game);
* :data:`S_OCC` + seat: the bitboard of its pieces (bit ``c`` = cell ``c``);
* :data:`S_BOARD` + cell: the piece code ``seat << 2 | kind`` (0 = empty);

then the agents' own columns:

* :data:`S_PLY_CAP`: the ply cap of the game (no winner once ``S_PLY``
  reaches it);
* :data:`S_LOST`: the ``lost_general`` option (:data:`~trilab.solver.trio_board.rules.LOST_KEEP`
  or :data:`~trilab.solver.trio_board.rules.LOST_REMOVE`);
* :data:`S_WINNERS`: the winner's bit of a finished game (0 for no winner);
* :data:`S_REASON`: the index of the end reason in
  :data:`~trilab.solver.trio_board.rules.END_REASONS`, :data:`NO_RESULT` while the
  game goes on.  The end rules are applied when a ply is played (and by
  :func:`from_position`), so ``legal`` only reads this column;
* :data:`S_PLAYOUT`: the playout of the search (``PLAYOUT_RANDOM``; 0: greedy to
  the end; K: greedy cut after K plies), set by the game loop per seat
  (``mcts:N`` / ``mcts-greedy:N[:K]``); :func:`from_position` leaves it random.

Plies, as in :func:`trilab.solver.trio_board.game.play_game`: the seat to move
plays a move, or **passes when it has no legal move: the pass is an explicit
action** (:data:`PASS_ACTION`, the only legal action then), so actions and
the engine's plies correspond one to one (a pass counts toward the cap).  A
move that enters a Fortress wins for the mover ("fortress"); one that
captures the last General ends with no winner ("no generals").  Otherwise the
turn passes to the next seat in the order 0, 1, 2, skipping, with
``lost_general=remove``, the seats without a General (inside ``apply``: a
skipped turn is not a ply), and then the game ends with no winner if the ply
cap is reached ("ply cap").

Actions: a move ``(from, to)`` is ``from * N_NODES + to`` (``to`` a cell or
a Fortress node ``FORT_BASE + owner``), the code the engine's move digest
folds, and the pass is :data:`PASS_ACTION` = ``PASS_CODE``, the digest's
pass code: stable ids that ``apply`` decodes in constant time.  ``legal``
lists the moves in the engine's order (``from``, then ``to`` ascending: so
the codes ascend).

Rewards: 1 to the winner, 0 to the others; all 0 when nobody wins (no
General left, or the ply cap).  The random playout plays the engine's ``random``
policy for every seat (:func:`trilab.solver.trio_board.rules.choose_move`: ``below(n)``
among ``n > 1`` moves, no draw for a single move or a pass) to the end of
the game, so a playout from :func:`initial_state` is the engine's all-random
game of that stream; the greedy playout plays its ``greedy`` policy likewise (the
engine's all-greedy game), or stops after K plies, and a game still going on is
then scored by :func:`position_rewards`.  No chance nodes: ``seat`` is the seat to move,
``chance`` -1.

Tables: the flat ``int64`` table is the engine's configuration array
``icfg`` (:func:`trilab.solver.trio_board.rules.make_config`): a header, ignored
here (the rule options live in the state), then the board tables at the
engine's named offsets (``OFF_NBR`` ... ``OFF_INIT``: neighbours, neighbour
and forward bitboards, Fortress contacts, zones, Fortress distances, the
de Bruijn bit index, the setup), which depend on the ``fortress`` option only.
The game loop of the engine hands its own ``icfg`` to the search
(:func:`mcts_turn`).
"""

from __future__ import annotations

import functools

import numba as nb
import numpy as np
from trilab.solver import mcts
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
from trilab.solver.trio_board import rules as tb
from trilab.solver.trio_board.board import MAX_NEIGHBOURS, N_CELLS
from trilab.solver.trio_board.rules import (  # noqa: F401 (S_BOARD re-exported)
    DEFAULT_LOST_GENERAL,
    DEFAULT_PLY_CAP,
    EMPTY,
    GOES_ON,
    LOST_GENERAL_OPTIONS,
    LOST_REMOVE,
    MAX_MOVES,
    N_NODES,
    N_SEATS,
    OFF_BITS,
    OFF_DIST,
    OFF_FORT,
    OFF_FWD_MASK,
    OFF_INIT,
    OFF_NBR,
    OFF_NBR_MASK,
    OFF_ZONE,
    PASS_CODE,
    PLAYOUT_RANDOM,
    POLICY_GREEDY,
    POLICY_RANDOM,
    R_FORTRESS,
    R_NO_GENERALS,
    R_PLY_CAP,
    S_BOARD,
    S_GENERAL,
    S_OCC,
    S_PLY,
    S_SIDE,
    Pieces,
    apply_move,
    bit_index,
    check_fortress,
    choose_move,
    destinations,
    generals_left,
    initial_pieces,
    legal_moves,
    remove_seat,
)

# ------------------------------------------------------------------ layouts

ENGINE_STATE_SIZE = tb.STATE_SIZE
"""The engine's columns, first in the agents' state."""
S_PLY_CAP = ENGINE_STATE_SIZE
S_LOST = S_PLY_CAP + 1
S_WINNERS = S_LOST + 1
S_REASON = S_WINNERS + 1
S_PLAYOUT = S_REASON + 1
STATE_SIZE = S_PLAYOUT + 1
NO_RESULT = -1
"""``S_REASON`` while the game goes on."""

PASS_ACTION = PASS_CODE
"""The action of a seat without a legal move (the digest's pass code)."""
MAX_ACTIONS = MAX_MOVES
"""Bound on the legal actions of any state (the ``out`` size of ``legal``)."""
PLAYOUT_SCRATCH = 3 * MAX_MOVES
"""``int64`` scratch of the playout: the move list (``from``, ``to``) and the
policy's candidates."""



# ------------------------------------------------------------------ views and rules


@kernel(inline="always")
def geometry(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                      np.ndarray, np.ndarray, np.ndarray]:
    """``(nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits)``: views of the flat
    table (the engine's ``icfg``)."""
    nbr = t[OFF_NBR:OFF_NBR_MASK].reshape((N_CELLS, MAX_NEIGHBOURS))
    nbr_mask = t[OFF_NBR_MASK:OFF_FWD_MASK]
    fwd_mask = t[OFF_FWD_MASK:OFF_FORT].reshape((N_SEATS, N_CELLS))
    fort_of = t[OFF_FORT:OFF_ZONE]
    zone = t[OFF_ZONE:OFF_DIST]
    dist = t[OFF_DIST:OFF_BITS].reshape((N_SEATS, N_NODES))
    bits = t[OFF_BITS:OFF_INIT]
    return nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits


@kernel
def legal_codes(nbr: np.ndarray, nbr_mask: np.ndarray, fwd_mask: np.ndarray,
                fort_of: np.ndarray, zone: np.ndarray, bits: np.ndarray, state: np.ndarray,
                seat: int, out: np.ndarray) -> int:
    """Write the action codes ``from * N_NODES + to`` of the legal moves of ``seat``
    into ``out``, in the order of :func:`trilab.solver.trio_board.rules.legal_moves`; return
    their number (0: the seat must pass)."""
    n = 0
    pieces = state[S_OCC + seat]
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        c = bit_index(low, bits)
        cells, forts = destinations(nbr, nbr_mask, fwd_mask, fort_of, zone, state, seat, c)
        while cells:
            x = cells & -cells
            cells ^= x
            out[n] = c * N_NODES + bit_index(x, bits)
            n += 1
        for f in range(N_SEATS):
            if (forts >> f) & 1:
                out[n] = c * N_NODES + tb.FORT_BASE + f
                n += 1
    return n


@kernel(inline="always")
def finish(state: np.ndarray, winners: int, reason: int) -> None:
    state[S_WINNERS] = winners
    state[S_REASON] = reason


@kernel
def settle(state: np.ndarray) -> None:
    """Before a ply of a game that goes on: skip the seats without a General under
    ``lost_general=remove`` (not a ply), then end the game at the ply cap."""
    side = state[S_SIDE]
    if state[S_LOST] == LOST_REMOVE:
        while state[S_GENERAL + side] < 0:
            side = (side + 1) % N_SEATS
        state[S_SIDE] = side
    if state[S_PLY] >= state[S_PLY_CAP]:
        finish(state, 0, R_PLY_CAP)


@kernel
def play_ply(state: np.ndarray, frm: int, to: int) -> None:
    """Play one ply of the seat to move on a state whose game goes on: the move
    ``frm -> to`` (not validated), or a pass when ``frm < 0``; then the end rules and
    the next seat (module docstring)."""
    side = state[S_SIDE]
    result = GOES_ON
    if frm >= 0:
        result = apply_move(state, frm, to, state[S_LOST])
    state[S_PLY] += 1
    state[S_SIDE] = (side + 1) % N_SEATS
    if result == R_FORTRESS:
        finish(state, 1 << side, R_FORTRESS)
    elif result == R_NO_GENERALS:
        finish(state, 0, R_NO_GENERALS)
    else:
        settle(state)


@kernel(inline="always")
def play_action(state: np.ndarray, action: int) -> None:
    """Play an action code (a move code or :data:`PASS_ACTION`)."""
    if action == PASS_ACTION:
        play_ply(state, -1, -1)
    else:
        play_ply(state, action // N_NODES, action % N_NODES)


@kernel
def policy_playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray,
                   scratch: np.ndarray, policy: int, max_plies: int) -> int:
    """Every seat plays the engine's ``policy`` (``random`` or ``greedy``: its draws,
    in its order) until the game ends, or for ``max_plies`` plies when that is
    positive; return the plies played.  ``scratch``: :data:`PLAYOUT_SCRATCH` numbers."""
    nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits = geometry(t)
    mfrom = scratch[:MAX_MOVES]
    mto = scratch[MAX_MOVES:2 * MAX_MOVES]
    cand = scratch[2 * MAX_MOVES:3 * MAX_MOVES]
    plies = 0
    while state[S_REASON] == NO_RESULT and (max_plies <= 0 or plies < max_plies):
        side = state[S_SIDE]
        n = legal_moves(nbr, nbr_mask, fwd_mask, fort_of, zone, bits, state, side, mfrom, mto)
        if n == 0:
            play_ply(state, -1, -1)
        else:
            i = choose_move(policy, state, side, dist, n, mfrom, mto, cand, stream)
            play_ply(state, mfrom[i], mto[i])
        plies += 1
    return plies


@kernel(inline="always")
def random_playout(t: np.ndarray, state: np.ndarray, stream: np.ndarray,
                   scratch: np.ndarray) -> int:
    """Every seat plays ``random`` to the end of the game (:func:`policy_playout`)."""
    return policy_playout(t, state, stream, scratch, POLICY_RANDOM, 0)


GENERAL_THREAT = 3.0
""":func:`position_rewards`: a General next to a Fortress (one step) counts this
much, one ``d`` steps away ``GENERAL_THREAT / d``, beside material worth the piece
codes (Soldier 1, Officer 2, General 3)."""


@kernel
def position_rewards(t: np.ndarray, state: np.ndarray, out: np.ndarray) -> None:
    """Rewards of a game still going on (a cut playout): each seat with its General
    gets the share ``v / sum v`` of its value ``v`` = material (the piece codes of
    its pieces) + :data:`GENERAL_THREAT` / (its General's steps to the nearest
    opponent Fortress); a seat without a General gets 0.  A finished game: 1 to the
    winner (:func:`write_rewards`)."""
    if state[S_REASON] != NO_RESULT:
        write_rewards(state, out)
        return
    _, _, _, _, _, dist, _ = geometry(t)
    for s in range(N_SEATS):
        out[s] = 0.0
    for c in range(N_CELLS):  # material: one pass over the board
        p = state[S_BOARD + c]
        if p != EMPTY:
            out[p >> tb.SEAT_SHIFT] += p & tb.KIND_MASK
    total = 0.0
    for s in range(N_SEATS):
        g = state[S_GENERAL + s]
        if g < 0:
            out[s] = 0.0
        else:
            d = tb._nearest_opponent_fortress(dist, s, g)
            out[s] += GENERAL_THREAT / max(d, 1)
        total += out[s]
    for s in range(N_SEATS):
        out[s] = out[s] / total if total > 0.0 else 0.0


@kernel(inline="always")
def write_rewards(state: np.ndarray, out: np.ndarray) -> None:
    """1.0 to the winner, 0.0 to the others (all 0 without a winner)."""
    w = state[S_WINNERS]
    for s in range(N_SEATS):
        out[s] = 1.0 if (w >> s) & 1 else 0.0


@kernel
def fill_state(state: np.ndarray, engine_state: np.ndarray, ply_cap: int, lost: int) -> None:
    """Write a game in progress of the engine (its state array: a seat that may play,
    ``S_PLY < ply_cap``) into an agents' ``state``."""
    for i in range(ENGINE_STATE_SIZE):
        state[i] = engine_state[i]
    state[S_PLY_CAP] = ply_cap
    state[S_LOST] = lost
    state[S_WINNERS] = 0
    state[S_REASON] = NO_RESULT
    state[S_PLAYOUT] = PLAYOUT_RANDOM


@kernel
def begin(state: np.ndarray) -> None:
    """The start rules on a state whose engine columns, cap and option are written:
    with ``lost_general=remove`` the seats without a General leave the board; no
    General at all ends the game ("no generals", no ply); then :func:`settle`."""
    state[S_WINNERS] = 0
    state[S_REASON] = NO_RESULT
    if state[S_LOST] == LOST_REMOVE:
        for s in range(N_SEATS):
            if state[S_GENERAL + s] < 0:
                remove_seat(state, s)
    if generals_left(state) == 0:
        finish(state, 0, R_NO_GENERALS)
        return
    settle(state)


# ------------------------------------------------------------------ agent contract
# (see trilab.solver.mcts: every game's agent kernels share these signatures)


@nb.cfunc(LEGAL_SIG, cache=True)
def mcts_legal(t, state, out):
    if state[S_REASON] != NO_RESULT:
        return 0
    nbr, nbr_mask, fwd_mask, fort_of, zone, _, bits = geometry(t)
    n = legal_codes(nbr, nbr_mask, fwd_mask, fort_of, zone, bits, state, state[S_SIDE], out)
    if n == 0:
        out[0] = PASS_ACTION
        n = 1
    return n


@nb.cfunc(APPLY_SIG, cache=True)
def mcts_apply(t, state, action):
    play_action(state, action)
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
    kind = state[S_PLAYOUT]
    if kind == PLAYOUT_RANDOM:
        plies = random_playout(t, state, stream, scratch)
        write_rewards(state, out)
    else:
        plies = policy_playout(t, state, stream, scratch, POLICY_GREEDY, kind)
        position_rewards(t, state, out)
    return plies


@nb.cfunc(CHANCE_SIG, cache=True)
def mcts_chance(t, state, stream):
    return -1  # Trio has no chance events


KERNELS = AgentKernels(mcts_legal, mcts_apply, mcts_seat, mcts_rewards, mcts_playout,
                       mcts_chance)
"""The agent kernels, in :class:`trilab.solver.game_api.AgentKernels` order."""


# ------------------------------------------------------------------ Python API


def check_ply_cap(ply_cap: int) -> int:
    """``ply_cap`` if it is an integer >= 1, else ``ValueError`` with one line."""
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, int | np.integer) or ply_cap < 1:
        raise ValueError(f"ply_cap must be an integer >= 1, got {ply_cap!r}")
    return int(ply_cap)


def check_lost_general(lost_general: str) -> int:
    """The code of a ``lost_general`` option, else ``ValueError`` with one line."""
    if lost_general not in LOST_GENERAL_OPTIONS:
        raise ValueError(f"unknown lost_general option {lost_general!r}; choose one of "
                         f"{', '.join(LOST_GENERAL_OPTIONS)}")
    return LOST_GENERAL_OPTIONS.index(lost_general)


@functools.cache
def flat_tables(fortress: str = tb.DEFAULT_FORTRESS) -> np.ndarray:
    """The flat table of a Fortress reading (the engine's ``icfg``; read-only)."""
    t = tb.make_config({"fortress": check_fortress(fortress)}).icfg
    t.setflags(write=False)
    return t


@nb.njit(cache=True)
def _begin(state: np.ndarray) -> None:
    begin(state)


def from_position(pieces: Pieces, side: int = 0, ply: int = 0,
                  ply_cap: int = DEFAULT_PLY_CAP,
                  lost_general: str = DEFAULT_LOST_GENERAL) -> np.ndarray:
    """The state of a position with ``side`` to move after ``ply`` plies, after the
    start rules (:func:`begin`: it may be finished already, or have another seat to
    move under ``lost_general=remove``).  Bad arguments: ``ValueError`` with one line."""
    ply_cap = check_ply_cap(ply_cap)
    lost = check_lost_general(lost_general)
    if side not in range(N_SEATS) or isinstance(ply, bool) or not 0 <= ply <= ply_cap:
        raise ValueError(f"side must be 0, 1 or 2 and ply in 0..{ply_cap}, got "
                         f"{side!r}, {ply!r}")
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[:ENGINE_STATE_SIZE] = tb.new_state(pieces, side, ply)
    state[S_PLY_CAP] = ply_cap
    state[S_LOST] = lost
    state[S_PLAYOUT] = PLAYOUT_RANDOM
    _begin(state)
    return state


def initial_state(fortress: str = tb.DEFAULT_FORTRESS, ply_cap: int = DEFAULT_PLY_CAP,
                  lost_general: str = DEFAULT_LOST_GENERAL) -> np.ndarray:
    """The state of a new game (the setup, seat 0 to move).  ``fortress`` is checked and
    otherwise ignored (the setup is the same for every reading; the reading lives in
    the table): the registry passes the same options to :func:`agent_game` and here."""
    check_fortress(fortress)
    return from_position(initial_pieces(), 0, 0, ply_cap, lost_general)


def pieces_of(state: np.ndarray) -> Pieces:
    """The pieces of a state."""
    return tb.pieces_of(state[:ENGINE_STATE_SIZE])


def result_of(state: np.ndarray) -> tuple[int, int]:
    """``(winners, reason index)`` of a finished state; ``(0, NO_RESULT)`` while it goes on."""
    return int(state[S_WINNERS]), int(state[S_REASON])


def action_of(move: tuple[int, int] | None) -> int:
    """The action code of a move ``(from, to)``, or of a pass (``None``)."""
    return PASS_ACTION if move is None else move[0] * N_NODES + move[1]


def move_of(action: int) -> tuple[int, int] | None:
    """The move ``(from, to)`` of an action code (``None``: the pass)."""
    return None if action == PASS_ACTION else divmod(int(action), N_NODES)


@functools.cache
def agent_game(fortress: str = tb.DEFAULT_FORTRESS, ply_cap: int = DEFAULT_PLY_CAP,
               lost_general: str = DEFAULT_LOST_GENERAL) -> AgentGame:
    """Trio for the agents (:class:`trilab.solver.mcts.AgentGame`, 3 seats) under this
    Fortress reading.  The ply cap and the ``lost_general`` option live in the state
    (:func:`initial_state`); they are options here so that the registry passes the same
    options to both.  Bad options: ``ValueError`` with one line."""
    check_ply_cap(ply_cap)
    check_lost_general(lost_general)
    return AgentGame(name="trio-board", n_seats=N_SEATS, kernels=KERNELS,
                     tables=np.array(flat_tables(fortress)), max_actions=MAX_ACTIONS,
                     playout_scratch=PLAYOUT_SCRATCH)


# ------------------------------------------------------------------ MCTS inside a game loop


@nb.njit(cache=True)
def new_mcts_work(t: np.ndarray, ply_cap: int, nodes: int) -> MctsWork:
    """The buffers of :func:`mcts_turn` (:func:`trilab.solver.mcts.new_work`) for trees of
    up to ``nodes`` nodes in games of this ply cap, with the flat table ``t`` (the
    engine's ``icfg``); a tree path has at most one node per ply, so ``ply_cap + 2``
    path entries."""
    return mcts.new_work(t, STATE_SIZE, N_SEATS, nodes, MAX_ACTIONS, PLAYOUT_SCRATCH,
                         ply_cap + 2)


@kernel
def mcts_turn(legal, apply, seat, rewards, playout, chance, w: MctsWork,
              engine_state: np.ndarray, ply_cap: int, lost: int, stream: np.ndarray,
              simulations: int, exploration: float, playout_kind: int) -> int:
    """The ``mcts:N`` policy inside the engine's game loop:
    :func:`trilab.solver.mcts.search_turn` (``simulations`` simulations on a tree of
    :func:`trilab.solver.mcts.loop_tree_nodes` nodes, drawing from ``stream``) from the
    game in progress (the engine's state: the seat to move may play and
    ``S_PLY < ply_cap``; the ``lost_general`` code ``lost``), written into ``w.root``;
    returns the chosen action code (a move; the caller plays a pass without searching).
    ``legal .. chance``: the :data:`KERNELS`, one by one.  ``playout_kind``:
    :data:`S_PLAYOUT` of the search (``mcts-greedy:N[:K]``: 0 or K)."""
    fill_state(w.root, engine_state, ply_cap, lost)
    w.root[S_PLAYOUT] = playout_kind
    return mcts.search_turn(legal, apply, seat, rewards, playout, chance, w, stream,
                            simulations, exploration,
                            mcts.loop_tree_nodes(simulations, MAX_ACTIONS))
