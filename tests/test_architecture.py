"""The layers of docs/architecture.md: every import points down, and nothing hides an import in a function.

`lint-imports` (import-linter) checks the contracts in pyproject.toml; these tests check that it passes on the
tree, that it *fails* when any of the loops the layering removed comes back (so the contracts are not
vacuous), and that no function-level import of a ``sumito`` module exists beyond the two that are deferred on
purpose (an optional library; the web server's start-up).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from sumito.arena.backgammon import run_match
from sumito.evaluation.nnue import load_network
from sumito.games.backgammon.board import from_position_id, position_id
from sumito.learn.backgammon.run import BackgammonRun, BackgammonRunConfig
from sumito.models.backgammon.modular import ModularValue
from sumito.models.learned import network_params
from sumito.models.network import ValueNetwork
from sumito.rl import ArrayGame

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "sumito"
LINT = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))

#: function-level imports of sumito modules that are deferred on purpose (each has a comment saying why)
DEFERRED = {
    ("players/openspiel_mcts.py", "sumito.rlcore"),  # OpenSpiel, an optional extra, when a player is made
    ("cli/serve.py", "sumito.web.app"),  # FastAPI and the app, only when `sumito serve` starts a server
    ("cli/serve.py", "sumito.web.connections"),  # uvicorn's protocol, likewise
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
    ("evaluation/features.py", "from sumito.learn import config", "sumito.evaluation.features -> sumito.learn"),
    ("players/random.py", "from sumito.rl import gym_env", "sumito.players.random -> sumito.rl.gym_env"),
    ("cliargs/__init__.py", "from sumito.arena import executor", "sumito.cliargs -> sumito.arena.executor"),
    ("bounds.py", "from sumito.games.abalone import errors", "sumito.bounds -> sumito.games.abalone.errors"),
    ("fileio.py", "from sumito.games.abalone import errors", "sumito.fileio -> sumito.games.abalone.errors"),
    ("learn/training.py", "from sumito.learn import actors", "No cycles are allowed in sumito.learn."),
    ("games/abalone/notation.py", "from sumito.games.abalone import position",
     "No cycles are allowed in sumito.games.abalone."),
    ("games/backgammon/board.py", "from sumito.games.backgammon import game",
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


# ------------------------------------------------------------------ behaviour unchanged by the restructuring
# The pinned values below were computed by the code before the layering (commit 136e1c4), where backgammon
# had its own match pool and run folder; the same calls must give the same games and the same networks.
def _digest(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def test_the_shipped_networks_load_bit_for_bit():
    data = files("sumito") / "data"
    # td-abalearn3 and tdleaf-abalearn3 as their recipes train them with the learning code that gives the same
    # bits on every CPU (train_shipped_network.py; tests/test_determinism.py retrains the first)
    assert _digest(ValueNetwork.load(str(data / "td-abalearn3.npz")).theta) == "4773caf1db2ac4a6"
    assert _digest(ValueNetwork.load(str(data / "tdleaf-abalearn3.npz")).theta) == "97ffd52887ff4b30"
    # bg-wiering7 is the best network of the 20,000-game run in docs/results-backgammon.md ("The shipped network"),
    # trained with sumito.nn's fixed-order arithmetic, which gives these bits on every x86-64 CPU
    assert _digest(*[n.theta for n in ModularValue.load(str(data / "bg-wiering7.npz")).networks]) == "095626b2f570cdf5"
    # expert-nnue was builtin-nnue before the self-taught network shipped (nnue-standard.npz, the same bytes);
    # builtin-nnue is now generation 9 of runs/selftaught
    for name, digest in (("nnue-expert.npz", "002ae193647a2774"), ("nnue-selftaught.npz", "b200e96231ca798a")):
        nnue = load_network(str(data / name))
        assert _digest(*[v for v in vars(nnue).values() if hasattr(v, "dtype")]) == digest
    # the engine's evaluation vector of the shipped td network (engine:net=builtin on the Standard board)
    assert _digest(network_params(str(data / "td-abalearn3.npz"), 5, 14, 6)) == "9998307ddec3df13"


def test_bg_matches_give_the_games_they_gave_before():
    before = [-3, -1, -1, -3, -3, -2, -3, -3, -3, -3, -2, -3, -3, -2, -2, -2, -2, -2, -2, -3, -2, -3, -2, -3, -1, -2,
              -3, -3, -2, -3, -1, -2, -3, -3, -3, -2, -3, -1, -2, -3, -2, -3, -3, -3, -3]
    assert run_match("random", "pubeval", 45, 7) == before
    assert run_match("random", "pubeval", 45, 7, workers=2) == before  # on the arena's process pool
    assert run_match("pubeval", "random:seed=3", 30, 11) == [2, 3, 3, 3, 3, 1, 3, 3, 3, 2, 2, 2, 1, 3, 2, 3, 2, 2,
                                                               2, 3, 3, 2, 3, 3, 1, 3, 3, 2, 3, 2]


def test_a_bg_training_run_learns_what_it_learned_before(tmp_path):
    config = BackgammonRunConfig(games=30, test_every=15, test_games=10, seed=5, test_against=("pubeval", "random"))
    rows = BackgammonRun(tmp_path / "run", config).run()
    assert [(r["games"], r["opponent"], r["points_sum"], r["points_sq"], r["wins"]) for r in rows] == [
        (15, "pubeval", -25, 69, 0), (15, "random", 14, 48, 7), (30, "pubeval", -25, 69, 0), (30, "random", 3, 43, 7)]
    network = ModularValue.load(str(tmp_path / "run" / "network.npz"))
    # the network this run learns with the fixed-order arithmetic of sumito.nn (no BLAS, our exp), the same on
    # every x86-64 CPU (tests/determinism_probe.py); the rows above are the games it plays
    assert _digest(*[n.theta for n in network.networks]) == "419c64c4f5ae38ab"


def test_no_module_re_exports_another_wholesale():
    # one name for each thing: a module that is only ``from elsewhere import *`` is a second name for elsewhere
    stars = [str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
             if any(isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
                    for node in ast.walk(ast.parse(path.read_text())))]
    assert stars == []
    assert not (SRC / "engine").exists()  # the rules of Abalone are sumito.games.abalone


def test_no_module_keeps_an_unused_import_as_a_second_name():
    # ruff refuses an unused import unless it is marked ``noqa: F401``: a module that keeps names it does not use
    # under that mark re-exports them; only a package may import its modules for their side effect (registering)
    marked = [f"{path.relative_to(SRC)}:{number}" for path in SRC.rglob("*.py") if path.name != "__init__.py"
              for number, line in enumerate(path.read_text().splitlines(), 1) if "noqa: F401" in line]
    assert marked == []


def test_the_rl_package_is_the_one_public_name_of_its_pieces():
    import sumito.rl

    assert sumito.rl.ArrayGame is ArrayGame and sumito.rl.action_space(3).n == 276
    if importlib.util.find_spec("pyspiel") is not None:
        assert sumito.rl.register_openspiel() == "python_sumito_abalone"
    assert position_id(from_position_id("4HPwATDgc/ABMA")) == "4HPwATDgc/ABMA"


def _contract_layers() -> list[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["id"] == "layers")["layers"]


def test_the_architecture_page_draws_the_contracts_layers():
    # docs/architecture.md's diagram: one row per layer of the contract, top to bottom, named exactly as there
    page = (ROOT / "docs" / "architecture.md").read_text()
    diagram = page.split("## The layers, top to bottom", 1)[1].split("```", 2)[1]
    rows = [re.split(r"\s{2,}", line, maxsplit=1)[0].strip() for line in diagram.splitlines()
            if line.strip() and not line.startswith(" ")]
    assert rows == _contract_layers()
    # and its table has a line for every package of the contract (the entry point aside)
    table = page.split("One line a package:", 1)[1].split("\n## ", 1)[0]
    named = {name.split(".")[0] for cell in re.findall(r"^\| ([^|]+) \|", table, re.M)
             for name in re.findall(r"`([\w.]+)`", cell)}
    layers = {name.strip() for row in _contract_layers() for name in row.split("|")} - {"__main__"}
    assert named == layers


def test_every_package_has_an_api_page():
    # the API reference covers every layer of the contract (the entry point aside), each game's rules apart
    pages = "\n".join(path.read_text() for path in (ROOT / "docs" / "api").glob("*.md"))
    documented = set(re.findall(r"^::: sumito\.([\w.]+)", pages, re.M))
    wanted = {name.strip() for row in _contract_layers() for name in row.split("|")} - {"__main__", "games"}
    wanted |= {f"games.{game.name}" for game in (SRC / "games").iterdir() if (game / "__init__.py").exists()}
    assert sorted(wanted - documented) == []


def test_every_kernel_module_takes_numba_from_sumito_jit():
    # sumito.jit configures numba's cache before a kernel is decorated: a module that decorated with numba's own
    # njit before sumito.jit was imported would cache its kernels in numba's default place, per absolute path
    direct = []
    for path in SRC.rglob("*.py"):
        if path.name == "jit.py" and path.parent == SRC:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "numba":
                direct += [f"{path.relative_to(SRC)}: {a.name}" for a in node.names
                           if a.name in ("njit", "jit", "prange", "objmode", "vectorize", "guvectorize")]
    assert direct == []


def test_importing_the_package_loads_no_numba():
    code = "import sys, sumito; print(sorted(m for m in ('numba', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_no_test_names_an_issue_instead_of_what_it_tests():
    # a test says what it checks; which issue asked for it is the history's business (git log)
    named = [f"{path.name}:{i}" for path in (ROOT / "tests").glob("*.py")
             for i, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\bissues? #?\d", line, re.I)]
    assert named == []


def test_the_node_searchs_steps_are_numbered_as_its_module_lists_them():
    text = (SRC / "search" / "negamax.py").read_text()
    listed = [int(n) for n in re.findall(r"^(\d+)\. ", ast.get_docstring(ast.parse(text)), re.M)]
    commented = [int(n) for n in re.findall(r"^\s+# Step (\d+)\. ", text, re.M)]
    assert listed == commented == list(range(1, len(listed) + 1)) and len(listed) >= 8


def test_no_module_is_over_a_thousand_lines():
    # the package, and the scripts, benchmarks, tools and tests beside it
    roots = [SRC, *(ROOT / name for name in ("experiments", "bench", "tools", "examples", "tests"))]
    long = {str(path): n for root in roots for path in root.rglob("*.py")
            if (n := len(path.read_text().splitlines())) > 1000}
    assert long == {}
