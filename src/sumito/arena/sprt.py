"""Sequential probability ratio test between two players, as fishtest runs them (``sumito sprt A B``).

**Pairs of games.** The games come in pairs from one opening of the suite (:mod:`sumito.arena.openings`):
A plays Black in the first game and White in the second. A pair scores 0, ½, 1, 1½ or 2 points for
A, and the test counts pairs by that score — the *pentanomial* counts ``(n0, n½, n1, n1½, n2)``.
Counting pairs rather than games takes away most of the opening's and the first move's share of
the variance (a pair won by the side that had an easy opening twice shows as 1–1), so a test needs
fewer games than one on single games; it is fishtest's default for the same reason.

**The test** (Wald's SPRT, in the generalised form of M. Van den Bergh used by fishtest): H0 "A is
``elo0`` stronger than B" against H1 "A is ``elo1`` stronger", Elo on the logistic scale (a per-game
expected score of ``1 / (1 + 10^(−elo/400))``). For each hypothesis the pentanomial distribution
closest to the observed one (maximum likelihood) with that expected score is found — ``p_i =
p̂_i / (1 + λ(a_i − s))``, ``a_i`` the pair's score per game, λ solved so that the ``p_i`` sum to one —
and the log-likelihood ratio is ``LLR = N · Σ p̂_i log(p1_i / p0_i)`` over the ``N`` pairs. The test
stops for H1 when the LLR reaches ``log((1 − β)/α)`` and for H0 when it falls to ``log(β/(1 − α))``
(α, β the error rates; 0.05 each gives ±2.94). Zero counts are regularised as fishtest does (a count
of 0 counts as 0.001) so that the distributions stay strictly positive.

**The Elo estimate** is the mean score per game over the pairs, mapped to Elo, with a 95% interval
from the pairs' standard error (a normal approximation: the pairs are independent).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from sumito.arena.errors import ArenaError
from sumito.arena.journal import GameJournal, task_key
from sumito.arena.match import DEFAULT_RULES, ArenaSettings, GameTask, Schedule, play_game, play_scheduled
from sumito.arena.openings import load_openings
from sumito.arena.ratings import Z95, elo_from_score, expected_score
from sumito.bounds import MAX_ELO
from sumito.fileio import refuse_changed, shown_path
from sumito.games.abalone import Position
from sumito.progress import Progress

#: a pair's score per game, for the pentanomial counts 0, ½, 1, 1½, 2 points over two games
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
REGULARISE = 1e-3  # what a zero count counts as (fishtest's)


@dataclass(frozen=True)
class SprtBounds:
    """The hypotheses (Elo of A over B: ``elo0`` under H0, ``elo1`` under H1) and the error rates."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1"):
            value = getattr(self, name)
            if not math.isfinite(value) or abs(value) > MAX_ELO:
                raise ArenaError(f"--{name} must be an Elo difference within ±{MAX_ELO:g}, not {value}")
        if not self.elo0 < self.elo1:
            raise ArenaError(f"--elo0 must be below --elo1 (H0: A is elo0 stronger, H1: elo1), not {self.elo0} ≥ "
                             f"{self.elo1}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 0.5:
                raise ArenaError(f"--{name} is an error rate between 0 and 0.5, not {value}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1.0 - self.beta) / self.alpha)


def pair_category(points: float) -> int:
    """The pentanomial category (0..4) of a pair in which A scored ``points`` (0, ½, …, 2)."""
    k = round(points * 2)
    if not 0 <= k <= 4 or abs(points * 2 - k) > 1e-9:
        raise ArenaError(f"a pair of games scores 0, 0.5, 1, 1.5 or 2 points, not {points}")
    return k


def pentanomial(pair_points: Iterable[float]) -> tuple[int, int, int, int, int]:
    counts = [0] * 5
    for points in pair_points:
        counts[pair_category(points)] += 1
    return tuple(counts)  # type: ignore[return-value]


def _closest(p_hat: Sequence[float], s: float) -> list[float]:
    """The distribution over :data:`PAIR_SCORES` with mean ``s`` that is closest to ``p_hat`` in likelihood."""
    d = [a - s for a in PAIR_SCORES]
    if max(d) <= 0 or min(d) >= 0:  # s outside (0, 1): no such distribution
        raise ArenaError(f"an expected score must be strictly between 0 and 1, not {s}")
    # f(λ) = Σ p̂ d / (1 + λ d) falls from +∞ to −∞ on (−1/max d, −1/min d): bisect for its root (plain
    # floats: five terms, called after every pair)
    lo, hi = -1.0 / max(d), -1.0 / min(d)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if sum(p * x / (1.0 + mid * x) for p, x in zip(p_hat, d)) > 0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    q = [p / (1.0 + lam * x) for p, x in zip(p_hat, d)]
    total = sum(q)
    return [x / total for x in q]


def llr(counts: Sequence[int], bounds: SprtBounds) -> float:
    """The log-likelihood ratio of H1 against H0 for the pentanomial ``counts`` (0 with no pairs)."""
    n = float(sum(counts))
    if n == 0:
        return 0.0
    regular = [c if c > 0 else REGULARISE for c in counts]
    total = sum(regular)
    p_hat = [c / total for c in regular]
    p0 = _closest(p_hat, expected_score(bounds.elo0))
    p1 = _closest(p_hat, expected_score(bounds.elo1))
    return total * sum(p * math.log(b / a) for p, a, b in zip(p_hat, p0, p1))


@dataclass(frozen=True)
class EloEstimate:
    elo: float
    low: float
    high: float
    score: float  # A's mean score a game


def elo_estimate(counts: Sequence[int]) -> EloEstimate:
    """A's Elo over B from the pentanomial ``counts``, with its 95% interval (normal approximation over pairs)."""
    n = sum(counts)
    if n == 0:
        raise ArenaError("no pairs of games yet")
    p = [c / n for c in counts]
    mean = sum(q * a for q, a in zip(p, PAIR_SCORES))
    se = math.sqrt(sum(q * (a - mean) ** 2 for q, a in zip(p, PAIR_SCORES)) / n)
    low, high = max(mean - Z95 * se, 0.0), min(mean + Z95 * se, 1.0)
    return EloEstimate(elo_from_score(mean), elo_from_score(low), elo_from_score(high), mean)


@dataclass
class SprtState:
    """The test so far: the pairs finished, their pentanomial counts, the games' W/D/L for A."""

    bounds: SprtBounds
    counts: list[int] = field(default_factory=lambda: [0] * 5)
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add_pair(self, scores: Sequence[float]) -> None:
        """A finished pair: A's score (1, ½, 0) in each of its two games."""
        for s in scores:
            if s == 1.0:
                self.wins += 1
            elif s == 0.0:
                self.losses += 1
            else:
                self.draws += 1
        self.counts[pair_category(sum(scores))] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def llr(self) -> float:
        return llr(self.counts, self.bounds)

    @property
    def decision(self) -> str | None:
        """``"H1"`` (A is at least elo1 stronger), ``"H0"`` (at most elo0), or ``None`` while undecided."""
        value = self.llr
        if value >= self.bounds.upper:
            return "H1"
        if value <= self.bounds.lower:
            return "H0"
        return None

    def summary(self) -> str:
        b = self.bounds
        text = (f"{2 * self.pairs} games ({self.pairs} pairs): A {self.wins} won, {self.draws} drawn, {self.losses} "
                f"lost; pentanomial {self.counts}; LLR {self.llr:+.2f} [{b.lower:+.2f}, {b.upper:+.2f}]")
        if self.pairs:
            e = elo_estimate(self.counts)
            text += f"; Elo {_elo(e.elo)} (95%: {_elo(e.low)} to {_elo(e.high)})"
        return text


def _elo(x: float) -> str:
    return "+inf" if x == math.inf else "-inf" if x == -math.inf else f"{x:+.1f}"


def run_sprt(
    state: SprtState,
    results: Iterable[tuple[int, float]],
    *,
    on_pair: Callable[[SprtState], None] | None = None,
    max_pairs: int | None = None,
    stop_at_bounds: bool = True,
) -> SprtState:
    """Feed ``results`` — ``(game index, A's score)`` as games finish, game 2k and 2k + 1 forming pair k — into
    ``state`` until a bound is crossed (unless not ``stop_at_bounds``: a fixed-length test) or ``max_pairs`` pairs
    are in; ``on_pair`` sees the state after each pair."""
    halves: dict[int, float] = {}
    for index, score in results:
        k = index // 2
        if k in halves:
            state.add_pair((halves.pop(k), score))
            if on_pair is not None:
                on_pair(state)
            if (stop_at_bounds and state.decision is not None) or (max_pairs is not None and state.pairs >= max_pairs):
                break
        else:
            halves[k] = score
    return state


# --------------------------------------------------------------------------- the test


def play_sprt(
    a: str,
    b: str,
    bounds: SprtBounds,
    *,
    max_games: int,
    executor: Any,
    openings: Sequence[str] | None = None,
    rules: Any = DEFAULT_RULES,
    movetime: float | None = None,
    clock: Any = None,
    seed: int = 1,
    journal: GameJournal | None = None,
    fixed: bool = False,
    label: str = "sprt",
    every: int = 10,
    journal_of_this_test: bool = False,
) -> SprtState:
    """Play pairs of games between the players ``a`` and ``b`` (pair k from opening k of the suite, A Black
    in game 2k and White in game 2k + 1) on ``executor`` until ``bounds`` decide (or, ``fixed``, to the end),
    at most ``max_games``; ``journal`` keeps finished games, so that the same call goes on after a kill
    (``journal_of_this_test``: a journal of another test is refused, :func:`refuse_another_test`).
    Progress goes to stderr (``label``), with the state every ``every`` pairs. Ctrl-C raises
    KeyboardInterrupt after the state so far is printed."""
    suite = list(openings) if openings is not None else load_openings()
    first = Position.from_string(suite[0])
    settings = ArenaSettings(start=suite[0], win_threshold=first.variant.win_threshold, rules=rules,
                             movetime=movetime, clock=clock, seed=seed, opening_plies=0)
    # made as they are played, a batch at a time: --max-games 10000000 allocates nothing up front
    tasks = Schedule([a, b], 2 * (max_games // 2), settings, starts=suite)
    if journal is not None and journal_of_this_test:
        refuse_another_test(journal, tasks)
    state = SprtState(bounds)
    if journal is not None:
        games = play_scheduled(lambda batch: journal.play(executor, batch), tasks)
    else:
        games = play_scheduled(lambda batch: executor.run(play_game, batch), tasks)

    # the games the journal held when the test began come back at once: the rate counts from the last of them
    kept = frozenset(journal.done) if journal is not None else frozenset()
    replaying = bool(kept)

    def scores() -> Iterator[tuple[int, float]]:
        nonlocal replaying
        with contextlib.closing(games) as stream:
            for index, result in stream:
                replaying = bool(kept) and task_key(result.task) in kept
                yield index, result.score_of(0)

    # done/total counts games against max_games: a test that crosses a bound ends sooner (an ETA at most)
    progress = Progress(label, len(tasks), "games", total_is_limit=not fixed)

    def report(s: SprtState) -> None:
        progress.update(2 * s.pairs, status=f"LLR {s.llr:+.2f} ({s.bounds.lower:+.2f}, {s.bounds.upper:+.2f})",
                        kept=replaying)
        if s.pairs % every == 0:
            print(f"  {s.summary()}", file=sys.stderr, flush=True)

    try:
        # closed here, not by the garbage collector: a Ctrl-C while the pool stops must reach the caller
        with progress, contextlib.closing(scores()) as stream:
            run_sprt(state, stream, on_pair=report, max_pairs=len(tasks) // 2, stop_at_bounds=not fixed)
    except KeyboardInterrupt:
        print(f"{label}: interrupted; {state.summary()}", file=sys.stderr)
        raise
    return state


def _test_settings(task: GameTask) -> dict[str, Any]:
    """What a test's game depends on, by the option of ``sumito sprt`` that sets it (the seed first: it is in
    a seeded player's spec too)."""
    a, b = (task.black, task.white) if task.black_id == 0 else (task.white, task.black)
    rules = task.rules
    return {"seed": task.seed, "start": task.start, "win_threshold": task.win_threshold,
            "inline_only": task.inline_only, "max_plies": rules.max_plies, "repetitions": rules.repetitions,
            "no_capture": rules.no_capture_plies, "no_moves": rules.no_moves, "movetime": task.movetime,
            "tc": task.clock, "a": a, "b": b}


def refuse_another_test(journal: GameJournal, tasks: Sequence[GameTask]) -> None:
    """A journal whose games are another test's (other players, seed, openings, rules or clock) is a one-line
    :class:`ArenaError` naming what differs, with both values, rather than a test that plays every game again:
    the journal's game of the lowest number this test plays is compared with this test's game of that number.
    Other bounds, ``--max-games`` and ``--fixed`` change no game and are taken."""
    kept = [r.task for r in journal.done.values() if r.task.index < len(tasks)]
    if not kept:
        return
    old = min(kept, key=lambda t: t.index)
    new = tasks[old.index]
    if task_key(old) == task_key(new):
        return
    game = f"game {old.index + 1}'s"
    flags = {"seed": f"--seed ({game} seed)", "start": f"--openings ({game} start)",
             "win_threshold": f"--openings ({game} marbles to win)", "inline_only": f"--openings ({game} moves)",
             "a": "A", "b": "B"}
    advice = "use another --journal file or the same {flag}"
    refuse_changed(journal.path, _test_settings(old), _test_settings(new), ArenaError, flags, advice)
    raise ArenaError(f"{shown_path(journal.path)}: holds another test's games (game {old.index + 1} differs); "
                     "use another --journal file or the same options")
