"""An agent's move in a position of a game with a position notation (``trilab move``,
``trilab play``) beyond Trike: Tabula Trivium (:mod:`trilab.solver.tabula_trivium.notation`)
and the Trio board game (:mod:`trilab.solver.trio_board.notation`).

Tabula Trivium's agent is ``mcts:N`` / ``mcts:Ns`` (random playouts) or
``mcts-greedy:N[:K]`` / ``mcts-greedy:Ns[:K]`` (greedy playouts cut after K turns,
default 4: the game loop's ``mcts-greedy:N:K`` policy, with its expansion
threshold).  The Trio board's is ``mcts:N`` / ``mcts:Ns`` (random playouts) or
``mcts-greedy:N[:K]`` (greedy playouts to the end, or cut after K plies), as
its seats play in ``trilab simulate``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from trilab.analysis.trike.move import AgentInputError
from trilab.solver import mcts
from trilab.solver.rng import game_stream
from trilab.solver.tabula_trivium import agents as ta
from trilab.solver.tabula_trivium import notation as tn
from trilab.solver.trio_board import agents as tba
from trilab.solver.trio_board import notation as tbn
from trilab.solver.trio_board.board import check_fortress
from trilab.solver.trio_board.rules import MAX_PLAYOUT_PLIES, PLAYOUT_RANDOM

AGENT_FORMS = ("mcts:N, mcts:Ns, mcts-greedy:N[:K] or mcts-greedy:Ns[:K] (K: playout cutoff); "
               "a budget N@T or Ns@T searches T trees in parallel threads")


def _split_agent(text: str, forms: str, check_cutoff) -> tuple[mcts.AgentSpec, str | None]:
    """``mcts:BUDGET`` or ``mcts-greedy:BUDGET[:K]`` as ``(agent, K)``: ``K`` is None
    for random playouts, ``""`` for greedy ones without a cutoff, and is passed to
    ``check_cutoff`` before the budget is read (by
    :func:`trilab.solver.mcts.parse_agent`); :class:`AgentInputError` if bad."""
    head, _, rest = text.strip().partition(":")
    k = None
    if head == "mcts-greedy":
        budget, _, k = rest.partition(":")
        check_cutoff(k)
        text = f"mcts:{budget}"
    elif head != "mcts":
        raise AgentInputError(f"unknown agent {text!r}; agents: {forms}", "--agent")
    try:
        return mcts.parse_agent(text), k
    except ValueError as e:
        raise AgentInputError(str(e), "--agent") from None


DEFAULT_TABULA_AGENT = "mcts-greedy:1s:4"
"""The computer of ``trilab play tabula-trivium`` unless ``--agent`` says otherwise:
MCTS with greedy playouts, one second a turn (``mcts:N`` with random playouts loses
every game to ``greedy``; docs/findings.md)."""


def parse_tabula_agent(text: str) -> tuple[mcts.AgentSpec, str]:
    """``(agent, playout name)`` of an agent text; :class:`AgentInputError` if bad."""
    def check(k: str) -> None:
        try:
            ta.check_playout(f"greedy:{k or 4}")
        except ValueError as e:
            raise AgentInputError(f"agent {text!r}: {e}", "--agent") from None

    agent, k = _split_agent(text, AGENT_FORMS, check)
    return agent, "random" if k is None else f"greedy:{k or 4}"


def turn_text(code: int) -> str:
    """A turn as ``pf-pt[xc][,sf-st]`` (node numbers; ``x``: the captured node)."""
    pf, pt, pc, sf, st = ta.turn_of(code)
    out = f"{pf}-{pt}" + (f"x{pc}" if pc >= 0 else "")
    return out + (f",{sf}-{st}" if sf >= 0 else "")


@dataclass(frozen=True)
class TabulaMoveReport:
    """The agent's move in a position, with every move's visits and value.  The
    Tabula Trivium report by default; ``game``, ``seat_name`` and ``describe``
    make it another game's (:func:`trio_board_move`)."""

    position: str
    agent: str
    seed: int
    seat: int
    result: mcts.SearchResult
    game: str = "tabula-trivium"
    seat_name: str = ""
    describe: object = None  # action code -> text (default: a Tabula Trivium turn)

    def _text(self, action: int) -> str:
        return (self.describe or turn_text)(action)

    def to_json(self) -> dict:
        res = self.result
        out = {"game": self.game, "position": self.position, "agent": self.agent,
               "seed": self.seed, "seat": self.seat, "move": self._text(res.action)}
        if self.game == "tabula-trivium":
            out["turn"] = list(ta.turn_of(res.action))
        return {**out, "simulations": res.simulations,
                "seconds": round(res.seconds, 4), "value": round(res.value, 6),
                "proven": res.proven, "nodes": res.nodes,
                "visits": [{"move": self._text(c.action), "visits": c.visits,
                            "value": round(c.value, 6), "proven": c.proven}
                           for c in res.children]}

    def text(self, top: int = 10) -> str:
        res = self.result
        seat = self.seat_name or tn.SIDES[self.seat]
        lines = [f"{self.game} {self.position}; {seat} to move; "
                 f"{self.agent}, seed {self.seed}",
                 f"move {self._text(res.action)}   value {res.value:.3f}"
                 f"{' (proven)' if res.proven else ''}",
                 f"{res.simulations:,} simulations in {res.seconds:.3f} s, {res.nodes:,} nodes",
                 f"{'move':>16} {'visits':>10} {'value':>7}"]
        for c in res.children[:top]:
            lines.append(f"{self._text(c.action):>16} {c.visits:>10,} {c.value:>7.3f}"
                         f"{'  proven' if c.proven else ''}")
        if len(res.children) > top:
            lines.append(f"   ... {len(res.children) - top} more moves")
        return "\n".join(lines)


def tabula_state(position: str | None) -> np.ndarray:
    """The agents' state of a position in the notation (``None``: the setup)."""
    try:
        pieces, side, ply = tn.parse_position(position or tn.START)
    except tn.NotationError as e:
        raise AgentInputError(str(e), "--position") from None
    return ta.from_position(pieces, side, ply=ply)


def search(state: np.ndarray, agent_text: str, stream: np.ndarray) -> mcts.SearchResult:
    agent, playout = parse_tabula_agent(agent_text)
    game = ta.agent_game(playout=playout)
    cap = None
    if agent.simulations is not None:  # the game loop's tree capacity
        cap = mcts.loop_tree_capacity(agent.simulations, ta.MAX_ACTIONS)
    return game.search(state.copy(), agent, stream, max_nodes=cap)


def tabula_move(position: str | None, agent_text: str, seed: int = 0) -> TabulaMoveReport:
    """The agent's move in a Tabula Trivium position (the stream ``(seed, 0)``)."""
    parse_tabula_agent(agent_text)
    state = tabula_state(position)
    if ta.result_of(state)[1] >= 0:
        raise AgentInputError("the game is over in this position", "--position")
    res = search(state, agent_text, game_stream(np.uint64(seed), np.uint64(0)))
    pieces, side, ply = ta.pieces_of(state), int(state[ta.S_SIDE]), int(state[ta.S_PLY])
    return TabulaMoveReport(tn.format_position(pieces, side, ply), agent_text.strip(), seed,
                            side, res)


def parse_turn(text: str, legal: list[int]) -> int | None:
    """The legal turn typed as ``pf-pt[,sf-st]`` (the capture is implied), else None."""
    typed = text.replace(" ", "").lower()
    for code in legal:
        pf, pt, pc, sf, st = ta.turn_of(code)
        forms = {f"{pf}-{pt}" + (f",{sf}-{st}" if sf >= 0 else ""), turn_text(code)}
        if typed in forms:
            return code
    return None


def tabula_play(agent_text: str, human_seat: int, seed: int, read, write) -> int:
    """Play Tabula Trivium in the terminal from the setup: the human types turns
    (``pf-pt,sf-st``; ``moves`` lists them, ``quit`` stops), the agent replies.
    Returns the winners bitmask (0: draw or unfinished)."""
    parse_tabula_agent(agent_text)
    state = ta.initial_state()
    game = ta.agent_game()
    stream = game_stream(np.uint64(seed), np.uint64(0))
    write("Nodes are numbered row by row (rows of 4-5-6-7-6-5-4 nodes); A/a: seat A's "
          "pawns/stones, B/b: seat B's.")
    while ta.result_of(state)[1] < 0:
        side = int(state[ta.S_SIDE])
        write(tn.format_position(ta.pieces_of(state), side, int(state[ta.S_PLY])))
        legal = game.legal(state)
        if side == human_seat:
            line = read(f"{tn.SIDES[side]}").strip()
            if line == "quit":
                write("game left unfinished")
                return 0
            if line == "moves":
                write(" ".join(sorted({turn_text(c) for c in legal})))
                continue
            code = parse_turn(line, legal)
            if code is None:
                write(f"not a legal turn: {line!r} (type pf-pt,sf-st; 'moves' lists them)")
                continue
        else:
            code = search(state, agent_text, stream).action
            write(f"{tn.SIDES[side]} plays {turn_text(code)}")
        game.apply(state, code)
    winners, reason = ta.result_of(state)
    from trilab.solver.tabula_trivium.rules import END_REASONS
    who = "draw" if winners == 0 else f"{tn.SIDES[winners.bit_length() - 1]} wins"
    write(f"{tn.format_position(ta.pieces_of(state), int(state[ta.S_SIDE]))}\n"
          f"{who} ({END_REASONS[reason]})")
    return winners


# ------------------------------------------------------------------ the Trio board game

TRIO_AGENT_FORMS = "mcts:N, mcts:Ns or mcts-greedy:N[:K] (greedy playouts, cut after K plies)"


def parse_trio_board_agent(text: str) -> tuple[mcts.AgentSpec, int]:
    """``(agent, playout kind)`` of an agent text (the state's playout setting:
    random, greedy to the end, or greedy cut after K plies)."""
    def check(k: str) -> None:
        if k and (not k.isdigit() or not 1 <= int(k) <= MAX_PLAYOUT_PLIES):
            raise AgentInputError(f"agent {text!r}: K must be 1..{MAX_PLAYOUT_PLIES}",
                                  "--agent")

    agent, k = _split_agent(text, TRIO_AGENT_FORMS, check)
    return agent, PLAYOUT_RANDOM if k is None else int(k or 0)


def trio_move_text(action: int) -> str:
    """A Trio board move as ``from-to`` (cell ids; a Fortress is 52 + its seat), or ``pass``."""
    move = tba.move_of(action)
    return "pass" if move is None else f"{move[0]}-{move[1]}"


def trio_board_move(position: str | None, agent_text: str, seed: int = 0,
                    fortress: str = "sides") -> TabulaMoveReport:
    """The agent's move in a Trio board position (the stream ``(seed, 0)``)."""
    agent, kind = parse_trio_board_agent(agent_text)
    try:
        game = tba.agent_game(check_fortress(fortress))
    except ValueError as e:
        raise AgentInputError(str(e), "--fortress") from None
    try:
        pieces, side, ply = tbn.parse_position(position or tbn.START)
        state = tba.from_position(pieces, side, ply)
    except ValueError as e:  # NotationError included
        raise AgentInputError(str(e), "--position") from None
    if tba.result_of(state)[1] != tba.NO_RESULT:
        raise AgentInputError("the game is over in this position", "--position")
    state[tba.S_PLAYOUT] = kind
    cap = None
    if agent.simulations is not None:  # the game loop's tree capacity
        cap = mcts.loop_tree_capacity(agent.simulations, tba.MAX_ACTIONS)
    res = game.search(state.copy(), agent, game_stream(np.uint64(seed), np.uint64(0)),
                      max_nodes=cap)
    side = res.seat
    return TabulaMoveReport(tbn.format_position(tba.pieces_of(state), side,
                                                int(state[tba.S_PLY])),
                            agent_text.strip(), seed, side, res, game="trio-board",
                            seat_name=f"seat {side}", describe=trio_move_text)
