"""Monte Carlo studies: per-seat win rates with confidence intervals, game
lengths, end reasons and the first-seat advantage.

Definitions used in every report:

* ``win_rate`` of a seat: games it won (alone or with its team) / games;
  95% Wilson interval from :func:`scipy.stats.binomtest`.
* ``unfinished``: games stopped by a turn or ply cap (an end reason whose
  name contains "cap"); ``draws``: other games without a winner
  (e.g. threefold repetition).
* ``fair share``: the share of games with a winner divided by the number of
  sides (seats, or teams in team play); the first-seat advantage is seat 0's
  rate minus its fair share, with seat 0's interval shifted the same way.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from trilab.analysis.montecarlo import SimulationResult
from trilab.solver.game_api import GameConfig, GameSpec

CONFIDENCE = 0.95


def wilson(k: int, n: int) -> tuple[float, float]:
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=CONFIDENCE, method="wilson")
    return float(ci.low), float(ci.high)


def per_game_frame(spec: GameSpec, config: GameConfig, res: SimulationResult) -> pd.DataFrame:
    """One row per game: index, winners bitmask, per-seat win flags, length, end reason."""
    df = pd.DataFrame({
        "game": np.arange(len(res.winners), dtype=np.int64),
        "winners": res.winners,
        "length": res.length,
        "end_reason": pd.Categorical.from_codes(res.reason, categories=list(spec.end_reasons)),
    })
    for s in range(config.n_seats):
        df[f"seat{s}_win"] = (res.winners >> s) & 1 == 1
    return df


def seat_table(config: GameConfig, res: SimulationResult) -> pd.DataFrame:
    n = len(res.winners)
    rows = []
    for s in range(config.n_seats):
        wins = int(((res.winners >> s) & 1).sum())
        lo, hi = wilson(wins, n)
        rows.append({"seat": s, "policy": config.seat_policies[s], "games": n, "wins": wins,
                     "win_rate": wins / n, "ci_low": lo, "ci_high": hi})
    return pd.DataFrame(rows)


def summarise(spec: GameSpec, config: GameConfig, res: SimulationResult, seed: int) -> dict:
    """The study as a JSON-ready dict (the CLI's ``--json`` object)."""
    n = len(res.winners)
    table = seat_table(config, res)
    names = np.array(spec.end_reasons)
    no_winner = res.winners == 0
    capped = np.array(["cap" in r for r in spec.end_reasons])[res.reason]
    unfinished = int((no_winner & capped).sum())
    draws = int((no_winner & ~capped).sum())
    sides = len(config.teams) if config.teams else config.n_seats
    fair = (n - draws - unfinished) / n / sides
    seat0 = table.iloc[0]
    q1, med, q3 = np.percentile(res.length, [25, 50, 75])
    reasons = pd.Series(names[res.reason]).value_counts()
    return {
        "game": spec.name,
        "games": n,
        "seed": seed,
        "options": config.options,
        "seats": [
            {"seat": int(r.seat), "policy": r.policy, "wins": int(r.wins),
             "win_rate": float(r.win_rate), "ci_low": float(r.ci_low), "ci_high": float(r.ci_high)}
            for r in table.itertuples()
        ],
        "draws": draws,
        "unfinished": unfinished,
        "mean_length": float(res.length.mean()),
        "length_quartiles": [float(q1), float(med), float(q3)],
        "end_reasons": {k: int(v) for k, v in reasons.items()},
        "fair_share": fair,
        "first_seat_advantage": float(seat0.win_rate - fair),
        "first_seat_advantage_ci": [float(seat0.ci_low - fair), float(seat0.ci_high - fair)],
        "teams": [list(t) for t in config.teams] if config.teams else None,
        "seconds": round(res.seconds, 3),
        "games_per_second": round(n / max(res.seconds, 1e-9)),
    }


def format_report(summary: dict) -> str:
    lines = [f"{summary['game']}: {summary['games']:,} games, seed {summary['seed']}, "
             f"{summary['seconds']:.2f} s ({summary['games_per_second']:,} games/s)"]
    lines.append(f"{'seat':>4} {'policy':<16} {'wins':>10} {'win rate':>9}  95% CI")
    for s in summary["seats"]:
        lines.append(f"{s['seat']:>4} {s['policy']:<16} {s['wins']:>10,} {s['win_rate']:>9.4f}  "
                     f"[{s['ci_low']:.4f}, {s['ci_high']:.4f}]")
    if summary["teams"]:
        lines.append("teams (partners win together): "
                     + ", ".join("+".join(map(str, t)) for t in summary["teams"]))
    q1, med, q3 = summary["length_quartiles"]
    lines.append(f"draws {summary['draws']:,}, unfinished (cap) {summary['unfinished']:,}; "
                 f"length mean {summary['mean_length']:.1f}, quartiles {q1:g} / {med:g} / {q3:g}")
    lo, hi = summary["first_seat_advantage_ci"]
    lines.append(f"first-seat advantage: {summary['first_seat_advantage']:+.4f} "
                 f"(seat 0 minus fair share {summary['fair_share']:.4f}; 95% CI "
                 f"[{lo:+.4f}, {hi:+.4f}])")
    lines.append("end reasons: " + ", ".join(f"{k} {v:,}" for k, v in
                                             summary["end_reasons"].items()))
    return "\n".join(lines)


def plot_win_rates(summary: dict, title: str):
    """Bar chart of win rate by seat with 95% CI bars and the fair share."""

    from trilab.analysis.plots import plt  # the Agg backend

    seats = summary["seats"]
    fig, ax = plt.subplots(figsize=(1.2 * len(seats) + 3, 3.6))
    x = np.arange(len(seats))
    rate = np.array([s["win_rate"] for s in seats])
    err = np.array([[s["win_rate"] - s["ci_low"] for s in seats],
                    [s["ci_high"] - s["win_rate"] for s in seats]])
    ax.bar(x, rate, yerr=err, capsize=6, color="#00798c", edgecolor="black")
    ax.axhline(summary["fair_share"], color="#d1495b", ls="--", label="fair share")
    ax.set_xticks(x, [f"seat {s['seat']}\n{s['policy']}" for s in seats])
    ax.set_ylabel("win rate (95% CI)")
    ax.set_title(title, fontsize=10)
    ax.legend(frameon=False)
    return fig


def collect(folder) -> pd.DataFrame:
    """One row per study in a results folder, from the ``.meta.json`` files
    that ``trilab simulate`` wrote (the overview behind ``trilab report``)."""
    import json
    from pathlib import Path

    rows = []
    for meta_path in sorted(Path(folder).glob("*.meta.json")):
        if meta_path.name.startswith("summary"):
            continue
        m = json.loads(meta_path.read_text())
        if "seats" not in m:
            continue
        o = m.get("options", {})
        lo, hi = m["first_seat_advantage_ci"]
        rows.append({
            "study": meta_path.name.removesuffix(".meta.json"),
            "players": o.get("players", len(m["seats"])),
            "mode": o.get("mode", ""),
            "teams": bool(o.get("teams", False)),
            "policies": ",".join(s["policy"] for s in m["seats"]),
            "games": m["games"], "seed": m["seed"],
            "seat_win_rates": " / ".join(f"{s['win_rate']:.4f}" for s in m["seats"]),
            "fair_share": m["fair_share"],
            "first_seat_advantage": m["first_seat_advantage"],
            "ci_low": lo, "ci_high": hi,
            "draws": m["draws"], "unfinished": m["unfinished"],
            "mean_length": m["mean_length"],
        })
    return pd.DataFrame(rows)


def plot_first_seat_advantage(table: pd.DataFrame, title: str):
    """Every study's first-seat advantage with its 95% CI, one row per study."""
    from trilab.analysis.plots import plt  # the Agg backend

    t = table.sort_values(["policies", "teams", "players", "mode"]).reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(t) + 1.5))
    y = np.arange(len(t))
    x = t.first_seat_advantage * 100
    err = np.array([x - t.ci_low * 100, t.ci_high * 100 - x])
    colours = ["#d1495b" if v < 0 else "#00798c" for v in x]
    ax.errorbar(x, y, xerr=err, fmt="none", ecolor="black", capsize=3, zorder=2)
    ax.scatter(x, y, color=colours, zorder=3)
    ax.axvline(0, color="grey", lw=1)
    ax.set_yticks(y, t.study)
    ax.invert_yaxis()
    ax.set_xlabel("first-seat advantage, percentage points (seat 0 win rate - fair share), 95% CI")
    ax.set_title(title, fontsize=10)
    return fig
