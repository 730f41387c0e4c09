"""What one seat of a Trio card game can know about the hidden cards, exactly.

The belief of seat ``o`` is built only from what ``o`` has seen: its own hand,
its records (``hknow[o]``, ``mknow[o]``: every public reveal still in place,
kept exact by the engine), the public *hand bounds* ``bnd[q] = (lo, hi)``
(a trio of ``v`` that took cards from the low end of hand ``q`` leaves only
cards ``>= v`` there, from the high end only cards ``<= v``: the records of
those cards left with them, so the engine keeps these two numbers a hand;
a team swap resets them to ``(1, 12)``), the hand sizes, which middle slots still hold a
card, the trios taken (``owner``) and the three copies of every value.  It
never reads another hand's cards or a middle card's value (``tests/
test_trio_belief.py`` changes only hidden cards and checks the belief's
output does not change).

**The model.**  A deal is uniform over the shuffles of 36 *distinguishable*
cards (three copies of each value), so a complete assignment of the hidden
cards is as likely as the number of shuffles that produce it; given what the
seat saw (every reveal is a deterministic function of the deal), the
posterior is that prior restricted to the consistent assignments.  Counting
shuffles, an assignment in which hand ``q`` holds ``m[q, v]`` copies of ``v``
(its known cards included) and the face-down middle holds ``x[v]`` unknown
copies of ``v`` has weight ``prod_q prod_v 1 / m[q, v]! * prod_v 1 / x[v]!``
(the hands are sets: which copy of a value a hand holds is invisible).  The
choice made by the other players is *not* used as evidence (the usual
determinization assumption): only what the cards showed.

**Containers.**  The unknown positions of another hand form *gaps*: maximal
runs of positions whose value the seat does not know; because hands are
sorted, a gap between known values ``L`` and ``U`` (the hand's bounds at the ends)
holds a sorted run of values in ``[L, U]``, and a gap is entirely described
by how many copies of each value it holds.  The unknown face-down middle
cards form one *pool* (values 1..12; which slot holds which of the pool's
cards is a uniform random permutation).  The unknown cards are the copies of
each value that are in no trio, not in the seat's hand and in no record.

**Dynamic programme over values.**  Values are placed in increasing order:
placing value ``v`` distributes its unknown copies among the containers
whose interval contains ``v`` (at most three a hand, plus the pool), a
container leaving the programme full at its upper value.  The state after
value ``v`` is the fill of the containers active at ``v`` (one of them,
the largest, derived from the total).  A backward pass computes the weight
of every completion; sampling goes forward, drawing each value's placement
in proportion to its weight times the completions; marginals come from a
forward pass times the backward weights.  The placements of each value do not
depend on the state, so they are listed once per belief (:func:`_build_combos`:
the containers each touches, its weight, what it adds to the state index and
its *copy masks*, bit ``i`` of field ``a`` set when the layer's active
container ``i`` gets more than ``a`` copies); expanding a state makes the
same masks of the room each container has left (:func:`_prepare`), so a
placement is tested with two mask operations.  The passes walk the valid
states of a layer with an odometer over the fills (:func:`_first_state`,
:func:`_next_state`: no division; a container that ends at the layer's value
stays full and no fill goes past the layer's total, so few invalid states are
even proposed), in increasing index order.  Both give the same sums in the same order as
decoding every index and adding every placement's copies: bit-identical
beliefs and deals (``tests/test_trio_belief.py`` checks the walk and the
test against the definition).  Every draw comes from the game's
stream (``uniform``/``below``), so a sampled deal is a function of the seed.

**Limits.**  (1) Team play: the engine erases everybody's records of both
swapping hands at a team swap, and the belief uses the records, so it also
forgets what it knew of those hands (it never adds information; it does not
deduce from the gift rule nor remember what its partner was given).  (2) The
state space is bounded (``CAP`` states over all values); a position that
would exceed it returns "no belief" (``Z = 0``) and the policies fall back
to the ``memory`` rules.  Three-player games stay below a few hundred states
a value; six players below a few tens of thousands.

Workspace: two flat arrays, ``bi`` (``int64``, :data:`BI_LEN`) and ``bf``
(``float64``, :data:`BF_LEN`), allocated once by the caller (kernels
allocate nothing), with the fixed offsets below.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver.jit import kernel
from trilab.solver.rng import below, game_stream, uniform

N_VALUES = 12
COPIES = 3
MAX_PLAYERS = 6
MAX_HAND = 9
MAX_MIDDLE = 9
POOL = MAX_PLAYERS  # group of the middle pool
N_GROUPS = MAX_PLAYERS + 1
N_LAYERS = N_VALUES + 1  # layer v = after placing the values 1..v
MAXC = 48  # containers: at most 5 hands x 5 gaps + the pool
CAP = 1 << 18  # DP states over all layers

# bi offsets (int64 workspace)
C_START = 0
C_K = C_START + MAXC
C_L = C_K + MAXC
C_U = C_L + MAXC
C_G = C_U + MAXC
KN = C_G + MAXC  # KN + 13 g + v: known copies of v in group g
CNT = KN + N_GROUPS * (N_VALUES + 1)  # CNT + v: unknown copies of v
L_NA = CNT + N_VALUES + 1  # non-derived active containers of layer v
L_NALL = L_NA + N_LAYERS  # all active containers of layer v
L_DER = L_NALL + N_LAYERS  # the derived container of layer v (-1: none)
L_SIZE = L_DER + N_LAYERS
L_OFF = L_SIZE + N_LAYERS  # N_LAYERS + 1 entries
L_RET = L_OFF + N_LAYERS + 1  # capacity of the containers retired before layer v
L_PRE = L_RET + N_LAYERS  # unknown cards of values 1..v
L_ACT = L_PRE + N_LAYERS  # L_ACT + MAXC v + i
L_ALL = L_ACT + N_LAYERS * MAXC
L_STR = L_ALL + N_LAYERS * MAXC
FILL = L_STR + N_LAYERS * MAXC
IDX = FILL + MAXC
GX = IDX + 4
POOL_SLOTS = GX + N_GROUPS
POOL_VALS = POOL_SLOTS + MAX_MIDDLE
META = POOL_VALS + MAX_MIDDLE  # META: containers, META + 1: pool slots
ODO = META + 2  # ODO: fill total of the state being visited (_first_state/_next_state)
L_CMB = ODO + 1  # L_CMB + v: first placement of value v in the table (N_LAYERS + 1)
CMB = L_CMB + N_LAYERS + 1  # CMB + CMB_W * j: placement j (see _build_combos)
CMB_W = 9  # touched containers, (container, copies) x 3, state-index delta, copy masks
MASK_BITS = 20  # a copy mask: one bit per active container of the layer (at most 16)
NEVER_BIT = 1 << (COPIES * MASK_BITS)  # in no copy mask: a need no placement meets
MAX_COMBOS = 1 << 14  # placements over all values (at most 3 copies in <= 16 containers)
BI_LEN = CMB + CMB_W * MAX_COMBOS

# bf offsets (float64 workspace)
B_OFF = 0
F_OFF = CAP
MARG = 2 * CAP  # MARG + (13 * MAX_HAND) g + 13 i + v: P(position i of hand g is v)
PMARG = MARG + N_GROUPS * MAX_HAND * (N_VALUES + 1)  # PMARG + v: P(an unknown middle card is v)
Z_AT = PMARG + N_VALUES + 1
W_CMB = Z_AT + 1  # W_CMB + j: the weight of placement j
BF_LEN = W_CMB + MAX_COMBOS


def new_workspace() -> tuple[np.ndarray, np.ndarray]:
    """``(bi, bf)``: the belief's workspace."""
    return np.zeros(BI_LEN, dtype=np.int64), np.zeros(BF_LEN, dtype=np.float64)


# ---------------------------------------------------------------- building


@kernel
def build(o: int, n_players: int, n_mid: int, hands: np.ndarray, hsize: np.ndarray,
          mid: np.ndarray, owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray,
          bnd: np.ndarray, bi: np.ndarray) -> bool:
    """Containers, unknown counts and DP layers of seat ``o``; False if over ``CAP``.

    Reads ``hands[o]`` (its own hand), ``hsize``, ``mid != 0`` (which slots hold
    a card, not their values), ``owner`` and the records of ``o`` only.
    """
    for g in range(N_GROUPS):
        for v in range(N_VALUES + 1):
            bi[KN + 13 * g + v] = 0
    for v in range(N_VALUES + 1):
        bi[CNT + v] = 0 if v == 0 or owner[v] >= 0 else COPIES
    for i in range(hsize[o]):
        bi[CNT + hands[o, i]] -= 1
    nc = 0
    for q in range(n_players):
        if q == o:
            continue
        h = hsize[q]
        i = 0
        prev = bnd[q, 0]
        while i < h:
            r = hknow[o, q, i]
            if r != 0:
                bi[KN + 13 * q + r] += 1
                bi[CNT + r] -= 1
                prev = r
                i += 1
                continue
            j = i
            while j < h and hknow[o, q, j] == 0:
                j += 1
            bi[C_START + nc] = i
            bi[C_K + nc] = j - i
            bi[C_L + nc] = prev
            bi[C_U + nc] = hknow[o, q, j] if j < h else bnd[q, 1]
            bi[C_G + nc] = q
            nc += 1
            i = j
    npool = 0
    for j in range(n_mid):
        if mid[j] == 0:
            continue
        if mknow[o, j] != 0:
            bi[CNT + mknow[o, j]] -= 1
        else:
            bi[POOL_SLOTS + npool] = j
            npool += 1
    if npool > 0:
        bi[C_START + nc] = 0
        bi[C_K + nc] = npool
        bi[C_L + nc] = 1
        bi[C_U + nc] = N_VALUES
        bi[C_G + nc] = POOL
        nc += 1
    bi[META] = nc
    bi[META + 1] = npool
    # layers
    bi[L_OFF] = 0
    pre = 0
    for v in range(N_LAYERS):
        if v > 0:
            pre += bi[CNT + v]
        bi[L_PRE + v] = pre
        ret = 0
        nall = 0
        der = -1
        for c in range(nc):
            if bi[C_U + c] < v:
                ret += bi[C_K + c]
            elif v >= 1 and bi[C_L + c] <= v:
                bi[L_ALL + MAXC * v + nall] = c
                nall += 1
                if der < 0 or bi[C_K + c] > bi[C_K + der]:
                    der = c
        bi[L_RET + v] = ret
        if nall > MASK_BITS:  # not met: at most three containers a hand, plus the pool
            return False
        bi[L_NALL + v] = nall
        bi[L_DER + v] = der
        na = 0
        size = 1
        for i in range(nall):
            c = bi[L_ALL + MAXC * v + i]
            if c == der:
                continue
            bi[L_ACT + MAXC * v + na] = c
            bi[L_STR + MAXC * v + na] = size
            size *= bi[C_K + c] + 1
            na += 1
            if size > CAP:
                return False
        bi[L_NA + v] = na
        bi[L_SIZE + v] = size
        bi[L_OFF + v + 1] = bi[L_OFF + v] + size
        if bi[L_OFF + v + 1] > CAP:
            return False
    for v in range(1, N_VALUES + 1):
        if bi[CNT + v] < 0:
            return False
    return True


@kernel(inline="always")
def _decode(v: int, s: int, bi: np.ndarray) -> bool:
    """Fills of layer ``v``'s containers for state ``s`` into ``FILL``; False if invalid."""
    tot = 0
    for i in range(bi[L_NA + v]):
        c = bi[L_ACT + MAXC * v + i]
        f = (s // bi[L_STR + MAXC * v + i]) % (bi[C_K + c] + 1)
        bi[FILL + c] = f
        tot += f
    d = bi[L_DER + v]
    if d >= 0:
        f = bi[L_PRE + v] - bi[L_RET + v] - tot
        if f < 0 or f > bi[C_K + d]:
            return False
        bi[FILL + d] = f
    elif bi[L_PRE + v] - bi[L_RET + v] != tot:
        return False
    for i in range(bi[L_NALL + v]):  # a container leaves full at its upper value
        c = bi[L_ALL + MAXC * v + i]
        if bi[C_U + c] == v and bi[FILL + c] != bi[C_K + c]:
            return False
    return True


@kernel(inline="always")
def _settle(v: int, bi: np.ndarray) -> bool:
    """Completes the state of layer ``v`` whose non-derived fills are in ``FILL`` (their
    total in ``ODO``): the derived container's fill; False if the state is invalid."""
    d = bi[L_DER + v]
    rest = bi[L_PRE + v] - bi[L_RET + v] - bi[ODO]
    if d < 0:
        return rest == 0
    if rest < 0 or rest > bi[C_K + d] or (bi[C_U + d] == v and rest != bi[C_K + d]):
        return False
    bi[FILL + d] = rest
    return True


@kernel(inline="always")
def _next_state(v: int, s: int, bi: np.ndarray) -> int:
    """The next valid state of layer ``v`` after state ``s`` (fills in ``FILL``, as
    :func:`_decode` would set them), or -1.  An odometer over the non-derived fills,
    lowest stride first, so states come in increasing order (the same accumulation
    order as testing every index) and invalid ones are skipped without a division:
    a container ending at ``v`` stays full, and no fill is raised past the total
    the layer holds."""
    top = bi[L_PRE + v] - bi[L_RET + v]
    while True:
        i = 0
        na = bi[L_NA + v]
        while i < na:
            c = bi[L_ACT + MAXC * v + i]
            if bi[FILL + c] < bi[C_K + c] and bi[ODO] < top:
                bi[FILL + c] += 1
                bi[ODO] += 1
                s += bi[L_STR + MAXC * v + i]
                break
            lo = bi[C_K + c] if bi[C_U + c] == v else 0
            ex = bi[FILL + c] - lo
            bi[FILL + c] = lo
            bi[ODO] -= ex
            s -= ex * bi[L_STR + MAXC * v + i]
            i += 1
        if i == na:
            return -1
        if _settle(v, bi):
            return s


@kernel(inline="always")
def _first_state(v: int, bi: np.ndarray) -> int:
    """The first valid state of layer ``v`` (fills in ``FILL``), or -1."""
    s = 0
    tot = 0
    for i in range(bi[L_NA + v]):
        c = bi[L_ACT + MAXC * v + i]
        lo = bi[C_K + c] if bi[C_U + c] == v else 0
        bi[FILL + c] = lo
        tot += lo
        s += lo * bi[L_STR + MAXC * v + i]
    bi[ODO] = tot
    if tot > bi[L_PRE + v] - bi[L_RET + v]:
        return -1
    if _settle(v, bi):
        return s
    return _next_state(v, s, bi)


@kernel(inline="always")
def _first_combo(v: int, bi: np.ndarray) -> bool:
    """First placement of the unknown copies of ``v`` (``IDX``: a non-decreasing
    list of indices into layer ``v``'s active containers)."""
    k = bi[CNT + v]
    if k > 0 and bi[L_NALL + v] == 0:
        return False
    for t in range(k):
        bi[IDX + t] = 0
    return True


@kernel(inline="always")
def _next_combo(v: int, bi: np.ndarray) -> bool:
    k = bi[CNT + v]
    na = bi[L_NALL + v]
    t = k - 1
    while t >= 0 and bi[IDX + t] == na - 1:
        t -= 1
    if t < 0:
        return False
    x = bi[IDX + t] + 1
    for u in range(t, k):
        bi[IDX + u] = x
    return True


@kernel
def _build_combos(bi: np.ndarray, bf: np.ndarray) -> bool:
    """The placements of every value, once for all states: for placement ``j`` of the
    unknown copies of ``v`` (in :func:`_next_combo`'s order) the containers it touches
    with their copies, its weight ``prod_g 1 / ((kn + 1) ... (kn + x))`` (``x`` copies
    of ``v`` added to group ``g``, which holds ``kn`` known ones) and what it adds to
    the state index of layer ``v``.  False if the table is full (not met: at most three
    copies go to at most 16 containers a value)."""
    j = 0
    for v in range(1, N_VALUES + 1):
        bi[L_CMB + v] = j
        ok = _first_combo(v, bi)
        while ok:
            if j == MAX_COMBOS:
                return False
            row = CMB + CMB_W * j
            for g in range(N_GROUPS):
                bi[GX + g] = 0
            nt = 0
            last = -1
            for t in range(bi[CNT + v]):
                c = bi[L_ALL + MAXC * v + bi[IDX + t]]
                bi[GX + bi[C_G + c]] += 1
                if c != last:
                    bi[row + 1 + 2 * nt] = c
                    bi[row + 2 + 2 * nt] = 0
                    nt += 1
                    last = c
                bi[row + 2 * nt] += 1
            bi[row] = nt
            w = 1.0
            for g in range(N_GROUPS):
                x = bi[GX + g]
                kn = bi[KN + 13 * g + v]
                for t in range(1, x + 1):
                    w /= kn + t
            bf[W_CMB + j] = w
            delta = 0
            for i in range(bi[L_NA + v]):
                c = bi[L_ACT + MAXC * v + i]
                for u in range(nt):
                    if bi[row + 1 + 2 * u] == c:
                        delta += bi[L_STR + MAXC * v + i] * bi[row + 2 + 2 * u]
            bi[row + 7] = delta
            # copy masks: bit i of field a - 1 set when active container i gets >= a copies
            tm = 0
            for t in range(bi[CNT + v]):
                i = bi[IDX + t]
                got = 0
                for u in range(t):
                    if bi[IDX + u] == i:
                        got += 1
                tm |= 1 << (MASK_BITS * got + i)
            bi[row + 8] = tm
            j += 1
            ok = _next_combo(v, bi)  # none when no container takes v: a dead end
    bi[L_CMB + N_VALUES + 1] = j
    return True


@kernel(inline="always")
def _prepare(v: int, bi: np.ndarray) -> tuple[int, int, int]:
    """For the state of layer ``v - 1`` in ``FILL`` (new containers at 0): the state
    index of layer ``v`` before any copy of ``v`` is placed, and two masks over the
    layer's active containers (``L_ALL`` order), in the copy masks' layout: ``room``
    (field ``a``, bit ``i``: container ``i`` can take more than ``a`` copies) and
    ``must`` (the same, for the containers that end at ``v``: they leave full, so
    they must take exactly their room; a room above the copies of a value cannot be
    met, marked by :data:`NEVER_BIT`, which no placement has)."""
    base = 0
    room = 0
    must = 0
    for i in range(bi[L_NALL + v]):
        c = bi[L_ALL + MAXC * v + i]
        spare = bi[C_K + c] - bi[FILL + c]
        bits = 0
        for a in range(min(spare, COPIES)):
            bits |= 1 << (MASK_BITS * a + i)
        room |= bits
        if bi[C_U + c] == v:
            must |= bits
            if spare > COPIES:
                must |= NEVER_BIT
    for i in range(bi[L_NA + v]):
        base += bi[L_STR + MAXC * v + i] * bi[FILL + bi[L_ACT + MAXC * v + i]]
    return base, room, must


@kernel(inline="always")
def _combo_state(j: int, base: int, room: int, must: int, bi: np.ndarray) -> int:
    """The state of layer ``v`` placement ``j`` leads to from the prepared state, or -1:
    a container overflows (a copy bit outside ``room``; its copies are at most its room,
    so a container that ends at ``v`` takes exactly its room when it sets every bit of
    ``must``) or one that ends at ``v`` is not left full (a ``must`` bit it does not set)."""
    row = CMB + CMB_W * j
    tm = bi[row + 8]
    if (tm & ~room) != 0 or (must & ~tm) != 0:
        return -1
    return base + bi[row + 7]


@kernel(inline="always")
def _start_layer(v: int, bi: np.ndarray) -> None:
    """Containers entering at layer ``v`` start empty."""
    for i in range(bi[L_NALL + v]):
        c = bi[L_ALL + MAXC * v + i]
        if bi[C_L + c] == v:
            bi[FILL + c] = 0


@kernel
def backward(bi: np.ndarray, bf: np.ndarray) -> float:
    """Completion weights ``B`` of every state; returns ``Z`` (0: no consistent deal)."""
    for t in range(bi[L_OFF + N_LAYERS]):
        bf[B_OFF + t] = 0.0  # invalid states stay 0
    top = N_VALUES
    off = bi[L_OFF + top]
    s = _first_state(top, bi)
    while s >= 0:
        bf[B_OFF + off + s] = 1.0
        s = _next_state(top, s, bi)
    for v in range(top - 1, -1, -1):
        off = bi[L_OFF + v]
        noff = bi[L_OFF + v + 1]
        s = _first_state(v, bi)
        while s >= 0:
            tot = 0.0
            _start_layer(v + 1, bi)
            base, room, must = _prepare(v + 1, bi)
            for j in range(bi[L_CMB + v + 1], bi[L_CMB + v + 2]):
                s2 = _combo_state(j, base, room, must, bi)
                if s2 >= 0:
                    tot += bf[W_CMB + j] * bf[B_OFF + noff + s2]
            bf[B_OFF + off + s] = tot
            s = _next_state(v, s, bi)
    z = bf[B_OFF + bi[L_OFF]]
    bf[Z_AT] = z
    return z


@kernel
def marginals(bi: np.ndarray, bf: np.ndarray) -> None:
    """``MARG`` (hand positions) and ``PMARG`` (an unknown middle card) after :func:`backward`."""
    for t in range(N_GROUPS * MAX_HAND * (N_VALUES + 1) + N_VALUES + 1):
        bf[MARG + t] = 0.0
    z = bf[Z_AT]
    if z <= 0.0:
        return
    for t in range(bi[L_OFF + N_LAYERS]):
        bf[F_OFF + t] = 0.0
    bf[F_OFF + bi[L_OFF]] = 1.0
    npool = bi[META + 1]
    for v in range(1, N_VALUES + 1):
        off = bi[L_OFF + v - 1]
        noff = bi[L_OFF + v]
        s = _first_state(v - 1, bi)
        while s >= 0:
            fw = bf[F_OFF + off + s]
            if fw == 0.0:
                s = _next_state(v - 1, s, bi)
                continue
            _start_layer(v, bi)
            base, room, must = _prepare(v, bi)
            for j in range(bi[L_CMB + v], bi[L_CMB + v + 1]):
                s2 = _combo_state(j, base, room, must, bi)
                if s2 >= 0:
                    bw = bf[B_OFF + noff + s2]
                    if bw > 0.0:
                        w = bf[W_CMB + j]
                        bf[F_OFF + noff + s2] += fw * w
                        p = fw * w * bw / z
                        row = CMB + CMB_W * j
                        for u in range(bi[row]):
                            c = bi[row + 1 + 2 * u]
                            a = bi[row + 2 + 2 * u]
                            g = bi[C_G + c]
                            if g == POOL:
                                bf[PMARG + v] += p * a / npool
                                continue
                            at = bi[C_START + c] + bi[FILL + c]
                            for t in range(a):
                                bf[MARG + 13 * MAX_HAND * g + 13 * (at + t) + v] += p
            s = _next_state(v - 1, s, bi)


@kernel
def sample(rs: np.ndarray, o: int, n_players: int, n_mid: int, hands: np.ndarray,
           hsize: np.ndarray, mid: np.ndarray, hknow: np.ndarray, mknow: np.ndarray,
           bi: np.ndarray, bf: np.ndarray, out_hands: np.ndarray, out_mid: np.ndarray) -> None:
    """A complete deal drawn from seat ``o``'s belief (after :func:`backward`, ``Z > 0``).

    ``out_hands``/``out_mid`` get the seat's own hand, every record and a
    sampled value for every unknown card; nothing else is read from
    ``hands``/``mid`` (only which middle slots are occupied).  Draws 12
    ``uniform`` and, with ``k`` unknown middle cards, ``k - 1`` ``below``.
    """
    for q in range(n_players):
        for i in range(hsize[q]):
            out_hands[q, i] = hands[q, i] if q == o else hknow[o, q, i]
        for i in range(hsize[q], MAX_HAND):
            out_hands[q, i] = 0
    for j in range(n_mid):
        out_mid[j] = 0 if mid[j] == 0 else mknow[o, j]
    s = 0
    np_ = 0
    for v in range(1, N_VALUES + 1):
        _decode(v - 1, s, bi)
        noff = bi[L_OFF + v]
        _start_layer(v, bi)
        base, room, must = _prepare(v, bi)
        first = bi[L_CMB + v]
        last = bi[L_CMB + v + 1]
        tot = 0.0
        for j in range(first, last):
            s2 = _combo_state(j, base, room, must, bi)
            if s2 >= 0:
                tot += bf[W_CMB + j] * bf[B_OFF + noff + s2]
        r = uniform(rs) * tot
        acc = 0.0
        chosen = -1
        jc = -1
        for j in range(first, last):
            s2 = _combo_state(j, base, room, must, bi)
            if s2 >= 0:
                x = bf[W_CMB + j] * bf[B_OFF + noff + s2]
                if x > 0.0:
                    acc += x
                    chosen = s2
                    jc = j  # rounding at the end: the last positive placement
                    if r < acc:
                        break
        row = CMB + CMB_W * jc
        for u in range(bi[row]):
            c = bi[row + 1 + 2 * u]
            a = bi[row + 2 + 2 * u]
            if bi[C_G + c] == POOL:
                for _t in range(a):
                    bi[POOL_VALS + np_] = v
                    np_ += 1
            else:
                at = bi[C_START + c] + bi[FILL + c]
                for t in range(a):
                    out_hands[bi[C_G + c], at + t] = v
        s = chosen
    for i in range(np_ - 1, 0, -1):
        j = below(rs, i + 1)
        x = bi[POOL_VALS + i]
        bi[POOL_VALS + i] = bi[POOL_VALS + j]
        bi[POOL_VALS + j] = x
    for i in range(np_):
        out_mid[bi[POOL_SLOTS + i]] = bi[POOL_VALS + i]


@kernel
def compute(o: int, n_players: int, n_mid: int, hands: np.ndarray, hsize: np.ndarray,
            mid: np.ndarray, owner: np.ndarray, hknow: np.ndarray, mknow: np.ndarray,
            bnd: np.ndarray, bi: np.ndarray, bf: np.ndarray, with_marginals: bool) -> float:
    """Build seat ``o``'s belief, run the backward pass (and the marginals); returns ``Z``."""
    if not (build(o, n_players, n_mid, hands, hsize, mid, owner, hknow, mknow, bnd, bi)
            and _build_combos(bi, bf)):
        bf[Z_AT] = 0.0
        return 0.0
    z = backward(bi, bf)
    if with_marginals:
        marginals(bi, bf)
    return z


# ---------------------------------------------------------------- Python helpers (tests, tools)


@nb.njit(cache=True)
def _sample_many(seed, o, n_players, n_mid, hands, hsize, mid, owner, hknow, mknow, bnd, n):
    bi = np.zeros(BI_LEN, dtype=np.int64)
    bf = np.zeros(BF_LEN, dtype=np.float64)
    out_h = np.zeros((n, MAX_PLAYERS, MAX_HAND), dtype=np.int64)
    out_m = np.zeros((n, MAX_MIDDLE), dtype=np.int64)
    z = compute(o, n_players, n_mid, hands, hsize, mid, owner, hknow, mknow, bnd, bi, bf, False)
    if z <= 0.0:
        return z, out_h, out_m
    for g in range(n):
        rs = game_stream(np.uint64(seed), np.uint64(g))
        sample(rs, o, n_players, n_mid, hands, hsize, mid, hknow, mknow, bi, bf, out_h[g],
               out_m[g])
    return z, out_h, out_m


def sample_deals(state, bnd, o: int, n_players: int, n_mid: int, n: int, seed: int = 0):
    """``(Z, hands[n, 6, 9], mid[n, 9])``: ``n`` deals drawn from seat ``o``'s belief in ``state``
    (a :class:`trilab.solver.trio_cards.game.EngineState`) with hand bounds ``bnd``, deal ``g``
    from stream ``(seed, g)``."""
    return _sample_many(seed, o, n_players, n_mid, state.hands, state.hsize, state.mid,
                        state.owner, state.hknow, state.mknow, bnd, n)


def belief_marginals(state, bnd, o: int, n_players: int, n_mid: int):
    """``(Z, hand[7, 9, 13], middle[13])``: exact probabilities of every value at every
    position of every hand (``hand[q, i, v]``, 0 where the seat knows the card) and of one
    unknown middle card (all unknown middle cards share it)."""
    bi, bf = new_workspace()
    z = compute(o, n_players, n_mid, state.hands, state.hsize, state.mid, state.owner,
                state.hknow, state.mknow, bnd, bi, bf, True)
    hand = bf[MARG:PMARG].reshape(N_GROUPS, MAX_HAND, N_VALUES + 1).copy()
    return z, hand, bf[PMARG:PMARG + N_VALUES + 1].copy()
