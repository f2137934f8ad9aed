"""Rename a player in game journals: the same games, under the name that now means that player.

    python tools/journal_rename.py OLD NEW FILE.jsonl [FILE.jsonl ...]
    python tools/journal_rename.py --add KEY=VALUE FILE.jsonl [FILE.jsonl ...]

A journal keys each game by a digest of its task, players' specs included, so that a changed spec is
played again (sumito.arena.journal). When a *name* changes meaning but the player does not — commit
471e092 shipped the self-taught network as ``builtin-nnue`` and called the network that had been
``builtin-nnue`` ``expert-nnue`` — the games already played belong to the new spelling: this rewrites
every player spec ``OLD`` -> ``NEW`` (whole option values only: ``nnue=builtin-nnue`` ->
``nnue=expert-nnue``) and recomputes each key, atomically (temporary file, then a rename), so that the
documented command with the new spelling continues the same test.

``--add KEY=VALUE`` is for a changed *default*: the threat search was the engine's default
(``threats=1``) until its SPRT rejected it (commit 3646626), and the games played before then by an ``engine`` spec
without ``threats=`` were played with it. ``--add threats=1`` writes the option into every ``engine``
spec that does not name it, so that those games stay under the spelling that means what played them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from sumito.arena.journal import result_from_json, result_to_json, task_key
from sumito.fileio import atomic_write_text


def rename_spec(spec: str, old: str, new: str) -> str:
    """``spec`` with every option value equal to ``old`` replaced by ``new``."""
    kind, _, options = spec.partition(":")
    if not options:
        return spec
    parts = []
    for option in options.split(","):
        key, eq, value = option.partition("=")
        parts.append(f"{key}={new}" if eq and value == old else option)
    return f"{kind}:{','.join(parts)}"


def add_option(spec: str, key: str, value: str, kind: str = "engine") -> str:
    """``spec`` with ``key=value`` appended when it is a ``kind`` spec that does not set ``key``."""
    name, _, options = spec.partition(":")
    if name != kind:
        return spec
    keys = {option.partition("=")[0] for option in options.split(",")} if options else set()
    if key in keys:
        return spec
    return f"{name}:{options},{key}={value}" if options else f"{name}:{key}={value}"


def rewrite_journal(path: Path, change: Callable[[str], str]) -> int:
    """Rewrite every player spec of ``path`` by ``change``, each changed game under its new key;
    returns the number of games whose players changed."""
    lines, changed = [], 0
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        data = row["result"]
        task = data["task"]
        black, white = change(task["black"]), change(task["white"])
        if (black, white) != (task["black"], task["white"]):
            changed += 1
            task["black"], task["white"] = black, white
            result = result_from_json(data)
            row = {"key": task_key(result.task), "result": result_to_json(result)}
        lines.append(json.dumps(row))
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return changed


def rename_journal(path: Path, old: str, new: str) -> int:
    """Rewrite ``path`` with every option value ``old`` renamed ``new``; the number of games changed."""
    return rewrite_journal(path, lambda spec: rename_spec(spec, old, new))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--add", metavar="KEY=VALUE", help="add an option to every engine spec that lacks it")
    parser.add_argument("words", nargs="+", metavar="OLD NEW FILE", help="OLD NEW FILE... (or FILE... with --add)")
    args = parser.parse_args()
    if args.add:
        key, eq, value = args.add.partition("=")
        if not (key and eq and value) or "," in args.add:
            parser.error(f"--add takes one KEY=VALUE, not {args.add!r}")
        change, files = (lambda spec: add_option(spec, key, value)), args.words
    else:
        if len(args.words) < 3:
            parser.error("give OLD NEW and at least one journal file")
        old, new = args.words[:2]
        change, files = (lambda spec: rename_spec(spec, old, new)), args.words[2:]
    for path in map(Path, files):
        try:
            print(f"{path}: {rewrite_journal(path, change)} games renamed")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            sys.exit(f"journal_rename: {path}: {exc}")


if __name__ == "__main__":
    main()
