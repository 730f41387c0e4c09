"""The strength ladders of analysis/ladder.py: pairings, the Python game loop of time
budgets, and the table with its metadata."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from trilab.analysis import ladder
from trilab.solver.rng import game_stream, next_u64
from trilab.solver.tabula_trivium import agents as ta
from trilab.solver.tabula_trivium import game as tt
from trilab.solver.trio_board import agents as tba
from trilab.solver.trio_board import rules as tbr


def _rules(game: str):
    if game == "tabula-trivium":
        return ta.agent_game(), ta.initial_state()
    return tba.agent_game(), tba.initial_state()


def _loop_greedy(game: str, state: np.ndarray, seed: int, g: int) -> tuple[int, int]:
    """The game loop's ``greedy`` turn from the agents' ``state`` (its engine's own
    entry point, drawing from stream ``(seed, g)``) as an agent action, and the
    stream's next output."""
    if game == "tabula-trivium":
        pm, sm, nxt = tt.decide("greedy", ta.pieces_of(state), int(state[ta.S_SIDE]), seed, g)
        stone = (-1, -1) if sm is None else sm
        rules, _ = _rules(game)
        [action] = [a for a in rules.legal(state) if ta.turn_of(a) == (*pm, *stone)]
        return action, nxt
    move, nxt = tbr.choose("greedy", tba.pieces_of(state), int(state[tba.S_SIDE]), "sides",
                           seed, g)
    return tba.action_of(move), nxt


@pytest.mark.parametrize("game", ["tabula-trivium", "trio-board"])
def test_a_python_greedy_turn_is_the_game_loops_greedy_turn(game):
    """The greedy seat of the Python loop plays the turn the game loop's ``greedy``
    policy plays from the same stream, and draws as many numbers."""
    rules, state = _rules(game)
    seat = ladder.python_seat(game, "greedy", {})
    played = 0
    for g in range(12):
        if not rules.legal(state):
            break
        after = state.copy()
        stream = game_stream(np.uint64(3), np.uint64(g))
        seat(after, stream)
        action, nxt = _loop_greedy(game, state, 3, g)
        trial = state.copy()
        rules.apply(trial, action)
        if game == "trio-board":
            trial[tba.S_PLAYOUT] = after[tba.S_PLAYOUT]  # the seat's playout setting
        assert np.array_equal(trial, after), g
        assert int(next_u64(stream)) == nxt
        played += 1
        state = after
    assert played == 12


@pytest.mark.parametrize("game", ["tabula-trivium", "trio-board"])
def test_python_pairing_with_simulations_is_reproducible_and_counts_every_game(game):
    a = ladder.python_pairing(game, "mcts-greedy:20:4", "greedy", 4, 7, {})
    b = ladder.python_pairing(game, "mcts-greedy:20:4", "greedy", 4, 7, {})
    assert {k: v for k, v in a.items() if k != "seconds"} == \
        {k: v for k, v in b.items() if k != "seconds"}
    assert a["games"] == a["wins"] + a["draws"] + a["losses"] == 4
    assert a["win_low"] <= a["win_rate"] <= a["win_high"]


def test_compiled_pairing_splits_games_over_the_seats():
    row = ladder.pairing("trio-board", "greedy", "random", 5, 2, {})
    assert row["games"] == 5 == row["wins"] + row["draws"] + row["losses"]


def test_a_ladder_with_a_time_rung_writes_its_table(tmp_path):
    out = tmp_path / "ladder.csv"
    assert ladder.main(["tabula-trivium", "mcts-greedy:{n}:4", "10,0.002s", "--games", "2",
                        "--seed", "1", "--out", str(out)]) == 0
    table = pd.read_csv(out)
    assert list(zip(table.agent, table.opponent, strict=True)) == [
        ("mcts-greedy:10:4", "greedy"), ("mcts-greedy:0.002s:4", "greedy"),
        ("mcts-greedy:0.002s:4", "mcts-greedy:10:4")]
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert meta["complete"] is True and meta["budgets"] == [10, "0.002s"]
    assert ladder._timed("mcts:0.5s") and not ladder._timed("mcts-greedy:500:4")


def test_a_rerun_keeps_the_finished_pairings_and_plays_only_the_new_ones(tmp_path, monkeypatch):
    """An interrupted or extended ladder resumes: the pairings in the table are kept
    as they are, the missing ones are played; other settings start afresh."""
    out = tmp_path / "ladder.csv"
    base = ["tabula-trivium", "mcts-greedy:{n}:4", "--games", "2", "--seed", "1",
            "--out", str(out)]
    assert ladder.main(base[:2] + ["10,20"] + base[2:]) == 0
    first = pd.read_csv(out)
    played = []
    real = ladder.pairing

    def counting(game, a, b, games, seed, options):
        played.append((a, b))
        return real(game, a, b, games, seed, options)

    monkeypatch.setattr(ladder, "pairing", counting)
    assert ladder.main(base[:2] + ["10,20,30"] + base[2:]) == 0
    assert played == [("mcts-greedy:30:4", "greedy"), ("mcts-greedy:30:4", "mcts-greedy:20:4")]
    again = pd.read_csv(out)
    pd.testing.assert_frame_equal(again.iloc[:3], first)
    assert json.loads(out.with_suffix(".meta.json").read_text())["rows"] == 5
    played.clear()
    assert ladder.main(base[:2] + ["10,20"] + base[2:5] + ["2"] + base[6:]) == 0
    assert len(played) == 3
