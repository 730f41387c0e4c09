"""The house rules of the layout: packages, layers and no import circle.

* every folder with an ``__init__.py`` is a package that ``pyproject.toml``
  installs (so a new game package cannot be forgotten by a wheel);
* layers: nothing under ``solver/`` imports ``analysis`` or the CLI;
* no import circle anywhere, counting imports inside functions too, and every
  module imports on its own in a fresh interpreter (whatever was imported before).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("solver", "analysis")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = ["trilab", *rel.parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    paths = [ROOT / "cli.py", ROOT / "__init__.py"]
    for d in CODE_DIRS:
        paths += sorted((ROOT / d).rglob("*.py"))
    return {_module_name(p): p for p in paths if "__pycache__" not in p.parts}


def _imports(path: Path, known: set[str]) -> set[str]:
    """The trilab modules ``path`` imports (anywhere in the file)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in known else node.module)
    return {n for n in out if n in known}


def test_pyproject_installs_every_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {_module_name(p.parent / "__init__.py") for d in CODE_DIRS
             for p in (ROOT / d).rglob("__init__.py")} | {"trilab"}
    assert listed == found, f"missing {sorted(found - listed)}, stale {sorted(listed - found)}"


def test_engines_never_import_the_studies_or_the_cli():
    """Layers: solver/ (engines, algorithms) imports nothing from analysis/ or cli."""
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("trilab.solver"):
            for target in _imports(path, set(modules) | {"trilab.analysis", "trilab.cli"}):
                assert not target.startswith(("trilab.analysis", "trilab.cli")), (
                    f"{name} imports {target}")


def test_no_import_circle():
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        graph.add_edges_from((name, t) for t in _imports(path, set(modules)) if t != name)
    # a package's __init__ is imported before its modules: not an edge of a circle
    cycles = [c for c in nx.simple_cycles(graph) if len(c) > 1]
    assert not cycles, f"import circles: {cycles[:5]}"


def test_every_module_imports_alone():
    """Each module imports in an interpreter where no trilab module is loaded yet."""
    names = sorted(_modules())
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    for m in [m for m in sys.modules if m == 'trilab' or m.startswith('trilab.')]:\n"
        "        del sys.modules[m]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as e:\n"
        "        print(name, type(e).__name__, e)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
