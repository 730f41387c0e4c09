"""The contract every registered game passes (one test, parametrised over the registry).

In the spirit of pgx's API test and OpenSpiel's basic tests: a new game in
:mod:`trilab.solver.registry` is checked here without writing any test of its
own for these properties:

* the registry entry agrees with the module (name, end reasons, policies);
* bad configurations raise ``ValueError`` with one clear line;
* the Numba engine equals its pure-Python reference on seeded whole games
  (outcome *and* move digest, or the whole move list);
* the same seed gives identical arrays for any chunking and on a process pool;
* winners, lengths and end reasons are valid;
* the game's golden file (``tests/golden/``) matches: the first games of a
  fixed seed for every example configuration.  ``make golden`` rewrites the
  golden files after a deliberate change, which then shows up as a diff;
* games with agents: their kernels play whole games through the agent API
  (every action legal, a finished game has no actions and valid rewards), a
  playout ends a game, and the MCTS agent picks a legal action, the same one
  for the same stream.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from trilab.analysis import executors
from trilab.analysis.simulation import run_games
from trilab.solver import registry as games

GOLDEN = Path(__file__).parent / "golden"
GOLDEN_SEED = 2026
GOLDEN_GAMES = 12
REFERENCE_GAMES = 6  # per example configuration; the references are slow
ROOT = Path(__file__).resolve().parent.parent

ALL = list(games.GAMES)
SIMULATED = games.simulated()
SOLVABLE = games.solvable()
AGENT_CASES = [(name, options) for name in games.with_agents()
               for options in games.get(name).agent_examples]


def _spec(name: str):
    return games.GAMES[name].load().SPEC


def _key(options: dict) -> str:
    return json.dumps(options, sort_keys=True)


def _golden_text(data: dict) -> str:
    """JSON with one game per line, so a change shows up as a readable diff."""
    lines = ["{", f' "seed": {data["seed"]},', f' "columns": {json.dumps(data["columns"])},',
             ' "configurations": {']
    configs = list(data["configurations"].items())
    for i, (key, rows) in enumerate(configs):
        lines.append(f"  {json.dumps(key)}: [")
        lines += [f"   {json.dumps(r)}" + ("," if j < len(rows) - 1 else "")
                  for j, r in enumerate(rows)]
        lines.append("  ]" + ("," if i < len(configs) - 1 else ""))
    return "\n".join(lines + [" }", "}", ""])


def _compare_or_write(path: Path, data: dict, regen: bool) -> None:
    if regen:
        path.write_text(_golden_text(data))
    assert path.exists(), f"no golden file {path.name}: run `make golden`"
    assert json.loads(path.read_text()) == data, (
        f"{path.name} differs from the engine: a rule or random-stream change? "
        "If deliberate, run `make golden` and commit the diff")


# ------------------------------------------------------------------ every game


@pytest.mark.parametrize("name", ALL)
def test_registry_entry_matches_the_module(name):
    info = games.GAMES[name]
    module, reference = info.load(), info.load_reference()
    assert info.solvable or info.simulated
    assert module.__doc__ and reference.__doc__  # the rules, stated
    assert games.get(name) is info
    if info.simulated:
        spec = module.SPEC
        assert spec.name == name
        assert spec.end_reasons == info.end_reasons
        assert set(spec.policies) == set(info.policies)
        assert set(spec.draw_reasons) <= set(spec.end_reasons)
    if info.solvable:
        assert module.SOLVABLE.name == name
        assert module.SOLVABLE.check_size(module.SOLVABLE.min_size) == module.SOLVABLE.min_size


@pytest.mark.parametrize("name", ALL)
def test_bad_configurations_raise_one_clear_line(name):
    info = games.GAMES[name]
    assert info.bad_options, "every game lists invalid configurations"
    module = info.load()
    check = module.SPEC.make_config if info.simulated else (
        lambda o: module.SOLVABLE.check_size(o["size"]))
    for options, fragment in info.bad_options:
        with pytest.raises(ValueError) as err:
            check(options)
        message = str(err.value)
        assert fragment in message and "\n" not in message, message


def test_unknown_games_are_named():
    with pytest.raises(ValueError, match="unknown game 'chess'; games: trike"):
        games.get("chess")


# ------------------------------------------------------------------ simulated games


@pytest.mark.parametrize("name", SIMULATED)
def test_engine_equals_reference_on_seeded_games(name):
    info, spec = games.GAMES[name], _spec(name)
    for options in info.examples:
        if any(p.startswith(("mcts:", "mcts-")) for p in options.get("policies", [])):
            continue  # the references have no MCTS (see GameInfo.examples)
        config = spec.make_config(options)
        res = run_games(spec, config, REFERENCE_GAMES, seed=5, chunk=4)
        for g in range(REFERENCE_GAMES):
            engine = (int(res.winners[g]), int(res.length[g]), int(res.reason[g]),
                      int(res.digest[g]))
            assert spec.reference_game(5, g, options) == engine, (options, g)


@pytest.mark.parametrize("name", SIMULATED)
def test_same_seed_same_arrays_for_any_chunking(name):
    info, spec = games.GAMES[name], _spec(name)
    config = spec.make_config(info.examples[0])
    n = 60
    base = run_games(spec, config, n, seed=11, chunk=n)
    variants = [run_games(spec, config, n, seed=11, chunk=c) for c in (1, 7)]
    pool = executors.make_executor(jobs=2)
    try:
        variants.append(run_games(spec, config, n, seed=11, executor=pool, chunk=13))
    finally:
        pool.close()
    for v in variants:
        for field in ("winners", "length", "reason", "digest"):
            np.testing.assert_array_equal(getattr(base, field), getattr(v, field))
    other = run_games(spec, config, n, seed=12, chunk=n)
    assert not np.array_equal(base.digest, other.digest)
    assert len(set(base.digest.tolist())) > n // 2  # digests tell games apart


@pytest.mark.parametrize("name", SIMULATED)
def test_outcomes_are_valid(name):
    info, spec = games.GAMES[name], _spec(name)
    for options in info.examples:
        config = spec.make_config(options)
        res = run_games(spec, config, 200, seed=3)
        seats = (1 << config.n_seats) - 1
        assert ((res.winners & ~seats) == 0).all()
        assert (res.length >= 1).all()
        assert ((0 <= res.reason) & (res.reason < len(spec.end_reasons))).all()
        no_winner = np.isin(np.array(spec.end_reasons)[res.reason], spec.draw_reasons)
        np.testing.assert_array_equal(res.winners == 0, no_winner)
        if config.teams:  # partners win together, and only one side wins
            for w in np.unique(res.winners[res.winners > 0]):
                assert any(int(w) == sum(1 << s for s in t) for t in config.teams)
        else:
            assert (np.bitwise_and(res.winners, res.winners - 1) == 0).all()  # one winner
        caps = [k for k in info.options if k.endswith("_cap")]  # what --cap sets
        if caps:  # a game without a cap (like tests/tiny_game's Pile) ends anyway
            assert (res.length <= config.options[caps[0]]).all()


@pytest.mark.parametrize("name", SIMULATED)
def test_golden_games(name, regen_golden):
    info, spec = games.GAMES[name], _spec(name)
    data = {"seed": GOLDEN_SEED, "columns": ["winners", "length", "end_reason", "digest"],
            "configurations": {}}
    for options in info.examples:
        res = run_games(spec, spec.make_config(options), GOLDEN_GAMES, seed=GOLDEN_SEED)
        data["configurations"][_key(options)] = [
            [int(w), int(n), spec.end_reasons[r], f"{int(d):016x}"]
            for w, n, r, d in zip(res.winners, res.length, res.reason, res.digest)]
    _compare_or_write(GOLDEN / f"{name}.json", data, regen_golden)


# ------------------------------------------------------------------ solvable games


@pytest.mark.parametrize("name", SOLVABLE)
def test_engine_equals_reference_on_seeded_whole_games(name):
    info = games.GAMES[name]
    spec = info.load().SOLVABLE
    for options in info.examples:
        for g in range(20):
            engine = spec.seeded_game(options["size"], 9, g)
            assert engine == spec.reference_seeded_game(options["size"], 9, g), (options, g)
            moves, margin = engine
            assert len(set(moves)) == len(moves) >= 2  # no point used twice
            assert margin != 0  # no ties


@pytest.mark.parametrize("name", SOLVABLE)
def test_golden_seeded_games(name, regen_golden):
    info = games.GAMES[name]
    spec = info.load().SOLVABLE
    data = {"seed": GOLDEN_SEED, "columns": ["moves", "margin_of_first_player"],
            "configurations": {_key(o): [list(spec.seeded_game(o["size"], GOLDEN_SEED, g))
                                         for g in range(GOLDEN_GAMES)]
                               for o in info.examples}}
    # JSON turns the tuples into lists; compare in the same form
    data = json.loads(json.dumps(data))
    _compare_or_write(GOLDEN / f"{name}-games.json", data, regen_golden)


@pytest.mark.parametrize("name, options", AGENT_CASES)
def test_agent_kernels_play_whole_games(name, options):
    from trilab.solver.rng import game_stream

    game = games.get(name).load_agents(**options)
    rng = np.random.default_rng(7)
    for g in range(4):
        state = _initial_agent_state(name, options)
        while actions := game.legal(state):
            assert len(actions) == len(set(actions)) <= game.max_actions
            assert 0 <= game.seat(state) < game.n_seats
            game.apply(state, actions[rng.integers(len(actions))])
        rewards = game.rewards(state)
        assert len(rewards) == game.n_seats
        assert all(0.0 <= r <= 1.0 for r in rewards) and sum(rewards) <= 1.0 + 1e-12
        fresh = _initial_agent_state(name, options)
        n, playout_rewards = game.playout(fresh, game_stream(np.uint64(3), np.uint64(g)))
        assert n > 0 and game.legal(fresh) == []
        assert playout_rewards == game.rewards(fresh)


@pytest.mark.parametrize("name, options", AGENT_CASES)
def test_agent_search_is_legal_and_reproducible(name, options):
    from trilab.solver import mcts
    from trilab.solver.rng import game_stream

    game = games.get(name).load_agents(**options)
    state = _initial_agent_state(name, options)
    spec = mcts.AgentSpec(simulations=300)
    a = game.search(state, spec, game_stream(np.uint64(5), np.uint64(0)))
    b = game.search(state, spec, game_stream(np.uint64(5), np.uint64(0)))
    assert a.action in game.legal(state)
    assert (a.action, a.children) == (b.action, b.children)
    assert np.array_equal(state, _initial_agent_state(name, options))
    # root parallelisation (two trees on two threads): as reproducible, every
    # simulation counted once in the merged root
    two = mcts.AgentSpec(simulations=301, threads=2)
    c = game.search(state, two, game_stream(np.uint64(5), np.uint64(0)))
    d = game.search(state, two, game_stream(np.uint64(5), np.uint64(0)))
    assert c.action in game.legal(state)
    assert (c.action, c.children) == (d.action, d.children)
    assert c.simulations == 301 or c.proven  # a tree stops once its root is proven
    assert sum(x.visits for x in c.children) == c.simulations
    assert np.array_equal(state, _initial_agent_state(name, options))
    # tree parallelisation (two threads, one tree; time budgets only): legal, every
    # simulation counted once at the root
    shared = mcts.AgentSpec(seconds=0.02, threads=2, shared_tree=True)
    e = game.search(state, shared, game_stream(np.uint64(5), np.uint64(0)))
    assert e.action in game.legal(state)
    assert sum(x.visits for x in e.children) == e.simulations > 0
    assert np.array_equal(state, _initial_agent_state(name, options))


def _initial_agent_state(name: str, options: dict) -> np.ndarray:
    import importlib

    module = importlib.import_module(games.get(name).agents)
    return module.initial_state(**options)
