"""The strongest player, and the one that gives a person hints: never a weaker one than the opponent.

The strongest player is the engine with its learned evaluation (docs/strength-ledger.md; on the boards the
network does not know, it searches with the hand-set evaluation). A hint, in the terminal
(``sumito play``) as on the web page, comes from that engine searching at least as long as the
opponent thinks and at least as deep as an opponent engine searches, so that a hint is never
the advice of a weaker player than the one it is played against. The spec names
``nnue=builtin-nnue`` itself rather than leaning on the bare ``engine``'s default evaluation.
"""

from __future__ import annotations

from sumito.defaults import STRONGEST_ENGINE
from sumito.players.base import parse_spec, set_option
from sumito.players.engine import DEFAULT_TIME

#: the least a hint searches, in seconds (the terminal's hint; the web page asks for less, and gets
#: the opponent's time when that is more)
HINT_SECONDS = 1.0


def hint_spec(opponent: str | None = None, least: float = HINT_SECONDS, movetime: float | None = None) -> str:
    """The spec of the player that gives a hint against ``opponent`` (a player spec; ``None``: a
    person): :data:`STRONGEST_ENGINE` searching ``least`` seconds, or as long as the opponent may
    think when that is more (an engine's ``time``, or its default second when it sets no depth;
    another player's ``time`` option; at most ``movetime``, the clock a game gives the computer
    players), and to the opponent engine's ``depth`` when it has one. An opponent engine bounded by
    depth alone gives a hint bounded by that depth alone."""
    time: float | None = least
    depth: int | None = None
    if opponent is not None:
        kind, options = parse_spec(opponent)
        their_time = options.get("time") or None  # 0: no limit (alphalone)
        if kind.name == "engine":
            depth = options.get("depth")
            if their_time is None and depth is None:
                their_time = DEFAULT_TIME
        if movetime is not None:
            their_time = movetime if their_time is None else min(their_time, movetime)
        if their_time is None and depth is not None:
            time = None  # a fixed depth, whatever it takes: the hint searches to the same depth
        elif their_time is not None:
            time = max(least, float(their_time))
    spec = STRONGEST_ENGINE
    if time is not None:
        spec = set_option(spec, "time", f"{time:g}")
    if depth is not None:
        spec = set_option(spec, "depth", depth)
    return spec
