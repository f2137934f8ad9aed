"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.rules`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.cliargs import add_position_args, add_rules_args, count_arg, output_file
from sumito.defaults import STRONGEST_ENGINE
from sumito.games.abalone.draws import GAME_RULES

#: `sumito game` without players: the strongest engine against itself, at a tenth of a second a move
GAME_DEFAULT = f"{STRONGEST_ENGINE},time=0.1"


#: the deepest perft (depth 6 from the start already counts 267 million leaves)
MAX_PERFT_DEPTH = 20


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Declare ``perft``, ``moves``, ``show``, ``layouts``, ``game``, ``players`` and ``replay``."""
    p = sub.add_parser("perft")
    add_position_args(p)
    p.add_argument("--depth", type=count_arg(0, MAX_PERFT_DEPTH), required=True,
                   help=f"plies to look ahead (0 to {MAX_PERFT_DEPTH}; Ctrl-C stops a long count)")
    p.add_argument("--divide", action="store_true", help="also print the count below each legal move")
    p.set_defaults(command_handler="cmd_perft")

    p = sub.add_parser("moves")
    add_position_args(p)
    p.add_argument("--successors", action="store_true", help="print the position string after each move too")
    p.set_defaults(command_handler="cmd_moves")

    p = sub.add_parser("show")
    add_position_args(p)
    p.set_defaults(command_handler="cmd_show")

    p = sub.add_parser("layouts")
    p.set_defaults(command_handler="cmd_layouts")

    p = sub.add_parser("game")
    add_position_args(p)
    p.add_argument("--black", default=GAME_DEFAULT, help=f"player spec for Black (default {GAME_DEFAULT})")
    p.add_argument("--white", default=GAME_DEFAULT, help=f"player spec for White (default {GAME_DEFAULT})")
    add_rules_args(p, GAME_RULES)
    p.add_argument("--out", type=output_file, default=None, metavar="FILE", help="also write the record to FILE")
    p.add_argument("--quiet", action="store_true", help="print only the record")
    p.set_defaults(command_handler="cmd_game")

    p = sub.add_parser("players")
    p.add_argument("--game", choices=("abalone", "backgammon", "both"), default="both")
    p.set_defaults(command_handler="cmd_players")

    p = sub.add_parser("replay")
    p.add_argument("file", nargs="?", default=None, help="a record file (or give --id)")
    p.add_argument(
        "--id", type=count_arg(1, 2**62), default=None, metavar="N", help="a game stored in the game database instead"
    )
    p.add_argument("--db", default=None, metavar="PATH", help="the game database for --id (default: the user's)")
    p.add_argument("--game", type=count_arg(1, 10**6), default=1, help="which game in the file (default 1)")
    p.add_argument(
        "--ply", type=count_arg(0, 10**6), default=None, help="the position after this many plies (default: the end)"
    )
    p.set_defaults(command_handler="cmd_replay")
