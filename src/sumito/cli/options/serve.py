"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.serve`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_CLIENT_CAP, MAX_HASH_MB, MAX_SEARCH_DEPTH, MAX_SEARCH_SECONDS
from sumito.cliargs import MAX_WORKERS_ARG, count_arg, number_arg
from sumito.defaults import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_GAMES,
    DEFAULT_MAX_HASH_MB,
    DEFAULT_MAX_HUMAN_GAMES,
    DEFAULT_MAX_QUEUED,
    DEFAULT_MAX_TIME,
    WORKER_PLAYERS_MB,
)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument(
        "--port", type=count_arg(0, 65535), default=8000, help="port to listen on (default 8000; 0 picks a free one)"
    )
    p.add_argument(
        "--db", default=None, metavar="PATH", help="games in progress (default $XDG_DATA_HOME/sumito/web.sqlite)"
    )
    p.add_argument(
        "--archive", default=None, metavar="PATH", help="the game archive of `sumito games` (default: the usual one)"
    )
    p.add_argument(
        "--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
        help="processes that choose computer moves (default: the cores, at most 4)",
    )
    p.add_argument(
        "--models",
        default=None,
        metavar="DIR",
        help="a folder of networks and weights files that players' net=/weights= may name (default: none; "
        "only the shipped networks builtin and builtin-tdleaf)",
    )
    p.add_argument(
        "--max-depth", type=count_arg(1, MAX_SEARCH_DEPTH), default=DEFAULT_MAX_DEPTH, metavar="N",
        help=f"the deepest search a client may ask for, in plies (default {DEFAULT_MAX_DEPTH})",
    )
    p.add_argument(
        "--max-time", type=number_arg(0, MAX_SEARCH_SECONDS, "seconds", above_low=True), default=DEFAULT_MAX_TIME,
        metavar="S",
        help=f"the most seconds a computer move may take (default {DEFAULT_MAX_TIME:g}); every move has this deadline",
    )
    p.add_argument(
        "--max-hash", type=count_arg(1, MAX_HASH_MB), default=DEFAULT_MAX_HASH_MB, metavar="MB",
        help=f"the biggest engine hash table a client may ask for (default {DEFAULT_MAX_HASH_MB} MB); each worker "
        f"keeps its players' tables within {WORKER_PLAYERS_MB} MB, or one player alone past that",
    )
    p.add_argument(
        "--max-games", type=count_arg(1, MAX_CLIENT_CAP), default=DEFAULT_MAX_GAMES, metavar="N",
        help=f"games with a computer playing (one to move, or two computers) that one address may have at once, "
        f"whatever owner tokens it uses (default {DEFAULT_MAX_GAMES}); past it, 429",
    )
    p.add_argument(
        "--max-queued", type=count_arg(1, MAX_CLIENT_CAP), default=DEFAULT_MAX_QUEUED, metavar="N",
        help=f"searches (moves, hints, analyses) that one address may have queued or running at once "
        f"(default {DEFAULT_MAX_QUEUED}); past it, 429",
    )
    p.add_argument(
        "--max-human-games", type=count_arg(1, MAX_CLIENT_CAP), default=DEFAULT_MAX_HUMAN_GAMES, metavar="N",
        help=f"games between two people in progress that one address may have (default {DEFAULT_MAX_HUMAN_GAMES}); "
        "past it, 429",
    )
    p.add_argument(
        "--trusted-proxy",
        default="",
        metavar="ADDRESSES",
        help="comma-separated addresses of reverse proxies whose X-Forwarded-For header names the client's "
        "address (default: none; every client is its connecting address)",
    )
    p.add_argument(
        "--allowed-hosts",
        default="",
        metavar="NAMES",
        help="comma-separated host names the browser may use for this server besides localhost, 127.0.0.1, "
        "[::1] and --host ('*': any; needed behind another name, e.g. with --host 0.0.0.0)",
    )
    p.set_defaults(command_handler="cmd_serve")
