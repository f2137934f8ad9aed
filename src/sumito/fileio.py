"""Writing files so that a crash or kill never leaves a half-written one."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path


def _default_mode() -> int:
    """The permissions an ordinary new file gets here (0o666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename.

    A failure is a one-line :class:`FileWriteError` naming the file; the old file, if any, is
    left as it was.
    """
    target = Path(path)
    try:
        _write(target, data)
    except OSError as exc:
        from sumito.engine.errors import FileWriteError  # here: the engine package imports this module

        raise FileWriteError(f"cannot write {target}: {exc.strerror or exc}") from None


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp makes the file private (0600); keep the mode of a file written the ordinary way
        os.chmod(tmp, _default_mode())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def claim_sqlite(
    conn: sqlite3.Connection,
    path: str | os.PathLike[str],
    *,
    application_id: int,
    version: int,
    schema: str,
    what: str,
    error: type[Exception],
    create: bool = True,
) -> None:
    """Make sure the database open on ``conn`` is ``what`` (e.g. "a Sumito game database"): our
    ``application_id`` and schema ``version`` in its header, or an empty file, which gets
    ``schema`` (when ``create``). Anything else is a one-line ``error`` naming ``path``.

    The SQLite header's application id and user version tell our files from other programs' and
    from older or newer Sumitos', so a wrong ``--db`` is refused before anything is written.
    """
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        found = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.DatabaseError as exc:
        raise error(f"{path} is not {what} (not an SQLite file: {exc})") from None
    if app_id == 0 and found == 0 and not tables:
        if not create:
            raise error(f"{path} is an empty database, not {what}")
        try:
            conn.executescript(
                f"BEGIN; {schema} PRAGMA application_id = {application_id}; PRAGMA user_version = {version}; COMMIT;"
            )
        except sqlite3.Error as exc:
            raise error(f"cannot create {what} in {path}: {exc}") from None
        return
    if app_id != application_id:
        raise error(f"{path} is an SQLite database of another program, not {what}")
    if found != version:
        newer = " (written by a newer Sumito)" if found > version else ""
        raise error(f"{path} has schema version {found}{newer}; this Sumito reads version {version} of {what}")
