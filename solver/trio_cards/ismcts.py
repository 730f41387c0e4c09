"""``ismcts:N``: single-observer information-set MCTS for the Trio card game.

The reference point is Cowling, Powley and Whitehouse, "Information Set Monte
Carlo Tree Search" (2012), single-observer ISMCTS: one tree over the searching
seat's information sets, each iteration on a fresh *determinization* (a complete
deal consistent with everything the seat has seen).

**What the seat knows.**  Every reveal is public, so the seat's information set
is the public history plus its own hand.  A determinization is drawn from the
seat's exact belief (:func:`trilab.solver.trio_cards.belief.sample`, computed once
a decision: counting, sorted hands, hand bounds, team swaps forgotten).  The
records of every simulated seat are the public records (what every seat saw: the
searching seat's records of the other hands, and of its own hand the records of
the first other seat that does not forget).

**The tree.**  A node is an information set of the searching seat: the public
history since the decision.  Which reveals are legal is public, so every
determinization offers the same reveals at a node and plain UCB1 chooses among
them (``C`` = :data:`EXPLORATION`; rewards 1 for a win of the mover's team, 0
otherwise, the turn cap included).  A reveal is followed by the card it shows
in the determinization: the child of a node is keyed by (reveal, value).  The
visits and wins are kept per reveal at the node (over all the values it showed).
Selection maximises UCB1 plus a prior bonus ``PRIOR / (visits + 1)`` for the
heuristic's reveal (``deduce``'s at the root, ``memory``'s below it, on the
determinized cards as that seat sees them), an untried reveal counting
:data:`FIRST_PLAY` (first best in :data:`REVEAL_ORDER
<trilab.solver.trio_cards.game.REVEAL_ORDER>`).  One node is added an
iteration.  The tree stops at a team swap (a swap changes the seat's own hand in
a way the key does not show); the playout goes on from there.

**Playouts.**  Every seat plays ``memory`` (:func:`.rules.memory_playout`) to
the end of the game or the turn cap.

**The choice.**  The reveal of the root with the most visits (first in reveal
order on a tie), if it is ``deduce``'s reveal or beats it clearly: its win rate
at least :data:`CONFIDENCE` standard errors above that of ``deduce``'s reveal;
otherwise ``deduce``'s reveal.  (Measured in 3-player simple games against two
``deduce`` seats, 300 games a seat position: with ``memory`` playouts the
most-visited rule alone wins 24.1% of games, this rule 30.2%; the playouts'
``memory`` opponents are not the ``deduce`` opponents of the real game.)  One
legal reveal is played at once without a search.  When the
belief has no consistent deal within its state bound (``Z = 0``, six-player
positions) the policy returns -1 and the engine plays ``memory``.

**``ismcts-flat:N``** (playout kind :data:`FLAT`): at the first reveal of a turn
where ``deduce`` sees no sure trio, :func:`flat_choice` replaces the tree: a flat
two-stage search of ``deduce`` rollouts around ``deduce``'s reveal (selection and
test on different deals); for the rest of the turn the tree search above with
``deduce`` playouts.

**``ismcts-infer:N``** (playout kind :data:`INFER_SEARCH`): the same tree, but the
root's prior is ``infer:64``'s reveal (:mod:`.infer`: ``deduce`` on probabilities
sharpened by the opponents' logged decisions) and the determinizations are drawn from
the 64 deals ``infer`` drew for it, each with probability proportional to the weight
the opponents' decisions give it (:func:`determinize_kept`); without another seat's
decision on record, from the exact belief.  The playouts play ``deduce`` in every seat
(the model ``infer`` has of the opponents); inside the tree every seat chooses by
UCB1 as above, with ``memory``'s reveal as the prior below the root.  A reveal ``infer`` scores as a
sure trio is played without a search.  The choice rule is the one above, around
``infer``'s reveal.

Every draw comes from the game's stream (the sampler's and the playouts'), so a
game is a function of its seed.  Workspace: ``wi`` (``int64``, :func:`ws_len`)
and the tree arrays ``tree_i``/``tree_w`` (:func:`new_tree`), allocated once by
the caller.
"""

from __future__ import annotations

import math

import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.rng import game_stream
from trilab.solver.trio_cards import belief, infer
from trilab.solver.trio_cards.deduce import deduce_choice
from trilab.solver.trio_cards.rules import (
    DEDUCE,
    FORGETFUL,
    GO_ON,
    I_MIDDLE,
    I_MODE,
    I_PLAYERS,
    I_POLICY,
    I_RESWAP,
    I_TEAMS,
    I_TURN_CAP,
    MAX_ACTIONS,
    MAX_HAND,
    MAX_MIDDLE,
    MAX_PLAYERS,
    MEMORY,
    MID_BASE,
    N_VALUES,
    TRIO,
    WON,
    hand_position,
    legal_reveals,
    memory_choice,
    playout,
    reveal_step,
    turn_reveals,
    winners_mask,
)

EXPLORATION = 0.7
FIRST_PLAY = 0.5  # the value of an untried reveal
PRIOR = 1.0  # bonus of the heuristic's reveal, PRIOR / (visits + 1)
CONFIDENCE = 2.0  # the most visited reveal replaces deduce's only this many standard errors better
FLAT = 5  # playout kind of ``ismcts-flat:N``: flat deduce rollouts at a turn's first reveal
INFER_SEARCH = 6  # playout kind of ``ismcts-infer:N``: infer's deals and reveal, deduce playouts
SURE = 1.0 - 1e-9  # a reveal scored this high completes a trio for sure: no search
FLAT_CONFIDENCE = 2.5  # the flat search leaves deduce's reveal only this many paired SEs better
FLAT_FINALISTS = 4  # deduce's reveal and the best three others of the first stage

# tree_i columns: first child, next sibling, key (13 * reveal + value), visits, then
# the visits of every reveal; tree_w: the wins of every reveal
T_CHILD, T_SIBLING, T_KEY, T_VISITS, T_N = 0, 1, 2, 3, 4
TREE_COLS = T_N + MAX_ACTIONS

# wi offsets (the determinized game and the path)
W_H = 0
W_HS = W_H + MAX_PLAYERS * MAX_HAND
W_RLO = W_HS + MAX_PLAYERS
W_RHI = W_RLO + MAX_PLAYERS
W_MID = W_RHI + MAX_PLAYERS
W_MREV = W_MID + MAX_MIDDLE
W_TURN = W_MREV + MAX_MIDDLE
W_OWNER = W_TURN + 2
W_HK = W_OWNER + N_VALUES + 1
W_MK = W_HK + MAX_PLAYERS * MAX_PLAYERS * MAX_HAND
W_BND = W_MK + MAX_PLAYERS * MAX_MIDDLE
W_TACTS = W_BND + 2 * MAX_PLAYERS
W_LEGAL = W_TACTS + 3
W_CAND = W_LEGAL + MAX_ACTIONS
W_ACC = W_CAND + MAX_ACTIONS
W_LOC = W_ACC + N_VALUES + 1
W_POOL = W_LOC + N_VALUES + 1
W_PATH = W_POOL + N_VALUES + 1  # 3 entries a step: node, reveal, seat


def ws_len(budget: int) -> int:
    """Length of ``wi`` for a search of ``budget`` simulations (the path, then a saved
    determinization of ``W_LEGAL`` entries at the end for the flat search)."""
    return W_PATH + 3 * (budget + 2) + W_LEGAL


def new_tree(budget: int) -> tuple[np.ndarray, np.ndarray]:
    """``(tree_i, tree_w)`` for ``budget`` simulations (one node each, plus the root)."""
    return (np.zeros((budget + 1, TREE_COLS), np.int64),
            np.zeros((max(budget + 1, 4), MAX_ACTIONS), np.float64))


@kernel(inline="always")
def _clear_node(c: int, tree_i: np.ndarray, tree_w: np.ndarray) -> None:
    tree_i[c, T_CHILD] = -1
    tree_i[c, T_SIBLING] = -1
    tree_i[c, T_KEY] = -1
    for k in range(T_VISITS, TREE_COLS):
        tree_i[c, k] = 0
    for a in range(MAX_ACTIONS):
        tree_w[c, a] = 0.0


@kernel
def determinize(o: int, rs: np.ndarray, icfg: np.ndarray, hands: np.ndarray,
                hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray, mid: np.ndarray,
                mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray, hknow: np.ndarray,
                mknow: np.ndarray, bnd: np.ndarray, bi: np.ndarray, bf: np.ndarray,
                wi: np.ndarray) -> None:
    """A deal drawn from seat ``o``'s belief (after :func:`belief.compute`, ``Z > 0``),
    with the public state and the public records, into ``wi``.  Reads only what
    :func:`belief.sample` reads, the public arrays and the records of the others'
    reveals of ``o``'s own hand."""
    n = icfg[I_PLAYERS]
    n_mid = icfg[I_MIDDLE]
    sh = wi[W_H:W_H + MAX_PLAYERS * MAX_HAND].reshape((MAX_PLAYERS, MAX_HAND))
    sm = wi[W_MID:W_MID + MAX_MIDDLE]
    belief.sample(rs, o, n, n_mid, hands, hsize, mid, hknow, mknow, bi, bf, sh, sm)
    _public(o, icfg, hsize, rlo, rhi, mrev, turn, owner, hknow, mknow, bnd, wi)


@kernel
def determinize_kept(o: int, rs: np.ndarray, icfg: np.ndarray, hsize: np.ndarray,
                     rlo: np.ndarray, rhi: np.ndarray, mrev: np.ndarray, turn: np.ndarray,
                     owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray,
                     iw: np.ndarray, fw: np.ndarray, wi: np.ndarray) -> None:
    """:func:`determinize` with the deal drawn from those ``infer`` kept
    (:func:`infer.kept_deal`: each drawn from the exact belief, chosen by the weight the
    opponents' logged decisions give it) instead of from the exact belief."""
    sh = wi[W_H:W_H + MAX_PLAYERS * MAX_HAND].reshape((MAX_PLAYERS, MAX_HAND))
    sm = wi[W_MID:W_MID + MAX_MIDDLE]
    infer.kept_deal(rs, iw, fw, sh, sm)
    _public(o, icfg, hsize, rlo, rhi, mrev, turn, owner, hknow, mknow, bnd, wi)


@kernel
def _public(o: int, icfg: np.ndarray, hsize: np.ndarray, rlo: np.ndarray, rhi: np.ndarray,
            mrev: np.ndarray, turn: np.ndarray, owner: np.ndarray, hknow: np.ndarray,
            mknow: np.ndarray, bnd: np.ndarray, wi: np.ndarray) -> None:
    """The public state of a determinization and every seat's public records (seat
    ``o``'s records of the other hands; of ``o``'s own hand the records of the first
    other seat that does not forget) into ``wi``."""
    n = icfg[I_PLAYERS]
    n_mid = icfg[I_MIDDLE]
    for p in range(MAX_PLAYERS):
        wi[W_HS + p] = hsize[p]
        wi[W_RLO + p] = rlo[p]
        wi[W_RHI + p] = rhi[p]
        wi[W_BND + 2 * p] = bnd[p, 0]
        wi[W_BND + 2 * p + 1] = bnd[p, 1]
    for j in range(MAX_MIDDLE):
        wi[W_MREV + j] = mrev[j]
    wi[W_TURN] = turn[0]
    wi[W_TURN + 1] = turn[1]
    for v in range(N_VALUES + 1):
        wi[W_OWNER + v] = owner[v]
    witness = (o + 1) % n  # whose records of o's hand stand for the public ones
    for s in range(n):
        if s != o and icfg[I_POLICY + s] != FORGETFUL:
            witness = s
            break
    for s in range(MAX_PLAYERS):
        for q in range(MAX_PLAYERS):
            for i in range(MAX_HAND):
                r = 0
                if s < n and q < n and q != s and i < hsize[q]:
                    r = hknow[witness, o, i] if q == o else hknow[o, q, i]
                wi[W_HK + (s * MAX_PLAYERS + q) * MAX_HAND + i] = r
        for j in range(MAX_MIDDLE):
            wi[W_MK + s * MAX_MIDDLE + j] = mknow[o, j] if s < n and j < n_mid else 0


@kernel(inline="always")
def _shown(a: int, wi: np.ndarray) -> int:
    """The card reveal ``a`` shows in the determinized game."""
    if a >= MID_BASE:
        return wi[W_MID + a - MID_BASE]
    q = a >> 1
    i = hand_position(a, wi[W_HS:W_HS + MAX_PLAYERS], wi[W_RLO:W_RLO + MAX_PLAYERS],
                      wi[W_RHI:W_RHI + MAX_PLAYERS])
    return wi[W_H + q * MAX_HAND + i]


@kernel(inline="always")
def _views(wi: np.ndarray):
    """The determinized game's arrays inside ``wi`` (the module's ``W_*`` offsets): hands,
    hand sizes, low and high reveals, middle, middle reveals, turn, owners, hand and
    middle records, hand bounds, the turn's reveals, then the scratch arrays legal,
    cand, acc, loc and pool."""
    return (wi[W_H:W_H + MAX_PLAYERS * MAX_HAND].reshape((MAX_PLAYERS, MAX_HAND)),
            wi[W_HS:W_HS + MAX_PLAYERS], wi[W_RLO:W_RLO + MAX_PLAYERS],
            wi[W_RHI:W_RHI + MAX_PLAYERS], wi[W_MID:W_MID + MAX_MIDDLE],
            wi[W_MREV:W_MREV + MAX_MIDDLE], wi[W_TURN:W_TURN + 2],
            wi[W_OWNER:W_OWNER + N_VALUES + 1],
            wi[W_HK:W_HK + MAX_PLAYERS * MAX_PLAYERS * MAX_HAND].reshape(
                (MAX_PLAYERS, MAX_PLAYERS, MAX_HAND)),
            wi[W_MK:W_MK + MAX_PLAYERS * MAX_MIDDLE].reshape((MAX_PLAYERS, MAX_MIDDLE)),
            wi[W_BND:W_BND + 2 * MAX_PLAYERS].reshape((MAX_PLAYERS, 2)),
            wi[W_TACTS:W_TACTS + 3], wi[W_LEGAL:W_LEGAL + MAX_ACTIONS],
            wi[W_CAND:W_CAND + MAX_ACTIONS], wi[W_ACC:W_ACC + N_VALUES + 1],
            wi[W_LOC:W_LOC + N_VALUES + 1], wi[W_POOL:W_POOL + N_VALUES + 1])


@kernel
def _rollout(a: int, o: int, rs: np.ndarray, icfg: np.ndarray, team: np.ndarray, tn: int,
             wi: np.ndarray, save: int, bi2: np.ndarray, bf2: np.ndarray, score: np.ndarray,
             dl: np.ndarray, dh: np.ndarray, pl: np.ndarray, ph: np.ndarray,
             used: np.ndarray) -> int:
    """1 if seat ``o``'s team wins after ``o`` reveals ``a`` in the determinization saved
    at ``wi[save:]`` and every seat then plays ``deduce`` (``o`` finishing its turn), else
    0 (the turn cap included).  The working copy ``wi[:W_LEGAL]`` is overwritten."""
    n = icfg[I_PLAYERS]
    for k in range(W_LEGAL):
        wi[k] = wi[save + k]
    (sh, shs, srlo, srhi, smid, smrev, sturn, sowner, shk, smk, sbnd, stacts, slegal, scand,
     sacc, sloc, spool) = _views(wi)
    turn_reveals(n, icfg[I_MIDDLE], srlo, srhi, smrev, stacts)
    status, _ = reveal_step(a, o, icfg, team, sh, shs, srlo, srhi, smid, smrev, sturn, sowner,
                            shk, smk, sbnd, stacts, sacc, True, np.uint64(0))
    if status >= WON:
        return (winners_mask(n, team, team[o]) >> o) & 1
    t = tn if status == GO_ON else tn + 1
    if t >= icfg[I_TURN_CAP]:
        return 0
    winners = playout(rs, DEDUCE, icfg, team, t, sh, shs, srlo, srhi, smid, smrev, sturn,
                      sowner, shk, smk, sbnd, stacts, slegal, scand, sacc, sloc, spool, bi2, bf2,
                      score, dl, dh, pl, ph, used)
    return (winners >> o) & 1


@kernel
def flat_choice(o: int, rs: np.ndarray, budget: int, icfg: np.ndarray, team: np.ndarray,
                tn: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                rhi: np.ndarray, mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray,
                owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray,
                legal: np.ndarray, n_legal: int, hint: int, bi: np.ndarray, bf: np.ndarray,
                wi: np.ndarray, tree_w: np.ndarray, bi2: np.ndarray, bf2: np.ndarray,
                score: np.ndarray, dl: np.ndarray, dh: np.ndarray, pl: np.ndarray,
                ph: np.ndarray, used: np.ndarray) -> int:
    """Seat ``o``'s first reveal of a turn by a flat two-stage search around ``deduce``'s
    reveal ``hint`` (the ``ismcts-flat:N`` policy; ``bi``/``bf`` hold the belief).

    Stage 1: on ``max(1, budget // 4)`` determinizations every legal reveal is rolled out
    (:func:`_rollout`: the reveal, then ``deduce`` for every seat to the end).  Stage 2:
    ``hint`` and the :data:`FLAT_FINALISTS` - 1 other reveals with the most stage-1 wins
    are rolled out on ``budget`` fresh determinizations, each on the same deals, and the
    result of each is paired with ``hint``'s.  The finalist with the best mean paired
    gain replaces ``hint`` only if that gain exceeds :data:`FLAT_CONFIDENCE` standard
    errors; otherwise ``hint`` is played.  ``tree_w`` rows 0-3 hold the counts (stage-1
    wins, paired gain sums and squares, finalist marks); ``wi[-W_LEGAL:]`` the saved
    determinization."""
    save = wi.shape[0] - W_LEGAL
    for r in range(4):
        for x in range(MAX_ACTIONS):
            tree_w[r, x] = 0.0
    for _ in range(max(1, budget // 4)):
        determinize(o, rs, icfg, hands, hsize, rlo, rhi, mid, mrev, turn, owner, hknow, mknow,
                    bnd, bi, bf, wi)
        for k in range(W_LEGAL):
            wi[save + k] = wi[k]
        for k in range(n_legal):
            x = legal[k]
            tree_w[0, x] += _rollout(x, o, rs, icfg, team, tn, wi, save, bi2, bf2, score, dl,
                                     dh, pl, ph, used)
    tree_w[3, hint] = 1.0
    for _ in range(FLAT_FINALISTS - 1):
        pick = -1
        for k in range(n_legal):
            x = legal[k]
            if tree_w[3, x] == 0.0 and (pick < 0 or tree_w[0, x] > tree_w[0, pick]):
                pick = x
        if pick < 0:
            break
        tree_w[3, pick] = 1.0
    for _ in range(budget):
        determinize(o, rs, icfg, hands, hsize, rlo, rhi, mid, mrev, turn, owner, hknow, mknow,
                    bnd, bi, bf, wi)
        for k in range(W_LEGAL):
            wi[save + k] = wi[k]
        base = _rollout(hint, o, rs, icfg, team, tn, wi, save, bi2, bf2, score, dl, dh, pl,
                        ph, used)
        for k in range(n_legal):
            x = legal[k]
            if x == hint or tree_w[3, x] == 0.0:
                continue
            d = _rollout(x, o, rs, icfg, team, tn, wi, save, bi2, bf2, score, dl, dh, pl, ph,
                         used) - base
            tree_w[1, x] += d
            tree_w[2, x] += d * d
    choice = hint
    gain = 0.0
    for k in range(n_legal):
        x = legal[k]
        if x != hint and tree_w[3, x] != 0.0 and tree_w[1, x] / budget > gain:
            gain = tree_w[1, x] / budget
            choice = x
    if choice == hint or budget < 2:
        return hint
    var = (tree_w[2, choice] - budget * gain * gain) / (budget - 1)
    se = math.sqrt(max(var, 0.0) / budget)
    return choice if gain > FLAT_CONFIDENCE * se else hint


@kernel
def ismcts_choice(o: int, rs: np.ndarray, budget: int, icfg: np.ndarray, team: np.ndarray,
                  tn: int, hands: np.ndarray, hsize: np.ndarray, rlo: np.ndarray,
                  rhi: np.ndarray, mid: np.ndarray, mrev: np.ndarray, turn: np.ndarray,
                  owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray, bnd: np.ndarray,
                  legal: np.ndarray, n_legal: int, bi: np.ndarray, bf: np.ndarray,
                  wi: np.ndarray, tree_i: np.ndarray, tree_w: np.ndarray, kind: int,
                  bi2: np.ndarray, bf2: np.ndarray, score: np.ndarray, dl: np.ndarray,
                  dh: np.ndarray, pl: np.ndarray, ph: np.ndarray, used: np.ndarray,
                  snap: np.ndarray, n_snap: int, iw: np.ndarray, fw: np.ndarray) -> int:
    """Seat ``o``'s reveal at turn ``tn`` after ``budget`` ISMCTS iterations (module
    docstring); -1 when its belief has no consistent deal.  ``snap``/``n_snap`` (the
    decision log), ``iw`` and ``fw`` are :mod:`.infer`'s, read by ``ismcts-infer``."""
    if n_legal == 1:
        return legal[0]
    n = icfg[I_PLAYERS]
    n_mid = icfg[I_MIDDLE]
    mode = icfg[I_MODE]
    kept = False
    if kind == INFER_SEARCH:
        root_hint = infer.infer_choice(o, rs, infer.KEPT_DEALS, team, mode, n, n_mid, hands,
                                       hsize, rlo, rhi, mid, mrev, turn, owner, hknow, mknow,
                                       bnd, legal, n_legal, bi, bf, bi2, bf2, score, dl, dh,
                                       pl, ph, used, snap, n_snap, iw, fw, True, True)
        if root_hint < 0:
            return -1
        for k in range(n_legal):
            if score[k] >= SURE:
                return root_hint
        kept = iw[infer.O_N_KEPT] > 0
        kind = DEDUCE
    else:
        root_hint = deduce_choice(o, team[o], mode, n, n_mid, hands, hsize, rlo, rhi, mid,
                                  mrev, turn, owner, hknow, mknow, bnd, legal, n_legal, bi, bf,
                                  score, dl, dh, pl, ph, used)
    if root_hint < 0:  # the belief has no deal (bi, bf keep the belief for the sampler)
        return -1
    if kind == FLAT:
        sure = 0.0
        for k in range(n_legal):
            sure = max(sure, score[k])
        if turn[0] == 0 and sure < 1.0 - 1e-9:  # a turn's first reveal, no sure trio
            return flat_choice(o, rs, budget, icfg, team, tn, hands, hsize, rlo, rhi, mid,
                               mrev, turn, owner, hknow, mknow, bnd, legal, n_legal, root_hint,
                               bi, bf, wi, tree_w, bi2, bf2, score, dl, dh, pl, ph, used)
        kind = DEDUCE
    cap = tree_i.shape[0]
    swaps = icfg[I_TEAMS] != 0 and icfg[I_RESWAP] != 0
    (sh, shs, srlo, srhi, smid, smrev, sturn, sowner, shk, smk, sbnd, stacts, slegal, scand,
     sacc, sloc, spool) = _views(wi)
    _clear_node(0, tree_i, tree_w)
    nodes = 1
    for _ in range(budget):
        if kept:
            determinize_kept(o, rs, icfg, hsize, rlo, rhi, mrev, turn, owner, hknow, mknow,
                             bnd, iw, fw, wi)
        else:
            determinize(o, rs, icfg, hands, hsize, rlo, rhi, mid, mrev, turn, owner, hknow,
                        mknow, bnd, bi, bf, wi)
        turn_reveals(n, n_mid, srlo, srhi, smrev, stacts)
        node = 0
        t = tn
        depth = 0
        status = GO_ON
        while True:
            nl = legal_reveals(n, n_mid, shs, srlo, srhi, smid, smrev, slegal)
            p = t % n
            if node == 0:
                hint = root_hint
            else:
                hint = memory_choice(p, rs, team[p], mode, n, n_mid, sh, shs, srlo, srhi, smid,
                                     smrev, sturn, sowner, shk, smk, slegal, nl, scand, sacc,
                                     sloc, spool)
            a = -1
            best = -1.0
            log_n = math.log(max(tree_i[node, T_VISITS], 1))
            for k in range(nl):
                x = slegal[k]
                nv = tree_i[node, T_N + x]
                if nv == 0:
                    u = FIRST_PLAY
                else:
                    u = tree_w[node, x] / nv + EXPLORATION * math.sqrt(log_n / nv)
                if x == hint:
                    u += PRIOR / (nv + 1)
                if u > best:
                    best = u
                    a = x
            untried = tree_i[node, T_N + a] == 0
            v = _shown(a, wi)
            wi[W_PATH + 3 * depth] = node
            wi[W_PATH + 3 * depth + 1] = a
            wi[W_PATH + 3 * depth + 2] = p
            depth += 1
            status, _ = reveal_step(a, p, icfg, team, sh, shs, srlo, srhi, smid, smrev, sturn,
                                    sowner, shk, smk, sbnd, stacts, sacc, True, np.uint64(0))
            if status >= WON:
                break
            if status != GO_ON:
                t += 1
                if t >= icfg[I_TURN_CAP]:
                    break
            key = (N_VALUES + 1) * a + v
            c = tree_i[node, T_CHILD]
            while c >= 0 and tree_i[c, T_KEY] != key:
                c = tree_i[c, T_SIBLING]
            if c < 0:
                if nodes < cap:
                    c = nodes
                    nodes += 1
                    _clear_node(c, tree_i, tree_w)
                    tree_i[c, T_KEY] = key
                    tree_i[c, T_SIBLING] = tree_i[node, T_CHILD]
                    tree_i[node, T_CHILD] = c
                break
            node = c
            if untried or (swaps and status == TRIO):
                break
        winners = 0
        if status >= WON:
            winners = winners_mask(n, team, team[wi[W_PATH + 3 * (depth - 1) + 2]])
        elif t < icfg[I_TURN_CAP]:
            winners = playout(rs, kind, icfg, team, t, sh, shs, srlo, srhi, smid, smrev,
                              sturn, sowner, shk, smk, sbnd, stacts, slegal, scand, sacc, sloc,
                              spool, bi2, bf2, score, dl, dh, pl, ph, used)
        for k in range(depth):
            nd = wi[W_PATH + 3 * k]
            a = wi[W_PATH + 3 * k + 1]
            tree_i[nd, T_VISITS] += 1
            tree_i[nd, T_N + a] += 1
            if (winners >> wi[W_PATH + 3 * k + 2]) & 1:
                tree_w[nd, a] += 1.0
    a = legal[0]
    most = -1
    for k in range(n_legal):
        x = legal[k]
        if tree_i[0, T_N + x] > most:
            most = tree_i[0, T_N + x]
            a = x
    if a == root_hint or CONFIDENCE <= 0.0:
        return a
    # leave deduce's reveal only for a clearly better one
    nh = tree_i[0, T_N + root_hint]
    na = tree_i[0, T_N + a]
    if nh == 0:
        return a
    mh = tree_w[0, root_hint] / nh
    ma = tree_w[0, a] / na
    se = math.sqrt(max(ma * (1.0 - ma), 0.25 / na) / na + max(mh * (1.0 - mh), 0.25 / nh) / nh)
    return a if ma - mh > CONFIDENCE * se else root_hint


# ---------------------------------------------------------------- Python helper (tests, tools)


def _run(icfg: np.ndarray, team: np.ndarray, state, bnd: np.ndarray, o: int, tn: int,
         budget: int, seed: int, game: int, kind: int, snap: np.ndarray | None = None,
         n_snap: int = 0):
    """``ismcts_choice`` on fresh workspaces (and the decision log ``snap``, ``n_snap``
    of :mod:`.infer`, empty by default): ``(choice, tree_i, tree_w)``."""
    if snap is None:
        snap = np.zeros((infer.MAX_SNAP, infer.SNAP_W), np.int64)
    _, iw, fw = infer.new_workspace()
    legal = np.zeros(MAX_ACTIONS, np.int64)
    n_legal = legal_reveals(int(icfg[I_PLAYERS]), int(icfg[I_MIDDLE]), state.hsize, state.rlo,
                            state.rhi, state.mid, state.mrev, legal)
    bi, bf = belief.new_workspace()
    bi2, bf2 = belief.new_workspace()
    wi = np.zeros(ws_len(budget), np.int64)
    tree_i, tree_w = new_tree(budget)
    z6 = np.zeros(MAX_PLAYERS, np.int64)
    choice = ismcts_choice(
        o, game_stream(np.uint64(seed), np.uint64(game)), budget, icfg, team, tn, state.hands,
        state.hsize, state.rlo, state.rhi, state.mid, state.mrev, state.turn, state.owner,
        state.hknow, state.mknow, bnd, legal, n_legal, bi, bf, wi, tree_i, tree_w, kind, bi2,
        bf2, np.zeros(MAX_ACTIONS), z6, z6.copy(), np.zeros(MAX_PLAYERS),
        np.zeros(MAX_PLAYERS), np.zeros(MAX_MIDDLE, np.int64), snap, n_snap, iw, fw)
    return int(choice), tree_i, tree_w


def search(icfg: np.ndarray, team: np.ndarray, state, bnd: np.ndarray, o: int, tn: int,
           budget: int, seed: int = 0, game: int = 0, kind: int = MEMORY,
           snap: np.ndarray | None = None, n_snap: int = 0):
    """Seat ``o``'s ISMCTS at turn ``tn`` in ``state`` (a
    :class:`trilab.solver.trio_cards.game.EngineState`) with hand bounds ``bnd`` and the
    decision log ``snap``/``n_snap`` (read by ``ismcts-infer``), drawing from the stream
    ``(seed, game)``: ``(choice, visits, wins)``, the root's visits and wins per reveal
    code (zeros when no search ran)."""
    choice, tree_i, tree_w = _run(icfg, team, state, bnd, o, tn, budget, seed, game, kind,
                                  snap, n_snap)
    return choice, tree_i[0, T_N:].copy(), tree_w[0].copy()


def flat_search(icfg: np.ndarray, team: np.ndarray, state, bnd: np.ndarray, o: int, tn: int,
                budget: int, seed: int = 0, game: int = 0):
    """Seat ``o``'s ``ismcts-flat`` choice at turn ``tn`` in ``state`` with hand bounds
    ``bnd``, drawing from the stream ``(seed, game)``: ``(choice, counts, visits)``:
    ``counts`` the flat search's rows of :func:`flat_choice` (stage-1 wins, paired gain
    sums and squares, finalist marks; each ``MAX_ACTIONS`` long) and ``visits`` the tree
    root's visits per reveal (non-zero when the tree search ran instead)."""
    choice, tree_i, tree_w = _run(icfg, team, state, bnd, o, tn, budget, seed, game, FLAT)
    return choice, tree_w[:4].copy(), tree_i[0, T_N:].copy()
