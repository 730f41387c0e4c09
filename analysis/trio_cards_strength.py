"""One policy in one seat against another everywhere else, in every seat position.

Reads the per-seat tables ``trilab simulate`` wrote for the runs
``<prefix>-seat<k>.csv`` (the tested policy in seat ``k``, ``k = 0 .. n-1``) and
writes ``<prefix>.csv``: one row per seat position (the tested seat's win rate
and 95% Wilson interval) and a row ``mean`` (the average over the positions, so
the seat effect cancels, with a normal interval from the independent runs), and
``<prefix>.meta.json`` beside it (the command and the tables it read).

:func:`seat_comparison` puts the seat studies with ``memory`` in every seat beside
those with ``deduce`` in every seat, one row per table (players, mode, teams).

    python -m trilab.analysis.trio_cards_strength results/trio-cards/strength/p3-simple-deduce
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import pandas as pd
from trilab.analysis import artifacts
from trilab.analysis.simulation import collect


def summarize(prefix: str) -> list[dict]:
    rows = []
    k = 0
    while (path := Path(f"{prefix}-seat{k}.csv")).exists():
        with path.open() as f:
            seat = next(r for r in csv.DictReader(f) if int(r["seat"]) == k)
        rows.append({"position": k, "policy": seat["policy"], "games": int(seat["games"]),
                     "wins": int(seat["wins"]), "win_rate": float(seat["win_rate"]),
                     "ci_low": float(seat["ci_low"]), "ci_high": float(seat["ci_high"])})
        k += 1
    if not rows:
        raise SystemExit(f"no {prefix}-seat0.csv")
    mean = sum(r["win_rate"] for r in rows) / len(rows)
    se = math.sqrt(sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in rows)) / len(rows)
    rows.append({"position": "mean", "policy": rows[0]["policy"],
                 "games": sum(r["games"] for r in rows), "wins": sum(r["wins"] for r in rows),
                 "win_rate": mean, "ci_low": mean - 1.96 * se, "ci_high": mean + 1.96 * se})
    sources = [f"{prefix}-seat{r['position']}.csv" for r in rows[:-1]]
    with artifacts.OutputSet() as out:  # the table and its metadata, or neither
        out.csv(f"{prefix}.csv", pd.DataFrame(rows))
        out.json(f"{prefix}.meta.json", artifacts.base_metadata(
            sources=sources, regenerate=f"python -m trilab.analysis.trio_cards_strength {prefix}"))
    return rows


def _equal(table: pd.DataFrame, policy: str) -> pd.DataFrame:
    """The studies of ``table`` with ``policy`` in every seat."""
    if table.empty:
        return table
    keep = table.policies.map(lambda p: set(p.split(",")) == {policy})
    return table[keep].drop_duplicates(["players", "mode", "teams"], keep="last")


def seat_comparison(results: str | Path) -> pd.DataFrame:
    """Per table (players, mode, teams): the first seat's advantage (its win rate minus
    its fair share, 95% interval) with ``memory`` in every seat and with ``deduce`` in
    every seat, the games of each and deduce's turn-cap share."""
    folder = Path(results) / "trio-cards"
    memory = _equal(collect(folder), "memory") if folder.exists() else pd.DataFrame()
    deduce = _equal(collect(folder / "deduce"), "deduce") if (folder / "deduce").exists() \
        else pd.DataFrame()
    cols = ["players", "mode", "teams", "memory_games", "memory_advantage", "memory_low",
            "memory_high", "deduce_games", "deduce_advantage", "deduce_low", "deduce_high",
            "deduce_unfinished"]
    if memory.empty or deduce.empty:
        return pd.DataFrame(columns=cols)
    keys = ["players", "mode", "teams"]
    m = memory[keys + ["games", "first_seat_advantage", "ci_low", "ci_high"]].rename(
        columns={"games": "memory_games", "first_seat_advantage": "memory_advantage",
                 "ci_low": "memory_low", "ci_high": "memory_high"})
    d = deduce.assign(deduce_unfinished=deduce.unfinished / deduce.games)[
        keys + ["games", "first_seat_advantage", "ci_low", "ci_high", "deduce_unfinished"]]
    d = d.rename(columns={"games": "deduce_games", "first_seat_advantage": "deduce_advantage",
                          "ci_low": "deduce_low", "ci_high": "deduce_high"})
    return m.merge(d, on=keys).sort_values(keys).reset_index(drop=True)[cols]


if __name__ == "__main__":
    for prefix in sys.argv[1:]:
        for r in summarize(prefix):
            print(r)
