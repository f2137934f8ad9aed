"""Analysis with the engine: the best moves of a position, and every move of a game scored.

:func:`analyse_position` asks the engine (:class:`~sumito.players.engine.EnginePlayer`, the same
search as ``sumito engine``'s ``go``) for the best ``top`` moves (MultiPV) with their scores and
principal variations; :func:`analyse_game` scores each move of a game against the engine's best
move at the same depth, so that a player finds the mistakes. Both return small frozen dataclasses
with ``to_dict()`` (JSON) and ``to_text()``, for ``sumito analyse`` and the web server.

Scores are for the side to move, in marbles (the evaluation's material weight is one marble: 1000
points for the linear evaluation and for networks), or a forced result: "wins in N" / "loses in
N" in moves of the side concerned (UCI's ``mate N``). With one of the papers' evaluations, whose
scores are not in marbles, the unit is "points".

Scores are in the board's own scale: a forced win counts as the marbles a win takes on that board
(its win threshold: 6 on the standard board, 5 on the small one, 2 on the mini board) and a forced
loss as minus that, and no other score goes beyond them (:func:`score_on`); the marble is the one
of the evaluation that scored the position (the hand-set evaluation's where the NNUE does not know
the board). A move's *loss* is the best move's score minus the played move's score, both searched
to the same depth from the position before the move, in marbles, so at most twice the win
threshold. Verdicts (:data:`THRESHOLDS`, which the web page's analysis uses too) judge the loss as
shown, to :data:`LOSS_DECIMALS` decimals: from 0.10 marble an *inaccuracy*, from 0.30 a *mistake*,
from 0.80 (about a marble, or the game) a *blunder*; below that the move is *good*, and the
engine's own choice is *best*. A move that walks into a forced loss, or lets a forced win go, is
a blunder whatever its loss (:func:`throws_game`); a slower win is not. The positional terms of
the linear evaluation are worth hundredths of a marble a move, so an inaccuracy is already a clear
positional concession and a blunder usually drops a marble.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sumito.defaults import ANALYSE_GAME_DEPTH, ANALYSE_SECONDS, THRESHOLDS
from sumito.errors import SumitoError
from sumito.games.abalone import Game, Move, Position, Variant
from sumito.games.abalone.geometry import COLOR_NAMES
from sumito.players import make_player, parse_spec
from sumito.players.engine import EnginePlayer
from sumito.players.perfect import has_table, ready_table, solved_table
from sumito.search.context import WIN_BOUND
from sumito.search.pvs import SearchResult, mate_moves

#: a forced win or loss, in points, for the papers' evaluations (not in marbles)
DECIDED_POINTS = 10.0
#: the decimals of a loss as shown (the command line's text, the web page's list), which its verdict judges
LOSS_DECIMALS = 2


class AnalysisError(SumitoError):
    """An analysis that cannot be done (not an engine spec, a finished position, a bad option)."""


@dataclass(frozen=True)
class Score:
    """A search score for the side to move: ``points`` as the engine counts, ``marble`` points a
    marble, ``win`` what a forced win counts (the board's win threshold in marbles; the standard
    board's by default): see :func:`score_on`."""

    points: float
    marble: float = 1000.0
    unit: str = "marbles"
    win: float = float(Variant().win_threshold)

    @property
    def mate(self) -> int | None:
        """Moves to a forced result: ``N > 0`` wins in N own moves, ``N < 0`` loses after -N of the
        opponent's; ``None`` when the score is not a forced result."""
        return mate_moves(self.points)

    @property
    def marbles(self) -> float:
        """The score in marbles (or points); a forced result counts ±``win``, and a score in marbles
        never goes beyond that (no position is worth more than a won game)."""
        if self.points > WIN_BOUND:
            return self.win
        if self.points < -WIN_BOUND:
            return -self.win
        value = self.points / self.marble
        return max(-self.win, min(self.win, value)) if self.unit == "marbles" else value

    def text(self) -> str:
        """``+1.25``, ``-0.03``, ``wins in 3`` or ``loses in 2``."""
        mate = self.mate
        if mate is not None:
            return f"wins in {mate}" if mate > 0 else f"loses in {-mate}"
        return f"{self.marbles:+.2f}"

    def uci(self) -> str:
        """UCI's score field: ``cp N`` (hundredths of a marble, or of a point) or ``mate N``."""
        mate = self.mate
        return f"mate {mate}" if mate is not None else f"cp {round(100 * self.points / self.marble)}"

    def to_dict(self) -> dict[str, Any]:
        mate = self.mate
        return {"marbles": None if mate is not None else round(self.marbles, 4), "mate": mate, "text": self.text()}


@dataclass(frozen=True)
class Line:
    """One of the best moves: the move, its score and the principal variation (the move first)."""

    move: str
    score: Score
    pv: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "score": self.score.to_dict(), "pv": list(self.pv)}


@dataclass(frozen=True)
class PositionAnalysis:
    """The engine's best moves in a position, best first (empty when the game is over there)."""

    position: str
    side: str
    depth: int
    nodes: int
    seconds: float
    lines: tuple[Line, ...]
    unit: str = "marbles"
    over: str | None = None  # why there is nothing to analyse: "White wins", "no legal moves"

    @property
    def best(self) -> Line | None:
        return self.lines[0] if self.lines else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position,
            "side": self.side,
            "depth": self.depth,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "unit": self.unit,
            "over": self.over,
            "lines": [line.to_dict() for line in self.lines],
        }

    def to_text(self) -> str:
        out = [f"position {self.position}"]
        if self.over is not None:
            out.append(f"game over: {self.over}")
            return "\n".join(out)
        nps = self.nodes / self.seconds if self.seconds > 0 else 0.0
        out.append(
            f"{self.side} to move; scores in {self.unit} for {self.side}; depth {self.depth}, "
            f"{self.nodes:,} nodes in {self.seconds:.2f} s ({nps:,.0f} nodes/s)"
        )
        for rank, line in enumerate(self.lines, 1):
            out.append(f"{rank:>3}. {line.move:<7} {line.score.text():>12}   {' '.join(line.pv)}")
        return "\n".join(out)


@dataclass(frozen=True)
class MoveReview:
    """One move of a game scored: the played move and the engine's best, at the same depth."""

    ply: int  # 1 for the game's first move
    number: int  # the move number (Black's and White's moves share one)
    side: str
    played: str
    played_score: Score
    best: str
    best_score: Score
    loss: float  # marbles (or points) the played move gives away, at least 0
    verdict: str  # best, good, inaccuracy, mistake or blunder
    depth: int
    pv: tuple[str, ...]  # the best line

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "number": self.number,
            "side": self.side,
            "played": self.played,
            "played_score": self.played_score.to_dict(),
            "best": self.best,
            "best_score": self.best_score.to_dict(),
            "loss": round(self.loss, 4),
            "verdict": self.verdict,
            "depth": self.depth,
            "pv": list(self.pv),
        }

    def to_text(self) -> str:
        mark = "." if self.side == "Black" else "..."
        head = f"{self.number:>4}{mark:<4}{self.played:<7} {self.played_score.text():>12}"
        if self.verdict == "best":
            return f"{head}   best move"
        tail = f"   best {self.best:<7} {self.best_score.text():>12}   loss {shown_loss(self.loss):5.{LOSS_DECIMALS}f}"
        return head + tail + (f"   {self.verdict}" if self.verdict != "good" else "")


@dataclass(frozen=True)
class GameAnalysis:
    """Every move of a game scored, with the players' totals."""

    reviews: tuple[MoveReview, ...]
    tags: dict[str, str] = field(default_factory=dict)
    result: str = "*"
    unit: str = "marbles"

    def summary(self) -> dict[str, dict[str, Any]]:
        """For each side: its moves, each verdict's count, the average loss and the plies of its
        mistakes and blunders."""
        out: dict[str, dict[str, Any]] = {}
        for side in ("Black", "White"):
            mine = [r for r in self.reviews if r.side == side]
            entry: dict[str, Any] = {"moves": len(mine)}
            for name, plural in (("inaccuracy", "inaccuracies"), ("mistake", "mistakes"), ("blunder", "blunders")):
                entry[plural] = sum(r.verdict == name for r in mine)
            entry["average_loss"] = round(sum(r.loss for r in mine) / len(mine), 4) if mine else 0.0
            entry["worst"] = [r.ply for r in mine if r.verdict in ("mistake", "blunder")]
            out[side] = entry
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "tags": dict(self.tags),
            "result": self.result,
            "unit": self.unit,
            "thresholds": dict(THRESHOLDS),
            "moves": [r.to_dict() for r in self.reviews],
            "summary": self.summary(),
        }

    def header(self) -> str:
        black, white = self.tags.get("Black", "?"), self.tags.get("White", "?")
        return f"{black} (Black) vs {white} (White), {self.result}; scores in {self.unit} for the side that moves"

    def summary_text(self) -> str:
        lines = []
        for side, s in self.summary().items():
            worst = f"; mistakes and blunders at plies {', '.join(map(str, s['worst']))}" if s["worst"] else ""
            lines.append(
                f"{side}: {s['moves']} moves, {s['inaccuracies']} inaccuracies, {s['mistakes']} mistakes, "
                f"{s['blunders']} blunders, average loss {s['average_loss']:.2f}{worst}"
            )
        return "\n".join(lines)

    def to_text(self) -> str:
        return "\n".join([self.header(), *(r.to_text() for r in self.reviews), self.summary_text()])


# ----------------------------------------------------------------------------- the engine
def analysis_engine(spec: str = "engine") -> EnginePlayer:
    """The engine player ``spec`` names (any ``engine:…`` spec: its evaluation, hash and contempt
    apply; its own time and depth do not, the analysis gives its own)."""
    kind, _ = parse_spec(spec)
    if kind.name != "engine":
        raise AnalysisError(f"analysis needs an engine spec (engine:...), not {spec!r}")
    player = make_player(spec)
    assert isinstance(player, EnginePlayer)
    return player


def score_unit(engine: EnginePlayer) -> str:
    return "marbles" if engine.scores_in_marbles else "points"


def score_on(engine: EnginePlayer, variant: Variant, points: float) -> Score:
    """``engine``'s search score ``points`` of a position of ``variant``, in that board's scale: the
    marble of the evaluation that scored it there, a forced win worth the board's win threshold."""
    if not engine.scores_in_marbles:
        return Score(points, engine.marble_value, "points", DECIDED_POINTS)
    return Score(points, engine.marble_value_on(variant.side), "marbles", float(variant.win_threshold))


def _limits(seconds: float | None, depth: int | None, default_seconds: float | None) -> tuple[float | None, int]:
    if seconds is not None and not seconds > 0:
        raise AnalysisError(f"the analysis time must be positive, not {seconds}")
    if depth is not None and not 1 <= depth <= 64:
        raise AnalysisError(f"the analysis depth must be from 1 to 64, not {depth}")
    if seconds is None and depth is None:
        seconds = default_seconds
    return seconds, depth or 64


def _game_over(position: Position) -> str | None:
    winner = position.winner()
    if winner is not None:
        return f"{COLOR_NAMES[int(winner)]} wins"
    if position.count_legal_moves() == 0:
        return "no legal moves"
    return None


def _search(
    engine: EnginePlayer,
    position: Position,
    seconds: float | None,
    depth: int,
    history: Sequence[int] | None,
    top: int,
    moves: Sequence[int] | None = None,
) -> SearchResult:
    # every legal move given explicitly: a position with one legal move is still scored to the full
    # depth; with a clock, the whole time is used (the deepest finished iteration counts)
    codes = position.legal_move_codes() if moves is None else moves
    return engine.analyse(position, seconds=seconds, depth=depth, history=history, multipv=top, moves=codes,
                          predict=False)


def analyse_position(
    position: Position,
    *,
    seconds: float | None = None,
    depth: int | None = None,
    top: int = 1,
    history: Sequence[int] | None = None,
    engine: EnginePlayer | str = "engine",
    on_iteration: Callable[[SearchResult], None] | None = None,
) -> PositionAnalysis:
    """The best ``top`` moves of ``position`` (MultiPV) after ``seconds`` of search or at ``depth``
    plies (default :data:`ANALYSE_SECONDS`); ``history`` holds the hashes of the game's earlier
    positions (repetitions draw). ``on_iteration`` sees each completed iteration."""
    if not 1 <= top <= 256:
        raise AnalysisError(f"top must be from 1 to 256, not {top}")
    seconds, max_depth = _limits(seconds, depth, ANALYSE_SECONDS)
    engine = analysis_engine(engine) if isinstance(engine, str) else engine
    side_name = COLOR_NAMES[position.side_to_move]
    over = _game_over(position)
    if over is not None:
        return PositionAnalysis(position.to_string(), side_name, 0, 0, 0.0, (), score_unit(engine), over)
    previous, engine.on_iteration = engine.on_iteration, on_iteration
    try:
        result = _search(engine, position, seconds, max_depth, history, top)
    finally:
        engine.on_iteration = previous
    return PositionAnalysis(
        position=position.to_string(),
        side=side_name,
        depth=result.depth,
        nodes=result.nodes,
        seconds=result.seconds,
        lines=tuple(lines_of(result, position, engine)),
        unit=score_unit(engine),
    )


def lines_of(result: SearchResult, position: Position, engine: EnginePlayer) -> list[Line]:
    """A search result's lines in notation, with their scores."""
    side = position.variant.side
    return [
        Line(Move(line.move, side).notation(), score_on(engine, position.variant, line.score),
             tuple(Move(code, side).notation() for code in line.pv))
        for line in result.lines
    ]


def shown_loss(loss: float) -> float:
    """A move's loss as it is shown: rounded to :data:`LOSS_DECIMALS` decimals."""
    return float(f"{loss:.{LOSS_DECIMALS}f}")


def _decided(score: Score) -> int:
    """1 for a forced win, -1 for a forced loss (``mate`` 0 included: lost on the board), 0 for neither."""
    if score.mate is None:
        return 0
    return 1 if score.points > 0 else -1


def throws_game(best: Score, played: Score) -> bool:
    """Whether the played move, scored ``played`` against the engine's ``best`` (both for the side
    that moves, from the position before the move), walks into a forced loss where the position was
    not lost, or lets a forced win go."""
    was, now = _decided(best), _decided(played)
    return (now < 0 <= was) or (was > 0 >= now)


def verdict(loss: float, played_is_best: bool, thrown: bool = False) -> str:
    """The word for a move that loses ``loss`` marbles, judged as shown (:func:`shown_loss`, see
    :data:`THRESHOLDS`); a move that throws the game (``thrown``, :func:`throws_game`) is the worst."""
    if played_is_best:
        return "best"
    if thrown:
        return THRESHOLDS[0][0]
    for name, least in THRESHOLDS:
        if shown_loss(loss) >= least:
            return name
    return "good"


def analyse_game(
    game: Game,
    *,
    seconds: float | None = None,
    depth: int | None = None,
    engine: EnginePlayer | str = "engine",
    tags: dict[str, str] | None = None,
    on_move: Callable[[MoveReview], None] | None = None,
) -> GameAnalysis:
    """Every move of ``game`` scored: from the position before it, the engine's best move after
    ``seconds`` a move or at ``depth`` plies (default :data:`ANALYSE_GAME_DEPTH`), then the played
    move searched alone to the same depth. ``on_move`` sees each review as it is done."""
    seconds, max_depth = _limits(seconds, depth, None)
    if seconds is None and depth is None:
        max_depth = ANALYSE_GAME_DEPTH
    engine = analysis_engine(engine) if isinstance(engine, str) else engine
    unit = score_unit(engine)
    reviews = []
    positions = game.positions
    for ply, played in enumerate(game.moves):
        position = positions[ply]
        history = [p.zobrist for p in positions[:ply]]
        best = _search(engine, position, seconds, max_depth, history, 1)
        best_score = score_on(engine, position.variant, best.score)
        side = position.variant.side
        if int(played.code) == best.move:
            played_score = best_score
        else:
            # the played move alone, to the depth the best move reached (a clock only as a safety net)
            again = _search(engine, position, None if seconds is None else 2 * seconds, max(best.depth, 1), history,
                            1, moves=[int(played.code)])
            played_score = score_on(engine, position.variant, again.score)
        loss = max(0.0, best_score.marbles - played_score.marbles)
        review = MoveReview(
            ply=ply + 1,
            number=position.move_number,
            side=COLOR_NAMES[position.side_to_move],
            played=played.notation(),
            played_score=played_score,
            best=Move(best.move, side).notation(),
            best_score=best_score,
            loss=loss,
            verdict=verdict(loss, int(played.code) == best.move, throws_game(best_score, played_score)),
            depth=best.depth,
            pv=tuple(Move(code, side).notation() for code in best.pv),
        )
        reviews.append(review)
        if on_move is not None:
            on_move(review)
    outcome = game.outcome()
    result = (tags or {}).get("Result") or (outcome.result if outcome is not None else "*")
    return GameAnalysis(tuple(reviews), dict(tags or {}), result, unit)


# ----------------------------------------------------------------------------- exact values


def exact_values(position: Position, solve: bool = True) -> dict | None:
    """The exact value of ``position`` for the side to move and of each legal move (for the side that plays
    it), best first, when its board is solved (the mini board and smaller variants; solved on first use, or
    with ``solve`` false only when its table is in the cache already), else ``None``. ``result`` is 1, 0 or
    −1 for the side to move and ``plies`` the distance to the end under perfect play."""
    if not has_table(position.variant):
        return None
    table = solved_table(position.variant) if solve else ready_table(position.variant)
    if table is None or table.covers(position) is not None:
        return None
    moves = sorted(table.move_values(position), key=lambda mv: -mv[1].score)
    value = table.value(position)
    return dict(value=value.text(), result=value.result, plies=value.plies,
                moves={m.notation(): v.text() for m, v in moves})
