"""``trilab explore``: the Starlette app and its search worker.

One page (``static/``: plain HTML, JS and SVG, nothing fetched from a
network) and a JSON API, every parameter validated (HTTP 400 with
``{"error": "..."}``):

* ``GET /api/info`` — limits and sources;
* ``GET /api/game?size=N[&start=POS][&moves=M,M,...]`` — every ply of a game
  (moves ``row.col`` or ``swap``), with the legal moves, the seat to move and
  the score of a finished game;
* ``GET /api/analyze?size=N[&pos=POS][&client=ID]`` — the value of every legal
  move (exact or the agent's estimate) and of the position;
* ``GET /api/line?size=N[&pos=POS][&plies=K][&client=ID]`` — the best line;
* ``GET /api/move?size=N[&start=POS][&moves=...]&opponent=solver|agent`` —
  the computer's move in the game's last ply;
* ``GET /api/openings?size=N`` — the swap map of the size from
  ``results/balance/`` (exact tables and agent studies) with its verdicts.

Searches run on one worker thread (the event loop never computes), each
with the solver's time limit and a cancel flag; a request from the same page
(``client``) cancels that page's earlier search of the same kind (an
analysis cancels everything of the page), and so does a closed connection.
A search that does not finish within its limit plus :data:`GRACE_SECONDS`
answers 504, never hangs.  Repeated positions come from the analyst's cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from trilab.analysis.explorer import positions
from trilab.analysis.explorer.positions import BadRequest
from trilab.analysis.explorer.values import DB_MAX_SIZE, EXACT_MAX_SIZE, Analyst, Budget, Cancelled
from trilab.solver.trike import agents as trike_agents

STATIC = Path(__file__).resolve().parent / "static"
PACKAGE_RESULTS = Path(__file__).resolve().parents[2] / "results"
GRACE_SECONDS = 60.0
"""Waiting allowance beyond the limits (a queued search, the first Numba load)."""
MAX_QUERY = 4096
MAX_CLIENT_ID = 64
MAX_LINE_PLIES = 30
SOLVER_OPPONENT_MAX_SIZE = EXACT_MAX_SIZE


def default_results_dir() -> Path:
    return PACKAGE_RESULTS if PACKAGE_RESULTS.is_dir() else Path("results")


class Explorer:
    """The worker thread, the analyst and the running searches of each page."""

    def __init__(self, results_dir: Path | None = None, time_limit: float = 10.0,
                 agent: str = trike_agents.DEFAULT_AGENT, tt_mb: float = 64,
                 grace: float = GRACE_SECONDS):
        self.results_dir = Path(results_dir) if results_dir else default_results_dir()
        self.analyst = Analyst(self.results_dir, time_limit=time_limit, agent=agent, tt_mb=tt_mb)
        spec = self.analyst.agent.spec
        self.agent_seconds = spec.seconds if spec.seconds is not None else 5.0
        self.grace = grace
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trilab-search")
        self._active: dict[tuple[str, str], Budget] = {}
        self._lock = threading.Lock()
        self._closed = False

    @property
    def time_limit(self) -> float:
        return self.analyst.time_limit

    def warm_up(self) -> None:
        """Load the Numba kernels on the worker (queued first, off the event loop)."""
        def run():
            from trilab.solver.trike.alphabeta import warm_up
            warm_up()
        self.worker.submit(run)

    def close(self) -> None:
        """Cancel every search and stop the worker (the server is stopping)."""
        self._closed = True
        with self._lock:
            for budget in self._active.values():
                budget.cancel.set()
            self._active.clear()
        self.worker.shutdown(wait=False, cancel_futures=True)

    def _replace_worker(self) -> None:
        """Leave a stuck worker (its search is cancelled and ends at its next
        check) and serve the next searches on a fresh thread and analyst."""
        old = self.worker
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="trilab-search")
        self.analyst = self.analyst.fork()
        old.shutdown(wait=False, cancel_futures=True)

    def _register(self, client: str | None, kind: str, budget: Budget) -> None:
        if not client:
            return
        with self._lock:
            for (c, k), old in list(self._active.items()):
                if c == client and (k == kind or kind == "analyze"):
                    old.cancel.set()
                    del self._active[(c, k)]
            self._active[(client, kind)] = budget

    def _unregister(self, client: str | None, kind: str, budget: Budget) -> None:
        with self._lock:
            if client and self._active.get((client, kind)) is budget:
                del self._active[(client, kind)]

    async def run(self, request: Request, kind: str, fn, limit: float) -> JSONResponse:
        """Run ``fn(budget)`` on the worker; answer its dict, or an error."""
        if self._closed:
            return _error("the server is stopping", 503)
        client = _client(request)
        budget = Budget(self.time_limit)
        self._register(client, kind, budget)

        def job():
            budget.started = time.monotonic()  # the limit starts when it runs
            budget.check()
            return fn(budget)

        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self.worker, job)
        waited = 0.0
        try:
            while True:
                done, _ = await asyncio.wait({future}, timeout=0.25)
                if done:
                    break
                waited += 0.25
                if await request.is_disconnected():
                    budget.cancel.set()
                    return _error("the page closed the request", 499)
                if waited > limit + self.grace:
                    budget.cancel.set()
                    self._replace_worker()
                    return _error(f"the search did not finish in {limit + self.grace:g} s; "
                                  "it was stopped", 504)
            if future.cancelled():  # dropped from the queue: a restart or the server stops
                return _error("the search was dropped (the worker restarted or the server "
                              "is stopping); ask again", 503)
            return JSONResponse(future.result())
        except Cancelled:
            return _error("cancelled: a newer request from this page replaced it", 409)
        except BadRequest as e:
            return _error(str(e), 400)
        except Exception as e:  # a failed search is an error answer, not a dead page
            return _error(f"the search failed: {type(e).__name__}: {e}", 500)
        finally:
            self._unregister(client, kind, budget)


def _error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _client(request: Request) -> str | None:
    cid = request.query_params.get("client")
    if cid is None:
        return None
    if len(cid) > MAX_CLIENT_ID or not all(ch.isalnum() or ch in "-_" for ch in cid):
        raise BadRequest("client must be at most 64 letters, digits, - or _")
    return cid


ALLOWED = {
    "/api/info": set(),
    "/api/game": {"size", "start", "moves"},
    "/api/analyze": {"size", "pos", "client"},
    "/api/line": {"size", "pos", "plies", "client"},
    "/api/move": {"size", "start", "moves", "opponent", "client"},
    "/api/openings": {"size"},
}


def _check_params(request: Request) -> None:
    if len(request.url.query) > MAX_QUERY:
        raise BadRequest(f"the query is longer than {MAX_QUERY} characters")
    allowed = ALLOWED.get(request.url.path, set())
    for key in request.query_params:
        if key not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            raise BadRequest(f"unknown parameter {key!r}; parameters: {names}")
    for key in allowed:
        if len(request.query_params.getlist(key)) > 1:
            raise BadRequest(f"parameter {key!r} is given more than once")


def _game(request: Request) -> list[positions.Ply]:
    q = request.query_params
    size = positions.parse_size(q.get("size"))
    return positions.replay(size, q.get("start"), q.get("moves"))


def _handler(fn):
    async def handle(request: Request):
        try:
            _check_params(request)
            return await fn(request)
        except BadRequest as e:
            return _error(str(e), 400)
    return handle


def create_app(explorer: Explorer | None = None, warm_up: bool = True) -> Starlette:
    """The explorer's ASGI app (``explorer``: the worker and limits to use)."""
    ex = explorer or Explorer()

    async def index(request: Request):
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def info(request: Request):
        return JSONResponse({
            "min_size": positions.MIN_SIZE, "max_size": positions.MAX_SIZE,
            "exact_max_size": EXACT_MAX_SIZE, "database_max_size": DB_MAX_SIZE,
            "solver_opponent_max_size": SOLVER_OPPONENT_MAX_SIZE,
            "time_limit": ex.time_limit, "agent": ex.analyst.agent.text,
            "results_dir": str(ex.results_dir)})

    async def game(request: Request):
        plies = _game(request)
        return JSONResponse({"size": plies[0].size, "start": plies[0].notation,
                             "plies": [p.to_json() for p in plies]})

    async def analyze(request: Request):
        q = request.query_params
        size = positions.parse_size(q.get("size"))
        pos = positions.parse_pos(q.get("pos"), size)
        _client(request)
        return await ex.run(request, "analyze", lambda b: ex.analyst.analyze(size, pos, b),
                            ex.time_limit + ex.agent_seconds)

    async def line(request: Request):
        q = request.query_params
        size = positions.parse_size(q.get("size"))
        ply = positions.start(size, q.get("pos"))
        plies_text = q.get("plies", "10")
        if not plies_text.isdigit() or not 1 <= int(plies_text) <= MAX_LINE_PLIES:
            raise BadRequest(f"plies must be a whole number in 1..{MAX_LINE_PLIES}")
        n = int(plies_text)
        _client(request)

        def job(budget: Budget) -> dict:
            line = ex.analyst.best_line(size, ply, budget, n)
            return {"size": size, "pos": ply.notation, "line": line}
        return await ex.run(request, "line", job, ex.time_limit + ex.agent_seconds)

    async def move(request: Request):
        q = request.query_params
        plies = _game(request)
        ply = plies[-1]
        opponent = q.get("opponent", "")
        if opponent not in ("solver", "agent"):
            raise BadRequest("opponent must be solver or agent")
        if opponent == "solver" and ply.size > SOLVER_OPPONENT_MAX_SIZE:
            raise BadRequest(f"the solver plays sizes up to {SOLVER_OPPONENT_MAX_SIZE}; "
                             "play against the agent on larger boards")
        if ply.pos is not None and not ply.legal():
            raise BadRequest("the game is over: the pawn is trapped")
        _client(request)

        def job(budget: Budget) -> dict:
            if opponent == "solver":
                action, note = ex.analyst.solver_move(ply, budget)
            else:
                action, note = ex.analyst.agent_move(ply, budget)
            return {"move": positions.move_name(ply.size, action), "note": note,
                    "opponent": opponent}
        return await ex.run(request, "move", job, ex.time_limit + ex.agent_seconds)

    async def openings(request: Request):
        size = positions.parse_size(request.query_params.get("size"))
        return JSONResponse(swap_map(ex.results_dir, size))

    @contextlib.asynccontextmanager
    async def lifespan(app):
        if warm_up:
            ex.warm_up()
        try:
            yield
        finally:
            ex.close()

    routes = [
        Route("/", index),
        Route("/api/info", _handler(info)),
        Route("/api/game", _handler(game)),
        Route("/api/analyze", _handler(analyze)),
        Route("/api/line", _handler(line)),
        Route("/api/move", _handler(move)),
        Route("/api/openings", _handler(openings)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.explorer = ex
    return app


# ---------------------------------------------------------------- swap maps


def _read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def _summary(path: Path, size: int) -> dict | None:
    if not path.exists():
        return None
    for row in json.loads(path.read_text()).get("sizes", []):
        if row.get("size") == size:
            return row
    return None


def _num(text: str | None) -> float | None:
    return None if text in (None, "") else float(text)


def swap_map(results_dir: Path, size: int) -> dict:
    """The openings of ``size`` from ``results/balance/``: the exact table and
    every agent study, each with its summary (pie value, placer wins)."""
    bal = Path(results_dir) / "balance"
    studies = []
    sources = [bal / "trike-exact.csv"] + sorted(
        p for p in bal.glob("trike-mcts-*.csv") if not p.name.endswith(".rows.csv"))
    for path in sources:
        rows = [r for r in _read_csv(path) if r.get("size") == str(size)]
        if not rows:
            continue
        summary = _summary(path.with_suffix(".summary.json"), size) or {}
        method = rows[0].get("method", "")
        openings = []
        for r in rows:
            item = {"row": int(r["row"]), "col": int(r["col"]), "winner": r["winner"],
                    "swap": r.get("swap") == "True",
                    "placer_win_rate": _num(r.get("placer_win_rate"))}
            if method == "exact":
                item.update(margin=int(float(r["margin"])) if r.get("margin") else None,
                            remoteness=int(float(r["remoteness"])) if r.get("remoteness")
                            else None)
            else:
                item.update(games=int(float(r["games"])) if r.get("games") else None,
                            ci_low=_num(r.get("ci_low")), ci_high=_num(r.get("ci_high")),
                            exact_winner=r.get("exact_winner") or None,
                            verdict=r.get("verdict") or None)
            openings.append(item)
        keep = ("placer_wins", "openings_total", "pie_value", "pie_value_ci",
                "first_player_advantage", "best_pie_openings", "complete")
        studies.append({"method": method, "file": path.name,
                        "label": "exact" if method == "exact" else path.stem.replace("trike-", ""),
                        "summary": {k: summary[k] for k in keep if k in summary},
                        "openings": openings})
    return {"size": size, "studies": studies}


# ---------------------------------------------------------------- serving


def is_loopback(host: str) -> bool:
    return host in ("localhost", "127.0.0.1", "::1") or host.startswith("127.")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free port), raising OSError with the reason."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def make_server(app: Starlette, sock: socket.socket, log_level: str = "warning"):
    """A uvicorn server for ``app`` on ``sock`` (run with ``server.run(sockets=[sock])``;
    stop with ``server.should_exit = True`` or Ctrl-C)."""
    import uvicorn

    config = uvicorn.Config(app, log_level=log_level, limit_concurrency=64,
                            timeout_graceful_shutdown=5, lifespan="on")
    return uvicorn.Server(config)


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def serve(host: str = "127.0.0.1", port: int = 8765, open_browser: bool = True,
          results_dir: Path | None = None, time_limit: float = 10.0,
          agent: str = trike_agents.DEFAULT_AGENT, echo=print) -> None:
    """Serve the explorer until Ctrl-C."""
    trike_agents.parse_agent(agent)
    sock = bind(host, port)
    url = url_of(sock)
    if not is_loopback(host):
        echo(f"warning: serving on {host}, reachable from other machines")
    explorer = Explorer(results_dir, time_limit=time_limit, agent=agent)
    server = make_server(create_app(explorer), sock)
    echo(f"trilab explore: {url}  (Ctrl-C stops)")
    if open_browser:
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
