"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.zero`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SIMS, MAX_ZERO_HIDDEN
from sumito.cliargs import MAX_WORKERS_ARG, add_backend_args, add_position_args, count_arg, number_arg
from sumito.defaults import ZERO_SEARCH_MODES
from sumito.learn.settings import ZeroSettings
from sumito.procs import MAX_WORKERS

#: the players a score measures, as ``zero`` spec options
DEFAULT_SCORE_PLAYERS = ("play=policy", "play=value", "sims=16", "sims=64", "sims=256")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("zero")
    zsub = p.add_subparsers(dest="zero_command", required=True, metavar="STEP")
    d = ZeroSettings()
    t = zsub.add_parser("train", help="train (or with --resume go on training) a run to --games self-play games")
    t.add_argument("--out", required=True, metavar="DIR", help="the run's folder")
    t.add_argument("--games", type=count_arg(1, 10**9), required=True, metavar="N",
                   help="train until N self-play games in all")
    t.add_argument("--cpu-hours", type=number_arg(0, 10**6, "--cpu-hours", above_low=True), default=None,
                   metavar="H", help="stop at the first checkpoint past H CPU-hours of self-play and training in "
                   "all (a budget fixed before the run), even before --games")
    t.add_argument("--resume", action="store_true",
                   help="go on with the run in --out, with its own settings (a setting given that differs is refused)")
    t.add_argument("--layout", default=None, help=f"the starting layout and board (default {d.layout})")
    t.add_argument("--inline-only", action="store_true", default=None, help="the game with inline moves only")
    t.add_argument("--h1", type=count_arg(1, MAX_ZERO_HIDDEN), default=None,
                   help=f"first hidden layer (default {d.h1})")
    t.add_argument("--h2", type=count_arg(1, MAX_ZERO_HIDDEN), default=None,
                   help=f"second hidden layer (default {d.h2})")
    t.add_argument("--mode", choices=ZERO_SEARCH_MODES, default=None, help=f"the root search (default {d.mode})")
    t.add_argument("--sims", type=count_arg(1, MAX_SIMS), default=None,
                   help=f"simulations a self-play move (default {d.sims})")
    t.add_argument("--considered", type=count_arg(1, 512), default=None,
                   help=f"actions a Gumbel root considers (default {d.considered})")
    t.add_argument("--sample-plies", type=count_arg(0, 10**4), default=None,
                   help=f"PUCT: plies whose move is drawn from the visits (default {d.sample_plies})")
    t.add_argument("--games-per-iteration", dest="iteration_games", type=count_arg(1, 10**6), default=None,
                   metavar="G", help=f"self-play games an iteration (default {d.games})")
    t.add_argument("--chunk", type=count_arg(1, 10**5), default=None, help=f"games a work item (default {d.chunk})")
    t.add_argument("--steps", type=count_arg(0, 10**6), default=None,
                   help=f"Adam steps an iteration (default {d.steps})")
    t.add_argument("--batch", type=count_arg(1, 10**5), default=None, help=f"positions a step (default {d.batch})")
    t.add_argument("--lr", type=number_arg(0, 1, "--lr", above_low=True), default=None,
                   help=f"Adam's step size (default {d.lr:g})")
    t.add_argument("--weight-decay", type=number_arg(0, 1, "--weight-decay"), default=None,
                   help=f"decoupled weight decay (default {d.weight_decay:g})")
    t.add_argument("--value-mix", type=number_arg(0, 1, "--value-mix"), default=None, metavar="W",
                   help="the value target: (1 - W) x the game's result + W x the search's root value (default "
                   f"{d.value_mix:g})")
    t.add_argument("--discount", type=number_arg(0, 1, "--discount", above_low=True), default=None,
                   help="a result n plies away counts this to the power n, in the value targets and the search: "
                   f"below 1 the learner prefers the quicker win and the slower loss (default {d.discount:g}: "
                   "AlphaZero's undiscounted value)")
    t.add_argument("--lr-drop-at", type=count_arg(0, 10**9), default=None, metavar="G",
                   help=f"from G games on, the step size is --lr x --lr-drop (default {d.lr_drop_at:,}; 0: never)")
    t.add_argument("--lr-drop", type=number_arg(0, 1, "--lr-drop", above_low=True), default=None,
                   help=f"the factor of --lr-drop-at (default {d.lr_drop:g})")
    t.add_argument("--window", type=count_arg(1, 10**8), default=None,
                   help=f"positions in the replay window (default {d.window:,})")
    t.add_argument("--random-starts", type=number_arg(0, 1, "--random-starts"), default=None,
                   help=f"the share of games from a uniformly drawn position (default {d.random_starts:g})")
    t.add_argument("--max-plies", type=count_arg(1, 10**4), default=None,
                   help=f"a self-play game still going after N plies is a draw (default {d.max_plies})")
    t.add_argument("--seed", type=count_arg(0, 2**31), default=None, help=f"the run's seed (default {d.seed})")
    t.add_argument("--score-every", type=count_arg(0, 10**9), default=0, metavar="G",
                   help="measure against perfect play every G games (solved boards only; 0: never)")
    t.add_argument("--score-positions", type=count_arg(2, 100_000), default=1000, metavar="N",
                   help="the suite's size (default 1000, sumito solve score's)")
    t.add_argument("--score-players", default=";".join(DEFAULT_SCORE_PLAYERS), metavar="LIST",
                   help="what is measured, zero spec options separated by ';' (default: the raw policy, the value "
                   "one ply on, and search with 16, 64 and 256 simulations)")
    t.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"processes for the self-play games (at most {MAX_WORKERS})")
    add_backend_args(t)
    t.set_defaults(command_handler="cmd_train")

    r = zsub.add_parser("report", help="a run's curve: losses and scores against perfect play")
    r.add_argument("run", metavar="DIR")
    r.set_defaults(command_handler="cmd_report")

    a = zsub.add_parser("analyse", help="a network's policy, value and search of every move of a position")
    a.add_argument("--net", default="builtin", help="the network (default: the shipped mini-board one)")
    a.add_argument("--sims", type=count_arg(1, MAX_SIMS), default=256, help="the search's simulations (default 256)")
    a.add_argument("--mode", choices=ZERO_SEARCH_MODES, default=None,
                   help="the root search (default: as the network was trained)")
    add_position_args(a, moves=False)
    a.set_defaults(command_handler="cmd_analyse")
