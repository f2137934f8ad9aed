"""What ``sumito`` accepts for the commands of :mod:`sumito.cli.sprt`: their arguments, defaults and help.

Light: ``sumito COMMAND --help`` reads it without loading the command's code."""

from __future__ import annotations

from sumito.bounds import MAX_ELO, MAX_GAMES, MAX_SEED
from sumito.cliargs import (
    MAX_MOVETIME,
    MAX_WORKERS_ARG,
    add_backend_args,
    add_rules_args,
    count_arg,
    number_arg,
    seconds_arg,
    time_control,
)
from sumito.defaults import Any
from sumito.games.abalone.draws import DEFAULT_RULES


def add_parsers(sub: Any) -> None:
    p = sub.add_parser(
        "sprt",
        description="Play pairs of games between A and B (each pair from one opening of the suite, colours swapped) "
        "until the log-likelihood ratio of H1 (A is elo1 Elo stronger) against H0 (elo0) crosses a bound, as "
        "fishtest does (pentanomial statistics); print A's Elo with its 95%% interval and the LLR.",
    )
    p.add_argument("a", metavar="A", help="player spec, e.g. engine:time=0.1")
    p.add_argument("b", metavar="B", help="player spec")
    p.add_argument("--elo0", type=number_arg(-MAX_ELO, MAX_ELO, "--elo0"), default=0.0,
                   help=f"H0: A is elo0 stronger (default 0; within ±{MAX_ELO:g})")
    p.add_argument("--elo1", type=number_arg(-MAX_ELO, MAX_ELO, "--elo1"), default=10.0,
                   help=f"H1: A is elo1 stronger (default 10; within ±{MAX_ELO:g})")
    p.add_argument("--alpha", type=number_arg(0, 0.5, "--alpha", above_low=True), default=0.05,
                   help="false H1 rate (default 0.05; between 0 and 0.5)")
    p.add_argument("--beta", type=number_arg(0, 0.5, "--beta", above_low=True), default=0.05,
                   help="false H0 rate (default 0.05; between 0 and 0.5)")
    p.add_argument("--max-games", type=count_arg(2, MAX_GAMES), default=20_000, metavar="N",
                   help=f"stop undecided after N games (default 20000; 2 to {MAX_GAMES}); the games are made as "
                   "they are played, so a large N costs nothing until they are")
    p.add_argument("--openings", default=None, metavar="FILE",
                   help="the opening suite, one position string a line (default: the shipped suite of 200 balanced "
                   "positions from Standard and Belgian Daisy)")
    p.add_argument("--movetime", type=seconds_arg(MAX_MOVETIME), default=None, metavar="S",
                   help=f"seconds per move given to the players (above 0, at most {MAX_MOVETIME:g})")
    p.add_argument("--tc", type=time_control, default=None, metavar="BASE+INC", help="a clock for each side")
    add_rules_args(p, DEFAULT_RULES)
    p.add_argument("--seed", type=count_arg(0, MAX_SEED), default=0,
                   help="seed of the players' random choices (default 0)")
    p.add_argument("--journal", default=None, metavar="FILE",
                   help="keep every finished game in FILE (JSON lines): the same command again, or with a larger "
                   "--max-games, other bounds or --fixed, takes the games from there and plays only the rest; a "
                   "journal of other players, --seed, --openings, draw rules, --movetime or --tc is refused")
    p.add_argument("--fixed", action="store_true",
                   help="a fixed-length test: play all --max-games games whatever the LLR (to measure the Elo "
                   "difference to a given precision); the LLR and the bound it stands beyond are reported at the end")
    p.add_argument("--workers", type=count_arg(1, MAX_WORKERS_ARG), default=None, metavar="K",
                   help="games at once (default: all cores)")
    add_backend_args(p)
    p.set_defaults(command_handler="cmd_sprt")
