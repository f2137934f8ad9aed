"""``sumito alphalone-td``: learn the alphalone player's weights by TD(0) self-play."""

from __future__ import annotations

import argparse
import sys

from sumito.cliargs import output_file
from sumito.evaluation.features import ALPHALONE_FEATURES
from sumito.learn.alphalone_td import (
    DEFAULT_CLIP,
    DEFAULT_GAMES,
    GAMMA,
    AlphaloneTDError,
    config_from_args,
    train,
)
from sumito.progress import Progress


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("alphalone-td")
    # numbers are parsed here, not by argparse, so that a bad value is one error line
    p.add_argument("--eta", default="1e-3", metavar="ETA", help="step size (the report: 1e-2 to 1e-5; default 1e-3)")
    p.add_argument("--games", default=str(DEFAULT_GAMES), metavar="N", help="training games (default 100)")
    p.add_argument("--layout", default="mini", help="starting layout (default mini, the report's)")
    p.add_argument(
        "--moves", choices=("inline", "all"), default="inline",
        help="inline moves only (default: the authors' engine) or broadside moves too",
    )
    p.add_argument("--inline-only", action="store_true", help="the same as --moves inline (the default)")
    p.add_argument("--method", default="code", help="code (the authors' tdlearning.py, default) or afterstates")
    p.add_argument("--features", default="code", help="code (the authors' model.py, default) or text")
    p.add_argument(
        "--white-side", default="code", help="code: White's run as the authors' code does it (default); mirror"
    )
    p.add_argument("--terminal", default="code", help="code: V(final) = w·f (default); zero: V(final) = 0")
    p.add_argument("--seed", default="0", metavar="S", help="seed of the move choices (default 0)")
    p.add_argument("--gamma", default=str(GAMMA), metavar="G", help="discount (default 0.2, the report's)")
    p.add_argument(
        "--scale", default=None, metavar="N", help="N in the utility (default 160/win^4, a win worth 160: mini 10)"
    )
    p.add_argument(
        "--max-plies", default=None, metavar="P", help="cut games at P plies (default 500 code, 200 afterstates)"
    )
    p.add_argument("--clip", default=f"{DEFAULT_CLIP:g}", metavar="C", help="clip weights to [-C, C] (default 100)")
    p.add_argument(
        "--explore", default=None, metavar="P", help="chance of the second-best move (default 0 code, 0.5 afterstates)"
    )
    p.add_argument(
        "--out", type=output_file, default=None, metavar="FILE", help="the weights file to write (JSON; required)"
    )
    p.add_argument("--quiet", action="store_true", help="print only the file written (no progress either)")
    p.set_defaults(func=cmd_alphalone_td)


def cmd_alphalone_td(args: argparse.Namespace) -> int:
    if not args.out:
        raise AlphaloneTDError("--out FILE is required (where to write the weights)")
    config = config_from_args(args)
    runs = 2 if config.method == "code" else 1  # the code method trains each colour in a run of its own
    with Progress("alphalone-td", runs * config.games, "games", quiet=args.quiet) as progress:
        result = train(config, progress=lambda _, so_far: progress.update(so_far.games))
    try:
        result.weights.save(args.out)
    except OSError as exc:
        raise AlphaloneTDError(f"cannot write {args.out}: {exc.strerror or exc}") from None
    if not args.quiet:
        o = result.outcomes
        print(
            f"{result.games} games" + (f", {config.games} for each colour's weights" if runs == 2 else "")
            + f" (method {config.method}, eta {config.eta:g}, gamma {config.gamma:g}, "
            f"N {config.utility_scale:g}, {config.layout}, seed {config.seed}) in {result.seconds:.1f} s: "
            f"Black won {o['black']}, White {o['white']}, drawn or cut {o['draw']}; "
            f"{result.plies / max(result.games, 1):.1f} plies a game, "
            f"{result.updates} updates, {result.clipped} clipped",
            file=sys.stderr,
        )
        width = max(len(n) for n in ALPHALONE_FEATURES)
        print(f"{'feature':{width}}  {'black':>9}  {'white':>9}", file=sys.stderr)
        for name, b, wt in zip(ALPHALONE_FEATURES, result.weights.black, result.weights.white):
            print(f"{name:{width}}  {b:9.4f}  {wt:9.4f}", file=sys.stderr)
    print(args.out)
    return 0
