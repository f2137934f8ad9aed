"""Positions where the search without the threat search walks into a forced push-off of its last marble.

    python experiments/threat_positions.py [--games 40] [--seed 27] [--out tests/data/last_marble.txt]

Games of engine self-play (the shipped NNUE, depth 4, one thread, the search without the threat
search: ``threats=0``) from the opening suite, each after a few random quiet plies. At every position
where the side to move has lost all but one of the marbles it may lose, the move that search plays
is checked by a deeper threat-aware search (``--check-depth`` plies, default 7) of the position after
it: when that finds a forced push-off, and the same deep search finds a move that does not lose by
force, the position is kept with the losing move. The output, one ``position string<TAB>losing move``
a line (with ``#`` comments saying how it was made), is the regression set ``tests/test_threats.py``
plays: the threat search at the depth it reaches in 0.1 s must not play the losing move.

The file is written after every game (atomically), and a killed run starts again from the beginning
(a run takes minutes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from last_marble_audit import walks_into_push_off

from sumito.arena.openings import load_openings
from sumito.cliargs import count_arg
from sumito.fileio import atomic_write_text
from sumito.games.abalone import DrawRules, Game, Position
from sumito.players import game_history, make_player
from sumito.stopping import run_main

OLD = "engine:depth=4,nnue=expert-nnue,threats=0,threads=1"
DEEP = "engine:nnue=expert-nnue,threads=1,threats=1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=count_arg(1, 10_000), default=40)
    parser.add_argument("--seed", type=count_arg(0, 2**31), default=27)
    parser.add_argument("--check-depth", type=count_arg(2, 20), default=7)
    parser.add_argument("--out", type=Path, default=Path("tests/data/last_marble.txt"))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    openings = load_openings()
    old = make_player(OLD)
    deep = make_player(DEEP)
    found: list[str] = []
    for g in range(args.games):
        game = Game(Position.from_string(openings[g % len(openings)]), DrawRules(max_plies=300))
        for _ in range(int(rng.integers(0, 5))):
            quiet = [m for m in game.legal_moves() if not m.is_push_off]
            game.push(quiet[int(rng.integers(len(quiet)))])
        while not game.is_over():
            pos = game.position
            move = old.choose(pos, history=game_history(game), draw=game.draw_counters())
            win = pos.variant.win_threshold
            miss = walks_into_push_off(deep, pos, move, depth=args.check_depth) if pos.lost[
                pos.side_to_move - 1] == win - 1 else None
            if miss is not None:
                line = f"{pos.to_string()}\t{move.notation()}\t{miss[0]}"
                if all(not kept.startswith(line.rsplit("\t", 1)[0]) for kept in found):
                    found.append(line)
                    print(f"game {g}: {line} (loses in {miss[0]} plies; {miss[1]} holds)", flush=True)
            game.push(move)
        header = (f"# made by: python experiments/threat_positions.py --games {args.games} --seed {args.seed} "
                  f"--check-depth {args.check_depth} ({g + 1} games played)\n"
                  f"# position<TAB>the move {OLD} plays, after which a depth-{args.check_depth} threat-aware "
                  "search finds a forced push-off of its last marble, where one move does not lose by force"
                  "<TAB>plies from the position to the push-off\n")
        args.out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.out, header + "".join(line + "\n" for line in found))
    print(f"{len(found)} positions in {args.out}")


if __name__ == "__main__":
    run_main(main, resumable=False)
