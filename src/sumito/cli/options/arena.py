"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.arena`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_GAMES, MAX_PRIOR_DRAWS, MAX_SEED
from sumito.cliargs import (
    MAX_MOVETIME,
    MAX_WORKERS_ARG,
    add_backend_args,
    add_position_args,
    add_rules_args,
    count_arg,
    number_arg,
    output_file,
    seconds_arg,
    time_control,
)
from sumito.defaults import DEFAULT_DB_TEXT, DEFAULT_OPENING_PLIES
from sumito.games.abalone.draws import DEFAULT_RULES
from sumito.procs import MAX_WORKERS

#: the largest game or run id an option names (ids are SQLite integers)
MAX_GAME_ID = 2**62


#: the most random plies opening a pair of games
MAX_OPENING_PLIES = 1_000


# --------------------------------------------------------------------------- argument parsing
def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``match``, ``tournament`` and ``games`` on the ``sumito`` subparsers."""
    p = sub.add_parser(
        "match",
        description="Play N games between players A and B (colours alternating, each pair of games from the "
        "same random opening) and report A's score with a 95% interval, the Elo difference, how the games "
        "ended, marbles, game length and time per move. Every game is stored in the game database.",
    )
    p.add_argument("a", metavar="A", help="player spec, e.g. random:seed=3")
    p.add_argument("b", metavar="B", help="player spec")
    _add_run_args(p, "games")
    p.set_defaults(command_handler="cmd_match")

    p = sub.add_parser(
        "tournament",
        description="Every pair of players plays N games (colours alternating). Prints the standings with "
        "maximum-likelihood Elo ratings (Bradley-Terry, draws count half) and 95% error bars, and the cross table.",
    )
    p.add_argument("players", nargs="+", metavar="PLAYER", help="player specs (at least two)")
    _add_run_args(p, "games per pair")
    p.add_argument(
        "--anchor", choices=("mean", "first"), default="mean", help="rating 0: the players' mean (default) or the first"
    )
    p.add_argument(
        "--prior-draws", type=number_arg(0, MAX_PRIOR_DRAWS, "--prior-draws"), default=0.0, metavar="K",
        help="add K virtual draws to every pair before rating (a prior, as BayesElo's: every rating finite, pulled "
        "towards its opponents'); default 0, maximum likelihood",
    )
    p.set_defaults(command_handler="cmd_tournament")

    p = sub.add_parser(
        "games",
        description="List the games stored in the game database (newest first), or export them as game records; "
        "`sumito games runs` lists the matches and tournaments and how each ended (a run whose process was "
        "killed shows as interrupted).",
    )
    p.add_argument(
        "action", nargs="?", choices=("list", "export", "runs"), default="list", help="list (default), export or runs"
    )
    p.add_argument("--db", default=None, metavar="PATH", help=f"the game database (default {DEFAULT_DB_TEXT})")
    p.add_argument("--id", type=count_arg(1, MAX_GAME_ID), nargs="+", default=None, metavar="N",
                   help="only these game ids")
    p.add_argument("--player", default=None, metavar="SUBSTR", help="games with a player spec containing SUBSTR")
    p.add_argument("--layout", default=None, metavar="L", help="games from the layout L")
    p.add_argument("--result", choices=("1-0", "0-1", "1/2-1/2"), default=None, help="games with this result")
    p.add_argument("--run", type=count_arg(1, MAX_GAME_ID), default=None, metavar="ID",
                   help="games of this match or tournament")
    p.add_argument("--limit", type=count_arg(0, MAX_GAME_ID), default=None, metavar="N",
                   help="at most N games, the newest (list default 50; 0 = all)")
    p.add_argument("--out", type=output_file, default=None, metavar="FILE", help="export: the record file to write")
    p.set_defaults(command_handler="cmd_games")


def _add_run_args(p: argparse.ArgumentParser, n_what: str) -> None:
    p.add_argument("-n", "--games", type=count_arg(1, MAX_GAMES), default=10, metavar="N",
                   help=f"{n_what} (default 10; at most {MAX_GAMES:,} games in all)")
    add_position_args(p, moves=False)
    add_rules_args(p, DEFAULT_RULES)
    p.add_argument("--movetime", type=seconds_arg(MAX_MOVETIME), default=None, metavar="S",
                   help=f"seconds per move given to the players (above 0, at most {MAX_MOVETIME:g})")
    p.add_argument("--tc", type=time_control, default=None, metavar="BASE+INC",
                   help="a clock for each side: BASE seconds a game plus INC a move, e.g. 60+1; a player whose "
                   "clock runs out loses on time")
    p.add_argument(
        "--opening-plies",
        type=count_arg(0, MAX_OPENING_PLIES),
        default=DEFAULT_OPENING_PLIES,
        metavar="K",
        help=f"random legal plies opening each pair of games (0 = from the start, at most {MAX_OPENING_PLIES}; "
        f"default {DEFAULT_OPENING_PLIES})",
    )
    p.add_argument(
        "--adjudicate",
        choices=("none", "marbles"),
        default="none",
        help="score games that end without a winner (repetition, ply cap): as draws (none, the default), or for "
        "the player who pushed off more marbles (marbles; the games are stored as the draws they are)",
    )
    p.add_argument(
        "--workers",
        type=count_arg(1, MAX_WORKERS_ARG),
        default=None,
        metavar="K",
        help=f"worker processes (default: all cores; at most {MAX_WORKERS}); with --backend ray, games played at "
        f"once (default: all the Ray cluster's CPUs; at most {MAX_WORKERS_ARG:,})",
    )
    add_backend_args(p)
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None, metavar="S",
                   help="master seed (default: a random one, printed)")
    db = p.add_mutually_exclusive_group()
    db.add_argument("--db", default=None, metavar="PATH", help=f"the game database (default {DEFAULT_DB_TEXT})")
    db.add_argument("--no-db", action="store_true", help="do not store the games")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (a bar on a terminal, else a line every few seconds)")
