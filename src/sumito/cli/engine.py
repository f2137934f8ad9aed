"""``sumito engine``: the engine text protocol on stdin and stdout."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from sumito.defaults import EOF_GRACE_SECONDS
from sumito.protocol import loading, run_engine


def cmd_engine(args: argparse.Namespace) -> int:
    # a GUI that went away leaves no search running: the end of stdin stops it after EOF_GRACE_SECONDS
    status = run_engine(args.player, eof_grace=EOF_GRACE_SECONDS)
    if loading():
        # quit during a compile: the compiling thread cannot be cut short, and the interpreter's shutdown
        # would wait for it (seconds); what the engine had to say is out, so it leaves now
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(status)
    return status
