"""Games between players built from spec strings: the work items, one game, and a match's statistics.

**Same seed, same games.** A match or tournament has one master seed. Game ``i`` gets its own
seed from ``numpy.random.SeedSequence(master, spawn_key=(i,))``; from that seed come the seeds
of its two players (for a player whose kind has a ``seed`` option that its spec leaves unset:
``random`` becomes ``random:seed=…``) and, for the first game of each pair, the opening.

**Colours and openings.** Games come in pairs with the same two players: game ``2k`` with one
colour assignment, game ``2k+1`` with the other. Both games of a pair start with the same
*opening* of ``opening_plies`` random legal plies (default 2; 0 plays from the start position),
chosen from the pair's first game seed, so that deterministic players do not play the same game
over and over, and each side of every opening is played once by each player. An opening never
ends the game (a ply that would is skipped; if every ply would, the opening is shorter). The
opening plies are part of the recorded game (they are marked by ``opening_plies`` and have no
thinking time).

**Draw rules.** Arena games are drawn after 400 plies (``max_plies``) or on the third occurrence
of the same position with the same side to move; the no-capture rule is off and a side without a
legal move draws (:data:`DEFAULT_RULES`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np

from sumito.arena.errors import ArenaError
from sumito.arena.ratings import elo_from_score, score_interval
from sumito.bounds import MAX_GAMES, MAX_SEED
from sumito.defaults import DEFAULT_OPENING_PLIES
from sumito.errors import SumitoError
from sumito.games.abalone import BLACK, LAYOUTS, WHITE, DrawRules, Game, Position, get_layout
from sumito.games.abalone.draws import DEFAULT_RULES
from sumito.games.abalone.game import TIME, Outcome
from sumito.games.abalone.geometry import COLOR_NAMES
from sumito.players import game_history, make_player, warm_up
from sumito.players.base import seeded_spec
from sumito.search.timeman import move_time

MAX_CLOCK_SECONDS = 86_400.0
#: games made and handed to the workers at a time (a long run is played in batches of this many)
SCHEDULE_BATCH = 2_000

R = TypeVar("R")


# --------------------------------------------------------------------------- settings and seeds
@dataclass(frozen=True)
class ArenaSettings:
    """What every game of a match or tournament shares: start, variant, draw rules, clock, seed."""

    start: str  # position string
    win_threshold: int
    inline_only: bool = False
    rules: DrawRules = DEFAULT_RULES
    movetime: float | None = None
    opening_plies: int = DEFAULT_OPENING_PLIES
    seed: int = 0
    layout: str | None = None  # the layout's name when ``start`` is a layout's start
    clock: tuple[float, float] | None = None  # (seconds a game, increment a move): a chess clock per side

    def __post_init__(self) -> None:
        if self.clock is not None:
            base, increment = self.clock
            if not (0 < base <= MAX_CLOCK_SECONDS and 0 <= increment <= MAX_CLOCK_SECONDS):
                raise ArenaError(f"a time control is BASE+INCREMENT seconds, BASE above 0; not {base:g}+{increment:g}")
            if self.movetime is not None:
                raise ArenaError("give a time control (--tc) or a time per move (--movetime), not both")
        if not 0 <= self.seed <= MAX_SEED:
            raise ArenaError(f"the seed must be a whole number from 0 to {MAX_SEED}, not {self.seed}")
        if self.opening_plies < 0:
            raise ArenaError(f"--opening-plies must be 0 or more, not {self.opening_plies}")
        if self.movetime is not None and not self.movetime > 0:
            raise ArenaError(f"--movetime must be a positive number of seconds, not {self.movetime}")

    @classmethod
    def from_position(cls, position: Position, **options: object) -> ArenaSettings:
        """Settings for games from ``position`` (its variant gives the win threshold and inline-only)."""
        text = position.to_string()
        side = position.variant.side
        layout = next(
            (n for n, lay in LAYOUTS.items() if lay.variant.side == side and lay.position_string == text), None
        )
        return cls(
            start=text,
            win_threshold=position.variant.win_threshold,
            inline_only=position.variant.inline_only,
            layout=layout,
            **options,  # type: ignore[arg-type]
        )

    @classmethod
    def from_layout(
        cls, layout: str = "standard", *, win_threshold: int | None = None, inline_only: bool | None = None, **options
    ) -> ArenaSettings:
        name = get_layout(layout).name
        pos = Position.start(name, win_threshold=win_threshold, inline_only=inline_only)
        return cls.from_position(pos, **options)

    def start_position(self) -> Position:
        return start_position(self.start, self.win_threshold, self.inline_only)


def start_position(text: str, win_threshold: int, inline_only: bool) -> Position:
    base = Position.from_string(text)
    variant = base.variant.with_options(win_threshold=win_threshold, inline_only=inline_only)
    return Position.from_string(text, variant)


def derive_seed(master: int, *key: int) -> int:
    """A 32-bit seed for the stream ``key`` of ``master`` (``SeedSequence`` spawn keys)."""
    return int(np.random.SeedSequence(master, spawn_key=tuple(key)).generate_state(1, np.uint32)[0])


def game_seed(master: int, index: int) -> int:
    """The seed of game ``index`` (from 0) of a match or tournament with seed ``master``."""
    return derive_seed(master, index)


def choose_opening(start: Position, rules: DrawRules, plies: int, rng: np.random.Generator) -> tuple[str, ...]:
    """``plies`` random legal plies from ``start`` that do not end the game (fewer if they must)."""
    game = Game(start, rules)
    moves: list[str] = []
    for _ in range(plies):
        legal = game.legal_moves()
        for k in rng.permutation(len(legal)).tolist():
            game.push(legal[k])
            if game.outcome() is None:
                moves.append(legal[k].notation())
                break
            game.pop()
        else:
            break
    return tuple(moves)


# --------------------------------------------------------------------------- one game
@dataclass(frozen=True)
class GameTask:
    """One game to play, as plain data: everything a worker process needs and nothing live."""

    black: str  # player spec as played (with its derived seed, if it takes one)
    white: str
    start: str  # position string
    win_threshold: int
    inline_only: bool
    rules: DrawRules
    movetime: float | None
    seed: int  # this game's derived seed
    index: int  # the game's number in its match or tournament, from 0
    opening: tuple[str, ...] = ()  # random opening plies (notation) played before the players move
    black_id: int = 0  # which player of the match or tournament plays Black
    white_id: int = 1
    clock: tuple[float, float] | None = None  # (seconds a game, increment a move) for each side


@dataclass(frozen=True)
class GameResult:
    """A finished game, as plain data."""

    task: GameTask
    moves: tuple[str, ...]  # every ply in notation, the opening included
    times: tuple[float | None, ...]  # seconds per ply (None for the opening plies)
    winner: int | None  # BLACK, WHITE or None for a draw
    reason: str  # push-off, repetition, ply-cap, no-capture, no-moves, ...
    lost_black: int  # marbles Black lost (pushed off by White)
    lost_white: int
    final: str  # the final position string

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def result(self) -> str:
        return {BLACK: "1-0", WHITE: "0-1"}.get(self.winner, "1/2-1/2")  # type: ignore[arg-type]

    def score_of(self, player_id: int, adjudicate: bool = False) -> float:
        """The score of player ``player_id`` (1 win, ½ draw, 0 loss).

        With ``adjudicate``, a game that ended without a winner (repetition, ply cap, ...) goes
        to the player who pushed off more marbles, as in tournaments played to a time limit;
        it stays drawn when both pushed off as many.
        """
        if self.winner is None:
            if not adjudicate:
                return 0.5
            other = self.task.white_id if self.task.black_id == player_id else self.task.black_id
            taken, lost = self.marbles_lost_by(other), self.marbles_lost_by(player_id)
            return 1.0 if taken > lost else 0.0 if taken < lost else 0.5
        winner_id = self.task.black_id if self.winner == BLACK else self.task.white_id
        return 1.0 if winner_id == player_id else 0.0

    def color_of(self, player_id: int) -> int:
        return BLACK if self.task.black_id == player_id else WHITE

    def marbles_lost_by(self, player_id: int) -> int:
        return self.lost_black if self.color_of(player_id) == BLACK else self.lost_white

    def move_times_of(self, player_id: int) -> list[float]:
        color = self.color_of(player_id)
        side_at = _side_to_move(self.task.start)
        return [t for k, t in enumerate(self.times) if t is not None and (3 - side_at if k % 2 else side_at) == color]


def _side_to_move(position_string: str) -> int:
    fields = position_string.split()
    return WHITE if len(fields) > 1 and fields[1] == "w" else BLACK


def play_game(task: GameTask) -> GameResult:
    """Play one game (the work function of matches and tournaments; runs in a worker process)."""
    game = Game(start_position(task.start, task.win_threshold, task.inline_only), task.rules)
    for text in task.opening:
        game.push(text)
    times: list[float | None] = [None] * len(task.opening)
    specs = {BLACK: task.black, WHITE: task.white}
    players = {}
    for color, spec in specs.items():
        try:
            players[color] = make_player(spec)
        except SumitoError:
            raise
        except Exception as exc:
            raise ArenaError(f"game {task.index + 1}: player {spec!r} could not start: {_describe(exc)}") from exc
    # loading (or a first run's compiling) of the kernels counts against no clock and no move's time: each
    # player warms up, and under a clock a throwaway copy of it (so that seeded players play as they would)
    # thinks once too, for the kinds of player that load their kernels only in a move
    for color, spec in specs.items():
        if task.clock:
            make_player(spec).choose(game.position, 0.01, history=game_history(game))
        warm_up(players[color], game.position)
    left = {BLACK: task.clock[0], WHITE: task.clock[0]} if task.clock else {}  # seconds on each clock
    while not game.is_over():
        color = game.position.side_to_move
        ply = game.plies + 1
        who = f"game {task.index + 1}: {COLOR_NAMES[color]} player {specs[color]!r}"
        # with a clock, the player is told what the time manager would spend of it (players without a
        # time control of their own ignore it, and may lose on time: that is what a clock is for)
        allowed = move_time(left[color], task.clock[1]) if task.clock else task.movetime
        t0 = time.perf_counter()
        try:
            move = players[color].choose(game.position, allowed, history=game_history(game),
                                        draw=game.draw_counters())
        except Exception as exc:
            raise ArenaError(
                f"{who} failed at ply {ply}: {_describe(exc)}"
            ) from exc
        elapsed = time.perf_counter() - t0
        if task.clock:
            left[color] -= elapsed
            if left[color] < 0:  # the flag falls: the move is not played
                game.declare(Outcome(3 - color, TIME))
                break
            left[color] += task.clock[1]
        try:
            game.push(move)
        except SumitoError as exc:
            raise ArenaError(
                f"{who} played an illegal move at ply {ply}: {exc}"
            ) from exc
        times.append(elapsed)
    outcome = game.outcome()
    assert outcome is not None
    final = game.position
    return GameResult(
        task=task,
        moves=tuple(m.notation() for m in game.moves),
        times=tuple(times),
        winner=outcome.winner,
        reason=outcome.reason,
        lost_black=final.lost[0],
        lost_white=final.lost[1],
        final=final.to_string(),
    )


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


# --------------------------------------------------------------------------- scheduling
class Schedule(Sequence[GameTask]):
    """The games of a round robin among ``players`` (a match is the two-player case), each made when it is
    asked for: a schedule of ten million games costs nothing until its games are played.

    Every pair plays ``games_per_pair`` games: for each pair of games (one per colour assignment,
    the lower-numbered player Black first) the same random opening. The schedule goes round by
    round (games 1–2 of every pair, then games 3–4, …), so an interrupted tournament is balanced.
    With ``starts`` (position strings of ``settings``' board, an opening suite), the k-th pair of
    games starts from ``starts[k % len(starts)]`` instead, without random plies. Game ``i`` is the same
    whether it is made alone or with the others (:func:`schedule` lists them all).
    """

    def __init__(
        self, players: Sequence[str], games_per_pair: int, settings: ArenaSettings, starts: Sequence[str] | None = None
    ) -> None:
        if games_per_pair < 1:
            raise ArenaError(f"the number of games must be at least 1, not {games_per_pair}")
        if len(players) < 2:
            raise ArenaError("a match needs two players and a tournament at least two")
        pairs = len(players) * (len(players) - 1) // 2
        if games_per_pair > MAX_GAMES or games_per_pair * pairs > MAX_GAMES:
            raise ArenaError(f"{games_per_pair} games for each of {pairs} pair(s) of players is more than "
                             f"{MAX_GAMES:,} games; play fewer")
        for spec in players:
            seeded_spec(spec, 0)  # a bad spec is refused before anything is played
            if spec.strip().partition(":")[0].strip().lower() == "human":
                raise ArenaError("the arena plays computer players; play a human with `sumito play`")
        self.players = list(players)
        self.games_per_pair = games_per_pair
        self.settings = settings
        self.starts = list(starts) if starts else None
        self._pairs = list(itertools.combinations(range(len(players)), 2))
        self._start = settings.start_position()
        self._opening: tuple[int, tuple[str, ...]] | None = None  # the last opening made: both games of a pair share it

    def __len__(self) -> int:
        return self.games_per_pair * len(self._pairs)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"game {index} of a schedule of {len(self)}")
        return self._task(index)

    def _task(self, index: int) -> GameTask:
        pairs = len(self._pairs)
        rnd, rest = divmod(index, 2 * pairs)
        # the last round of an odd number of games a pair has one game a pair
        two = 2 * rnd + 1 < self.games_per_pair
        pair, k = divmod(rest, 2) if two else (rest, 0)
        first = index - k  # the index of the first game of this pair of games: its seed chooses the opening
        i, j = self._pairs[pair]
        black, white = (i, j) if k == 0 else (j, i)
        settings = self.settings
        if self.starts:
            pair_start, opening = self.starts[(first // 2) % len(self.starts)], ()
        else:
            pair_start, opening = settings.start, self._opening_of(first)
        seed = game_seed(settings.seed, index)
        return GameTask(
            black=seeded_spec(self.players[black], derive_seed(seed, 1)),
            white=seeded_spec(self.players[white], derive_seed(seed, 2)),
            start=pair_start,
            win_threshold=settings.win_threshold,
            inline_only=settings.inline_only,
            rules=settings.rules,
            movetime=settings.movetime,
            clock=settings.clock,
            seed=seed,
            index=index,
            opening=opening,
            black_id=black,
            white_id=white,
        )

    def _opening_of(self, first: int) -> tuple[str, ...]:
        if self._opening is None or self._opening[0] != first:
            rng = np.random.default_rng(np.random.SeedSequence(game_seed(self.settings.seed, first), spawn_key=(0,)))
            self._opening = (first, choose_opening(self._start, self.settings.rules, self.settings.opening_plies, rng))
        return self._opening[1]


def schedule(
    players: Sequence[str], games_per_pair: int, settings: ArenaSettings, starts: Sequence[str] | None = None
) -> list[GameTask]:
    """Every game of :class:`Schedule` (``players``, ``games_per_pair``, ``settings``, ``starts``) in a list."""
    return list(Schedule(players, games_per_pair, settings, starts))


def play_scheduled(
    run: Callable[[list[GameTask]], Iterator[tuple[int, R]]], tasks: Sequence[GameTask], batch: int = SCHEDULE_BATCH
) -> Iterator[tuple[int, R]]:
    """``run(tasks)`` (an executor's or a journal's ``run``: ``(index, result)`` as the games finish), a batch
    of ``batch`` games at a time, so that only one batch of a long schedule is ever made and queued; the
    indices are the games' places in ``tasks``. Closing the generator closes the batch's run (its workers stop)."""
    for begin in range(0, len(tasks), batch):
        chunk = list(tasks[begin : begin + batch])
        with contextlib.closing(run(chunk)) as stream:  # type: ignore[arg-type]
            for i, result in stream:
                yield begin + i, result


# --------------------------------------------------------------------------- statistics of a pair
@dataclass
class PairSummary:
    """Player A's results against player B (A = ``a``, B = ``b``: indices into the players);
    with ``adjudicate``, games without a winner are scored on marbles (:meth:`GameResult.score_of`)."""

    a: int
    b: int
    adjudicate: bool = False
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    as_black: list[int] = field(default_factory=lambda: [0, 0, 0])  # A's wins, draws, losses as Black
    as_white: list[int] = field(default_factory=lambda: [0, 0, 0])
    endings: dict[str, Counter] = field(default_factory=lambda: {k: Counter() for k in ("win", "draw", "loss")})
    marbles_won: int = 0  # pushed off by A
    marbles_lost: int = 0  # pushed off by B
    plies: int = 0
    time_a: float = 0.0
    moves_a: int = 0
    time_b: float = 0.0
    moves_b: int = 0

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def interval(self) -> tuple[float, float, float]:
        """A's mean score and its 95% profile-likelihood interval (see :mod:`sumito.arena.ratings`)."""
        return score_interval(self.wins, self.draws, self.losses)

    @property
    def elo(self) -> tuple[float, float, float]:
        """The Elo difference A − B and its 95% interval (±inf at a perfect score)."""
        score, low, high = self.interval
        return elo_from_score(score), elo_from_score(low), elo_from_score(high)

    @property
    def average_plies(self) -> float:
        return self.plies / self.games if self.games else math.nan

    @property
    def move_time_a(self) -> float:
        return self.time_a / self.moves_a if self.moves_a else math.nan

    @property
    def move_time_b(self) -> float:
        return self.time_b / self.moves_b if self.moves_b else math.nan

    def add(self, result: GameResult) -> None:
        ids = (result.task.black_id, result.task.white_id)
        if set(ids) != {self.a, self.b}:
            return
        a, b = self.a, self.b
        score = result.score_of(a, self.adjudicate)
        key = {1.0: "win", 0.5: "draw", 0.0: "loss"}[score]
        slot = {"win": 0, "draw": 1, "loss": 2}[key]
        self.games += 1
        self.wins += key == "win"
        self.draws += key == "draw"
        self.losses += key == "loss"
        (self.as_black if result.color_of(a) == BLACK else self.as_white)[slot] += 1
        decided_on_marbles = result.winner is None and score != 0.5
        self.endings[key][result.reason + (" on marbles" if decided_on_marbles else "")] += 1
        self.marbles_won += result.marbles_lost_by(b)
        self.marbles_lost += result.marbles_lost_by(a)
        self.plies += result.plies
        ta, tb = result.move_times_of(a), result.move_times_of(b)
        self.time_a += sum(ta)
        self.moves_a += len(ta)
        self.time_b += sum(tb)
        self.moves_b += len(tb)


def summarize_pair(results: Sequence[GameResult], a: int = 0, b: int = 1, adjudicate: bool = False) -> PairSummary:
    """A's results against B over the games in ``results`` between them (``adjudicate``: games
    without a winner are scored on marbles)."""
    summary = PairSummary(a, b, adjudicate)
    for result in sorted(results, key=lambda r: r.task.index):
        summary.add(result)
    return summary
