"""Game variants (board size, marbles, win threshold, inline-only) and the named starting layouts."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from sumito.games.abalone.errors import LayoutError

if TYPE_CHECKING:
    from sumito.games.abalone.position import Position


@dataclass(frozen=True)
class Variant:
    """The rules that a position string does not carry.

    ``marbles`` is how many marbles each side starts with (a position may hold no more, counting
    the ones already lost); ``win_threshold`` is how many opposing marbles a side must push off
    to win; ``inline_only`` is the Alphalone report's reduced game without broadside moves.
    """

    side: int = 5
    marbles: int = 14
    win_threshold: int = 6
    inline_only: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.side <= 9:
            raise LayoutError(f"board side must be between 2 and 9, not {self.side}")
        if self.marbles < 1:
            raise LayoutError(f"marbles per side must be positive, not {self.marbles}")
        if not 1 <= self.win_threshold <= self.marbles:
            raise LayoutError(
                f"win threshold must be between 1 and {self.marbles} (the marbles per side), not {self.win_threshold}"
            )

    def with_options(self, win_threshold: int | None = None, inline_only: bool | None = None) -> Variant:
        """This variant with the given options changed (``None`` keeps the current value)."""
        changes: dict[str, object] = {}
        if win_threshold is not None:
            changes["win_threshold"] = win_threshold
        if inline_only is not None:
            changes["inline_only"] = inline_only
        return replace(self, **changes) if changes else self


# Default variant of each board size. Small boards keep roughly the standard ratio of win
# threshold to marbles (6 of 14 = 43%): 5 of 11 on the side-4 board, 2 of 5 on the side-3 board.
STANDARD = Variant(side=5, marbles=14, win_threshold=6)
SMALL = Variant(side=4, marbles=11, win_threshold=5)
MINI = Variant(side=3, marbles=5, win_threshold=2)
DEFAULT_VARIANTS = {5: STANDARD, 4: SMALL, 3: MINI}


def default_variant(side: int) -> Variant:
    """The default rules for a board of ``side``; other sizes scale the standard counts by area."""
    if side in DEFAULT_VARIANTS:
        return DEFAULT_VARIANTS[side]
    cells = 3 * side * (side - 1) + 1
    marbles = max(1, round(14 * cells / 61))
    return Variant(side=side, marbles=marbles, win_threshold=max(1, round(marbles * 6 / 14)))


@dataclass(frozen=True)
class Layout:
    """A named starting position: the board part of a position string, Black to move first."""

    name: str
    rows: str
    variant: Variant
    description: str

    @property
    def position_string(self) -> str:
        return f"{self.rows} b 0 0 1"


_LAYOUTS = (
    Layout(
        "standard",
        "wwwww/wwwwww/2www2/8/9/8/2bbb2/bbbbbb/bbbbb",
        STANDARD,
        "the official start: each side fills its two back rows and the middle of the third",
    ),
    Layout(
        "belgian-daisy",
        "ww1bb/wwwbbb/1ww1bb1/8/9/8/1bb1ww1/bbbwww/bb1ww",
        STANDARD,
        "two seven-marble daisies a side on the back rows; the tournament start",
    ),
    Layout(
        "german-daisy",
        "5/ww2bb/www1bbb/1ww2bb1/9/1bb2ww1/bbb1www/bb2ww/5",
        STANDARD,
        "the Belgian daisies moved one row towards the centre",
    ),
    Layout(
        "dutch-daisy",
        "ww1bb/wbwbwb/1ww1bb1/8/9/8/1bb1ww1/bwbwbw/bb1ww",
        STANDARD,
        "Belgian Daisy with the centre marble of each daisy in the other colour",
    ),
    Layout(
        "swiss-daisy",
        "5/ww2bb/wbw1bwb/1ww2bb1/9/1bb2ww1/bwb1wbw/bb2ww/5",
        STANDARD,
        "German Daisy with the centre marble of each daisy in the other colour",
    ),
    Layout(
        "domination",
        "5/w4b/ww3bb/wwww1bbb/3b1b3/bbb1wwww/bb3ww/b4w/5",
        STANDARD,
        "two opposite triangles a side, Black also holding e4 and e6 in the centre",
    ),
    Layout(
        "pyramid",
        "w4/ww4/www4/wwww4/wwww1bbbb/4bbbb/4bbb/4bb/4b",
        STANDARD,
        "each side one triangle against the opposite edge, meeting on row e",
    ),
    Layout(
        "the-wall",
        "2w2/6/1wwwww1/wwwwwwww/9/bbbbbbbb/1bbbbb1/6/2b2",
        STANDARD,
        "two walls of eight facing each other across row e, with one marble behind each",
    ),
    Layout(
        "small",
        "wwww/wwwww/2ww2/7/2bb2/bbbbb/bbbb",
        SMALL,
        "side-4 board (37 cells) of the Alphalone report, Standard scaled down: 11 marbles, 5 to win",
    ),
    Layout(
        "mini",
        "www/1ww1/5/1bb1/bbb",
        MINI,
        "side-3 board (19 cells) of the Alphalone report: 5 marbles, 2 to win",
    ),
)

LAYOUTS: dict[str, Layout] = {layout.name: layout for layout in _LAYOUTS}


def layout_names() -> list[str]:
    return list(LAYOUTS)


def get_layout(name: str) -> Layout:
    """The layout called ``name`` (case, spaces and underscores are forgiven: 'Belgian Daisy')."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if not key.startswith("the-") and f"the-{key}" in LAYOUTS:
        key = f"the-{key}"
    if key in LAYOUTS:
        return LAYOUTS[key]
    if f"{key}-daisy" in LAYOUTS:
        return LAYOUTS[f"{key}-daisy"]
    shown = name if len(name) <= 40 else name[:37] + "..."
    raise LayoutError(f"unknown layout {shown!r}; known layouts: {', '.join(LAYOUTS)}")


def layout_of(position: Position) -> str | None:
    """The name of the layout whose start ``position`` is, if any (``None`` for another position)."""
    text = position.to_string()
    side = position.variant.side
    return next((n for n, lay in LAYOUTS.items() if lay.variant.side == side and lay.position_string == text), None)
