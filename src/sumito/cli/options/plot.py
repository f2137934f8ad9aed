"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.plot`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SMOOTH
from sumito.cliargs import count_arg, output_file
from sumito.defaults import BAND_STATISTICS, PLOT_METRICS


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plot")
    p.add_argument("runs", nargs="+", metavar="RUN", help="a run folder (its curve.csv) or a curve CSV file")
    p.add_argument(
        "--out", type=output_file, required=True, metavar="FILE", help="the image to write: FILE.png or FILE.svg"
    )
    p.add_argument(
        "--label", action="extend", nargs="+", default=None, metavar="NAME",
        help="line labels, one per run (default: the run folder names); with --average, runs sharing a label "
        "are averaged together",
    )
    p.add_argument("--metric", choices=PLOT_METRICS, default="score", help="score (default), wins or draws (rates)")
    p.add_argument("--smooth", type=count_arg(1, MAX_SMOOTH), default=1, metavar="K",
                   help=f"pool each point with the K-1 before it (1 to {MAX_SMOOTH})")
    p.add_argument(
        "--average", action="store_true",
        help="aggregate runs evaluated at the same game counts (e.g. seeds): their interquartile mean with a "
        "bootstrap 95%% band, each run faint behind",
    )
    p.add_argument("--statistic", choices=BAND_STATISTICS, default="iqm",
                   help="with --average: iqm (the default, the mean of the middle half of the runs), median or mean")
    p.add_argument("--title", default=None, help="the figure's title (default: the metric and opponent)")
    p.set_defaults(command_handler="cmd_plot")
