"""Pile in plain Python: the twin the engine of :mod:`game` is checked against.

The same rules and policies (stated in ``game.py``), no shared code but the
random stream :class:`trilab.solver.rng.PyRng` and the digest step.
"""

from __future__ import annotations

from trilab.solver.rng import PyRng, py_digest_step


def reference_game(seed: int, game: int, options: dict) -> tuple[int, int, int, int]:
    """``(winners, turns, reason, digest)`` of game ``game`` of a study seeded ``seed``."""
    stream = PyRng(seed, game)
    pile = options.get("pile", 15)
    policies = list(options.get("policies", ["random"]))
    policies = policies * (2 // len(policies))
    seat, turns, digest = 0, 0, 0
    while True:
        take = pile % 4 if policies[seat] == "greedy" else 0
        if take == 0:
            take = 1 + stream.below(min(3, pile))
        pile -= take
        turns += 1
        digest = py_digest_step(digest, take)
        if pile == 0:
            return 1 << seat, turns, 0, digest
        seat = 1 - seat
