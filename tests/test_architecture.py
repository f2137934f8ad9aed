"""The layers of docs/architecture.md: every import points down, and nothing hides an import in a function.

`lint-imports` (import-linter) checks the contracts in pyproject.toml; these tests check that it passes on the
tree, that it *fails* when any of the loops the layering removed comes back (so the contracts are not
vacuous), and that no function-level import of a ``sumito`` module exists beyond the two that are deferred on
purpose (an optional library; the web server's start-up).
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sumito"
LINT = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))

#: function-level imports of sumito modules that are deferred on purpose (each has a comment saying why)
DEFERRED = {
    ("players/openspiel_mcts.py", "sumito.rlcore"),  # OpenSpiel, an optional extra, when a player is made
    ("web/commands.py", "sumito.web.app"),  # FastAPI and the app, only when `sumito serve` starts a server
}


def function_level_imports(path: Path) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if in_function and isinstance(child, ast.ImportFrom) and (child.level or (child.module or "")
                                                                       .startswith("sumito")):
                found.append((child.module or "." * child.level, child.lineno))
            if in_function and isinstance(child, ast.Import):
                found.extend((a.name, child.lineno) for a in child.names if a.name.startswith("sumito"))
            visit(child, inner)

    visit(ast.parse(path.read_text()), False)
    return found


def test_no_sumito_import_hides_in_a_function():
    stray = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for module, line in function_level_imports(path):
            if (rel, module) not in DEFERRED:
                stray.append(f"{rel}:{line} imports {module} inside a function")
    assert not stray, "\n".join(stray)


def test_the_finder_sees_a_function_level_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from sumito.learn import training\n    return training\n")
    assert function_level_imports(probe) == [("sumito.learn", 2)]


def lint(src_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src_root)}
    return subprocess.run([LINT, str(ROOT / "pyproject.toml"), "--no-cache", "--no-logo"], cwd=src_root,
                          env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def lint_available():
    if not Path(LINT).exists():
        pytest.fail("lint-imports is not installed: pip install -e '.[test]'")


def test_the_layers_hold(lint_available):
    result = lint(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


#: the loops the layering removed, each brought back by one function-level import: (file, import, the
#: dependency lint-imports must then report)
LOOPS = [
    ("players/td.py", "from sumito.learn import training", "sumito.players.td -> sumito.learn.training"),
    ("evaluation/features.py", "from sumito.learn import commands", "sumito.evaluation.features -> sumito.learn"),
    ("players/random.py", "from sumito.rl import gym_env", "sumito.players.random -> sumito.rl.gym_env"),
    ("cliargs.py", "from sumito.arena import executor", "sumito.cliargs -> sumito.arena.executor"),
    ("bounds.py", "from sumito.engine import errors", "sumito.bounds -> sumito.engine.errors"),
    ("fileio.py", "from sumito.engine import errors", "sumito.fileio -> sumito.engine.errors"),
    ("learn/actors.py", "from sumito.learn import commands", "No cycles are allowed in sumito.learn."),
    ("engine/notation.py", "from sumito.engine import position", "No cycles are allowed in sumito.engine."),
    ("games/backgammon/board.py", "from sumito.games.backgammon import position_id",
     "No cycles are allowed in sumito.games.backgammon."),
]


def test_the_contracts_fail_when_a_loop_comes_back(tmp_path, lint_available):
    copy = tmp_path / "src" / "sumito"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc", "data", "static"))
    for rel, statement, _ in LOOPS:
        path = copy / rel
        path.write_text(path.read_text() + f"\n\ndef _loop_back():\n    {statement}\n")
    result = lint(tmp_path / "src")
    out = result.stdout + result.stderr
    assert result.returncode != 0 and "0 kept, 2 broken" in out, out
    for rel, _, dependency in LOOPS:
        assert dependency in out, f"{rel}: {dependency} not reported\n{out}"
