"""The board as an RGB image (``render_mode="rgb_array"``), drawn with matplotlib.

The look follows the web page's board: a wooden hexagon, holes for empty cells, black and white
marbles, the row letters and diagonal numbers along the edges, and the lost marbles below.
"""

from __future__ import annotations

import math

import numpy as np

from sumito.games.abalone import BLACK, WHITE, Position, render

BOARD = "#c8a165"
EDGE = "#8a6a3a"
HOLE = "#a88450"
MARBLE = {BLACK: "#1b1b1b", WHITE: "#f4f4f0"}
RIM = {BLACK: "#000000", WHITE: "#9a9a9a"}


def render_frame(position: Position, mode: str | None) -> str | np.ndarray | None:
    """What an environment's ``render()`` returns in ``mode``: ``"rgb_array"`` the image, ``"ansi"``
    the text board, ``"human"`` prints the text board (and returns None), ``None`` nothing."""
    if mode is None:
        return None
    if mode == "rgb_array":
        return board_image(position)

    text = render(position)
    if mode == "human":
        print(text)
        return None
    return text


def cell_xy(row: int, diag: int, side: int) -> tuple[float, float]:
    """Centre of cell (row, diagonal) in unit cell spacings: rows upwards, a1 at the lower left."""
    return diag - 0.5 * row - 0.5 * (side - 1), (row - (side - 1)) * math.sqrt(3) / 2


def board_image(position: Position, size: int = 480) -> np.ndarray:
    """``position`` drawn as a ``uint8`` RGB array of ``size`` × ``size`` pixels."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, RegularPolygon

    geo = position.geometry
    side = geo.side
    fig = Figure(figsize=(size / 100, size / 100), dpi=100)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_aspect("equal")
    ax.axis("off")
    fig.patch.set_facecolor("white")
    # flat top and bottom (the rows), corners left and right
    ax.add_patch(RegularPolygon((0, 0), 6, radius=side - 0.3, orientation=math.pi / 6,
                                facecolor=BOARD, edgecolor=EDGE, linewidth=3))
    font = max(6, size // (6 * side))
    for g in geo.cells.tolist():
        row, diag = geo.row_diag(g)
        x, y = cell_xy(row, diag, side)
        value = int(position.grid[g])
        if value in MARBLE:
            ax.add_patch(Circle((x, y), 0.42, facecolor=MARBLE[value], edgecolor=RIM[value], linewidth=1))
        else:
            ax.add_patch(Circle((x, y), 0.22, facecolor=HOLE, edgecolor="none"))
    for row in range(geo.rows):
        x, y = cell_xy(row, geo.row_range(row)[0], side)
        ax.text(x - 1.0, y, "abcdefghijklmnopq"[row].upper(), ha="center", va="center", fontsize=font, color=EDGE)
    for diag in range(geo.rows):
        row = max(0, diag - (side - 1))
        x, y = cell_xy(row, diag, side)
        ax.text(x + 0.55, y - 0.95, str(diag + 1), ha="center", va="center", fontsize=font, color=EDGE)
    lost_b, lost_w = position.lost
    bottom = -(side - 1) * math.sqrt(3) / 2 - 1.6
    ax.text(0, bottom, f"lost: black {lost_b}, white {lost_w} (of {position.variant.win_threshold})",
            ha="center", va="center", fontsize=font, color="#333333")
    span = side + 0.3
    ax.set_xlim(-span, span)
    ax.set_ylim(-span - 0.6, span - 0.6)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
    return image
