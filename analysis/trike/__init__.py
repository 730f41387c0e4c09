"""Trike-only studies, one module per command: ``solve`` (on ``openings``),
``confirm``, ``margins`` (on ``margin_search``), ``analyze``, ``move``,
``play``, ``strength`` and ``balance``; ``size_table`` owns a size's opening
table and the records beside it."""
