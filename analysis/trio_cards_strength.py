"""One policy in one seat against another everywhere else, in every seat position.

Reads the per-seat tables ``trilab simulate`` wrote for the runs
``<prefix>-seat<k>.csv`` (the tested policy in seat ``k``, ``k = 0 .. n-1``) and
writes ``<prefix>.csv``: one row per seat position (the tested seat's win rate
and 95% Wilson interval) and a row ``mean`` (the average over the positions, so
the seat effect cancels, with a normal interval from the independent runs), and
``<prefix>.meta.json`` beside it (the command and the tables it read).

    python -m trilab.analysis.trio_cards_strength results/trio-cards/strength/p3-simple-deduce
"""

from __future__ import annotations

import csv
import math
import sys
from pathlib import Path

import pandas as pd
from trilab.analysis import artifacts


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


if __name__ == "__main__":
    for prefix in sys.argv[1:]:
        for r in summarize(prefix):
            print(r)
