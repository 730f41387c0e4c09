"""The compile notice and the warm-up's stamp (trilab.solver.compiled), without compiling."""

from __future__ import annotations

import io
import os

from trilab.solver import compiled


def _no_probe(monkeypatch):
    """Entry files without replaying the game in a process: every kernel source."""
    monkeypatch.setattr(compiled, "entry_files", lambda game: [
        str(f.relative_to(compiled.SOLVER)) for f in compiled.kernel_sources(game)])


def _fake_compile(calls):
    def compile_game(game):
        calls.append(game)
        return 0.0
    return compile_game


def test_notice_once_then_silent(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    calls: list[str] = []
    monkeypatch.setattr(compiled, "compile_game", _fake_compile(calls))
    _no_probe(monkeypatch)
    assert not compiled.is_warm("trio-cards")
    err = io.StringIO()
    compiled.ensure_compiled("trio-cards", stream=err)
    assert err.getvalue().startswith("trilab: compiling the Trio card game engine (first run only")
    assert calls == ["trio-cards"] and compiled.is_warm("trio-cards")
    err = io.StringIO()
    compiled.ensure_compiled("trio-cards", stream=err)
    assert err.getvalue() == "" and calls == ["trio-cards"]
    assert not compiled.is_warm("trike")  # per game


def test_key_follows_what_numba_checks(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "a"))
    key = compiled.cache_key("tabula-trivium")
    assert compiled.cache_key("tabula-trivium") == key
    sources = {f.name for f in compiled.kernel_sources("tabula-trivium")}
    assert {"game.py", "policies.py", "rules.py", "agents.py", "mcts.py"} <= sources
    assert "reference.py" not in sources  # no kernels: editing it compiles nothing
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "b"))
    assert compiled.cache_key("tabula-trivium") != key  # another cache folder
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "a"))
    monkeypatch.setattr(compiled, "_numba_version", lambda: "0.0.0")
    assert compiled.cache_key("tabula-trivium") != key  # another Numba


def test_edited_entry_module_is_cold(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(compiled, "compile_game", _fake_compile([]))
    monkeypatch.setattr(compiled, "SOLVER", tmp_path)
    monkeypatch.setattr(compiled, "entry_files", lambda game: ["trio_cards/game.py"])
    src = tmp_path / "trio_cards" / "game.py"
    src.parent.mkdir()
    src.write_text("x = 1\n")
    compiled.ensure_compiled("trio-cards", stream=io.StringIO())
    assert compiled.is_warm("trio-cards")
    os.utime(src, (1, 1))  # touched: Numba compares the contents, so still warm
    assert compiled.is_warm("trio-cards")
    src.write_text("x = 2\n")
    assert not compiled.is_warm("trio-cards")
    src.unlink()
    assert not compiled.is_warm("trio-cards")


def test_entry_files_are_the_kernels_called_from_python(tmp_path):
    """Replayed on a warm cache, a game looks up its entry kernels only (Numba cache of
    the test run; compiles trio-cards if it is cold)."""
    compiled.compile_game("trio-cards")  # fill the cache first (a no-op load when warm)
    files = compiled.entry_files("trio-cards")
    assert files == ["trio_cards/game.py"]  # not mcts.py, rng.py, bitboard.py: callees


def test_warm_up_is_a_no_op_when_warm(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    calls: list[str] = []
    monkeypatch.setattr(compiled, "compile_game", _fake_compile(calls))
    _no_probe(monkeypatch)
    out = io.StringIO()
    assert set(compiled.warm_up(jobs=1, out=out)) == set(compiled.ORDER)
    out = io.StringIO()
    assert compiled.warm_up(jobs=1, out=out) == {}
    assert out.getvalue() == ""
    assert sorted(calls) == sorted(compiled.ORDER)


def test_stale_caches_are_purged_when_any_source_changes(tmp_path):
    """Numba keys a cache on its own file only; an edited callee module must still
    make every cached kernel of the package compile afresh."""
    root = tmp_path / "solver"
    (root / "game" / "__pycache__").mkdir(parents=True)
    (root / "rules.py").write_text("X = 1\n")
    (root / "game" / "engine.py").write_text("Y = 2\n")
    cached = root / "game" / "__pycache__" / "engine.play-10.py311.nbi"
    cache = root / "__pycache__"
    cache.mkdir()
    other = cache / "rules.f-3.py311.nbc"
    stamp = cache / "trilab-compiled.json"
    for f in (cached, other, stamp):
        f.write_text("x")
    assert compiled.purge_stale_caches(root, cache) == 2  # no record yet: purge once
    assert not cached.exists() and not other.exists() and not stamp.exists()
    cached.write_text("x")
    assert compiled.purge_stale_caches(root, cache) == 0 and cached.exists()  # unchanged
    (root / "rules.py").write_text("X = 3\n")  # a callee module edited
    assert compiled.purge_stale_caches(root, cache) == 1 and not cached.exists()
    assert compiled.purge_stale_caches(root, cache) == 0


def test_the_notice_estimate_schedules_longest_first():
    """The order hands the longest compile out first; the estimate is the busiest
    process of that schedule (all on one process: the sum; one each: the longest)."""
    secs = [compiled.COMPILE_SECONDS[g] for g in compiled.ORDER]
    assert secs == sorted(secs, reverse=True)
    games = list(compiled.ORDER)
    assert compiled.estimate_seconds(games, 1) == sum(secs)
    assert compiled.estimate_seconds(games, len(games)) == max(secs)
    two = compiled.estimate_seconds(games, 2)
    assert max(secs) <= two <= sum(secs) and two >= sum(secs) / 2
    assert compiled.estimate_seconds(["no-such-game"], 2) == 30
