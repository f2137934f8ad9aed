"""Compile the kernels a first game uses before it is played: what ``pip install`` runs.

    python -m sumito.players.precompile [SPEC ...]      # default: the README's first game's players

numba compiles a kernel the first time it is called and caches it on disk (``sumito/__init__.py``: one
folder for each version of the source). The build backend (``tools/build_backend.py``) runs this module
from the source tree once setuptools has built the package, in pip's build environment — which holds
the same numba and numpy as the package pins (``[build-system] requires``), so that what it compiles is
what the installed package loads — and the first game of a fresh install finds its kernels compiled.

It plays a few plies between the players given (by default :data:`FIRST_GAME`, the README's first
command's: tests/test_first_run.py checks that they are the same) the way ``sumito game`` does
(``choose`` with the game's history and draw counters), so that every kernel and every
specialisation of it that such a game calls is compiled. Only imports that the build environment has:
numpy, numba and the package itself.
"""

from __future__ import annotations

import argparse
import sys
import time

from sumito.errors import SumitoError
from sumito.games.abalone import Game, Position
from sumito.games.abalone.draws import GAME_RULES
from sumito.players.base import game_history, make_player

#: the players of the README's first command, ``sumito game --black engine:depth=4 --white abla:depth=3``
FIRST_GAME = ("engine:depth=4", "abla:depth=3")


def precompile(specs: tuple[str, ...] = FIRST_GAME, plies: int = 4) -> float:
    """Play ``plies`` plies from the standard start between ``specs`` (in turn); returns the seconds it took."""
    start = time.perf_counter()
    game = Game(Position.start(), GAME_RULES)  # sumito game's rules
    players = [make_player(spec) for spec in specs]
    for ply in range(plies):
        if game.is_over():
            break
        player = players[ply % len(players)]
        game.push(player.choose(game.position, history=game_history(game), draw=game.draw_counters()))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("specs", nargs="*", default=list(FIRST_GAME), metavar="SPEC")
    args = parser.parse_args(argv)
    try:
        seconds = precompile(tuple(args.specs))
    except SumitoError as exc:  # a bad spec: one line, as every command says it
        print(f"sumito.players.precompile: {exc}", file=sys.stderr)
        return 2
    print(f"sumito: kernels for {', '.join(args.specs)} compiled and cached in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
