"""``sumito engine``: the engine text protocol on stdin and stdout."""

from __future__ import annotations

import argparse

from sumito.protocol import (
    EOF_GRACE_SECONDS,
    run_engine,
)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``engine`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("engine")
    p.add_argument(
        "--player", default=None, metavar="SPEC", help="the player to start with (default engine, else random)"
    )
    # a GUI that went away leaves no search running: the end of stdin stops it after EOF_GRACE_SECONDS
    p.set_defaults(func=lambda args: run_engine(args.player, eof_grace=EOF_GRACE_SECONDS))
