"""Tabula Trivium: the rules, and the game as the Monte Carlo driver plays it.

This module is the game's entry in the registry (:mod:`trilab.solver.registry`): it
plays whole games (:func:`play_game`, :func:`play_chunk`), builds
configurations (:func:`make_config`), offers a Python API on positions and
decisions, and holds :data:`SPEC`.  The engine is split along its seams:

* :mod:`trilab.solver.tabula_trivium.board`: geometry (networkx board, numpy tables,
  setup, move-list bounds);
* :mod:`trilab.solver.tabula_trivium.rules`: the Numba rule kernels (movements,
  results, Zobrist hashing, move codes);
* :mod:`trilab.solver.tabula_trivium.policies`: the policies (random, greedy,
  lookahead:D) and their alpha-beta search, on a named
  :class:`~trilab.solver.tabula_trivium.policies.Workspace` of buffers;
* :mod:`trilab.solver.tabula_trivium.reference`: the pure-Python reference;
* :mod:`trilab.solver.tabula_trivium.agents`: the agent kernels of :mod:`trilab.solver.mcts`
  (the ``mcts:N`` and ``mcts-greedy:N[:K]`` policies; the reference has no
  MCTS).

Their names used elsewhere are re-exported here.

Rules implemented (see ``shared/RULES.md`` section 2; **[choice]** marks a
decision of this project, each one a named constant or option):

* Board **[choice]** (:data:`BOARD_SIDE` = 4): a hexagon of side 4 on the
  triangular lattice, 37 nodes on 3 families of 7 parallel lines; the rows
  (lines of constant axial ``r``) hold 4-5-6-7-6-5-4 nodes.  Each node has up
  to 6 neighbours along 3 straight lines.  Nodes are numbered row by row
  (``r`` ascending, then ``q`` ascending).
* Setup **[choice]**: the split line runs through the centre perpendicular
  to the rows (pixel ``x = q + r/2 = 0``: through the centre and 2 second-ring
  nodes, between the middle nodes of the top and bottom sides).  Each seat
  owns one half (:data:`SEAT0_HALF`: seat 0 owns the half with ``x < 0``):
  9 stones on the 9 outer-ring nodes of that half, 5 pawns on its 5
  second-ring nodes.  The centre, the 6 innermost nodes and the 2 second-ring
  nodes on the split line start empty (9 empty nodes).
* Seat 0 moves first (studies swap the policies to measure both orders).
* A turn (one ply): first a pawn movement (mandatory; there is always one,
  see the loss rules), then a stone movement (mandatory if any stone of the
  mover can move after the pawn movement, otherwise skipped).
* Pawn movement: one or two steps in a straight line to an empty node, never
  through an occupied node; or a jump over an adjacent piece of either colour
  (pawn or stone) onto the empty node directly beyond it, capturing the
  jumped piece.  One jump per turn; the jump is the turn's pawn movement.
* Stone movement: any number of steps in a straight line over empty nodes.
  Stones never jump or capture.
* Loss: right after a pawn movement, a seat with no stones ("no stones") or no
  pawns ("no pawns") loses at once, also when the mover captured its own last
  piece; the stone movement is then not played.  (Only one piece is captured
  per turn, so at most one seat can be out; for arbitrary states
  :func:`material_status` checks seat 0 before seat 1 and stones before
  pawns.)  A seat that cannot move any pawn at the start of its turn loses
  ("pawns blocked").
* Draws **[choice]** (no draw rule is published): before each turn, after the
  blocked-pawn check, the game is drawn ("ply cap") if ``ply_cap`` turns
  (option, default :data:`DEFAULT_PLY_CAP` = 400) have been played.  After
  each complete turn the game is drawn ("repetition") if the position (board
  and side to move) has now occurred :data:`REPETITION_LIMIT` = 3 times,
  counting the initial position.  The engine compares Zobrist hashes
  (:data:`ZOBRIST_SEED`) of the positions since the last capture (a capture
  is irreversible, so no earlier position can recur).

Move lists (the order the policies draw from) and the policies
(``random``, ``greedy``, ``lookahead:D``, ``mcts:N``, ``mcts-greedy:N``, one
per seat, every draw from the game's stream :func:`trilab.solver.rng.game_stream`)
are stated in :mod:`trilab.solver.tabula_trivium.rules` and
:mod:`trilab.solver.tabula_trivium.policies`.  An ``mcts:N`` or ``mcts-greedy:N``
seat searches the game in progress (ply count, ply cap and the Zobrist
history since the last capture, so it sees both draw rules) with
:func:`trilab.solver.tabula_trivium.agents.mcts_turn`; :func:`play_chunk` hands the
agent kernels to the compiled loop.

Results: every game gives ``(winners, length, reason, digest)``: the winners
bitmask (0 for a draw), the turns played, the index of its end reason in
:data:`END_REASONS` and the move digest: from ``h = 0``, every played turn
``(pf, pt, pc, sf, st)`` folds its code
:func:`~trilab.solver.tabula_trivium.rules.turn_code` with
:func:`trilab.solver.rng.digest_step`, in the order played (the turn that ends the
game by capture included, with no stone movement).

Engine configuration: ``icfg`` holds a header (:data:`I_PLY_CAP`, the policy
kind and depth of each seat, the 4 initial bitboards at :data:`I_INIT`, the
playout cutoff of each seat at :data:`I_CUT0`) and then the geometry tables
(neighbours, rays, middle nodes) so that :func:`play_chunk` receives them as
arguments.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from trilab.solver import rng
from trilab.solver.bitboard import bit
from trilab.solver.game_api import GameConfig, GameSpec
from trilab.solver.jit import kernel
from trilab.solver.mcts import (
    DEFAULT_EXPLORATION,
    AgentSpec,
    MctsWork,
    loop_tree_capacity,
    loop_tree_nodes,
)
from trilab.solver.tabula_trivium import agents
from trilab.solver.tabula_trivium.agents import (
    MAX_ACTIONS,
    PLAYOUT_GREEDY,
    PLAYOUT_RANDOM,
    mcts_turn,
    new_mcts_work,
    pack_tables,
)
from trilab.solver.tabula_trivium.board import (  # noqa: F401 (re-exported)
    AXIAL_DIRECTIONS,
    BOARD_SIDE,
    MAX_PAWN_MOVES,
    MAX_RAY,
    MAX_STONE_MOVES,
    MAX_TURNS,
    N_DIRS,
    N_NODES,
    PAWNS_PER_SEAT,
    SEAT0_HALF,
    STONES_PER_SEAT,
    Node,
    PawnMove,
    Pieces,
    StoneMove,
    TabulaTables,
    axial_coords,
    board_graph,
    half,
    initial_pieces,
    ring,
    setup_nodes,
    tables,
)
from trilab.solver.tabula_trivium.policies import (  # noqa: F401 (re-exported)
    CLASS_LOSE,
    CLASS_SAFE,
    CLASS_UNSAFE,
    CLASS_WIN,
    INF,
    MAX_DEPTH,
    MAX_PLAYOUT_PLIES,
    MAX_SIMULATIONS,
    MOBILITY_VALUE,
    PAWN_VALUE,
    PCAT_CAPTURE,
    PCAT_OWN,
    PCAT_STEP,
    PCAT_WINNING,
    POLICIES,
    POLICY_GREEDY,
    POLICY_LOOKAHEAD,
    POLICY_MCTS,
    POLICY_MCTS_GREEDY,
    POLICY_RANDOM,
    STONE_VALUE,
    WIN_SCORE,
    PolicySpec,
    Workspace,
    choose_turn,
    evaluate,
    new_workspace,
    parse_policy,
    parse_policy_spec,
    search,
)
from trilab.solver.tabula_trivium.reference import reference_game
from trilab.solver.tabula_trivium.rules import (  # noqa: F401 (re-exported)
    DEFAULT_PLY_CAP,
    DRAW_REASONS,
    END_REASONS,
    R_BLOCKED,
    R_NO_PAWNS,
    R_NO_STONES,
    R_PLY_CAP,
    R_REPETITION,
    REPETITION_LIMIT,
    SIDE_KEY,
    T_PC,
    T_PF,
    T_PT,
    T_SF,
    T_ST,
    TURN_SIZE,
    ZOBRIST_SEED,
    apply_pawn_move,
    apply_stone_move,
    count_pawn_moves,
    has_pawn_move,
    material_status,
    pawn_moves,
    seat_bit,
    status,
    stone_moves,
    turn_code,
    zobrist,
    zobrist_keys,
)

# icfg layout: header, then the tables.
HEADER = 16
I_PLY_CAP, I_KIND0, I_DEPTH0, I_KIND1, I_DEPTH1, I_INIT = 0, 1, 2, 3, 4, 5
I_CUT0 = I_INIT + 4
"""The playout cutoff K of an ``mcts-greedy:N:K`` seat 0 (0: none), seat 1's after it."""
OFF_NBR = HEADER
OFF_RAYS = OFF_NBR + N_NODES * N_DIRS
OFF_MID = OFF_RAYS + N_NODES * N_DIRS * MAX_RAY
ICFG_SIZE = OFF_MID + N_NODES * N_NODES

# ------------------------------------------------------------------ games


@kernel
def play_game(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, keys: np.ndarray,
              icfg: np.ndarray, st: np.ndarray, ws: Workspace, pieces: np.ndarray,
              hist: np.ndarray, turn: np.ndarray, legal, apply, seat, rewards, playout,
              chance, mw: MctsWork) -> tuple[int, int, int, np.uint64]:
    """One game from the initial position: ``(winners, plies, reason, digest)``.

    ``pieces`` (``uint64[4]``), ``hist`` (``uint64[ply_cap + 1]``, the Zobrist hash
    after each turn) and ``turn`` (``int64[TURN_SIZE]``) are work buffers; an
    ``mcts:N`` or ``mcts-greedy:N`` seat searches with the agent kernels ``legal ..
    chance`` (:data:`trilab.solver.tabula_trivium.agents.KERNELS`) in the buffers ``mw``."""
    ply_cap = icfg[I_PLY_CAP]
    for k in range(4):
        pieces[k] = np.uint64(icfg[I_INIT + k])
    # np.int64(0), not 0: a literal 0 is typed Literal[int](0) until the loop widens it,
    # and Numba compiles every kernel called with it once more for that type (one
    # throw-away specialisation per callee; docs/speed.md, compile times).
    side = np.int64(0)
    ply = np.int64(0)
    digest = np.uint64(0)
    hist[0] = zobrist(keys, pieces, side)
    since = np.int64(0)  # first history entry after the last capture
    while True:
        if not has_pawn_move(nbr, pieces, side):
            return seat_bit(1 - side), ply, R_BLOCKED, digest
        if ply >= ply_cap:
            return 0, ply, R_PLY_CAP, digest
        kind = icfg[I_KIND0 + 2 * side]
        depth = icfg[I_DEPTH0 + 2 * side]
        if kind == POLICY_MCTS or kind == POLICY_MCTS_GREEDY:
            mcts_turn(legal, apply, seat, rewards, playout, chance, mw, pieces, side, ply,
                      ply_cap, hist, since, st, depth, DEFAULT_EXPLORATION,
                      PLAYOUT_GREEDY if kind == POLICY_MCTS_GREEDY else PLAYOUT_RANDOM,
                      icfg[I_CUT0 + side], turn)
        else:
            choose_turn(nbr, mid, rays, pieces, side, kind, depth, st, ws, turn)
        pf, pt, pc, sf, s_to = turn[T_PF], turn[T_PT], turn[T_PC], turn[T_SF], turn[T_ST]
        digest = rng.digest_step(digest, turn_code(pf, pt, pc, sf, s_to))
        h = hist[ply] ^ keys[SIDE_KEY]  # incremental Zobrist update, side flipped
        base = 2 * side * N_NODES
        h ^= keys[base + pf] ^ keys[base + pt]
        if pc >= 0:
            for k in range(4):
                if (pieces[k] & bit(pc)) != np.uint64(0):
                    h ^= keys[k * N_NODES + pc]
        apply_pawn_move(pieces, side, pf, pt, pc)
        ply += 1
        w, r = material_status(pieces)
        if r >= 0:
            return w, ply, r, digest
        if pc >= 0:
            since = ply
        if sf >= 0:
            apply_stone_move(pieces, side, sf, s_to)
            h ^= keys[base + N_NODES + sf] ^ keys[base + N_NODES + s_to]
        side = 1 - side
        hist[ply] = h
        seen = 0
        for i in range(since, ply + 1):
            if hist[i] == h:
                seen += 1
        if seen >= REPETITION_LIMIT:
            return 0, ply, R_REPETITION, digest


@nb.njit(cache=True)
def unpack_tables(icfg: np.ndarray):
    """``(nbr, rays, mid)`` views of the tables packed in ``icfg``."""
    nbr = icfg[OFF_NBR:OFF_RAYS].reshape((N_NODES, N_DIRS))
    rays = icfg[OFF_RAYS:OFF_MID].reshape((N_NODES, N_DIRS, MAX_RAY))
    mid = icfg[OFF_MID:ICFG_SIZE].reshape((N_NODES, N_NODES))
    return nbr, rays, mid


@nb.njit(cache=True)
def play_chunk_kernel(seed: np.uint64, first_game: int, n_games: int, icfg: np.ndarray,
                      fcfg: np.ndarray, legal, apply, seat, rewards, playout, chance
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`play_chunk` given the agent kernels (the six cfuncs of
    :data:`trilab.solver.tabula_trivium.agents.KERNELS`, used by ``mcts:N`` and
    ``mcts-greedy:N`` seats)."""
    nbr, rays, mid = unpack_tables(icfg)
    keys = zobrist_keys()
    ws = new_workspace()
    pieces = np.empty(4, dtype=np.uint64)
    hist = np.empty(icfg[I_PLY_CAP] + 1, dtype=np.uint64)
    turn = np.empty(TURN_SIZE, dtype=np.int64)
    nodes = np.int64(1)  # not a literal (see play_game)
    for s in range(2):
        kind = icfg[I_KIND0 + 2 * s]
        if kind == POLICY_MCTS or kind == POLICY_MCTS_GREEDY:
            nodes = max(nodes, loop_tree_nodes(icfg[I_DEPTH0 + 2 * s], MAX_ACTIONS))
    mw = new_mcts_work(pack_tables(nbr, rays, mid, keys), icfg[I_PLY_CAP], nodes)
    winners = np.zeros(n_games, dtype=np.int64)
    length = np.zeros(n_games, dtype=np.int64)
    reason = np.zeros(n_games, dtype=np.int64)
    digest = np.zeros(n_games, dtype=np.uint64)
    for g in range(n_games):
        st = rng.game_stream(np.uint64(seed), np.uint64(first_game + g))
        w, n, r, d = play_game(nbr, mid, rays, keys, icfg, st, ws, pieces, hist, turn,
                               legal, apply, seat, rewards, playout, chance, mw)
        winners[g] = w
        length[g] = n
        reason[g] = r
        digest[g] = d
    return winners, length, reason, digest


def play_chunk(seed: np.uint64, first_game: int, n_games: int, icfg: np.ndarray,
               fcfg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Play games ``first_game .. first_game + n_games - 1``; game ``g`` draws only from
    ``rng.game_stream(seed, g)``.  Returns ``(winners, length, reason, digest)``: three
    ``int64`` arrays and the ``uint64`` move digests (module docstring), one entry per
    game.

    A thin Python call of :func:`play_chunk_kernel` that hands it the agent kernels: a
    ``cfunc`` is a first-class function argument of a compiled function, whereas one
    referenced as a global would be compiled in as an address, which a cached compiled
    function cannot keep across processes."""
    return play_chunk_kernel(np.uint64(seed), np.int64(first_game), np.int64(n_games), icfg,
                             fcfg, *agents.KERNELS)


# ------------------------------------------------------------------ configuration


def make_config(options: dict) -> GameConfig:
    """Validate ``{"policies": [one for both seats, or two], "ply_cap": 400}``."""
    unknown = sorted(set(options) - {"policies", "ply_cap"})
    if unknown:
        raise ValueError(f"unknown tabula-trivium option(s): {', '.join(unknown)}")
    policies = options.get("policies", ["random"])
    if isinstance(policies, str):
        policies = [policies]
    policies = list(policies)
    if len(policies) not in (1, 2):
        raise ValueError(
            f"tabula-trivium needs 1 policy (both seats) or 2 (one per seat), got {len(policies)}"
        )
    if len(policies) == 1:
        policies = policies * 2
    parsed = [parse_policy_spec(p) for p in policies]
    ply_cap = options.get("ply_cap", DEFAULT_PLY_CAP)
    if isinstance(ply_cap, bool) or not isinstance(ply_cap, (int, np.integer)) or ply_cap < 1:
        raise ValueError(f"ply_cap must be an integer >= 1, got {ply_cap!r}")
    t = tables()
    icfg = np.zeros(ICFG_SIZE, dtype=np.int64)
    icfg[I_PLY_CAP] = int(ply_cap)
    for seat, spec in enumerate(parsed):
        icfg[I_KIND0 + 2 * seat] = spec.kind
        icfg[I_DEPTH0 + 2 * seat] = spec.arg
        icfg[I_CUT0 + seat] = spec.playout_plies
    icfg[I_INIT:I_INIT + 4] = initial_pieces()
    icfg[OFF_NBR:OFF_RAYS] = t.nbr.ravel()
    icfg[OFF_RAYS:OFF_MID] = t.rays.ravel()
    icfg[OFF_MID:ICFG_SIZE] = t.mid.ravel()
    names = tuple(p.strip() for p in policies)
    return GameConfig(
        n_seats=2,
        seat_policies=names,
        icfg=icfg,
        fcfg=np.zeros(0, dtype=np.float64),
        options={"policies": list(names), "ply_cap": int(ply_cap)},
    )


# ------------------------------------------------------------------ Python API


def _arr(pieces: Pieces) -> np.ndarray:
    return np.array([int(x) for x in pieces], dtype=np.uint64)


def _tup(arr: np.ndarray) -> Pieces:
    return tuple(int(x) for x in arr)


def legal_pawn_moves(pieces: Pieces, side: int) -> list[PawnMove]:
    """Legal pawn movements of ``side`` in list order."""
    t = tables()
    out = np.empty((MAX_PAWN_MOVES, 3), dtype=np.int64)
    n = pawn_moves(t.nbr, t.mid, _arr(pieces), side, out)
    return [tuple(int(v) for v in row) for row in out[:n]]


def legal_stone_moves(pieces: Pieces, side: int) -> list[StoneMove]:
    """Legal stone movements of ``side`` in list order."""
    out = np.empty((MAX_STONE_MOVES, 2), dtype=np.int64)
    n = stone_moves(tables().rays, _arr(pieces), side, out)
    return [tuple(int(v) for v in row) for row in out[:n]]


def play_pawn(pieces: Pieces, side: int, move: PawnMove) -> Pieces:
    """Pieces after a pawn movement of ``side`` (not validated)."""
    a = _arr(pieces)
    apply_pawn_move(a, side, *move)
    return _tup(a)


def play_stone(pieces: Pieces, side: int, move: StoneMove) -> Pieces:
    """Pieces after a stone movement of ``side`` (not validated)."""
    a = _arr(pieces)
    apply_stone_move(a, side, *move)
    return _tup(a)


def game_status(pieces: Pieces, side: int) -> tuple[int, int]:
    """``(winners, reason index)`` at the start of ``side``'s turn; ``(0, -1)``: goes on."""
    w, r = status(tables().nbr, _arr(pieces), side)
    return int(w), int(r)


def material_result(pieces: Pieces) -> tuple[int, int]:
    """``(winners, reason index)`` from material alone; ``(0, -1)`` when both have both."""
    w, r = material_status(_arr(pieces))
    return int(w), int(r)


@nb.njit(cache=True)
def _decide(nbr: np.ndarray, mid: np.ndarray, rays: np.ndarray, pieces: np.ndarray, side: int,
            kind: int, depth: int, seed: int, game: int) -> tuple[np.ndarray, np.uint64]:
    st = rng.game_stream(np.uint64(seed), np.uint64(game))
    ws = new_workspace()
    out = np.empty(TURN_SIZE, dtype=np.int64)
    choose_turn(nbr, mid, rays, pieces, side, kind, depth, st, ws, out)
    return out, rng.next_u64(st)


def decide(policy: str, pieces: Pieces, side: int, seed: int, game: int
           ) -> tuple[PawnMove, StoneMove | None, int]:
    """The turn ``policy`` plays from a position (``side`` must have a pawn movement),
    drawing from ``game_stream(seed, game)``, and the stream's next 64-bit output.
    ``mcts:N`` and ``mcts-greedy:N[:K]`` search as at the first turn of a game (no
    history, ply 0, default ply cap)."""
    kind, depth, cut = parse_policy_spec(policy)
    if kind == POLICY_MCTS or kind == POLICY_MCTS_GREEDY:
        stream = rng.game_stream(np.uint64(seed), np.uint64(game))
        playout = "random" if kind == POLICY_MCTS else f"greedy:{cut}" if cut else "greedy"
        res = agents.agent_game(playout=playout).search(
            agents.from_position(pieces, side), AgentSpec(simulations=depth), stream,
            max_nodes=loop_tree_capacity(depth, MAX_ACTIONS))
        pf, pt, pc, sf, s_to = agents.turn_of(res.action)
        sm = None if sf < 0 else (sf, s_to)
        return (pf, pt, pc), sm, int(rng.next_u64(stream))
    t = tables()
    out, nxt = _decide(t.nbr, t.mid, t.rays, _arr(pieces), side, kind, depth, seed, game)
    pm = (int(out[T_PF]), int(out[T_PT]), int(out[T_PC]))
    sm = None if out[T_SF] < 0 else (int(out[T_SF]), int(out[T_ST]))
    return pm, sm, int(nxt)


def with_start(cfg: GameConfig, pieces: Pieces) -> GameConfig:
    """A copy of ``cfg`` whose games start from ``pieces`` (seat 0 to move), for
    studies of given positions and for tests."""
    values = [int(x) for x in pieces]
    if len(values) != 4 or any(v < 0 or v >> N_NODES for v in values):
        raise ValueError(f"start must be 4 bitboards of {N_NODES} bits, got {pieces!r}")
    if sum(v.bit_count() for v in values) != (values[0] | values[1] | values[2] | values[3]
                                             ).bit_count():
        raise ValueError("start has two pieces on one node")
    icfg = cfg.icfg.copy()
    icfg[I_INIT:I_INIT + 4] = values
    return GameConfig(cfg.n_seats, cfg.seat_policies, icfg, cfg.fcfg.copy(), dict(cfg.options))


def play_games(options: dict, seed: int, first_game: int, n_games: int,
               start: Pieces | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Convenience: :func:`play_chunk` with a configuration built from ``options``
    (games from ``start`` when given): ``(winners, length, reason, digest)``."""
    cfg = make_config(options)
    if start is not None:
        cfg = with_start(cfg, start)
    return play_chunk(np.uint64(seed), np.int64(first_game), np.int64(n_games), cfg.icfg,
                      cfg.fcfg)


SPEC = GameSpec(
    name="tabula-trivium",
    end_reasons=END_REASONS,
    policies=POLICIES,
    make_config=make_config,
    play_chunk=play_chunk,
    reference_game=reference_game,
    draw_reasons=DRAW_REASONS,
)
