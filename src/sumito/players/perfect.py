"""The ``perfect`` player: perfect play on a solved board, from the exact table of :mod:`sumito.solve`.

It plays a move that keeps the position's value: the fastest win when it is winning, a drawing move when
the position is drawn, the slowest loss when it is lost; among those, one at random from its own seeded
generator. On a board with no solved table (the standard and side-4 boards, or marbles missing without
being lost) it refuses with a one-line error. The first use of a board solves its table into the cache
folder (``$SUMITO_SOLVED_DIR``, else ``~/.cache/sumito/solved``): about 11 s for the mini board on two cores.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

import numpy as np

from sumito.games.abalone import DrawCounters, Move, Position
from sumito.games.abalone.variants import Variant
from sumito.players.base import MAX_SEED, Option, PlayerBase, PlayerKind, PlayerSpecError, register
from sumito.solve.index import space
from sumito.solve.table import NotSolvedError, SolvedTable, cache_path, describe, not_covered

#: the largest variant the player solves on first use (the mini board has about 52 million positions)
MAX_SOLVED_ON_USE = 200_000_000


def has_table(variant: Variant) -> bool:
    """Whether ``variant`` is small enough to have a solved table (solved on first use)."""
    return variant.side <= 3 and space(variant).size <= MAX_SOLVED_ON_USE


def table_on_disk(variant: Variant) -> bool:
    """Whether the table of ``variant`` is in the cache folder (a cheap check: the file is not read)."""
    return has_table(variant) and cache_path(variant).exists()


def perfect_play_refused(position: Position) -> str | None:
    """Why perfect play cannot start from ``position`` without solving anything (``None``: it can): a board
    with no solved table, a table not in the cache yet, or a position the table does not hold."""
    variant = position.variant
    if not has_table(variant):
        return f"perfect plays only on a solved board (the mini layout and smaller), not on {describe(variant)}"
    if not table_on_disk(variant):
        return (f"perfect play on {describe(variant)} needs its table, which has not been built here: run "
                "`sumito solve` once to build it")
    why = not_covered(variant, position)
    return None if why is None else f"perfect: {why}"


def ready_table(variant: Variant) -> SolvedTable | None:
    """The table of ``variant`` when it has been solved into the cache already, else ``None`` (no solve)."""
    return SolvedTable.cached(variant) if has_table(variant) else None


def solved_table(variant: Variant, no_moves: str = "draw") -> SolvedTable:
    """The table of ``variant``, solved into the cache on first use (saying so on stderr)."""
    if not has_table(variant):
        raise PlayerSpecError(f"perfect: there is no solved table for {describe(variant)} (too large to solve here; "
                              "solved boards: the mini board and smaller variants)")

    def tell(v: Variant) -> None:
        print(f"sumito: solving {describe(v)} once (about 11 s on two cores); the table is kept for later use",
              file=sys.stderr, flush=True)

    def wait(v: Variant) -> None:
        print(f"sumito: another process is solving {describe(v)}: waiting for its table", file=sys.stderr, flush=True)

    return SolvedTable.for_variant(variant, no_moves, on_solve=tell, on_wait=wait)


class PerfectPlayer(PlayerBase):
    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = "perfect" if seed is None else f"perfect:seed={seed}"

    def warm_up(self, position: Position) -> None:
        """The table of ``position``'s board, solved now if it is not yet (before any clock runs); on a board
        without one, the one-line refusal a first move would give, before the game starts."""
        solved_table(position.variant)

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        table = solved_table(position.variant)
        try:
            best = table.best_moves(position)
        except NotSolvedError as exc:
            raise PlayerSpecError(f"perfect: {exc}") from None
        if not best:
            raise PlayerSpecError("perfect: the side to move has no legal move")
        return best[int(self.rng.integers(len(best)))][0]


register(
    PlayerKind(
        name="perfect",
        factory=PerfectPlayer,
        options={"seed": Option(int, None, "seed of its choice among equally good moves", low=0, high=MAX_SEED)},
        help="perfect play on a solved board (the mini board): the fastest win, a draw, or the slowest loss",
        sides=(3,),
    )
)
