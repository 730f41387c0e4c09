"""Shared test helpers: random reachable Trike positions from seeded playouts."""

from __future__ import annotations

import os
import random
import shutil

import pytest
from trilab.solver.compiled import purge_stale_caches
from trilab.solver.trike import engine as trike
from trilab.solver.trike import reference as ref


def pytest_configure(config):
    """Numba does not notice an edited callee module: drop the caches made from
    older sources before any kernel is loaded (a no-op when nothing changed)."""
    purge_stale_caches()


def random_position(size: int, rng: random.Random, plies: int | None = None) -> trike.TrikePosition:
    """Play a random opening and then random legal moves (by the reference rules)."""
    cells = [(r, c) for r in range(size) for c in range(r + 1)]
    pawn = rng.choice(cells)
    board = {pawn: "b"}
    limit = rng.randrange(0, len(cells)) if plies is None else plies
    for _ in range(limit):
        moves = sorted(ref.legal_moves(size, board, pawn))
        if not moves:
            break
        pawn = rng.choice(moves)
        board = ref.play(board, pawn)
    return from_reference(size, board, pawn)


def from_reference(size: int, board: dict, pawn: tuple[int, int]) -> trike.TrikePosition:
    black = sum(1 << trike.point_index(*c) for c, v in board.items() if v == "b")
    white = sum(1 << trike.point_index(*c) for c, v in board.items() if v == "w")
    return trike.TrikePosition(size, black, white, trike.point_index(*pawn))


def to_reference(pos: trike.TrikePosition) -> tuple[dict, tuple[int, int]]:
    coords = trike.point_coords(pos.size)
    board = {}
    for p, cell in enumerate(coords):
        if pos.black >> p & 1:
            board[cell] = "b"
        elif pos.white >> p & 1:
            board[cell] = "w"
    return board, coords[pos.pawn]


@pytest.fixture
def rng() -> random.Random:
    return random.Random(20261130)


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", default=False,
                     help="Rewrite tests/golden/ from the current code instead of comparing "
                          "(make golden); review the diff before committing.")


@pytest.fixture
def regen_golden(request) -> bool:
    return bool(request.config.getoption("--regen-golden"))


BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
"""Debian's chromium (`.ci/run` installs it and sets TRILAB_REQUIRE_BROWSER=1)."""
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Headless as root, and no connection attempts to the network this machine lacks."""


@pytest.fixture
def chromium():
    """A headless Chromium driven by Playwright's Python API with Debian's binary (no
    downloaded browser); skipped without it, a failure where TRILAB_REQUIRE_BROWSER is set."""
    if BROWSER is None:
        if os.environ.get("TRILAB_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here (apt-get install chromium)")
        pytest.skip("chromium is not installed (CI installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=BROWSER, args=BROWSER_ARGS)
        try:
            yield browser
        finally:
            browser.close()
