"""Pile: the tiny game that walks through docs/adding-a-game.md (a test fixture).

A real game is a package ``solver/<game>/``; this one lives in ``tests/`` so
that trilab ships no toy, and ``tests/test_adding_a_game.py`` adds its
registry entry for the length of a test.
"""
