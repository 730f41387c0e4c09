"""Trio (1917) board game's agent kernels (trilab.solver.trio_board.agents) and the mcts:N policy.

The kernels against the engine's move lists and the pure-Python reference:
legal actions (with the explicit pass), the state after each action, end
rules and rewards on whole games (random actions, random playouts, a ply
cap, ``lost_general=remove``); the MCTS agent on them (takes an immediate
Fortress entry, blocks an opponent's, per-seat rewards in the tree,
reproducible); ``mcts:N`` in the Monte Carlo study (parsing, chunking, the
same moves as the Python search, the command line).

What every game with agents must satisfy (whole games through the agent API,
playouts, a legal reproducible search) is in test_game_contract.py.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from click.testing import CliRunner
from trilab.solver import mcts
from trilab.solver import rng as rngmod
from trilab.solver.rng import PyRng, py_digest_step
from trilab.solver.trio_board import agents as ag
from trilab.solver.trio_board import board as tbb
from trilab.solver.trio_board import game as tb_game
from trilab.solver.trio_board import reference as ref
from trilab.solver.trio_board import rules as tb

OPTIONS = tbb.FORTRESS_OPTIONS
LOST = tb.LOST_GENERAL_OPTIONS
F0, F1, F2 = (tbb.FORT_BASE + s for s in range(3))
NODES = tbb.N_NODES


def G(seat: int) -> tuple[int, str]:
    return seat, "general"


def S(seat: int) -> tuple[int, str]:
    return seat, "soldier"


def _stream(seed: int, game: int = 0) -> np.ndarray:
    return rngmod.game_stream(np.uint64(seed), np.uint64(game))


# ------------------------------------------------------------------ the reference, ply by ply


class RefGame:
    """A game replayed by the reference rules, ply by ply (the loop of
    ``trio_board_reference.reference_game`` with given moves)."""

    def __init__(self, pieces: dict, side: int, cap: int, lost: str, fortress: str,
                 ply: int = 0):
        self.pieces, self.side, self.ply = dict(pieces), side, ply
        self.cap, self.lost, self.fortress = cap, lost, fortress
        self.winners, self.reason, self.digest = 0, -1, 0
        if lost == "remove":
            self.pieces = {c: p for c, p in self.pieces.items()
                           if ref.has_general(self.pieces, p[0])}
        if not any(k == "general" for _, k in self.pieces.values()):
            self.reason = ref.REASONS.index("no generals")
        else:
            self._next_turn()

    def _next_turn(self) -> None:
        if self.lost == "remove":
            while not ref.has_general(self.pieces, self.side):
                self.side = (self.side + 1) % 3
        if self.ply >= self.cap:
            self.reason = ref.REASONS.index("ply cap")

    def moves(self) -> list:
        """The moves of the seat to move, ``[None]`` for a pass, ``[]`` once over."""
        if self.reason >= 0:
            return []
        return ref.legal_moves(self.pieces, self.side, self.fortress) or [None]

    def play(self, move) -> None:
        assert self.reason < 0
        self.ply += 1
        mover = self.side
        self.side = (self.side + 1) % 3
        if move is None:
            self.digest = py_digest_step(self.digest, ref.PASS)
        else:
            self.digest = py_digest_step(self.digest, move[0] * ref.NODES + move[1])
            self.pieces, r = ref.after_move(self.pieces, move, self.lost)
            if r >= 0:
                self.reason = r
                self.winners = 1 << mover if r == ref.REASONS.index("fortress") else 0
                return
        self._next_turn()


def random_positions(fortress: str, rnd: random.Random, n: int) -> list[tuple[dict, int, int]]:
    """Positions ``(pieces, side, ply)`` of random games by the reference rules (default
    cap), before their end, from the setup or from scattered pieces."""
    out = []
    while len(out) < n:
        if rnd.random() < 0.7:
            pieces = ref.setup()
        else:
            pieces = {c: (rnd.randrange(3), rnd.choice(["soldier", "officer"]))
                      for c in range(52) if rnd.random() < 0.4}
            for s in range(3):  # a General may replace another: some seats have none
                if rnd.random() < 0.8:
                    pieces[rnd.randrange(52)] = G(s)
        game = RefGame(pieces, rnd.randrange(3), 600, "keep", fortress)
        for _ in range(rnd.randrange(0, 200)):
            moves = game.moves()
            if not moves:
                break
            before = (game.pieces, game.side, game.ply)
            game.play(rnd.choice(moves))
            if game.reason >= 0:
                game.pieces, game.side, game.ply = before
                break
        if game.reason < 0 and sum(k == "general" for _, k in game.pieces.values()) <= 3:
            out.append((game.pieces, game.side, game.ply))
    return out


def check_same(state: np.ndarray, game: RefGame) -> None:
    """The agents' state is the reference game's position and result."""
    assert ag.pieces_of(state) == game.pieces
    assert int(state[ag.S_PLY]) == game.ply
    if game.reason >= 0:
        assert ag.result_of(state) == (game.winners, game.reason)
    else:
        assert ag.result_of(state) == (0, ag.NO_RESULT)
        assert int(state[ag.S_SIDE]) == game.side


# ------------------------------------------------------------------ kernels = reference


@pytest.mark.parametrize("fortress", OPTIONS)
def test_legal_actions_and_their_states_match_engine_and_reference(fortress):
    game = ag.agent_game(fortress)
    rnd = random.Random(f"agents {fortress}")
    n_actions = 0
    for pieces, side, ply in random_positions(fortress, rnd, 40):
        for lost in LOST:
            state = ag.from_position(pieces, side, ply, 600, lost)
            rg = RefGame(pieces, side, 600, lost, fortress, ply)
            check_same(state, rg)
            actions = game.legal(state)
            moves = rg.moves()
            assert actions == [ag.action_of(m) for m in moves]
            if moves != [None]:
                assert moves == tb.legal(rg.pieces, rg.side, fortress)  # the engine's list
            assert game.seat(state) == rg.side
            for a in rnd.sample(actions, min(6, len(actions))):
                after = state.copy()
                game.apply(after, a)
                step = RefGame(rg.pieces, rg.side, 600, lost, fortress, ply)
                step.play(ag.move_of(a))
                check_same(after, step)
                assert (game.legal(after) == []) == (step.reason >= 0)
            n_actions += len(actions)
    assert n_actions > 500


def test_a_seat_without_moves_passes_with_one_explicit_action():
    state = ag.from_position({26: G(1), 40: S(2)}, 0, 0, 10)
    game = ag.agent_game()
    assert game.legal(state) == [ag.PASS_ACTION] and ag.move_of(ag.PASS_ACTION) is None
    game.apply(state, ag.PASS_ACTION)
    assert (int(state[ag.S_SIDE]), int(state[ag.S_PLY])) == (1, 1)
    assert ag.pieces_of(state) == {26: G(1), 40: S(2)}


def test_start_rules_of_a_position():
    game = ag.agent_game()
    state = ag.initial_state()
    assert state.shape == (ag.STATE_SIZE,) and ag.pieces_of(state) == tbb.initial_pieces()
    assert (state[ag.S_SIDE], state[ag.S_PLY], state[ag.S_PLY_CAP]) == (0, 0, 600)
    assert list(state[ag.S_GENERAL:ag.S_GENERAL + 3]) == [2, 33, 41]
    assert game.legal(state) == [a * NODES + b for a, b in tb.legal(tbb.initial_pieces(), 0)]
    none = ag.from_position({14: S(0)}, 0)  # no General: over at once, no ply
    assert game.legal(none) == [] and ag.result_of(none) == (0, tb.R_NO_GENERALS)
    assert game.rewards(none) == [0.0, 0.0, 0.0]
    capped = ag.from_position({26: G(1)}, 0, 5, 5)
    assert game.legal(capped) == [] and ag.result_of(capped) == (0, tb.R_PLY_CAP)
    removed = ag.from_position({14: S(0), 26: G(1)}, 0, 0, 600, "remove")
    assert ag.pieces_of(removed) == {26: G(1)} and removed[ag.S_SIDE] == 1
    kept = ag.from_position({14: S(0), 26: G(1)}, 0, 0, 600, "keep")
    assert game.seat(kept) == 0 and game.legal(kept) == [14 * NODES + 13, 14 * NODES + 15,
                                                         14 * NODES + 24]


@pytest.mark.parametrize("bad, needle", [
    ({"ply_cap": 0}, "ply_cap"), ({"lost_general": "vanish"}, "lost_general"),
    ({"fortress": "diagonal"}, "unknown fortress option")])
def test_bad_agent_options_give_one_line(bad, needle):
    for make in (ag.agent_game, ag.initial_state):
        with pytest.raises(ValueError) as err:
            make(**bad)
        assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("fortress", OPTIONS)
@pytest.mark.parametrize("lost", LOST)
def test_random_games_through_the_agent_api_end_like_the_reference(fortress, lost):
    """Uniform actions drawn like the ``random`` policy: the reference's game, digest
    included (so every pass and skipped turn agrees)."""
    game = ag.agent_game(fortress, 600, lost)
    options = {"policies": ["random"], "fortress": fortress, "lost_general": lost}
    rnd = random.Random(f"starts {fortress} {lost}")
    starts = [None] + [(p, s) for p, s, _ in random_positions(fortress, rnd, 3)]
    for g, start in enumerate(starts):
        cap = 600 if g % 2 == 0 else 40
        opts = {**options, "ply_cap": cap}
        state = (ag.initial_state(fortress, cap, lost) if start is None
                 else ag.from_position(start[0], start[1], 0, cap, lost))
        rng, digest, plies = PyRng(9, g), 0, 0
        while actions := game.legal(state):
            a = actions[rng.below(len(actions))] if len(actions) > 1 else actions[0]
            digest = py_digest_step(digest, a)
            game.apply(state, a)
            plies += 1
        winners, reason = ag.result_of(state)
        assert ref.reference_game(9, g, opts, start=start) == (winners, plies, reason, digest)
        assert int(state[ag.S_PLY]) == plies
        assert game.rewards(state) == [float(winners >> s & 1) for s in range(3)]


@pytest.mark.parametrize("fortress, lost, cap", [("sides", "keep", 600), ("row3", "remove", 600),
                                                 ("general", "keep", 50)])
def test_playouts_are_the_engines_random_games(fortress, lost, cap):
    game = ag.agent_game(fortress, cap, lost)
    w, n, r, _ = tb_game.play_games({"fortress": fortress, "lost_general": lost, "ply_cap": cap},
                               4, 0, 30)
    for g in range(30):
        state = ag.initial_state(fortress, cap, lost)
        plies, rewards = game.playout(state, _stream(4, g))
        assert game.legal(state) == []  # finished
        assert (ag.result_of(state), plies) == ((int(w[g]), int(r[g])), int(n[g]))
        assert rewards == game.rewards(state) == [float(w[g] >> s & 1) for s in range(3)]
    done = ag.from_position({14: S(0)}, 0)
    assert game.playout(done, _stream(1)) == (0, [0.0, 0.0, 0.0])


# ------------------------------------------------------------------ the search


def _entry_position() -> dict:
    """The setup, but seat 0's General on 31 with 42 empty: 31 -> 42 -> F2 enters."""
    pieces = ref.setup()
    del pieces[2], pieces[42]
    pieces[31] = G(0)
    return pieces


@pytest.mark.parametrize("fortress", OPTIONS)
def test_mcts_takes_an_immediate_fortress_entry(fortress):
    state = ag.from_position(_entry_position(), 0)
    game = ag.agent_game(fortress)
    assert 31 * NODES + F2 in game.legal(state) and len(game.legal(state)) > 5
    res = game.search(state, mcts.AgentSpec(simulations=500), _stream(3))
    assert res.action == 31 * NODES + F2 and res.proven and res.value == 1.0
    assert res.simulations < 500  # the root is proven: the search stops


def _search_tree(game, state, sims: int, seed: int) -> mcts.Tree:
    """The tree of ``mcts.search`` (its own buffers, to read every seat's statistics)."""
    tree = mcts.new_tree(3, 1 << 16)
    scratch = mcts.Scratch(np.empty_like(state), np.empty(game.max_actions, dtype=np.int64),
                           np.empty(game.playout_scratch, dtype=np.int64),
                           np.zeros(3, dtype=np.float64), np.empty(4096, dtype=np.int64))
    mcts.run_simulations(*game.kernels, game.tables, state, _stream(seed), *tree[:-1],
                         tree.counters, *scratch, sims, mcts.DEFAULT_EXPLORATION)
    return tree


def _turned(cell: int, k: int) -> int:
    """``cell`` after ``k`` turns of the board by a third (corner ``s`` onto ``s + 1``)."""
    for _ in range(k):
        cell = tbb.rotate(tbb.board_graph(), cell)
    return cell


@pytest.mark.parametrize("k", [0, 1, 2])
def test_mcts_rewards_are_per_seat_and_it_stops_the_next_seats_entry(k):
    """Seat 1's General on 42 enters F2 next ply unless seat 0 captures it (40 -> 41 ->
    42), after which seat 0 enters F2 itself: max^n proves the capture a win of seat 0,
    reward vector (1, 0, 0), and every other move a win of seat 1, (0, 1, 0).  The same
    position turned ``k`` times (seats ``k``, ``k + 1`` instead of 0, 1) checks that the
    tree reads each seat's own reward."""
    base = {40: G(0), 5: S(0), 6: S(0), 7: S(0), 42: G(1), 21: S(1), 12: G(2), 30: S(2)}
    pieces = {_turned(c, k): ((p[0] + k) % 3, p[1]) for c, p in base.items()}
    mover, threat = k, (k + 1) % 3
    state = ag.from_position(pieces, mover)
    game = ag.agent_game("sides")
    capture = _turned(40, k) * NODES + _turned(42, k)
    assert capture in game.legal(state)
    tree = _search_tree(game, state, 3000, 1)
    first, n = int(tree.first_child[0]), int(tree.n_children[0])
    assert tree.mover[0] == mover and n == len(game.legal(state))
    win, loss = np.eye(3)[mover].tolist(), np.eye(3)[threat].tolist()
    assert tree.proven[0] and tree.exact[0].tolist() == win
    losses = 0
    for c in range(first, first + n):
        assert tree.value[c].sum() <= tree.visits[c]  # one winner at most per simulation
        if tree.proven[c]:
            assert tree.exact[c].tolist() == (win if tree.action[c] == capture else loss)
            losses += tree.action[c] != capture
    assert losses >= 5 and tree.value[0, threat] > 0
    res = game.search(state, mcts.AgentSpec(simulations=3000), _stream(1))
    assert (res.action, res.seat, res.proven, res.value) == (capture, mover, True, 1.0)
    assert all(c.value == 0.0 for c in res.children if c.proven and c.action != capture)


def test_mcts_search_is_reproducible():
    game = ag.agent_game()
    state = ag.initial_state()
    spec = mcts.AgentSpec(simulations=400)
    a = game.search(state, spec, _stream(5))
    b = game.search(state, spec, _stream(5))
    assert (a.action, a.children, a.nodes) == (b.action, b.children, b.nodes)
    assert a.simulations == 400 and sum(c.visits for c in a.children) == 400
    assert np.array_equal(state, ag.initial_state())  # the root is not changed
    other = [game.search(state, spec, _stream(s)).children for s in range(6, 9)]
    assert any(o != a.children for o in other)


# ------------------------------------------------------------------ mcts:N in the study


def test_mcts_policy_parses():
    assert tb.parse_policy_spec(" mcts:250 ") == (tb.POLICY_MCTS, 250, tb.PLAYOUT_RANDOM)
    assert tb.parse_policy_spec("greedy") == (tb.POLICY_GREEDY, 0, tb.PLAYOUT_RANDOM)
    assert tb.parse_policy_spec("mcts-greedy:40") == (tb.POLICY_MCTS_GREEDY, 40, 0)
    assert tb.parse_policy_spec("mcts-greedy:40:6") == (tb.POLICY_MCTS_GREEDY, 40, 6)
    assert tb.parse_policy("mcts-greedy:40:6 ") == "mcts-greedy:40:6"
    cfg = tb.make_config({"policies": ["mcts:7", " greedy", "random"], "ply_cap": 50})
    assert cfg.seat_policies == ("mcts:7", "greedy", "random")
    assert cfg.options["policies"] == ["mcts:7", "greedy", "random"]
    assert list(cfg.icfg[tb.I_POLICY:tb.I_POLICY + 3]) == [tb.POLICY_MCTS, tb.POLICY_GREEDY,
                                                          tb.POLICY_RANDOM]
    assert list(cfg.icfg[tb.I_SIMS:tb.I_SIMS + 3]) == [7, 0, 0]
    cfg = tb.make_config({"policies": ["mcts-greedy:9:4", "mcts-greedy:5", "mcts:2"]})
    assert list(cfg.icfg[tb.I_PLAYOUT:tb.I_PLAYOUT + 3]) == [4, 0, tb.PLAYOUT_RANDOM]
    assert tb.make_config({"policies": ["mcts:3"]}).seat_policies == ("mcts:3",) * 3
    assert "mcts:N" in tb_game.SPEC.policies and "mcts:N" not in tb.POLICIES
    with pytest.raises(ValueError, match="choose plays random or greedy"):
        tb.choose("mcts:5", tbb.initial_pieces(), 0, "sides", 1, 0)


@pytest.mark.parametrize("text, needle", [
    ("mcts:0", "bad mcts simulations '0'"), ("mcts:-3", "bad mcts simulations '-3'"),
    ("mcts:x", "bad mcts simulations 'x'"), ("mcts:", "bad mcts simulations ''"),
    ("mcts", "bad mcts simulations ''"), ("mcts:1.5", "expected an integer 1..10000000"),
    ("mcts:10000001", "expected an integer"), ("mcts:2s", "not reproducible"),
    ("mcts-bogus:5", "unknown policy"), ("mcts:٣", "bad mcts simulations"),
    ("mcts:5:3", "needs mcts-greedy:N:K"), ("mcts-greedy:5:0", "bad playout cutoff '0'"),
    ("mcts-greedy:5:x", "bad playout cutoff"), ("mcts-greedy:0:3", "bad mcts simulations")])
def test_bad_mcts_policies_give_one_line(text, needle):
    with pytest.raises(ValueError) as err:
        tb.make_config({"policies": [text, "greedy", "greedy"]})
    assert needle in str(err.value) and "\n" not in str(err.value), str(err.value)


def test_mcts_games_do_not_depend_on_chunking():
    from trilab.analysis.simulation import run_games

    cfg = tb.make_config({"policies": ["mcts:12", "greedy", "mcts:5"], "ply_cap": 60,
                          "lost_general": "remove"})
    n = 7
    base = run_games(tb_game.SPEC, cfg, n, seed=21, chunk=n)
    for chunk in (1, 3):
        other = run_games(tb_game.SPEC, cfg, n, seed=21, chunk=chunk)
        for field in ("winners", "length", "reason", "digest"):
            np.testing.assert_array_equal(getattr(base, field), getattr(other, field))
    plain = run_games(tb_game.SPEC, tb.make_config({"policies": ["random", "greedy", "random"],
                                              "ply_cap": 60, "lost_general": "remove"}),
                     n, seed=21)
    assert not np.array_equal(base.digest, plain.digest)


@pytest.mark.parametrize("fortress, lost, policy, playout", [
    ("sides", "keep", "mcts:10", tb.PLAYOUT_RANDOM),
    ("general", "remove", "mcts:10", tb.PLAYOUT_RANDOM),
    ("sides", "keep", "mcts-greedy:8:4", 4)])
def test_the_game_loop_plays_the_python_search_moves(fortress, lost, policy, playout):
    """All seats searching: the engine's games equal a replay through
    ``AgentGame.search`` with the loop's tree size and playout (a single legal
    move is played without a search)."""
    cap, n = 45, 3
    sims = tb.parse_policy_spec(policy)[1]
    options = {"policies": [policy], "fortress": fortress, "lost_general": lost,
               "ply_cap": cap}
    w, length, r, d = tb_game.play_games(options, 8, 0, n)
    game = ag.agent_game(fortress, cap, lost)
    spec = mcts.AgentSpec(simulations=sims)
    for g in range(n):
        state, stream, digest = ag.initial_state(fortress, cap, lost), _stream(8, g), 0
        state[ag.S_PLAYOUT] = playout
        while actions := game.legal(state):
            a = actions[0] if len(actions) == 1 else game.search(
                state, spec, stream, max_nodes=mcts.loop_tree_capacity(sims, ag.MAX_ACTIONS)).action
            digest = py_digest_step(digest, a)
            game.apply(state, a)
        assert (ag.result_of(state), int(state[ag.S_PLY]), digest) == (
            (int(w[g]), int(r[g])), int(length[g]), int(d[g]))


def test_mcts_seat_enters_the_fortress_in_the_game_loop():
    cfg = tb.with_start(tb.make_config({"policies": ["mcts:30", "random", "random"]}),
                        _entry_position(), 0)
    w, n, r, d = tb_game.play_chunk(np.uint64(2), 0, 5, cfg.icfg, cfg.fcfg)
    assert (w == 1).all() and (n == 1).all() and (r == tb.R_FORTRESS).all()
    assert (d == py_digest_step(0, 31 * NODES + F2)).all()


def test_simulate_command_with_an_mcts_seat(tmp_path):
    from trilab.cli import cli

    out = tmp_path / "a.csv"
    res = CliRunner().invoke(cli, ["simulate", "trio-board", "--policy", "mcts:20,greedy,greedy",
                                   "--games", "3", "--seed", "1", "--cap", "60", "--json",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.exists()
    bad = CliRunner().invoke(cli, ["simulate", "trio-board", "--policy", "mcts:0",
                                   "--games", "3", "--out", str(tmp_path / "b.csv")])
    assert bad.exit_code == 2
    assert len(bad.stderr.strip().splitlines()) == 1 and "bad mcts simulations" in bad.stderr
    assert not (tmp_path / "b.csv").exists()


# ------------------------------------------------------------------ greedy playouts


@pytest.mark.parametrize("fortress, lost", [("sides", "keep"), ("row3", "remove")])
def test_greedy_playouts_are_the_engines_greedy_games(fortress, lost):
    game = ag.agent_game(fortress, 200, lost)
    w, n, r, _ = tb_game.play_games({"policies": ["greedy"], "fortress": fortress,
                                "lost_general": lost, "ply_cap": 200}, 5, 0, 20)
    for g in range(20):
        state = ag.initial_state(fortress, 200, lost)
        state[ag.S_PLAYOUT] = 0  # greedy to the end
        plies, rewards = game.playout(state, _stream(5, g))
        assert (ag.result_of(state), plies) == ((int(w[g]), int(r[g])), int(n[g]))
        assert rewards == [float(w[g] >> s & 1) for s in range(3)]


def test_cut_greedy_playouts_score_material_and_general_distance():
    game = ag.agent_game("sides")
    state = ag.initial_state("sides")
    state[ag.S_PLAYOUT] = 3
    plies, rewards = game.playout(state, _stream(2))
    assert plies == 3 and ag.result_of(state) == (0, ag.NO_RESULT)
    assert sum(rewards) == pytest.approx(1.0) and min(rewards) > 0.0
    # the start position is symmetric: equal shares
    out = np.zeros(3)
    ag.position_rewards(game.tables, ag.initial_state("sides"), out)
    assert out == pytest.approx([1 / 3] * 3)
    # a seat without its General gets nothing; a General one step from a Fortress
    # weighs GENERAL_THREAT beside its material
    pieces = {31: G(0), 20: S(0), 40: G(1), 30: S(1), 5: S(2)}
    state = ag.from_position(pieces, 0)
    ag.position_rewards(game.tables, state, out)
    assert out[2] == 0.0 and out[0] > out[1] > 0.0 and sum(out) == pytest.approx(1.0)


def test_mcts_greedy_games_do_not_depend_on_chunking():
    from trilab.analysis.simulation import run_games

    cfg = tb.make_config({"policies": ["mcts-greedy:10:4", "greedy", "mcts-greedy:6"],
                          "ply_cap": 50})
    base = run_games(tb_game.SPEC, cfg, 5, seed=4, chunk=5)
    other = run_games(tb_game.SPEC, cfg, 5, seed=4, chunk=2)
    np.testing.assert_array_equal(base.digest, other.digest)
    np.testing.assert_array_equal(base.winners, other.winners)


@pytest.mark.parametrize("fortress", ["sides", "row3", "general"])
def test_cut_playout_rewards_equal_their_formula(fortress):
    """``position_rewards`` restated from its docstring on the reference geometry: a seat
    with its General gets material (soldier 1, officer 2, General 3) plus GENERAL_THREAT
    over its General's steps to the nearest opponent Fortress, a seat without one 0, and
    the shares are normalised; on random positions of each Fortress reading."""
    game = ag.agent_game(fortress)
    dist = ref.geometry(fortress).dist
    out = np.zeros(3)
    checked = 0
    for pieces, side, ply in random_positions(fortress, random.Random(11), 40):
        state = ag.from_position(pieces, side, ply)
        if ag.result_of(state)[1] != ag.NO_RESULT:
            continue
        pieces = {c: (int(p >> tb.SEAT_SHIFT), ["", "soldier", "officer", "general"][
            int(p & tb.KIND_MASK)]) for c, p in enumerate(state[ag.S_BOARD:ag.S_BOARD + 52])
            if p != tb.EMPTY}  # after the start rules
        value = [0.0, 0.0, 0.0]
        for seat in range(3):
            generals = [c for c, (s, k) in pieces.items() if s == seat and k == "general"]
            if generals:
                g = generals[0]
                steps = min(dist[(seat + 1) % 3][g], dist[(seat + 2) % 3][g])
                value[seat] = (sum(ref.VALUE[k] for s, k in pieces.values() if s == seat)
                               + ag.GENERAL_THREAT / max(steps, 1))
        want = [v / sum(value) for v in value] if sum(value) > 0 else [0.0] * 3
        ag.position_rewards(game.tables, state, out)
        assert out == pytest.approx(want, abs=1e-12)
        checked += 1
    assert checked >= 20
