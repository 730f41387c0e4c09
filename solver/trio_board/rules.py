"""Trio, the board game (Jan Hendrik Akkermans, 1917): the rules as Numba kernels and policies.

This module states the rules and implements them: the move kernels, the
policies, configurations (:func:`make_config`) and a Python API on positions.
Whole games (:func:`trilab.solver.trio_board.game.play_chunk`) and the
registry's :data:`~trilab.solver.trio_board.game.SPEC` are
:mod:`trilab.solver.trio_board.game`, which joins these rules with the agents
of :mod:`trilab.solver.trio_board.agents`.  The geometry (networkx board, Fortress
topologies, setup, tables) is :mod:`trilab.solver.trio_board.board`; the slow twin of these rules is
:mod:`trilab.solver.trio_board.reference`.

Rules implemented (``shared/RULES.md`` section 3; **[choice]** marks a
decision of this project, each one a named constant or option):

* Board: 52 triangular cells (a side-8 triangle minus its three side-2
  corners) and 3 Fortresses, one per removed corner.  Pieces move through cell
  sides only (a cell has at most 3 neighbours).  Rows are counted from each
  corner (``row_from``, 1..8); a seat's Zone is rows 3 and 4 of its corner.
  Seat 0 owns the top corner, seat 1 the bottom-left, seat 2 the bottom-right.
* Fortress adjacency **[choice]**, option ``fortress`` (:data:`FORTRESS_OPTIONS`,
  default ``sides``): ``sides`` = the 2 row-3 cells that shared a side with the
  removed corner, ``row3`` = all 5 row-3 cells, ``general`` = those 2 and the
  General's start cell.
* Setup: General on the middle cell of row 3, 4 Officers on the rest of row 3,
  7 Soldiers on row 4.  Turn order **[choice]** (:data:`TURN_ORDER`): seats 0,
  1, 2 in turn, seat 0 first.
* "Backwards" for a seat: a step into a lower row of its own corner.
* Soldier: one step to a neighbour, never backwards.
* Officer: exactly two steps through an empty middle cell, not ending on its
  start; or one step when that step captures.  **[choice]**
  (:data:`OFFICER_ZONE_RULE`) the Zone restriction is judged at the start
  cell: an Officer standing in its own Zone may not go backwards on either
  step, nor with its one-step capture; elsewhere it moves freely.
* General: one or two steps in any directions, not ending on its start; the
  middle cell of a two-step move must be empty.  Only a General enters a
  Fortress, only an opponent's, and only as the last step of its move: doing so
  wins at once (end reason "fortress").  A Fortress is never crossed.
* Captures: any move may end on an opponent's piece **[choice]** (including
  an Officer's or General's second step), which is removed; capturing ends the
  move; capturing is optional; no move ends on one's own piece.
* Moving is compulsory; a seat with no legal move passes (a pass is a ply).
* Lost Generals **[choice]**, option ``lost_general`` (:data:`LOST_GENERAL_OPTIONS`,
  default ``keep``): ``keep`` = a seat whose General was captured keeps playing
  (its pieces move and capture) but cannot win; ``remove`` = its pieces leave
  the board at once and its turns are skipped (a skipped turn is not a ply).
  A game starting from a position where a seat has no General treats it the
  same way.
* **[choice]** One General left does not win: the game goes on until a
  Fortress entry, the capture of the last General or the cap.
* Ends: "fortress" (the mover wins), "no generals" (the last General was
  captured: no winner), "ply cap" (option ``ply_cap``, default
  :data:`DEFAULT_PLY_CAP` = 600 plies, checked before each ply: no winner,
  reported apart).  No repetition rule.

Moves.  A move is ``(from, to)`` with ``to`` a cell or a Fortress node
(``FORT_BASE + owner``); a destination reached by several paths is one move.
The legal moves are listed by ``from`` ascending, then ``to`` ascending.

Policies (one for all seats or one per seat; every draw from the game's
stream :func:`trilab.solver.rng.game_stream`; choosing among ``k`` candidates draws
``below(k)`` when ``k > 1`` and nothing when ``k == 1``, a pass draws nothing):

* ``random``: uniform over the legal moves.
* ``greedy``: (1) the moves of its General into an opponent's Fortress, if any;
  else (2) the captures of the most valuable piece (General > Officer >
  Soldier), if any; else (3) the moves of largest *advance*, ties uniform.
  **[choice]** (:data:`ADVANCE_RULE`) advance = steps gained away from its own
  Fortress (``dist[own, to] - dist[own, from]``), except for the General:
  steps gained towards the nearest opponent Fortress.  Distances count steps
  through cells on the empty board (:func:`trilab.solver.trio_board.board.fortress_distances`),
  under the game's Fortress reading.
* ``mcts:N`` (1 <= N <= :data:`MAX_SIMULATIONS`): the Monte Carlo tree search of
  :mod:`trilab.solver.mcts` (UCT + MCTS-Solver, one reward per seat: max^n; random
  playouts) with N simulations from the game in progress (ply count, ply cap and
  ``lost_general`` option included), through the agent kernels of
  :mod:`trilab.solver.trio_board.agents` (:func:`trilab.solver.trio_board.agents.mcts_turn`;
  :func:`play_chunk` hands the kernels to the compiled loop).  Its draws (the
  children's order, the playouts) come from the game's stream, so a game depends on
  ``(seed, game)`` only, never on the chunking.  **[choice]** A seat with a single
  legal move plays it without searching (no draw), as the other policies do.
* ``mcts-greedy:N`` / ``mcts-greedy:N:K`` (1 <= K <= :data:`MAX_PLAYOUT_PLIES`): the
  same search with **greedy playouts** (every seat plays ``greedy``), to the end of
  the game, or cut after K plies and then scored by
  :func:`trilab.solver.trio_board.agents.position_rewards` (a share of the reward per seat
  from its material and its General's distance to a Fortress).  Random playouts
  mostly end with every General lost (no winner, reward 0 for all), which gives
  ``mcts:N`` little to learn from; greedy ones reach Fortresses.

Results: ``(winners, length, reason, digest)``: the winner's bit (0 for no
winner), the plies played (moves and passes), the index in :data:`END_REASONS`
and the move digest: from ``h = 0`` every ply folds, with
:func:`trilab.solver.rng.digest_step`, ``from * N_NODES + to`` for a move or
:data:`PASS_CODE` for a pass (skipped turns fold nothing).

Engine representation: a state is an ``int64`` array with named columns
(:data:`S_SIDE`, :data:`S_PLY`, :data:`S_GENERAL` + seat = the cell of that
seat's General or -1, :data:`S_OCC` + seat = the bitboard of its pieces, bit
``c`` = cell ``c``, :data:`S_BOARD` + cell = the piece code ``seat << 2 |
kind``, 0 = empty).  Move generation is bitboard arithmetic on the neighbour
masks of :class:`trilab.solver.trio_board.board.TrioTables` (a step: ``nbr_mask``, or
``fwd_mask`` of the seat when backward steps are barred; the second steps: the
union over the empty middles), read lowest bit first (:data:`BIT_INDEX`), so
the moves come out in list order with no sorting: about 5x faster than walking
the paths cell by cell, measured (60 vs 350 ns for the move list of a
28-piece position).  ``icfg`` holds a header (:data:`I_PLY_CAP` ...) and then
the tables, so that the kernels receive them as arguments.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.game_api import GameConfig
from trilab.solver.jit import kernel
from trilab.solver.trio_board.board import (  # noqa: F401 (re-exported)
    DEFAULT_FORTRESS,
    EMPTY,
    FORT_BASE,
    FORTRESS_OPTIONS,
    GENERAL,
    KIND_CODES,
    KIND_NAMES,
    MAX_NEIGHBOURS,
    N_CELLS,
    N_NODES,
    N_SEATS,
    OFFICER,
    SOLDIER,
    Pieces,
    board_graph,
    check_fortress,
    initial_pieces,
    piece_code,
    tables,
)

DEFAULT_PLY_CAP = 600
TURN_ORDER = (0, 1, 2)
"""[choice] Seats move in this order, seat 0 first."""
OFFICER_ZONE_RULE = "judged at the start cell; binds both steps and the one-step capture"
"""[choice] How the Officer's Zone restriction is read."""
ADVANCE_RULE = ("steps gained away from the own Fortress; a General: steps gained towards "
                "the nearest opponent Fortress")
"""[choice] The greedy policy's advance."""
LOST_GENERAL_OPTIONS = ("keep", "remove")
"""[choice] What happens to a seat whose General is captured."""
DEFAULT_LOST_GENERAL = "keep"
LOST_KEEP, LOST_REMOVE = 0, 1

END_REASONS = ("fortress", "no generals", "ply cap")
R_FORTRESS, R_NO_GENERALS, R_PLY_CAP = 0, 1, 2
DRAW_REASONS = ("no generals", "ply cap")
GOES_ON = -1

POLICIES = {
    "random": "uniform over the legal moves",
    "greedy": "a General into an opponent Fortress, else the most valuable capture, "
              "else the largest advance; ties uniform",
}
"""The move-list policies (:func:`choose_move`, :func:`choose`)."""
SEARCH_POLICIES = {
    "mcts:N": "Monte Carlo tree search (UCT + solver, max^n, random playouts), "
              "N simulations per move",
    "mcts-greedy:N": "mcts:N with greedy playouts to the end of the game",
    "mcts-greedy:N:K": "mcts:N with greedy playouts cut after K plies and scored by "
                       "material and the Generals' distance to a Fortress",
}
"""The policies that search through :mod:`trilab.solver.trio_board.agents` (study games only)."""
POLICY_RANDOM, POLICY_GREEDY, POLICY_MCTS, POLICY_MCTS_GREEDY = 0, 1, 2, 3
SEARCH_CODES = {"mcts": POLICY_MCTS, "mcts-greedy": POLICY_MCTS_GREEDY}
PLAYOUT_RANDOM = -1
"""The playout of an ``mcts:N`` seat (:data:`I_PLAYOUT`); ``mcts-greedy`` seats have
0 (greedy to the end) or the cutoff K."""
MAX_PLAYOUT_PLIES = 10_000
POLICY_CODES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY}
"""The policies without an argument (``choose_move``'s codes)."""
MAX_SIMULATIONS = 10_000_000
"""Most MCTS simulations per move accepted by :func:`parse_policy_spec`."""
POLICY_FORMS = (f"random, greedy, mcts:N or mcts-greedy:N[:K] (1 <= N <= {MAX_SIMULATIONS}, "
                f"1 <= K <= {MAX_PLAYOUT_PLIES})")

PASS_CODE = N_NODES * N_NODES
"""Digest code of a pass (a move folds ``from * N_NODES + to < PASS_CODE``)."""
SEAT_SHIFT = 2
KIND_MASK = 3
MAX_DESTINATIONS = MAX_NEIGHBOURS * MAX_NEIGHBOURS + N_SEATS
"""Bound on the distinct destinations of one piece (3 + 6 cells + 3 Fortresses)."""
MAX_MOVES = N_CELLS * MAX_DESTINATIONS
"""Bound on the legal moves of any position (any number of pieces)."""

# state columns
S_SIDE, S_PLY = 0, 1
S_GENERAL = 2  # + seat: the cell of its General, -1 once captured
S_OCC = S_GENERAL + N_SEATS  # + seat: bitboard of its pieces (bit c = cell c)
S_BOARD = S_OCC + N_SEATS  # + cell: piece code, seat << SEAT_SHIFT | kind (0 = empty)
STATE_SIZE = S_BOARD + N_CELLS
assert N_CELLS < 63, "a bitboard of cells fits in an int64"

DEBRUIJN = 0x03F79D71B4CB0A89
"""A de Bruijn sequence B(2, 6): ``(bit * DEBRUIJN) >> 58`` is distinct for the 64
single-bit words, so :data:`BIT_INDEX` turns a lowest set bit into its index."""
DEBRUIJN_SHIFT = 58
BIT_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    BIT_INDEX[(((1 << _i) * DEBRUIJN) & ((1 << 64) - 1)) >> DEBRUIJN_SHIFT] = _i
BIT_INDEX.setflags(write=False)

# icfg layout: header, then the tables
I_PLY_CAP, I_FORTRESS, I_LOST, I_START_SIDE, I_POLICY = 0, 1, 2, 3, 4
I_SIMS = I_POLICY + N_SEATS
"""+ seat: the simulations of a searching seat (0 for the other policies)."""
I_PLAYOUT = I_SIMS + N_SEATS
"""+ seat: the playout of a searching seat (:data:`PLAYOUT_RANDOM`, 0 or K)."""
HEADER = I_PLAYOUT + N_SEATS
OFF_NBR = HEADER
OFF_NBR_MASK = OFF_NBR + N_CELLS * MAX_NEIGHBOURS
OFF_FWD_MASK = OFF_NBR_MASK + N_CELLS
OFF_FORT = OFF_FWD_MASK + N_SEATS * N_CELLS
OFF_ZONE = OFF_FORT + N_CELLS
OFF_DIST = OFF_ZONE + N_CELLS
OFF_BITS = OFF_DIST + N_SEATS * N_NODES
OFF_INIT = OFF_BITS + 64
ICFG_SIZE = OFF_INIT + N_CELLS

Move = tuple[int, int]
"""``(from cell, to node)``."""


# ------------------------------------------------------------------ rule kernels


@kernel(inline="always")
def bit_index(low: int, bits: np.ndarray) -> int:
    """The index of the only set bit of ``low`` (``bits`` = :data:`BIT_INDEX`)."""
    return bits[(np.uint64(low) * np.uint64(DEBRUIJN)) >> np.uint64(DEBRUIJN_SHIFT)]


@kernel(inline="always")
def destinations(nbr: np.ndarray, nbr_mask: np.ndarray, fwd_mask: np.ndarray,
                 fort_of: np.ndarray, zone: np.ndarray, state: np.ndarray, seat: int,
                 c: int) -> tuple[int, int]:
    """``(cells, forts)``: the bitboard of the cells the piece of ``seat`` on ``c`` may
    move to, and the bitmask (bit ``f``) of the opponent Fortresses its General may
    enter (module docstring)."""
    own = state[S_OCC + seat]
    occupied = state[S_OCC] | state[S_OCC + 1] | state[S_OCC + 2]
    kind = state[S_BOARD + c] & KIND_MASK
    forts = 0
    if kind == SOLDIER:
        return fwd_mask[seat, c] & ~own, forts
    if kind == OFFICER:
        restricted = zone[c] == seat
        first = fwd_mask[seat, c] if restricted else nbr_mask[c]
        cells = first & occupied & ~own  # one step: only to capture
        second = 0
        for i in range(MAX_NEIGHBOURS):
            m = nbr[c, i]
            if m >= 0 and (first >> m) & 1 and not (occupied >> m) & 1:
                second |= fwd_mask[seat, m] if restricted else nbr_mask[m]
        return cells | (second & ~own & ~(1 << c)), forts
    f = fort_of[c]
    if f >= 0 and f != seat:
        forts |= 1 << f
    second = 0
    for i in range(MAX_NEIGHBOURS):
        m = nbr[c, i]
        if m >= 0 and not (occupied >> m) & 1:
            second |= nbr_mask[m]
            f = fort_of[m]
            if f >= 0 and f != seat:
                forts |= 1 << f
    return (nbr_mask[c] | (second & ~(1 << c))) & ~own, forts


@kernel(inline="always")
def legal_moves(nbr: np.ndarray, nbr_mask: np.ndarray, fwd_mask: np.ndarray,
                fort_of: np.ndarray, zone: np.ndarray, bits: np.ndarray, state: np.ndarray,
                seat: int, mfrom: np.ndarray, mto: np.ndarray) -> int:
    """Write the legal moves of ``seat`` (``from`` then ``to`` ascending; Fortress nodes
    come after every cell) into ``mfrom``/``mto``; return their number."""
    n = 0
    pieces = state[S_OCC + seat]
    while pieces:
        low = pieces & -pieces
        pieces ^= low
        c = bit_index(low, bits)
        cells, forts = destinations(nbr, nbr_mask, fwd_mask, fort_of, zone, state, seat, c)
        while cells:
            x = cells & -cells
            cells ^= x
            mfrom[n] = c
            mto[n] = bit_index(x, bits)
            n += 1
        for f in range(N_SEATS):
            if (forts >> f) & 1:
                mfrom[n] = c
                mto[n] = FORT_BASE + f
                n += 1
    return n


@kernel(inline="always")
def remove_seat(state: np.ndarray, seat: int) -> None:
    """Take every piece of ``seat`` off the board (option ``lost_general=remove``)."""
    for c in range(N_CELLS):
        if (state[S_OCC + seat] >> c) & 1:
            state[S_BOARD + c] = EMPTY
    state[S_OCC + seat] = 0
    state[S_GENERAL + seat] = -1


@kernel(inline="always")
def generals_left(state: np.ndarray) -> int:
    n = 0
    for s in range(N_SEATS):
        if state[S_GENERAL + s] >= 0:
            n += 1
    return n


@kernel(inline="always")
def apply_move(state: np.ndarray, frm: int, to: int, lost: int) -> int:
    """Play ``frm -> to`` for the owner of the piece on ``frm``; the end reason
    (:data:`R_FORTRESS`, :data:`R_NO_GENERALS`) or :data:`GOES_ON`.  Does not
    change the side to move or the ply."""
    p = state[S_BOARD + frm]
    seat = p >> SEAT_SHIFT
    state[S_BOARD + frm] = EMPTY
    state[S_OCC + seat] ^= 1 << frm
    if to >= FORT_BASE:
        state[S_GENERAL + seat] = to
        return R_FORTRESS
    q = state[S_BOARD + to]
    state[S_BOARD + to] = p
    state[S_OCC + seat] |= 1 << to
    if (p & KIND_MASK) == GENERAL:
        state[S_GENERAL + seat] = to
    if q != EMPTY:
        victim = q >> SEAT_SHIFT
        state[S_OCC + victim] ^= 1 << to
        if (q & KIND_MASK) == GENERAL:
            state[S_GENERAL + victim] = -1
            if lost == LOST_REMOVE:
                remove_seat(state, victim)
            if generals_left(state) == 0:
                return R_NO_GENERALS
    return GOES_ON


@kernel(inline="always")
def _pick(st: np.ndarray, k: int) -> int:
    """An index below ``k``: 0 without a draw when ``k == 1``."""
    if k == 1:
        return 0
    return rng.below(st, k)


@kernel(inline="always")
def _nearest_opponent_fortress(dist: np.ndarray, seat: int, node: int) -> int:
    best = dist[(seat + 1) % N_SEATS, node]
    other = dist[(seat + 2) % N_SEATS, node]
    return other if other < best else best


@kernel(inline="always")
def choose_move(policy: int, state: np.ndarray, seat: int, dist: np.ndarray, n: int,
                mfrom: np.ndarray, mto: np.ndarray, cand: np.ndarray, st: np.ndarray) -> int:
    """The index (in the move list) of the move ``policy`` plays; ``n >= 1``."""
    if policy == POLICY_RANDOM:
        return _pick(st, n)
    k = 0
    for i in range(n):
        if mto[i] >= FORT_BASE:
            cand[k] = i
            k += 1
    if k > 0:
        return cand[_pick(st, k)]
    best = 0
    for i in range(n):
        v = state[S_BOARD + mto[i]] & KIND_MASK  # the kind code is the capture value
        if v > best:
            best = v
            k = 0
        if v == best and v > 0:
            cand[k] = i
            k += 1
    if k > 0:
        return cand[_pick(st, k)]
    best = -(1 << 30)
    for i in range(n):
        a, b = mfrom[i], mto[i]
        if (state[S_BOARD + a] & KIND_MASK) == GENERAL:
            gain = (_nearest_opponent_fortress(dist, seat, a)
                    - _nearest_opponent_fortress(dist, seat, b))
        else:
            gain = dist[seat, b] - dist[seat, a]
        if gain > best:
            best = gain
            k = 0
        if gain == best:
            cand[k] = i
            k += 1
    return cand[_pick(st, k)]


@kernel
def reset_state(icfg: np.ndarray, init: np.ndarray, state: np.ndarray) -> None:
    """The start position of ``icfg`` (its board, :data:`I_START_SIDE` to move, ply 0);
    with ``lost_general=remove`` a seat without a General leaves the board."""
    state[S_SIDE] = icfg[I_START_SIDE]
    state[S_PLY] = 0
    for s in range(N_SEATS):
        state[S_GENERAL + s] = -1
        state[S_OCC + s] = 0
    for c in range(N_CELLS):
        p = init[c]
        state[S_BOARD + c] = p
        if p != EMPTY:
            state[S_OCC + (p >> SEAT_SHIFT)] |= 1 << c
            if (p & KIND_MASK) == GENERAL:
                state[S_GENERAL + (p >> SEAT_SHIFT)] = c
    if icfg[I_LOST] == LOST_REMOVE:
        for s in range(N_SEATS):
            if state[S_GENERAL + s] < 0:
                remove_seat(state, s)



# ------------------------------------------------------------------ configuration

OPTION_KEYS = ("policies", "fortress", "ply_cap", "lost_general")


def parse_policy_spec(text: str) -> tuple[int, int, int]:
    """``(policy code, simulations, playout)`` of a policy name: simulations 0 and
    playout :data:`PLAYOUT_RANDOM` but for the searching policies (``mcts:N``:
    random playouts; ``mcts-greedy:N``: 0, greedy to the end; ``mcts-greedy:N:K``:
    K); ``ValueError`` with one line if it is none."""
    name = text.strip() if isinstance(text, str) else text
    if name in POLICY_CODES:
        return POLICY_CODES[name], 0, PLAYOUT_RANDOM
    head, _, arg = name.partition(":") if isinstance(name, str) else ("", "", "")
    if head in SEARCH_CODES:
        arg, _, cut = arg.partition(":")
        if arg.endswith("s") and arg[:-1].replace(".", "", 1).isdigit():
            raise ValueError(f"bad mcts simulations {arg!r} in {name!r}: a time budget is "
                             f"not reproducible in a study; give simulations per move, "
                             f"{head}:N")
        if not (arg.isascii() and arg.isdigit() and 1 <= int(arg) <= MAX_SIMULATIONS):
            raise ValueError(f"bad mcts simulations {arg!r} in {name!r}: expected an integer "
                             f"1..{MAX_SIMULATIONS}")
        if head == "mcts":
            if cut:
                raise ValueError(f"bad policy {name!r}: a playout cutoff needs "
                                 f"mcts-greedy:N:K")
            return POLICY_MCTS, int(arg), PLAYOUT_RANDOM
        if cut and not (cut.isascii() and cut.isdigit()
                        and 1 <= int(cut) <= MAX_PLAYOUT_PLIES):
            raise ValueError(f"bad playout cutoff {cut!r} in {name!r}: expected an integer "
                             f"1..{MAX_PLAYOUT_PLIES}")
        return POLICY_MCTS_GREEDY, int(arg), int(cut) if cut else 0
    raise ValueError(f"unknown policy {text!r}; trio-board policies: {POLICY_FORMS}")


def parse_policy(text: str) -> str:
    """The normalised policy name (``mcts:N``, ``mcts-greedy:N[:K]`` with the numbers
    as given); ``ValueError`` with one line naming the policies if it is none."""
    code, sims, playout = parse_policy_spec(text)
    if code == POLICY_MCTS:
        return f"mcts:{sims}"
    if code == POLICY_MCTS_GREEDY:
        return f"mcts-greedy:{sims}" + (f":{playout}" if playout > 0 else "")
    return text.strip()


def make_config(options: dict) -> GameConfig:
    """Validate ``{"policies": [1 or 3], "fortress": "sides", "ply_cap": 600,
    "lost_general": "keep"}`` and encode it (header and tables) for the kernels."""
    unknown = sorted(set(options) - set(OPTION_KEYS))
    if unknown:
        raise ValueError(f"unknown trio-board option(s) {', '.join(map(repr, unknown))}; "
                         f"options: {', '.join(OPTION_KEYS)}")
    policies = options.get("policies", ["random"])
    if isinstance(policies, str):
        policies = [policies]
    names = [parse_policy(p) for p in policies]
    if len(names) not in (1, N_SEATS):
        raise ValueError(f"trio-board needs 1 policy (all seats) or {N_SEATS} (one per seat), "
                         f"got {len(names)}")
    if len(names) == 1:
        names = names * N_SEATS
    fortress = options.get("fortress", DEFAULT_FORTRESS)
    check_fortress(fortress)
    cap = options.get("ply_cap", DEFAULT_PLY_CAP)
    if isinstance(cap, bool) or not isinstance(cap, int | np.integer) or cap < 1:
        raise ValueError(f"ply_cap must be an integer >= 1, got {cap!r}")
    lost = options.get("lost_general", DEFAULT_LOST_GENERAL)
    if lost not in LOST_GENERAL_OPTIONS:
        raise ValueError(f"unknown lost_general option {lost!r}; choose one of "
                         f"{', '.join(LOST_GENERAL_OPTIONS)}")
    t = tables(fortress)
    icfg = np.zeros(ICFG_SIZE, dtype=np.int64)
    icfg[I_PLY_CAP] = int(cap)
    icfg[I_FORTRESS] = FORTRESS_OPTIONS.index(fortress)
    icfg[I_LOST] = LOST_GENERAL_OPTIONS.index(lost)
    icfg[I_START_SIDE] = 0
    for s, name in enumerate(names):
        icfg[I_POLICY + s], icfg[I_SIMS + s], icfg[I_PLAYOUT + s] = parse_policy_spec(name)
    icfg[OFF_NBR:OFF_NBR_MASK] = t.nbr.ravel()
    icfg[OFF_NBR_MASK:OFF_FWD_MASK] = t.nbr_mask
    icfg[OFF_FWD_MASK:OFF_FORT] = t.fwd_mask.ravel()
    icfg[OFF_FORT:OFF_ZONE] = t.fort_of
    icfg[OFF_ZONE:OFF_DIST] = t.zone
    icfg[OFF_DIST:OFF_BITS] = t.dist.ravel()
    icfg[OFF_BITS:OFF_INIT] = BIT_INDEX
    icfg[OFF_INIT:ICFG_SIZE] = t.init
    normalised = {"policies": list(names), "fortress": fortress, "ply_cap": int(cap),
                  "lost_general": lost}
    return GameConfig(N_SEATS, tuple(names), icfg, np.zeros(0, dtype=np.float64), normalised)


# ------------------------------------------------------------------ Python API


def board_array(pieces: Pieces) -> np.ndarray:
    """The piece codes of ``pieces`` by cell; ``ValueError`` on a bad position."""
    board = np.zeros(N_CELLS, dtype=np.int64)
    generals = [0] * N_SEATS
    for cell, (seat, kind) in pieces.items():
        if not 0 <= cell < N_CELLS or seat not in range(N_SEATS) or kind not in KIND_CODES:
            raise ValueError(f"bad piece {cell}: {(seat, kind)!r}")
        board[cell] = piece_code(seat, kind)
        generals[seat] += kind == "general"
    if max(generals) > 1:
        raise ValueError("a seat has more than one General")
    return board


def new_state(pieces: Pieces, side: int = 0, ply: int = 0) -> np.ndarray:
    """The engine state of a position."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[S_SIDE] = side
    state[S_PLY] = ply
    state[S_GENERAL:S_OCC] = -1
    state[S_BOARD:] = board_array(pieces)
    for cell, (seat, kind) in pieces.items():
        state[S_OCC + seat] |= 1 << cell
        if kind == "general":
            state[S_GENERAL + seat] = cell
    return state


def pieces_of(state: np.ndarray) -> Pieces:
    """The pieces of an engine state."""
    return {c: (int(p) >> SEAT_SHIFT, KIND_NAMES[int(p) & KIND_MASK])
            for c, p in enumerate(state[S_BOARD:]) if p != EMPTY}


def _move_list(state: np.ndarray, seat: int, fortress: str) -> tuple[np.ndarray, np.ndarray]:
    t = tables(check_fortress(fortress))
    mfrom = np.zeros(MAX_MOVES, dtype=np.int64)
    mto = np.zeros(MAX_MOVES, dtype=np.int64)
    n = _legal_moves(t.nbr, t.nbr_mask, t.fwd_mask, t.fort_of, t.zone, BIT_INDEX, state, seat,
                     mfrom, mto)
    return mfrom[:n], mto[:n]


@nb.njit(cache=True)
def _legal_moves(nbr, nbr_mask, fwd_mask, fort_of, zone, bits, state, seat, mfrom, mto):
    return legal_moves(nbr, nbr_mask, fwd_mask, fort_of, zone, bits, state, seat, mfrom, mto)


def legal(pieces: Pieces, seat: int, fortress: str = DEFAULT_FORTRESS) -> list[Move]:
    """The legal moves of ``seat`` in list order."""
    mfrom, mto = _move_list(new_state(pieces), seat, fortress)
    return [(int(a), int(b)) for a, b in zip(mfrom, mto)]


@nb.njit(cache=True)
def _apply(state, frm, to, lost):
    return apply_move(state, frm, to, lost)


def after_move(pieces: Pieces, move: Move, lost_general: str = DEFAULT_LOST_GENERAL
               ) -> tuple[Pieces, int]:
    """``(pieces after move, end reason index or -1)`` (the move is not validated)."""
    state = new_state(pieces)
    r = _apply(state, move[0], move[1], LOST_GENERAL_OPTIONS.index(lost_general))
    return pieces_of(state), int(r)


@nb.njit(cache=True)
def _choose(policy: int, state: np.ndarray, seat: int, dist: np.ndarray, mfrom: np.ndarray,
            mto: np.ndarray, seed: int, game: int) -> tuple[int, np.uint64]:
    st = rng.game_stream(np.uint64(seed), np.uint64(game))
    cand = np.zeros(MAX_MOVES, dtype=np.int64)
    i = choose_move(policy, state, seat, dist, mfrom.shape[0], mfrom, mto, cand, st)
    return i, rng.next_u64(st)


def choose(policy: str, pieces: Pieces, seat: int, fortress: str, seed: int, game: int
           ) -> tuple[Move | None, int]:
    """The move ``policy`` (random or greedy) plays for ``seat`` (None: a pass), drawing
    from ``game_stream(seed, game)``, and the stream's next 64-bit output.  (``mcts:N``
    searches through :mod:`trilab.solver.trio_board.agents`: ``agent_game().search``.)"""
    if parse_policy(policy) not in POLICY_CODES:
        raise ValueError(f"choose plays random or greedy, not {policy!r}: search with "
                         "trio_board.agents.agent_game().search")
    state = new_state(pieces)
    mfrom, mto = _move_list(state, seat, fortress)
    if len(mfrom) == 0:
        st = rng.game_stream(np.uint64(seed), np.uint64(game))
        return None, int(rng.next_u64(st))
    i, nxt = _choose(POLICY_CODES[parse_policy(policy)], state, seat, tables(fortress).dist,
                     mfrom, mto, seed, game)
    return (int(mfrom[i]), int(mto[i])), int(nxt)


def with_start(cfg: GameConfig, pieces: Pieces, side: int = 0) -> GameConfig:
    """A copy of ``cfg`` whose games start from ``pieces`` with ``side`` to move."""
    if side not in range(N_SEATS):
        raise ValueError(f"side must be 0, 1 or 2, got {side!r}")
    icfg = cfg.icfg.copy()
    icfg[OFF_INIT:ICFG_SIZE] = board_array(pieces)
    icfg[I_START_SIDE] = side
    return GameConfig(cfg.n_seats, cfg.seat_policies, icfg, cfg.fcfg.copy(), dict(cfg.options))
