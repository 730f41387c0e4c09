"""Trio card game: games per second of each cheap policy, and a digest of the games.

One process, 3-player simple games, every seat playing the policy, best of three
runs after a warm-up; the last column hashes every game's winners, length, end
reason and move digest, so two versions that print the same hash played the same
games.  To time an older commit side by side, check it out in a worktree, point
a directory's ``trilab`` symlink at it and put that directory first on
``PYTHONPATH``; alternate the versions, one process each (docs/speed.md)::

    git worktree add /tmp/old <commit> && mkdir /tmp/pkg && ln -s /tmp/old /tmp/pkg/trilab
    PYTHONPATH=/tmp/pkg python benchmarks/bench_card_policies.py random memory
    python benchmarks/bench_card_policies.py random memory
"""

from __future__ import annotations

import hashlib
import sys
import time

import numpy as np

CASES = {"random": 20_000, "memory": 20_000, "forgetful:0.3": 20_000, "deduce": 600,
         "ismcts:200": 20}


def main(policies: list[str]) -> None:
    from trilab.solver.compiled import purge_stale_caches

    purge_stale_caches()  # an edited worktree compiles afresh
    from trilab.solver.trio_cards.game import make_config, play_chunk

    for policy in policies or list(CASES):
        n = CASES[policy]
        cfg = make_config({"players": 3, "mode": "simple", "policies": [policy]})
        play_chunk(np.uint64(1), np.int64(0), np.int64(2), cfg.icfg, cfg.fcfg)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            out = play_chunk(np.uint64(7), np.int64(0), np.int64(n), cfg.icfg, cfg.fcfg)
            best = min(best, time.perf_counter() - t0)
        games = hashlib.sha1(b"".join(x.tobytes() for x in out)).hexdigest()[:12]
        print(f"{policy:14s} {n / best:11,.1f} games/s  games {games}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
