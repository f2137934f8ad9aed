"""``sumito engine``: a small UCI-like text protocol on stdin/stdout, to drive any player.

One command a line; replies are lines too, and stdout is flushed after each reply. Commands
that only change state (``player``, ``position``, ``newgame``) answer nothing when they work,
like UCI; ``isready`` answers ``readyok`` once everything before it is done.

::

    player <spec>                          choose the player (default: engine, else random)
    position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
    position <position string> [win N] [inline-only] [moves m1 m2 ...]
    go [depth N] [movetime MS]             -> [info ...] bestmove <move>   (or bestmove none)
    moves                                  -> moves <m1> <m2> ...  (the legal moves)
    d | show                               the board and the position string
    isready                                -> readyok
    newgame                                back to the standard start, with a fresh player
    help | quit

Anything malformed or impossible (an unknown command, a bad spec, a bad position string, an
illegal move) gets exactly one line ``error <reason>`` and the engine goes on. End of input quits.
The game history (start position and moves) is kept, with the default draw rules (threefold
repetition draws), so ``go`` in a finished game answers ``bestmove none`` with an ``info`` line.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import TextIO

from sumito.engine import DrawRules, Game, SumitoError, render
from sumito.players import game_history, make_player, parse_spec, player_names
from sumito.players.base import Player, set_option

HELP = """\
commands (one a line; replies are lines):
  player <spec>             choose the player, e.g. random:seed=3 (no reply; errors say why)
  player                    -> info player <spec>
  position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
  position <rows> <side> <lost by Black> <lost by White> <move number> [win N] [inline-only] [moves ...]
  go [depth N] [movetime MS] -> info time <ms>ms, then bestmove <move> (bestmove none when the game is over)
  moves                     -> moves <the legal moves>
  d | show                  the board and the position string
  isready                   -> readyok
  newgame                   the standard start again, with a fresh player
  help                      this text
  quit                      leave (so does the end of the input)
anything wrong gets one line: error <reason>"""


class ProtocolError(SumitoError):
    """A malformed or impossible command."""


def default_spec() -> str:
    """``engine`` when that player exists, else ``random``."""
    return "engine" if "engine" in player_names() else "random"


def spec_with_depth(spec: str, depth: int) -> str:
    """``spec`` with its ``depth`` option set to ``depth``; an error when the player has none."""
    kind, _ = parse_spec(spec)
    if "depth" not in kind.options:
        raise ProtocolError(f"player {kind.name} has no depth option")
    return set_option(spec, "depth", depth)


class EngineProtocol:
    """The protocol's state (player, game) and its command loop over two text streams."""

    def __init__(self, player: str | None = None, instream: TextIO | None = None, outstream: TextIO | None = None):
        self.instream = instream if instream is not None else sys.stdin
        self.outstream = outstream if outstream is not None else sys.stdout
        self.spec = player or default_spec()
        self.player = self._build(self.spec)
        self.game = Game("standard", DrawRules())
        self._depth_player: tuple[int, Player] | None = None

    # ----------------------------------------------------------------- the loop
    def run(self) -> int:
        """Answer commands until ``quit`` or the end of the input."""
        while True:
            line = self.instream.readline()
            if not line or not self.handle(line):
                return 0

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` when it was ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command, args = tokens[0].lower(), tokens[1:]
        handler = _COMMANDS.get(command)
        try:
            if handler is None:
                raise ProtocolError(f"unknown command {tokens[0]!r} (try help)")
            return handler(self, args) is not False
        except SumitoError as exc:
            self._send(f"error {exc}")
        except Exception as exc:  # a broken player must not take the engine down
            self._send(f"error {type(exc).__name__}: {exc}")
        return True

    def _send(self, *lines: str) -> None:
        for line in lines:
            if line.startswith("error "):
                line = " ".join(line.split())  # exactly one line
            self.outstream.write(line + "\n")
        self.outstream.flush()

    # ----------------------------------------------------------------- commands
    def cmd_quit(self, args: list[str]) -> bool:
        _no_args("quit", args)
        return False

    def cmd_isready(self, args: list[str]) -> None:
        _no_args("isready", args)
        self._send("readyok")

    def cmd_help(self, args: list[str]) -> None:
        self._send(*HELP.splitlines())

    def cmd_player(self, args: list[str]) -> None:
        if not args:
            self._send(f"info player {self.spec}")
            return
        spec = " ".join(args)
        player = self._build(spec)
        self.spec, self.player, self._depth_player = spec, player, None

    def cmd_newgame(self, args: list[str]) -> None:
        _no_args("newgame", args)
        player = self._build(self.spec)
        self.game = Game("standard", DrawRules())
        self.player, self._depth_player = player, None

    def cmd_position(self, args: list[str]) -> None:
        from sumito.cliargs import position_from_args

        lowered = [a.lower() for a in args]
        cut = lowered.index("moves") if "moves" in lowered else len(args)
        setup, moves = args[:cut], args[cut + 1 :]
        if not setup:
            raise ProtocolError("position needs 'startpos' or a position string")
        options = argparse.Namespace(layout=None, position=None, moves=[], win=None, inline_only=False)
        if setup[0].lower() == "startpos":
            options.layout, rest = "standard", setup[1:]
        else:
            options.position, rest = " ".join(setup[:5]), setup[5:]
        while rest:
            word = rest.pop(0).lower()
            if word == "layout" and options.layout is not None and rest:
                options.layout = rest.pop(0).lower()
            elif word == "win" and rest:
                options.win = _number(rest.pop(0), "win", whole=True, least=1)
            elif word in ("inline-only", "inlineonly"):
                options.inline_only = True
            elif word == "layout" and options.layout is None:
                raise ProtocolError("layout NAME goes with startpos, not with a position string")
            elif word in ("layout", "win"):
                raise ProtocolError(f"'{word}' needs a value")
            else:
                raise ProtocolError(
                    f"unexpected {word!r} in position (expected layout NAME after startpos, win N, inline-only "
                    "or moves)"
                )
        game = Game(position_from_args(options), DrawRules())
        for i, move in enumerate(moves, 1):
            try:
                game.push(move)
            except SumitoError as exc:
                raise ProtocolError(f"move {i} ({move}): {exc}") from None
        self.game = game

    def cmd_go(self, args: list[str]) -> None:
        depth: int | None = None
        movetime_ms: float | None = None
        rest = list(args)
        while rest:
            word = rest.pop(0).lower()
            if word not in ("depth", "movetime"):
                raise ProtocolError(f"unexpected {word!r} in go (expected depth N or movetime MS)")
            if not rest:
                raise ProtocolError(f"'{word}' needs a value")
            if word == "depth":
                depth = int(_number(rest.pop(0), "depth", whole=True, least=1))
            else:
                movetime_ms = _number(rest.pop(0), "movetime", whole=False, least=0)
        player = self.player if depth is None else self._player_at_depth(depth)
        outcome = self.game.outcome()
        if outcome is not None:
            self._send(f"info game over: {outcome.describe()}", "bestmove none")
            return
        position = self.game.position
        movetime = None if movetime_ms is None else movetime_ms / 1000
        t0 = time.perf_counter()
        move = player.choose(position, movetime=movetime, history=game_history(self.game))
        elapsed_ms = (time.perf_counter() - t0) * 1000
        if not position.is_legal(move):
            raise ProtocolError(f"player {self.spec} chose {move}, which is not legal here")
        info = getattr(player, "search_info", None)  # players that search say what they found
        if info:
            self._send(f"info {info}")
        self._send(f"info time {elapsed_ms:.0f}ms", f"bestmove {move.notation()}")

    def cmd_moves(self, args: list[str]) -> None:
        _no_args("moves", args)
        self._send(" ".join(["moves", *(m.notation() for m in self.game.legal_moves())]))

    def cmd_show(self, args: list[str]) -> None:
        _no_args("show", args)
        lines = render(self.game.position).splitlines()
        if self.game.moves:
            lines.append("moves " + " ".join(m.notation() for m in self.game.moves))
        outcome = self.game.outcome()
        if outcome is not None:
            lines.append(f"game over: {outcome.describe()}")
        lines.append(self.game.position.to_string())
        self._send(*lines)

    # ----------------------------------------------------------------- helpers
    def _build(self, spec: str) -> Player:
        kind, _ = parse_spec(spec)
        if kind.name == "human":
            raise ProtocolError("the human player cannot be driven through the engine protocol")
        return make_player(spec)

    def _player_at_depth(self, depth: int) -> Player:
        if self._depth_player is None or self._depth_player[0] != depth:
            self._depth_player = (depth, make_player(spec_with_depth(self.spec, depth)))
        return self._depth_player[1]


_COMMANDS = {
    "quit": EngineProtocol.cmd_quit,
    "isready": EngineProtocol.cmd_isready,
    "help": EngineProtocol.cmd_help,
    "player": EngineProtocol.cmd_player,
    "newgame": EngineProtocol.cmd_newgame,
    "position": EngineProtocol.cmd_position,
    "go": EngineProtocol.cmd_go,
    "moves": EngineProtocol.cmd_moves,
    "d": EngineProtocol.cmd_show,
    "show": EngineProtocol.cmd_show,
}


def _no_args(command: str, args: list[str]) -> None:
    if args:
        raise ProtocolError(f"{command} takes no arguments, got {' '.join(args)!r}")


def _number(text: str, what: str, whole: bool, least: float) -> float:
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ProtocolError(f"{what} must be {kind}, not {text!r}") from None
    if not value >= least:  # also refuses nan
        raise ProtocolError(f"{what} must be at least {least:g}, not {text}")
    return value


def run_engine(player: str | None = None, instream: TextIO | None = None, outstream: TextIO | None = None) -> int:
    """Run the protocol on the given streams (default stdin and stdout) until quit or end of input."""
    return EngineProtocol(player, instream, outstream).run()


def add_engine_command(sub: argparse._SubParsersAction) -> None:
    """Add the ``engine`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("engine", help="talk a UCI-like text protocol on stdin/stdout (for GUIs and other programs)")
    p.add_argument(
        "--player", default=None, metavar="SPEC", help="the player to start with (default engine, else random)"
    )
    p.set_defaults(func=lambda args: run_engine(args.player))
