"""A newcomer's first minutes: the compile notice, and ``engine`` meaning the strongest engine."""

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from sumito import jit
from sumito.analysis import analyse_position
from sumito.evaluation.features import EVAL_LINEAR, EVAL_NNUE
from sumito.games.abalone import Position
from sumito.players import make_player
from sumito.players.base import PlayerSpecError
from sumito.players.precompile import FIRST_GAME


def test_a_compile_is_announced_once_and_timed(monkeypatch, capsys):
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "1")
    monkeypatch.setitem(jit._compile, "told", False)
    monkeypatch.setattr(jit, "NOTICE_AFTER", 0.0)  # at once: this kernel compiles in a moment
    before = jit.compile_seconds()

    @njit
    def fresh(x):  # a kernel no cache holds: calling it compiles
        return x * 2 + 1

    assert fresh(np.int64(3)) == 7
    assert fresh(np.int64(4)) == 9  # already compiled: no second notice
    err = capsys.readouterr().err
    assert err.count("compiling numba kernels") == 1 and "about" in err
    assert jit.compile_seconds() > before


def test_a_compile_over_before_the_notice_is_due_says_nothing(monkeypatch, capsys):
    """A kernel numba cannot cache (the search's clock) compiles in each process in a moment: no notice."""
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "1")
    monkeypatch.setitem(jit._compile, "told", False)
    monkeypatch.setattr(jit, "NOTICE_AFTER", 60.0)
    before = jit.compile_seconds()

    @njit
    def quick(x):
        return x + 5

    assert quick(np.int64(1)) == 6
    assert "compiling" not in capsys.readouterr().err and not jit._compile["told"]
    assert jit.compile_seconds() > before and jit._compile["timer"] is None


def test_the_notice_can_be_silenced(monkeypatch, capsys):
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "0")
    monkeypatch.setitem(jit._compile, "told", False)

    @njit
    def other(x):
        return x - 1

    assert other(np.int64(3)) == 2
    assert "compiling" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "spec,nnue,kind,name",
    [
        ("engine", True, EVAL_NNUE, "engine:time=1,nnue=builtin-nnue"),
        ("engine:depth=3", True, EVAL_NNUE, "engine:depth=3,nnue=builtin-nnue"),
        ("engine:nnue=none", False, EVAL_LINEAR, "engine:time=1,nnue=none"),
        ("engine:eval=linear", False, EVAL_LINEAR, "engine:time=1,nnue=none"),
        ("engine:weights=1000/6/2/4/2/4/0", False, EVAL_LINEAR, "engine:time=1,weights=1000/6/2/4/2/4/0"),
        ("engine:eval=abla", False, None, "engine:time=1,eval=abla"),
    ],
)
def test_engine_plays_with_the_shipped_network_unless_told_otherwise(spec, nnue, kind, name):
    player = make_player(spec)
    assert (player.nnue is not None) == nnue and player.name == name
    if kind is not None:
        assert player.evaluation.kind == kind
    assert make_player(player.name).name == name  # a name is a spec that plays the same


def test_an_nnue_and_another_evaluation_are_refused_together():
    with pytest.raises(PlayerSpecError, match="not several"):
        make_player("engine:nnue=builtin-nnue,eval=abla")


def test_the_default_engine_plays_the_hand_set_evaluation_where_the_network_does_not_know_the_board():
    player = make_player("engine:depth=2")
    move = player.choose(Position.start("mini"))
    assert move in Position.start("mini").legal_moves()
    assert "hand-set evaluation" in player.search_info


def test_the_hand_set_and_learned_engines_choose_alike_from_the_engines_point_of_view():
    """The three evaluation families are compiled as separate searches (pvs._params_slots): each still
    finds a legal move and a principal variation from the start."""
    start = Position.start()
    for spec in ("engine:depth=3", "engine:depth=3,nnue=none", "engine:depth=2,net=builtin-tdleaf"):
        player = make_player(spec)
        move = player.choose(start)
        assert move in start.legal_moves() and player.last.depth == player.depth
        assert len(player.last.pv) >= 1


def test_every_line_of_an_analysis_is_as_long_as_the_search_is_deep():
    """The README's sample: the best of two lines was two plies long (a walk through the table that
    another position had since overwritten); the search keeps each line it saw now."""
    position = Position.start().play("a1b2").play("i5h5")
    for engine in ("engine:nnue=none", "engine"):
        analysis = analyse_position(position, depth=7, top=2, engine=engine)
        assert [len(line.pv) for line in analysis.lines] == [7, 7], engine
        for line in analysis.lines:  # each line is legal from the position
            board = position
            for move in line.pv:
                board = board.play(move)


# ------------------------------------------------------------------ the install compiles ahead
ROOT = Path(__file__).resolve().parent.parent


def readme_first_command() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert block is not None
    return next(shlex.split(line) for line in block.group(1).splitlines() if line.startswith("sumito "))


def test_the_install_precompiles_the_readme_first_games_players():
    argv = readme_first_command()
    assert (argv[argv.index("--black") + 1], argv[argv.index("--white") + 1]) == FIRST_GAME
    backend = (ROOT / "pyproject.toml").read_text()
    assert 'build-backend = "build_backend"' in backend and 'backend-path = ["tools"]' in backend


def test_after_the_precompile_the_first_game_compiles_nothing_even_from_another_copy(tmp_path):
    # the install compiles from the source tree; the first game runs from wherever the package was
    # installed (here: a copy elsewhere): the package's cache locator makes the kernels the same ones
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), SUMITO_COMPILE_NOTICE="1",
               PYTHONPATH=str(ROOT / "src"), SUMITO_THREADS="1")
    run = subprocess.run([sys.executable, "-m", "sumito.players.precompile"], env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0 and "compiled and cached" in run.stderr
    copy = tmp_path / "elsewhere"
    shutil.copytree(ROOT / "src" / "sumito", copy / "sumito", ignore=shutil.ignore_patterns("__pycache__"))
    game = subprocess.run([sys.executable, "-m", "sumito", *readme_first_command()[1:], "--max-plies", "8"],
                          env=dict(env, PYTHONPATH=str(copy)), capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert game.returncode == 0, game.stderr[-500:]
    assert "1. " in game.stderr and "compiling" not in game.stderr


def test_a_warm_game_with_a_clock_says_nothing_of_compiling():
    # a timed engine's clock is compiled afresh in each process (a few hundredths of a second): neither the
    # notice nor a move's line may speak of compiling for that
    env = dict(os.environ, SUMITO_COMPILE_NOTICE="1", SUMITO_THREADS="1")
    argv = [sys.executable, "-m", "sumito", "game", "--black", "engine:time=0.05", "--white", "greedy",
            "--layout", "mini", "--max-plies", "4"]
    for _ in range(2):  # the first may compile (a cold cache); the second is warm
        game = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
        assert game.returncode == 0, game.stderr[-500:]
    assert "1. " in game.stderr and "compiling" not in game.stderr, game.stderr
