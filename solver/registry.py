"""The game registry: the one list of trilab's games.

Everything that needs to know which games exist reads :data:`GAMES`: the
command line (game names, which commands apply, options and policies in the
help and errors), the Monte Carlo driver (which module plays a simulated
game), the studies (result folders) and the tests (the contract test
``tests/test_game_contract.py`` runs over every entry).  Importing this module
is cheap: it holds only data, and a game's engine is imported by
:meth:`~trilab.solver.game_api.GameInfo.load` when it is needed.

Adding a game = one package ``solver/<game>/`` implementing the game API of
:mod:`trilab.solver.game_api` (an engine and its pure-Python reference, plus
``SPEC``, ``SOLVABLE`` or agent kernels as the game's uses require) and one
:class:`~trilab.solver.game_api.GameInfo` entry here.
"""

from __future__ import annotations

from trilab.solver.game_api import GameInfo

GAMES: dict[str, GameInfo] = {
    g.name: g
    for g in (
        GameInfo(
            name="trike",
            module="trilab.solver.trike.engine",
            reference="trilab.solver.trike.reference",
            title="Trike (2 players, pie rule)",
            players=(2,),
            solvable=True,
            agents="trilab.solver.trike.agents",
            agent_examples=({"size": 2}, {"size": 5}, {"size": 13}, {"size": 19}),
            options={"size": "board side, 2..10 for the exact solvers, 2..19 for the agents"},
            end_reasons=("pawn trapped",),
            examples=({"size": 2}, {"size": 3}, {"size": 5}, {"size": 7}, {"size": 10}),
            bad_options=(({"size": 1}, "not in 2..10"), ({"size": 11}, "not in 2..10")),
        ),
        GameInfo(
            name="tabula-trivium",
            module="trilab.solver.tabula_trivium.game",
            reference="trilab.solver.tabula_trivium.reference",
            title="Tabula Trivium (2 players)",
            players=(2,),
            simulated=True,
            agents="trilab.solver.tabula_trivium.agents",
            agent_examples=({}, {"ply_cap": 30}, {"ply_cap": 30, "playout": "greedy"}),
            options={"policies": "one policy for both seats, or one per seat",
                     "ply_cap": "turns after which the game is drawn (default 400)"},
            policies={"random": "uniform over the legal turns",
                      "greedy": "captures, avoids leaving pieces capturable, else random",
                      "lookahead:D": "depth-D alpha-beta on material and mobility (D 1..4)",
                      "mcts:N": "Monte Carlo tree search, N simulations per turn (N >= 1)",
                      "mcts-greedy:N": "mcts:N with greedy playouts to the end (N >= 1)",
                      "mcts-greedy:N:K": "mcts-greedy:N, playouts cut after K turns and "
                                         "scored by material (K 1..10000)"},
            end_reasons=("no stones", "no pawns", "pawns blocked", "ply cap", "repetition"),
            examples=({"policies": ["random"]}, {"policies": ["greedy", "random"]},
                      {"policies": ["lookahead:1", "greedy"], "ply_cap": 60},
                      {"policies": ["mcts:16", "greedy"], "ply_cap": 40},
                      {"policies": ["mcts-greedy:8:4", "greedy"], "ply_cap": 40}),
            bad_options=(({"policies": ["clever"]}, "unknown policy"),
                         ({"policies": ["random"] * 3}, "needs 1 policy"),
                         ({"policies": ["lookahead:9"]}, "bad lookahead depth"),
                         ({"policies": ["mcts:0"]}, "bad mcts simulations"),
                         ({"policies": ["mcts-greedy:0"]}, "bad mcts-greedy simulations"),
                         ({"policies": ["mcts-greedy:9:0"]}, "bad mcts-greedy playout cutoff"),
                         ({"ply_cap": 0}, "ply_cap"),
                         ({"colour": "red"}, "unknown tabula-trivium option")),
        ),
        GameInfo(
            name="trio-cards",
            module="trilab.solver.trio_cards.game",
            reference="trilab.solver.trio_cards.reference",
            title="Trio, the card game (3-6 players)",
            players=(3, 4, 5, 6),
            simulated=True,
            options={"players": "number of players, 3..6 (default 3)",
                     "mode": "simple or spicy (default simple)",
                     "teams": "team play, 4 or 6 players",
                     "policies": "one policy for all seats, one per seat, or one per team",
                     "turn_cap": "turns after which the game is unfinished (default 500)"},
            policies={"random": "uniform over the legal reveals",
                      "memory": "remembers every reveal, completes sure trios",
                      "forgetful:P": "memory that forgets each record with probability P",
                      "deduce": "exact belief over the hidden cards; sure trios, else the "
                                "best estimated trio chance",
                      "infer:K": "deduce that also reads the opponents' reveals: K deals "
                                 "a reveal, weighed by whether deduce would have chosen so",
                      "ismcts:N": "information-set MCTS, N determinizations a reveal, "
                                  "memory playouts",
                      "ismcts-deduce:N": "ismcts:N with deduce playouts",
                      "ismcts-flat:N": "flat deduce rollouts at a turn's first reveal, "
                                       "kept only when clearly better than deduce",
                      "ismcts-infer:N": "ismcts:N on infer:64's weighted deals, infer's "
                                        "reveal as the prior, deduce playouts"},
            end_reasons=("three trios", "linked trios", "sevens", "turn cap"),
            examples=({"players": 3, "policies": ["random"]},
                      {"players": 5, "mode": "spicy", "policies": ["memory"]},
                      {"players": 4, "mode": "spicy", "teams": True,
                       "policies": ["memory", "random"]},
                      {"players": 6, "teams": True, "policies": ["forgetful:0.3"]},
                      {"players": 3, "policies": ["deduce", "memory", "memory"]},
                      {"players": 4, "mode": "spicy", "teams": True,
                       "policies": ["memory", "deduce"]}),
            bad_options=(({"players": 7}, "players"),
                         ({"players": 5, "teams": True}, "team play needs 4 or 6 players"),
                         ({"policies": ["clever"]}, "unknown policy"),
                         ({"policies": ["ismcts:0"]}, "bad policy 'ismcts:0'"),
                         ({"mode": "mild"}, "mode")),
        ),
        GameInfo(
            name="trio-board",
            module="trilab.solver.trio_board.game",
            reference="trilab.solver.trio_board.reference",
            title="Trio, the board game (3 players, 1917)",
            players=(3,),
            simulated=True,
            agents="trilab.solver.trio_board.agents",
            agent_examples=({}, {"fortress": "row3"},
                            {"fortress": "general", "lost_general": "remove", "ply_cap": 100}),
            options={"policies": "one policy for all seats, or one per seat",
                     "fortress": "cells touching a Fortress: sides, row3 or general "
                                 "(default sides)",
                     "ply_cap": "plies after which the game is unfinished (default 600)",
                     "lost_general": "keep (default) or remove a seat whose General is lost"},
            policies={"random": "uniform over the legal moves",
                      "greedy": "enters a Fortress, else the most valuable capture, "
                                "else the largest advance",
                      "mcts:N": "Monte Carlo tree search, N simulations per move (N >= 1)",
                      "mcts-greedy:N": "mcts:N with greedy playouts to the end (N >= 1)",
                      "mcts-greedy:N:K": "mcts-greedy:N, playouts cut after K plies and "
                                         "scored by material and General distance "
                                         "(K 1..10000)"},
            end_reasons=("fortress", "no generals", "ply cap"),
            examples=({"policies": ["random"]},
                      {"policies": ["greedy"], "fortress": "row3"},
                      {"policies": ["random", "greedy", "random"], "fortress": "general"},
                      {"policies": ["greedy", "random", "greedy"], "lost_general": "remove",
                       "ply_cap": 200},
                      {"policies": ["mcts:16", "greedy", "random"], "ply_cap": 40},
                      {"policies": ["mcts-greedy:8:4", "greedy", "random"], "ply_cap": 40}),
            bad_options=(({"fortress": "diagonal"}, "unknown fortress option"),
                         ({"policies": ["clever"]}, "unknown policy"),
                         ({"policies": ["random", "greedy"]}, "needs 1 policy"),
                         ({"policies": ["mcts:0"]}, "bad mcts simulations"),
                         ({"policies": ["mcts-greedy:5:0"]}, "bad playout cutoff"),
                         ({"ply_cap": 0}, "ply_cap"),
                         ({"lost_general": "vanish"}, "lost_general"),
                         ({"players": 4}, "unknown trio-board option")),
        ),
    )
}
"""Every game trilab implements, by name."""


def get(name: str) -> GameInfo:
    """The registry entry of ``name``; ``ValueError`` naming the games if unknown."""
    if name in GAMES:
        return GAMES[name]
    raise ValueError(f"unknown game {name!r}; games: {', '.join(GAMES)}")


def solvable() -> list[str]:
    return [g.name for g in GAMES.values() if g.solvable]


def simulated() -> list[str]:
    return [g.name for g in GAMES.values() if g.simulated]


def with_agents() -> list[str]:
    return [g.name for g in GAMES.values() if g.agents]
