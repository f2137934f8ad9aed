"""The commands about positions, rules and records: ``perft``, ``moves``, ``show``, ``layouts``, ``game``,
``players`` and ``replay``."""

from __future__ import annotations

import argparse
import sys
import time

from sumito import jit
from sumito.arena.db import load_record
from sumito.cliargs import rules_from_args
from sumito.cliargs.position import position_from_args
from sumito.errors import SumitoError
from sumito.games.abalone import (
    LAYOUTS,
    WHITE,
    Game,
    GameRecord,
    read_records,
    render,
    write_records,
)
from sumito.games.abalone.geometry import COLOR_NAMES
from sumito.players import game_history, make_player, player_names
from sumito.players.backgammon.players import KINDS as BG_KINDS
from sumito.players.base import PlayerKind, parse_spec
from sumito.players.human import HumanExit


def cmd_perft(args: argparse.Namespace) -> int:
    pos = position_from_args(args)
    t0 = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for move, child in pos.successors():
            n = child.perft(args.depth - 1)
            total += n
            print(f"{move.notation()}: {n}")
        print(f"moves: {pos.count_legal_moves()}")
    else:
        total = pos.perft(args.depth)
    elapsed = time.perf_counter() - t0
    print(f"perft({args.depth}) in {elapsed:.3f} s, {total / max(elapsed, 1e-9):,.0f} leaves/s", file=sys.stderr)
    print(total)
    return 0


def cmd_moves(args: argparse.Namespace) -> int:
    pos = position_from_args(args)
    if args.successors:
        for move, child in pos.successors():
            print(f"{move.notation()} {child.to_string()}")
    else:
        for move in pos.legal_moves():
            print(move.notation())
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    pos = position_from_args(args)
    print(render(pos))
    print(pos.to_string())
    return 0


def cmd_layouts(args: argparse.Namespace) -> int:
    for name, lay in LAYOUTS.items():
        v = lay.variant
        print(f"{name:14} side {v.side}, {v.marbles} marbles, {v.win_threshold} to win: {lay.description}")
        print(f"{'':14} {lay.position_string}")
    return 0


def cmd_game(args: argparse.Namespace) -> int:
    black = make_player(args.black)
    white = make_player(args.white)
    start = position_from_args(args)
    game = Game(start, rules_from_args(args))
    players = {1: black, 2: white}

    live = not args.quiet
    try:
        while not game.is_over():
            color = game.position.side_to_move
            t0, compiled = time.perf_counter(), jit.compile_seconds()
            try:
                move = players[color].choose(game.position, history=game_history(game), draw=game.draw_counters())
            except HumanExit as exc:  # a human player typed quit or resign, or their input ended
                print(f"sumito: {exc}", file=sys.stderr)
                game.resign(exc.color)
                break
            if live:  # each move as it is played, on stderr: stdout stays the record
                number = game.position.move_number
                # the first move of a fresh install is not charged with compiling the kernels it called (said
                # from a second up, as the compile notice: the search's clock compiles in each process in
                # a few hundredths, which no one waits for)
                compiling = jit.compile_seconds() - compiled
                took = f"{time.perf_counter() - t0 - compiling:.1f} s" + (
                    f", and {compiling:.1f} s compiling" if compiling >= jit.NOTICE_AFTER else "")
                print(f"{number}.{'..' if color == WHITE else ''} {COLOR_NAMES[color]} {move.notation()} ({took})",
                      file=sys.stderr, flush=True)
            game.push(move)
    except KeyboardInterrupt:
        if args.out:  # keep the moves played so far, as an unfinished game
            write_records(args.out, [GameRecord.from_game(game, Black=args.black, White=args.white)])
            print(f"sumito: the unfinished game ({game.plies} plies) is in {args.out}", file=sys.stderr)
        raise
    record = GameRecord.from_game(game, Black=args.black, White=args.white)
    if args.out:
        write_records(args.out, [record])
    outcome = game.outcome()
    if not args.quiet:
        print(render(game.position))
        print()
    if outcome is not None:
        print(f"Result: {outcome.result}, {outcome.describe()} after {game.plies} plies", file=sys.stderr)
    print(record.to_text(), end="")
    return 0


def cmd_players(args: argparse.Namespace) -> int:
    """Every player spec of both games, with its options, types, defaults and ranges."""
    if args.game in ("abalone", "both"):
        print("Abalone players (sumito game, match, tournament, play, engine, serve):")
        _print_kinds([parse_spec(name)[0] for name in player_names()])
    if args.game in ("backgammon", "both"):
        if args.game == "both":
            print()
        print("Backgammon players (sumito bg game, match, play, train --expert):")
        _print_kinds([BG_KINDS[name] for name in sorted(BG_KINDS)])
    print("\nA spec is a name, optionally ':' and comma-separated key=value options, e.g. engine:time=2,hash=64")
    return 0


def _print_kinds(kinds: list[PlayerKind]) -> None:
    for kind in kinds:
        print(f"  {kind.name:10} {kind.help}")
        if kind.sides is not None:
            print(f"    plays the side-{' and side-'.join(map(str, kind.sides))} board only")
        for key, option in kind.options.items():
            bounds = f" [{option.range_text()}]" if option.range_text() else ""
            # an option without a fixed default either says in its help what decides it, or is unset
            if option.default is not None:
                default = f" (default {option.default})"
            else:
                default = "" if "default" in option.help else " (unset by default)"
            print(f"    {key}={option.type.__name__}{bounds}{default}: {option.help}")


def cmd_replay(args: argparse.Namespace) -> int:
    if (args.file is None) == (args.id is None):
        raise SumitoError("replay needs a record FILE or --id N of a stored game (see `sumito games`), not both")
    if args.id is not None:
        records, source = [load_record(args.db, args.id)], f"stored game {args.id}"
    else:
        records, source = read_records(args.file), args.file
    if not 1 <= args.game <= len(records):
        raise SumitoError(f"{source} holds {len(records)} game(s); there is no game {args.game}")
    record = records[args.game - 1]
    game = record.game
    ply = game.plies if args.ply is None else args.ply
    if not 0 <= ply <= game.plies:
        raise SumitoError(f"game {args.game} has {game.plies} plies; there is no ply {ply}")
    pos = game.positions[ply]
    print(f"{record.tags.get('Black', '?')} (Black) vs {record.tags.get('White', '?')} (White), {record.result}")
    if ply:
        print(f"after ply {ply}: {game.moves[ply - 1].notation()}")
    print(render(pos))
    print(pos.to_string())
    outcome = game.outcome()
    if ply == game.plies and outcome is not None:
        print(f"result: {outcome.result}, {outcome.describe()}")
    return 0
