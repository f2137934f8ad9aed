"""``sumito play``: a game in the terminal, a person (the ``human`` player) against any player.

Any two player specs can meet (``--black``/``--white``); ``--opponent SPEC --color black|white``
is the short way to say "me against SPEC". A human's ``hint`` comes from the strongest engine,
searching at least as long and as deep as the opponent (:func:`~sumito.players.strongest.hint_spec`)
unless the spec names another (``human:hint=SPEC``). A human who resigns or quits (or whose input ends)
loses by resignation. The final board, the result and the reason are printed at the end;
``--out FILE`` writes the game record.
"""

from __future__ import annotations

import argparse
import sys

from sumito.bounds import MAX_SEARCH_SECONDS
from sumito.cliargs import (
    GAME_RULES,
    add_position_args,
    add_rules_args,
    output_file,
    position_from_args,
    rules_from_args,
    seconds_arg,
)
from sumito.errors import SumitoError
from sumito.games.abalone import Game, GameRecord, render, write_records
from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, WHITE, Color
from sumito.players import game_history, make_player
from sumito.players.human import HumanExit, HumanPlayer
from sumito.players.strongest import STRONGEST_ENGINE, hint_spec


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add the ``play`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("play")
    add_position_args(p)
    p.add_argument("--black", default=None, metavar="SPEC", help="player spec for Black (default human)")
    p.add_argument("--white", default=None, metavar="SPEC",
                   help=f"player spec for White (default {STRONGEST_ENGINE}, the strongest engine, 1 s a move)")
    p.add_argument("--opponent", default=None, metavar="SPEC",
                   help=f"you (human) against this player (default {STRONGEST_ENGINE})")
    p.add_argument(
        "--color", choices=("black", "white"), default=None, help="the colour you play with --opponent (default black)"
    )
    p.add_argument(
        "--movetime",
        type=seconds_arg(MAX_SEARCH_SECONDS),
        default=None,
        metavar="SECONDS",
        help="time per move for the computer players",
    )
    add_rules_args(p, GAME_RULES)
    p.add_argument("--out", type=output_file, default=None, metavar="FILE", help="write the game record to FILE")
    p.set_defaults(func=cmd_play)


def player_specs(args: argparse.Namespace) -> tuple[str, str]:
    """The (Black, White) player specs the options ask for."""
    if args.opponent is not None or args.color is not None:
        if args.black is not None or args.white is not None:
            raise SumitoError("use either --black/--white or --opponent/--color, not both")
        opponent = args.opponent or STRONGEST_ENGINE
        return ("human", opponent) if (args.color or "black") == "black" else (opponent, "human")
    return args.black or "human", args.white or STRONGEST_ENGINE


def cmd_play(args: argparse.Namespace) -> int:
    if args.movetime is not None and args.movetime <= 0:
        raise SumitoError(f"--movetime must be more than 0 seconds, not {args.movetime}")
    specs = dict(zip((BLACK, WHITE), player_specs(args)))
    players = {color: make_player(spec) for color, spec in specs.items()}

    game = Game(position_from_args(args), rules_from_args(args))
    out = sys.stdout
    for color, player in players.items():
        if isinstance(player, HumanPlayer):
            player.game = game
            other = Color(color).opponent
            if not player.hint_spec:  # human:hint=SPEC names its own
                person = isinstance(players[other], HumanPlayer)
                player.hint_spec = hint_spec(None if person else specs[other], movetime=args.movetime)
    print(f"Black: {specs[BLACK]}   White: {specs[WHITE]}   (type 'help' at your move)", file=out)
    try:
        while not game.is_over():
            color = game.position.side_to_move
            player = players[color]
            human = isinstance(player, HumanPlayer)
            try:
                move = player.choose(
                    game.position, movetime=None if human else args.movetime, history=game_history(game),
                    draw=game.draw_counters(),
                )
            except HumanExit as exc:
                print(exc, file=out)
                game.resign(exc.color)
                break
            game.push(move)
            print(f"{COLOR_NAMES[color]} plays {move.notation()}", file=out, flush=True)
    except KeyboardInterrupt:
        if args.out:  # keep the moves played so far, as an unfinished game
            write_records(args.out, [GameRecord.from_game(game, Black=specs[BLACK], White=specs[WHITE])])
            print(f"The unfinished game ({game.plies} plies) is in {args.out}", file=out)
        raise
    outcome = game.outcome()
    assert outcome is not None
    print(file=out)
    print(render(game.position), file=out)
    print(f"Result: {outcome.result}, {outcome.describe()} after {game.plies} plies", file=out)
    if args.out:
        record = GameRecord.from_game(game, Black=specs[BLACK], White=specs[WHITE])
        write_records(args.out, [record])
        print(f"Record written to {args.out}", file=out)
    return 0
