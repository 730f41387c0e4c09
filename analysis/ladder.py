"""Strength ladders of the MCTS agents of Tabula Trivium and the Trio board (issue 24).

A ladder plays one agent family (``mcts-greedy:{n}:4``, ``mcts:{n}``, ...) at a list
of simulation budgets.  Each rung plays ``greedy`` and the rung below, half the
games in each seat order (seat 0 moves first), in the game's compiled loop
(:data:`GameSpec.play_chunk`: game ``g`` draws from the stream ``(seed, g)``).  A row
per pairing: wins, draws and losses of the rung, its win rate and its score (wins +
half the draws, over the games) with 95% Wilson intervals
(:func:`trilab.analysis.stats.wilson`; for the score, on wins + draws / 2 rounded
down, an approximation), and the seconds it took.  Draws are the game's draw reasons
(Tabula: repetition and the ply cap; Trio board: its own).

A budget may also be a time (``0.1s`` a turn): such pairings are played in a Python
game loop (:func:`python_pairing`: one search per turn; ``greedy`` seats play the
game's greedy playout for one turn), and depend on the machine and its load.

``python -m trilab.analysis.ladder GAME FAMILY N1,N2,... --games G --seed S --out CSV``
writes the table and a ``.meta.json`` beside it (command, seed, games, timings),
after every pairing; a rerun with the same game, family, games, seed and opponent
keeps the pairings the table already holds and plays only the missing ones.
For the Trio board (three seats) the rung takes one seat against two ``greedy``
seats (each seat in turn) and the pairing against the rung below puts the rung in
one seat and the rung below in the other two; a win is the rung's seat winning.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
from trilab.analysis.artifacts import base_metadata, write_json
from trilab.analysis.stats import wilson
from trilab.solver import registry


def _seatings(n_seats: int, a: str, b: str) -> list[tuple[int, list[str]]]:
    """(seat of ``a``, the policies of every seat) for each seat ``a`` takes."""
    return [(s, [a if i == s else b for i in range(n_seats)]) for s in range(n_seats)]


def pairing(game: str, a: str, b: str, games: int, seed: int, options: dict) -> dict:
    """``a`` against ``b``: ``games`` games split over ``a``'s seats."""
    spec = registry.get(game).load().SPEC
    n_seats = 3 if game == "trio-board" else 2
    seatings = _seatings(n_seats, a, b)
    w = d = lo = 0
    t0 = time.perf_counter()
    first = 0
    for k, (seat, policies) in enumerate(seatings):
        n = games // len(seatings) + (1 if k < games % len(seatings) else 0)
        cfg = spec.make_config({**options, "policies": policies})
        winners, _, _, _ = spec.play_chunk(np.uint64(seed), np.int64(first), np.int64(n),
                                           cfg.icfg, cfg.fcfg)
        first += n
        for x in winners:
            if x == 0:
                d += 1
            elif (int(x) >> seat) & 1:
                w += 1
            else:
                lo += 1
    return _row(a, b, w, d, lo, time.perf_counter() - t0)


def _timed(text: str) -> bool:
    """True for an agent with a time budget (``mcts:0.1s``, ``mcts-greedy:0.1s:4``)."""
    parts = text.split(":")
    return len(parts) > 1 and parts[1].endswith("s")


def python_seat(game: str, text: str, options: dict):
    """A function ``(state, stream) -> None`` that plays one turn of ``text`` (``greedy``,
    or an MCTS agent of :mod:`trilab.analysis.move`) on the game's agent state, from
    Python: what a pairing with a time budget needs (the compiled game loop counts
    simulations).  ``greedy`` is the game's greedy playout cut after one turn (Tabula
    Trivium) or one ply (the Trio board): the same policy kernel as the game loop's
    ``greedy`` seat."""
    from trilab.analysis import move as agent_text
    from trilab.solver.tabula_trivium import agents as ta
    from trilab.solver.trio_board import agents as tba

    if game == "tabula-trivium":
        if text == "greedy":
            g = ta.agent_game(playout="greedy:1")
            return lambda state, stream: g.playout(state, stream)
        spec, playout = agent_text.parse_tabula_agent(text)
        g = ta.agent_game(playout=playout)

        def tabula_turn(state, stream):
            g.apply(state, g.search(state, spec, stream).action)
        return tabula_turn
    fortress = options.get("fortress", "sides")
    g = tba.agent_game(fortress)
    if text == "greedy":
        def greedy_ply(state, stream):
            state[tba.S_PLAYOUT] = 1
            g.playout(state, stream)
        return greedy_ply
    spec, kind = agent_text.parse_trio_board_agent(text)

    def trio_ply(state, stream):
        state[tba.S_PLAYOUT] = kind
        g.apply(state, g.search(state, spec, stream).action)
    return trio_ply


def python_pairing(game: str, a: str, b: str, games: int, seed: int, options: dict) -> dict:
    """:func:`pairing` played in a Python game loop (one search per turn, so time
    budgets work): game ``g`` draws every seat's turns from the stream ``(seed, g)``;
    a timed game depends on the machine and its load."""
    from trilab.solver.rng import game_stream
    from trilab.solver.tabula_trivium import agents as ta
    from trilab.solver.trio_board import agents as tba

    n_seats = 3 if game == "trio-board" else 2
    rules = tba.agent_game(options.get("fortress", "sides")) if n_seats == 3 else ta.agent_game()
    w = d = lo = 0
    t0 = time.perf_counter()
    g = 0
    for k, (seat, policies) in enumerate(_seatings(n_seats, a, b)):
        n = games // n_seats + (1 if k < games % n_seats else 0)
        players = [python_seat(game, p, options) for p in policies]
        for _ in range(n):
            stream = game_stream(np.uint64(seed), np.uint64(g))
            state = tba.initial_state(options.get("fortress", "sides")) if n_seats == 3 \
                else ta.initial_state()
            while rules.legal(state):
                players[rules.seat(state)](state, stream)
            winners = (tba.result_of(state) if n_seats == 3 else ta.result_of(state))[0]
            if winners == 0:
                d += 1
            elif (winners >> seat) & 1:
                w += 1
            else:
                lo += 1
            g += 1
    return _row(a, b, w, d, lo, time.perf_counter() - t0)


def _row(a: str, b: str, w: int, d: int, lo: int, seconds: float) -> dict:
    n = w + d + lo
    wl, wh = wilson(w, n)
    sl, sh = wilson(w + d // 2, n)
    return {"agent": a, "opponent": b, "games": n, "wins": w, "draws": d, "losses": lo,
            "win_rate": round(w / n, 4), "win_low": round(wl, 4), "win_high": round(wh, 4),
            "score": round((w + d / 2) / n, 4), "score_low": round(sl, 4),
            "score_high": round(sh, 4), "seconds": round(seconds, 1)}


def _finished(args) -> tuple[dict[tuple[str, str], dict], float]:
    """The rows an earlier run of the same ladder wrote (keyed by agent and opponent)
    and its seconds; nothing when the table is missing or was made with other
    settings."""
    meta_path = args.out.with_suffix(".meta.json")
    if not (args.out.exists() and meta_path.exists()):
        return {}, 0.0
    import json
    meta = json.loads(meta_path.read_text())
    if [meta.get(k) for k in ("game", "family", "games_per_pairing", "seed", "opponent")] != \
            [args.game, args.family, args.games, args.seed, args.opponent]:
        return {}, 0.0
    with args.out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    return {(r["agent"], r["opponent"]): r for r in rows}, float(meta.get("seconds", 0.0))


def _write(args, argv, budgets, rows, seconds) -> None:
    """The table so far and its ``.meta.json`` (rewritten after every pairing, so an
    interrupted ladder keeps the rungs it finished)."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_name(args.out.name + ".tmp")
    with tmp.open("w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0]))
        wr.writeheader()
        wr.writerows(rows)
    tmp.replace(args.out)
    argv = sys.argv[1:] if argv is None else argv
    write_json(args.out.with_suffix(".meta.json"), base_metadata(
        command="python -m trilab.analysis.ladder " + " ".join(
            f"'{a}'" if "{" in a else a for a in argv),
        game=args.game, family=args.family, budgets=budgets,
        games_per_pairing=args.games, seed=args.seed, opponent=args.opponent,
        seats="games split evenly over the agent's seats (seat 0 moves first)",
        intervals="95% Wilson; score interval on wins + draws // 2",
        rows=len(rows), complete=len(rows) == sum(
            1 if args.no_below or i == 0 else 2 for i in range(len(budgets))),
        seconds=round(seconds, 1),
        pairing_seconds={f"{r['agent']} vs {r['opponent']}": r["seconds"] for r in rows}))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("game", choices=["tabula-trivium", "trio-board"])
    p.add_argument("family", help="agent with {n} for the budget, e.g. mcts-greedy:{n}:4")
    p.add_argument("budgets", help="comma-separated budgets, ascending: simulations, or "
                   "seconds a turn (0.1s: played in a Python game loop)")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--opponent", default="greedy")
    p.add_argument("--no-below", action="store_true", help="only the games against greedy")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    budgets = [x if x.endswith("s") else int(x) for x in args.budgets.split(",")]
    done, earlier = _finished(args)
    rows = []
    t0 = time.perf_counter()
    for i, n in enumerate(budgets):
        agent = args.family.format(n=n)
        pairs = [args.opponent] if args.no_below or i == 0 else \
            [args.opponent, args.family.format(n=budgets[i - 1])]
        for opp in pairs:
            if (agent, opp) in done:
                rows.append(done[(agent, opp)])
                print(f"kept {agent} vs {opp} from {args.out}", flush=True)
                continue
            play = python_pairing if _timed(agent) or _timed(opp) else pairing
            row = {"budget": n, **play(args.game, agent, opp, args.games, args.seed, {})}
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            _write(args, argv, budgets, rows, earlier + time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
