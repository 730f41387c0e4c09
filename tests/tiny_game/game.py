"""Pile, a subtraction game: the engine (Numba) and the registry's ``SPEC``.

Rules: a pile of ``pile`` stones (option, default 15, 1..1000); two seats
take turns, seat 0 first, each taking 1, 2 or 3 stones (never more than are
left); whoever takes the last stone wins.  Every game ends with a winner,
for one reason, "last stone".

Policies (one per seat, or one for both):

* ``random``: takes ``1 + below(min(3, pile))`` stones;
* ``greedy``: takes ``pile % 4`` stones when that is not 0 (the winning
  move), otherwise plays as ``random``.

Game ``g`` draws only from ``rng.game_stream(seed, g)``; the digest folds
in each move's stone count.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.game_api import GameConfig, GameSpec

from . import reference

POLICIES = {"random": "takes 1-3 stones at random", "greedy": "leaves a multiple of 4 if it can"}
POLICY_CODES = {"random": 0, "greedy": 1}
END_REASONS = ("last stone",)
DEFAULT_PILE = 15
MAX_PILE = 1000


@nb.njit(cache=True)
def play_chunk(seed, first_game, n_games, icfg, fcfg):
    """Games ``first_game .. first_game + n_games - 1``: winners, length, reason, digest."""
    winners = np.zeros(n_games, dtype=np.int64)
    length = np.zeros(n_games, dtype=np.int64)
    reason = np.zeros(n_games, dtype=np.int64)
    digest = np.zeros(n_games, dtype=np.uint64)
    for g in range(n_games):
        stream = rng.game_stream(np.uint64(seed), np.uint64(first_game + g))
        pile = icfg[0]
        seat = 0
        turns = 0
        h = np.uint64(0)
        while True:
            take = pile % 4 if icfg[1 + seat] == 1 else 0
            if take == 0:
                take = 1 + rng.below(stream, min(3, pile))
            pile -= take
            turns += 1
            h = rng.digest_step(h, np.int64(take))
            if pile == 0:
                break
            seat = 1 - seat
        winners[g] = 1 << seat
        length[g] = turns
        digest[g] = h
    return winners, length, reason, digest


def make_config(options: dict) -> GameConfig:
    """Validate ``options`` (``pile``, ``policies``); ``ValueError`` with one line."""
    unknown = sorted(set(options) - {"pile", "policies"})
    if unknown:
        raise ValueError(f"unknown pile option(s) {', '.join(map(repr, unknown))}")
    pile = options.get("pile", DEFAULT_PILE)
    if isinstance(pile, bool) or not isinstance(pile, int) or not 1 <= pile <= MAX_PILE:
        raise ValueError(f"pile must be 1..{MAX_PILE} stones, got {pile!r}")
    policies = options.get("policies", ["random"])
    if len(policies) not in (1, 2) or any(p not in POLICY_CODES for p in policies):
        raise ValueError(f"policies: one or two of {', '.join(POLICIES)}, got {policies!r}")
    seats = list(policies) * (2 // len(policies))
    icfg = np.array([pile, *(POLICY_CODES[p] for p in seats)], dtype=np.int64)
    return GameConfig(n_seats=2, seat_policies=tuple(seats), icfg=icfg,
                      fcfg=np.zeros(1, dtype=np.float64),
                      options={"pile": pile, "policies": seats})


SPEC = GameSpec(name="pile", end_reasons=END_REASONS, policies=POLICIES,
                make_config=make_config, play_chunk=play_chunk,
                reference_game=reference.reference_game)
