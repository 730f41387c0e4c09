"""First-seat advantage of every game in one figure (a panel per game).

Each point is the first seat's win rate minus its fair share, in percentage
points, with its 95% interval, read from what the studies wrote:

* Trike, by board size: exact points from ``results/balance/trike-exact.summary.json``
  (+50 pp: the first player wins under perfect play without the pie rule),
  agent points from ``results/balance/trike-*.summary.json`` (the best
  opening's placer win rate minus 50%);
* Tabula Trivium, by policy pair, and the Trio card game, by configuration:
  ``results/<game>/*.meta.json`` of ``trilab simulate`` and those of its
  subfolders (the card game's ``deduce/`` and ``infer/`` seat studies and the
  ``strength/`` controls; via :func:`trilab.analysis.simulation.collect`); the
  card game's rows are grouped by configuration in shaded bands, weakest policy
  first, so every table between strong players stands beside the ``memory`` one;
* Trio, the board game, by Fortress reading and policy
  (``results/trio-board/``, study names ``FORTRESS-POLICY``).

Only studies between **equal players** (the same policy in every seat) are seat
effects; a pairing of unequal players (greedy against random, +50 points)
measures a skill gap, not the seat.  Those go to their own table
(:func:`unequal_pairings`, ``unequal-pairings.csv`` beside the figure), never
on the figure's axis.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from trilab.analysis.simulation import collect

PANELS = ("trike", "tabula-trivium", "trio-cards", "trio-board")
TITLES = {"trike": "Trike (no pie rule), by board side",
          "tabula-trivium": "Tabula Trivium, by policies (seat 0 vs seat 1)",
          "trio-cards": "Trio card game, by configuration and policy (games; sNNNN: a "
                        "control run)",
          "trio-board": "Trio board game, by Fortress option"}


def trike_points(results: Path) -> pd.DataFrame:
    rows = []
    for path in sorted((results / "balance").glob("trike-*.summary.json")):
        for s in json.loads(path.read_text())["sizes"]:
            lo, hi = s["first_player_advantage_ci"]
            label = f"{s['size']} ({s['method']}" + \
                ("" if s["method"] == "exact" else f", {path.stem.split('.')[0][6:]}") + ")"
            rows.append({"game": "trike", "label": label, "order": s["size"],
                         "advantage": s["first_player_advantage"], "ci_low": lo, "ci_high": hi,
                         "method": s["method"]})
    return pd.DataFrame(rows)


def _studies(folder: Path) -> pd.DataFrame:
    """:func:`collect` of a game's folder and of its subfolders (e.g. the card
    game's ``deduce/`` and ``strength/``), the latter named ``SUB/STUDY``."""
    parts = [collect(folder)]
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        t = collect(sub)
        if not t.empty:
            t["study"] = sub.name + "/" + t["study"]
            parts.append(t)
    parts = [t for t in parts if not t.empty]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()


def _equal_players(policies: str) -> bool:
    """Whether every seat of a study plays the same policy."""
    return len(set(policies.split(","))) == 1


# Card-game rows, within a configuration: the weakest policy first, so the strong
# players' tables stand beside the memory one; a paired run's all-deduce control
# (results/trio-cards/strength/) right after the deduce table it repeats.
CARD_POLICY_RANK = {"random": 0, "memory": 1, "deduce": 2}


def card_table_name(players: int, mode: str, teams: bool) -> str:
    """A card-game configuration in a few characters: ``"4p simple teams"``."""
    return f"{players}p {mode}" + (" teams" if teams else "")


def _card_row(r) -> tuple[int, str, str]:
    """``(order, label, group)`` of a card-game study: grouped by configuration
    (players, mode, teams), then by the policy's strength."""
    group = card_table_name(r.players, r.mode, r.teams)
    policy = r.policies.split(",")[0]
    control = r.study.startswith("strength/")
    rank = CARD_POLICY_RANK.get(policy.split(":")[0], len(CARD_POLICY_RANK))
    order = ((r.players * 2 + (r.mode == "spicy")) * 2 + bool(r.teams)) * 100 + rank * 10 + control
    label = f"{group}: {policy}" + (f" s{r.seed}" if control else "") + f" ({r.games:,})"
    return order, label, group


def simulated_points(results: Path, game: str) -> pd.DataFrame:
    """The first-seat advantage of each study of ``game`` between equal players
    (the card game's rows grouped by configuration, see :func:`_card_row`)."""
    folder = results / game
    if not folder.exists():
        return pd.DataFrame()
    t = _studies(folder)
    if t.empty:
        return t
    rows = []
    for r in t.itertuples():
        if not _equal_players(r.policies):
            continue
        order, label, group = _card_row(r) if game == "trio-cards" else (0, r.study, "")
        rows.append({"game": game, "label": label, "order": order, "group": group,
                     "study": r.study, "advantage": r.first_seat_advantage,
                     "ci_low": r.ci_low, "ci_high": r.ci_high, "method": "simulation"})
    return pd.DataFrame(rows)


def unequal_pairings(results: str | Path) -> pd.DataFrame:
    """Every study of unequal players (the strength table beside the figure): game,
    study, policies by seat, each seat's win rate, the first seat's advantage."""
    results = Path(results)
    rows = []
    for game in PANELS[1:]:
        folder = results / game
        t = _studies(folder) if folder.exists() else pd.DataFrame()
        for r in t.itertuples():
            if not _equal_players(r.policies):
                rows.append({"game": game, "study": r.study, "policies": r.policies,
                             "games": r.games, "seat_win_rates": r.seat_win_rates,
                             "first_seat_advantage": r.first_seat_advantage,
                             "ci_low": r.ci_low, "ci_high": r.ci_high})
    return pd.DataFrame(rows, columns=["game", "study", "policies", "games", "seat_win_rates",
                                       "first_seat_advantage", "ci_low", "ci_high"])


def all_points(results: str | Path) -> pd.DataFrame:
    """Every game's points between equal players (columns game, label, advantage,
    ci_low, ci_high)."""
    results = Path(results)
    parts = [trike_points(results)] + [simulated_points(results, g) for g in PANELS[1:]]
    parts = [p for p in parts if not p.empty]
    if not parts:
        return pd.DataFrame(columns=["game", "label", "order", "group", "study", "advantage",
                                     "ci_low", "ci_high", "method"])
    return pd.concat(parts, ignore_index=True)


def plot_all_games(points: pd.DataFrame):
    """One panel per game with data, points and 95% intervals in pp."""
    from trilab.analysis.plots import MOVER_COLOUR, PLACER_COLOUR, plt

    games = [g for g in PANELS if (points.game == g).any()]
    heights = [max(2.0, 0.28 * int((points.game == g).sum()) + 1.0) for g in games]
    fig, axes = plt.subplots(len(games), 1, figsize=(8.5, sum(heights)),
                             gridspec_kw={"height_ratios": heights}, squeeze=False)
    for ax, game in zip(axes[:, 0], games, strict=True):
        part = points[points.game == game].sort_values(["order", "label"]).reset_index(drop=True)
        y = np.arange(len(part))
        x = 100 * part.advantage.to_numpy()
        err = np.vstack([x - 100 * part.ci_low.to_numpy(), 100 * part.ci_high.to_numpy() - x])
        colours = [PLACER_COLOUR if v > 0 else MOVER_COLOUR for v in x]
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor="black", capsize=3, zorder=2)
        ax.scatter(x, y, color=colours, zorder=3,
                   marker="s" if game == "trike" else "o")
        ax.axvline(0, color="grey", lw=1)
        if "group" in part and part.group.fillna("").ne("").any():
            # alternate bands, one a configuration, so its policies read together
            starts = np.flatnonzero(part.group.ne(part.group.shift()).to_numpy())
            ends = list(starts[1:]) + [len(part)]
            for k, (a, b) in enumerate(zip(starts, ends, strict=True)):
                if k % 2 == 0:
                    ax.axhspan(a - 0.5, b - 0.5, color="0.93", zorder=0)
        ax.set_yticks(y, part.label, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(TITLES[game], fontsize=10, loc="left")
    fig.supxlabel("first-seat advantage: seat 0's win rate minus its fair share "
                  "(percentage points, 95% CI)", fontsize=10)
    fig.suptitle("First-seat advantage in every game, between equal players", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.985))  # leave the suptitle its own line
    return fig
