"""A game of Trike in the terminal against an agent or the exact solver (``trilab play``).

The human and the computer take the two seats: seat 0 (the *placer*) puts the
first checker (colour ``b``); with the pie rule seat 1 (the *mover*) then
either swaps (takes ``b`` and the position, and seat 0 moves next as ``w``)
or plays on.  Moves are typed ``row,col`` (row 0 is the apex, column 0 the
left end of the row) or ``swap``; an illegal move is refused with its reason
and asked again.  The board is drawn after each move.

Opponents: ``mcts:N`` / ``mcts:Ns`` (the MCTS agent; its move ``k`` of the
game draws from the stream ``(seed, k)``), or ``perfect``, the alpha-beta
solver (board sides up to :data:`PERFECT_MAX_SIZE`): it swaps exactly the
openings the placer wins, plays a winning move whenever it has one (the one
with the best margin) and otherwise the move that loses by the least.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from trilab.solver.rng import game_stream
from trilab.solver.trike import agents as trike_agents
from trilab.solver.trike import engine as trike

PERFECT_MAX_SIZE = 7
"""Largest side the ``perfect`` opponent plays (size 8 openings take hours)."""


class PlayInputError(ValueError):
    """Bad options for a game (one line, with the option at fault)."""

    def __init__(self, message: str, option: str | None = None):
        super().__init__(message)
        self.option = option


@dataclass
class TrikeMatch:
    """The state of one game: the engine state plus the notation mirror."""

    size: int
    pie: bool
    human_seat: int
    opponent: str  # "perfect" or an agent spec text
    seed: int = 0
    state: np.ndarray = field(init=False)
    black: int = 0
    white: int = 0
    pawn: int = -1
    history: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.state = trike_agents.new_state(self.size, self.pie)
        self._solver = None
        self._agent = (None if self.opponent == "perfect"
                       else trike_agents.parse_agent(self.opponent))
        self.game = (trike_agents.agent_game(self.size) if self._agent is None
                     else self._agent.game(self.size))

    # -------------------------------------------------------------- queries

    @property
    def swap_action(self) -> int:
        return trike.n_points(self.size)

    def seat_to_move(self) -> int:
        return self.game.seat(self.state)

    def colour_of_seat(self, seat: int) -> str:
        b_seat = int(self.state[trike_agents.S_B_SEAT])
        return "b" if seat == b_seat else "w"

    def over(self) -> bool:
        return self.pawn >= 0 and not self.game.legal(self.state)

    def position(self) -> trike.TrikePosition:
        return trike.TrikePosition(self.size, self.black, self.white, self.pawn)

    def render(self) -> str:
        """The board as text: rows from the apex, the pawn in upper case."""
        lines = []
        for r in range(self.size):
            cells = []
            for c in range(r + 1):
                p = trike.point_index(r, c)
                ch = "b" if self.black >> p & 1 else "w" if self.white >> p & 1 else "."
                cells.append(ch.upper() if p == self.pawn else ch)
            lines.append(f"{r:>3} " + " " * (self.size - 1 - r) + " ".join(cells))
        return "\n".join(lines)

    # -------------------------------------------------------------- moves

    def parse_move(self, text: str) -> tuple[int | None, str]:
        """``(action, "")`` for a legal move, else ``(None, reason)``."""
        text = text.strip().lower()
        legal = self.game.legal(self.state)
        if text == "swap":
            if self.swap_action in legal:
                return self.swap_action, ""
            return None, "swap is only allowed as the second player's first move (pie rule)"
        parts = text.replace("(", "").replace(")", "").replace(" ", "").split(",")
        if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
            return None, "type a move as row,col (for example 3,1) or swap"
        r, c = int(parts[0]), int(parts[1])
        if not 0 <= c <= r < self.size:
            return None, (f"({r},{c}) is not on the board: rows 0..{self.size - 1}, "
                          f"columns 0..row")
        p = trike.point_index(r, c)
        if p in legal:
            return p, ""
        if (self.black | self.white) >> p & 1:
            return None, f"({r},{c}) already holds a checker"
        return None, (f"({r},{c}) cannot be reached: the pawn moves in a straight line "
                      "over empty points")

    def describe(self, action: int) -> str:
        if action == self.swap_action:
            return "swap"
        r, c = trike.point_coords(self.size)[action]
        return f"{r},{c}"

    def play(self, action: int) -> None:
        colour = "b" if int(self.state[trike_agents.S_COUNT]) % 2 == 0 else "w"
        self.history.append(self.describe(action))
        self.game.apply(self.state, action)
        if action == self.swap_action:
            return
        if colour == "b":
            self.black |= 1 << action
        else:
            self.white |= 1 << action
        self.pawn = action

    def computer_move(self) -> tuple[int, str]:
        """The opponent's action and a one-line comment."""
        if self._agent is not None:
            stream = game_stream(np.uint64(self.seed), np.uint64(len(self.history)))
            res = self.game.search(self.state, self._agent.spec, stream)
            note = f"value {res.value:.2f}{' (proven)' if res.proven else ''}, " \
                   f"{res.simulations:,} simulations"
            return res.action, note
        return self._perfect_move()

    def _perfect_move(self) -> tuple[int, str]:
        from trilab.solver.trike.alphabeta import AlphaBetaSolver

        if self._solver is None:
            self._solver = AlphaBetaSolver(self.size, tt_mb=256)
        legal = self.game.legal(self.state)
        if self.pawn < 0:  # the opening: every one loses against perfect play with the pie
            rnd = random.Random(self.seed)
            point = rnd.randrange(trike.n_points(self.size))
            return point, "an opening (with the pie rule none wins against perfect play)"
        pos = self.position()
        if self.swap_action in legal:
            placer_wins = not self._solver.is_win(pos)
            if placer_wins:
                return self.swap_action, "the placer wins this opening, so it swaps"
        best, best_margin = None, None
        for action in legal:
            if action == self.swap_action:
                continue
            margin = -self._solver.margin(pos.play(action))
            if best_margin is None or margin > best_margin:
                best, best_margin = action, margin
        word = "wins" if best_margin > 0 else "loses"
        return best, f"perfect play: {word} by {abs(best_margin)}"

    def result(self) -> tuple[dict[str, int], str, int]:
        """``(scores by colour, winning colour, winning seat)`` of a finished game."""
        pos = self.position()
        cells = [self.pawn] + [trike.point_index(*n) for n in _neighbours(self.size, self.pawn)]
        scores = {"b": sum(pos.black >> p & 1 for p in cells),
                  "w": sum(pos.white >> p & 1 for p in cells)}
        colour = "b" if scores["b"] > scores["w"] else "w"
        b_seat = int(self.state[trike_agents.S_B_SEAT])
        seat = b_seat if colour == "b" else 1 - b_seat
        return scores, colour, seat


def _neighbours(size: int, point: int) -> list[tuple[int, int]]:
    r, c = trike.point_coords(size)[point]
    out = []
    for dr, dc in trike.DIRECTIONS:
        if 0 <= c + dc <= r + dr < size:
            out.append((r + dr, c + dc))
    return out


def new_match(size: int, opponent: str, as_seat: str = "placer", seed: int = 0,
              pie: bool = True) -> TrikeMatch:
    """Validate the options (one-line :class:`PlayInputError`) and set up a game."""
    try:
        trike_agents.check_size(size)
    except ValueError as e:
        raise PlayInputError(str(e), "--size") from None
    if opponent == "perfect":
        if size > PERFECT_MAX_SIZE:
            raise PlayInputError(f"the perfect opponent plays sizes up to {PERFECT_MAX_SIZE} "
                                 f"(size {size} positions are too slow to solve move by move); "
                                 "use --agent mcts:N", "--agent")
    else:
        try:
            trike_agents.parse_agent(opponent)
        except ValueError as e:
            raise PlayInputError(f"{e} (or perfect)", "--agent") from None
    if as_seat not in ("placer", "mover"):
        raise PlayInputError(f"--as must be placer or mover, not {as_seat!r}", "--as")
    return TrikeMatch(size, pie, 0 if as_seat == "placer" else 1, opponent, seed)


def play(match: TrikeMatch, read: Callable[[str], str], write: Callable[[str], None]) -> int:
    """Play ``match`` to the end, reading the human's moves with ``read(prompt)``
    and printing with ``write``; returns the winning seat."""
    you = "placer (seat 0, first checker)" if match.human_seat == 0 else \
        "mover (seat 1, may swap)"
    write(f"Trike size {match.size}{', pie rule' if match.pie else ''}: you are the {you}; "
          f"the computer plays {match.opponent}.")
    write("Moves: row,col (row 0 is the apex, column 0 the left end of a row) or swap.")
    write(match.render())
    while not match.over():
        seat = match.seat_to_move()
        colour = match.colour_of_seat(seat)
        if seat == match.human_seat:
            while True:
                action, reason = match.parse_move(read(f"your move ({colour})"))
                if action is not None:
                    break
                write(f"illegal: {reason}")
            match.play(action)
            write(f"you: {match.describe(action)}")
        else:
            action, note = match.computer_move()
            match.play(action)
            write(f"computer ({colour}): {match.describe(action)}   [{note}]")
        write(match.render())
    scores, colour, seat = match.result()
    who = "you win" if seat == match.human_seat else "the computer wins"
    write(f"game over after {len(match.history)} moves: b {scores['b']}, w {scores['w']} "
          f"around the pawn; {colour} wins ({who}).")
    return seat
