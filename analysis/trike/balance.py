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
* **agent** (any size 2..19): for each opening class, games of the agent
  against itself from the class's first point, the mover playing on (no
  swap); game ``g`` of class ``k`` of size ``n`` draws from the stream
  ``(seed, n << 32 | k << 16 | g)``.  The placer's win rate ``p`` gets a 95%
  Wilson interval; the mover swaps where ``p > 1/2``.

  *Sequential sampling*: a class plays batches of ``G`` games (``--games``)
  until its interval leaves 50% or it has ``M`` games (``--max-games``; ``M =
  G``: one batch, a fixed sample).  So that looking after every batch does not
  inflate the error rate, the stopping test and the *verdict* (``swap``: the
  placer wins, ``do not swap``, ``too close to call``, as on Hex players' swap
  maps) use the Wilson interval at level ``1 - 0.05 / L`` for ``L = ceil(M /
  G)`` looks (Bonferroni: at most a 5% chance that a class's verdict is wrong
  by chance); the tables also give the plain 95% interval.  ``M`` may differ by
  size (``--max-games 9-13:100,14-19:50``): a bigger board costs more a game
  and needs a looser interval, and each size then has its own ``L``.

  The **pie value** is the best opening's ``min(p, 1 - p)`` (how close to an
  even game the first player can get under the pie rule; 0.5 is a perfectly
  balanced opening), and the **first-player advantage without the pie rule**
  the best opening's ``p - 1/2``.  Taking the best of many noisy estimates
  would lean upwards (the winner's curse), so the best opening is *chosen* on
  the even-numbered games of each class and its value *estimated* on the
  odd-numbered ones, which played no part in the choice; the interval is that
  estimate's.

Rows are saved per batch to ``balance-AGENT.rows.csv`` as games finish, so an
interrupted study resumes (and a rerun with a larger ``--max-games`` goes on
from the games played); the same seed gives the same table on any executor.
:func:`balance_trike` is the command ``trilab balance trike``.
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
from trilab.analysis.stats import CONFIDENCE, wilson
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
                games: int, first_game: int = 0) -> dict:
    """One task: games ``first_game .. first_game + games - 1`` of the agent against
    itself from one opening, no swap."""
    agent = trike_agents.parse_agent(agent_text)
    placer_wins = placer_wins_even = games_even = 0
    plies = 0
    for g in range(first_game, first_game + games):
        placer_won, n = agent.self_play(
            size, (point,), game_stream(np.uint64(seed), np.uint64(size << 32 | klass << 16 | g)))
        plies += n
        won = int(placer_won)
        placer_wins += won
        if g % 2 == 0:
            placer_wins_even += won
            games_even += 1
    return {"size": size, "class": klass, "point": point, "first_game": first_game,
            "games": games, "placer_wins": placer_wins, "games_even": games_even,
            "placer_wins_even": placer_wins_even, "mean_plies": plies / games}


MAX_GAMES_PER_CLASS = 1 << 16
"""Game indices of a class fit in 16 bits of its stream (``k << 16 | g``)."""


def looks(games: int, max_games: int) -> int:
    """How many times a class's interval is looked at: batches of ``games`` up to
    ``max_games``."""
    return max(1, math.ceil(max_games / games))


def caps_by_size(sizes: list[int], games: int,
                 max_games: int | dict[int, int] | None) -> dict[int, int]:
    """Each size's game cap ``M``: one number for every size, or a number per size
    (a size it does not name plays one batch); a cap below the batch or above
    :data:`MAX_GAMES_PER_CLASS` is a :class:`StudyError`."""
    caps = {n: (max_games.get(n, games) if isinstance(max_games, dict)
                else games if max_games is None else max_games) for n in sizes}
    for n, cap in caps.items():
        if not games <= cap <= MAX_GAMES_PER_CLASS:
            raise StudyError(f"--max-games must be from --games ({games}) to "
                             f"{MAX_GAMES_PER_CLASS} (size {n}: {cap})", "--max-games")
    return caps


def sequential_interval(wins: int, n: int, n_looks: int) -> tuple[float, float]:
    """The Wilson interval at level ``1 - 0.05 / n_looks`` (module docstring)."""
    return wilson(wins, n, 1 - (1 - CONFIDENCE) / n_looks)


def class_totals(rows: pd.DataFrame) -> pd.DataFrame:
    """Per (size, class): the sums over its batches."""
    cols = ["games", "placer_wins", "games_even", "placer_wins_even"]
    plies = (rows.mean_plies * rows.games).groupby([rows["size"], rows["class"]]).sum()
    out = rows.groupby(["size", "class"])[cols].sum()
    out["point"] = rows.groupby(["size", "class"]).point.first()
    out["mean_plies"] = plies / out.games
    return out


def agent_class_rows(sizes: list[int], agent_text: str, seed: int, games: int, executor,
                     rows_path: Path, progress: Callable[[str], None] | None = None,
                     max_games: int | dict[int, int] | None = None) -> pd.DataFrame:
    """Every class's batches (sequential sampling, module docstring), resumed from
    ``rows_path``: rounds of one batch per open class, cheapest sizes first, until
    every class is decided or has its size's cap of games (:func:`caps_by_size`)."""
    caps = caps_by_size(sizes, games, max_games)
    classes = [(n, k, cls[0]) for n in sorted(sizes) for k, cls in enumerate(opening_classes(n))]
    while True:
        have = pd.read_csv(rows_path) if rows_path.exists() else pd.DataFrame()
        totals = class_totals(have) if len(have) else None
        tasks = []
        decided = 0
        for n, k, point in classes:
            played = wins = 0
            if totals is not None and (n, k) in totals.index:
                played, wins = int(totals.loc[(n, k), "games"]), int(totals.loc[(n, k),
                                                                               "placer_wins"])
            lo, hi = (sequential_interval(wins, played, looks(games, caps[n])) if played
                      else (0.0, 1.0))
            if played >= caps[n] or lo > 0.5 or hi < 0.5:
                decided += 1
                continue
            tasks.append((n, agent_text, seed, k, point, min(games, caps[n] - played), played))
        if progress is not None:
            progress(f"opening classes settled: {decided}/{len(classes)}"
                     + (f"; next round: {len(tasks)} batches" if tasks else ""))
        if not tasks:
            return have
        started = time.perf_counter()
        for done, (_args, row) in enumerate(executor.run(class_games, tasks), 1):
            artifacts.append_csv(rows_path, [row])
            if progress is not None:
                progress(batch_progress(done, len(tasks), row, time.perf_counter() - started))


def batch_progress(done: int, total: int, row: dict, seconds: float) -> str:
    """The progress line after ``done`` of a round's ``total`` batches (the last one
    finished is ``row``), with the round's elapsed time and a linear estimate of the
    rest."""
    left = seconds / done * (total - done)
    return (f"  batch {done}/{total}: size {row['size']} class {row['class']} "
            f"+{row['games']} games ({row['placer_wins']} placer wins); "
            f"{seconds / 60:.1f} min in this round, about {left / 60:.1f} min left")


def agent_rows(size: int, class_rows: pd.DataFrame, exact: pd.DataFrame | None,
               n_looks: int = 1) -> pd.DataFrame:
    """One row per opening point of one size from the class games (every point
    of a class shares its class's rate), with the verdict of the sequential test
    (``n_looks`` looks, :func:`sequential_interval`)."""
    totals = class_totals(class_rows)
    exact_winner = dict(zip(exact.point, exact.winner, strict=True)) if exact is not None else {}
    coords = trike.point_coords(size)
    rows = []
    for k, cls in enumerate(opening_classes(size)):
        if (size, k) not in totals.index:
            continue
        rec = totals.loc[(size, k)]
        n, wins = int(rec.games), int(rec.placer_wins)
        lo, hi = wilson(wins, n)
        slo, shi = sequential_interval(wins, n, n_looks)
        rate = wins / n
        for p in cls:
            rows.append({"size": size, "method": "agent", "point": p, "row": coords[p][0],
                         "col": coords[p][1], "class": k,
                         "winner": "placer" if rate > 0.5 else "mover" if rate < 0.5 else "even",
                         "games": n, "placer_wins": wins, "placer_win_rate": rate,
                         "ci_low": lo, "ci_high": hi, "verdict_ci_low": slo, "verdict_ci_high": shi,
                         "verdict": verdict("agent", slo, shi),
                         "swap": rate > 0.5, "exact_winner": exact_winner.get(p),
                         "games_even": int(rec.games_even),
                         "placer_wins_even": int(rec.placer_wins_even),
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
    # the winner's curse (module docstring): choose on the even games, estimate on the odd
    even_rate = rows.placer_wins_even / rows.games_even.clip(lower=1)
    odd_games = rows.games - rows.games_even
    odd_wins = rows.placer_wins - rows.placer_wins_even
    if (odd_games > 0).all():
        chooser, selection = even_rate, "chosen on the even games, estimated on the odd ones"
    else:  # one game a class: nothing to split
        chooser, selection = rows.placer_win_rate, "chosen and estimated on the same games"
        odd_games, odd_wins = rows.games, rows.placer_wins
    best = int(np.argmax(np.minimum(chooser, 1 - chooser).to_numpy()))
    b = rows.iloc[best]
    p = odd_wins.iloc[best] / odd_games.iloc[best]
    lo, hi = wilson(int(odd_wins.iloc[best]), int(odd_games.iloc[best]))
    pie_ci = [min(lo, 1 - hi), 0.5 if lo < 0.5 < hi else min(hi, 1 - lo)]
    top_i = int(np.argmax(chooser.to_numpy()))
    top = rows.iloc[top_i]
    tp = odd_wins.iloc[top_i] / odd_games.iloc[top_i]
    tlo, thi = wilson(int(odd_wins.iloc[top_i]), int(odd_games.iloc[top_i]))
    agree = rows.dropna(subset=["exact_winner"])
    out.update(pie_value=float(min(p, 1 - p)), pie_value_ci=[float(x) for x in pie_ci],
               best_pie_openings=[[int(b.row), int(b.col)]],
               first_player_advantage=float(tp - 0.5),
               first_player_advantage_ci=[float(tlo - 0.5), float(thi - 0.5)],
               first_player_best_opening=[int(top.row), int(top.col)],
               selection=selection,
               games_per_class=int(rows.games.min()), max_games_per_class=int(rows.games.max()),
               games_total=int(rows.drop_duplicates("class").games.sum()),
               verdicts={v: int(c) for v, c in rows.verdict.value_counts().items()},
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


VERDICT_COLOURS = {"swap": "#d6604d", "do not swap": "#4393c3", "too close to call": "#e0e0e0"}
"""Swap-map colours: red where the placer wins (the mover should swap), blue where
the mover wins, grey where the games cannot tell."""
LEAN_COLOURS = {"too close, the placer won more": "#f6d3cc",
                "too close, the mover won more": "#d3e4f1"}
"""Pale tints of *too close to call* by the side that won more of the games (the lean is
within the noise: a map of many leaning points shows a trend, one point shows nothing)."""


def map_colour(method: str, v: str, rate: float) -> str:
    """The swap-map colour of an opening of verdict ``v`` and placer win rate ``rate``:
    the verdict's (:data:`VERDICT_COLOURS`), a too close agent opening tinted by its
    lean (:data:`LEAN_COLOURS`), grey at exactly 50%."""
    if v != "too close to call" or method == "exact" or rate == 0.5:
        return VERDICT_COLOURS[v]
    placer, mover = LEAN_COLOURS.values()
    return placer if rate > 0.5 else mover


def opening_verdict(row) -> str:
    """The verdict of one opening row (a table row as a named tuple): an agent row's
    own (its sequential test), an exact row's from its interval."""
    if row.method == "agent":
        return row.verdict
    return verdict(row.method, float(row.ci_low), float(row.ci_high))


def to_json(summaries: list[dict], rows: pd.DataFrame) -> dict:
    """The ``--json`` document: ``{"sizes": [...]}`` with every opening and its verdict."""
    out = []
    for s in summaries:
        part = rows[(rows["size"] == s["size"]) & (rows.method == s["method"])]
        openings = [{"row": int(r.row), "col": int(r.col), "winner": r.winner,
                     "placer_win_rate": float(r.placer_win_rate), "ci_low": float(r.ci_low),
                     "ci_high": float(r.ci_high), "exact": r.method == "exact",
                     "verdict": opening_verdict(r)}
                    for r in part.itertuples()]
        out.append({**s, "openings": openings})
    return {"sizes": out}


def swap_map_sizes(folder: Path, csv: Path, rows: pd.DataFrame, summary_path: Path,
                   summaries: list[dict]) -> tuple[pd.DataFrame, list[dict]]:
    """Every size of every study in ``folder`` (this one's ``rows`` and ``summaries``
    not written yet), one study per size: the exact one where it exists, else the
    agent study whose file name sorts last; sizes in order."""
    studies: dict[str, tuple[pd.DataFrame, list[dict]]] = {}
    for path in sorted({*folder.glob("trike-*.summary.json"), summary_path}):
        table = path.with_name(path.name.replace(".summary.json", ".csv"))
        if path == summary_path:
            studies[path.name] = (rows, summaries)
        elif table.exists():
            studies[path.name] = (pd.read_csv(table), json.loads(path.read_text())["sizes"])
    chosen: dict[int, tuple[pd.DataFrame, dict]] = {}
    for _name, (table, summs) in sorted(studies.items()):
        for summ in summs:
            have = chosen.get(summ["size"])
            if have is None or have[1]["method"] != "exact":
                chosen[summ["size"]] = (table[table["size"] == summ["size"]], summ)
    sizes = sorted(chosen)
    return (pd.concat([chosen[n][0] for n in sizes], ignore_index=True),
            [chosen[n][1] for n in sizes])


# ---------------------------------------------------------------- plots


def plot_maps(rows: pd.DataFrame, summaries: list[dict], title: str):
    """A small board per size, each opening coloured by its verdict: red *swap*
    (the placer wins: exactly, or its interval lies above 50%), blue *do not swap*,
    grey *too close to call*, tinted pale red or pale blue by the side that won more
    of its games; a gold ring on the best pie openings."""
    from matplotlib.patches import Circle, Patch
    from trilab.analysis.plots import plt

    sizes = [s["size"] for s in summaries]
    ncol = min(4, len(sizes))
    nrow = math.ceil(len(sizes) / ncol)
    fig, axes = plt.subplots(nrow, ncol, figsize=(max(3.4 * ncol, 6.0), 3.3 * nrow + 0.6),
                             squeeze=False)
    h = math.sqrt(3) / 2
    for ax, summ in zip(axes.flat, summaries, strict=False):
        size = summ["size"]
        part = rows[(rows["size"] == size) & (rows.method == summ["method"])]
        colour = {(int(r.row), int(r.col)): map_colour(r.method, opening_verdict(r),
                                                       float(r.placer_win_rate))
                  for r in part.itertuples()}
        best = {tuple(x) for x in summ.get("best_pie_openings", [])}
        for r in range(size):
            for c in range(r + 1):
                x, y = c - r / 2, -r * h
                v = colour.get((r, c))
                gold = (r, c) in best
                ax.add_patch(Circle((x, y), 0.42, facecolor="white" if v is None else v,
                                    edgecolor="gold" if gold else "black",
                                    linewidth=2.2 if gold else 0.4, zorder=3 if gold else 2))
        label = ("exact" if summ["method"] == "exact"
                 else f"{summ.get('agent', 'agent')}, pie value {summ['pie_value']:.2f}")
        ax.set_title(f"size {size}: placer wins {summ['placer_wins']}/{summ['openings_total']}"
                     f"\n({label})", fontsize=9)
        ax.set_xlim(-(size - 1) / 2 - 0.8, (size - 1) / 2 + 0.8)
        ax.set_ylim(-(size - 1) * h - 0.8, 0.8)
        ax.set_aspect("equal")
        ax.axis("off")
    for ax in list(axes.flat)[len(summaries):]:
        ax.axis("off")
    fig.legend(handles=[Patch(facecolor=c, edgecolor="black", label=v)
                        for v, c in {**VERDICT_COLOURS, **LEAN_COLOURS}.items()],
               loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.suptitle(title + "\n(gold ring: the first player's best openings under the pie rule)",
                 fontsize=10)
    fig.subplots_adjust(top=1 - 0.9 / fig.get_figheight(), bottom=0.5 / fig.get_figheight())
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
                  command: str | None = None,
                  max_games: int | dict[int, int] | None = None) -> BalanceOutcome:
    """Pie-rule balance by board size (see the module docstring):
    from the exact opening tables (``exact``) or from agent games, in batches of
    ``games`` per class up to ``max_games`` (default ``games``: one batch; one
    number or a number per size)."""
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
    caps = caps_by_size(sizes, games, max_games)
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
                                 work=sum(len(opening_classes(n)) for n in sizes))
        executor_text = executor.describe()
        name = f"trike-{agent.replace(':', '-')}"
        rows_path = folder / f"{name}.rows.csv"
        try:
            check_resume(rows_path.with_suffix(".json"), {"seed": seed, "rows": "batches"})
            class_rows = agent_class_rows(sizes, agent, seed, games, executor, rows_path,
                                          progress=progress, max_games=caps)
        finally:
            executor.close()
        n_looks = {n: looks(games, caps[n]) for n in sizes}
        class_rows = class_rows[class_rows["size"].isin(sizes)]
        rows = pd.concat([agent_rows(n, class_rows, tables[n], n_looks[n]) for n in sizes],
                         ignore_index=True)

        def by_size(values: dict[int, float]) -> float | dict[str, float]:
            """One value when every size shares it (the tables before per-size caps)."""
            return (next(iter(values.values())) if len(set(values.values())) == 1
                    else {str(n): v for n, v in values.items()})

        extra = {"method": "agent", "agent": agent, "games_per_batch": games,
                 "max_games_per_class": by_size(caps), "looks": by_size(n_looks),
                 "verdict_confidence": by_size({n: 1 - (1 - CONFIDENCE) / k
                                                for n, k in n_looks.items()}),
                 "rows": str(rows_path)}
    summaries = [summarise(rows[rows["size"] == n].reset_index(drop=True))
                 for n in sizes]
    if not exact:
        for summ in summaries:
            summ["agent"] = agent
    seconds = time.perf_counter() - t0
    csv = folder / f"{name}.csv"
    summary_path = folder / f"{name}.summary.json"
    all_summaries = []  # every study's sizes (this one's as just computed), by file name
    for path in sorted({*folder.glob("trike-*.summary.json"), summary_path}):
        all_summaries += (summaries if path == summary_path
                          else json.loads(path.read_text())["sizes"])
    by_size = folder / "trike-by-size.png"
    swap_maps = folder / "trike-swap-maps.png"
    map_rows, map_summaries = swap_map_sizes(folder, csv, rows, summary_path, summaries)
    with artifacts.OutputSet() as out:  # the study's four files and the figures, or none
        out.csv(csv, rows)
        out.json(summary_path, {"sizes": summaries})
        out.figure(folder / f"{name}.png", plot_maps(
            rows, summaries, f"Trike openings, {'perfect play' if exact else agent}"))
        out.json(folder / f"{name}.meta.json", artifacts.base_metadata(
            command=command, regenerate=command, seed=seed, sizes=sizes,
            executor=executor_text, seconds_this_run=round(seconds, 3), **extra))
        out.figure(by_size, plot_by_size(
            all_summaries, "Trike: first-player advantage and pie value by board size"))
        out.figure(swap_maps, plot_maps(
            map_rows, map_summaries, "Trike swap maps: perfect play to size 8, "
            "agents beyond (see each size's title)"))
    files = [csv, folder / f"{name}.summary.json", folder / f"{name}.png",
             folder / f"{name}.meta.json", by_size, swap_maps]
    return BalanceOutcome(summaries, rows, files, seconds)
