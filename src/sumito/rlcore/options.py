"""The options every environment takes (layout, rules, rewards, illegal actions), checked once.

A bad option is a one-line :class:`EnvOptionError` (a ``ValueError``) naming it, raised before
anything is built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sumito.errors import SumitoError
from sumito.games.abalone import DrawRules, LayoutError, Position, get_layout
from sumito.rlcore.core import ArrayGame

REWARDS = ("result", "marbles")
ILLEGAL = ("error", "penalty")
MAX_OPENING_PLIES = 100
MAX_PLIES = 1_000_000


class EnvOptionError(SumitoError, ValueError):
    """An environment option that is out of range or unknown."""


@dataclass(frozen=True)
class EnvOptions:
    layout: str
    variant_win: int | None
    inline_only: bool | None
    rules: DrawRules
    reward: str = "result"
    opening_plies: int = 0
    illegal_action: str = "penalty"
    illegal_reward: float = -1.0
    render_mode: str | None = None

    @classmethod
    def build(
        cls,
        *,
        layout: str,
        max_plies: int | None,
        win: int | None,
        inline_only: bool | None,
        repetitions: int | None,
        reward: str,
        opening_plies: int,
        illegal_action: str,
        illegal_reward: float,
        render_mode: str | None,
        render_modes: Sequence[str],
        rules: DrawRules | None = None,
    ) -> EnvOptions:
        def whole(name: str, value: object, low: int, high: int, none: bool = True) -> None:
            if value is None and none:
                return
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not low <= value <= high:
                raise EnvOptionError(f"{name} must be a whole number in {low}..{high}{' or None' if none else ''}, "
                                     f"not {value!r:.40}")

        if not isinstance(layout, str):
            raise EnvOptionError(f"layout must be a layout name or a position string, not {type(layout).__name__}")
        whole("max_plies", max_plies, 1, MAX_PLIES)
        whole("win", win, 1, 14)
        whole("repetitions", repetitions, 2, MAX_PLIES)
        whole("opening_plies", opening_plies, 0, MAX_OPENING_PLIES, none=False)
        if inline_only is not None and not isinstance(inline_only, bool):
            raise EnvOptionError(f"inline_only must be True, False or None, not {inline_only!r:.40}")
        if reward not in REWARDS:
            raise EnvOptionError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r:.40}")
        if illegal_action not in ILLEGAL:
            raise EnvOptionError(f"illegal_action must be one of {', '.join(ILLEGAL)}, not {illegal_action!r:.40}")
        if not isinstance(illegal_reward, (int, float)) or not np.isfinite(illegal_reward):
            raise EnvOptionError(f"illegal_reward must be a finite number, not {illegal_reward!r:.40}")
        if render_mode is not None and render_mode not in render_modes:
            modes = ", ".join(render_modes)
            raise EnvOptionError(f"render_mode must be one of {modes} or None, not {render_mode!r:.40}")
        if rules is None:
            try:
                rules = DrawRules(max_plies=max_plies, repetitions=repetitions)
            except LayoutError as exc:
                raise EnvOptionError(str(exc)) from None
        options = cls(layout, win, inline_only, rules, reward, opening_plies, illegal_action, float(illegal_reward),
                      render_mode)
        options.start_position()  # a bad layout, position string or win threshold fails here
        return options

    def start_position(self) -> Position:
        try:
            if "/" in self.layout:
                start = Position.from_string(self.layout)
                variant = start.variant.with_options(win_threshold=self.variant_win, inline_only=self.inline_only)
                return Position.from_string(self.layout, variant)
            get_layout(self.layout)
            return Position.start(self.layout, win_threshold=self.variant_win, inline_only=self.inline_only)
        except SumitoError as exc:
            raise EnvOptionError(f"layout: {exc}") from None

    def position_from(self, position: Position | str) -> Position:
        """A reset's ``options["position"]`` on this environment's board and rules."""
        variant = self.start_position().variant
        try:
            text = position.to_string() if isinstance(position, Position) else str(position)
            return Position.from_string(text, variant)
        except SumitoError as exc:
            raise EnvOptionError(f"position: {exc}") from None

    def play_opening(self, game: ArrayGame, rng: np.random.Generator) -> None:
        """``opening_plies`` uniformly random legal plies (fewer if the game ends first)."""
        for _ in range(self.opening_plies):
            if game.is_over:
                break
            legal = np.flatnonzero(game.mask)
            game.step(int(legal[rng.integers(len(legal))]))
