"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.analyse`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.cliargs import add_position_args, count_arg, seconds_arg
from sumito.defaults import ANALYSE_GAME_DEPTH, ANALYSE_SECONDS, THRESHOLDS


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``analyse`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser(
        "analyse",
        description="Analyse a position (--layout/--position/--moves: the best --top moves with scores and "
        "lines) or a game record (RECORD: each move against the engine's best, with the loss and a verdict: "
        f"{', '.join(f'{name} from {least:g} marble' for name, least in reversed(THRESHOLDS))}, as the loss "
        f"is shown; a move into a forced loss, or one that lets a forced win go, is a {THRESHOLDS[0][0]}).",
    )
    p.add_argument("record", nargs="?", default=None, metavar="RECORD", help="a game record file to analyse")
    p.add_argument("--game", type=count_arg(1, 10**6), default=1, metavar="K", help="which game in RECORD (default 1)")
    add_position_args(p)
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--time", type=seconds_arg(24 * 3600.0), default=None, metavar="S",
                       help="seconds of search for a position, or for each move of a RECORD "
                       f"(default {ANALYSE_SECONDS:g} for a position)")
    limit.add_argument("--depth", type=count_arg(1, 64), default=None, metavar="N",
                       help=f"search depth in plies (default {ANALYSE_GAME_DEPTH} for each move of a game)")
    p.add_argument("--top", type=count_arg(1, 256), default=1, metavar="N", help="show the best N moves (MultiPV)")
    p.add_argument("--engine", default="engine", metavar="SPEC",
                   help="the engine spec (its eval, weights, net, hash, contempt apply; default engine)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.set_defaults(command_handler="cmd_analyse")
