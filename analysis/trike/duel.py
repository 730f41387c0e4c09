"""Two Trike agents against each other (``trilab duel trike``): strength where no
exact answer exists.

Agents ``A`` and ``B`` (any spec of :func:`trilab.solver.trike.agents.parse_agent`)
play ``G`` games on a board of side ``N`` from the empty board, without the pie
rule; ``A`` places the opening checker in the even games, ``B`` in the odd ones, so
each has the first move in half of them.  Both agents of game ``g`` search with the
stream ``(seed, g)``.  A row per game goes to ``*.rows.csv`` as games finish, so an
interrupted duel resumes.  The table gives ``A``'s wins over all games and by its
seat, with 95% Wilson intervals (:func:`trilab.analysis.stats.wilson`), and each
agent's mean simulations and seconds per move.

Budgets in seconds (``mcts:0.05s``) make the agents *equal in time*: the same
seconds per move for both, whatever each does with them; such games depend on the
machine's speed and load, so their rows record the simulations actually run (and a
rerun gives other games).  Budgets in simulations are reproducible from the seed.

*Matched time* (``equal_time``, ``--equal-time``): ``A`` gets, at each of its moves,
exactly the seconds ``B`` takes to search that same position: ``B`` searches it first
on a stream of its own (:func:`shadow_stream`, so ``B``'s games draw what they would
without it), its move is discarded, and ``A`` searches for the seconds that took
(``A``'s own budget then sets only its threads), less ``A``'s mean overrun so far in
the game (a search stops at the first clock reading past its deadline and then merges
its trees, so it runs a little longer than its budget; without the correction ``A``
used about 6% more time than ``B``).  A move that took less than its budget (the
search proved its root and stopped) counts as no overrun: the time it left is not
given to ``A``'s later moves.  The rows record the matched seconds
(``matched_seconds_per_move``) beside what ``A`` used.  A fixed budget such as
``mcts-squeeze:0.0084s`` is equal to ``mcts:10000``'s time only on the day it was
measured: on this shared machine ``mcts:10000``'s size-13 moves took 7.5 ms one day
and 9.8 ms another.  Matching measures the time at the moment of the move.
:func:`duel_trike` is the command.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.common import RESULTS, StudyError, check_resume, make_executor, output_path
from trilab.analysis.stats import wilson
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_agents

SHADOW = 1 << 63
"""Game index bit of the shadow streams (:func:`shadow_stream`)."""


MIN_BUDGET = 1e-4
"""The least seconds a matched move gets (it runs one batch of simulations anyway)."""


def shadow_stream(seed: int, g: int) -> np.ndarray:
    """The stream of ``B``'s timing searches in game ``g`` of a matched-time duel: not
    any game's stream (the duel's games are numbered below ``2**63``)."""
    return game_stream(np.uint64(seed), np.uint64(SHADOW | g))


def with_seconds(agent: trike_agents.TrikeAgent, seconds: float) -> trike_agents.TrikeAgent:
    """``agent`` with a budget of ``seconds`` a move (its threads kept)."""
    return replace(agent, spec=replace(agent.spec, seconds=seconds, simulations=None))


def duel_game(size: int, a_text: str, b_text: str, seed: int, g: int,
              equal_time: bool = False) -> dict:
    """One task: game ``g`` (``A`` first when ``g`` is even); with ``equal_time``, ``A``'s
    moves at matched time (module docstring)."""
    a, b = trike_agents.parse_agent(a_text), trike_agents.parse_agent(b_text)
    seats = (a, b) if g % 2 == 0 else (b, a)  # seat 0 places the opening
    stream = game_stream(np.uint64(seed), np.uint64(g))
    shadow = shadow_stream(seed, g) if equal_time else None
    matched = 0.0  # B's seconds on A's positions
    overrun = 0.0  # A's seconds past its budgets
    state = trike_agents.new_state(size, pie=False)
    rules = a.game(size)  # every agent's game plays the same rules
    moves = {"a": 0, "b": 0}
    sims = {"a": 0, "b": 0}
    secs = {"a": 0.0, "b": 0.0}
    while rules.legal(state):
        agent = seats[rules.seat(state)]
        who = "a" if agent is a else "b"
        budget = None
        if who == "a" and equal_time:
            timing = b.search(size, state.copy(), shadow).seconds
            matched += timing
            budget = max(timing - overrun / max(moves["a"], 1), MIN_BUDGET)
            agent = with_seconds(a, budget)
        res = agent.search(size, state, stream)
        if budget is not None:  # a search that stopped early (a proven root) lends nothing
            overrun += max(res.seconds - budget, 0.0)
        rules.apply(state, res.action)
        moves[who] += 1
        sims[who] += res.simulations
        secs[who] += res.seconds
    winner = seats[int(np.argmax(rules.rewards(state)))]
    return {"game": g, "a_first": g % 2 == 0, "a_wins": winner is a,
            "plies": moves["a"] + moves["b"],
            "a_simulations_per_move": round(sims["a"] / max(moves["a"], 1), 1),
            "b_simulations_per_move": round(sims["b"] / max(moves["b"], 1), 1),
            "a_seconds_per_move": round(secs["a"] / max(moves["a"], 1), 5),
            "b_seconds_per_move": round(secs["b"] / max(moves["b"], 1), 5),
            **({"matched_seconds_per_move": round(matched / max(moves["a"], 1), 5)}
               if equal_time else {})}


def summarise(size: int, a: str, b: str, rows: pd.DataFrame) -> pd.DataFrame:
    """A's wins over all games, as the first player and as the second."""
    out = []
    for label, part in (("all games", rows), ("A first", rows[rows.a_first]),
                        ("A second", rows[~rows.a_first])):
        n = len(part)
        wins = int(part.a_wins.sum())
        lo, hi = wilson(wins, n) if n else (float("nan"), float("nan"))
        out.append({"size": size, "agent_a": a, "agent_b": b, "games_of": label, "games": n,
                    "a_wins": wins, "a_win_rate": round(wins / n, 4) if n else float("nan"),
                    "ci_low": round(lo, 4), "ci_high": round(hi, 4),
                    "a_simulations_per_move": round(float(part.a_simulations_per_move.mean()), 1),
                    "b_simulations_per_move": round(float(part.b_simulations_per_move.mean()), 1),
                    "a_seconds_per_move": round(float(part.a_seconds_per_move.mean()), 5),
                    "b_seconds_per_move": round(float(part.b_seconds_per_move.mean()), 5),
                    **({"matched_seconds_per_move":
                        round(float(part.matched_seconds_per_move.mean()), 5)}
                       if "matched_seconds_per_move" in part else {}),
                    "mean_plies": round(float(part.plies.mean()), 1)})
    return pd.DataFrame(out)


@dataclass
class DuelOutcome:
    table: pd.DataFrame
    files: list[Path]
    seconds: float

    def to_json(self) -> dict:
        return {"seconds": round(self.seconds, 3),
                "rows": json.loads(self.table.to_json(orient="records")),
                "files": [str(f) for f in self.files]}

    def text(self) -> str:
        cols = ["games_of", "games", "a_wins", "a_win_rate", "ci_low", "ci_high",
                "a_simulations_per_move", "b_simulations_per_move", "a_seconds_per_move",
                "b_seconds_per_move"]
        t = self.table
        if "matched_seconds_per_move" in t:
            cols.append("matched_seconds_per_move")
        head = f"size {int(t['size'].iloc[0])}: A = {t.agent_a.iloc[0]}, B = {t.agent_b.iloc[0]}"
        with pd.option_context("display.width", 200):
            body = t[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}")
        return f"{head}\n{body}\n{self.seconds:.1f} s. Wrote " + ", ".join(map(str, self.files))


def duel_trike(size: int, agent_a: str, agent_b: str, games: int = 20, seed: int = 0,
               jobs: int = 1, dask: str | None = None, out_dir: str | Path | None = None,
               progress: Callable | None = None, command: str | None = None,
               equal_time: bool = False) -> DuelOutcome:
    """Agent ``A`` against agent ``B`` (module docstring; ``equal_time``: at matched
    time); resumable."""
    try:
        trike_agents.check_size(size)
    except ValueError as e:
        raise StudyError(str(e), "--size") from None
    for text, option in ((agent_a, "--agents"), (agent_b, "--agents")):
        try:
            trike_agents.parse_agent(text)
        except ValueError as e:
            raise StudyError(str(e), option) from None
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    folder = output_path(Path(out_dir) if out_dir else RESULTS / "agents", "--out-dir",
                         folder=True)
    name = f"trike-duel-{size}-{agent_a}-vs-{agent_b}".replace(":", "-")
    if equal_time:
        name += "-equal-time"
    rows_path = folder / f"{name}.rows.csv"
    params = {"seed": seed, "games": games}
    if equal_time:  # (the records of earlier duels have no such key)
        params["equal_time"] = True
    check_resume(rows_path.with_suffix(".json"), params)
    have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    done = set(have["game"]) if len(have) else set()
    tasks = [(size, agent_a, agent_b, seed, g, equal_time) for g in range(games) if g not in done]
    command = command or artifacts.command_line()
    t0 = time.perf_counter()
    executor = make_executor(jobs, dask, work=len(tasks))
    try:
        finished = len(done)
        for _args, row in executor.run(duel_game, tasks):
            artifacts.append_csv(rows_path, [row])
            finished += 1
            if progress is not None:
                progress(f"games: {finished}/{games}")
    finally:
        executor.close()
    seconds = time.perf_counter() - t0
    rows = pd.read_csv(rows_path).sort_values("game")
    table = summarise(size, agent_a, agent_b, rows)
    csv = folder / f"{name}.csv"
    timed = equal_time or any(trike_agents.parse_agent(t).spec.seconds is not None
                              for t in (agent_a, agent_b))
    with artifacts.OutputSet() as out:
        out.csv(csv, table)
        out.json(csv.with_suffix(".meta.json"), artifacts.base_metadata(
            command=command, regenerate=command, seed=seed, size=size, agent_a=agent_a,
            agent_b=agent_b, games=games, pie_rule=False, equal_time=equal_time,
            executor=executor.describe(),
            reproducible=not timed, seconds_this_run=round(seconds, 3), rows=str(rows_path)))
    return DuelOutcome(table, [csv, csv.with_suffix(".meta.json"), rows_path], seconds)
