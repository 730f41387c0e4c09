"""`trilab explore`: the HTTP API (Starlette's TestClient) and the page in headless Chromium.

The API's exact values are compared with the alpha-beta solver on sampled
positions of sizes 3-6 (from the database, the opening tables and the
solver itself); sizes 9+ answer the agent's estimates.  The browser test
starts the server on a free loopback port (uvicorn in a thread), plays an
opening by clicking, checks every move's colour against the solver, swaps,
undoes and reloads from the URL, and fails on any console error.  With
TRILAB_EXPLORER_SCREENSHOT=PATH it also writes the docs' screenshot.

The browser is Debian's `chromium` (the `chromium` fixture of conftest.py: skipped
without it unless TRILAB_REQUIRE_BROWSER is set).
"""

from __future__ import annotations

import os
import random
import threading
import time
import warnings
from pathlib import Path

import pandas as pd
import pytest
from conftest import random_position
from trilab.analysis.explorer import positions, server
from trilab.analysis.explorer.values import Budget, Cancelled
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

AGENT = "mcts:300"
ROOT = Path(__file__).resolve().parent.parent


def _client(explorer: server.Explorer) -> TestClient:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return TestClient(server.create_app(explorer, warm_up=False))


@pytest.fixture(scope="module")
def client():
    with _client(server.Explorer(time_limit=30, agent=AGENT)) as c:
        yield c


@pytest.fixture(scope="module")
def solver_client(tmp_path_factory):
    """No results/ at all: every exact value comes from the solver."""
    empty = tmp_path_factory.mktemp("no-results")
    with _client(server.Explorer(empty, time_limit=30, agent=AGENT)) as c:
        yield c


def expected(pos: trike.TrikePosition | None, size: int) -> dict[str, tuple[str, int, int]]:
    """``{move: (result, margin, remoteness)}`` for the side to move, by the solver."""
    solver = AlphaBetaSolver(size, tt_mb=16)
    out = {}
    points = range(trike.n_points(size)) if pos is None else pos.legal_moves()
    for p in points:
        child = trike.opening(size, p) if pos is None else pos.play(p)
        m = -solver.margin(child)
        r, c = trike.point_coords(size)[p]
        out[f"{r}.{c}"] = ("win" if m > 0 else "lose", m, solver.remoteness(child) + 1)
    return out


def got(answer: dict) -> dict[str, tuple[str, int, int]]:
    assert all(m["kind"] == "exact" for m in answer["moves"]), answer
    return {m["move"]: (m["result"], m["margin"], m["remoteness"]) for m in answer["moves"]}


def sampled(size: int, n: int, seed: int) -> list[trike.TrikePosition]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        pos = random_position(size, rng)
        if not pos.is_terminal():
            out.append(pos)
    return out


# ---------------------------------------------------------------- API: values


@pytest.mark.parametrize("size", [3, 4, 5])
def test_move_values_equal_the_solver(client, solver_client, size):
    for pos in [None, *sampled(size, 4, 100 + size)]:
        want = expected(pos, size)
        params = {"size": size} | ({"pos": pos.to_notation()} if pos else {})
        for c in (client, solver_client):
            res = c.get("/api/analyze", params=params)
            assert res.status_code == 200, res.text
            assert got(res.json()) == want, (size, params)
        body = res.json()
        if pos is not None:  # the position's value is the best move's
            solver = AlphaBetaSolver(size, tt_mb=16)
            assert body["value"]["margin"] == solver.margin(pos)
            assert body["value"]["remoteness"] == solver.remoteness(pos)


def test_size_6_by_the_solver_and_sources(client):
    pos = sampled(6, 1, 7)[0]
    res = client.get("/api/analyze", params={"size": 6, "pos": pos.to_notation()}).json()
    assert got(res) == expected(pos, 6)
    assert res["sources"] == ["solver"] and res["estimated_moves"] == 0
    again = client.get("/api/analyze", params={"size": 6, "pos": pos.to_notation()}).json()
    assert again["cached"] is True and again["moves"] == res["moves"]
    opening = client.get("/api/analyze", params={"size": 4}).json()
    assert opening["sources"] == ["opening table"] and opening["opening"] is True
    small = client.get("/api/analyze", params={"size": 4, "pos": "B/../.../...."}).json()
    assert small["sources"] == ["database"]


def test_size_7_replies_are_exact(client):
    """Size 7, the first size whose replies the solver cannot prove within a
    request: every reply to an opening comes from the committed reply record
    (``results/trike/replies/``), agrees with the opening table (value, margin,
    remoteness, number of winning replies), and sampled values equal the
    solver's; a position two checkers in is solved within the request."""
    import pandas as pd

    table = pd.read_csv(ROOT / "results" / "trike" / "size-7.csv").set_index("point")
    for point in (0, 3, 12):  # a corner (mover wins), an edge, an inner point
        pos = trike.opening(7, point)
        res = client.get("/api/analyze", params={"size": 7, "pos": pos.to_notation()}).json()
        assert res["sources"] == ["reply record"] and res["estimated_moves"] == 0, res
        row = table.loc[point]
        assert res["value"]["margin"] == -row.margin
        assert res["value"]["remoteness"] == row.remoteness
        assert sum(m["margin"] > 0 for m in res["moves"]) == row.winning_replies
    solver = AlphaBetaSolver(7, tt_mb=64)
    pos = trike.opening(7, 12)
    res = client.get("/api/analyze", params={"size": 7, "pos": pos.to_notation()}).json()
    first = res["moves"][0]
    child = pos.play(next(p for p in pos.legal_moves()
                          if "{}.{}".format(*trike.point_coords(7)[p]) == first["move"]))
    assert first["margin"] == -solver.margin(child)
    assert first["remoteness"] == solver.remoteness(child) + 1
    deeper = trike.parse_position("./../.W./..b./...../....../.......", 7)
    res = client.get("/api/analyze", params={"size": 7, "pos": deeper.to_notation()}).json()
    assert got(res) == expected(deeper, 7)


def test_swap_value_is_the_placers_value(client):
    pos = trike.opening(5, trike.point_index(2, 1))
    res = client.get("/api/analyze", params={"size": 5, "pos": pos.to_notation()}).json()
    margin = AlphaBetaSolver(5, tt_mb=16).margin(pos)  # for w, the side to move
    assert res["swap"]["kind"] == "exact" and res["swap"]["margin"] == -margin
    assert res["swap"]["result"] == ("win" if margin < 0 else "lose")


def test_estimates_on_large_boards_are_marked(client):
    for size, moves in ((9, "4.2"), (13, "6.3,swap,8.3")):
        plies = client.get("/api/game", params={"size": size, "moves": moves}).json()["plies"]
        pos = plies[-1]["pos"]
        res = client.get("/api/analyze", params={"size": size, "pos": pos}).json()
        assert res["exact_moves"] == 0 and res["sources"] == ["agent"]
        assert len(res["moves"]) == len(plies[-1]["legal"])
        assert all(m["kind"] == "estimate" and 0 <= m["win_rate"] <= 1 for m in res["moves"])
        assert sum(m["visits"] for m in res["moves"]) > 0
        assert res["value"]["kind"] == "estimate"
    first = client.get("/api/analyze", params={"size": 9, "pos": "./../..B/" + "/".join(
        "." * r for r in range(4, 10))})
    assert first.status_code == 200 and first.json()["swap"]["kind"] == "estimate"


def test_time_limit_leaves_estimates(tmp_path):
    with _client(server.Explorer(tmp_path, time_limit=0.05, agent=AGENT)) as c:
        res = c.get("/api/analyze", params={"size": 7, "pos": "B/../.../..../...../....../......."})
        body = res.json()
    assert res.status_code == 200
    assert body["estimated_moves"] > 0 and "time limit" in body["note"]
    assert {m["kind"] for m in body["moves"]} <= {"exact", "estimate"}


# ---------------------------------------------------------------- API: games and moves


def test_game_replay_with_swap(client):
    res = client.get("/api/game", params={"size": 4, "moves": "1.0,swap,2.0"}).json()
    plies = res["plies"]
    assert [p["move"] for p in plies] == [None, "1.0", "swap", "2.0"]
    assert plies[1]["swap_allowed"] and not plies[2]["swap_allowed"]
    assert plies[2]["b_seat"] == 1 and plies[2]["seat_to_move"] == 0
    assert plies[3]["pos"] == trike.opening(4, 1).play(trike.point_index(2, 0)).to_notation()


def test_play_to_the_end_scores(client):
    moves, ply = [], positions.start(3)
    rng = random.Random(3)
    while True:
        legal = ply.legal()
        if ply.pos is not None and not legal:
            break
        p = rng.choice(legal)
        moves.append(positions.move_name(3, p))
        ply = positions.play(ply, p)
    last = client.get("/api/game", params={"size": 3, "moves": ",".join(moves)}).json()["plies"][-1]
    assert last["over"] and last["legal"] == []
    assert last["winner"] in "bw" and sum(last["score"].values()) >= 3
    pos = trike.parse_position(last["pos"])
    margin = pos.margin()  # for the side to move (the trapped one)
    assert (last["winner"] == pos.to_move) == (margin > 0)


def test_computer_moves(client):
    # the solver answers a lost opening with a winning reply, and swaps a won one
    res = client.get("/api/move", params={"size": 4, "moves": "0.0", "opponent": "solver"})
    assert res.status_code == 200, res.text
    want = expected(trike.opening(4, 0), 4)
    assert want[res.json()["move"]][0] == "win"
    won = next(p for p in range(10) if not AlphaBetaSolver(4, tt_mb=4).is_win(trike.opening(4, p)))
    name = positions.move_name(4, won)
    res = client.get("/api/move", params={"size": 4, "moves": name, "opponent": "solver"}).json()
    assert res["move"] == "swap"
    agent = client.get("/api/move", params={"size": 11, "moves": "5.2,6.2",
                                            "opponent": "agent"}).json()
    legal = client.get("/api/game", params={"size": 11, "moves": "5.2,6.2"}).json()["plies"][-1]
    assert [int(x) for x in agent["move"].split(".")] in legal["legal"]
    opening = client.get("/api/move", params={"size": 5, "opponent": "solver"}).json()
    r, c = map(int, opening["move"].split("."))
    assert AlphaBetaSolver(5, tt_mb=4).is_win(trike.opening(5, trike.point_index(r, c)))


def test_line_and_swap_map(client, tmp_path):
    line = client.get("/api/line", params={"size": 4, "pos": "B/../.../....", "plies": 3}).json()
    assert len(line["line"]) == 3 and line["line"][0]["result"] == "win"
    assert [m["to_move"] for m in line["line"]] == ["w", "b", "w"]
    smap = client.get("/api/openings", params={"size": 7}).json()
    methods = [s["method"] for s in smap["studies"]]
    assert "exact" in methods
    exact = smap["studies"][methods.index("exact")]
    table = pd.read_csv(ROOT / "results" / "trike" / "size-7.csv")
    assert len(exact["openings"]) == 28
    assert exact["summary"]["placer_wins"] == int((table.winner == "placer").sum())  # 19
    corner = next(o for o in exact["openings"] if (o["row"], o["col"]) == (0, 0))
    assert corner["winner"] == "mover" and not corner["swap"]
    assert server.swap_map(tmp_path, 4)["studies"] == []  # a results folder without studies
    # an agent study beside the exact table: both listed, the agent's with verdicts
    from click.testing import CliRunner
    from trilab.cli import cli

    for args in (["--exact"], ["--agent", "mcts-solve:50", "--games", "2", "--seed", "1"]):
        res = CliRunner().invoke(cli, ["balance", "trike", "--sizes", "4", *args,
                                       "--out-dir", str(tmp_path / "balance")])
        assert res.exit_code == 0, res.output
    both = server.swap_map(tmp_path, 4)["studies"]
    assert [s["method"] for s in both] == ["exact", "agent"]
    assert {o["verdict"] for o in both[1]["openings"]} <= {"swap", "do not swap",
                                                           "too close to call"}
    assert both[1]["label"] == "mcts-solve-50"


BAD = [
    ("/api/game", {}, "size"),
    ("/api/game", {"size": "20"}, "not in 2..19"),
    ("/api/game", {"size": "1"}, "not in 2..19"),
    ("/api/game", {"size": "five"}, "whole number"),
    ("/api/game", {"size": "4", "moves": "0.0,0.0"}, "already holds a checker"),
    ("/api/game", {"size": "4", "moves": "0.0,2.1"}, "cannot be reached"),
    ("/api/game", {"size": "4", "moves": "4.0"}, "not on the board"),
    ("/api/game", {"size": "4", "moves": "swap"}, "only allowed"),
    ("/api/game", {"size": "4", "moves": "0.0,swap,swap"}, "only allowed"),
    ("/api/game", {"size": "4", "moves": "x"}, "row.col"),
    ("/api/game", {"size": "4", "start": "B/../..."}, "3 rows"),
    ("/api/analyze", {"size": "3", "pos": "B/bb/..."}, "b must have as many as w"),
    ("/api/analyze", {"size": "3", "pos": "b/../..."}, "no pawn"),
    ("/api/analyze", {"size": "3", "pos": "B/.x/..."}, "unknown character"),
    ("/api/analyze", {"size": "3", "pos": "B/../...", "client": "a b"}, "client"),
    ("/api/analyze", {"size": "3", "depth": "9"}, "unknown parameter"),
    ("/api/line", {"size": "3", "plies": "99"}, "plies"),
    ("/api/move", {"size": "9", "opponent": "solver"}, "sizes up to 8"),
    ("/api/move", {"size": "4", "opponent": "oracle"}, "solver or agent"),
    ("/api/move", {"size": "2", "moves": "0.0,1.0,1.1", "opponent": "agent"}, "game is over"),
    ("/api/openings", {"size": "0"}, "not in 2..19"),
]


@pytest.mark.parametrize(("path", "params", "words"), BAD)
def test_bad_requests_get_400(client, path, params, words):
    res = client.get(path, params=params)
    assert res.status_code == 400, res.text
    assert words in res.json()["error"]


def test_bad_request_limits(client):
    assert client.get("/api/game?size=4&size=5").status_code == 400
    assert client.get("/api/game", params={"size": 4, "moves": "0.0," * 2000}).status_code == 400


# ---------------------------------------------------------------- the worker


def test_a_stuck_search_answers_an_error(tmp_path):
    ex = server.Explorer(tmp_path, time_limit=0.2, agent="mcts:0.05s", grace=0.3)

    def stuck(size, pos, budget):
        time.sleep(2.5)
        return {}

    ex.analyst.analyze = stuck
    with _client(ex) as c:
        t0 = time.perf_counter()
        res = c.get("/api/analyze", params={"size": 4})
        assert res.status_code == 504 and "did not finish" in res.json()["error"]
        assert time.perf_counter() - t0 < 2.0

        def broken(size, pos, budget):
            raise RuntimeError("boom")
        ex.analyst.analyze = broken
        res = c.get("/api/analyze", params={"size": 4})
        assert res.status_code == 500 and "boom" in res.json()["error"]


def test_a_newer_request_cancels_the_older(tmp_path):
    ex = server.Explorer(tmp_path, time_limit=5, agent=AGENT)
    try:
        a, b, other = Budget(5), Budget(5), Budget(5)
        ex._register("page1", "line", a)
        ex._register("page2", "analyze", other)
        ex._register("page1", "analyze", b)  # an analysis cancels all of the page's searches
        assert a.cancel.is_set() and not b.cancel.is_set() and not other.cancel.is_set()
        # a cancelled solver search stops at its next chunk
        pos = trike.parse_position("B/../.../..../...../....../.......")
        with pytest.raises(Cancelled):
            b.cancel.set()
            ex.analyst.analyze(7, pos, b)
        assert ex.analyst.cached(7, pos.to_notation()) is None
    finally:
        ex.close()


# ---------------------------------------------------------------- the browser


@pytest.fixture(scope="module")
def live_server():
    ex = server.Explorer(time_limit=20, agent=AGENT)
    sock = server.bind("127.0.0.1", 0)
    srv = server.make_server(server.create_app(ex), sock)
    thread = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not srv.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.started, "the explorer did not start"
    assert sock.getsockname()[0] == "127.0.0.1"
    yield server.url_of(sock)
    srv.should_exit = True
    thread.join(20)
    sock.close()
    assert not thread.is_alive(), "the explorer did not stop"


def _colours(page) -> dict[str, str]:
    return page.evaluate("""() => Object.fromEntries(
        Array.from(document.querySelectorAll('#board circle[data-move]')).map(
            c => [c.dataset.move, c.dataset.kind === 'exact' ? c.dataset.result : 'estimate']))""")


def _wait_values(page):
    page.wait_for_function("""() => {
        const c = document.querySelectorAll('#board circle[data-move]');
        return c.length > 0 && Array.from(c).every(x => x.dataset.kind);
    }""", timeout=60_000)


def _solver_colours(pos: trike.TrikePosition | None, size: int) -> dict[str, str]:
    return {m: v[0] for m, v in expected(pos, size).items()}


def test_explorer_in_headless_chromium(live_server, chromium):
    problems: list[str] = []
    requests: list[str] = []
    page = chromium.new_page(viewport={"width": 1280, "height": 900})
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(live_server + "?size=4", wait_until="load")
    page.wait_for_selector("body[data-ready='1']")
    _wait_values(page)
    assert _colours(page) == _solver_colours(None, 4)  # the openings
    # play an opening by clicking: (1,0), a placer's win, so the mover may swap
    page.click('#board circle[data-move="1.0"]')
    page.wait_for_function("() => new URL(location).searchParams.get('moves') === '1.0'")
    _wait_values(page)
    opening = trike.opening(4, trike.point_index(1, 0))
    assert _colours(page) == _solver_colours(opening, 4)
    assert page.is_enabled("#swap")
    placer_wins = AlphaBetaSolver(4, tt_mb=4).margin(opening) < 0
    assert page.get_attribute("#swap", "data-result") == ("win" if placer_wins else "lose")
    # swap: the same board, the mover now owns b and seat 0 (w) moves
    page.click("#swap")
    page.wait_for_function(
        "() => new URL(location).searchParams.get('moves') === '1.0,swap'")
    _wait_values(page)
    assert "seat 0 (placer); b is seat 1" in page.inner_text("#status")
    assert not page.is_enabled("#swap")
    assert _colours(page) == _solver_colours(opening, 4)
    # a reply by clicking, then undo
    page.click('#board circle[data-move="2.0"]')
    page.wait_for_function(
        "() => new URL(location).searchParams.get('moves') === '1.0,swap,2.0'")
    _wait_values(page)
    after = opening.play(trike.point_index(2, 0))
    assert _colours(page) == _solver_colours(after, 4)
    assert new_pos(page) == after.to_notation()
    page.click("#undo")
    page.wait_for_function("() => new URL(location).searchParams.get('at') === '2'")
    _wait_values(page)
    assert new_pos(page) == opening.to_notation()
    assert page.is_enabled("#redo")
    page.click("#redo")
    page.wait_for_function("() => !new URL(location).searchParams.has('at')")
    # reload from the URL: the same game, the same values
    page.reload(wait_until="load")
    page.wait_for_selector("body[data-ready='1']")
    _wait_values(page)
    assert new_pos(page) == after.to_notation()
    assert _colours(page) == _solver_colours(after, 4)
    assert "b is seat 1" in page.inner_text("#status")
    page.wait_for_function("() => document.querySelectorAll('#line li').length > 0")
    page.wait_for_function(
        "() => document.querySelectorAll('#history circle').length >= 3")
    # the swap map: clicking an opening opens it
    page.click('#swapmap circle[data-opening="0.0"]')
    page.wait_for_function("() => new URL(location).searchParams.get('moves') === '0.0'")
    _wait_values(page)
    assert _colours(page) == _solver_colours(trike.opening(4, 0), 4)
    # estimates on a large board are marked as such
    page.goto(live_server + "?size=9&moves=4.2", wait_until="load")
    page.wait_for_selector("body[data-ready='1']")
    _wait_values(page)
    assert set(_colours(page).values()) == {"estimate"}
    assert "estimate" in page.inner_text("#moves")
    # play against the solver: it swaps the opening (2,1), which the placer wins
    assert _solver_colours(None, 4)["2.1"] == "win"
    page.goto(live_server + "?size=4&vs=solver&seat=1", wait_until="load")
    page.wait_for_selector("body[data-ready='1']")
    _wait_values(page)
    page.click('#board circle[data-move="2.1"]')
    page.wait_for_function(
        "() => new URL(location).searchParams.get('moves') === '2.1,swap'")
    assert "solver: swap" in page.inner_text("#play-note")
    shot = os.environ.get("TRILAB_EXPLORER_SCREENSHOT")
    if shot:
        page.goto(live_server + "?size=6&moves=2.1,swap,4.1,3.0", wait_until="load")
        page.wait_for_selector("body[data-ready='1']")
        _wait_values(page)
        page.wait_for_function("() => document.querySelectorAll('#line li').length > 0")
        page.wait_for_function(
            "() => document.querySelectorAll('#history circle').length >= 4")
        page.screenshot(path=shot, full_page=True)
    assert problems == []
    assert all(u.startswith(live_server) or u.startswith("data:") for u in requests), requests


def new_pos(page) -> str:
    return page.evaluate("() => new URL(location).searchParams.get('pos')")


def test_the_explorer_plays_with_an_mcts_solve_agent(tmp_path):
    """``--agent mcts-solve:...`` is accepted; the agent's move is legal and its note
    names the agent."""
    with _client(server.Explorer(time_limit=30, agent="mcts-solve:300")) as c:
        res = c.get("/api/move", params={"size": 9, "moves": "4.2,5.2", "opponent": "agent"})
        assert res.status_code == 200, res.text
        legal = c.get("/api/game", params={"size": 9, "moves": "4.2,5.2"}).json()["plies"][-1]
        assert [int(x) for x in res.json()["move"].split(".")] in legal["legal"]
        assert "mcts-solve:300" in res.json()["note"]
        assert c.get("/api/info").json()["agent"] == "mcts-solve:300"
