"""Command-line options shared by several ``sumito`` commands: the start position, the variant, the draw
rules, where work runs, and the types that check numbers, seconds and files. One definition each, so that
``game``, ``play``, ``match`` and ``tournament`` spell and check them alike.

Light (the standard library and Sumito's light modules): ``sumito COMMAND --help`` declares its options
with these and loads no engine. :mod:`sumito.cliargs.position` reads the start position they name.
"""

from __future__ import annotations

import argparse

from sumito.bounds import MAX_SEARCH_SECONDS, parse_count, read_number
from sumito.defaults import BACKENDS, NOTATIONS
from sumito.errors import SumitoError, shown_path
from sumito.games.abalone.draws import DrawRules
from sumito.games.abalone.variants import LAYOUTS

#: the largest ply count a draw rule may name
MAX_RULE_PLIES = 10**6
#: the longest time a move may be given (``--movetime``, the players' ``time=``): a day, as documented
MAX_MOVETIME = MAX_SEARCH_SECONDS
#: the most workers an option may ask for (a Ray cluster may have thousands of CPUs; a local pool is capped
#: further, at ``sumito.procs.MAX_WORKERS``, with a note)
MAX_WORKERS_ARG = 100_000


def _shown(text: str, limit: int = 30) -> str:
    """``text`` as an error quotes it: at most ``limit`` characters, escaped when it is not printable."""
    text = text.strip()
    cut = text if len(text) <= limit else text[: limit - 3] + "..."
    return cut if cut.isprintable() else repr(cut)


def count_arg(low: int, high: int):
    """An argparse ``type``: a whole number in ASCII digits within ``low..high`` (checked before
    ``int`` runs, so a 5,000-digit value is a usage error, not a crash or a huge allocation)."""

    def convert(text: str) -> int:
        try:
            return parse_count(text.strip(), "the value", low=low, high=high)
        except SumitoError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "number"  # argparse names the type in its messages
    return convert


def output_file(text: str) -> str:
    """An argparse ``type`` for a file to write: its folder must exist (a typo in a folder name is an
    error, not a new folder somewhere), and it may not be a folder itself."""
    from pathlib import Path

    path = Path(text)
    try:
        if path.is_dir():
            raise argparse.ArgumentTypeError(f"{shown_path(text)} is a folder; give a file name")
        if not path.parent.is_dir():
            raise argparse.ArgumentTypeError(
                f"there is no folder {shown_path(path.parent)} to write {shown_path(path.name)} in (create it first)"
            )
    except OSError as exc:  # a name too long for the file system, a folder we may not look into
        raise argparse.ArgumentTypeError(f"cannot write {shown_path(text)}: {exc.strerror or exc}") from None
    return text


output_file.__name__ = "file"


def time_control(text: str) -> tuple[float, float]:
    """An argparse ``type``: ``BASE[+INC]`` in seconds (``60+1``, ``300``, ``0.5+0.05``), as (base, increment);
    each number as :func:`~sumito.bounds.read_number` reads it."""
    base_text, _, inc_text = text.partition("+")
    base, increment = read_number(base_text), read_number(inc_text or "0")
    if base is None or increment is None:
        raise argparse.ArgumentTypeError(f"a time control is BASE+INC seconds, e.g. 60+1, not {text[:40]!r}")
    if not (0 < base <= 86_400 and 0 <= increment <= 3_600):
        raise argparse.ArgumentTypeError(
            f"a time control needs 0 < BASE <= 86400 and 0 <= INC <= 3600, not {_shown(text, 40)}"
        )
    return base, increment


time_control.__name__ = "time control"


def number_arg(low: float, high: float, what: str = "the value", above_low: bool = False):
    """An argparse ``type``: a finite number from ``low`` (exclusive with ``above_low``) to ``high``, as
    :func:`~sumito.bounds.read_number` reads it (so '1_0', 'nan', 'inf' or ' 1 ' is a usage error)."""

    def convert(text: str) -> float:
        value = read_number(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"{what} must be a number, not {text[:30]!r}")
        if not (low < value <= high if above_low else low <= value <= high):
            bound = f"above {low:g}" if above_low else f"from {low:g}"
            raise argparse.ArgumentTypeError(f"{what} must be {bound} to {high:g}, not {_shown(text)}")
        return value

    convert.__name__ = "number"
    return convert


def seconds_arg(high: float):
    """An argparse ``type``: a finite number of seconds from 0 to ``high``."""
    convert = number_arg(0, high, "seconds")
    convert.__name__ = "seconds"
    return convert


def add_position_args(p: argparse.ArgumentParser, moves: bool = True) -> None:
    """``--layout`` or ``--position``, optionally ``--moves`` played from it, and the variant options."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--layout", default=None, help=f"starting layout ({', '.join(LAYOUTS)}); default standard")
    src.add_argument(
        "--position",
        default=None,
        metavar="POS",
        help="a position string, e.g. 'wwwww/.../bbbbb b 0 0 1', or a PlayStrategy FEN "
        "(told apart by its form), e.g. 'SS1ss/.../ss1SS 0 0 b 0 1'",
    )
    if moves:
        p.add_argument("--moves", nargs="+", default=[], metavar="MOVE", help="moves to play first, in notation")
        p.add_argument(
            "--notation",
            choices=NOTATIONS,
            default="sumito",
            help="how --moves are written: sumito (the AbaPro notation, a1b2 / c3c5d4), playstrategy (a1d4), "
            "or auto (AbaPro, Nacre or PlayStrategy, each token read every way); default sumito",
        )
    p.add_argument(
        "--win",
        type=count_arg(1, 99),
        default=None,
        metavar="N",
        help="marbles to push off to win (default: the board's)",
    )
    p.add_argument("--inline-only", action="store_true", help="the reduced game with inline moves only")


def add_rules_args(p: argparse.ArgumentParser, defaults: DrawRules) -> None:
    """The draw-rule options, with ``defaults`` shown and used when an option is not given."""
    p.add_argument(
        "--max-plies",
        type=count_arg(0, MAX_RULE_PLIES),
        default=defaults.max_plies or 0,
        metavar="P",
        help=f"draw after P plies (0 = no cap; default {defaults.max_plies or 0})",
    )
    p.add_argument(
        "--repetitions",
        type=count_arg(0, MAX_RULE_PLIES),
        default=defaults.repetitions or 0,
        metavar="R",
        help=f"draw on R-fold repetition (0 = off; default {defaults.repetitions or 0})",
    )
    p.add_argument(
        "--no-capture",
        type=count_arg(0, MAX_RULE_PLIES),
        default=defaults.no_capture_plies or 0,
        metavar="C",
        help=f"draw after C plies without a push-off (0 = off; default {defaults.no_capture_plies or 0})",
    )
    p.add_argument(
        "--no-moves",
        choices=("draw", "loss"),
        default=defaults.no_moves,
        help=f"a side with no legal move draws or loses (default {defaults.no_moves})",
    )


def rules_from_args(args: argparse.Namespace) -> DrawRules:
    return DrawRules(
        max_plies=args.max_plies or None,
        repetitions=args.repetitions or None,
        no_capture_plies=args.no_capture or None,
        no_moves=args.no_moves,
    )


def add_backend_args(p: argparse.ArgumentParser, what: str = "the games", note: str = "") -> None:
    """``--backend {process,ray}`` and ``--address ADDR``: where ``what`` run (read by
    :func:`sumito.arena.executor.executor_from_args`); ``note`` ends the help of ``--backend`` (what does not
    run on Ray, say)."""
    p.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help=f"where {what} run: process (the default), a pool of local worker processes; ray, Ray tasks on a "
        f"local Ray instance or on the Ray cluster at --address (pip install 'sumito[ray]'){note}",
    )
    p.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="with --backend ray: the Ray cluster to run on, e.g. 10.0.0.5:6379 (the address `ray start --head` "
        "prints; default $SUMITO_RAY_ADDRESS, else a local Ray instance). Every node must have this Sumito "
        "installed and see the files the work names (networks, weights, run folders) at the same paths",
    )
