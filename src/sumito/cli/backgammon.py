"""``sumito bg``: backgammon on the command line — ``show``, ``moves``, ``game``, ``match`` and ``play``.

``add_commands(sub)`` registers the group on the ``sumito`` argument parser. Errors are
:class:`~sumito.errors.SumitoError` subclasses, printed by ``sumito.cli.main`` as one line with exit
status 2.

Matches are the arena's (:mod:`sumito.arena.backgammon`): they alternate who is side 0 (player 1 in even
games, player 2 in odd ones) and are cut into fixed chunks of games, each with its own RNG seeded from
``(seed, chunk)``, so the numbers depend on the seed and the game count only, never on how many worker
processes played them, nor where: the chunks run on the arena's executor, a local process pool or, with
``bg match --backend ray``, Ray tasks (:mod:`sumito.arena.executor`). ``bg train`` learns in this process (each
game's TD update feeds the next, and its tests share one generator); ``--actors N`` plays its training games
in N Ray actors (:mod:`sumito.learn.backgammon.actors`).
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import numpy as np

from sumito.arena.backgammon import MatchResult, run_match
from sumito.arena.executor import executor_from_args, uses_ray
from sumito.bounds import parse_count
from sumito.cli.options.backgammon import MAX_SEED
from sumito.console import stdout_console
from sumito.errors import SumitoError
from sumito.fileio import refuse_changed
from sumito.games.backgammon.board import BackgammonPosition, PositionIdError, from_position_id, position_id, swap_array
from sumito.games.backgammon.game import game_result, opening_roll, roll_dice
from sumito.games.backgammon.kernels import generate_plays
from sumito.learn.backgammon.actors import ActorBackgammonRun
from sumito.learn.backgammon.run import (
    CHECKPOINT_EVERY,
    RUN_FLAGS,
    BackgammonRun,
    BackgammonRunConfig,
    TrainingInterrupted,
)
from sumito.players.backgammon.players import HumanPlayer, HumanQuit, make_bg_player, move_notation, render_board
from sumito.procs import cap_workers
from sumito.progress import Progress

if TYPE_CHECKING:
    from sumito.games.backgammon.board import BackgammonPosition
    from sumito.players.backgammon.players import BackgammonPlayer

#: the most hidden units of a module, training games of a run, and Ray actors
MAX_HIDDEN = 4096
RESULT_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}
SIDES = ("X", "O")


class BackgammonCommandError(SumitoError):
    """Bad input to a ``sumito bg`` command (a position ID, dice, a game count)."""


#: the ``sumito bg train`` options that set up a run (:class:`~sumito.learn.backgammon.run.BackgammonRunConfig` fields);
#: they default to None so that the config's own defaults (the paper's settings) apply, and so that a resumed
#: run can tell an option that was given from one that was not
RUN_SETTINGS = ("regime", "targets", "expert", "encoding", "outputs", "hidden", "alpha", "lam", "points", "seed",
                "test_every", "test_games", "test_against")


# --------------------------------------------------------------------------- helpers
def parse_dice(text: str) -> tuple[int, int]:
    """``3-1``, ``31`` or ``3,1`` as ``(3, 1)``; :class:`BackgammonCommandError` otherwise."""
    m = re.fullmatch(r"\s*([0-9])\s*[-,/ ]?\s*([0-9])\s*", text)
    if m is None or not all(1 <= int(d) <= 6 for d in m.groups()):
        raise BackgammonCommandError(f"dice are two numbers 1..6 such as 3-1 or 31, not {text!r}")
    return int(m[1]), int(m[2])


def _position(text: str | None) -> BackgammonPosition:
    if text is None:
        return BackgammonPosition.start()
    try:
        return from_position_id(text)
    except PositionIdError as exc:
        raise BackgammonCommandError(str(exc)) from None
    except ValueError as exc:  # a decodable ID naming an impossible position (checker counts)
        raise BackgammonCommandError(f"position ID {text!r}: {exc}") from None


def _seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbelow(MAX_SEED)
    if seed < 0:
        raise BackgammonCommandError(f"the seed must be 0 or more, not {seed}")
    return seed


def _roll(dice: tuple[int, int]) -> str:
    return f"{max(dice)}-{min(dice)}"


def _describe(points: int) -> str:
    """``a gammon (2 points)`` for a result's absolute value."""
    n = abs(points)
    return f"a {RESULT_NAMES[n]} ({n} point{'s' if n > 1 else ''})"


# --------------------------------------------------------------------------- show / moves
def cmd_show(args: argparse.Namespace) -> int:
    pos = _position(args.id)
    print(render_board(pos))
    print(f"Position ID: {position_id(pos)}")
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    pos = _position(args.id)
    d1, d2 = parse_dice(args.dice)
    afterstates, moves = generate_plays(pos.board, d1, d2)
    for r in range(afterstates.shape[0]):
        # the ID after the play names the position with the opponent on roll, as gnubg shows it
        after = BackgammonPosition(afterstates[r], check=False).swap()
        print(f"{move_notation(moves[r]):<28} {position_id(after)}")
    return 0


# --------------------------------------------------------------------------- one game
def play_one(
    players: Sequence[BackgammonPlayer],
    rng: np.random.Generator,
    start: np.ndarray | None = None,
    verbose: bool = True,
) -> int:
    """One game from ``start`` (default the opening layout); returns the points from side 0's view. With
    ``verbose`` each turn is printed as ``X rolls 3-1: 8/5 6/5`` in the mover's own numbering."""
    board = np.array(BackgammonPosition.start().board if start is None else start, dtype=np.int8)
    mover, dice = opening_roll(rng)
    while True:
        afterstates, moves = generate_plays(board, dice[0], dice[1])
        row = players[mover].choose(board, afterstates, dice)
        if verbose:
            print(f"{SIDES[mover]} rolls {_roll(dice)}: {move_notation(moves[row])}", flush=True)
        after = afterstates[row]
        result = int(game_result(after))
        if result != 0:
            return result if mover == 0 else -result
        board = swap_array(after)
        mover = 1 - mover
        dice = roll_dice(rng)


def cmd_game(args: argparse.Namespace) -> int:
    seed = _seed(args.seed)
    players = [make_bg_player(args.player1, rng_seed=seed), make_bg_player(args.player2, rng_seed=seed + 1)]
    print(f"X: {players[0].name}   O: {players[1].name}   seed {seed}")
    try:
        points = play_one(players, np.random.default_rng(seed))
    except HumanQuit:  # a `human` spec works here too; leaving is not an error
        print("Game abandoned.")
        return 0
    winner = 0 if points > 0 else 1
    print(f"result: {SIDES[winner]} ({players[winner].name}) wins {_describe(points)}; X {points:+d}")
    return 0


# --------------------------------------------------------------------------- matches
@dataclass
class MatchSummary:
    """Player 1's view of a match: counts each way and the equity (points per game) with a 95% interval."""

    player1: str
    player2: str
    games: int
    seed: int
    wins: int
    losses: int
    gammons_won: int
    backgammons_won: int
    gammons_lost: int
    backgammons_lost: int
    points: int
    equity: float
    ci95: float


def summarize(player1: str, player2: str, seed: int, results: Sequence[int]) -> MatchSummary:
    m = MatchResult.of(list(results))
    return MatchSummary(
        player1=player1,
        player2=player2,
        games=m.games,
        seed=seed,
        wins=m.wins,
        losses=m.games - m.wins,
        gammons_won=m.gammons_won - m.backgammons_won,
        backgammons_won=m.backgammons_won,
        gammons_lost=m.gammons_lost - m.backgammons_lost,
        backgammons_lost=m.backgammons_lost,
        points=m.points_sum,
        equity=m.equity,
        ci95=m.half_width if m.games > 1 else 0.0,
    )


def cmd_match(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise BackgammonCommandError(f"a match needs 1 or more games, not {args.games}")
    if args.workers is not None and args.workers < 1:
        raise BackgammonCommandError(f"--workers must be 1 or more, not {args.workers}")
    seed = _seed(args.seed)
    # make both players once here: a bad spec fails before any worker starts, and names come from them
    names = []
    for spec in (args.player1, args.player2):
        player = make_bg_player(spec, rng_seed=0)
        if player.name == "human":
            raise BackgammonCommandError("a match is between computer players; play yourself with `sumito bg play`")
        names.append(player.name)
    progress = Progress("bg match", args.games, "games")
    if uses_ray(args):  # Ray bounds --workers by the cluster's CPUs (default: all of them)
        executor = executor_from_args(args, args.workers)
        with progress:
            results = run_match(args.player1, args.player2, args.games, seed, executor=executor,
                                progress=progress.update)
    else:
        executor_from_args(args, 1)  # --address without --backend ray: the one-line error
        workers = cap_workers(args.workers or 1)  # with a note when it was cut: never 1,000 processes
        with progress:  # the arena's process pool
            results = run_match(args.player1, args.player2, args.games, seed, workers, progress=progress.update)
    summary = summarize(names[0], names[1], seed, results)
    if args.json:
        print(json.dumps(asdict(summary), indent=2))
    else:
        print_match(summary)
    return 0


def print_match(s: MatchSummary) -> None:
    from rich.table import Table

    table = Table(title=f"{s.player1} vs {s.player2}: {s.games} games, seed {s.seed}", title_justify="left")
    table.add_column("")
    table.add_column(s.player1, justify="right")
    table.add_column(s.player2, justify="right")
    table.add_row("wins", str(s.wins), str(s.losses))
    table.add_row(
        "  single", str(s.wins - s.gammons_won - s.backgammons_won), str(s.losses - s.gammons_lost - s.backgammons_lost)
    )
    table.add_row("  gammons", str(s.gammons_won), str(s.gammons_lost))
    table.add_row("  backgammons", str(s.backgammons_won), str(s.backgammons_lost))
    table.add_row("points", f"{s.points:+d}", f"{-s.points:+d}")
    console = stdout_console()
    console.print(table)
    console.print(f"equity for {s.player1}: {s.equity:+.3f} ± {s.ci95:.3f} points per game (95% interval)")


# --------------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace) -> int:
    seed = _seed(args.seed)
    opponent = make_bg_player(args.player, rng_seed=seed + 1)
    if opponent.name == "human":
        raise BackgammonCommandError("pick a computer opponent, e.g. `sumito bg play pubeval`")
    print(f"You are X (moving 24 → 1, home bottom right) against {opponent.name} (O); seed {seed}.")
    print("Type plays like 13/10 10/9, bar/22, 3/off or pass; ? lists the legal plays; a blank line quits.")
    try:
        points = play_one([HumanPlayer(), opponent], np.random.default_rng(seed))
    except HumanQuit:
        print("\nGame abandoned.")
        return 0
    print(f"You {'win' if points > 0 else 'lose'} {_describe(points)}.")
    return 0


# --------------------------------------------------------------------------- training
def _hidden(text: str) -> tuple[int, int, int]:
    try:
        units = tuple(parse_count(x.strip(), "hidden units", low=1, high=MAX_HIDDEN) for x in text.split(","))
    except SumitoError:
        units = ()
    if len(units) != 3:
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise BackgammonCommandError(f"--hidden is three numbers from 1 to {MAX_HIDDEN} like 20,20,40, not {shown!r}")
    return units  # type: ignore[return-value]


def cmd_train(args: argparse.Namespace) -> int:
    every = CHECKPOINT_EVERY if args.checkpoint_every is None else args.checkpoint_every
    if every < 1:
        raise BackgammonCommandError(f"--checkpoint-every must be 1 or more, not {every}")
    if args.actors is not None and args.actors < 1:
        raise BackgammonCommandError(f"--actors must be at least 1, not {args.actors}")
    if args.publish_every is not None and (args.publish_every < 1 or not args.actors):
        raise BackgammonCommandError("--publish-every takes a number of games, at least 1, and needs --actors")
    if args.address is not None and not args.actors:
        raise BackgammonCommandError("--address names the Ray cluster of the actors: it needs --actors")
    given = {name: getattr(args, name) for name in RUN_SETTINGS if getattr(args, name) is not None}
    if "hidden" in given:
        given["hidden"] = _hidden(given["hidden"])
    if "test_against" in given:
        given["test_against"] = tuple(s.strip() for s in given["test_against"].split(",") if s.strip())
    if args.resume:  # a resumed run keeps its settings: refuse a changed one rather than ignore it
        config = BackgammonRun(args.out, resume=True).config
        refuse_changed(args.out, asdict(config), given, BackgammonCommandError, RUN_FLAGS,
                       "resume it with the settings it was started with (only -n may grow), or use a new --out folder")
        if args.games is not None:
            config.games = args.games  # --resume -n N: train the run on to N games
    else:
        config = BackgammonRunConfig(**given, **({} if args.games is None else {"games": args.games}))
    expert = (config.expert,) if config.regime != "self" or config.targets == "expert" else ()
    for spec in (*config.test_against, *expert):
        make_bg_player(spec, rng_seed=0)  # a bad spec or a missing gnubg fails now, not after an hour
    if args.actors:  # distributed self-play: the actors play, this process learns (sumito.learn.backgammon.actors)

        run: BackgammonRun = ActorBackgammonRun(args.out, config, resume=args.resume, checkpoint_every=every,
                                                actors=args.actors, publish_every=args.publish_every or 1,
                                                address=args.address)
    else:
        run = BackgammonRun(args.out, config, resume=args.resume, checkpoint_every=every)
    c = run.config
    print(f"training {c.games} games ({c.regime}, targets {c.targets}, {c.encoding}, {c.outputs} output(s), "
          f"alpha {c.alpha}, lambda {c.lam}) into {args.out}", flush=True)

    def report(row: dict) -> None:
        print(f"{row['games']:>7} games  vs {row['opponent']:<14} equity {row['equity']:+.3f} ± "
              f"{row['half_width']:.3f}  wins {row['win_rate']:.1%}  ({row['train_seconds']:.0f} s training)",
              flush=True)

    # the run gives its starting count (a resumed run's) before its first game: the rate counts from there
    progress = Progress(f"bg train {args.out}", c.games, "games", done=None)
    try:
        with progress:
            run.run(progress=report, on_game=progress.update)
    except TrainingInterrupted as stop:
        what = "checkpoint saved" if stop.saved else "the last checkpoint stands"
        print(f"sumito: interrupted: {what} at game {stop.games} of {c.games} in {run.folder}; "
              "continue with --resume", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # a second Ctrl-C while the checkpoint was being written: the previous one stands
        print(f"sumito: interrupted; continue from the last checkpoint in {run.folder} with --resume",
              file=sys.stderr)
        return 130
    report = getattr(run, "report", None)
    if report is not None and report.games:
        print(f"actors: {report.games} games applied, {report.staleness_text()}, {report.published} publications, "
              f"{report.replaced} actor(s) replaced")
    b = run._best()  # None when best.json is missing or damaged
    if b is not None:
        print(f"best: {b['equity']:+.3f} ± {b['half_width']:.3f} vs {b['opponent']} after {b['games']} games "
              f"-> {run.folder / 'best.npz'}")
    return 0
