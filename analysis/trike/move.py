"""An agent's move for one position (``trilab move``), with its search statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from trilab.solver import mcts
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike


class AgentInputError(ValueError):
    """Bad input to an agent command; ``option`` names the CLI option at fault."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class MoveReport:
    """The chosen move of a Trike position and the root statistics of the search."""

    game: str
    size: int
    position: str  # notation, "" for the empty board
    to_move: str  # "b" or "w" (or "b" on the empty board: the opening)
    seat: int
    agent: str
    seed: int
    pie: bool
    result: mcts.SearchResult

    def _move(self, action: int) -> dict | str:
        if action == trike.n_points(self.size):
            return "swap"
        r, c = trike.point_coords(self.size)[action]
        return {"row": r, "col": c}

    def to_json(self) -> dict:
        res = self.result
        visits = []
        for ch in res.children:
            mv = self._move(ch.action)
            row = {"swap": True} if mv == "swap" else dict(mv)
            row.update(visits=ch.visits, value=round(ch.value, 6), proven=ch.proven)
            visits.append(row)
        return {"game": self.game, "size": self.size, "position": self.position,
                "to_move": self.to_move, "agent": self.agent, "seed": self.seed,
                "pie": self.pie, "move": self._move(res.action),
                "simulations": res.simulations, "seconds": round(res.seconds, 4),
                "value": round(res.value, 6), "proven": res.proven, "nodes": res.nodes,
                "visits": visits}

    def text(self, top: int = 10) -> str:
        res = self.result
        mv = self._move(res.action)
        name = "swap" if mv == "swap" else f"({mv['row']},{mv['col']})"
        what = "the opening" if not self.position else f"{self.to_move} to move"
        rate = res.simulations / res.seconds if res.seconds > 0 else float("inf")
        lines = [
            f"trike size {self.size}, {what} (seat {self.seat}); {self.agent}, seed {self.seed}"
            f"{'' if self.pie else ', no pie rule'}",
            f"move {name}   value {res.value:.3f}{' (proven)' if res.proven else ''}",
            f"{res.simulations:,} simulations in {res.seconds:.3f} s ({rate:,.0f}/s), "
            f"{res.nodes:,} nodes",
            f"{'move':>8} {'visits':>10} {'value':>7}",
        ]
        for ch in res.children[:top]:
            m = self._move(ch.action)
            label = "swap" if m == "swap" else f"({m['row']},{m['col']})"
            proven = "  proven" if ch.proven else ""
            lines.append(f"{label:>8} {ch.visits:>10,} {ch.value:>7.3f}{proven}")
        if len(res.children) > top:
            lines.append(f"   ... {len(res.children) - top} more moves")
        return "\n".join(lines)


def trike_move(size: int | None, position: str | None, agent_text: str, seed: int = 0,
               pie: bool = True) -> MoveReport:
    """The agent's move in a Trike position (``None``: the empty board, where
    the agent chooses the opening).  With ``pie``, a position with one checker
    lets the mover swap.  Reproducible for a fixed simulation count and seed
    (the stream ``(seed, 0)``)."""
    try:
        agent = trike_agents.parse_agent(agent_text)
    except ValueError as e:
        raise AgentInputError(str(e), "--agent") from None
    if position:
        try:
            pos = trike.parse_position(position, size, max_size=trike_agents.MAX_SIZE)
        except trike.NotationError as e:
            raise AgentInputError(str(e), "--position") from None
        size = pos.size
        state = trike_agents.from_position(pos, pie)
        to_move = pos.to_move
    else:
        if size is None:
            raise AgentInputError("give --size (the empty board) or --position", "--size")
        try:
            trike_agents.check_size(size)
        except ValueError as e:
            raise AgentInputError(str(e), "--size") from None
        state = trike_agents.new_state(size, pie)
        to_move = "b"
    game = agent.game(size)
    if not game.legal(state):
        raise AgentInputError("the game is over in this position: the pawn is trapped",
                              "--position")
    stream = game_stream(np.uint64(seed), np.uint64(0))
    res = game.search(state, agent.spec, stream)
    return MoveReport("trike", size, position or "", to_move, game.seat(state), agent.text,
                      seed, pie, res)
