"""`trilab balance trike`: exact and agent balance tables, JSON, resuming, bad input."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.analysis.trike import balance
from trilab.cli import cli
from trilab.solver.trike import engine as trike


def run(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("size", [2, 5, 7, 10])
def test_opening_classes_match_the_solver_tables(size):
    assert balance.opening_classes(size) == trike.opening_classes(size)


@pytest.mark.parametrize("size", [11, 13, 19])
def test_opening_classes_of_large_boards_are_symmetry_orbits(size):
    classes = balance.opening_classes(size)
    perms = trike.symmetry_permutations(size)
    assert sorted(p for c in classes for p in c) == list(range(trike.n_points(size)))
    for cls in classes:
        assert {int(perms[s][cls[0]]) for s in range(6)} == set(cls)


def test_exact_balance_json_and_files(tmp_path):
    res = run("balance", "trike", "--sizes", "2-5", "--exact", "--out-dir", str(tmp_path),
              "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [s["size"] for s in data["sizes"]] == [2, 3, 4, 5]
    for s in data["sizes"]:
        table = pd.read_csv(f"results/trike/size-{s['size']}.csv")
        assert s["method"] == "exact"
        assert s["placer_wins"] == int((table.winner == "placer").sum())
        assert s["openings_total"] == len(table) == len(s["openings"])
        assert s["pie_value"] == 0.0 and s["pie_value_ci"] == [0.0, 0.0]
        for o in s["openings"]:
            assert o["placer_win_rate"] == o["ci_low"] == o["ci_high"] == \
                (1.0 if o["winner"] == "placer" else 0.0)
        best = {tuple(x) for x in s["best_pie_openings"]}
        mover = table[table.winner == "mover"]
        if len(mover):
            fewest = mover[mover.winning_replies == mover.winning_replies.min()]
            assert best <= {(r.row, r.col) for r in fewest.itertuples()}
    assert data["sizes"][2]["placer_wins"] == 1  # size 4: only the centre (2,1)
    for suffix in (".csv", ".summary.json", ".png", ".meta.json"):
        assert (tmp_path / f"trike-exact{suffix}").exists()
    assert (tmp_path / "trike-by-size.png").stat().st_size > 1000


def test_agent_balance_is_reproducible_and_resumes(tmp_path):
    args = ("balance", "trike", "--sizes", "4,5", "--agent", "mcts:200", "--games", "3",
            "--seed", "9", "--json")
    a = run(*args, "--out-dir", str(tmp_path / "a"))
    assert a.exit_code == 0, a.output
    data = json.loads(a.stdout)
    s4 = data["sizes"][0]
    assert s4["method"] == "agent" and s4["openings_total"] == 10 == len(s4["openings"])
    assert 0.0 <= s4["pie_value"] <= 0.5
    lo, hi = s4["pie_value_ci"]
    assert lo <= s4["pie_value"] <= hi
    assert s4["agreement_with_exact"] is not None
    for o in s4["openings"]:
        assert o["ci_low"] <= o["placer_win_rate"] <= o["ci_high"]
    b = run(*args, "--out-dir", str(tmp_path / "b"), "--jobs", "2")
    assert json.loads(b.stdout) == data  # same seed, same table on a process pool
    rows = pd.read_csv(tmp_path / "a" / "trike-mcts-200.rows.csv")
    again = run(*args, "--out-dir", str(tmp_path / "a"))
    assert json.loads(again.stdout) == data
    assert pd.read_csv(tmp_path / "a" / "trike-mcts-200.rows.csv").equals(rows)


@pytest.mark.parametrize("args, needle", [
    (["--sizes", "5"], "choose --exact or --agent"),
    (["--sizes", "5", "--exact", "--agent", "mcts:5"], "choose --exact or --agent"),
    (["--sizes", "9", "--exact"], "no complete exact table"),
    (["--sizes", "20", "--agent", "mcts:5"], "not in 2..19"),
    (["--sizes", "7", "--agent", "mcts:1s"], "fixed simulation count"),
    (["--sizes", "7", "--agent", "mcts:0"], "at least 1"),
    (["--sizes", "7", "--agent", "mcts:5", "--games", "0"], "0 is not in the range 1<=x"),
    (["--sizes", "seven", "--exact"], "list of integers"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, args, needle):
    res = run("balance", "trike", *args, "--out-dir", str(tmp_path / "o"))
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
    assert not (tmp_path / "o").exists()


def test_json_gives_each_opening_a_verdict(tmp_path):
    res = run("balance", "trike", "--sizes", "4-5", "--exact", "--json", "--out-dir", str(tmp_path))
    assert res.exit_code == 0, res.output
    for size in json.loads(res.stdout)["sizes"]:
        for o in size["openings"]:
            assert o["exact"] and o["verdict"] == ("swap" if o["winner"] == "placer"
                                                   else "do not swap")
    assert balance.verdict("agent", 0.55, 0.8) == "swap"
    assert balance.verdict("agent", 0.2, 0.45) == "do not swap"
    assert balance.verdict("agent", 0.4, 0.7) == "too close to call"
