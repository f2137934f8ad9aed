"""``sumito play``: a game in the terminal, a person (the ``human`` player) against any player.

Any two player specs can meet (``--black``/``--white``); ``--opponent SPEC --color black|white``
is the short way to say "me against SPEC". A human's ``hint`` comes from the strongest engine,
searching at least as long and as deep as the opponent (:func:`~sumito.players.strongest.hint_spec`)
unless the spec names another (``human:hint=SPEC``). A human who resigns or quits (or whose input ends)
loses by resignation; ``undo`` takes back the human's last move and the replies since, ``redo`` plays them again
(until another move is played). Every computer player loads what its first move needs before the game starts
(compiled kernels, a solved table), and one that cannot play the board says so then. The final board, the
result and the reason are printed at the end, and the finished game is stored in the game archive
(``sumito games`` lists it; ``--no-db`` not to); ``--out FILE`` writes the game record too.
"""

from __future__ import annotations

import argparse
import sys

from sumito.arena.db import GameArchive, finished_game_fields
from sumito.cliargs import rules_from_args
from sumito.cliargs.position import position_from_args
from sumito.defaults import STRONGEST_ENGINE
from sumito.errors import SumitoError
from sumito.games.abalone import Game, GameRecord, Move, render, write_records
from sumito.games.abalone.geometry import BLACK, COLOR_NAMES, WHITE, Color
from sumito.games.abalone.variants import layout_of
from sumito.players import game_history, make_player, warm_up
from sumito.players.human import HumanExit, HumanPlayer, Redo, Undo
from sumito.players.strongest import hint_spec


def player_specs(args: argparse.Namespace) -> tuple[str, str]:
    """The (Black, White) player specs the options ask for."""
    if args.opponent is not None or args.color is not None:
        if args.black is not None or args.white is not None:
            raise SumitoError("use either --black/--white or --opponent/--color, not both")
        opponent = args.opponent or STRONGEST_ENGINE
        return ("human", opponent) if (args.color or "black") == "black" else (opponent, "human")
    return args.black or "human", args.white or STRONGEST_ENGINE


def take_back(game: Game, request: Undo, redo: list[list[Move]]) -> str:
    """Answer a human's ``undo`` or ``redo`` on ``game``: an undo takes back the player's last move and the replies
    since (:meth:`Game.plies_since_turn`) as one group onto ``redo``, a redo plays the last group again."""
    who = COLOR_NAMES[request.color]
    if isinstance(request, Redo):
        if not redo:
            return "nothing to redo"
        group = redo.pop()
        for move in group:
            game.push(move)
        return f"{who} plays again {len(group)} {'ply' if len(group) == 1 else 'plies'} taken back"
    plies = game.plies_since_turn(request.color)
    if plies is None:
        return "nothing to undo"
    redo.append([game.pop() for _ in range(plies)][::-1])
    return f"{who} takes back {plies} {'ply' if plies == 1 else 'plies'} (redo plays them again)"


def cmd_play(args: argparse.Namespace) -> int:
    if args.movetime is not None and args.movetime <= 0:
        raise SumitoError(f"--movetime must be more than 0 seconds, not {args.movetime}")
    specs = dict(zip((BLACK, WHITE), player_specs(args)))
    players = {color: make_player(spec) for color, spec in specs.items()}

    game = Game(position_from_args(args), rules_from_args(args))
    out = sys.stdout
    archive = None if args.no_db else GameArchive(args.db)  # a database that cannot be opened: said before the game
    for player in players.values():
        if not isinstance(player, HumanPlayer):
            warm_up(player, game.position)  # kernels, tables: before the first move, and a refusal before the game
    for color, player in players.items():
        if isinstance(player, HumanPlayer):
            player.game = game
            other = Color(color).opponent
            if not player.hint_spec:  # human:hint=SPEC names its own
                person = isinstance(players[other], HumanPlayer)
                player.hint_spec = hint_spec(None if person else specs[other], movetime=args.movetime)
    print(f"Black: {specs[BLACK]}   White: {specs[WHITE]}   (type 'help' at your move)", file=out)
    redo: list[list[Move]] = []  # the plies each undo took back, in the order they were played
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
            except Undo as request:
                print(take_back(game, request, redo), file=out)
                continue
            redo.clear()  # a new move: what undo took back cannot be played again
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
    if archive is not None:
        with archive:
            game_id = archive.add_single_game("play", [specs[BLACK], specs[WHITE]],
                                              **finished_game_fields(game, layout_of(game.start)))
        print(f"Stored as game {game_id} in {archive.path} (`sumito games --id {game_id}`)", file=out)
    if args.out:
        record = GameRecord.from_game(game, Black=specs[BLACK], White=specs[WHITE])
        write_records(args.out, [record])
        print(f"Record written to {args.out}", file=out)
    return 0
