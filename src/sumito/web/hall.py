"""Games in progress on the web: the engine's game, its two seats, undo/redo, and the computer's turn.

Every change to a game (a move, an undo, a resignation, a new speed) is written to an SQLite
database in one statement, so a game survives a restart of the server exactly as it was after its
last change; a computer that was to move starts thinking again when the server comes back.

Each game has one lock. A computer's move is chosen in a worker process (see
:mod:`sumito.web.thinking`) while the lock is free, so the game can be read, undone or resigned
meanwhile; every change that makes the pending move meaningless (an undo, a resignation, deleting
the game) bumps the game's ``generation`` and cancels the pending move, which kills its worker. A
move that runs past its deadline sets the game's ``error``, which is saved: after a restart the
computer does not start that search again.

Each game has an owner: the SHA-256 of the token its creator got (or chose), stored instead of
the token. Only a request carrying the token may change the game; the list of games shows a
client the games of its token.

A *client*, for the server's fair shares and caps, is the network address a request comes from
(the connecting address, or the one a trusted proxy names: ``sumito serve --trusted-proxy``).
Owner tokens cost nothing, so they only divide an address's share among its games' owners; they
never add to it. Each address may have at most ``--max-games`` games in which a computer is
playing (one to move, or two computers in watch mode), ``--max-queued`` searches queued or running
(moves, hints, analyses) and ``--max-human-games`` games between two people in progress: a request
that would go past one is a 429 and changes nothing, its line saying how much of the cap is another
owner token's (another player behind the same address). A new game with a computer is refused so when
its computer could not take its turn now, even when the person moves first, so that nobody gets a game
whose every move is refused. The worker pool serves the addresses'
searches round-robin (:mod:`sumito.web.scheduler`), and a game whose computer waits for a worker
says how many searches are ahead of it (``queued`` in its state).

A game may have clocks (a time control: seconds each, plus an increment after every move). The
side to move's clock runs from the change that gave it the turn; a person who runs out loses on
time when the clock reaches zero (a timer of the game's), a computer thinks for
:func:`~sumito.search.timeman.move_time` of its clock (never beyond its spec's time or the server's
``--max-time``) and loses on time if its move comes too late. Only a computer's thinking is charged
to its clock, not the watch-mode pause after it. Time spent on a move that is taken back is not
charged; while the server is down no clock runs.

Finished games are also written to the arena's game archive (``sumito games``), resigned ones
included (the archive replays them with their declared ending). A finished game cannot be undone:
it stays as it was archived (a rematch or a new game goes on from there).

The archive's list names each player as the page shows it (:func:`player_name`): a preset's or
the learned engine's name, the spec without the seed a match adds, and "You" for a person in the
requesting client's own games.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import hmac
import logging
import secrets
import time
from pathlib import Path
from typing import Any

from sumito.arena.db import finished_game_fields
from sumito.arena.match import DEFAULT_RULES
from sumito.defaults import THRESHOLDS
from sumito.errors import SumitoError
from sumito.games.abalone import (
    BLACK,
    WHITE,
    Game,
    Position,
    parse_records,
)
from sumito.games.abalone.game import TIME
from sumito.games.abalone.geometry import COLOR_NAMES, Color
from sumito.players import PlayerSpecError, make_player, parse_spec
from sumito.players.base import set_option
from sumito.players.perfect import perfect_play_refused
from sumito.players.strongest import hint_spec
from sumito.search.timeman import move_time
from sumito.web.errors import ConflictError, ForbiddenError, GameNotFoundError, TooBusyError, TooLargeError, WebError
from sumito.web.limits import LONG_MOVE, MAX_IMPORT_BYTES, MAX_IMPORT_PLIES, WebLimits
from sumito.web.scheduler import group_of
from sumito.web.seats import HUMAN, Clock, Seat, resolve_seat, score_json
from sumito.web.serialize import COLOR_WORDS, legal_move_json
from sumito.web.session import GameSession, one_line, owner_hash, token_client
from sumito.web.store import WebStore, archive_finished_game
from sumito.web.thinking import (
    ANALYSIS_HASH,
    ANALYSIS_SPEC,
    AnalyseRequest,
    PoolBusy,
    ThinkError,
    ThinkingPool,
    ThinkTimeout,
    WorkerDied,
)

log = logging.getLogger("sumito.web")
MAX_WAIT = 10.0  # seconds a state request may wait for the computer
MAX_SPEED = 60.0  # seconds between moves in watch mode
RECENT = 24 * 3600  # finished games stay in the list of games for a day
KEPT_IN_MEMORY = 500  # idle games beyond this many are dropped from memory (not from the database)
IDLE = 60.0  # seconds without a request after which a game may be dropped from memory
IMPORTS_AT_ONCE = 2  # records parsed at the same time (each in a thread); more wait their turn
NOT_ARCHIVED = -1  # archive_id of a finished game that is not to be archived (imported finished)
#: clocks: at most 3 hours each and 5 minutes of increment; a computer whose move would come this
#: much after its clock ran out is stopped (it has lost on time anyway)
MAX_CLOCK = 3 * 3600.0
MAX_INCREMENT = 300.0
CLOCK_GRACE = 0.5
#: analysis: seconds of search for a hint or the evaluation bar (default, most), and for each
#: position of a game's analysis; positions in one page of it (how many analyses run at once is
#: the worker pool's ``ANALYSES_AT_ONCE``)
HINT_SECONDS = 0.3
MAX_HINT_SECONDS = 3.0
ANALYSIS_SECONDS = 0.2
MAX_ANALYSIS_PAGE = 20


class GameHall:
    """Every game of the server: creation, lookup, the players' actions and the computers' turns."""

    def __init__(
        self, store: WebStore, archive_path: Path, pool: ThinkingPool, limits: WebLimits | None = None
    ) -> None:
        self.store = store
        self.pool = pool  # started
        self.limits = limits or WebLimits()
        self.archive_path = archive_path
        self.sessions: dict[str, GameSession] = {}
        self.background: set[asyncio.Task] = set()
        self.checked_specs: set[str] = set()
        self.imports = asyncio.Semaphore(IMPORTS_AT_ONCE)
        self.closing = False

    # ----------------------------------------------------------------- lifecycle
    async def resume(self) -> None:
        """After a (re)start: computers that were to move think again; finished games get archived.

        A game whose last search failed or overran keeps its error and does not think again until
        a person undoes; a spec beyond this server's (new) caps gets an error when its turn starts.
        """
        for game_id in self.store.ids_to_resume():
            session = self.store.load(game_id)
            if session is None:
                continue
            self.sessions[game_id] = session
            async with session.lock:
                self._after_change(session, save=False)

    async def close(self) -> None:
        self.closing = True
        tasks = [t for t in self.background if not t.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # ----------------------------------------------------------------- lookup and owners
    def session(self, game_id: str) -> GameSession:
        session = self.sessions.get(game_id)
        if session is None:
            session = self.store.load(game_id) if len(game_id) <= 64 else None
            if session is None:
                shown = game_id if len(game_id) <= 64 else game_id[:60] + "…"
                raise GameNotFoundError(f"there is no game {shown!r}")
            self._remember(session)
        session.last_used = time.monotonic()
        return session

    @staticmethod
    def authorize(session: GameSession, token: str | None) -> None:
        """Refuse a change to ``session`` unless ``token`` is its owner token."""
        if session.owner is None:
            raise ForbiddenError(f"game {session.id} was started before owner tokens; it can be watched, not changed")
        if not token:
            raise ForbiddenError(f"changing game {session.id} needs its owner token (header X-Sumito-Token)")
        if not hmac.compare_digest(owner_hash(token), session.owner):
            raise ForbiddenError(f"game {session.id} belongs to another client (the X-Sumito-Token does not match)")

    def _remember(self, session: GameSession) -> None:
        self.sessions[session.id] = session
        if len(self.sessions) > KEPT_IN_MEMORY:
            self._forget_idle()

    def _forget_idle(self) -> None:
        """Keep memory bounded: drop the games idle longest (they stay in the database, and load again on use).

        A game is kept while its computer thinks, while a request holds its lock, or while it waits
        to be archived.
        """
        now = time.monotonic()
        idle = [
            s
            for s in self.sessions.values()
            if not s.thinking
            and not s.lock.locked()
            and now - s.last_used > IDLE
            and not (s.archive_id is None and s.game.outcome() is not None)
        ]
        idle.sort(key=lambda s: s.last_used)
        for s in idle[: len(self.sessions) - KEPT_IN_MEMORY]:
            del self.sessions[s.id]

    def games(self, token: str | None) -> list[dict[str, Any]]:
        """The games of ``token``'s owner in progress and finished in the last day, newest change first."""
        if not token:
            return []
        since = (_dt.datetime.now(_dt.UTC) - _dt.timedelta(seconds=RECENT)).isoformat(timespec="seconds")
        out = []
        for summary in self.store.recent(since, owner_hash(token)):
            session = self.sessions.get(summary["id"])
            out.append(session.summary() if session is not None else summary)
        return out

    # ----------------------------------------------------------------- each client's caps
    def admit_people(self, client: str) -> None:
        """Refuse (429) a new game between two people past ``--max-human-games`` of ``client``'s address."""
        group = group_of(client)
        held = [
            s
            for s in self.sessions.values()
            if len(s.humans()) == 2 and s.game.outcome() is None and group_of(s.client) == group
        ]
        if len(held) >= self.limits.max_human_games:
            others = sum(1 for s in held if s.client != client)
            raise TooBusyError(_cap_message(f"{len(held)} games between two people in progress", len(held),
                                            "--max-human-games", others, "finish, resign or delete one"))

    def admit(self, client: str, session: GameSession | None = None, doing: str = "") -> None:
        """Refuse (429) a change that would give a computer of ``client`` the move, past its caps; the
        message says how many of what fills the cap are another player's at the same address (another
        owner token), who share its caps. ``doing``: what the refusal is of, said first (a new game's).

        ``session``: the game changed, which is not counted (it may be thinking already). Call it
        with the game's lock held and no ``await`` before the change, so that no other request of
        the client slips in between.
        """
        group = group_of(client)
        playing = [
            s for s in self.sessions.values() if s.thinking and s is not session and group_of(s.client) == group
        ]
        if len(playing) >= self.limits.max_games:
            others = sum(1 for s in playing if s.client != client)
            raise TooBusyError(doing + _cap_message(f"{len(playing)} games with a computer playing", len(playing),
                                                    "--max-games", others, "finish, resign or delete one"))
        queued = self.pool.load(client)
        if queued >= self.limits.max_queued:
            raise TooBusyError(doing + _busy_message(queued, queued - self.pool.scheduler.load(client)))

    # ----------------------------------------------------------------- creation
    async def check_player(self, seat: Seat) -> None:
        """Check the spec against this server's caps and build the player once (in a thread: a
        network file is read), so that a bad spec is a 400 now.

        Building is cheap (no kernel runs, a table of 1 MB); the workers build their own copies for the moves.
        """
        if seat.human:
            return
        self.limits.check_spec(seat.spec)
        if seat.spec in self.checked_specs:
            return
        # its options' checks, without a table of up to --max-hash MB that nobody uses (parse_spec checked its size)
        kind, _ = parse_spec(seat.spec)
        spec = set_option(seat.spec, "hash", 1) if "hash" in kind.options else seat.spec
        try:
            await asyncio.to_thread(make_player, spec, self.limits.models)
        except SumitoError as exc:
            raise PlayerSpecError(one_line(exc)) from None
        except Exception as exc:  # a player whose construction fails in an unexpected way
            raise PlayerSpecError(f"{seat.spec}: {one_line(exc)}") from None
        if len(self.checked_specs) > 1000:
            self.checked_specs.clear()
        self.checked_specs.add(seat.spec)

    async def create(
        self,
        black: str,
        white: str,
        layout: str = "standard",
        position: str | None = None,
        speed: float = 1.0,
        win_threshold: int | None = None,
        inline_only: bool | None = None,
        *,
        token: str,
        clock: tuple[float, float] | None = None,
        client: str | None = None,
    ) -> GameSession:
        """A new game owned by ``token``; ``clock``: seconds each and the increment, or none;
        ``client``: whose caps and share of the workers it counts in (default: the token's)."""
        seats = {BLACK: resolve_seat(black), WHITE: resolve_seat(white)}
        if position is not None and position.strip():
            base = Position.from_string(position)
            variant = base.variant.with_options(win_threshold=win_threshold, inline_only=inline_only)
            start = Position.from_string(position, variant)
        else:
            start = Position.start(layout, win_threshold=win_threshold, inline_only=inline_only)
        for seat in {s for s in seats.values() if not s.human}:
            await self.check_player(seat)
            if parse_spec(seat.spec)[0].name == "perfect" and (why := perfect_play_refused(start)):
                raise PlayerSpecError(why)
        if start.winner() is not None or start.count_legal_moves() == 0:
            raise WebError("the game would be over before it starts: give a position where the side to move can play")
        timer = None
        if clock is not None:
            initial, increment = clock
            if not (0 < initial <= MAX_CLOCK and 0 <= increment <= MAX_INCREMENT):
                raise WebError(f"clock: at most {MAX_CLOCK:g} s each and {MAX_INCREMENT:g} s of increment")
            timer = Clock.fresh(initial, increment)
        session = GameSession(
            _new_id(), Game(start, DEFAULT_RULES), seats, speed=speed, owner=owner_hash(token), clock=timer,
            client=client or token_client(token),
        )
        # no await from here to the change: the counts stay true. A game with a computer is refused now when
        # its computer could not take its turn now (it moves first, or after the person's first move), so that
        # a person behind an address whose caps another player fills is told here, not at each move
        if not (seats[BLACK].human and seats[WHITE].human):
            self.admit(session.client, doing="no game was made, as its computer could not play now: ")
        else:
            self.admit_people(session.client)
        self._remember(session)
        async with session.lock:
            self._after_change(session)
        return session

    async def import_record(self, text: str, *, token: str, client: str | None = None) -> GameSession:
        """A record as a new game between two people, owned by ``token``; bounded in size and plies.
        ``client``: whose cap of games between people it counts in (default: the token's)."""
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_IMPORT_BYTES:
            raise TooLargeError(f"the record has {size} bytes; this server imports at most {MAX_IMPORT_BYTES}")
        # a cheap upper bound before any parsing: every ply is one word, with a move number every two
        words = len(text.split())
        if words > 2 * MAX_IMPORT_PLIES + 2_000:
            raise TooLargeError(f"the record is too long: this server imports at most {MAX_IMPORT_PLIES} plies")
        async with self.imports:  # parsed in a thread, so that other clients are served meanwhile
            records = await asyncio.to_thread(parse_records, text, source="the record")
        if not records:
            raise WebError("the text holds no game record (tags in [brackets], then the moves)")
        if len(records) > 1:
            raise WebError(f"the text holds {len(records)} game records; import one at a time")
        record = records[0]
        game = record.game
        if game.plies > MAX_IMPORT_PLIES:
            raise TooLargeError(f"the record has {game.plies} plies; this server imports at most {MAX_IMPORT_PLIES}")
        seats = {
            BLACK: Seat(HUMAN, record.tags.get("Black", "").strip()[:80] or "Black"),
            WHITE: Seat(HUMAN, record.tags.get("White", "").strip()[:80] or "White"),
        }
        finished = game.outcome() is not None
        session = GameSession(
            _new_id(),
            game,
            seats,
            archive_id=NOT_ARCHIVED if finished else None,
            move_times=[None] * game.plies,
            owner=owner_hash(token),
            client=client or token_client(token),
        )
        if not finished:
            self.admit_people(session.client)
        self._remember(session)
        async with session.lock:
            self._after_change(session)
        return session

    # ----------------------------------------------------------------- a person's actions
    async def play(self, session: GameSession, move: str) -> None:
        async with session.lock:
            outcome = session.game.outcome()
            if outcome is not None:
                raise ConflictError(f"the game is over: {outcome.describe()}")
            seat = session.seat_to_move
            if not seat.human:
                color = COLOR_NAMES[session.game.position.side_to_move]
                doing = "is thinking" if session.thinking else "is to move"
                raise ConflictError(f"it is the computer's turn: {color} ({seat.spec}) {doing}")
            after = session.game.position.play(move)  # a bad move raises before anything changes
            if after.winner() is None and not session.seats[after.side_to_move].human:
                self.admit(session.client, session)
            played = session.play(move)
            session.error = None
            self._after_change(session)
            if not played:
                raise ConflictError(f"too late: {session.game.outcome().describe()}")  # type: ignore[union-attr]

    async def undo(self, session: GameSession) -> None:
        async with session.lock:
            outcome = session.game.outcome()
            if outcome is not None and outcome.reason == TIME:
                raise ConflictError("a game lost on time cannot be taken back; start a rematch")
            if outcome is not None:
                raise ConflictError(
                    f"the game is over ({outcome.describe()}): undo is for a game in progress; start a rematch"
                )
            plies = session.undo_plan()
            if plies is None:
                if not session.humans():
                    raise ConflictError("undo takes back a person's move; in this game two computers play")
                raise ConflictError("nothing to undo: no move of yours has been played yet")
            # back to a person's turn (the computer's reply, or the move it thinks about, goes too)
            session.take_back(plies)
            session.error = None
            self._after_change(session)

    async def redo(self, session: GameSession) -> None:
        async with session.lock:
            if not session.redo:
                raise ConflictError("nothing to redo")
            if session.game.outcome() is not None:
                raise ConflictError("the game is over: redo is for a game in progress")
            mover = session.game.position.side_to_move
            if len(session.redo[-1]) % 2:
                mover = WHITE if mover == BLACK else BLACK
            if not session.seats[mover].human:
                self.admit(session.client, session)
            session.replay_redo()
            session.error = None
            self._after_change(session)

    async def resign(self, session: GameSession, side: str | None) -> None:
        async with session.lock:
            outcome = session.game.outcome()
            if outcome is not None:
                raise ConflictError(f"the game is over: {outcome.describe()}")
            if side is None:
                humans = session.humans()
                color = humans[0] if len(humans) == 1 else session.game.position.side_to_move
            else:
                color = BLACK if side == "black" else WHITE
            session.game.resign(color)
            self._after_change(session)

    async def set_speed(self, session: GameSession, speed: float) -> None:
        async with session.lock:
            session.speed = speed
            session.changed()
            self.store.save(session)

    async def delete(self, session: GameSession) -> None:
        """Remove the game (a finished one stays in the arena's archive); its computer stops thinking."""
        async with session.lock:
            session.generation += 1
            session.thinking = False
            self._cancel_turn(session)
            self.store.delete(session.id)
            self.sessions.pop(session.id, None)
            session.changed()

    def legal_moves(self, session: GameSession) -> list[dict[str, Any]]:
        """The legal moves as JSON, kept for the position (the page asks once a turn, a watcher maybe more)."""
        key = (session.game.plies, session.game.position.zobrist, session.game.outcome() is None)
        if session.legal_cache is None or session.legal_cache[0] != key:
            session.legal_cache = (key, [legal_move_json(m) for m in session.game.legal_moves()])
        return session.legal_cache[1]

    # ----------------------------------------------------------------- the engine's opinion
    def analysis_seconds(self, wanted: float) -> float:
        """Seconds of search for one analysis: what was asked, at most ``--max-time``."""
        return min(wanted, self.limits.max_time)

    async def _analyse(
        self,
        position: Position,
        history: tuple[int, ...],
        client: str,
        *,
        seconds: float | None,
        expected: float,
        spec: str = ANALYSIS_SPEC,
    ) -> dict[str, Any]:
        """The best move and score for ``position`` of the engine ``spec`` searching ``seconds``
        (``None``: as its spec says; ``expected``: how long that may take) in the worker pool, in
        ``client``'s turn, with a deadline; a 429 when the client has ``--max-queued`` searches already."""
        request = AnalyseRequest(
            position=position.to_string(),
            win_threshold=position.variant.win_threshold,
            inline_only=position.variant.inline_only,
            history=history,
            seconds=seconds,
            spec=spec,
        )
        deadline = self.limits.deadline(expected)
        try:
            # a hint as long as a long move (it searches as long as the opponent may) is one
            found = await self.pool.analyse(
                request, deadline, client=client, limit=self.limits.max_queued, long=expected > LONG_MOVE
            )
        except PoolBusy as exc:
            raise TooBusyError(_busy_message(exc.load, exc.load - self.pool.scheduler.load(client))) from None
        except ThinkTimeout:
            raise WebError(f"the analysis did not finish within {deadline:g} s; it was stopped") from None
        except WorkerDied:
            raise WebError("the analysis failed: its worker process died (out of memory?)") from None
        except ThinkError as exc:
            raise WebError(f"the analysis failed: {exc}") from None
        mover = position.side_to_move
        answer = {
            "to_move": COLOR_WORDS[mover],
            "best": found["move"],
            **score_json(found["score"], found["marbles"], mover),
            "depth": found["depth"],
            "pv": found["pv"],
            "exact": None,
        }
        exact = found.get("exact")
        if exact:
            # a solved board: the table's value is the evaluation, and its best move the hint
            best = next(iter(exact["moves"]))
            answer.update(best=best, pv=[best] if best != found["move"] else found["pv"], exact=exact)
        return answer

    def hint_player(self, session: GameSession, seconds: float) -> str:
        """The spec of the engine that gives ``session``'s hint now: the one choice of
        :func:`~sumito.players.strongest.hint_spec` (the learned engine, searching ``seconds`` or
        as long and deep as the computer the side to move plays against, if that is more; no longer
        than this server lets a computer think), with the analyses' own small table."""
        opponent = session.seats[Color(session.game.position.side_to_move).opponent]
        least = self.analysis_seconds(seconds)
        spec = hint_spec(None if opponent.human else opponent.spec, least, movetime=self.limits.max_time)
        return set_option(spec, "hash", ANALYSIS_HASH)

    async def hint(self, session: GameSession, seconds: float = HINT_SECONDS) -> dict[str, Any]:
        """The engine's best move and its score of the game's position now (a hint, the evaluation
        bar), from :meth:`hint_player`.

        One at a time per game (a second request meanwhile is a 409), at most ``ANALYSES_AT_ONCE``
        over the server, in the turn of the game's client; a change of the game meanwhile makes the
        answer stale, which its ``ply`` and ``position`` tell.
        """
        if session.analysing:
            raise ConflictError(f"game {session.id} is being analysed already; wait for that answer")
        async with session.lock:
            game = session.game
            position = game.position
            history = tuple(p.zobrist for p in game.positions[:-1])
            ply = game.plies
            spec = self.hint_player(session, seconds)
        expected = self.limits.check_spec(spec)
        session.analysing = True
        try:
            found = await self._analyse(position, history, session.client, seconds=None, expected=expected, spec=spec)
        finally:
            session.analysing = False
        searched = parse_spec(spec)[1].get("time")
        return {"ply": ply, "position": position.to_string(), "seconds": searched, "player": spec, **found}

    async def analyse_moves(
        self,
        start: Position,
        moves: list[str],
        first: int,
        count: int,
        disconnected: Any = None,
        client: str = "",
    ) -> dict[str, Any]:
        """One page of a game's analysis: the positions after plies ``first`` .. ``first + count − 1``
        (those the game has), each searched for ``ANALYSIS_SECONDS`` (at most ``--max-time``) in
        ``client``'s turn: the engine's best move and score, with the move the game played from it.
        Stops early (a shorter page) when ``disconnected()`` says the client has gone."""
        if count > MAX_ANALYSIS_PAGE:
            raise WebError(f"count: at most {MAX_ANALYSIS_PAGE} positions a page")
        stop = min(first + count, len(moves) + 1)
        seconds = self.analysis_seconds(ANALYSIS_SECONDS)
        positions: list[Position] = []
        history: list[int] = []
        position = start
        for ply in range(stop):
            if ply >= first:
                positions.append(position)
            if ply + 1 < stop:
                history.append(position.zobrist)
                position = position.play(moves[ply])
        out = []
        for i, pos in enumerate(positions):
            if disconnected is not None and await disconnected():
                break
            ply = first + i
            # one position at a time, so that other clients' searches take turns with the page's
            found = await self._analyse(pos, tuple(history[:ply]), client, seconds=seconds, expected=seconds)
            out.append({"ply": ply, "played": moves[ply] if ply < len(moves) else None, **found})
        return {
            "start": first,
            "seconds": seconds,
            "total": len(moves) + 1,
            "thresholds": dict(THRESHOLDS),
            "positions": out,
        }

    # ----------------------------------------------------------------- after every change
    def _after_change(self, session: GameSession, save: bool = True) -> None:
        """Save the game, wake its waiters, start the computer's turn, archive a finished game.

        The caller holds the game's lock. Any pending computer move is stale from here on: its
        turn is cancelled, which frees (kills and replaces) its worker at once.
        """
        session.generation += 1
        session.thinking = False
        self._cancel_turn(session)
        flag, session.flag_task = session.flag_task, None
        if flag is not None and not flag.done() and flag is not asyncio.current_task():
            flag.cancel()
        outcome = session.game.outcome()
        if session.clock is not None:
            session.clock.since = time.monotonic()  # the side to move's clock starts now
        if outcome is None and not session.seat_to_move.human and session.error is None and not self.closing:
            session.thinking = True
            session.task = self._spawn(self._computer_turn(session, session.generation))
        elif outcome is None and session.clock is not None and not self.closing:
            session.flag_task = self._spawn(self._flag_watch(session, session.generation))
        if outcome is not None and session.archive_id is None:
            self._spawn(self._archive(session, session.generation))
        if save:
            session.changed()
            self.store.save(session)
        else:
            session.changed()

    @staticmethod
    def _cancel_turn(session: GameSession) -> None:
        task, session.task = session.task, None
        if task is not None and not task.done() and task is not asyncio.current_task():
            task.cancel()

    def _spawn(self, coroutine: Any) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        return task

    async def _flag_watch(self, session: GameSession, generation: int) -> None:
        """A person's turn on the clock: when it runs out, the game is lost on time."""
        assert session.clock is not None
        mover = session.game.position.side_to_move
        await asyncio.sleep(max(0.0, session.clock.remaining(mover, True)) + 0.02)
        async with session.lock:
            if session.generation != generation or not session.flagged():
                return
            session.flag_task = None
            session.lose_on_time()
            self._after_change(session)

    async def _computer_turn(self, session: GameSession, generation: int) -> None:
        """Choose the computer's move in a worker, within its deadline; wait out the watch-mode pause; play it."""
        async with session.lock:
            if session.generation != generation:
                return
            spec = session.seat_to_move.spec
            try:
                expected = self.limits.check_spec(spec)  # again: the server may have restarted with lower caps
            except SumitoError as exc:
                session.error = one_line(exc)
                self._after_change(session)
                return
            deadline = self.limits.deadline(expected)
            movetime = expected
            clock = session.clock
            if clock is not None:  # think for a share of the clock; a move after it ran out loses on time
                left = clock.remaining(session.game.position.side_to_move, True)
                movetime = max(0.01, min(expected, move_time(left, clock.increment)))
                deadline = max(0.01, min(deadline, left + CLOCK_GRACE))
            request = session.think_request(movetime=movetime, models=self.limits.models)
        started = time.monotonic()
        try:
            # a watch-mode move counts as long: nobody waits for it at the board, so it may not take the
            # worker kept for quick moves (else others' watch games could hold every worker)
            long = session.watching or self.limits.long_move(spec)
            try:
                notation = await self.pool.think(
                    request, deadline, long=long, client=session.client, queued=session.wait_in
                )
            finally:
                session.ticket = None  # done, failed or cancelled: no longer waiting or running
        except (ThinkTimeout, WorkerDied, ThinkError) as exc:
            if isinstance(exc, ThinkTimeout) and session.clock is not None:
                async with session.lock:
                    if session.generation == generation and session.flagged():
                        session.lose_on_time()
                        self._after_change(session)
                        return
            if isinstance(exc, ThinkTimeout):
                message = f"{spec} did not move within {deadline:g} s, this server's limit; its search was stopped"
            elif isinstance(exc, WorkerDied):
                message = f"{spec}: its worker process died (out of memory?)"
            else:
                message = f"{spec} failed: {exc}"
            log.warning("game %s: %s", session.id, message)
            async with session.lock:
                if session.generation == generation:
                    session.error = message
                    self._after_change(session)
            return
        spent = time.monotonic() - started
        while session.generation == generation and session.watching:
            remaining = session.last_move_at + session.speed - time.monotonic()
            if remaining <= 0:
                break
            await asyncio.sleep(min(remaining, 0.25))
        async with session.lock:
            if session.generation != generation:
                return
            try:
                session.play(notation, charged=spent)
            except SumitoError as exc:
                session.error = f"{spec} chose {notation!r}, which cannot be played: {one_line(exc)}"
            self._after_change(session)

    async def _archive(self, session: GameSession, generation: int) -> None:
        game = session.game
        snapshot = {
            "black": session.seats[BLACK].spec,
            "white": session.seats[WHITE].spec,
            **finished_game_fields(game, session.layout, session.move_times),
        }
        try:
            archive_id = await asyncio.to_thread(archive_finished_game, self.archive_path, snapshot)
        except SumitoError as exc:
            log.warning("game %s could not be added to the archive %s: %s", session.id, self.archive_path, exc)
            return
        async with session.lock:
            if session.generation == generation and session.id in self.sessions:
                session.archive_id = archive_id
                self.store.save(session)


def _new_id() -> str:
    return "g-" + secrets.token_hex(8)


def _cap_message(held: str, count: int, option: str, others: int, advice: str) -> str:
    """The one line of a 429 past a cap of an address: what it holds (``held``, ``count`` of it), the
    cap's ``option``, whose it is when ``others`` of it are another player's at the same address (another
    owner token: people behind one address share its caps), and what the requester can do (``advice``, of
    its own games)."""
    line = f"this address has {held}, this server's limit (sumito serve {option})"
    if others >= count:
        return f"{line}, all of them another player's at the same address (another owner token); wait for theirs to end"
    if others:
        return (f"{line}, {others} of them another player's at the same address (another owner token); "
                f"{advice} of yours first, or wait for theirs to end")
    return f"{line}; {advice} first"


def _busy_message(queued: int, others: int = 0) -> str:
    """The 429 past ``--max-queued``: ``queued`` searches of the address, ``others`` of them another token's."""
    line = f"this address has {queued} searches queued or running, this server's limit (sumito serve --max-queued)"
    if others:
        whose = "all" if others >= queued else str(others)
        line += f", {whose} of them another player's at the same address (another owner token)"
    return f"{line}; wait for them to finish"
