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


def test_sequential_sampling_stops_decided_classes_and_resumes_with_a_larger_cap(tmp_path):
    args = ("balance", "trike", "--sizes", "4", "--agent", "mcts:300", "--games", "2",
            "--seed", "5", "--json", "--out-dir", str(tmp_path / "a"))
    res = run(*args, "--max-games", "8")
    assert res.exit_code == 0, res.output
    batches = pd.read_csv(tmp_path / "a" / "trike-mcts-300.rows.csv")
    assert set(batches.games) == {2}
    totals = balance.class_totals(batches)
    for (_size, _k), rec in totals.iterrows():
        lo, hi = balance.sequential_interval(int(rec.placer_wins), int(rec.games), 4)
        decided = lo > 0.5 or hi < 0.5
        assert rec.games == 8 or decided  # a class stops only when decided or at the cap
        earlier = batches[(batches["class"] == _k)].sort_values("first_game")
        assert list(earlier.first_game) == list(range(0, int(rec.games), 2))
        if rec.games > 2:  # it went on because it was not decided one batch earlier
            w = int(earlier.placer_wins.iloc[:-1].sum())
            lo, hi = balance.sequential_interval(w, int(rec.games) - 2, 4)
            assert lo <= 0.5 <= hi
    # one progress line a batch, each round counting up to its number of batches
    lines = [ln.split()[1].rstrip(":") for ln in res.stderr.splitlines()
             if ln.lstrip().startswith("batch ")]
    assert len(lines) == len(batches)
    rounds = [ln.split("/") for ln in lines]
    assert all(int(done) <= int(total) for done, total in rounds)
    assert [int(done) for done, _ in rounds].count(1) == sum(
        1 for done, total in rounds if done == total)
    data = json.loads(res.stdout)["sizes"][0]
    assert data["selection"] == "chosen on the even games, estimated on the odd ones"
    more = run(*args, "--max-games", "12")  # resumes: the first batches are kept
    assert more.exit_code == 0, more.output
    grown = pd.read_csv(tmp_path / "a" / "trike-mcts-300.rows.csv")
    pd.testing.assert_frame_equal(grown.iloc[:len(batches)], batches)
    fresh = run(*args[:-1], str(tmp_path / "b"), "--max-games", "12")
    assert json.loads(fresh.stdout) == json.loads(more.stdout)


def test_pie_value_is_estimated_on_games_that_did_not_choose_the_opening():
    """Class 1 looks best on the even games (4 of 8 won) but its odd games say 1 of 8:
    the pie value is the odd games' estimate, 1/8, not the 4/8 that chose it."""
    size = 3
    classes = balance.opening_classes(size)
    rows = []
    for k, cls in enumerate(classes):
        even, odd = (4, 1) if k == 1 else (0, 0)
        for p in cls:
            r, c = trike.point_coords(size)[p]
            rows.append({"size": size, "method": "agent", "point": p, "row": r, "col": c,
                         "class": k, "winner": "mover", "games": 16,
                         "placer_wins": even + odd, "placer_win_rate": (even + odd) / 16,
                         "ci_low": 0.0, "ci_high": 0.5, "verdict": "do not swap",
                         "swap": False, "exact_winner": None, "games_even": 8,
                         "placer_wins_even": even, "mean_plies": 3.0})
    s = balance.summarise(pd.DataFrame(rows))
    assert s["best_pie_openings"] == [list(trike.point_coords(size)[classes[1][0]])]
    assert s["pie_value"] == 1 / 8
    assert s["pie_value_ci"][0] <= 1 / 8 <= s["pie_value_ci"][1]


def test_each_size_has_its_own_cap_and_its_own_looks(tmp_path):
    """--max-games 3:2,4:6: size 3 plays one batch of 2 a class, size 4 goes on to 6
    with the verdicts of 3 looks; the metadata keeps both caps."""
    out = tmp_path / "caps"
    res = run("balance", "trike", "--sizes", "3-4", "--agent", "mcts:200", "--games", "2",
              "--max-games", "3:2,4:6", "--seed", "3", "--json", "--out-dir", str(out))
    assert res.exit_code == 0, res.output
    totals = balance.class_totals(pd.read_csv(out / "trike-mcts-200.rows.csv"))
    assert set(totals.loc[3].games) == {2}
    for _k, rec in totals.loc[4].iterrows():
        assert rec.games in (2, 4, 6)
        lo, hi = balance.sequential_interval(int(rec.placer_wins), int(rec.games), 3)
        assert rec.games == 6 or lo > 0.5 or hi < 0.5
    meta = json.loads((out / "trike-mcts-200.meta.json").read_text())
    assert meta["max_games_per_class"] == {"3": 2, "4": 6}
    assert meta["looks"] == {"3": 1, "4": 3}
    rows = pd.read_csv(out / "trike-mcts-200.csv")
    for n, n_looks in ((3, 1), (4, 3)):
        for _i, r in rows[rows["size"] == n].iterrows():
            lo, hi = balance.sequential_interval(int(r.placer_wins), int(r.games), n_looks)
            assert r.verdict == balance.verdict("agent", lo, hi)


@pytest.mark.parametrize("spec", ["9-13", "9-13:x", "1-3:5", "4:1"])
def test_a_bad_cap_by_size_is_refused(tmp_path, spec):
    res = run("balance", "trike", "--sizes", "4", "--agent", "mcts:5", "--games", "2",
              "--max-games", spec, "--out-dir", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--max-games" in res.stderr, res.output
    assert "Traceback" not in res.output
    assert not (tmp_path / "o").exists()


def test_max_games_below_the_batch_is_refused(tmp_path):
    res = run("balance", "trike", "--sizes", "4", "--agent", "mcts:5", "--games", "10",
              "--max-games", "4", "--out-dir", str(tmp_path / "o"))
    assert res.exit_code == 2 and "--max-games must be from --games" in res.stderr
    assert not (tmp_path / "o").exists()


def test_swap_maps_take_exact_sizes_from_the_exact_study(tmp_path):
    """trike-swap-maps.png joins every study of the folder, exact where it exists."""
    exact = run("balance", "trike", "--sizes", "3-4", "--exact", "--out-dir", str(tmp_path))
    assert exact.exit_code == 0, exact.output
    agent = run("balance", "trike", "--sizes", "4,5", "--agent", "mcts:50", "--games", "2",
                "--seed", "1", "--out-dir", str(tmp_path))
    assert agent.exit_code == 0, agent.output
    assert (tmp_path / "trike-swap-maps.png").stat().st_size > 1000
    rows = pd.read_csv(tmp_path / "trike-mcts-50.csv")
    summaries = json.loads((tmp_path / "trike-mcts-50.summary.json").read_text())["sizes"]
    assert {s["agent"] for s in summaries} == {"mcts:50"}
    maps, summs = balance.swap_map_sizes(tmp_path, tmp_path / "trike-mcts-50.csv", rows,
                                         tmp_path / "trike-mcts-50.summary.json", summaries)
    assert [(s["size"], s["method"]) for s in summs] == [(3, "exact"), (4, "exact"),
                                                         (5, "agent")]
    assert set(maps[maps["size"] == 4].method) == {"exact"}
    assert len(maps) == trike.n_points(3) + trike.n_points(4) + trike.n_points(5)


def test_agent_balance_plays_boards_beyond_the_bitboard_engine(tmp_path):
    """Sizes 11-19 have no bitboard engine: the agent study must not ask it for their
    opening classes (a size-11 study used to stop with a traceback)."""
    res = run("balance", "trike", "--sizes", "11", "--agent", "mcts:3", "--games", "1",
              "--seed", "2", "--out-dir", str(tmp_path), "--json")
    assert res.exit_code == 0, res.output
    size = json.loads(res.stdout)["sizes"][0]
    assert size["size"] == 11 and size["openings_total"] == 66 == len(size["openings"])


def test_swap_map_colours_verdicts_and_leans():
    """Verdicts keep their colours; a too-close agent opening is tinted by the side that
    won more of its games, grey when even; exact openings are never tinted."""
    close = "too close to call"
    assert balance.map_colour("agent", "swap", 0.7) == balance.VERDICT_COLOURS["swap"]
    assert balance.map_colour("agent", "do not swap", 0.3) == \
        balance.VERDICT_COLOURS["do not swap"]
    assert balance.map_colour("agent", close, 0.6) == \
        balance.LEAN_COLOURS["too close, the placer won more"]
    assert balance.map_colour("agent", close, 0.4) == \
        balance.LEAN_COLOURS["too close, the mover won more"]
    assert balance.map_colour("agent", close, 0.5) == balance.VERDICT_COLOURS[close]
    assert balance.map_colour("exact", "swap", 1.0) == balance.VERDICT_COLOURS["swap"]
    assert len({*balance.VERDICT_COLOURS.values(), *balance.LEAN_COLOURS.values()}) == 5
    assert balance.map_colour("exact", close, 0.6) == balance.VERDICT_COLOURS[close]
