"""A newcomer's first minutes: the compile notice, and ``engine`` meaning the strongest engine."""

import numpy as np
import pytest
from numba import njit

import sumito
from sumito.analysis import analyse_position
from sumito.engine import Position
from sumito.evaluation.features import EVAL_LINEAR, EVAL_NNUE
from sumito.players import make_player
from sumito.players.base import PlayerSpecError


def test_a_compile_is_announced_once_and_timed(monkeypatch, capsys):
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "1")
    monkeypatch.setitem(sumito._compile, "told", False)
    before = sumito.compile_seconds()

    @njit
    def fresh(x):  # a kernel no cache holds: calling it compiles
        return x * 2 + 1

    assert fresh(np.int64(3)) == 7
    assert fresh(np.int64(4)) == 9  # already compiled: no second notice
    err = capsys.readouterr().err
    assert err.count("compiling numba kernels") == 1 and "about" in err
    assert sumito.compile_seconds() > before


def test_the_notice_can_be_silenced(monkeypatch, capsys):
    monkeypatch.setenv("SUMITO_COMPILE_NOTICE", "0")
    monkeypatch.setitem(sumito._compile, "told", False)

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
