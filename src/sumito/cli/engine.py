"""``sumito engine``: the engine text protocol on stdin and stdout."""

from __future__ import annotations

import argparse

from sumito.defaults import EOF_GRACE_SECONDS
from sumito.protocol import run_engine


def cmd_engine(args: argparse.Namespace) -> int:
    # a GUI that went away leaves no search running: the end of stdin stops it after EOF_GRACE_SECONDS
    return run_engine(args.player, eof_grace=EOF_GRACE_SECONDS)
