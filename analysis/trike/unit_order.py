"""The order in which a split proof tries its units (:func:`trilab.analysis.trike.openings.run`).

A position whose side to move wins is proven by its first winning move, so a
split run tries the moves at a node in some order and stops at the first unit
proven won; every move tried before it is refuted in full, at the cost of a
whole unit.  Two orders:

* ``"search"``: the alpha-beta search's own root order
  (:func:`trilab.analysis.trike.openings.search_order`: moves that end the game,
  then the checker balance around the destination, then the opponent's replies).
  Cheap and static; on size 9 it put the mover's winning move against the
  placer's answer (5,5) to reply (5,4) eighth of eleven, after 267 G nodes of
  refuted and unfinished units.
* ``"agent"``: the MCTS agent's ranking (:data:`AGENT`, a fixed number of
  simulations and a fixed seed per position, so a rerun tries the same order):
  children it proved won first, then by visits, children it proved lost last.
  On that position it ranked the winning move first.

The order never changes a value, only which units run: a unit's row is keyed
by its point, and mirror images are matched by the search order's
representatives whichever order is used.
"""

from __future__ import annotations

import numpy as np
from trilab.solver import rng
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike.engine import TrikePosition

ORDERS = ("search", "agent")
AGENT = "mcts-squeeze:100000"
"""The ranking agent: about half a second a position on size 9 (one thread)."""
SEED = 9_2026
"""The ranking's seed; each position draws from ``game_stream(SEED, its key)``."""


def agent_order(pos: TrikePosition, moves: list[int], agent: str = AGENT) -> list[int]:
    """``moves`` (the legal moves of ``pos``, in any order) ranked by the MCTS
    agent: proven wins for the side to move first, then most visited, proven
    losses last; ties keep the order of ``moves``.  Reproducible: the search
    runs a fixed number of simulations on a stream keyed by the position."""
    if len(moves) <= 1:
        return list(moves)
    spec = trike_agents.parse_agent(agent)
    if spec.spec.simulations is None:
        raise ValueError(f"the ranking agent needs a fixed number of simulations: {agent!r}")
    state = trike_agents.from_position(pos, pie=False)
    key = (pos.black * 1_000_003 + pos.white * 999_983 + pos.pawn) % (1 << 63)
    res = spec.search(pos.size, state, rng.game_stream(np.uint64(SEED), np.uint64(key)))
    stats = {c.action: c for c in res.children}

    def rank(i_move: tuple[int, int]) -> tuple:
        i, m = i_move
        c = stats.get(m)
        if c is None:
            return (1, 0, i)
        won = c.proven and c.value >= 1.0
        lost = c.proven and c.value <= 0.0
        return (0 if won else 2 if lost else 1, -c.visits, i)

    return [m for _, m in sorted(enumerate(moves), key=rank)]
