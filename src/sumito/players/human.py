"""The ``human`` player: moves typed in the game's notation, with the board redrawn each turn.

The player reads from an input stream (default: standard input, looked up at each move) and
writes to an output stream (default: standard output). Besides moves it understands ``help``,
``moves`` (the legal moves), ``hint`` (a suggestion from a computer player: by default the
strongest engine, at least as strong as the opponent, see :mod:`sumito.players.strongest`), ``board`` (draw the
board again), ``flip`` (turn the board), ``undo`` and ``redo``, ``resign`` and ``quit``. The board is drawn as
the side to move sees it: White's player sees it from White's side. A malformed or illegal move gets the
engine's one-line reason and the prompt again. ``resign`` raises :class:`Resign`, ``quit`` and the end of the
input raise :class:`Quit`; whoever runs the game turns either into a resignation (``sumito play`` does).
``undo`` and ``redo`` raise :class:`Undo` and :class:`Redo`, which whoever runs the game answers by taking
back the player's last move (and the replies since) or playing again what was taken back.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from sumito.errors import SumitoError
from sumito.games.abalone import DrawCounters, Move, Position, render
from sumito.games.abalone.geometry import COLOR_NAMES, WHITE
from sumito.players.base import Option, PlayerBase, PlayerKind, make_player, register
from sumito.players.strongest import hint_spec

if TYPE_CHECKING:
    from sumito.games.abalone import Game

HELP = """\
Type a move in notation: an inline move is the trailing marble's cell and the cell it moves to
(a1b2, c3d3), a broadside move both end marbles and the first one's destination (c3c5d4).
Commands: moves (list the legal moves), hint (suggest a move), board (draw the board again),
flip (turn the board round), undo (take back your last move and the reply), redo (play again what
undo took back), help (this text), resign (give up the game), quit (leave; counts as resigning)."""


class HumanExit(Exception):
    """The human left the game: ``color`` is the side they were playing."""

    def __init__(self, color: int, message: str) -> None:
        super().__init__(message)
        self.color = color


class Resign(HumanExit):
    """The human typed ``resign``."""


class Quit(HumanExit):
    """The human typed ``quit`` or the input ended."""


class Undo(Exception):
    """The human typed ``undo``: ``color`` is the side they play."""

    def __init__(self, color: int) -> None:
        super().__init__("undo")
        self.color = color


class Redo(Undo):
    """The human typed ``redo``."""


class HumanPlayer(PlayerBase):
    """Asks for each move on ``instream`` and answers on ``outstream`` (default stdin and stdout).

    ``game``, when set (``sumito play`` sets it), is the game in progress: the player shows its last
    move from it. Without it the player works out the opponent's move from the position it left.
    ``hint`` is the spec of the player that answers ``hint``; empty: the strongest engine
    (:func:`~sumito.players.strongest.hint_spec`; ``sumito play`` gives it the opponent's spec).
    """

    def __init__(
        self,
        instream: TextIO | None = None,
        outstream: TextIO | None = None,
        board: bool = True,
        hint: str = "",
    ) -> None:
        self.name = "human"
        self.instream = instream
        self.outstream = outstream
        self.board = board
        self.hint_spec = hint
        self.game: Game | None = None
        self._hinter = None
        self._left: Position | None = None  # the position after this player's last move
        self.flipped: bool | None = None  # the board turned round: None, as the side to move sees it

    # ----------------------------------------------------------------- streams
    def _in(self) -> TextIO:
        return self.instream if self.instream is not None else sys.stdin

    def _out(self) -> TextIO:
        return self.outstream if self.outstream is not None else sys.stdout

    def _say(self, text: str = "", end: str = "\n") -> None:
        out = self._out()
        out.write(text + end)
        out.flush()

    # ----------------------------------------------------------------- the turn
    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        color = position.side_to_move
        who = COLOR_NAMES[color]
        self._show(position)
        while True:
            self._say(f"{who}> ", end="")
            line = self._in().readline()
            if not line:
                self._say()
                raise Quit(color, f"{who} left the game (end of input)")
            text = line.strip()
            command = text.lower()
            if not text:
                continue
            if command in ("help", "?"):
                self._say(HELP)
            elif command == "moves":
                self._say(_list_moves(position))
            elif command == "hint":
                self._say(self._hint(position, history, draw))
            elif command == "board":
                self._show(position, board=True)
            elif command == "flip":
                self.flipped = not self._flipped(position)
                self._show(position, board=True)
            elif command == "undo":
                raise Undo(color)
            elif command == "redo":
                raise Redo(color)
            elif command == "resign":
                raise Resign(color, f"{who} resigns")
            elif command in ("quit", "exit"):
                raise Quit(color, f"{who} quits")
            else:
                try:
                    move = position.parse_move(text)
                except SumitoError as exc:
                    self._say(f"{exc}")
                    continue
                self._left = position.play(move)
                return move

    def _flipped(self, position: Position) -> bool:
        return position.side_to_move == WHITE if self.flipped is None else self.flipped

    def _show(self, position: Position, board: bool | None = None) -> None:
        if self.board if board is None else board:
            self._say()
            self._say(render(position, flipped=self._flipped(position)))
        last = self._last_move(position)
        if last is not None:
            self._say(f"Last move: {last}")

    def _last_move(self, position: Position) -> str | None:
        """The move that led to ``position``, described, when known."""
        game = self.game
        if game is not None and game.position == position:
            if not game.moves:
                return None
            return _describe(game.moves[-1], game.positions[-2].side_to_move)
        before = self._left
        if before is None or before.side_to_move == position.side_to_move:
            return None
        for move, after in before.successors():
            if after == position:
                return _describe(move, before.side_to_move)
        return None

    def _hint(self, position: Position, history: Sequence[int] | None, draw: DrawCounters | None) -> str:
        try:
            if self._hinter is None:
                self._hinter = make_player(self.hint_spec or hint_spec())
            # the hint player's own time and depth: no cap, or it would be weaker than the opponent
            move = self._hinter.choose(position, history=history, draw=draw)
        except Exception as exc:  # a hint must never end the game
            return f"no hint: {exc}"
        return f"hint ({self._hinter.name}): {move.notation()}"


def _describe(move: Move, mover: int) -> str:
    extra = ""
    if move.is_push_off:
        extra = " (pushes a marble off)"
    elif move.is_push:
        extra = f" (pushes {move.pushed})"
    return f"{COLOR_NAMES[mover]} {move.notation()}{extra}"


def _list_moves(position: Position) -> str:
    moves = sorted(m.notation() for m in position.legal_moves())
    body = textwrap.fill(" ".join(moves), width=79)
    return f"{len(moves)} legal moves:\n{body}"


register(
    PlayerKind(
        name="human",
        factory=HumanPlayer,
        options={
            "board": Option(bool, True, "draw the board before each move"),
            "hint": Option(str, "", "player spec that answers 'hint' (default: the learned engine, searching at "
                           "least as long and deep as the opponent)"),
        },
        help="a person typing moves in notation (sumito play)",
    )
)
