"""Tabula Trivium's agent kernels (trilab.solver.tabula_trivium.agents) and the mcts:N policy.

The kernels against the engine's turn lists and the pure-Python reference:
legal turns, the position after each one, end rules and rewards on whole
games (random turns, random playouts, a ply cap, a scripted repetition); the
MCTS agent on them (reproducible, takes an immediate win); ``mcts:N`` in the
Monte Carlo study (parsing, chunking, the same move as the Python search);
the greedy playouts (the engine's greedy-vs-greedy games, move by move
against the reference; the cutoff and its material score) and
``mcts-greedy:N[:K]`` likewise.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from trilab.solver import mcts
from trilab.solver import rng as rngmod
from trilab.solver.tabula_trivium import agents as ag
from trilab.solver.tabula_trivium import game as tt
from trilab.solver.tabula_trivium import reference as ref

KIND = {(0, "pawn"): 0, (0, "stone"): 1, (1, "pawn"): 2, (1, "stone"): 3}
SYMBOL = {"A": 0, "a": 1, "B": 2, "b": 3}


def _stream(seed: int, game: int = 0) -> np.ndarray:
    return rngmod.game_stream(np.uint64(seed), np.uint64(game))


def to_pieces(board: ref.Board) -> tuple[int, int, int, int]:
    out = [0, 0, 0, 0]
    for cell, v in board.items():
        out[KIND[v]] |= 1 << ref.INDEX[cell]
    return tuple(out)


def diagram(text: str) -> tuple[int, int, int, int]:
    """Rows from the top (4-5-6-7-6-5-4 nodes); ``A``/``a`` seat-0 pawn/stone, ``B``/``b``
    seat 1, ``.`` empty."""
    rows = text.split()
    assert [len(r) for r in rows] == [4, 5, 6, 7, 6, 5, 4]
    out = [0, 0, 0, 0]
    for i, ch in enumerate("".join(rows)):
        if ch != ".":
            out[SYMBOL[ch]] |= 1 << i
    return tuple(out)


def ref_turn(code: int):
    """The reference's ``(pawn move, stone move or None)`` of a move code."""
    pf, pt, pc, sf, st = ag.turn_of(code)
    pm = (ref.CELLS[pf], ref.CELLS[pt], None if pc < 0 else ref.CELLS[pc])
    return pm, None if sf < 0 else (ref.CELLS[sf], ref.CELLS[st])


class RefGame:
    """A game replayed by the reference rules, turn by turn (the loop of
    ``tabula_trivium_reference.play_game`` with given turns)."""

    def __init__(self, ply_cap: int, board: ref.Board | None = None, side: int = 0):
        self.board = ref.initial_board() if board is None else board
        self.side, self.ply, self.cap = side, 0, ply_cap
        self.seen = {ref.position_key(self.board, side): 1}
        self.result = self._start()

    def _start(self):
        if not ref.pawn_moves(self.board, self.side):
            return 1 << (1 - self.side), ref.BLOCKED
        if self.ply >= self.cap:
            return 0, ref.PLY_CAP
        return None

    def play(self, pm, sm) -> None:
        assert self.result is None
        self.board = ref.play_pawn(self.board, pm)
        self.ply += 1
        self.result = ref.material_result(self.board)
        if self.result is not None:
            return
        if sm is not None:
            self.board = ref.play_stone(self.board, sm)
        self.side = 1 - self.side
        key = ref.position_key(self.board, self.side)
        self.seen[key] = self.seen.get(key, 0) + 1
        self.result = (0, ref.REPETITION) if self.seen[key] >= ref.REPETITION_LIMIT \
            else self._start()


def agrees(game: mcts.AgentGame, state: np.ndarray, rg: RefGame) -> None:
    """The agent state and the reference game are the same position and result."""
    assert ag.pieces_of(state) == to_pieces(rg.board)
    assert game.seat(state) == rg.side and state[ag.S_PLY] == rg.ply
    if rg.result is None:
        assert ag.result_of(state) == (0, -1)
        assert game.legal(state)
    else:
        assert ag.result_of(state) == rg.result
        assert game.legal(state) == []
        winners = rg.result[0]
        assert game.rewards(state) == ([0.5, 0.5] if winners == 0 else
                                       [float(winners >> s & 1) for s in (0, 1)])


# ------------------------------------------------------------------ legal and apply


def test_legal_turns_and_their_positions_match_engine_and_reference():
    """From the initial state and states of random games: ``legal`` lists the move codes
    of the policies' full turns, in their order, as many as the reference's full turns;
    applying each gives the reference's position after that turn."""
    game = ag.agent_game()
    rnd = random.Random(3)
    checked = 0
    for g in range(3):
        state = ag.initial_state()
        rg = RefGame(ref.DEFAULT_PLY_CAP)
        for ply in range(45):
            agrees(game, state, rg)
            if rg.result is not None:
                break
            actions = game.legal(state)
            pieces, side = ag.pieces_of(state), game.seat(state)
            assert actions == [ag.code_of(t) for t in ag.policy_turns(pieces, side)]
            turns = ref.full_turns(rg.board, side, ref.pawn_moves(rg.board, side))
            assert actions == [ref.turn_code(pm, sm) for pm, sm, _ in turns]
            if ply % 3 == 0 or g == 0 and ply == 0:
                for a, (_, _, after) in zip(actions, turns):
                    child = state.copy()
                    game.apply(child, a)
                    assert ag.pieces_of(child) == to_pieces(after)
                    assert game.seat(child) == 1 - side or ag.result_of(child)[1] >= 0
                checked += 1
            a = rnd.choice(actions)
            game.apply(state, a)
            rg.play(*ref_turn(a))
    assert checked >= 30


def test_initial_state_layout():
    state = ag.initial_state(50)
    assert len(state) == ag.state_size(50) == ag.S_HIST + 51
    assert ag.pieces_of(state) == tt.initial_pieces()
    assert state[ag.S_SIDE] == 0 and state[ag.S_PLY] == 0 and state[ag.S_PLY_CAP] == 50
    assert ag.result_of(state) == (0, -1)
    keys = tt.zobrist_keys()
    pieces = np.array(tt.initial_pieces(), dtype=np.uint64)
    assert state[ag.S_HIST:ag.S_HIST + 1].view(np.uint64)[0] == tt.zobrist(keys, pieces, 0)
    board = ref.initial_board()
    assert len(ag.agent_game().legal(state)) == len(
        ref.full_turns(board, 0, ref.pawn_moves(board, 0)))  # 163
    with pytest.raises(ValueError, match="ply_cap must be an integer >= 1"):
        ag.initial_state(0)
    with pytest.raises(ValueError, match="ply_cap must be an integer >= 1"):
        ag.agent_game(ply_cap=-1)


@pytest.mark.parametrize("turn", [(0, 36, -1, -1, -1), (36, 1, 35, 2, 30), (5, 7, 6, 36, 0)])
def test_move_codes_round_trip(turn):
    assert ag.turn_of(ag.code_of(turn)) == turn


# ------------------------------------------------------------------ whole games


@pytest.mark.parametrize("ply_cap", [400, 9])
def test_random_games_end_like_the_reference(ply_cap):
    """Uniformly random full turns through the agent API to the end: at every ply the
    position, the seat to move and the result agree with the reference replaying the
    same turns; a small cap draws."""
    game = ag.agent_game(ply_cap)
    results = set()
    for g in range(4 if ply_cap == 400 else 6):
        rnd = random.Random(100 + g)
        state = ag.initial_state(ply_cap)
        rg = RefGame(ply_cap)
        while True:
            agrees(game, state, rg)
            actions = game.legal(state)
            if not actions:
                break
            a = rnd.choice(actions)
            game.apply(state, a)
            rg.play(*ref_turn(a))
        results.add(rg.result[1])
    if ply_cap == 9:
        assert ref.PLY_CAP in results


@pytest.mark.parametrize("ply_cap", [400, 40])
def test_playouts_are_the_random_policy_games(ply_cap):
    """A playout from the initial state with the stream of game ``g`` is the random-policy
    game ``g`` of the engine and of the reference: same length, winners and end reason;
    it ends in a finished state with those rewards, and plays 0 plies from there."""
    game = ag.agent_game(ply_cap)
    options = {"policies": ["random"], "ply_cap": ply_cap}
    n = 5 if ply_cap == 400 else 8
    w, length, reason, _ = tt.play_games(options, 7, 0, n)
    for g in range(n):
        state = ag.initial_state(ply_cap)
        plies, rewards = game.playout(state, _stream(7, g))
        assert (ag.result_of(state), plies) == ((int(w[g]), int(reason[g])), int(length[g]))
        expected = ref.reference_game(7, g, options)
        assert (int(w[g]), plies, int(reason[g])) == expected[:3]
        assert game.legal(state) == [] and rewards == game.rewards(state)
        assert rewards == ([0.5, 0.5] if w[g] == 0 else [float(w[g] >> s & 1) for s in (0, 1)])
        assert game.playout(state, _stream(7, g)) == (0, rewards)
    if ply_cap == 40:
        assert (reason == tt.R_PLY_CAP).any() and (reason != tt.R_PLY_CAP).any()


def _cycle(game: mcts.AgentGame, state: np.ndarray) -> list[int]:
    """Four turns (a, b, a reversed, b reversed) without capture that bring the position
    back to ``state``'s."""
    def reverse(code: int) -> int:
        pf, pt, _, sf, st = ag.turn_of(code)
        return ag.code_of((pt, pf, -1, st, sf))

    for a in game.legal(state):
        if ag.turn_of(a)[2] >= 0 or ag.turn_of(a)[3] < 0:
            continue
        s1 = state.copy()
        game.apply(s1, a)
        for b in game.legal(s1):
            if ag.turn_of(b)[2] >= 0 or ag.turn_of(b)[3] < 0:
                continue
            s2 = s1.copy()
            game.apply(s2, b)
            if reverse(a) not in game.legal(s2):
                continue
            s3 = s2.copy()
            game.apply(s3, reverse(a))
            if reverse(b) in game.legal(s3):
                return [a, b, reverse(a), reverse(b)]
    raise AssertionError("no 4-turn cycle")


def test_repetition_draws_at_the_third_occurrence():
    """The same 4-turn cycle twice from the setup: the setup occurs a third time after 8
    plies, a draw by repetition (0.5 each) for the kernels and the reference."""
    game = ag.agent_game()
    state = ag.initial_state()
    turns = _cycle(game, state) * 2
    rg = RefGame(ref.DEFAULT_PLY_CAP)
    for i, a in enumerate(turns):
        assert a in game.legal(state)
        game.apply(state, a)
        rg.play(*ref_turn(a))
        agrees(game, state, rg)
        assert ag.result_of(state)[1] == (tt.R_REPETITION if i == 7 else -1)
    assert game.rewards(state) == [0.5, 0.5]
    assert ag.pieces_of(state) == tt.initial_pieces()


def test_positions_decided_at_the_start():
    blocked = diagram("""
        ....
        b....
        b.....
        Abba..B
        b.....
        b....
        ....
    """)
    state = ag.from_position(blocked, side=0)
    assert ag.result_of(state) == (2, tt.R_BLOCKED)
    assert ag.agent_game().legal(state) == [] and ag.agent_game().rewards(state) == [0.0, 1.0]
    capped = ag.from_position(tt.initial_pieces(), side=1, ply_cap=30, ply=30)
    assert ag.result_of(capped) == (0, tt.R_PLY_CAP)
    assert ag.agent_game().playout(capped, _stream(1)) == (0, [0.5, 0.5])


# ------------------------------------------------------------------ the MCTS agent


def test_mcts_search_is_reproducible():
    game = ag.agent_game()
    state = ag.initial_state()
    spec = mcts.AgentSpec(simulations=400)
    a = game.search(state, spec, _stream(11))
    b = game.search(state, spec, _stream(11))
    assert a.action == b.action and a.children == b.children and a.nodes == b.nodes
    assert a.action in game.legal(state) and a.seat == 0 and a.simulations == 400
    c = game.search(state, spec, _stream(12))
    assert [x.visits for x in c.children] != [x.visits for x in a.children]
    assert np.array_equal(state, ag.initial_state())


WINNING_JUMP = """
    ....
    ..a..
    ......
    AB....b
    .A....
    a....
    b...
"""


def _wins_at_once(game: mcts.AgentGame, state: np.ndarray) -> set[int]:
    me = game.seat(state)
    out = set()
    for a in game.legal(state):
        child = state.copy()
        game.apply(child, a)
        if ag.result_of(child)[0] == 1 << me:
            out.add(a)
    return out


def test_mcts_takes_an_immediate_win():
    """A constructed position (seat 0 jumps over seat 1's last pawn) and positions of
    random games where the mover can win at once: a few hundred simulations find a
    winning turn, proven."""
    game = ag.agent_game()
    start = ag.from_position(diagram(WINNING_JUMP), side=0)
    wins = _wins_at_once(game, start)
    assert len(wins) == 2 and len(game.legal(start)) > 50  # two jumps over the last B
    res = game.search(start, mcts.AgentSpec(simulations=300), _stream(1))
    assert res.action in wins and res.proven and res.value == 1.0
    found = 0
    for g in range(200):
        state = ag.initial_state()
        rnd = random.Random(g)
        while (actions := game.legal(state)) and found < 5:
            if len(actions) <= 250 and (wins := _wins_at_once(game, state)) and \
                    len(wins) < len(actions) // 4:
                res = game.search(state, mcts.AgentSpec(simulations=400), _stream(2, g))
                assert res.action in wins and res.proven
                found += 1
                break
            game.apply(state, rnd.choice(actions))
        if found >= 5:
            break
    assert found == 5


# ------------------------------------------------------------------ the mcts:N policy


def test_mcts_policy_parses():
    assert tt.parse_policy("mcts:200") == (tt.POLICY_MCTS, 200)
    assert tt.parse_policy(" mcts:1 ") == (tt.POLICY_MCTS, 1)
    cfg = tt.make_config({"policies": ["mcts:200", "greedy"]})
    assert cfg.seat_policies == ("mcts:200", "greedy")
    assert "mcts:N" in tt.POLICIES


@pytest.mark.parametrize("text, needle", [
    ("mcts:0", "bad mcts simulations '0'"), ("mcts:-5", "bad mcts simulations '-5'"),
    ("mcts:abc", "bad mcts simulations 'abc'"), ("mcts:", "bad mcts simulations ''"),
    ("mcts:1.5", "bad mcts simulations '1.5'"), ("mcts:2s", "time budget"),
    (f"mcts:{tt.MAX_SIMULATIONS + 1}", "expected an integer 1..10000000"),
    ("mcts", "unknown policy 'mcts'"),
])
def test_bad_mcts_policies_give_one_line(text, needle):
    for call in (lambda: tt.parse_policy(text), lambda: tt.make_config({"policies": [text]})):
        with pytest.raises(ValueError) as exc:
            call()
        assert needle in str(exc.value) and "\n" not in str(exc.value)


def _chunk(cfg, seed: int, first: int, n: int):
    return tt.play_chunk(np.uint64(seed), np.int64(first), np.int64(n), cfg.icfg, cfg.fcfg)


def test_mcts_games_do_not_depend_on_chunking():
    cfg = tt.make_config({"policies": ["mcts:24", "greedy"], "ply_cap": 40})
    whole = _chunk(cfg, 5, 0, 4)
    single = [_chunk(cfg, 5, g, 1) for g in range(4)]
    for k in range(4):
        np.testing.assert_array_equal(whole[k], np.concatenate([s[k] for s in single]))
    w, length, reason, _ = whole
    assert (length >= 1).all() and (length <= 40).all()
    draws = np.isin(reason, [tt.R_PLY_CAP, tt.R_REPETITION])
    np.testing.assert_array_equal(w == 0, draws)
    swapped = tt.make_config({"policies": ["greedy", "mcts:24"], "ply_cap": 40})
    assert not np.array_equal(_chunk(swapped, 5, 0, 4)[3], whole[3])


def _playout_name(spec: tt.PolicySpec) -> str:
    """``agent_game``'s playout of an ``mcts:N`` / ``mcts-greedy:N[:K]`` policy."""
    if spec.kind == tt.POLICY_MCTS:
        return "random"
    return f"greedy:{spec.playout_plies}" if spec.playout_plies else "greedy"


def _python_game(seed: int, g: int, policies: list[str], ply_cap: int
                 ) -> tuple[int, int, int, int]:
    """Game ``g`` of ``mcts:N`` / ``mcts-greedy:N[:K]`` against ``random`` or each other
    (``policies``, one per seat) played in Python: ``AgentGame.search`` (a fresh tree of
    the same size, the seat's playout) and the random policy's draws, from the game's one
    stream; ``(winners, plies, reason, digest)``."""
    game = ag.agent_game(ply_cap)
    state = ag.initial_state(ply_cap)
    stream = _stream(seed, g)
    digest = 0
    while game.legal(state):
        side = game.seat(state)
        spec = tt.parse_policy_spec(policies[side])
        if spec.kind in (tt.POLICY_MCTS, tt.POLICY_MCTS_GREEDY):
            searcher = ag.agent_game(ply_cap, _playout_name(spec))
            nodes = mcts.loop_tree_capacity(spec.arg, ag.MAX_ACTIONS)
            code = searcher.search(state, mcts.AgentSpec(simulations=spec.arg), stream,
                                   max_nodes=nodes).action
        else:
            assert spec.kind == tt.POLICY_RANDOM
            pieces = ag.pieces_of(state)
            pms = tt.legal_pawn_moves(pieces, side)
            pm = pms[rngmod.below(stream, len(pms))]
            after = tt.play_pawn(pieces, side, pm)
            sm = (-1, -1)
            if tt.material_result(after)[1] < 0 and (sms := tt.legal_stone_moves(after, side)):
                sm = sms[rngmod.below(stream, len(sms))]
            code = ag.code_of((*pm, *sm))
        digest = rngmod.py_digest_step(digest, code)
        game.apply(state, code)
    winners, reason = ag.result_of(state)
    return winners, int(state[ag.S_PLY]), reason, digest


@pytest.mark.parametrize("policies", [["mcts:30", "random"], ["random", "mcts:20"]])
def test_the_game_loop_plays_the_python_search_moves(policies):
    """The compiled game loop (tree buffers reused, root reset per turn) plays the same
    games as a Python driver over ``AgentGame.search``: same digests, so the same turn
    at every ply; ``decide`` searches like a first turn."""
    options = {"policies": policies, "ply_cap": 50}
    res = tt.play_games(options, 9, 0, 3)
    for g in range(3):
        assert _python_game(9, g, policies, 50) == tuple(int(a[g]) for a in res)
    pm, sm, _ = tt.decide("mcts:30", tt.initial_pieces(), 0, 9, 0)
    first = ag.agent_game().search(ag.initial_state(), mcts.AgentSpec(simulations=30),
                                   _stream(9, 0),
                                   max_nodes=mcts.loop_tree_capacity(30, ag.MAX_ACTIONS))
    assert ag.code_of((*pm, *(sm if sm else (-1, -1)))) == first.action


# ------------------------------------------------------------------ greedy playouts


def _reference_greedy_boards(seed: int, g: int, plies: int):
    """The reference's greedy-vs-greedy game ``g``: ``(boards, stream states, result)``
    after each of its first ``plies`` turns (fewer if it ends), the turns drawn by
    ``tabula_trivium_reference.choose_turn`` from ``PyRng(seed, g)``."""
    pyrng = rngmod.PyRng(seed, g)
    rg = RefGame(ref.DEFAULT_PLY_CAP)
    boards, states = [], []
    while rg.result is None and len(boards) < plies:
        rg.play(*ref.choose_turn("greedy", rg.board, rg.side, pyrng))
        boards.append(rg.board)
        states.append(pyrng.state)
    return boards, states, rg.result


def test_greedy_playouts_are_the_greedy_policy_games():
    """A greedy playout from the initial state with the stream of game ``g`` is the
    engine's greedy-vs-greedy game ``g``: same winners, length and end reason (some of
    these games are decided, most reach the ply cap), rewards of that result."""
    game = ag.agent_game(playout="greedy")
    n = 40
    w, length, reason, _ = tt.play_games({"policies": ["greedy"]}, 7, 0, n)
    for g in range(n):
        state = ag.initial_state()
        plies, rewards = game.playout(state, _stream(7, g))
        assert (ag.result_of(state), plies) == ((int(w[g]), int(reason[g])), int(length[g]))
        assert game.legal(state) == [] and rewards == game.rewards(state)
    assert 3 <= (reason != tt.R_PLY_CAP).sum() < n
    random_game = ag.agent_game()
    state = ag.initial_state()
    assert random_game.playout(state, _stream(7, 0))[0] != int(length[0])  # tables differ


def test_greedy_playout_plays_the_reference_greedy_game_turn_by_turn():
    """Game 16 of seed 7 (greedy-vs-greedy, seat 0 wins by blocking at ply 167): the
    greedy playout cut by a ply cap ``k`` stops at the reference's position after ``k``
    turns, with the stream where the reference's ``PyRng`` is (one draw a turn), for
    every ``k``; uncapped, it ends with the reference's result."""
    boards, states, result = _reference_greedy_boards(7, 16, 400)
    assert len(boards) == 167 and result == (1, tt.R_BLOCKED)
    for k, (board, pystate) in enumerate(zip(boards, states), start=1):
        game = ag.agent_game(k, "greedy")
        state = ag.initial_state(k)
        stream = _stream(7, 16)
        plies, _ = game.playout(state, stream)
        assert plies == k and ag.pieces_of(state) == to_pieces(board), k
        assert int(stream[0]) == pystate
        assert ag.result_of(state)[1] == (tt.R_BLOCKED if k == 167 else tt.R_PLY_CAP)
    state = ag.initial_state()
    assert ag.agent_game(playout="greedy").playout(state, _stream(7, 16)) == (167, [1.0, 0.0])
    assert ag.result_of(state) == result


@pytest.mark.parametrize("k", [1, 4, 9])
def test_cut_greedy_playouts_stop_after_k_turns_and_score_material(k):
    """``playout="greedy:K"``: the same turns as the greedy playout, stopped after K
    turns (where a ply cap of K stops the uncut one), the game going on; the rewards are
    the logistic of ``evaluate`` for the side to move (summing to 1).  A game decided
    within K turns ends as uncut."""
    cut = ag.agent_game(playout=f"greedy:{k}")
    for g in range(3):
        state = ag.initial_state()
        plies, rewards = cut.playout(state, _stream(5, g))
        capped = ag.initial_state(k)
        ag.agent_game(k, "greedy").playout(capped, _stream(5, g))
        assert plies == k and ag.pieces_of(state) == ag.pieces_of(capped)
        assert ag.result_of(state) == (0, -1) and cut.legal(state)
        side = cut.seat(state)
        t = tt.tables()
        pieces = np.array(ag.pieces_of(state), dtype=np.uint64)
        e = tt.evaluate(t.nbr, pieces, side, tt.count_pawn_moves(t.nbr, pieces, side))
        mine = 1.0 / (1.0 + np.exp(-e / ag.EVAL_SCALE))
        assert rewards[side] == pytest.approx(mine) and sum(rewards) == pytest.approx(1.0)
        assert 0.0 < rewards[0] < 1.0
    start = ag.from_position(diagram(WINNING_JUMP), side=0)
    decided = start.copy()
    plies, rewards = ag.agent_game(playout="greedy:50").playout(decided, _stream(1))
    assert plies == 1 and rewards == [1.0, 0.0] and cut.legal(decided) == []


@pytest.mark.parametrize("playout, needle", [
    ("smart", "playout must be random, greedy or greedy:K"), ("greedy:0", "greedy:K"),
    ("greedy:x", "greedy:K"), ("random:4", "greedy:K"), (3, "greedy:K"),
    (f"greedy:{tt.MAX_PLAYOUT_PLIES + 1}", "greedy:K"),
])
def test_bad_playouts_give_one_line(playout, needle):
    for call in (lambda: ag.agent_game(playout=playout),
                 lambda: ag.initial_state(playout=playout)):
        with pytest.raises(ValueError) as exc:
            call()
        assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_one_set_of_kernels_serves_every_playout():
    """The playout lives in the table: the same cfuncs, tables differing only at
    ``TB_PLAYOUT`` / ``TB_PLAYOUT_PLIES``; ``initial_state`` ignores the playout."""
    games = [ag.agent_game(playout=p) for p in ("random", "greedy", "greedy:7")]
    assert all(g.kernels is ag.KERNELS for g in games)
    fields = [(int(g.tables[ag.TB_PLAYOUT]), int(g.tables[ag.TB_PLAYOUT_PLIES])) for g in games]
    assert fields == [(ag.PLAYOUT_RANDOM, 0), (ag.PLAYOUT_GREEDY, 0), (ag.PLAYOUT_GREEDY, 7)]
    for g in games[1:]:
        np.testing.assert_array_equal(g.tables[:ag.TB_PLAYOUT], games[0].tables[:ag.TB_PLAYOUT])
    assert np.array_equal(ag.initial_state(30, "greedy:3"), ag.initial_state(30))


# ------------------------------------------------------------------ the mcts-greedy:N policy


def test_mcts_greedy_policy_parses():
    assert tt.parse_policy("mcts-greedy:200") == (tt.POLICY_MCTS_GREEDY, 200)
    assert tt.parse_policy(" mcts-greedy:1 ") == (tt.POLICY_MCTS_GREEDY, 1)
    assert tt.parse_policy("mcts-greedy:50:4") == (tt.POLICY_MCTS_GREEDY, 50)
    assert tt.parse_policy_spec("mcts-greedy:50:4") == (tt.POLICY_MCTS_GREEDY, 50, 4)
    assert tt.parse_policy_spec("mcts-greedy:50") == (tt.POLICY_MCTS_GREEDY, 50, 0)
    assert tt.parse_policy_spec("mcts:50") == (tt.POLICY_MCTS, 50, 0)
    cfg = tt.make_config({"policies": ["mcts-greedy:20:3", "mcts-greedy:7"]})
    assert cfg.seat_policies == ("mcts-greedy:20:3", "mcts-greedy:7")
    assert list(cfg.icfg[tt.I_CUT0:tt.I_CUT0 + 2]) == [3, 0]
    assert {"mcts-greedy:N", "mcts-greedy:N:K"} <= set(tt.POLICIES)


@pytest.mark.parametrize("text, needle", [
    ("mcts-greedy:0", "bad mcts-greedy simulations '0'"),
    ("mcts-greedy:-5", "bad mcts-greedy simulations '-5'"),
    ("mcts-greedy:abc", "bad mcts-greedy simulations 'abc'"),
    ("mcts-greedy:", "bad mcts-greedy simulations ''"),
    ("mcts-greedy:1.5", "bad mcts-greedy simulations '1.5'"),
    ("mcts-greedy:2s", "time budget"), ("mcts-greedy:2s:4", "time budget"),
    (f"mcts-greedy:{tt.MAX_SIMULATIONS + 1}", "expected an integer 1..10000000"),
    ("mcts-greedy:10:0", "bad mcts-greedy playout cutoff '0'"),
    ("mcts-greedy:10:", "bad mcts-greedy playout cutoff ''"),
    ("mcts-greedy:10:4:2", "bad mcts-greedy playout cutoff '4:2'"),
    (f"mcts-greedy:10:{tt.MAX_PLAYOUT_PLIES + 1}", "expected an integer 1..10000 (turns"),
    ("mcts:10:4", "bad mcts simulations '10:4'"),
    ("mcts-greedy", "unknown policy 'mcts-greedy'"),
    ("mcts_greedy:5", "unknown policy 'mcts_greedy:5'"),
])
def test_bad_mcts_greedy_policies_give_one_line(text, needle):
    for call in (lambda: tt.parse_policy(text), lambda: tt.make_config({"policies": [text]})):
        with pytest.raises(ValueError) as exc:
            call()
        assert needle in str(exc.value) and "\n" not in str(exc.value)


@pytest.mark.parametrize("policies", [["mcts-greedy:6", "greedy"],
                                      ["lookahead:1", "mcts-greedy:24:4"]])
def test_mcts_greedy_games_do_not_depend_on_chunking(policies):
    """Whole chunk = game by game = the same chunk again (reproducible); valid
    outcomes; the seat order matters."""
    cfg = tt.make_config({"policies": policies, "ply_cap": 30})
    whole = _chunk(cfg, 5, 0, 4)
    single = [_chunk(cfg, 5, g, 1) for g in range(4)]
    again = _chunk(cfg, 5, 0, 4)
    for k in range(4):
        np.testing.assert_array_equal(whole[k], np.concatenate([s[k] for s in single]))
        np.testing.assert_array_equal(whole[k], again[k])
    w, length, reason, _ = whole
    assert (length >= 1).all() and (length <= 30).all()
    np.testing.assert_array_equal(w == 0, np.isin(reason, [tt.R_PLY_CAP, tt.R_REPETITION]))
    swapped = tt.make_config({"policies": policies[::-1], "ply_cap": 30})
    assert not np.array_equal(_chunk(swapped, 5, 0, 4)[3], whole[3])


@pytest.mark.parametrize("policies", [["mcts-greedy:8", "random"],
                                      ["mcts:12", "mcts-greedy:10:3"]])
def test_the_game_loop_plays_the_python_greedy_search_moves(policies):
    """As for ``mcts:N``: the compiled game loop plays the moves of ``AgentGame.search``
    on the agent game of the seat's playout, also when an ``mcts:N`` and an
    ``mcts-greedy:N:K`` seat share the loop's table (the playout fields are set every
    turn); ``decide`` searches like a first turn."""
    options = {"policies": policies, "ply_cap": 24}
    res = tt.play_games(options, 9, 0, 2)
    for g in range(2):
        assert _python_game(9, g, policies, 24) == tuple(int(a[g]) for a in res)
    for policy, playout in (("mcts-greedy:30", "greedy"), ("mcts-greedy:30:5", "greedy:5")):
        pm, sm, nxt = tt.decide(policy, tt.initial_pieces(), 0, 9, 0)
        stream = _stream(9, 0)
        first = ag.agent_game(playout=playout).search(
            ag.initial_state(), mcts.AgentSpec(simulations=30), stream,
            max_nodes=mcts.loop_tree_capacity(30, ag.MAX_ACTIONS))
        assert ag.code_of((*pm, *(sm if sm else (-1, -1)))) == first.action
        assert nxt == int(rngmod.next_u64(stream))


@pytest.mark.parametrize("playout", ["greedy", "greedy:4"])
def test_mcts_greedy_takes_an_immediate_win_and_is_reproducible(playout):
    game = ag.agent_game(playout=playout)
    start = ag.from_position(diagram(WINNING_JUMP), side=0)
    res = game.search(start, mcts.AgentSpec(simulations=300), _stream(1))
    assert res.action in _wins_at_once(game, start) and res.proven and res.value == 1.0
    state = ag.initial_state()
    spec = mcts.AgentSpec(simulations=40)
    a = game.search(state, spec, _stream(11))
    b = game.search(state, spec, _stream(11))
    assert a.action == b.action and a.children == b.children and a.action in game.legal(state)
    assert np.array_equal(state, ag.initial_state())


# ---------------------------------------------------- issue 24: more simulations, not weaker

# From a game of mcts-greedy:2000:4 (plain UCT expansion) against greedy (seed 3, game 3,
# ply 23, seat 1 to move): with expansion at the second visit, 2000 simulations left a
# piece capturable at once in 6 searches of 6 (141 legal turns, 38 of them safe).
HANG_POSITION = (67175552, 42966745681, 536887296, 68856315916)


def _hangs(game: mcts.AgentGame, state: np.ndarray, code: int) -> bool:
    """After turn ``code`` the opponent can capture a piece of the mover at once."""
    after = state.copy()
    game.apply(after, code)
    if ag.result_of(after)[1] >= 0:
        return False
    side = int(after[ag.S_SIDE])
    pcs = ag.pieces_of(after)
    mine = pcs[2 * (1 - side)] | pcs[2 * (1 - side) + 1]
    return any(c >= 0 and (mine >> c) & 1 for _, _, c in tt.legal_pawn_moves(pcs, side))


def _greedy_search(state: np.ndarray, sims: int, seed: int, expand: float | None = None) -> int:
    game = ag.agent_game(playout="greedy:4")
    agent = mcts.AgentSpec(simulations=sims, expand=expand)
    cap = mcts.loop_tree_capacity(sims, ag.MAX_ACTIONS)
    return game.search(state.copy(), agent, _stream(seed), max_nodes=cap).action


def test_greedy_search_with_more_simulations_does_not_hang_a_piece():
    """Issue 24: ``mcts-greedy:N:4`` grew weaker with N because a node expanded at its
    second visit tries each of its ~150 replies once before any twice, so its mean was
    the average over random replies, not the greedy reply that captures.  With the
    expansion threshold (``GREEDY_EXPAND``) 2000 simulations keep every piece safe here;
    the plain rule (``expand=0``, the old default) hangs one in most searches."""
    game = ag.agent_game(playout="greedy:4")
    state = ag.from_position(HANG_POSITION, side=1, ply=23)
    assert game.expand == ag.GREEDY_EXPAND > 0
    assert not any(_hangs(game, state, _greedy_search(state, 2000, s)) for s in range(4))
    assert sum(_hangs(game, state, _greedy_search(state, 2000, s, expand=0.0))
               for s in range(4)) >= 3


def test_expansion_threshold_keeps_nodes_unexpanded_until_visited_per_action():
    """``run_simulations(expand=f)``: a node other than the root is expanded only once
    it has ``f`` visits per legal action; ``f = 0`` is plain UCT (expanded at the second
    visit), as Trike and the Trio board search."""
    game = ag.agent_game(playout="greedy:4")
    root = ag.initial_state()
    for f, sims in ((0.0, 400), (1.0, 20000)):
        tree = mcts.new_tree(2, 1 << 20)
        scratch = mcts.Scratch(state=np.empty_like(root),
                               actions=np.empty(game.max_actions, dtype=np.int64),
                               playout=np.empty(game.playout_scratch, dtype=np.int64),
                               rewards=np.zeros(2), path=np.empty(mcts.MAX_PATH, dtype=np.int64))
        mcts.run_simulations(*game.kernels, game.tables, root, _stream(1), *tree[:-1],
                             tree.counters, *scratch, sims, mcts.DEFAULT_EXPLORATION, f)
        first, n = int(tree.first_child[0]), int(tree.n_children[0])
        expanded = [c for c in range(first, first + n) if tree.first_child[c] != mcts.NO_CHILDREN]
        for c in expanded:  # expanded at visit v + 1 >= f * legal turns + 1
            assert tree.visits[c] >= max(2, f * tree.n_children[c] + 1)
        if f == 0.0:
            assert len(expanded) > n // 2
        else:
            assert 0 < len(expanded) < n
