"""Saved search stacks: a stopped alpha-beta search goes on where it was saved."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from trilab.analysis import executors
from trilab.analysis.trike import openings as trike_openings
from trilab.solver.trike import alphabeta
from trilab.solver.trike import engine as trike
from trilab.solver.trike.alphabeta import AlphaBetaSolver
from trilab.solver.trike.stack_file import SearchCheckpoint

SIZE = 7
POINT, REPLY = 3, 10  # a size-7 reply of about 7.5 M nodes (the placer to move)
CHUNK = 1 << 16


class Stop(Exception):
    pass


def position():
    return trike.opening(SIZE, POINT).play(REPLY)


def stopped_search(path: Path, threads: int, after: int) -> None:
    """A search of :func:`position` saving its stack at every chunk, stopped after
    ``after`` nodes."""
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK, threads=threads)
    s.checkpoint = SearchCheckpoint(path, every_seconds=0.0)

    def stop(nodes: int) -> None:
        if nodes > after:
            raise Stop

    s.progress = stop
    with pytest.raises(Stop):
        s.is_win(position())


@pytest.fixture(scope="module")
def whole() -> tuple[bool, int]:
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
    return s.is_win(position()), s.nodes


@pytest.mark.parametrize("threads", [1, 2])
def test_a_stopped_search_resumes_from_its_stack_with_the_same_answer(tmp_path, whole, threads):
    win, nodes = whole
    path = tmp_path / "stack.npz"
    stopped_search(path, threads, nodes // 2)
    assert path.exists()
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK, threads=threads)  # an empty table
    s.checkpoint = saved = SearchCheckpoint(path, every_seconds=0.0)
    assert s.is_win(position()) == win
    assert saved.resumed and saved.prior_nodes > nodes // 2 and saved.prior_seconds > 0
    if threads == 1:  # the work before the stop is not done again
        assert s.nodes < nodes - nodes // 4


def test_a_stack_of_another_probe_or_a_damaged_one_is_not_resumed(tmp_path, whole, monkeypatch):
    win, nodes = whole
    path = tmp_path / "stack.npz"
    stopped_search(path, 1, nodes // 2)
    saved_bytes = path.read_bytes()
    # another position (the mirror image of the same one: the same answer, another root)
    mirror = position().transformed(1)
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
    s.checkpoint = other = SearchCheckpoint(path, every_seconds=1e9)
    assert s.is_win(mirror) == win and not other.resumed
    # another solver setting that shapes the search
    path.write_bytes(saved_bytes)
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK, tt_min_moves=2)
    s.checkpoint = other = SearchCheckpoint(path, every_seconds=1e9)
    assert s.is_win(position()) == win and not other.resumed
    # another format version
    monkeypatch.setattr(alphabeta, "STACK_FORMAT", 999)
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
    s.checkpoint = other = SearchCheckpoint(path, every_seconds=1e9)
    assert s.is_win(position()) == win and not other.resumed
    monkeypatch.undo()
    # damaged files
    for junk in (b"", b"not a zip", saved_bytes[: len(saved_bytes) // 2]):
        path.write_bytes(junk)
        s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
        s.checkpoint = other = SearchCheckpoint(path, every_seconds=1e9)
        assert s.is_win(position()) == win and not other.resumed
    # arrays of other shapes under the right key
    path.write_bytes(saved_bytes)
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["ist"] = arrays["ist"][:-1]
    np.savez(path, **arrays)
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
    s.checkpoint = other = SearchCheckpoint(path, every_seconds=1e9)
    assert s.is_win(position()) == win and not other.resumed


def test_a_stopped_unit_resumes_and_counts_all_its_work(tmp_path, monkeypatch):
    """A run's unit (here a reply) saves its stack beside its progress file; the
    task run again goes on from it, and its row counts the nodes before the stop;
    finishing the unit removes both files."""
    monkeypatch.setattr(trike_openings, "PROGRESS_EVERY_SECONDS", 0.0)
    ckpt = trike_openings.Checkpoint(tmp_path / "c.json", SIZE)
    progress_file = ckpt.progress_file(POINT, REPLY)
    stack = Path(trike_openings.stack_file(progress_file))
    assert stack.name == "c.json.stack-3-10.npz"
    direct = trike_openings.solve_opening_search(SIZE, POINT, 16, True, None, None, REPLY)

    def stop(nodes: int) -> None:
        if nodes > 1_000_000:
            raise KeyboardInterrupt

    monkeypatch.setattr(alphabeta.AlphaBetaSolver, "__init__", _small_chunks(
        alphabeta.AlphaBetaSolver.__init__))
    trike_openings._SOLVERS.clear()
    with pytest.raises(KeyboardInterrupt):
        trike_openings.solve_opening_search(SIZE, POINT, 16, True, progress_file, stop, REPLY)
    assert stack.exists() and Path(progress_file).exists()
    recorded = json.loads(Path(progress_file).read_text())["nodes"]
    row = trike_openings.solve_opening_search(SIZE, POINT, 16, True, progress_file, None, REPLY)
    assert row["placer_wins"] == direct["placer_wins"]
    # the stack was saved at the stop, the progress record a chunk before it
    assert row["resumed"]["nodes"] > 1_000_000 and row["resumed"]["nodes"] >= recorded
    assert row["nodes"] > row["resumed"]["nodes"]
    ckpt.clear_progress(POINT, REPLY)
    assert not stack.exists() and not Path(progress_file).exists()
    # a full-values task saves no stack (several probes)
    with pytest.raises(KeyboardInterrupt):
        trike_openings.solve_opening_search(SIZE, POINT, 16, False, progress_file, stop, REPLY)
    assert not stack.exists()
    trike_openings._SOLVERS.clear()


def _small_chunks(init):
    def patched(self, *args, **kwargs):
        kwargs["chunk_nodes"] = CHUNK
        init(self, *args, **kwargs)
    return patched


def test_a_long_unit_left_by_another_run_is_split_stack_and_all(tmp_path):
    """A unit past the split limit (a run with a higher one left it) is split
    on the next run even with a saved stack, which goes with its progress."""
    ckpt = trike_openings.Checkpoint(tmp_path / "c.json", SIZE)
    for move, nodes in ((12, 10**12), (13, 10**6)):
        f = ckpt.progress_file(POINT, REPLY, 5, move)
        Path(f).write_text(json.dumps({"point": POINT, "reply": REPLY, "answer": 5,
                                       "move": move, "nodes": nodes, "seconds": 3600.0}))
        Path(trike_openings.stack_file(f)).write_bytes(b"a stack")
    assert ckpt.mark_long_units(10**9) == [(POINT, REPLY, 5, 12)]
    assert not Path(trike_openings.stack_file(ckpt.progress_file(POINT, REPLY, 5, 12))).exists()
    assert Path(trike_openings.stack_file(ckpt.progress_file(POINT, REPLY, 5, 13))).exists()
    # --restart drops the stacks with the progress files
    trike_openings.Checkpoint.discard(tmp_path / "c.json")
    assert [f.name for f in tmp_path.iterdir()] == ["c.json.discarded"]


def test_files_of_units_below_a_decided_node_are_dropped(tmp_path):
    """A unit still running when a node above it was decided leaves its progress and
    stack files; the next run deletes them (and only them) and reports none as
    unfinished work."""
    ckpt = trike_openings.Checkpoint(tmp_path / "c.json", SIZE)
    units = {  # unit -> settled on the record written below
        (POINT, REPLY): False,
        (POINT, REPLY, 5, 12): True,  # its answer is decided
        (POINT, REPLY, 5, 12, 30, 31): True,  # a line below that answer
        (POINT, REPLY, 6, 12): False,
        (POINT, 11): True,  # a decided reply
        (POINT, 11, 2, 40): True,  # below the decided reply
        (4,): True,  # a decided class
    }
    for unit in units:
        keys = ("point", "reply", "answer", "move")
        data = dict(zip(keys, unit[:4]), nodes=10**6, seconds=1.0)
        if len(unit) > 4:
            data["line"] = list(unit)
        f = ckpt.progress_file(*unit[:4], line=unit[4:])
        Path(f).write_text(json.dumps(data))
        Path(trike_openings.stack_file(f)).write_bytes(b"a stack")
    ckpt.save_answer(POINT, REPLY, 5, {"placer_wins": True, "nodes": 1, "seconds": 0.0})
    ckpt.save_reply(POINT, 11, {"placer_wins": True, "nodes": 1, "seconds": 0.0})
    ckpt.save(4, {"winner": "placer", "nodes": 1, "seconds": 0.0})
    reopened = trike_openings.Checkpoint(tmp_path / "c.json", SIZE)
    dropped = reopened.drop_settled_progress()
    assert sorted(dropped) == sorted(trike_openings.line_tag(u) for u, s in units.items() if s)
    for unit, settled in units.items():
        f = reopened.progress_file(*unit[:4], line=unit[4:])
        assert Path(f).exists() != settled
        assert Path(trike_openings.stack_file(f)).exists() != settled
    assert sorted(reopened.unfinished_work()) == sorted(
        trike_openings.line_tag(u) for u, s in units.items() if not s)
    assert reopened.drop_settled_progress() == []


def test_a_folder_that_cannot_be_written_skips_the_save(tmp_path, whole):
    s = AlphaBetaSolver(SIZE, tt_mb=32, chunk_nodes=CHUNK)
    s.checkpoint = SearchCheckpoint(tmp_path / "missing" / "stack.npz", every_seconds=0.0)
    assert s.is_win(position()) == whole[0]
    assert not (tmp_path / "missing").exists()


@pytest.mark.parametrize("threads", [1, 2])
def test_resumed_searches_agree_with_whole_ones_on_random_positions(tmp_path, threads):
    """Differential: random size-6 positions, stopped at several points of a
    win/loss search and of an exact-margin search (several probes: the stopped
    probe resumes, the others start afresh), give the whole search's answers."""
    import random

    rng = random.Random(threads)
    checked = resumed = stopped_wins = 0
    # with two threads a helper can finish a search before the stop's node count (a busy
    # machine deschedules the caller): more positions until enough searches were stopped
    while checked < 10 or (threads == 2 and stopped_wins < 5 and checked < 80):
        pos = trike.opening(6, rng.randrange(21))
        for _ in range(rng.randrange(1, 5)):
            if pos.legal_moves():
                pos = pos.play(rng.choice(pos.legal_moves()))
        if pos.is_terminal():
            continue
        ref = AlphaBetaSolver(6, tt_mb=4, chunk_nodes=1 << 10)
        win = ref.is_win(pos)
        ref.reset()
        margin, total = ref.margin(pos), ref.nodes
        if total < 1 << 13:
            continue
        checked += 1
        for fraction in (0.2, 0.6):
            for ask in ("is_win", "margin"):
                path = tmp_path / f"{checked}-{fraction}-{ask}.npz"
                s = AlphaBetaSolver(6, tt_mb=4, chunk_nodes=1 << 10, threads=threads)
                s.checkpoint = SearchCheckpoint(path, every_seconds=0.0)

                def stop(nodes: int, after=int(total * fraction)) -> None:
                    if nodes > after:
                        raise Stop

                s.progress = stop
                stopped = False
                try:
                    getattr(s, ask)(pos)
                except Stop:
                    stopped = True
                s = AlphaBetaSolver(6, tt_mb=4, chunk_nodes=1 << 10, threads=threads)
                s.checkpoint = saved = SearchCheckpoint(path, every_seconds=0.0)
                assert getattr(s, ask)(pos) == (win if ask == "is_win" else margin)
                if ask == "is_win":  # one probe: a stop leaves its stack, resumed here
                    assert saved.resumed or not stopped
                    stopped_wins += stopped
                resumed += saved.resumed
    if threads == 1:
        # of the 40 stops; a stop in a later probe of a margin search is not resumed (the
        # earlier probes, run again, save their own stacks over it)
        assert resumed >= 30
    else:  # every stop was resumed (above), and there were stops to resume
        assert stopped_wins >= 5


class _Prefetching(executors.SerialExecutor):
    """In process, but the next task is taken before a result is handled, as a
    pool of workers does."""

    def run(self, fn, tasks, timeout=None):
        it = iter(tasks)
        pending = next(it, None)
        while pending is not None:
            row = fn(*pending)
            following = next(it, None)
            yield pending, row
            pending = following


@pytest.mark.parametrize("prefetch", [False, True])
def test_units_past_the_limit_are_split_in_the_same_run(tmp_path, monkeypatch, prefetch):
    """A move-split run whose units give up after 30,000 nodes splits them
    as they go (deeper where a child is long too) and finishes with the table the
    whole-class search gives; with workers that take tasks ahead, the children of
    a unit split late are run in another pass."""
    whole = trike_openings.run(6, tt_mb=16, split="replies", win_loss_only=True)
    study = _move_split_in_tiny_units(tmp_path, monkeypatch,
                                      executor=_Prefetching() if prefetch else None)
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(whole.table[cols], study.table[cols])
    split_now = study.extra["lines_split_now"]
    assert len(split_now) >= 3 and any(len(tag.split("-")) > 4 for tag in split_now)
    saved = json.loads((tmp_path / "c.json").read_text())
    assert '"lost": {"nodes": ' in json.dumps(saved)
    assert not list(tmp_path.glob("c.json.progress-*")) + list(tmp_path.glob("c.json.stack-*"))


@pytest.mark.parametrize("eager", [True, False])
def test_units_with_the_placer_to_move_are_split_before_any_search(tmp_path, monkeypatch,
                                                                    eager):
    """With the eager split a win/loss move split never searches a unit with the placer
    to move that has moves left: it is proven through the placer's answers, and only
    units with the mover to move run (and give up); the table is the whole search's,
    and the at-once splits record no lost work.  Without it, such units are searched."""
    whole = trike_openings.run(6, tt_mb=16, split="replies", win_loss_only=True)
    real = trike_openings.solve_opening_search
    searched = []

    def spy(*args, **kwargs):
        if len(args) > 11:  # a move unit or a line below one
            searched.append(trike_openings._unit_path(args))
        return real(*args, **kwargs)

    monkeypatch.setattr(trike_openings, "solve_opening_search", spy)
    study = _move_split_in_tiny_units(tmp_path, monkeypatch, eager_split=eager)
    cols = ["point", "winner", "margin", "remoteness", "winning_replies"]
    pd.testing.assert_frame_equal(whole.table[cols], study.table[cols])
    assert study.extra["eager_split"] is eager

    def placer_to_move_with_moves(path):
        pos = trike.opening(6, path[0])
        for d in path[1:]:
            pos = pos.play(d)
        return (len(path) - 3) % 2 == 1 and bool(pos.legal_moves())

    placer_units = [u for u in searched if placer_to_move_with_moves(u)]
    given_up = [tuple(int(x) for x in tag.split("-")) for tag in study.extra["lines_split_now"]]
    text = (tmp_path / "c.json").read_text()
    if eager:
        assert not placer_units and study.extra["lines_split_at_once"] >= 3
        assert given_up and all((len(u) - 3) % 2 == 0 for u in given_up)
        assert '"lost": {"nodes": 0,' not in text
    else:
        assert placer_units and "lines_split_at_once" not in study.extra


def _move_split_in_tiny_units(tmp_path, monkeypatch, **kwargs):
    """A win/loss move split of size 6 whose units give up after 30,000 nodes
    (searched in chunks of 512 nodes, the search order), checkpointed in ``tmp_path``."""
    monkeypatch.setattr(alphabeta.AlphaBetaSolver, "__init__", _tiny_chunks(
        alphabeta.AlphaBetaSolver.__init__))
    trike_openings._SOLVERS.clear()
    try:
        return trike_openings.run(6, tt_mb=16, split="moves", win_loss_only=True,
                                  checkpoint_path=tmp_path / "c.json", split_after_nodes=30_000,
                                  unit_order="search", **kwargs)
    finally:
        trike_openings._SOLVERS.clear()

def _tiny_chunks(init):
    def patched(self, *args, **kwargs):
        kwargs["chunk_nodes"] = 1 << 9
        init(self, *args, **kwargs)
    return patched
