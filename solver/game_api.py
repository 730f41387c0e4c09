"""The game API: everything a game package provides, and the registry record of a game.

Every game is one package under ``solver/`` (``solver/<game>/``) plus one
:class:`GameInfo` entry in :mod:`trilab.solver.registry`.  What the package
provides depends on what the game is used for (in the spirit of GamesmanOne's
required and optional game API and OpenSpiel's game type):

Required of every game
    * an engine module (:attr:`GameInfo.module`): the rules, compiled with
      Numba, whose docstring states the rules it implements;
    * a reference module (:attr:`GameInfo.reference`): the same rules in slow,
      obviously-correct pure Python, sharing no code with the engine except
      :class:`trilab.solver.rng.PyRng`; the contract test
      (``tests/test_game_contract.py``) checks the two agree.

Simulated games (``trilab simulate``, ``trilab report``; ``simulated=True``)
    The engine exposes ``SPEC``, a :class:`GameSpec`:

    * ``make_config(options) -> GameConfig``: validates the user's options
      (seat count, mode, policies, ...) and encodes them as an ``int64`` and a
      ``float64`` array for the kernels; raises ``ValueError`` with a one-line
      message on bad input.
    * ``play_chunk(seed, first_game, n_games, icfg, fcfg)``: an ``@njit``
      kernel (or a thin Python function calling one, e.g. to hand it agent
      kernels) that plays games ``first_game .. first_game + n_games - 1`` and
      returns four arrays: ``winners`` (``int64`` bitmask of the winning
      seats, 0 for no winner; partners of a team both get their bit),
      ``length`` (``int64`` turns played), ``reason`` (``int64`` index into
      ``end_reasons``) and ``digest`` (``uint64`` digest of the game's moves,
      see :func:`trilab.solver.rng.digest_step`).  Game ``g`` draws its random
      numbers only from ``rng.game_stream(seed, g)``, so results do not depend
      on how games are split into chunks, jobs or executors.
    * ``reference_game(seed, game_index, options)``: the same game in the
      reference module, returning ``(winners, length, reason, digest)``; it
      must equal the kernel game for game.

Solvable games (``trilab solve``, ``trilab analyze``; ``solvable=True``)
    The engine exposes ``SOLVABLE``, a :class:`SolvableSpec`: the sizes the
    exact solvers accept, ``check_size`` and ``seeded_game(size, seed, g)``
    (a whole game of uniformly random legal moves drawn from the stream
    ``(seed, g)``: the moves and the first player's final margin), with
    ``reference_seeded_game`` the same game played by the reference rules.

Games with agents (perfect information; :attr:`GameInfo.agents` names a module)
    The agents module defines the six *agent kernels* of :class:`AgentKernels`
    (``numba.cfunc`` objects with the signatures :data:`LEGAL_SIG` ..
    :data:`CHANCE_SIG`, so the one MCTS of :mod:`trilab.solver.mcts` is
    compiled and cached once for all games) and ``agent_game(**options)``,
    which returns a :class:`trilab.solver.mcts.AgentGame` (the kernels, the
    seat count, the flat table and the buffer sizes).  ``state`` is the
    game's ``int64`` state array and ``tables`` its flat ``int64`` table:

    * ``legal(tables, state, out) -> n``: the legal actions (game-defined
      integer ids) into ``out``; ``0`` iff the game is over.  At a chance
      node: the outcome ids ``0 .. n - 1``.
    * ``apply(tables, state, action) -> 0``: play the action in place.
    * ``seat(tables, state) -> s``: the seat to move, ``-1`` at a chance node.
    * ``rewards(tables, state, out) -> 0``: the reward of every seat in a
      finished game.
    * ``playout(tables, state, stream, scratch, out) -> plies``: play from
      ``state`` (in place), drawing from the ``rng`` stream, and write the
      rewards: random play to the end, or a game's own playout policy, which
      may also stop early and write an *estimated* reward in [0, 1] per seat
      (Tabula Trivium's ``greedy:K`` playouts); ``plies = 0`` iff the rewards
      written are *exact*: the state was already finished, or the game solved
      it (Trike's ``mcts-solve`` playouts solve small endgames,
      :mod:`trilab.solver.trike.endgame`); only then does the search mark a
      node proven.  ``scratch`` (``playout_scratch`` numbers) is zero when the
      search's buffers are made and then only the playout's own: it may keep
      state between playouts (the Trike endgame table's generation counter).
    * ``chance(tables, state, stream) -> k``: the outcome of a chance node.

Nothing here imports a game: this module and the registry are cheap to import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import NamedTuple

import numpy as np
from numba import types

# ------------------------------------------------------------------ the registry record

@dataclass(frozen=True)
class GameInfo:
    """What every part of trilab knows about a game, before importing it."""

    name: str
    """The name users type (``trilab simulate NAME``)."""
    module: str
    """The engine module (Numba)."""
    reference: str
    """The slow, obviously-correct pure-Python module of the same rules."""
    title: str
    players: tuple[int, ...]
    """Possible numbers of seats."""
    solvable: bool = False
    """Exact solvers apply (``trilab solve``, ``trilab analyze``)."""
    simulated: bool = False
    """Monte Carlo studies apply (``trilab simulate``, ``trilab report``)."""
    options: dict[str, str] = field(default_factory=dict)
    """Option name -> one-line description (the keys ``make_config`` accepts)."""
    policies: dict[str, str] = field(default_factory=dict)
    """Policy name -> one-line description (simulated games)."""
    end_reasons: tuple[str, ...] = ()
    """How a game can end (index = the engine's reason code)."""
    examples: tuple[dict, ...] = ()
    """Valid option sets covering every policy and mode: the contract test and
    the golden files play them (the engine-equals-reference check skips the
    ``mcts:N`` and ``mcts-...`` seats, which the references do not implement; the agent
    kernels are checked by the agent contract and the game's own tests)."""
    bad_options: tuple[tuple[dict, str], ...] = ()
    """Invalid option sets and a fragment of the one-line error each must give."""
    agents: str | None = None
    """The module of the game's agent kernels (``agent_game(**options)`` returns
    a :class:`trilab.solver.mcts.AgentGame`), for perfect-information games."""
    agent_examples: tuple[dict, ...] = ()
    """Options of ``agent_game`` that the contract test plays."""

    def load_agents(self, **options):
        """The :class:`trilab.solver.mcts.AgentGame` of these options."""
        return importlib.import_module(self.agents).agent_game(**options)

    def load(self) -> ModuleType:
        """The engine module (imports Numba and compiles or loads kernels)."""
        return importlib.import_module(self.module)

    def load_reference(self) -> ModuleType:
        return importlib.import_module(self.reference)



# ------------------------------------------------------------------ solvable games

@dataclass(frozen=True)
class SolvableSpec:
    """What the exact solvers and the contract test need of a solvable game."""

    name: str
    min_size: int
    max_size: int
    check_size: Callable[[int], int]
    seeded_game: Callable[[int, int, int], tuple[list[int], int]]
    reference_seeded_game: Callable[[int, int, int], tuple[list[int], int]]



# ------------------------------------------------------------------ simulated games

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



# ------------------------------------------------------------------ agent kernels

_I64 = types.int64[::1]
LEGAL_SIG = types.int64(_I64, _I64, _I64)
APPLY_SIG = types.int64(_I64, _I64, types.int64)
SEAT_SIG = types.int64(_I64, _I64)
REWARDS_SIG = types.int64(_I64, _I64, types.float64[::1])
PLAYOUT_SIG = types.int64(_I64, _I64, types.uint64[::1], _I64, types.float64[::1])
CHANCE_SIG = types.int64(_I64, _I64, types.uint64[::1])


class AgentKernels(NamedTuple):
    """A game's agent kernels (``cfunc`` objects, see the module docstring)."""

    legal: object
    apply: object
    seat: object
    rewards: object
    playout: object
    chance: object
