"""Trike's golden files: retrograde tier sizes (the game's "perft") and opening tables.

``make golden`` rewrites them (``pytest --regen-golden``); a change to the rules,
the symmetry reduction or the solvers then shows up as a diff of
``tests/golden/``.  The tests recompute sizes 2..5 (tiers) and 2..6 (openings);
size 7 takes about a minute on 2 cores, so the test checks the committed
``results/trike/size-7.csv`` against its golden table and ``make golden``
recomputes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from trilab.analysis import executors
from trilab.analysis.trike import openings as trike_openings
from trilab.solver.trike import retrograde

GOLDEN = Path(__file__).parent / "golden"
RESULTS = Path(__file__).resolve().parent.parent / "results" / "trike"
COLUMNS = ["point", "row", "col", "symmetry_class", "winner", "margin", "remoteness",
           "winning_replies"]


def test_retrograde_tier_sizes(regen_golden):
    tiers = {str(n): [len(k) for k in retrograde.enumerate_tiers(n)] for n in range(2, 6)}
    path = GOLDEN / "trike-tiers.json"
    if regen_golden:
        path.write_text(json.dumps(tiers, indent=1) + "\n")
    assert json.loads(path.read_text()) == tiers


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7])
def test_opening_tables(size, regen_golden):
    path = GOLDEN / f"trike-openings-size-{size}.csv"
    if regen_golden:
        if size == 7:
            pool = executors.make_executor(jobs=2)
            try:
                table = trike_openings.run(7, tt_mb=256, executor=pool).table
            finally:
                pool.close()
        else:
            table = trike_openings.run(size, tt_mb=16).table
        table[COLUMNS].to_csv(path, index=False)
    golden = pd.read_csv(path)
    if size == 7:  # too slow for the suite: the committed table must agree
        table = pd.read_csv(RESULTS / "size-7.csv")
    elif not regen_golden:
        table = trike_openings.run(size, tt_mb=16).table
    table = table[COLUMNS].astype(golden.dtypes)
    pd.testing.assert_frame_equal(table.reset_index(drop=True), golden)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7])
def test_proof_number_search_gives_the_golden_winners(size):
    """df-pn (a second algorithm) against the golden alpha-beta winners: sizes
    2..6 computed here, size 7 from the committed ``results/trike/dfpn`` table
    (``make results``)."""
    golden = pd.read_csv(GOLDEN / f"trike-openings-size-{size}.csv")
    if size == 7:
        table = pd.read_csv(RESULTS / "dfpn" / "size-7.csv")
    else:
        table = trike_openings.run(size, method="dfpn", tt_mb=16, win_loss_only=True).table
    cols = ["point", "symmetry_class", "winner"]
    pd.testing.assert_frame_equal(table[cols].reset_index(drop=True), golden[cols])
