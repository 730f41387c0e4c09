"""The simulated-game contract: configurations and the spec every such game exposes.

A simulated game module (``solver/<game>.py``, listed in
:mod:`trilab.solver.registry`) exposes ``SPEC = GameSpec(...)``:

* ``make_config(options) -> GameConfig``: validates the user's options (seat
  count, mode, policies, ...) and encodes them as an ``int64`` and a
  ``float64`` array for the kernels; raises ``ValueError`` with a one-line
  message on bad input.
* ``play_chunk(seed, first_game, n_games, icfg, fcfg)``: an ``@njit``
  kernel (or a thin Python function calling one, e.g. to hand it agent
  kernels) that plays games ``first_game .. first_game + n_games - 1`` and
  returns four arrays: ``winners`` (``int64`` bitmask of the winning seats,
  0 for no winner; partners of a team both get their bit), ``length``
  (``int64`` turns played), ``reason`` (``int64`` index into
  ``end_reasons``) and ``digest`` (``uint64`` digest of the game's moves, see
  :func:`trilab.solver.rng.digest_step`).  Game ``g`` draws its random
  numbers only from ``rng.game_stream(seed, g)``, so results do not depend on
  how games are split into chunks, jobs or executors.
* ``reference_game(seed, game_index, options)``: the same game in slow,
  obviously-correct pure Python using :class:`trilab.solver.rng.PyRng`;
  returns ``(winners, length, reason, digest)`` and must equal the kernel
  game for game.

The driver that runs chunks on executors is :mod:`trilab.analysis.montecarlo`
(the engines never import the studies).
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
    reference_game: Callable[[int, int, dict], tuple[int, int, int, int]]
    draw_reasons: tuple[str, ...] = ()  # end reasons that count as draws


def load_spec(name: str) -> GameSpec:
    """The ``SPEC`` of a simulated game of the registry, by name (importable in any worker)."""
    from trilab.solver import registry as games

    info = games.get(name)
    if not info.simulated:
        raise ValueError(f"{name!r} is not simulated; simulated games: "
                         f"{', '.join(games.simulated())}")
    return info.load().SPEC


def play_chunk_task(
    game: str, seed: int, first: int, count: int, icfg: np.ndarray, fcfg: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One task: games ``first .. first + count - 1`` of ``game`` (a module-level
    function, so process pools and Dask workers can import it)."""
    spec = load_spec(game)
    return spec.play_chunk(np.uint64(seed), np.int64(first), np.int64(count), icfg, fcfg)
