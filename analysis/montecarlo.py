"""The Monte Carlo driver: a simulated game's chunks on any executor.

Game ``g`` of a study depends only on ``(seed, g)`` (see
:mod:`trilab.solver.montecarlo`), so the arrays returned here are
bit-identical for any chunk size, job count or executor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from trilab.analysis.executors import SerialExecutor
from trilab.solver.game_api import GameConfig, GameSpec
from trilab.solver.montecarlo import play_chunk_task

DEFAULT_CHUNK = 20_000


@dataclass
class SimulationResult:
    """Raw per-game outcomes, indexed by game number."""

    winners: np.ndarray  # int64 bitmask of winning seats
    length: np.ndarray  # int64 turns
    reason: np.ndarray  # int64 index into spec.end_reasons
    digest: np.ndarray  # uint64 digest of each game's moves
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

    ``progress(total=)`` makes a bar that is advanced by the number of games
    of each finished chunk.
    """
    if games < 1:
        raise ValueError("games must be at least 1")
    if chunk < 1:
        raise ValueError("chunk must be at least 1")
    executor = executor or SerialExecutor()
    tasks = [(spec.name, seed, s, min(chunk, games - s), config.icfg, config.fcfg)
             for s in range(0, games, chunk)]
    winners = np.empty(games, dtype=np.int64)
    length = np.empty(games, dtype=np.int64)
    reason = np.empty(games, dtype=np.int64)
    digest = np.empty(games, dtype=np.uint64)
    bar = progress(total=games) if progress else None
    t0 = time.perf_counter()
    try:
        for args, (w, n, r, d) in executor.run(play_chunk_task, tasks):
            s, c = args[2], args[3]
            winners[s:s + c], length[s:s + c], reason[s:s + c], digest[s:s + c] = w, n, r, d
            if bar is not None:
                bar.update(c)
    finally:
        if bar is not None:
            bar.close()
    return SimulationResult(winners, length, reason, digest, time.perf_counter() - t0)
