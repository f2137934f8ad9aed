"""``sumito alphalone-td``: learn the alphalone player's weights by TD(0) self-play."""

from __future__ import annotations

import argparse
import sys

from sumito.evaluation.features import ALPHALONE_FEATURES
from sumito.learn.alphalone_td import AlphaloneTDError, config_from_args, train
from sumito.progress import Progress


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
