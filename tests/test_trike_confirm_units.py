"""Second proofs of move-split Trike replies, unit by unit (analysis/trike/confirm_units)."""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from trilab.analysis.trike import confirm, confirm_units
from trilab.analysis.trike import openings as trike_openings
from trilab.analysis.trike.confirm_units import children, leaves, two_ply_tree
from trilab.analysis.trike.openings import line_position as position
from trilab.analysis.trike.openings import move_representatives
from trilab.cli import cli
from trilab.solver.trike.alphabeta import AlphaBetaSolver


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    """A size-5 move-split record whose units go two plies below the answers (units
    give up after 500 nodes): mover-won and placer-won classes both."""
    path = tmp_path_factory.mktemp("units") / "size-5.checkpoint.json"
    trike_openings.run(5, tt_mb=16, split="moves", win_loss_only=True, checkpoint_path=path,
                       split_after_nodes=500)
    return path


def _placer_wins_with_region_keys_at(size: int, path: tuple[int, ...]) -> bool:
    win = AlphaBetaSolver(size, tt_mb=16, region_keys=True).is_win(position(size, path))
    return win if len(path) % 2 == 0 else not win


def _placer_wins_with_region_keys(path: tuple[int, ...]) -> bool:
    return _placer_wins_with_region_keys_at(5, path)


def test_split_replies_are_reproven_from_their_leaves(record, tmp_path):
    data = confirm.run(5, record, tmp_path / "c.json", 16, sample=1)
    proofs = data["proofs"]
    assert {p["placer_wins"] for p in proofs} == {True, False}  # both kinds of claim
    assert all(p["keys"] == "whole" and p["leaves"] > 0
               and p["placer_wins"] == p["first_proof_placer_wins"] for p in proofs)
    replies = json.loads(record.read_text())["replies"]
    for p in proofs:
        row = replies[str(p["point"])][str(p["reply"])]
        tree = set(map(trike_openings.line_tag, leaves(row, (p["point"], p["reply"]))))
        mine = {t for t in data["leaves"] if t.startswith(f"{p['point']}-{p['reply']}-")}
        assert mine and mine <= tree  # only the tree's leaves, not always all of them
    # every leaf searched again with whole-position keys agrees with region keys
    for tag, leaf in data["leaves"].items():
        path = trike_openings.parse_line_tag(tag)
        assert leaf["placer_wins"] == _placer_wins_with_region_keys(path), tag
    # the record was saved, and a second run has nothing left to do
    assert json.loads((tmp_path / "c.json").read_text()) == data
    again = confirm.run(5, record, tmp_path / "c.json", 16, sample=1)
    assert again["proofs"] == proofs


def test_a_stopped_confirmation_resumes_without_searching_a_leaf_twice(
        record, tmp_path, monkeypatch):
    real = confirm.leaf_prover
    searched: list[tuple[int, ...]] = []

    def counting(stop_after: int):
        def make(*args, **kwargs):
            prove = real(*args, **kwargs)

            def wrapped(path):
                if len(searched) == stop_after:
                    raise KeyboardInterrupt
                searched.append(path)
                return prove(path)
            return wrapped
        return make

    out = tmp_path / "c.json"
    monkeypatch.setattr(confirm, "leaf_prover", counting(20))
    with pytest.raises(KeyboardInterrupt):
        confirm.run(5, record, out, 16, sample=1)
    saved = json.loads(out.read_text())
    assert len(saved["leaves"]) == 20  # every leaf searched is on record
    first = list(searched)
    searched.clear()
    monkeypatch.setattr(confirm, "leaf_prover", counting(-1))
    resumed = confirm.run(5, record, out, 16, sample=1)
    assert not set(first) & set(searched) and searched
    whole = confirm.run(5, record, tmp_path / "whole.json", 16, sample=1)
    assert [(p["point"], p["reply"], p["placer_wins"]) for p in resumed["proofs"]] == [
        (p["point"], p["reply"], p["placer_wins"]) for p in whole["proofs"]]
    assert set(resumed["leaves"]) == set(whole["leaves"]) == set(
        map(trike_openings.line_tag, first + searched))
    assert {t: x["placer_wins"] for t, x in resumed["leaves"].items()} == {
        t: x["placer_wins"] for t, x in whole["leaves"].items()}


def _first_proof(record: Path, claim: bool) -> tuple[dict, int, int]:
    """The record, and a reply it says the placer wins (``claim``) or loses; a won
    reply with a single answer on record (so the answer's units are all needed)."""
    data = json.loads(record.read_text())
    p, r = next((int(p), int(r)) for p, rows in sorted(data["replies"].items())
                for r, row in sorted(rows.items())
                if row["placer_wins"] is claim and (not claim or len(children(row)) == 1))
    return data, p, r


def _mover_node(row: dict, path: tuple[int, ...]) -> tuple[dict, tuple[int, ...]]:
    """The first inner node below ``row`` with the mover to move and two or more units."""
    for point, kid in sorted(children(row).items()):
        sub = path + (point,)
        if children(kid):
            if len(sub) % 2 == 1 and len(children(kid)) > 1:
                return kid, sub
            found = _mover_node(kid, sub)
            if found[0]:
                return found
    return {}, ()


def test_a_tree_that_misses_a_move_or_names_a_wrong_one_is_not_a_proof(record, tmp_path):
    data, p, r = _first_proof(record, True)
    row = data["replies"][str(p)][str(r)]
    # the placer wins only if every move of the mover is answered: drop one
    node, path = _mover_node(row, (p, r))
    assert node, "the fixture's record has no mover node with two units"
    broken = copy.deepcopy(data)
    target = broken["replies"][str(p)][str(r)]
    for point in path[2:]:
        target = target["units"][str(point)]
    target["units"].pop(sorted(target["units"])[0])
    bad = tmp_path / "size-5.checkpoint.json"
    bad.write_text(json.dumps(broken))
    with pytest.raises(confirm.ConfirmationMismatch, match="do not prove it"):
        confirm.run(5, bad, tmp_path / "c1.json", 16, sample=1)
    # a point that is not a legal move there (the opening's own point)
    broken = copy.deepcopy(data)
    target = broken["replies"][str(p)][str(r)]
    for point in path[2:]:
        target = target["units"][str(point)]
    first = sorted(target["units"])[0]
    target["units"][str(p)] = target["units"].pop(first)
    bad.write_text(json.dumps(broken))
    with pytest.raises(confirm.ConfirmationMismatch, match="not a legal move"):
        confirm.run(5, bad, tmp_path / "c2.json", 16, sample=1)
    # ... also where one move is enough: the placer's winning answer, searched whole,
    # on the opening's point (the tree's shape would still be a proof)
    broken = copy.deepcopy(data)
    broken["replies"][str(p)][str(r)]["units"] = {str(p): {"nodes": 1, "seconds": 0.0}}
    bad.write_text(json.dumps(broken))
    with pytest.raises(confirm.ConfirmationMismatch, match="damaged.*not a legal move"):
        confirm.run(5, bad, tmp_path / "c3.json", 16, sample=1)


@pytest.mark.parametrize("claim", [True, False])
def test_a_wrong_claim_is_caught(record, tmp_path, claim):
    data, p, r = _first_proof(record, claim)
    data["replies"][str(p)][str(r)]["placer_wins"] = not claim
    # the class's row as the wrong claim would make it, so that the plan picks the reply
    data["classes"][str(p)]["winner"] = "mover" if claim else "placer"
    bad = tmp_path / "size-5.checkpoint.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(confirm.ConfirmationMismatch, match="do not prove it"):
        confirm.run(5, bad, tmp_path / "c.json", 16, sample=10)


def test_cli_confirms_a_move_split_solve_with_threads(tmp_path):
    out = tmp_path / "size-5.csv"
    solve = ["solve", "trike", "--size", "5", "--split", "moves", "--win-loss-only",
             "--out", str(out)]
    assert CliRunner().invoke(cli, solve).exit_code == 0
    res = CliRunner().invoke(cli, ["confirm", "trike", "--size", "5", "--threads", "2",
                                   "--sample", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "units)" in res.stdout and "all agreeing" in res.stdout
    meta = json.loads((tmp_path / "size-5.confirmations.meta.json").read_text())
    assert meta["threads"] == 2 and meta["leaves"] > 0
    proofs = json.loads((tmp_path / "size-5.confirmations.json").read_text())["proofs"]
    assert meta["search_seconds"] == round(sum(x["seconds"] for x in proofs), 1)
    assert "cpu_seconds" not in meta  # two threads: these seconds are not one core's


def test_a_leaf_whose_search_disagrees_breaks_the_proof(record, tmp_path):
    """A mover-won reply: below each of the placer's answers the mover needs one winning
    move.  Put, under one answer, a single leaf at a move that loses for the mover: the
    tree still has the shape of a proof, and only the leaf's search can refute it."""
    data, p, r = _first_proof(record, False)
    row = data["replies"][str(p)][str(r)]
    answer, node = next((a, k) for a, k in sorted(children(row).items())
                        if children(k) and all(not children(x) for x in children(k).values()))
    after = (p, r, answer)
    losing = next(m for m in position(5, after).legal_moves()
                  if _placer_wins_with_region_keys(after + (m,)))
    node["units"] = {str(losing): {"nodes": 1, "seconds": 0.0}}
    bad = tmp_path / "size-5.checkpoint.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(confirm.ConfirmationMismatch, match="do not prove it"):
        confirm.run(5, bad, tmp_path / "c.json", 16, sample=1)
    proven = json.loads((tmp_path / "c.json").read_text())["leaves"]
    assert proven[trike_openings.line_tag(after + (losing,))]["placer_wins"] is True


@pytest.mark.parametrize("claim", [True, False])
def test_a_reply_without_units_on_record_is_reproven_over_two_plies(record, tmp_path, claim):
    """(Size 9's first refuted reply was proven before the runs kept their units.)"""
    data, p, r = _first_proof(record, claim)
    row = {k: v for k, v in data["replies"][str(p)][str(r)].items() if k != "units"}
    tree = two_ply_tree(5, (p, r))
    pos = position(5, (p, r))
    assert len(children(tree)) == len(set(move_representatives(pos).values()))
    got = confirm.confirm_by_units(5, p, r, row, {}, tmp_path / "c.json", 16)
    assert got["placer_wins"] is claim and got["tree"] == "two plies" and got["leaves"] > 0
    assert all(len(trike_openings.parse_line_tag(t)) == 4 for t in
               json.loads((tmp_path / "c.json").read_text())["leaves"])
    row["placer_wins"] = not claim
    with pytest.raises(confirm.ConfirmationMismatch, match="do not prove it"):
        confirm.confirm_by_units(5, p, r, row, {}, tmp_path / "d.json", 16)


def test_leaves_are_searched_with_the_other_keying_and_the_threads_asked(
        record, tmp_path, monkeypatch):
    made = []
    real = confirm_units.AlphaBetaSolver

    def spy(*args, **kwargs):
        made.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(confirm_units, "AlphaBetaSolver", spy)
    confirm.run(5, record, tmp_path / "c.json", 16, sample=1, threads=2)
    assert made and all(k["region_keys"] is False and k["threads"] == 2 for k in made)


def test_a_time_limit_stops_between_leaves_and_the_rerun_finishes(record, tmp_path):
    out = tmp_path / "c.json"
    stopped = confirm.run(5, record, out, 16, sample=1, time_limit=0)
    assert not stopped["proofs"] and not stopped.get("leaves")
    finished = confirm.run(5, record, out, 16, sample=1)
    assert finished["proofs"] and finished["leaves"]


def test_a_large_board_reply_without_units_is_routed_to_two_plies(record, tmp_path,
                                                                   monkeypatch):
    data = json.loads(record.read_text())
    for rows in data["replies"].values():
        for row in rows.values():
            row.pop("units", None)
    bare = tmp_path / "size-5.checkpoint.json"
    bare.write_text(json.dumps(data))
    monkeypatch.setattr(confirm, "default_split", lambda size: "moves")
    proofs = confirm.run(5, bare, tmp_path / "c.json", 16, sample=1)["proofs"]
    assert proofs and all(p["tree"] == "two plies" and p["placer_wins"] ==
                          p["first_proof_placer_wins"] for p in proofs)


def test_a_stopped_leaf_goes_on_from_its_saved_stack(tmp_path, monkeypatch):
    """A leaf's search saves its stack as it goes; stopped, the next search of the
    leaf resumes from it (its nodes count the saved work) and the file is removed."""
    pos = position(6, (0,))
    path = (0, pos.legal_moves()[0])
    path += (position(6, path).legal_moves()[0],)
    monkeypatch.setattr(confirm_units, "STACK_EVERY_SECONDS", 0.0)
    monkeypatch.setattr(confirm_units, "AlphaBetaSolver",
                        functools.partial(AlphaBetaSolver, chunk_nodes=256))
    rows: dict[str, dict] = {}
    calls = []

    def stop_at(k):
        def tick(nodes):
            calls.append(nodes)
            if len(calls) == k:
                raise KeyboardInterrupt
        return tick

    stacks = tmp_path / "c"
    prove = confirm_units.leaf_prover(6, 16, 1, False, rows.__setitem__, stop_at(40), stacks)
    with pytest.raises(KeyboardInterrupt):
        prove(path)
    tag = trike_openings.line_tag(path)
    stack = tmp_path / f"c.stack-{tag}.npz"
    assert stack.exists() and not rows
    made = []

    class Spy(confirm_units.SearchCheckpoint):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(confirm_units, "SearchCheckpoint", Spy)
    again = confirm_units.leaf_prover(6, 16, 1, False, rows.__setitem__, stop_at(-1), stacks)
    won = again(path)
    assert won == _placer_wins_with_region_keys_at(6, path)
    (saved,) = made
    assert saved.resumed and saved.prior_nodes >= 39 * 256  # the work before the stop
    assert rows[tag]["nodes"] >= saved.prior_nodes and not stack.exists()
