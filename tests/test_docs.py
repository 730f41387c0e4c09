"""The documentation: every link resolves, the README stays a front door, and
every command shown with its output prints that output.

A shown command is a line `$ trilab ...` (or `$ make ...`) in a fenced block of
README.md or docs/*.md; the lines after it, up to the next `$ ` line or the end
of the block, are its output.  Cheap commands are run here, in a fresh folder,
through click's CliRunner, and their output must match the shown lines:

* a line `...` stands for any number of lines, and `...` inside a line for any
  text (so long lines and tables can be shortened);
* times, rates and the per-opening `seconds` column are not compared (they are
  measurements), nor how many opening classes a time limit let through;
* runs of spaces count as one.

A command too expensive for the tests carries a comment naming the make target
that runs it (`$ trilab solve trike --size 8 ...   # make results-8`); the test
checks that the target exists and runs that command.  `$ make demo` is run
here as the Makefile's demo recipe; other `$ make X` lines need only a target X.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from trilab.cli import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 220

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"!?\[[^\]]*\]\(<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\)")


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def prose(text: str, keep_inline_code: bool = False) -> str:
    """The text outside fenced code blocks (and, unless kept, outside inline code)."""
    kept, inside = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            inside = not inside
            continue
        if not inside:
            kept.append(line if keep_inline_code else re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-'."""
    found = set()
    for line in prose(path.read_text(), keep_inline_code=True).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            title = m.group(1).strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def test_docs_exist():
    names = {p.name for p in DOCS}
    assert {"README.md", "findings.md", "commands.md", "solvers.md", "speed.md",
            "adding-a-game.md"} <= names


def test_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to docs/"


@pytest.mark.parametrize("doc", DOCS, ids=rel)
def test_every_relative_link_points_to_a_file(doc):
    broken = []
    for target in LINK.findall(prose(doc.read_text())):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target} (no heading #{anchor} in {dest.name})")
        elif ROOT not in dest.parents and dest != ROOT:
            broken.append(f"{target} (outside the repository)")
    assert not broken, f"{rel(doc)}: " + "; ".join(broken)


# -- shown commands ------------------------------------------------------------------

@dataclass
class Shown:
    doc: str
    line: int
    command: str
    make_target: str | None  # `# make TARGET`: run by that target, not here
    output: list[str] = field(default_factory=list)


def shown_blocks() -> list[tuple[str, list[Shown]]]:
    """Every fenced block with `$ ` commands, as (id, commands in order)."""
    blocks = []
    for doc in DOCS:
        inside, current = False, []
        for n, line in enumerate(doc.read_text().splitlines(), 1):
            if FENCE.match(line.strip()):
                if inside and current:
                    blocks.append((f"{rel(doc)}:{current[0].line}", current))
                inside, current = not inside, []
                continue
            if not inside:
                continue
            if line.startswith("$ "):
                command, _, comment = line[2:].partition("  #")
                target = re.match(r"\s*make ([\w-]+)", comment)
                current.append(Shown(rel(doc), n, command.strip(),
                                     target.group(1) if target else None))
            elif current:
                current[-1].output.append(line)
    return blocks


def make_targets() -> dict[str, str]:
    """Makefile target -> its recipe text."""
    targets, name = {}, None
    for line in (ROOT / "Makefile").read_text().splitlines():
        m = re.match(r"^([\w-]+):", line)
        if m:
            name = m.group(1)
            targets[name] = ""
        elif name and line.startswith("\t"):
            targets[name] += line + "\n"
        elif not line.strip().startswith("#") and line.strip():
            name = None
    return targets


BLOCKS = shown_blocks()


def test_the_command_reference_shows_every_option():
    """docs/commands.md shows each command's --help (checked against the CLI like any
    shown command), so every option and default is documented and cannot drift."""
    shown = {s.command for _, block in BLOCKS for s in block if s.doc == "docs/commands.md"}
    missing = [name for name in cli.commands if f"trilab {name} --help" not in shown]
    assert not missing, f"docs/commands.md shows no `trilab NAME --help` for {missing}"


def test_the_docs_show_commands():
    commands = [s.command for _, block in BLOCKS for s in block]
    assert "make demo" in commands and "make test" in commands
    assert sum(c.startswith("trilab ") for c in commands) >= 10


@pytest.mark.parametrize("block", [b for _, b in BLOCKS], ids=[i for i, _ in BLOCKS])
def test_every_shown_command_is_run_here_or_by_make(block):
    targets = make_targets()
    for s in block:
        where = f"{s.doc}:{s.line}"
        if s.command.startswith("make "):
            assert s.command.split()[1] in targets, f"{where}: no make target {s.command!r}"
            continue
        assert s.command.startswith("trilab "), f"{where}: shown commands are trilab or make"
        if s.make_target:
            assert s.make_target in targets, f"{where}: no make target {s.make_target}"
            sub = " ".join(s.command.split()[1:3])  # e.g. "solve trike"
            assert f"trilab {sub}" in targets[s.make_target], (
                f"{where}: make {s.make_target} does not run trilab {sub}")


def normalise(text: str) -> str:
    """What a run may change: measured times and rates, and how far a time limit got."""
    out = []
    for line in text.splitlines():
        line = re.sub(r"\b\d[\d,]*(\.\d+)? s\b", "T s", line)
        line = re.sub(r"\(\d[\d,]*(\.\d+)? ?(games)?/s\)", "(R/s)", line)
        line = re.sub(r'"seconds": [\d.e-]+', '"seconds": T', line)
        line = re.sub(r"^(\s*\d+\s+\d+\s+\d+\s+\d+\s+(?:mover|placer)\s.*\s)\d+\.\d+$",
                      r"\1T", line)  # the seconds column of an opening table
        line = re.sub(r"\d+ of (\d+) opening classes are saved",
                      r"N of \1 opening classes are saved", line)
        line = re.sub(r"\(\d+ class(es)? from the checkpoint\)", "(N from the checkpoint)", line)
        out.append(" ".join(line.split()))
    return "\n".join(out).strip("\n")


def matches(shown: list[str], actual: str) -> bool:
    pattern = []
    for line in normalise("\n".join(shown)).splitlines():
        if line == "...":
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(".*?".join(re.escape(part) for part in line.split("...")) + r"\n")
    return re.fullmatch("".join(pattern), normalise(actual) + "\n", re.DOTALL) is not None


def damaged_size7_checkpoint(folder: Path) -> None:
    (folder / "results" / "trike" / "size-7.checkpoint.json").write_text('{"version": 3, "cla')


SETUP = {"trilab solve trike --size 7": damaged_size7_checkpoint}


def fresh_folder(tmp_path: Path) -> Path:
    """A working folder with the committed results some commands read: the size 4-5
    retrograde databases (analyze) and the size-8 records (margins)."""
    trike = tmp_path / "results" / "trike"
    (trike / "db").mkdir(parents=True)
    for n in (4, 5):
        shutil.copy(ROOT / "results" / "trike" / "db" / f"size-{n}.npz", trike / "db")
    for f in (ROOT / "results" / "trike").glob("size-8.*.json"):
        shutil.copy(f, trike)
    shutil.copy(ROOT / "results" / "trike" / "size-8.csv", trike)
    return tmp_path


def demo_command() -> tuple[str, str]:
    """The Makefile's demo recipe: (the line make echoes, the trilab command)."""
    recipe = make_targets()["demo"].strip()
    echoed = recipe.replace("$(VENV)", ".venv")
    return echoed, "trilab " + echoed.split("/bin/trilab ", 1)[1]


RUN_HERE = [(i, b) for i, b in BLOCKS
            if any(not s.make_target and s.command != "make test" for s in b)]


@pytest.mark.parametrize("block", [b for _, b in RUN_HERE], ids=[i for i, _ in RUN_HERE])
def test_shown_output_is_what_the_command_prints(block, tmp_path):
    folder = fresh_folder(tmp_path)
    old = os.getcwd()
    os.chdir(folder)
    try:
        for s in block:
            if s.make_target or s.command == "make test":
                continue
            shown, command = s.output, s.command
            if command == "make demo":
                echoed, command = demo_command()
                assert shown and shown[0] == echoed, f"{s.doc}:{s.line}: make demo echoes {echoed}"
                shown = shown[1:]
            if command in SETUP:
                SETUP[command](folder)
            typed = "".join(m.group(1) + "\n" for line in shown
                            if (m := re.match(r"your move \(\w\)> (\S+)$", line)))
            res = CliRunner().invoke(cli, shlex.split(command)[1:], prog_name="trilab",
                                     input=typed or None)
            if res.exception and not isinstance(res.exception, SystemExit):
                raise res.exception
            error = any(": error:" in line for line in shown)
            assert res.exit_code == (2 if error else 0), f"{s.doc}:{s.line}: {res.output}"
            # a first-run compile notice (no warm-up in this checkout) is not the output
            printed = "\n".join(line for line in res.output.splitlines()
                                 if not line.startswith("trilab: compil"))
            assert matches(shown, printed), (
                f"{s.doc}:{s.line}: `{command}` printed\n{res.output}\nbut the docs show\n"
                + "\n".join(shown))
    finally:
        os.chdir(old)


def test_the_matcher_reads_ellipses_and_ignores_times():
    actual = "Trike size 5: 108,133 nodes, 0.04 s\nrow 1\nrow 2\nrow 3\nWrote a.csv, a.png"
    assert matches(["Trike size 5: 108,133 nodes, 0.27 s", "...", "Wrote a.csv, ..."], actual)
    assert not matches(["Trike size 5: 108,134 nodes, 0.04 s", "..."], actual)
    assert not matches(["Trike size 5: 108,133 nodes, 0.04 s", "row 1"], actual)
