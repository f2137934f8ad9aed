"""Who plays a web game: the players and presets a seat can take, their names as the page shows them, the
seats of a game and its clocks."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from sumito.evaluation.nnue import BUILTIN_NNUE
from sumito.games.abalone import (
    BLACK,
    WHITE,
    get_layout,
)
from sumito.players import PlayerSpecError, parse_spec
from sumito.players.engine import DEFAULT_TIME
from sumito.players.perfect import table_on_disk
from sumito.search.context import WIN, WIN_BOUND

log = logging.getLogger("sumito.web")

HUMAN = "human"


@dataclass(frozen=True)
class Preset:
    id: str
    name: str
    spec: str
    description: str
    layout: str | None = None  # the one layout it plays on (None: any)
    needs_table: bool = False  # plays from its board's solved table

    def offered(self) -> bool:
        """Whether this server can play it now: perfect play needs its board's table in the cache (built once
        by ``sumito solve``; a web request never starts a solve)."""
        return not self.needs_table or table_on_disk(get_layout(self.layout or "mini").variant)

    def to_json(self) -> dict[str, str | None]:
        return {"id": self.id, "name": self.name, "spec": self.spec, "description": self.description,
                "layout": self.layout}


PRESETS = (
    Preset("beginner", "Beginner", "greedy", "one move ahead: takes a marble when it can, else heads for the centre"),
    Preset("abla", "ABLA", "abla:depth=3", "the ABLA paper's player: 3-ply alpha-beta over centre and cohesion"),
    Preset("alphalone", "Alphalone", "alphalone", "the Alphalone report's agent: 2 moves a side, published weights"),
    Preset("td", "TD network", "td", "a value network trained by TD(λ), Abalearn's Method I(a), one ply"),
    Preset("engine-fast", "Engine (0.2 s)", "engine:time=0.2,nnue=builtin-nnue",
           "Sumito's engine with its learned evaluation, 0.2 seconds a move"),
    Preset("engine", "Engine (1 s)", "engine:time=1,nnue=builtin-nnue",
           "Sumito's engine with its learned evaluation, 1 second a move"),
    Preset("engine-strong", "Engine (3 s)", "engine:time=3,nnue=builtin-nnue",
           "Sumito's engine with its learned evaluation, 3 seconds a move: the strongest"),
    Preset("engine-classic", "Engine, hand-set evaluation (1 s)", "engine:time=1,nnue=none",
           "Sumito's engine with the hand-set linear evaluation, 1 second a move"),
    Preset("perfect", "Perfect play (mini board)", "perfect",
           "exact play from the solved mini board: the fastest win, a draw, or the slowest loss", layout="mini",
           needs_table=True),
    Preset("zero", "Zero learner (mini board)", "zero:time=0.5",
           "a policy-value network that taught itself the mini board by self-play with tree search, 0.5 s a move",
           layout="mini"),
)
PRESET_BY_ID = {p.id: p for p in PRESETS}


@dataclass(frozen=True)
class Seat:
    """Who plays one colour: ``spec`` is ``human`` or a player spec; ``name`` is what the page shows."""

    spec: str
    name: str

    @property
    def human(self) -> bool:
        return self.spec == HUMAN

    def to_json(self) -> dict[str, str]:
        return {"spec": self.spec, "name": self.name}


def resolve_seat(text: str) -> Seat:
    """The seat that ``text`` names: ``human``, a preset id (which wins over a player name) or a spec.

    Raises :class:`PlayerSpecError` for an unknown player or option; whether the player can be
    built (a weights file that exists, …) is checked by :meth:`GameHall.check_player`.
    """
    text = text.strip()
    if not text:
        ids = ", ".join(p.id for p in PRESETS)
        raise PlayerSpecError(f"a player is 'human', a preset ({ids}) or a player spec such as engine:time=1")
    key = text.lower()
    if key in PRESET_BY_ID:
        preset = PRESET_BY_ID[key]
        return Seat(preset.spec, preset.name)
    return Seat(HUMAN if parse_spec(text)[0].name == HUMAN else text, player_name(text))


def player_name(spec: str, you: bool = True) -> str:
    """The name the page shows for the player ``spec``: "You" for a person (``you``; else
    "Human": someone else's game), a preset's name (whatever the order of its options), "Engine
    (0.1 s)" for the learned engine with a time or depth alone, else the spec itself. A spec that
    names no player known here is shown as it is."""
    text = spec.strip()
    try:
        kind, options = parse_spec(text)
    except PlayerSpecError:
        return text
    if kind.name == HUMAN:
        return "You" if you else "Human"
    for preset in PRESETS:
        preset_kind, preset_options = parse_spec(preset.spec)
        if (preset_kind.name, preset_options) == (kind.name, options):
            return preset.name
    if kind.name == "engine" and options.get("nnue") == BUILTIN_NNUE and set(options) <= {"nnue", "time", "depth"}:
        limits = [f"depth {options['depth']}"] if options.get("depth") is not None else []
        if options.get("time") is not None or not limits:
            limits.append(f"{options.get('time') or DEFAULT_TIME:g} s")
        return f"Engine ({', '.join(limits)})"
    return text


@dataclass
class Clock:
    """A game's two clocks: seconds left each (``left[BLACK]``, ``left[WHITE]``) and the increment
    added after each move; ``since`` is when the side to move's clock started (monotonic)."""

    initial: float
    increment: float
    left: dict[int, float]
    since: float = 0.0

    @classmethod
    def fresh(cls, initial: float, increment: float) -> Clock:
        return cls(initial, increment, {BLACK: initial, WHITE: initial}, time.monotonic())

    def remaining(self, color: int, running: bool) -> float:
        """Seconds left to ``color`` now (its clock runs when ``running``)."""
        left = self.left[color]
        return left - (time.monotonic() - self.since) if running else left

    def charge(self, color: int, seconds: float) -> bool:
        """Take ``seconds`` off ``color``'s clock and add the increment; False (and nothing added)
        when the clock ran out first."""
        left = self.left[color] - seconds
        if left <= 0:
            self.left[color] = 0.0
            return False
        self.left[color] = round(left + self.increment, 3)
        return True

    def to_db(self) -> str:
        return json.dumps({"initial": self.initial, "increment": self.increment,
                           "black": self.left[BLACK], "white": self.left[WHITE]})

    @classmethod
    def from_db(cls, text: str | None) -> Clock | None:
        if not text:
            return None
        blob = json.loads(text)
        left = {BLACK: float(blob["black"]), WHITE: float(blob["white"])}
        return cls(float(blob["initial"]), float(blob["increment"]), left, time.monotonic())


def score_json(points: float, marbles: float, to_move: int) -> dict[str, Any]:
    """A search score for the side to move as the API gives it: ``score`` in marbles on the board's
    own scale (``marbles``: a forced win counts the board's win threshold, see
    :func:`~sumito.analysis.score_on`), ``black`` the same for Black, and ``win_in``: the plies to a
    forced win (positive: the side to move wins; negative: it loses; 0: over), else null; ``points``
    is the engine's own score, which tells the plies."""
    win_in = None
    if abs(points) >= WIN_BOUND:
        plies = round(WIN - abs(points))
        win_in = plies if points > 0 else -plies
    score = round(marbles, 3) + 0.0  # + 0.0: no -0.0
    return {"score": score, "black": score if to_move == BLACK else -score + 0.0, "win_in": win_in}
