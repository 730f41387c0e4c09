"""Trio (1917) board game: whole games as the Monte Carlo driver plays them, and :data:`SPEC`.

The game's entry in the registry (:mod:`trilab.solver.registry`).  The rules and
their kernels are :mod:`trilab.solver.trio_board.rules` (whose docstring states
them); the agents that search are :mod:`trilab.solver.trio_board.agents`; this
module joins them in one game loop (:func:`play_game`), so the imports run one
way: board <- rules <- agents <- game.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.game_api import GameSpec
from trilab.solver.jit import kernel
from trilab.solver.mcts import DEFAULT_EXPLORATION, loop_tree_nodes
from trilab.solver.trio_board import agents
from trilab.solver.trio_board.reference import reference_game
from trilab.solver.trio_board.rules import (
    DRAW_REASONS,
    END_REASONS,
    GOES_ON,
    I_LOST,
    I_PLAYOUT,
    I_PLY_CAP,
    I_POLICY,
    I_SIMS,
    ICFG_SIZE,
    LOST_REMOVE,
    MAX_MOVES,
    MAX_NEIGHBOURS,
    N_CELLS,
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
    POLICIES,
    POLICY_MCTS,
    POLICY_MCTS_GREEDY,
    R_FORTRESS,
    R_NO_GENERALS,
    R_PLY_CAP,
    S_GENERAL,
    S_PLY,
    S_SIDE,
    SEARCH_POLICIES,
    STATE_SIZE,
    Pieces,
    apply_move,
    choose_move,
    generals_left,
    legal_moves,
    make_config,
    reset_state,
    with_start,
)


@kernel
def play_game(nbr: np.ndarray, nbr_mask: np.ndarray, fwd_mask: np.ndarray,
              fort_of: np.ndarray, zone: np.ndarray, dist: np.ndarray, bits: np.ndarray,
              init: np.ndarray, icfg: np.ndarray, st: np.ndarray, state: np.ndarray,
              mfrom: np.ndarray, mto: np.ndarray, cand: np.ndarray, legal, apply, seat,
              rewards, playout, chance, mw) -> tuple[int, int, int, np.uint64]:
    """One game from the start position: ``(winners, plies, reason, digest)``.  An
    ``mcts:N`` seat searches with the agent kernels ``legal .. chance``
    (:data:`trilab.solver.trio_board.agents.KERNELS`) in the buffers ``mw``
    (:class:`trilab.solver.mcts.MctsWork`)."""
    reset_state(icfg, init, state)
    cap = icfg[I_PLY_CAP]
    lost = icfg[I_LOST]
    digest = np.uint64(0)
    if generals_left(state) == 0:
        return 0, 0, R_NO_GENERALS, digest
    while True:
        side = state[S_SIDE]
        ply = state[S_PLY]
        if lost == LOST_REMOVE and state[S_GENERAL + side] < 0:
            state[S_SIDE] = (side + 1) % N_SEATS  # a removed seat: skipped, not a ply
            continue
        if ply >= cap:
            return 0, ply, R_PLY_CAP, digest
        n = legal_moves(nbr, nbr_mask, fwd_mask, fort_of, zone, bits, state, side, mfrom, mto)
        result = GOES_ON
        if n == 0:
            digest = rng.digest_step(digest, np.int64(PASS_CODE))
        else:
            policy = icfg[I_POLICY + side]
            if policy != POLICY_MCTS and policy != POLICY_MCTS_GREEDY:
                i = choose_move(policy, state, side, dist, n, mfrom, mto, cand, st)
                frm, to = mfrom[i], mto[i]
            elif n == 1:
                frm, to = mfrom[0], mto[0]
            else:
                code = agents.mcts_turn(legal, apply, seat, rewards, playout, chance, mw,
                                        state, cap, lost, st, icfg[I_SIMS + side],
                                        DEFAULT_EXPLORATION, icfg[I_PLAYOUT + side])
                frm, to = code // N_NODES, code % N_NODES
            digest = rng.digest_step(digest, np.int64(frm * N_NODES + to))
            result = apply_move(state, frm, to, lost)
        state[S_PLY] = ply + 1
        state[S_SIDE] = (side + 1) % N_SEATS
        if result == R_FORTRESS:
            return 1 << side, ply + 1, R_FORTRESS, digest
        if result == R_NO_GENERALS:
            return 0, ply + 1, R_NO_GENERALS, digest


@nb.njit(cache=True)
def unpack_tables(icfg: np.ndarray):
    """``(nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits, init)``: views of the
    tables packed in ``icfg``."""
    nbr = icfg[OFF_NBR:OFF_NBR_MASK].reshape((N_CELLS, MAX_NEIGHBOURS))
    nbr_mask = icfg[OFF_NBR_MASK:OFF_FWD_MASK]
    fwd_mask = icfg[OFF_FWD_MASK:OFF_FORT].reshape((N_SEATS, N_CELLS))
    fort_of = icfg[OFF_FORT:OFF_ZONE]
    zone = icfg[OFF_ZONE:OFF_DIST]
    dist = icfg[OFF_DIST:OFF_BITS].reshape((N_SEATS, N_NODES))
    bits = icfg[OFF_BITS:OFF_INIT]
    init = icfg[OFF_INIT:ICFG_SIZE]
    return nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits, init


@nb.njit(cache=True)
def play_chunk_kernel(seed: np.uint64, first_game: int, n_games: int, icfg: np.ndarray,
                      fcfg: np.ndarray, legal, apply, seat, rewards, playout, chance
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_chunk` given the agent kernels (the six cfuncs of
    :data:`trilab.solver.trio_board.agents.KERNELS`, used by ``mcts:N`` seats; the search
    buffers are allocated once per chunk, for the largest N)."""
    nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits, init = unpack_tables(icfg)
    nodes = 1
    for s in range(N_SEATS):
        if icfg[I_POLICY + s] >= POLICY_MCTS:
            nodes = max(nodes, loop_tree_nodes(icfg[I_SIMS + s], agents.MAX_ACTIONS))
    mw = agents.new_mcts_work(icfg, icfg[I_PLY_CAP], nodes)
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    mfrom = np.zeros(MAX_MOVES, dtype=np.int64)
    mto = np.zeros(MAX_MOVES, dtype=np.int64)
    cand = np.zeros(MAX_MOVES, dtype=np.int64)
    winners = np.zeros(n_games, dtype=np.int64)
    length = np.zeros(n_games, dtype=np.int64)
    reason = np.zeros(n_games, dtype=np.int64)
    digest = np.zeros(n_games, dtype=np.uint64)
    for g in range(n_games):
        st = rng.game_stream(np.uint64(seed), np.uint64(first_game + g))
        w, n, r, d = play_game(nbr, nbr_mask, fwd_mask, fort_of, zone, dist, bits, init, icfg,
                               st, state, mfrom, mto, cand, legal, apply, seat, rewards,
                               playout, chance, mw)
        winners[g] = w
        length[g] = n
        reason[g] = r
        digest[g] = d
    return winners, length, reason, digest


def play_chunk(seed: np.uint64, first_game: int, n_games: int, icfg: np.ndarray,
               fcfg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Games ``first_game .. first_game + n_games - 1``; game ``g`` draws only from
    ``rng.game_stream(seed, g)``.  Returns ``(winners, length, reason, digest)``:
    three ``int64`` arrays and the ``uint64`` move digests, one entry per game.

    A thin Python call of :func:`play_chunk_kernel` that hands it the agent kernels: a
    ``cfunc`` is a first-class function argument of a compiled function, whereas one
    referenced as a global would be compiled in as an address, which a cached compiled
    function cannot keep across processes."""
    return play_chunk_kernel(np.uint64(seed), np.int64(first_game), np.int64(n_games), icfg,
                             fcfg, *agents.KERNELS)



def play_games(options: dict, seed: int, first_game: int, n_games: int,
               start: tuple[Pieces, int] | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_chunk` with a configuration built from ``options`` (games from
    ``start = (pieces, side)`` when given): ``(winners, length, reason, digest)``."""
    cfg = make_config(options)
    if start is not None:
        cfg = with_start(cfg, *start)
    return play_chunk(np.uint64(seed), np.int64(first_game), np.int64(n_games), cfg.icfg,
                      cfg.fcfg)


SPEC = GameSpec(
    name="trio-board",
    end_reasons=END_REASONS,
    policies={**POLICIES, **SEARCH_POLICIES},
    make_config=make_config,
    play_chunk=play_chunk,
    reference_game=reference_game,
    draw_reasons=DRAW_REASONS,
)
