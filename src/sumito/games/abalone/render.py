"""Drawing a position as an ASCII hexagon with coordinates (for the terminal)."""

from __future__ import annotations

from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, WHITE
from sumito.games.abalone.position import Position

SYMBOLS = {0: ".", BLACK: "@", WHITE: "O"}


def render(position: Position, highlight: set[str] | frozenset[str] = frozenset()) -> str:
    """The board with row letters on the left and diagonal numbers along the lower right edge.

    ``@`` is a black marble, ``O`` a white one, ``.`` an empty cell; empty cells named in
    ``highlight`` are drawn as ``*`` (to show where a move goes).
    """
    geo = position.geometry
    rows = geo.rows
    lines = []
    for row in range(rows - 1, -1, -1):
        indent = " " * abs(row - (geo.side - 1))
        cells = []
        for diag in geo.row_range(row):
            g = geo.grid_index(row, diag)
            name = geo.name(g)
            cells.append("*" if name in highlight and position.grid[g] == 0 else SYMBOLS[int(position.grid[g])])
        line = f"{indent}{'abcdefghijklmnopq'[row]} {' '.join(cells)}"
        if row < geo.side - 1:
            # the diagonal number of the row's last cell continues the board's lower right edge
            line += f" {geo.row_range(row)[-1] + 1 + 1}"
        lines.append(line)
    lines.append(" " * (geo.side + 2) + " ".join(str(d + 1) for d in range(geo.side)))
    lost_b, lost_w = position.lost
    winner = position.winner()
    # a won position has no side to move: say who won
    state = f"{COLOR_NAMES[winner]} has won" if winner is not None else f"{COLOR_NAMES[position.side_to_move]} to move"
    lines.append("")
    lines.append(
        f"{state}, move {position.move_number}. "
        f"Lost: Black {lost_b}, White {lost_w} (of {position.variant.win_threshold} to lose)."
    )
    return "\n".join(lines)
