"""Trio (1917): the board geometry, the Numba engine against the pure-Python
reference on random states, one hand-made position per rule, bad
configurations and the `trilab board` command.

What every simulated game must satisfy (engine = reference on seeded games,
any chunking, valid outcomes, golden games) is in test_game_contract.py."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from click.testing import CliRunner
from trilab.solver.rng import PyRng, py_digest_step
from trilab.solver.trio_board import board as tbb
from trilab.solver.trio_board import game as tb_game
from trilab.solver.trio_board import reference as ref
from trilab.solver.trio_board import rules as tb

OPTIONS = tbb.FORTRESS_OPTIONS
F0, F1, F2 = (tbb.FORT_BASE + s for s in range(3))


def S(seat: int) -> tuple[int, str]:
    return seat, "soldier"


def O(seat: int) -> tuple[int, str]:  # noqa: E743
    return seat, "officer"


def G(seat: int) -> tuple[int, str]:
    return seat, "general"


def both_legal(pieces: dict, seat: int, fortress: str = "sides") -> list[tuple[int, int]]:
    """The engine's legal moves, checked against the reference's."""
    moves = tb.legal(pieces, seat, fortress)
    assert moves == ref.legal_moves(pieces, seat, fortress)
    return moves


def ends(pieces: dict, seat: int, cell: int, fortress: str = "sides") -> set[int]:
    """Destinations of the piece on ``cell``."""
    return {b for a, b in both_legal(pieces, seat, fortress) if a == cell}


def both_games(options: dict, pieces: dict, side: int, seed: int = 1, n: int = 1):
    """Whole games from a position, engine == reference; the engine's results."""
    w, length, r, d = tb_game.play_games(options, seed, 0, n, start=(pieces, side))
    out = [(int(w[g]), int(length[g]), int(r[g]), int(d[g])) for g in range(n)]
    assert out == [ref.reference_game(seed, g, options, start=(pieces, side)) for g in range(n)]
    return out


# ------------------------------------------------------------------ geometry


@pytest.mark.parametrize("fortress", OPTIONS)
def test_board_has_52_cells_3_fortresses_and_at_most_3_neighbours(fortress):
    g = tbb.board_graph(fortress)
    cells = [n for n, a in g.nodes(data=True) if a["kind"] == "cell"]
    forts = [n for n, a in g.nodes(data=True) if a["kind"] == "fortress"]
    assert cells == list(range(52)) and forts == [52, 53, 54]
    assert all(len(tbb.cell_neighbours(g, c)) <= 3 for c in cells)
    assert sum(len(tbb.cell_neighbours(g, c)) == 3 for c in cells) > 30
    if fortress == "sides":  # through sides only, a Fortress counted as a neighbour
        assert max(d for _, d in g.degree(cells)) == 3
    assert nx_is_connected(g.subgraph(cells))


def nx_is_connected(g) -> bool:
    import networkx as nx

    return nx.is_connected(g)


def test_rows_3_and_4_have_5_and_7_cells_and_the_zones_are_disjoint():
    g = tbb.board_graph()
    zones = [set(), set(), set()]
    for s in range(3):
        rows = [g.nodes[c]["row_from"][s] for c in range(52)]
        assert min(rows) == 3 and max(rows) == 8  # rows 1 and 2 are the removed corner
        assert rows.count(3) == 5 and rows.count(4) == 7
        zones[s] = {c for c in range(52) if rows[c] in (3, 4)}
        assert zones[s] == {c for c in range(52) if g.nodes[c]["zone"] == s}
    assert not (zones[0] & zones[1] or zones[0] & zones[2] or zones[1] & zones[2])
    assert sum(g.nodes[c]["zone"] is None for c in range(52)) == 16


def test_bands_orientation_and_sides_agree_with_the_drawn_triangles():
    g = tbb.board_graph()
    for c in range(52):
        a = g.nodes[c]
        assert sum(a["row_from"]) == (17 if a["up"] else 18)
        ys = sorted(y for _, y in a["vertices"])
        assert (ys[1] == ys[0]) == a["up"]  # an up triangle has its flat side at the bottom
    for u in range(52):
        for v in range(u + 1, 52):
            shared = {_r(p) for p in g.nodes[u]["vertices"]} & {_r(p) for p in
                                                                g.nodes[v]["vertices"]}
            du = [x - y for x, y in zip(g.nodes[u]["row_from"], g.nodes[v]["row_from"])]
            band_rule = sorted(map(abs, du)) == [0, 0, 1]
            assert g.has_edge(u, v) == (len(shared) == 2) == band_rule, (u, v)
    geo = ref.geometry("sides")  # the reference's own construction
    assert all(geo.nbrs[c] == tbb.cell_neighbours(g, c) for c in range(52))


def _r(p: tuple[float, float]) -> tuple[float, float]:
    return round(p[0], 6), round(p[1], 6)


@pytest.mark.parametrize("fortress", OPTIONS)
def test_the_three_corners_are_images_of_each_other_under_rotation(fortress):
    g = tbb.board_graph(fortress)
    rot = {c: tbb.rotate(g, c) for c in range(52)}
    assert sorted(rot.values()) == list(range(52))
    assert all(rot[rot[rot[c]]] == c for c in range(52))
    assert [c for c in range(52) if rot[c] == c] == [26]  # the centre, rows (6, 6, 6)
    h = math.sqrt(3) / 2
    cx, cy = 0.0, -8 * h * 2 / 3  # the triangle's centre; a third of a turn anticlockwise
    setup = tbb.initial_pieces()
    for c in range(52):
        x, y = g.nodes[c]["xy"]
        dx, dy = x - cx, y - cy
        turned = (cx - 0.5 * dx - h * dy, cy + h * dx - 0.5 * dy)
        assert np.allclose(turned, g.nodes[rot[c]]["xy"])
        assert {rot[n] for n in tbb.cell_neighbours(g, c)} == set(
            tbb.cell_neighbours(g, rot[c]))
        z = g.nodes[c]["zone"]
        assert g.nodes[rot[c]]["zone"] == (None if z is None else (z + 1) % 3)
        assert g.nodes[rot[c]]["up"] == g.nodes[c]["up"]
        if c in setup:
            seat, kind = setup[c]
            assert setup[rot[c]] == ((seat + 1) % 3, kind)
    for s in range(3):
        assert {rot[c] for c in tbb.fortress_neighbours(fortress, s)} == set(
            tbb.fortress_neighbours(fortress, (s + 1) % 3))


def test_fortress_readings_sides_row3_general():
    g = tbb.board_graph()
    for s in range(3):
        row3 = [c for c in range(52) if g.nodes[c]["row_from"][s] == 3]
        down = [c for c in row3 if not g.nodes[c]["up"]]
        general = next(c for c, p in tbb.initial_pieces().items() if p == G(s))
        assert len(row3) == 5 and len(down) == 2 and general in row3
        assert tbb.fortress_neighbours("sides", s) == down
        assert tbb.fortress_neighbours("row3", s) == row3
        assert tbb.fortress_neighbours("general", s) == sorted(down + [general])
        outline = tbb.board_graph("row3").nodes[tbb.FORT_BASE + s]["vertices"]
        for c in row3:  # a side (2 corner points) or a point (1) in common with the corner
            touching = sum(_in_triangle(p, outline) for p in g.nodes[c]["vertices"])
            contact = tbb.board_graph("row3").edges[tbb.FORT_BASE + s, c]["contact"]
            assert touching == (2 if c in down else 1)
            assert contact == ("side" if c in down else "point")
    for fortress in OPTIONS:
        t = tbb.tables(fortress)
        touched = [c for s in range(3) for c in tbb.fortress_neighbours(fortress, s)]
        assert len(touched) == len(set(touched))  # a cell touches one Fortress at most
        assert [c for c in range(52) if t.fort_of[c] >= 0] == sorted(touched)


def _in_triangle(p, tri, eps=1e-9) -> bool:
    (x1, y1), (x2, y2), (x3, y3) = tri
    d = (y2 - y3) * (x1 - x3) + (x3 - x2) * (y1 - y3)
    a = ((y2 - y3) * (p[0] - x3) + (x3 - x2) * (p[1] - y3)) / d
    b = ((y3 - y1) * (p[0] - x3) + (x1 - x3) * (p[1] - y3)) / d
    return min(a, b, 1 - a - b) >= -eps


def test_setup_general_officers_soldiers_in_each_zone():
    g = tbb.board_graph()
    setup = tbb.initial_pieces()
    assert setup == ref.setup()
    for s in range(3):
        mine = {c: k for c, (seat, k) in setup.items() if seat == s}
        assert sorted(mine.values()).count("soldier") == 7
        assert list(mine.values()).count("officer") == 4
        (gen,) = [c for c, k in mine.items() if k == "general"]
        a, b, c = g.nodes[gen]["row_from"]
        assert [a, b, c][s] == 3 and len({a, b, c}) == 2 and g.nodes[gen]["up"]
        assert all(g.nodes[c]["zone"] == s for c in mine)
        rows = {c: g.nodes[c]["row_from"][s] for c in mine}
        assert all((rows[c] == 4) == (k == "soldier") for c, k in mine.items())


def test_tables_bit_layout_and_distances():
    assert tbb.N_CELLS < 63  # cell bitboards fit in an int64
    assert tb.piece_code(2, "general") < 1 << (tb.SEAT_SHIFT + 2)
    assert tb.KIND_MASK == (1 << tb.SEAT_SHIFT) - 1 >= tbb.GENERAL
    assert tbb.SOLDIER < tbb.OFFICER < tbb.GENERAL  # kind codes are capture values
    assert tb.PASS_CODE > (tbb.N_CELLS - 1) * tbb.N_NODES + tbb.N_NODES - 1
    assert sorted(tb.BIT_INDEX.tolist()) == list(range(64))
    for fortress in OPTIONS:
        t = tbb.tables(fortress)
        g = tbb.board_graph(fortress)
        for c in range(52):
            assert t.nbr_mask[c] == sum(1 << n for n in tbb.cell_neighbours(g, c))
            for s in range(3):
                fwd = [n for n in tbb.cell_neighbours(g, c) if t.band[n, s] >= t.band[c, s]]
                assert t.fwd_mask[s, c] == sum(1 << n for n in fwd)
        geo = ref.geometry(fortress)
        for s in range(3):
            assert t.dist[s, tbb.FORT_BASE + s] == 0
            assert all(t.dist[s, c] == geo.dist[s][c] for c in range(52))
            gen = next(c for c, p in tbb.initial_pieces().items() if p == G(s))
            assert t.dist[s, gen] == (2 if fortress == "sides" else 1)


# ------------------------------------------------------------------ engine = reference


def random_reachable_states(fortress: str, rnd: random.Random, n: int):
    """Positions of random games (reference rules), ``(pieces, side)``, before any end."""
    out = []
    while len(out) < n:
        pieces, side = ref.setup(), 0
        for _ in range(rnd.randrange(0, 250)):
            moves = ref.legal_moves(pieces, side, fortress)
            if moves:
                after, r = ref.after_move(pieces, rnd.choice(moves))
                if r >= 0:
                    break
                pieces = after
            side = (side + 1) % 3
        out.append((pieces, side))
    return out


def random_scattered_states(rnd: random.Random, n: int):
    """Arbitrary placements (not reachable in general): any piece on any cell."""
    out = []
    for _ in range(n):
        pieces = {}
        for c in range(52):
            if rnd.random() < rnd.choice((0.2, 0.5, 0.8)):
                seat = rnd.randrange(3)
                kinds = ["soldier", "officer"] + ([] if G(seat) in pieces.values() else
                                                  ["general"])
                pieces[c] = (seat, rnd.choice(kinds))
        out.append((pieces, rnd.randrange(3)))
    return out


@pytest.mark.parametrize("fortress", OPTIONS)
def test_engine_equals_reference_on_random_states(fortress):
    rnd = random.Random(f"trio-board {fortress}")
    states = random_reachable_states(fortress, rnd, 60) + random_scattered_states(rnd, 60)
    n_moves = 0
    for k, (pieces, _side) in enumerate(states):
        for seat in range(3):
            moves = both_legal(pieces, seat, fortress)
            n_moves += len(moves)
            for move in rnd.sample(moves, min(4, len(moves))):
                for lost in tb.LOST_GENERAL_OPTIONS:
                    assert tb.after_move(pieces, move, lost) == ref.after_move(pieces, move,
                                                                               lost)
            for policy in tb.POLICIES:
                got = tb.choose(policy, pieces, seat, fortress, 7, k)
                rng = PyRng(7, k)
                want = ref.choose(policy, pieces, seat, moves, rng, fortress) if moves else None
                assert got == (want, rng.next_u64()), (policy, k, seat)
    assert n_moves > 2000


@pytest.mark.parametrize("fortress", OPTIONS)
def test_engine_equals_reference_on_games_from_random_states(fortress):
    rnd = random.Random(f"games {fortress}")
    for k, (pieces, side) in enumerate(random_reachable_states(fortress, rnd, 6)
                                       + random_scattered_states(rnd, 6)):
        options = {"fortress": fortress, "policies": rnd.choice([["random"], ["greedy"],
                                                                  ["greedy", "random", "greedy"]]),
                   "lost_general": rnd.choice(tb.LOST_GENERAL_OPTIONS), "ply_cap": 300}
        both_games(options, pieces, side, seed=k, n=2)


@pytest.mark.parametrize("fortress", OPTIONS)
@pytest.mark.parametrize("policies", [["random"], ["greedy"], ["random", "greedy", "random"]])
@pytest.mark.parametrize("lost", tb.LOST_GENERAL_OPTIONS)
def test_engine_equals_reference_on_whole_games(fortress, policies, lost):
    options = {"fortress": fortress, "policies": policies, "lost_general": lost}
    w, length, r, d = tb_game.play_games(options, 31, 0, 8)
    for g in range(8):
        assert ref.reference_game(31, g, options) == (int(w[g]), int(length[g]), int(r[g]),
                                                      int(d[g]))


# ------------------------------------------------------------------ one rule at a time


def test_soldier_steps_to_a_neighbour_never_backwards():
    # cell 15 points down, rows (5, 6, 7): its neighbour 7 is in row 4 from the top
    assert ends({15: S(0)}, 0, 15) == {14, 16}
    assert ends({15: S(1)}, 1, 15) == {7, 16}  # for seat 1, 14 is the backward step
    assert ends({14: S(0)}, 0, 14) == {13, 15, 24}  # an up cell: forward or sideways
    # captures an opponent, never lands on its own piece
    assert ends({14: S(0), 13: S(0), 24: O(1), 15: G(2)}, 0, 14) == {15, 24}
    # a soldier with its only sideways neighbour taken by its own piece cannot move
    assert ends({43: S(0), 44: S(0)}, 0, 43) == set()


def test_officer_moves_exactly_two_steps_through_an_empty_middle():
    assert ends({26: O(0)}, 0, 26) == {15, 17, 24, 28, 36, 38}
    # an opponent next to it: captured with one step, and it blocks the paths through it
    assert ends({26: O(0), 16: S(1)}, 0, 26) == {16, 24, 28, 36, 38}
    # its own piece blocks; the end may hold an opponent (captured) but not its own piece
    assert ends({26: O(0), 25: S(0), 28: G(2), 38: S(0)}, 0, 26) == {15, 17, 28}


def test_officer_in_its_own_zone_never_steps_backwards():
    # cell 9 (up, row 4 of seat 0): the backward second steps 8->2 and 10->4 are refused
    assert ends({9: O(0)}, 0, 9) == {7, 11, 16, 18}
    assert ends({9: O(1)}, 1, 9) == {2, 4, 7, 11, 16, 18}  # not seat 1's zone: free
    assert ends({8: O(0)}, 0, 8) == {6, 10, 15, 17}
    assert ends({8: O(1)}, 1, 8) == {1, 3, 6, 10, 15, 17}
    # its one-step capture is bound too
    assert 2 not in ends({8: O(0), 2: S(1)}, 0, 8)
    assert 2 in ends({8: O(1), 2: S(0)}, 1, 8)
    # judged at the start cell: from outside its zone it may go back into it
    assert ends({17: O(0)}, 0, 17) == {8, 10, 15, 19, 26, 28}


def test_general_moves_one_or_two_steps_not_back_to_its_start():
    assert ends({26: G(0)}, 0, 26) == {15, 16, 17, 24, 25, 27, 28, 36, 38}
    # the middle cell must be empty: an own piece blocks, an opponent is captured, not crossed
    assert ends({26: G(0), 16: S(0)}, 0, 26) == {24, 25, 27, 28, 36, 38}
    assert ends({26: G(0), 16: S(1)}, 0, 26) == {16, 24, 25, 27, 28, 36, 38}
    # a second step may capture
    assert 15 in ends({26: G(0), 15: O(2)}, 0, 26)


def test_a_general_entering_an_opponent_fortress_wins_at_once():
    assert F0 in ends({1: G(1)}, 1, 1)
    assert F0 in ends({0: G(1)}, 1, 0)  # two steps, through the empty cell 1
    assert F0 not in ends({0: G(1), 1: S(2)}, 1, 0)
    assert F0 in ends({8: G(2)}, 2, 8, "general") and F0 in ends({8: G(2)}, 2, 8, "row3")
    assert F0 not in ends({8: G(2)}, 2, 8, "sides")  # cell 2 touches F0 only at a point
    assert tb.after_move({1: G(1), 30: G(0)}, (1, F0)) == ({30: G(0)}, tb.R_FORTRESS)
    start = {1: G(1), 26: G(0), 48: G(2)}
    assert both_games({"policies": ["greedy"]}, start, 1) == [
        (0b010, 1, tb.R_FORTRESS, py_digest_step(0, 1 * tbb.N_NODES + F0))]


def test_only_a_general_enters_and_only_an_opponent_fortress():
    for kind in (S(1), O(1)):
        assert all(b < tbb.FORT_BASE for _, b in both_legal({1: kind}, 1, "row3"))
    assert all(b < tbb.FORT_BASE for _, b in both_legal({1: G(0)}, 0, "row3"))
    assert F2 in ends({41: G(0)}, 0, 41, "row3") and F1 not in ends({41: G(0)}, 0, 41, "row3")


def test_a_seat_with_no_legal_move_passes():
    start = {26: G(1), 40: S(2)}  # seat 0 has nothing left to move
    assert both_legal(start, 0) == []
    assert both_games({"ply_cap": 1}, start, 0) == [
        (0, 1, tb.R_PLY_CAP, py_digest_step(0, tb.PASS_CODE))]
    (w, n, r, _), = both_games({"ply_cap": 3}, start, 0)
    assert (w, n, r) == (0, 3, tb.R_PLY_CAP)


def test_a_seat_that_lost_its_general_keeps_playing():
    start = {14: S(0), 24: G(1), 40: G(2)}
    assert both_legal(start, 0) == [(14, 13), (14, 15), (14, 24)]
    # greedy seat 0 captures a General, seat 1 then has nothing and passes
    h = py_digest_step(py_digest_step(0, 14 * tbb.N_NODES + 24), tb.PASS_CODE)
    assert both_games({"policies": ["greedy"], "ply_cap": 2}, start, 0) == [
        (0, 2, tb.R_PLY_CAP, h)]
    # the option to remove it instead: its pieces leave the board, its turns are skipped
    assert tb.after_move(start, (14, 24), "remove") == ({24: S(0), 40: G(2)}, -1)
    assert tb.after_move({**start, 23: O(1)}, (14, 24), "remove") == ({24: S(0), 40: G(2)}, -1)
    (w, n, r, d), = both_games({"lost_general": "remove", "ply_cap": 1}, start, 0)
    assert (w, n, r) == (0, 1, tb.R_PLY_CAP)
    assert d != py_digest_step(0, tb.PASS_CODE)  # seat 0 was skipped: seat 1 moved


def test_no_general_left_ends_the_game_without_a_winner():
    assert tb.after_move({14: S(0), 24: G(1)}, (14, 24)) == ({24: S(0)}, tb.R_NO_GENERALS)
    assert both_games({"policies": ["greedy"]}, {14: S(0), 24: G(1)}, 0) == [
        (0, 1, tb.R_NO_GENERALS, py_digest_step(0, 14 * tbb.N_NODES + 24))]
    assert both_games({}, {14: S(0)}, 0) == [(0, 0, tb.R_NO_GENERALS, 0)]


def test_one_general_left_does_not_win():
    (w, n, r, _), = both_games({"ply_cap": 3}, {26: G(1)}, 0)
    assert (w, n, r) == (0, 3, tb.R_PLY_CAP)


def test_the_ply_cap_ends_the_game_and_defaults_to_600():
    assert tb.make_config({}).options["ply_cap"] == 600
    w, n, r, _ = tb_game.play_games({"ply_cap": 9}, 5, 0, 50)
    assert (w == 0).all() and (n == 9).all() and (r == tb.R_PLY_CAP).all()
    w, n, r, _ = tb_game.play_games({}, 5, 0, 300)
    assert n.max() <= 600 and set(r.tolist()) == {0, 1, 2}
    assert ((w != 0) == (r == tb.R_FORTRESS)).all()


def test_greedy_enters_then_captures_the_most_valuable_then_advances():
    pieces = {26: G(0), 16: S(1), 25: O(2), 27: G(1), 40: G(2)}
    assert tb.choose("greedy", pieces, 0, "sides", 1, 0)[0] == (26, 27)  # the General
    pieces = {26: G(0), 16: S(1), 25: O(2), 40: G(1), 48: G(2)}
    assert tb.choose("greedy", pieces, 0, "sides", 1, 0)[0] == (26, 25)  # the Officer
    pieces = {1: O(1), 2: G(1), 3: S(2), 40: G(0), 48: G(2)}  # 2 touches F0 by a point only
    assert tb.choose("greedy", pieces, 1, "sides", 1, 0)[0] == (2, 3)
    assert tb.choose("greedy", pieces, 1, "general", 1, 0)[0] == (2, F0)
    # nothing to take: the soldier at 14 (6 steps from F0) advances to 24 (7 steps)
    assert tb.choose("greedy", {14: S(0), 48: G(1)}, 0, "sides", 1, 0)[0] == (14, 24)


# ------------------------------------------------------------------ configurations


@pytest.mark.parametrize("options, fragment", [
    ({"fortress": "diagonal"}, "unknown fortress option 'diagonal'"),
    ({"policies": ["clever"]}, "unknown policy 'clever'"),
    ({"policies": ["random", "greedy"]}, "needs 1 policy (all seats) or 3"),
    ({"policies": ["random"] * 4}, "got 4"),
    ({"ply_cap": 0}, "ply_cap must be an integer >= 1"),
    ({"ply_cap": -5}, "ply_cap"),
    ({"ply_cap": "many"}, "ply_cap"),
    ({"ply_cap": True}, "ply_cap"),
    ({"lost_general": "vanish"}, "lost_general"),
    ({"players": 4}, "unknown trio-board option"),
])
def test_bad_configurations_raise_one_line(options, fragment):
    with pytest.raises(ValueError) as err:
        tb.make_config(options)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_configuration_is_normalised():
    cfg = tb.make_config({"policies": [" greedy "], "fortress": "row3"})
    assert cfg.n_seats == 3 and cfg.seat_policies == ("greedy",) * 3
    assert cfg.options == {"policies": ["greedy"] * 3, "fortress": "row3", "ply_cap": 600,
                           "lost_general": "keep"}
    with pytest.raises(ValueError, match="more than one General"):
        tb.with_start(cfg, {1: G(0), 2: G(0)})


# ------------------------------------------------------------------ trilab board


def run(*args):
    from trilab.cli import cli

    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize("fortress", OPTIONS)
def test_board_command_json_and_png(tmp_path, fortress):
    out = tmp_path / "b" / "board.png"
    res = run("board", "trio-board", "--fortress", fortress, "--json", "--out", str(out))
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"cells", "fortresses"} and len(data["cells"]) == 52
    for c in data["cells"]:
        assert set(c) == {"id", "row_from", "up", "neighbours", "zone", "piece", "owner"}
    assert [c["id"] for c in data["cells"]] == list(range(52))
    assert sum(c["piece"] == "general" for c in data["cells"]) == 3
    assert sum(c["zone"] is None for c in data["cells"]) == 16
    assert data["fortresses"] == [{"owner": s, "neighbours": tbb.fortress_neighbours(fortress, s)}
                                  for s in range(3)]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 20_000


def test_board_command_prints_the_board(tmp_path):
    res = run("board", "trio-board", "--out", str(tmp_path / "b.png"))
    assert res.exit_code == 0, res.output
    assert "row 3" in res.stdout and "G0" in res.stdout
    assert "Fortress F0 (seat 0, top): touches cells 1, 3" in res.stdout
    assert " 2   (2,2)      3,7,7   up    0  general 0 1,3,8" in res.stdout


@pytest.mark.parametrize("args, needle", [
    (["trio-board", "--fortress", "diagonal"], "unknown fortress option 'diagonal'"),
    (["trike"], "only trio-board has a board view"),
])
def test_board_command_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, args, needle):
    res = run("board", *args, "--out", str(tmp_path / "b.png"))
    assert res.exit_code == 2, res.output
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr, res.stderr
    assert list(tmp_path.iterdir()) == []
