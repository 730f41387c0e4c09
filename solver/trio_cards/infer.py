"""``infer:K``: ``deduce`` with a model of the opponents, for the Trio card game.

``deduce``'s belief (:mod:`.belief`) uses only what the cards showed; the
*choices* of the other players are not evidence there (the usual
determinization assumption).  But a player's reveal says a lot about the
hand behind it: a seat that starts its turn with its own lowest card
probably holds another copy of it.  ``infer`` reads that evidence with an
explicit model of the other players: **they play** ``deduce``.

**What is recorded.**  The engine keeps, for a game with an ``infer`` or an
``ismcts-infer`` seat (:mod:`.ismcts`), a
*snapshot* of every reveal decision of every seat since the last trio (the
hands have not changed since then; a trio or a team swap changes them, and
the log is emptied): the seat, the reveal it chose, and everything ``deduce``
read for that decision except the hidden cards: the seat's records
(``hknow[q]``, ``mknow[q]``: every reveal it saw, which every seat saw too),
the hand sizes, the cards face up that turn (``rlo``, ``rhi``, ``mrev``,
``turn``), the trios taken and the hand bounds.  All of it is public (a
``forgetful`` seat's records are not: the two policies cannot share a table), so an
``infer`` seat reads nothing it could not know (the hidden cards enter only
through its own sampled deals; ``tests/test_trio_infer.py`` changes hidden
cards and checks the choice does not change).  The log keeps the last
:data:`MAX_SNAP` decisions.

**The posterior.**  At each of its reveals the seat computes its exact
belief, draws ``K`` complete deals from it (:func:`belief.sample`, from the
game's stream) and weighs each deal by how well it explains the logged
decisions of the *other* seats: for each snapshot, ``deduce`` is run for that
seat on the snapshot with the sampled cards, and a deal whose ``deduce``
would have chosen another reveal has its weight multiplied by
:data:`MISMATCH` (a soft likelihood: opponents that do not play ``deduce``
are not ruled out; against ``deduce`` opponents the true deal always has
weight 1, tested).  The weighted deals give new probabilities for every
unknown hand position and for an unknown middle card, smoothed with the exact
ones (one deal's worth, :data:`PRIOR`, so a card is *sure* only where the
exact belief says so).

**The choice.**  ``deduce``'s rules (:func:`deduce.deduce_scored`) on those
probabilities.  With no other seat's decision in the log the seat plays
``deduce`` exactly and draws nothing.  Cost: ``K`` times the logged decisions
``deduce`` calls a reveal (with ``infer:64`` in every seat about 5 games a
second at 3 players and 1 at 4), less what the memo saves:
``deduce`` reads no hidden card but its own hand (its no-peeking tests), so
the answer for snapshot ``s`` depends on the deal only through the hand of
``s``'s seat, and deals that give that seat the same hand share one call
(:func:`explains_memo`).  A snapshot does not change once logged, so the memo
is kept across decisions, of every ``infer`` and ``ismcts-infer`` seat, until the log
is emptied (:func:`forget`): the same choices, 1.6x faster than calling ``deduce`` for
every deal with ``infer:64`` in every seat at 3 players, more at 6, where most
of a decision's deals were already met at the seats' earlier reveals.

For ``ismcts-infer`` (:mod:`.ismcts`) the seat keeps the deals it drew and their
weights (``keep``); the search draws its determinizations from them
(:func:`kept_deal`).

Workspace: ``snap`` (:data:`MAX_SNAP` x :data:`SNAP_W`, ``int64``), ``iw``
(:data:`IW_LEN`, ``int64``) and ``fw`` (:data:`FW_LEN`, ``float64``), allocated
once by the caller; ``bi2``/``bf2`` hold the modelled seat's belief.
"""

from __future__ import annotations

import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.rng import uniform
from trilab.solver.trio_cards import belief as bl
from trilab.solver.trio_cards.deduce import deduce_choice, deduce_scored
from trilab.solver.trio_cards.rules import (
    MAX_ACTIONS,
    MAX_HAND,
    MAX_MIDDLE,
    MAX_PLAYERS,
    N_VALUES,
    legal_reveals,
)

MISMATCH = 0.05  # weight factor of a deal under which a logged decision would differ
PRIOR = 1.0  # the exact marginals' weight, in deals
MAX_SNAP = 32  # logged decisions kept (the most recent)
MEMO_BITS = 15
MEMO_SIZE = 1 << MEMO_BITS  # slots for answers of explains(), kept until the log is emptied
MEMO_HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: 2**64 / golden ratio

# snapshot columns
S_SEAT = 0
S_ACT = S_SEAT + 1
S_HSIZE = S_ACT + 1
S_OWNER = S_HSIZE + MAX_PLAYERS
S_BND = S_OWNER + N_VALUES + 1
S_HK = S_BND + 2 * MAX_PLAYERS
S_MK = S_HK + MAX_PLAYERS * MAX_HAND
S_RLO = S_MK + MAX_MIDDLE
S_RHI = S_RLO + MAX_PLAYERS
S_MREV = S_RHI + MAX_PLAYERS
S_TURN = S_MREV + MAX_MIDDLE
S_ID = S_TURN + 2  # the snapshot's number since the log was last emptied (1, 2, ...)
SNAP_W = S_ID + 1

# iw offsets: a sampled deal, then one snapshot unpacked into engine arrays
O_HANDS = 0
O_MID = O_HANDS + MAX_PLAYERS * MAX_HAND
O_HSIZE = O_MID + MAX_MIDDLE
O_RLO = O_HSIZE + MAX_PLAYERS
O_RHI = O_RLO + MAX_PLAYERS
O_MREV = O_RHI + MAX_PLAYERS
O_TURN = O_MREV + MAX_MIDDLE
O_OWNER = O_TURN + 2
O_BND = O_OWNER + N_VALUES + 1
O_HK = O_BND + 2 * MAX_PLAYERS
O_MK = O_HK + MAX_PLAYERS * MAX_PLAYERS * MAX_HAND
O_LEGAL = O_MK + MAX_PLAYERS * MAX_MIDDLE
O_MEMO_N = O_LEGAL + MAX_ACTIONS  # answers remembered since the memo was last emptied
O_MEMO = O_MEMO_N + 1  # MEMO_SIZE keys, then MEMO_SIZE answers
O_N_KEPT = O_MEMO + 2 * MEMO_SIZE  # deals kept by the last infer_choice(keep=True)
O_KEPT = O_N_KEPT + 1  # the kept deals, DEAL_W entries each: hands, then the middle
DEAL_W = MAX_PLAYERS * MAX_HAND + MAX_MIDDLE
KEPT_DEALS = 64  # the most deals infer_choice keeps (the deals of ``ismcts-infer``)
IW_LEN = O_KEPT + KEPT_DEALS * DEAL_W
# fw: the weighted counts of every (hand, position, value), then of a middle card's
# value, then the weights of the kept deals
F_POOL = MAX_PLAYERS * MAX_HAND * (N_VALUES + 1)
F_KEPT = F_POOL + N_VALUES + 1
FW_LEN = F_KEPT + KEPT_DEALS


def new_workspace() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(snap, iw, fw)`` of the sizes above."""
    return (np.zeros((MAX_SNAP, SNAP_W), np.int64), np.zeros(IW_LEN, np.int64),
            np.zeros(FW_LEN, np.float64))


@kernel
def record(snap: np.ndarray, n_snap: int, q: int, a: int, hsize: np.ndarray,
           rlo: np.ndarray, rhi: np.ndarray, mrev: np.ndarray, turn: np.ndarray,
           owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray) -> int:
    """Log seat ``q``'s reveal ``a`` with the public state it was chosen in; returns the
    new count (the oldest snapshot goes when the log is full).  Snapshots are numbered
    from 1 since the log was last emptied: the number keys the memo (:func:`forget`)."""
    last = snap[n_snap - 1, S_ID] if n_snap > 0 else 0
    if n_snap == MAX_SNAP:
        for s in range(1, MAX_SNAP):
            for c in range(SNAP_W):
                snap[s - 1, c] = snap[s, c]
        n_snap -= 1
    r = snap[n_snap]
    r[S_SEAT] = q
    r[S_ACT] = a
    for p in range(MAX_PLAYERS):
        r[S_HSIZE + p] = hsize[p]
        r[S_BND + 2 * p] = bnd[p, 0]
        r[S_BND + 2 * p + 1] = bnd[p, 1]
        r[S_RLO + p] = rlo[p]
        r[S_RHI + p] = rhi[p]
        for i in range(MAX_HAND):
            r[S_HK + MAX_HAND * p + i] = hknow[q, p, i]
    for v in range(N_VALUES + 1):
        r[S_OWNER + v] = owner[v]
    for j in range(MAX_MIDDLE):
        r[S_MK + j] = mknow[q, j]
        r[S_MREV + j] = mrev[j]
    r[S_TURN] = turn[0]
    r[S_TURN + 1] = turn[1]
    r[S_ID] = last + 1
    return n_snap + 1


@kernel
def forget(iw: np.ndarray) -> None:
    """Empty the memo of :func:`explains_memo`.  Its answers are keyed by snapshot
    number, and the numbers start again when the log is emptied: whoever empties the
    log (a trio, a new game) calls this."""
    if iw[O_MEMO_N] > 0:
        iw[O_MEMO:O_MEMO + MEMO_SIZE] = 0
        iw[O_MEMO_N] = 0


@kernel
def explains(s: int, snap: np.ndarray, team: np.ndarray, mode: int, n: int, n_mid: int,
             iw: np.ndarray, bi2: np.ndarray, bf2: np.ndarray, score: np.ndarray,
             dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
             used: np.ndarray) -> bool:
    """True when ``deduce`` for snapshot ``s``'s seat, holding the cards of the deal in
    ``iw``, chooses the reveal that seat chose."""
    q = snap[s, S_SEAT]
    hands = iw[O_HANDS:O_MID].reshape((MAX_PLAYERS, MAX_HAND))
    mid = iw[O_MID:O_HSIZE]
    hsize = iw[O_HSIZE:O_RLO]
    rlo = iw[O_RLO:O_RHI]
    rhi = iw[O_RHI:O_MREV]
    mrev = iw[O_MREV:O_TURN]
    turn = iw[O_TURN:O_OWNER]
    owner = iw[O_OWNER:O_BND]
    bnd = iw[O_BND:O_HK].reshape((MAX_PLAYERS, 2))
    hknow = iw[O_HK:O_MK].reshape((MAX_PLAYERS, MAX_PLAYERS, MAX_HAND))
    mknow = iw[O_MK:O_LEGAL].reshape((MAX_PLAYERS, MAX_MIDDLE))
    legal = iw[O_LEGAL:O_MEMO_N]
    for p in range(MAX_PLAYERS):
        hsize[p] = snap[s, S_HSIZE + p]
        bnd[p, 0] = snap[s, S_BND + 2 * p]
        bnd[p, 1] = snap[s, S_BND + 2 * p + 1]
        rlo[p] = snap[s, S_RLO + p]
        rhi[p] = snap[s, S_RHI + p]
        for i in range(MAX_HAND):
            hknow[q, p, i] = snap[s, S_HK + MAX_HAND * p + i]
    for v in range(N_VALUES + 1):
        owner[v] = snap[s, S_OWNER + v]
    for j in range(MAX_MIDDLE):
        mknow[q, j] = snap[s, S_MK + j]
        mrev[j] = snap[s, S_MREV + j]
    turn[0] = snap[s, S_TURN]
    turn[1] = snap[s, S_TURN + 1]
    n_legal = legal_reveals(n, n_mid, hsize, rlo, rhi, mid, mrev, legal)
    a = deduce_choice(q, team[q], mode, n, n_mid, hands, hsize, rlo, rhi, mid, mrev, turn,
                      owner, hknow, mknow, bnd, legal, n_legal, bi2, bf2, score, dl, dh, pl,
                      ph, used)
    return a == snap[s, S_ACT]


@kernel
def explains_memo(s: int, snap: np.ndarray, team: np.ndarray, mode: int, n: int, n_mid: int,
                  iw: np.ndarray, bi2: np.ndarray, bf2: np.ndarray, score: np.ndarray,
                  dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
                  used: np.ndarray, use_memo: bool) -> bool:
    """:func:`explains`, remembered by ``(snapshot number, the hand of its seat)``:
    ``deduce`` reads no other hidden card (its no-peeking tests), so deals that give the
    seat the same hand get the same answer, in this call and in every later one (of any
    ``infer`` or ``ismcts-infer`` seat) until the log is emptied and :func:`forget` is
    called.  A full memo starts again empty."""
    if not use_memo:
        return explains(s, snap, team, mode, n, n_mid, iw, bi2, bf2, score, dl, dh, pl, ph,
                        used)
    q = snap[s, S_SEAT]
    code = 0
    for i in range(snap[s, S_HSIZE + q]):
        code += 1 << (2 * (iw[O_HANDS + MAX_HAND * q + i] - 1))
    key = (snap[s, S_ID] << (2 * N_VALUES)) + code + 1
    h = np.int64((np.uint64(key) * MEMO_HASH) >> np.uint64(64 - MEMO_BITS))
    while iw[O_MEMO + h] != 0:
        if iw[O_MEMO + h] == key:
            return iw[O_MEMO + MEMO_SIZE + h] == 1
        h = (h + 1) & (MEMO_SIZE - 1)
    ok = explains(s, snap, team, mode, n, n_mid, iw, bi2, bf2, score, dl, dh, pl, ph, used)
    if iw[O_MEMO_N] >= MEMO_SIZE // 2:
        forget(iw)  # slot h is free in the empty table too
    iw[O_MEMO + h] = key
    iw[O_MEMO + MEMO_SIZE + h] = 1 if ok else 0
    iw[O_MEMO_N] += 1
    return ok


@kernel
def infer_choice(o: int, rs: np.ndarray, n_deals: int, team: np.ndarray, mode: int, n: int,
                 n_mid: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                 rhi: np.ndarray, mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray,
                 owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray,
                 legal: np.ndarray, n_legal: int, bi: np.ndarray, bf: np.ndarray,
                 bi2: np.ndarray, bf2: np.ndarray, score: np.ndarray, dl: np.ndarray,
                 dh: np.ndarray, pl: np.ndarray, ph: np.ndarray, used: np.ndarray,
                 snap: np.ndarray, n_snap: int, iw: np.ndarray, fw: np.ndarray,
                 use_memo: bool = True, keep: bool = False) -> int:
    """The ``infer`` reveal of seat ``o`` with ``n_deals`` sampled deals (module
    docstring); -1: no belief, play ``memory``.  With ``keep`` the first
    :data:`KEPT_DEALS` sampled deals and their weights are kept (``iw[O_KEPT:]``,
    ``fw[F_KEPT:]``, their number in ``iw[O_N_KEPT]``, 0 when nothing was drawn) for
    :func:`kept_deal`."""
    iw[O_N_KEPT] = 0
    z = bl.compute(o, n, n_mid, hands, hsize, mid, owner, hknow, mknow, bnd, bi, bf, True)
    if z <= 0.0:
        return -1
    evidence = 0
    for s in range(n_snap):
        if snap[s, S_SEAT] != o:
            evidence += 1
    if evidence > 0:
        sh = iw[O_HANDS:O_MID].reshape((MAX_PLAYERS, MAX_HAND))
        sm = iw[O_MID:O_HSIZE]
        fw[:] = 0.0
        n_unknown_mid = 0
        for j in range(n_mid):
            if mid[j] != 0 and mknow[o, j] == 0:
                n_unknown_mid += 1
        total = 0.0
        for _ in range(n_deals):
            bl.sample(rs, o, n, n_mid, hands, hsize, mid, hknow, mknow, bi, bf, sh, sm)
            w = 1.0
            for s in range(n_snap - 1, -1, -1):
                if snap[s, S_SEAT] != o and not explains_memo(
                        s, snap, team, mode, n, n_mid, iw, bi2, bf2, score, dl, dh, pl, ph,
                        used, use_memo):
                    w *= MISMATCH
            total += w
            if keep and iw[O_N_KEPT] < KEPT_DEALS:
                at = O_KEPT + DEAL_W * iw[O_N_KEPT]
                for c in range(DEAL_W):
                    iw[at + c] = iw[O_HANDS + c]
                fw[F_KEPT + iw[O_N_KEPT]] = w
                iw[O_N_KEPT] += 1
            for q in range(n):
                if q != o:
                    for i in range(hsize[q]):
                        if hknow[o, q, i] == 0:
                            fw[(N_VALUES + 1) * (MAX_HAND * q + i) + sh[q, i]] += w
            for j in range(n_mid):
                if mid[j] != 0 and mknow[o, j] == 0:
                    fw[F_POOL + sm[j]] += w / n_unknown_mid
        for q in range(n):
            if q != o:
                for i in range(hsize[q]):
                    if hknow[o, q, i] == 0:
                        for v in range(1, N_VALUES + 1):
                            at = bl.MARG + (N_VALUES + 1) * (MAX_HAND * q + i) + v
                            wv = fw[(N_VALUES + 1) * (MAX_HAND * q + i) + v]
                            bf[at] = (wv + PRIOR * bf[at]) / (total + PRIOR)
        if n_unknown_mid > 0:
            for v in range(1, N_VALUES + 1):
                at = bl.PMARG + v
                bf[at] = (fw[F_POOL + v] + PRIOR * bf[at]) / (total + PRIOR)
    return deduce_scored(o, team[o], mode, n, n_mid, hands, hsize, rlo, rhi, mid, mrev, turn,
                         owner, hknow, mknow, bnd, legal, n_legal, bi, bf, score, dl, dh, pl,
                         ph, used)


@kernel
def kept_deal(rs: np.ndarray, iw: np.ndarray, fw: np.ndarray, sh: np.ndarray,
              sm: np.ndarray) -> None:
    """One of the deals kept by :func:`infer_choice` (``iw[O_N_KEPT] > 0``), drawn with
    probability proportional to its weight (the opponents' model as evidence), into
    ``sh`` (hands) and ``sm`` (middle)."""
    k = iw[O_N_KEPT]
    total = 0.0
    for d in range(k):
        total += fw[F_KEPT + d]
    x = uniform(rs) * total
    pick = k - 1
    for d in range(k):
        x -= fw[F_KEPT + d]
        if x < 0.0:
            pick = d
            break
    at = O_KEPT + DEAL_W * pick
    for q in range(MAX_PLAYERS):
        for i in range(MAX_HAND):
            sh[q, i] = iw[at + MAX_HAND * q + i]
    for j in range(MAX_MIDDLE):
        sm[j] = iw[at + MAX_PLAYERS * MAX_HAND + j]
