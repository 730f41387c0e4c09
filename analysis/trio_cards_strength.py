"""One policy in one seat against another everywhere else, in every seat position.

Reads the per-seat tables ``trilab simulate`` wrote for the runs
``<prefix>-seat<k>.csv`` (the tested policy in seat ``k``, ``k = 0 .. n-1``) and
writes ``<prefix>.csv``: one row per seat position (the tested seat's win rate
and 95% Wilson interval) and a row ``mean`` (the average over the positions, so
the seat effect cancels, with a normal interval from the independent runs), and
``<prefix>.meta.json`` beside it (the command and the tables it read).

:func:`paired` compares the same runs game by game with a run of the baseline policy in
every seat on the same seed (``--paired <baseline>.csv``): a game's deal and the
opponents are then the same in both runs, so the tested seat's gain over the
baseline in that seat is measured on identical deals, with a much narrower
interval than from the win rates alone.  It reads the per-game rows
(``.parquet``) ``trilab simulate`` writes beside each table.

:func:`seat_comparison` puts the seat studies with ``memory`` in every seat beside
those with ``deduce`` and with ``infer:K`` in every seat, one row per table (players,
mode, teams).  :func:`strength_overview` lists every comparison of a strength
folder in one table (the report's summary).

    python -m trilab.analysis.trio_cards_strength results/trio-cards/strength/p3-simple-deduce
    python -m trilab.analysis.trio_cards_strength PREFIX --paired BASELINE.csv
    python -m trilab.analysis.trio_cards_strength PREFIX --paired-seats BASELINE_PREFIX
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from trilab.analysis import artifacts
from trilab.analysis.simulation import card_table_prefix, collect


def summarize(prefix: str) -> list[dict]:
    rows = []
    k = 0
    while (path := Path(f"{prefix}-seat{k}.csv")).exists():
        with path.open() as f:
            seat = next(r for r in csv.DictReader(f) if int(r["seat"]) == k)
        rows.append({"position": k, "policy": seat["policy"], "games": int(seat["games"]),
                     "wins": int(seat["wins"]), "win_rate": float(seat["win_rate"]),
                     "ci_low": float(seat["ci_low"]), "ci_high": float(seat["ci_high"])})
        k += 1
    if not rows:
        raise SystemExit(f"no {prefix}-seat0.csv")
    mean = sum(r["win_rate"] for r in rows) / len(rows)
    se = math.sqrt(sum(r["win_rate"] * (1 - r["win_rate"]) / r["games"] for r in rows)) / len(rows)
    rows.append({"position": "mean", "policy": rows[0]["policy"],
                 "games": sum(r["games"] for r in rows), "wins": sum(r["wins"] for r in rows),
                 "win_rate": mean, "ci_low": mean - 1.96 * se, "ci_high": mean + 1.96 * se})
    sources = [f"{prefix}-seat{r['position']}.csv" for r in rows[:-1]]
    with artifacts.OutputSet() as out:  # the table and its metadata, or neither
        out.csv(f"{prefix}.csv", pd.DataFrame(rows))
        out.json(f"{prefix}.meta.json", artifacts.base_metadata(
            sources=sources, regenerate=f"python -m trilab.analysis.trio_cards_strength {prefix}"))
    return rows


def _but_seat(meta: dict, k: int) -> dict:
    """A run's options without seat ``k``'s policy (the other seats' stay)."""
    options = dict(meta["options"])
    options["policies"] = [p for s, p in enumerate(options["policies"]) if s != k]
    return options


def paired(prefix: str, baseline: str, per_seat: bool = False) -> list[dict]:
    """Game-by-game gain of the tested seat over the baseline run (module docstring).

    For every position ``k`` with ``<prefix>-seat<k>.csv``: the games, the tested
    seat's wins and the baseline's wins in seat ``k`` on the same games, the mean
    gain (tested minus baseline win, per game) with its 95% t interval and the games
    where the result differs either way; a row ``mean`` averages the positions (the
    interval from their independent runs).  Writes ``<prefix>-paired.csv`` and its
    ``.meta.json``.  The runs must share the seed and the number of games.

    With ``per_seat`` the baseline is another one-seat study, a prefix whose run for
    position ``k`` is ``<baseline>-seat<k>.csv`` (another policy in the tested seat,
    the same opponents), and the table is ``<prefix>-paired-vs-<baseline's name>.csv``.
    """
    def base_run(k: int) -> tuple[str, dict, pd.DataFrame]:
        path = Path(f"{baseline}-seat{k}.csv" if per_seat else baseline)
        if not path.exists():
            raise SystemExit(f"no baseline {path}")
        return (str(path), json.loads(path.with_suffix(".meta.json").read_text()),
                pd.read_parquet(path.with_suffix(".parquet")))

    if not per_seat:
        _, base_meta, base = base_run(0)
    rows, sources, k = [], [] if per_seat else [baseline], 0
    while (path := Path(f"{prefix}-seat{k}.csv")).exists():
        if per_seat:
            source, base_meta, base = base_run(k)
            sources.append(source)
        meta = json.loads(path.with_suffix(".meta.json").read_text())
        if meta["seed"] != base_meta["seed"] or meta["games"] != base_meta["games"]:
            raise SystemExit(f"{path} and {baseline} differ in seed or games: not paired")
        if per_seat and _but_seat(meta, k) != _but_seat(base_meta, k):
            raise SystemExit(f"{path} and {source} differ in more than seat {k}'s policy: "
                             "not paired")
        run = pd.read_parquet(path.with_suffix(".parquet"))
        x = run[f"seat{k}_win"].to_numpy(np.int64)
        b = base[f"seat{k}_win"].to_numpy(np.int64)
        d = x - b
        n = len(d)
        se = float(d.std(ddof=1)) / math.sqrt(n)
        half = float(stats.t.ppf(0.975, n - 1)) * se
        rows.append({"position": k, "policy": meta["options"]["policies"][k],
                     "baseline": base_meta["options"]["policies"][k],
                     "games": n, "wins": int(x.sum()), "baseline_wins": int(b.sum()),
                     "gain": float(d.mean()), "ci_low": float(d.mean()) - half,
                     "ci_high": float(d.mean()) + half, "better": int((d > 0).sum()),
                     "worse": int((d < 0).sum()), "_se": se})
        sources.append(str(path))
        k += 1
    if not rows:
        raise SystemExit(f"no {prefix}-seat0.csv")
    gain = sum(r["gain"] for r in rows) / len(rows)
    se = math.sqrt(sum(r["_se"] ** 2 for r in rows)) / len(rows)
    rows.append({"position": "mean", "policy": rows[0]["policy"],
                 "baseline": rows[0]["baseline"], "games": sum(r["games"] for r in rows),
                 "wins": sum(r["wins"] for r in rows),
                 "baseline_wins": sum(r["baseline_wins"] for r in rows), "gain": gain,
                 "ci_low": gain - 1.96 * se, "ci_high": gain + 1.96 * se,
                 "better": sum(r["better"] for r in rows),
                 "worse": sum(r["worse"] for r in rows), "_se": se})
    for r in rows:
        del r["_se"]
    name = f"{prefix}-paired-vs-{Path(baseline).name}" if per_seat else f"{prefix}-paired"
    flag = "--paired-seats" if per_seat else "--paired"
    with artifacts.OutputSet() as out:
        out.csv(f"{name}.csv", pd.DataFrame(rows))
        out.json(f"{name}.meta.json", artifacts.base_metadata(
            sources=sources, seed=base_meta["seed"],
            regenerate=f"python -m trilab.analysis.trio_cards_strength {prefix} "
                       f"{flag} {baseline}"))
    return rows


def _equal(table: pd.DataFrame, policy: str) -> pd.DataFrame:
    """The studies of ``table`` with ``policy`` in every seat (``"infer:"``: with one
    ``infer:K`` in every seat)."""
    if table.empty:
        return table
    if policy.endswith(":"):
        keep = table.policies.map(lambda p: len(set(p.split(","))) == 1 and
                                  p.startswith(policy))
    else:
        keep = table.policies.map(lambda p: set(p.split(",")) == {policy})
    return table[keep].drop_duplicates(["players", "mode", "teams"], keep="last")


KEYS = ["players", "mode", "teams"]


def _columns(table: pd.DataFrame, name: str) -> pd.DataFrame:
    """A study table's games, first-seat advantage with its interval and turn-cap share,
    as ``<name>_games``, ``<name>_advantage``, ``<name>_low``, ``<name>_high`` and
    ``<name>_unfinished``."""
    t = table.assign(unfinished_share=table.unfinished / table.games)
    t = t[KEYS + ["games", "first_seat_advantage", "ci_low", "ci_high", "unfinished_share"]]
    return t.rename(columns={"games": f"{name}_games",
                             "first_seat_advantage": f"{name}_advantage",
                             "ci_low": f"{name}_low", "ci_high": f"{name}_high",
                             "unfinished_share": f"{name}_unfinished"})


INFER_TEST = "infer-64-vs-deduce"  # the pre-registered test of a table: <table>-INFER_TEST
STRONG_INFER = "infer:64"  # the policy that test is about


def _infer_tests(folder: Path) -> pd.DataFrame:
    """Per table, the pre-registered test of ``infer:64`` against ``deduce``: the study
    ``p<n>-<mode>[-teams]-infer-64-vs-deduce`` of ``folder`` (``infer:64`` in one seat, the
    others ``deduce``), paired with ``deduce`` in its seat on the same deals in
    ``<study>-paired.csv``, read only once every seat position is in, as
    ``infer_test_gain``, ``infer_test_low``, ``infer_test_high`` (other studies of the same
    policies, such as later replications on other seeds, are not the test)."""
    cols = KEYS + ["infer_test_gain", "infer_test_low", "infer_test_high"]
    over = strength_overview(folder) if folder.exists() else pd.DataFrame()
    if over.empty:
        return pd.DataFrame(columns=cols)
    name = [f"{card_table_prefix(r.players, r.mode, r.teams)}-{INFER_TEST}"
            for r in over.itertuples()]
    tests = over[(over.study == name) & (over.comparison == over.study + "-paired") &
                 (over.baseline == "deduce") & (over.positions == over.players)]
    return tests.rename(columns={"gain": "infer_test_gain", "gain_low": "infer_test_low",
                                 "gain_high": "infer_test_high"})[cols]


def _strongest(row: pd.Series) -> str:
    """Which policy's seat table answers "is there a seat advantage between strong
    players" for this table: ``infer:64`` where its pre-registered test's interval is above
    0 (``(to play)`` while its table with ``infer:64`` in every seat is not in yet),
    ``deduce`` where the interval includes 0 or where no test was run."""
    if pd.isna(row.infer_test_low):
        return "deduce (infer not tested)"
    if row.infer_test_low <= 0:
        return "deduce (infer not confirmed stronger)"
    return STRONG_INFER if row.infer_policy == STRONG_INFER else f"{STRONG_INFER} (to play)"


def strongest_key(strongest: str) -> str:
    """The column prefix (``infer`` or ``deduce``) of the table a ``strongest`` label of
    :func:`_strongest` names, or ``""`` while that table is still to play."""
    if strongest == STRONG_INFER:
        return "infer"
    return "deduce" if strongest.startswith("deduce") else ""


def seat_comparison(results: str | Path) -> pd.DataFrame:
    """Per table (players, mode, teams) with a ``deduce`` study: the first seat's
    advantage (its win rate minus its fair share, 95% interval) with ``memory``, with
    ``deduce`` and, where played, with ``infer:K`` in every seat (``results/trio-cards/``,
    ``deduce/`` and ``infer/``; NaN where there is no ``infer`` table), the games of each
    and the strong policies' turn-cap shares; the table's pre-registered test of
    ``infer:64`` against ``deduce`` (``strength/``, :func:`_infer_tests`; NaN where none)
    and ``strongest``, the policy whose table answers the seat question
    (:func:`_strongest`)."""
    folder = Path(results) / "trio-cards"

    def study(sub: str, policy: str) -> pd.DataFrame:
        return _equal(collect(folder / sub), policy) if (folder / sub).exists() \
            else pd.DataFrame()

    memory, deduce, infer = study("", "memory"), study("deduce", "deduce"), \
        study("infer", "infer:")
    cols = ["players", "mode", "teams", "memory_games", "memory_advantage", "memory_low",
            "memory_high", "deduce_games", "deduce_advantage", "deduce_low", "deduce_high",
            "deduce_unfinished", "infer_policy", "infer_games", "infer_advantage",
            "infer_low", "infer_high", "infer_unfinished", "infer_test_gain",
            "infer_test_low", "infer_test_high", "strongest"]
    infer_numbers = ["infer_advantage", "infer_low", "infer_high", "infer_unfinished"]
    test_numbers = ["infer_test_gain", "infer_test_low", "infer_test_high"]
    if memory.empty or deduce.empty:
        return pd.DataFrame(columns=cols)
    m = _columns(memory, "memory").drop(columns="memory_unfinished")
    comp = m.merge(_columns(deduce, "deduce"), on=KEYS)
    i = _columns(infer, "infer").assign(infer_policy=infer.policies.str.split(",").str[0]) \
        if not infer.empty else \
        pd.DataFrame(columns=KEYS + ["infer_policy", "infer_games"] + infer_numbers)
    comp = comp.merge(i, on=KEYS, how="left", validate="one_to_one")
    comp[infer_numbers] = comp[infer_numbers].astype(float)
    comp["infer_games"] = comp["infer_games"].astype("Int64")
    # a test of a table without memory and deduce studies has no row here
    comp = comp.merge(_infer_tests(folder / "strength"), on=KEYS, how="left",
                      validate="one_to_one")
    comp[test_numbers] = comp[test_numbers].astype(float)
    comp["strongest"] = comp.apply(_strongest, axis=1) if len(comp) else []
    return comp.sort_values(KEYS).reset_index(drop=True)[cols]


SEAT_POLICIES = (
    ("memory", "memory", "#9e9e9e", "o", "remembers what it saw"),
    ("deduce", "deduce", "#00798c", "s", "also counts cards: an exact belief"),
    ("infer", STRONG_INFER, "#d1495b", "D", "also reads why the others revealed"))
"""(column prefix, name, colour, marker, gloss) of each policy in
:func:`plot_seat_comparison`."""


def seat_row_label(players: int, mode: str, teams: bool) -> str:
    """A row of :func:`plot_seat_comparison`: the table's name, and in team games which
    advantage is drawn (the first team's)."""
    from trilab.analysis.overview import card_table_name

    return card_table_name(players, mode, teams) + (" (first team)" if teams else "")


def plot_seat_comparison(comp: pd.DataFrame):
    """The first seat's advantage (percentage points, 95% interval) of every table of
    :func:`seat_comparison`, one row a table, one marker a policy in every seat
    (``memory``, ``deduce``, ``infer:K`` where played).  The marker of the policy whose
    table answers the seat question (``strongest``) is filled, the others hollow; a
    table whose ``infer`` table is still to play, or was not played because ``infer``
    was not confirmed stronger there, says so."""
    from matplotlib.lines import Line2D
    from trilab.analysis.plots import plt

    comp = comp.reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(8.5, 0.62 * len(comp) + 1.6))
    offsets = dict(zip([k for k, *_ in SEAT_POLICIES], (-0.22, 0.0, 0.22), strict=True))
    for key, _, colour, marker, _ in SEAT_POLICIES:
        rows = comp[comp[f"{key}_games"].notna()]
        if rows.empty:
            continue
        y = rows.index.to_numpy() + offsets[key]
        x = 100 * rows[f"{key}_advantage"].to_numpy(float)
        err = np.vstack([x - 100 * rows[f"{key}_low"].to_numpy(float),
                         100 * rows[f"{key}_high"].to_numpy(float) - x])
        ax.errorbar(x, y, xerr=err, fmt="none", ecolor=colour, elinewidth=1.2, capsize=2.5,
                    zorder=2)
        best = (rows.strongest.map(strongest_key) == key).to_numpy()
        ax.scatter(x[best], y[best], color=colour, marker=marker, s=40, zorder=3)
        ax.scatter(x[~best], y[~best], facecolors="white", edgecolors=colour, marker=marker,
                   s=40, zorder=3)
    for i, r in comp.iterrows():
        if i % 2 == 0:
            ax.axhspan(i - 0.5, i + 0.5, color="0.94", zorder=0)
        note = (f"{STRONG_INFER}: being played" if r.strongest.endswith("(to play)") else
                f"{STRONG_INFER} not played: not confirmed stronger here"
                if "not confirmed" in r.strongest and pd.isna(r.infer_games) else "")
        if note:
            ax.annotate(note, (1, i + offsets["infer"]), xycoords=("axes fraction", "data"),
                        xytext=(-4, 0), textcoords="offset points", ha="right",
                        va="center", fontsize=7, color="#d1495b")
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(comp)), [seat_row_label(r.players, r.mode, r.teams)
                                     for r in comp.itertuples()], fontsize=9)
    ax.set_ylim(len(comp) - 0.5, -0.5)
    for x, ha, text in ((0.0, "left", "\u2190 the first seat loses"),
                        (1.0, "right", "the first seat wins \u2192")):
        ax.text(x, 1.005, text, transform=ax.transAxes, ha=ha, va="bottom", fontsize=8)
    ax.set_xlabel("the first seat's win rate minus its fair share (percentage points, "
                  "95% interval)", fontsize=9)
    ax.set_title("Trio card game: the first seat's advantage by the policy in every seat",
                 fontsize=10, loc="left", pad=16)
    handles = [Line2D([], [], ls="none", marker=marker, markerfacecolor="white",
                      markeredgecolor=colour, color=colour, label=f"{name}: {gloss}")
               for _, name, colour, marker, gloss in SEAT_POLICIES]
    handles += [Line2D([], [], ls="none", marker="s", color="black",
                       label="filled: the policy whose table answers the seat question "
                             "(the strongest confirmed)"),
                Line2D([], [], ls="none", marker="s", markerfacecolor="white",
                       markeredgecolor="black", label="hollow: the other policies")]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.09), ncol=1,
              fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def team_shares(results: str | Path, players: int = 6) -> pd.DataFrame:
    """Every team table at ``players`` players with one policy (not ``random``) in every
    seat: each team's win rate (team ``k``: seats ``k`` and ``k + players / 2``) with its
    95% Wilson interval, read from the seat rows of the table's metadata.  The seat studies
    (``results/trio-cards/``, ``deduce/``, ``infer/``) and the control tables of
    ``strength/`` (``...-all-s<seed>``, played on fresh seeds: the pre-registered test of
    the last team's share among them).  One row per table: ``study``, ``folder``, ``mode``,
    ``policy``, ``seed``, ``games``, ``fair_share`` and ``team<k>``, ``team<k>_low``,
    ``team<k>_high``; sorted by mode, policy (``memory``, ``deduce``, then the others),
    seed."""
    folder = Path(results) / "trio-cards"
    n_teams = players // 2
    rows = []
    for sub in ("", "deduce", "infer", "strength"):
        metas = sorted((folder / sub).glob("*.meta.json")) if (folder / sub).is_dir() else []
        for meta_path in metas:
            m = json.loads(meta_path.read_text())
            o = m.get("options", {})
            seats = m.get("seats", [])
            policies = {s["policy"] for s in seats}
            if (not o.get("teams") or len(seats) != players or len(policies) != 1
                    or "random" in policies):  # random play rarely finishes a game
                continue
            row = {"study": meta_path.name.removesuffix(".meta.json"), "folder": sub or ".",
                   "mode": o.get("mode", ""), "policy": policies.pop(), "seed": m["seed"],
                   "games": m["games"], "fair_share": m["fair_share"]}
            for k in range(n_teams):
                row |= {f"team{k}": seats[k]["win_rate"], f"team{k}_low": seats[k]["ci_low"],
                        f"team{k}_high": seats[k]["ci_high"]}
            rows.append(row)
    cols = ["study", "folder", "mode", "policy", "seed", "games", "fair_share"] + [
        f"team{k}{x}" for k in range(n_teams) for x in ("", "_low", "_high")]
    if not rows:
        return pd.DataFrame(columns=cols)
    t = pd.DataFrame(rows)
    t["rank"] = t.policy.map({"memory": 0, "deduce": 1}).fillna(2)
    return t.sort_values(["mode", "rank", "policy", "seed"]).reset_index(drop=True)[cols]


def _mean_row(path: Path) -> pd.Series | None:
    """The ``mean`` row of a table this module wrote, or None (a seat table)."""
    t = pd.read_csv(path)
    if "position" not in t:
        return None
    mean = t[t.position.astype(str) == "mean"]
    return mean.iloc[0] if len(mean) else None


def _positions(path: Path) -> int:
    """The seat positions a table this module wrote covers (its rows but ``mean``)."""
    return int((pd.read_csv(path).position.astype(str) != "mean").sum())


def strength_overview(folder: str | Path) -> pd.DataFrame:
    """One row per comparison in a strength folder (``results/trio-cards/strength``), for
    reading them at a glance: the table (players, mode, teams), the tested policy and the
    policies of the other seats and the seed (from the seat-0 run's metadata), the tested
    policy's win rate averaged over the seat positions with its 95% interval, the fair
    share, the seat positions covered (``positions``; a study still being played covers
    fewer than the players), and, for each paired comparison of the study
    (``<prefix>-paired*.csv``: ``comparison``, its name, and the positions it covers),
    the baseline and the gain over it on the same deals with its interval and the games
    it did better and worse (a study without one has a single row with those empty).
    Sorted by table."""
    folder = Path(folder)
    cols = ["study", "players", "mode", "teams", "policy", "opponents", "seed", "games",
            "positions", "win_rate", "ci_low", "ci_high", "fair_share", "comparison",
            "baseline", "gain", "gain_low", "gain_high", "better", "worse"]
    rows = []
    for path in sorted(folder.glob("*.csv")):
        prefix = path.stem
        meta_path = folder / f"{prefix}-seat0.meta.json"
        if "-paired" in prefix or not meta_path.exists():
            continue  # a comparison (read below), a per-seat run or an all-seats control
        mean = _mean_row(path)
        if mean is None:
            continue
        meta = json.loads(meta_path.read_text())
        o = meta.get("options", {})
        row = {"study": prefix, "players": o.get("players", len(meta["seats"])),
               "mode": o.get("mode", ""), "teams": bool(o.get("teams", False)),
               "policy": mean.policy,
               "opponents": ",".join(dict.fromkeys(s["policy"] for s in meta["seats"][1:])),
               "seed": meta["seed"],
               "games": int(mean.games), "positions": _positions(path),
               "win_rate": float(mean.win_rate),
               "ci_low": float(mean.ci_low), "ci_high": float(mean.ci_high),
               "fair_share": float(meta["fair_share"])}
        comparisons = [(p, _mean_row(p)) for p in sorted(folder.glob(f"{prefix}-paired*.csv"))]
        for p, c in [(p, c) for p, c in comparisons if c is not None] or [(None, None)]:
            extra = {} if c is None else {
                "comparison": p.stem, "positions": _positions(p), "baseline": c.baseline,
                "gain": float(c.gain), "gain_low": float(c.ci_low),
                "gain_high": float(c.ci_high), "better": int(c.better), "worse": int(c.worse)}
            rows.append(row | extra)
    table = pd.DataFrame(rows, columns=cols)
    if table.empty:
        return table
    for c in ("better", "worse"):
        table[c] = table[c].astype("Int64")
    return table.sort_values(["players", "mode", "teams", "study"], kind="stable") \
        .reset_index(drop=True)


def main(argv: list[str] | None = None) -> None:
    """The command line: summarize each ``PREFIX``, after pairing it with one baseline."""
    ap = argparse.ArgumentParser(prog="python -m trilab.analysis.trio_cards_strength",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("prefixes", nargs="+", metavar="PREFIX")
    baseline = ap.add_mutually_exclusive_group()
    baseline.add_argument("--paired", metavar="BASELINE.csv",
                          help="the baseline policy in every seat, same seed")
    baseline.add_argument("--paired-seats", metavar="BASELINE_PREFIX",
                          help="another one-seat study, position by position")
    args = ap.parse_args(argv)
    against = args.paired or args.paired_seats
    if against is not None:
        if len(args.prefixes) != 1:
            ap.error("--paired and --paired-seats take exactly one PREFIX")
        try:
            rows = paired(args.prefixes[0], against, per_seat=args.paired_seats is not None)
        except SystemExit as exc:  # runs that cannot be paired: a one-line error, exit 2
            ap.error(str(exc.code))
        for r in rows:
            print(r)
    for prefix in args.prefixes:
        for r in summarize(prefix):
            print(r)


if __name__ == "__main__":
    main()
