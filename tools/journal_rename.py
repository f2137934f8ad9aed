"""Rename a player in game journals: the same games, under the name that now means that player.

    python tools/journal_rename.py OLD NEW FILE.jsonl [FILE.jsonl ...]

A journal keys each game by a digest of its task, players' specs included, so that a changed spec is
played again (sumito.arena.journal). When a *name* changes meaning but the player does not — issue
30 shipped the self-taught network as ``builtin-nnue`` and called the network that was
``builtin-nnue`` ``expert-nnue`` — the games already played belong to the new spelling: this rewrites
every player spec ``OLD`` -> ``NEW`` (whole option values only: ``nnue=builtin-nnue`` ->
``nnue=expert-nnue``) and recomputes each key, atomically (temporary file, then a rename), so that the
documented command with the new spelling continues the same test.
"""

from __future__ import annotations

import argparse
import json
import sys
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


def rename_journal(path: Path, old: str, new: str) -> int:
    """Rewrite ``path``; returns the number of games whose players changed."""
    lines, changed = [], 0
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        data = row["result"]
        task = data["task"]
        black, white = rename_spec(task["black"], old, new), rename_spec(task["white"], old, new)
        if (black, white) != (task["black"], task["white"]):
            changed += 1
            task["black"], task["white"] = black, white
            result = result_from_json(data)
            row = {"key": task_key(result.task), "result": result_to_json(result)}
        lines.append(json.dumps(row))
    atomic_write_text(path, "".join(line + "\n" for line in lines))
    return changed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    for path in args.files:
        try:
            print(f"{path}: {rename_journal(path, args.old, args.new)} games renamed")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            sys.exit(f"journal_rename: {path}: {exc}")


if __name__ == "__main__":
    main()
