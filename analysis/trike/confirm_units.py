"""Second proof of a split Trike reply, unit by unit.

A move-split run (``trilab solve trike``, the default from size 9) proves a reply
through a tree of units, and the reply's row keeps that tree under ``"units"``:
``{point: {"nodes", "seconds", "units"?: {...}, "lost"?: {...}}}``, the placer's
answers to the reply, the mover's moves after an answer, and so on down to the
units searched whole (leaves, no ``"units"``).  Re-proving such a reply in one
search would cost as much as the first run and could not be stopped and resumed,
so it is re-proven from the same tree with the other table keying:

* a **leaf** is searched again, with whole-position keys (the first run used region
  keys), and gives its value for the placer;
* at an inner node where the side to move needs **every** move for the claim to hold
  (the mover, if the claim is that the placer wins; the placer, if the claim is that
  it loses), the recorded children must cover every symmetry class of the node's
  legal moves, worked out here from the position (:func:`move_representatives`),
  and each must verify the same claim;
* at a node where **one** move is enough, the children are tried one by one until
  one verifies it (those whose recorded subtree can prove the claim at all first).

A reply proven before the runs kept their units (size 9's (5,3)) is given a tree of
two plies (:func:`two_ply_tree`): the placer's answers in the agent's order, each with
the mover's moves after it as leaves.

Every recorded move is checked to be legal where it is played (a move the position
does not have raises :class:`RecordError`): the record is not trusted to name moves.

The first run's values of the inner units are not recorded and not used: only the
reply's claim is, and it is re-proven from the leaves up by the negamax rules.  Where
one move is enough, the children whose recorded subtrees can prove the claim at all
come first, and among them the agent's order reversed (a split run tries its units in
the agent's order and stops at the first that proves the node, so the winner is the
last it tried).  Each leaf's result is saved at once (``leaves`` of the confirmation
record, by its line from the opening: :func:`line_tag`), and a leaf's search saves its
stack every 30 s (:mod:`trilab.solver.trike.stack_file`), so a stopped confirmation
loses at most the last 30 s of the leaf it was searching; leaves shared by two tries
are searched once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from trilab.analysis.trike.openings import line_position, line_tag, move_representatives
from trilab.analysis.trike.unit_order import agent_order
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver
from trilab.solver.trike.stack_file import SearchCheckpoint

STACK_EVERY_SECONDS = 30.0
"""How often a leaf's search saves its stack."""


class RecordError(ValueError):
    """A unit tree that names a move the position does not have."""


def children(node: dict) -> dict[int, dict]:
    """The units below ``node`` by the point of their move (empty for a leaf)."""
    return {int(k): v for k, v in node.get("units", {}).items()}


def leaves(node: dict, path: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """The lines of the units searched whole below ``node`` (at ``path``)."""
    kids = children(node)
    if not kids:
        yield path
    for point, kid in sorted(kids.items()):
        yield from leaves(kid, path + (point,))


def two_ply_tree(size: int, path: tuple[int, ...]) -> dict:
    """A unit tree for the position after ``path`` (the placer to move) when none is on
    record: its moves (one per symmetry class, in the agent's order,
    :func:`agent_order`), each with the opponent's moves after it (one per class) as
    leaves; a move that ends the game is a leaf itself."""
    pos = line_position(size, path)
    tree: dict = {"units": {}}
    for a in agent_order(pos, sorted(set(move_representatives(pos).values()))):
        after = pos.play(a)
        replies = agent_order(after, sorted(set(move_representatives(after).values())))
        tree["units"][str(a)] = {"units": {str(m): {} for m in replies}} if replies else {}
    return tree


def needs_every_move(path: tuple[int, ...], claim: bool) -> bool:
    """Whether the claim "the placer wins" (``claim``) or "loses" at ``path`` needs
    every move of the side to move there (the placer moves at even lengths)."""
    placer_to_move = len(path) % 2 == 0
    return claim != placer_to_move


class UnitVerifier:
    """Re-proves claims on a unit tree; ``prove_leaf(path) -> placer wins`` searches one
    leaf (and saves it), ``known`` holds the leaves already proven.  ``order(pos,
    moves)`` ranks the children of a node where one move is enough (default: the
    agent's order, :func:`agent_order`); the most promising is tried *last* of those
    ranked, as the first run stopped at it.

    Every method raises :class:`RecordError` when the tree names a move its position
    does not have, and lets through whatever ``prove_leaf`` raises (a time limit)."""

    def __init__(self, size: int, prove_leaf: Callable[[tuple[int, ...]], bool],
                 known: dict[str, bool] | None = None,
                 order: Callable[[trike.TrikePosition, list[int]], list[int]] = agent_order):
        self.size = size
        self.prove_leaf = prove_leaf
        self.known = dict(known or {})
        self.order = order
        self._reps: dict[tuple[int, ...], dict[int, int]] = {}

    def classes(self, node: dict, path: tuple[int, ...]) -> dict[int, int]:
        """Each legal move at ``path`` -> its symmetry class's representative, after
        checking that every child of ``node`` is one of those moves."""
        if path not in self._reps:
            self._reps[path] = move_representatives(line_position(self.size, path))
        reps = self._reps[path]
        strange = [p for p in children(node) if p not in reps]
        if strange:
            raise RecordError(f"unit line {line_tag(path)}: {strange[0]} is not a legal move")
        return reps

    def covers(self, node: dict, path: tuple[int, ...]) -> bool:
        """Whether the children of ``node`` cover every symmetry class of its moves."""
        reps = self.classes(node, path)
        return {reps[p] for p in children(node)} == set(reps.values())

    def possible(self, node: dict, path: tuple[int, ...], claim: bool) -> bool:
        """Whether the tree below ``node`` could prove ``claim`` if every leaf not yet
        searched agreed (no search: legal moves, and the coverage of the nodes that
        need every move)."""
        kids = children(node)
        if not kids:
            return self.known.get(line_tag(path), claim) == claim
        self.classes(node, path)
        if needs_every_move(path, claim):
            return self.covers(node, path) and all(
                self.possible(k, path + (p,), claim) for p, k in kids.items())
        return any(self.possible(k, path + (p,), claim) for p, k in kids.items())

    def verify(self, node: dict, path: tuple[int, ...], claim: bool) -> bool:
        """Whether the tree below ``node`` proves ``claim`` with every leaf searched
        again (short-circuit: a node stops at its first failing or proving child)."""
        kids = children(node)
        if not kids:
            tag = line_tag(path)
            if tag not in self.known:
                self.known[tag] = bool(self.prove_leaf(path))
            return self.known[tag] == claim
        self.classes(node, path)
        if needs_every_move(path, claim):
            return self.covers(node, path) and all(
                self.verify(k, path + (p,), claim) for p, k in sorted(kids.items()))
        hopeful = [p for p in sorted(kids) if self.possible(kids[p], path + (p,), claim)]
        if len(hopeful) > 1:
            hopeful = self.order(line_position(self.size, path), hopeful)[::-1]
        return any(self.verify(kids[p], path + (p,), claim) for p in hopeful)


def leaf_prover(size: int, tt_mb: float, threads: int, region_keys: bool,
                save: Callable[[str, dict], None],
                tick: Callable[[int], None] | None = None,
                stacks: str | Path | None = None) -> Callable[[tuple[int, ...]], bool]:
    """``prove_leaf`` for :class:`UnitVerifier`: one alpha-beta solver (``threads``
    threads, an emptied table per leaf); each result is passed to ``save(tag, row)``
    with its nodes and seconds (a resumed search's included) before it is returned.
    ``tick(nodes)`` is called before each leaf and as the search goes (it may raise to
    stop it).  With ``stacks``, the search of a leaf saves its stack to
    ``<stacks>.stack-<tag>.npz`` every :data:`STACK_EVERY_SECONDS` and goes on from
    that file when it is there; the file is removed once the leaf is saved."""
    solver = AlphaBetaSolver(size, tt_mb=tt_mb, threads=threads, region_keys=region_keys,
                             progress=tick)

    def prove(path: tuple[int, ...]) -> bool:
        tag = line_tag(path)
        if tick is not None:
            tick(0)
        saved = None
        if stacks is not None:
            saved = SearchCheckpoint(f"{stacks}.stack-{tag}.npz", STACK_EVERY_SECONDS)
        solver.checkpoint = saved
        solver.reset()
        t0 = time.perf_counter()
        try:
            win = solver.is_win(line_position(size, path))
        finally:
            solver.checkpoint = None
        nodes, seconds = solver.nodes, time.perf_counter() - t0
        if saved is not None and saved.resumed:
            nodes, seconds = nodes + saved.prior_nodes, seconds + saved.prior_seconds
        placer_wins = win if len(path) % 2 == 0 else not win
        save(tag, {"placer_wins": bool(placer_wins), "nodes": nodes,
                   "seconds": round(seconds, 3)})
        if saved is not None:
            saved.path.unlink(missing_ok=True)
        return placer_wins

    return prove
