"""``results/report.html``: one self-contained page of everything trilab computed.

A section per game: what was computed and how (command, games, seed and time
from each table's ``.meta.json``), the key tables (pandas), the plots
(embedded as base64 PNG, so the page needs no network and no other file) and
the findings in words, written from the numbers in the tables (nothing in the
text is typed by hand, so it cannot go stale).  The page opens with the
first-seat advantage of all games in one figure (:mod:`trilab.analysis.overview`).

:func:`report_all` is ``trilab report`` without a game: it writes that figure
(with its points as CSV and its metadata) and the page.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import json
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from trilab.analysis import artifacts, overview
from trilab.analysis.common import RESULTS, StudyError, output_path
from trilab.analysis.simulation import collect

CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.7em; }
h2 { border-bottom: 2px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; font-size: .85em; margin: .8em 0; }
th, td { border: 1px solid #ccc; padding: .25em .5em; text-align: right; }
th { background: #f2f2f2; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; height: auto; display: block; margin: 1em 0; }
.how { color: #555; font-size: .85em; } code { background: #f4f4f4; padding: 0 .25em; }
nav a { margin-right: 1em; }
"""


def _img(path: Path, alt: str, width: int | None = None) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    style = f' style="max-width: min(100%, {width}px)"' if width else ""
    return f'<img alt="{html.escape(alt)}"{style} src="data:image/png;base64,{data}">'


def _table(df: pd.DataFrame, floats: str = "{:.4f}") -> str:
    return df.to_html(index=False, border=0, na_rep="",
                      float_format=lambda v: floats.format(v), escape=True)


def _how(meta_paths: list[Path]) -> str:
    """One line per table: command, seed, games and time from its metadata."""
    items = []
    for p in meta_paths:
        m = json.loads(p.read_text())
        bits = [f"<code>{html.escape(str(m.get('command', '?')))}</code>"]
        for key, label in (("games", "games"), ("seed", "seed"), ("seconds", "s"),
                           ("seconds_this_run", "s this run")):
            if m.get(key) is not None:
                value = m[key]
                text = f"{value:,.1f}" if isinstance(value, float) else f"{value:,}"
                bits.append(f"{label} {text}" if label in ("games", "seed") else f"{text} {label}")
        bits.append(f"commit {m.get('commit') or '?'}, {m.get('created', '')}")
        items.append(f"<li>{p.name}: " + "; ".join(bits) + "</li>")
    return '<ul class="how">' + "".join(items) + "</ul>" if items else ""


# ---------------------------------------------------------------- Trike


def _trike_section(results: Path) -> str:
    parts = ['<h2 id="trike">Trike</h2>']
    rows, metas = [], []
    for size in range(2, 11):
        csv = results / "trike" / f"size-{size}.csv"
        meta = csv.with_suffix(".meta.json")
        if not csv.exists() or not meta.exists():
            continue
        t = pd.read_csv(csv)
        metas.append(meta)
        margins = sorted({int(x) for x in t.margin.dropna()}) if "margin" in t else []
        per_class = t.dropna(subset=["winner"]).drop_duplicates("symmetry_class")
        rows.append({"size": size, "openings": size * (size + 1) // 2,
                     "solved": int(t.winner.notna().sum()),
                     "placer wins": int((t.winner == "placer").sum()),
                     "mover wins": int((t.winner == "mover").sum()),
                     "margins": ", ".join(f"{x:+d}" for x in margins) or "(win/loss only)",
                     "nodes (all classes)": f"{int(per_class.nodes.sum()):,}",
                     "CPU seconds (all classes)": float(per_class.seconds.sum())})
    if rows:
        table = pd.DataFrame(rows)
        complete = table[table.solved == table.openings]
        first_wins = complete[complete["placer wins"] > 0]["size"].tolist()
        all_placer = complete[complete["placer wins"] == complete.openings]["size"].tolist()
        sizes = f"{complete['size'].min()}-{complete['size'].max()}"
        text = [f"Solved exactly: every opening of sizes {sizes} "
                f"({int(complete.openings.sum())} openings)."]
        if len(first_wins) == len(complete):
            text.append("At every one of these sizes some opening wins for the first player, "
                        "so without the pie rule the first player wins; with it the second "
                        "player swaps exactly those openings and wins every game under perfect "
                        "play (the pie rule makes Trike a second-player win: its value is 0 "
                        "for the first player).")
        if all_placer:
            names = " and ".join(map(str, all_placer))
            text.append(f"At size{'s' if len(all_placer) > 1 else ''} {names} the placer wins "
                        "every opening: the second player must always swap.")
        margins = {m for r in rows for m in r["margins"].split(", ") if m.startswith(("+", "-"))}
        if margins:
            text.append(f"Margins under perfect play take only the values "
                        f"{', '.join(sorted(margins))}: every game is won by one point.")
        parts.append("<p>" + " ".join(text) + "</p>")
        parts.append(_table(table, "{:,.1f}"))
        parts.append(_how(metas))
    for path, alt, width in (
            (results / "balance" / "trike-swap-maps.png", "Trike swap maps by size", None),
            (results / "trike" / "size-8.png", "Trike size 8 opening map", 520),
            (results / "balance" / "trike-by-size.png", "Balance by board size", 760)):
        if path.exists():
            parts.append(_img(path, alt, width))
    agent_summaries = sorted((results / "balance").glob("trike-mcts-*.summary.json"))
    for path in agent_summaries:
        summ = json.loads(path.read_text())["sizes"]
        t = pd.DataFrame([{
            "size": s["size"], "placer wins (agent majority)": s["placer_wins"],
            "openings": s["openings_total"], "games per class": s.get("games_per_class"),
            "verdicts (classes)": ", ".join(f"{v} {n}" for v, n in s.get("verdicts", {}).items()),
            "pie value %": 100 * s["pie_value"],
            "pie value CI": f"[{100 * s['pie_value_ci'][0]:.1f}, {100 * s['pie_value_ci'][1]:.1f}]",
            "first-player advantage pp": 100 * s["first_player_advantage"],
            "agrees with exact %": (None if s.get("agreement_with_exact") is None
                                    else 100 * s["agreement_with_exact"])} for s in summ])
        meta_path = path.with_suffix("").with_suffix(".meta.json")
        agent = (json.loads(meta_path.read_text()).get("agent") if meta_path.exists() else None) \
            or path.name.removeprefix("trike-").removesuffix(".summary.json")
        best = max(summ, key=lambda s: s["pie_value"])
        parts.append(f"<h3>Balance between agents ({html.escape(agent)} against itself)</h3>")
        selection = best.get("selection", "chosen and estimated on the same games")
        parts.append(f"<p>The closest to an even game the first player reaches under the pie "
                     f"rule is a pie value of {100 * best['pie_value']:.1f}% (size "
                     f"{best['size']}; {html.escape(selection)}). Agent games are not "
                     f"perfect play: where both exist, the "
                     f"agents' majority winner is compared with the exact one, and the "
                     f"calibration table below says how often the agent reproduces perfect "
                     f"play where it is known.</p>")
        parts.append(_table(t, "{:.1f}"))
        parts.append(_how([path.with_suffix("").with_suffix(".meta.json")]))
        png = path.with_name(path.name.replace(".summary.json", ".png"))
        if png.exists():
            parts.append(_img(png, f"Balance by {agent}"))
    calibration = results / "agents" / "trike-calibration.csv"
    if calibration.exists():
        c = pd.read_csv(calibration)
        parts.append("<h3>Calibration: the agents against perfect play</h3>")
        parts.append("<p>How often each agent reproduces the exact result where it is known: "
                     "opening classes whose self-play majority is the exact winner, and games "
                     "after an opening and one reply won by the side that wins under perfect "
                     "play (95% Wilson intervals).</p>")
        parts.append(_table(c[["agent", "size", "study", "unit", "agree", "total", "share",
                               "ci_low", "ci_high"]]))
        parts.append(_how([calibration.with_suffix(".meta.json")]))
    duels = duel_files(results)
    if duels:
        d = duel_table(duels)
        parts.append("<h3>Agents against each other (no exact answer)</h3>")
        parts.append("<p>Matched time: A searched each move for as long as B took on the "
                     "same position (<code>trilab duel --equal-time</code>). A "
                     "<em>confirmation</em> run's size, games and seed were fixed before it "
                     "was played, after the trials that chose the agent, so its rate is "
                     "not the best of several noisy ones.</p>")
        parts.append(_table(d[["run", "size", "agent_a", "agent_b", "matched_time", "games_of",
                               "games", "a_wins", "a_win_rate", "ci_low", "ci_high",
                               "a_simulations_per_move", "b_simulations_per_move",
                               "a_seconds_per_move", "b_seconds_per_move"]]))
        parts.append(_how([p.with_suffix(".meta.json") for p in duels]))
    strength = results / "agents" / "trike-7-moves.csv"
    if strength.exists():
        s = pd.read_csv(strength)
        overall = s[s.stage == "all"]
        best = overall.loc[overall.winning_move_share.idxmax()]
        parts.append("<h3>The agent against the exact solver</h3>")
        parts.append(f"<p>On {int(best.positions)} random won size-7 positions the MCTS agent "
                     f"picks a winning move in {100 * best.winning_move_share:.1f}% of them "
                     f"with {html.escape(best.agent)} (95% CI "
                     f"{100 * best.ci_low:.1f}-{100 * best.ci_high:.1f}); the early game "
                     f"(2-4 checkers) is the hardest.</p>")
        cols = ["agent", "stage", "positions", "winning_move_share", "ci_low", "ci_high",
                "mean_simulations", "mean_seconds"]
        parts.append(_table(s[cols]))
        parts.append(_how([strength.with_suffix(".meta.json")]))
        for png in sorted((results / "agents").glob("*.png")):
            parts.append(_img(png, png.stem))
    return "\n".join(parts)


# ---------------------------------------------------------------- simulated games


def duel_files(results: Path) -> list[Path]:
    """The tables of ``trilab duel`` in ``results/agents`` and its folders (the
    confirmation runs, ``results/agents/confirmation``)."""
    return sorted((p for p in (results / "agents").rglob("trike-duel-*.csv")
                   if not p.name.endswith(".rows.csv")),
                  key=lambda p: (p.parent.name != "agents", str(p)))


def duel_table(duels: list[Path]) -> pd.DataFrame:
    """The duel tables as one, each row marked ``matched_time`` when A's time was
    matched to B's (``--equal-time``: the table has ``matched_seconds_per_move``)
    and with its ``run``: ``confirmation`` for a table in a folder of that name
    (a run whose size, games and seed were fixed before it was played), else
    ``trial``."""
    return pd.concat([pd.read_csv(p).assign(
        matched_time=lambda t: "matched_seconds_per_move" in t,
        run="confirmation" if p.parent.name == "confirmation" else "trial")
        for p in duels], ignore_index=True)


def _simulated_section(results: Path, game: str, title: str,
                       seats_png: Path | None = None) -> str:
    folder = results / game
    table = collect(folder) if folder.exists() else pd.DataFrame()
    if table.empty:
        return ""
    parts = [f'<h2 id="{game}">{html.escape(title)}</h2>']
    table = table.assign(unfinished_share=table.unfinished / table.games)
    worst = table.loc[table.first_seat_advantage.abs().idxmax()]
    decided = table[table.unfinished_share < 0.5]
    text = [f"{len(table)} studies, {int(table.games.sum()):,} games in all. The largest "
            f"first-seat effect is {100 * worst.first_seat_advantage:+.2f} pp "
            f"(95% CI {100 * worst.ci_low:+.2f} to {100 * worst.ci_high:+.2f}) in "
            f"{html.escape(worst.study)} (seat win rates {worst.seat_win_rates})."]
    capped = table[table.unfinished_share >= 0.5]
    if len(capped):
        text.append(f"In {len(capped)} studies at least half the games hit the cap "
                    f"({', '.join(html.escape(s) for s in capped.study)}): their seat "
                    "statistics describe the policies more than the game.")
    if len(decided):
        sig = decided[(decided.ci_low > 0) | (decided.ci_high < 0)]
        text.append(f"Of the {len(decided)} studies where most games finish, "
                    f"{len(sig)} show a first-seat effect whose interval excludes 0.")
    parts.append("<p>" + " ".join(text) + "</p>")
    cols = ["study", "policies", "games", "seat_win_rates", "first_seat_advantage", "ci_low",
            "ci_high", "unfinished_share", "mean_length"]
    parts.append(_table(table[cols]))
    parts.append(_how(sorted(p for p in folder.glob("*.meta.json")
                             if not p.name.startswith("summary"))))
    for png in (folder / "summary.png",):
        if png.exists():
            parts.append(_img(png, f"{title}: first-seat advantage"))
    if game == "trio-cards":
        parts.append(_strong_players(results, seats_png))
    ladders = sorted(folder.glob("ladder-*.csv"))
    if ladders:
        parts.append("<h3>Strength ladders of the MCTS agents</h3>")
        parts.append("<p>Each rung against <code>greedy</code> and against the rung below, "
                     "the games split over the rung's seats; win rate and score (draws as "
                     "half) with 95% Wilson intervals (<code>make ladders</code>).</p>")
        for path in ladders:
            lad = pd.read_csv(path)
            parts.append(f"<h4>{html.escape(path.stem)}</h4>")
            parts.append(_table(lad[["agent", "opponent", "games", "wins", "draws", "losses",
                                     "win_rate", "win_low", "win_high", "score", "score_low",
                                     "score_high"]]))
        parts.append(_how([p.with_suffix(".meta.json") for p in ladders]))
    return "\n".join(parts)


def _interval(x: float, lo: float, hi: float, digits: int = 1) -> str:
    """A share in signed percentage points with its interval, ``*`` when the interval
    excludes 0 (``+2.3 [+1.6, +2.9] *``); a value that rounds to zero prints as ``+0.0``."""
    def pp(v: float) -> str:
        return f"{round(100 * v, digits) + 0.0:+.{digits}f}"

    return f"{pp(x)} [{pp(lo)}, {pp(hi)}]" + (" *" if lo > 0 or hi < 0 else "")


def _strength_glance(t: pd.DataFrame) -> pd.DataFrame:
    """:func:`~trilab.analysis.trio_cards_strength.strength_overview` in words and
    percentages, one row per comparison."""
    rows = []
    for r in t.itertuples():
        paired = pd.notna(r.gain)
        rows.append({
            "table": overview.card_table_name(r.players, r.mode, r.teams),
            "policy": r.policy, "others": r.opponents, "seed": r.seed, "games": f"{r.games:,}",
            "win rate": f"{100 * r.win_rate:.1f}% [{100 * r.ci_low:.1f}, "
                        f"{100 * r.ci_high:.1f}]",
            "fair share": f"{100 * r.fair_share:.1f}%",
            "paired with": r.baseline if paired else "",
            "gain (pp)": _interval(r.gain, r.gain_low, r.gain_high) if paired else "",
            "better / worse": f"{r.better} / {r.worse}" if paired else "",
            "study": r.study})
    return pd.DataFrame(rows)


def _seat_glance(comp: pd.DataFrame) -> pd.DataFrame:
    """:func:`~trilab.analysis.trio_cards_strength.seat_comparison` in words and percentage
    points, one row per table: the first seat's advantage with each policy in every seat
    (its interval and games), the table's test of ``infer`` against ``deduce``, the policy
    whose table answers the seat question and that table's advantage."""
    from trilab.analysis.trio_cards_strength import strongest_key

    def adv(r, name: str) -> str:
        return "" if pd.isna(getattr(r, f"{name}_games")) else _interval(
            getattr(r, f"{name}_advantage"), getattr(r, f"{name}_low"),
            getattr(r, f"{name}_high"), digits=2)

    def games(r, name: str) -> str:
        n = getattr(r, f"{name}_games")
        return "" if pd.isna(n) else f" ({int(n):,})"

    rows = []
    for r in comp.itertuples():
        test = "" if pd.isna(r.infer_test_gain) else \
            _interval(r.infer_test_gain, r.infer_test_low, r.infer_test_high)
        best = strongest_key(r.strongest)
        caps = [f"{100 * getattr(r, f'{n}_unfinished'):.1f}%"
                if pd.notna(getattr(r, f"{n}_games")) else "-" for n in ("deduce", "infer")]
        rows.append({"table": overview.card_table_name(r.players, r.mode, r.teams),
                     **{f"{n} (games)": adv(r, n) + games(r, n)
                        for n in ("memory", "deduce", "infer")},
                     "infer over deduce, one seat (pp)": test,
                     "strongest": r.strongest,
                     "between the strongest (pp)": adv(r, best) if best else "",
                     "turn cap (deduce / infer)": " / ".join(caps)})
    return pd.DataFrame(rows)


def _team_glance(t: pd.DataFrame) -> pd.DataFrame:
    """:func:`~trilab.analysis.trio_cards_strength.team_shares` in words and percentages:
    each team's win rate with its 95% interval (* when the interval excludes the fair
    share)."""
    names = {0: "first team (seats 0, 3)", 1: "middle team (1, 4)", 2: "last team (2, 5)"}

    def share(r, k: int) -> str:
        x, lo, hi = (getattr(r, f"team{k}{s}") for s in ("", "_low", "_high"))
        off = lo > r.fair_share or hi < r.fair_share
        return f"{100 * x:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]" + (" *" if off else "")

    return pd.DataFrame([{"table": overview.card_table_name(6, r.mode, True),
                          "policy": r.policy, "seed": r.seed, "games": f"{r.games:,}",
                          "fair share": f"{100 * r.fair_share:.1f}%",
                          **{names[k]: share(r, k) for k in range(3)}, "study": r.study}
                         for r in t.itertuples()])


def _strong_players(results: Path, seats_png: Path | None = None) -> str:
    """The card game between strong players: the seat studies with ``deduce`` and with
    ``infer:K`` in every seat beside those with ``memory``, and the strength tables (one
    policy in one seat, every seat position)."""
    from trilab.analysis.trio_cards_strength import (
        seat_comparison,
        strength_overview,
        team_shares,
    )

    parts = []
    comp = seat_comparison(results)
    if not comp.empty:
        flips = comp[(comp.memory_high < 0) & (comp.deduce_low > 0)]
        played = comp[comp.infer_games.notna()]
        tested = comp[comp.infer_test_low.notna()]
        stronger = tested[tested.infer_test_low > 0]
        parts.append("<h3>Between strong players: <code>deduce</code> and <code>infer</code> "
                     "in every seat</h3>")
        parts.append(
            f"<p>The first seat's advantage (win rate minus fair share, 95% interval) with "
            f"<code>memory</code>, with <code>deduce</code> (exact belief over the hidden "
            f"cards) and with <code>infer:K</code> (<code>deduce</code> reading the other "
            f"players' choices) in every seat, "
            f"for {len(comp)} tables; <code>infer</code> is played at {len(played)} of them "
            f"(empty cells: not played). The column <em>infer over deduce</em> is each "
            f"table's pre-registered test: <code>infer:64</code> in one seat against "
            f"<code>deduce</code> players, its gain over <code>deduce</code> in that seat on "
            f"the same deals, averaged over the seat positions ({len(stronger)} of "
            f"{len(tested)} tested tables show a gain whose interval is above 0). "
            f"<code>strongest</code> names the policy whose table answers the seat "
            f"question: <code>infer:64</code> where its test holds (<em>to play</em> while "
            f"that table is not in yet, so its advantage is not shown), <code>deduce</code> "
            f"where the test does not hold or none was run. In {len(flips)} tables the first "
            "seat's disadvantage between <code>memory</code> players becomes an advantage "
            "between <code>deduce</code> players (both intervals exclude 0).</p>")
        parts.append("<p>At a glance: the first seat's advantage in percentage points with "
                     "its 95% interval (* when it excludes 0) and the games, by policy in "
                     "every seat; the table's <code>infer</code> test; and the advantage "
                     "between the strongest players measured.</p>")
        parts.append(_table(_seat_glance(comp)))
        if seats_png is not None and seats_png.exists():
            caption = ("<p>The same advantages as a figure (filled: the policy whose table "
                       "answers the seat question; <code>" + html.escape(seats_png.name)
                       + "</code>).</p>")
            parts.append(caption + _img(seats_png, "Trio card game: the first seat's advantage "
                                        "by the policy in every seat", 760))
        teams = team_shares(results)
        if not teams.empty:
            parts.append(
                "<p>Teams at 6 players: each team's win rate (95% interval, * when it "
                "excludes the fair share) in every table with one policy in every seat: the "
                "seat studies (seed 2026) and the all-seats controls played on other seeds "
                "(<code>strength/</code>), among them the pre-registered test of the last "
                "team's share (<code>deduce</code>, 10,000 games a mode; "
                "docs/findings.md).</p>")
            parts.append(_table(_team_glance(teams)))
        games = comp.infer_games.astype(object)
        parts.append("<details><summary>The same as numbers (shares, not points)</summary>")
        parts.append(_table(comp.assign(infer_games=games.where(games.notna(), ""),
                                        infer_policy=comp.infer_policy.fillna(""))))
        parts.append("</details>")
        parts.append(_how(sorted((results / "trio-cards" / "deduce").glob("*.meta.json")) +
                          sorted((results / "trio-cards" / "infer").glob("*.meta.json"))))
    folder = results / "trio-cards" / "strength"
    strength = sorted(p for p in folder.glob("*.csv") if "-seat" not in p.stem) \
        if folder.exists() else []
    if strength:
        parts.append("<h3>Strength: one policy in one seat, every seat position</h3>")
        glance = strength_overview(folder)
        if not glance.empty:
            parts.append(
                "<p>Every comparison at a glance: the tested policy in one seat and the "
                "others of the table as named, its win rate averaged over the seat positions "
                "(so the seat effect cancels) beside the table's fair share; where the same "
                "deals were also played with a baseline in that seat, the paired gain over "
                "it (percentage points, 95% interval; * when the interval excludes 0) and "
                "the games it did better and worse.</p>")
            parts.append(_table(_strength_glance(glance)))
        parts.append("<details><summary>Every table, seat position by seat position"
                     "</summary>")
        parts.append("<p>The row <code>mean</code> averages the seat positions (fair share: "
                     "one over the players, one over the teams in team games); the all-seats "
                     "controls (<code>deduce-all</code>) are the paired runs' baselines.</p>")
        for path in strength:
            parts.append(f"<h4>{html.escape(path.stem)}</h4>")
            parts.append(_table(pd.read_csv(path)))
        parts.append(_how([p.with_suffix(".meta.json") for p in strength]))
        parts.append("</details>")
    return "\n".join(parts)


# ---------------------------------------------------------------- page


def build(results: str | Path, overview_png: Path | None,
          seats_png: Path | None = None) -> str:
    """The page as one string (``overview_png``: the all-games figure; ``seats_png``: the
    card game's first seat by policy, :func:`write_seat_figure`)."""
    results = Path(results)
    sections = [
        ("trike", _trike_section(results)),
        ("tabula-trivium", _simulated_section(results, "tabula-trivium", "Tabula Trivium")),
        ("trio-cards", _simulated_section(results, "trio-cards", "Trio, the card game",
                                          seats_png)),
        ("trio-board", _simulated_section(results, "trio-board", "Trio, the board game (1917)")),
    ]
    sections = [(k, s) for k, s in sections if s]
    nav = " ".join(f'<a href="#{k}">{k}</a>' for k, _ in sections)
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    head = (f"<h1>trilab report</h1><p class=\"how\">Generated {created} from "
            f"<code>{html.escape(str(results))}</code> at commit "
            f"{artifacts.git_commit() or '?'} by <code>trilab report</code>; every table below "
            "was written by the command shown under it (<code>make results</code> reruns "
            "them).</p><nav>" + nav + "</nav>")
    opening = ""
    if overview_png is not None and overview_png.exists():
        opening = ('<h2 id="overview">First-seat advantage in every game</h2>'
                    "<p>Each point is the first seat's win rate minus its fair share "
                    "(percentage points) with its 95% interval, between equal players (the "
                    "same policy in every seat): a pairing of unequal players measures a "
                    "skill gap, not the seat, and is listed in "
                    "<code>unequal-pairings.csv</code> and each game's section instead. "
                    "Trike points marked exact are perfect play without the pie rule (the "
                    "first player wins: +50 pp).</p>"
                    + _img(overview_png, "First-seat advantage in every game"))
    body = "\n".join([head, opening] + [s for _, s in sections])
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>trilab report</title><style>{CSS}</style></head><body>\n{body}\n"
            "</body></html>\n")


# ---------------------------------------------------------------- the command


@dataclass
class PageOutcome:
    """What ``trilab report`` (no game) wrote."""

    points: object  # pandas DataFrame of the all-games figure
    files: list[Path]

    def to_json(self) -> list[dict]:
        return json.loads(self.points.to_json(orient="records"))

    def text(self) -> str:
        games = ", ".join(dict.fromkeys(self.points.game)) or "no studies"
        return f"Report of {games}. Wrote " + ", ".join(str(f) for f in self.files)


def report_all(results_dir: str | Path = RESULTS, out: str | Path | None = None,
               command: str | None = None) -> PageOutcome:
    """``results/report.html`` and, beside the page, the all-games first-seat-advantage
    figure (``first-seat-advantage.png``/``.csv``/``.meta.json``), the unequal pairings
    (``unequal-pairings.csv``/``.meta.json``) and the card game's first seat by policy
    (:func:`write_seat_figure`)."""
    results = Path(results_dir)
    if not results.is_dir():
        raise StudyError(f"no results folder {results}", "--results-dir")
    page = output_path(Path(out) if out else results / "report.html")
    points = overview.all_points(results)
    files = []
    fig_path = None
    if not points.empty:
        fig_path = output_path(page.parent / "first-seat-advantage.png")
        unequal = overview.unequal_pairings(results)
        unequal_path = output_path(page.parent / "unequal-pairings.csv")
        with artifacts.OutputSet() as files_out:  # the figure's files and the table, or none
            files_out.figure(fig_path, overview.plot_all_games(points))
            files_out.csv(fig_path.with_suffix(".csv"), points)
            files_out.json(fig_path.with_suffix(".meta.json"), artifacts.base_metadata(
                command=command or artifacts.command_line(), games=sorted(set(points.game)),
                players="equal (the same policy in every seat); unequal pairings: "
                        f"{unequal_path.name}"))
            files_out.csv(unequal_path, unequal)
            files_out.json(unequal_path.with_suffix(".meta.json"), artifacts.base_metadata(
                command=command or artifacts.command_line(),
                what="studies of unequal players (a skill gap, not a seat effect), kept off "
                     "the first-seat figure", studies=len(unequal)))
        files += [fig_path, fig_path.with_suffix(".csv"), fig_path.with_suffix(".meta.json"),
                  unequal_path, unequal_path.with_suffix(".meta.json")]
    seats_files = write_seat_figure(results, page.parent, command)
    files += seats_files
    # embeds the figures written above
    artifacts.write_text(page, build(results, fig_path, seats_files[0] if seats_files else None))
    files.append(page)
    return PageOutcome(points, files)


SEATS_FIGURE = "trio-cards-seats.png"
"""The card game's first seat by the policy in every seat, beside the page."""


def write_seat_figure(results: Path, folder: Path, command: str | None = None) -> list[Path]:
    """``SEATS_FIGURE`` and its ``.csv`` (:func:`~trilab.analysis.trio_cards_strength.
    seat_comparison`, the numbers drawn) and ``.meta.json`` in ``folder``, all or none;
    nothing when ``results`` has no card-game seat studies with ``deduce``."""
    from trilab.analysis.trio_cards_strength import plot_seat_comparison, seat_comparison

    comp = seat_comparison(results)
    if comp.empty:
        return []
    png = output_path(folder / SEATS_FIGURE)
    with artifacts.OutputSet() as files_out:
        files_out.figure(png, plot_seat_comparison(comp))
        files_out.csv(png.with_suffix(".csv"), comp)
        files_out.json(png.with_suffix(".meta.json"), artifacts.base_metadata(
            command=command or artifacts.command_line(), tables=len(comp),
            what="the first seat's advantage (win rate minus fair share, 95% Wilson "
                 "interval) with memory, deduce and infer:K in every seat, per table; "
                 "strongest: the policy whose table answers the seat question",
            sources=["trio-cards/*-memory.csv", "trio-cards/deduce/", "trio-cards/infer/",
                     "trio-cards/strength/ (the infer tests)"]))
    return [png, png.with_suffix(".csv"), png.with_suffix(".meta.json")]
