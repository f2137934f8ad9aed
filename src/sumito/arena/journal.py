"""A journal of finished games, so that a killed experiment resumes with the games it lacks.

Each finished game is one JSON line, ``{"key": ..., "result": ...}``, appended and flushed as it
comes in: a kill loses at most the games in flight, and a line cut short by the kill is skipped
on the next read. A game's key is a digest of its :class:`~sumito.arena.match.GameTask` (players,
seeds, start, rules, opening), so a task that changes (another seed, another weights file) is
played again rather than taken from the journal.

    journal = GameJournal(out / "games.jsonl")
    for i, result in journal.play(executor, tasks):   # the journal's games first, then the rest
        ...
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from sumito.arena.errors import ArenaError
from sumito.arena.executor import Executor
from sumito.arena.match import GameResult, GameTask, play_game
from sumito.fileio import MAX_JSON_FILE_BYTES, load_json, open_regular, reason_of, shown_path
from sumito.games.abalone import DrawRules


def task_key(task: GameTask) -> str:
    """A digest of everything that decides the game (a frozen dataclass's repr is stable)."""
    return hashlib.sha256(repr(task).encode()).hexdigest()[:24]


def result_to_json(result: GameResult) -> dict[str, Any]:
    return asdict(result)


def result_from_json(data: dict[str, Any]) -> GameResult:
    """The inverse of :func:`result_to_json` (raises ``TypeError``/``KeyError``/``ValueError`` on a bad row)."""
    task = dict(data["task"])
    task["rules"] = DrawRules(**task["rules"])
    for name in ("opening", "clock"):
        if task.get(name) is not None:
            task[name] = tuple(task[name])
    row = {f.name: data[f.name] for f in fields(GameResult) if f.name != "task"}
    row["moves"], row["times"] = tuple(row["moves"]), tuple(row["times"])
    return GameResult(task=GameTask(**task), **row)



def _bounded_lines(fh: io.TextIOBase, limit: int = MAX_JSON_FILE_BYTES) -> Iterator[str]:
    """The lines of ``fh``; a line longer than ``limit`` characters is read past in pieces rather than held
    whole, and comes as a placeholder that holds no game (counted as skipped)."""
    while line := fh.readline(limit):
        if len(line) >= limit and not line.endswith("\n"):
            while (rest := fh.readline(limit)) and not rest.endswith("\n"):
                pass
            line = "<too long>\n"
        yield line


class GameJournal:
    """Finished games by task key, kept in a JSON-lines file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.done: dict[str, GameResult] = {}
        self.skipped = 0  # lines that hold no game (cut short by a kill, damaged, or not ours)
        try:
            if self.path.exists() and not self.path.is_file():
                raise ArenaError(f"games journal {shown_path(self.path)}: not a regular file")
            if self.path.exists():
                # opened without blocking and checked on the descriptor (open_regular); read a line at a time, a
                # line bounded (one longer than any game's is skipped, not held whole)
                try:
                    raw = open_regular(self.path, 2**62, "games journal")
                except ValueError as exc:  # replaced by a FIFO or a device since the check above
                    reason = reason_of(exc, self.path, "games journal")
                    raise ArenaError(f"games journal {shown_path(self.path)}: {reason}") from None
                with raw, io.TextIOWrapper(raw, encoding="utf-8", errors="replace") as fh:
                    for line in _bounded_lines(fh):
                        try:
                            row = load_json(line, self.path, "a journal line")  # its nesting bounded
                            self.done[row["key"]] = result_from_json(row["result"])
                        except (ValueError, TypeError, KeyError, AttributeError):
                            # a line cut short by a kill (or not ours): its game is played again
                            self.skipped += bool(line.strip())
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ArenaError(f"games journal {shown_path(self.path)}: {exc.strerror or exc}") from None

    def __len__(self) -> int:
        return len(self.done)

    def play(self, executor: Executor, tasks: Sequence[GameTask]) -> Iterator[tuple[int, GameResult]]:
        """Every task's result as ``(index, result)``: those in the journal at once, then the others
        as the executor finishes them (each written to the journal before it is yielded)."""
        keys = [task_key(t) for t in tasks]
        todo = []
        for i, key in enumerate(keys):
            if key in self.done:
                yield i, self.done[key]
            else:
                todo.append(i)
        if not todo:
            return
        games = executor.run(play_game, [tasks[i] for i in todo])  # nothing runs until it is iterated
        # closed here when the caller stops, not by the garbage collector (which would swallow a Ctrl-C)
        with self.path.open("a+b") as fh, contextlib.closing(games):
            fh.seek(0, os.SEEK_END)
            if fh.tell():  # a line cut short by a kill has no newline: end it, or the next game joins it
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    fh.write(b"\n")
            for j, result in games:
                i = todo[j]
                self.done[keys[i]] = result
                fh.write((json.dumps({"key": keys[i], "result": result_to_json(result)}) + "\n").encode())
                fh.flush()
                yield i, result
