"""A network's results against a fixed opponent in arena games (the evaluation of a training run)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from sumito.arena.executor import make_executor
from sumito.arena.match import ArenaSettings, play_game, schedule, summarize_pair

if TYPE_CHECKING:
    from sumito.arena.executor import Executor


def evaluate(
    network_path: Path, opponent: str, games: int, workers: int | None, seed: int, layout: str,
    adjudicate: bool = False, executor: Executor | None = None,
) -> tuple[int, int, int]:
    """The network's results (wins, draws, losses) against ``opponent`` in arena games
    (``adjudicate``: games without a winner scored on marbles), played by ``executor`` (default: ``workers``
    local processes)."""
    settings = ArenaSettings.from_layout(layout, seed=seed)
    tasks = schedule([f"td:net={network_path}", opponent], games, settings)
    executor = executor or make_executor(workers)
    with contextlib.closing(executor.run(play_game, tasks)) as stream:  # Ctrl-C: the pool or the tasks stop
        results = [r for _, r in stream]
    s = summarize_pair(results, adjudicate=adjudicate)
    return s.wins, s.draws, s.losses
