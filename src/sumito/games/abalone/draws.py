"""The draw rules of a game, and where a game stands against them.

Light (no numpy, no kernels): the command line declares and checks its draw-rule options with these
before it loads the engine.
"""

from __future__ import annotations

from dataclasses import dataclass

from sumito.games.abalone.errors import LayoutError


@dataclass(frozen=True)
class DrawRules:
    """When a game that nobody has won ends anyway. ``None`` switches a rule off.

    * ``max_plies``: a draw once this many plies have been played;
    * ``repetitions``: a draw when the same position with the same side to move occurs this many
      times (3 = threefold repetition);
    * ``no_capture_plies``: a draw after this many plies in a row without a marble pushed off;
    * ``no_moves``: what a side with no legal move gets, ``"draw"`` (as on PlayStrategy) or
      ``"loss"``.
    """

    max_plies: int | None = None
    repetitions: int | None = 3
    no_capture_plies: int | None = None
    no_moves: str = "draw"

    def __post_init__(self) -> None:
        for name in ("max_plies", "repetitions", "no_capture_plies"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise LayoutError(f"draw rule {name} must be a positive whole number or off, not {value!r}")
        if self.repetitions is not None and self.repetitions < 2:
            raise LayoutError(f"draw rule repetitions must be at least 2, not {self.repetitions}")
        if self.no_moves not in ("draw", "loss"):
            raise LayoutError(f"draw rule no_moves must be 'draw' or 'loss', not {self.no_moves!r}")


@dataclass(frozen=True)
class DrawCounters:
    """Where a game stands against its draw rules: what a search needs to see a ply-cap or no-capture
    draw coming (repetitions it sees from the game's earlier positions). Players get it with the
    position (``choose(..., draw=)``); ``None`` there means no rule but repetition."""

    rules: DrawRules
    plies: int = 0  # plies played so far
    quiet_plies: int = 0  # plies since the last push-off

    def __post_init__(self) -> None:
        if self.plies < 0 or self.quiet_plies < 0:
            raise LayoutError("draw counters cannot be negative")

    @property
    def plies_left(self) -> int | None:
        """Plies until the ply cap draws the game (0: it is drawn now); ``None`` without a cap."""
        return None if self.rules.max_plies is None else max(self.rules.max_plies - self.plies, 0)

    @property
    def quiet_plies_left(self) -> int | None:
        """Plies without a push-off until the no-capture rule draws the game; ``None`` when it is off."""
        limit = self.rules.no_capture_plies
        return None if limit is None else max(limit - self.quiet_plies, 0)


#: the draw rules of games between computer players unless told (matches, tournaments, the lab's games)
DEFAULT_RULES = DrawRules(max_plies=400, repetitions=3, no_capture_plies=None, no_moves="draw")
#: the draw rules of ``sumito game`` and ``sumito play`` unless told
GAME_RULES = DrawRules(max_plies=1000, repetitions=3)
