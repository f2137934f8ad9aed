"""A game in progress: the positions played, draw rules, and how and why the game ended."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from sumito.games.abalone.draws import DrawCounters, DrawRules
from sumito.games.abalone.errors import GameOverError
from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, WHITE
from sumito.games.abalone.move import Move
from sumito.games.abalone.position import Position

# Why a game ended.
PUSH_OFF = "push-off"  # a side pushed off the winning number of marbles
REPETITION = "repetition"  # the same position, same side to move, occurred n times
PLY_CAP = "ply-cap"  # the game reached the maximum number of plies
NO_CAPTURE = "no-capture"  # too many plies in a row without a marble pushed off
NO_MOVES = "no-moves"  # the side to move has no legal move
RESIGNATION = "resignation"
TIME = "time"  # lost on time (used by the arena)
AGREEMENT = "agreement"  # a draw agreed by the players
ADJUDICATION = "adjudication"  # decided by an arbiter or program outside the rules
REASONS = (PUSH_OFF, REPETITION, PLY_CAP, NO_CAPTURE, NO_MOVES, RESIGNATION, TIME, AGREEMENT, ADJUDICATION)
DECLARED_REASONS = (RESIGNATION, TIME, AGREEMENT, ADJUDICATION)  # endings the board does not show


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winner`` is BLACK, WHITE or ``None`` for a draw."""

    winner: int | None
    reason: str

    @property
    def result(self) -> str:
        """The result in record notation: ``1-0`` Black won, ``0-1`` White won, ``1/2-1/2`` drawn."""
        if self.winner == BLACK:
            return "1-0"
        if self.winner == WHITE:
            return "0-1"
        return "1/2-1/2"

    def describe(self) -> str:
        if self.winner is None:
            return f"draw ({self.reason})"
        return f"{COLOR_NAMES[self.winner]} wins ({self.reason})"


def judge(
    rules: DrawRules,
    winner: int | None,
    repetitions: int,
    quiet_plies: int,
    plies: int,
    side_to_move: int,
    count_legal_moves: Callable[[], int],
) -> Outcome | None:
    """Whether a game is over by the board and ``rules``, and why: a side has pushed off enough
    marbles (``winner``), the position has occurred ``repetitions`` times, ``quiet_plies`` have
    passed without a push-off, ``plies`` reached the cap, or the side to move has no legal move
    (``count_legal_moves`` is called only when nothing else ended the game). :class:`Game` and the
    reinforcement-learning environments (:mod:`sumito.rl`) both decide by this one function."""
    if winner is not None:
        return Outcome(winner, PUSH_OFF)
    if rules.repetitions is not None and repetitions >= rules.repetitions:
        return Outcome(None, REPETITION)
    if rules.no_capture_plies is not None and quiet_plies >= rules.no_capture_plies:
        return Outcome(None, NO_CAPTURE)
    if rules.max_plies is not None and plies >= rules.max_plies:
        return Outcome(None, PLY_CAP)
    if count_legal_moves() == 0:
        return Outcome(3 - side_to_move if rules.no_moves == "loss" else None, NO_MOVES)
    return None


class Game:
    """A game: a start position, the moves played, and the draw rules that may end it.

    ``push`` plays a move (a :class:`Move` or notation) and ``pop`` takes the last one back;
    ``outcome()`` says whether and why the game is over.
    """

    def __init__(self, start: Position | str = "standard", rules: DrawRules | None = None) -> None:
        if isinstance(start, str):
            start = Position.start(start) if "/" not in start else Position.from_string(start)
        self.start = start
        self.rules = rules or DrawRules()
        self.positions: list[Position] = [start]
        self.moves: list[Move] = []
        self._seen: Counter[int] = Counter([start.zobrist])
        self._quiet: list[int] = [0]  # plies since the last push-off, per position
        self._forced: Outcome | None = None  # resignation or time

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def plies(self) -> int:
        return len(self.moves)

    def legal_moves(self) -> list[Move]:
        return [] if self.is_over() else self.position.legal_moves()

    def push(self, move: Move | str) -> Move:
        """Play ``move``; return it as a :class:`Move`. Raises if the game is over or it is illegal."""
        outcome = self.outcome()
        if outcome is not None:
            raise GameOverError(f"the game is over: {outcome.describe()}")
        pos = self.position
        if isinstance(move, str):
            move = pos.parse_move(move)
        nxt = pos.play(move)
        self.moves.append(move)
        self.positions.append(nxt)
        self._seen[nxt.zobrist] += 1
        self._quiet.append(0 if move.is_push_off else self._quiet[-1] + 1)
        return move

    def plies_since_turn(self, color: int) -> int | None:
        """Plies played since ``color`` was last to move before now (its last move and the replies since: what an
        undo takes back); ``None`` when it has not moved yet."""
        for back in range(1, self.plies + 1):
            if self.positions[-1 - back].side_to_move == color:
                return back
        return None

    def pop(self) -> Move:
        """Take back the last move (and any resignation)."""
        if not self.moves:
            raise GameOverError("no move to take back")
        self._forced = None
        last = self.positions.pop()
        self._seen[last.zobrist] -= 1
        self._quiet.pop()
        return self.moves.pop()

    def resign(self, color: int, reason: str = RESIGNATION) -> Outcome:
        """End the game with ``color`` losing (by resignation or, with ``reason='time'``, on time)."""
        return self.declare(Outcome(3 - color, reason))

    def declare(self, outcome: Outcome) -> Outcome:
        """End the game in a way the board does not show (resignation, time, agreement, adjudication)."""
        if outcome.reason not in DECLARED_REASONS:
            raise GameOverError(f"a game can be declared over by {', '.join(DECLARED_REASONS)}, not {outcome.reason!r}")
        if outcome.reason in (RESIGNATION, TIME) and outcome.winner is None:
            raise GameOverError(f"a game ended by {outcome.reason} has a winner; it cannot be a draw")
        if outcome.reason == AGREEMENT and outcome.winner is not None:
            raise GameOverError("a game ended by agreement is a draw")
        if self.outcome() is not None:
            raise GameOverError("the game is already over")
        self._forced = outcome
        return outcome

    def with_rules(self, rules: DrawRules) -> Game:
        """The same game (start, moves, any declared end) under other draw rules; a game that is past a
        new limit is over."""
        game = Game(self.start, rules)
        game.positions, game.moves = list(self.positions), list(self.moves)
        game._seen, game._quiet, game._forced = self._seen.copy(), list(self._quiet), self._forced
        return game

    def draw_counters(self) -> DrawCounters:
        """The game's draw rules and how far it has gone towards them (what a search plays against)."""
        return DrawCounters(self.rules, self.plies, self._quiet[-1])

    def repetition_count(self) -> int:
        """How often the current position (marbles and side to move) has occurred."""
        return self._seen[self.position.zobrist]

    def outcome(self) -> Outcome | None:
        """Why the game is over, or ``None`` while it goes on."""
        if self._forced is not None:
            return self._forced
        pos = self.position
        return judge(self.rules, pos.winner(), self.repetition_count(), self._quiet[-1], self.plies,
                     pos.side_to_move, pos.count_legal_moves)

    def is_over(self) -> bool:
        return self.outcome() is not None
