"""How many of the last-marble regression positions a search avoids with a node budget.

    python experiments/last_marble_budget.py [--nodes 50000 150000 500000] [--spec engine:threads=1] [--extra ...]
    python experiments/last_marble_budget.py --proof 6 [--audit runs/last-marble-nodes/audit.json]

The two last-marble regression sets (``tests/data/last_marble.txt``: engine self-play positions where the
search without the threat search (``threats=0``) walked into a forced push-off of its last marble; and
``tests/data/last_marble_audit.txt``: the last-marble audit's misses) are searched afresh, one position at
a time, with ``nodes=N`` (a node budget stands for a clock that no load changes: the figures are the same
on a busy machine and an idle one, and one thread searches the same nodes every time). For each spec
(``--spec`` plus each ``--extra``, e.g. ``,threats=1``) and budget it prints how many positions the move
played avoids the losing move in, and the mean depth completed. About 1,000,000 nodes a second is what
one core of the development VM searches, so 100,000 nodes stand for about 0.1 s there.

``--proof N`` asks instead whether a narrow search would do: after each losing move, can the opponent
force the push-off by threats alone (every move of its line leaving a push-off on the board, every
parry tried), within N such moves? (``--audit`` adds the misses of an audit's ``audit.json``.) A
chess engine finds many mates by checks alone this way; where the forced line needs a quiet move, it
finds nothing, and only depth will.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from numba import njit

from sumito.cliargs import count_arg
from sumito.errors import SumitoError
from sumito.games.abalone import Position
from sumito.games.abalone.kernels import MAX_MOVES, PUSH_OFF_BIT, generate_moves, has_push_off, make_move, unmake_move
from sumito.players import make_player
from sumito.search.context import SearchContext
from sumito.stopping import run_main

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SETS = {"self-play": "last_marble.txt", "audit": "last_marble_audit.txt"}


def regression_rows(name: str) -> list[tuple[str, str]]:
    """(position string, the losing move) for each row of a regression file."""
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fields = line.split("\t")
            rows.append((fields[0], fields[1]))
    return rows


@njit(cache=True)
def _threats_win(board, side, attacking, lost_att, win, depth, offsets, cells, edge, inline_only, zobrist, moves, ply,
                 nodes):
    """Whether the attacker forces a push-off of the last marble of a side a marble from losing within
    ``depth`` more moves that each leave a push-off on the board. ``attacking``: ``side`` is the attacker,
    to move; else it is the defender, to move with a push-off against it, and the answer is whether every
    move that takes the push-off away still loses (a move that wins first holds). ``nodes``: [visited,
    cap]; at the cap, no. The draw rules are left out (no repetition, no ply cap): a proof here is a
    forced push-off on an open board. (One function for both sides, as the search's own recursion is: a
    first version with two functions calling each other crashed when numba loaded it from its cache.)"""
    nodes[0] += 1
    opp = 3 - side
    other = not attacking  # a variable, not a literal: a recursive call that casts breaks numba's cache
    if attacking:
        if has_push_off(board, side, offsets, edge):
            return True
        if depth == 0 or nodes[0] > nodes[1]:
            return False
    n = generate_moves(board, side, offsets, cells, inline_only, moves[ply])
    for i in range(n):
        mv = moves[ply, i]
        lost = lost_att
        if not attacking and mv & PUSH_OFF_BIT:
            lost += 1
            if lost >= win:
                return False
        make_move(board, mv, side, offsets, zobrist)
        if attacking:
            # a threat the defender cannot parry
            done = has_push_off(board, side, offsets, edge) and _threats_win(
                board, opp, other, lost, win, depth - 1, offsets, cells, edge, inline_only, zobrist, moves, ply + 1,
                nodes)
        else:
            # a parry that holds
            done = not has_push_off(board, opp, offsets, edge) and not _threats_win(
                board, opp, other, lost, win, depth, offsets, cells, edge, inline_only, zobrist, moves, ply + 1, nodes)
        unmake_move(board, mv, side, offsets)
        if done:
            return attacking
    return not attacking


def push_off_by_threats(position: Position, move: str, depth: int, cap: int = 10_000_000) -> tuple[bool, int]:
    """Whether, after ``move`` (by a side a marble from losing), the opponent forces the push-off by
    threats alone within ``depth`` moves; and the nodes that took."""
    after = position.play(position.parse_move(move))
    if after.winner() is not None:
        return False, 0
    ctx = SearchContext.of(after)
    moves = np.zeros((2 * depth + 2, MAX_MOVES), dtype=np.int32)
    nodes = np.array([0, cap], dtype=np.int64)
    found = _threats_win(ctx.board, ctx.side, True, int(ctx.lost[ctx.side - 1]), ctx.win, depth, ctx.offsets, ctx.cells,
                         ctx.edge_cells, ctx.inline_only, ctx.zobrist, moves, 0, nodes)
    return bool(found), int(nodes[0])


def proof_table(sets: dict[str, list[tuple[str, str]]], depth: int) -> None:
    """For each set, how many of its losing moves lose to threats alone within 1..``depth`` moves."""
    print(f"| set | positions | lost to threats alone within 1..{depth} threats (cumulative) | nodes (most) |")
    print("|---|---|---|---|")
    for label, rows in sets.items():
        first = [0] * (depth + 1)
        most = 0
        for fen, losing in rows:
            for d in range(1, depth + 1):
                found, nodes = push_off_by_threats(Position.from_string(fen), losing, d)
                most = max(most, nodes)
                if found:
                    first[d] += 1
                    break
        cumulative = [sum(first[1:d + 1]) for d in range(1, depth + 1)]
        print(f"| {label} | {len(rows)} | " + " / ".join(map(str, cumulative)) + f" | {most:,} |")


def audit_rows(path: Path) -> list[tuple[str, str]]:
    """(position string, the move played) for each miss of an audit (``last_marble_audit.py``'s ``audit.json``)."""
    try:
        misses = json.loads(path.read_text())["misses"]
        return [(m["position"], m["played"]) for m in misses]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SumitoError(f"{path}: not an audit.json of last_marble_audit.py ({e})") from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=count_arg(1, 10**9), nargs="+", default=[50_000, 150_000, 500_000])
    parser.add_argument("--spec", default="engine:threads=1", help="the engine (one thread: deterministic)")
    parser.add_argument("--extra", nargs="*", default=[""], help="options added to --spec, one row set each")
    parser.add_argument("--proof", type=count_arg(1, 12), metavar="N",
                        help="search nothing: whether each losing move loses to threats alone within N moves")
    parser.add_argument("--audit", type=Path, nargs="*", default=[], help="with --proof: audit.json files to add")
    args = parser.parse_args()
    sets = {label: regression_rows(name) for label, name in SETS.items()}
    if args.proof:
        try:
            for path in args.audit:
                sets[str(path)] = audit_rows(path)
        except SumitoError as exc:
            parser.error(str(exc))
        proof_table(sets, args.proof)
        return
    print("| spec | nodes | " + " | ".join(f"{label}: avoided (mean depth)" for label in sets) + " |")
    print("|---|---|" + "---|" * len(sets))
    for extra in args.extra:
        spec = args.spec + extra
        for budget in args.nodes:
            cells = []
            t0 = time.perf_counter()
            for rows in sets.values():
                avoided, depth = 0, 0
                for fen, losing in rows:
                    player = make_player(f"{spec},nodes={budget}")
                    avoided += player.choose(Position.from_string(fen)).notation() != losing
                    depth += player.last.depth
                cells.append(f"{avoided} of {len(rows)} ({depth / len(rows):.1f})")
            print(f"| `{spec}` | {budget:,} | " + " | ".join(cells) + f" |  <!-- {time.perf_counter() - t0:.0f} s -->",
                  flush=True)


if __name__ == "__main__":
    run_main(main)
