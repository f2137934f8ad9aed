"""``sumito plot``: draw the learning curves of training runs."""

from __future__ import annotations

import argparse

from sumito.learn.plot import plot_runs


def cmd_plot(args: argparse.Namespace) -> int:
    lines = plot_runs(args.runs, args.out, args.label, args.metric, args.smooth, args.average, args.title,
                      args.statistic)
    runs = sum(s.runs for s in lines)
    print(f"{args.out}: {len(lines)} line(s) from {runs} run(s)")
    return 0
