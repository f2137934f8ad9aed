"""Perfect play as a yardstick: ``sumito solve``, and every player scored against the solved mini board.

``sumito solve`` solves a small variant (the mini board by default), prints what the board is (the start's
value and distance, totals by marble counts, the longest forced win, the optimal line from the start) and
with ``--verify`` recomputes every position from its successors. ``sumito solve score PLAYER...`` plays
each player's move in a fixed, seeded suite of positions and counts how often it keeps the position's
exact value, and its blunders: a won position thrown to a draw or a loss, a drawn one to a loss.

The suite holds only positions where the choice matters (some legal move changes the value), half drawn
uniformly from the table and half from games from the start between a seeded pool of players.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from sumito.arena.ratings import score_interval
from sumito.defaults import YARDSTICK_SEED, YARDSTICK_SUITE
from sumito.errors import SumitoError
from sumito.games.abalone import Game, Position
from sumito.games.abalone.draws import DrawRules
from sumito.games.abalone.geometry import geometry
from sumito.games.abalone.variants import Variant, get_layout
from sumito.players import make_player
from sumito.players.base import seeded_spec
from sumito.progress import Progress
from sumito.solve import retrograde as R
from sumito.solve.index import space
from sumito.solve.solver import CHUNK
from sumito.solve.table import SolvedTable, Value, describe
from sumito.stopping import STOP, call_stoppable

#: the players whose games give half the suite: (Black, White), each seeded from the suite's seed
SUITE_PAIRS = (
    ("random", "random"),
    ("greedy", "random"),
    ("heuristic:depth=1,ties=random", "random"),
    ("abla:depth=2,ties=random", "greedy"),
    ("heuristic:depth=2,ties=random", "abla:depth=1,ties=random"),
)
#: the longest game played for the suite
SUITE_GAME_PLIES = 120


class YardstickError(SumitoError):
    """A variant or player the yardstick cannot use."""


# ----------------------------------------------------------------------------- the suite
def position_of(table: SolvedTable, entry: int) -> Position:
    """The position of entry ``entry`` with Black to move (colour 1 of the table is the side to move)."""
    v = table.variant
    sp = space(v)
    geo = geometry(v.side)
    grid = geo.empty_grid
    free = np.empty(geo.n_cells, dtype=np.int64)
    a, b = R.unrank(entry, grid, geo.cells, sp.binom, sp.block_start, v.marbles, v.win_threshold, free)
    return Position(grid, 1, (v.marbles - int(a), v.marbles - int(b)), 1, v)


def decisive(table: SolvedTable, position: Position) -> bool:
    """Whether the choice of move matters: some legal move changes the position's value."""
    value = table.value(position)
    return value.result >= 0 and any(v.result != value.result for _, v in table.move_values(position))


def build_suite(
    table: SolvedTable, size: int = YARDSTICK_SUITE, seed: int = YARDSTICK_SEED
) -> list[tuple[str, Position]]:
    """``size`` positions where the choice matters: half uniform over the table, half from games (each
    labelled ``uniform`` or ``games``), the same for the same seed."""
    rng = np.random.default_rng(seed)
    uniform: list[Position] = []
    total = space(table.variant).size
    while len(uniform) < size - size // 2:
        pos = position_of(table, int(rng.integers(total)))
        if pos.count_legal_moves() and decisive(table, pos):
            uniform.append(pos)
    seen: set[Position] = set()
    from_games: list[Position] = []
    start = start_of(table.variant)
    game_no = 0
    while len(from_games) < size // 2:
        black, white = SUITE_PAIRS[game_no % len(SUITE_PAIRS)]
        game_seed = int(rng.integers(2**31))
        players = {1: make_player(seeded_spec(black, game_seed)), 2: make_player(seeded_spec(white, game_seed + 1))}
        game = Game(start, DrawRules(max_plies=SUITE_GAME_PLIES))
        candidates = []
        while not game.is_over():
            pos = game.position
            if pos not in seen and decisive(table, pos):
                seen.add(pos)
                candidates.append(pos)
            game.push(players[pos.side_to_move].choose(pos))
        # a few positions a game, so that the suite spans many games
        for i in rng.permutation(len(candidates))[:4]:
            if len(from_games) < size // 2:
                from_games.append(candidates[int(i)])
        game_no += 1
    return [("uniform", p) for p in uniform] + [("games", p) for p in from_games]


def start_of(variant: Variant) -> Position:
    """The start of a solved variant: the mini layout's marbles, with the variant's marbles to win and moves."""
    lay = get_layout("mini")
    if (variant.side, variant.marbles) != (lay.variant.side, lay.variant.marbles):
        raise YardstickError(f"the yardstick's games start from the mini layout; {describe(variant)} has no start")
    return Position.start("mini", win_threshold=variant.win_threshold, inline_only=variant.inline_only)


# ----------------------------------------------------------------------------- scoring
@dataclass
class Score:
    """How one player did on the suite."""

    player: str
    positions: int = 0
    kept: int = 0  # moves that keep the value
    optimal: int = 0  # moves that also keep the distance (the fastest win, the slowest loss)
    win_to_draw: int = 0
    win_to_loss: int = 0
    draw_to_loss: int = 0
    seconds: float = 0.0
    by_source: dict = field(default_factory=dict)

    @property
    def blunders(self) -> int:
        return self.win_to_draw + self.win_to_loss + self.draw_to_loss

    def share(self, count: int) -> tuple[float, float, float]:
        """``count`` of the positions as a share, with its 95% interval."""
        return score_interval(count, 0, self.positions - count)


def score_player(spec: str, suite: list[tuple[str, Position]], table: SolvedTable, seed: int = YARDSTICK_SEED,
                 progress: Progress | None = None) -> Score:
    player = make_player(seeded_spec(spec, seed))
    out = Score(player=spec)
    start = time.perf_counter()
    for source, pos in suite:
        before = table.value(pos)
        moves = dict(table.move_values(pos))
        move = player.choose(pos)
        after = moves[move]
        best = max(v.score for v in moves.values())
        kept = after.result == before.result
        src = out.by_source.setdefault(source, [0, 0])
        src[0] += 1
        src[1] += kept
        out.positions += 1
        out.kept += kept
        out.optimal += after.score == best
        if before.result > 0 and after.result == 0:
            out.win_to_draw += 1
        elif before.result > 0 and after.result < 0:
            out.win_to_loss += 1
        elif before.result == 0 and after.result < 0:
            out.draw_to_loss += 1
        if progress is not None:
            progress.update(advance=1)
    out.seconds = time.perf_counter() - start
    return out


# ----------------------------------------------------------------------------- the optimal line


def optimal_line(table: SolvedTable, start: Position, limit: int = 200) -> list[tuple[str, Value]]:
    """Perfect play from ``start``, the first value-keeping move each ply (a drawn line stops at ``limit``)."""
    line = []
    pos = start
    for _ in range(limit):
        if pos.winner() is not None or not pos.count_legal_moves():
            break
        move, value = table.best_moves(pos)[0]
        line.append((move.notation(), value))
        pos = pos.play(move)
    return line


def verify_table(table: SolvedTable) -> int:
    """Recompute every entry from its successors (the engine's forward moves); return the mismatches."""
    v = table.variant
    sp = space(v)
    geo = geometry(v.side)
    values = table.values
    bad = 0
    step = 1 << 22
    with Progress("verify", sp.size, unit="positions") as progress:
        for first in range(0, sp.size, step):
            last = min(sp.size, first + step)
            n, _ = call_stoppable(R.verify, values, geo.cells, geo.offsets, geo.zobrist, sp.binom, sp.block_start,
                                  v.marbles, v.win_threshold, v.inline_only, table.no_moves == "loss",
                                  geo.empty_grid, first, last, CHUNK, STOP)
            bad += int(n)
            progress.update(advance=last - first)
    return bad


def summarise(table: SolvedTable) -> dict:
    v = table.variant
    sp = space(v)
    vals = table.values
    blocks = []
    for a, b, first, n in sp.block_counts():
        part = vals[first:first + n]
        blocks.append(dict(mover_marbles=a, other_marbles=b, positions=n, wins=int((part > 0).sum()),
                           draws=int((part == 0).sum()), losses=int((part < 0).sum())))
    longest = int(np.argmax(vals))
    summary = dict(variant=describe(v), positions=sp.size, no_moves=table.no_moves, digest=table.digest(),
                   solve_seconds=round(table.seconds, 1), **table.counts(), blocks=blocks,
                   longest_win=dict(plies=int(vals[longest]) - 1, position=position_of(table, longest).to_string()))
    try:
        start = start_of(v)
    except YardstickError:
        return summary
    value = table.value(start)
    summary["start"] = dict(position=start.to_string(), value=value.text(),
                            moves={m.notation(): mv.text() for m, mv in table.move_values(start)},
                            line=[m for m, _ in optimal_line(table, start)])
    return summary


def print_summary(s: dict) -> None:
    print(f"solved in {s['solve_seconds']} s; digest {s['digest']}")
    total = s["positions"]
    print(f"side to move wins {s['wins']:,} ({100 * s['wins'] / total:.1f}%), draws {s['draws']:,} "
          f"({100 * s['draws'] / total:.1f}%), loses {s['losses']:,} ({100 * s['losses'] / total:.1f}%)")
    print("marbles on the board (side to move, other side): wins / draws / losses")
    for b in s["blocks"]:
        counts = f"{b['wins']:>11,} / {b['draws']:>11,} / {b['losses']:>11,}"
        print(f"  {b['mover_marbles']}, {b['other_marbles']}: {counts}")
    if s["wins"]:
        print(f"longest forced win: {s['longest_win']['plies']} plies, e.g. {s['longest_win']['position']}")
    else:
        print("no position is won")
    if "start" in s:
        st = s["start"]
        print(f"start {st['position']}: the side to move {st['value']}")
        print("  " + ", ".join(f"{m} {v}" for m, v in st["moves"].items()))
        print(f"  a perfect line: {' '.join(st['line'])}")
    if "verified_mismatches" in s:
        print(f"verified: {s['verified_mismatches']:,} positions differ from their successors' values")
