"""The opening suites of strength tests: balanced positions a few plies into a board's starts.

    python -m sumito.arena.openings --count 200 --seed 2026 --out src/sumito/data/openings.txt
    python -m sumito.arena.openings --layout mini --count 200 --seed 2026 --out src/sumito/data/openings-side3.txt

Each candidate is a start (the layouts given in turn; Standard and Belgian Daisy by default) followed
by 2 to 4 uniformly random legal plies that push nothing off; it is kept when the engine's search
(``engine:depth=4``) scores it within ``--balance`` marbles of equal for the side to move, and when it
is not already in the suite (a position and its mirror image are one). The suite is a file of position
strings, one a line (``#`` comments allowed); ``sumito sprt`` plays its openings in order, one pair of
games each, from the first again when they run out. The package ships one suite for each board it has
one for (:func:`default_suite_path`): the standard board's, and the mini board's (side 3), which the
self-taught loop plays on that board.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import numpy as np

from sumito.analysis import analyse_position
from sumito.arena.errors import ArenaError
from sumito.bounds import MAX_PLAYER_DEPTH, MAX_SEED
from sumito.cliargs import count_arg, number_arg
from sumito.errors import SumitoError
from sumito.fileio import atomic_write_text, read_file_bounded, shown_path
from sumito.games.abalone import Move, Position
from sumito.games.abalone.variants import get_layout, layout_names

LAYOUTS = ("standard", "belgian-daisy")
DEFAULT_BALANCE = 0.25  # marbles
MAX_SUITE_BYTES = 4 * 1024 * 1024
MAX_SUITE_POSITIONS = 100_000


def default_suite_path(side: int = 5) -> Path:
    """The shipped suite of the board with ``side`` cells a side (a one-line error for a board without one)."""
    path = Path(str(files("sumito") / "data" / ("openings.txt" if side == 5 else f"openings-side{side}.txt")))
    if not path.is_file():
        raise ArenaError(f"no opening suite is shipped for the board of side {side}; make one with "
                         f"python -m sumito.arena.openings --layout NAME --out FILE")
    return path


def load_openings(path: str | Path | None = None) -> list[str]:
    """The suite's position strings (the shipped suite by default); a one-line error for a bad file (read
    bounded: a regular file of at most 4 MB, so a FIFO or ``/dev/zero`` is refused at once)."""
    path = Path(path) if path is not None else default_suite_path()
    shown = shown_path(path)
    try:
        is_file = path.is_file()
    except OSError as exc:  # a name too long, a folder we may not look into
        raise ArenaError(f"opening suite {shown}: {exc.strerror or exc}") from None
    if not is_file:
        raise ArenaError(f"opening suite {shown}: not a file")
    try:
        data = read_file_bounded(path, MAX_SUITE_BYTES, "opening suite")
    except ValueError as exc:
        raise ArenaError(f"opening suite {exc}") from None
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise ArenaError(f"opening suite {shown}: not UTF-8 text") from None
    suite = []
    for number, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            Position.from_string(text)
        except SumitoError as exc:
            raise ArenaError(f"opening suite {shown}, line {number}: {exc}") from None
        suite.append(text)
        if len(suite) > MAX_SUITE_POSITIONS:
            raise ArenaError(f"opening suite {shown}: more than {MAX_SUITE_POSITIONS} positions")
    if not suite:
        raise ArenaError(f"opening suite {shown}: no positions")
    return suite


def _mirror_key(position: Position) -> str:
    """The same for a position and its point reflection with colours swapped (the same opening for a pair)."""
    rows = position.to_string().split()[0].split("/")
    flipped = "/".join(row[::-1].translate(str.maketrans("bw", "wb")) for row in reversed(rows))
    return min(position.to_string().split()[0], flipped)


def random_quiet_moves(position: Position, plies: int, rng: np.random.Generator) -> list[Move]:
    """``plies`` uniformly random legal moves from ``position`` on, none pushing a marble off (fewer when
    a position has no such move): the openings of the suite, and of ``sumito nnue gen``'s games."""
    moves: list[Move] = []
    for _ in range(plies):
        quiet = [m for m in position.legal_moves() if not m.is_push_off]
        if not quiet:
            break
        moves.append(quiet[int(rng.integers(len(quiet)))])
        position = position.play(moves[-1])
    return moves


def make_openings(count: int, seed: int, balance: float = DEFAULT_BALANCE, depth: int = 4,
                  layouts: Sequence[str] = LAYOUTS) -> list[str]:
    """``count`` balanced openings from ``layouts`` in turn (see the module's docstring), the same for the same
    arguments."""
    rng = np.random.default_rng(seed)
    suite: list[str] = []
    seen: set[str] = set()
    tries = 0
    while len(suite) < count:
        tries += 1
        if tries > 200 * count:
            raise ArenaError(f"found only {len(suite)} openings within {balance} marbles in {tries - 1} tries")
        position = Position.start(layouts[tries % len(layouts)])
        for move in random_quiet_moves(position, int(rng.integers(2, 5)), rng):
            position = position.play(move)
        key = _mirror_key(position)
        if key in seen:
            continue
        seen.add(key)
        # prune=0: the search the shipped suite was scored with, so that the command reproduces it
        analysis = analyse_position(position, depth=depth, engine=f"engine:depth={depth},prune=0,nnue=none")
        if analysis.lines and abs(analysis.lines[0].score.marbles) <= balance:
            suite.append(position.to_string())
    return suite


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=count_arg(1, MAX_SUITE_POSITIONS), default=200,
                        help=f"openings in the suite (default 200; at most {MAX_SUITE_POSITIONS})")
    parser.add_argument("--seed", type=count_arg(0, MAX_SEED), default=2026)
    parser.add_argument("--balance", type=number_arg(0, 14, "--balance"), default=DEFAULT_BALANCE,
                        help="marbles from equal (default 0.25; 0 to 14)")
    parser.add_argument("--layout", action="append", choices=layout_names(), metavar="NAME",
                        help="a start to open from, again for more (default: standard and belgian-daisy; "
                             "all of one board size)")
    parser.add_argument("--depth", type=count_arg(1, MAX_PLAYER_DEPTH), default=4,
                        help=f"the engine's depth for the balance check (default 4; at most {MAX_PLAYER_DEPTH})")
    # no default: writing over the shipped suite by accident is too easy (give its path to remake it)
    parser.add_argument("--out", required=True, help=f"the file to write (the shipped suite: {default_suite_path()})")
    args = parser.parse_args(argv)
    layouts = tuple(args.layout or LAYOUTS)
    if len({get_layout(name).variant.side for name in layouts}) > 1:
        parser.error("--layout: the layouts of one suite must be of one board size")
    suite = make_openings(args.count, args.seed, args.balance, args.depth, layouts)
    named = "".join(f" --layout {name}" for name in args.layout or ())
    header = (f"# sumito opening suite: {len(suite)} positions 2-4 random plies into {' and '.join(layouts)}, "
              f"within {args.balance} marbles of equal at engine depth {args.depth}\n"
              f"# made by: python -m sumito.arena.openings{named} --count {args.count} --seed {args.seed} "
              f"--balance {args.balance} --depth {args.depth}\n")
    atomic_write_text(args.out, header + "\n".join(suite) + "\n")
    print(f"{len(suite)} openings written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
