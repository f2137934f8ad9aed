"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.alphalone_td`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.cliargs import output_file
from sumito.defaults import ALPHALONE_GAMMA, ALPHALONE_TD_CLIP, ALPHALONE_TD_GAMES


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("alphalone-td")
    # numbers are parsed here, not by argparse, so that a bad value is one error line
    p.add_argument("--eta", default="1e-3", metavar="ETA", help="step size (the report: 1e-2 to 1e-5; default 1e-3)")
    p.add_argument("--games", default=str(ALPHALONE_TD_GAMES), metavar="N", help="training games (default 100)")
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
    p.add_argument("--gamma", default=str(ALPHALONE_GAMMA), metavar="G", help="discount (default 0.2, the report's)")
    p.add_argument(
        "--scale", default=None, metavar="N", help="N in the utility (default 160/win^4, a win worth 160: mini 10)"
    )
    p.add_argument(
        "--max-plies", default=None, metavar="P", help="cut games at P plies (default 500 code, 200 afterstates)"
    )
    p.add_argument("--clip", default=f"{ALPHALONE_TD_CLIP:g}", metavar="C",
                   help="clip weights to [-C, C] (default 100)")
    p.add_argument(
        "--explore", default=None, metavar="P", help="chance of the second-best move (default 0 code, 0.5 afterstates)"
    )
    p.add_argument(
        "--out", type=output_file, default=None, metavar="FILE", help="the weights file to write (JSON; required)"
    )
    p.add_argument("--quiet", action="store_true", help="print only the file written (no progress either)")
    p.set_defaults(command_handler="cmd_alphalone_td")
