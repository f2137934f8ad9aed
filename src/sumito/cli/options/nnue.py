"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.nnue`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse
from dataclasses import asdict

from sumito.bounds import MAX_NNUE_HIDDEN
from sumito.cliargs import MAX_WORKERS_ARG, add_backend_args, count_arg, number_arg
from sumito.defaults import NNUE_DATA_PLAYER, NNUE_TARGETS
from sumito.learn.settings import LoopSettings
from sumito.procs import MAX_WORKERS


def gate_games_arg(text: str) -> int:
    """--gate-games: 0 (no gate) or a gate of 2 games or more (a pair of games is its smallest unit)."""
    value = count_arg(0, 10**6)(text)
    if value == 1:
        raise argparse.ArgumentTypeError("a gate plays pairs of games: 0 (no gate) or at least 2")
    return value


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("nnue")
    nsub = p.add_subparsers(dest="nnue_command", required=True, metavar="STEP")

    g = nsub.add_parser("gen", help="play self-play games and keep each position with its search score and result")
    g.add_argument("--out", required=True, metavar="DIR",
                   help="the data folder (config.json and chunk-NNNNN.npz files): the same command again plays only "
                   "the chunks it lacks; another --games, --chunk, --player, --seed, --random-plies, --max-plies or "
                   "--openings there is refused")
    g.add_argument("--games", type=count_arg(1, 10**7), required=True, metavar="N", help="games in all")
    g.add_argument("--player", default=NNUE_DATA_PLAYER, metavar="SPEC",
                   help=f"the searching player whose scores are the targets (default {NNUE_DATA_PLAYER}: "
                   "the search the shipped data came from)")
    g.add_argument("--seed", type=count_arg(0, 2**31), default=1,
                   help="the random plies after each opening (default 1)")
    g.add_argument("--chunk", type=count_arg(1, 10**4), default=10, metavar="K",
                   help="games a work item and file (default 10)")
    g.add_argument("--random-plies", type=count_arg(0, 40), default=6, metavar="R",
                   help="up to R uniformly random quiet plies after each opening (default 6)")
    g.add_argument("--max-plies", type=count_arg(1, 10**4), default=300, metavar="N",
                   help="a game still going after N plies ends as a draw (default 300)")
    g.add_argument("--openings", default=None, metavar="FILE", help="an opening suite (default: the shipped one)")
    g.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"processes (at most {MAX_WORKERS}; with --backend ray, work items at once)")
    add_backend_args(g)
    g.set_defaults(command_handler="cmd_gen")

    t = nsub.add_parser("train", help="fit an NNUE to data folders from `sumito nnue gen`")
    t.add_argument("data", nargs="+", metavar="DIR", help="data folders")
    t.add_argument("--out", required=True, metavar="FILE", help="the network file to write (.npz)")
    t.add_argument("--hidden", type=count_arg(1, MAX_NNUE_HIDDEN), default=32, metavar="H",
                   help="accumulator size a side (default 32)")
    t.add_argument("--hidden2", type=count_arg(0, MAX_NNUE_HIDDEN), default=16, metavar="H2",
                   help="the second layer's size (0: none; default 16)")
    t.add_argument("--epochs", type=count_arg(1, 10**4), default=20, help="passes over the data (default 20)")
    t.add_argument("--lam", type=number_arg(0, 1, "--lam"), default=0.5, metavar="L",
                   help="--targets mix: the weight of the search score against the game's result in the target; "
                   "tdleaf: TD(lambda)'s lambda (default 0.5)")
    t.add_argument("--targets", choices=NNUE_TARGETS, default="mix",
                   help="mix: lambda x the search's score + (1 - lambda) x the result (default); tdleaf: "
                   "TD-Leaf(lambda)'s lambda-returns of the following searches' values")
    t.add_argument("--lr", type=number_arg(0, 1, "--lr", above_low=True), default=1e-3,
                   help="Adam's step size (default 1e-3)")
    t.add_argument("--batch", type=count_arg(1, 10**6), default=1024, help="positions a minibatch (default 1024)")
    t.add_argument("--seed", type=count_arg(0, 2**31), default=1,
                   help="the held-out games, the initial weights, the minibatches' order and symmetries (default 1)")
    t.add_argument("--all-positions", action="store_true",
                   help="train on positions with a push-off pending too (default: quiet ones only)")
    t.add_argument("--no-base", action="store_true",
                   help="a network alone, not a correction of the hand-set linear evaluation (the default)")
    t.add_argument("--decay", type=number_arg(0, 1, "--decay"), default=1e-3, metavar="D",
                   help="weight decay of the output weights and the PSQT (default 1e-3)")
    t.set_defaults(command_handler="cmd_train")

    d = LoopSettings()
    s = nsub.add_parser("selfplay", help="the self-taught line: generations of self-play, training and an SPRT gate, "
                        "from the rules and the marble count alone (resumable)")
    s.add_argument("--out", required=True, metavar="DIR", help="the run's folder (state.json, net-NNN.npz, attempts)")
    s.add_argument("--generations", type=count_arg(1, 10**4), required=True, metavar="G",
                   help="stop once generation G is accepted")
    s.add_argument("--max-attempts", type=count_arg(1, 10**5), default=1000, metavar="N",
                   help="stop after N attempts in all (accepted or not)")
    s.add_argument("--games", type=count_arg(2, 10**6), default=None, help="self-play games an attempt")
    s.add_argument("--depth", type=count_arg(1, 12), default=None, help="the search's depth in self-play and gates")
    s.add_argument("--window", type=count_arg(1, 1000), default=None,
                   help="attempts whose data a candidate trains on")
    s.add_argument("--hidden", type=count_arg(1, MAX_NNUE_HIDDEN), default=None, metavar="H")
    s.add_argument("--hidden2", type=count_arg(0, MAX_NNUE_HIDDEN), default=None, metavar="H2")
    s.add_argument("--epochs", type=count_arg(1, 10**4), default=None)
    s.add_argument("--lam", type=number_arg(0, 1, "--lam"), default=None, metavar="L")
    s.add_argument("--targets", choices=NNUE_TARGETS, default=None,
                   help="what candidates are fitted to (as nnue train's)")
    s.add_argument("--lr", type=number_arg(0, 1, "--lr", above_low=True), default=None)
    s.add_argument("--gate-games", type=gate_games_arg, default=None,
                   help="at most, a gate's games (0: no gate, every candidate becomes the next generation)")
    s.add_argument("--elo0", type=number_arg(-1000, 1000, "--elo0"), default=None)
    s.add_argument("--elo1", type=number_arg(-1000, 1000, "--elo1"), default=None)
    s.add_argument("--chunk", type=count_arg(1, 10**4), default=None, metavar="K")
    s.add_argument("--side", type=count_arg(3, 5), choices=(3, 5), default=None,
                   help="the board: 5 the standard one (default), 3 the mini board (each plays from its shipped "
                   "opening suite)")
    s.add_argument("--seed", type=count_arg(0, 2**31), default=None,
                   help=f"the run's settings default to {', '.join(f'{k}={v}' for k, v in asdict(d).items())}; "
                   "a resumed run refuses another hidden, hidden2, side or seed (one line naming it); it may change "
                   "those of the attempts to come (state.json records it): games, depth, window, epochs, lam, "
                   "targets, lr, gate-games, elo0, elo1, chunk; the attempt in progress then starts again from its "
                   "self-play (games, depth, chunk) or its training (window, epochs, lam, targets, lr), and its gate "
                   "goes on with other gate-games, elo0 or elo1")
    s.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help=f"processes (at most {MAX_WORKERS}; with --backend ray, work items at once)")
    add_backend_args(s)
    s.set_defaults(command_handler="cmd_selfplay")
