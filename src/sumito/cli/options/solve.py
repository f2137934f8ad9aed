"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.solve`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SUITE
from sumito.cliargs import count_arg, output_file, seconds_arg
from sumito.defaults import NO_MOVES_RULES, SOLVE_CHECKPOINT_EVERY, YARDSTICK_SEED, YARDSTICK_SUITE
from sumito.games.abalone.variants import MINI


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "solve",
        description="Solve every position of a small Abalone variant by retrograde analysis (the table is kept in "
        "$SUMITO_SOLVED_DIR, else ~/.cache/sumito/solved) and print what the board is; `solve score PLAYER...` "
        "scores players against perfect play.",
    )
    p.add_argument("--side", type=count_arg(2, 3), default=MINI.side, help="board side (default 3, the mini board)")
    p.add_argument("--marbles", type=count_arg(1, 9), default=MINI.marbles, help="marbles a side (default 5)")
    p.add_argument("--win", type=count_arg(1, 9), default=MINI.win_threshold,
                   help="marbles to push off to win (default 2)")
    p.add_argument("--inline-only", action="store_true", help="the reduced game with inline moves only")
    p.add_argument("--no-moves", choices=NO_MOVES_RULES, default="draw",
                   help="a side with no legal move draws (the arena's default) or loses")
    p.add_argument("--json", action="store_true", help="print the summary (or the scores) as JSON")
    p.add_argument("--verify", action="store_true", help="recompute every position from its successors")
    p.add_argument("--force", action="store_true", help="solve again even when the table is cached")
    p.add_argument("--checkpoint-every", type=seconds_arg(24 * 3600.0), default=SOLVE_CHECKPOINT_EVERY,
                   metavar="S", help="seconds of solving between two checkpoints (default "
                   f"{SOLVE_CHECKPOINT_EVERY:g}; 0: after every level). A stopped solve (Ctrl-C, a kill) goes on from "
                   "its last checkpoint when the same command runs again")
    p.add_argument("--out", type=output_file, default=None, metavar="FILE", help="also write the table to FILE")
    p.set_defaults(command_handler="cmd_solve", solve_command=None)
    subs = p.add_subparsers(dest="solve_command", metavar="score")
    s = subs.add_parser("score", help="score players against perfect play on a suite of positions")
    s.add_argument("players", nargs="*", metavar="PLAYER", help="player specs")
    s.add_argument("--positions", type=count_arg(2, MAX_SUITE), default=YARDSTICK_SUITE,
                   help=f"positions in the suite (default {YARDSTICK_SUITE})")
    s.add_argument("--seed", type=count_arg(0, 2**31), default=YARDSTICK_SEED,
                   help=f"the suite's and the players' seed (default {YARDSTICK_SEED})")
    s.add_argument("--json", action="store_true", help="print the scores as JSON")
