"""Pie-rule balance of Trike across board sizes (``trilab balance trike``).

Two sources, one table shape (a row per opening point, a summary per size):

* **exact** (sizes with a complete table ``results/trike/size-N.csv``): each
  opening's winner under perfect play.  The placer's win rate of an opening
  is 1 or 0; under the pie rule the mover swaps exactly the placer-won
  openings, so the first player always loses (pie value 0).  The
  first player's *best* openings under the pie rule are then the ones where
  the mover's task is hardest: a mover-won opening with the fewest winning
  replies (ties: the longest game); if the placer wins every opening, every
  opening is equally bad (the mover swaps).
* **agent** (any size 2..19): for each opening class, ``G`` games of the
  agent against itself from the class's first point, the mover playing on
  (no swap); game ``g`` of class ``k`` of size ``n`` draws from the stream
  ``(seed, n << 32 | k << 16 | g)``.  The placer's win rate ``p`` gets a 95%
  Wilson interval; the mover swaps where ``p > 1/2``.  The **pie value** is
  the best opening's ``min(p, 1 - p)``: how close to an even game the first
  player can get under the pie rule (0.5 is a perfectly balanced opening);
  its interval is that opening's.  The **first-player advantage without the
  pie rule** is the best opening's ``p - 1/2``.  Both maxima are taken over
  noisy estimates, so they lean upwards by about one interval half-width when
  many classes are close.

Rows are saved per (size, class) to ``balance-AGENT.rows.csv`` as games
finish, so an interrupted study resumes; the same seed gives the same table
on any executor.  :func:`balance_trike` is the command ``trilab balance trike``.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
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
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike


def opening_classes(size: int) -> list[list[int]]:
    """Points grouped by the six board symmetries (any size 2..19), each class
    sorted, classes by their smallest point."""
    perms = trike.symmetry_permutations(size)
    seen: dict[int, list[int]] = {}
    for p in range(trike.n_points(size)):
        rep = min(int(perms[s][p]) for s in range(len(perms)))
        seen.setdefault(rep, []).append(p)
    return [sorted(v) for _, v in sorted(seen.items())]


# ---------------------------------------------------------------- exact


def exact_rows(size: int, table: pd.DataFrame) -> pd.DataFrame:
    """One row per opening point from an exact opening table."""
    rows = []
    for r in table.itertuples():
        rate = 1.0 if r.winner == "placer" else 0.0
        rows.append({"size": size, "method": "exact", "point": int(r.point), "row": int(r.row),
                     "col": int(r.col), "class": int(r.symmetry_class), "winner": r.winner,
                     "games": None, "placer_win_rate": rate, "ci_low": rate, "ci_high": rate,
                     "swap": r.winner == "placer",
                     "margin": None if pd.isna(r.margin) else int(r.margin),
                     "remoteness": None if pd.isna(r.remoteness) else int(r.remoteness),
                     "winning_replies": (None if pd.isna(r.winning_replies)
                                         else int(r.winning_replies))})
    return pd.DataFrame(rows)


def best_pie_openings(rows: pd.DataFrame) -> list[int]:
    """The exact method's best openings for the first player under the pie rule."""
    mover_won = rows[rows.winner == "mover"]
    if mover_won.empty:
        return sorted(rows.point)
    known = mover_won.dropna(subset=["winning_replies"])
    if known.empty:
        return sorted(mover_won.point)
    fewest = known[known.winning_replies == known.winning_replies.min()]
    if fewest.remoteness.notna().any():
        fewest = fewest[fewest.remoteness == fewest.remoteness.max()]
    return sorted(fewest.point)


# ---------------------------------------------------------------- agent


def class_games(size: int, agent_text: str, seed: int, klass: int, point: int,
                games: int) -> dict:
    """One task: ``games`` agent-vs-itself games from one opening, no swap."""
    agent = trike_agents.parse_agent(agent_text)
    game = agent.game(size)
    placer_wins = 0
    plies = 0
    for g in range(games):
        stream = game_stream(np.uint64(seed), np.uint64(size << 32 | klass << 16 | g))
        state = trike_agents.new_state(size, pie=False)
        game.apply(state, point)
        while game.legal(state):
            game.apply(state, game.search(state, agent.spec, stream).action)
            plies += 1
        placer_wins += int(game.rewards(state)[0] == 1.0)
    return {"size": size, "class": klass, "point": point, "games": games,
            "placer_wins": placer_wins, "mean_plies": plies / games}


def agent_class_rows(sizes: list[int], agent_text: str, seed: int, games: int, executor,
                     rows_path: Path, progress: Callable[[int, int], None] | None = None
                     ) -> pd.DataFrame:
    """Every class's games, resumed from ``rows_path``; tasks ordered cheapest first."""
    have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
    done = set(zip(have["size"], have["class"], strict=True)) if len(have) else set()
    all_tasks = [(n, agent_text, seed, k, cls[0], games)
                 for n in sorted(sizes) for k, cls in enumerate(opening_classes(n))]
    tasks = [t for t in all_tasks if (t[0], t[3]) not in done]
    finished = len(all_tasks) - len(tasks)
    for _args, row in executor.run(class_games, tasks):
        artifacts.append_csv(rows_path, [row])
        finished += 1
        if progress is not None:
            progress(finished, len(all_tasks))
    return pd.read_csv(rows_path)


def agent_rows(size: int, class_rows: pd.DataFrame, exact: pd.DataFrame | None) -> pd.DataFrame:
    """One row per opening point of one size from the class games (every point
    of a class shares its class's rate)."""
    by_class = class_rows[class_rows["size"] == size].set_index("class")
    exact_winner = dict(zip(exact.point, exact.winner, strict=True)) if exact is not None else {}
    coords = trike.point_coords(size)
    rows = []
    for k, cls in enumerate(opening_classes(size)):
        if k not in by_class.index:
            continue
        rec = by_class.loc[k]
        n, wins = int(rec.games), int(rec.placer_wins)
        lo, hi = wilson(wins, n)
        rate = wins / n
        for p in cls:
            rows.append({"size": size, "method": "agent", "point": p, "row": coords[p][0],
                         "col": coords[p][1], "class": k,
                         "winner": "placer" if rate > 0.5 else "mover" if rate < 0.5 else "even",
                         "games": n, "placer_win_rate": rate, "ci_low": lo, "ci_high": hi,
                         "swap": rate > 0.5, "exact_winner": exact_winner.get(p),
                         "mean_plies": float(rec.mean_plies)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------- summary


def summarise(rows: pd.DataFrame) -> dict:
    """The per-size summary of one size's opening rows."""
    size = int(rows["size"].iloc[0])
    method = rows.method.iloc[0]
    total = trike.n_points(size)
    placer = int((rows.winner == "placer").sum())
    out = {"size": size, "method": method, "placer_wins": placer, "openings_total": total,
           "complete": len(rows) == total}
    if method == "exact":
        out.update(pie_value=0.0, pie_value_ci=[0.0, 0.0],
                   first_player_wins_without_pie=placer > 0,
                   first_player_advantage=0.5 if placer > 0 else -0.5,
                   first_player_advantage_ci=[0.5, 0.5] if placer > 0 else [-0.5, -0.5],
                   best_pie_openings=[list(trike.point_coords(size)[p])
                                      for p in best_pie_openings(rows)],
                   margins=sorted({int(m) for m in rows.margin.dropna()}))
        return out
    pie = np.minimum(rows.placer_win_rate, 1 - rows.placer_win_rate)
    best = int(np.argmax(pie.to_numpy()))
    b = rows.iloc[best]
    pie_ci = [min(b.ci_low, 1 - b.ci_high), min(b.ci_high, 1 - b.ci_low)]
    if b.ci_low < 0.5 < b.ci_high:
        pie_ci = [min(b.ci_low, 1 - b.ci_high), 0.5]
    top = rows.iloc[int(np.argmax(rows.placer_win_rate.to_numpy()))]
    agree = rows.dropna(subset=["exact_winner"])
    out.update(pie_value=float(pie.iloc[best]), pie_value_ci=[float(x) for x in pie_ci],
               best_pie_openings=[[int(b.row), int(b.col)]],
               first_player_advantage=float(top.placer_win_rate - 0.5),
               first_player_advantage_ci=[float(top.ci_low - 0.5), float(top.ci_high - 0.5)],
               games_per_class=int(rows.games.iloc[0]),
               agreement_with_exact=(None if agree.empty else
                                     float((agree.winner == agree.exact_winner).mean())))
    return out


def verdict(method: str, ci_low: float, ci_high: float) -> str:
    """The swap-map verdict of an opening, as Hex players' maps give it: ``swap``
    (the placer wins: exactly, or the 95% interval of its win rate lies above
    50%), ``do not swap`` (below), or ``too close to call`` (the interval holds 50%)."""
    if ci_low > 0.5 or (method == "exact" and ci_low == 1.0):
        return "swap"
    if ci_high < 0.5 or (method == "exact" and ci_high == 0.0):
        return "do not swap"
    return "too close to call"


def to_json(summaries: list[dict], rows: pd.DataFrame) -> dict:
    """The ``--json`` document: ``{"sizes": [...]}`` with every opening and its verdict."""
    out = []
    for s in summaries:
        part = rows[(rows["size"] == s["size"]) & (rows.method == s["method"])]
        openings = [{"row": int(r.row), "col": int(r.col), "winner": r.winner,
                     "placer_win_rate": float(r.placer_win_rate), "ci_low": float(r.ci_low),
                     "ci_high": float(r.ci_high), "exact": r.method == "exact",
                     "verdict": verdict(r.method, float(r.ci_low), float(r.ci_high))}
                    for r in part.itertuples()]
        out.append({**s, "openings": openings})
    return {"sizes": out}


# ---------------------------------------------------------------- plots


def plot_maps(rows: pd.DataFrame, summaries: list[dict], title: str):
    """A small board per size, each opening coloured by the placer's win rate
    (exact: red placer wins, blue mover wins); a gold ring on the best pie openings."""
    from matplotlib import colormaps
    from matplotlib.patches import Circle
    from trilab.analysis.plots import plt

    sizes = [s["size"] for s in summaries]
    ncol = min(4, len(sizes))
    nrow = math.ceil(len(sizes) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol, 3.3 * nrow), squeeze=False)
    cmap = colormaps["coolwarm"]
    h = math.sqrt(3) / 2
    for ax, summ in zip(axes.flat, summaries, strict=False):
        size = summ["size"]
        part = rows[(rows["size"] == size) & (rows.method == summ["method"])]
        rate = {(int(r.row), int(r.col)): float(r.placer_win_rate) for r in part.itertuples()}
        best = {tuple(x) for x in summ.get("best_pie_openings", [])}
        for r in range(size):
            for c in range(r + 1):
                x, y = c - r / 2, -r * h
                v = rate.get((r, c))
                gold = (r, c) in best
                ax.add_patch(Circle((x, y), 0.42, facecolor="#cccccc" if v is None else cmap(v),
                                    edgecolor="gold" if gold else "black",
                                    linewidth=2.2 if gold else 0.4, zorder=3 if gold else 2))
        label = ("exact" if summ["method"] == "exact"
                 else f"agent, pie value {summ['pie_value']:.2f}")
        ax.set_title(f"size {size}: placer wins {summ['placer_wins']}/{summ['openings_total']}"
                     f"\n({label})", fontsize=9)
        ax.set_xlim(-(size - 1) / 2 - 0.8, (size - 1) / 2 + 0.8)
        ax.set_ylim(-(size - 1) * h - 0.8, 0.8)
        ax.set_aspect("equal")
        ax.axis("off")
    for ax in list(axes.flat)[len(summaries):]:
        ax.axis("off")
    sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, 1))
    fig.colorbar(sm, ax=axes.ravel().tolist(), shrink=0.6,
                 label="placer win rate (red: placer wins, blue: mover wins)")
    fig.suptitle(title + "  (gold ring: the first player's best openings under the pie rule)",
                 fontsize=10)
    return fig


def plot_by_size(summaries: list[dict], title: str):
    """First-player advantage (no pie rule) and pie value against board size,
    exact and agent points apart, with their intervals."""
    from trilab.analysis.plots import MOVER_COLOUR, PLACER_COLOUR, plt

    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for method, marker in (("exact", "s"), ("agent", "o")):
        part = [s for s in summaries if s["method"] == method]
        if not part:
            continue
        x = np.array([s["size"] for s in part])
        adv = np.array([100 * s["first_player_advantage"] for s in part])
        adv_ci = np.array([[100 * c for c in s["first_player_advantage_ci"]] for s in part])
        pie = np.array([100 * s["pie_value"] for s in part])
        pie_ci = np.array([[100 * c for c in s["pie_value_ci"]] for s in part])
        ax.errorbar(x, adv, yerr=[adv - adv_ci[:, 0], adv_ci[:, 1] - adv], fmt=marker,
                    color=PLACER_COLOUR, capsize=3,
                    label=f"first-player advantage, no pie ({method}), pp")
        ax.errorbar(x, pie, yerr=[pie - pie_ci[:, 0], pie_ci[:, 1] - pie], fmt=marker,
                    color=MOVER_COLOUR, mfc="white", capsize=3,
                    label=f"pie value ({method}), % (50 = even)")
    ax.axhline(0, color="black", lw=0.8)
    ax.axhline(50, color="grey", lw=0.6, ls="--")
    ax.set_xticks(sorted({s["size"] for s in summaries}))
    ax.set_xlabel("board side")
    ax.set_ylabel("percent / percentage points")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------- the command


@dataclass
class BalanceOutcome:
    """What ``trilab balance`` computed and wrote."""

    summaries: list[dict]
    rows: object  # pandas DataFrame, one row per opening point
    files: list[Path]
    seconds: float

    def to_json(self) -> dict:
        return to_json(self.summaries, self.rows)

    def text(self) -> str:
        lines = []
        for s in self.summaries:
            best = ", ".join(f"({r},{c})" for r, c in s["best_pie_openings"][:6])
            if len(s["best_pie_openings"]) > 6:
                best += f" ... ({len(s['best_pie_openings'])} openings)"
            if s["method"] == "exact":
                lines.append(
                    f"size {s['size']:>2} exact: placer wins {s['placer_wins']:>2}/"
                    f"{s['openings_total']:<3} first player "
                    f"{'wins' if s['first_player_wins_without_pie'] else 'loses'} without the "
                    f"pie rule; with it the mover swaps the {s['placer_wins']} placer-won "
                    f"openings; best pie openings {best}")
            else:
                lo, hi = s["pie_value_ci"]
                alo, ahi = s["first_player_advantage_ci"]
                agree = s.get("agreement_with_exact")
                lines.append(
                    f"size {s['size']:>2} agent: placer wins {s['placer_wins']:>3}/"
                    f"{s['openings_total']:<3} pie value {100 * s['pie_value']:.1f}% "
                    f"[{100 * lo:.1f}, {100 * hi:.1f}] at {best}; first-player advantage "
                    f"{100 * s['first_player_advantage']:+.1f} pp [{100 * alo:+.1f}, "
                    f"{100 * ahi:+.1f}]"
                    + ("" if agree is None else f"; agrees with exact on {100 * agree:.0f}%"))
        return "\n".join(lines) + f"\n{self.seconds:.1f} s. Wrote " + \
            ", ".join(str(f) for f in self.files)


def balance_trike(sizes: list[int], exact: bool = False, agent: str | None = None,
                  games: int = 20, seed: int = 0, jobs: int = 1, dask: str | None = None,
                  out_dir: str | Path | None = None, progress: Callable | None = None,
                  command: str | None = None) -> BalanceOutcome:
    """Pie-rule balance by board size (see the module docstring):
    from the exact opening tables (``exact``) or from agent games."""
    if exact == (agent is not None):
        raise StudyError("choose --exact or --agent SPEC", "--exact")
    if not sizes:
        raise StudyError("give at least one size", "--sizes")
    folder = output_path(Path(out_dir) if out_dir else RESULTS / "balance", "--out-dir",
                         folder=True)
    tables = {}
    for size in sizes:
        path = RESULTS / "trike" / f"size-{size}.csv"
        table = pd.read_csv(path) if path.exists() else None
        complete = (table is not None and len(table) == trike.n_points(size)
                    and table.winner.notna().all())
        if exact:
            if not trike.MIN_SIZE <= size <= trike.MAX_SIZE or not complete:
                raise StudyError(f"size {size} has no complete exact table at {path}",
                                 "--sizes")
            tables[size] = table
        else:
            try:
                trike_agents.check_size(size)
            except ValueError as e:
                raise StudyError(str(e), "--sizes") from None
            tables[size] = table if complete else None
    if games < 1:
        raise StudyError("games must be at least 1", "--games")
    command = command or artifacts.command_line()
    t0 = time.perf_counter()
    if exact:
        rows = pd.concat([exact_rows(n, tables[n]) for n in sizes], ignore_index=True)
        name = "trike-exact"
        extra = {"method": "exact", "sources": [f"results/trike/size-{n}.csv" for n in sizes]}
        executor_text = "in process"
    else:
        try:
            spec = trike_agents.parse_agent(agent).spec
        except ValueError as e:
            raise StudyError(str(e), "--agent") from None
        if spec.seconds is not None:
            raise StudyError("a balance study needs a fixed simulation count (mcts:N) so that "
                             "the same seed gives the same table", "--agent")
        executor = make_executor(jobs, dask,
                                 work=sum(len(trike.opening_classes(n)) for n in sizes))
        executor_text = executor.describe()
        name = f"trike-{agent.replace(':', '-')}"
        rows_path = folder / f"{name}.rows.csv"
        report = None if progress is None else (
            lambda k, total: progress(f"opening classes: {k}/{total}"))
        try:
            check_resume(rows_path.with_suffix(".json"), {"seed": seed, "games": games})
            class_rows = agent_class_rows(sizes, agent, seed, games, executor, rows_path,
                                          progress=report)
        finally:
            executor.close()
        rows = pd.concat([agent_rows(n, class_rows, tables[n]) for n in sizes],
                         ignore_index=True)
        extra = {"method": "agent", "agent": agent, "games_per_class": games,
                 "rows": str(rows_path)}
    summaries = [summarise(rows[rows["size"] == n].reset_index(drop=True))
                 for n in sizes]
    seconds = time.perf_counter() - t0
    csv = folder / f"{name}.csv"
    summary_path = folder / f"{name}.summary.json"
    all_summaries = []  # every study's sizes (this one's as just computed), by file name
    for path in sorted({*folder.glob("trike-*.summary.json"), summary_path}):
        all_summaries += (summaries if path == summary_path
                          else json.loads(path.read_text())["sizes"])
    by_size = folder / "trike-by-size.png"
    with artifacts.OutputSet() as out:  # the study's four files and the figure, or none
        out.csv(csv, rows)
        out.json(summary_path, {"sizes": summaries})
        out.figure(folder / f"{name}.png", plot_maps(
            rows, summaries, f"Trike openings, {'perfect play' if exact else agent}"))
        out.json(folder / f"{name}.meta.json", artifacts.base_metadata(
            command=command, regenerate=command, seed=seed, sizes=sizes,
            executor=executor_text, seconds_this_run=round(seconds, 3), **extra))
        out.figure(by_size, plot_by_size(
            all_summaries, "Trike: first-player advantage and pie value by board size"))
    files = [csv, folder / f"{name}.summary.json", folder / f"{name}.png",
             folder / f"{name}.meta.json", by_size]
    return BalanceOutcome(summaries, rows, files, seconds)
