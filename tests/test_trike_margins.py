"""Margins and remoteness from a win/loss reply record (`trilab margins`):
against full solves, the plan's logic on made-up values, resuming, bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from trilab.analysis.common import StudyError
from trilab.analysis.trike import margin_search
from trilab.analysis.trike import openings as trike_openings
from trilab.analysis.trike.margins import margins_trike
from trilab.analysis.trike.solve import solve_trike
from trilab.cli import cli


def _win_loss_record(size: int, tmp_path) -> str:
    out = tmp_path / f"size-{size}.csv"
    solve_trike(size, tt_mb=4, win_loss_only=True, split="replies", out=out)
    assert out.with_suffix(".replies.json").exists()
    return str(out)


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_margins_and_remoteness_match_the_full_solve(size, tmp_path):
    out = _win_loss_record(size, tmp_path)
    got = margins_trike(size, tt_mb=4, out=out, remoteness=True)
    full = trike_openings.run(size, tt_mb=4).table
    want = {int(r.point): (int(r.margin), int(r.remoteness)) for r in full.itertuples()}
    assert got.stopped is None and got.rows and got.complete
    for row in got.rows:
        assert row["margin_exact"] and row["remoteness_exact"], row
        assert (row["margin"], row["remoteness"]) == want[row["point"]], row
        assert row["winner"] == ("placer" if row["margin"] > 0 else "mover")
    assert {r["point"] for r in got.rows} == {c[0] for c in
                                              trike_openings.trike.opening_classes(size)}


class FakeProber:
    """Answers from made-up values per reply (the plan's logic, no search);
    its fail-soft bounds are the weakest allowed (``k`` or ``k - 1``)."""

    def __init__(self, size: int, margins: dict[int, int]):
        self.size, self.margins, self.asked = size, margins, []

    def probe(self, point: int, reply: int, mode: str, k: int) -> tuple[bool, int]:
        self.asked.append((reply, k))
        yes = self.margins[reply] >= k
        return yes, (k if yes else k - 1)

    def cost(self, point: int, mode: str) -> tuple[int, float]:
        return 0, 0.0


def _reps(size: int, point: int) -> list[int]:
    return sorted(set(trike_openings.reply_representatives(size, point).values()))


def test_placer_won_class_margin_is_the_least_over_replies():
    reps = _reps(5, 1)
    margins = {r: 3 + (i % 3) for i, r in enumerate(reps)}  # 3, 4, 5, 3, ...
    margins[reps[-1]] = 2
    record = {r: {"placer_wins": True, "nodes": 100 - i} for i, r in enumerate(reps)}
    state, finished = margin_search.class_value(FakeProber(5, margins), 1, "placer", record)
    assert finished and state.exact and state.low == 2
    # stops early: a reply of margin 1 settles the class at once
    margins[reps[0]] = 1
    prober = FakeProber(5, margins)
    record[reps[0]]["nodes"] = 0  # the cheapest, so asked first
    state, finished = margin_search.class_value(prober, 1, "placer", record)
    assert finished and state.low == state.high == 1 and prober.asked == [(reps[0], 2)]


def test_mover_won_class_takes_the_replys_that_wins_by_most():
    reps = _reps(5, 0)
    assert len(reps) >= 4
    won, lost, *unproven = reps
    margins = {won: -1, lost: 2, unproven[0]: -3}
    for r in unproven[1:]:
        margins[r] = 1
    record = {won: {"placer_wins": False, "nodes": 5}, lost: {"placer_wins": True, "nodes": 9}}
    prober = FakeProber(5, margins)
    state, finished = margin_search.class_value(prober, 0, "mover", record)
    assert finished and state.exact and state.low == -3
    assert all(reply != lost for reply, _ in prober.asked)  # proven placer-won: not asked
    # the first pass stops after the known winning reply: a bound, not the value
    prober = FakeProber(5, margins)
    state, finished = margin_search.class_value(prober, 0, "mover", record,
                                                 first_reply_only=True)
    assert finished and not state.exact and state.high == -1 and state.low == -7
    assert {reply for reply, _ in prober.asked} == {won}


def test_a_stopped_run_resumes_to_the_same_answers(tmp_path, monkeypatch):
    out = _win_loss_record(5, tmp_path)
    real = margin_search.Prober.probe
    calls = {"n": 0}

    def flaky(self, point, reply, mode, k):
        if (point, reply, mode, k) not in self.known:
            calls["n"] += 1
            if calls["n"] == 6:
                raise KeyboardInterrupt
        return real(self, point, reply, mode, k)

    monkeypatch.setattr(margin_search.Prober, "probe", flaky)
    first = margins_trike(5, tt_mb=4, out=out, remoteness=True)
    assert first.stopped == "interrupted" and not first.complete
    saved = json.loads((tmp_path / "size-5.margins.json").read_text())["probes"]
    assert len(saved) == 5
    monkeypatch.setattr(margin_search.Prober, "probe", real)
    second = margins_trike(5, tt_mb=4, out=out, remoteness=True)
    assert second.stopped is None and second.complete
    again = json.loads((tmp_path / "size-5.margins.json").read_text())["probes"]
    assert again[:5] == saved  # answers kept, none redone
    full = trike_openings.run(5, tt_mb=4).table
    want = {int(r.point): (int(r.margin), int(r.remoteness)) for r in full.itertuples()}
    assert {r["point"]: (r["margin"], r["remoteness"]) for r in second.rows} == {
        r["point"]: want[r["point"]] for r in second.rows}


def test_sigterm_stops_margins_cleanly_with_the_answers_saved(tmp_path):
    """A kill (SIGTERM, e.g. from a batch system) lands between probes: the run
    stops with exit code 130, no traceback, the answers so far and a table."""
    out = _win_loss_record(5, tmp_path)
    script = f"""
import os, signal, sys
from trilab.analysis.trike import margin_search
from trilab.cli import cli
real = margin_search.Prober.probe
calls, fired = [0], []
def probe(self, point, reply, mode, k):
    calls[0] += (point, reply, mode, k) not in self.known
    if calls[0] == 6 and not fired:
        fired.append(1)
        os.kill(os.getpid(), signal.SIGTERM)
    return real(self, point, reply, mode, k)
margin_search.Prober.probe = probe
cli(["margins", "trike", "--size", "5", "--remoteness", "--out", {out!r}])
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr
    saved = json.loads((tmp_path / "size-5.margins.json").read_text())["probes"]
    assert len(saved) == 5  # the sixth was in flight: redone by the next run
    assert (tmp_path / "size-5.margins.csv").exists()


def test_cli_margins_json_and_bad_input(tmp_path):
    out = _win_loss_record(4, tmp_path)
    r = CliRunner().invoke(cli, ["margins", "trike", "--size", "4", "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["complete"] and data["size"] == 4 and data["classes"]
    r = CliRunner().invoke(cli, ["margins", "trike", "--size", "5",
                                 "--out", str(tmp_path / "none" / "size-5.csv")])
    assert r.exit_code == 2 and "no per-reply record" in r.output
    assert not (tmp_path / "none").exists()
    r = CliRunner().invoke(cli, ["margins", "trike", "--size", "4", "--out", out,
                                 "--time-limit", "0"])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_remoteness_values_bisect_and_take_the_least():
    reps = _reps(5, 1)
    # after two checkers 13 of size 5's 15 points are empty: a won value is in [47, 59]
    values = {r: 52 + i % 7 for i, r in enumerate(reps)}
    values[reps[2]] = 48  # the slowest loss for the mover: the class's value
    record = {r: {"placer_wins": True, "nodes": i} for i, r in enumerate(reps)}
    prober = FakeProber(5, values)
    state, finished = margin_search.class_value(prober, 1, "placer", record, "remoteness")
    assert finished and state.exact and state.low == 48
    assert len(prober.asked) <= 2 * 4 + len(reps)  # two bisections and a probe per reply
    assert all(47 <= k <= 59 for _, k in prober.asked)  # only values the board allows
    rows = margin_search.table_rows(5, [state])
    assert rows[0]["remoteness"] == 1 + margin_search.WIN_BASE - 48


def test_exact_value_uses_fail_soft_bounds():
    class Tight(FakeProber):
        def probe(self, point, reply, mode, k):
            self.asked.append((reply, k))
            return self.margins[reply] >= k, self.margins[reply]

    prober = Tight(5, {0: 37})
    assert margin_search.exact_value(prober, 1, 0, "remoteness", 1, 60) == 37
    assert len(prober.asked) <= 2


def test_the_win_loss_table_shows_the_probed_values(tmp_path):
    """Solving again from the reply record writes the table with the margins
    and remoteness `trilab margins` proved, equal to a full solve's."""
    import pandas as pd

    out = _win_loss_record(5, tmp_path)
    assert pd.read_csv(out)["margin"].isna().all()
    margins_trike(5, tt_mb=4, out=out, remoteness=True)
    solve_trike(5, tt_mb=4, win_loss_only=True, split="replies", out=out)
    table = pd.read_csv(out)
    full = trike_openings.run(5, tt_mb=4).table
    assert table["margin"].tolist() == full["margin"].tolist()
    assert table["remoteness"].tolist() == full["remoteness"].tolist()


def test_whole_position_keys_re_prove_into_their_own_files(tmp_path):
    out = _win_loss_record(5, tmp_path)
    region = margins_trike(5, tt_mb=4, out=out, remoteness=True)
    whole = margins_trike(5, tt_mb=4, out=out, remoteness=True, keys="whole")
    assert (tmp_path / "size-5.margins-whole.json").exists()
    assert [f.name for f in whole.files] == ["size-5.margins-whole.json",
                                             "size-5.margins-whole.csv",
                                             "size-5.margins-whole.meta.json"]
    values = ("point", "margin", "remoteness")
    assert [[r[k] for k in values] for r in whole.rows] == \
        [[r[k] for k in values] for r in region.rows]
    with pytest.raises(StudyError):
        margins_trike(5, out=out, keys="bogus")
