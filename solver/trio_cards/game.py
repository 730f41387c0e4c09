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
* ``infer:K`` -- see :mod:`trilab.solver.trio_cards.infer`: ``deduce`` on
  probabilities that also read the other players' choices: ``K`` deals drawn
  from the exact belief, each weighed by whether ``deduce`` in the other seats
  would have made the reveals they made since the last trio (the engine logs
  those decisions with their public state).  It draws from the game's stream.
* ``ismcts:N`` / ``ismcts-deduce:N`` -- see :mod:`trilab.solver.trio_cards.ismcts`:
  ``N`` iterations of single-observer information-set MCTS a reveal (determinizations
  drawn from the seat's belief, ``deduce``'s reveal as the root's prior), with
  ``memory`` resp. ``deduce`` playouts.  It draws from the game's stream.
* ``ismcts-flat:N`` -- at the first reveal of a turn without a sure trio, a flat
  two-stage search of ``deduce`` rollouts that keeps ``deduce``'s reveal unless
  another is clearly better (:func:`trilab.solver.trio_cards.ismcts.flat_choice`);
  ``ismcts-deduce:N`` for the rest of the turn.
* ``ismcts-infer:N`` -- ``ismcts-deduce:N`` around ``infer:64``: its reveal as the
  root's prior, determinizations drawn from its weighted deals (the engine logs the
  decisions for it as for an ``infer`` seat).

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
from trilab.solver.rng import game_stream
from trilab.solver.trio_cards import belief, infer, ismcts
from trilab.solver.trio_cards.deduce import deduce_choice
from trilab.solver.trio_cards.ismcts import ismcts_choice
from trilab.solver.trio_cards.reference import reference_game
from trilab.solver.trio_cards.rules import (  # re-exported: the game's names in one place
    COPIES,
    DEDUCE,
    END_REASONS,
    FORGET_CODE_BASE,
    FORGET_MID_CODE_BASE,
    FORGETFUL,
    GO_ON,
    I_BUDGET,
    I_HAND,
    I_MIDDLE,
    I_MODE,
    I_PLAYERS,
    I_PLAYOUT,
    I_POLICY,
    I_RESWAP,
    I_TEAMS,
    I_TURN_CAP,
    ICFG_LEN,
    INFER,
    ISMCTS,
    LINKED_TRIOS,
    MAX_ACTIONS,
    MAX_HAND,
    MAX_MIDDLE,
    MAX_PLAYERS,
    MEMORY,
    MID_BASE,
    MIN_PLAYERS,
    MODES,
    N_CARDS,
    N_VALUES,
    RANDOM,
    SEVEN,
    SEVENS,
    SIMPLE,
    SPICY,
    SWAP_CODE_BASE,
    THREE_TRIOS,
    TRIO,
    TURN_CAP,
    WON,
    apply_reveal,
    deal,
    end_turn,
    fill_teams,
    forget,
    is_linked,
    legal_reveals,
    memory_choice,
    pick,
    reveal_step,
    swap_code,
    team_swaps,
    trio_result,
    winners_mask,
    would_win,
)

__all__ = [
    "COPIES", "DEAL", "DEDUCE", "END_REASONS", "FORGET_CODE_BASE", "FORGET_MID_CODE_BASE",
    "FORGETFUL", "ICFG_LEN", "INFER", "ISMCTS", "LINKED_TRIOS", "MAX_ACTIONS", "MAX_HAND",
    "MAX_MIDDLE", "MAX_PLAYERS", "MEMORY", "MID_BASE", "MIN_PLAYERS", "MODES", "N_CARDS",
    "N_VALUES", "POLICIES", "RANDOM", "SEVEN", "SEVENS", "SIMPLE", "SPICY", "SPEC",
    "SWAP_CODE_BASE", "THREE_TRIOS", "TURN_CAP", "EngineState", "apply_reveal", "deal",
    "forget", "is_linked", "legal_reveals", "make_config", "memory_choice", "new_scratch",
    "new_state", "parse_policy", "play_chunk", "play_game", "swap_code", "team_swaps",
    "trio_result", "winners_mask", "would_win"]

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

POLICIES = {
    "random": "uniform over the legal reveals at every reveal step",
    "memory": "remembers every reveal; takes a sure trio (winning ones first), else "
              "starts with the value it can reveal most of, then guesses unknown cards",
    "forgetful:P": "memory, but forgets each record with probability P at the start "
                   "of each of its turns (0 <= P <= 1)",
    "deduce": "exact belief over the hidden cards (counting, sorted hands); takes sure "
              "trios, else the reveal with the best estimated trio chance",
    "infer:K": "deduce with a model of the opponents: K deals drawn from the exact belief, "
               "each weighed by whether deduce in the other seats would have made the "
               "reveals they made since the last trio",
    "ismcts:N": "information-set MCTS: N determinizations a reveal drawn from the exact "
                "belief, one tree over the seat's information sets, deduce's reveal as the "
                "root's prior, memory playouts",
    "ismcts-deduce:N": "ismcts:N with deduce playouts (every seat plays deduce to the end)",
    "ismcts-flat:N": "at a turn's first reveal without a sure trio, a flat search: every "
                     "reveal rolled out with deduce on N/4 deals, deduce's reveal and the "
                     "best three on N more, kept unless another is clearly better; "
                     "ismcts-deduce:N for the rest of the turn",
    "ismcts-infer:N": "ismcts-deduce:N whose determinizations are infer:64's weighted deals "
                      "(the opponents modelled as deduce players) and whose root prior is "
                      "infer's reveal; a sure trio is played without a search",
}
MAX_ISMCTS_BUDGET = 1_000_000
MAX_INFER_DEALS = 100_000
ISMCTS_PLAYOUTS = {"ismcts": MEMORY, "ismcts-deduce": DEDUCE, "ismcts-flat": ismcts.FLAT,
                   "ismcts-infer": ismcts.INFER_SEARCH}
"""The playout kind of each ISMCTS policy name (``icfg[I_PLAYOUT + seat]``)."""


@kernel(inline="always")
def models_opponents(icfg: np.ndarray, p: int) -> bool:
    """Whether seat ``p`` reads the other seats' logged decisions (``infer:K`` and
    ``ismcts-infer:N``): the engine logs decisions only when some seat does."""
    return icfg[I_POLICY + p] == INFER or (icfg[I_POLICY + p] == ISMCTS and
                                           icfg[I_PLAYOUT + p] == ismcts.INFER_SEARCH)


# ---------------------------------------------------------------- the game loop


@kernel
def play_game(rs: np.ndarray, icfg: np.ndarray, fcfg: np.ndarray, deck: np.ndarray,
              hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
              mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray,
              hknow: np.ndarray, mknow: np.ndarray, team: np.ndarray, legal: np.ndarray,
              cand: np.ndarray, acc: np.ndarray, loc: np.ndarray, pool: np.ndarray,
              bnd: np.ndarray, tacts: np.ndarray, bi: np.ndarray, bf: np.ndarray,
              score: np.ndarray, dl: np.ndarray, dh: np.ndarray, pl: np.ndarray,
              ph: np.ndarray, used: np.ndarray, wi: np.ndarray, tree_i: np.ndarray,
              tree_w: np.ndarray, bi2: np.ndarray, bf2: np.ndarray, snap: np.ndarray,
              iw: np.ndarray, fw: np.ndarray):
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
    end_turn(rlo, rhi, mrev, turn)
    owner[:] = -1
    hknow[:, :, :] = 0
    mknow[:, :] = 0
    bnd[:, 0] = 1
    bnd[:, 1] = N_VALUES
    h = np.uint64(0)
    if teams:
        h = team_swaps(-1, n, hands, hsize, hknow, acc, h)
    track = False  # records are kept only when a seat reads them
    inferring = False  # decisions are logged only for an infer or ismcts-infer seat
    for p in range(n):
        track = track or icfg[I_POLICY + p] != RANDOM
        inferring = inferring or models_opponents(icfg, p)
    n_snap = 0
    infer.forget(iw)
    for tn in range(icfg[I_TURN_CAP]):
        p = tn % n
        policy = icfg[I_POLICY + p]
        if policy == FORGETFUL:
            h = forget(p, fcfg[p], rs, n, n_mid, hsize, hknow, mknow, h)
        while True:
            n_legal = legal_reveals(n, n_mid, hsize, rlo, rhi, mid, mrev, legal)
            # the one choice of a seat's reveal; random and memory are written out here
            # (inlined), not behind a call with some thirty arguments per reveal, which
            # with reveal_step's call halved the speed of random games (docs/speed.md);
            # deduce, ismcts and infer return -1 where their belief has no deal, and the
            # seat then plays memory
            a = -1
            if policy == RANDOM:
                a = pick(rs, legal, n_legal)
            elif policy == DEDUCE:
                a = deduce_choice(p, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid, mrev,
                                  turn, owner, hknow, mknow, bnd, legal, n_legal, bi, bf, score,
                                  dl, dh, pl, ph, used)
            elif policy == ISMCTS:
                a = ismcts_choice(p, rs, icfg[I_BUDGET + p], icfg, team, tn, hands, hsize, rlo,
                                  rhi, mid, mrev, turn, owner, hknow, mknow, bnd, legal,
                                  n_legal, bi, bf, wi, tree_i, tree_w, icfg[I_PLAYOUT + p],
                                  bi2, bf2, score, dl, dh, pl, ph, used, snap, n_snap, iw, fw)
            elif policy == INFER:
                a = infer.infer_choice(p, rs, icfg[I_BUDGET + p], team, mode, n, n_mid, hands,
                                       hsize, rlo, rhi, mid, mrev, turn, owner, hknow, mknow,
                                       bnd, legal, n_legal, bi, bf, bi2, bf2, score, dl, dh,
                                       pl, ph, used, snap, n_snap, iw, fw)
            if a < 0:
                a = memory_choice(p, rs, team[p], mode, n, n_mid, hands, hsize, rlo, rhi, mid,
                                  mrev, turn, owner, hknow, mknow, legal, n_legal, cand, acc,
                                  loc, pool)
            if inferring:
                n_snap = infer.record(snap, n_snap, p, a, hsize, rlo, rhi, mrev, turn, owner,
                                      hknow, mknow, bnd)
            status, h = reveal_step(a, p, icfg, team, hands, hsize, rlo, rhi, mid, mrev, turn,
                                    owner, hknow, mknow, bnd, tacts, acc, track, h)
            if status == TRIO:
                n_snap = 0  # the hands changed (and in team play were swapped)
                infer.forget(iw)
            if status == GO_ON:
                continue
            if status >= WON:
                return winners_mask(n, team, team[p]), tn + 1, status - WON, h
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
    budget = 0
    inferring = False
    for p in range(icfg[I_PLAYERS]):
        if icfg[I_POLICY + p] == ISMCTS:
            budget = max(budget, icfg[I_BUDGET + p])
        inferring = inferring or models_opponents(icfg, p)
    wi = np.zeros(ismcts.W_PATH + 3 * (budget + 2) + ismcts.W_LEGAL,  # ismcts.ws_len
                  dtype=np.int64)
    tree_i = np.zeros((budget + 1, ismcts.TREE_COLS), dtype=np.int64)  # ismcts.new_tree
    tree_w = np.zeros((max(budget + 1, 4), MAX_ACTIONS), dtype=np.float64)
    big = budget > 0 or inferring  # a second belief workspace (4 MB): ismcts and infer seats
    bi2 = np.zeros(belief.BI_LEN if big else 1, dtype=np.int64)
    bf2 = np.zeros(belief.BF_LEN if big else 1, dtype=np.float64)
    snap = np.zeros((infer.MAX_SNAP if inferring else 1, infer.SNAP_W), dtype=np.int64)
    iw = np.zeros(infer.IW_LEN, dtype=np.int64)
    fw = np.zeros(infer.FW_LEN, dtype=np.float64)
    for g in range(n_games):
        rs = game_stream(np.uint64(seed), np.uint64(first_game + g))
        w, n, r, d = play_game(rs, icfg, fcfg, deck, hands, hsize, rlo, rhi, mid, mrev, turn,
                               owner, hknow, mknow, team, legal, cand, acc, loc, pool, bnd,
                               tacts, bi, bf, score, dl, dh, pl, ph, used, wi, tree_i,
                               tree_w, bi2, bf2, snap, iw, fw)
        winners[g] = w
        length[g] = n
        reason[g] = r
        digest[g] = d
    return winners, length, reason, digest


# ---------------------------------------------------------------- configuration


def parse_policy(text: str) -> tuple[str, int, float]:
    """``(normalised text, policy code, parameter)`` of a policy string: the parameter
    is the forgetting probability of ``forgetful:P`` and the simulations of
    ``ismcts:N``."""
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
    kind, colon, arg = name.partition(":")
    if kind in ISMCTS_PLAYOUTS:
        if not colon or not arg.isdigit() or not 1 <= int(arg) <= MAX_ISMCTS_BUDGET:
            raise ValueError(f"bad policy {name!r}: use {kind}:N with 1 <= N <= "
                             f"{MAX_ISMCTS_BUDGET:,} simulations a reveal, e.g. {kind}:100")
        return f"{kind}:{int(arg)}", ISMCTS, float(int(arg))
    if kind == "infer":
        if not colon or not arg.isdigit() or not 1 <= int(arg) <= MAX_INFER_DEALS:
            raise ValueError(f"bad policy {name!r}: use infer:K with 1 <= K <= "
                             f"{MAX_INFER_DEALS:,} sampled deals a reveal, e.g. infer:64")
        return f"infer:{int(arg)}", INFER, float(int(arg))
    raise ValueError(f"unknown policy {name!r}; trio-cards policies: "
                     "random, memory, forgetful:P, deduce, infer:K, ismcts:N, ismcts-deduce:N, "
                     "ismcts-flat:N, ismcts-infer:N")


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
        if code == ISMCTS:
            icfg[I_BUDGET + s] = int(p)
            icfg[I_PLAYOUT + s] = ISMCTS_PLAYOUTS[seat_parsed[s][0].partition(":")[0]]
        elif code == INFER:
            icfg[I_BUDGET + s] = int(p)
        else:
            fcfg[s] = p
    codes = {code for _, code, _ in seat_parsed}
    if FORGETFUL in codes and any(models_opponents(icfg, s) for s in range(players)):
        raise ValueError("infer and ismcts-infer read the other seats' records as the public "
                         "history; "
                         "a forgetful seat's records are private, so the two cannot share a table")
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
