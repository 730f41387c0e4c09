"""analysis/trio_cards_strength.py: the per-position strength summary and the seat
studies of memory beside deduce."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from trilab.analysis import simulation
from trilab.analysis.trio_cards_strength import (
    main,
    paired,
    seat_comparison,
    summarize,
    team_shares,
)


def test_summary_averages_the_seat_positions(tmp_path):
    prefix = tmp_path / "strength" / "p3-simple-deduce"
    for k in range(3):
        pols = ["memory"] * 3
        pols[k] = "deduce"
        simulation.simulate("trio-cards", {"players": 3, "policies": pols}, 60, seed=k,
                            out=f"{prefix}-seat{k}.csv")
    rows = summarize(str(prefix))
    seats = [json.loads((tmp_path / "strength" / f"p3-simple-deduce-seat{k}.meta.json")
                        .read_text())["seats"][k] for k in range(3)]
    assert [r["wins"] for r in rows[:3]] == [s["wins"] for s in seats]
    mean = rows[3]
    assert mean["position"] == "mean" and mean["games"] == 180
    assert mean["win_rate"] == pytest.approx(sum(s["win_rate"] for s in seats) / 3)
    assert mean["ci_low"] < mean["win_rate"] < mean["ci_high"]
    assert pd.read_csv(f"{prefix}.csv").shape[0] == 4


def test_paired_gains_compare_the_same_games(tmp_path, capsys):
    """Memory in one seat against deduce, game by game against deduce everywhere on the
    same seed: the gain is the difference of the two runs' wins in that seat, and a
    run paired with itself gains nothing on every game."""
    prefix = tmp_path / "p3-simple-memory-vs-deduce"
    base = tmp_path / "p3-simple-deduce-all.csv"
    simulation.simulate("trio-cards", {"players": 3, "policies": ["deduce"]}, 80, seed=9,
                        out=base)
    for k in range(3):
        pols = ["deduce"] * 3
        pols[k] = "memory"
        simulation.simulate("trio-cards", {"players": 3, "policies": pols}, 80, seed=9,
                            out=f"{prefix}-seat{k}.csv")
    rows = paired(str(prefix), str(base))
    b = pd.read_parquet(base.with_suffix(".parquet"))
    for k, r in enumerate(rows[:3]):
        x = pd.read_parquet(f"{prefix}-seat{k}.parquet")[f"seat{k}_win"].astype(int)
        d = x - b[f"seat{k}_win"].astype(int)
        assert r["policy"] == "memory" and r["baseline"] == "deduce"
        assert (r["wins"], r["baseline_wins"]) == (x.sum(), b[f"seat{k}_win"].sum())
        assert r["gain"] == pytest.approx(d.mean())
        assert (r["better"], r["worse"]) == ((d > 0).sum(), (d < 0).sum())
        assert r["ci_low"] <= r["gain"] <= r["ci_high"]
    assert rows[3]["gain"] == pytest.approx(sum(r["gain"] for r in rows[:3]) / 3)
    assert pd.read_csv(f"{prefix}-paired.csv").shape[0] == 4
    same = tmp_path / "same"
    for k in range(3):
        for suffix in (".csv", ".meta.json", ".parquet"):
            (tmp_path / f"same-seat{k}{suffix}").write_bytes(base.with_suffix(suffix).read_bytes())
    assert all(r["gain"] == 0 and r["better"] == r["worse"] == 0
               for r in paired(str(same), str(base)))
    other = tmp_path / "other.csv"
    simulation.simulate("trio-cards", {"players": 3, "policies": ["deduce"]}, 80, seed=10,
                        out=other)
    with pytest.raises(SystemExit, match="not paired"):
        paired(str(same), str(other))
    # the command line: one baseline at a time, and a one-line error with exit code 2
    for argv in ([str(same), "--paired", str(base), "--paired-seats", str(same)],
                 [str(same), "--paired", str(other)],
                 [str(same), str(same), "--paired", str(base)]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "not allowed with argument" in err and "not paired" in err
    assert "Traceback" not in err


def test_paired_with_another_one_seat_study_compares_each_position_with_its_own_run(
        tmp_path):
    """``per_seat``: position k's baseline is the other study's run for position k (random
    in the tested seat, the same deduce opponents, the same seed)."""
    prefix, base = tmp_path / "p3-memory-vs-deduce", tmp_path / "p3-random-vs-deduce"
    for name, pol in ((prefix, "memory"), (base, "random")):
        for k in range(3):
            pols = ["deduce"] * 3
            pols[k] = pol
            simulation.simulate("trio-cards", {"players": 3, "policies": pols}, 40, seed=4,
                                out=f"{name}-seat{k}.csv")
    rows = paired(str(prefix), str(base), per_seat=True)
    for k, r in enumerate(rows[:3]):
        x = pd.read_parquet(f"{prefix}-seat{k}.parquet")[f"seat{k}_win"].astype(int)
        b = pd.read_parquet(f"{base}-seat{k}.parquet")[f"seat{k}_win"].astype(int)
        assert (r["policy"], r["baseline"]) == ("memory", "random")
        assert r["gain"] == pytest.approx((x - b).mean())
    table = tmp_path / "p3-memory-vs-deduce-paired-vs-p3-random-vs-deduce.csv"
    assert pd.read_csv(table).shape[0] == 4
    meta = json.loads(table.with_suffix(".meta.json").read_text())
    assert "--paired-seats" in meta["regenerate"] and len(meta["sources"]) == 6
    (tmp_path / "p3-random-vs-deduce-seat2.csv").unlink()
    with pytest.raises(SystemExit, match="no baseline"):
        paired(str(prefix), str(base), per_seat=True)
    simulation.simulate("trio-cards", {"players": 3, "policies": ["deduce", "memory",
                                                                  "random"]}, 40, seed=4,
                        out=f"{base}-seat1.csv")  # another opponent in seat 2
    with pytest.raises(SystemExit, match="more than seat 1's policy"):
        paired(str(prefix), str(base), per_seat=True)


def test_seat_comparison_puts_memory_beside_deduce_and_infer(tmp_path):
    base = tmp_path / "trio-cards"
    memory = simulation.simulate("trio-cards", {"players": 4, "policies": ["memory"]}, 80,
                                 seed=1, out=base / "p4-simple-memory.csv")
    deduce = simulation.simulate("trio-cards", {"players": 4, "policies": ["deduce"]}, 80,
                                 seed=1, out=base / "deduce" / "p4-simple-deduce.csv")
    simulation.simulate("trio-cards", {"players": 4, "policies": ["deduce", "memory"] * 2}, 20,
                        seed=1, out=base / "deduce" / "mixed.csv")  # not equal players
    simulation.simulate("trio-cards", {"players": 3, "policies": ["memory"]}, 20, seed=1,
                        out=base / "p3-simple-memory.csv")  # no deduce twin
    simulation.simulate("trio-cards", {"players": 4, "teams": True, "policies": ["memory"]},
                        20, seed=1, out=base / "p4-simple-teams-memory.csv")
    simulation.simulate("trio-cards", {"players": 4, "teams": True, "policies": ["deduce"]},
                        20, seed=1, out=base / "deduce" / "p4-simple-teams-deduce.csv")
    infer = simulation.simulate("trio-cards", {"players": 4, "policies": ["infer:2"]}, 12,
                                seed=1, out=base / "infer" / "p4-simple-infer-2.csv")
    comp = seat_comparison(tmp_path)
    assert len(comp) == 2
    assert comp.iloc[1].teams and comp.iloc[1][["infer_games", "infer_advantage"]].isna().all()
    row = comp.iloc[0]
    assert row.infer_games == 12
    assert [row.infer_advantage, row.infer_low, row.infer_high] == pytest.approx(
        [infer.summary["first_seat_advantage"], *infer.summary["first_seat_advantage_ci"]])
    assert row.infer_unfinished == 0
    assert (row.players, row["mode"], bool(row.teams)) == (4, "simple", False)
    assert row.memory_advantage == pytest.approx(memory.summary["first_seat_advantage"])
    assert row.deduce_advantage == pytest.approx(deduce.summary["first_seat_advantage"])
    assert [row.deduce_low, row.deduce_high] == pytest.approx(
        deduce.summary["first_seat_advantage_ci"])
    assert row.memory_games == row.deduce_games == 80
    assert comp.infer_test_gain.isna().all()  # no strength folder: no test
    assert list(comp.strongest) == ["deduce (infer not tested)"] * 2
    assert seat_comparison(tmp_path / "nowhere").empty

    # each table's pre-registered test of infer:64 against deduce, from the strength
    # folder: the committed 4-player simple test, a replication on another seed (not the
    # test), and the 4-player team test with its paired gain's interval moved below 0
    src, dst = Path("results/trio-cards/strength"), base / "strength"
    dst.mkdir()
    for prefix, new in [("p4-simple-infer-64-vs-deduce",) * 2,
                        ("p4-simple-infer-64-vs-deduce", "p4-simple-infer-64-vs-deduce-s9"),
                        ("p4-simple-teams-infer-64-vs-deduce",) * 2]:
        for suffix in (".csv", "-paired.csv", "-seat0.meta.json"):
            shutil.copy(src / f"{prefix}{suffix}", dst / f"{new}{suffix}")
    test = pd.read_csv(src / "p4-simple-infer-64-vs-deduce-paired.csv")
    test = test[test.position.astype(str) == "mean"].iloc[0]
    replication = pd.read_csv(dst / "p4-simple-infer-64-vs-deduce-s9-paired.csv")
    replication[["gain", "ci_low", "ci_high"]] = [-0.5, -0.6, -0.4]
    replication.to_csv(dst / "p4-simple-infer-64-vs-deduce-s9-paired.csv", index=False)
    teams = pd.read_csv(dst / "p4-simple-teams-infer-64-vs-deduce-paired.csv")
    teams["ci_low"] = 0.0  # the interval touches 0: not shown stronger
    teams.to_csv(dst / "p4-simple-teams-infer-64-vs-deduce-paired.csv", index=False)
    comp = seat_comparison(tmp_path)
    assert len(comp) == 2
    row, team_row = comp.iloc[0], comp.iloc[1]
    assert [row.infer_test_gain, row.infer_test_low, row.infer_test_high] == pytest.approx(
        [test.gain, test.ci_low, test.ci_high])
    assert team_row.infer_test_low == 0.0
    assert team_row.strongest == "deduce (infer not confirmed stronger)"
    # the test holds, but the infer table is infer:2, not the infer:64 the test is about
    assert row.infer_policy == "infer:2" and row.strongest == "infer:64 (to play)"
    infer_64 = json.loads((base / "infer" / "p4-simple-infer-2.meta.json").read_text())
    for seat in infer_64["seats"]:
        seat["policy"] = "infer:64"
    (base / "infer" / "p4-simple-infer-2.meta.json").write_text(json.dumps(infer_64))
    assert seat_comparison(tmp_path).iloc[0].strongest == "infer:64"
    # a test read before every seat position is in is not the test's verdict
    partial = pd.read_csv(dst / "p4-simple-infer-64-vs-deduce-paired.csv")
    partial[partial.position.astype(str) != "3"].to_csv(
        dst / "p4-simple-infer-64-vs-deduce-paired.csv", index=False)
    row = seat_comparison(tmp_path).iloc[0]
    assert pd.isna(row.infer_test_gain) and row.strongest == "deduce (infer not tested)"


def test_strength_overview_lists_every_comparison_once_per_baseline(tmp_path):
    """One row per study and paired comparison, read from the committed tables: the
    mean rows' numbers, the seat-0 run's opponents, seed and fair share; a study with
    two comparisons has two rows, one without any a row with empty gains; per-seat
    runs and all-seats controls are not studies."""
    import shutil as sh
    from pathlib import Path

    from trilab.analysis.trio_cards_strength import strength_overview

    src = Path("results/trio-cards/strength")
    names = ["p4-simple-teams-infer-64-vs-deduce", "p3-simple-ismcts-infer-64-vs-deduce-s7400",
             "p3-simple-ismcts-1000-vs-deduce"]
    for name in names:
        for f in src.glob(f"{name}*"):
            if f.suffix in (".csv", ".json") and ("-seat" not in f.stem or "-seat0" in f.stem):
                sh.copy(f, tmp_path / f.name)
    sh.copy(src / "p3-simple-deduce-all-s7400.csv", tmp_path)
    t = strength_overview(tmp_path)
    assert list(t.study) == [names[2], names[1], names[1], names[0]]  # by table, then name
    mean = pd.read_csv(src / f"{names[0]}.csv").iloc[-1]
    pair = pd.read_csv(src / f"{names[0]}-paired.csv").iloc[-1]
    teams = t.iloc[3]
    assert (teams.players, teams["mode"], teams.teams) == (4, "simple", True)
    assert teams.fair_share == 0.5 and teams.opponents == "deduce" and teams.seed == 6400
    assert (teams.games, teams.win_rate, teams.ci_low) == (mean.games, mean.win_rate,
                                                             mean.ci_low)
    assert (teams.baseline, teams.gain, teams.gain_high, teams.better, teams.worse) == (
        "deduce", pair.gain, pair.ci_high, pair.better, pair.worse)
    assert sorted(t[t.study == names[1]].baseline) == ["deduce", "infer:64"]
    alone = t.iloc[0]
    assert alone.policy == "ismcts:1000" and alone.fair_share == pytest.approx(1 / 3)
    assert pd.isna(alone.gain) and pd.isna(alone.better)


def test_team_shares_read_each_team_of_the_equal_team_tables(tmp_path):
    """Team k of a 6-player team table is seats k and k + 3: its win rate and interval are
    that seat's; tables with mixed policies, random play, no teams or other sizes are left
    out; memory comes before deduce, then seeds in order."""
    base = tmp_path / "trio-cards"
    six = {"players": 6, "teams": True}
    runs = [(base / "p6-simple-teams-memory.csv", {**six, "policies": ["memory"]}, 30, 1),
            (base / "strength" / "p6-simple-teams-deduce-all-s8.csv",
             {**six, "policies": ["deduce"]}, 12, 8),
            (base / "deduce" / "p6-simple-teams-deduce.csv", {**six, "policies": ["deduce"]},
             12, 2),
            (base / "strength" / "mixed.csv", {**six, "policies": ["deduce", "memory"] * 3},
             10, 3),
            (base / "p6-simple-teams-random.csv", {**six, "policies": ["random"]}, 10, 4),
            (base / "p6-simple-memory.csv", {"players": 6, "policies": ["memory"]}, 10, 5),
            (base / "p4-simple-teams-memory.csv", {"players": 4, "teams": True,
                                                   "policies": ["memory"]}, 10, 6)]
    for out, options, games, seed in runs:
        simulation.simulate("trio-cards", options, games, seed=seed, out=out)
    t = team_shares(tmp_path)
    assert list(t.study) == ["p6-simple-teams-memory", "p6-simple-teams-deduce",
                             "p6-simple-teams-deduce-all-s8"]
    assert list(t.policy) == ["memory", "deduce", "deduce"] and list(t.seed) == [1, 2, 8]
    for r in t.itertuples():
        meta = json.loads((base / ("." if r.folder == "." else r.folder) /
                           f"{r.study}.meta.json").read_text())
        seats = meta["seats"]
        for k in range(3):
            assert seats[k]["wins"] == seats[k + 3]["wins"]  # partners win together
            assert getattr(r, f"team{k}") == seats[k]["win_rate"]
            assert (getattr(r, f"team{k}_low") <= seats[k]["win_rate"]
                    <= getattr(r, f"team{k}_high"))
        assert r.games == meta["games"] and r.fair_share == pytest.approx(1 / 3)
    assert team_shares(tmp_path / "nowhere").empty


def test_team_glance_marks_intervals_that_miss_the_fair_share():
    from trilab.analysis.report_html import _team_glance

    t = pd.DataFrame([{"study": "s", "folder": "strength", "mode": "simple", "policy": "deduce",
                       "seed": 9, "games": 10000, "fair_share": 1 / 3,
                       "team0": 0.327, "team0_low": 0.318, "team0_high": 0.336,
                       "team1": 0.302, "team1_low": 0.293, "team1_high": 0.311,
                       "team2": 0.371, "team2_low": 0.362, "team2_high": 0.381}])
    g = _team_glance(t).iloc[0]
    assert g["first team (seats 0, 3)"] == "32.7% [31.8, 33.6]"
    assert g["middle team (1, 4)"] == "30.2% [29.3, 31.1] *"
    assert g["last team (2, 5)"] == "37.1% [36.2, 38.1] *"
    assert g["table"] == "6p simple teams" and g["games"] == "10,000"
