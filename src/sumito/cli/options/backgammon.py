"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.backgammon`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_GAMES
from sumito.cliargs import MAX_WORKERS_ARG, add_backend_args, count_arg, number_arg
from sumito.defaults import BACKGAMMON_CHUNK_GAMES
from sumito.procs import MAX_WORKERS

MAX_SEED = 2**31 - 1


MAX_TRAINING_GAMES = 10**9


MAX_ACTORS = 10_000


# --------------------------------------------------------------------------- argument parsing
def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Register ``bg`` and its subcommands on the ``sumito`` subparsers."""
    group = sub.add_parser("bg")
    bg = group.add_subparsers(dest="bg_command", required=True, metavar="BG_COMMAND")

    p = bg.add_parser("show", help="draw a position and print its GNU Backgammon position ID")
    p.add_argument("--id", default=None, metavar="POSITION_ID", help="a position ID (default: the starting position)")
    p.set_defaults(command_handler="cmd_show")

    p = bg.add_parser("moves", help="list the legal plays for a roll, one a line, with the position ID after each")
    p.add_argument("--id", default=None, metavar="POSITION_ID", help="a position ID (default: the starting position)")
    p.add_argument("--dice", required=True, help="the roll, e.g. 3-1 or 31")
    p.set_defaults(command_handler="cmd_moves")

    p = bg.add_parser("game", help="play one game between two players, printing every turn")
    p.add_argument("player1", metavar="PLAYER1", help="player spec for X (side 0), e.g. pubeval or random:seed=1")
    p.add_argument("player2", metavar="PLAYER2", help="player spec for O (side 1)")
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None,
                   help="seed for the dice (default: a random one, printed)")
    p.set_defaults(command_handler="cmd_game")

    p = bg.add_parser(
        "match",
        help="play N games between two players (alternating starts) and report the equity",
        description="Play N games (player 1 plays the opening roll in even games, player 2 in odd ones) and "
        "report wins, "
        "gammons and backgammons each way and player 1's equity in points per game with a 95% interval.",
    )
    p.add_argument("player1", metavar="PLAYER1", help="player spec, e.g. pubeval")
    p.add_argument("player2", metavar="PLAYER2", help="player spec")
    p.add_argument("-n", "--games", type=count_arg(1, MAX_GAMES), required=True, metavar="GAMES",
                   help=f"number of games (at most {MAX_GAMES:,})")
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None,
                   help="seed for the match (default: a random one, reported)")
    p.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"worker processes (default 1, at most {MAX_WORKERS}); with --backend ray, chunks of "
                   f"{BACKGAMMON_CHUNK_GAMES} games played at once (default: all the Ray cluster's CPUs)")
    add_backend_args(p, note=f"; the games go in chunks of {BACKGAMMON_CHUNK_GAMES}, with the same results either way")
    p.add_argument("--json", action="store_true", help="print a machine-readable summary instead of the table")
    p.set_defaults(command_handler="cmd_match")

    p = bg.add_parser(
        "train",
        help="train Wiering's modular network by TD(lambda): self-play, against or watching an expert",
        description="Train Wiering's (2010) small modular network (endgame, race and other modules) by offline "
        "minimax TD(lambda) into the run folder OUT, testing it every --test-every games against each "
        "--test-against player (alternating starts) and keeping the best network (best.npz). Ctrl-C finishes "
        "the game in progress, saves a checkpoint and stops; a stopped or killed run continues with --resume, "
        "exactly as if it had not stopped. The defaults are the paper's: his input features, 20/20/40 hidden units, "
        "alpha 0.01, lambda 0.6, seven outputs. A run learns in this process (each game's TD update feeds the "
        "next, and its tests share one random generator); --actors N plays its training games in N Ray actors, "
        "and experiments/wiering_backgammon.py --backend ray trains many runs on Ray.",
    )
    p.add_argument("--out", required=True, help="the run folder (config.json, checkpoint.npz, curve.csv, best.npz)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in OUT where it stopped, with the settings it was started with: a "
                   "setting given again must be the run's own (another is refused, in one line naming it); only -n "
                   "may grow, to train it on to more games")
    p.add_argument("--regime", choices=("self", "expert", "observe"), default=None,
                   help="self-play (default), play the expert, or observe the expert playing itself")
    p.add_argument("--targets", choices=("own", "expert"), default=None,
                   help="bootstrap on the network's own values (default) or on the expert's evaluations")
    p.add_argument("--expert", default=None, help="the expert's player spec (default gnubg:ply=0)")
    p.add_argument("--encoding", choices=("wiering", "tesauro198"), default=None,
                   help="the inputs: Wiering's per-module features (default) or Tesauro's 198 raw inputs")
    p.add_argument("--outputs", type=count_arg(1, 7), choices=(1, 7), default=None,
                   help="the paper's 7 outputs (result and six outcome classes; default) or 1 (expected result)")
    p.add_argument("--hidden", default=None, help="hidden units of the endgame, race, other modules")
    p.add_argument("--alpha", type=number_arg(0, 1, "--alpha", above_low=True), default=None,
                   help="learning rate, above 0 and at most 1 (default 0.01, the paper's)")
    p.add_argument("--lambda", dest="lam", type=number_arg(0, 1, "--lambda"), default=None,
                   help="TD(lambda)'s lambda, 0 to 1 (default 0.6)")
    p.add_argument("--points", action="store_true", default=None,
                   help="a 1-output network learns points (1/2/3), not +-1")
    p.add_argument("-n", "--games", type=count_arg(1, MAX_TRAINING_GAMES), default=None,
                   help="training games (default 5000; with --resume, train the run on to this many)")
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None,
                   help="seed of the weights and the dice (default 1)")
    p.add_argument("--test-every", type=count_arg(1, MAX_TRAINING_GAMES), default=None,
                   help="games between tests (default 1000)")
    p.add_argument("--test-games", type=count_arg(0, MAX_GAMES), default=None,
                   help="games per test and opponent (default 1000)")
    p.add_argument("--test-against", default=None,
                   help="comma-separated player specs to test against (default pubeval); the first one "
                   "decides the best network")
    p.add_argument("--checkpoint-every", type=count_arg(1, MAX_TRAINING_GAMES), default=None, metavar="K",
                   help="training games between checkpoints (default 100; also at every test and on Ctrl-C); "
                   "may be given with --resume")
    p.add_argument("--actors", type=count_arg(1, MAX_ACTORS), default=None, metavar="N",
                   help="play the training games in N Ray actors while this process learns from them (on the Ray "
                   "cluster of --address, else a local Ray instance); --actors 1 --publish-every 1 is the "
                   "sequential run exactly (pip install 'sumito[ray]'); may be given with --resume")
    p.add_argument("--publish-every", type=count_arg(1, MAX_TRAINING_GAMES), default=None, metavar="K",
                   help="with --actors: send the actors the learner's weights every K games (default 1)")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="with --actors: the Ray cluster to run the actors on (default $SUMITO_RAY_ADDRESS, else a "
                   "local Ray instance)")
    p.set_defaults(command_handler="cmd_train")

    p = bg.add_parser("play", help="play against a computer player in the terminal (you are X)")
    p.add_argument("player", metavar="PLAYER", nargs="?", default="pubeval", help="your opponent (default pubeval)")
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None,
                   help="seed for the dice (default: a random one)")
    p.set_defaults(command_handler="cmd_play")
