"""Tabula Trivium position notation (trilab.solver.tabula_trivium.notation) and
``trilab move tabula-trivium`` (issue 24)."""

from __future__ import annotations

import random

import pytest
from trilab.analysis import move as tmove
from trilab.solver.tabula_trivium import agents as ta
from trilab.solver.tabula_trivium import notation as tn


def test_setup_round_trips():
    assert tn.START == "aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb A"
    pieces, side, ply = tn.parse_position(tn.START)
    assert (pieces, side, ply) == (ta.pieces_of(ta.initial_state()), 0, 0)


def test_positions_of_random_games_round_trip():
    game = ta.agent_game()
    rnd = random.Random(24)
    for _ in range(5):
        state = ta.initial_state()
        while ta.result_of(state)[1] < 0 and state[ta.S_PLY] < 60:
            pieces, side, ply = ta.pieces_of(state), int(state[ta.S_SIDE]), int(state[ta.S_PLY])
            text = tn.format_position(pieces, side, ply)
            assert tn.parse_position(text) == (pieces, side, ply)
            assert tn.format_position(*tn.parse_position(text)) == text
            game.apply(state, rnd.choice(game.legal(state)))


@pytest.mark.parametrize("text, needle", [
    ("", "expected ROWS SIDE"),
    ("aabb/aA.Bb A", "2 rows"),
    ("aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aab A", "row 7 has 3 nodes"),
    ("aabb/aA.Bb/aA..Bb/aA..xBb/aA..Bb/aA.Bb/aabb A", "bad node 'x'"),
    ("aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb C", "A or B"),
    ("aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb A -1", "PLY"),
    ("aabb/aA.Bb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb A 400", "PLY"),
    ("aabb/aAABb/aA..Bb/aA...Bb/aA..Bb/aA.Bb/aabb A", "6 pawns"),
])
def test_bad_positions_give_one_line(text, needle):
    with pytest.raises(tn.NotationError, match=needle) as e:
        tn.parse_position(text)
    assert "\n" not in str(e.value)


def test_move_answers_a_position_and_is_reproducible():
    a = tmove.tabula_move(tn.START, "mcts-greedy:300:4", seed=3)
    b = tmove.tabula_move(tn.START, "mcts-greedy:300:4", seed=3)
    assert a.result.action == b.result.action
    assert a.result.action in ta.agent_game().legal(ta.initial_state())
    assert a.to_json()["move"] == tmove.turn_text(a.result.action)
    with pytest.raises(tmove.AgentInputError, match="unknown agent"):
        tmove.tabula_move(tn.START, "lookahead:2")
