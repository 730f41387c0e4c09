"""The Trike array engine (sides 2..19) against the reference, and the MCTS agent."""

from __future__ import annotations

import dataclasses
import random
import time

import numba as nb
import numpy as np
import pytest
from numba import types
from trilab.solver import clock, game_api, mcts
from trilab.solver.rng import PyRng, game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref
from trilab.solver.trike.alphabeta import AlphaBetaSolver

SIZES = range(trike_agents.MIN_SIZE, trike_agents.MAX_SIZE + 1)


def _stream(seed: int, game: int = 0) -> np.ndarray:
    return game_stream(np.uint64(seed), np.uint64(game))


def _reference_board(game, state) -> tuple[dict, tuple[int, int]]:
    """The reference's board and pawn for an engine state (seat 0 = ``b`` before a swap)."""
    size = trike_agents.size_of(state)
    coords = trike.point_coords(size)
    black, white = trike_agents.black_points(state)
    board = {}
    for p, cell in enumerate(coords):
        if black >> p & 1:
            board[cell] = "b"
        elif white >> p & 1:
            board[cell] = "w"
    return board, coords[trike_agents.pawn_point(state)]


@pytest.mark.parametrize("size", SIZES)
def test_array_engine_matches_reference_move_by_move(size):
    """Whole random games (with and without a pie swap): at every ply the legal
    moves, the seat to move, the end and the winner agree with the reference."""
    game = trike_agents.agent_game(size)
    coords = trike.point_coords(size)
    rnd = random.Random(size)
    for g in range(12):
        state = trike_agents.new_state(size, pie=g % 2 == 0)
        assert game.seat(state) == 0
        assert game.legal(state) == list(range(len(coords)))
        game.apply(state, rnd.randrange(len(coords)))
        swapped = False
        while True:
            board, pawn = _reference_board(game, state)
            expected = {trike.point_index(*c) for c in ref.legal_moves(size, board, pawn)}
            actions = game.legal(state)
            moves = [a for a in actions if a != len(coords)]
            assert sorted(moves) == sorted(expected), (size, g)
            assert len(moves) == len(set(moves))
            colour = ref.to_move(board)
            b_seat = 1 if swapped else 0
            assert game.seat(state) == (b_seat if colour == "b" else 1 - b_seat)
            pie_now = g % 2 == 0 and len(board) == 1 and not swapped
            assert (len(coords) in actions) == (pie_now and bool(moves))
            if not actions:
                assert ref.trapped(size, board, pawn)
                s = ref.scores(size, board, pawn)
                winner_colour = "b" if s["b"] > s["w"] else "w"
                winner = b_seat if winner_colour == "b" else 1 - b_seat
                assert game.rewards(state) == [1.0 if k == winner else 0.0 for k in (0, 1)]
                break
            if pie_now and rnd.random() < 0.5:
                game.apply(state, len(coords))
                swapped = True
                continue
            game.apply(state, rnd.choice(moves))


@pytest.mark.parametrize("size", [2, 3, 7, 13, 19])
def test_playout_ends_a_legal_game_with_the_reference_winner(size):
    game = trike_agents.agent_game(size)
    for g in range(20):
        state = trike_agents.new_state(size, pie=g % 2 == 0)
        plies, rewards = game.playout(state, _stream(7, g))
        assert plies >= 1
        assert game.legal(state) == []
        board, pawn = _reference_board(game, state)
        assert ref.trapped(size, board, pawn)
        assert len(board) == int(state[trike_agents.S_COUNT])
        assert sorted(rewards) == [0.0, 1.0]
        assert rewards == game.rewards(state)
        again = trike_agents.new_state(size, pie=g % 2 == 0)
        assert game.playout(again, _stream(7, g)) == (plies, rewards)
        assert np.array_equal(again, state)


@pytest.mark.parametrize("size", [2, 4, 7, 10, 13, 19])
def test_bit_scan_playout_equals_walking_the_rays(size):
    """The playout reads reaches from the line words; replaying its random draws
    (same stream, in pure Python) over the mailbox's ray walk (``legal``, the
    pie swap last) gives the same game: same final state, line words included."""
    game = trike_agents.agent_game(size)
    for g in range(10):
        pie = g % 3 == 0
        fast = trike_agents.new_state(size, pie=pie)
        plies, _ = game.playout(fast, _stream(21, g))
        stream = PyRng(21, g)
        slow = trike_agents.new_state(size, pie=pie)
        game.apply(slow, stream.below(trike.n_points(size)))
        count = 1
        while actions := game.legal(slow):
            game.apply(slow, actions[stream.below(len(actions))])
            count += 1
        assert count == plies
        assert np.array_equal(fast, slow)
        pos = trike.TrikePosition(size, *trike_agents.black_points(slow),
                                  trike_agents.pawn_point(slow))
        assert np.array_equal(trike_agents.from_position(pos, pie=pie)[:len(slow)][
            trike_agents.S_CELLS:], slow[trike_agents.S_CELLS:])


def _empty_neighbours(size: int, state: np.ndarray, point: int) -> int:
    """Empty points next to ``point``, from the triangle's coordinates."""
    black, white = trike_agents.black_points(state)
    coords = trike.point_coords(size)
    index = {rc: i for i, rc in enumerate(coords)}
    r, c = coords[point]
    around = [(r, c + 1), (r, c - 1), (r + 1, c), (r - 1, c), (r + 1, c + 1), (r - 1, c - 1)]
    return sum(1 for rc in around if rc in index and not (black | white) >> index[rc] & 1)


def _draw_move(stream: PyRng, moves: list[int], losing: set[int]) -> int:
    """A uniform move, one in ``losing`` drawn again unless every move is."""
    while True:
        a = moves[stream.below(len(moves))]
        if len(losing) == len(moves) or a not in losing:
            return a


def _tactical_replay(game, size: int, pie: bool, stream: PyRng,
                     squeeze: bool = False) -> tuple[np.ndarray, int]:
    """The tactical playout in pure Python over the game's own move list: a move that
    ends the game is found by playing it and asking for the replies (no trap formula),
    then the same draws as the kernel (swap draw, winning trap, rejection of losing
    traps); with ``squeeze``, when two or more moves are not losing traps, a second
    move drawn the same way and the one with fewer empty neighbours played."""
    state = trike_agents.new_state(size, pie=pie)
    game.apply(state, stream.below(trike.n_points(size)))
    plies = 1
    while actions := game.legal(state):
        moves = [a for a in actions if a != trike.n_points(size)]
        if len(moves) < len(actions) and stream.below(len(moves) + 1) == len(moves):
            game.apply(state, trike.n_points(size))
            plies += 1
            continue
        mover = game.seat(state)
        winning, losing = None, set()
        for a in moves:
            after = state.copy()
            game.apply(after, a)
            if not game.legal(after):
                if game.rewards(after)[mover] == 1.0:
                    winning = a
                    break
                losing.add(a)
        if winning is not None:
            game.apply(state, winning)
            return state, plies + 1
        a = _draw_move(stream, moves, losing)
        if squeeze and len(moves) - len(losing) > 1:
            b = _draw_move(stream, moves, losing)
            if _empty_neighbours(size, state, b) < _empty_neighbours(size, state, a):
                a = b
        game.apply(state, a)
        plies += 1
    return state, plies


@pytest.mark.parametrize("size", [2, 3, 5, 8, 13, 19])
def test_tactical_playout_equals_its_python_twin(size):
    """``tactical_playout`` (the ``mcts-tact`` playouts) against a pure-Python replay of
    its rules and random draws: the same final state and plies."""
    game = trike_agents.agent_game(size, tactics=True)
    t = trike_agents.tables(size, tactics=True)
    for g in range(30):
        pie = g % 3 == 0
        fast = trike_agents.new_state(size, pie=pie)
        plies = trike_agents.tactical_playout(t, fast, _stream(33, g))
        slow, slow_plies = _tactical_replay(game, size, pie, PyRng(33, g))
        assert (plies, fast.tolist()) == (slow_plies, slow.tolist())


def test_squeeze_needs_tactics():
    with pytest.raises(ValueError, match="squeeze needs tactics"):
        trike_agents.tables(5, squeeze=True)


@pytest.mark.parametrize("size", [2, 3, 5, 8, 13, 19])
def test_squeeze_playout_equals_its_python_twin(size):
    """``squeeze_playout`` (the ``mcts-squeeze`` playouts) against the pure-Python replay
    with the squeeze rule, its neighbours counted from the triangle's coordinates."""
    t = trike_agents.tables(size, tactics=True, squeeze=True)
    game = trike_agents.agent_game(size, tactics=True, squeeze=True)
    differs = 0
    for g in range(30):
        pie = g % 3 == 0
        fast = trike_agents.new_state(size, pie=pie)
        plies = trike_agents.squeeze_playout(t, fast, _stream(34, g))
        slow, slow_plies = _tactical_replay(game, size, pie, PyRng(34, g), squeeze=True)
        assert (plies, fast.tolist()) == (slow_plies, slow.tolist())
        plain = trike_agents.new_state(size, pie=pie)
        trike_agents.tactical_playout(t, plain, _stream(34, g))
        differs += plain.tolist() != fast.tolist()
    assert differs > 0 or size <= 3  # the squeeze does change games


def test_playouts_kernel_agrees_with_single_playouts():
    size = 6
    game = trike_agents.agent_game(size)
    start = trike_agents.new_state(size, pie=False)
    winners = trike_agents.playouts(trike_agents.tables(size), start, np.uint64(3), 10, 30)
    for i, w in enumerate(winners):
        state = start.copy()
        _, rewards = game.playout(state, _stream(3, 10 + i))
        assert rewards[w] == 1.0


def test_from_position_round_trips_notation():
    pos = trike.parse_position("b/.w/B..")
    state = trike_agents.from_position(pos, pie=False)
    assert trike_agents.black_points(state) == (pos.black, pos.white)
    assert trike_agents.pawn_point(state) == pos.pawn
    assert sorted(trike_agents.legal_points(state)) == sorted(pos.legal_moves())


@pytest.mark.parametrize("bad", [1, 20, True, 2.0])
def test_array_engine_rejects_bad_sizes(bad):
    with pytest.raises(ValueError, match="not in 2..19"):
        trike_agents.check_size(bad)


# ---------------------------------------------------------------- MCTS on Trike


def _placer_wins_some_opening(size: int) -> bool:
    for p in range(trike.n_points(size)):
        pos = trike.opening(size, p)
        board = {trike.point_coords(size)[p]: "b"}
        margin, _, _ = ref.minimax(size, board, trike.point_coords(size)[pos.pawn])
        if margin < 0:  # the mover (side to move) loses
            return True
    return False


@pytest.mark.parametrize("size", [2, 3, 4])
@pytest.mark.parametrize("pie", [False, True])
def test_mcts_solver_proves_small_boards_like_brute_force(size, pie):
    """From the empty board, MCTS-Solver proves the game value: without the pie
    rule the first player wins iff some opening is a placer win (brute-force
    minimax); with it the first player always loses (the second player swaps
    a winning opening or plays on against a losing one)."""
    game = trike_agents.agent_game(size)
    res = game.search(trike_agents.new_state(size, pie=pie), mcts.AgentSpec(simulations=200_000),
                      _stream(1))
    assert res.proven
    first_player_wins = _placer_wins_some_opening(size) and not pie
    assert res.value == (1.0 if first_player_wins else 0.0)
    if first_player_wins:
        pos = trike.opening(size, res.action)
        board = {trike.point_coords(size)[res.action]: "b"}
        assert ref.minimax(size, board, trike.point_coords(size)[pos.pawn])[0] < 0


def _winning_moves(solver: AlphaBetaSolver, pos: trike.TrikePosition) -> set[int]:
    return {d for d in pos.legal_moves() if not solver.is_win(pos.play(d))}


def _check_wins_on_size_6(spec: mcts.AgentSpec, stream_seed: int) -> None:
    """12 random won size-6 positions (always the same ones): the agent plays a
    winning move in each."""
    solver = AlphaBetaSolver(6, tt_mb=16)
    rnd = random.Random(6)
    checked = 0
    while checked < 12:
        pos = trike.opening(6, rnd.randrange(21))
        for _ in range(rnd.randrange(2, 9)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rnd.choice(moves))
        if pos.is_terminal() or not solver.is_win(pos):
            continue
        state = trike_agents.from_position(pos, pie=False)
        res = trike_agents.agent_game(6).search(state, spec, _stream(stream_seed, checked))
        assert res.action in _winning_moves(solver, pos), pos.to_notation()
        checked += 1


def test_mcts_picks_winning_moves_on_size_6():
    """Random won size-6 positions: 2,000 simulations find a winning move."""
    _check_wins_on_size_6(mcts.AgentSpec(simulations=2000), 5)


def test_mcts_is_reproducible_and_uses_its_stream():
    game = trike_agents.agent_game(7)
    state = trike_agents.new_state(7)
    spec = mcts.AgentSpec(simulations=3000)
    a = game.search(state, spec, _stream(11))
    b = game.search(state, spec, _stream(11))
    assert a.action == b.action and a.children == b.children and a.nodes == b.nodes
    c = game.search(state, spec, _stream(12))
    assert [x.visits for x in c.children] != [x.visits for x in a.children]
    assert a.simulations == 3000
    assert sum(x.visits for x in a.children) == 3000  # every simulation enters a child
    assert np.array_equal(state, trike_agents.new_state(7))  # the root is not changed


def test_mcts_time_budget_stops():
    game = trike_agents.agent_game(9)
    res = game.search(trike_agents.new_state(9), mcts.AgentSpec(seconds=0.05), _stream(1))
    assert res.simulations > 0
    assert 0.05 <= res.seconds < 2.0


@pytest.mark.parametrize("threads", [1, 2])
def test_mcts_reused_trees_give_the_same_search(threads):
    """A search on a thread's reused tree buffers (:func:`mcts.reused_tree`), dirty from
    searches of other positions, gives the search a fresh tree gives."""
    game = trike_agents.agent_game(7)
    spec = mcts.AgentSpec(simulations=4000, threads=threads)
    start = trike_agents.new_state(7, pie=False)
    other = start.copy()
    game.apply(other, 12)
    mcts.release_trees()  # this thread's first search of the shape: fresh buffers
    first = game.search(start, spec, _stream(5))
    game.search(other, spec, _stream(6))  # dirties the same buffers
    again = game.search(start, spec, _stream(5))
    assert len(mcts._REUSED.trees) == threads
    assert again == dataclasses.replace(first, seconds=again.seconds)


def test_mcts_time_budget_is_one_kernel_call_per_tree(monkeypatch):
    """Under a time budget each tree is grown by one kernel call that reads the clock
    itself (the deadline of :func:`clock.monotonic` and at least TIME_BATCH
    simulations), not by batches that return to Python to read it."""
    calls = []
    real = mcts.run_simulations

    def counting(*args):
        calls.append(args[-5:])  # n_sims, c_explore, expand, deadline, min_sims
        return real(*args)

    monkeypatch.setattr(mcts, "run_simulations", counting)
    game = trike_agents.agent_game(9)
    before = clock.monotonic()
    res = game.search(trike_agents.new_state(9), mcts.AgentSpec(seconds=0.1), _stream(1))
    after = clock.monotonic()
    assert len(calls) == 1
    n_sims, _, _, deadline, min_sims = calls[0]
    assert before + 0.1 <= deadline <= after
    assert min_sims == mcts.TIME_BATCH and n_sims > 10**9
    assert 0.1 <= res.seconds < 1.0
    assert res.simulations > 4 * mcts.TIME_BATCH or res.proven
    calls.clear()
    game.search(trike_agents.new_state(9), mcts.AgentSpec(seconds=0.05, threads=2), _stream(1))
    assert len(calls) == 2 and calls[0][3] == calls[1][3]  # one deadline for both trees


def _deadline_run(deadline: float, min_sims: int, n_sims: int = 5000) -> int:
    game = trike_agents.agent_game(7)
    tree = mcts.new_tree(2, 200_000)
    root = trike_agents.new_state(7, pie=False)
    scratch = mcts.Scratch(state=np.empty_like(root), actions=np.empty(64, dtype=np.int64),
                           playout=np.empty(max(game.playout_scratch, 1), dtype=np.int64),
                           rewards=np.zeros(2), path=np.empty(mcts.MAX_PATH, dtype=np.int64))
    return mcts.run_simulations(*game.kernels, game.tables, root, _stream(4), *tree[:-1],
                                tree.counters, *scratch, n_sims, 0.7, 0.0, deadline, min_sims)


def test_run_simulations_stops_at_its_deadline():
    """A deadline already past stops the kernel right after its ``min_sims``; one far
    ahead lets it run its ``n_sims``; no deadline (0) never reads the clock."""
    assert _deadline_run(clock.monotonic() - 1.0, 0) == 0
    assert _deadline_run(clock.monotonic() - 1.0, 37) == 37
    assert _deadline_run(clock.monotonic() + 3600.0, 37) == 5000
    assert _deadline_run(0.0, 0) == 5000


def test_run_simulations_runs_until_a_near_deadline():
    """With a deadline 50 ms ahead the kernel returns at it (one reading every
    CLOCK_EVERY simulations), having run more than its minimum."""
    start = clock.monotonic()
    done = _deadline_run(start + 0.05, 0, n_sims=10**12)
    end = clock.monotonic()
    assert end >= start + 0.05
    assert done > mcts.CLOCK_EVERY and done % mcts.CLOCK_EVERY == 0
    assert end < start + 1.0


def test_compiled_clock_is_the_monotonic_clock():
    """:func:`clock.monotonic` reads the clock of :func:`time.monotonic`."""
    readings = []
    for _ in range(5):
        t0 = time.monotonic()
        c = clock.monotonic()
        t1 = time.monotonic()
        readings.append(c)
        assert t0 - 1e-6 <= c <= t1 + 1e-6
    assert readings == sorted(readings)


def test_mcts_on_a_finished_game_raises():
    pos = trike.parse_position("B/bw")  # the pawn's neighbours are all taken
    state = trike_agents.from_position(pos, pie=False)
    with pytest.raises(ValueError, match="over"):
        trike_agents.agent_game(2).search(state, mcts.AgentSpec(simulations=10), _stream(1))


def _root_choice_by_hand(tree: mcts.Tree) -> int:
    """The root move rule of the module docstring, restated in Python: the action."""
    first, who = int(tree.first_child[0]), int(tree.mover[0])
    kids = []
    for c in range(first, first + int(tree.n_children[0])):
        vis = float(tree.visits[c])
        val = (float(tree.exact[c, who]) if tree.proven[c]
               else float(tree.value[c, who]) / vis if vis else 0.0)
        kids.append((int(tree.action[c]), vis, val, bool(tree.proven[c])))
    if tree.proven[0]:
        target = float(tree.exact[0, who])
        return max((k for k in kids if k[3] and k[2] == target), key=lambda k: k[1])[0]
    hopeful = [k for k in kids if not (k[3] and k[2] <= 0.0)] or kids
    return max(hopeful, key=lambda k: (k[1], k[2]))[0]


def _random_root(rnd: random.Random, n_seats: int) -> mcts.Tree:
    """A root and its children with random statistics, ties frequent (visits 0..4,
    rewards in halves), some children proven, and the root proven as ``_prove``
    leaves it (the exact rewards of a proven child) or not."""
    tree = mcts.new_tree(n_seats, 64)
    n = rnd.randint(1, 8)
    who = rnd.randrange(n_seats)
    tree.first_child[0], tree.n_children[0], tree.mover[0] = 1, n, who
    for c in range(1, n + 1):
        tree.action[c] = 100 + c
        tree.visits[c] = rnd.randint(0, 4)
        tree.proven[c] = rnd.random() < 0.4
        for s in range(n_seats):
            tree.value[c, s] = rnd.randint(0, 2 * int(tree.visits[c])) / 2
            tree.exact[c, s] = rnd.choice((0.0, 0.5, 1.0))
    proven = [c for c in range(1, n + 1) if tree.proven[c]]
    if proven and rnd.random() < 0.5:
        tree.proven[0] = 1
        tree.exact[0] = tree.exact[rnd.choice(proven)]
    return tree


def test_root_choice_is_the_stated_rule_on_random_trees():
    """The one compiled root rule (``root_child``, which the game loops' ``search_turn``
    plays) and ``search``'s result (``_choose``) pick the move of the rule as stated."""
    rnd = random.Random(18)
    for _ in range(3000):
        tree = _random_root(rnd, rnd.choice((2, 3)))
        expected = _root_choice_by_hand(tree)
        best = mcts.root_child(tree.first_child, tree.n_children, tree.mover, tree.visits,
                               tree.value, tree.proven, tree.exact)
        assert tree.action[best] == expected
        assert mcts._choose(tree, 0, 0.0).action == expected


def test_search_turn_plays_the_search_move():
    """``search_turn`` on reused buffers (``new_work``; a tree left by an earlier
    search) plays ``AgentGame.search``'s move with the same stream and tree size."""
    game = trike_agents.agent_game(6)
    state = trike_agents.new_state(6)
    nodes = mcts.loop_tree_capacity(200, game.max_actions)
    work = mcts.new_work(game.tables, len(state), 2, nodes, game.max_actions,
                         game.playout_scratch, mcts.MAX_PATH)
    work.root[:] = state
    for seed in range(4):
        stream = _stream(seed)
        action = mcts.search_turn(*game.kernels, work, stream, 200, mcts.DEFAULT_EXPLORATION,
                                  nodes)
        again = _stream(seed)
        res = game.search(state, mcts.AgentSpec(simulations=200), again, max_nodes=nodes)
        assert action == res.action
        assert np.array_equal(stream, again)  # the same draws
        assert work.counters[mcts.C_SIMULATIONS] == 200


def test_mcts_short_path_buffer_keeps_searching():
    """A search deeper than its path buffer evaluates the deepest node by a
    playout instead of writing past the buffer."""
    game = trike_agents.agent_game(6)
    tree = mcts.new_tree(2, 100_000)
    root = trike_agents.new_state(6, pie=False)
    guarded = np.full(3 + 64, -7, dtype=np.int64)  # the buffer, then sentinels
    scratch = mcts.Scratch(state=np.empty_like(root), actions=np.empty(64, dtype=np.int64),
                           playout=np.empty(64, dtype=np.int64),
                           rewards=np.zeros(2), path=guarded[:3])
    done = mcts.run_simulations(*game.kernels, game.tables, root, _stream(4), *tree[:-1],
                                tree.counters, *scratch, 3000, 0.7)
    assert done == 3000
    assert 1 < tree.counters[mcts.C_NODES] < 3000  # the buffer stopped the descent
    assert (guarded[3:] == -7).all()  # nothing written past the buffer


def test_mcts_full_tree_keeps_searching():
    game = trike_agents.agent_game(5)
    res = game.search(trike_agents.new_state(5, pie=False), mcts.AgentSpec(simulations=5000),
                      _stream(2), max_nodes=200)
    assert res.nodes <= 200
    assert res.simulations == 5000


@pytest.mark.parametrize("text,error", [
    ("random", "unknown agent"), ("mcts", "needs a budget"), ("mcts:0", "at least 1"),
    ("mcts:-5", "at least 1"), ("mcts:abc", "bad budget"), ("mcts:0s", "at least 0.001 s"),
    ("mcts:nans", "finite number"), ("mcts:infs", "finite number"),
    ("mcts:1000000001", "at most"), ("mcts:1.5", "bad budget"),
])
def test_bad_agent_specs_give_one_line(text, error):
    with pytest.raises(ValueError, match=error) as exc:
        mcts.parse_agent(text)
    assert "\n" not in str(exc.value)


def test_agent_specs_parse():
    assert mcts.parse_agent("mcts:1000") == mcts.AgentSpec(simulations=1000)
    assert mcts.parse_agent("mcts:0.5s") == mcts.AgentSpec(seconds=0.5)
    assert mcts.parse_agent("mcts:2s").text == "mcts:2s"
    assert mcts.parse_agent("mcts:1000@2") == mcts.AgentSpec(simulations=1000, threads=2)
    assert mcts.parse_agent("mcts:0.5s@4").text == "mcts:0.5s@4"
    assert mcts.parse_agent("mcts:7@1") == mcts.AgentSpec(simulations=7)
    shared = mcts.parse_agent("mcts:0.5s@2t")
    assert shared == mcts.AgentSpec(seconds=0.5, threads=2, shared_tree=True)
    assert shared.text == "mcts:0.5s@2t"


@pytest.mark.parametrize("text,error", [
    ("mcts:1000@0", "threads"), ("mcts:1000@", "threads"), ("mcts:1000@x", "threads"),
    ("mcts:1000@65", "threads"), ("mcts:1@2", "one simulation a thread"),
    ("mcts:@2", "bad budget"), ("mcts:1000@2t", "time budget"), ("mcts:1s@1t", "2 threads"),
    ("mcts:1s@t", "threads"), ("mcts:1s@2tt", "threads"),
])
def test_bad_thread_counts_give_one_line(text, error):
    with pytest.raises(ValueError, match=error) as exc:
        mcts.parse_agent(text)
    assert "\n" not in str(exc.value)


def test_root_parallel_search_is_reproducible_and_splits_the_budget():
    """``N@2`` grows two trees of ``N/2`` simulations from streams drawn from the
    one given: the same seed gives the same move and statistics, whatever the
    threads' timing; every simulation is counted once in the merged root."""
    game = trike_agents.agent_game(7)
    state = trike_agents.new_state(7, pie=False)
    spec = mcts.AgentSpec(simulations=3001, threads=2)
    runs = [game.search(state, spec, _stream(11)) for _ in range(3)]
    assert all(r.action == runs[0].action and r.children == runs[0].children for r in runs)
    assert runs[0].simulations == 3001
    assert sum(c.visits for c in runs[0].children) == 3001
    assert len({c.action for c in runs[0].children}) == len(runs[0].children)
    single = game.search(state, mcts.AgentSpec(simulations=3001), _stream(11))
    assert [c.visits for c in single.children] != [c.visits for c in runs[0].children]


def test_merged_roots_sum_the_trees_action_by_action():
    """``merge_roots`` on random trees whose children come in different orders and
    whose proofs may disagree (three seats prove ties differently): the visits and
    rewards of each action are the sums; the proofs are those of the first tree that
    proved its root, else the first proof of each action; the move chosen on the
    merge is the stated root rule on it, and a proven root has its proven child."""
    rnd = random.Random(23)
    for _ in range(600):
        n_seats = rnd.choice((2, 3))
        trees = [_random_root(rnd, n_seats)]
        n = int(trees[0].n_children[0])
        while len(trees) < rnd.randint(1, 3):
            t = _random_root(rnd, n_seats)
            if t.n_children[0] == n and t.mover[0] == trees[0].mover[0]:
                trees.append(t)
        for t in trees[1:]:  # the same actions as tree 0, in another order
            order = list(range(1, n + 1))
            rnd.shuffle(order)
            for c, a in zip(range(1, n + 1), order):
                t.action[c] = 100 + a
        merged = mcts.merge_roots(trees, n_seats)
        prover = next((t for t in trees if t.proven[0]), None)
        assert bool(merged.proven[0]) == (prover is not None)
        for j in range(1, n + 1):
            a = int(merged.action[j])
            kids = [(t, c) for t in trees for c in range(1, n + 1) if t.action[c] == a]
            assert len(kids) == len(trees)
            assert merged.visits[j] == sum(t.visits[c] for t, c in kids)
            assert np.allclose(merged.value[j], sum(t.value[c] for t, c in kids))
            proofs = [(t, c) for t, c in kids if t.proven[c] and (prover is None or t is prover)]
            assert bool(merged.proven[j]) == bool(proofs)
            if proofs:
                assert np.array_equal(merged.exact[j], proofs[0][0].exact[proofs[0][1]])
        chosen = mcts._choose(merged, 0, 0.0)  # never "the game is over"
        assert chosen.action == _root_choice_by_hand(merged)
        if prover is not None:
            who = int(merged.mover[0])
            assert chosen.proven and chosen.value == merged.exact[0, who]


def test_root_parallel_search_finds_winning_moves_on_size_6():
    """Two trees of 2,000 simulations each find a winning move in the random won size-6
    positions where one tree of 2,000 does (above)."""
    _check_wins_on_size_6(mcts.AgentSpec(simulations=4000, threads=2), 9)


def test_shared_tree_search_counts_every_simulation_once():
    """``Ns@2t``: two threads grow one tree; every simulation is counted once at the
    root (the per-thread root statistics summed), the children are the legal moves,
    the time budget holds, and the root state is left as it was."""
    game = trike_agents.agent_game(9, 18, 20_000, True, True)
    state = trike_agents.from_position(trike.opening(9, 17).play(20), pie=False)
    before = state.copy()
    spec = mcts.AgentSpec(seconds=0.05, threads=2, shared_tree=True)
    game.search(state, spec, _stream(2))  # compiled (when the cache is cold) before it is timed
    res = game.search(state, spec, _stream(3))
    assert np.array_equal(state, before)
    assert res.simulations > 1000
    assert sum(c.visits for c in res.children) == res.simulations
    assert sorted(c.action for c in res.children) == sorted(game.legal(state))
    assert res.action in game.legal(state)
    assert 0.05 <= res.seconds < 2.0
    assert res.nodes > len(res.children)  # the threads expanded nodes below the root


def test_shared_tree_search_finds_winning_moves_on_size_6():
    """A shared tree on two threads finds a winning move in the random won size-6
    positions where one tree of 2,000 simulations does (above)."""
    _check_wins_on_size_6(mcts.AgentSpec(seconds=0.02, threads=2, shared_tree=True), 9)


def test_shared_tree_search_proves_a_won_endgame():
    """A position the solver proves won: the shared tree proves its root (the threads'
    proofs meet in one tree) and plays a winning move."""
    solver = AlphaBetaSolver(5, tt_mb=16)
    rnd = random.Random(8)
    proven = 0
    for _ in range(200):
        pos = trike.opening(5, rnd.randrange(15))
        for _ in range(rnd.randrange(3, 7)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.play(rnd.choice(moves))
        if pos.is_terminal() or not solver.is_win(pos):
            continue
        state = trike_agents.from_position(pos, pie=False)
        res = trike_agents.agent_game(5).search(
            state, mcts.AgentSpec(seconds=0.2, threads=2, shared_tree=True), _stream(4, proven))
        assert res.action in _winning_moves(solver, pos), pos.to_notation()
        assert res.proven and res.value == 1.0
        proven += 1
        if proven == 6:
            break
    assert proven == 6


def test_root_parallel_time_budget_stops():
    game = trike_agents.agent_game(9)
    res = game.search(trike_agents.new_state(9), mcts.AgentSpec(seconds=0.05, threads=2),
                      _stream(1))
    assert res.simulations > 0
    assert 0.05 <= res.seconds < 2.0


# ------------------------------------------- a 3-seat game through the same contract
# Three-player Nim: a pile of stones, seats 0, 1, 2 in turn take 1 or 2; who
# takes the last stone wins.  State: [pile, seat to move].  Written here only
# to check that the agent is not two-player-only (rewards per seat, max^n).

_I64 = types.int64[::1]


@nb.cfunc(game_api.LEGAL_SIG, cache=True)
def _nim_legal(t, state, out):
    n = 0
    for take in (1, 2):
        if take <= state[0]:
            out[n] = take
            n += 1
    return n


@nb.cfunc(game_api.APPLY_SIG, cache=True)
def _nim_apply(t, state, action):
    state[0] -= action
    state[1] = (state[1] + 1) % 3
    return 0


@nb.cfunc(game_api.SEAT_SIG, cache=True)
def _nim_seat(t, state):
    return state[1]


@nb.cfunc(game_api.REWARDS_SIG, cache=True)
def _nim_rewards(t, state, out):
    for s in range(3):
        out[s] = 0.0
    out[(state[1] + 2) % 3] = 1.0  # the seat that moved last took the last stone
    return 0


@nb.cfunc(game_api.PLAYOUT_SIG, cache=True)
def _nim_playout(t, state, stream, scratch, out):
    plies = 0
    while state[0] > 0:
        take = 1 if state[0] == 1 else 1 + np.int64(np.uint64(stream[0]) % np.uint64(2))
        stream[0] += np.uint64(0x9E3779B97F4A7C15)
        state[0] -= take
        state[1] = (state[1] + 1) % 3
        plies += 1
    for s in range(3):
        out[s] = 0.0
    out[(state[1] + 2) % 3] = 1.0
    return plies


@nb.cfunc(game_api.CHANCE_SIG, cache=True)
def _nim_chance(t, state, stream):
    return -1


NIM = mcts.AgentGame(
    name="nim3", n_seats=3,
    kernels=game_api.AgentKernels(_nim_legal, _nim_apply, _nim_seat, _nim_rewards, _nim_playout,
                              _nim_chance),
    tables=np.zeros(1, dtype=np.int64), max_actions=2, playout_scratch=1)


@pytest.mark.parametrize("spec", [mcts.AgentSpec(simulations=500),
                                  mcts.AgentSpec(seconds=0.05, threads=2, shared_tree=True)])
@pytest.mark.parametrize("pile,winner", [(1, 0), (2, 0), (3, 1)])
def test_three_seat_game_is_proven_per_seat(pile, winner, spec):
    """Pile 1 or 2: seat 0 takes all.  Pile 3: whatever seat 0 takes, seat 1
    can take the rest, so the proven reward vector gives seat 1 the win.  The same
    on one tree grown by two threads."""
    res = NIM.search(np.array([pile, 0], dtype=np.int64), spec, _stream(3))
    assert res.proven
    assert res.seat == 0
    assert res.value == (1.0 if winner == 0 else 0.0)
    if pile == 2:
        assert res.action == 2


def test_three_seat_rewards_go_to_each_seat():
    """On a big pile the search is unproven; the root child values are the
    mover's own mean reward, between 0 and 1."""
    res = NIM.search(np.array([30, 1], dtype=np.int64), mcts.AgentSpec(simulations=300),
                     _stream(4))
    assert res.seat == 1
    assert not res.proven
    assert all(0.0 <= c.value <= 1.0 for c in res.children)
    assert sum(c.visits for c in res.children) == 300
