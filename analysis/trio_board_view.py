"""`trilab board trio-board`: the Trio (1917) board printed, as JSON and drawn.

One function, :func:`board`, validates its inputs (raising
:class:`trilab.analysis.common.StudyError`), draws the board of a Fortress
reading with matplotlib into a PNG (written atomically) and returns an
outcome whose ``text()`` is what the command prints and whose ``to_json()``
is its ``--json`` object::

    {"cells": [{"id", "row_from": [a, b, c], "up", "neighbours", "zone",
                "piece", "owner"}, ...],
     "fortresses": [{"owner", "neighbours"}, ...]}

``neighbours`` of a cell are the cells sharing a side with it (ids
ascending); the cells a Fortress touches are listed under ``fortresses``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from trilab.analysis import artifacts
from trilab.analysis.common import RESULTS, StudyError, output_path
from trilab.solver.trio_board import board as tbb

GAME = "trio-board"
SEAT_COLOURS = ("#d1495b", "#00798c", "#edae49")
"""Seat 0, 1, 2 (the first two as in the other plots)."""
CENTRE_COLOUR = "#f4f4f4"
PIECE_LETTERS = {"general": "G", "officer": "O", "soldier": "S"}


@dataclass
class BoardOutcome:
    fortress: str
    data: dict
    files: list[Path] = field(default_factory=list)

    def to_json(self) -> dict:
        return self.data

    def text(self) -> str:
        return format_board(self.data, self.fortress) + "\nWrote " + ", ".join(
            str(f) for f in self.files)


def board_json(fortress: str) -> dict:
    """The board of a Fortress reading and its setup, in the command's JSON shape."""
    g = tbb.board_graph(fortress)
    setup = tbb.initial_pieces()
    cells = []
    for i in range(tbb.N_CELLS):
        a = g.nodes[i]
        piece = setup.get(i)
        cells.append({"id": i, "row_from": list(a["row_from"]), "up": bool(a["up"]),
                      "neighbours": tbb.cell_neighbours(g, i), "zone": a["zone"],
                      "piece": piece[1] if piece else None,
                      "owner": piece[0] if piece else None})
    forts = [{"owner": s, "neighbours": tbb.fortress_neighbours(fortress, s)}
             for s in range(tbb.N_SEATS)]
    return {"cells": cells, "fortresses": forts}


def _token(cell: dict) -> str:
    if cell["piece"] is None:
        return "^ " if cell["up"] else "v "
    return f"{PIECE_LETTERS[cell['piece']]}{cell['owner']}"


def format_board(data: dict, fortress: str) -> str:
    """A picture of the setup in text, then one line per cell and per Fortress."""
    g = tbb.board_graph(fortress)
    by_rc = {g.nodes[c["id"]]["rc"]: c for c in data["cells"]}
    touch = {n: f["owner"] for f in data["fortresses"] for n in f["neighbours"]}
    lines = [f"Trio board, Fortress reading {fortress!r}: {len(data['cells'])} cells "
             f"(^ up, v down), pieces G/O/S + seat; seats 0, 1, 2 own the "
             f"{', '.join(tbb.CORNER_NAMES)} corners"]
    width = 3
    for r in range(tbb.SIDE):
        row = [" "] * (width * (2 * tbb.SIDE + 1))
        for k in range(2 * r + 1):
            cell = by_rc.get((r, k))
            text = _token(cell) if cell else "  "
            pos = width * (k - r + tbb.SIDE - 1)
            row[pos:pos + 2] = text
        lines.append(f"row {r + 1} {''.join(row).rstrip()}")
    lines.append("")
    lines.append(f"{'id':>3} {'(r,k)':>7} {'row_from':>10} {'':>4} {'zone':>4} "
                 f"{'piece':>10} {'neighbours':<12} fortress")
    for c in data["cells"]:
        rc = g.nodes[c["id"]]["rc"]
        piece = f"{c['piece']} {c['owner']}" if c["piece"] else "-"
        zone = "-" if c["zone"] is None else str(c["zone"])
        fort = ""
        if c["id"] in touch:
            owner = touch[c["id"]]
            fort = f"F{owner} ({g.edges[c['id'], tbb.FORT_BASE + owner]['contact']})"
        lines.append(f"{c['id']:>3} {str(rc).replace(' ', ''):>7} "
                     f"{','.join(map(str, c['row_from'])):>10} {'up' if c['up'] else 'down':>4} "
                     f"{zone:>4} {piece:>10} {','.join(map(str, c['neighbours'])):<12} {fort}")
    for f in data["fortresses"]:
        lines.append(f"Fortress F{f['owner']} (seat {f['owner']}, "
                     f"{tbb.CORNER_NAMES[f['owner']]}): touches cells "
                     f"{', '.join(map(str, f['neighbours']))}")
    return "\n".join(lines)


def draw_board(fortress: str):
    """The board: cells (zones tinted per seat), Fortresses, pieces at their start,
    cell ids and the Fortress adjacency (solid: shared side, dotted: point contact)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Polygon
    from trilab.analysis.plots import plt  # the Agg backend
    g = tbb.board_graph(fortress)
    setup = tbb.initial_pieces()
    fig, ax = plt.subplots(figsize=(10, 9.2))
    for i in range(tbb.N_CELLS):
        a = g.nodes[i]
        zone = a["zone"]
        face = CENTRE_COLOUR if zone is None else SEAT_COLOURS[zone]
        ax.add_patch(Polygon(a["vertices"], closed=True, facecolor=face,
                             alpha=1.0 if zone is None else 0.28, edgecolor="none", zorder=1))
        ax.add_patch(Polygon(a["vertices"], closed=True, fill=False, edgecolor="#444444",
                             lw=0.8, zorder=2))
        x, y = a["xy"]
        dy = -0.2 if a["up"] else 0.2
        ax.text(x, y + dy, str(i), ha="center", va="center", fontsize=6.5, color="#333333",
                zorder=5)
        if i in setup:
            seat, kind = setup[i]
            ax.scatter([x], [y + 0.04 * (1 if a["up"] else -1)], s=230,
                       color=SEAT_COLOURS[seat], edgecolors="black", linewidths=0.8, zorder=6)
            ax.text(x, y + 0.04 * (1 if a["up"] else -1), PIECE_LETTERS[kind], ha="center",
                    va="center", fontsize=8, fontweight="bold", color="white", zorder=7)
    for s in range(tbb.N_SEATS):
        node = g.nodes[tbb.FORT_BASE + s]
        ax.add_patch(Polygon(node["vertices"], closed=True, facecolor=SEAT_COLOURS[s],
                             alpha=0.85, edgecolor="black", lw=1.2, hatch="//", zorder=2))
        fx, fy = node["xy"]
        ax.text(fx, fy, f"F{s}", ha="center", va="center", fontsize=11, fontweight="bold",
                color="black", zorder=8,
                bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "black", "lw": 0.6})
        for n in sorted(g.neighbors(tbb.FORT_BASE + s)):
            cx, cy = g.nodes[n]["xy"]
            contact = g.edges[tbb.FORT_BASE + s, n]["contact"]
            ax.plot([fx, cx], [fy, cy], color="black", lw=1.6,
                    ls="-" if contact == "side" else ":", zorder=4)
            ax.add_patch(Polygon(g.nodes[n]["vertices"], closed=True, fill=False,
                                 edgecolor=SEAT_COLOURS[s], lw=2.6, zorder=3))
    h = (3 ** 0.5) / 2
    for r in range(tbb.SIDE):  # rows counted from the top corner (seat 0)
        ax.text(-(r + 0.5) / 2 - 0.45, -(r + 0.5) * h, f"row {r + 1}", ha="right", va="center",
                fontsize=7, color="#777777")
    legend = [Patch(facecolor=c, alpha=0.28, edgecolor="#444444", label=f"zone of seat {s} "
                    f"({tbb.CORNER_NAMES[s]})") for s, c in enumerate(SEAT_COLOURS)]
    legend += [
        Patch(facecolor=CENTRE_COLOUR, edgecolor="#444444", label="central cell (no zone)"),
        Patch(facecolor="#999999", hatch="//", edgecolor="black", label="Fortress Fs of seat s"),
        Line2D([0], [0], color="black", lw=1.6, label="Fortress touches cell: shared side"),
        Line2D([0], [0], color="black", lw=1.6, ls=":", label="Fortress touches cell: point"),
        Line2D([0], [0], marker="o", color="w", markerfacecolor="#777777",
               markeredgecolor="black", markersize=10,
               label="start: G General, O Officer, S Soldier"),
    ]
    ax.legend(handles=legend, loc="upper right", fontsize=8, frameon=False)
    ax.set_title(f"Trio (1917): {tbb.N_CELLS} cells, Fortress reading '{fortress}'\n"
                 "small numbers = cell ids; rows counted from the top corner", fontsize=11)
    ax.set_aspect("equal")
    ax.set_xlim(-tbb.SIDE / 2 - 1.3, tbb.SIDE / 2 + 0.3)
    ax.set_ylim(-tbb.SIDE * h - 0.3, 0.3)
    ax.axis("off")
    return fig


def board(game: str = GAME, fortress: str = "sides", out: str | Path | None = None
          ) -> BoardOutcome:
    """Print, describe as JSON and draw the board of ``fortress`` (PNG at ``out``,
    default ``results/trio-board/board-FORTRESS.png``)."""
    if game != GAME:
        raise StudyError(f"only {GAME} has a board view, not {game!r}", "GAME")
    if fortress not in tbb.FORTRESS_OPTIONS:
        raise StudyError(f"unknown fortress option {fortress!r}; choose one of "
                         f"{', '.join(tbb.FORTRESS_OPTIONS)}", "--fortress")
    data = board_json(fortress)
    path = output_path(Path(out) if out else RESULTS / GAME / f"board-{fortress}.png")
    artifacts.save_figure(path, draw_board(fortress))  # closes the figure
    return BoardOutcome(fortress, data, [path])
