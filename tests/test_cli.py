"""The trilab command line: outputs, files written, and bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def run(*args, cwd=None):
    runner = CliRunner()
    if cwd is None:
        return runner.invoke(cli, list(args))
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return runner.invoke(cli, list(args))
    finally:
        os.chdir(old)


def test_solve_json_and_files(tmp_path):
    out = tmp_path / "t" / "size-4.csv"
    res = run("solve", "trike", "--size", "4", "--tt-mb", "8", "--json", "--out", str(out))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["game"] == "trike" and data["size"] == 4
    assert len(data["openings"]) == 10
    assert set(data["openings"][0]) >= {"row", "col", "winner", "margin", "remoteness",
                                        "winning_replies"}
    assert data["nodes"] > 0 and data["seconds"] >= 0
    table = pd.read_csv(out)
    assert list(table.winner) == [o["winner"] for o in data["openings"]]
    meta = json.loads(out.with_suffix(".meta.json").read_text())
    assert meta["method"] == "alphabeta" and meta["nodes"] == data["nodes"]
    assert "numba" in meta["versions"]
    assert meta["command"] == f"trilab solve trike --size 4 --tt-mb 8 --json --out {out}"
    assert out.with_suffix(".png").stat().st_size > 1000
    # winner and margin agree: the placer wins exactly when its margin is positive
    for o in data["openings"]:
        assert (o["winner"] == "placer") == (o["margin"] > 0)
        assert o["winning_replies"] == 0 or o["winner"] == "mover"


def test_solve_human_output_and_methods_agree(tmp_path):
    a = run("solve", "trike", "--size", "4", "--tt-mb", "8", "--out", str(tmp_path / "a.csv"))
    assert a.exit_code == 0, a.output
    assert "Who wins each opening" in a.stdout and "pie rule" in a.stdout
    b = run("solve", "trike", "--size", "4", "--method", "retrograde", "--out",
            str(tmp_path / "b.csv"), "--db", str(tmp_path / "db.npz"))
    assert b.exit_code == 0, b.output
    cols = ["point", "winner", "margin", "remoteness", "winning_replies", "symmetry_class"]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "a.csv")[cols],
                                  pd.read_csv(tmp_path / "b.csv")[cols])
    assert (tmp_path / "db.npz").exists()


@pytest.mark.parametrize("split", ["class", "replies"])
def test_solve_by_proof_numbers_agrees_with_alphabeta(tmp_path, split):
    ab = run("solve", "trike", "--size", "5", "--win-loss-only", "--tt-mb", "8", "--split", split,
             "--out", str(tmp_path / "ab.csv"))
    assert ab.exit_code == 0, ab.output
    pn = run("solve", "trike", "--size", "5", "--method", "dfpn", "--win-loss-only", "--split",
             split, "--tt-mb", "8", "--json", cwd=tmp_path)
    assert pn.exit_code == 0, pn.output
    table = tmp_path / "results" / "trike" / "dfpn" / "size-5.csv"  # its own default folder
    cols = ["point", "winner", "symmetry_class"]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "ab.csv")[cols], pd.read_csv(table)[cols])
    assert json.loads(table.with_suffix(".meta.json").read_text())["method"] == "dfpn"
    data = json.loads(pn.stdout)  # win/loss only: margins are null, not a crash
    assert data["method"] == "dfpn" and data["openings"][0]["margin"] is None


@pytest.mark.parametrize("split", ["class", "replies"])
def test_solve_with_two_search_threads_gives_the_same_table(tmp_path, split):
    one = run("solve", "trike", "--size", "5", "--tt-mb", "8", "--split", split,
              "--out", str(tmp_path / "one.csv"))
    two = run("solve", "trike", "--size", "5", "--tt-mb", "8", "--split", split,
              "--threads", "2", "--out", str(tmp_path / "two.csv"))
    assert one.exit_code == 0 and two.exit_code == 0, two.output
    cols = ["point", "winner", "margin", "remoteness", "winning_replies", "symmetry_class"]
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "one.csv")[cols],
                                  pd.read_csv(tmp_path / "two.csv")[cols])
    assert json.loads((tmp_path / "two.meta.json").read_text())["threads"] == 2


@pytest.mark.parametrize("extra,message", [
    (["--threads", "0"], "--threads"),
    (["--threads", "2", "--method", "dfpn", "--win-loss-only"], "applies to --method alphabeta"),
])
def test_solve_refuses_bad_thread_counts(tmp_path, extra, message):
    res = run("solve", "trike", "--size", "4", *extra, "--out", str(tmp_path / "x.csv"))
    assert res.exit_code == 2 and message in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.csv").exists()


def test_solve_by_proof_numbers_refuses_what_it_cannot_do(tmp_path):
    res = run("solve", "trike", "--size", "4", "--method", "dfpn", "--out", str(tmp_path / "x.csv"))
    assert res.exit_code == 2
    assert "win/loss only" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "x.csv").exists()
    # an alpha-beta checkpoint is not resumed by df-pn (nor the other way round)
    first = run("solve", "trike", "--size", "4", "--win-loss-only", "--split", "replies",
                "--tt-mb", "8", "--out", str(tmp_path / "y.csv"))
    assert first.exit_code == 0 and (tmp_path / "y.replies.json").exists(), first.output
    res = run("solve", "trike", "--size", "4", "--method", "dfpn", "--win-loss-only",
              "--split", "replies", "--tt-mb", "8", "--out", str(tmp_path / "y.csv"))
    assert res.exit_code == 2 and "'alphabeta-1'" in res.output and "'dfpn-1'" in res.output


def test_default_paths_are_under_results(tmp_path):
    res = run("solve", "trike", "--size", "3", "--tt-mb", "4", cwd=tmp_path)
    assert res.exit_code == 0, res.output
    for name in ("size-3.csv", "size-3.meta.json", "size-3.png"):
        assert (tmp_path / "results" / "trike" / name).exists()


def test_analyze_database_and_search_agree(tmp_path):
    db = tmp_path / "size-4.npz"
    assert run("solve", "trike", "--size", "4", "--method", "retrograde", "--out",
               str(tmp_path / "s.csv"), "--db", str(db)).exit_code == 0
    pos = "b/.W/.../...."
    with_db = run("analyze", "trike", "--size", "4", "--position", pos, "--db", str(db), "--json")
    search = run("analyze", "trike", "--size", "4", "--position", pos, "--json", "--tt-mb", "4",
                 cwd=tmp_path)
    assert with_db.exit_code == 0 and search.exit_code == 0, with_db.output + search.output
    a, b = json.loads(with_db.stdout), json.loads(search.stdout)
    assert a.pop("source") == "database" and b.pop("source") == "search"
    assert a == b
    assert a["to_move"] == "b"
    assert a["winner"] == ("b" if a["margin"] > 0 else "w")
    best = max(m["margin"] for m in a["moves"])
    assert best == a["margin"]


def test_analyze_terminal_position():
    res = run("analyze", "trike", "--size", "2", "--position", "b/Wb", "--json", "--tt-mb", "1")
    # b/Wb: w to move? counts b=2, w=1 -> w to move, but the pawn is on w: invalid
    assert res.exit_code == 2
    res = run("analyze", "trike", "--size", "2", "--position", "b/wB", "--json", "--tt-mb", "1")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["moves"] == [] and data["remoteness"] == 0
    assert data["to_move"] == "w" and data["margin"] == -1 and data["winner"] == "b"


BAD = [
    (["solve", "chess", "--size", "5"], "unknown game 'chess'"),
    (["solve", "tabula-trivium", "--size", "5"], "cannot be solved exactly"),
    (["solve", "trike", "--size", "11"], "not exactly solvable here"),
    (["solve", "trike", "--size", "1"], "2..10"),
    (["solve", "trike", "--size", "five"], "'five' is not a valid integer"),
    (["solve", "trike", "--size", "8", "--method", "retrograde"], "use --method alphabeta"),
    (["solve", "trike", "--size", "5", "--tt-mb", "0"], "--tt-mb"),
    (["analyze", "trike", "--size", "3", "--position", "B/../.."], "row 2 has 2 cells"),
    (["analyze", "trike", "--size", "4", "--position", "B/../..."], "board size is 4"),
    (["analyze", "trike", "--size", "3", "--position", "b/../..."], "no pawn"),
    (["analyze", "trike", "--size", "3", "--position", "B/.q/..."], "unknown character"),
    (["analyze", "trike", "--size", "3", "--position", "B/bb/..."], "one more"),
    (["move", "trike", "--size", "7", "--agent", "alphazero"], "unknown agent"),
    (["move", "trike", "--size", "7", "--agent", "mcts:0"], "at least 1 simulation"),
    (["move", "trike", "--size", "7", "--agent", "mcts:-3s"], "at least 0.001 s"),
    (["move", "trike", "--size", "7", "--agent", "mcts:0.0001s"], "at least 0.001 s"),
    (["move", "trike", "--size", "20", "--agent", "mcts:10"], "not in 2..19"),
    (["move", "trike", "--size", "1", "--agent", "mcts:10"], "not in 2..19"),
    (["move", "trike", "--agent", "mcts:10"], "give --size"),
    (["move", "trike", "--position", "B/bw", "--agent", "mcts:10"], "game is over"),
    (["move", "trike", "--size", "4", "--position", "B/../...", "--agent", "mcts:10"],
     "board size is 4"),
    (["move", "trike", "--position", "b/.q/B..", "--agent", "mcts:10"], "unknown character"),
    (["move", "trio-cards", "--agent", "mcts:10"], "has no agents"),
]


@pytest.mark.parametrize("args, needle", BAD)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, needle):
    res = run(*args, "--out", str(tmp_path / "x.csv")) if args[0] == "solve" else run(*args)
    assert res.exit_code == 2, res.output
    err = res.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert needle in err
    assert "Traceback" not in res.output
    assert list(tmp_path.iterdir()) == []


def test_move_json_reports_the_search():
    res = run("move", "trike", "--size", "6", "--agent", "mcts:3000", "--seed", "4", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["simulations"] == 3000 and data["seconds"] >= 0
    assert set(data["move"]) == {"row", "col"}
    assert len(data["visits"]) == 21  # every opening point
    assert sum(v["visits"] for v in data["visits"]) == 3000
    top = data["visits"][0]
    assert (top["row"], top["col"]) == (data["move"]["row"], data["move"]["col"])
    assert 0.0 <= data["value"] <= 1.0
    again = run("move", "trike", "--size", "6", "--agent", "mcts:3000", "--seed", "4", "--json")
    assert json.loads(again.stdout)["visits"] == data["visits"]  # same seed, same search


def test_move_offers_the_swap_after_the_opening():
    """One checker on the board and the pie rule: the mover's choices include
    the swap (reported as "swap"); without the pie rule they do not."""
    res = run("move", "trike", "--position", "./B./...", "--agent", "mcts:400", "--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["to_move"] == "w"
    assert any(v.get("swap") for v in data["visits"])
    res = run("move", "trike", "--position", "./B./...", "--agent", "mcts:400", "--json",
              "--no-pie")
    assert not any(v.get("swap") for v in json.loads(res.stdout)["visits"])


def test_move_plays_a_forced_win_and_says_it_is_proven():
    # size 3, w to move: (1,0) traps the pawn with w to score 2 of 3
    res = run("move", "trike", "--position", "b/.w/B..", "--agent", "mcts:500")
    assert res.exit_code == 0, res.output
    assert "move (1,0)" in res.stdout and "(proven)" in res.stdout


def test_move_on_a_large_board():
    res = run("move", "trike", "--size", "19", "--agent", "mcts:300", "--json")
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["visits"]) == 190


def test_console_script_error_is_one_line(tmp_path):
    """The real entry point (subprocess): one stderr line, exit 2, nothing written."""
    proc = subprocess.run(
        [sys.executable, "-m", "trilab.cli", "solve", "trike", "--size", "12"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "not exactly solvable" in proc.stderr
    assert proc.stdout == "" and not (tmp_path / "results").exists()


def test_installed_under_trilab_only(tmp_path):
    """Installing trilab adds one import name: `trilab.solver` imports from any
    folder, the generic names `solver`, `analysis` and `cli` do not."""
    def imports(module: str) -> bool:
        proc = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=tmp_path,
                              capture_output=True, text=True)
        return proc.returncode == 0

    assert imports("trilab.solver.trike.engine") and imports("trilab.analysis.executors")
    assert imports("trilab.cli")
    for generic in ("solver", "analysis", "cli"):
        assert not imports(generic), generic


def test_commands_import_only_what_they_need(tmp_path):
    """`trilab --help` loads no heavy library; a solve loads no Dask or statistics."""
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from trilab.cli import cli\n"
        "heavy = ('numba', 'pandas', 'matplotlib', 'dask', 'distributed', 'scipy.stats')\n"
        "CliRunner().invoke(cli, ['--help']); CliRunner().invoke(cli, ['simulate', '--help'])\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "r = CliRunner().invoke(cli, ['solve', 'trike', '--size', '2', '--out', 'o/s.csv'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    help_mods, solve_mods = proc.stdout.splitlines()
    assert help_mods == "[]"
    assert "dask" not in solve_mods and "scipy.stats" not in solve_mods and "numba" in solve_mods


def test_console_script_exempts_objects_from_the_collector_at_exit():
    """`main` ends with gc.freeze(), so shutdown does not walk every object
    (about a third of a second of a short command), and keeps click's exit code."""
    code = ("import gc, sys\n"
            "from trilab.cli import main\n"
            "sys.argv = ['trilab', 'solve', 'nosuchgame', '--size', '3']\n"
            "try:\n"
            "    main()\n"
            "except SystemExit as e:\n"
            "    print(e.code, gc.get_freeze_count() > 0)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.stdout.split() == ["2", "True"], proc.stderr
