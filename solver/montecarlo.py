"""Generic Monte Carlo driver: the contract every simulated game implements.

A game module (``solver/<game>.py``) exposes ``SPEC = GameSpec(...)``:

* ``make_config(options) -> GameConfig``: validates the user's options (seat
  count, mode, policies, ...) and encodes them as an ``int64`` and a
  ``float64`` array for the kernels; raises ``ValueError`` with a one-line
  message on bad input.
* ``play_chunk(seed, first_game, n_games, icfg, fcfg)``: an ``@njit``
  kernel that plays games ``first_game .. first_game + n_games - 1`` and
  returns three ``int64`` arrays: ``winners`` (bitmask of the winning seats,
  0 for no winner; partners of a team both get their bit), ``length`` (turns
  played) and ``reason`` (an index into ``end_reasons``).  Game ``g`` draws
  its random numbers only from ``rng.game_stream(seed, g)``, so results do not
  depend on how games are split into chunks, jobs or executors.
* ``reference_game(seed, game_index, options)``: the same game in slow,
  obviously-correct pure Python using :class:`solver.rng.PyRng`; returns
  ``(winners, length, reason)`` and must equal the kernel game for game.

The driver here runs chunks on any executor of :mod:`analysis.executors`
and returns one row per game; studies and statistics live in ``analysis/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class GameConfig:
    """A validated game configuration, encoded for the kernels."""

    n_seats: int
    seat_policies: tuple[str, ...]  # the policy text of each seat, for reports
    icfg: np.ndarray  # int64
    fcfg: np.ndarray  # float64
    options: dict = field(default_factory=dict)  # the normalised options, for metadata
    teams: tuple[tuple[int, ...], ...] | None = None  # seat groups that win together


@dataclass(frozen=True)
class GameSpec:
    """What the driver needs to know about a simulated game."""

    name: str
    end_reasons: tuple[str, ...]
    policies: dict[str, str]  # policy name -> one-line description
    make_config: Callable[[dict], GameConfig]
    play_chunk: Callable  # @njit kernel, see the module docstring
    reference_game: Callable[[int, int, dict], tuple[int, int, int]]
    draw_reasons: tuple[str, ...] = ()  # end reasons that count as draws


# ----------------------------------------------------------------- driver

GAME_MODULES = {
    "trio-cards": "trilab.solver.trio_cards",
    "tabula-trivium": "trilab.solver.tabula_trivium",
}
DEFAULT_CHUNK = 20_000


def load_spec(name: str) -> GameSpec:
    """The ``SPEC`` of a simulated game, by name (importable in any worker)."""
    import importlib

    if name not in GAME_MODULES:
        raise ValueError(f"unknown game {name!r}; simulated games: {', '.join(GAME_MODULES)}")
    return importlib.import_module(GAME_MODULES[name]).SPEC


def play_chunk_task(
    game: str, seed: int, first: int, count: int, icfg: np.ndarray, fcfg: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One task: games ``first .. first + count - 1`` (a module-level function,
    so process pools and Dask workers can import it)."""
    spec = load_spec(game)
    return spec.play_chunk(np.uint64(seed), np.int64(first), np.int64(count), icfg, fcfg)


@dataclass
class SimulationResult:
    """Raw per-game outcomes, indexed by game number."""

    winners: np.ndarray  # int64 bitmask of winning seats
    length: np.ndarray  # int64 turns
    reason: np.ndarray  # int64 index into spec.end_reasons
    seconds: float


def simulate(
    spec: GameSpec,
    config: GameConfig,
    games: int,
    seed: int,
    executor=None,
    chunk: int = DEFAULT_CHUNK,
    progress: Callable | None = None,
) -> SimulationResult:
    """Play ``games`` games in chunks on ``executor`` (default: this process).

    Game ``g`` depends only on ``(seed, g)``, so the arrays are bit-identical
    for any chunk size, job count or executor.  ``progress(total=)`` makes a
    bar that is advanced by the number of games of each finished chunk.
    """
    import time

    from trilab.analysis.executors import SerialExecutor

    if games < 1:
        raise ValueError("games must be at least 1")
    executor = executor or SerialExecutor()
    starts = list(range(0, games, chunk))
    tasks = [(spec.name, seed, s, min(chunk, games - s), config.icfg, config.fcfg)
             for s in starts]
    winners = np.empty(games, dtype=np.int64)
    length = np.empty(games, dtype=np.int64)
    reason = np.empty(games, dtype=np.int64)
    bar = progress(total=games) if progress else None
    t0 = time.perf_counter()
    try:
        for args, (w, n, r) in executor.run(play_chunk_task, tasks):
            s, c = args[2], args[3]
            winners[s:s + c], length[s:s + c], reason[s:s + c] = w, n, r
            if bar is not None:
                bar.update(c)
    finally:
        if bar is not None:
            bar.close()
    return SimulationResult(winners, length, reason, time.perf_counter() - t0)
