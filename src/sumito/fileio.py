"""Writing files so that a crash or kill never leaves a half-written one."""

from __future__ import annotations

import contextlib
import os
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
