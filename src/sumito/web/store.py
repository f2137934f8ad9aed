"""Where web games are kept: the SQLite database of games in progress (every change one statement, so a game
survives a restart as it was) and the arena's archive that finished games are written to."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path
from typing import Any

from sumito.arena.db import GameArchive, default_db_path
from sumito.arena.match import start_position
from sumito.errors import SumitoError
from sumito.fileio import claim_sqlite, refuse_irregular
from sumito.games.abalone import (
    BLACK,
    WHITE,
    DrawRules,
    Outcome,
)
from sumito.games.abalone.game import DECLARED_REASONS
from sumito.web.errors import WebStoreError
from sumito.web.seats import Clock, Seat
from sumito.web.session import GameSession, replayed_session

log = logging.getLogger("sumito.web")
SCHEMA_VERSION = 3  # 2: the owner column; 3: the clock column
APPLICATION_ID = 0x53554D57  # "SUMW": the web app's games, not the arena's archive ("SUMI")


_SCHEMA = """
CREATE TABLE web_games (
    id TEXT PRIMARY KEY,
    created TEXT NOT NULL,             -- ISO 8601, UTC
    updated TEXT NOT NULL,
    black TEXT NOT NULL,               -- 'human' or a player spec
    white TEXT NOT NULL,
    black_name TEXT NOT NULL,
    white_name TEXT NOT NULL,
    start TEXT NOT NULL,               -- the start position string
    win_threshold INTEGER NOT NULL,
    inline_only INTEGER NOT NULL,
    rules TEXT NOT NULL,               -- JSON: the draw rules
    moves TEXT NOT NULL,               -- notation, space-separated
    move_times TEXT NOT NULL,          -- JSON list: seconds since the move before, null if unknown
    redo TEXT NOT NULL,                -- JSON list of lists of moves that undo took back
    declared TEXT,                     -- JSON outcome of a resignation; NULL when the board decides
    speed REAL NOT NULL,               -- seconds between moves in watch mode
    error TEXT,                        -- the last computer error
    layout TEXT,                       -- summary columns, for the list of games
    ply INTEGER NOT NULL,
    result TEXT,                       -- NULL while the game goes on
    reason TEXT,
    archive_id INTEGER,                -- id in the arena's archive; -1 not to be archived; NULL not yet
    owner TEXT,                        -- SHA-256 (hex) of the owner token; NULL: from before version 2
    clock TEXT                         -- JSON: initial, increment, seconds left each; NULL: no clocks
);
CREATE INDEX web_games_updated ON web_games(updated);
CREATE INDEX web_games_owner ON web_games(owner, updated);
"""
_COLUMNS = (
    *("id", "created", "updated", "black", "white", "black_name", "white_name", "start", "win_threshold"),
    *("inline_only", "rules", "moves", "move_times", "redo", "declared", "speed", "error", "layout", "ply"),
    *("result", "reason", "archive_id", "owner", "clock"),
)


def default_web_db_path() -> Path:
    """``$XDG_DATA_HOME/sumito/web.sqlite``, beside the arena's game archive."""
    return default_db_path().with_name("web.sqlite")


class WebStore:
    """The SQLite database of the web app's games (standard-library ``sqlite3``, one row a game)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            raise WebStoreError(f"{self.path} is a folder, not a database of games")
        try:
            refuse_irregular(self.path, "database of games")  # a FIFO or a device: SQLite's first read would block
        except ValueError as exc:
            raise WebStoreError(str(exc)) from None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise WebStoreError(f"cannot open the database of games {self.path}: {exc}") from None
        try:
            self._check_schema()
        except BaseException:
            self.conn.close()
            raise

    def _check_schema(self) -> None:
        self._upgrade()
        claim_sqlite(self.conn, self.path, application_id=APPLICATION_ID, version=SCHEMA_VERSION, schema=_SCHEMA,
                     what="a database of Sumito web games", error=WebStoreError)
        self.conn.execute("PRAGMA journal_mode = WAL")  # readers never wait for a writer
        self.conn.execute("PRAGMA synchronous = NORMAL")

    def _upgrade(self) -> None:
        """Version 1 (no owners) to 2: its games get no owner, so they can be watched but not changed.
        Version 2 to 3: the clock column (the games before it have no clocks)."""
        try:
            app_id = self.conn.execute("PRAGMA application_id").fetchone()[0]
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if app_id != APPLICATION_ID or version not in (1, 2):
                return
            columns = {row[1] for row in self.conn.execute("PRAGMA table_info(web_games)")}
            steps = []
            if "owner" not in columns:
                steps.append("ALTER TABLE web_games ADD COLUMN owner TEXT;")
                steps.append("CREATE INDEX IF NOT EXISTS web_games_owner ON web_games(owner, updated);")
            if "clock" not in columns:
                steps.append("ALTER TABLE web_games ADD COLUMN clock TEXT;")
            self.conn.executescript(f"BEGIN; {' '.join(steps)} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")
        except sqlite3.Error as exc:  # claim_sqlite then says what the file is
            log.warning("cannot upgrade %s: %s", self.path, exc)

    def close(self) -> None:
        self.conn.close()

    def delete(self, game_id: str) -> None:
        with self.conn:
            self.conn.execute("DELETE FROM web_games WHERE id = ?", (game_id,))

    def save(self, session: GameSession) -> None:
        """Write the whole game in one transaction: a crash leaves the game as it was or as it is."""
        game = session.game
        outcome = game.outcome()
        declared = outcome if outcome is not None and outcome.reason in DECLARED_REASONS else None
        rules = game.rules
        row = {
            "id": session.id,
            "created": session.created,
            "updated": session.updated,
            "black": session.seats[BLACK].spec,
            "white": session.seats[WHITE].spec,
            "black_name": session.seats[BLACK].name,
            "white_name": session.seats[WHITE].name,
            "start": game.start.to_string(),
            "win_threshold": game.start.variant.win_threshold,
            "inline_only": int(game.start.variant.inline_only),
            "rules": json.dumps(
                {
                    "max_plies": rules.max_plies,
                    "repetitions": rules.repetitions,
                    "no_capture_plies": rules.no_capture_plies,
                    "no_moves": rules.no_moves,
                }
            ),
            "moves": " ".join(session.notations),
            "move_times": json.dumps(session.move_times),
            "redo": json.dumps(session.redo),
            "declared": declared and json.dumps({"winner": declared.winner, "reason": declared.reason}),
            "speed": session.speed,
            "error": session.error,
            "layout": session.layout,
            "ply": game.plies,
            "result": None if outcome is None else outcome.result,
            "reason": None if outcome is None else outcome.reason,
            "archive_id": session.archive_id,
            "owner": session.owner,
            "clock": session.clock.to_db() if session.clock is not None else None,
        }
        marks = ", ".join("?" for _ in row)
        sql = f"INSERT OR REPLACE INTO web_games ({', '.join(row)}) VALUES ({marks})"
        with self.conn:
            self.conn.execute(sql, list(row.values()))

    def load(self, game_id: str) -> GameSession | None:
        """The game ``game_id`` as stored (``None`` if there is none or its row does not add up)."""
        rows = self.conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM web_games WHERE id = ?", (game_id,)).fetchall()
        return self._session(rows[0]) if rows else None

    def ids_to_resume(self) -> list[str]:
        """Games that need the server after a restart: still going, or finished and not yet archived."""
        rows = self.conn.execute("SELECT id FROM web_games WHERE result IS NULL OR archive_id IS NULL ORDER BY updated")
        return [r[0] for r in rows]

    def recent(self, since: str, owner: str, limit: int = 100) -> list[dict[str, Any]]:
        """Summaries of ``owner``'s games still going or changed since ``since``, without replaying them."""
        rows = self.conn.execute(
            "SELECT id, black, white, black_name, white_name, layout, ply, result, reason, updated FROM web_games "
            "WHERE owner = ? AND (result IS NULL OR updated >= ?) ORDER BY updated DESC LIMIT ?",
            (owner, since, limit),
        )
        winners = {"1-0": "black", "0-1": "white"}
        return [
            {
                "id": game_id,
                "black": {"spec": black, "name": black_name},
                "white": {"spec": white, "name": white_name},
                "layout": layout,
                "ply": ply,
                "thinking": False,
                "outcome": result and {"winner": winners.get(result), "reason": reason, "result": result},
                "updated": updated,
            }
            for game_id, black, white, black_name, white_name, layout, ply, result, reason, updated in rows
        ]

    def archived_names(self, owner: str, archive_ids: list[int]) -> dict[int, dict[str, str]]:
        """The seat names (``{"black": …, "white": …}``) of ``owner``'s games that went into the
        arena's archive as ``archive_ids`` (the others are someone else's, or were deleted)."""
        if not archive_ids:
            return {}
        marks = ", ".join("?" for _ in archive_ids)
        rows = self.conn.execute(
            f"SELECT archive_id, black_name, white_name FROM web_games WHERE owner = ? AND archive_id IN ({marks})",
            (owner, *archive_ids),
        )
        return {archive_id: {"black": black, "white": white} for archive_id, black, white in rows}

    def _session(self, row: tuple) -> GameSession | None:
        values = dict(zip(_COLUMNS, row))
        try:
            start = start_position(values["start"], values["win_threshold"], bool(values["inline_only"]))
            rules = DrawRules(**json.loads(values["rules"]))
            declared = None
            if values["declared"]:
                blob = json.loads(values["declared"])
                declared = Outcome(blob["winner"], blob["reason"])
            game = replayed_session(start, rules, values["moves"].split(), declared)
            seats = {
                BLACK: Seat(values["black"], values["black_name"]),
                WHITE: Seat(values["white"], values["white_name"]),
            }
            move_times = json.loads(values["move_times"])
            if len(move_times) != game.plies:
                move_times = [None] * game.plies
            session = GameSession(
                values["id"],
                game,
                seats,
                speed=float(values["speed"]),
                redo=[list(map(str, group)) for group in json.loads(values["redo"])],
                move_times=move_times,
                error=values["error"],
                archive_id=values["archive_id"],
                created=values["created"],
                owner=values["owner"],
                clock=Clock.from_db(values["clock"]),
            )
        except (SumitoError, ValueError, KeyError, TypeError) as exc:
            log.warning("stored game %s in %s is damaged and left alone: %s", values.get("id"), self.path, exc)
            return None
        session.updated = values["updated"]
        return session


def archive_finished_game(path: Path, snapshot: dict[str, Any]) -> int:
    """Add a finished web game (its players' specs, ``black`` and ``white``, and the fields of
    :func:`~sumito.arena.db.finished_game_fields`) to the arena's game archive as a run of its own; returns its
    id there."""
    fields = {key: value for key, value in snapshot.items() if key not in ("black", "white")}
    with GameArchive(path) as archive:
        return archive.add_single_game("web", [snapshot["black"], snapshot["white"]], **fields)
