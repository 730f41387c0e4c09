"""How well the MCTS agent plays Trike, measured against the exact solver.

Two studies (``trilab strength trike``):

* **Winning moves** (``--positions K``): K random positions that the side to
  move wins, at three game stages (``STAGES``: checkers on the board), each
  labelled once by the alpha-beta solver with its set of winning moves.
  Position ``i`` comes from the stream ``(seed, attempt)`` of the first
  attempts that give a won, unfinished position of stage ``i mod 3``: a
  uniformly random opening, then uniformly random moves up to a checker count
  drawn uniformly in the stage.  Each agent then searches every position with
  the stream ``(seed, i)`` and scores 1 if it picks a winning move.  Labels
  are saved to ``trike-N-positions.json`` as they are made and the agents'
  answers to ``trike-N-moves.rows.csv`` after each chunk, so an interrupted
  study resumes where it stopped.
* **Openings** (``--openings``): for each opening class of a solved size,
  ``G`` games from its representative opening, both sides played by the same
  agent, without the swap; game ``g`` of class ``k`` draws from the stream
  ``(seed, k * G + g)``.  The class *agrees* when the majority of games is won
  by the side that wins under perfect play (from ``results/trike/size-N.csv``).

* **Replies** (``--replies``): every recorded position after an opening and one
  reply (no swap) whose exact winner the solver stored
  (:data:`REPLY_SOURCES`: all of them at size 7, those the size-8 solve proved at
  size 8), ``G`` games from each, both sides played by the agent; game ``g`` of
  position ``i`` (in file order) draws from the stream ``(seed, i * G + g)``.  A
  game *agrees* when the side that wins under perfect play wins it.

Each openings or replies run also rewrites ``trike-calibration.csv`` (and its
figure): one row per (agent, size, study) found in the folder, the share of
classes (openings, by majority) or games (replies) that agree, with its
interval, so the agreement can be read against the agent's budget.

Shares come with 95% Wilson intervals (:func:`trilab.analysis.stats.wilson`).
:func:`strength_trike` is the command ``trilab strength trike``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.common import (
    RESULTS,
    StudyError,
    check_resume,
    make_executor,
    output_path,
)
from trilab.analysis.stats import wilson
from trilab.solver.rng import PyRng, game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike

STAGES: tuple[tuple[str, int, int], ...] = (("early", 2, 4), ("middle", 5, 8), ("late", 9, 28))
"""Stage name and the range of checkers on the board (inclusive)."""
MAX_FAILED_ATTEMPTS = 10_000
"""Attempts in a row that find no won position before the study gives up."""


def stages_for(size: int) -> tuple[tuple[str, int, int], ...]:
    """The stages a board of ``size`` can reach with a move still to play (at
    most ``points - 1`` checkers): all three from size 5 on, fewer on the
    smallest boards, whose games end before the late (or middle) stage."""
    last = trike.n_points(size) - 1
    return tuple(s for s in STAGES if s[1] <= last)
POSITIONS_FORMAT = "trilab-trike-strength-positions"
CHUNK = 25  # positions per task


@dataclass(frozen=True)
class LabelledPosition:
    index: int
    attempt: int
    stage: str
    notation: str
    legal: int
    winning: tuple[int, ...]  # point indices of the winning moves

    def to_json(self) -> dict:
        return {"index": self.index, "attempt": self.attempt, "stage": self.stage,
                "notation": self.notation, "legal": self.legal, "winning": list(self.winning)}


def _random_position(size: int, seed: int, attempt: int, stage: tuple[str, int, int]):
    """The position of one attempt (``None`` if the game ended before the stage)."""
    stream = PyRng(seed, attempt)
    _, lo, hi = stage
    target = lo + stream.below(hi - lo + 1)
    pos = trike.opening(size, stream.below(trike.n_points(size)))
    while pos.checkers < target:
        moves = sorted(pos.legal_moves())
        if not moves:
            return None
        pos = pos.play(moves[stream.below(len(moves))])
    return None if pos.is_terminal() else pos


def label_positions(size: int, count: int, seed: int, path: Path, tt_mb: float = 256,
                    progress: Callable[[int], None] | None = None) -> list[LabelledPosition]:
    """The first ``count`` won positions of the study, solved once and saved to
    ``path`` (JSON) after each; an existing file with the same size and seed
    is resumed."""
    from trilab.solver.trike.alphabeta import AlphaBetaSolver

    done: list[LabelledPosition] = []
    next_attempt = 0
    if path.exists():
        data = json.loads(path.read_text())
        if data.get("size") != size or data.get("seed") != seed:
            raise ValueError(f"{path} holds positions of size {data.get('size')} seed "
                             f"{data.get('seed')}, not size {size} seed {seed}")
        done = [LabelledPosition(p["index"], p["attempt"], p["stage"], p["notation"],
                                 p["legal"], tuple(p["winning"])) for p in data["positions"]]
        next_attempt = int(data["next_attempt"])
    solver = AlphaBetaSolver(size, tt_mb=tt_mb)
    stages = stages_for(size)
    if not stages:
        raise ValueError(f"size {size}: no position with a move to choose")
    t0 = time.perf_counter()
    failed = 0
    while len(done) < count:
        i = len(done)
        stage = stages[i % len(stages)]
        pos = _random_position(size, seed, next_attempt, stage)
        attempt = next_attempt
        next_attempt += 1
        if pos is None or not solver.is_win(pos):
            failed += 1
            if failed >= MAX_FAILED_ATTEMPTS:
                raise ValueError(f"size {size}: no won {stage[0]} position in "
                                 f"{MAX_FAILED_ATTEMPTS} random games")
            continue
        failed = 0
        moves = pos.legal_moves()
        winning = tuple(sorted(d for d in moves if not solver.is_win(pos.play(d))))
        done.append(LabelledPosition(i, attempt, stage[0], pos.to_notation(), len(moves),
                                     winning))
        artifacts.write_json(path, {
            "format": POSITIONS_FORMAT, "size": size, "seed": seed,
            "next_attempt": next_attempt, "solver_nodes": solver.nodes,
            "seconds": round(time.perf_counter() - t0, 3),
            "positions": [p.to_json() for p in done]})
        if progress is not None:
            progress(len(done))
    return done[:count]


def evaluate_chunk(size: int, agent_text: str, seed: int,
                   items: tuple[tuple[int, str], ...]) -> list[dict]:
    """One task: the agent's move in each ``(index, notation)`` (stream ``(seed, index)``)."""
    agent = trike_agents.parse_agent(agent_text)
    game = agent.game(size)
    rows = []
    for index, notation in items:
        pos = trike.parse_position(notation, size)
        res = game.search(trike_agents.from_position(pos, pie=False), agent.spec,
                          game_stream(np.uint64(seed), np.uint64(index)))
        rows.append({"agent": agent_text, "index": index, "move": res.action,
                     "simulations": res.simulations, "seconds": round(res.seconds, 5),
                     "value": round(res.value, 5), "proven": res.proven})
    return rows


def move_rows(positions: list[LabelledPosition], agents: list[str], seed: int, rows_path: Path,
              executor, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """Every agent's answer on every position, resumed from ``rows_path``."""
    have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    done = set()
    if len(have):
        done = set(zip(have.agent, have["index"], strict=True))
    tasks = []
    size = trike.parse_position(positions[0].notation).size
    for agent in agents:
        todo = [(p.index, p.notation) for p in positions if (agent, p.index) not in done]
        for k in range(0, len(todo), CHUNK):
            tasks.append((size, agent, seed, tuple(todo[k:k + CHUNK])))
    finished = len(done)
    for _args, rows in executor.run(evaluate_chunk, tasks):
        artifacts.append_csv(rows_path, rows)
        finished += len(rows)
        if progress is not None:
            progress(finished)
    return pd.read_csv(rows_path)


def summarise_moves(positions: list[LabelledPosition], rows: pd.DataFrame,
                    agents: Iterable[str]) -> pd.DataFrame:
    """One row per agent and stage (and ``all``): share of winning moves and interval."""
    labels = pd.DataFrame([{"index": p.index, "stage": p.stage, "legal": p.legal,
                            "n_winning": len(p.winning), "winning": set(p.winning)}
                           for p in positions])
    merged = rows.merge(labels, on="index")
    merged = merged[merged["index"] < len(positions)]
    merged["correct"] = [m in w for m, w in zip(merged["move"], merged["winning"], strict=True)]
    merged["all_moves_win"] = merged["n_winning"] == merged["legal"]
    out = []
    for agent in agents:
        a = merged[merged.agent == agent]
        for stage in ["all", *[s[0] for s in STAGES]]:
            part = a if stage == "all" else a[a.stage == stage]
            hard = part[~part.all_moves_win]
            k, n = int(part.correct.sum()), len(part)
            lo, hi = wilson(k, n)
            kh, nh = int(hard.correct.sum()), len(hard)
            lo_h, hi_h = wilson(kh, nh)
            out.append({"agent": agent, "stage": stage, "positions": n,
                        "winning_move_share": k / n if n else float("nan"),
                        "ci_low": lo, "ci_high": hi,
                        "positions_with_a_losing_move": nh,
                        "share_there": kh / nh if nh else float("nan"),
                        "ci_low_there": lo_h, "ci_high_there": hi_h,
                        "mean_simulations": float(part.simulations.mean()) if n else 0.0,
                        "mean_seconds": float(part.seconds.mean()) if n else 0.0})
    return pd.DataFrame(out)


def plot_moves(summary: pd.DataFrame, size: int):
    from trilab.analysis.plots import plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    agents = list(dict.fromkeys(summary.agent))
    x = np.arange(len(agents))
    stages = ["all", *[s[0] for s in STAGES]]
    width = 0.8 / len(stages)
    for j, stage in enumerate(stages):
        part = summary[summary.stage == stage].set_index("agent").loc[agents]
        y = 100 * part.winning_move_share.to_numpy()
        err = 100 * np.vstack([part.winning_move_share - part.ci_low,
                               part.ci_high - part.winning_move_share])
        ax.bar(x + (j - (len(stages) - 1) / 2) * width, y, width, yerr=err, capsize=2,
               label=f"{stage} ({int(part.positions.iloc[0])} positions)")
    ax.axhline(99, color="black", lw=0.8, ls="--", label="target 99%")
    ax.set_xticks(x, agents)
    ax.set_ylim(max(0, float(100 * summary.ci_low.min()) - 5), 100.5)
    ax.set_ylabel("winning move chosen (%)")
    ax.set_title(f"MCTS on Trike {size}: share of won positions where it picks a winning move")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- openings


def opening_games(size: int, agent_text: str, seed: int, klass: int, point: int,
                  games: int) -> dict:
    """One task: ``games`` agent-vs-agent games from one opening, no swap."""
    agent = trike_agents.parse_agent(agent_text)
    placer_wins = 0
    plies = 0
    t0 = time.perf_counter()
    for g in range(games):
        won, n = agent.self_play(size, (point,),
                                 game_stream(np.uint64(seed), np.uint64(klass * games + g)))
        placer_wins += int(won)
        plies += n
    return {"class": klass, "point": point, "games": games, "placer_wins": placer_wins,
            "mean_plies": plies / games, "seconds": round(time.perf_counter() - t0, 3)}


def opening_rows(sizes: list[int], agent_text: str, seed: int, games: int, executor,
                 rows_path: Path, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """The games of every opening class of every size, resumed from ``rows_path``."""
    have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    done = set(zip(have["size"], have["class"], strict=True)) if len(have) else set()
    tasks = [(size, agent_text, seed, k, cls[0], games)
             for size in sizes for k, cls in enumerate(trike.opening_classes(size))
             if (size, k) not in done]
    for args, row in executor.run(opening_games, tasks):
        artifacts.append_csv(rows_path, [{"size": args[0], **row}])
        if progress is not None:
            progress(1)
    return pd.read_csv(rows_path)


def opening_table(size: int, agent_text: str, rows: pd.DataFrame,
                  exact: pd.DataFrame) -> pd.DataFrame:
    """Per opening class of one size: the agent's games and whether their
    majority agrees with the exact winner."""
    table = rows[rows["size"] == size].sort_values("class").reset_index(drop=True)
    table = table.drop(columns=["size"])
    coords = trike.point_coords(size)
    table["row"] = [coords[p][0] for p in table.point]
    table["col"] = [coords[p][1] for p in table.point]
    winners = dict(zip(exact.point, exact.winner, strict=True))
    table["exact_winner"] = [winners[p] for p in table.point]
    table["placer_win_rate"] = table.placer_wins / table.games
    cis = [wilson(k, n) for k, n in zip(table.placer_wins, table.games, strict=True)]
    table["ci_low"] = [c[0] for c in cis]
    table["ci_high"] = [c[1] for c in cis]
    majority = np.where(table.placer_win_rate > 0.5, "placer",
                        np.where(table.placer_win_rate < 0.5, "mover", "tie"))
    table["agent_majority"] = majority
    table["agrees"] = table.agent_majority == table.exact_winner
    table.insert(0, "agent", agent_text)
    table.insert(0, "size", size)
    return table[["size", "agent", "class", "point", "row", "col", "exact_winner", "games",
                  "placer_wins", "placer_win_rate", "ci_low", "ci_high", "agent_majority",
                  "agrees", "mean_plies", "seconds"]]


REPLY_SOURCES = {7: "trike/replies/size-7.replies.json", 8: "trike/size-8.replies.json"}
"""Where the exact winners of the positions after an opening and one reply are
recorded (the solver's per-reply records under ``results/``)."""


def reply_positions(size: int, results: Path = RESULTS) -> list[tuple[int, int, bool]]:
    """``(opening, reply, placer wins)`` of every recorded position of ``size``, in
    the file's order; :class:`StudyError` if none is recorded."""
    path = results / REPLY_SOURCES[size] if size in REPLY_SOURCES else None
    if path is None or not path.exists():
        sizes = ", ".join(str(n) for n in REPLY_SOURCES)
        raise StudyError(f"size {size} has no recorded replies (sizes {sizes}; run "
                         "`make results` for size 7)", "--sizes")
    record = json.loads(path.read_text())
    return [(int(opening), int(reply), bool(r["placer_wins"]))
            for opening, replies in record.get("replies", {}).items()
            for reply, r in replies.items() if r.get("placer_wins") is not None]


def reply_games(size: int, agent_text: str, seed: int, index: int, opening: int, reply: int,
                games: int) -> dict:
    """One task: ``games`` agent-vs-agent games after ``opening`` and ``reply``."""
    agent = trike_agents.parse_agent(agent_text)
    placer_wins = 0
    plies = 0
    t0 = time.perf_counter()
    for g in range(games):
        won, n = agent.self_play(size, (opening, reply),
                                 game_stream(np.uint64(seed), np.uint64(index * games + g)))
        placer_wins += int(won)
        plies += n
    return {"size": size, "index": index, "opening": opening, "reply": reply, "games": games,
            "placer_wins": placer_wins, "mean_plies": plies / games,
            "seconds": round(time.perf_counter() - t0, 3)}


def reply_rows(sizes: list[int], agent_text: str, seed: int, games: int, executor,
               rows_path: Path, progress: Callable[[int], None] | None = None) -> pd.DataFrame:
    """The games from every recorded reply position, resumed from ``rows_path``."""
    have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    done = set(zip(have["size"], have["index"], strict=True)) if len(have) else set()
    tasks = [(size, agent_text, seed, i, o, r, games) for size in sizes
             for i, (o, r, _) in enumerate(reply_positions(size)) if (size, i) not in done]
    for _args, row in executor.run(reply_games, tasks):
        artifacts.append_csv(rows_path, [row])
        if progress is not None:
            progress(1)
    return pd.read_csv(rows_path)


def reply_table(size: int, agent_text: str, rows: pd.DataFrame) -> pd.DataFrame:
    """Per recorded reply position of one size: the exact winner and the agent's games."""
    exact = {i: w for i, (_, _, w) in enumerate(reply_positions(size))}
    t = rows[rows["size"] == size].sort_values("index").reset_index(drop=True)
    t["exact_winner"] = ["placer" if exact[i] else "mover" for i in t["index"]]
    t["agreeing_games"] = np.where(t.exact_winner == "placer", t.placer_wins,
                                   t.games - t.placer_wins)
    t["agrees"] = 2 * t.agreeing_games > t.games
    t.insert(1, "agent", agent_text)
    return t[["size", "agent", "index", "opening", "reply", "exact_winner", "games",
              "placer_wins", "agreeing_games", "agrees", "mean_plies", "seconds"]]


CALIBRATION = "trike-calibration"


def _budget(agent_text: str) -> tuple[str, float]:
    """(family, budget) of an agent spec: ``mcts-solve:50000`` -> ("mcts-solve", 50000);
    root-parallel threads are part of the family (``mcts-trap:50000@2`` ->
    ("mcts-trap@2", 50000))."""
    family, _, rest = agent_text.partition(":")
    budget, _, threads = rest.split(":")[0].partition("@")
    if threads:
        family += "@" + threads
    if rest.split(":")[1:]:
        family += ":" + ":".join(rest.split(":")[1:])  # e.g. an endgame size
    return family, float(budget[:-1]) if budget.endswith("s") else float(budget)


def calibration_table(folder: Path, extra: list[pd.DataFrame] = ()) -> pd.DataFrame:
    """One row per (agent, size, study) of the openings and replies tables in
    ``folder`` (and ``extra``, tables not written yet, which replace a file's rows of
    the same agent and study): how many classes or games agree with perfect play."""
    tables = {}
    for path in sorted(folder.glob("trike-openings-*.csv")) + sorted(
            folder.glob("trike-replies-*.csv")):
        if path.name.endswith(".rows.csv"):
            continue
        t = pd.read_csv(path)
        tables[(str(t.agent.iloc[0]), "replies" if "reply" in t else "openings")] = t
    for t in extra:
        tables[(str(t.agent.iloc[0]), "replies" if "reply" in t else "openings")] = t
    rows = []
    for (agent, study), t in sorted(tables.items()):
        family, budget = _budget(agent)
        for size, part in t.groupby("size"):
            if study == "openings":
                agree, total, unit = int(part.agrees.sum()), len(part), "opening classes"
            else:
                agree, total, unit = int(part.agreeing_games.sum()), int(part.games.sum()), "games"
            lo, hi = wilson(agree, total)
            rows.append({"agent": agent, "family": family, "budget": budget, "size": int(size),
                         "study": study, "unit": unit, "agree": agree, "total": total,
                         "share": round(agree / total, 4), "ci_low": round(lo, 4),
                         "ci_high": round(hi, 4)})
    return pd.DataFrame(rows)


def plot_calibration(table: pd.DataFrame):
    """Agreement with perfect play against the agent's budget, one panel per study."""
    from trilab.analysis.plots import plt

    studies = [s for s in ("openings", "replies") if s in set(table.study)]
    fig, axes = plt.subplots(1, len(studies), figsize=(5.2 * len(studies), 5.0), squeeze=False)
    colours = {size: f"C{i}" for i, size in enumerate(sorted(set(table["size"])))}
    looks = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v")]
    styles = {family: looks[i % len(looks)]
              for i, family in enumerate(sorted(set(table.family), key=lambda f: (
                  not f.startswith("mcts-solve"), f)))}
    for ax, study in zip(axes[0], studies, strict=True):
        part = table[table.study == study]
        for (family, size), line in part.groupby(["family", "size"]):
            line = line.sort_values("budget")
            err = 100 * np.vstack([line.share - line.ci_low, line.ci_high - line.share])
            ls, marker = styles[family]
            ax.errorbar(line.budget, 100 * line.share, yerr=err, marker=marker, ls=ls,
                        color=colours[size], capsize=3, label=f"{family}, size {size}")
        ax.set_xscale("log")
        budgets = sorted(set(part.budget))
        ax.set_xticks(budgets, [f"{b:,.0f}" for b in budgets], fontsize=8)
        ax.minorticks_off()
        ax.set_ylim(0, 102)
        ax.set_xlabel("simulations per move")
        ax.set_ylabel("agree with perfect play (%)")
        ax.set_title("opening classes won by the exact winner (majority of games)"
                     if study == "openings" else "games after one reply won by the exact winner",
                     fontsize=9)
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    fig.tight_layout()
    return fig


def plot_openings(tables: list[pd.DataFrame]):
    from trilab.analysis.plots import MOVER_COLOUR, PLACER_COLOUR, plt

    fig, axes = plt.subplots(1, len(tables), figsize=(4.2 * len(tables), 3.8), squeeze=False)
    for ax, t in zip(axes[0], tables, strict=True):
        x = np.arange(len(t))
        colours = [PLACER_COLOUR if w == "placer" else MOVER_COLOUR for w in t.exact_winner]
        err = 100 * np.vstack([t.placer_win_rate - t.ci_low, t.ci_high - t.placer_win_rate])
        ax.bar(x, 100 * t.placer_win_rate, color=colours, yerr=err, capsize=3)
        ax.axhline(50, color="black", lw=0.8)
        ax.set_xticks(x, [f"({r},{c})" for r, c in zip(t.row, t.col, strict=True)],
                      rotation=60, fontsize=7)
        agree = int(t.agrees.sum())
        ax.set_title(f"size {int(t['size'].iloc[0])}: {agree}/{len(t)} classes agree",
                     fontsize=10)
        ax.set_ylim(0, 100)
        ax.set_ylabel("placer wins (%)")
    fig.suptitle(f"{tables[0].agent.iloc[0]} vs itself from each opening (no swap); "
                 "bar colour = exact winner (red placer, blue mover)", fontsize=9)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- the command


@dataclass
class StrengthOutcome:
    """What ``trilab strength`` computed and wrote."""

    kind: str  # "moves", "openings" or "replies"
    table: object  # pandas DataFrame
    files: list[Path]
    seconds: float

    def to_json(self) -> dict:
        return {"study": self.kind, "seconds": round(self.seconds, 3),
                "rows": json.loads(self.table.to_json(orient="records")),
                "files": [str(f) for f in self.files]}

    def text(self) -> str:
        if self.kind == "moves":
            cols = ["agent", "stage", "positions", "winning_move_share", "ci_low", "ci_high",
                    "positions_with_a_losing_move", "share_there", "mean_simulations",
                    "mean_seconds"]
        elif self.kind == "replies":
            cols = ["size", "agent", "opening", "reply", "exact_winner", "games",
                    "agreeing_games"]
        else:
            cols = ["size", "agent", "row", "col", "exact_winner", "games", "placer_win_rate",
                    "ci_low", "ci_high", "agrees"]
        with pd.option_context("display.width", 220):
            body = self.table[cols].to_string(index=False, float_format=lambda v: f"{v:.4f}")
        return body + f"\n{self.seconds:.1f} s. Wrote " + ", ".join(str(f) for f in self.files)


def _agents(texts: list[str]) -> list[str]:
    if not texts:
        raise StudyError("give at least one agent", "--agents")
    for t in texts:
        try:
            trike_agents.parse_agent(t)
        except ValueError as e:
            raise StudyError(str(e), "--agents") from None
    return texts


def strength_trike(sizes: list[int], agents: list[str], seed: int = 0, positions: int = 1000,
                   openings: bool = False, games: int = 10, jobs: int = 1,
                   dask: str | None = None, out_dir: str | Path | None = None,
                   tt_mb: float = 256, progress: Callable | None = None,
                   command: str | None = None, replies: bool = False) -> StrengthOutcome:
    """The agents against the exact solver (the two studies of the module docstring).

    Without ``openings``: share of won positions of each size where each agent
    picks a winning move (files ``trike-N-moves.*``).  With ``openings``: per
    opening class of each size, games of the agent against itself and whether
    their majority agrees with the exact winner (``trike-openings-AGENT.*``).  With
    ``replies``: games of the agent against itself from every recorded position
    after an opening and a reply (``trike-replies-AGENT.*``).  Openings and replies
    also rewrite the folder's ``trike-calibration.*``.  All resume from their
    ``*.rows.csv`` (and the positions' labels) when run again with the same arguments.
    """
    agents = _agents(agents)
    folder = output_path(Path(out_dir) if out_dir else RESULTS / "agents", "--out-dir",
                         folder=True)
    for size in sizes:
        if not trike.MIN_SIZE <= size <= trike.MAX_SIZE:
            raise StudyError(f"size {size} is not in {trike.MIN_SIZE}..{trike.MAX_SIZE} "
                             "(the exact solver is the reference)", "--sizes")
    if positions < 1:
        raise StudyError("positions must be at least 1", "--positions")
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    exact_tables = {}
    if openings and replies:
        raise StudyError("choose --openings or --replies, not both", "--replies")
    if replies:
        if len(agents) != 1:
            raise StudyError("--replies plays one agent against itself: give one agent",
                             "--agents")
        for size in sizes:
            reply_positions(size)
    if openings:
        if len(agents) != 1:
            raise StudyError("--openings plays one agent against itself: give one agent",
                             "--agents")
        for size in sizes:
            path = RESULTS / "trike" / f"size-{size}.csv"
            table = pd.read_csv(path) if path.exists() else None
            if table is None or table.winner.isna().any() or len(table) != trike.n_points(size):
                raise StudyError(f"size {size} has no complete exact table at {path}; "
                                 f"run `trilab solve trike --size {size}` first", "--sizes")
            exact_tables[size] = table
    elif len(sizes) != 1 and not replies:
        raise StudyError("the winning-move study takes one size at a time", "--sizes")
    executor = make_executor(jobs, dask)
    command = command or artifacts.command_line()
    t0 = time.perf_counter()
    kind = "openings" if openings else "replies" if replies else "moves"
    try:
        if replies:
            agent = agents[0]
            base = folder / f"trike-replies-{agent.replace(':', '-')}"
            rows_path = base.with_suffix(".rows.csv")
            check_resume(rows_path.with_suffix(".json"), {"seed": seed, "games": games})
            total = sum(len(reply_positions(s)) for s in sizes)
            done = [0]

            def position_done(k: int) -> None:
                done[0] += k
                if progress is not None:
                    progress(f"reply positions: {done[0]} new of {total}")

            rows = reply_rows(sizes, agent, seed, games, executor, rows_path,
                              progress=position_done)
            table = pd.concat([reply_table(s, agent, rows) for s in sizes], ignore_index=True)
            fig = None
            summary = {str(s): {"positions": int((table["size"] == s).sum()),
                                "games": int(table.games[table["size"] == s].sum()),
                                "agreeing_games": int(
                                    table.agreeing_games[table["size"] == s].sum())}
                       for s in sizes}
            extra = {"study": "replies", "agent": agent, "games_per_position": games,
                     "sizes": sizes, "agreement": summary,
                     "sources": {str(s): f"results/{REPLY_SOURCES[s]}" for s in sizes}}
        elif openings:
            agent = agents[0]
            base = folder / f"trike-openings-{agent.replace(':', '-')}"
            rows_path = base.with_suffix(".rows.csv")
            check_resume(rows_path.with_suffix(".json"), {"seed": seed, "games": games})
            total = sum(len(trike.opening_classes(s)) for s in sizes)
            done = [0]

            def class_done(k: int) -> None:
                done[0] += k
                if progress is not None:
                    progress(f"opening classes: {done[0]} new of {total}")

            rows = opening_rows(sizes, agent, seed, games, executor, rows_path,
                                progress=class_done)
            tables = [opening_table(s, agent, rows, exact_tables[s]) for s in sizes]
            table = pd.concat(tables, ignore_index=True)
            fig = plot_openings(tables)
            summary = {str(s): {"classes": len(t), "agree": int(t.agrees.sum())}
                       for s, t in zip(sizes, tables, strict=True)}
            extra = {"study": "openings", "agent": agent, "games_per_class": games,
                     "sizes": sizes, "agreement": summary}
        else:
            size = sizes[0]
            base = folder / f"trike-{size}-moves"
            labels = folder / f"trike-{size}-positions.json"

            def labelled_one(k: int) -> None:
                if progress is not None and (k % 50 == 0 or k == positions):
                    progress(f"positions solved: {k}/{positions}")

            try:
                labelled = label_positions(size, positions, seed, labels, tt_mb,
                                           progress=labelled_one)
            except ValueError as e:
                raise StudyError(str(e), "--seed") from None
            rows_path = base.with_suffix(".rows.csv")
            check_resume(rows_path.with_suffix(".json"), {"seed": seed})
            total = positions * len(agents)
            rows = move_rows(
                labelled, agents, seed, rows_path, executor,
                progress=None if progress is None else lambda k: progress(f"answers: {k}/{total}"))
            table = summarise_moves(labelled, rows, agents)
            fig = plot_moves(table, size)
            extra = {"study": "winning moves", "size": size, "positions": positions,
                     "agents": agents, "stages": [list(s) for s in stages_for(size)],
                     "labels": str(labels)}
    finally:
        executor.close()
    seconds = time.perf_counter() - t0
    csv = base.with_suffix(".csv")
    meta = artifacts.base_metadata(command=command, regenerate=command, seed=seed,
                                   seconds_this_run=round(seconds, 3),
                                   executor=executor.describe(), rows=str(rows_path), **extra)
    files = [csv, csv.with_suffix(".meta.json"), rows_path]
    calibration = folder / f"{CALIBRATION}.csv"
    with artifacts.OutputSet() as out:  # all of them, or none
        out.csv(csv, table)
        if fig is not None:
            out.figure(csv.with_suffix(".png"), fig)
            files.insert(1, csv.with_suffix(".png"))
        out.json(csv.with_suffix(".meta.json"), meta)
        if kind != "moves":
            cal = calibration_table(folder, [table])
            out.csv(calibration, cal)
            out.figure(calibration.with_suffix(".png"), plot_calibration(cal))
            out.json(calibration.with_suffix(".meta.json"), artifacts.base_metadata(
                command=command, regenerate="every `trilab strength trike --openings` and "
                "`--replies` run in the folder rewrites it from their tables",
                sources=sorted({f"{a} {s}" for a, s in zip(cal.agent, cal.study,
                                                             strict=True)})))
            files += [calibration, calibration.with_suffix(".png")]
    return StrengthOutcome(kind, table, files, seconds)
