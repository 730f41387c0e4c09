"""The walk-through of docs/adding-a-game.md, done: a game added as one package
(``tests/tiny_game/``: engine, reference) plus one registry entry.

With only the entry added, the game is a citizen like the others: the
registry lists it, its engine equals its reference game by game, bad options
give one line, and ``trilab simulate pile`` plays it, writes its table and
gets its facts right (the greedy first player always wins a pile of 15).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from trilab.cli import cli
from trilab.solver import registry
from trilab.solver.game_api import GameInfo

PILE = GameInfo(
    name="pile",
    module="tiny_game.game",
    reference="tiny_game.reference",
    title="Pile (2 players, a test fixture)",
    players=(2,),
    simulated=True,
    options={"pile": "stones at the start, 1..1000", "policies": "one or two policies"},
    policies={"random": "takes 1-3 stones at random", "greedy": "leaves a multiple of 4"},
    end_reasons=("last stone",),
    examples=({"policies": ["random"]}, {"policies": ["greedy", "random"], "pile": 21}),
    bad_options=(({"pile": 0}, "pile must be"), ({"policies": ["clever"]}, "policies")),
)


@pytest.fixture
def with_pile(monkeypatch):
    """The registry with the one entry a new game adds."""
    monkeypatch.setitem(registry.GAMES, PILE.name, PILE)
    return PILE


def test_the_registry_lists_it(with_pile):
    assert registry.get("pile") is with_pile and "pile" in registry.simulated()
    assert with_pile.load().SPEC.end_reasons == with_pile.end_reasons


def test_engine_equals_reference(with_pile):
    spec = with_pile.load().SPEC
    for options in with_pile.examples:
        cfg = spec.make_config(options)
        w, n, r, d = spec.play_chunk(np.uint64(7), np.int64(0), np.int64(40), cfg.icfg, cfg.fcfg)
        for g in range(40):
            assert spec.reference_game(7, g, options) == (int(w[g]), int(n[g]), int(r[g]),
                                                          int(d[g])), (options, g)


def test_bad_options_give_one_line(with_pile):
    spec = with_pile.load().SPEC
    for options, fragment in with_pile.bad_options:
        with pytest.raises(ValueError, match=fragment) as err:
            spec.make_config(options)
        assert "\n" not in str(err.value)


def test_trilab_simulate_plays_it(with_pile, tmp_path):
    out = tmp_path / "pile.csv"
    res = CliRunner().invoke(cli, ["simulate", "pile", "--policy", "greedy,random", "--games",
                                   "200", "--seed", "3", "--json", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    # 15 stones: greedy takes 3 and then always leaves a multiple of 4: seat 0 wins every game
    assert [s["wins"] for s in data["seats"]] == [200, 0]
    assert out.exists() and out.with_suffix(".meta.json").exists()
    res = CliRunner().invoke(cli, ["simulate", "pile", "--policy", "clever", "--games", "5",
                                   "--out", str(tmp_path / "bad.csv")])
    assert res.exit_code == 2 and "policies" in res.stderr


def test_a_second_solvable_game_is_refused_by_the_trike_solvers(monkeypatch):
    """Registering ``solvable=True`` gives the contract tests, not the exact solvers:
    every solver command refuses the game in one line instead of solving Trike."""
    other = GameInfo(name="hex-2", module="tiny_game.game", reference="tiny_game.reference",
                     title="a second solvable game (test)", players=(2,), solvable=True)
    monkeypatch.setitem(registry.GAMES, other.name, other)
    for command in ("solve", "confirm", "margins", "strength", "duel", "analyze"):
        res = CliRunner().invoke(cli, [command, "hex-2"])
        assert res.exit_code == 2, (command, res.output)
        assert "exact solvers are written for trike only" in res.output, command
        assert "Traceback" not in res.output
