"""The Trio board position notation and ``trilab move trio-board``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from trilab.cli import cli
from trilab.solver.rng import PyRng
from trilab.solver.trio_board import agents as ag
from trilab.solver.trio_board import notation as tn


def _random_positions(n: int, seed: int):
    """States met in random games (played through the agent kernels)."""
    game = ag.agent_game()
    rng = PyRng(seed, 0)
    out = []
    while len(out) < n:
        state = ag.initial_state()
        for _ in range(rng.below(120)):
            legal = game.legal(state)
            if not legal:
                break
            game.apply(state, legal[rng.below(len(legal))])
        out.append(state)
    return out


def test_setup_round_trips():
    pieces, side, ply = tn.parse_position(tn.START)
    assert pieces == ag.pieces_of(ag.initial_state()) and (side, ply) == (0, 0)
    assert tn.format_position(pieces, side, ply) == tn.START
    assert [len(r) for r in tn.rows()] == [5, 7, 9, 11, 11, 9]


def test_positions_of_random_games_round_trip():
    for state in _random_positions(40, 3):
        pieces, side, ply = ag.pieces_of(state), int(state[ag.S_SIDE]), int(state[ag.S_PLY])
        text = tn.format_position(pieces, side, ply)
        assert tn.parse_position(text) == (pieces, side, ply)
        again = ag.from_position(*tn.parse_position(text))
        assert np.array_equal(again[:ag.ENGINE_STATE_SIZE], state[:ag.ENGINE_STATE_SIZE])


@pytest.mark.parametrize("text, words", [
    ("", "ROWS SIDE"),
    (tn.START.replace(" 0", " 3"), "seat to move"),
    (tn.START + " 601", "ply must be"),
    (tn.START + " x", "ply must be"),
    ("O0O0G0O0O0/S0S0S0S0S0S0S0 0", "6 rows"),
    (tn.START.replace("O0O0G0O0O0", "O0O0G0O0"), "row 1 has 5 cells"),
    (tn.START.replace("O0O0G0O0O0", "O0O0G0O0X0"), "row 1"),
    (tn.START.replace("O0O0G0O0O0", "O0O0G0O0G0"), "seat 0 has 2 generals"),
    (tn.START.replace("O0O0G0O0O0", "O0O0G0O0O3"), "row 1"),
])
def test_bad_positions_give_one_line(text, words):
    with pytest.raises(tn.NotationError) as err:
        tn.parse_position(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_trilab_move_answers_a_legal_move():
    state = _random_positions(1, 9)[0]
    if ag.result_of(state)[1] != ag.NO_RESULT:
        state = ag.initial_state()
    text = tn.format_position(ag.pieces_of(state), int(state[ag.S_SIDE]),
                              int(state[ag.S_PLY]))
    for agent in ("mcts:60", "mcts-greedy:60:4"):
        res = CliRunner().invoke(cli, ["move", "trio-board", "--position", text, "--agent",
                                       agent, "--seed", "2", "--json"])
        assert res.exit_code == 0, res.output
        data = json.loads(res.stdout)
        legal = {"pass" if ag.move_of(a) is None else "{}-{}".format(*ag.move_of(a))
                 for a in ag.agent_game().legal(state)}
        assert data["move"] in legal and data["simulations"] == 60
        again = CliRunner().invoke(cli, ["move", "trio-board", "--position", text, "--agent",
                                         agent, "--seed", "2", "--json"])
        assert json.loads(again.stdout)["move"] == data["move"]  # same seed, same move


@pytest.mark.parametrize("args, words", [
    (["--position", "X 0"], "--position"),
    (["--fortress", "moat"], "--fortress"),
    (["--agent", "greedy"], "unknown agent"),
    (["--agent", "mcts-greedy:10:0"], "K must be"),
])
def test_trilab_move_bad_input(args, words):
    base = ["move", "trio-board", "--agent", "mcts:10"]
    res = CliRunner().invoke(cli, base + args)
    assert res.exit_code == 2 and words in res.stderr and res.stderr.count("\n") == 1
