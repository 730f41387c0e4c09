"""`trilab strength`: labels against brute force, the tables, resuming, bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.analysis.trike import strength as agent_strength
from trilab.cli import cli
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_labels_match_brute_force(tmp_path):
    """Every labelled size-4 position is won by the side to move, and its
    winning moves are exactly the moves to a lost position (reference minimax)."""
    labels = agent_strength.label_positions(4, 12, seed=3, path=tmp_path / "p.json")
    assert [p.index for p in labels] == list(range(12))
    assert [p.stage for p in labels[:3]] == [s[0] for s in agent_strength.STAGES]
    coords = trike.point_coords(4)
    for p in labels:
        pos = trike.parse_position(p.notation, 4)
        board = {coords[i]: ("b" if pos.black >> i & 1 else "w")
                 for i in range(len(coords)) if (pos.black | pos.white) >> i & 1}
        pawn = coords[pos.pawn]
        assert ref.minimax(4, board, pawn)[0] > 0
        winning = {trike.point_index(*d) for d in ref.legal_moves(4, board, pawn)
                   if ref.minimax(4, ref.play(board, d), d)[0] < 0}
        assert set(p.winning) == winning
        assert p.legal == len(ref.legal_moves(4, board, pawn))
        lo, hi = next((s[1], s[2]) for s in agent_strength.STAGES if s[0] == p.stage)
        assert lo <= pos.checkers <= hi


def test_labels_resume_from_their_file(tmp_path):
    path = tmp_path / "p.json"
    first = agent_strength.label_positions(5, 4, seed=8, path=path)
    more = agent_strength.label_positions(5, 7, seed=8, path=path)
    assert more[:4] == first
    assert more == agent_strength.label_positions(5, 7, seed=8, path=tmp_path / "fresh.json")
    with pytest.raises(ValueError, match="seed 8"):
        agent_strength.label_positions(5, 7, seed=9, path=path)


def test_winning_move_study_table_and_resume(tmp_path):
    args = ("strength", "trike", "--sizes", "5", "--positions", "9", "--agents",
            "mcts:50,mcts:3000", "--seed", "2", "--out-dir", str(tmp_path), "--json")
    res = run(*args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    table = pd.read_csv(tmp_path / "trike-5-moves.csv")
    assert len(table) == 2 * 4  # two agents x (all + three stages)
    strong = table[(table.agent == "mcts:3000") & (table.stage == "all")].iloc[0]
    assert strong.positions == 9
    assert strong.ci_low <= strong.winning_move_share <= strong.ci_high
    assert strong.winning_move_share == 1.0  # size 5 is within reach of 3,000 simulations
    assert data["rows"] == json.loads(table.to_json(orient="records"))
    meta = json.loads((tmp_path / "trike-5-moves.meta.json").read_text())
    assert meta["seed"] == 2 and meta["agents"] == ["mcts:50", "mcts:3000"]
    rows = pd.read_csv(tmp_path / "trike-5-moves.rows.csv")
    assert len(rows) == 18
    again = run(*args)  # everything is on record: nothing is recomputed
    assert again.exit_code == 0, again.output
    assert len(pd.read_csv(tmp_path / "trike-5-moves.rows.csv")) == 18
    assert pd.read_csv(tmp_path / "trike-5-moves.csv").equals(table)


def test_openings_study_agrees_on_a_small_board(tmp_path):
    res = run("strength", "trike", "--openings", "--sizes", "3,4", "--agents", "mcts:4000",
              "--games", "3", "--seed", "1", "--out-dir", str(tmp_path))
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "trike-openings-mcts-4000.csv")
    assert len(table) == len(trike.opening_classes(3)) + len(trike.opening_classes(4))
    assert table.agrees.all()  # small boards: the search proves every game
    exact = pd.read_csv("results/trike/size-4.csv")
    for row in table[table["size"] == 4].itertuples():
        assert exact.set_index("point").loc[row.point, "winner"] == row.exact_winner
        assert row.placer_win_rate == (1.0 if row.exact_winner == "placer" else 0.0)
    assert (tmp_path / "trike-openings-mcts-4000.png").stat().st_size > 1000


@pytest.mark.parametrize("args, needle", [
    (["--sizes", "11"], "not in 2..10"),
    (["--sizes", "7,x"], "list of integers"),
    (["--sizes", "5,6"], "one size at a time"),
    (["--positions", "0"], "0 is not in the range 1<=x"),
    (["--agents", "greedy"], "unknown agent"),
    (["--agents", "mcts:0"], "at least 1 simulation"),
    (["--openings", "--agents", "mcts:5,mcts:6"], "give one agent"),
    (["--openings", "--sizes", "9"], "no complete exact table"),
    (["--openings", "--games", "0"], "0 is not in the range 1<=x"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, needle):
    base = ["strength", "trike", "--agents", "mcts:5", "--out-dir", str(tmp_path / "o")]
    res = run(*base, *args)
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
    assert not (tmp_path / "o").exists()


def test_replies_study_against_the_recorded_exact_winners(tmp_path):
    args = ("strength", "trike", "--replies", "--sizes", "7", "--agents", "mcts-solve:30",
            "--games", "1", "--seed", "4", "--out-dir", str(tmp_path))
    res = run(*args)
    assert res.exit_code == 0, res.output
    table = pd.read_csv(tmp_path / "trike-replies-mcts-solve-30.csv")
    record = json.loads(open("results/trike/replies/size-7.replies.json").read())["replies"]
    expected = [(int(o), int(r), v["placer_wins"]) for o, rs in record.items()
                for r, v in rs.items()]
    assert list(zip(table.opening, table.reply, table.exact_winner == "placer",
                    strict=True)) == expected
    assert (table.agreeing_games == table.placer_wins.where(
        table.exact_winner == "placer", table.games - table.placer_wins)).all()
    cal = pd.read_csv(tmp_path / "trike-calibration.csv")
    row = cal[(cal.agent == "mcts-solve:30") & (cal.study == "replies")].iloc[0]
    assert row.total == len(expected) and row.agree == table.agreeing_games.sum()
    assert row.family == "mcts-solve" and row.budget == 30
    assert (tmp_path / "trike-calibration.png").stat().st_size > 1000
    again = run(*args)  # resumed: every position is done, the same table
    assert again.exit_code == 0, again.output
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "trike-replies-mcts-solve-30.csv")
                                  .drop(columns="seconds"), table.drop(columns="seconds"))


def test_calibration_reads_budgets_and_endgame_sizes():
    assert agent_strength._budget("mcts-solve:50000") == ("mcts-solve", 50000.0)
    assert agent_strength._budget("mcts:2s") == ("mcts", 2.0)
    assert agent_strength._budget("mcts-solve:1000:12") == ("mcts-solve:12", 1000.0)
    assert agent_strength._budget("mcts-trap:50000@2") == ("mcts-trap@2", 50000.0)
    assert agent_strength._budget("mcts-trap:0.5s@2:12") == ("mcts-trap@2:12", 0.5)


@pytest.mark.parametrize("args, needle", [
    (["--replies", "--sizes", "6"], "no recorded replies"),
    (["--replies", "--openings", "--sizes", "7"], "not both"),
    (["--replies", "--sizes", "7", "--agents", "mcts:5,mcts:6"], "give one agent"),
    (["--replies", "--sizes", "7", "--agents", "mcts-solve:5:99"], "endgame size"),
])
def test_bad_replies_input_is_one_line_and_writes_nothing(tmp_path, args, needle):
    base = ["strength", "trike", "--agents", "mcts:5", "--out-dir", str(tmp_path / "o")]
    res = run(*base, *args)
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
    assert not (tmp_path / "o").exists()
