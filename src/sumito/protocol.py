"""``sumito engine``: a small UCI-like text protocol on stdin/stdout, to drive any player.

One command a line; replies are lines too, and stdout is flushed after each reply. Commands
that only change state (``player``, ``position``, ``newgame``) answer nothing when they work,
like UCI; ``isready`` answers ``readyok`` once everything before it is done.

::

    player <spec>                          choose the player (default: engine, else random)
    position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
    position <position string> [win N] [inline-only] [moves m1 m2 ...]
    go [depth N] [movetime MS] [infinite]  -> [info ...] bestmove <move>   (or bestmove none)
    stop                                   end the search now: bestmove with what it found so far
    moves                                  -> moves <m1> <m2> ...  (the legal moves)
    d | show                               the board and the position string
    isready                                -> readyok
    newgame                                back to the standard start, with a fresh player
    help | quit

Anything malformed or impossible (an unknown command, a bad spec, a bad position string, an
illegal move, a line of more than 64 KiB, bytes that are not UTF-8) gets exactly one line
``error <reason>`` and the engine goes on. End of input quits once a running search has ended.

The search runs beside the command reader, as in UCI: while it thinks, ``stop`` ends it (the
``bestmove`` then comes at once, from the deepest finished iteration), ``isready`` is answered at
once and ``quit`` stops it and leaves; any other command waits until the ``bestmove`` is out.
``go depth`` is at most 64 plies, ``movetime`` at most a day; ``go infinite`` searches (the
``engine`` player) until ``stop``.
The game history (start position and moves) is kept, with the default draw rules (threefold
repetition draws), so ``go`` in a finished game answers ``bestmove none`` with an ``info`` line.
"""

from __future__ import annotations

import argparse
import queue
import sys
import threading
import time
from collections import deque
from typing import IO

from sumito.bounds import MAX_LINE_CHARS, MAX_SEARCH_DEPTH, MAX_SEARCH_SECONDS
from sumito.engine import DrawRules, Game, SumitoError, render
from sumito.players import game_history, make_player, parse_spec, player_names
from sumito.players.base import Player, set_option
from sumito.stopping import clear_stop, request_stop

#: a line too long to be a command: the reader skips it and this stands in its place
_TOO_LONG = "\0too-long"
#: the longest error line (an error quotes what it refuses, which may be a 64 KiB line)
MAX_ERROR_CHARS = 300
#: commands answered while a search runs (the others wait for its bestmove)
_AT_ONCE = ("stop", "isready", "quit")

HELP = """\
commands (one a line; replies are lines):
  player <spec>             choose the player, e.g. random:seed=3 (no reply; errors say why)
  player                    -> info player <spec>
  position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
  position <rows> <side> <lost by Black> <lost by White> <move number> [win N] [inline-only] [moves ...]
  go [depth N] [movetime MS] [infinite]
                            -> info time <ms>ms, then bestmove <move> (bestmove none when the game is over)
  stop                      end a running search now (bestmove comes at once)
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

    def __init__(self, player: str | None = None, instream: IO | None = None, outstream: IO[str] | None = None):
        self.instream = instream if instream is not None else sys.stdin
        self.outstream = outstream if outstream is not None else sys.stdout
        self.spec = player or default_spec()
        self.player = self._build(self.spec)
        self.game = Game("standard", DrawRules())
        self._depth_player: tuple[int, Player] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._search: threading.Thread | None = None
        self._out_lock = threading.Lock()

    # ----------------------------------------------------------------- the loop
    def run(self) -> int:
        """Answer commands until ``quit`` or the end of the input. The input is read in a thread of
        its own, so that ``stop``, ``isready`` and ``quit`` are answered while a search runs."""
        threading.Thread(target=self._read_lines, name="sumito-protocol-reader", daemon=True).start()
        waiting: deque[str] = deque()  # commands that came during a search, in order
        end_of_input = False
        try:
            while True:
                if self._search is not None and not self._search.is_alive():
                    self._search.join()
                    self._search = None
                if self._search is None and waiting:
                    if not self._dispatch(waiting.popleft()):
                        return 0
                    continue
                if end_of_input:
                    if self._search is None:
                        return 0
                    self._search.join()
                    continue
                try:
                    line = self._lines.get(timeout=0.02 if self._search is not None else None)
                except queue.Empty:
                    continue
                if line is None:
                    end_of_input = True
                elif self._search is None:
                    if not self._dispatch(line):
                        return 0
                elif _first_word(line) in _AT_ONCE:
                    if not self.handle(line):
                        return 0
                else:
                    waiting.append(line)
        finally:
            self._stop_search()

    def _read_lines(self) -> None:
        """Feed the queue with the input's lines, bounded, as text (bytes that are not UTF-8 become
        U+FFFD, which no command contains); ``None`` at the end."""
        source = getattr(self.instream, "buffer", self.instream)
        try:
            while True:
                raw = source.readline(MAX_LINE_CHARS + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE_CHARS and not raw.endswith(b"\n" if isinstance(raw, bytes) else "\n"):
                    while raw and not raw.endswith(b"\n" if isinstance(raw, bytes) else "\n"):
                        raw = source.readline(MAX_LINE_CHARS + 1)  # skip the rest of the line, a piece at a time
                    self._lines.put(_TOO_LONG)
                    continue
                self._lines.put(raw.decode("utf-8", errors="replace") if isinstance(raw, bytes) else raw)
        except (OSError, ValueError):  # a closed or broken input is the end of it
            pass
        finally:
            self._lines.put(None)

    def _dispatch(self, line: str) -> bool:
        """Handle ``line`` from the loop: ``go`` starts the search in a thread, the rest runs here."""
        if _first_word(line) != "go":
            return self.handle(line)
        try:
            plan = self._plan_go(line.split()[1:])
        except SumitoError as exc:
            self._send(f"error {exc}")
            return True
        clear_stop()
        self._search = threading.Thread(target=self._think_safely, args=plan, name="sumito-search", daemon=True)
        self._search.start()
        self._search.join(0.2)  # a quick player answers before the next command is even looked at
        return True

    def _stop_search(self) -> None:
        if self._search is not None:
            request_stop()
            self._search.join()
            self._search = None
            clear_stop()

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` when it was ``quit``. (``go`` runs to its end here.)"""
        if line == _TOO_LONG:
            self._send(f"error the line is longer than {MAX_LINE_CHARS} characters; it was skipped")
            return True
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
        with self._out_lock:  # the search thread and the loop both answer
            for line in lines:
                if line.startswith("error "):
                    line = " ".join(line.split())  # exactly one line, and a short one whatever it quotes
                    if len(line) > MAX_ERROR_CHARS:
                        line = line[: MAX_ERROR_CHARS - 3] + "..."
                self.outstream.write(line + "\n")
            self.outstream.flush()

    # ----------------------------------------------------------------- commands
    def cmd_quit(self, args: list[str]) -> bool:
        _no_args("quit", args)
        self._stop_search()
        return False

    def cmd_stop(self, args: list[str]) -> None:
        _no_args("stop", args)
        if self._search is not None:  # stop with no search running is ignored, as in UCI
            request_stop()

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
                options.win = _number(rest.pop(0), "win", whole=True, least=1, most=99)
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
        self._think(*self._plan_go(args))

    def _plan_go(self, args: list[str]) -> tuple[Player, float | None]:
        """The player and time for ``go ARGS``, or a :class:`ProtocolError`."""
        depth: int | None = None
        movetime_ms: float | None = None
        infinite = False
        rest = list(args)
        while rest:
            word = rest.pop(0).lower()
            if word == "infinite":
                infinite = True
                continue
            if word not in ("depth", "movetime"):
                raise ProtocolError(f"unexpected {word[:40]!r} in go (expected depth N, movetime MS or infinite)")
            if not rest:
                raise ProtocolError(f"'{word}' needs a value")
            if word == "depth":
                depth = int(_number(rest.pop(0), "depth", whole=True, least=1, most=MAX_SEARCH_DEPTH))
            else:
                movetime_ms = _number(rest.pop(0), "movetime", whole=False, least=0, most=MAX_SEARCH_SECONDS * 1000)
        if infinite and (depth is not None or movetime_ms is not None):
            raise ProtocolError("go infinite takes no depth or movetime")
        if infinite:
            player = self._player_without_limit()
        else:
            player = self.player if depth is None else self._player_at_depth(depth)
        return player, None if movetime_ms is None else movetime_ms / 1000

    def _think_safely(self, player: Player, movetime: float | None) -> None:
        """:meth:`_think` in the search thread: every failure is an error line, as in :meth:`handle`."""
        try:
            self._think(player, movetime)
        except SumitoError as exc:
            self._send(f"error {exc}")
        except Exception as exc:  # a broken player must not take the engine down
            self._send(f"error {type(exc).__name__}: {exc}")

    def _think(self, player: Player, movetime: float | None) -> None:
        outcome = self.game.outcome()
        if outcome is not None:
            self._send(f"info game over: {outcome.describe()}", "bestmove none")
            return
        position = self.game.position
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

    def _player_without_limit(self) -> Player:
        """The player for ``go infinite``: the engine searching to its deepest with no clock (until
        ``stop``); a player that cannot search deeper plays as it always does."""
        kind, _ = parse_spec(self.spec)
        if kind.name != "engine":
            return self.player
        name, _, opts = self.spec.partition(":")
        limits = ("time", "depth")
        kept = [o for o in opts.split(",") if o.strip() and o.partition("=")[0].strip().lower() not in limits]
        return make_player(set_option(f"{name}:{','.join(kept)}", "depth", MAX_SEARCH_DEPTH))

    def _player_at_depth(self, depth: int) -> Player:
        if self._depth_player is None or self._depth_player[0] != depth:
            self._depth_player = (depth, make_player(spec_with_depth(self.spec, depth)))
        return self._depth_player[1]


_COMMANDS = {
    "quit": EngineProtocol.cmd_quit,
    "stop": EngineProtocol.cmd_stop,
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


def _first_word(line: str) -> str:
    return line.split(maxsplit=1)[0].lower() if line.strip() else ""


def _number(text: str, what: str, whole: bool, least: float, most: float = 10**9) -> float:
    shown = text if len(text) <= 20 else text[:17] + "..."
    kind = "a whole number" if whole else "a number"
    try:
        if len(text) > 30 or not text.isascii():  # no 5,000-digit numbers, no '²' or other non-ASCII digits
            raise ValueError
        value = int(text) if whole else float(text)
    except ValueError:
        raise ProtocolError(f"{what} must be {kind}, not {shown!r}") from None
    if not least <= value <= most:  # also refuses nan and inf
        raise ProtocolError(f"{what} must be from {least:g} to {most:g}, not {shown}")
    return value


def run_engine(player: str | None = None, instream: IO | None = None, outstream: IO[str] | None = None) -> int:
    """Run the protocol on the given streams (default stdin, read as bytes, and stdout) until quit or
    the end of the input."""
    if outstream is None and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")  # an error line quoting odd input never fails to print
    return EngineProtocol(player, instream, outstream).run()


def add_engine_command(sub: argparse._SubParsersAction) -> None:
    """Add the ``engine`` subcommand to the ``sumito`` parser's subcommands."""
    p = sub.add_parser("engine", help="talk a UCI-like text protocol on stdin/stdout (for GUIs and other programs)")
    p.add_argument(
        "--player", default=None, metavar="SPEC", help="the player to start with (default engine, else random)"
    )
    p.set_defaults(func=lambda args: run_engine(args.player))
