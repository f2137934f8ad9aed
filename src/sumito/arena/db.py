"""The game archive: every finished arena game in an SQLite database (standard-library ``sqlite3``).

The default file is ``$XDG_DATA_HOME/sumito/games.sqlite`` (``~/.local/share/sumito/games.sqlite``
when ``XDG_DATA_HOME`` is unset); ``--db PATH`` chooses another. Only the parent process writes,
each game in its own transaction as it finishes, so a killed run loses at most the games that
were still being played.

Tables: ``runs`` (one row per match or tournament: players, settings, master seed, status),
``run_owners`` (the process that plays each run still ``running``: host, boot, pid and the
process's start time) and ``games`` (one row per finished game: the players' specs as given and
as played, the start position and layout, the variant, the draw rules, the moves in notation and
the seconds each took, the result and why, plies, marbles lost, seed and time). The file is marked with
``PRAGMA application_id`` and versioned with ``PRAGMA user_version``; a file that is not SQLite,
belongs to another program or has another schema version is refused with a one-line
:class:`~sumito.arena.errors.ArchiveError`.

**Interrupted runs.** Ctrl-C marks a run ``interrupted`` as it stops. A run whose process was
killed outright (``kill -9``, a crash of the machine) cannot mark itself, so every run records its
owner process; whenever the archive is opened for writing, a ``running`` run whose owner is gone is
marked ``interrupted`` (its end time is its last game's), and :meth:`GameArchive.runs` reports it
so even from a read-only archive. The owner is gone when it ran on this host and the machine has
rebooted since, or no process has its pid, or the process with its pid started at another time
(the pid was reused); runs owned by another host are left as they are.

``run_owners`` was added without changing the schema version: older Sumitos ignore the table, and
a file they wrote gets it the next time it is opened for writing.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import socket
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from sumito.arena.errors import ArchiveError
from sumito.arena.match import ArenaSettings, GameResult, GameTask, start_position
from sumito.errors import SumitoError
from sumito.fileio import claim_sqlite, load_json, process_alive, process_started, refuse_irregular
from sumito.games.abalone import BLACK, WHITE, DrawRules, Game, GameRecord, get_layout
from sumito.games.abalone.game import DECLARED_REASONS, Outcome

SCHEMA_VERSION = 1
APPLICATION_ID = 0x53554D49  # "SUMI"
RESULTS = ("1-0", "0-1", "1/2-1/2")

_SCHEMA = """
CREATE TABLE runs (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,                -- 'match', 'tournament', 'web' or 'play'
    players TEXT NOT NULL,             -- JSON list of the player specs as given
    games_per_pair INTEGER NOT NULL,
    games_planned INTEGER NOT NULL,
    seed INTEGER NOT NULL,             -- the master seed
    settings TEXT NOT NULL,            -- JSON: start, variant, draw rules, move time, opening plies
    status TEXT NOT NULL,              -- 'running', 'finished', 'interrupted' or 'failed'
    started TEXT NOT NULL,             -- ISO 8601, UTC
    ended TEXT
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES runs(id),
    game_index INTEGER NOT NULL,       -- the game's number in its run, from 0
    black TEXT NOT NULL,               -- player spec as given
    white TEXT NOT NULL,
    black_played TEXT NOT NULL,        -- player spec as played (derived seed filled in)
    white_played TEXT NOT NULL,
    black_player INTEGER NOT NULL,     -- index of Black in the run's players (0 = A in a match)
    white_player INTEGER NOT NULL,
    layout TEXT,                       -- the layout's name, NULL for another start position
    start_position TEXT NOT NULL,
    board_side INTEGER NOT NULL,
    win_threshold INTEGER NOT NULL,
    inline_only INTEGER NOT NULL,
    max_plies INTEGER,                 -- draw rules; NULL = off
    repetitions INTEGER,
    no_capture_plies INTEGER,
    no_moves TEXT NOT NULL,
    movetime REAL,                     -- seconds allowed per move; NULL = none
    opening_plies INTEGER NOT NULL,    -- random opening plies at the start of moves
    moves TEXT NOT NULL,               -- notation, space-separated
    move_times TEXT NOT NULL,          -- seconds per ply, space-separated; '-' for opening plies
    result TEXT NOT NULL,              -- '1-0' Black won, '0-1' White won, '1/2-1/2'
    reason TEXT NOT NULL,              -- push-off, repetition, ply-cap, ...
    plies INTEGER NOT NULL,
    lost_black INTEGER NOT NULL,
    lost_white INTEGER NOT NULL,
    final_position TEXT NOT NULL,
    seed INTEGER NOT NULL,             -- the game's derived seed
    finished TEXT NOT NULL             -- ISO 8601, UTC
);
CREATE INDEX games_run ON games(run_id);
"""

# who plays a run that is still running (one row per such run; gone when it ends). Created with IF NOT EXISTS
# in files of schema 1 made before it existed (see the module notes).
_OWNERS_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_owners (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id),
    host TEXT NOT NULL,                -- socket.gethostname()
    boot_id TEXT,                      -- /proc/sys/kernel/random/boot_id; NULL where there is none
    pid INTEGER NOT NULL,
    pid_start TEXT                     -- the process's start time (/proc/PID/stat field 22); NULL if unknown
);
"""

_GAME_COLUMNS = [
    *("id", "run_id", "game_index", "black", "white", "black_played", "white_played", "black_player", "white_player"),
    "layout",
    "start_position",
    *("board_side", "win_threshold", "inline_only", "max_plies", "repetitions", "no_capture_plies", "no_moves"),
    *("movetime", "opening_plies", "moves", "move_times", "result", "reason", "plies", "lost_black", "lost_white"),
    *("final_position", "seed", "finished"),
]
_RUN_COLUMNS = [
    *("id", "kind", "players", "games_per_pair", "games_planned", "seed", "settings", "status", "started", "ended"),
]




def default_db_path() -> Path:
    """``$XDG_DATA_HOME/sumito/games.sqlite``, or ``~/.local/share/sumito/games.sqlite``."""
    base = os.environ.get("XDG_DATA_HOME", "").strip()
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "sumito" / "games.sqlite"


def finished_game_fields(game: Game, layout: str | None, times: Sequence[float | None] = ()) -> dict:
    """The fields :meth:`GameArchive.add_single_game` stores, from a finished ``game`` (``times``: the seconds
    each ply took, none known when left out)."""
    outcome = game.outcome()
    if outcome is None:
        raise ArchiveError("only a finished game is stored in the archive")
    variant = game.start.variant
    return dict(start=game.start.to_string(), win_threshold=variant.win_threshold, inline_only=variant.inline_only,
                rules=game.rules, layout=layout, moves=[m.notation() for m in game.moves],
                times=list(times) or [None] * game.plies, winner=outcome.winner, reason=outcome.reason,
                lost=game.position.lost, final=game.position.to_string())


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def _boot_id() -> str | None:
    """This boot of the machine (Linux), so that a pid recorded before a reboot is never taken for a live one."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip() or None
    except OSError:
        return None


@dataclass(frozen=True)
class RunOwner:
    """The process that plays a run: where it runs and which process it is."""

    host: str
    boot_id: str | None
    pid: int
    pid_start: str | None

    @classmethod
    def current(cls) -> RunOwner:
        pid = os.getpid()
        return cls(socket.gethostname(), _boot_id(), pid, process_started(pid))

    def is_gone(self) -> bool:
        """True when this owner has certainly stopped; False while it may still run (or runs elsewhere)."""
        if self.host != socket.gethostname():
            return False  # another machine's process (a shared folder): we cannot tell
        boot = _boot_id()
        if self.boot_id and boot and self.boot_id != boot:
            return True  # the machine has rebooted since
        return not process_alive(self.pid, self.pid_start)


@dataclass(frozen=True)
class StoredRun:
    """One row of the ``runs`` table, with the games stored for it. ``status`` is what the run is now:
    ``interrupted`` for a run still marked ``running`` whose process is gone (see the module notes)."""

    id: int
    kind: str
    players: list[str]
    games_per_pair: int
    games_planned: int
    seed: int
    settings: dict
    status: str
    started: str
    ended: str | None
    games_stored: int


@dataclass(frozen=True)
class StoredGame:
    """One row of the ``games`` table."""

    id: int
    run_id: int
    game_index: int
    black: str
    white: str
    black_played: str
    white_played: str
    black_player: int
    white_player: int
    layout: str | None
    start_position: str
    board_side: int
    win_threshold: int
    inline_only: bool
    max_plies: int | None
    repetitions: int | None
    no_capture_plies: int | None
    no_moves: str
    movetime: float | None
    opening_plies: int
    moves: str
    move_times: str
    result: str
    reason: str
    plies: int
    lost_black: int
    lost_white: int
    final_position: str
    seed: int
    finished: str
    run_kind: str = "match"

    @property
    def rules(self) -> DrawRules:
        return DrawRules(self.max_plies, self.repetitions, self.no_capture_plies, self.no_moves)

    @property
    def times(self) -> list[float | None]:
        return [None if t == "-" else float(t) for t in self.move_times.split()]

    def replay(self, source: str = "the game database") -> Game:
        """The game, replayed move by move; an :class:`ArchiveError` if the row does not add up."""
        try:
            game = Game(start_position(self.start_position, self.win_threshold, self.inline_only), self.rules)
            for text in self.moves.split():
                game.push(text)
            if self.reason in DECLARED_REASONS and game.outcome() is None:
                # resigned, lost on time, agreed or adjudicated: an ending the moves do not show
                winner = {"1-0": BLACK, "0-1": WHITE}.get(self.result)
                game.declare(Outcome(winner, self.reason))
        except SumitoError as exc:
            raise ArchiveError(f"game {self.id} in {source} is damaged: {exc}") from None
        outcome = game.outcome()
        if outcome is None or outcome.result != self.result or outcome.reason != self.reason:
            found = outcome.describe() if outcome else "an unfinished game"
            raise ArchiveError(
                f"game {self.id} in {source} is damaged: it is stored as {self.result} ({self.reason}) "
                f"but its moves give {found}"
            )
        return game

    def to_record(self, source: str = "the game database") -> GameRecord:
        """The game as a record (``sumito.games.abalone.GameRecord``), with the archive's details as tags."""
        game = self.replay(source)
        tags = {
            "Event": f"Sumito {self.run_kind} {self.run_id}",
            "Date": self.finished[:10].replace("-", "."),
            "Round": str(self.game_index + 1),
            "Black": self.black_played,
            "White": self.white_played,
            "GameId": str(self.id),
            "Seed": str(self.seed),
        }
        if self.opening_plies:
            tags["OpeningPlies"] = str(self.opening_plies)
        if self.movetime is not None:
            tags["MoveTime"] = f"{self.movetime:g}"
        return GameRecord.from_game(game, **tags)


def _roll_back_hot_journal(path: Path) -> None:
    """A writer killed inside a transaction leaves a "hot" rollback journal, which a read-only
    connection cannot roll back ("attempt to write a readonly database"); the first reader that
    may write rolls it back, as SQLite does on any read. Without write access the read-only open
    then fails with its own clear error."""
    try:
        with contextlib.closing(sqlite3.connect(path, timeout=30)) as conn:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error:
        pass


class GameArchive:
    """An open game database. ``GameArchive(path)`` creates it if needed; ``create=False`` only reads."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, create: bool = True) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self.writable = create
        self.conn = self._connect(create)
        try:
            self._check_schema(create)
        except BaseException:
            self.conn.close()
            raise

    # ----------------------------------------------------------------- opening
    def _connect(self, create: bool) -> sqlite3.Connection:
        path = self.path
        if path.is_dir():
            raise ArchiveError(f"{path} is a folder, not a game database")
        try:
            refuse_irregular(path, "game database")  # a FIFO or a device: SQLite's first read would block
        except ValueError as exc:
            raise ArchiveError(str(exc)) from None
        try:
            if create:
                path.parent.mkdir(parents=True, exist_ok=True)
                return sqlite3.connect(path, timeout=30)
            if not path.exists():
                raise ArchiveError(f"there is no game database at {path} (play a match first, or give --db PATH)")
            if Path(f"{path}-journal").exists():
                _roll_back_hot_journal(path)
            return sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=30)
        except OSError as exc:
            raise ArchiveError(f"cannot create the game database {path}: {exc.strerror or exc}") from None
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot open the game database {path}: {exc}") from None

    def _check_schema(self, create: bool) -> None:
        path = self.path
        version = SCHEMA_VERSION
        claim_sqlite(self.conn, path, application_id=APPLICATION_ID, version=version, schema=_SCHEMA,
                     what="a Sumito game database", error=ArchiveError, create=create)
        for table, columns in (("games", _GAME_COLUMNS), ("runs", _RUN_COLUMNS)):
            found = [r[1] for r in self.conn.execute(f"PRAGMA table_info({table})")]
            if found != columns:
                raise ArchiveError(f"{path} is damaged: its {table} table lacks the columns of schema {version}")
        if create:
            if not self._has_owners():  # a file made before the table existed (module notes)
                try:
                    self.conn.executescript(f"BEGIN; {_OWNERS_SCHEMA} COMMIT;")
                except sqlite3.Error as exc:
                    raise ArchiveError(f"cannot write to the game database {path}: {exc}") from None
            self.mark_abandoned_runs()

    def _has_owners(self) -> bool:
        query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_owners'"
        return bool(self._query(query, ()))

    def _abandoned(self) -> list[int]:
        """The ids of the runs marked ``running`` whose owner process is gone."""
        if not self._has_owners():
            return []
        rows = self._query(
            "SELECT o.run_id, o.host, o.boot_id, o.pid, o.pid_start FROM run_owners o "
            "JOIN runs r ON r.id = o.run_id WHERE r.status = 'running'",
            (),
        )
        return [int(run_id) for run_id, *owner in rows if RunOwner(*owner).is_gone()]

    def mark_abandoned_runs(self) -> list[int]:
        """Mark ``interrupted`` every ``running`` run whose process is gone (killed outright: it could not
        mark itself), ending it at its last stored game; returns their ids. Called on every writable open."""
        dead = self._abandoned()
        for run_id in dead:
            self._write(
                "UPDATE runs SET status = 'interrupted', "
                "ended = COALESCE((SELECT max(finished) FROM games WHERE run_id = ?), started) "
                "WHERE id = ? AND status = 'running'",
                (run_id, run_id),
            )
            self._write("DELETE FROM run_owners WHERE run_id = ?", (run_id,))
        return dead

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> GameArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------- writing
    def _write(self, sql: str, params: Sequence[object]) -> int:
        try:
            with self.conn:
                cur = self.conn.execute(sql, params)
            return int(cur.lastrowid or 0)
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot write to the game database {self.path}: {exc}") from None

    def start_run(
        self, kind: str, players: Sequence[str], games_per_pair: int, planned: int, settings: ArenaSettings
    ) -> int:
        """Record the start of a match or tournament; returns its id."""
        rules = settings.rules
        blob = {
            "start": settings.start,
            "layout": settings.layout,
            "win_threshold": settings.win_threshold,
            "inline_only": settings.inline_only,
            "max_plies": rules.max_plies,
            "repetitions": rules.repetitions,
            "no_capture_plies": rules.no_capture_plies,
            "no_moves": rules.no_moves,
            "movetime": settings.movetime,
            "clock": list(settings.clock) if settings.clock else None,  # seconds a game and a move, per side
            "opening_plies": settings.opening_plies,
        }
        owner = RunOwner.current()
        try:
            with self.conn:  # the run and its owner in one transaction: never a running run without an owner
                cur = self.conn.execute(
                    "INSERT INTO runs (kind, players, games_per_pair, games_planned, seed, settings, status, started) "
                    "VALUES (?, ?, ?, ?, ?, ?, 'running', ?)",
                    (kind, json.dumps(list(players)), games_per_pair, planned, settings.seed, json.dumps(blob), _now()),
                )
                run_id = int(cur.lastrowid or 0)
                self.conn.execute(
                    "INSERT OR REPLACE INTO run_owners (run_id, host, boot_id, pid, pid_start) VALUES (?, ?, ?, ?, ?)",
                    (run_id, owner.host, owner.boot_id, owner.pid, owner.pid_start),
                )
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot write to the game database {self.path}: {exc}") from None
        return run_id

    def end_run(self, run_id: int, status: str) -> None:
        """Record how a run ended: ``finished``, ``interrupted`` or ``failed``."""
        try:
            with self.conn:
                self.conn.execute("UPDATE runs SET status = ?, ended = ? WHERE id = ?", (status, _now(), run_id))
                self.conn.execute("DELETE FROM run_owners WHERE run_id = ?", (run_id,))
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot write to the game database {self.path}: {exc}") from None

    def add_game(self, run_id: int, players: Sequence[str], result: GameResult, layout: str | None) -> int:
        """Store one finished game in its own transaction; returns its id."""
        task = result.task
        rules = task.rules
        side = (len(task.start.split()[0].split("/")) + 1) // 2
        row = {
            "run_id": run_id,
            "game_index": task.index,
            "black": players[task.black_id],
            "white": players[task.white_id],
            "black_played": task.black,
            "white_played": task.white,
            "black_player": task.black_id,
            "white_player": task.white_id,
            "layout": layout,
            "start_position": task.start,
            "board_side": side,
            "win_threshold": task.win_threshold,
            "inline_only": int(task.inline_only),
            "max_plies": rules.max_plies,
            "repetitions": rules.repetitions,
            "no_capture_plies": rules.no_capture_plies,
            "no_moves": rules.no_moves,
            "movetime": task.movetime,
            "opening_plies": len(task.opening),
            "moves": " ".join(result.moves),
            "move_times": " ".join("-" if t is None else f"{t:.6f}" for t in result.times),
            "result": result.result,
            "reason": result.reason,
            "plies": result.plies,
            "lost_black": result.lost_black,
            "lost_white": result.lost_white,
            "final_position": result.final,
            "seed": task.seed,
            "finished": _now(),
        }
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        return self._write(f"INSERT INTO games ({names}) VALUES ({marks})", list(row.values()))

    def add_single_game(self, kind: str, players: Sequence[str], *, start: str, win_threshold: int,
                        inline_only: bool, rules: DrawRules, layout: str | None, moves: Sequence[str],
                        times: Sequence[float | None], winner: int | None, reason: str, lost: Sequence[int],
                        final: str) -> int:
        """Store one finished game between ``players`` (Black's and White's specs) as a run of its own (``kind``:
        ``web`` for the web page's games, ``play`` for the terminal's); returns the game's id. The fields are
        plain values (:func:`finished_game_fields` takes them from a :class:`Game`), so that a caller can take
        them from a game in progress and store them in another thread."""
        common = dict(start=start, win_threshold=win_threshold, inline_only=inline_only, rules=rules)
        settings = ArenaSettings(**common, opening_plies=0, layout=layout)
        task = GameTask(black=players[0], white=players[1], **common, movetime=None, seed=0, index=0)
        result = GameResult(task=task, moves=tuple(moves), times=tuple(0.0 if t is None else t for t in times),
                            winner=winner, reason=reason, lost_black=lost[0], lost_white=lost[1], final=final)
        run_id = self.start_run(kind, players, 1, 1, settings)
        game_id = self.add_game(run_id, players, result, layout)
        self.end_run(run_id, "finished")
        return game_id

    # ----------------------------------------------------------------- reading
    def _query(self, sql: str, params: Sequence[object]) -> list[tuple]:
        try:
            return self.conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise ArchiveError(f"cannot read the game database {self.path}: {exc}") from None

    def games(self, *, limit: int | None = None, newest_first: bool = False, **filters: object) -> list[StoredGame]:
        """Stored games matching every filter (see :func:`_filters`), oldest first unless ``newest_first``."""
        where, params = _filters(**filters)  # type: ignore[arg-type]
        sql = f"SELECT {', '.join('g.' + c for c in _GAME_COLUMNS)}, r.kind FROM games g JOIN runs r ON r.id = g.run_id"
        sql += where + (" ORDER BY g.id DESC" if newest_first else " ORDER BY g.id")
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [_stored(row) for row in self._query(sql, params)]

    def count(self, **filters: object) -> int:
        """How many stored games match every filter."""
        where, params = _filters(**filters)  # type: ignore[arg-type]
        return int(self._query(f"SELECT count(*) FROM games g{where}", params)[0][0])

    def game(self, game_id: int) -> StoredGame:
        found = self.games(ids=[game_id])
        if not found:
            raise ArchiveError(f"there is no game {game_id} in {self.path}")
        return found[0]

    def record(self, game_id: int) -> GameRecord:
        return self.game(game_id).to_record(str(self.path))

    def runs(self, *, limit: int | None = None, ids: Sequence[int] | None = None) -> list[StoredRun]:
        """The stored runs, newest first; a ``running`` run whose process is gone shows as ``interrupted``
        (in a read-only archive too, which cannot mark it)."""
        sql = (
            f"SELECT {', '.join('r.' + c for c in _RUN_COLUMNS)}, "
            "(SELECT count(*) FROM games g WHERE g.run_id = r.id) FROM runs r"
        )
        params: list[object] = []
        if ids:
            sql += f" WHERE r.id IN ({', '.join('?' for _ in ids)})"
            params += list(ids)
        sql += " ORDER BY r.id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = self._query(sql, params)
        dead = set(self._abandoned()) if any(row[7] == "running" for row in rows) else set()
        runs = []
        for row in rows:
            values = dict(zip(_RUN_COLUMNS, row))
            try:
                values["players"] = list(load_json(str(values["players"]), self.path, "a run's players"))
                values["settings"] = dict(load_json(str(values["settings"]), self.path, "a run's settings"))
            except (ValueError, TypeError):
                raise ArchiveError(f"run {values['id']} in {self.path} is damaged: its players or settings") from None
            if values["status"] == "running" and values["id"] in dead:
                values["status"] = "interrupted"
            runs.append(StoredRun(**values, games_stored=int(row[-1])))  # type: ignore[arg-type]
        return runs


def _filters(
    ids: Sequence[int] | None = None,
    player: str | None = None,
    layout: str | None = None,
    result: str | None = None,
    run: int | None = None,
) -> tuple[str, list[object]]:
    """A WHERE clause on ``games g``: ``player`` is a case-insensitive substring of either spec."""
    where: list[str] = []
    params: list[object] = []
    if ids:
        where.append(f"g.id IN ({', '.join('?' for _ in ids)})")
        params += list(ids)
    if player:
        where.append(
            "(instr(lower(g.black), lower(?)) OR instr(lower(g.white), lower(?)) "
            "OR instr(lower(g.black_played), lower(?)) OR instr(lower(g.white_played), lower(?)))"
        )
        params += [player] * 4
    if layout:
        where.append("g.layout = ?")
        params.append(get_layout(layout).name)
    if result:
        if result not in RESULTS:
            raise ArchiveError(f"--result must be one of {', '.join(RESULTS)}, not {result!r}")
        where.append("g.result = ?")
        params.append(result)
    if run is not None:
        where.append("g.run_id = ?")
        params.append(run)
    return (" WHERE " + " AND ".join(where) if where else ""), params


def _stored(row: Sequence[object]) -> StoredGame:
    values = dict(zip(_GAME_COLUMNS, row))
    values["inline_only"] = bool(values["inline_only"])
    return StoredGame(**values, run_kind=str(row[-1]))  # type: ignore[arg-type]


def load_record(path: str | os.PathLike[str] | None, game_id: int) -> GameRecord:
    """The stored game ``game_id`` of the database at ``path`` (default: the user's) as a record."""
    with GameArchive(path, create=False) as archive:
        return archive.record(game_id)
