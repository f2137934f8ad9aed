"""Drawing a position as an ASCII hexagon with coordinates (for the terminal)."""

from __future__ import annotations

from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, WHITE
from sumito.games.abalone.position import Position

SYMBOLS = {0: ".", BLACK: "@", WHITE: "O"}


def render(position: Position, highlight: set[str] | frozenset[str] = frozenset(), flipped: bool = False) -> str:
    """The board with row letters and diagonal numbers along its edges.

    ``@`` is a black marble, ``O`` a white one, ``.`` an empty cell; empty cells named in
    ``highlight`` are drawn as ``*`` (to show where a move goes). The board is drawn as Black sees it (row a at
    the bottom), or ``flipped``, turned half a circle, as White sees it (row a at the top, the letters on the
    right and the diagonal numbers along the upper left edge).
    """
    geo = position.geometry
    rows = geo.rows
    lines = []

    def cell(row: int, diag: int) -> str:
        g = geo.grid_index(row, diag)
        return "*" if geo.name(g) in highlight and position.grid[g] == 0 else SYMBOLS[int(position.grid[g])]

    if flipped:
        lines.append(" " * geo.side + " ".join(str(d + 1) for d in range(geo.side - 1, -1, -1)))
    for row in range(rows) if flipped else range(rows - 1, -1, -1):
        indent = " " * abs(row - (geo.side - 1))
        letter = "abcdefghijklmnopq"[row]
        # the diagonal number of a lower row's last cell continues the board's lower right edge (upper left, flipped)
        edge = str(geo.row_range(row)[-1] + 1 + 1) if row < geo.side - 1 else ""
        if flipped:
            cells = [cell(row, diag) for diag in reversed(geo.row_range(row))]
            lines.append(f"{indent}{edge or ' '} {' '.join(cells)} {letter}")
        else:
            cells = [cell(row, diag) for diag in geo.row_range(row)]
            lines.append(f"{indent}{letter} {' '.join(cells)}" + (f" {edge}" if edge else ""))
    if not flipped:
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
