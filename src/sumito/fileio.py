"""Writing files so that a crash or kill never leaves a half-written one, and reading them back defensively.

Every reader of a file that a crash, a disk or a person may have damaged or replaced opens it with
:func:`open_regular` (a regular file of bounded size, opened without blocking), reads ``.npz`` archives with
:class:`NpzArchive` (every header checked before memory is taken; any damage one line) and renames a damaged
cache or checkpoint aside with :func:`set_aside`.

:func:`atomic_write_bytes` writes ``.NAME.pidPID.XXXXXXXX.tmp`` beside ``NAME`` and renames it over
``NAME``; a ``kill -9`` between the two leaves that temporary file behind (never a half-written
``NAME``). :func:`remove_stale_temps` clears such leftovers when a run folder is opened again.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import math
import os
import re
import secrets
import sqlite3
import stat
import struct
import time
import zipfile
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from sumito.bounds import MAX_JSON_DEPTH, MAX_JSON_FILE_BYTES, MAX_WEIGHT
from sumito.errors import FileWriteError, SumitoError, shown_path

#: our temporary files: ``.NAME.pidPID.XXXXXXXX.tmp`` (``.NAME.XXXXXXXX.tmp`` from older Sumitos, without the
#: writer's pid); the 8 characters are random (older Sumitos: ``tempfile.mkstemp``'s)
_TEMP_NAME = re.compile(r"^\.(?P<name>.+?)\.(?:pid(?P<pid>\d{1,10})\.)?[a-z0-9_]{8}\.tmp$")

#: a temporary file this old is left over whoever wrote it: a writer touches its file when it writes the data
#: and renames it right after the fsync, so a live write is never minutes old
STALE_TEMP_SECONDS = 60.0

#: a temporary file whose writer is gone is removed once it is this old (not at once: a writer on another
#: machine sharing the folder may have the same pid as a process that is gone here)
DEAD_WRITER_TEMP_SECONDS = 2.0



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
        raise FileWriteError(f"cannot write {shown_path(target)}: {exc.strerror or exc}") from None


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    # the pid in the name lets remove_stale_temps tell a dead writer's leftover from a write in progress. The
    # name is chosen before the file is made, inside the try, so that a Ctrl-C landing just after the file came to
    # be finds its name and removes it (tempfile.mkstemp, which returns the name only once the file is made, would
    # leave it behind)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    tmp = ""
    try:
        for _ in range(100):  # a name taken already (an earlier process's leftover, the same pid): another
            tmp = os.path.join(target.parent, f".{target.name}.pid{os.getpid()}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, flags, 0o600)
                break
            except FileExistsError:
                tmp = ""
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary file name", str(target.parent))
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        # the file is private (0600) until it is whole; then the mode of a file written the ordinary way
        os.chmod(tmp, _default_mode())
        os.replace(tmp, target)
    except BaseException:
        if tmp:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_rows(path: str | os.PathLike[str], fields: Sequence[str], rows: Iterable[Mapping]) -> None:
    """``rows`` as a CSV file with the header ``fields``, written atomically (an experiment's rows)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, list(fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, out.getvalue())


#: the largest CSV file read whole (a run's curve, an experiment's rows: well under a kilobyte a row)
MAX_CSV_BYTES = 64 * 2**20


def read_text_file(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_CSV_BYTES) -> str:
    """The UTF-8 text of the file ``path``, a ``what`` (e.g. ``"training curve"``), read bounded
    (:func:`read_file_bounded`: a regular file of at most ``max_bytes``); anything wrong is a one-line
    :class:`~sumito.errors.SumitoError` naming the file."""
    try:
        data = read_file_bounded(path, max_bytes, what)
    except ValueError as exc:
        raise SumitoError(str(exc)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise SumitoError(f"{shown_path(path)}: not a {what} (not UTF-8 text)") from None


def read_rows(path: str | os.PathLike[str], what: str = "CSV file") -> list[dict[str, str]]:
    """The rows of a CSV file written by :func:`atomic_write_rows`, as text (read by :func:`read_text_file`;
    a file that is not CSV is a one-line :class:`~sumito.errors.SumitoError`)."""
    text = read_text_file(path, what)
    try:
        return list(csv.DictReader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise SumitoError(f"{shown_path(path)}: not a {what} ({exc})") from None


def _proc_stat(pid: int) -> tuple[str, str] | None:
    """The state letter and start time (clock ticks after boot) of process ``pid`` from ``/proc``, or None."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    # the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    fields = text[text.rfind(")") + 2:].split()
    if len(fields) < 20:
        return None
    return fields[0], fields[19]


def process_started(pid: int) -> str | None:
    """When process ``pid`` started, as an opaque string (``/proc/PID/stat``'s start time), or None where
    the system does not say. Two processes with the same pid and start time are the same process."""
    stat = _proc_stat(pid)
    return None if stat is None else stat[1]


def process_alive(pid: int, started: str | None = None) -> bool:
    """Whether process ``pid`` still runs here; with ``started`` (from :func:`process_started`), whether
    *that* process does, not a later one that got its pid. A zombie counts as gone."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # no such process (or no such pid at all)
        return False
    except PermissionError:  # another user's process: it exists
        pass
    stat = _proc_stat(pid)
    if stat is None:  # no /proc: os.kill is all we know
        return True
    state, now_started = stat
    if state == "Z":  # dead, waiting for its parent to reap it
        return False
    return started is None or started == now_started


def remove_stale_temps(folder: str | os.PathLike[str], *, max_age: float = STALE_TEMP_SECONDS) -> list[Path]:
    """Remove the temporary files :func:`atomic_write_bytes` left in ``folder`` when it was killed between
    writing and renaming; returns the paths removed.

    Only files named as ours (``.NAME.pidPID.XXXXXXXX.tmp``, or ``.NAME.XXXXXXXX.tmp`` from older Sumitos) are
    touched, and only plain files, never folders or links. A file is stale when its writer's process is gone
    (and it is a couple of seconds old), or when it is older than ``max_age`` seconds, whoever wrote it; a
    write in progress is neither, so it is safe to call while another process writes into the folder.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return removed
    now = time.time()
    for entry in entries:
        m = _TEMP_NAME.match(entry.name)
        if m is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        pid = m["pid"]
        dead_writer = pid is not None and not process_alive(int(pid))
        if age > max_age or (dead_writer and age > DEAD_WRITER_TEMP_SECONDS):
            with contextlib.suppress(FileNotFoundError):  # gone already: its writer renamed it after all
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


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
    path = shown_path(path)
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


def open_regular(path: str | os.PathLike[str], max_bytes: int, what: str) -> BinaryIO:
    """``path`` open for reading (binary), once it is known to be a regular file of at most ``max_bytes``;
    otherwise a one-line :class:`ValueError` naming the file as ``what``. Every reader of a file that a
    crash, a disk or a person may have damaged or replaced opens it here.

    The file is opened without blocking and checked on the open descriptor (``fstat``), so a FIFO (which
    would block the open until a writer comes), ``/dev/zero`` (endless) or a folder is refused at once,
    even when it replaced a regular file between a check and the open. The caller closes the file."""
    source = shown_path(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise ValueError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{source}: not a {what} (a folder, not a regular file)") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"{source}: cannot read ({reason})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ValueError(f"{source}: not a {what} (a folder, not a regular file)")
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{source}: not a {what} (not a regular file)")
        if info.st_size > max_bytes:
            raise ValueError(f"{source}: larger than {_size_text(max_bytes)}; not a {what} of ours")
        return os.fdopen(fd, "rb")
    except BaseException as exc:
        os.close(fd)
        if isinstance(exc, OSError):
            raise ValueError(f"{source}: cannot read ({exc.strerror or exc})") from None
        raise


def refuse_irregular(path: str | os.PathLike[str], what: str) -> None:
    """A one-line :class:`ValueError` when something other than a regular file is at ``path`` (a FIFO, a
    device, a folder; links followed); nothing when a regular file or nothing is there. For files another
    library opens itself (SQLite's databases, which it reads a page at a time and may grow without bound):
    ``stat`` never blocks, where an open of a FIFO waits for a writer and SQLite's first read of one for ever."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ValueError(f"{shown_path(path)}: cannot read ({reason})") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{shown_path(path)}: not a {what} (a folder, not a regular file)")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{shown_path(path)}: not a {what} (not a regular file)")


def read_file_bounded(path: str | os.PathLike[str], max_bytes: int, what: str) -> bytes:
    """The bytes of ``path``, read only when it is a regular file of at most ``max_bytes``
    (:func:`open_regular`); otherwise a one-line :class:`ValueError` naming the file as ``what``."""
    source = shown_path(path)
    with open_regular(path, max_bytes, what) as fh:
        try:
            data = fh.read(max_bytes + 1)  # the file may have grown since fstat
        except OSError as exc:
            raise ValueError(f"{source}: cannot read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise ValueError(f"{source}: larger than {_size_text(max_bytes)}; not a {what} of ours")
    return data


def reason_of(exc: BaseException, path: str | os.PathLike[str], what: str | None = None) -> str:
    """A file reader's one-line error without the file's name in front, for a line that names the file (and
    says it is ``what``) itself: ``PATH: damaged or truncated WHAT (Bad CRC-32)`` is ``Bad CRC-32``."""
    text = str(exc)
    prefix = shown_path(path) + ": "
    text = text[len(prefix):] if text.startswith(prefix) else text
    if what is not None:
        for wrapper in (f"damaged or truncated {what} (", f"not a {what} ("):
            if text.startswith(wrapper) and text.endswith(")"):
                return text[len(wrapper):-1]
    return text


def set_aside(path: str | os.PathLike[str], suffix: str = "damaged", *,
              same_as: os.stat_result | None = None) -> Path | None:
    """Rename ``path`` (a file, a link, a FIFO, a folder: whatever is there) to ``PATH.SUFFIX``, or
    ``PATH.SUFFIX.2``, ``.3``... when that is taken, so that an earlier one is never overwritten; returns
    the new name. ``None`` when there is nothing to set aside: ``path`` is gone (another process set it aside
    first) or, with ``same_as`` (the ``stat`` of the file that was found wrong), it is another file now (one
    written since, which was not checked). An :class:`OSError` when it cannot be renamed."""
    source = Path(path)
    try:
        found = [source.lstat()]
    except FileNotFoundError:
        return None
    with contextlib.suppress(OSError):  # a link: the file it names is what a reader checked
        found.append(source.stat())
    if same_as is not None and (same_as.st_dev, same_as.st_ino) not in {(f.st_dev, f.st_ino) for f in found}:
        return None
    for n in range(1, 10_000):
        target = source.with_name(f"{source.name}.{suffix}" + (f".{n}" if n > 1 else ""))
        try:
            # a hard link fails where the name is taken (a rename would replace it); a folder cannot be linked
            os.link(source, target, follow_symlinks=False)
        except FileExistsError:
            continue
        except FileNotFoundError:
            return None
        except OSError:
            if os.path.lexists(target):
                continue
            os.rename(source, target)  # a folder, or a file system without hard links
            return target
        try:
            os.unlink(source)
        except FileNotFoundError:  # another process set it aside at the same moment: our link is a copy
            with contextlib.suppress(OSError):
                os.unlink(target)
            return None
        return target
    raise OSError(errno.EEXIST, f"{shown_path(source)}.{suffix}.N: every name is taken")


def _size_text(n: int) -> str:
    return f"{n // 2**20} MB" if n >= 2**20 else f"{n // 1024} KB" if n >= 1024 else f"{n} bytes"


#: what decoding a damaged zip archive or ``.npy`` header can raise: a cut or changed byte surfaces as any of
#: these (a flipped compression method: ``NotImplementedError``; a flipped deflate stream: ``zlib.error``)
_DECODE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError, IndexError, TypeError,
                  struct.error, NotImplementedError, OverflowError, RuntimeError, MemoryError, SyntaxError)


#: the bytes an array's data is read in at a time
_READ_PIECE = 1 << 20


class NpzArchive:
    """A ``.npz`` archive (numpy's zip of ``.npy`` arrays) read defensively: the sizes its zip directory
    declares are bounded before anything is inflated, each array's ``.npy`` header is read and checked (its
    type, its shape, and that its data fits in what the archive holds for it) before its memory is taken,
    pickles are refused, and whatever a damaged file raises is a one-line :class:`ValueError` naming
    ``source`` (``SOURCE: damaged or truncated WHAT (reason)``). ``file``: the archive's bytes, or a file open
    for reading (:func:`open_regular`), which the archive does not close."""

    def __init__(self, file: bytes | BinaryIO, source: str | os.PathLike[str], max_bytes: int, what: str) -> None:
        self.source = shown_path(source)
        self.what = what
        if isinstance(file, bytes | bytearray | memoryview):
            if not bytes(file[:4]) == b"PK\x03\x04":
                raise ValueError(f"{self.source}: not a {what} (expected a .npz archive)")
            file = io.BytesIO(file)
        try:
            self._zip = zipfile.ZipFile(file)
            infos = self._zip.infolist()
        except _DECODE_ERRORS as exc:
            raise self._damaged(exc) from None
        inflated = sum(info.file_size for info in infos)
        if inflated > max_bytes:
            raise ValueError(f"{self.source}: its arrays would take {inflated:,} bytes; at most {max_bytes:,} for a "
                             f"{what}")
        # the arrays: a member that is not a .npy file (another program's zip) is no array of ours
        self._members = {info.filename.removesuffix(".npy"): info for info in infos if info.filename.endswith(".npy")}

    def __enter__(self) -> NpzArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()

    @property
    def names(self) -> list[str]:
        return list(self._members)

    def _damaged(self, exc: BaseException) -> ValueError:
        lines = str(exc).strip().splitlines()
        reason = lines[0] if lines else type(exc).__name__
        return ValueError(f"{self.source}: damaged or truncated {self.what} ({reason[:200]})")

    def array(self, name: str, dtypes: Sequence[Any] | None = None, shape: tuple[int, ...] | None = None) -> np.ndarray:
        """The array ``name``; with ``dtypes`` and ``shape``, refused (one line) unless it is of one of those
        types (byte order included) and of that shape, before its data is read."""
        info = self._members.get(name)
        if info is None:
            raise ValueError(f"{self.source}: not a {self.what} (no '{name}' array)")
        try:
            with self._zip.open(info) as member:
                version = np.lib.format.read_magic(member)
                if version == (1, 0):
                    found_shape, fortran, dtype = np.lib.format.read_array_header_1_0(member)
                elif version == (2, 0):
                    found_shape, fortran, dtype = np.lib.format.read_array_header_2_0(member)
                else:
                    raise ValueError(f"an array of .npy format {version[0]}.{version[1]}")
                if dtype.hasobject:
                    raise ValueError(f"{self.source}: {name} holds Python objects (a pickle); not a {self.what} "
                                     "of ours")
                if dtypes is not None and not any(dtype == np.dtype(d) and dtype.str == np.dtype(d).str
                                                  for d in dtypes):
                    wanted = " or ".join(str(np.dtype(d)) for d in dtypes)
                    raise ValueError(f"{self.source}: {name} holds {dtype.str} values, not {wanted}; not a "
                                     f"{self.what} of ours")
                if shape is not None and tuple(found_shape) != tuple(shape):
                    raise ValueError(f"{self.source}: {name} has shape {tuple(found_shape)}, not {tuple(shape)}; not "
                                     f"a {self.what} of ours")
                count = math.prod(found_shape)
                nbytes = count * dtype.itemsize
                if nbytes > info.file_size:  # the header promises more than the archive holds: never allocated
                    raise ValueError(f"{self.source}: damaged {self.what} (the header of {name} declares "
                                     f"{nbytes:,} bytes; the archive holds {info.file_size:,})")
                buffer = bytearray(nbytes)
                view = memoryview(buffer)
                got = 0
                while got < nbytes:  # in pieces: one large read of a deflated member joins its bytes over and over
                    n = member.readinto(view[got:got + _READ_PIECE])
                    if not n:
                        raise ValueError(f"{name} is cut short")
                    got += n
                if member.read(1):  # at the end the archive checks the data's CRC
                    raise ValueError(f"{name} holds more than its header declares")
        except ValueError as exc:
            if str(exc).startswith(self.source + ":"):
                raise
            raise self._damaged(exc) from None
        except _DECODE_ERRORS as exc:
            raise self._damaged(exc) from None
        if count == 0:
            return np.zeros(found_shape, dtype=dtype)
        flat = np.frombuffer(buffer, dtype=dtype, count=count)
        return flat.reshape(found_shape, order="F" if fortran else "C")

    def text(self, name: str, max_chars: int = 1 << 20) -> str:
        """The string array ``name`` (a JSON header, say), refused unless it is one string of at most
        ``max_chars``."""
        info = self._members.get(name)
        if info is not None and info.file_size > 4 * max_chars + 1024:
            raise ValueError(f"{self.source}: the '{name}' header is larger than a {self.what} holds")
        value = self.array(name)
        if value.shape != () or value.dtype.kind != "U":
            raise ValueError(f"{self.source}: the '{name}' header is not a JSON string")
        return str(value[()])


def read_npz_arrays(data: bytes, source: str, max_bytes: int, what: str) -> dict:
    """Every array of the ``.npz`` archive in ``data`` (:class:`NpzArchive`: bounded, checked before any
    array's memory is taken, pickles refused, anything wrong a one-line :class:`ValueError` naming
    ``source``)."""
    with NpzArchive(data, source, max_bytes, what) as archive:
        return {name: archive.array(name) for name in archive.names}


def read_npz_with_header(data: bytes, source: str, max_bytes: int, names: tuple[str, ...] | None, what: str) -> tuple[
        dict, dict]:
    """The JSON header (the ``meta`` string) and the arrays ``names`` (``None``: every other array) of a
    ``.npz`` archive in ``data``.

    The sizes the archive declares are checked before anything is inflated (no zip bombs), pickles
    are refused, the header is read by :func:`load_json` (nested at most :data:`~sumito.bounds.MAX_JSON_DEPTH`
    deep), and anything wrong is a one-line :class:`ValueError` naming ``source``. Missing arrays are
    simply absent from the result (the caller names what it needs).
    """
    source = shown_path(source)
    everything = read_npz_arrays(data, source, max_bytes, what)
    if "meta" not in everything:
        raise ValueError(f"{source}: not a {what} (no 'meta' header)")
    meta = everything.pop("meta")
    arrays = everything if names is None else {name: everything[name] for name in names if name in everything}
    if meta.shape != () or meta.dtype.kind != "U":
        raise ValueError(f"{source}: the 'meta' header is not a JSON string")
    header = load_json(str(meta), source, "the 'meta' header")
    if not isinstance(header, dict):
        raise ValueError(f"{source}: the 'meta' header is not a JSON object")
    return header, arrays


# --- JSON and learned weights, bounded ------------------------------------------------------------------

#: a JSON string (its escapes minded; the closing quote may be missing in a cut file) or a bracket
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def json_too_deep(text: str, max_depth: int = MAX_JSON_DEPTH) -> bool:
    """Whether the JSON ``text`` nests arrays and objects more than ``max_depth`` deep: one scan of the
    brackets outside strings, without recursion (so any depth is measured, where the parser would
    overflow the stack)."""
    if text.count("[") + text.count("{") <= max_depth:  # the common case: too few brackets to nest deeper
        return False
    depth = 0
    for token in _JSON_TOKEN.finditer(text):
        c = token.group()
        if c == "[" or c == "{":
            depth += 1
            if depth > max_depth:
                return True
        elif c == "]" or c == "}":
            depth -= 1
    return False


def load_json(text: str | bytes, source: str | os.PathLike[str], what: str, *,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``text`` (or UTF-8 bytes) read as JSON, the one way Sumito reads JSON that comes from a file, an archive
    or another program: nested at most ``max_depth`` deep (:func:`json_too_deep`, checked before the parser
    runs). Anything wrong (not UTF-8, not JSON, nested too deep, a number too long to read) is a one-line
    :class:`~sumito.errors.SumitoError` (a ``ValueError``) naming ``source`` and ``what`` (e.g.
    ``"the 'meta' header"``, ``"the run's state"``)."""
    shown = shown_path(source)
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise SumitoError(f"{shown}: {what} is not UTF-8 text") from None
    if not isinstance(text, str):
        raise SumitoError(f"{shown}: {what} is not JSON text (a {type(text).__name__})")
    if json_too_deep(text, max_depth):
        raise SumitoError(f"{shown}: {what} nests more than {max_depth} levels deep; not a file of ours")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SumitoError(f"{shown}: {what} is not JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:  # not reached past the scan above; kept in case the caller's stack is already deep
        raise SumitoError(f"{shown}: {what} nests too deeply to read; not a file of ours") from None
    except ValueError:  # a whole number longer than Python converts (sys.get_int_max_str_digits, 4,300 digits)
        raise SumitoError(f"{shown}: {what} holds a number too long to read; not a file of ours") from None


def read_json_file(path: str | os.PathLike[str], what: str, *, max_bytes: int = MAX_JSON_FILE_BYTES) -> Any:
    """The JSON in the file ``path``, a ``what`` (e.g. ``"training report"``): read bounded
    (:func:`read_file_bounded`: a regular file of at most ``max_bytes``), then :func:`load_json`; anything
    wrong is a one-line :class:`~sumito.errors.SumitoError` naming the file."""
    try:
        data = read_file_bounded(path, max_bytes, what)
    except ValueError as exc:
        raise SumitoError(str(exc)) from None
    return load_json(data, path, f"the {what}")


def check_weights(arrays: Mapping[str, Any], source: str | os.PathLike[str] | None,
                  error: type[Exception] = SumitoError, *, limit: float = MAX_WEIGHT) -> None:
    """That every array (or number) in ``arrays`` holds finite numbers of size at most ``limit``
    (:data:`~sumito.bounds.MAX_WEIGHT`; ``math.inf``: finite numbers of any size); else a one-line ``error``
    naming ``source`` (the file; ``None``: no file) and the array. Every loader of learned weights calls it: a
    weight of 10³⁰ is finite, but a search scoring with it reports a win hundreds of digits long."""
    prefix = "" if source is None else f"{shown_path(source)}: "
    for name, values in arrays.items():
        a = np.asarray(values)
        if a.dtype.kind not in "biuf":
            raise error(f"{prefix}{name} holds {a.dtype} values, not numbers")
        if a.size == 0:
            continue
        a = a.astype(np.float64)
        if not np.isfinite(a).all():
            raise error(f"{prefix}a value of {name} is not a finite number")
        largest = float(np.abs(a).max())
        if largest > limit:
            raise error(f"{prefix}a weight of {name} is {largest:.3g}; a weight may be at most {limit:g} in size"
                        + (" (a damaged file)" if source is not None else ""))


def _plain(value: Any) -> Any:
    """A setting as a file keeps it (JSON): a tuple and the list it was saved as compare equal."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(_shown(v) for v in value) or "none"
    return "none" if value is None else shown_path(str(value))


def refuse_changed(where: str | Path, saved: Mapping[str, Any], wanted: Mapping[str, Any],
                   error: type[SumitoError] = SumitoError, flags: Mapping[str, str] | None = None,
                   advice: str | None = None) -> None:
    """The one check of a resumed job's settings: ``wanted`` (the settings given now) against ``saved`` (those
    its files were made with). The first that differs is a one-line ``error`` naming it as the command line
    does (``flags``; by default ``--name-with-dashes``) with both values, and what to do instead (``advice``;
    by default a new ``--out`` folder or the same value; ``{flag}`` in it is the setting's flag). A setting
    ``saved`` does not hold (one added since the job started) is not compared. Every resumable job checks its
    settings here: training runs (:mod:`sumito.learn.runfolder`), ``nnue gen``'s data, the self-taught line
    and the games journals of :mod:`sumito.arena.journal`."""
    for key, value in wanted.items():
        if key not in saved:
            continue
        before, now = _plain(saved[key]), _plain(value)
        if before != now:
            flag = (flags or {}).get(key) or "--" + key.replace("_", "-")
            advice = (advice or "use a new --out folder or the same {flag}").replace("{flag}", flag.split(" (")[0])
            raise error(f"{shown_path(where)}: {flag} was {_shown(before)} when this run started, not {_shown(now)}; "
                        + advice)
