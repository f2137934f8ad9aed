"""Probe every parser with hostile input and count what held: a valid result or the parser's one-line
error is "held"; any other exception, or a message of more than one line, is a failure (printed).

    python experiments/probe_parsers.py [--per-parser 10000] [--seed 13]

Inputs: mutations of valid input (characters replaced, inserted, deleted; runs of up to 6,000 digits
put in; other scripts' digits, superscripts, controls, U+FFFD), random text and random bytes decoded
as Latin-1. The parsers: position strings, move notation, game records, player specs, training
options, protocol lines, and the command line: the value of every option of every ``sumito``
subcommand that converts it (see :class:`CommandLine`). The figures in docs/reliability.md come from
this script.
"""

from __future__ import annotations

import argparse
import io
import math
import random
import sys
import time

from sumito.cli import build_parser
from sumito.errors import SumitoError
from sumito.games.abalone import LAYOUTS, Position, parse_records
from sumito.learn.config import FIELDS, typed_option
from sumito.learn.training import TrainingConfig
from sumito.players.base import parse_spec
from sumito.protocol import EngineProtocol
from sumito.stopping import run_main

MAX_MESSAGE = 2000  # a one-line error longer than this is a failure too (it quotes too much of the input)
ODD = "0123456789bwBW/ .-:=,;[]{}\"\\²³¹١٢٣۴५६७８९\u00a0\u2028\x00\t\r\n\xe9\u20ac\ufffd"
RECORD = '[Event "x"]\n[Layout "standard"]\n[MaxPlies "1000"]\n\n1. a1b1 i5h5 2. b2c3 *\n'
SEEDS = {
    "position strings": [LAYOUTS[name].position_string for name in LAYOUTS],
    "move notation": ["a1b1", "c3d3", "a1a3b2", "e6e8f6", "A1-B1"],
    "game records": [RECORD, '[Position "' + LAYOUTS["mini"].position_string + '"]\n\n*\n'],
    "player specs": ["engine:depth=3,time=1", "abla:depth=3", "td:net=builtin", "random:seed=4",
                     "alphalone:depth=2,weights=x.json", "heuristic:depth=2,ties=random,seed=1"],
    "training options": [f"{k}={getattr(TrainingConfig(), k)}" for k in FIELDS],
    "command-line options": ["1", "0", "2", "10", "400", "0.5", "1e-3", "60+1", "0+0.1", "-1", "2000", "8000"],
    "protocol lines": ["position startpos moves c3d3", "go depth 1", "go movetime 10", "player random:seed=1",
                       "position startpos layout mini win 2 inline-only", "moves", "d", "isready"],
}


def mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 5)):
        i = rng.randint(0, len(chars))
        op = rng.random()
        if op < 0.15:
            chars[i:i] = rng.choice("0123456789") * rng.choice([1, 3, 20, 400, 6000])
        elif op < 0.5 or not chars or i == len(chars):
            chars.insert(i, rng.choice(ODD))
        elif op < 0.8:
            chars[i] = rng.choice(ODD)
        else:
            del chars[i]
    return "".join(chars)


def hostile(rng: random.Random, seeds: list[str]) -> str:
    r = rng.random()
    if r < 0.7:
        return mutate(rng, rng.choice(seeds))
    if r < 0.85:
        return "".join(rng.choice(ODD) for _ in range(rng.randint(0, 80)))
    return bytes(rng.randrange(256) for _ in range(rng.randint(0, 80))).decode("latin-1")


def _training(text: str) -> None:
    key, _, value = text.partition("=")
    TrainingConfig(**{key.strip(): typed_option(key.strip(), value.strip())})


def _protocol(text: str) -> None:
    out = io.StringIO()
    proto = EngineProtocol("random:seed=1", io.StringIO(), out)
    proto.handle(text.replace("\n", " ").replace("\r", " "))
    errors = [line for line in out.getvalue().splitlines() if line.startswith("error ")]
    if errors:
        raise SumitoError(errors[0])  # counted as the one-line error it is (its length is checked below)


class CommandLine:
    """Every option of every ``sumito`` subcommand that converts its value (a ``type=``: counts, numbers, seconds,
    clocks, files), at every depth (``sumito bg train``, ``sumito nnue gen``...), parsed in-process by the
    command's own argparse parser: each text goes to one of them, picked in turn at random, after the
    subcommand's words, its positional arguments and its other required options (with valid values), so that
    only the probed value can be wrong. A value it accepts must be a finite number of at most 64 bits."""

    def __init__(self, seed: int = 0) -> None:
        self.parser = build_parser()
        self.options = [(base, action.option_strings[-1], action.dest) for base, action in self._walk(self.parser, ())]
        self.rng = random.Random(seed)

    def _walk(self, parser: argparse.ArgumentParser, path: tuple[str, ...]):
        words = list(path)
        for action in parser._actions:  # a value for each required positional (player specs, folders)
            if not action.option_strings and not isinstance(action, argparse._SubParsersAction) and action.nargs != "?":
                words.append("random")
        for action in parser._actions:  # each other required option with the first value it takes
            if action.required and action.option_strings:
                for value in ("1", "3-1", "out"):
                    try:
                        action.type(value) if action.type else None
                        words += [action.option_strings[-1], value]
                        break
                    except (SumitoError, ValueError, TypeError, argparse.ArgumentTypeError):
                        continue
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from self._walk(sub, (*path, name))
            elif action.type is not None and action.option_strings:
                yield words, action

    def __call__(self, text: str) -> None:
        base, option, dest = self.rng.choice(self.options)
        args = self.parser.parse_args([*base, option, text])  # a usage error is a SumitoError (UsageError)
        value = getattr(args, dest)
        for number in value if isinstance(value, (tuple, list)) else (value,):
            if (isinstance(number, float) and not math.isfinite(number)) or (
                    isinstance(number, int) and abs(number) >= 2**64):
                raise ValueError(f"{' '.join(base[:2])} {option} {text[:40]!r} was taken as {number!r}")


PARSERS = {
    "position strings": Position.from_string,
    "move notation": lambda text: Position.start().parse_move(text),
    "game records": parse_records,
    "player specs": parse_spec,
    "training options": _training,
    "protocol lines": _protocol,
    "command-line options": CommandLine(),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-parser", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    failures = 0
    print("| parser | tried | valid | one-line error | failed | seconds |")
    print("|---|---|---|---|---|---|")
    for name, parse in PARSERS.items():
        counts = {"valid": 0, "error": 0, "failed": 0}
        t0 = time.perf_counter()
        for _ in range(args.per_parser):
            text = hostile(rng, SEEDS[name])
            try:
                parse(text)
                counts["valid"] += 1
            except SumitoError as exc:
                if "\n" in str(exc) or not str(exc) or len(str(exc)) > MAX_MESSAGE:
                    counts["failed"] += 1
                    print(f"  {name}: not a short one-line message for {text[:60]!r}: {str(exc)[:200]!r}",
                          file=sys.stderr)
                else:
                    counts["error"] += 1
            except Exception as exc:
                counts["failed"] += 1
                print(f"  {name}: {type(exc).__name__}: {exc} for {text[:60]!r}", file=sys.stderr)
        failures += counts["failed"]
        print(f"| {name} | {args.per_parser:,} | {counts['valid']:,} | {counts['error']:,} | {counts['failed']:,} "
              f"| {time.perf_counter() - t0:.1f} |")
    return 1 if failures else 0


if __name__ == "__main__":
    run_main(main, resumable=False)
