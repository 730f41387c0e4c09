"""Exact Trike endgames (solver/trike/endgame.py) against the reference minimax, and
the ``mcts-solve`` agents that use them."""

from __future__ import annotations

import random

import numpy as np
import pytest
from trilab.solver import mcts
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref
from trilab.solver.trike.endgame import GENERATIONS, MAX_LIMIT, scratch_size, solve_region


def _board(state: np.ndarray) -> tuple[int, dict, tuple[int, int]]:
    """The reference's ``(size, board, pawn)`` of an array state."""
    size = trike_agents.size_of(state)
    coords = trike.point_coords(size)
    black, white = trike_agents.black_points(state)
    board = {coords[p]: "b" for p in range(len(coords)) if black >> p & 1}
    board.update({coords[p]: "w" for p in range(len(coords)) if white >> p & 1})
    return size, board, coords[trike_agents.pawn_point(state)]


def _region(size: int, board: dict, pawn: tuple[int, int]) -> int:
    """Empty points connected to the pawn through neighbouring empty points."""
    seen: set = set()
    todo = [pawn]
    while todo:
        for n in ref.neighbours(size, todo.pop()):
            if n not in board and n not in seen:
                seen.add(n)
                todo.append(n)
    return len(seen)


def _endgames(sizes, count: int, max_region: int, seed: int):
    """Random reachable states (no swap pending) whose pawn region has at most
    ``max_region`` points and whose side to move has a move."""
    rnd = random.Random(seed)
    out = []
    while len(out) < count:
        size = rnd.choice(sizes)
        game = trike_agents.agent_game(size)
        state = trike_agents.new_state(size, pie=rnd.random() < 0.5)
        while True:
            moves = game.legal(state)
            if not moves:
                break
            if state[trike_agents.S_COUNT] >= 2:
                k = _region(*_board(state))
                if k <= max_region and rnd.random() < 0.4:
                    out.append(state)
                    break
            game.apply(state, rnd.choice(moves))
    return out


def test_endgame_solve_matches_reference_minimax():
    """Win or loss of the side to move, on 250 random endgames of sizes 3..13."""
    scratch = np.zeros(scratch_size(12), dtype=np.int64)
    wins = 0
    for state in _endgames(list(range(3, 14)), 250, 10, seed=1):
        size, board, pawn = _board(state)
        margin = ref.minimax(size, board, pawn)[0]
        t = trike_agents.tables(size)
        before = state.copy()
        got = solve_region(t, state, 12, 10**7, scratch)
        assert got == int(margin > 0), (size, board, pawn)
        assert np.array_equal(state, before)
        wins += got
    assert 40 < wins < 210  # both outcomes are exercised


def test_endgame_solve_gives_up_above_its_limits_and_never_guesses():
    scratch = np.zeros(scratch_size(MAX_LIMIT), dtype=np.int64)
    for state in _endgames([6, 9], 60, 9, seed=2):
        size, board, pawn = _board(state)
        k = _region(size, board, pawn)
        t = trike_agents.tables(size)
        exact = int(ref.minimax(size, board, pawn)[0] > 0)
        assert solve_region(t, state, k, 10**7, scratch) == exact
        if k > 1:
            assert solve_region(t, state, k - 1, 10**7, scratch) == -1
        for cap in (0, 1, 3, 10, 30):  # a node cap only ever turns an answer into -1
            assert solve_region(t, state, MAX_LIMIT, cap, scratch) in (-1, exact)


def test_a_reused_scratch_answers_as_a_fresh_one():
    """The endgame table is not cleared between calls (its entries carry the call's
    generation): one scratch through 700 solves at changing limits (each change
    clears the table), then 600 at one limit (the generations wrap twice), with
    tight node caps whose answers depend on every table hit, answers each solve as
    a zeroed scratch of its own does."""
    shared = np.zeros(scratch_size(MAX_LIMIT), dtype=np.int64)
    rnd = random.Random(5)
    states = _endgames([7, 9], 100, 16, seed=5)
    answers = set()
    for i in range(700):
        state = states[i % len(states)]
        t = trike_agents.tables(trike_agents.size_of(state))
        limit, cap = rnd.choice((12, 16, MAX_LIMIT)), rnd.choice((40, 200, 10**6))
        fresh = np.zeros(scratch_size(MAX_LIMIT), dtype=np.int64)
        got = solve_region(t, state, limit, cap, shared)
        assert got == solve_region(t, state, limit, cap, fresh), i
        answers.add(got)
    assert answers == {-1, 0, 1}
    wraps = 0
    for i in range(600):  # one limit throughout: the generations wrap
        state = states[i % len(states)]
        t = trike_agents.tables(trike_agents.size_of(state))
        cap = rnd.choice((40, 200, 10**6))
        fresh = np.zeros(scratch_size(MAX_LIMIT), dtype=np.int64)
        before = shared[-1]
        got = solve_region(t, state, 16, cap, shared)
        assert got == solve_region(t, state, 16, cap, fresh), i
        assert shared[-1] >> 8 == 16  # the limit of the last call
        wraps += before == 16 * 256 + GENERATIONS and shared[-1] == 16 * 256 + 1
    assert wraps >= 2


def test_endgame_solve_is_not_asked_before_the_game_has_an_endgame():
    size = 4
    t = trike_agents.tables(size)
    scratch = np.zeros(scratch_size(MAX_LIMIT), dtype=np.int64)
    empty = trike_agents.new_state(size, pie=True)
    assert solve_region(t, empty, MAX_LIMIT, 10**6, scratch) == -1
    game = trike_agents.agent_game(size)
    game.apply(empty, 0)  # one checker with the pie rule: the swap is open
    assert solve_region(t, empty, MAX_LIMIT, 10**6, scratch) == -1
    empty[trike_agents.S_PIE_RULE] = 0  # the same position without the pie rule is one
    assert solve_region(t, empty, MAX_LIMIT, 10**6, scratch) in (0, 1)


def test_symmetric_endgames_get_the_same_answer():
    scratch = np.zeros(scratch_size(16), dtype=np.int64)
    for state in _endgames([5, 7, 8], 40, 14, seed=3):
        size, board, pawn = _board(state)
        t = trike_agents.tables(size)
        answers = set()
        for m in ref.symmetries(size):
            pos = trike.TrikePosition(
                size, sum(1 << trike.point_index(*m[c]) for c, v in board.items() if v == "b"),
                sum(1 << trike.point_index(*m[c]) for c, v in board.items() if v == "w"),
                trike.point_index(*m[pawn]))
            answers.add(solve_region(t, trike_agents.from_position(pos, pie=False), 16,
                                     10**7, scratch))
        assert len(answers) == 1 and answers != {-1}


def test_solve_playout_writes_exact_rewards_with_zero_plies():
    """The agent contract: 0 plies iff the rewards are exact."""
    for state in _endgames([7, 11], 30, 10, seed=4):
        size, board, pawn = _board(state)
        me = trike_agents.seat_to_move(state)
        exact = int(ref.minimax(size, board, pawn)[0] > 0)
        solving = trike_agents.agent_game(size, 12, 10**6)
        plies, rewards = solving.playout(state.copy(), game_stream(np.uint64(1), np.uint64(0)))
        assert plies == 0 and rewards[me] == exact and rewards[1 - me] == 1 - exact
        plain = trike_agents.agent_game(size)
        plies, _ = plain.playout(state.copy(), game_stream(np.uint64(1), np.uint64(0)))
        assert plies > 0


def test_mcts_solve_plays_a_won_endgame_to_the_win_and_proves_it():
    rnd = random.Random(5)
    agent = trike_agents.parse_agent("mcts-solve:200")
    checked = 0
    for state in _endgames([8, 13], 40, 12, seed=6):
        size, board, pawn = _board(state)
        if ref.minimax(size, board, pawn)[0] < 0:
            continue  # lost: any move is as good
        res = agent.search(size, state, game_stream(np.uint64(rnd.randrange(99)), np.uint64(0)))
        assert res.proven and res.value == 1.0
        child = ref.play(board, trike.point_coords(size)[res.action])
        assert ref.minimax(size, child, trike.point_coords(size)[res.action])[0] < 0
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("text,limit", [("mcts-solve:100", trike_agents.ENDGAME_LIMIT),
                                        ("mcts-solve:2s", trike_agents.ENDGAME_LIMIT),
                                        ("mcts-solve:100:12", 12), ("mcts:100", 0),
                                        ("mcts-trap:100", trike_agents.ENDGAME_LIMIT),
                                        ("mcts-trap:1s:10", 10),
                                        ("mcts-trap:0.015s@2", trike_agents.ENDGAME_LIMIT),
                                        ("mcts-trap:500@2:12", 12),
                                        ("mcts-squeeze:100", trike_agents.ENDGAME_LIMIT),
                                        ("mcts-squeeze:0.0084s@2:14", 14)])
def test_parse_trike_agents(text, limit):
    agent = trike_agents.parse_agent(text)
    assert agent.endgame_limit == limit and agent.text == text
    assert agent.spec.threads == (2 if "@2" in text else 1)
    assert agent.tactics == text.startswith(("mcts-trap", "mcts-squeeze"))
    assert agent.squeeze == text.startswith("mcts-squeeze")
    playout = trike_agents.SQUEEZE if agent.squeeze else int(agent.tactics)
    assert agent.game(5).tables[trike_agents.T_TACTICS] == playout
    assert agent.endgame_nodes == (trike_agents.ENDGAME_NODES if limit else 0)
    assert agent.game(5).playout_scratch == (scratch_size(limit) if limit else 0)


@pytest.mark.parametrize("text,message", [
    ("greedy", "unknown agent"), ("mcts-solve", "needs a budget"),
    ("mcts-solve:0", "at least 1"), ("mcts-solve:100:0", "1.."),
    (f"mcts-solve:100:{MAX_LIMIT + 1}", "1.."), ("mcts-solve:100:x", "whole number"),
    ("mcts-solve:nans", "finite"), ("mcts-trap:0", "at least 1"), ("mcts-trapx:5", "unknown")])
def test_bad_trike_agents_are_refused_in_one_line(text, message):
    with pytest.raises(ValueError, match=message) as e:
        trike_agents.parse_agent(text)
    assert "\n" not in str(e.value)


def test_plain_mcts_is_unchanged_by_the_endgame_tables():
    """``mcts:N`` searches the same tree as before the endgame option existed: the
    same moves as a search on an explicitly endgame-free game."""
    size = 7
    state = trike_agents.new_state(size, pie=False)
    trike_agents.agent_game(size).apply(state, 9)
    a = trike_agents.parse_agent("mcts:300").search(
        size, state, game_stream(np.uint64(4), np.uint64(0)))
    b = trike_agents.agent_game(size, 0, 0).search(
        state, mcts.parse_agent("mcts:300"), game_stream(np.uint64(4), np.uint64(0)))
    assert a.action == b.action and a.children == b.children
