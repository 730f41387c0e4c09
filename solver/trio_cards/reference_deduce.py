"""Slow, plain-Python twin of the ``deduce`` policy and of the belief it reads.

Written from the rules stated in :mod:`trilab.solver.trio_cards.belief` and
:mod:`trilab.solver.trio_cards.deduce` on the reference :class:`~trilab.solver.
trio_cards.reference.Table` (hands as lists without the face-up cards, records
as dicts); it shares no code with the engine.  The belief is a memoised
recursion over the values 1..12 whose state is the fill of *every* container
(a tuple), the marginals a forward sweep over the states it reaches.
"""

from __future__ import annotations

import itertools
from functools import cache

EPS = 1e-9
TIE = 1e-9
U_TRIO = 0.35


class Belief:
    """Seat ``o``'s belief in a reference table."""

    def __init__(self, table, o: int):
        self.table = table
        self.o = o
        n = table.n
        trio_values = set(table.trios)
        unknown = {v: (0 if v in trio_values else 3) for v in range(1, 13)}
        for v in self.whole_hand(o):
            unknown[v] -= 1
        self.containers = []  # (group, start, size, low, high); group "pool" = the middle
        self.known = {}  # (group, v) -> known copies
        for q in range(n):
            if q == o:
                continue
            size = table.full_size(q)
            recs = [table.know[o].get(("hand", q, i)) for i in range(size)]
            prev = table.bounds[q][0]
            i = 0
            while i < size:
                if recs[i] is not None:
                    self.known[(q, recs[i])] = self.known.get((q, recs[i]), 0) + 1
                    unknown[recs[i]] -= 1
                    prev = recs[i]
                    i += 1
                    continue
                j = i
                while j < size and recs[j] is None:
                    j += 1
                high = recs[j] if j < size else table.bounds[q][1]
                self.containers.append((q, i, j - i, prev, high))
                i = j
        self.pool_slots = []
        for j, card in enumerate(table.middle):
            if card is None:
                continue
            rec = table.know[o].get(("mid", j))
            if rec is None:
                self.pool_slots.append(j)
            else:
                unknown[rec] -= 1
        if self.pool_slots:
            self.containers.append(("pool", 0, len(self.pool_slots), 1, 12))
        self.unknown = unknown
        self.marg = {}  # (q, position, v) -> P ; ("pool", v) -> P of one unknown middle card
        self.z = self._solve()

    def whole_hand(self, q: int) -> list[int]:
        t = self.table
        return sorted(t.hands[q] + [v for k, p, v in t.faceup if k != "mid" and p == q])

    def _placements(self, v: int, fills: tuple):
        """Every placement of the unknown copies of ``v``: (new fills, weight)."""
        open_ = [c for c, (_, _, _, lo, hi) in enumerate(self.containers) if lo <= v <= hi]
        for combo in itertools.combinations_with_replacement(open_, self.unknown[v]):
            new = list(fills)
            for c in combo:
                new[c] += 1
            if any(new[c] > self.containers[c][2] for c in open_):
                continue
            if any(hi == v and new[c] != size
                   for c, (_, _, size, _, hi) in enumerate(self.containers)):
                continue
            per_group = {}
            for c in combo:
                g = self.containers[c][0]
                per_group[g] = per_group.get(g, 0) + 1
            w = 1.0
            for g, x in per_group.items():
                k = 0 if g == "pool" else self.known.get((g, v), 0)
                for i in range(1, x + 1):
                    w /= k + i
            yield tuple(new), w

    def _solve(self) -> float:
        if any(x < 0 for x in self.unknown.values()):
            return 0.0

        @cache
        def completions(v: int, fills: tuple) -> float:  # values v+1..12 still to place
            if v == 12:
                return 1.0 if all(f == c[2] for f, c in zip(fills, self.containers)) else 0.0
            return sum(w * completions(v + 1, new) for new, w in self._placements(v + 1, fills))

        start = tuple(0 for _ in self.containers)
        z = completions(0, start)
        if z <= 0.0:
            return 0.0
        layer = {start: 1.0}
        for v in range(1, 13):
            nxt = {}
            for fills, fw in layer.items():
                for new, w in self._placements(v, fills):
                    bw = completions(v, new)
                    if bw <= 0.0:
                        continue
                    nxt[new] = nxt.get(new, 0.0) + fw * w
                    p = fw * w * bw / z
                    for c, (g, start_c, _, _, _) in enumerate(self.containers):
                        for pos in range(fills[c], new[c]):
                            if g == "pool":
                                self.marg[("pool", v)] = (self.marg.get(("pool", v), 0.0)
                                                          + p / len(self.pool_slots))
                            else:
                                key = (g, start_c + pos, v)
                                self.marg[key] = self.marg.get(key, 0.0) + p
            layer = nxt
        return z

    # -- probabilities of what a card shows
    def position(self, q: int, i: int, v: int) -> float:
        t = self.table
        if q == self.o:
            return 1.0 if self.whole_hand(q)[i] == v else 0.0
        rec = t.know[self.o].get(("hand", q, i))
        if rec is not None:
            return 1.0 if rec == v else 0.0
        return self.marg.get((q, i, v), 0.0)

    def middle(self, j: int, v: int) -> float:
        rec = self.table.know[self.o].get(("mid", j))
        if rec is not None:
            return 1.0 if rec == v else 0.0
        return self.marg.get(("pool", v), 0.0)

    def shows(self, action, v: int) -> float:
        kind, p = action
        if kind == "mid":
            return self.middle(p, v)
        return self.position(p, self.table.position(action), v)

    def success(self, t: int, r: int, first=None) -> float:
        """S(t, r | first) of :mod:`trilab.solver.trio_cards.deduce`, on the table."""
        table = self.table
        ends = {}  # (q, "low"/"high") -> [cards taken, P of the last one taken]
        for q in range(table.n):
            ends[(q, "low")] = [0, None]
            ends[(q, "high")] = [0, None]
        taken_mid = set()
        if first is not None:
            kind, p = first
            if kind == "mid":
                taken_mid.add(p)
            else:
                ends[(p, kind)] = [1, self.shows(first, t)]
        prod = 1.0
        uncertain = 0
        for _ in range(r):
            options = []
            for q in range(table.n):
                left = len(table.hands[q]) - ends[(q, "low")][0] - ends[(q, "high")][0]
                if left <= 0:
                    continue
                for kind in ("low", "high"):
                    done, last = ends[(q, kind)]
                    i = table.position((kind, q)) + (done if kind == "low" else -done)
                    p = self.position(q, i, t)
                    options.append((p if last is None else min(1.0, p / last), (q, kind), p))
            for j, card in enumerate(table.middle):
                if card is None or j in taken_mid or any(
                        k == "mid" and s == j for k, s, _ in table.faceup):
                    continue
                options.append((self.middle(j, t), ("mid", j), None))
            best = 0.0
            chosen = None
            for f, where, p in options:
                if f > 0.0 and (chosen is None or f > best * (1 + TIE)):
                    best, chosen = f, (where, p)
            if chosen is None:
                return 0.0
            if best < 1.0 - EPS:
                uncertain += 1
            prod *= best
            where, p = chosen
            if where[0] == "mid":
                taken_mid.add(where[1])
            else:
                ends[where][0] += 1
                ends[where][1] = p
        return 0.0 if uncertain > self.unknown[t] else prod


def deduce_choice(table, o: int):
    """The ``deduce`` reveal of seat ``o``, or None when the belief is empty (play ``memory``)."""
    belief = Belief(table, o)
    if belief.z <= 0.0:
        return None
    legal = table.legal()
    team = table.team_of(o)
    mine = [w for w, t in table.trios.items() if t == team]

    def wins(v):
        return table.result(team, mine + [v]) is not None

    if not table.faceup:
        sure = [t for t in range(1, 13)
                if t not in table.trios and belief.success(t, 3) >= 1.0 - EPS]
        if sure:
            target = ([t for t in sure if wins(t)] or sure)[0]
            scores = [belief.shows(a, target) for a in legal]
        else:
            scores = []
            for a in legal:
                total = 0.0
                for v in range(1, 13):
                    if v in table.trios:
                        continue
                    p = belief.shows(a, v)
                    if p > 0.0:
                        total += p * (1.0 if wins(v) else U_TRIO) * belief.success(v, 2, a)
                scores.append(total)
    else:
        t = table.faceup[0][2]
        r = 2 - len(table.faceup)
        scores = []
        for a in legal:
            p = belief.shows(a, t)
            scores.append(0.0 if p <= 0.0 else p * belief.success(t, r, a))
    best = max(scores)

    def kind_of(a):
        if a[0] != "mid" and a[1] == o:
            return 2  # own card
        if max(belief.shows(a, v) for v in range(1, 13)) >= 1.0 - EPS:
            return -1 if best <= 0.0 else 1  # a card everybody has seen
        return 0  # an uncertain card of another seat

    tied = [a for a, s in zip(legal, scores) if best <= 0.0 or s >= best - TIE * best]
    return min(tied, key=lambda a: (kind_of(a), legal.index(a)))
