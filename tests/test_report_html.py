"""`trilab report`: the self-contained HTML page, opened in headless Chromium.

The browser is Debian's `chromium` (`.ci/run` installs it when missing and
sets TRILAB_REQUIRE_BROWSER=1, so CI always runs these checks); it is driven
through Playwright's Python API with that executable (no downloaded browser).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from trilab.cli import cli


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    res = CliRunner().invoke(cli, ["report", "--results-dir", "results", "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_page_is_self_contained(page_file):
    text = page_file.read_text()
    assert text.startswith("<!DOCTYPE html>")
    for section in ('id="overview"', 'id="trike"', 'id="tabula-trivium"', 'id="trio-cards"'):
        assert section in text
    assert "http://" not in text and "https://" not in text  # nothing fetched from a network
    assert text.count('src="data:image/png;base64,') >= 6
    assert (page_file.parent / "first-seat-advantage.png").stat().st_size > 10_000
    # findings are written from the tables: the Trike exact sizes are named
    assert "Solved exactly: every opening of sizes 2-8" in text
    # the committed ladders and the calibration are on the page, with their agents
    assert "Strength ladders of the MCTS agents" in text and "mcts-greedy:10000:4" in text
    assert "Calibration: the agents against perfect play" in text and "mcts-solve:50000" in text
    # the card game between strong players: deduce beside memory, the strength tables
    assert ("Between strong players: <code>deduce</code> and <code>infer</code> in every "
            "seat") in text
    assert "&lt;NA&gt;" not in text and "<td>nan</td>" not in text.lower()  # empty cells
    assert "Strength: one policy in one seat, every seat position" in text
    # ... with every comparison at a glance (the paired gains), the raw tables folded away
    assert "<th>gain (pp)</th>" in text and "<details><summary>Every table" in text
    # ... and the seat tables at a glance, the policy that answers the seat question named
    assert "<th>strongest</th>" in text and "<th>between the strongest (pp)</th>" in text
    # ... and every 6-player team table's teams, the fresh-seed controls among them
    assert "<th>last team (2, 5)</th>" in text and "p6-simple-teams-deduce-all-s9100" in text
    # ... and the seat comparison as a figure, written beside the page with its numbers
    from trilab.analysis.report_html import SEATS_FIGURE
    from trilab.analysis.trio_cards_strength import seat_comparison

    assert f"<code>{SEATS_FIGURE}</code>" in text
    assert ('<img alt="Trio card game: the first seat&#x27;s advantage by the policy in '
            'every seat" style="max-width: min(100%, 760px)" src="data:image/png;base64,') in text
    seats = page_file.parent / SEATS_FIGURE
    assert seats.stat().st_size > 10_000 and seats.with_suffix(".meta.json").exists()
    drawn, comp = pd.read_csv(seats.with_suffix(".csv")), seat_comparison("results")
    assert list(drawn.columns) == list(comp.columns) and len(drawn) == len(comp)
    for col in ("memory_advantage", "deduce_advantage", "infer_advantage", "infer_low"):
        pd.testing.assert_series_equal(drawn[col], comp[col].astype(float), check_names=False)
    assert list(drawn.strongest) == list(comp.strongest)


def test_seat_figure_draws_each_table_once_a_policy_and_fills_the_strongest():
    """Every table of the seat comparison is a row, with one marker a policy played there
    at its advantage (points) on that table's row; exactly the strongest policy's marker
    is filled; a table whose ``infer`` table is still to play, or was not played, says so;
    a filtered comparison draws its rows in place."""
    import matplotlib.colors as mcolors
    from matplotlib.collections import PathCollection
    from trilab.analysis.trio_cards_strength import (
        SEAT_POLICIES,
        plot_seat_comparison,
        seat_comparison,
        seat_row_label,
    )

    def markers(ax, colour: str) -> tuple[set, set]:
        filled, hollow = set(), set()
        for c in ax.collections:
            offsets = c.get_offsets()
            if not isinstance(c, PathCollection) or len(offsets) == 0:
                continue  # the interval bars, or a policy with no marker of that kind
            edge = mcolors.to_hex(c.get_edgecolors()[0])
            face = mcolors.to_hex(c.get_facecolors()[0])
            got = {(round(x, 9), round(y)) for x, y in offsets}  # y: the row, offset < 0.5
            if face == colour:
                filled |= got
            elif face == "#ffffff" and edge == colour:
                hollow |= got
        return filled, hollow

    full = seat_comparison("results")
    for comp in (full, full[full.teams]):  # the team rows alone: drawn on rows 0, 1, ...
        ax = plot_seat_comparison(comp).axes[0]
        assert [t.get_text() for t in ax.get_yticklabels()] == [
            seat_row_label(r.players, r.mode, r.teams) for r in comp.itertuples()]
        filled_policies = set()
        for key, _, colour, _, _ in SEAT_POLICIES:
            want_filled, want_hollow = set(), set()
            for row, r in enumerate(comp.itertuples()):
                if pd.isna(getattr(r, f"{key}_games")):
                    continue
                best = r.strongest.split(" ")[0].startswith(key)
                point = (round(100 * getattr(r, f"{key}_advantage"), 9), row)
                (want_filled if best else want_hollow).add(point)
                filled_policies |= {key} if best else set()
            assert markers(ax, colour) == (want_filled, want_hollow), key
        notes = [t.get_text() for t in ax.texts]
        assert sum(t.endswith("being played") for t in notes) == \
            comp.strongest.str.endswith("(to play)").sum()
        assert sum("not played" in t for t in notes) == (
            comp.strongest.str.contains("not confirmed") & comp.infer_games.isna()).sum()
    assert filled_policies >= {"infer"}
    assert seat_row_label(4, "spicy", True) == "4p spicy teams (first team)"
    # with every table: both policies answer some table's question, and both notes appear
    ax = plot_seat_comparison(full).axes[0]
    assert all(markers(ax, colour)[0] for key, _, colour, _, _ in SEAT_POLICIES
               if key in ("deduce", "infer"))
    assert any("not played" in t.get_text() for t in ax.texts)


def test_seat_glance_names_the_strongest_table_of_each_configuration():
    """One row per table of the seat comparison (the committed results), in points: the
    advantage between the strongest players is that of ``infer``'s table where its test
    holds and its table is in, of ``deduce``'s where the test fails or is missing, and
    empty while the ``infer`` table is still to play."""
    from trilab.analysis.overview import card_table_name
    from trilab.analysis.report_html import _interval, _seat_glance
    from trilab.analysis.trio_cards_strength import seat_comparison

    comp = seat_comparison("results")
    glance = _seat_glance(comp)
    assert len(glance) == len(comp) >= 12
    assert set(comp.strongest) >= {"infer:64", "deduce (infer not confirmed stronger)"}
    stars = set()
    for i, r in enumerate(comp.itertuples()):
        g = glance.iloc[i]
        assert g["table"] == card_table_name(r.players, r.mode, r.teams)
        assert g["memory (games)"].startswith(f"{100 * r.memory_advantage:+.2f} [")
        assert g["memory (games)"].endswith(f"({r.memory_games:,})")
        deduce = g["deduce (games)"].removesuffix(f" ({r.deduce_games:,})")
        assert deduce.endswith(" *") == (r.deduce_low > 0 or r.deduce_high < 0)
        stars.add(deduce.endswith(" *"))
        assert (g["infer (games)"] == "") == pd.isna(r.infer_games)
        test = g["infer over deduce, one seat (pp)"]
        assert (test == "") == pd.isna(r.infer_test_gain)
        if test:
            assert test.startswith(f"{100 * r.infer_test_gain:+.1f} [")
            assert test.endswith(" *") == (r.infer_test_low > 0)
        if r.strongest == "infer:64":
            assert r.infer_test_low > 0 and r.infer_policy == "infer:64"
            best = f"{100 * r.infer_advantage:+.2f} [{100 * r.infer_low:+.2f}"
        elif r.strongest.startswith("deduce"):
            assert pd.isna(r.infer_test_low) or r.infer_test_low <= 0
            best = f"{100 * r.deduce_advantage:+.2f} [{100 * r.deduce_low:+.2f}"
        else:
            assert r.strongest == "infer:64 (to play)" and pd.isna(r.infer_games)
            assert g["between the strongest (pp)"] == ""
            continue
        assert g["between the strongest (pp)"].startswith(best)
        assert "(" not in g["between the strongest (pp)"]
        caps = g["turn cap (deduce / infer)"].split(" / ")
        assert caps[0] == f"{100 * r.deduce_unfinished:.1f}%"
        assert caps[1] == ("-" if pd.isna(r.infer_games) else f"{100 * r.infer_unfinished:.1f}%")
    assert stars == {True, False}  # both kinds of interval are among the tables
    # a value that rounds to zero is not printed as minus zero
    assert _interval(-0.00001, -0.01, 0.01) == "+0.0 [-1.0, +1.0]"
    assert _interval(0.02, 0.001, 0.03, digits=2) == "+2.00 [+0.10, +3.00] *"


def test_page_renders_in_headless_chromium(page_file, chromium):
    problems: list[str] = []
    requests: list[str] = []
    page = chromium.new_page()
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(page_file.as_uri(), wait_until="load")
    images = page.evaluate(
        "() => Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth])")
    headings = page.evaluate(
        "() => Array.from(document.querySelectorAll('h2')).map(h => h.textContent)")
    assert len(images) >= 6
    for alt, complete, width in images:
        assert complete and width > 0, f"image {alt!r} did not decode"
    assert problems == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    assert "Trike" in headings and "Tabula Trivium" in headings


def test_all_games_figure_points_come_from_the_tables(tmp_path):
    import json
    import shutil as sh

    from trilab.analysis import overview

    for game in ("tabula-trivium",):
        sh.copytree(f"results/{game}", tmp_path / game)
    (tmp_path / "balance").mkdir()
    summary = {"sizes": [{"size": 4, "method": "exact", "first_player_advantage": 0.5,
                          "first_player_advantage_ci": [0.5, 0.5]}]}
    (tmp_path / "balance" / "trike-exact.summary.json").write_text(json.dumps(summary))
    points = overview.all_points(tmp_path)
    assert set(points.game) == {"trike", "tabula-trivium"}
    trike_row = points[points.game == "trike"].iloc[0]
    assert trike_row.label == "4 (exact)" and trike_row.advantage == 0.5
    tab = points[points.game == "tabula-trivium"].set_index("label")
    meta = json.loads((tmp_path / "tabula-trivium" / "random-vs-random.meta.json").read_text())
    assert tab.loc["random-vs-random", "advantage"] == meta["first_seat_advantage"]
    fig = overview.plot_all_games(points)
    assert len(fig.axes) == 2


def test_the_figure_holds_equal_players_only(tmp_path):
    """A pairing of unequal players (greedy vs random) is a skill gap, not a seat
    effect: it is in the strength table, never on the first-seat figure."""
    import shutil as sh

    from trilab.analysis import overview

    sh.copytree("results/tabula-trivium", tmp_path / "tabula-trivium")
    labels = set(overview.all_points(tmp_path).label)
    unequal = overview.unequal_pairings(tmp_path)
    assert "random-vs-random" in labels and "greedy-vs-greedy" in labels
    assert "greedy-vs-random" not in labels and "mcts-200-vs-random" not in labels
    assert {"greedy-vs-random", "random-vs-greedy"} <= set(unequal.study)
    assert all(len(set(p.split(","))) > 1 for p in unequal.policies)
    assert not set(unequal.study) & labels


def test_duel_table_marks_the_matched_time_duels(tmp_path):
    """Each duel row says whether A's time was matched to B's (``--equal-time``)."""
    import shutil as sh

    from trilab.analysis import report_html

    agents = tmp_path / "agents"
    agents.mkdir()
    for name in ("trike-duel-13-mcts-squeeze-0.0084s@2-vs-mcts-10000",
                 "trike-duel-13-mcts-squeeze-0.0084s@2-vs-mcts-10000-equal-time"):
        for suffix in (".csv", ".meta.json"):
            sh.copy(f"results/agents/{name}{suffix}", agents / f"{name}{suffix}")
    table = report_html.duel_table(report_html.duel_files(tmp_path))
    assert table.groupby("matched_time").games_of.count().to_dict() == {False: 3, True: 3}
    assert "Matched time" in report_html._trike_section(tmp_path)
    assert set(table.run) == {"trial"}
    # a confirmation run, in its own folder, is listed after the trials and marked
    confirmation = agents / "confirmation"
    confirmation.mkdir()
    name = "trike-duel-13-mcts-squeeze-0.0084s@2-vs-mcts-10000-equal-time"
    for suffix in (".csv", ".meta.json"):
        sh.copy(f"results/agents/confirmation/{name}{suffix}", confirmation / f"{name}{suffix}")
    table = report_html.duel_table(report_html.duel_files(tmp_path))
    assert list(table.run) == ["trial"] * 6 + ["confirmation"] * 3
    assert table[table.run == "confirmation"].games.max() == 2000


def test_card_game_rows_are_grouped_by_configuration(tmp_path):
    """The card game's points are grouped by configuration, weakest policy first: the
    tables between strong players stand right after the memory one, a paired run's
    all-deduce control after the deduce table, unequal pairings nowhere; the figure
    shades every other configuration's band."""
    import json
    import shutil as sh

    from matplotlib.patches import Rectangle
    from trilab.analysis import overview
    from trilab.analysis.plots import plt

    cards = tmp_path / "trio-cards"
    picks = {"": ["p4-simple-teams-memory", "p4-simple-memory", "p3-spicy-memory",
                  "p3-simple-memory", "p3-simple-random"],
             "deduce": ["p3-simple-deduce", "p4-simple-deduce"],
             "infer": ["p3-simple-infer-64"],
             "strength": ["p3-simple-deduce-all-s6100", "p3-simple-infer-64-vs-deduce-seat0"]}
    games = {}
    for sub, names in picks.items():
        (cards / sub).mkdir(parents=True, exist_ok=True)
        for name in names:
            source = Path("results/trio-cards") / sub / f"{name}.meta.json"
            sh.copy(source, cards / sub / source.name)
            games[f"{sub}/{name}".lstrip("/")] = json.loads(source.read_text())["games"]
    points = overview.all_points(tmp_path)
    part = points.sort_values(["order", "label"])
    assert list(part.study) == [
        "p3-simple-random", "p3-simple-memory", "deduce/p3-simple-deduce",
        "strength/p3-simple-deduce-all-s6100", "infer/p3-simple-infer-64",
        "p3-spicy-memory", "p4-simple-memory", "deduce/p4-simple-deduce",
        "p4-simple-teams-memory"]
    assert list(part.group) == (["3p simple"] * 5 + ["3p spicy"] + ["4p simple"] * 2
                                + ["4p simple teams"])
    assert list(part.label)[1:5] == [
        f"3p simple: memory ({games['p3-simple-memory']:,})",
        f"3p simple: deduce ({games['deduce/p3-simple-deduce']:,})",
        f"3p simple: deduce s6100 ({games['strength/p3-simple-deduce-all-s6100']:,})",
        f"3p simple: infer:64 ({games['infer/p3-simple-infer-64']:,})"]
    fig = overview.plot_all_games(points)
    bands = [p for p in fig.axes[0].patches if isinstance(p, Rectangle)]
    assert [(b.get_y(), b.get_y() + b.get_height()) for b in bands] == [(-0.5, 4.5),
                                                                       (5.5, 7.5)]
    plt.close(fig)


def test_no_seat_figure_without_card_seat_studies(tmp_path):
    """A results folder with the card game's ``memory`` studies but no ``deduce`` seat
    studies (or with nothing) gets a page but no seat figure, and the page does not
    mention one."""
    import shutil

    from trilab.analysis.report_html import SEATS_FIGURE, report_all

    cards = tmp_path / "results" / "trio-cards"
    cards.mkdir(parents=True)
    for suffix in (".csv", ".meta.json"):
        shutil.copy(Path("results/trio-cards/p3-simple-memory").with_suffix(suffix), cards)
    (tmp_path / "empty").mkdir()
    for results, has_cards in ((tmp_path / "results", True), (tmp_path / "empty", False)):
        page = tmp_path / f"page-{results.name}" / "report.html"
        out = report_all(results, page)
        assert SEATS_FIGURE not in [f.name for f in out.files]
        assert not (page.parent / SEATS_FIGURE).exists()
        text = page.read_text()
        assert SEATS_FIGURE not in text
        assert ('id="trio-cards"' in text) == has_cards  # the memory study has its section
