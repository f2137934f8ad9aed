"""The "ahead, make progress" positions: where the engine led by two or more marbles in a game it then did not
convert, and how soon an engine pushes a marble off from them.

    python experiments/conversion_suite.py extract [--db FILE ...] [--rows FILE ...] [--every 60] [--per-game 3]
                                                   [--out tests/data/ahead_positions.txt]
    python experiments/conversion_suite.py play [--engine SPEC] [--bound 80] [--suite FILE]

``extract`` reads unconverted games (a game drawn at the ply cap or by repetition with the engine, player A,
two or more marbles up) from the game databases ``experiments/conversion_bisect.py --keep`` writes (``--db``)
and from the rows of ``experiments/conversion.py`` (``--rows``, the JSON files under ``runs/conversion/``,
which keep the moves of such games), and keeps positions of each with the engine to move and two or more
marbles ahead: the first after the last push-off of the game (when the lead was final), then one every
``--every`` plies, at most ``--per-game`` a game. Each line of the file is the position, the opponent the
engine faced there, and where it came from.

``play`` plays every position of the suite: the engine (``--engine``, by default the engine's default
evaluation at depth 4 on one thread: the same moves on any machine) against the opponent named in the file,
under the arena's draw rules with a cap of ``--bound`` plies, and prints the plies to the engine's first
push-off (``-`` when none came within the bound).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from sumito.arena.db import GameArchive
from sumito.players import game_history, make_player

try:
    from sumito.games.abalone import BLACK, WHITE, DrawRules, Game, Position
except ImportError:  # the rules' package before it moved: ``play`` also runs under older checkouts' sources
    from sumito.engine import BLACK, WHITE, DrawRules, Game, Position  # type: ignore[no-redef]

SUITE = Path(__file__).resolve().parent.parent / "tests" / "data" / "ahead_positions.txt"
ENGINE = "engine:depth=4,threads=1"
UNCONVERTED = ("ply-cap", "repetition", "no-capture")


@dataclass(frozen=True)
class AheadPosition:
    """A suite position: the engine is to move, ``lead`` marbles ahead; ``opponent`` the spec it played."""

    position: str
    opponent: str
    source: str

    @property
    def lead(self) -> int:
        pos = Position.from_string(self.position)
        me = pos.side_to_move
        return pos.lost[1 if me == BLACK else 0] - pos.lost[0 if me == BLACK else 1]


def read_suite(path: Path = SUITE) -> list[AheadPosition]:
    """The positions of a suite file (``#`` lines are comments; fields separated by tabs)."""
    rows = []
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            position, opponent, source = line.split("\t")
            rows.append(AheadPosition(position, opponent, source))
    return rows


def ahead_positions(start: str, moves: list[str], a_colour: int, every: int, per_game: int) -> list[str]:
    """Positions of one game with A (``a_colour``) to move and two or more marbles up: the first after the
    game's last push-off, then one every ``every`` plies, at most ``per_game``."""
    game = Game(Position.from_string(start), DrawRules(max_plies=None, repetitions=None))
    positions = [game.position]
    for text in moves:
        game.push(text)
        positions.append(game.position)
    last_push = max((i for i in range(1, len(positions)) if positions[i].lost != positions[i - 1].lost), default=0)
    kept: list[str] = []
    next_ply = last_push
    for ply in range(last_push, len(positions) - 1):  # the final position has no move left to play
        pos = positions[ply]
        a_lost, b_lost = (pos.lost[0], pos.lost[1]) if a_colour == BLACK else (pos.lost[1], pos.lost[0])
        if ply >= next_ply and pos.side_to_move == a_colour and b_lost - a_lost >= 2:
            kept.append(pos.to_string())
            next_ply = ply + every
            if len(kept) == per_game:
                break
    return kept


def games_from_db(path: Path) -> list[tuple[str, dict]]:
    """(opponent, game) for every game of the database's match (A is the run's player 0)."""
    games = []
    with GameArchive(path, create=False) as archive:
        for g in sorted(archive.games(), key=lambda g: g.game_index):
            a_black = g.black_player == 0
            a_lost, b_lost = (g.lost_black, g.lost_white) if a_black else (g.lost_white, g.lost_black)
            games.append((g.white if a_black else g.black,
                          dict(index=g.game_index, a_colour="black" if a_black else "white", reason=g.reason,
                               score=0.5 if g.result == "1/2-1/2" else None, a_pushed=b_lost, a_lost=a_lost,
                               start=g.start_position, moves=g.moves.split())))
    return games


def games_from_rows(path: Path) -> list[tuple[str, dict]]:
    """(opponent, row) for the rows of an experiments/conversion.py file that keep their moves."""
    data = json.loads(path.read_text())
    return [(data["b"], row) for row in data["rows"] if "moves" in row]


def extract(args: argparse.Namespace) -> None:
    lines, seen = [], set()
    for source, games in [*((str(p), games_from_db(p)) for p in args.db),
                          *((str(p), games_from_rows(p)) for p in args.rows)]:
        for opponent, g in games:
            if g["score"] != 0.5 or g["reason"] not in UNCONVERTED or g["a_pushed"] - g["a_lost"] < 2:
                continue
            colour = BLACK if g["a_colour"] == "black" else WHITE
            for pos in ahead_positions(g["start"], g["moves"], colour, args.every, args.per_game):
                board = pos.rsplit(" ", 1)[0]  # games that reach the same position differ only in the move number
                if board in seen:
                    continue
                seen.add(board)
                lines.append(f"{pos}\t{opponent}\t{Path(source).stem} game {g['index']}")
    header = [
        "# made by: python experiments/conversion_suite.py extract " + " ".join(
            [*(f"--db {p}" for p in args.db), *(f"--rows {p}" for p in args.rows),
             f"--every {args.every} --per-game {args.per_game}"]),
        "# position (the engine to move, two or more marbles ahead, in a game it did not convert)<TAB>the opponent"
        "<TAB>the game it comes from",
    ]
    args.out.write_text("\n".join([*header, *lines]) + "\n")
    print(f"wrote {len(lines)} positions to {args.out}")


def plies_to_push_off(ahead: AheadPosition, engine: str, bound: int) -> tuple[int | None, str]:
    """The plies from ``ahead`` to the engine's first push-off against its opponent (``None``: none within
    ``bound`` plies), and how the game stood when it stopped. The game is played under the arena's draw rules
    (threefold repetition; a cap of ``bound`` plies) and stops at the push-off."""
    game = Game(Position.from_string(ahead.position), DrawRules(max_plies=bound))
    me = game.position.side_to_move
    them = 1 if me == BLACK else 0  # the opponent's count in Position.lost
    players = {me: make_player(engine), (WHITE if me == BLACK else BLACK): make_player(ahead.opponent)}
    start = game.position.lost[them]
    while game.outcome() is None:
        colour = game.position.side_to_move
        game.push(players[colour].choose(game.position, history=game_history(game), draw=game.draw_counters()))
        if game.position.lost[them] > start:
            return game.plies, "push-off"
    outcome = game.outcome()
    return None, f"{outcome.reason} at {game.plies}" if outcome else "?"


def play(args: argparse.Namespace) -> None:
    suite = read_suite(args.suite)
    found = []
    for ahead in suite:
        plies, ending = plies_to_push_off(ahead, args.engine, args.bound)
        found.append(plies)
        print(f"{'-' if plies is None else plies:>4} | lead {ahead.lead} | {ahead.opponent} | {ahead.source} | "
              f"{ending}", flush=True)
    made = [p for p in found if p is not None]
    print(f"{args.engine}: a push-off within {args.bound} plies from {len(made)} of {len(suite)}"
          + (f", the latest at {max(made)}" if made else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("--db", type=Path, nargs="*", default=[])
    ex.add_argument("--rows", type=Path, nargs="*", default=[])
    ex.add_argument("--every", type=int, default=60)
    ex.add_argument("--per-game", type=int, default=3)
    ex.add_argument("--out", type=Path, default=SUITE)
    pl = sub.add_parser("play")
    pl.add_argument("--engine", default=ENGINE)
    pl.add_argument("--bound", type=int, default=80)
    pl.add_argument("--suite", type=Path, default=SUITE)
    args = parser.parse_args()
    extract(args) if args.action == "extract" else play(args)


if __name__ == "__main__":
    main()
