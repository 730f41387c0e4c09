"""The kernels of the Trio card game's rules, shared by the game loop and the searches.

The rules, the reveal order, the move digest and the engine representation are
stated in :mod:`trilab.solver.trio_cards.game` (its module docstring); this module
holds the Numba kernels that implement them (dealing, legal reveals, a reveal and
its consequences, team swaps, forgetting, the ``memory`` policy) and
:func:`reveal_step`, one reveal with everything that follows from it, so a game can
be played on from any position, mid-turn included (the game loop of
:mod:`.game` and the playouts of :mod:`.ismcts` both use it).
"""

from __future__ import annotations

import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.rng import below, digest_step, uniform
from trilab.solver.trio_cards.deduce import deduce_choice

N_VALUES = 12
COPIES = 3
N_CARDS = N_VALUES * COPIES
SEVEN = 7
MIN_PLAYERS = 3
MAX_PLAYERS = 6
MAX_HAND = 9
MAX_MIDDLE = 9
MID_BASE = 2 * MAX_PLAYERS  # action code of middle slot 0
MAX_ACTIONS = MID_BASE + MAX_MIDDLE
# move digest codes (module docstring); reveals use their action code 0 .. MAX_ACTIONS - 1
SWAP_CODE_BASE = 100  # + (13 * team + gift of seat team) * 13 + gift of its partner
FORGET_CODE_BASE = 1000  # + MAX_HAND * seat + position (hand record)
FORGET_MID_CODE_BASE = FORGET_CODE_BASE + MAX_PLAYERS * MAX_HAND  # + slot (middle record)

MODES = ("simple", "spicy")
SIMPLE, SPICY = 0, 1
END_REASONS = ("three trios", "linked trios", "sevens", "turn cap")
THREE_TRIOS, LINKED_TRIOS, SEVENS, TURN_CAP = 0, 1, 2, 3
RANDOM, MEMORY, FORGETFUL, DEDUCE, ISMCTS, INFER = 0, 1, 2, 3, 4, 5

# icfg layout (fcfg[p] = forgetting probability of seat p; icfg[I_BUDGET + p] = the
# simulations of an ismcts seat or the deals of an infer seat, icfg[I_PLAYOUT + p] the
# playout policy of an ismcts seat)
I_PLAYERS, I_MODE, I_TEAMS, I_TURN_CAP, I_HAND, I_MIDDLE, I_RESWAP, I_POLICY = range(8)
I_BUDGET = I_POLICY + MAX_PLAYERS
I_PLAYOUT = I_BUDGET + MAX_PLAYERS  # an ismcts seat's playouts: MEMORY, DEDUCE, FLAT, INFER_SEARCH
ICFG_LEN = I_PLAYOUT + MAX_PLAYERS

# what one reveal did (reveal_step); a win is WON + the end reason
GO_ON, MISSED, TRIO, WON = 0, 1, 2, 10

# ---------------------------------------------------------------- kernels


@kernel(inline="always")
def is_linked(a: int, b: int) -> bool:
    """True when trios ``a`` and ``b`` are linked (sum 7 or differ by 7)."""
    return a + b == 7 or a - b == 7 or b - a == 7


@kernel
def _sort_row(row: np.ndarray, n: int) -> None:
    for i in range(1, n):
        x = row[i]
        j = i - 1
        while j >= 0 and row[j] > x:
            row[j + 1] = row[j]
            j -= 1
        row[j + 1] = x


@kernel
def fill_teams(n_players: int, teams: bool, team: np.ndarray) -> None:
    """``team[p]``: ``p % (n/2)`` in team play, else ``p``."""
    for p in range(MAX_PLAYERS):
        team[p] = p % (n_players // 2) if teams else p


@kernel
def deal(rs: np.ndarray, n_players: int, hand_size: int, n_middle: int, deck: np.ndarray,
         hands: np.ndarray, hsize: np.ndarray, mid: np.ndarray) -> None:
    """Shuffle the 36 cards from stream ``rs`` and deal sorted hands and the middle."""
    for i in range(N_CARDS):
        deck[i] = i // COPIES + 1
    for i in range(N_CARDS - 1, 0, -1):
        j = below(rs, i + 1)
        x = deck[i]
        deck[i] = deck[j]
        deck[j] = x
    hands[:, :] = 0
    hsize[:] = 0
    mid[:] = 0
    for p in range(n_players):
        for c in range(hand_size):
            hands[p, c] = deck[p * hand_size + c]
        _sort_row(hands[p], hand_size)
        hsize[p] = hand_size
    for j in range(n_middle):
        mid[j] = deck[n_players * hand_size + j]


@kernel(inline="always")
def legal_reveals(n_players: int, n_mid: int, hsize: np.ndarray, rlo: np.ndarray,
                  rhi: np.ndarray, mid: np.ndarray, mrev: np.ndarray, out: np.ndarray) -> int:
    """Write the legal reveal codes into ``out`` (see ``REVEAL_ORDER``); return their count."""
    n = 0
    for p in range(n_players):
        left = hsize[p] - rlo[p] - rhi[p]
        if left >= 1:
            out[n] = 2 * p
            n += 1
        if left >= 2:
            out[n] = 2 * p + 1
            n += 1
    for j in range(n_mid):
        if mid[j] != 0 and mrev[j] == 0:
            out[n] = MID_BASE + j
            n += 1
    return n


@kernel(inline="always")
def hand_position(a: int, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray) -> int:
    """Position in the owner's sorted hand of the card hand reveal ``a`` shows."""
    q = a >> 1
    if a & 1:
        return hsize[q] - 1 - rhi[q]
    return rlo[q]


@kernel(inline="always")
def known_value(o: int, a: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                rhi: np.ndarray, hknow: np.ndarray, mknow: np.ndarray) -> int:
    """The value seat ``o`` knows reveal ``a`` would show (0 = unknown)."""
    if a >= MID_BASE:
        return mknow[o, a - MID_BASE]
    q = a >> 1
    i = hand_position(a, hsize, rlo, rhi)
    if q == o:
        return hands[q, i]
    return hknow[o, q, i]


@kernel(inline="always")
def _remove_trio_cards(n_players: int, n_mid: int, hands: np.ndarray, hsize: np.ndarray,
                       rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray, mrev: np.ndarray,
                       hknow: np.ndarray, mknow: np.ndarray, track: bool) -> None:
    n_obs = n_players if track else 0
    for q in range(n_players):
        lo = rlo[q]
        cut = lo + rhi[q]
        if cut == 0:
            continue
        new = hsize[q] - cut
        for i in range(new):
            hands[q, i] = hands[q, i + lo]
            for o in range(n_obs):
                hknow[o, q, i] = hknow[o, q, i + lo]
        for i in range(new, MAX_HAND):
            hands[q, i] = 0
            for o in range(n_obs):
                hknow[o, q, i] = 0
        hsize[q] = new
    for j in range(n_mid):
        if mrev[j] != 0:
            mid[j] = 0
            for o in range(n_obs):
                mknow[o, j] = 0


@kernel(inline="always")
def end_turn(rlo: np.ndarray, rhi: np.ndarray, mrev: np.ndarray, turn: np.ndarray) -> None:
    for p in range(MAX_PLAYERS):
        rlo[p] = 0
        rhi[p] = 0
    for j in range(MAX_MIDDLE):
        mrev[j] = 0
    turn[0] = 0
    turn[1] = 0


@kernel(inline="always")
def apply_reveal(a: int, team_p: int, n_players: int, n_mid: int, hands: np.ndarray,
                 hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray,
                 mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray, hknow: np.ndarray,
                 mknow: np.ndarray, track: bool = True) -> int:
    """Reveal ``a`` for a player of team ``team_p``; every seat records the card.

    ``track = False`` skips the records (``hknow``/``mknow`` are left as they
    are): only the memory policies read them, so tables of ``random`` players
    save the work.

    Returns 0 (the turn goes on), -1 (mismatch: the cards went back, the turn
    is over) or ``v`` (trio of ``v``: cards removed, ``owner[v] = team_p``).
    """
    if a >= MID_BASE:
        j = a - MID_BASE
        v = mid[j]
        mrev[j] = 1
        if track:
            for o in range(n_players):
                mknow[o, j] = v
    else:
        q = a >> 1
        i = hand_position(a, hsize, rlo, rhi)
        v = hands[q, i]
        if a & 1:
            rhi[q] += 1
        else:
            rlo[q] += 1
        if track:
            for o in range(n_players):
                if o != q:
                    hknow[o, q, i] = v
    if turn[0] > 0 and v != turn[1]:
        end_turn(rlo, rhi, mrev, turn)
        return -1
    turn[0] += 1
    turn[1] = v
    if turn[0] < COPIES:
        return 0
    _remove_trio_cards(n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev, hknow, mknow, track)
    owner[v] = team_p
    end_turn(rlo, rhi, mrev, turn)
    return v


@kernel
def trio_result(v: int, team_p: int, owner: np.ndarray, mode: int) -> int:
    """End reason after team ``team_p`` took the trio of ``v`` (-1: play on)."""
    if v == SEVEN:
        return SEVENS
    if mode == SIMPLE:
        n = 0
        for w in range(1, N_VALUES + 1):
            if owner[w] == team_p:
                n += 1
        return THREE_TRIOS if n >= 3 else -1
    for w in range(1, N_VALUES + 1):
        if w != v and owner[w] == team_p and is_linked(v, w):
            return LINKED_TRIOS
    return -1


@kernel(inline="always")
def would_win(v: int, team_p: int, owner: np.ndarray, mode: int) -> bool:
    """True when team ``team_p`` taking the (free) trio of ``v`` wins the game."""
    if v == SEVEN:
        return True
    n = 0
    for w in range(1, N_VALUES + 1):
        if owner[w] == team_p:
            n += 1
            if mode == SPICY and is_linked(v, w):
                return True
    return mode == SIMPLE and n >= 2


@kernel
def winners_mask(n_players: int, team: np.ndarray, team_p: int) -> int:
    m = 0
    for s in range(n_players):
        if team[s] == team_p:
            m |= 1 << s
    return m


@kernel
def gift_value(p: int, hands: np.ndarray, hsize: np.ndarray, counts: np.ndarray) -> int:
    """The value seat ``p`` gives in a team swap (``GIFT_RULE``)."""
    counts[:] = 0
    for i in range(hsize[p]):
        counts[hands[p, i]] += 1
    best = 0
    for v in range(1, N_VALUES + 1):
        if counts[v] > 0 and (best == 0 or counts[v] < counts[best]):
            best = v
    return best


@kernel
def _replace_card(p: int, give: int, get: int, hands: np.ndarray, hsize: np.ndarray) -> None:
    for i in range(hsize[p]):
        if hands[p, i] == give:
            hands[p, i] = get
            break
    _sort_row(hands[p], hsize[p])


@kernel
def swap_code(t: int, ga: int, gb: int) -> np.int64:
    """Digest code of team ``t``'s swap: seat ``t`` gives ``ga``, its partner ``gb``."""
    return np.int64(SWAP_CODE_BASE + (t * (N_VALUES + 1) + ga) * (N_VALUES + 1) + gb)


@kernel
def team_swaps(skip_team: int, n_players: int, hands: np.ndarray, hsize: np.ndarray,
               hknow: np.ndarray, counts: np.ndarray, h: np.uint64) -> np.uint64:
    """Every team but ``skip_team`` swaps one card between partners (between turns).

    Everybody's records of both swapping hands are erased.  Returns the move
    digest ``h`` with the code of every swap made (:func:`swap_code`) folded in.
    """
    d = np.uint64(h)  # pass np.uint64 from Python; a plain int arrives as int64
    half = n_players // 2
    for t in range(half):
        a = t
        b = t + half
        if t == skip_team or hsize[a] == 0 or hsize[b] == 0:
            continue
        ga = gift_value(a, hands, hsize, counts)
        gb = gift_value(b, hands, hsize, counts)
        _replace_card(a, ga, gb, hands, hsize)
        _replace_card(b, gb, ga, hands, hsize)
        hknow[:, a, :] = 0
        hknow[:, b, :] = 0
        d = digest_step(d, swap_code(t, ga, gb))
    return d


@kernel
def forget(o: int, p: float, rs: np.ndarray, n_players: int, n_mid: int, hsize: np.ndarray,
           hknow: np.ndarray, mknow: np.ndarray, h: np.uint64) -> np.uint64:
    """Seat ``o`` forgets each record with probability ``p``.

    Records are visited hands first (seat ascending, position ascending), then
    middle slots ascending; each draws ``uniform() < p``.  ``p <= 0`` forgets
    nothing and ``p >= 1`` everything, without drawing.  Returns the move
    digest ``h`` with the code of every forgotten record folded in (module
    docstring).
    """
    d = np.uint64(h)  # pass np.uint64 from Python; a plain int arrives as int64
    if p <= 0.0:
        return d
    for q in range(n_players):
        if q == o:
            continue
        for i in range(hsize[q]):
            if hknow[o, q, i] != 0 and (p >= 1.0 or uniform(rs) < p):
                hknow[o, q, i] = 0
                d = digest_step(d, np.int64(FORGET_CODE_BASE + MAX_HAND * q + i))
    for j in range(n_mid):
        if mknow[o, j] != 0 and (p >= 1.0 or uniform(rs) < p):
            mknow[o, j] = 0
            d = digest_step(d, np.int64(FORGET_MID_CODE_BASE + j))
    return d


@kernel(inline="always")
def accessible_counts(o: int, n_players: int, n_mid: int, hands: np.ndarray,
                      hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray,
                      mrev: np.ndarray, hknow: np.ndarray, mknow: np.ndarray,
                      acc: np.ndarray) -> None:
    """``acc[v]``: cards seat ``o`` can reveal in a row now, each known to be ``v``.

    Per hand: the run of equal known values from the low end, plus the run
    from the high end over the cards the low run did not take; plus the
    known face-down middle cards.
    """
    acc[:] = 0
    for q in range(n_players):
        lo = rlo[q]
        hi = hsize[q] - rhi[q]
        if lo >= hi:
            continue
        v0 = hands[q, lo] if q == o else hknow[o, q, lo]
        a = 0
        if v0 != 0:
            while lo + a < hi and (hands[q, lo + a] if q == o else hknow[o, q, lo + a]) == v0:
                a += 1
            acc[v0] += a
        if hi - 1 < lo + a:
            continue
        v1 = hands[q, hi - 1] if q == o else hknow[o, q, hi - 1]
        if v1 != 0:
            b = 0
            while hi - 1 - b >= lo + a and (
                hands[q, hi - 1 - b] if q == o else hknow[o, q, hi - 1 - b]
            ) == v1:
                b += 1
            acc[v1] += b
    for j in range(n_mid):
        if mid[j] != 0 and mrev[j] == 0 and mknow[o, j] != 0:
            acc[mknow[o, j]] += 1


@kernel(inline="always")
def located_counts(o: int, n_players: int, n_mid: int, hands: np.ndarray, hsize: np.ndarray,
                   mid: np.ndarray, hknow: np.ndarray, mknow: np.ndarray,
                   loc: np.ndarray) -> None:
    """``loc[v]``: copies of ``v`` whose place seat ``o`` knows (own hand + records)."""
    loc[:] = 0
    for q in range(n_players):
        for i in range(hsize[q]):
            v = hands[q, i] if q == o else hknow[o, q, i]
            if v != 0:
                loc[v] += 1
    for j in range(n_mid):
        if mid[j] != 0 and mknow[o, j] != 0:
            loc[mknow[o, j]] += 1


@kernel(inline="always")
def pick(rs: np.ndarray, options: np.ndarray, n: int) -> int:
    """``options[0]`` when ``n == 1`` (no draw), else ``options[below(n)]``."""
    if n == 1:
        return options[0]
    return options[below(rs, n)]


@kernel(inline="always")
def memory_choice(o: int, rs: np.ndarray, team_o: int, mode: int, n_players: int, n_mid: int,
                  hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
                  mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
                  hknow: np.ndarray, mknow: np.ndarray, legal: np.ndarray, n_legal: int,
                  cand: np.ndarray, acc: np.ndarray, loc: np.ndarray, pool: np.ndarray) -> int:
    """The ``memory`` policy's next reveal for seat ``o`` (team ``team_o``).

    ``A(v)`` = :func:`accessible_counts` (cards it can reveal in a row now,
    each known to be ``v``), ``L(v)`` = :func:`located_counts` (copies whose
    place it knows; ``L >= A``).  "Reveal a known ``v``" means the first legal
    reveal (``REVEAL_ORDER``) whose card it knows to be ``v``.

    1. First reveal of the turn: if some values have ``A(v) >= 3`` (a sure
       trio), keep those whose trio wins (if any), pick one (ascending list,
       ``pick``) and reveal a known ``v``.  Else among values with ``A(v) >= 1``
       and ``L(v) == A(v)`` (every located copy reachable now, so the missing
       ones are among the cards it does not know) take those with the largest
       ``A``, pick one and reveal a known ``v``.
    2. Later reveals (``k`` cards of ``t`` face up): reveal a known ``t`` if any.
    3. Otherwise pick among the legal reveals whose card it does not know; if
       it knows them all, pick among all legal reveals.
    """
    accessible_counts(o, n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev, hknow, mknow, acc)
    target = 0
    if turn[0] == 0:
        n = 0
        for v in range(1, N_VALUES + 1):
            if acc[v] >= COPIES:
                pool[n] = v
                n += 1
        if n > 0:
            nw = 0
            for idx in range(n):
                if would_win(pool[idx], team_o, owner, mode):
                    pool[nw] = pool[idx]
                    nw += 1
            target = pick(rs, pool, nw if nw > 0 else n)
        else:
            located_counts(o, n_players, n_mid, hands, hsize, mid, hknow, mknow, loc)
            best = 0
            for v in range(1, N_VALUES + 1):
                if acc[v] < 1 or loc[v] != acc[v]:
                    continue
                if acc[v] > best:
                    best = acc[v]
                    n = 0
                elif acc[v] < best:
                    continue
                pool[n] = v
                n += 1
            if n > 0:
                target = pick(rs, pool, n)
    elif acc[turn[1]] >= 1:
        target = turn[1]
    if target != 0:
        for idx in range(n_legal):
            if known_value(o, legal[idx], hands, hsize, rlo, rhi, hknow, mknow) == target:
                return legal[idx]
    n = 0
    for idx in range(n_legal):
        if known_value(o, legal[idx], hands, hsize, rlo, rhi, hknow, mknow) == 0:
            cand[n] = legal[idx]
            n += 1
    if n > 0:
        return pick(rs, cand, n)
    return pick(rs, legal, n_legal)


@kernel
def reset_swapped_bounds(skip_team: int, n_players: int, hsize: np.ndarray,
                         bnd: np.ndarray) -> None:
    """After :func:`team_swaps`: the hands that swapped have no public bounds any more."""
    half = n_players // 2
    for t in range(half):
        if t == skip_team or hsize[t] == 0 or hsize[t + half] == 0:
            continue
        for s in (t, t + half):
            bnd[s, 0] = 1
            bnd[s, 1] = N_VALUES


@kernel
def update_bounds(v: int, tacts: np.ndarray, nt: int, bnd: np.ndarray) -> None:
    """A trio of ``v`` from the reveals ``tacts[:nt]``: the hands it left bounded."""
    for k in range(nt):
        a = tacts[k]
        if a >= MID_BASE:
            continue
        q = a >> 1
        if a & 1:
            bnd[q, 1] = min(bnd[q, 1], v)
        else:
            bnd[q, 0] = max(bnd[q, 0], v)



@kernel(inline="always")
def reveal_step(a: int, p: int, icfg: np.ndarray, team: np.ndarray, hands: np.ndarray,
                hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray,
                mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray, hknow: np.ndarray,
                mknow: np.ndarray, bnd: np.ndarray, tacts: np.ndarray, counts: np.ndarray,
                track: bool, h: np.uint64) -> tuple[int, np.uint64]:
    """Seat ``p`` reveals ``a``, with everything that follows from it.

    The card is recorded by every seat (``track``), a trio updates the hand
    bounds ``bnd`` and the end of the game, and in team play a trio that does not
    end the game makes the other teams swap (option ``team_reswap``).  ``tacts``
    holds the reveals of the turn so far (``turn[0]`` of them: a turn ends at the
    first mismatch, so every card face up this turn came from one of them).

    Returns ``(status, digest)``: :data:`GO_ON` (the turn goes on), :data:`MISSED`
    (the cards went back), :data:`TRIO` (a trio that does not end the game) or
    :data:`WON` + the end reason (team of ``p`` won), and the move digest ``h``
    with the reveal and any swap folded in.

    Inlined into its callers (a call per reveal with its arrays cost random games a
    third of their speed, docs/speed.md).
    """
    n = icfg[I_PLAYERS]
    nt = turn[0]
    tacts[nt] = a
    d = digest_step(np.uint64(h), np.int64(a))
    res = apply_reveal(a, team[p], n, icfg[I_MIDDLE], hands, hsize, rlo, rhi, mid, mrev, turn,
                       owner, hknow, mknow, track)
    if res == 0:
        return GO_ON, d
    if res < 0:
        return MISSED, d
    update_bounds(res, tacts, nt + 1, bnd)
    reason = trio_result(res, team[p], owner, icfg[I_MODE])
    if reason >= 0:
        return WON + reason, d
    if icfg[I_TEAMS] != 0 and icfg[I_RESWAP] != 0:
        d = team_swaps(team[p], n, hands, hsize, hknow, counts, d)
        reset_swapped_bounds(team[p], n, hsize, bnd)
    return TRIO, d


@kernel
def turn_reveals(n_players: int, n_mid: int, rlo: np.ndarray, rhi: np.ndarray,
                 mrev: np.ndarray, tacts: np.ndarray) -> int:
    """Rebuild ``tacts`` (the reveals of the turn so far, as :func:`reveal_step` keeps
    them) from the cards face up: the order is lost, which :func:`update_bounds`
    does not need.  Returns their number."""
    nt = 0
    for q in range(n_players):
        for _ in range(rlo[q]):
            tacts[nt] = 2 * q
            nt += 1
        for _ in range(rhi[q]):
            tacts[nt] = 2 * q + 1
            nt += 1
    for j in range(n_mid):
        if mrev[j] != 0:
            tacts[nt] = MID_BASE + j
            nt += 1
    return nt


@kernel
def playout(rs: np.ndarray, kind: int, icfg: np.ndarray, team: np.ndarray, tn: int,
            hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
            mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
            hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray, tacts: np.ndarray,
            legal: np.ndarray, cand: np.ndarray, acc: np.ndarray, loc: np.ndarray,
            pool: np.ndarray, bi: np.ndarray, bf: np.ndarray, score: np.ndarray,
            dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
            used: np.ndarray) -> int:
    """Play on from turn ``tn`` (seat ``tn % n`` to move, possibly mid-turn) with every
    seat playing ``kind`` (:data:`MEMORY` or :data:`DEDUCE`; ``deduce`` falls back to
    ``memory`` where its belief has no deal), to the end or the turn cap; returns the
    winners' seat mask (0: the turn cap).  The arrays are changed in place."""
    n = icfg[I_PLAYERS]
    n_mid = icfg[I_MIDDLE]
    mode = icfg[I_MODE]
    for t in range(tn, icfg[I_TURN_CAP]):
        p = t % n
        while True:
            n_legal = legal_reveals(n, n_mid, hsize, rlo, rhi, mid, mrev, legal)
            a = -1
            if kind == DEDUCE:
                a = deduce_choice(p, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid, mrev,
                                  turn, owner, hknow, mknow, bnd, legal, n_legal, bi, bf, score,
                                  dl, dh, pl, ph, used)
            if a < 0:
                a = memory_choice(p, rs, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid,
                                  mrev, turn, owner, hknow, mknow, legal, n_legal, cand, acc,
                                  loc, pool)
            status, _ = reveal_step(a, p, icfg, team, hands, hsize, rlo, rhi, mid, mrev, turn,
                                    owner, hknow, mknow, bnd, tacts, acc, True, np.uint64(0))
            if status == GO_ON:
                continue
            if status >= WON:
                return winners_mask(n, team, team[p])
            break
    return 0
