"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.train`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SEED
from sumito.cliargs import MAX_WORKERS_ARG, add_backend_args, count_arg
from sumito.defaults import METHOD_PRESETS
from sumito.procs import MAX_WORKERS

MAX_EVAL_GAMES = 10**6


MAX_ACTORS = 10_000


#: the most training games a run plays, games a single evaluation plays, and Ray actors
MAX_TRAINING_GAMES = 10**9


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train")
    p.add_argument("--preset", choices=sorted(METHOD_PRESETS), default=None, help="a paper's training method")
    p.add_argument("--config", default=None, metavar="FILE", help="a TOML file of options (overrides the preset)")
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override one option (repeatable)"
    )
    p.add_argument("--games", type=count_arg(0, MAX_TRAINING_GAMES), required=True, metavar="N",
                   help=f"train until N games have been played (at most {MAX_TRAINING_GAMES:,})")
    p.add_argument("--out", required=True, metavar="DIR", help="the run's folder (e.g. runs/m2)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its checkpoint, with the settings it was started with: a "
                   "--preset, --config, --set or --seed that changes one is refused, in one line naming it; --games "
                   "may grow, and the evaluation's options may change (each curve row records its own)")
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=None,
                   help="the run's seed (default 0; logged in config.json)")
    p.add_argument("--checkpoint-every", type=count_arg(1, MAX_TRAINING_GAMES), default=100, metavar="K",
                   help="games between checkpoints")
    p.add_argument("--sample", default="", metavar="G1,G2,...", help="keep the network after these game counts")
    p.add_argument("--eval-every", type=count_arg(0, MAX_TRAINING_GAMES), default=None, metavar="K",
                   help="evaluate every K games (0 = never; default: a tenth of --games, at least 100, so that "
                   "`sumito plot` has a curve)")
    p.add_argument("--eval-games", type=count_arg(1, MAX_EVAL_GAMES), default=50, metavar="M",
                   help=f"games per evaluation (at most {MAX_EVAL_GAMES:,})")
    p.add_argument("--eval-opponent", default="heuristic", metavar="SPEC", help="the fixed evaluation opponent")
    p.add_argument(
        "--eval-adjudicate",
        choices=("none", "marbles"),
        default="marbles",
        help="score evaluation games stopped without a winner for the side with more marbles pushed off (marbles, "
        "the lab's win column: docs/reproductions.md) or as draws (none)",
    )
    p.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"processes for evaluation games (at most {MAX_WORKERS}; they die with the run); with "
                   "--backend ray, evaluation games played at once (default: all the Ray cluster's CPUs)")
    add_backend_args(p, "the evaluation games", ". Training runs here, or in --actors Ray actors")
    p.add_argument("--actors", type=count_arg(1, MAX_ACTORS), default=None, metavar="N",
                   help="play the training games in N Ray actors while this process learns from them (on the Ray "
                   "cluster of --address, else a local Ray instance); --actors 1 --publish-every 1 is the "
                   "sequential run exactly (pip install 'sumito[ray]'); may be given with --resume")
    p.add_argument("--publish-every", type=count_arg(1, MAX_TRAINING_GAMES), default=None, metavar="K",
                   help="with --actors: send the actors the learner's weights every K games (default 1); a game is "
                   "then played with weights up to about N + K games old")
    p.add_argument("--quiet", action="store_true",
                   help="no progress on stderr (a bar on a terminal, else a line every few seconds)")
    p.set_defaults(command_handler="cmd_train")
