"""The ``deduce`` policy of the Trio card game: card counting and sorted-hand inference.

At every reveal the seat computes its exact belief (:mod:`.belief`): the
probability ``P(a, v)`` that legal reveal ``a`` shows ``v`` (1 or 0 for a
card it knows: its own, a record, or a card the belief pins down).  A card
is *sure* when ``P >= 1 - EPS``.

``S(t, r | a)``, the estimated chance of turning up ``r`` more cards of
``t`` after reveal ``a`` showed ``t``: greedily, ``r`` times, take the
accessible card with the largest factor and multiply the factors.  The
accessible cards are the next ones from the low and the high end of every
hand (not crossing) and the face-down middle cards (``a`` itself taken).
The factor of a middle card or of the first card taken from a hand end is
its ``P(., t)``; of the next card from the same end ``min(1, P_next /
P_previous)`` (the two are strongly correlated in a sorted hand, so the pair
counts as ``min(P_previous, P_next)``).  ``S = 0`` when no card has a
positive factor or when more uncertain cards would be needed than there
are unknown copies of ``t``.

The choice (first reveal of the turn, no card face up):

1. A sure trio (``S(t, 3) >= 1 - EPS``): among the sure trios, the lowest
   value whose trio wins, else the lowest value; reveal one of its sure cards.
2. Otherwise the reveal maximising ``sum_v P(a, v) U(v) S(v, 2 | a)``, with
   ``U(v) = 1`` when the trio of ``v`` wins and :data:`U_TRIO` otherwise.

Later reveals (``k`` cards of ``t`` face up): the reveal maximising
``P(a, t) S(t, 2 - k | a)``; if that is 0 the trio is out of reach and the
turn ends with the reveal that tells the opponents least (class order below).

Ties (scores within ``TIE`` of the best, relative) go to the class order
*uncertain card of another seat* (fail early, learn something), then *card
everybody has seen* (a record or a known middle card: leaks nothing), then
*own card*, then :data:`REVEAL_ORDER <trilab.solver.trio_cards.game.REVEAL_ORDER>`.
``deduce`` draws no random number.  When the belief has no consistent deal
within its state bound (``Z = 0``) the policy returns -1 and the engine plays
the ``memory`` rules instead.
"""

from __future__ import annotations

import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.trio_cards import belief as bl

N_VALUES = 12
COPIES = 3
SEVEN = 7
MID_BASE = 12
MAX_HAND = 9
EPS = 1e-9
TIE = 1e-9
U_TRIO = 0.35
SIMPLE = 0
CLASS_UNCERTAIN, CLASS_PUBLIC, CLASS_OWN = 0, 1, 2


@kernel(inline="always")
def wins(v: int, team_o: int, owner: np.ndarray, mode: int) -> bool:
    """True when team ``team_o`` taking the trio of ``v`` wins."""
    if v == SEVEN:
        return True
    n = 0
    for w in range(1, N_VALUES + 1):
        if owner[w] == team_o:
            n += 1
            if mode != SIMPLE and (v + w == 7 or v - w == 7 or w - v == 7):
                return True
    return mode == SIMPLE and n >= 2


@kernel(inline="always")
def pos_prob(o: int, q: int, i: int, t: int, hands: np.ndarray, hknow: np.ndarray,
             bf: np.ndarray) -> float:
    """P(position ``i`` of hand ``q`` is ``t``) for seat ``o``."""
    if q == o:
        return 1.0 if hands[q, i] == t else 0.0
    r = hknow[o, q, i]
    if r != 0:
        return 1.0 if r == t else 0.0
    return bf[bl.MARG + 13 * MAX_HAND * q + 13 * i + t]


@kernel(inline="always")
def mid_prob(o: int, j: int, t: int, mknow: np.ndarray, bf: np.ndarray) -> float:
    r = mknow[o, j]
    if r != 0:
        return 1.0 if r == t else 0.0
    return bf[bl.PMARG + t]


@kernel(inline="always")
def reveal_prob(o: int, a: int, t: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                rhi: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bf: np.ndarray) -> float:
    if a >= MID_BASE:
        return mid_prob(o, a - MID_BASE, t, mknow, bf)
    q = a >> 1
    i = hsize[q] - 1 - rhi[q] if a & 1 else rlo[q]
    return pos_prob(o, q, i, t, hands, hknow, bf)


@kernel(inline="always")
def reveal_class(o: int, a: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                 rhi: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bf: np.ndarray) -> int:
    if a < MID_BASE and (a >> 1) == o:
        return CLASS_OWN
    best = 0.0
    for v in range(1, N_VALUES + 1):
        p = reveal_prob(o, a, v, hands, hsize, rlo, rhi, hknow, mknow, bf)
        if p > best:
            best = p
    return CLASS_PUBLIC if best >= 1.0 - EPS else CLASS_UNCERTAIN


@kernel
def success(o: int, t: int, r: int, excl: int, n_players: int, n_mid: int, hands: np.ndarray,
            hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray,
            mrev: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bi: np.ndarray,
            bf: np.ndarray, dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
            used: np.ndarray) -> float:
    """``S(t, r | excl)`` (module docstring); ``excl = -1``: nothing taken first."""
    for q in range(n_players):
        dl[q] = 0
        dh[q] = 0
        pl[q] = -1.0  # P of the previous card taken from this end (-1: none)
        ph[q] = -1.0
    for j in range(n_mid):
        used[j] = 0
    if excl >= MID_BASE:
        used[excl - MID_BASE] = 1
    elif excl >= 0:
        q = excl >> 1
        if excl & 1:
            dh[q] = 1
            ph[q] = pos_prob(o, q, hsize[q] - 1 - rhi[q], t, hands, hknow, bf)
        else:
            dl[q] = 1
            pl[q] = pos_prob(o, q, rlo[q], t, hands, hknow, bf)
    prod = 1.0
    uncertain = 0
    for _ in range(r):
        best = 0.0
        kind = -1
        arg = -1
        for q in range(n_players):
            left = hsize[q] - rlo[q] - rhi[q] - dl[q] - dh[q]
            if left <= 0:
                continue
            p = pos_prob(o, q, rlo[q] + dl[q], t, hands, hknow, bf)
            f = p if pl[q] < 0.0 else min(1.0, p / pl[q])
            if f > best * (1.0 + TIE):
                best = f
                kind = 0
                arg = q
            p = pos_prob(o, q, hsize[q] - 1 - rhi[q] - dh[q], t, hands, hknow, bf)
            f = p if ph[q] < 0.0 else min(1.0, p / ph[q])
            if f > best * (1.0 + TIE):
                best = f
                kind = 1
                arg = q
        for j in range(n_mid):
            if mid[j] == 0 or mrev[j] != 0 or used[j] != 0:
                continue
            f = mid_prob(o, j, t, mknow, bf)
            if f > best * (1.0 + TIE):
                best = f
                kind = 2
                arg = j
        if best <= 0.0:
            return 0.0
        if best < 1.0 - EPS:
            uncertain += 1
        prod *= best
        if kind == 0:
            pl[arg] = pos_prob(o, arg, rlo[arg] + dl[arg], t, hands, hknow, bf)
            dl[arg] += 1
        elif kind == 1:
            ph[arg] = pos_prob(o, arg, hsize[arg] - 1 - rhi[arg] - dh[arg], t, hands, hknow, bf)
            dh[arg] += 1
        else:
            used[arg] = 1
    if uncertain > bi[bl.CNT + t]:
        return 0.0
    return prod


@kernel
def deduce_choice(o: int, team_o: int, mode: int, n_players: int, n_mid: int,
                  hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
                  mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
                  hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray, legal: np.ndarray,
                  n_legal: int, bi: np.ndarray, bf: np.ndarray, score: np.ndarray,
                  dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
                  used: np.ndarray) -> int:
    """The ``deduce`` reveal of seat ``o`` (module docstring); -1: no belief, play ``memory``."""
    z = bl.compute(o, n_players, n_mid, hands, hsize, mid, owner, hknow, mknow, bnd, bi, bf,
                   True)
    if z <= 0.0:
        return -1
    return deduce_scored(o, team_o, mode, n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev,
                         turn, owner, hknow, mknow, bnd, legal, n_legal, bi, bf, score, dl, dh,
                         pl, ph, used)


@kernel
def deduce_scored(o: int, team_o: int, mode: int, n_players: int, n_mid: int,
                  hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
                  mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
                  hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray, legal: np.ndarray,
                  n_legal: int, bi: np.ndarray, bf: np.ndarray, score: np.ndarray,
                  dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
                  used: np.ndarray) -> int:
    """The ``deduce`` reveal of seat ``o`` from a belief already in ``bi``/``bf``
    (:func:`belief.compute` with marginals, ``Z > 0``); the marginals may be
    replaced by sharper ones first (``infer``, :mod:`.infer`)."""
    if turn[0] == 0:
        # 1. a sure trio
        target = 0
        for t in range(1, N_VALUES + 1):
            if bi[bl.CNT + t] < 0 or owner[t] >= 0:
                continue
            s = success(o, t, COPIES, -1, n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev,
                        hknow, mknow, bi, bf, dl, dh, pl, ph, used)
            if s >= 1.0 - EPS:
                if target == 0 or (wins(t, team_o, owner, mode) and
                                   not wins(target, team_o, owner, mode)):
                    target = t
        if target != 0:
            for idx in range(n_legal):
                score[idx] = reveal_prob(o, legal[idx], target, hands, hsize, rlo, rhi, hknow,
                                         mknow, bf)
        else:
            # 2. the best opening reveal
            for idx in range(n_legal):
                a = legal[idx]
                tot = 0.0
                for v in range(1, N_VALUES + 1):
                    if owner[v] >= 0:
                        continue
                    p = reveal_prob(o, a, v, hands, hsize, rlo, rhi, hknow, mknow, bf)
                    if p <= 0.0:
                        continue
                    u = 1.0 if wins(v, team_o, owner, mode) else U_TRIO
                    tot += p * u * success(o, v, COPIES - 1, a, n_players, n_mid, hands, hsize,
                                           rlo, rhi, mid, mrev, hknow, mknow, bi, bf, dl, dh,
                                           pl, ph, used)
                score[idx] = tot
    else:
        t = turn[1]
        r = COPIES - 1 - turn[0]
        for idx in range(n_legal):
            a = legal[idx]
            p = reveal_prob(o, a, t, hands, hsize, rlo, rhi, hknow, mknow, bf)
            score[idx] = 0.0 if p <= 0.0 else p * success(
                o, t, r, a, n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev, hknow, mknow,
                bi, bf, dl, dh, pl, ph, used)
    best = 0.0
    for idx in range(n_legal):
        if score[idx] > best:
            best = score[idx]
    choice = -1
    rank = 99
    for idx in range(n_legal):
        if best > 0.0 and score[idx] < best - TIE * best:
            continue
        c = reveal_class(o, legal[idx], hands, hsize, rlo, rhi, hknow, mknow, bf)
        if best <= 0.0 and c == CLASS_PUBLIC:
            c = -1  # out of reach: end the turn leaking nothing first
        if c < rank:
            rank = c
            choice = legal[idx]
    return choice
