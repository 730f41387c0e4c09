"""analysis/trio_cards_strength.py: the per-position strength summary and the seat
studies of memory beside deduce."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from trilab.analysis import simulation
from trilab.analysis.trio_cards_strength import seat_comparison, summarize


def test_summary_averages_the_seat_positions(tmp_path):
    prefix = tmp_path / "strength" / "p3-simple-deduce"
    for k in range(3):
        pols = ["memory"] * 3
        pols[k] = "deduce"
        simulation.simulate("trio-cards", {"players": 3, "policies": pols}, 60, seed=k,
                            out=f"{prefix}-seat{k}.csv")
    rows = summarize(str(prefix))
    seats = [json.loads((tmp_path / "strength" / f"p3-simple-deduce-seat{k}.meta.json")
                        .read_text())["seats"][k] for k in range(3)]
    assert [r["wins"] for r in rows[:3]] == [s["wins"] for s in seats]
    mean = rows[3]
    assert mean["position"] == "mean" and mean["games"] == 180
    assert mean["win_rate"] == pytest.approx(sum(s["win_rate"] for s in seats) / 3)
    assert mean["ci_low"] < mean["win_rate"] < mean["ci_high"]
    assert pd.read_csv(f"{prefix}.csv").shape[0] == 4


def test_seat_comparison_puts_memory_beside_deduce(tmp_path):
    base = tmp_path / "trio-cards"
    memory = simulation.simulate("trio-cards", {"players": 4, "policies": ["memory"]}, 80,
                                 seed=1, out=base / "p4-simple-memory.csv")
    deduce = simulation.simulate("trio-cards", {"players": 4, "policies": ["deduce"]}, 80,
                                 seed=1, out=base / "deduce" / "p4-simple-deduce.csv")
    simulation.simulate("trio-cards", {"players": 4, "policies": ["deduce", "memory"] * 2}, 20,
                        seed=1, out=base / "deduce" / "mixed.csv")  # not equal players
    simulation.simulate("trio-cards", {"players": 3, "policies": ["memory"]}, 20, seed=1,
                        out=base / "p3-simple-memory.csv")  # no deduce twin
    comp = seat_comparison(tmp_path)
    assert len(comp) == 1
    row = comp.iloc[0]
    assert (row.players, row["mode"], bool(row.teams)) == (4, "simple", False)
    assert row.memory_advantage == pytest.approx(memory.summary["first_seat_advantage"])
    assert row.deduce_advantage == pytest.approx(deduce.summary["first_seat_advantage"])
    assert [row.deduce_low, row.deduce_high] == pytest.approx(
        deduce.summary["first_seat_advantage_ci"])
    assert row.memory_games == row.deduce_games == 80
    assert seat_comparison(tmp_path / "nowhere").empty
