"""Backgammon players for the command line, named by spec strings such as ``random:seed=3`` or ``gnubg:ply=1``.

The spec syntax is the Abalone players' (:mod:`sumito.players.base`): a player name, optionally ``:`` and
comma-separated ``key=value`` options. It is re-implemented here rather than imported because the
backgammon package stays independent of the Abalone players.

A :class:`BackgammonPlayer` is a :data:`~sumito.games.backgammon.game.Chooser` (``(board, afterstates) -> row``)
with a ``.name``, so it plugs straight into :func:`~sumito.games.backgammon.game.play_game`. Callers that
know the dice (the CLI's game loop) call :meth:`BackgammonPlayer.choose` with them, which the ``human`` player needs.

Players:

* ``random[:seed=N]`` — a uniformly random distinct afterstate;
* ``pubeval`` — Tesauro's linear benchmark evaluator;
* ``gnubg[:ply=N]`` — GNU Backgammon's nets (0..2 ply; needs the optional package ``gnubg-nn``);
* ``td:net=PATH`` — a trained network: a modular file (:class:`~sumito.models.backgammon.modular.ModularValue`)
  or a single ``tesauro198`` value network; ``td:net=builtin`` is the network shipped in the package;
* ``human`` — reads plays typed at the terminal (``13/10 10/9``, ``bar/22``, ``3/off``, ``pass``).
"""

from __future__ import annotations

import itertools
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from sumito.errors import SumitoError
from sumito.fileio import read_file_bounded
from sumito.games.backgammon.board import BAR, OFF, OPP_BAR, BackgammonPosition
from sumito.games.backgammon.kernels import generate_plays
from sumito.models.backgammon.learning import ENCODING, N_INPUTS, NetworkPlayer
from sumito.models.backgammon.modular import ModularValue
from sumito.models.network import MAX_NETWORK_BYTES, NetworkError, ValueNetwork
from sumito.players.backgammon.gnubg_expert import GnubgExpert
from sumito.players.backgammon.pubeval import PubevalPlayer, RandomPlayer
from sumito.players.base import MAX_SEED, Option, PlayerKind, parse_spec_in

GNUBG_MISSING = "gnubg needs the optional package gnubg-nn: pip install 'sumito[gnubg]'"
MAX_GNUBG_PLY = 2


class BackgammonPlayerError(SumitoError):
    """A backgammon player spec with an unknown name or option, a bad value, or a file that cannot be used."""


class PlayError(BackgammonPlayerError):
    """A typed play that is malformed or not legal for the roll (the message says which, in one line)."""


class HumanQuit(Exception):  # a control-flow signal, not an error
    """The human player left (blank line or end of input); the game is abandoned, not lost."""


class BackgammonPlayer:
    """A named move chooser. ``chooser(board, afterstates) -> row`` does the work unless a subclass overrides
    :meth:`choose`."""

    def __init__(self, name: str, chooser: Callable[[np.ndarray, np.ndarray], int] | None = None) -> None:
        self.name = name
        #: the chooser behind the player (a ``GnubgExpert`` evaluates positions too, for expert targets)
        self.engine = chooser

    def choose(self, board: np.ndarray, afterstates: np.ndarray, dice: tuple[int, int] | None = None) -> int:
        """The row of ``afterstates`` (the distinct plays of ``board`` for ``dice``) this player plays."""
        if self.engine is None:  # pragma: no cover - subclasses without a chooser override choose
            raise NotImplementedError
        return int(self.engine(board, afterstates))

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        return self.choose(board, afterstates)

    def __repr__(self) -> str:
        return f"BackgammonPlayer({self.name!r})"


# --------------------------------------------------------------------------- typed plays
_TOKEN = re.compile(r"^(?P<path>(?:bar|off|[0-9]{1,2})\*?(?:/(?:bar|off|[0-9]{1,2})\*?)+)(?:\((?P<times>[1-4])\))?$")


def _point(text: str) -> int:
    """``bar`` → 25, ``off`` → 0, else a point 1..24 (mover's numbering)."""
    if text == "bar":
        return 25
    if text == "off":
        return 0
    value = int(text)
    if not 1 <= value <= 24:
        raise PlayError(f"points are 1..24 (or bar, off), not {value}")
    return value


def _parse_moves(text: str) -> list[tuple[int, int]]:
    """The ``(from, to)`` checker moves of a typed play such as ``24/18 13/10*/9`` or ``6/4(2)``."""
    moves: list[tuple[int, int]] = []
    for token in text.replace(",", " ").split():
        m = _TOKEN.match(token)
        if m is None:
            raise PlayError(f"cannot read {token!r}: write checker moves as FROM/TO, e.g. 13/10, bar/22, 3/off")
        points = [_point(p.rstrip("*")) for p in m["path"].split("/")]
        steps = list(itertools.pairwise(points))
        for a, b in steps:
            if a == 0:
                raise PlayError(f"{token!r}: a borne-off checker cannot move again")
            if b == 25:
                raise PlayError(f"{token!r}: checkers do not move to the bar")
            if a <= b:
                raise PlayError(f"{token!r}: checkers move from higher points to lower (24 towards 1, then off)")
        moves.extend(steps * int(m["times"] or 1))
    if len(moves) > 4:
        raise PlayError(f"{text.strip()!r} moves {len(moves)} checkers; a roll moves at most 4")
    return moves


def _paths(a: int, b: int, dice: tuple[int, int]) -> list[list[int]]:
    """Ways to walk one typed move ``a/b``: straight there, or through the intermediate landing points a
    combination of the dice would make (where a blot there would be hit, as in ``13/9`` hitting on 10)."""
    out = [[a, b]]
    d1, d2 = dice
    distance = a - b
    if d1 == d2:
        for k in range(2, 5):
            bears_off = b == 0 and a - (k - 1) * d1 > 0 and a - k * d1 <= 0
            if bears_off or (b > 0 and distance == k * d1):
                out.append([a - j * d1 for j in range(k)] + [b])
    else:
        for first in (d1, d2):
            mid = a - first
            if mid > b and (distance == d1 + d2 or (b == 0 and mid - (d1 + d2 - first) <= 0)):
                out.append([a, mid, b])
    return out


def _walk(board: np.ndarray, path: list[int]) -> str | None:
    """Move one checker along ``path`` on ``board`` in place, hitting blots where it lands; a reason on failure."""
    source = path[0]
    if source == 25:
        if board[BAR] <= 0:
            return "you have no checker on the bar"
        board[BAR] -= 1
    else:
        if board[source - 1] <= 0:
            return f"you have no checker on point {source}"
        board[source - 1] -= 1
    for target in path[1:]:
        if target == 0:
            board[OFF] += 1
            return None
        here = board[target - 1]
        if here <= -2:
            return f"point {target} is blocked"
        if here == -1:  # a blot: hit it
            board[target - 1] = 0
            board[OPP_BAR] += 1
    board[path[-1] - 1] += 1
    return None


def parse_play(position: BackgammonPosition | np.ndarray, dice: tuple[int, int], text: str) -> int:
    """The row of ``generate_plays(board, *dice)`` that the typed play ``text`` reaches.

    The typed checker moves are applied to the board and the result compared with the legal afterstates,
    so any order of the same moves, compound moves (``13/9`` for 3-1) and missing hit marks are accepted
    when they reach exactly one legal play. Raises :class:`PlayError` with a one-line reason otherwise.
    """
    board = position.board if isinstance(position, BackgammonPosition) else np.asarray(position, dtype=np.int8)
    d1, d2 = dice
    roll = f"{max(dice)}-{min(dice)}"
    afterstates, _ = generate_plays(board, d1, d2)
    is_pass = afterstates.shape[0] == 1 and bool((afterstates[0] == board).all())
    words = text.strip().lower()
    if words in ("pass", "-", "none"):
        if is_pass:
            return 0
        raise PlayError(f"you cannot pass: {roll} has a legal play (type ? for the list)")
    if not words:
        raise PlayError("no play given")
    moves = _parse_moves(words)
    if is_pass:
        raise PlayError(f"no legal play with {roll}: type pass")
    reasons: list[str] = []
    reached = False  # whether any reading of the moves could be played out on the board at all
    for paths in itertools.product(*(_paths(a, b, (d1, d2)) for a, b in moves)):
        trial = np.array(board, dtype=np.int8)
        for path in paths:
            reason = _walk(trial, path)
            if reason is not None:
                reasons.append(reason)
                break
        else:
            reached = True
            rows = np.flatnonzero((afterstates == trial).all(axis=1))
            if rows.size:
                return int(rows[0])
    if not reached:
        raise PlayError(f"{text.strip()!r}: {reasons[0]}")
    raise PlayError(f"{text.strip()!r} is not a legal play with {roll} (type ? for the legal plays)")


# --------------------------------------------------------------------------- drawing
_ROWS = 5  # checkers drawn per point; a taller stack shows its count in the last row


def _cell(count: int, row: int) -> str:
    """What point ``count`` (mover positive) shows in ``row`` (0 = the board's edge) of its stack."""
    n = abs(count)
    if n <= row:
        return "   "
    if row == _ROWS - 1 and n > _ROWS:
        return f"{n:>3}"
    return "  X" if count > 0 else "  O"


def render_board(position: BackgammonPosition, names: tuple[str, str] = ("on roll", "opponent")) -> str:
    """An ASCII drawing from the side to move's view (X, moving 24 → 1, home bottom right): points 13-24 on
    top, 12-1 below, the bar in the middle, then each side's checkers on the bar, borne off and pip count."""
    b = position.board
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def line(points: list[int], row: int, bar: str) -> str:
        left = "".join(_cell(int(b[p - 1]), row) for p in points[:6])
        right = "".join(_cell(int(b[p - 1]), row) for p in points[6:])
        return f" |{left} |{bar}|{right} |"

    def header(points: list[int]) -> str:
        left = "".join(f"{p:->3}" for p in points[:6])
        right = "".join(f"{p:->3}" for p in points[6:])
        return f" +{left}-+---+{right}-+"

    rows = [header(top)]
    for row in range(_ROWS):
        bar = f"O{position.opp_bar:<2}" if row == _ROWS - 1 and position.opp_bar else "   "
        rows.append(line(top, row, bar))
    rows.append(" |" + " " * 19 + "|BAR|" + " " * 19 + "|")
    for row in reversed(range(_ROWS)):
        bar = f"X{position.bar:<2}" if row == _ROWS - 1 and position.bar else "   "
        rows.append(line(bottom, row, bar))
    rows.append(header(bottom))
    mine, theirs = position.pips()
    rows.append(f" X {names[0]}: pips {mine}, bar {position.bar}, off {position.off}")
    rows.append(f" O {names[1]}: pips {theirs}, bar {position.opp_bar}, off {position.opp_off}")
    return "\n".join(rows)


# --------------------------------------------------------------------------- the human player
class HumanPlayer(BackgammonPlayer):
    """Shows the board and the dice, reads a play in :meth:`Play.notation` style; ``?`` lists the legal plays,
    a blank line or the end of input raises :class:`HumanQuit`. A pass or a forced play is made for you."""

    def __init__(
        self,
        read: Callable[[str], str] | None = None,
        write: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__("human")
        self._read = read or input
        self._write = write or (lambda text: print(text, file=sys.stdout))

    def __call__(self, board: np.ndarray, afterstates: np.ndarray) -> int:
        raise BackgammonPlayerError(
            "the human player needs to see the dice; play it with `sumito bg play` or `bg game`")

    def choose(self, board: np.ndarray, afterstates: np.ndarray, dice: tuple[int, int] | None = None) -> int:
        if dice is None:
            return self(board, afterstates)
        position = BackgammonPosition(board, check=False)
        plays = _play_list(board, dice)
        self._write(render_board(position, names=("you", "opponent")))
        roll = f"{max(dice)}-{min(dice)}"
        if len(plays) == 1:
            self._write(
                f"You roll {roll}: "
                + ("no legal play, you pass" if plays[0][1] == "pass" else f"your only play is {plays[0][1]}")
            )
            return 0
        while True:
            try:
                text = self._read(f"You roll {roll}. Your play (? lists them, blank quits): ")
            except EOFError:
                raise HumanQuit("end of input") from None
            if not text.strip():
                raise HumanQuit("blank line")
            if text.strip() == "?":
                self._write("  ".join(notation for _, notation in plays))
                continue
            try:
                return parse_play(board, dice, text)
            except PlayError as exc:
                self._write(f"  {exc}")


def _play_list(board: np.ndarray, dice: tuple[int, int]) -> list[tuple[int, str]]:
    """``(row, notation)`` of each legal play (the kernel's row order)."""
    afterstates, moves = generate_plays(np.asarray(board, dtype=np.int8), dice[0], dice[1])
    return [(r, move_notation(moves[r])) for r in range(afterstates.shape[0])]


def move_notation(row: np.ndarray) -> str:
    """A kernel move row (four ``(from, to)`` pairs, -1 unused) as ``13/10 10/9``, ``bar/22``, ``3/off`` or ``pass``."""
    name = {25: "bar", 0: "off"}
    pairs = [(int(row[2 * j]), int(row[2 * j + 1])) for j in range(4) if row[2 * j] >= 0]
    if not pairs:
        return "pass"
    return " ".join(f"{name.get(a, a)}/{name.get(b, b)}" for a, b in pairs)


# --------------------------------------------------------------------------- specs
def _random(seed: int | None = None, rng_seed: int | None = None) -> BackgammonPlayer:
    # the spec's seed names the player; the caller's seed (a match chunk) keeps chunks apart, reproducibly
    entropy = [s for s in (seed, rng_seed) if s is not None]
    rng = np.random.default_rng(entropy if entropy else None)
    return BackgammonPlayer("random" if seed is None else f"random:seed={seed}", RandomPlayer(rng))


def _pubeval(rng_seed: int | None = None) -> BackgammonPlayer:
    return BackgammonPlayer("pubeval", PubevalPlayer())


def _gnubg(ply: int = 0, rng_seed: int | None = None) -> BackgammonPlayer:
    if not 0 <= ply <= MAX_GNUBG_PLY:
        raise BackgammonPlayerError(f"gnubg ply must be 0, 1 or 2, not {ply}")

    try:
        expert = GnubgExpert(ply=ply)
    except ImportError:
        raise BackgammonPlayerError(GNUBG_MISSING) from None
    return BackgammonPlayer(f"gnubg:ply={ply}", expert)


#: the network shipped in the package, ``td:net=builtin`` (made by the command in docs/results-backgammon.md)
BUILTIN_NETWORK = "bg-wiering7.npz"


def _td(net: str | None = "builtin", rng_seed: int | None = None) -> BackgammonPlayer:
    # as in Abalone, plain `td` is the shipped network
    if not net:
        raise BackgammonPlayerError("td needs a network file: td:net=PATH (or plain td, the shipped one)")
    if net == "builtin":
        from importlib.resources import files

        net = str(files("sumito") / "data" / BUILTIN_NETWORK)
    try:  # a FIFO, /dev/zero, a folder or a huge file: one line saying so, at once (the networks are small)
        read_file_bounded(net, MAX_NETWORK_BYTES, "backgammon network file")
    except ValueError as exc:
        raise BackgammonPlayerError(f"td: {exc}") from None
    name = f"td:net={net}"
    try:
        return BackgammonPlayer(name, ModularValue.load(net).choose)
    except NetworkError:
        pass  # not a modular file: perhaps a single network
    try:
        network = ValueNetwork.load(net)
    except NetworkError:
        raise BackgammonPlayerError(
            f"td: {net}: neither a modular backgammon network nor a single {ENCODING} value network file"
        ) from None
    encoding = network.metadata.get("encoding")
    if encoding != ENCODING or network.n_inputs != N_INPUTS:
        raise BackgammonPlayerError(
            f"td: {net}: a value network for encoding {encoding!r} with {network.n_inputs} inputs, "
            f"not a backgammon {ENCODING} network ({N_INPUTS} inputs)"
        )
    return BackgammonPlayer(name, NetworkPlayer(network))


def _human(rng_seed: int | None = None) -> BackgammonPlayer:
    return HumanPlayer()


def _kind(name: str, factory: Callable[..., BackgammonPlayer], help: str, **options: Option) -> PlayerKind:
    return PlayerKind(name, factory, options, help)


#: backgammon's player kinds, read by the same spec parser as Abalone's (:func:`~sumito.players.base.parse_spec_in`)
KINDS: dict[str, PlayerKind] = {
    kind.name: kind
    for kind in (
        _kind("random", _random, "a uniformly random play",
              seed=Option(int, None, "seed of the random choices", low=0, high=MAX_SEED)),
        _kind("pubeval", _pubeval, "Tesauro's pubeval linear evaluator"),
        # ply's range is checked by the player itself, with the message gnubg users know
        _kind("gnubg", _gnubg, "GNU Backgammon's neural nets, ply 0..2 (needs gnubg-nn)",
              ply=Option(int, 0, "GNU Backgammon's search depth, 0..2")),
        _kind("td", _td, "a trained network file (modular or tesauro198); default: the shipped one",
              net=Option(str, "builtin", "network file, or builtin", path=True)),
        _kind("human", _human, "you, at the terminal"),
    )
}


def parse_bg_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """The player name and typed options of ``spec``; :class:`BackgammonPlayerError` names what is wrong."""
    kind, options = parse_spec_in(spec, KINDS, BackgammonPlayerError, "backgammon player")
    return kind.name, options


def make_bg_player(spec: str, rng_seed: int | None = None) -> BackgammonPlayer:
    """The player ``spec`` names. ``rng_seed`` seeds players that use randomness (mixed with the spec's own
    ``seed=`` when it has one), so that a seeded game or match chunk replays exactly."""
    name, options = parse_bg_spec(spec)
    return KINDS[name].factory(**options, rng_seed=rng_seed)


def bg_player_names() -> list[str]:
    return sorted(KINDS)


__all__ = [
    "GNUBG_MISSING",
    "KINDS",
    "BackgammonPlayer",
    "BackgammonPlayerError",
    "HumanPlayer",
    "HumanQuit",
    "PlayError",
    "bg_player_names",
    "make_bg_player",
    "move_notation",
    "parse_bg_spec",
    "parse_play",
    "render_board",
]
