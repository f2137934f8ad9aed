"""``sumito engine``: a small UCI-like text protocol on stdin/stdout, to drive any player.

One command a line; replies are lines too, and stdout is flushed after each reply. Commands
that only change state (``player``, ``position``, ``newgame``, ``setoption``) answer nothing when
they work, like UCI; ``isready`` answers ``readyok`` once everything before it is done and the
player has loaded its compiled search. The clock never stops a search before its first
iteration: every ``go`` reports at least depth 1.

What a first move needs (the compiled search for the board and the evaluation, from numba's cache or
compiled on a first use; the engine's table; a solved table) loads in the background as soon as the player
or the position is set (at start, ``player``, ``setoption``, ``position``, ``newgame``), so that no move's
clock pays for it. The commands that come meanwhile wait for it, ``isready`` and ``go`` among them, except
``quit``, ``stop``, ``uci``, ``help``, ``moves`` and ``d`` when no other command waits before them; ``quit``
then leaves at once. A load of more than a second says so, and every 5 s how long it has taken::

    info string preparing engine on the side-3 board (evaluation linear ..., threads 2): compiling its search ...
    info string preparing engine: 6 s (compiling)
    info string engine ready after 9.2 s (8.9 s compiling)

(``SUMITO_COMPILE_NOTICE=0`` silences these lines, as it does the compile notice.)

::

    uci                                    -> id name ..., id author ..., option name ... lines, uciok
    player <spec>                          choose the player (default: engine, else random)
    setoption name MultiPV|Hash|Contempt|Threads|EvalFile|MaxPlies|NoCapture value X
                                 the engine's lines, table MB, draw cost (cp), threads, network, draw rules
    position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
    position <position string> [win N] [inline-only] [moves m1 m2 ...]
    go [depth N] [nodes N] [movetime MS] [wtime MS] [btime MS] [winc MS] [binc MS] [movestogo N] | go infinite
                                           -> info string evaluation ..., threads N (the first go, and
                                              after each change), info depth ... (one a finished iteration),
                                              info time MS, bestmove <move>   (or bestmove none)
    stop                                   end the search now: bestmove with what it found so far
    moves                                  -> moves <m1> <m2> ...  (the legal moves)
    d | show                               the board and the position string
    isready                                -> readyok
    newgame | ucinewgame                   back to the standard start, with a fresh player
    help | quit

While the engine searches it streams one line per completed iteration, from the search thread::

    info depth D [multipv K] score cp N|mate M nodes N nps N time MS pv m1 m2 ...

``cp`` is in hundredths of a marble for the side to move (100 = one marble: the linear
evaluation's material weight, or 1000 points of a network; hundredths of a point with the papers'
evaluations), ``mate M`` a forced result: M > 0 wins in M own moves, M < 0 loses after -M of the
opponent's. With ``setoption name MultiPV value K`` (K > 1) each iteration gives K lines,
``multipv 1`` the best. Players that do not search (random, ...) send no ``info depth`` line;
every ``go`` ends with ``info time MS`` (the whole move, in milliseconds) and ``bestmove``.

Time: ``movetime`` is the time for this move; ``wtime``/``btime`` are White's and Black's clocks
and ``winc``/``binc`` their increments, all in milliseconds, and the side to move's share is
:func:`sumito.search.timeman.move_time` (``movestogo``: moves until the next time control). With
``movetime`` or a clock the engine's own ``time=`` option is set aside (the GUI's clock rules) and
both ``movetime`` and the clock's share cap the search, as does ``depth``. ``go`` with no limit
uses the player as its spec says (the engine: 1 s). ``movetime 0`` means 1 ms.

Options (``setoption``, names case-insensitive; the engine player's spec options of the same meaning, so
``player`` shows them): ``MultiPV`` 1-256 (the engine's ``multipv``), ``Hash`` 1-4096 MB (``hash``; a new,
empty table, made here: ``go`` never makes or empties one), ``Contempt`` -10000 to 10000 hundredths of a
marble, as ``cp`` (``contempt``, in marbles: what a draw costs the engine), ``Threads`` 1-64 (``threads``;
default the cores available, at most 8; more than the cores this process may use is taken as that many, which
an ``info string`` says, as are a ``player`` spec's ``threads``), ``EvalFile`` (``nnue``: an NNUE file, a
shipped network's name, or ``none`` for the hand-set evaluation), and the game's draw rules, which the
engine's search plays to: ``MaxPlies`` (a draw after that many plies) and ``NoCapture`` (a draw after that
many plies without a push-off), 0-100000, 0 = off (the default: only threefold repetition). A player without
the option answers an error. A ``setoption`` or ``player`` that fails (a bad value, a missing or damaged
network file) leaves the player as it was. Numbers are ASCII digits with an optional sign, point and exponent
(:func:`sumito.bounds.read_number`, as in player specs): not ``1_0``, ``nan`` or ``inf``.

The first ``go`` says what the player searches with, and so does the next ``go`` after that changes:
``info string evaluation nnue builtin-nnue, threads 2`` (players with an evaluation).

Anything malformed or impossible (an unknown command, a bad spec, a bad position string, an
illegal move, a line of more than 64 KiB, bytes that are not UTF-8) gets exactly one line
``info string error <reason>`` (which GUIs show; they ignore lines they do not know) and the engine goes
on. End of input quits once the commands before it are answered: ``sumito engine`` gives each search left
a second to end by itself, then stops it as ``stop`` does (its ``bestmove`` is still written), so a ``go
infinite`` whose GUI went away never leaves a process searching on (:func:`run_engine` on other streams
waits for each search unless given ``eof_grace``).

The search runs beside the command reader, as in UCI, and the commands are taken in the order they come, as
Stockfish takes them: while it thinks, ``stop`` ends it (the ``bestmove`` then comes at once, from the
deepest finished iteration: every search thread reads the stop flag at each node), ``isready`` is answered
at once and ``quit`` stops it (its ``bestmove`` still comes) and leaves, when their turn comes; any other
command, ``go`` too, waits until the ``bestmove`` is out. So every ``go`` is answered by one ``bestmove``:
five ``go depth 3`` and a ``quit`` piped in are five, the fifth stopped by the ``quit`` if it still runs
(a ``go`` refused as malformed searches nothing: its error line is its answer; a player that fails answers
its error line and ``bestmove none``). A ``position`` sent during a search is for the next ``go``. A ``go
infinite`` is stopped by the first ``stop`` or ``quit`` read after it, even when other commands wait between
them (they could not run before it ends); that ``stop`` is then spent, and that ``quit`` still stops the
search running in its turn. Commands after a ``quit`` are never read.
``go depth`` is at most 64 plies, ``movetime`` and the clocks at most a day; ``go infinite``
searches (the ``engine`` player) until ``stop``.
The game history (start position and moves) is kept, with the default draw rules (threefold
repetition draws), so ``go`` in a finished game answers ``bestmove none`` with an ``info`` line.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import queue
import sys
import threading
import time
from collections import deque
from dataclasses import replace
from typing import IO

from sumito import __version__
from sumito.bounds import (
    MAX_HASH_MB,
    MAX_LINE_CHARS,
    MAX_SEARCH_DEPTH,
    MAX_SEARCH_NODES,
    MAX_SEARCH_SECONDS,
    parse_number,
)
from sumito.cliargs.position import position_from_args
from sumito.defaults import STRONGEST_ENGINE
from sumito.errors import SumitoError
from sumito.games.abalone import WHITE, DrawRules, Game, Move, render
from sumito.games.abalone.interop import is_playstrategy_fen
from sumito.jit import compile_seconds, compiling
from sumito.players import game_history, make_player, parse_spec, player_names
from sumito.players.base import Player, set_option, warm_up
from sumito.players.engine import EnginePlayer
from sumito.procs import available_cores
from sumito.search.pvs import MAX_THREADS, SearchResult, mate_moves
from sumito.search.timeman import move_time
from sumito.stopping import clear_stop, request_stop

#: a line too long to be a command: the reader skips it and this stands in its place
_TOO_LONG = "\0too-long"
#: how every error line begins: an ``info string``, which GUIs show (and a bare ``error`` line they ignore)
ERROR_PREFIX = "info string error "
#: the longest error line (an error quotes what it refuses, which may be a 64 KiB line)
MAX_ERROR_CHARS = 300
#: commands answered while a search runs (the others wait for its bestmove)
_AT_ONCE = ("stop", "isready", "quit")
#: commands answered while the player loads its compiled search when no other command waits (the others,
#: isready too, wait for it): those that change nothing (a GUI's uci at start-up is answered at once)
_DURING_LOAD = ("quit", "stop", "uci", "help", "moves", "d", "show")
#: seconds a load runs before it is announced (loading from numba's cache takes about one; a compile, more),
#: and between the lines that say it goes on
LOAD_NOTICE_AFTER = 1.0
LOAD_PROGRESS_EVERY = 5.0
_LOAD_THREAD = "sumito-load"
#: the longest time ``go`` takes in milliseconds (movetime, clocks, increments)
_MAX_MS = MAX_SEARCH_SECONDS * 1000
#: the shortest time for a move (``movetime 0``, an empty clock): the engine still answers a legal move
MIN_MOVE_SECONDS = 0.001
#: ``go`` options with a value: (whole number?, least, most)
_GO_LIMITS = {
    "depth": (True, 1, MAX_SEARCH_DEPTH),
    "nodes": (True, 1, MAX_SEARCH_NODES),
    "movetime": (False, 0, _MAX_MS),
    "wtime": (False, 0, _MAX_MS),
    "btime": (False, 0, _MAX_MS),
    "winc": (False, 0, _MAX_MS),
    "binc": (False, 0, _MAX_MS),
    "movestogo": (True, 1, 10_000),
}
#: setoption names (lower case) -> (the name as UCI shows it, the player option, whole?, least, most, and
#: what one unit of the protocol's value is in the option's: Contempt is in hundredths of a marble, as ``cp``)
_OPTIONS = {
    "multipv": ("MultiPV", "multipv", True, 1, 256, 1.0),
    "hash": ("Hash", "hash", True, 1, MAX_HASH_MB, 1.0),
    "contempt": ("Contempt", "contempt", False, -10_000, 10_000, 0.01),
    "threads": ("Threads", "threads", True, 1, MAX_THREADS, 1.0),
}
#: the setoption that names the engine's network (its ``nnue=``), as Stockfish's: a file, a shipped network's name
#: or none (the hand-set evaluation)
EVAL_FILE = "EvalFile"
#: setoption names (lower case) of the game's draw rules -> (the name as UCI shows it, the rule, most); 0 = off
_RULES = {
    "maxplies": ("MaxPlies", "max_plies", 100_000),
    "nocapture": ("NoCapture", "no_capture_plies", 100_000),
}

HELP = """\
commands (one a line; replies are lines):
  uci                       -> id name, id author, option name ... lines, then uciok
  player <spec>             choose the player, e.g. random:seed=3 (no reply; errors say why)
  player                    -> info player <spec>
  setoption name <MultiPV|Hash|Contempt|Threads|EvalFile|MaxPlies|NoCapture> value <x>
                            MultiPV 1-256 lines, Hash 1-4096 MB, Contempt in hundredths of a marble,
                            Threads 1-64 search threads (at most the cores here),
                            EvalFile an NNUE file, a shipped network or none,
                            MaxPlies/NoCapture the draw rules in plies, 0 = off (no reply)
  position startpos [layout NAME] [win N] [inline-only] [moves m1 m2 ...]
  position <rows> <side> <lost by Black> <lost by White> <move number> [win N] [inline-only] [moves ...]
  go [depth N] [nodes N] [movetime MS] [wtime MS btime MS [winc MS binc MS] [movestogo N]]
  go infinite               -> info string evaluation ..., threads N (the first go, and after a change),
                               info depth D [multipv K] score cp N|mate M nodes N nps N time MS pv ...
                               (one a finished iteration), info time MS, then bestmove <move>
                               (bestmove none when the game is over)
  stop                      end a running search now (bestmove comes at once)
  moves                     -> moves <the legal moves>
  d | show                  the board and the position string
  isready                   -> readyok
  newgame | ucinewgame      the standard start again, with a fresh player
  help                      this text
  quit                      stop the running search (its bestmove comes) and leave (so does the end of
                            the input); commands are taken in order: a go waits for the bestmove before it
score cp: hundredths of a marble for the side to move; mate M: wins in M moves (M < 0: loses)
anything wrong gets one line: info string error <reason>"""


class ProtocolError(SumitoError):
    """A malformed or impossible command."""


def default_spec() -> str:
    """The strongest engine when that player exists, else ``random``."""
    return STRONGEST_ENGINE if "engine" in player_names() else "random"


def spec_with_depth(spec: str, depth: int) -> str:
    """``spec`` with its ``depth`` option set to ``depth``; an error when the player has none."""
    kind, _ = parse_spec(spec)
    if "depth" not in kind.options:
        raise ProtocolError(f"player {kind.name} has no depth option")
    return set_option(spec, "depth", depth)


class EngineProtocol:
    """The protocol's state (player, game) and its command loop over two text streams."""

    def __init__(self, player: str | None = None, instream: IO | None = None, outstream: IO[str] | None = None,
                 eof_grace: float | None = None):
        # at the end of the input a running search goes on for this many seconds, then is stopped (None: until
        # it ends by itself, for a caller that hands a whole script in a stream); `sumito engine` gives it a second
        self.eof_grace = eof_grace
        self.instream = instream if instream is not None else sys.stdin
        self.outstream = outstream if outstream is not None else sys.stdout
        self._out_lock = threading.Lock()
        self.spec = self._capped(player or default_spec())
        self.player = self._build(self.spec)
        # the draw rules of the games it is given (setoption MaxPlies/NoCapture), which its search plays to
        self.rules = DrawRules()
        self.game = Game("standard", self.rules)
        self._derived: tuple[str, Player] | None = None  # the player for go depth/movetime/clock/infinite
        self._lines: queue.Queue[str | None] = queue.Queue()
        # the search thread, or the thread loading the player's compiled search for the position (a load):
        # while either runs, the commands that come wait for it, except those it answers at once
        self._search: threading.Thread | None = None
        self._loading = False
        self._unbounded = False  # the search running is a go infinite's, which only a stop or quit ends
        self._load_started = 0.0
        self._load_said = 0.0  # when a load last said it goes on (0: not yet)
        self._load_compiled = 0.0  # compile_seconds() when the load began
        self._in_loop = False  # a load starts in the background only under run(): handle() alone stays in order
        self._announced: str | None = None  # the evaluation and threads the last go's info string named

    # ----------------------------------------------------------------- the loop
    def run(self) -> int:
        """Answer commands until ``quit`` or the end of the input. The input is read in a thread of
        its own, so that ``stop``, ``isready`` and ``quit`` are answered while a search runs.

        Commands are taken in the order they are read (:meth:`_takes_turn`): a ``go`` that comes while a
        search runs waits for its ``bestmove``, as Stockfish's does, so every ``go`` is answered; a ``stop``,
        ``isready`` or ``quit`` whose turn comes while a search runs is answered then, the others after the
        ``bestmove``. A ``go infinite``, which no command before the next ``stop`` could end, is stopped by
        the first ``stop`` or ``quit`` read after it, even with other commands waiting between them
        (:meth:`_end_unbounded`)."""
        threading.Thread(target=self._read_lines, name="sumito-protocol-reader", daemon=True).start()
        waiting: deque[str] = deque()  # commands read and not taken yet, in order
        end_of_input = False
        self._in_loop = True
        self._prepare()  # the default player, for the standard start
        try:
            while True:
                if self._search is not None and not self._search.is_alive():
                    self._search.join()
                    self._search, self._unbounded = None, False
                    self._end_load()
                if waiting and self._takes_turn(waiting[0]):
                    if not self._dispatch(waiting.popleft()):
                        return 0
                    continue
                if self._loading:
                    self._tell_load()
                    if _quit_first(waiting):
                        return 0
                if self._unbounded and waiting:
                    self._end_unbounded(waiting)
                if end_of_input:
                    if self._search is None:
                        return 0
                    if self._loading:  # the commands that came after it wait for it, as they would in a session
                        self._search.join(0.1)
                        continue
                    # nobody is left to say stop (a GUI that crashed, a script that ended): each search gets a
                    # moment to end by itself, then it is stopped as `stop` would (its bestmove still comes), and
                    # the commands read after it take their turns
                    self._search.join(self.eof_grace)
                    if self._search.is_alive():
                        self._stop_search()  # (which clears the stop flag again: the next search, in-process, runs)
                    continue
                try:
                    line = self._lines.get(timeout=0.02 if self._search is not None else None)
                except queue.Empty:
                    continue
                if line is None:
                    end_of_input = True
                else:
                    waiting.append(line)
        finally:
            self._in_loop = False
            self._stop_search()

    def _takes_turn(self, line: str) -> bool:
        """Whether the first command waiting (``line``) is answered now: always when nothing runs; during a
        search ``stop``, ``isready`` and ``quit``; during a load those that change nothing (a ``d`` shows the
        position set before it). A ``quit`` during a load behind only state changes leaves at once, and one
        behind a ``go`` or ``isready`` waits for their answers: :func:`_quit_first`."""
        if self._search is None:
            return True
        return _first_word(line) in (_DURING_LOAD if self._loading else _AT_ONCE)

    def _end_unbounded(self, waiting: deque[str]) -> None:
        """A ``go infinite`` runs, and a command waits that cannot be answered before it ends: the first
        ``stop`` or ``quit`` in ``waiting`` stops it now (a ``stop`` is then spent; a ``quit`` keeps its turn,
        and stops the search that runs then before it leaves), so that every ``go`` before it is answered."""
        for i, line in enumerate(waiting):
            word = _first_word(line)
            if word in ("stop", "quit"):
                request_stop()
                self._unbounded = False
                if word == "stop":
                    del waiting[i]
                return

    def _read_lines(self) -> None:
        """Feed the queue with the input's lines, bounded, as text (bytes that are not UTF-8 become
        U+FFFD, which no command contains); ``None`` at the end."""
        source = getattr(self.instream, "buffer", self.instream)
        try:
            while True:
                raw = source.readline(MAX_LINE_CHARS + 1)
                if not raw:
                    break
                newline = b"\n" if isinstance(raw, bytes) else "\n"  # a byte stream (stdin) or a text one (tests)
                if len(raw) > MAX_LINE_CHARS and not raw.endswith(newline):
                    while raw and not raw.endswith(newline):
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
            self._send_error(str(exc))
            return True
        clear_stop()
        self._unbounded = "infinite" in line.lower().split()
        self._search = threading.Thread(target=self._think_safely, args=plan, name="sumito-search", daemon=True)
        self._search.start()
        self._search.join(0.2)  # a quick player answers before the next command is even looked at
        return True

    def _stop_search(self) -> None:
        """Stop a search and wait for its bestmove; a load (a compile cannot be cut short) is left to end by
        itself, in its daemon thread, so that ``quit`` and Ctrl-C leave at once."""
        if self._loading:
            self._search, self._loading = None, False
        if self._search is not None:
            request_stop()
            self._search.join()
            self._search, self._unbounded = None, False
            clear_stop()

    def _prepare(self) -> None:
        """Have the player load what its first move from the position needs (compiled kernels, from numba's
        cache or compiled on a first use; a table) in the background, as soon as the player or the position
        is set: ``isready`` and ``go`` wait for it, so that no move's clock pays for it, and a load of more
        than :data:`LOAD_NOTICE_AFTER` seconds says so (and how long it has taken, every
        :data:`LOAD_PROGRESS_EVERY` s). A player that cannot play the position says so at ``isready`` or
        ``go``. Only in :meth:`run`'s loop: without it the first move loads its search before its clock."""
        if not self._in_loop or self._search is not None:
            return
        player, position = self.player, self.game.position
        self._loading, self._load_started, self._load_said = True, time.perf_counter(), 0.0
        self._load_compiled = compile_seconds()
        self._search = threading.Thread(target=_load_quietly, args=(player, position), name=_LOAD_THREAD,
                                        daemon=True)
        self._search.start()
        self._search.join(0.05)  # a loaded player is ready before the next command is looked at

    def _tell_load(self) -> None:
        """The load's progress lines: the first after :data:`LOAD_NOTICE_AFTER` s, then every few seconds."""
        if os.environ.get("SUMITO_COMPILE_NOTICE", "1") == "0":
            return  # (as the compile notice: the test suite's output does not depend on numba's cache)
        now = time.perf_counter()
        elapsed = now - self._load_started
        if not self._load_said and elapsed >= LOAD_NOTICE_AFTER:
            what = _in_use(self.player, self.game.position)
            doing = ("compiling its search (once for this version of Sumito, then cached)" if compiling()
                     else "loading its search and table")
            self._send(f"info string preparing {self.spec} on the side-{self.game.position.variant.side} board"
                       + (f" ({what})" if what else "") + f": {doing}")
            self._load_said = now
        elif self._load_said and now - self._load_said >= LOAD_PROGRESS_EVERY:
            self._send(f"info string preparing {self.spec}: {elapsed:.0f} s"
                       + (" (compiling)" if compiling() else ""))
            self._load_said = now

    def _end_load(self) -> None:
        if self._loading and self._load_said:
            compiled = compile_seconds() - self._load_compiled
            self._send(f"info string {self.spec} ready after {time.perf_counter() - self._load_started:.1f} s"
                       + (f" ({compiled:.1f} s compiling)" if compiled >= 0.5 else ""))
        self._loading = False

    def handle(self, line: str) -> bool:
        """Answer one command line; ``False`` when it was ``quit``. (``go`` runs to its end here.)"""
        if line == _TOO_LONG:
            self._send_error(f"the line is longer than {MAX_LINE_CHARS} characters; it was skipped")
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
            self._send_error(str(exc))
        except Exception as exc:  # a broken player must not take the engine down
            self._send_error(f"{type(exc).__name__}: {exc}")
        return True

    def _send(self, *lines: str) -> None:
        with self._out_lock:  # the search thread and the loop both answer
            for line in lines:
                self.outstream.write(line + "\n")
            self.outstream.flush()

    def _send_error(self, reason: str) -> None:
        """``info string error <reason>``: exactly one line, and a short one whatever it quotes."""
        line = ERROR_PREFIX + " ".join(reason.split())
        if len(line) > MAX_ERROR_CHARS:
            line = line[: MAX_ERROR_CHARS - 3] + "..."
        self._send(line)

    # ----------------------------------------------------------------- commands
    def cmd_quit(self, args: list[str]) -> bool:
        _no_args("quit", args)
        self._stop_search()
        return False

    def cmd_stop(self, args: list[str]) -> None:
        _no_args("stop", args)
        if self._search is not None and not self._loading:  # stop with no search running is ignored, as in UCI
            request_stop()

    def cmd_isready(self, args: list[str]) -> None:
        _no_args("isready", args)
        if self._search is None:  # (during a search the kernels are loaded already, and readyok comes at once)
            try:
                warm_up(self.player, self.game.position)  # a GUI's convention: ready means ready to search
            except SumitoError as exc:  # a player that cannot play this position says so; readyok still comes
                self._send_error(str(exc))
        self._send("readyok")

    def cmd_help(self, args: list[str]) -> None:
        self._send(*HELP.splitlines())

    def cmd_player(self, args: list[str]) -> None:
        if not args:
            self._send(f"info player {self.spec}")
            return
        spec = self._capped(" ".join(args))
        player = self._build(spec)
        self.spec, self.player, self._derived = spec, player, None
        self._prepare()

    def cmd_newgame(self, args: list[str]) -> None:
        _no_args("newgame", args)
        player = self._build(self.spec)
        self.game = Game("standard", self.rules)
        self.player, self._derived = player, None
        self._prepare()

    def cmd_position(self, args: list[str]) -> None:
        lowered = [a.lower() for a in args]
        cut = lowered.index("moves") if "moves" in lowered else len(args)
        setup, moves = args[:cut], args[cut + 1 :]
        if not setup:
            raise ProtocolError("position needs 'startpos' or a position string")
        options = argparse.Namespace(layout=None, position=None, moves=[], win=None, inline_only=False)
        if setup[0].lower() == "startpos":
            options.layout, rest = "standard", setup[1:]
        else:
            # a Sumito position string has 5 fields, a PlayStrategy FEN 6 (sumito.games.abalone.interop)
            fields = 6 if len(setup) >= 6 and is_playstrategy_fen(" ".join(setup[:6])) else 5
            options.position, rest = " ".join(setup[:fields]), setup[fields:]
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
        game = Game(position_from_args(options), self.rules)
        for i, move in enumerate(moves, 1):
            try:
                game.push(move)
            except SumitoError as exc:
                raise ProtocolError(f"move {i} ({move}): {exc}") from None
        self.game = game
        self._prepare()

    def cmd_go(self, args: list[str]) -> None:
        self._think_safely(*self._plan_go(args))  # (a go refused by _plan_go searches nothing: its error only)

    def _plan_go(self, args: list[str]) -> tuple[Player, float | None]:
        """The player and time (seconds) for ``go ARGS``, or a :class:`ProtocolError`."""
        values: dict[str, float] = {}
        infinite = False
        rest = list(args)
        while rest:
            word = rest.pop(0).lower()
            if word == "infinite":
                infinite = True
                continue
            if word not in _GO_LIMITS:
                raise ProtocolError(
                    f"unexpected {word[:40]!r} in go (expected depth N, nodes N, movetime MS, wtime MS, btime MS, "
                    "winc MS, binc MS, movestogo N or infinite)"
                )
            if not rest:
                raise ProtocolError(f"'{word}' needs a value")
            whole, least, most = _GO_LIMITS[word]
            values[word] = _number(rest.pop(0), word, whole=whole, least=least, most=most)
        if infinite and values:
            raise ProtocolError("go infinite takes no depth, nodes, movetime or clock")
        if infinite:
            return self._player_without_limit(), None
        seconds = None if "movetime" not in values else values["movetime"] / 1000
        white = self.game.position.side_to_move == WHITE
        clock = values.get("wtime" if white else "btime")
        if clock is not None:  # the side to move's clock: its share of what is left (the other's is ignored)
            increment = values.get("winc" if white else "binc", 0.0)
            moves_to_go = values.get("movestogo")
            share = move_time(clock / 1000, increment / 1000, None if moves_to_go is None else int(moves_to_go))
            seconds = share if seconds is None else min(seconds, share)
        if seconds is not None:
            seconds = max(seconds, MIN_MOVE_SECONDS)
        depth = None if "depth" not in values else int(values["depth"])
        nodes = None if "nodes" not in values else int(values["nodes"])
        return self._player_for(depth, clocked=seconds is not None, nodes=nodes), seconds

    def _player_for(self, depth: int | None, clocked: bool, nodes: int | None = None) -> Player:
        """The player for a ``go`` with ``depth``, ``nodes`` and, when ``clocked``, a time from the GUI:
        the engine then drops its own ``time=`` (the GUI's limits rule) and searches to ``depth``,
        ``nodes`` or its deepest; other players get the time as their ``movetime``."""
        spec = self.spec if depth is None else spec_with_depth(self.spec, depth)
        kind, options = parse_spec(spec)
        if nodes is not None:
            if "nodes" not in kind.options:
                raise ProtocolError(f"player {kind.name} has no nodes option")
            spec = set_option(spec, "nodes", nodes)
        if (clocked or nodes is not None) and kind.name == "engine":
            spec = _without(spec, "time")
            if options.get("depth") is None:
                spec = set_option(spec, "depth", MAX_SEARCH_DEPTH)  # the engine's default is 1 s without either
        return self._derived_player(spec)

    def _derived_player(self, spec: str) -> Player:
        """The player ``spec`` (the player's spec with other limits) names, built once and kept while the
        ``go`` commands ask for it, one at a time. An engine searches with the player's own table and
        threads (:meth:`~sumito.players.engine.EnginePlayer.share_search`): one table of up to 4 GB, made at
        ``setoption``/``player``/``newgame``, never a second one made at ``go``."""
        if spec == self.spec:
            return self.player
        if self._derived is None or self._derived[0] != spec:
            self._derived = None
            player = make_player(spec)
            if isinstance(player, EnginePlayer) and isinstance(self.player, EnginePlayer):
                player.share_search(self.player)
            self._derived = (spec, player)
        return self._derived[1]

    def _think_safely(self, player: Player, movetime: float | None) -> None:
        """:meth:`_think` (in the search thread from :meth:`run`): every failure is an error line, as in
        :meth:`handle`, and then ``bestmove none``, so that a GUI waiting for the ``go``'s answer gets one."""
        try:
            self._think(player, movetime)
        except SumitoError as exc:
            self._send_error(str(exc))
            self._send("bestmove none")
        except Exception as exc:  # a broken player must not take the engine down
            self._send_error(f"{type(exc).__name__}: {exc}")
            self._send("bestmove none")

    def _think(self, player: Player, movetime: float | None) -> None:
        outcome = self.game.outcome()
        if outcome is not None:
            self._send(f"info game over: {outcome.describe()}", "bestmove none")
            return
        position = self.game.position
        in_use = _in_use(player, position)
        if in_use is not None and in_use != self._announced:  # the first go, and after each change
            self._announced = in_use
            self._send(f"info string {in_use}")
        board_side = position.variant.side
        marble = float(getattr(player, "marble_value", 1.0))
        multi = int(getattr(player, "multipv", 1)) > 1
        streamed = 0

        def stream(result: SearchResult) -> None:
            # runs in the search thread after each finished iteration; _send takes the output lock
            nonlocal streamed
            streamed += 1
            self._send(*info_lines(result, board_side, marble, multi))

        streaming = hasattr(player, "on_iteration")  # the engine reports each iteration as it ends
        if streaming:
            player.on_iteration = stream  # type: ignore[attr-defined]
        t0 = time.perf_counter()
        try:
            move = player.choose(position, movetime=movetime, history=game_history(self.game),
                                 draw=self.game.draw_counters())
        finally:
            if streaming:
                player.on_iteration = None  # type: ignore[attr-defined]
        elapsed_ms = (time.perf_counter() - t0) * 1000
        if not position.is_legal(move):
            raise ProtocolError(f"player {self.spec} chose {move}, which is not legal here")
        last = getattr(player, "last", None)
        if streaming and not streamed and isinstance(last, SearchResult) and last.depth > 0:
            self._send(*info_lines(last, board_side, marble, multi))
        elif not streaming and getattr(player, "search_info", None):  # other players that search say what they found
            self._send(f"info {player.search_info}")  # type: ignore[attr-defined]
        self._send(f"info time {elapsed_ms:.0f}", f"bestmove {move.notation()}")

    def cmd_setoption(self, args: list[str]) -> None:
        if not args or args[0].lower() != "name":
            raise ProtocolError("setoption needs: setoption name "
                                "<MultiPV|Hash|Contempt|Threads|EvalFile|MaxPlies|NoCapture> value <x>")
        lowered = [a.lower() for a in args]
        cut = lowered.index("value") if "value" in lowered else len(args)
        name, value = " ".join(args[1:cut]), args[cut + 1 :]
        if name.lower() in _RULES:
            shown, rule, most = _RULES[name.lower()]
            if len(value) != 1:
                raise ProtocolError(f"setoption name {shown} needs one value: setoption name {shown} value <x>")
            plies = int(_number(value[0], shown, whole=True, least=0, most=most))
            self.rules = replace(self.rules, **{rule: plies or None})
            self.game = self.game.with_rules(self.rules)
            return
        if name.lower() == EVAL_FILE.lower():
            self._set_eval_file(" ".join(value))
            return
        if name.lower() not in _OPTIONS:
            raise ProtocolError(f"unknown option {name[:40]!r} (options: MultiPV, Hash, Contempt, Threads, "
                                f"{EVAL_FILE}, MaxPlies, NoCapture)")
        shown, key, whole, least, most, unit = _OPTIONS[name.lower()]
        if len(value) != 1:
            raise ProtocolError(f"setoption name {shown} needs one value: setoption name {shown} value <x>")
        number = _number(value[0], shown, whole=whole, least=least, most=most)
        kind, _ = parse_spec(self.spec)
        if key not in kind.options:
            raise ProtocolError(f"player {kind.name} has no {shown} option")
        note = None
        if key == "threads":
            number, note = _within_cores(f"{shown} {number:.0f}", int(number))
        spec = set_option(self.spec, key, int(number) if whole else f"{number * unit:g}")
        player = self._build(spec)  # (a failure leaves the player as it was)
        self.spec, self.player, self._derived = spec, player, None
        self._prepare()
        if note is not None:
            self._send(f"info string {note}")

    def _set_eval_file(self, value: str) -> None:
        """``setoption name EvalFile value X``: the engine with the network X (its ``nnue=``: a file, a shipped
        network's name, or none for the hand-set evaluation) in place of its evaluation; a file that is
        missing or damaged is an error, and the player stays as it was."""
        kind, _ = parse_spec(self.spec)
        if "nnue" not in kind.options:
            raise ProtocolError(f"player {kind.name} has no {EVAL_FILE} option")
        if not value or "," in value:  # (a comma would end the option in the player's spec)
            raise ProtocolError(f"setoption name {EVAL_FILE} needs a file or network name without commas, "
                                f"not {value[:40]!r}")
        spec = self.spec
        for other in ("eval", "weights", "net"):  # the network replaces whatever evaluation the spec named
            spec = _without(spec, other)
        spec = set_option(spec, "nnue", value)
        player = self._build(spec)
        self.spec, self.player, self._derived = spec, player, None
        self._prepare()

    def cmd_uci(self, args: list[str]) -> None:
        _no_args("uci", args)

        kind, options = parse_spec(self.spec)
        lines = [f"id name Sumito {__version__} ({self.spec})", "id author the Sumito authors"]
        for shown, key, _, least, most, unit in _OPTIONS.values():
            if key in kind.options:
                default = options.get(key, kind.options[key].default)
                if default is None:  # a default that depends on the machine (threads): what the player uses
                    default = getattr(getattr(self.player, "searcher", None), key, 1)
                default /= unit
                # UCI's spin options are whole numbers (Contempt takes a decimal too)
                lines.append(f"option name {shown} type spin default {default:.0f} min {least:.0f} max {most:.0f}")
        if "nnue" in kind.options:
            lines.append(f"option name {EVAL_FILE} type string default {_network(self.player)}")
        for shown, rule, most in _RULES.values():
            lines.append(f"option name {shown} type spin default {getattr(self.rules, rule) or 0} min 0 max {most}")
        self._send(*lines, "uciok")

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

    def _capped(self, spec: str) -> str:
        """``spec`` with its ``threads`` at most the cores this process may use, as ``setoption name Threads``
        takes it (more threads than cores only slow the search, and its stop), said in an ``info string``."""
        kind, options = parse_spec(spec)
        threads = options.get("threads")
        if "threads" not in kind.options or threads is None:
            return spec
        capped, note = _within_cores(f"threads={threads}", threads)
        if note is None:
            return spec
        self._send(f"info string {note}")
        return set_option(spec, "threads", capped)

    def _player_without_limit(self) -> Player:
        """The player for ``go infinite``: the engine searching to its deepest with no clock (until
        ``stop``); a player that cannot search deeper plays as it always does."""
        kind, _ = parse_spec(self.spec)
        if kind.name != "engine":
            return self.player
        spec = _without(_without(self.spec, "time"), "depth")
        return self._derived_player(set_option(spec, "depth", MAX_SEARCH_DEPTH))


_COMMANDS = {
    "quit": EngineProtocol.cmd_quit,
    "stop": EngineProtocol.cmd_stop,
    "isready": EngineProtocol.cmd_isready,
    "help": EngineProtocol.cmd_help,
    "player": EngineProtocol.cmd_player,
    "newgame": EngineProtocol.cmd_newgame,
    "ucinewgame": EngineProtocol.cmd_newgame,
    "setoption": EngineProtocol.cmd_setoption,
    "uci": EngineProtocol.cmd_uci,
    "position": EngineProtocol.cmd_position,
    "go": EngineProtocol.cmd_go,
    "moves": EngineProtocol.cmd_moves,
    "d": EngineProtocol.cmd_show,
    "show": EngineProtocol.cmd_show,
}


def info_lines(result: SearchResult, board_side: int, marble: float = 1000.0, multipv: bool = False) -> list[str]:
    """The ``info`` lines of one finished iteration (one a MultiPV line, ``multipv K`` when
    ``multipv``): depth, score (``cp``: hundredths of a ``marble``; or ``mate``), nodes, nodes per
    second, milliseconds since the search began and the principal variation."""
    ms = int(result.seconds * 1000)
    nps = int(result.nodes_per_second)
    lines = []
    for k, line in enumerate(result.lines, 1):
        mate = mate_moves(line.score)
        score = f"mate {mate}" if mate is not None else f"cp {round(100 * line.score / marble)}"
        pv = " ".join(Move(code, board_side).notation() for code in line.pv)
        rank = f" multipv {k}" if multipv else ""
        lines.append(f"info depth {result.depth}{rank} score {score} nodes {result.nodes} nps {nps} time {ms} pv {pv}")
    return lines


def _without(spec: str, key: str) -> str:
    """``spec`` without its option ``key`` (if it has one)."""
    name, _, opts = spec.partition(":")
    kept = [o.strip() for o in opts.split(",") if o.strip() and o.partition("=")[0].strip().lower() != key]
    return f"{name}:{','.join(kept)}" if kept else name


def _within_cores(shown: str, threads: int) -> tuple[int, str | None]:
    """``threads`` at most the cores this process may use (more only slow the search, and its stop), and the
    note that says so when it was more (``shown``: the setting as the user wrote it)."""
    cores = available_cores()
    if threads <= cores:
        return threads, None
    return cores, f"{shown} is more than the {cores} core{'s' if cores > 1 else ''} here; using {cores}"


def _quit_first(waiting: deque[str]) -> bool:
    """Whether a ``quit`` waits with no ``go`` or ``isready`` before it (what a script expects answered):
    during a load it then leaves at once, without applying the ``position`` or ``setoption`` before it."""
    for line in waiting:
        word = _first_word(line)
        if word == "quit":
            return True
        if word in ("go", "isready"):
            return False
    return False


def loading() -> bool:
    """Whether a load the protocol started (:meth:`EngineProtocol._prepare`) is still running in this process."""
    return any(thread.name == _LOAD_THREAD and thread.is_alive() for thread in threading.enumerate())


def _load_quietly(player: Player, position) -> None:
    """A load in the background (:meth:`EngineProtocol._prepare`): a failure is said by the ``isready`` or
    ``go`` that meets it again, in its one line; here it is dropped."""
    with contextlib.suppress(Exception):  # (said at isready or go, which meet it again)
        warm_up(player, position)


def _no_args(command: str, args: list[str]) -> None:
    if args:
        raise ProtocolError(f"{command} takes no arguments, got {' '.join(args)!r}")


def _first_word(line: str) -> str:
    return line.split(maxsplit=1)[0].lower() if line.strip() else ""


def _number(text: str, what: str, whole: bool, least: float, most: float = 10**9) -> float:
    """``text`` as :func:`sumito.bounds.parse_number` reads every number (ASCII digits, a sign, a point, an
    exponent: not '1_0', 'nan' or 'inf'), from ``least`` to ``most``; else a :class:`ProtocolError`."""
    return parse_number(text, what, low=least, high=most, whole=whole, error=ProtocolError)


def _network(player: Player) -> str:
    """The network an engine plays with, as ``EvalFile`` names it (``none``: the hand-set evaluation)."""
    name = str(getattr(getattr(player, "evaluation", None), "name", ""))
    return name.removeprefix("nnue ") if name.startswith("nnue ") else "none"


def _in_use(player: Player, position) -> str | None:
    """What the ``info string`` at a ``go`` says the player searches ``position`` with: its evaluation (the
    network, by name or file) and its threads; None for a player with no evaluation."""
    name = getattr(getattr(player, "evaluation", None), "name", None)
    if name is None:
        return None
    nnue = getattr(player, "nnue", None)
    if nnue is not None and position.variant.side != nnue.side:
        name = f"linear (the hand-set one: {name} is for the side-{nnue.side} board)"
    threads = getattr(getattr(player, "searcher", None), "threads", None)
    return f"evaluation {name}" + ("" if threads is None else f", threads {threads}")


def run_engine(player: str | None = None, instream: IO | None = None, outstream: IO[str] | None = None,
               eof_grace: float | None = None) -> int:
    """Run the protocol on the given streams (default stdin, read as bytes, and stdout) until quit or
    the end of the input (then a running search is stopped after ``eof_grace`` seconds; None: it runs to
    its end)."""
    if outstream is None and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")  # an error line quoting odd input never fails to print
    return EngineProtocol(player, instream, outstream, eof_grace).run()
