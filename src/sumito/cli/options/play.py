"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.play`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SEARCH_SECONDS
from sumito.cliargs import add_position_args, add_rules_args, output_file, seconds_arg
from sumito.defaults import DEFAULT_DB_TEXT, STRONGEST_ENGINE
from sumito.games.abalone.draws import GAME_RULES


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``play`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("play")
    add_position_args(p)
    p.add_argument("--black", default=None, metavar="SPEC", help="player spec for Black (default human)")
    p.add_argument("--white", default=None, metavar="SPEC",
                   help=f"player spec for White (default {STRONGEST_ENGINE}, the strongest engine, 1 s a move)")
    p.add_argument("--opponent", default=None, metavar="SPEC",
                   help=f"you (human) against this player (default {STRONGEST_ENGINE})")
    p.add_argument(
        "--color", choices=("black", "white"), default=None, help="the colour you play with --opponent (default black)"
    )
    p.add_argument(
        "--movetime",
        type=seconds_arg(MAX_SEARCH_SECONDS),
        default=None,
        metavar="SECONDS",
        help="time per move for the computer players",
    )
    add_rules_args(p, GAME_RULES)
    p.add_argument("--out", type=output_file, default=None, metavar="FILE", help="write the game record to FILE")
    db = p.add_mutually_exclusive_group()
    db.add_argument("--db", default=None, metavar="PATH", help=f"the game archive (default {DEFAULT_DB_TEXT})")
    db.add_argument("--no-db", action="store_true", help="do not store the game in the archive")
    p.set_defaults(command_handler="cmd_play")
