"""Differential test against abalone-boai, an independent MIT-licensed implementation."""

from collections import Counter
from copy import deepcopy

import numpy as np
import pytest

from sumito.games.abalone import BLACK, Position

from helpers import random_playout

boai_game = pytest.importorskip("abalone.game")
boai_enums = pytest.importorskip("abalone.enums")


def _to_boai(pos: Position):
    rows = pos.to_string().split()[0].split("/")
    board = []
    for row in rows:
        cells = []
        for ch in row:
            if ch.isdigit():
                cells += [boai_enums.Marble.BLANK] * int(ch)
            else:
                cells.append(boai_enums.Marble.BLACK if ch == "b" else boai_enums.Marble.WHITE)
        board.append(cells)
    game = boai_game.Game()
    game.board = board
    game.turn = boai_enums.Player.BLACK if pos.side_to_move == BLACK else boai_enums.Player.WHITE
    return game


def _rows(board) -> str:
    out = []
    for row in board:
        s, run = "", 0
        for m in row:
            if m is boai_enums.Marble.BLANK:
                run += 1
                continue
            if run:
                s += str(run)
                run = 0
            s += "b" if m is boai_enums.Marble.BLACK else "w"
        out.append(s + (str(run) if run else ""))
    return "/".join(out)


@pytest.mark.parametrize("layout", ["standard", "belgian-daisy", "german-daisy"])
@pytest.mark.parametrize("seed", range(4))
def test_successors_match_abalone_boai(layout, seed):
    rng = np.random.default_rng(seed)
    for pos in random_playout(Position.start(layout), 60, rng)[::15]:
        if pos.winner() is not None:
            break
        game = _to_boai(pos)
        theirs = Counter()
        for marbles, direction in game.generate_legal_moves():
            g = deepcopy(game)
            g.move(marbles, direction)
            theirs[_rows(g.board)] += 1
        ours = Counter(child.to_string().split()[0] for _, child in pos.successors())
        assert ours == theirs, pos.to_string()
