"""`trilab play`: a whole game in the terminal, scripted through stdin."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from trilab.analysis.trike import play
from trilab.cli import cli


def _first_legal(match: play.TrikeMatch, script: list[str]):
    """A read function: the scripted lines first, then the first legal move."""
    lines = list(script)

    def read(prompt: str) -> str:
        if lines:
            return lines.pop(0)
        legal = match.game.legal(match.state)
        return match.describe(legal[0])

    return read


@pytest.mark.parametrize("size", [2, 3, 4])
def test_perfect_opponent_wins_as_the_second_player(size):
    """With the pie rule the second player wins under perfect play, so the
    solver as mover beats any placer."""
    for seed in range(3):
        match = play.new_match(size, "perfect", "placer", seed)
        out: list[str] = []
        winner = play.play(match, _first_legal(match, []), out.append)
        assert winner == 1
        assert "the computer wins" in out[-1]


def test_illegal_input_is_refused_with_its_reason():
    match = play.new_match(3, "perfect", "placer", seed=0)
    out: list[str] = []
    script = ["hello", "7,7", "swap", "1,0"]
    play.play(match, _first_legal(match, script), out.append)
    refusals = [line for line in out if line.startswith("illegal:")]
    assert refusals == [
        "illegal: type a move as row,col (for example 3,1) or swap",
        "illegal: (7,7) is not on the board: rows 0..2, columns 0..row",
        "illegal: swap is only allowed as the second player's first move (pie rule)",
    ]
    assert match.history[0] == "1,0"


def test_occupied_and_unreachable_points_are_refused():
    match = play.new_match(4, "mcts:50", "placer", seed=0)
    match.play(0)  # b on the apex
    match.play(2)  # w on (1,1)
    assert match.parse_move("0,0") == (None, "(0,0) already holds a checker")
    action, reason = match.parse_move("3,0")
    assert action is None and "straight line" in reason
    assert match.parse_move("1,1")[1] == "(1,1) already holds a checker"
    assert match.parse_move("3,3")[0] == 9  # along the right edge, over empty points


def test_the_cli_plays_a_scripted_game_to_the_end():
    """Placer on (2,1) of size 3: the perfect mover swaps (the placer wins that
    opening), and the game is played out from the script."""
    moves = "\n".join(["2,1", "oops", "1,0", "1,1", "0,0", "2,0", "2,2"]) + "\n"
    res = CliRunner().invoke(cli, ["play", "trike", "--size", "3", "--agent", "perfect"],
                             input=moves)
    assert "computer (w): swap" in res.output
    assert "illegal: type a move as row,col" in res.output
    assert "game over after" in res.output and "the computer wins" in res.output
    assert res.exit_code == 0, res.output


def test_the_default_computer_is_each_games_strongest_agent(monkeypatch):
    """Without --agent, Trike is played by the calibrated agent and Tabula Trivium
    by MCTS with greedy playouts; explore's default is the same Trike agent."""
    from trilab.analysis import move as tabula
    from trilab.analysis.explorer import server
    from trilab.analysis.trike import play as trike_play
    from trilab.cli import explore
    from trilab.solver.trike import agents as trike_agents

    seen = []

    def stop(*args, **kwargs):
        seen.append(args[0] if "tabula" in stop.game else args[1])
        raise EOFError

    stop.game = "trike"
    monkeypatch.setattr(trike_play, "new_match", stop)
    CliRunner().invoke(cli, ["play", "trike", "--size", "4"])
    stop.game = "tabula"
    monkeypatch.setattr(tabula, "tabula_play", stop)
    CliRunner().invoke(cli, ["play", "tabula-trivium"])
    assert seen == [trike_agents.DEFAULT_AGENT, tabula.DEFAULT_TABULA_AGENT]
    assert trike_agents.parse_agent(seen[0]).squeeze
    tabula.parse_tabula_agent(seen[1])  # a valid Tabula Trivium agent
    option = next(p for p in explore.params if p.name == "agent_text")
    assert option.default == trike_agents.DEFAULT_AGENT == server.Explorer().analyst.agent.text


def test_agent_game_on_a_larger_board_is_reproducible():
    outs = []
    for _ in range(2):
        match = play.new_match(6, "mcts:200", "mover", seed=5)
        out: list[str] = []
        play.play(match, _first_legal(match, []), out.append)
        outs.append(out)
    assert outs[0] == outs[1]
    assert outs[0][-1].startswith("game over")


@pytest.mark.parametrize("args, needle", [
    (["--size", "20"], "not in 2..19"),
    (["--size", "8", "--agent", "perfect"], "sizes up to 7"),
    (["--agent", "mcts:0"], "at least 1"),
    (["--agent", "clever"], "unknown agent"),
    (["--as", "both"], "'both' is not one of"),
])
def test_bad_options_are_one_line(args, needle):
    res = CliRunner().invoke(cli, ["play", "trike", *args], input="")
    assert res.exit_code == 2
    assert len(res.stderr.strip().splitlines()) == 1 and needle in res.stderr
