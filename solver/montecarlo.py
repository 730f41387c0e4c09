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
