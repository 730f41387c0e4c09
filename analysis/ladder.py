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

``python -m trilab.analysis.ladder GAME FAMILY N1,N2,... --games G --seed S --out CSV``
writes the table and a ``.meta.json`` beside it (command, seed, games, timings).
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
    n = w + d + lo
    wl, wh = wilson(w, n)
    sl, sh = wilson(w + d // 2, n)
    return {"agent": a, "opponent": b, "games": n, "wins": w, "draws": d, "losses": lo,
            "win_rate": round(w / n, 4), "win_low": round(wl, 4), "win_high": round(wh, 4),
            "score": round((w + d / 2) / n, 4), "score_low": round(sl, 4),
            "score_high": round(sh, 4), "seconds": round(time.perf_counter() - t0, 1)}


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
    p.add_argument("budgets", help="comma-separated simulation budgets, ascending")
    p.add_argument("--games", type=int, default=40)
    p.add_argument("--seed", type=int, default=24)
    p.add_argument("--opponent", default="greedy")
    p.add_argument("--no-below", action="store_true", help="only the games against greedy")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    budgets = [int(x) for x in args.budgets.split(",")]
    rows = []
    t0 = time.perf_counter()
    for i, n in enumerate(budgets):
        agent = args.family.format(n=n)
        pairs = [args.opponent] if args.no_below or i == 0 else \
            [args.opponent, args.family.format(n=budgets[i - 1])]
        for opp in pairs:
            row = {"budget": n, **pairing(args.game, agent, opp, args.games, args.seed, {})}
            rows.append(row)
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
            _write(args, argv, budgets, rows, time.perf_counter() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
