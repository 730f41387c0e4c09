"""Monte Carlo tree search, one implementation for every perfect-information game.

The algorithm (UCT, Kocsis and Szepesvari 2006, with the MCTS-Solver backup
of Winands, Bjornsson and Saito 2008, generalised to n seats as max^n):

1. *Select*: from the root, at a decision node of seat ``s`` go to the child
   maximising ``mean_s + c * sqrt(ln N / n)`` (``mean_s`` = mean reward of
   seat ``s`` over the ``n`` simulations through the child, ``N`` those
   through the node); an unvisited child first (children are stored in a
   random order drawn at expansion); a proven child scores its exact reward
   and gets no exploration bonus.  At a chance node, the game samples the
   outcome.
2. *Expand*: a node reached for the second time gets one child per legal
   action (with an expansion threshold ``f > 0``, :data:`DEFAULT_EXPAND`: only a node
   with at least ``f`` visits per legal action; before that it is simulated again).
3. *Simulate*: from a node reached for the first time, the game's random
   playout to the end gives a reward per seat (1 to the winner, 0 to the
   others; all 0 when nobody wins).
4. *Back up*: every node on the path adds the reward vector.  A terminal
   node is *proven* (its exact reward vector is known); a decision node is
   proven as soon as one child is proven with reward 1 for the seat to move
   (nothing is better), or when all its children are proven (the best one
   for that seat).  So forced endings are played exactly.

The move chosen is a proven-best child if the root is proven, else the most
visited child that is not a proven loss (:func:`root_child`, the one rule of the
Python :func:`search` and of the compiled :func:`search_turn`).

Two ways in: :func:`search` (or :meth:`AgentGame.search`) from Python, one
search with its own buffers; and, inside a compiled game loop (a game's
``mcts:N`` seats), :func:`search_turn` on the buffers of :func:`new_work`
(:class:`MctsWork`), allocated once and reused by every move, the loop writing
the root state before each.  Both run :func:`run_simulations`.

Game contract: a game provides the six *agent kernels* of
:class:`trilab.solver.game_api.AgentKernels` (``numba.cfunc`` objects, so this
module is compiled and cached once for all games), stated in
:mod:`trilab.solver.game_api`.

Reproducibility: a search draws only from the stream it is given, so a fixed
number of simulations gives the same move for the same ``(seed, game,
ply)``; a time budget (``mcts:Ns``) does not, since the count depends on the
machine.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import intrinsic
from trilab.solver import clock, rng
from trilab.solver.game_api import AgentKernels
from trilab.solver.jit import kernel

DEFAULT_EXPLORATION = 0.7
"""``c`` of the UCT formula for rewards in [0, 1] (measured on Trike 6-7:
see ``results/agents/``)."""
DEFAULT_EXPAND = 0.0
"""Expansion threshold per legal action of :func:`run_simulations` (0: a node is
expanded at its second visit, plain UCT).  A game with a wide branching factor and an
informed playout sets more (Tabula Trivium's ``mcts-greedy`` agents:
:data:`trilab.solver.tabula_trivium.agents.GREEDY_EXPAND`): once a node is expanded,
every one of its children is visited once before any is visited twice, so for about
as many visits as it has legal actions its mean is the average over *uniformly random*
replies instead of the playout policy's reply; with ~160 turns a node, that average
hides the one reply that captures a hung pawn."""
DEFAULT_MAX_NODES = 1 << 22
"""Tree capacity; when it is full the search goes on without expanding."""

NO_CHILDREN = -1

CLOCK_EVERY = 16
"""Simulations between two readings of the clock under a deadline
(:func:`run_simulations`): an overrun of at most that many simulations (tens of
microseconds), a reading's 30 ns spread over them."""

# columns of Tree.counters
C_NODES, C_SIMULATIONS = range(2)


class Tree(NamedTuple):
    """The search tree as parallel arrays (node 0 is the root)."""

    first_child: np.ndarray  # int64: index of the first child, NO_CHILDREN if not expanded
    n_children: np.ndarray  # int64
    action: np.ndarray  # int64: the action that leads from the parent
    mover: np.ndarray  # int64: seat to move at the node (-1 chance), set at expansion
    visits: np.ndarray  # float64
    value: np.ndarray  # float64[nodes, seats]: sum of the rewards backed up
    proven: np.ndarray  # int8: 1 when ``exact`` holds the node's exact rewards
    exact: np.ndarray  # float64[nodes, seats]
    counters: np.ndarray  # int64[2]: C_NODES, C_SIMULATIONS


def new_tree(n_seats: int, max_nodes: int = DEFAULT_MAX_NODES) -> Tree:
    """An empty tree (only the root is initialised: the search initialises
    each node when it creates it, so the arrays are not written up front)."""
    tree = Tree(
        first_child=np.empty(max_nodes, dtype=np.int64),
        n_children=np.empty(max_nodes, dtype=np.int64),
        action=np.empty(max_nodes, dtype=np.int64),
        mover=np.empty(max_nodes, dtype=np.int64),
        visits=np.empty(max_nodes, dtype=np.float64),
        value=np.empty((max_nodes, n_seats), dtype=np.float64),
        proven=np.empty(max_nodes, dtype=np.int8),
        exact=np.empty((max_nodes, n_seats), dtype=np.float64),
        counters=np.zeros(2, dtype=np.int64),
    )
    return _clear(tree)


def _clear(tree: Tree) -> Tree:
    """``tree`` made empty: the root alone, unexpanded and unvisited, nothing counted
    (the other nodes are initialised when the search creates them)."""
    tree.first_child[0] = NO_CHILDREN
    tree.n_children[0] = 0
    tree.action[0] = -1
    tree.mover[0] = -2
    tree.visits[0] = 0.0
    tree.value[0] = 0.0
    tree.proven[0] = 0
    tree.counters[:] = 0
    tree.counters[C_NODES] = 1
    return tree


_REUSED = threading.local()
REUSED_TREES = 4
"""Trees each thread keeps for its next searches (:func:`reused_tree`)."""


def reused_tree(index: int, n_seats: int, max_nodes: int) -> Tree:
    """An empty tree (:func:`new_tree`) for tree ``index`` of a search in this thread,
    the buffers of the thread's last search of that shape when there was one: a fresh
    tree's memory is mapped and faulted in again at every move, which costs about 5% of
    a move (10,000 simulations on size 13, 50,000 on size 17).  The
    :data:`REUSED_TREES` shapes used last are kept, with the memory their searches
    touched (at most about 300 MB a tree of :data:`DEFAULT_MAX_NODES` nodes, a long
    time budget's) until the thread ends or :func:`release_trees`.  A search reads its
    tree only until it returns its :class:`SearchResult`, so the next search of the
    thread may reuse it."""
    cache = getattr(_REUSED, "trees", None)
    if cache is None:
        cache = _REUSED.trees = {}
    key = (index, n_seats, max_nodes)
    tree = cache.pop(key, None)
    tree = new_tree(n_seats, max_nodes) if tree is None else _clear(tree)
    cache[key] = tree  # the most recent last
    while len(cache) > REUSED_TREES:
        del cache[next(iter(cache))]
    return tree


def _helper_pool(workers: int) -> ThreadPoolExecutor:
    """The helper threads of this thread's root-parallel searches: at least ``workers``,
    kept for its next searches instead of started at every move (whose helper trees
    then began late: ``mcts-squeeze:0.0084s@2`` on size 13 ran 808 simulations a
    millisecond with kept threads against 760 without, runs alternated four times), so
    no other thread's search can hold them up."""
    pool = getattr(_REUSED, "pool", None)
    if pool is None or _REUSED.pool_workers < workers:
        if pool is not None:
            pool.shutdown(wait=False)
        pool = _REUSED.pool = ThreadPoolExecutor(max_workers=workers,
                                                 thread_name_prefix="mcts")
        _REUSED.pool_workers = workers
    return pool


def release_trees() -> None:
    """Free the trees this thread keeps for its next searches (:func:`reused_tree`)."""
    _REUSED.trees = {}


class Scratch(NamedTuple):
    """Buffers of one search (allocated once per search)."""

    state: np.ndarray  # int64: the state being walked down the tree
    actions: np.ndarray  # int64: legal actions at expansion
    playout: np.ndarray  # int64: the playout's own scratch
    rewards: np.ndarray  # float64[seats]
    path: np.ndarray  # int64: nodes from the root


@kernel
def _prove(tree_first, tree_count, tree_proven, tree_exact, node, seat) -> bool:
    """Mark ``node`` proven if its children allow it (see the module docstring)."""
    first = tree_first[node]
    best = -1
    all_proven = True
    for c in range(first, first + tree_count[node]):
        if tree_proven[c]:
            if tree_exact[c, seat] >= 1.0:
                best = c
                all_proven = True
                break
            if best < 0 or tree_exact[c, seat] > tree_exact[best, seat]:
                best = c
        else:
            all_proven = False
    if best < 0 or not all_proven:
        return False
    tree_proven[node] = 1
    for s in range(tree_exact.shape[1]):
        tree_exact[node, s] = tree_exact[best, s]
    return True


@kernel(nogil=True)
def run_simulations(legal, apply, seat, rewards, playout, chance, tables, root, stream,
                    first_child, n_children, action, mover, visits, value, proven, exact,
                    counters, state, actions, pscratch, rew, path, n_sims, c_explore,
                    expand=0.0, deadline=0.0, min_sims=0) -> int:
    """``n_sims`` more simulations (module docstring) from the state ``root`` on the
    tree ``first_child .. counters`` (the fields of :class:`Tree`; its capacity is
    ``first_child.shape[0]``), with the scratch ``state .. path`` (the fields of
    :class:`Scratch`: ``path`` bounds the depth; a deeper walk is evaluated by a
    playout where it stops); returns how many ran (fewer when the root is proven).

    ``legal .. chance``: a game's six agent kernels (cfuncs, passed one by one: a
    cached compiled function cannot hold their addresses); ``tables``: its flat table;
    ``stream``: an ``rng`` state, which advances; ``c_explore``: the UCT constant;
    ``expand``: the expansion threshold per legal action (:data:`DEFAULT_EXPAND`: a node
    other than the root is expanded at its second visit; ``expand = f > 0``: only once
    it has at least ``f`` visits per legal action, a playout from it until then);
    ``deadline > 0``: also stop once the monotonic clock (:func:`trilab.solver.clock.
    monotonic`) reaches ``deadline``, read before every :data:`CLOCK_EVERY`-th
    simulation after the first ``min_sims`` (which run whatever the clock says)."""
    n_seats = value.shape[1]
    capacity = first_child.shape[0]
    done = 0
    while done < n_sims and proven[0] == 0:
        if deadline > 0.0 and done >= min_sims and (done - min_sims) % CLOCK_EVERY == 0 \
                and clock.monotonic() >= deadline:
            break
        for i in range(root.shape[0]):
            state[i] = root[i]
        node = 0
        depth = 0
        path[0] = 0
        newly_proven = False
        while True:
            if proven[node]:
                for s in range(n_seats):
                    rew[s] = exact[node, s]
                break
            if visits[node] == 0.0 and node != 0:
                if playout(tables, state, stream, pscratch, rew) == 0:
                    proven[node] = 1
                    for s in range(n_seats):
                        exact[node, s] = rew[s]
                    newly_proven = True
                break
            if depth + 1 >= path.shape[0]:  # the path buffer is full: evaluate here
                playout(tables, state, stream, pscratch, rew)
                break
            if first_child[node] == NO_CHILDREN:
                n = legal(tables, state, actions)
                if n == 0:  # the root is a finished game
                    rewards(tables, state, rew)
                    proven[node] = 1
                    for s in range(n_seats):
                        exact[node, s] = rew[s]
                    break
                if node != 0 and visits[node] < expand * n:  # too few visits to expand yet
                    playout(tables, state, stream, pscratch, rew)
                    break
                if counters[C_NODES] + n > capacity:  # tree full: evaluate here
                    playout(tables, state, stream, pscratch, rew)
                    break
                who = seat(tables, state)
                if who >= 0:  # random order of the children (Fisher-Yates)
                    for i in range(n - 1, 0, -1):
                        j = rng.below(stream, i + 1)
                        a = actions[i]
                        actions[i] = actions[j]
                        actions[j] = a
                first = counters[C_NODES]
                for i in range(n):
                    action[first + i] = actions[i]
                    first_child[first + i] = NO_CHILDREN
                    visits[first + i] = 0.0
                    proven[first + i] = 0
                    for s in range(n_seats):
                        value[first + i, s] = 0.0
                counters[C_NODES] = first + n
                first_child[node] = first
                n_children[node] = n
                mover[node] = who
            who = mover[node]
            first = first_child[node]
            if who < 0:
                child = first + chance(tables, state, stream)
            else:
                child = -1
                best = -1.0
                log_n = math.log(max(visits[node], 1.0))
                for c in range(first, first + n_children[node]):
                    if proven[c]:
                        score = exact[c, who]
                    elif visits[c] == 0.0:
                        child = c
                        break
                    else:
                        score = value[c, who] / visits[c] + c_explore * math.sqrt(log_n / visits[c])
                    if score > best:
                        best = score
                        child = c
            apply(tables, state, action[child])
            node = child
            depth += 1
            path[depth] = child
        for d in range(depth, -1, -1):
            nd = path[d]
            visits[nd] += 1.0
            for s in range(n_seats):
                value[nd, s] += rew[s]
            if newly_proven and d < depth:
                if mover[nd] >= 0:
                    newly_proven = _prove(first_child, n_children, proven, exact, nd, mover[nd])
                else:
                    newly_proven = False
        done += 1
    counters[C_SIMULATIONS] += done
    return done


@kernel
def root_child(first_child, n_children, mover, visits, value, proven, exact) -> int:
    """The root child whose action is played (the node index; -1 if the root has no
    children), on a tree given by its fields (:class:`Tree`): if the root is proven,
    a proven child with the root's exact value for the seat to move (the most
    visited, the first in child order on a tie); else, among the children that are
    not a proven loss (exact value <= 0) for the seat to move (among all of them if
    every child is one), the one with most visits, then the best mean (exact if
    proven, 0 if unvisited), then the first in child order.  The one rule of both
    :func:`search` and :func:`search_turn`."""
    first = first_child[0]
    if first == NO_CHILDREN:
        return -1
    who = mover[0]
    end = first + n_children[0]
    best = -1
    if proven[0]:
        target = exact[0, who]
        for c in range(first, end):
            if proven[c] and exact[c, who] == target and (best < 0 or visits[c] > visits[best]):
                best = c
        return best
    hopeful = 0
    for c in range(first, end):
        if not (proven[c] and exact[c, who] <= 0.0):
            hopeful += 1
    best_visits = -1.0
    best_value = 0.0
    for c in range(first, end):
        if proven[c]:
            if hopeful > 0 and exact[c, who] <= 0.0:
                continue
            val = exact[c, who]
        else:
            val = value[c, who] / visits[c] if visits[c] > 0.0 else 0.0
        if best < 0 or visits[c] > best_visits or (visits[c] == best_visits and val > best_value):
            best = c
            best_visits = visits[c]
            best_value = val
    return best


# ------------------------------------------------------------------ MCTS inside a game loop

MAX_PATH = 4096
"""Deepest tree path of :func:`search` (and the default of :func:`new_work`)."""
LOOP_MAX_TREE = 1 << 20
"""Most tree nodes of an ``mcts:N`` search inside a game loop (:func:`loop_tree_nodes`)."""
NODES_PER_SIMULATION = 64


class MctsWork(NamedTuple):
    """The buffers of :func:`search_turn`, allocated once (per chunk of games) by
    :func:`new_work` and reused by every search: the game's flat table, the root
    state, the search tree (the fields of :class:`Tree`) and the search's scratch
    (the fields of :class:`Scratch`).  The game loop writes the root state (and any
    per-search setting of its table or state) before each search."""

    tables: np.ndarray  # int64: the game's flat table (a writable copy)
    root: np.ndarray  # int64[state size]: the state searched from
    first_child: np.ndarray  # int64[nodes]
    n_children: np.ndarray  # int64[nodes]
    action: np.ndarray  # int64[nodes]
    mover: np.ndarray  # int64[nodes]
    visits: np.ndarray  # float64[nodes]
    value: np.ndarray  # float64[nodes, seats]
    proven: np.ndarray  # int8[nodes]
    exact: np.ndarray  # float64[nodes, seats]
    counters: np.ndarray  # int64[2]: C_NODES, C_SIMULATIONS
    state: np.ndarray  # int64[state size]: the state walked down the tree
    actions: np.ndarray  # int64[max_actions]
    pscratch: np.ndarray  # int64[playout_scratch]
    rewards: np.ndarray  # float64[seats]
    path: np.ndarray  # int64[max_path]


@nb.njit(cache=True)
def new_work(tables: np.ndarray, state_size: int, n_seats: int, nodes: int, max_actions: int,
             playout_scratch: int, max_path: int) -> MctsWork:
    """Buffers for searches on trees of up to ``nodes`` nodes (:func:`loop_tree_nodes`)
    of a game of ``n_seats`` seats whose states have ``state_size`` numbers, at most
    ``max_actions`` legal actions and a playout scratch of ``playout_scratch``; a tree
    path of at most ``max_path`` nodes.  ``nodes <= 1`` (no seat searches): one-number
    scratch.  ``tables`` is copied (a search may set fields of its copy)."""
    small = nodes <= 1
    return MctsWork(
        tables.copy(), np.zeros(state_size, dtype=np.int64),
        np.empty(nodes, dtype=np.int64), np.empty(nodes, dtype=np.int64),
        np.empty(nodes, dtype=np.int64), np.empty(nodes, dtype=np.int64),
        np.empty(nodes, dtype=np.float64), np.empty((nodes, n_seats), dtype=np.float64),
        np.empty(nodes, dtype=np.int8), np.empty((nodes, n_seats), dtype=np.float64),
        np.zeros(2, dtype=np.int64), np.zeros(state_size, dtype=np.int64),
        np.empty(1 if small else max_actions, dtype=np.int64),
        np.zeros(1 if small else playout_scratch, dtype=np.int64),
        np.zeros(n_seats, dtype=np.float64),
        np.empty(1 if small else max_path, dtype=np.int64),
    )


@kernel
def reset_tree(w: MctsWork) -> None:
    """An empty tree in ``w``: the root alone, as :func:`new_tree` leaves it, and no
    simulation counted."""
    w.first_child[0] = NO_CHILDREN
    w.n_children[0] = 0
    w.action[0] = -1
    w.mover[0] = -2
    w.visits[0] = 0.0
    for s in range(w.value.shape[1]):
        w.value[0, s] = 0.0
    w.proven[0] = 0
    w.counters[C_NODES] = 1
    w.counters[C_SIMULATIONS] = 0


@kernel(inline="always")
def loop_tree_nodes(simulations: int, max_actions: int) -> int:
    """Tree nodes of an ``mcts:N`` search inside a game loop: ``64 N``
    (:data:`NODES_PER_SIMULATION`), but at least one full expansion of any root
    (``max_actions + 1``: else the root could stay unexpanded) and at most
    :data:`LOOP_MAX_TREE`."""
    return min(LOOP_MAX_TREE, max(NODES_PER_SIMULATION * simulations, max_actions + 1))


def loop_tree_capacity(simulations: int, max_actions: int) -> int:
    """:func:`loop_tree_nodes` from Python: the ``max_nodes`` that makes
    :meth:`AgentGame.search` play as the game loop's ``mcts:N`` seat."""
    return int(loop_tree_nodes(np.int64(simulations), np.int64(max_actions)))


@kernel
def search_turn(legal, apply, seat, rewards, playout, chance, w: MctsWork, stream: np.ndarray,
                simulations: int, exploration: float, nodes: int, expand=0.0) -> int:
    """One ``mcts:N`` move inside a game loop: ``simulations`` simulations
    (:func:`run_simulations`) from the state ``w.root`` (written by the caller; the game
    goes on) with the table ``w.tables``, on an empty tree of ``nodes`` nodes (at most
    the buffers'), drawing from ``stream``; returns the action :func:`root_child` picks
    (-1 if the root has no children).  ``legal .. chance``: the game's agent kernels,
    one by one (a cached compiled function cannot hold cfunc addresses); ``expand``: the
    expansion threshold of :func:`run_simulations`."""
    reset_tree(w)
    cap = min(nodes, w.first_child.shape[0])
    run_simulations(legal, apply, seat, rewards, playout, chance, w.tables, w.root, stream,
                    w.first_child[:cap], w.n_children[:cap], w.action[:cap], w.mover[:cap],
                    w.visits[:cap], w.value[:cap], w.proven[:cap], w.exact[:cap], w.counters,
                    w.state, w.actions, w.pscratch, w.rewards, w.path, simulations, exploration,
                    expand)
    best = root_child(w.first_child, w.n_children, w.mover, w.visits, w.value, w.proven, w.exact)
    return w.action[best] if best >= 0 else -1


# Compiled calls of single kernels, for the Python API (a cfunc object called
# from Python would run its pure-Python source instead of the compiled code).


@nb.njit(cache=True)
def call_legal(legal, tables, state, out) -> int:
    return legal(tables, state, out)


@nb.njit(cache=True)
def call_apply(apply, tables, state, action) -> int:
    return apply(tables, state, action)


@nb.njit(cache=True)
def call_seat(seat, tables, state) -> int:
    return seat(tables, state)


@nb.njit(cache=True)
def call_rewards(rewards, tables, state, out) -> int:
    return rewards(tables, state, out)


@nb.njit(cache=True)
def call_playout(playout, tables, state, stream, scratch, out) -> int:
    return playout(tables, state, stream, scratch, out)


@dataclass(frozen=True)
class AgentGame:
    """A perfect-information game as the agents see it (one per registry entry
    that has agents): its kernels, seat count and buffer sizes, with a
    Python API over the compiled kernels."""

    name: str
    n_seats: int
    kernels: AgentKernels
    tables: np.ndarray  # the flat int64 table (writable copy)
    max_actions: int
    playout_scratch: int
    expand: float = DEFAULT_EXPAND
    """The expansion threshold of this game's searches (:func:`run_simulations`) when the
    agent does not set one: what the game's ``mcts`` seats of this playout use."""

    def legal(self, state: np.ndarray) -> list[int]:
        out = np.empty(self.max_actions, dtype=np.int64)
        n = call_legal(self.kernels.legal, self.tables, state, out)
        return [int(a) for a in out[:n]]

    def apply(self, state: np.ndarray, action: int) -> None:
        call_apply(self.kernels.apply, self.tables, state, np.int64(action))

    def seat(self, state: np.ndarray) -> int:
        return int(call_seat(self.kernels.seat, self.tables, state))

    def rewards(self, state: np.ndarray) -> list[float]:
        out = np.zeros(self.n_seats, dtype=np.float64)
        call_rewards(self.kernels.rewards, self.tables, state, out)
        return [float(x) for x in out]

    def playout(self, state: np.ndarray, stream: np.ndarray) -> tuple[int, list[float]]:
        """Random play to the end (in place): ``(plies, rewards)``."""
        out = np.zeros(self.n_seats, dtype=np.float64)
        scratch = np.zeros(self.playout_scratch, dtype=np.int64)
        plies = call_playout(self.kernels.playout, self.tables, state, stream, scratch, out)
        return int(plies), [float(x) for x in out]

    def search(self, state: np.ndarray, agent: AgentSpec, stream: np.ndarray,
               max_nodes: int | None = None) -> SearchResult:
        if agent.expand is None:
            agent = dataclasses.replace(agent, expand=self.expand)
        return search(self.kernels, self.tables, state, self.n_seats, agent, stream,
                      max_nodes=max_nodes, max_actions=self.max_actions,
                      playout_scratch=self.playout_scratch)


@dataclass(frozen=True)
class ChildStats:
    action: int
    visits: int
    value: float  # mean reward of the seat to move at the root
    proven: bool


@dataclass(frozen=True)
class SearchResult:
    """The outcome of one search from a root state."""

    action: int
    seat: int
    simulations: int
    seconds: float
    value: float  # the chosen child's mean reward for ``seat`` (exact if proven)
    proven: bool  # the chosen child's value is exact
    nodes: int
    children: list[ChildStats]


@dataclass(frozen=True)
class AgentSpec:
    """``mcts:N`` (N simulations per move) or ``mcts:Ns`` (N seconds per move)."""

    simulations: int | None = None
    seconds: float | None = None
    exploration: float = DEFAULT_EXPLORATION
    expand: float | None = None
    """The expansion threshold per legal action (:func:`run_simulations`); None: the
    game's (:attr:`AgentGame.expand`, else :data:`DEFAULT_EXPAND`)."""
    threads: int = 1
    """Root parallelisation (:func:`search`): this many independent trees, one a
    thread, their root children's statistics summed before the move is chosen."""
    shared_tree: bool = False
    """Tree parallelisation instead (``Ns@Tt``, :func:`search_shared_tree`): the
    ``threads`` grow one tree.  Time budgets only: which thread reaches a node first
    decides what the tree holds, so a fixed budget would not give the same move twice."""

    def __post_init__(self) -> None:
        if not 1 <= self.threads <= MAX_THREADS:
            raise ValueError(f"threads must be 1..{MAX_THREADS}, not {self.threads}")
        if self.shared_tree and (self.threads < 2 or self.seconds is None):
            raise ValueError("a shared tree needs at least 2 threads and a time budget "
                             "(Ns@Tt): with a fixed budget its moves would not be "
                             "reproducible; N@T (independent trees) is")

    @property
    def budget_text(self) -> str:
        """The budget as written in a spec: ``N``, ``Ns``, ``N@T``, ``Ns@T`` or ``Ns@Tt``."""
        budget = f"{self.seconds:g}s" if self.seconds is not None else f"{self.simulations}"
        if self.threads == 1:
            return budget
        return f"{budget}@{self.threads}" + ("t" if self.shared_tree else "")

    @property
    def text(self) -> str:
        return f"mcts:{self.budget_text}"


MIN_SECONDS = 0.001
MAX_SECONDS = 86_400.0
"""A time budget is 1 ms to one day per move."""
MAX_SIMULATIONS = 1_000_000_000
"""A simulation budget is 1 to a billion per move (an int64 in every kernel)."""
MAX_THREADS = 64
"""Most threads (root-parallel trees) of one search."""
AGENT_FORMS = ("mcts:N (N simulations per move) or mcts:Ns (N seconds per move); "
               "N@T or Ns@T: T trees searched in parallel threads; Ns@Tt: T threads "
               "growing one tree")


def parse_agent(text: str) -> AgentSpec:
    """Parse an agent spec; ``ValueError`` with one line when it is not one."""
    text = text.strip()
    name, _, arg = text.partition(":")
    if name != "mcts":
        raise ValueError(f"unknown agent {text!r}; agents: {AGENT_FORMS}")
    return parse_budget(text, arg)


def parse_budget(text: str, arg: str) -> AgentSpec:
    """The budget ``arg`` (``N`` simulations or ``Ns`` seconds a move) of the agent
    spec ``text`` (named in the one-line ``ValueError`` when it is no budget)."""
    if not arg:
        raise ValueError(f"agent {text!r} needs a budget: {AGENT_FORMS}")
    arg, at, threads_text = arg.partition("@")
    threads = 1
    shared = at and threads_text.endswith("t")
    threads_text = threads_text.removesuffix("t") if shared else threads_text
    if at:
        if not (threads_text.isascii() and threads_text.isdigit()) \
                or not 1 <= int(threads_text) <= MAX_THREADS:
            raise ValueError(f"agent {text!r}: the threads T of N@T must be a whole number "
                             f"1..{MAX_THREADS}, not {threads_text!r}")
        threads = int(threads_text)
    timed = arg.endswith("s")
    try:
        number = float(arg[:-1]) if timed else int(arg)
    except ValueError:
        raise ValueError(f"agent {text!r}: bad budget {arg!r}; {AGENT_FORMS}") from None
    if timed:
        if not math.isfinite(number):
            raise ValueError(f"agent {text!r}: bad budget {arg!r}; the seconds must be a "
                             f"finite number from {MIN_SECONDS:g} to {MAX_SECONDS:g}")
        if number < MIN_SECONDS:
            raise ValueError(f"agent {text!r}: at least {MIN_SECONDS:g} s per move")
        if number > MAX_SECONDS:
            raise ValueError(f"agent {text!r}: at most {MAX_SECONDS:g} s per move")
        if shared and threads < 2:
            raise ValueError(f"agent {text!r}: a shared tree needs at least 2 threads")
        return AgentSpec(seconds=number, threads=threads, shared_tree=bool(shared))
    if shared:
        raise ValueError(f"agent {text!r}: a shared tree (@Tt) takes a time budget (Ns@Tt): "
                         "with a fixed budget its moves would not be reproducible")
    if number <= 0:
        raise ValueError(f"agent {text!r}: N must be at least 1 simulation")
    if number > MAX_SIMULATIONS:
        raise ValueError(f"agent {text!r}: N must be at most {MAX_SIMULATIONS:,} simulations")
    if number < threads:
        raise ValueError(f"agent {text!r}: N must be at least one simulation a thread")
    return AgentSpec(simulations=number, threads=threads)


TIME_BATCH = 256
"""Under a time budget, the simulations each tree runs whatever the clock says
(:func:`_grow`), so a thread that starts late still adds to the move."""


def search(kernels: AgentKernels, tables: np.ndarray, root: np.ndarray, n_seats: int,
           agent: AgentSpec, stream: np.ndarray, max_nodes: int | None = None,
           max_actions: int = 1024, playout_scratch: int = 1024) -> SearchResult:
    """Run one search from ``root`` and choose a move (see the module docstring).

    ``stream`` is an ``rng`` state array; it advances.  ``max_actions`` bounds
    the legal actions of any state, ``playout_scratch`` the playout buffer.

    With ``agent.threads = T > 1`` (*root parallelisation*, Chaslot, Winands and
    van den Herik 2008): ``T`` independent trees, each with its own stream drawn
    from ``stream`` and its own buffers, grow at once in ``T`` threads (the kernel
    releases the GIL); a budget of ``N`` simulations gives tree ``i`` ``N // T``
    (one more for ``i < N % T``), so the move is still reproducible from the seed;
    a time budget gives each tree the whole time (and at least one batch of
    :data:`TIME_BATCH` simulations, however late its thread starts).  The root
    children's visits and rewards are then summed action by action
    (:func:`merge_roots`) and :func:`root_child` chooses on the sum.  Tree 0 grows in
    the calling thread, the others in helper threads that the calling thread keeps for
    its searches (:func:`_helper_pool`), so no other thread's search can hold them up.
    """
    if max_nodes is None:
        budget = agent.simulations if agent.simulations is not None else 1 << 30
        if agent.simulations is not None:
            budget = -(-budget // agent.threads)
        max_nodes = int(min(DEFAULT_MAX_NODES, max(1024, 64 * budget, 2 * max_actions + 2)))
    tables = np.array(tables, dtype=np.int64)  # a writable copy: the kernels' signature
    expand = DEFAULT_EXPAND if agent.expand is None else agent.expand
    t0 = time.perf_counter()
    deadline = None if agent.seconds is None else clock.monotonic() + agent.seconds
    if agent.shared_tree:
        return search_shared_tree(kernels, tables, root, n_seats, agent, stream, max_nodes,
                                  max_actions, playout_scratch, deadline, t0)
    if agent.threads == 1:
        tree = reused_tree(0, n_seats, max_nodes)
        _grow(kernels, tables, root, stream, tree, _new_scratch(root, n_seats, max_actions,
              playout_scratch), agent.exploration, expand, agent.simulations, deadline)
        return _choose(tree, int(tree.counters[C_SIMULATIONS]), time.perf_counter() - t0)
    k = agent.threads
    streams = [rng.game_stream(np.uint64(rng.next_u64(stream)), np.uint64(i)) for i in range(k)]
    trees = [reused_tree(i, n_seats, max_nodes) for i in range(k)]
    args = []
    for i in range(k):
        sims = None
        if agent.simulations is not None:
            sims = agent.simulations // k + (1 if i < agent.simulations % k else 0)
        args.append((kernels, tables.copy(), root, streams[i], trees[i],
                     _new_scratch(root, n_seats, max_actions, playout_scratch),
                     agent.exploration, expand, sims, deadline))
    pool = _helper_pool(k - 1)
    jobs = [pool.submit(_grow, *a) for a in args[1:]]
    _grow(*args[0])
    for job in jobs:
        job.result()
    merged = merge_roots(trees, n_seats)
    return _choose(merged, int(merged.counters[C_SIMULATIONS]), time.perf_counter() - t0)


def _new_scratch(root: np.ndarray, n_seats: int, max_actions: int,
                 playout_scratch: int) -> Scratch:
    return Scratch(
        state=np.empty_like(root), actions=np.empty(max_actions, dtype=np.int64),
        playout=np.zeros(playout_scratch, dtype=np.int64),
        rewards=np.zeros(n_seats, dtype=np.float64),
        path=np.empty(MAX_PATH, dtype=np.int64))


def _grow(kernels: AgentKernels, tables: np.ndarray, root: np.ndarray, stream: np.ndarray,
          tree: Tree, scratch: Scratch, exploration: float, expand: float,
          simulations: int | None, deadline: float | None) -> None:
    """Grow ``tree`` by ``simulations``, or until ``deadline`` (seconds of
    :func:`trilab.solver.clock.monotonic`, after at least :data:`TIME_BATCH`
    simulations): one kernel call either way, the kernel reading the clock itself
    (:func:`run_simulations`), since each call costs tens of microseconds of dispatch;
    it stops early when the root is proven."""
    if simulations is not None:
        n, until, at_least = simulations, 0.0, 0
    else:
        n, until, at_least = 1 << 62, deadline, TIME_BATCH
    run_simulations(*kernels, tables, root, stream, *tree[:-1], tree.counters, *scratch, n,
                    exploration, expand, until, at_least)


def merge_roots(trees: list[Tree], n_seats: int) -> Tree:
    """One tree of a root and its children from the trees of a root-parallel search:
    each child's visits and summed rewards are the sums over the trees of the child
    with its action.  Proofs: if some tree proved its root, the root and its
    children's proofs are that tree's (the first such), so the proven root has the
    proven child that :func:`root_child` looks for; else a child proven in any tree
    is proven with the exact rewards of the first tree that proved it.  (Exact
    rewards of one position can differ between trees: with three seats a seat
    choosing between children equal for it proves the first in its random child
    order.)  Counters: the nodes and simulations of all trees.  A tree whose root
    was never expanded adds nothing."""
    expanded = [t for t in trees if t.first_child[0] != NO_CHILDREN]
    if not expanded:
        return trees[0]
    base = expanded[0]
    first, n = int(base.first_child[0]), int(base.n_children[0])
    merged = new_tree(n_seats, 1 + n)
    merged.first_child[0] = 1
    merged.n_children[0] = n
    merged.mover[0] = base.mover[0]
    merged.action[1:] = base.action[first:first + n]
    merged.first_child[1:] = NO_CHILDREN
    merged.n_children[1:] = 0
    merged.mover[1:] = -2
    merged.visits[1:] = 0.0
    merged.value[1:] = 0.0
    merged.proven[1:] = 0
    merged.exact[:] = 0.0
    index = {int(a): 1 + i for i, a in enumerate(base.action[first:first + n])}
    merged.counters[:] = 0
    prover = next((t for t in expanded if t.proven[0]), None)
    if prover is not None:
        merged.proven[0] = 1
        merged.exact[0] = prover.exact[0]
    for t in trees:
        merged.counters[:] += t.counters
        merged.visits[0] += t.visits[0]
        merged.value[0] += t.value[0]
        f = int(t.first_child[0])
        if f == NO_CHILDREN:
            continue
        for c in range(f, f + int(t.n_children[0])):
            j = index[int(t.action[c])]
            merged.visits[j] += t.visits[c]
            merged.value[j] += t.value[c]
            if t.proven[c] and not merged.proven[j] and (prover is None or t is prover):
                merged.proven[j] = 1
                merged.exact[j] = t.exact[c]
    return merged


@intrinsic
def _fence(typingctx):
    """A sequentially consistent memory fence (LLVM ``fence seq_cst``): stores before it
    are seen by other threads before stores after it (and the compiler moves no memory
    access across it)."""
    def codegen(context, builder, signature, args):
        builder.fence("seq_cst")
        return context.get_dummy_value()
    return types.void(), codegen


SHARED_SNAPSHOT_EVERY = 16
"""Simulations between two readings of the other threads' root statistics in a shared
tree (:func:`run_shared_simulations`)."""


@kernel(nogil=True)
def run_shared_simulations(legal, apply, seat, rewards, playout, chance, tables, root,
                           stream, first_child, n_children, action, mover, visits, value,
                           proven, exact, alloc, me, root_visits, root_value, seen_visits,
                           seen_value, state, actions, pscratch, rew, path, c_explore,
                           expand, deadline, min_sims) -> int:
    """Thread ``me``'s simulations on a tree that several threads grow at once, until
    ``deadline`` (monotonic seconds; at least ``min_sims``) or a proven root; returns
    how many ran.  The root must be expanded (``n`` children from ``first_child[0]``).

    The root children's visits and rewards are kept per thread (``root_visits[t, i]``,
    ``root_value[t, i, seat]`` for child ``first_child[0] + i``; the tree's own
    ``visits`` and ``value`` of the root children are not written), so the threads
    do not contend for the most written entries; a thread chooses at the root, and
    below a root child, on its own statistics plus the others' as it last read them
    (``seen_visits``, ``seen_value``; read every :data:`SHARED_SNAPSHOT_EVERY`
    simulations).  Below the root children the nodes are shared: a thread counts
    its visit of a node when it selects it (a virtual loss: the others see the
    visit before its reward), and adds the reward when it backs up.  Updates are
    not atomic, so a few may be lost where two threads write the same node at the
    same moment.  Thread ``me`` makes nodes from ``alloc[me, 0]`` up to
    ``alloc[me, 1]`` (one row a thread, padded apart); a node two threads expand
    at once keeps the children written last (the other thread's simulation ends in
    children nobody reaches again).  Children are written before their parent
    points to them, behind a fence.  Selection, expansion (``expand``), playouts
    and the MCTS-Solver backup are those of :func:`run_simulations`."""
    n_seats = value.shape[1]
    n_threads = root_visits.shape[0]
    rfirst = first_child[0]
    rn = n_children[0]
    rwho = mover[0]
    done = 0
    while proven[0] == 0:
        if done >= min_sims and (done - min_sims) % CLOCK_EVERY == 0 \
                and clock.monotonic() >= deadline:
            break
        if done % SHARED_SNAPSHOT_EVERY == 0:
            for i in range(rn):
                seen_visits[i] = 0.0
                for s in range(n_seats):
                    seen_value[i, s] = 0.0
                for t in range(n_threads):
                    if t != me:
                        seen_visits[i] += root_visits[t, i]
                        for s in range(n_seats):
                            seen_value[i, s] += root_value[t, i, s]
        for i in range(root.shape[0]):
            state[i] = root[i]
        total = 0.0
        for i in range(rn):
            total += root_visits[me, i] + seen_visits[i]
        log_n = math.log(max(total, 1.0))
        node = -1
        best = -1.0
        for i in range(rn):
            c = rfirst + i
            n_c = root_visits[me, i] + seen_visits[i]
            if proven[c]:
                score = exact[c, rwho]
            elif n_c == 0.0:
                node = c
                break
            else:
                score = ((root_value[me, i, rwho] + seen_value[i, rwho]) / n_c
                         + c_explore * math.sqrt(log_n / n_c))
            if score > best:
                best = score
                node = c
        apply(tables, state, action[node])
        depth = 1
        path[0] = 0
        path[1] = node
        newly_proven = False
        while True:
            if proven[node]:
                for s in range(n_seats):
                    rew[s] = exact[node, s]
                break
            if depth == 1:
                before = root_visits[me, node - rfirst] + seen_visits[node - rfirst]
            else:
                before = visits[node] - 1.0  # the visits before this one
            if before <= 0.0:  # a first visit: a playout
                if playout(tables, state, stream, pscratch, rew) == 0:
                    for s in range(n_seats):
                        exact[node, s] = rew[s]
                    _fence()
                    proven[node] = 1
                    newly_proven = True
                break
            if depth + 1 >= path.shape[0]:
                playout(tables, state, stream, pscratch, rew)
                break
            first = first_child[node]
            if first == NO_CHILDREN:
                n = legal(tables, state, actions)
                if n == 0:
                    rewards(tables, state, rew)
                    for s in range(n_seats):
                        exact[node, s] = rew[s]
                    _fence()
                    proven[node] = 1
                    newly_proven = True
                    break
                if before < expand * n or alloc[me, 0] + n > alloc[me, 1]:
                    playout(tables, state, stream, pscratch, rew)
                    break
                who = seat(tables, state)
                if who >= 0:
                    for i in range(n - 1, 0, -1):
                        j = rng.below(stream, i + 1)
                        a = actions[i]
                        actions[i] = actions[j]
                        actions[j] = a
                first = alloc[me, 0]
                for i in range(n):
                    action[first + i] = actions[i]
                    first_child[first + i] = NO_CHILDREN
                    n_children[first + i] = 0
                    visits[first + i] = 0.0
                    proven[first + i] = 0
                    for s in range(n_seats):
                        value[first + i, s] = 0.0
                alloc[me, 0] = first + n
                mover[node] = who
                n_children[node] = n
                _fence()
                first_child[node] = first
            _fence()
            who = mover[node]
            if who < 0:
                child = first + chance(tables, state, stream)
            else:
                child = -1
                best = -1.0
                log_n = math.log(max(before + 1.0, 1.0))
                for c in range(first, first + n_children[node]):
                    if proven[c]:
                        score = exact[c, who]
                    elif visits[c] == 0.0:
                        child = c
                        break
                    else:
                        score = value[c, who] / visits[c] + c_explore * math.sqrt(
                            log_n / visits[c])
                    if score > best:
                        best = score
                        child = c
            visits[child] += 1.0  # counted now: the other threads look elsewhere meanwhile
            apply(tables, state, action[child])
            node = child
            depth += 1
            path[depth] = child
        for d in range(depth, 1, -1):
            nd = path[d]
            for s in range(n_seats):
                value[nd, s] += rew[s]
            if newly_proven and d < depth:
                if mover[nd] >= 0:
                    newly_proven = _prove(first_child, n_children, proven, exact, nd, mover[nd])
                else:
                    newly_proven = False
        i = path[1] - rfirst
        root_visits[me, i] += 1.0
        for s in range(n_seats):
            root_value[me, i, s] += rew[s]
        if newly_proven and depth > 1:
            if mover[path[1]] >= 0:
                newly_proven = _prove(first_child, n_children, proven, exact, path[1],
                                      mover[path[1]])
            else:
                newly_proven = False
        if newly_proven:
            _prove(first_child, n_children, proven, exact, 0, rwho)
        done += 1
    return done


ROW_PAD = 8
"""int64 entries between two threads' rows of the node allocator: one cache line."""


def search_shared_tree(kernels: AgentKernels, tables: np.ndarray, root: np.ndarray,
                       n_seats: int, agent: AgentSpec, stream: np.ndarray, max_nodes: int,
                       max_actions: int, playout_scratch: int, deadline: float,
                       t0: float) -> SearchResult:
    """:func:`search` with ``agent.shared_tree`` (*tree parallelisation*, Chaslot,
    Winands and van den Herik 2008): the calling thread expands the root (two
    simulations of :func:`run_simulations`), then ``agent.threads`` threads grow the
    one tree until ``deadline`` (:func:`run_shared_simulations`, each thread with its
    own stream drawn from ``stream`` and its own share of the nodes), and
    :func:`root_child` chooses on the root children's statistics summed over the
    threads.  Not reproducible: the tree depends on how the threads interleave."""
    tree = reused_tree(0, n_seats, max_nodes)
    first_scratch = _new_scratch(root, n_seats, max_actions, playout_scratch)
    run_simulations(*kernels, tables, root, stream, *tree[:-1], tree.counters, *first_scratch,
                    2, agent.exploration, 0.0, 0.0, 0)
    if tree.proven[0] or tree.first_child[0] == NO_CHILDREN:
        return _choose(tree, int(tree.counters[C_SIMULATIONS]), time.perf_counter() - t0)
    k = agent.threads
    rfirst, rn = int(tree.first_child[0]), int(tree.n_children[0])
    root_visits = np.zeros((k, rn + ROW_PAD))
    root_value = np.zeros((k, rn + ROW_PAD, n_seats))
    root_visits[0, :rn] = tree.visits[rfirst:rfirst + rn]
    root_value[0, :rn] = tree.value[rfirst:rfirst + rn]
    used = int(tree.counters[C_NODES])
    share = (max_nodes - used) // k
    alloc = np.zeros((k, ROW_PAD), dtype=np.int64)
    for i in range(k):
        alloc[i, 0], alloc[i, 1] = used + i * share, used + (i + 1) * share
    streams = [rng.game_stream(np.uint64(rng.next_u64(stream)), np.uint64(i)) for i in range(k)]
    done = [0] * k
    expand = DEFAULT_EXPAND if agent.expand is None else agent.expand

    def grow(i: int) -> None:
        scratch = _new_scratch(root, n_seats, max_actions, playout_scratch)
        done[i] = run_shared_simulations(
            *kernels, tables if i == 0 else tables.copy(), root, streams[i], *tree[:-2],
            tree.exact, alloc, i, root_visits, root_value, np.zeros(rn),
            np.zeros((rn, n_seats)), *scratch, agent.exploration, expand, deadline,
            TIME_BATCH // k)

    pool = _helper_pool(k - 1)
    jobs = [pool.submit(grow, i) for i in range(1, k)]
    grow(0)
    for job in jobs:
        job.result()
    tree.visits[rfirst:rfirst + rn] = root_visits[:, :rn].sum(axis=0)
    tree.value[rfirst:rfirst + rn] = root_value[:, :rn].sum(axis=0)
    tree.counters[C_SIMULATIONS] += sum(done)
    tree.counters[C_NODES] = used + sum(int(alloc[i, 0]) - (used + i * share) for i in range(k))
    return _choose(tree, int(tree.counters[C_SIMULATIONS]), time.perf_counter() - t0)


def _choose(tree: Tree, sims: int, seconds: float) -> SearchResult:
    """The :class:`SearchResult` of a searched tree: the move of :func:`root_child`."""
    best = int(root_child(tree.first_child, tree.n_children, tree.mover, tree.visits,
                          tree.value, tree.proven, tree.exact))
    if best < 0:
        raise ValueError("the game is over: there is no move to choose")
    first = int(tree.first_child[0])
    who = int(tree.mover[0])
    stats = []
    for c in range(first, first + int(tree.n_children[0])):
        vis = int(tree.visits[c])
        if tree.proven[c]:
            val = float(tree.exact[c, who])
        else:
            val = float(tree.value[c, who] / vis) if vis else 0.0
        stats.append(ChildStats(int(tree.action[c]), vis, val, bool(tree.proven[c])))
    chosen = stats[best - first]
    stats.sort(key=lambda s: (-s.visits, s.action))
    return SearchResult(action=chosen.action, seat=who, simulations=sims, seconds=seconds,
                        value=chosen.value, proven=chosen.proven,
                        nodes=int(tree.counters[C_NODES]), children=stats)
