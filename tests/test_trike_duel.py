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


def test_matched_time_gives_a_exactly_the_seconds_b_took_on_the_same_position(monkeypatch):
    """``equal_time``: before each of A's moves B searches that position (on its shadow
    stream, its move discarded) and A's budget is the seconds B's search took; B's own
    moves draw from the game stream as without the matching."""
    from trilab.solver.trike import agents as trike_agents

    calls = []
    real = trike_agents.TrikeAgent.search

    def spy(self, size, state, stream, max_nodes=None):
        res = real(self, size, state, stream, max_nodes)
        calls.append((self.text, self.spec.seconds, self.spec.threads, state.tobytes(),
                      stream is not None and stream.ctypes.data, res.seconds))
        return res

    monkeypatch.setattr(trike_agents.TrikeAgent, "search", spy)
    row = duel.duel_game(5, "mcts-squeeze:0.5s@2", "mcts:200", 7, 0, equal_time=True)
    a_moves = [i for i, c in enumerate(calls) if c[0] == "mcts-squeeze:0.5s@2"]
    assert len(a_moves) >= 2 and row["a_first"] is True
    overrun = 0.0
    for k, i in enumerate(a_moves):
        timing = calls[i - 1]
        assert timing[0] == "mcts:200" and timing[3] == calls[i][3]  # same position
        # B's seconds less A's mean overrun so far; A's threads
        want = max(timing[5] - overrun / max(k, 1), duel.MIN_BUDGET)
        assert calls[i][1] == pytest.approx(want, abs=1e-12) and calls[i][2] == 2
        overrun += max(calls[i][5] - calls[i][1], 0.0)  # an early stop lends nothing
        assert timing[4] != calls[i][4]  # not the game's stream
    matched = sum(calls[i - 1][5] for i in a_moves) / len(a_moves)
    assert row["matched_seconds_per_move"] == round(matched, 5)
    # B's real moves: the same game stream in every call, never the shadow one
    b_real = [c for j, c in enumerate(calls) if c[0] == "mcts:200" and j + 1 not in a_moves]
    assert b_real and len({c[4] for c in b_real}) == 1
    assert duel.shadow_stream(7, 0)[0] != duel.game_stream(7, 0)[0]


def test_matched_time_lends_no_time_from_an_early_stop(monkeypatch):
    """A move of A that stops before its budget (a proven root) is no negative overrun:
    A's next budget is B's timing on that position, not more."""
    import dataclasses

    from trilab.solver.trike import agents as trike_agents

    budgets, timings = [], []
    real = trike_agents.TrikeAgent.search

    def spy(self, size, state, stream, max_nodes=None):
        res = real(self, size, state, stream, max_nodes)
        if self.text == "mcts:100":
            timings.append(res.seconds)
        else:
            budgets.append(self.spec.seconds)
            if len(budgets) == 1:  # A's first move "proved its root" at once
                res = dataclasses.replace(res, seconds=0.0)
        return res

    monkeypatch.setattr(trike_agents.TrikeAgent, "search", spy)
    duel.duel_game(6, "mcts:0.5s", "mcts:100", 3, 0, equal_time=True)
    assert len(budgets) >= 2
    # timings: B's timing search before each A move, and B's own moves in between
    a_timings = timings[0::2]
    assert budgets[0] == pytest.approx(max(a_timings[0], duel.MIN_BUDGET), abs=1e-12)
    assert budgets[1] == pytest.approx(max(a_timings[1], duel.MIN_BUDGET), abs=1e-12)


def test_matched_time_duel_is_named_and_recorded_apart(tmp_path):
    args = ("duel", "trike", "--size", "4", "--agents", "mcts-squeeze:0.01s,mcts:50",
            "--games", "2", "--seed", "1", "--equal-time", "--out-dir", str(tmp_path))
    res = run(*args)
    assert res.exit_code == 0, res.output
    name = "trike-duel-4-mcts-squeeze-0.01s-vs-mcts-50-equal-time"
    meta = json.loads((tmp_path / f"{name}.meta.json").read_text())
    assert meta["equal_time"] is True and meta["reproducible"] is False
    assert json.loads((tmp_path / f"{name}.rows.json").read_text())["equal_time"] is True
    assert len(pd.read_csv(tmp_path / f"{name}.rows.csv")) == 2
    assert "matched_seconds_per_move" in pd.read_csv(tmp_path / f"{name}.csv")
