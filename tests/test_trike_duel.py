"""`trilab duel trike`: two agents, each first in half the games; resume; bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.analysis.trike import duel
from trilab.cli import cli


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_duel_table_seats_and_resume(tmp_path):
    args = ("duel", "trike", "--size", "5", "--agents", "mcts-solve:40,mcts:40", "--games", "6",
            "--seed", "3", "--out-dir", str(tmp_path), "--json")
    res = run(*args)
    assert res.exit_code == 0, res.output
    name = "trike-duel-5-mcts-solve-40-vs-mcts-40"
    rows = pd.read_csv(tmp_path / f"{name}.rows.csv").sort_values("game")
    assert list(rows.game) == list(range(6)) and list(rows.a_first) == [True, False] * 3
    table = pd.read_csv(tmp_path / f"{name}.csv")
    assert list(table.games_of) == ["all games", "A first", "A second"]
    assert list(table.games) == [6, 3, 3]
    assert table.a_wins.iloc[0] == table.a_wins.iloc[1] + table.a_wins.iloc[2] == rows.a_wins.sum()
    assert json.loads(res.stdout)["rows"][0]["games"] == 6
    meta = json.loads((tmp_path / f"{name}.meta.json").read_text())
    assert meta["seed"] == 3 and meta["reproducible"] is True and meta["pie_rule"] is False
    again = run(*args[:-1])  # resumed: nothing left to play, the same table
    assert again.exit_code == 0, again.output
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / f"{name}.csv"), table)


def test_duel_game_is_reproducible_from_its_seed():
    """Replaying game g with the same stream gives the same game (simulation budgets)."""
    a = duel.duel_game(4, "mcts:30", "mcts-solve:30", 5, 1)
    b = duel.duel_game(4, "mcts:30", "mcts-solve:30", 5, 1)
    assert {k: v for k, v in a.items() if "seconds" not in k} == \
        {k: v for k, v in b.items() if "seconds" not in k}
    assert a["a_first"] is False and 2 <= a["plies"] <= 9


def test_a_perfect_size_4_duel_follows_the_exact_winner():
    """Size 4: enough simulations prove every game, so the agent with the first move
    wins exactly when the exact table says the opening it picks is a placer win, and
    the same agent on both sides makes A win exactly the games where it was placer."""
    exact = pd.read_csv("results/trike/size-4.csv")
    placer_wins_somewhere = bool((exact.winner == "placer").any())
    rows = pd.DataFrame([duel.duel_game(4, "mcts:3000", "mcts:3000", 1, g) for g in range(4)])
    assert (rows.a_wins == rows.a_first).all() == placer_wins_somewhere
    table = duel.summarise(4, "mcts:3000", "mcts:3000", rows)
    assert table.games.tolist() == [4, 2, 2]


@pytest.mark.parametrize("args, needle", [
    (["--agents", "mcts:5"], "two agents"),
    (["--agents", "mcts:5,greedy"], "unknown agent"),
    (["--size", "20"], "20 is not in the range"),
    (["--games", "0"], "0 is not in the range"),
])
def test_bad_duel_input_is_one_line_and_writes_nothing(tmp_path, args, needle):
    base = ["duel", "trike", "--size", "5", "--agents", "mcts:5,mcts:6",
            "--out-dir", str(tmp_path / "o")]
    res = run(*base, *args)
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
    assert not (tmp_path / "o").exists()
