"""The Monte Carlo driver's task: one chunk of a simulated game's games, by game name.

The simulated-game API (``SPEC``, :class:`~trilab.solver.game_api.GameSpec`,
:class:`~trilab.solver.game_api.GameConfig`) is stated in
:mod:`trilab.solver.game_api`.  :func:`play_chunk_task` is a module-level
function, so process pools and Dask workers can import it; the executors and
the study code that run it live in :mod:`trilab.analysis` (the engines never
import the studies).
"""

from __future__ import annotations

import numpy as np
from trilab.solver import registry
from trilab.solver.game_api import GameSpec


def load_spec(name: str) -> GameSpec:
    """The ``SPEC`` of a simulated game of the registry, by name (importable in any worker)."""
    info = registry.get(name)
    if not info.simulated:
        raise ValueError(f"{name!r} is not simulated; simulated games: "
                         f"{', '.join(registry.simulated())}")
    return info.load().SPEC


def play_chunk_task(
    game: str, seed: int, first: int, count: int, icfg: np.ndarray, fcfg: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One task: games ``first .. first + count - 1`` of ``game`` (a module-level
    function, so process pools and Dask workers can import it)."""
    spec = load_spec(game)
    return spec.play_chunk(np.uint64(seed), np.int64(first), np.int64(count), icfg, fcfg)
