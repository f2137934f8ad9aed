"""The player interface and spec strings such as ``random:seed=3``.

A spec is a player name, optionally followed by ``:`` and comma-separated ``key=value`` options.
Each player module registers its name, its options (with types and defaults) and a factory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from sumito.bounds import (
    MAX_HASH_MB,
    MAX_PLAYER_DEPTH,
    MAX_SEARCH_DEPTH,
    MAX_SEARCH_NODES,
    MAX_SEARCH_SECONDS,
    MAX_SEED,
    read_number,
)
from sumito.errors import SumitoError
from sumito.games.abalone import DrawCounters, Game, Move, Position

__all__ = ["MAX_HASH_MB", "MAX_PLAYER_DEPTH", "MAX_SEARCH_DEPTH", "MAX_SEARCH_NODES", "MAX_SEARCH_SECONDS", "MAX_SEED",
           "Option", "Player", "PlayerBase", "PlayerKind", "PlayerSpecError", "make_player", "parse_spec", "register",
           "warm_up"]


class PlayerSpecError(SumitoError):
    """A player spec with an unknown name or option, or a bad option value."""


class PlayerBase:
    """What every built-in player shares: a repr that is the spec it plays as."""

    name: str

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def warm_up(self, position: Position) -> None:
        """Load what a first move from ``position`` needs (compiled kernels) before any clock runs: what
        the protocol's ``isready`` and the arena's workers call before a game. Nothing for most players."""


class Player(Protocol):
    name: str

    def choose(
        self,
        position: Position,
        movetime: float | None = None,
        history: Sequence[int] | None = None,
        draw: DrawCounters | None = None,
    ) -> Move:
        """A legal move for the side to move in ``position`` (which has at least one).

        ``movetime`` is the time in seconds the caller allows for this move (a clock); players with a
        time control of their own use the smaller of the two, players without one ignore it.
        ``history`` is the Zobrist hashes of the game's earlier positions, oldest first (see
        :func:`game_history`), for players that steer towards or away from repetitions. ``draw`` is the
        game's draw rules and how far it has gone towards them (:meth:`Game.draw_counters`), for players
        that see a ply-cap or no-capture draw coming; ``None``: no rule but repetition.
        """
        ...


def warm_up(player: Player, position: Position) -> None:
    """Have ``player`` load what its first move from ``position`` needs (:meth:`PlayerBase.warm_up`), if it
    can: before a game (the arena's workers) and on the protocol's ``isready``."""
    method = getattr(player, "warm_up", None)  # (a player from outside may not have one)
    if method is not None:
        method(position)


@dataclass(frozen=True)
class Option:
    """One ``key=value`` option of a player: its type, default and help; numbers are bounded by
    ``low``..``high`` (checked before anything is allocated); ``path`` marks an option that names a
    file, which a server may restrict (see ``make_player``'s ``resolve_path``)."""

    type: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    path: bool = False

    def range_text(self, sep: str = "..") -> str:
        """``low..high`` as written for people (whole numbers for whole-number options); "" when unbounded."""
        if self.low is None and self.high is None:
            return ""

        def fmt(x: float | None) -> str:
            return "" if x is None else str(int(x)) if self.type is int else f"{x:g}"

        return f"{fmt(self.low)}{sep}{fmt(self.high)}"


#: the longest spec, and the longest value of a string option
MAX_SPEC_CHARS = 2000
MAX_VALUE_CHARS = 1000


#: the board sides of Abalone's layouts (3: the mini board, 4: small, 5: standard and the daisies)
ALL_SIDES = (3, 4, 5)


@dataclass(frozen=True)
class PlayerKind:
    """A kind of player: its spec name, the factory that makes one from the spec's options, the options, one
    line of help, and the board sides it plays with its default options, ``None`` for every board of its game
    (a player asked to play another refuses with a one-line error at its first move; ``zero:net=FILE`` plays
    its network's board)."""

    name: str
    factory: Callable[..., Player]
    options: dict[str, Option]
    help: str
    sides: tuple[int, ...] | None = None


_REGISTRY: dict[str, PlayerKind] = {}


def legal_codes(position: Position) -> np.ndarray:
    """The encoded legal moves a player chooses from (a player is never asked when there are none)."""
    codes = position.legal_move_codes()
    if len(codes) == 0:
        raise ValueError("no legal move to choose from")
    return codes


def game_history(game: Game) -> list[int]:
    """What a player's ``history`` argument holds: the hashes of the positions before the current one."""
    return [p.zobrist for p in game.positions[:-1]]


def register(kind: PlayerKind) -> None:
    _REGISTRY[kind.name] = kind


def player_names() -> list[str]:
    return sorted(_REGISTRY)


def parse_spec(spec: str) -> tuple[PlayerKind, dict[str, Any]]:
    """The player kind and typed options that ``spec`` names; a clear error when it names none."""
    return parse_spec_in(spec, _REGISTRY)


def parse_spec_in(
    spec: str, kinds: Mapping[str, PlayerKind], error: type[SumitoError] = PlayerSpecError, what: str = "player"
) -> tuple[PlayerKind, dict[str, Any]]:
    """The kind in ``kinds`` and the typed options that ``spec`` names (``name[:key=value,...]``), bounded
    before anything is allocated; else a one-line ``error``. Every game's player specs are read here
    (Abalone's registry, backgammon's :data:`~sumito.players.backgammon.players.KINDS`); ``what`` names
    the kind of player in the messages."""
    if len(spec) > MAX_SPEC_CHARS:
        raise error(f"a player spec has at most {MAX_SPEC_CHARS} characters, not {len(spec)}")
    name, _, opts_text = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in kinds:
        shown = name if len(name) <= 40 else name[:37] + "..."
        raise error(f"unknown {what} {shown!r} in {spec[:80]!r}; known players: {', '.join(sorted(kinds))}")
    kind = kinds[name]
    options: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in opts_text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq:
            raise error(f"option {item!r} in {spec[:80]!r} needs a value (key=value)")
        if key not in kind.options:
            accepted = ", ".join(kind.options) or "none"
            raise error(f"player {name!r} has no option {key!r}; it accepts: {accepted}")
        options[key] = _convert(kind.options[key], key, value.strip(), spec, error)
    return kind, options


def set_option(spec: str, key: str, value: object) -> str:
    """``spec`` with option ``key`` set to ``value`` (replacing any value it had), as a spec string."""
    name, _, opts_text = spec.strip().partition(":")
    items = [s.strip() for s in opts_text.split(",") if s.strip()]
    items = [s for s in items if s.partition("=")[0].strip().lower() != key]
    return f"{name.strip()}:{','.join([*items, f'{key}={value}'])}"


def seeded_spec(spec: str, seed: int) -> str:
    """``spec`` with ``seed=…`` added when its player kind takes a seed and the spec sets none."""
    kind, options = parse_spec(spec)
    if "seed" not in kind.options or "seed" in options:
        return spec.strip()
    return set_option(spec, "seed", seed)


def make_player(spec: str, resolve_path: Callable[[str, str], str] | None = None) -> Player:
    """The player ``spec`` names. ``resolve_path(key, value)``, when given, is asked for every option
    that names a file (``net=``, ``weights=``...) and returns the file to use or raises
    :class:`PlayerSpecError`: a server uses it to allow only the shipped networks and its model folder."""
    kind, options = parse_spec(spec)
    if resolve_path is not None:
        for key, value in options.items():
            if kind.options[key].path and value is not None:
                options[key] = resolve_path(key, value)
    full = {k: o.default for k, o in kind.options.items()}
    full.update(options)
    try:
        return kind.factory(**full)
    except PlayerSpecError:
        raise
    except SumitoError as exc:  # e.g. an unreadable weights file: say which spec it came from
        raise PlayerSpecError(f"{spec}: {exc}") from None
    except ValueError as exc:
        raise PlayerSpecError(f"{spec}: {exc}") from None


def _convert(option: Option, key: str, value: str, spec: str, error: type[SumitoError] = PlayerSpecError) -> Any:
    shown = value if len(value) <= 40 else value[:37] + "..."
    if len(value) > MAX_VALUE_CHARS:
        raise error(f"option {key} in the spec has {len(value)} characters; at most {MAX_VALUE_CHARS}")
    kind = option.type.__name__
    if option.type in (int, float):
        converted = read_number(value, whole=option.type is int)  # (sumito.bounds: one syntax for every number)
        if converted is None:
            raise error(f"option {key}={shown!r} in {spec[:80]!r} must be {kind}")
        converted = option.type(converted)
    else:
        try:
            if option.type is bool:
                if value.lower() in ("1", "true", "yes", "on"):
                    return True
                if value.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError
            converted = option.type(value)
        except ValueError:
            raise error(f"option {key}={shown!r} in {spec[:80]!r} must be {kind}") from None
    if option.type in (int, float) and (
        (option.low is not None and converted < option.low)
        or (option.high is not None and converted > option.high)
    ):
        raise error(f"option {key}={shown} is out of range; it must be within [{option.range_text(', ')}]")
    return converted
