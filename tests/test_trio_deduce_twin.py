"""The compiled belief and ``deduce`` against their plain-Python twin, position by position.

``solver/trio_cards/reference_deduce.py`` restates the belief (a memoised
recursion over the values whose state is the fill of every container) and the
``deduce`` rules on the reference table, sharing no code with the engine.  On
positions met on random walks (``random_states``: trios, wins, team swaps and
forgotten records included) of every table size, both modes and team play,
for every seat: the exact belief has a consistent deal in both or in neither,
every probability of an unknown hand position and of an unknown middle card
agrees to 1e-12, and ``deduce`` chooses the same reveal.  (The whole-game
comparison in ``test_game_contract.py`` meets few positions; this one meets
hundreds.)  Six-player beliefs are slow in the twin, so those tables get fewer
positions, and the six-player table without teams takes only positions
after a trio (before one, a position costs the twin up to half a minute).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_trio_belief import bounds, deduce_of
from test_trio_cards import random_states, to_engine
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards import game as tc
from trilab.solver.trio_cards import reference as ref
from trilab.solver.trio_cards import reference_deduce as rd

TOL = 1e-12
CASES = [  # players, teams, mode, positions, trios taken at least
    (3, False, "simple", 30, 0), (3, False, "spicy", 30, 0),
    (4, False, "simple", 20, 0), (4, False, "spicy", 20, 0), (4, True, "simple", 20, 0),
    (4, True, "spicy", 20, 0), (5, False, "simple", 4, 0), (5, False, "spicy", 4, 0),
    (6, True, "simple", 4, 0), (6, True, "spicy", 4, 0), (6, False, "simple", 5, 1),
]


@pytest.mark.parametrize("players, teams, mode, count, trios", CASES)
def test_belief_and_deduce_equal_their_python_twin(players, teams, mode, count, trios):
    _, n_mid = tc.DEAL[(players, teams)]
    compared = choices = 0
    for table, _ in random_states(players, teams, mode, 40 * count, seed=31 + players):
        if len(table.trios) < trios:
            continue
        if choices == count * players:
            break
        st, bnd = to_engine(table), bounds(table)
        for o in range(players):
            z, hand, middle = bl.belief_marginals(st, bnd, o, players, n_mid)
            twin = rd.Belief(table, o)
            assert (z > 0) == (twin.z > 0), (o, z, twin.z)
            if z > 0:
                for q in range(players):
                    for i in range(table.full_size(q)):
                        if q == o or st.hknow[o, q, i]:
                            continue
                        want = [twin.position(q, i, v) for v in range(1, 13)]
                        np.testing.assert_allclose(hand[q, i, 1:], want, rtol=0, atol=TOL)
                        compared += 1
                for j in range(n_mid):  # every unknown middle card has the same law
                    if st.mid[j] and not st.mknow[o, j]:
                        want = [twin.middle(j, v) for v in range(1, 13)]
                        np.testing.assert_allclose(middle[1:], want, rtol=0, atol=TOL)
            got = deduce_of(st, bnd, o, players, n_mid, teams, mode)
            action = rd.deduce_choice(table, o)
            assert got == (-1 if action is None else ref.reveal_code(action)), (o, action)
            choices += 1
    assert choices == count * players and compared > count  # the checks ran
