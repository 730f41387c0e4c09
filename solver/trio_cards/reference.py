"""Slow, obviously-correct pure-Python Trio card game (rules and policies).

The reference the Numba engine of :mod:`trilab.solver.trio_cards.game` is checked
against; the rules, policies and every [choice] are stated there.  It shares
no code with the engine except :class:`trilab.solver.rng.PyRng`: a hand is a sorted
list of the cards still in it, revealed cards leave the hand and lie face up
on the table until they go back (re-sorted) or form a trio, records are
dicts, and the memory policy counts its sure reveals by actually taking them
one by one on a copy of the table.

Actions are tuples ``("low", p)``, ``("high", p)`` and ``("mid", j)``.
:meth:`Table.reveal` returns 0 (go on), -1 (mismatch, the turn is over) or
the value of the trio just taken.

Move digest: ``Table.digest`` (from 0) folds with
:func:`trilab.solver.rng.py_digest_step` the code of every reveal (``("low", p)``
-> ``2p``, ``("high", p)`` -> ``2p + 1``, ``("mid", j)`` -> ``12 + j``), every
team swap (team ``t``, gifts ``ga`` of seat ``t`` and ``gb`` of its partner:
``100 + (13 t + ga) * 13 + gb``) and every forgotten record (``("hand", q, i)``
-> ``1000 + 9 q + i``, ``("mid", j)`` -> ``1054 + j``), as they happen; the
codes are those of the engine's module docstring, written here again.
"""

from __future__ import annotations

import copy
import itertools

from trilab.solver.rng import PyRng, py_digest_step
from trilab.solver.trio_cards.reference_deduce import deduce_choice

LINKED_PAIRS = {(1, 6), (1, 8), (2, 5), (2, 9), (3, 4), (3, 10), (4, 11), (5, 12)}
DEALS = {3: (9, 9), 4: (7, 8), 5: (6, 6), 6: (5, 6)}
TEAM_DEALS = {4: (9, 0), 6: (6, 0)}
REASONS = ["three trios", "linked trios", "sevens", "turn cap"]


def reveal_code(action: tuple[str, int]) -> int:
    """Digest code of a reveal."""
    kind, i = action
    return {"low": 2 * i, "high": 2 * i + 1, "mid": 12 + i}[kind]


def swap_code(team: int, gift_a: int, gift_b: int) -> int:
    """Digest code of a team swap (seat ``team`` gives ``gift_a``, its partner ``gift_b``)."""
    return 100 + (13 * team + gift_a) * 13 + gift_b


def forget_code(key: tuple) -> int:
    """Digest code of a forgotten record ``("hand", q, i)`` or ``("mid", j)``."""
    if key[0] == "mid":
        return 1000 + 6 * 9 + key[1]  # after the 6 hands of at most 9 positions
    _, q, i = key
    return 1000 + 9 * q + i


def linked(a: int, b: int) -> bool:
    return (min(a, b), max(a, b)) in LINKED_PAIRS


def pick(rng: PyRng, options: list):
    """The only option, or one drawn with ``below``."""
    if len(options) == 1:
        return options[0]
    return options[rng.below(len(options))]


class Table:
    """A Trio position with everybody's records."""

    def __init__(self, players: int, mode: str, teams: bool, deck: list[int]):
        self.n = players
        self.mode = mode
        self.teams = teams
        size, middle = (TEAM_DEALS if teams else DEALS)[players]
        self.hands = [sorted(deck[p * size:(p + 1) * size]) for p in range(players)]
        self.middle: list[int | None] = deck[players * size:players * size + middle]
        self.faceup: list[tuple[str, int, int]] = []  # (kind, player or slot, value)
        self.trios: dict[int, int] = {}  # value -> team
        self.know: list[dict] = [{} for _ in range(players)]  # ("hand", q, pos) / ("mid", j)
        # public bounds of every hand: a trio of v taken from its low (high) end leaves
        # only cards >= v (<= v); a swap forgets them (the belief of deduce reads them)
        self.bounds = [[1, 12] for _ in range(players)]
        self.digest = 0  # move digest (module docstring)

    def fold(self, code: int) -> None:
        self.digest = py_digest_step(self.digest, code)

    # -- teams
    def team_of(self, p: int) -> int:
        return p % (self.n // 2) if self.teams else p

    def team_seats(self, team: int) -> list[int]:
        return [s for s in range(self.n) if self.team_of(s) == team]

    # -- turn bookkeeping
    def count_up(self, kind: str, p: int) -> int:
        return sum(1 for k, q, _ in self.faceup if k == kind and q == p)

    def full_size(self, p: int) -> int:
        return len(self.hands[p]) + self.count_up("low", p) + self.count_up("high", p)

    def legal(self) -> list[tuple[str, int]]:
        out = []
        for p in range(self.n):
            if len(self.hands[p]) >= 1:
                out.append(("low", p))
            if len(self.hands[p]) >= 2:
                out.append(("high", p))
        for j, card in enumerate(self.middle):
            if card is not None and ("mid", j) not in [(k, q) for k, q, _ in self.faceup]:
                out.append(("mid", j))
        return out

    def position(self, action: tuple[str, int]) -> int:
        """Index in the whole sorted hand (face-up cards included) of a hand reveal."""
        kind, p = action
        if kind == "low":
            return self.count_up("low", p)
        return self.full_size(p) - 1 - self.count_up("high", p)

    def take(self, action: tuple[str, int]) -> int:
        """Turn a card face up (no rule checks) and return its value."""
        kind, p = action
        if kind == "mid":
            value = self.middle[p]
        elif kind == "low":
            value = self.hands[p].pop(0)
        else:
            value = self.hands[p].pop()
        self.faceup.append((kind, p, value))
        return value

    def reveal(self, action: tuple[str, int], team: int) -> int:
        kind, p = action
        key = ("mid", p) if kind == "mid" else ("hand", p, self.position(action))
        self.fold(reveal_code(action))
        value = self.take(action)
        for o in range(self.n):
            if kind == "mid" or o != p:
                self.know[o][key] = value
        if any(v != value for _, _, v in self.faceup):
            for kind2, q, v in self.faceup:
                if kind2 != "mid":
                    self.hands[q] = sorted(self.hands[q] + [v])
            self.faceup = []
            return -1
        if len(self.faceup) < 3:
            return 0
        for o in range(self.n):
            new = {}
            for k, v in self.know[o].items():
                if k[0] == "mid":
                    if not any(kind2 == "mid" and q == k[1] for kind2, q, _ in self.faceup):
                        new[k] = v
                    continue
                _, q, pos = k
                low, high = self.count_up("low", q), self.count_up("high", q)
                if low <= pos < self.full_size(q) - high:
                    new[("hand", q, pos - low)] = v
            self.know[o] = new
        for kind2, q, _ in self.faceup:
            if kind2 == "mid":
                self.middle[q] = None
            elif kind2 == "low":
                self.bounds[q][0] = max(self.bounds[q][0], value)
            else:
                self.bounds[q][1] = min(self.bounds[q][1], value)
        self.faceup = []
        self.trios[value] = team
        return value

    # -- results
    def result(self, team: int, trios: list[int] | None = None) -> str | None:
        """The end reason if ``team`` (with ``trios``, default its own) has won."""
        if trios is None:
            trios = [v for v, t in self.trios.items() if t == team]
        if 7 in trios:
            return "sevens"
        if self.mode == "simple" and len(trios) >= 3:
            return "three trios"
        if self.mode == "spicy" and any(linked(a, b) for a, b in itertools.combinations(trios, 2)):
            return "linked trios"
        return None

    # -- teams
    @staticmethod
    def gift(hand: list[int]) -> int:
        return min(set(hand), key=lambda v: (hand.count(v), v))

    def swap(self, skip_team: int) -> None:
        half = self.n // 2
        for t in range(half):
            a, b = t, t + half
            if t == skip_team or not self.hands[a] or not self.hands[b]:
                continue
            ga, gb = self.gift(self.hands[a]), self.gift(self.hands[b])
            self.hands[a].remove(ga)
            self.hands[b].remove(gb)
            self.hands[a] = sorted(self.hands[a] + [gb])
            self.hands[b] = sorted(self.hands[b] + [ga])
            self.fold(swap_code(t, ga, gb))
            self.bounds[a] = [1, 12]
            self.bounds[b] = [1, 12]
            for o in range(self.n):
                self.know[o] = {k: v for k, v in self.know[o].items()
                                if not (k[0] == "hand" and k[1] in (a, b))}

    # -- knowledge and policies
    def forget(self, o: int, p: float, rng: PyRng) -> None:
        if p <= 0:
            return
        for key in sorted(self.know[o]):
            if p >= 1 or rng.uniform() < p:
                del self.know[o][key]
                self.fold(forget_code(key))

    def known(self, o: int, action: tuple[str, int]) -> int | None:
        kind, p = action
        if kind == "mid":
            return self.know[o].get(("mid", p))
        if p == o:
            return self.hands[o][0] if kind == "low" else self.hands[o][-1]
        return self.know[o].get(("hand", p, self.position(action)))

    def sure_supply(self, o: int, v: int) -> int:
        """How many cards ``o`` can turn up in a row now, knowing each is ``v``."""
        sim = copy.copy(self)  # the records are only read
        sim.hands = [list(h) for h in self.hands]
        sim.faceup = list(self.faceup)
        n = 0
        while True:
            options = [a for a in sim.legal() if sim.known(o, a) == v]
            if not options:
                return n
            sim.take(options[0])
            n += 1

    def located(self, o: int, v: int) -> int:
        own = self.hands[o].count(v) + sum(1 for k, q, w in self.faceup if k != "mid" and q == o
                                           and w == v)
        return own + sum(1 for w in self.know[o].values() if w == v)

    def memory_choice(self, o: int, rng: PyRng) -> tuple[str, int]:
        legal = self.legal()
        team = self.team_of(o)
        target = None
        if not self.faceup:
            seen = {self.known(o, a) for a in legal}
            supply = {v: self.sure_supply(o, v) if v in seen else 0 for v in range(1, 13)}
            sure = [v for v in range(1, 13) if supply[v] >= 3]
            if sure:
                mine = [w for w, t in self.trios.items() if t == team]
                wins = [v for v in sure if self.result(team, mine + [v]) is not None]
                target = pick(rng, wins or sure)
            else:
                # values whose every located copy can be turned up now
                hopeful = [v for v in range(1, 13)
                           if supply[v] >= 1 and self.located(o, v) == supply[v]]
                if hopeful:
                    best = max(supply[v] for v in hopeful)
                    target = pick(rng, [v for v in hopeful if supply[v] == best])
        else:
            t = self.faceup[0][2]
            if any(self.known(o, a) == t for a in legal):
                target = t
        if target is not None:
            return next(a for a in legal if self.known(o, a) == target)
        unknown = [a for a in legal if self.known(o, a) is None]
        return pick(rng, unknown or legal)


def parse_options(options: dict) -> dict:
    """Defaults and per-seat policies ``[(kind, p)]``; assumes valid options."""
    players = options["players"]
    teams = bool(options.get("teams", False))
    texts = options.get("policies", ["random"])
    if isinstance(texts, str):
        texts = [texts]
    if len(texts) == 1:
        texts = texts * players
    elif len(texts) != players:  # one per team
        texts = [texts[s % (players // 2)] for s in range(players)]
    seats = []
    for text in texts:
        text = text.strip()
        if text.startswith("forgetful"):
            seats.append(("forgetful", float(text.split(":")[1])))
        else:
            seats.append((text, 0.0))
    return {"players": players, "mode": options.get("mode", "simple"), "teams": teams,
            "seats": seats, "turn_cap": options.get("turn_cap", 500),
            "team_reswap": options.get("team_reswap", True)}


def shuffled_deck(rng: PyRng) -> list[int]:
    deck = [v for v in range(1, 13) for _ in range(3)]
    for i in range(35, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def new_table(rng: PyRng, opts: dict) -> Table:
    """Shuffle, deal and (team play) make the first swap."""
    table = Table(opts["players"], opts["mode"], opts["teams"], shuffled_deck(rng))
    if table.teams:
        table.swap(-1)
    return table


def choose(table: Table, seat: int, kind: str, rng: PyRng) -> tuple[str, int]:
    if kind == "random":
        return pick(rng, table.legal())
    if kind == "deduce":
        action = deduce_choice(table, seat)
        if action is not None:
            return action
    return table.memory_choice(seat, rng)


def reference_game(seed: int, game_index: int, options: dict) -> tuple[int, int, int, int]:
    """``(winners bitmask, turns, end reason index, move digest)`` of game ``game_index``."""
    opts = parse_options(options)
    rng = PyRng(seed, game_index)
    table = new_table(rng, opts)
    n = table.n
    for turn in range(opts["turn_cap"]):
        seat = turn % n
        kind, p = opts["seats"][seat]
        if kind == "forgetful":
            table.forget(seat, p, rng)
        team = table.team_of(seat)
        while True:
            got = table.reveal(choose(table, seat, kind, rng), team)
            if got == 0:
                continue
            if got > 0:
                reason = table.result(team)
                if reason is not None:
                    mask = sum(1 << s for s in table.team_seats(team))
                    return mask, turn + 1, REASONS.index(reason), table.digest
                if table.teams and opts["team_reswap"]:
                    table.swap(team)
            break
    return 0, opts["turn_cap"], REASONS.index("turn cap"), table.digest
