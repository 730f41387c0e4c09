"""Matplotlib figures (Agg backend: no screen needed)."""

from __future__ import annotations

import math

import matplotlib
import pandas as pd

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

PLACER_COLOUR = "#d1495b"
MOVER_COLOUR = "#00798c"
UNSOLVED_COLOUR = "#9e9e9e"


def trike_opening_map(table, size: int, title: str | None = None):
    """The triangular board, each point coloured by who wins that opening and
    labelled with its remoteness (plies to the end under perfect play); points
    missing from ``table`` (a partial run) are grey with a question mark."""
    fig, ax = plt.subplots(figsize=(1.1 * size + 2.5, 0.95 * size + 1.8))
    h = math.sqrt(3) / 2
    solved = {(r.row, r.col): r for r in table.itertuples()}
    for r in range(size):
        for c in range(r + 1):
            x, y = c - r / 2, -r * h
            row = solved.get((r, c))
            if row is None:  # not solved yet
                colour, label = UNSOLVED_COLOUR, "?"
            else:
                colour = PLACER_COLOUR if row.winner == "placer" else MOVER_COLOUR
                label = "" if pd.isna(row.remoteness) else f"{row.remoteness}"
            ax.scatter([x], [y], s=900 * min(1.0, 6 / size) ** 1.2, color=colour,
                       edgecolors="black", linewidths=0.8, zorder=3)
            ax.text(x, y, label, ha="center", va="center", color="white",
                    fontsize=10 if size <= 8 else 8, fontweight="bold", zorder=4)
    # lattice lines
    for r in range(size):
        for c in range(r + 1):
            x, y = c - r / 2, -r * h
            for dr, dc in ((0, 1), (1, 0), (1, 1)):
                rr, cc = r + dr, c + dc
                if 0 <= cc <= rr < size:
                    ax.plot([x, cc - rr / 2], [y, -rr * h], color="#bbbbbb", lw=1, zorder=1)
    legend = [
        Line2D([0], [0], marker="o", color="w", markerfacecolor=PLACER_COLOUR,
               markeredgecolor="black", markersize=12, label="placer (first player) wins"),
        Line2D([0], [0], marker="o", color="w", markerfacecolor=MOVER_COLOUR,
               markeredgecolor="black", markersize=12, label="mover (second player) wins"),
    ]
    if len(solved) < size * (size + 1) // 2:
        legend.append(Line2D([0], [0], marker="o", color="w", markerfacecolor=UNSOLVED_COLOUR,
                             markeredgecolor="black", markersize=12, label="not solved yet"))
    ax.legend(handles=legend, loc="upper right", frameon=False, fontsize=9)
    labelled = len(table) and table.remoteness.notna().any()
    what = "label = remoteness" if labelled else "win/loss only"
    ax.set_title(title or f"Trike size {size}: who wins each opening ({what})")
    ax.set_aspect("equal")
    ax.axis("off")
    ax.margins(0.15)
    return fig
