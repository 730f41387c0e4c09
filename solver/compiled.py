"""Every game's kernels compiled ahead of use, and a word on stderr when a command must compile.

Numba compiles a kernel at its first call and caches it (``cache=True``) in
``__pycache__`` beside its source (or under ``NUMBA_CACHE_DIR``); a cold compile
of a game takes seconds to a minute (``results/bench/compile-times.csv``).
Two entry points:

* ``python -m trilab.solver.compiled [--jobs 2]``: the **warm-up** the set-up
  command runs (the Makefile's ``install``).  It compiles each cold game's
  engine, policies, agent kernels (and Trike's solvers) by playing a few tiny
  games, one process per game over ``--jobs`` processes, and records each game
  in a stamp file.  When every game is warm it is a silent no-op (0.3 s, Python
  start-up; the check itself is a few milliseconds).
* :func:`ensure_compiled` ``(game)``: called by ``trilab simulate`` before it runs
  a game's kernels.  If the game is not recorded warm it prints one line on
  stderr (``trilab: compiling the Tabula Trivium engine (first run only, about
  20 s)``), compiles the game in this process with a progress line, records it
  and returns; when warm it costs hashing a few source files (about a millisecond).

How "warm" is decided, without importing Numba: the stamp (``trilab-compiled.json``
in the Numba cache folder of this package) holds, per game, the source files of its
*entry kernels* (those called from Python; the warm-up finds them by replaying the
game in a fresh process on the filled cache and asking Numba which kernels it looked
up) and a key made of what Numba's own cache checks: the Numba and Python versions,
the machine, the cache folder, and the contents of those files (Numba 0.68 stamps
a cache with the SHA-256 of its source file; older versions used its time and size).
Numba keys each cached kernel on its own file only, and a kernel called only from
other kernels is compiled into them, so those files are exactly the ones whose
change makes the game compile again: an edited entry module, a Numba upgrade or
another cache folder make the key differ and the notice appear; a warm cache never
does (a ``touch`` or a checkout that leaves the contents alone compiles nothing).
Numba's caching does not track dependencies: a cached entry kernel keeps the
compiled code of callees in other files even after they are edited (e.g. the
rules).  :func:`purge_stale_caches`, which the command line, the warm-up and the
test suite call first, closes that hole: it hashes every source file under
``solver/`` (about a millisecond) and, when any changed since the caches were
made, deletes this package's cached kernels and the stamp, so everything
compiles afresh from the current sources (and the notice says so).  A cache
Numba rejects for what the key cannot see, such as another CPU, compiles without
the notice.  Nothing here writes into ``results/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import sys
import time
from pathlib import Path

SOLVER = Path(__file__).resolve().parent
SHARED = ("mcts.py", "rng.py", "bitboard.py")
"""Modules outside the game packages that hold cached kernels the games call."""
_CACHED = re.compile(rb"^@(kernel|nb\.njit|nb\.cfunc|njit|cfunc)\b", re.MULTILINE)

COMPILE_SECONDS = {"trio-cards": 80, "tabula-trivium": 20, "trio-board": 15, "trike": 15}
"""About how long a cold compile of each game takes on one core of the 2-core
machine (``benchmarks/bench_compile.py``, ``results/bench/compile-times.csv``; the
Trio card game's belief, ``deduce``, ``infer`` and ``ismcts`` kernels made it the
longest: 76 s of CPU); for the notice and the order."""

ORDER = tuple(sorted(COMPILE_SECONDS, key=lambda g: -COMPILE_SECONDS[g]))
"""Longest first, so two processes finish together (the longest alone on one,
the rest on the other)."""


def estimate_seconds(games: list[str], jobs: int) -> int:
    """About how long :func:`warm_up` takes to compile ``games`` in this order on
    ``jobs`` processes: each game goes to the process that frees first, as the pool
    hands them out (an unknown game counts 30 s)."""
    loads = [0] * max(jobs, 1)
    for g in games:
        loads[loads.index(min(loads))] += COMPILE_SECONDS.get(g, 30)
    return max(loads)


# ------------------------------------------------------------------ the stamp


def _package_dir(game: str) -> Path:
    from trilab.solver import registry

    return SOLVER / registry.get(game).module.split(".")[2]


def kernel_sources(game: str) -> list[Path]:
    """The source files holding cached kernels that ``game`` compiles."""
    files = sorted(_package_dir(game).glob("*.py")) + [SOLVER / f for f in SHARED]
    return [f for f in files if _CACHED.search(f.read_bytes())]


def cache_dir() -> Path:
    """Where Numba caches this package's kernels (and where the stamp lives)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env).resolve() if env else SOLVER / "__pycache__"


def stamp_path() -> Path:
    return cache_dir() / "trilab-compiled.json"


def _numba_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("numba")
    except PackageNotFoundError:  # pragma: no cover
        return "?"


def cache_key(game: str, files: list[str] | None = None) -> str:
    """What must be unchanged for ``game``'s cached kernels to load (module docstring):
    the versions, the cache folder and the time and size of ``files`` (paths relative to
    ``solver/``; by default every file of :func:`kernel_sources`)."""
    if files is None:
        files = [str(f.relative_to(SOLVER)) for f in kernel_sources(game)]
    h = hashlib.sha256()
    h.update(f"{_numba_version()}|{sys.version_info[:2]}|{platform.machine()}|"
             f"{cache_dir()}".encode())
    for name in files:
        try:
            source = (SOLVER / name).read_bytes()
        except OSError:
            return "missing " + name
        h.update(f"|{name}:{hashlib.sha256(source).hexdigest()}".encode())
    return h.hexdigest()[:20]


def sources_hash(root: Path = SOLVER) -> str:
    """SHA-256 over every ``*.py`` under ``root`` (paths and contents)."""
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        if "__pycache__" in f.parts:
            continue
        h.update(f"{f.relative_to(root)}\0".encode())
        h.update(hashlib.sha256(f.read_bytes()).digest())
    return h.hexdigest()


def _cache_files(root: Path, cache: Path) -> list[Path]:
    """The Numba cache files (``*.nbi``, ``*.nbc``) of the modules under ``root``."""
    if cache == root / "__pycache__":
        return [f for f in root.rglob("__pycache__/*") if f.suffix in (".nbi", ".nbc")]
    stems = {f.stem for f in root.rglob("*.py")}
    return [f for f in cache.rglob("*") if f.suffix in (".nbi", ".nbc")
            and f.name.split(".", 1)[0] in stems]


def purge_stale_caches(root: Path = SOLVER, cache: Path | None = None) -> int:
    """Delete the cached kernels of ``root`` if any source under it changed since they
    were made (see the module docstring); returns the number of files deleted.
    Best effort: an unwritable cache folder is left as it is."""
    cache = cache_dir() if cache is None else cache
    marker = cache / "trilab-sources.sha256"
    now = sources_hash(root)
    try:
        if marker.read_text().strip() == now:
            return 0
    except OSError:
        pass
    removed = 0
    for f in _cache_files(root, cache) + [cache / "trilab-compiled.json"]:
        try:
            f.unlink()
            removed += f.suffix != ".json"
        except OSError:
            pass
    try:
        cache.mkdir(parents=True, exist_ok=True)
        tmp = marker.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(now + "\n")
        os.replace(tmp, marker)
    except OSError:
        pass
    return removed


def _read_stamp() -> dict:
    try:
        return json.loads(stamp_path().read_text())
    except (OSError, ValueError):
        return {}


def _record(entries: dict[str, dict]) -> None:
    """Add ``game -> {"files": [...], "key": ...}`` entries to the stamp (best effort:
    an unwritable cache folder only means the notice shows again)."""
    stamp = {**_read_stamp(), **entries}
    path = stamp_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(stamp, indent=1, sort_keys=True) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def stamp_entry(game: str) -> dict:
    """The stamp entry of ``game`` as compiled now: its entry files (:func:`entry_files`)
    and their key."""
    files = entry_files(game)
    return {"files": files, "key": cache_key(game, files)}


def is_warm(game: str) -> bool:
    """Whether the warm-up (or an earlier compile through :func:`ensure_compiled`) left
    ``game``'s kernels cached for the sources, Numba and cache folder of now."""
    entry = _read_stamp().get(game)
    return (isinstance(entry, dict) and isinstance(entry.get("files"), list)
            and entry.get("key") == cache_key(game, entry["files"]))


def loaded_files() -> list[str]:
    """The files (relative to ``solver/``) of the kernels this process looked up in the
    Numba cache: the entry points called from Python.  A kernel called only from
    other kernels is compiled into them and never looked up once they are cached,
    so its file's cache does not matter (Numba keys each cache on its own file only)."""
    import inspect

    from numba.core.ccallback import CFunc
    from numba.core.dispatcher import Dispatcher

    files = set()
    for name, module in list(sys.modules.items()):
        if not name.startswith("trilab.solver"):
            continue
        for obj in vars(module).values():
            if isinstance(obj, Dispatcher):
                used = sum(obj.stats.cache_hits.values()) + sum(obj.stats.cache_misses.values())
                fn = obj.py_func
            elif isinstance(obj, CFunc):
                used, fn = obj.cache_hits, obj._pyfunc
            else:
                continue
            if used:
                path = Path(inspect.getsourcefile(fn)).resolve()
                if path.is_relative_to(SOLVER):
                    files.add(str(path.relative_to(SOLVER)))
    return sorted(files)


def entry_files(game: str) -> list[str]:
    """The files of ``game``'s entry kernels: :func:`compile_game` run again in a fresh
    process on the (now filled) cache, which reports :func:`loaded_files` (about a
    second); every file of :func:`kernel_sources` if that fails."""
    import subprocess

    try:
        out = subprocess.run([sys.executable, "-m", "trilab.solver.compiled", "--probe", game],
                             check=True, capture_output=True, text=True, timeout=600).stdout
        return json.loads(out.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return [str(f.relative_to(SOLVER)) for f in kernel_sources(game)]


# ------------------------------------------------------------------ compiling


def _trike_solvers() -> None:
    from trilab.solver.trike import alphabeta, dfpn, retrograde

    alphabeta.warm_up()
    dfpn.warm_up()
    retrograde.solve(3)


EXTRA = {"trike": (_trike_solvers,)}
"""Kernels of a game beyond its engine, simulations and agents."""


def compile_game(game: str) -> float:
    """Compile (or load) every kernel of ``game`` by playing tiny games with each
    registry example: the simulated policies, the seeded games of a solvable game,
    an agent search per agent example, and :data:`EXTRA`; returns seconds."""
    import numpy as np
    from trilab.solver import mcts, registry
    from trilab.solver.rng import game_stream

    t0 = time.perf_counter()
    info = registry.get(game)
    engine = info.load()
    if info.simulated:
        spec = engine.SPEC
        for options in info.examples:
            cfg = spec.make_config(options)
            spec.play_chunk(np.uint64(1), np.int64(0), np.int64(1), cfg.icfg, cfg.fcfg)
    if info.solvable:
        engine.SOLVABLE.seeded_game(engine.SOLVABLE.min_size + 1, 1, 0)
    if info.agents:
        import importlib

        module = importlib.import_module(info.agents)
        for options in info.agent_examples:
            agent_game = info.load_agents(**options)
            state = module.initial_state(**options)
            agent_game.legal(state)
            agent_game.search(state, mcts.AgentSpec(simulations=20),
                              game_stream(np.uint64(1), np.uint64(0)))
            agent_game.search(state, mcts.AgentSpec(seconds=0.001, threads=2, shared_tree=True),
                              game_stream(np.uint64(1), np.uint64(0)))
            agent_game.playout(state.copy(), game_stream(np.uint64(1), np.uint64(1)))
    for fn in EXTRA.get(game, ()):
        fn()
    return time.perf_counter() - t0


_TITLES = {"trio-cards": "Trio card game", "trio-board": "Trio board game"}


def _title(game: str) -> str:
    from trilab.solver import registry

    return _TITLES.get(game) or registry.get(game).title.split(" (")[0]


class _Progress:
    """A Numba compile-event listener: how many functions are compiled so far, shown on
    one stderr line (rewritten in place on a terminal, at most 4 times a second)."""

    def __init__(self, game: str, stream=sys.stderr):
        self.game, self.stream, self.count = game, stream, 0
        self.t0 = self.last = time.perf_counter()
        self.tty = stream.isatty()

    def __enter__(self):
        from numba.core import event

        outer = self

        class Listener(event.Listener):
            def on_start(self, ev):
                pass

            def on_end(self, ev):
                outer.count += 1
                now = time.perf_counter()
                if outer.tty and now - outer.last > 0.25:
                    outer.last = now
                    outer.stream.write(f"\rtrilab: compiling {outer.game}: {outer.count} "
                                       f"functions, {now - outer.t0:.0f} s")
                    outer.stream.flush()

        self.listener = Listener()
        event.register("numba:compile", self.listener)
        return self

    def __exit__(self, *exc):
        from numba.core import event

        event.unregister("numba:compile", self.listener)
        if self.count:
            end = "\r" if self.tty else ""
            self.stream.write(f"{end}trilab: compiled {self.game}: {self.count} functions in "
                              f"{time.perf_counter() - self.t0:.0f} s\n")
            self.stream.flush()


def ensure_compiled(game: str, stream=None) -> None:
    """Before a command runs ``game``'s kernels: nothing if they are cached (about a
    millisecond); else one line on stderr saying so, then compile them here with a
    progress line, and record the game warm."""
    from trilab.solver import registry

    if not registry.get(game).module.startswith("trilab.solver."):
        return  # a game outside trilab's packages (one being added) has no stamp
    if is_warm(game):
        return
    stream = stream or sys.stderr
    stream.write(f"trilab: compiling the {_title(game)} engine (first run only, about "
                 f"{COMPILE_SECONDS.get(game, 30)} s)\n")
    stream.flush()
    with _Progress(game, stream):
        compile_game(game)
    _record({game: stamp_entry(game)})


def _worker(game: str) -> tuple[str, float, dict]:
    seconds = compile_game(game)
    return game, seconds, stamp_entry(game)


def warm_up(games: list[str] | None = None, jobs: int = 2, force: bool = False,
            out=sys.stderr) -> dict[str, float]:
    """Compile every cold game (all of them with ``force``), one process per game on
    ``jobs`` processes; record each in the stamp; return seconds per game compiled."""
    from trilab.solver import registry

    purge_stale_caches()
    games = list(games or [g for g in ORDER if g in registry.GAMES] +
                 [g for g in registry.GAMES if g not in ORDER])
    cold = [g for g in games if force or not is_warm(g)]
    if not cold:  # silent, so `make demo` shows only the demo when warm
        return {}
    out.write(f"trilab: compiling the kernels of {', '.join(cold)} once, on {jobs} "
              f"process{'es' if jobs > 1 else ''} (cached in __pycache__; about "
              f"{max(estimate_seconds(cold, jobs), 5)} s)\n")
    out.flush()
    t0 = time.perf_counter()
    done: dict[str, float] = {}
    if jobs <= 1 or len(cold) == 1:
        for g in cold:
            _, s, entry = _worker(g)
            done[g] = s
            _record({g: entry})
            out.write(f"  {g}: {s:.1f} s\n")
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=jobs, mp_context=mp.get_context("spawn")) as pool:
            for fut in as_completed([pool.submit(_worker, g) for g in cold]):
                g, s, entry = fut.result()
                done[g] = s
                _record({g: entry})
                out.write(f"  {g}: {s:.1f} s\n")
                out.flush()
    out.write(f"trilab: compiled in {time.perf_counter() - t0:.0f} s\n")
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trilab.solver.compiled",
                                description="Compile and cache every game's kernels "
                                            "(a no-op when they are cached).")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    p.add_argument("--games", default=None, help="comma-separated game names [all]")
    p.add_argument("--force", action="store_true", help="compile even if recorded warm")
    p.add_argument("--probe", metavar="GAME", help=argparse.SUPPRESS)
    p.add_argument("--check", action="store_true",
                   help="only print which games are cold; exit 1 if any")
    a = p.parse_args(argv)
    games = a.games.split(",") if a.games else None
    if a.probe:
        compile_game(a.probe)
        print(json.dumps(loaded_files()))
        return 0
    if a.check:
        from trilab.solver import registry

        cold = [g for g in (games or registry.GAMES) if not is_warm(g)]
        print("cold: " + (", ".join(cold) if cold else "none"))
        return 1 if cold else 0
    warm_up(games, jobs=a.jobs, force=a.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
