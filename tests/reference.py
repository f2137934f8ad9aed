"""A slow, obviously-correct implementation of the rules, written independently of the kernels.

Boards are dicts {(row, diag): "b" | "w"} (empty cells absent) on a board of side ``s``; a move
is applied by moving marbles one at a time. Used to cross-check the fast generator.
"""

from __future__ import annotations

STEPS = [(0, 1), (1, 1), (1, 0), (0, -1), (-1, -1), (-1, 0)]


def on_board(s: int, r: int, d: int) -> bool:
    return 0 <= r < 2 * s - 1 and 0 <= d < 2 * s - 1 and abs(r - d) <= s - 1


def parse_rows(rows_text: str) -> tuple[int, dict[tuple[int, int], str]]:
    rows = rows_text.split("/")
    s = (len(rows) + 1) // 2
    board = {}
    for i, row_text in enumerate(rows):
        r = len(rows) - 1 - i
        diags = [d for d in range(2 * s - 1) if on_board(s, r, d)]
        values = []
        for ch in row_text:
            if ch.isdigit():
                values += [None] * int(ch)
            else:
                values.append(ch)
        assert len(values) == len(diags)
        for d, v in zip(diags, values):
            if v:
                board[(r, d)] = v
    return s, board


def successors(s: int, board: dict, me: str, inline_only: bool = False) -> list[tuple[frozenset, int, dict, int]]:
    """All (moved cells, direction, new board, marbles pushed off) for side ``me``."""
    opp = "w" if me == "b" else "b"
    out = []
    mine = [c for c, v in board.items() if v == me]
    # every straight line of 1-3 own marbles, each listed once
    groups = set()
    for c in mine:
        groups.add((c,))
        for ax in range(3):
            dr, dd = STEPS[ax]
            line = [c]
            for k in range(1, 3):
                nxt = (c[0] + k * dr, c[1] + k * dd)
                if board.get(nxt) != me:
                    break
                line.append(nxt)
                groups.add(tuple(line))
    for group in groups:
        if len(group) == 1:
            axes = set()
        else:
            dr, dd = group[1][0] - group[0][0], group[1][1] - group[0][1]
            axes = {STEPS.index((dr, dd)), STEPS.index((-dr, -dd))}
        for k in range(6):
            if len(group) == 1 or k in axes:
                res = _inline(s, board, group, k, me, opp)
            else:
                if inline_only:
                    continue
                res = _broadside(s, board, group, k, me)
            if res is not None:
                new, off = res
                out.append((frozenset(group), k, new, off))
    return out


def _inline(s, board, group, k, me, opp):
    dr, dd = STEPS[k]
    # order the group so that the head is the last marble in the direction of travel
    line = sorted(group, key=lambda c: c[0] * dr + c[1] * dd)
    head = line[-1]
    ahead = (head[0] + dr, head[1] + dd)
    if not on_board(s, *ahead):
        return None
    pushed = []
    cur = ahead
    while on_board(s, *cur) and board.get(cur) == opp:
        pushed.append(cur)
        cur = (cur[0] + dr, cur[1] + dd)
    if board.get(ahead) == me:
        return None  # the group is not the whole moving line
    if pushed:
        if len(pushed) >= len(line):
            return None
        if on_board(s, *cur) and cur in board:
            return None  # blocked by a marble of either colour
    new = dict(board)
    off = 0
    # move the pushed marbles first, the farthest first
    for c in reversed(pushed):
        del new[c]
        dest = (c[0] + dr, c[1] + dd)
        if on_board(s, *dest):
            new[dest] = opp
        else:
            off += 1
    for c in reversed(line):
        del new[c]
        new[(c[0] + dr, c[1] + dd)] = me
    return new, off


def _broadside(s, board, group, k, me):
    dr, dd = STEPS[k]
    dests = [(c[0] + dr, c[1] + dd) for c in group]
    if any(not on_board(s, *t) or t in board for t in dests):
        return None
    new = dict(board)
    for c in group:
        del new[c]
    for t in dests:
        new[t] = me
    return new, 0


def rows_string(s: int, board: dict) -> str:
    rows = []
    for r in range(2 * s - 2, -1, -1):
        out, run = "", 0
        for d in range(2 * s - 1):
            if not on_board(s, r, d):
                continue
            v = board.get((r, d))
            if v is None:
                run += 1
            else:
                if run:
                    out += str(run)
                    run = 0
                out += v
        if run:
            out += str(run)
        rows.append(out)
    return "/".join(rows)


def perft(s: int, board: dict, me: str, depth: int, inline_only: bool = False) -> int:
    if depth == 0:
        return 1
    nxt = "w" if me == "b" else "b"
    return sum(perft(s, new, nxt, depth - 1, inline_only) for _, _, new, _ in successors(s, board, me, inline_only))
