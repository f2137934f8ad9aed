"""One game in progress on the web: its position and history, undo and redo, its seats and clocks, and the
computer's pending move (a generation that a change bumps, so that a stale move is dropped)."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import hashlib
import logging
import secrets
import time
from typing import Any

from sumito.games.abalone import (
    BLACK,
    WHITE,
    DrawRules,
    Game,
    GameRecord,
    Outcome,
    Position,
)
from sumito.games.abalone.game import TIME
from sumito.games.abalone.variants import layout_of
from sumito.web.limits import ModelFolder
from sumito.web.scheduler import Ticket
from sumito.web.seats import Clock, Seat
from sumito.web.serialize import COLOR_WORDS, board_json
from sumito.web.thinking import (
    ThinkRequest,
)

log = logging.getLogger("sumito.web")



def _now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class GameSession:
    """One game in progress: the engine's :class:`Game`, its seats, the redo stack and the computer's turn."""

    def __init__(
        self,
        game_id: str,
        game: Game,
        seats: dict[int, Seat],
        *,
        speed: float = 1.0,
        redo: list[list[str]] | None = None,
        move_times: list[float | None] | None = None,
        error: str | None = None,
        archive_id: int | None = None,
        created: str | None = None,
        owner: str | None = None,
        clock: Clock | None = None,
        client: str | None = None,
    ) -> None:
        self.id = game_id
        # whose share of the workers its computer's moves take: the creating request's client, else the owner's
        self.client = client or (owner_client(owner) if owner else f"game:{game_id}")
        self.clock = clock
        self.flag_task: asyncio.Task | None = None  # a person's clock running out
        self.analysing = False  # a hint or evaluation of this game is being computed
        self.owner = owner  # SHA-256 of the owner token (hex); None: a game from before owner tokens
        self.game = game
        self.seats = seats
        self.layout = layout_of(game.start)
        self.speed = speed
        self.redo: list[list[str]] = redo or []
        self.move_times: list[float | None] = move_times or [None] * game.plies
        self.error = error
        self.archive_id = archive_id
        self.created = created or _now_iso()
        self.updated = self.created
        self.lock = asyncio.Lock()
        self.thinking = False
        self.ticket: Ticket | None = None  # the computer's search while it waits for a worker or runs
        self.task: asyncio.Task | None = None  # the computer's turn in progress, cancelled by any change
        self.generation = 0  # bumped by every change that makes a pending computer move stale
        self.last_move_at = time.monotonic()
        self.last_used = time.monotonic()
        self._changed = asyncio.Event()
        self.legal_cache: tuple[tuple, list[dict[str, Any]]] | None = None
        self.notations = [m.notation() for m in game.moves]  # the moves in notation, kept in step with the game

    # ----------------------------------------------------------------- queries
    @property
    def seat_to_move(self) -> Seat:
        return self.seats[self.game.position.side_to_move]

    @property
    def watching(self) -> bool:
        """Computer against computer: the page watches, moves come ``speed`` seconds apart."""
        return not self.seats[BLACK].human and not self.seats[WHITE].human

    def wait_in(self, ticket: Ticket) -> None:
        """The computer's search waits for a worker as ``ticket`` (its state tells how many are ahead)."""
        self.ticket = ticket

    def humans(self) -> list[int]:
        return [c for c in (BLACK, WHITE) if self.seats[c].human]

    def undo_plan(self) -> int | None:
        """How many plies an undo takes back, or ``None`` when it cannot: a game of two computers,
        nothing of a person's to take back, or a game that is over (resigned too: a finished game
        is archived as it ended, and undo is for a game in progress)."""
        humans = self.humans()
        if not humans or self.game.outcome() is not None:
            return None
        if len(humans) == 2:
            return 1 if self.game.plies else None
        # against a computer: back to just before the person's last move
        return self.game.plies_since_turn(humans[0])

    def state(self) -> dict[str, Any]:
        """The Game state object of the API."""
        game = self.game
        outcome = game.outcome()
        return {
            "id": self.id,
            "black": self.seats[BLACK].to_json(),
            "white": self.seats[WHITE].to_json(),
            "board": board_json(game.position, self.layout),
            "moves": list(self.notations),
            "ply": game.plies,
            "can_undo": self.undo_plan() is not None,
            "can_redo": bool(self.redo) and outcome is None,
            "thinking": self.thinking,
            "queued": self.ticket.ahead() if self.thinking and self.ticket is not None else None,
            "outcome": outcome_json(outcome),
            "speed": self.speed if self.watching else None,
            "error": self.error,
            "clock": self.clock_json(),
            "start": game.start.to_string(),
            "archive_id": self.archive_id if self.archive_id is not None and self.archive_id > 0 else None,
        }

    def clock_json(self) -> dict[str, Any] | None:
        """The clocks as the API gives them: seconds left each, as of now, and whose clock runs."""
        clock = self.clock
        if clock is None:
            return None
        over = self.game.outcome() is not None
        mover = self.game.position.side_to_move
        running = None if over else mover
        return {
            "initial": clock.initial,
            "increment": clock.increment,
            "black": round(max(0.0, clock.remaining(BLACK, running == BLACK)), 3),
            "white": round(max(0.0, clock.remaining(WHITE, running == WHITE)), 3),
            "running": COLOR_WORDS.get(running) if running is not None else None,
        }

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "black": self.seats[BLACK].to_json(),
            "white": self.seats[WHITE].to_json(),
            "layout": self.layout,
            "ply": self.game.plies,
            "thinking": self.thinking,
            "outcome": outcome_json(self.game.outcome()),
            "updated": self.updated,
        }

    def think_request(self, movetime: float | None = None, models: ModelFolder | None = None) -> ThinkRequest:
        pos = self.game.position
        return ThinkRequest(
            spec=self.seat_to_move.spec,
            position=pos.to_string(),
            win_threshold=pos.variant.win_threshold,
            inline_only=pos.variant.inline_only,
            history=tuple(p.zobrist for p in self.game.positions[:-1]),
            movetime=movetime,
            models=models,
            draw=self.game.draw_counters(),
        )

    def record(self) -> GameRecord:
        """The game as a record: a computer is named by its spec, a person ``human`` (or as imported)."""

        def tag(seat: Seat, colour: str) -> str:
            return seat.name if seat.human and seat.name not in ("You", colour) else seat.spec

        black, white = tag(self.seats[BLACK], "Black"), tag(self.seats[WHITE], "White")
        return GameRecord.from_game(self.game, Event="Sumito web game", Black=black, White=white)

    # ----------------------------------------------------------------- changes (the caller holds the lock)
    def play(self, move: str, charged: float | None = None) -> bool:
        """Play ``move``; with a clock, charge the mover ``charged`` seconds (default: since its turn
        began). False, and nothing played, when the mover's clock ran out first: it lost on time."""
        now = time.monotonic()
        if self.clock is not None:
            mover = self.game.position.side_to_move
            self.game.position.play(move)  # a bad move raises before the clock is touched
            spent = now - self.clock.since if charged is None else charged
            if not self.clock.charge(mover, spent):
                self.game.resign(mover, TIME)
                return False
        self.notations.append(self.game.push(move).notation())
        self.move_times.append(round(now - self.last_move_at, 3))
        self.last_move_at = now
        self.redo = []
        return True

    def flagged(self) -> bool:
        """Whether the side to move's clock has run out (it then loses on time: the caller declares it)."""
        if self.clock is None or self.game.outcome() is not None:
            return False
        return self.clock.remaining(self.game.position.side_to_move, True) <= 0

    def lose_on_time(self) -> None:
        mover = self.game.position.side_to_move
        assert self.clock is not None
        self.clock.left[mover] = 0.0
        self.game.resign(mover, TIME)

    def take_back(self, plies: int) -> None:
        for _ in range(plies):
            self.game.pop()
        self.redo.append(self.notations[-plies:])
        del self.notations[-plies:]
        del self.move_times[-plies:]
        self.last_move_at = time.monotonic()

    def replay_redo(self) -> None:
        group = self.redo.pop()
        for move in group:
            self.notations.append(self.game.push(move).notation())
            self.move_times.append(None)
        self.last_move_at = time.monotonic()

    def changed(self) -> None:
        """Wake every request waiting for a change of this game."""
        self.updated = _now_iso()
        self.last_used = time.monotonic()
        event, self._changed = self._changed, asyncio.Event()
        event.set()

    async def wait_for_change(self, seconds: float, ply: int | None = None) -> None:
        """Wait up to ``seconds`` for a change while a computer is to move (at once when ``ply`` is stale)."""
        if not self.thinking or seconds <= 0 or (ply is not None and ply != self.game.plies):
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout=seconds)


def owner_hash(token: str) -> str:
    """What the database keeps of an owner token: its SHA-256, so the file gives no game away."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(24)


def owner_client(owner: str) -> str:
    """The client (for caps and fair shares) of requests carrying the token whose hash is ``owner``."""
    return f"token:{owner}"


def token_client(token: str) -> str:
    """The client of requests carrying the owner token ``token``."""
    return owner_client(owner_hash(token))


def address_client(address: str) -> str:
    """The client of requests without a token from the network address ``address``."""
    return f"address:{address[:64]}"


def request_client(address: str, token: str | None) -> str:
    """The client of requests from ``address`` carrying the owner token ``token`` (or none): the
    address, and inside it the token (see :mod:`sumito.web.scheduler`)."""
    group = address_client(address)
    return f"{group}|{token_client(token)}" if token else group


def outcome_json(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {"winner": COLOR_WORDS.get(outcome.winner), "reason": outcome.reason, "result": outcome.result}  # type: ignore[arg-type]


def replayed_session(start: Position, rules: DrawRules, moves: list[str], declared: Outcome | None = None) -> Game:
    game = Game(start, rules)
    for move in moves:
        game.push(move)
    if declared is not None:
        game.declare(declared)
    return game
