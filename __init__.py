"""trilab: solve and analyse four "tri" games (Trike, Tabula Trivium, Trio, Trio cards).

The checkout's root is the ``trilab`` package (see ``pyproject.toml``):
``trilab.solver`` holds the engines and algorithms, ``trilab.analysis`` the
studies, reports and executors, ``trilab.cli`` the command line.
"""
