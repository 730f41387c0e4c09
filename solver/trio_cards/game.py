"""Trio, the card game (Kaya Miyano, 2021): rules, Numba engine and policies.

Rules implemented (see ``shared/RULES.md`` section 4):

* 36 cards: the numbers 1..12, three of each.  The deck ``[1,1,1,2,2,2,...,12]``
  is shuffled by Fisher-Yates from the game's stream (``i = 35 .. 1``:
  ``j = below(i + 1)``, swap ``i`` and ``j``); seat ``p`` gets
  ``deck[p*h : (p+1)*h]`` and the middle slots ``0 .. m-1`` get the next ``m``
  cards, face down.  ``(h, m)`` = (9, 9), (7, 8), (6, 6), (5, 6) for 3, 4, 5, 6
  players; in team play (9, 0) for 4 and (6, 0) for 6 players (:data:`DEAL`).
  Hands are kept sorted ascending.
* Seat 0 plays first, then 1, 2, ...  A turn is a series of reveals.  A reveal
  is any face-down middle card, or the current lowest or highest unrevealed
  card of any hand, one's own included; cards revealed this turn have left the
  hand, so asking the same player again shows the next card.  **[choice]**
  :data:`ONE_CARD_HAND`: when a hand has one unrevealed card its lowest and
  highest card are the same card and there is one reveal for it (the "low"
  one).  A player cannot stop voluntarily.
* A revealed card that differs from the ones revealed before it this turn ends
  the turn: every revealed card goes back (middle cards face down in their
  slot, hand cards back into the sorted hand).  The third equal card makes a
  trio: the player (the team, in team play) keeps it face up and the turn ends.
* Win, at once after a trio: ``simple`` mode three trios or the trio of 7s;
  ``spicy`` mode two linked trios or the trio of 7s.  ``a`` and ``b`` are linked
  when ``a + b == 7`` or ``|a - b| == 7`` (1-6, 1-8, 2-5, 2-9, 3-4, 3-10, 4-11,
  5-12; 7 links to none).  **[choice]** :data:`REASON_PRECEDENCE`: the 7s end the
  game at once, so they never count as one of three trios; a game won by the
  7s is reported as "sevens" even when they were the third trio.
* Teams (4 or 6 players): partners sit opposite (seats ``i`` and ``i + n/2``,
  team ``i``); all cards go to the players; after sorting, every team swaps
  (each partner gives one card face down, at the same time).  **[choice]**
  :data:`GIFT_RULE`: a player gives a card of the value it holds the fewest
  copies of, the lowest such value.  **[choice]** option ``team_reswap``
  (default :data:`TEAM_RESWAP_DEFAULT` = True): each time a team wins a trio
  that does not end the game, every other team swaps again (always taken),
  team by team in team order.  **[choice]** a team whose partner has an empty
  hand does not swap.  Trios are shared by the team.
* Turn cap **[choice]** option ``turn_cap`` (default :data:`DEFAULT_TURN_CAP`
  = 500 turns, a turn being one player's turn): the game ends with no winner,
  end reason "turn cap" (counted as unfinished).
* A legal reveal always exists: until the 7s are taken their three cards are
  still in hands or the middle, and after one or two equal cards the missing
  copies are still unrevealed.

Information and memory.  Every reveal is public.  Each seat keeps a record of
what it saw (the engine keeps it for every seat; only the memory policies read
it): the value of middle slot ``j``, and the value at position ``i`` of the
sorted hand of player ``q != self`` (positions count the whole hand, including
cards revealed this turn).  A record stays exact: hand cards only leave from
the ends, by a trio, and the records then shift with the hand; a trio's middle
slots are emptied.  **[choice]** a team swap erases everybody's records of both
swapping hands (even the partner's, a deliberate simplification); no other
deduction is made (no card counting, no inference from sortedness).

Policies (a policy per seat; ``make_config`` takes one policy for all seats,
one per seat, or in team play one per team):

* ``random`` -- uniform over the legal reveals at every reveal step.
* ``memory`` -- see :func:`memory_choice`.  Uses only its own hand, the public
  trios and hand sizes, the cards face up this turn and its records.
* ``forgetful:P`` -- ``memory``, but at the start of each of its turns it
  forgets each record with probability ``P`` (see :func:`forget`).
* ``deduce`` -- see :mod:`trilab.solver.trio_cards.deduce`: the seat's exact
  belief over the hidden cards (:mod:`trilab.solver.trio_cards.belief`:
  counting the three copies, sorted hands, the public *hand bounds* ``bnd``
  that trios leave, which the engine keeps for it) gives the probability of
  every reveal; it takes sure trios, else the reveal with the best estimated
  trio chance.  It draws no random number.

**[choice]** :data:`REVEAL_ORDER`: legal reveals are listed as, for each seat
0..n-1, its low reveal then its high reveal (when it has 1 resp. 2+ unrevealed
cards), then the face-down middle slots in slot order.  Action codes: low of
``p`` = ``2p``, high of ``p`` = ``2p + 1``, middle slot ``j`` = ``12 + j``.  A
choice among ``k`` options draws ``below(k)`` from the game's stream when
``k > 1`` and draws nothing when ``k == 1``.

Move digest (:func:`trilab.solver.rng.digest_step`, from ``h = 0``): every
event that changes the game by choice or chance folds one code, in the order
the events happen:

* a reveal: its action code, ``2p`` (low of seat ``p``), ``2p + 1`` (high of
  ``p``) or ``12 + j`` (middle slot ``j``), so 0 .. 20;
* a team swap (between turns, teams in team order), team ``t``, seat ``t``
  giving ``ga`` and seat ``t + n/2`` giving ``gb``: ``100 + (13 t + ga) * 13
  + gb`` (114 .. 606); a team that does not swap folds nothing;
* a record forgotten (``forgetful`` seats, at the start of their turn, in the
  order :func:`forget` visits them): ``1000 + 9 q + i`` for position ``i`` of
  seat ``q``'s hand, ``1054 + j`` for middle slot ``j`` (1000 .. 1062); the
  forgetting seat is the seat to move, so it is not encoded.

The deal is not folded: it is a function of the seed alone.

Engine representation (all ``int64``; card values 1..12, 0 = none/unknown):
``hands[p, i]`` sorted hand of ``p`` (``hsize[p]`` cards, including cards face
up this turn), ``rlo[p]``/``rhi[p]`` how many of them were revealed this turn
from the low/high end, ``mid[j]`` middle slot value (0 once taken), ``mrev[j]``
face up this turn, ``turn = [k, t]`` (``k`` cards of value ``t`` face up this
turn), ``owner[v]`` the team owning the trio of ``v`` (-1), ``hknow[o, q, i]``
and ``mknow[o, j]`` the records of seat ``o``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np
from trilab.solver.game_api import GameConfig, GameSpec
from trilab.solver.jit import kernel
from trilab.solver.rng import below, digest_step, game_stream, uniform
from trilab.solver.trio_cards import belief
from trilab.solver.trio_cards.deduce import deduce_choice
from trilab.solver.trio_cards.reference import reference_game

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

DEAL: dict[tuple[int, bool], tuple[int, int]] = {
    (3, False): (9, 9),
    (4, False): (7, 8),
    (5, False): (6, 6),
    (6, False): (5, 6),
    (4, True): (9, 0),
    (6, True): (6, 0),
}
"""(cards per hand, middle cards) by (players, teams)."""

DEFAULT_TURN_CAP = 500
TEAM_RESWAP_DEFAULT = True
ONE_CARD_HAND = "one reveal (the low one) when a hand has one unrevealed card"
GIFT_RULE = "a card of the value held the fewest times, the lowest such value"
REASON_PRECEDENCE = "sevens before three trios / linked trios"
REVEAL_ORDER = "seat 0..n-1 (low, high), then middle slots 0..m-1"

MODES = ("simple", "spicy")
SIMPLE, SPICY = 0, 1
END_REASONS = ("three trios", "linked trios", "sevens", "turn cap")
THREE_TRIOS, LINKED_TRIOS, SEVENS, TURN_CAP = 0, 1, 2, 3
RANDOM, MEMORY, FORGETFUL, DEDUCE = 0, 1, 2, 3
POLICIES = {
    "random": "uniform over the legal reveals at every reveal step",
    "memory": "remembers every reveal; takes a sure trio (winning ones first), else "
              "starts with the value it can reveal most of, then guesses unknown cards",
    "forgetful:P": "memory, but forgets each record with probability P at the start "
                   "of each of its turns (0 <= P <= 1)",
    "deduce": "exact belief over the hidden cards (counting, sorted hands); takes sure "
              "trios, else the reveal with the best estimated trio chance",
}

# icfg layout (fcfg[p] = forgetting probability of seat p)
I_PLAYERS, I_MODE, I_TEAMS, I_TURN_CAP, I_HAND, I_MIDDLE, I_RESWAP, I_POLICY = range(8)
ICFG_LEN = I_POLICY + MAX_PLAYERS


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
def _end_turn(rlo: np.ndarray, rhi: np.ndarray, mrev: np.ndarray, turn: np.ndarray) -> None:
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
        _end_turn(rlo, rhi, mrev, turn)
        return -1
    turn[0] += 1
    turn[1] = v
    if turn[0] < COPIES:
        return 0
    _remove_trio_cards(n_players, n_mid, hands, hsize, rlo, rhi, mid, mrev, hknow, mknow, track)
    owner[v] = team_p
    _end_turn(rlo, rhi, mrev, turn)
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


@kernel
def play_game(rs: np.ndarray, icfg: np.ndarray, fcfg: np.ndarray, deck: np.ndarray,
              hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
              mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
              hknow: np.ndarray, mknow: np.ndarray, team: np.ndarray, legal: np.ndarray,
              cand: np.ndarray, acc: np.ndarray, loc: np.ndarray, pool: np.ndarray,
              bnd: np.ndarray, tacts: np.ndarray, bi: np.ndarray, bf: np.ndarray,
              score: np.ndarray, dl: np.ndarray, dh: np.ndarray, pl: np.ndarray,
              ph: np.ndarray, used: np.ndarray):
    """One game on preallocated arrays; returns ``(winners, turns, reason, digest)``.

    ``digest`` (``uint64``) folds every reveal, team swap and forgotten record
    (module docstring).
    """
    n = icfg[I_PLAYERS]
    mode = icfg[I_MODE]
    teams = icfg[I_TEAMS] != 0
    n_mid = icfg[I_MIDDLE]
    fill_teams(n, teams, team)
    deal(rs, n, icfg[I_HAND], n_mid, deck, hands, hsize, mid)
    _end_turn(rlo, rhi, mrev, turn)
    owner[:] = -1
    hknow[:, :, :] = 0
    mknow[:, :] = 0
    bnd[:, 0] = 1
    bnd[:, 1] = N_VALUES
    h = np.uint64(0)
    if teams:
        h = team_swaps(-1, n, hands, hsize, hknow, acc, h)
    track = False  # records are kept only when a seat reads them
    for p in range(n):
        track = track or icfg[I_POLICY + p] != RANDOM
    for tn in range(icfg[I_TURN_CAP]):
        p = tn % n
        policy = icfg[I_POLICY + p]
        if policy == FORGETFUL:
            h = forget(p, fcfg[p], rs, n, n_mid, hsize, hknow, mknow, h)
        nt = 0
        while True:
            n_legal = legal_reveals(n, n_mid, hsize, rlo, rhi, mid, mrev, legal)
            a = -1
            if policy == RANDOM:
                a = pick(rs, legal, n_legal)
            elif policy == DEDUCE:
                a = deduce_choice(p, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid,
                                  mrev, turn, owner, hknow, mknow, bnd, legal, n_legal, bi, bf,
                                  score, dl, dh, pl, ph, used)
            if a < 0:
                a = memory_choice(p, rs, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid,
                                  mrev, turn, owner, hknow, mknow, legal, n_legal, cand, acc,
                                  loc, pool)
            tacts[nt] = a
            nt += 1
            h = digest_step(h, np.int64(a))
            res = apply_reveal(a, team[p], n, n_mid, hands, hsize, rlo, rhi, mid, mrev, turn,
                               owner, hknow, mknow, track)
            if res == 0:
                continue
            if res > 0:
                update_bounds(res, tacts, nt, bnd)
                reason = trio_result(res, team[p], owner, mode)
                if reason >= 0:
                    return winners_mask(n, team, team[p]), tn + 1, reason, h
                if teams and icfg[I_RESWAP] != 0:
                    h = team_swaps(team[p], n, hands, hsize, hknow, acc, h)
                    reset_swapped_bounds(team[p], n, hsize, bnd)
            break
    return 0, icfg[I_TURN_CAP], TURN_CAP, h


class EngineState(NamedTuple):
    """The arrays of one game position (see the module docstring)."""

    hands: np.ndarray
    hsize: np.ndarray
    rlo: np.ndarray
    rhi: np.ndarray
    mid: np.ndarray
    mrev: np.ndarray
    turn: np.ndarray
    owner: np.ndarray
    hknow: np.ndarray
    mknow: np.ndarray

    def copy(self) -> EngineState:
        return EngineState(*(x.copy() for x in self))


def new_state() -> EngineState:
    """Zeroed arrays of the engine's sizes (no trio owned)."""
    z = np.zeros
    return EngineState(
        z((MAX_PLAYERS, MAX_HAND), np.int64), z(MAX_PLAYERS, np.int64),
        z(MAX_PLAYERS, np.int64), z(MAX_PLAYERS, np.int64), z(MAX_MIDDLE, np.int64),
        z(MAX_MIDDLE, np.int64), z(2, np.int64), np.full(N_VALUES + 1, -1, np.int64),
        z((MAX_PLAYERS, MAX_PLAYERS, MAX_HAND), np.int64), z((MAX_PLAYERS, MAX_MIDDLE), np.int64),
    )


class Scratch(NamedTuple):
    """Work arrays of the kernels."""

    deck: np.ndarray
    team: np.ndarray
    legal: np.ndarray
    cand: np.ndarray
    acc: np.ndarray
    loc: np.ndarray
    pool: np.ndarray


def new_scratch() -> Scratch:
    z = np.zeros
    return Scratch(z(N_CARDS, np.int64), z(MAX_PLAYERS, np.int64), z(MAX_ACTIONS, np.int64),
                   z(MAX_ACTIONS, np.int64), z(N_VALUES + 1, np.int64),
                   z(N_VALUES + 1, np.int64), z(N_VALUES + 1, np.int64))


@nb.njit(cache=True)
def play_chunk(seed, first_game, n_games, icfg, fcfg):
    """Games ``first_game .. first_game + n_games - 1``; see :mod:`trilab.solver.montecarlo`.

    Returns ``(winners, length, reason, digest)``: three ``int64`` arrays and
    the ``uint64`` move digests (module docstring), one entry per game.
    """
    winners = np.zeros(n_games, dtype=np.int64)
    length = np.zeros(n_games, dtype=np.int64)
    reason = np.zeros(n_games, dtype=np.int64)
    digest = np.zeros(n_games, dtype=np.uint64)
    deck = np.zeros(N_CARDS, dtype=np.int64)
    hands = np.zeros((MAX_PLAYERS, MAX_HAND), dtype=np.int64)
    hsize = np.zeros(MAX_PLAYERS, dtype=np.int64)
    rlo = np.zeros(MAX_PLAYERS, dtype=np.int64)
    rhi = np.zeros(MAX_PLAYERS, dtype=np.int64)
    mid = np.zeros(MAX_MIDDLE, dtype=np.int64)
    mrev = np.zeros(MAX_MIDDLE, dtype=np.int64)
    turn = np.zeros(2, dtype=np.int64)
    owner = np.zeros(N_VALUES + 1, dtype=np.int64)
    hknow = np.zeros((MAX_PLAYERS, MAX_PLAYERS, MAX_HAND), dtype=np.int64)
    mknow = np.zeros((MAX_PLAYERS, MAX_MIDDLE), dtype=np.int64)
    team = np.zeros(MAX_PLAYERS, dtype=np.int64)
    legal = np.zeros(MAX_ACTIONS, dtype=np.int64)
    cand = np.zeros(MAX_ACTIONS, dtype=np.int64)
    acc = np.zeros(N_VALUES + 1, dtype=np.int64)
    loc = np.zeros(N_VALUES + 1, dtype=np.int64)
    pool = np.zeros(N_VALUES + 1, dtype=np.int64)
    bnd = np.zeros((MAX_PLAYERS, 2), dtype=np.int64)
    tacts = np.zeros(COPIES, dtype=np.int64)
    bi = np.zeros(belief.BI_LEN, dtype=np.int64)
    bf = np.zeros(belief.BF_LEN, dtype=np.float64)
    score = np.zeros(MAX_ACTIONS, dtype=np.float64)
    dl = np.zeros(MAX_PLAYERS, dtype=np.int64)
    dh = np.zeros(MAX_PLAYERS, dtype=np.int64)
    pl = np.zeros(MAX_PLAYERS, dtype=np.float64)
    ph = np.zeros(MAX_PLAYERS, dtype=np.float64)
    used = np.zeros(MAX_MIDDLE, dtype=np.int64)
    for g in range(n_games):
        rs = game_stream(np.uint64(seed), np.uint64(first_game + g))
        w, n, r, d = play_game(rs, icfg, fcfg, deck, hands, hsize, rlo, rhi, mid, mrev, turn,
                               owner, hknow, mknow, team, legal, cand, acc, loc, pool, bnd,
                               tacts, bi, bf, score, dl, dh, pl, ph, used)
        winners[g] = w
        length[g] = n
        reason[g] = r
        digest[g] = d
    return winners, length, reason, digest


# ---------------------------------------------------------------- configuration


def parse_policy(text: str) -> tuple[str, int, float]:
    """``(normalised text, policy code, forgetting probability)`` of a policy string."""
    if not isinstance(text, str):
        raise ValueError(f"policy must be a string, got {text!r}")
    name = text.strip()
    if name == "random":
        return "random", RANDOM, 0.0
    if name == "memory":
        return "memory", MEMORY, 0.0
    if name == "deduce":
        return "deduce", DEDUCE, 0.0
    if name == "forgetful" or name.startswith("forgetful:"):
        arg = name.partition(":")[2]
        try:
            p = float(arg)
        except ValueError:
            p = math.nan
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"bad policy {name!r}: use forgetful:P with a probability "
                             "0 <= P <= 1, e.g. forgetful:0.3")
        return f"forgetful:{p}", FORGETFUL, p
    raise ValueError(f"unknown policy {name!r}; trio-cards policies: "
                     "random, memory, forgetful:P, deduce")


OPTION_KEYS = ("players", "mode", "teams", "policies", "turn_cap", "team_reswap")


def make_config(options: dict) -> GameConfig:
    """Validate ``options`` (see the module docstring) and encode them for the kernels.

    Keys: ``players`` (3..6), ``mode`` ("simple" | "spicy", default simple),
    ``teams`` (bool, 4 or 6 players), ``policies`` (list of policy strings: one
    for all seats, one per seat, or in team play one per team), ``turn_cap``
    (default 500), ``team_reswap`` (default True).
    """
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise ValueError(f"unknown trio-cards option(s) {', '.join(map(repr, unknown))}; "
                         f"options: {', '.join(OPTION_KEYS)}")
    players = options.get("players", 3)
    if isinstance(players, bool) or not isinstance(players, int | np.integer) or not (
        MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise ValueError(f"trio-cards needs {MIN_PLAYERS}..{MAX_PLAYERS} players, got {players!r}")
    players = int(players)
    mode = options.get("mode", "simple")
    if mode not in MODES:
        raise ValueError(f"mode must be 'simple' or 'spicy', got {mode!r}")
    teams = options.get("teams", False)
    if not isinstance(teams, bool | np.bool_):
        raise ValueError(f"teams must be true or false, got {teams!r}")
    teams = bool(teams)
    if teams and players not in (4, 6):
        raise ValueError(f"team play needs 4 or 6 players, got {players}")
    cap = options.get("turn_cap", DEFAULT_TURN_CAP)
    if isinstance(cap, bool) or not isinstance(cap, int | np.integer) or cap < 1:
        raise ValueError(f"turn_cap must be an integer >= 1, got {cap!r}")
    reswap = options.get("team_reswap", TEAM_RESWAP_DEFAULT)
    if not isinstance(reswap, bool | np.bool_):
        raise ValueError(f"team_reswap must be true or false, got {reswap!r}")
    policies = options.get("policies", ["random"])
    if isinstance(policies, str):
        policies = [policies]
    parsed = [parse_policy(p) for p in policies]
    n_teams = players // 2 if teams else players
    if len(parsed) == 1:
        seat_parsed = parsed * players
    elif len(parsed) == players:
        seat_parsed = parsed
    elif teams and len(parsed) == n_teams:
        seat_parsed = [parsed[s % n_teams] for s in range(players)]
    else:
        per_team = f", {n_teams} (one per team)" if teams else ""
        raise ValueError(f"wrong number of policies: got {len(parsed)}, expected 1, "
                         f"{players} (one per seat){per_team}")
    hand, middle = DEAL[(players, teams)]
    icfg = np.zeros(ICFG_LEN, dtype=np.int64)
    icfg[I_PLAYERS] = players
    icfg[I_MODE] = MODES.index(mode)
    icfg[I_TEAMS] = int(teams)
    icfg[I_TURN_CAP] = int(cap)
    icfg[I_HAND] = hand
    icfg[I_MIDDLE] = middle
    icfg[I_RESWAP] = int(bool(reswap))
    fcfg = np.zeros(MAX_PLAYERS, dtype=np.float64)
    for s, (_, code, p) in enumerate(seat_parsed):
        icfg[I_POLICY + s] = code
        fcfg[s] = p
    seat_policies = tuple(t for t, _, _ in seat_parsed)
    groups = tuple((t, t + players // 2) for t in range(players // 2)) if teams else None
    normalised = {"players": players, "mode": mode, "teams": teams,
                  "policies": list(seat_policies), "turn_cap": int(cap),
                  "team_reswap": bool(reswap)}
    return GameConfig(players, seat_policies, icfg, fcfg, normalised, groups)


SPEC = GameSpec(
    name="trio-cards",
    end_reasons=END_REASONS,
    policies=POLICIES,
    make_config=make_config,
    play_chunk=play_chunk,
    reference_game=reference_game,
    draw_reasons=("turn cap",),
)
