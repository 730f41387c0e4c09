"""`trilab simulate`: the Monte Carlo driver on Dask, its statistics and its CLI.

What every simulated game must satisfy (engine = reference, any chunking, valid
outcomes, golden games) is in test_game_contract.py."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.analysis import executors, simulation, stats
from trilab.analysis.simulation import run_games
from trilab.cli import cli
from trilab.solver import montecarlo

GAMES = {
    "trio-cards": {"players": 4, "mode": "spicy", "teams": True, "policies": ["memory", "random"]},
    "tabula-trivium": {"policies": ["greedy", "random"]},
}


def run(*args):
    return CliRunner().invoke(cli, list(args))


def test_dask_gives_the_serial_arrays():
    """Chunking and process pools are in the contract test; Dask is checked here once."""
    spec = montecarlo.load_spec("trio-cards")
    config = spec.make_config(GAMES["trio-cards"])
    base = run_games(spec, config, 300, seed=11, chunk=300)
    dask = executors.make_executor(dask="local:2")
    try:
        by_dask = run_games(spec, config, 300, seed=11, executor=dask, chunk=64)
    finally:
        dask.close()
    for field in ("winners", "length", "reason", "digest"):
        np.testing.assert_array_equal(getattr(base, field), getattr(by_dask, field))


def test_statistics_are_consistent():
    spec = montecarlo.load_spec("trio-cards")
    config = spec.make_config({"players": 3, "policies": ["random"]})
    res = run_games(spec, config, 2000, seed=3)
    s = simulation.summarise(spec, config, res, seed=3)
    wins = sum(x["wins"] for x in s["seats"])
    assert wins + s["draws"] + s["unfinished"] == 2000  # one winner per finished game
    for x in s["seats"]:
        assert x["ci_low"] <= x["win_rate"] <= x["ci_high"]
        assert x["ci_high"] - x["ci_low"] < 0.06
    assert s["fair_share"] == pytest.approx((2000 - s["draws"] - s["unfinished"]) / 2000 / 3)
    lo, hi = s["first_seat_advantage_ci"]
    assert lo <= s["first_seat_advantage"] <= hi
    frame = simulation.per_game_frame(spec, config, res)
    assert len(frame) == 2000 and frame.seat0_win.sum() == s["seats"][0]["wins"]


def test_wilson_interval_from_scipy():
    lo, hi = stats.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


def test_games_per_second_keeps_slow_speeds():
    """A study of a few games a minute records its speed, not 0 (three significant
    figures below 100 games a second, whole games above)."""
    assert simulation._rate(5500 / 31358.834) == 0.175
    assert simulation._rate(12.345) == 12.3
    assert simulation._rate(27512.6) == 27513


def test_cli_json_and_files(tmp_path):
    out = tmp_path / "t.csv"
    res = run("simulate", "trio-cards", "--players", "3", "--policy", "memory,random,random",
              "--games", "500", "--seed", "7", "--json", "--out", str(out))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["game"] == "trio-cards" and data["games"] == 500 and data["seed"] == 7
    assert [s["policy"] for s in data["seats"]] == ["memory", "random", "random"]
    assert set(data) >= {"draws", "unfinished", "mean_length"}
    table = pd.read_csv(out)
    assert list(table.wins) == [s["wins"] for s in data["seats"]]
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert meta["seed"] == 7 and meta["versions"]["numba"]
    assert meta["command"] == ("trilab simulate trio-cards --players 3 --policy "
                               f"memory,random,random --games 500 --seed 7 --json --out {out}")
    rows = pd.read_parquet(out.with_suffix(".parquet"))
    assert len(rows) == 500
    assert out.with_suffix(".png").stat().st_size > 1000
    again = run("simulate", "trio-cards", "--players", "3", "--policy", "memory,random,random",
                "--games", "500", "--seed", "7", "--json", "--jobs", "2", "--out", str(out))
    assert json.loads(again.stdout)["seats"] == data["seats"]


def test_cli_human_report(tmp_path):
    res = run("simulate", "tabula-trivium", "--policy", "greedy,random", "--games", "200",
              "--seed", "1", "--out", str(tmp_path / "x.csv"))
    assert res.exit_code == 0, res.output
    assert "first-seat advantage" in res.stdout and "95% CI" in res.stdout


BAD = [
    (["trio-cards", "--players", "7"], "3..6"),
    (["trio-cards", "--players", "3", "--teams"], "team"),
    (["trio-cards", "--players", "5", "--teams"], "team"),
    (["trio-cards", "--policy", "clever"], "clever"),
    (["trio-cards", "--policy", "forgetful:2"], "forgetful"),
    (["tabula-trivium", "--policy", "lookahead:x"], "lookahead"),
    (["tabula-trivium", "--players", "3"], "--players does not apply to tabula-trivium"),
    (["trio-board", "--fortress", "diagonal"], "unknown fortress option 'diagonal'"),
    (["trio-board", "--policy", "clever"], "unknown policy 'clever'"),
    (["trio-board", "--policy", "random,greedy"], "needs 1 policy (all seats) or 3"),
    (["trio-cards", "--fortress", "row3"], "--fortress does not apply to trio-cards"),
    (["trike"], "not simulated"),
    (["trio-cards", "--dask", "local:0"], "at least 1 worker"),
    (["trio-cards", "--dask", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
]


@pytest.mark.parametrize("args, needle", BAD)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, needle):
    res = run("simulate", *args, "--games", "10", "--out", str(tmp_path / "x.csv"))
    assert res.exit_code == 2, res.output
    # besides the compile notice of a game whose kernels are not cached yet
    # (trilab.solver.compiled: the engine must load before the options are checked)
    lines = [x for x in res.stderr.strip().splitlines() if not x.startswith("trilab: compil")]
    assert len(lines) == 1 and needle in res.stderr, res.stderr
    assert list(tmp_path.iterdir()) == []


def test_games_must_be_positive(tmp_path):
    res = run("simulate", "trio-cards", "--games", "0", "--out", str(tmp_path / "x.csv"))
    assert res.exit_code == 2 and "--games" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_report_collects_the_studies(tmp_path):
    for pol in ("memory", "random"):
        res = run("simulate", "trio-cards", "--players", "3", "--policy", pol, "--games", "300",
                  "--seed", "2", "--out", str(tmp_path / "trio-cards" / f"p3-{pol}.csv"))
        assert res.exit_code == 0, res.output
    rep = run("report", "trio-cards", "--results-dir", str(tmp_path), "--json")
    assert rep.exit_code == 0, rep.output
    rows = json.loads(rep.stdout)
    assert sorted(r["study"] for r in rows) == ["p3-memory", "p3-random"]
    summary = pd.read_csv(tmp_path / "trio-cards" / "summary.csv")
    assert len(summary) == 2 and (summary.games == 300).all()
    assert (tmp_path / "trio-cards" / "summary.png").exists()
    empty = run("report", "tabula-trivium", "--results-dir", str(tmp_path))
    assert empty.exit_code == 2 and "no studies" in empty.stderr


def test_an_interrupted_study_resumes_from_its_saved_chunks(tmp_path, monkeypatch):
    """Every finished chunk is saved beside the table; a rerun plays only the missing
    chunks and gives the uninterrupted run's table; the saved chunks go once it is
    written; other settings start afresh."""
    options = {"players": 3, "policies": ["memory", "random", "deduce"]}
    whole = simulation.simulate("trio-cards", options, 40, seed=3, chunk=10,
                                out=tmp_path / "whole.csv")
    out = tmp_path / "t.csv"
    real = simulation.play_chunk_task
    played = []

    def stops_after_two(game, seed, first, count, icfg, fcfg):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(first)
        return real(game, seed, first, count, icfg, fcfg)

    monkeypatch.setattr(simulation, "play_chunk_task", stops_after_two)
    with pytest.raises(KeyboardInterrupt):
        simulation.simulate("trio-cards", options, 40, seed=3, chunk=10, out=out)
    assert not out.exists()
    assert sorted(p.name for p in out.with_suffix(".chunks").glob("chunk-*")) == [
        "chunk-0.npz", "chunk-10.npz"]
    first_run = json.loads((out.with_suffix(".chunks") / "elapsed.json").read_text())["seconds"]
    assert first_run > 0
    played.clear()

    def counts(game, seed, first, count, icfg, fcfg):
        played.append(first)
        return real(game, seed, first, count, icfg, fcfg)

    monkeypatch.setattr(simulation, "play_chunk_task", counts)
    again = simulation.simulate("trio-cards", options, 40, seed=3, chunk=10, out=out)
    assert played == [20, 30]
    assert again.summary["seats"] == whole.summary["seats"]
    assert again.summary["seconds"] >= round(first_run, 3)  # both runs' time
    assert pd.read_parquet(out.with_suffix(".parquet")).equals(
        pd.read_parquet(tmp_path / "whole.parquet"))
    assert not out.with_suffix(".chunks").exists()
    # chunks of other settings are not taken
    monkeypatch.setattr(simulation, "play_chunk_task", stops_after_two)
    played.clear()
    with pytest.raises(KeyboardInterrupt):
        simulation.simulate("trio-cards", options, 40, seed=3, chunk=10, out=out)
    played.clear()
    monkeypatch.setattr(simulation, "play_chunk_task", counts)
    simulation.simulate("trio-cards", options, 40, seed=4, chunk=10, out=out)
    assert played == [0, 10, 20, 30]
