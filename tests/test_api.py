"""The Python API reads as one would guess: moves compare with their notation, colours are an enum,
players and search results have useful reprs."""

import subprocess
import sys

from sumito.games.abalone import BLACK, WHITE, Color, Position
from sumito.players import make_player
from sumito.search.pvs import SearchResult

from helpers import position_with


def test_a_move_equals_its_notation():
    moves = Position.start().legal_moves()
    assert "a1b1" in moves and "A1-B1" in moves and " a1b1 " in moves
    assert "a1a9" not in moves and "e5e6" not in moves
    first = moves[0]
    assert first == first.notation() and first != 3
    again = Position.start().legal_moves()[0]
    assert first == again and hash(first) == hash(again) and len({first, again}) == 1


def test_colours_are_an_enum_that_is_still_an_int():
    start = Position.start()
    assert start.turn is Color.BLACK and start.turn == BLACK == start.side_to_move
    assert Color.BLACK.opponent is Color.WHITE and str(Color.WHITE) == "White"
    won = position_with(["a1", "a2"], ["i5"], lost=(0, 6))
    assert won.winner() is Color.BLACK and won.winner() == BLACK
    assert position_with(["a1"], ["i5", "i6"], lost=(6, 0)).winner() == WHITE
    assert start.winner() is None


def test_reprs_name_what_they_are():
    assert repr(make_player("random:seed=3")) == "<RandomPlayer random:seed=3>"
    assert repr(make_player("abla:depth=2")).startswith("<AlphaBetaPlayer abla:depth=2")
    result = SearchResult(5, 1.5, 3, 1000, 0.25, [5, 7])
    assert repr(result) == "SearchResult(move=5, score=1.5, depth=3, nodes=1000, seconds=0.250, pv=[5, 7])"


def test_importing_the_players_first_works():
    """The players import the bounds, which the engine imports too: no import cycle, whatever comes first."""
    for module in ("sumito.players", "sumito.bounds", "sumito.protocol", "sumito.web.app"):
        proc = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
