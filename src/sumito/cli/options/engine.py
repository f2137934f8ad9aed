"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.engine`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``engine`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("engine")
    p.add_argument(
        "--player", default=None, metavar="SPEC", help="the player to start with (default engine, else random)"
    )
    p.set_defaults(command_handler="cmd_engine")
