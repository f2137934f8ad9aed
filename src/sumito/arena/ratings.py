"""Statistics of game results: score intervals, Elo differences and maximum-likelihood ratings.

**Score interval of a match.** Each game scores 1, ½ or 0 for player A. The 95% interval of A's
expected score is the *profile-likelihood* (likelihood-ratio) interval under a trinomial
win/draw/loss model: every expected score ``μ`` whose best win/draw/loss probabilities
(``w + d/2 = μ``) explain the observed counts nearly as well as the best overall, i.e. with
``2·(log L_max − log L(μ)) ≤ 3.841`` (the 95% point of χ² with one degree of freedom). Unlike
the normal approximation it stays inside [0, 1], does not collapse to a point at 100% or 0%, and
uses the draws properly (many draws narrow it; a run of draws does not pretend to prove
equality). Likelihood-ratio intervals are invariant under reparametrisation, so the Elo interval
is the same interval mapped through ``Elo(μ) = 400·log10(μ / (1 − μ))``.

**Ratings of a tournament.** Maximum-likelihood Elo of the Bradley–Terry (logistic) model:
``P(i scores against j) = 1 / (1 + 10^((R_j − R_i)/400))``, a draw counting as half a win and
half a loss. Newton's method with step halving maximises the (concave) log-likelihood; the 95%
error bars are 1.96 standard errors from the inverse of the Fisher information (the negative
Hessian) at the maximum, under the anchor constraint (the mean rating is 0, or the first player's
rating is 0). Treating each game as a win/loss trial makes the bars somewhat conservative when
there are many draws.

A player (or a group of players) who scored every point against everyone else has no finite
maximum-likelihood rating. Such results split the players into *tiers*: the strongly connected
groups of the "scored at least half a point against" graph, ordered strongest first. Ratings are
finite inside the reference tier (the largest, or the anchor player's) and estimated from the
games among its members alone (the games against other tiers carry no information once the gap is
infinite); players of stronger tiers are reported as ``+inf``, weaker ones as ``-inf``, and
players that are neither (possible only in incomplete schedules) as ``nan``.

**A prior of virtual draws.** ``prior_draws = k > 0`` adds ``k`` drawn games to every pair of
players that met before fitting (the prior BayesElo uses, expressed as virtual draws). Every
rating is then finite, the estimate is the maximum *a posteriori* one, and each rating is pulled
towards its opponents' by about as much as ``k`` draws would pull it; the error bars come from the
same Fisher information, virtual games included. With few games a pair and players far apart (a
curve over a program's generations, where the top group may never drop a point) it gives a finite
order where maximum likelihood gives only tiers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sumito.arena.errors import ArenaError
from sumito.bounds import MAX_PRIOR_DRAWS

Z95 = 1.959963984540054  # two-sided 95% point of the standard normal
CHI2_95 = Z95 * Z95  # 95% point of chi-squared with one degree of freedom
ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of the natural logistic scale


# --------------------------------------------------------------------------- scores and Elo
def elo_from_score(score: float) -> float:
    """The Elo difference that predicts the expected score ``score`` (±inf at 1 and 0)."""
    if score >= 1.0:
        return math.inf
    if score <= 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def expected_score(elo_diff: float) -> float:
    """The expected score of a player rated ``elo_diff`` above the opponent."""
    return 1.0 / (1.0 + 10.0 ** (-elo_diff / 400.0))


def _xlogy(count: float, p: float) -> float:
    if count == 0:
        return 0.0
    if p <= 0.0:
        return -math.inf
    return count * math.log(p)


def _trinomial_loglik(wins: float, draws: float, losses: float, w: float, d: float, l: float) -> float:  # noqa: E741
    return _xlogy(wins, w) + _xlogy(draws, d) + _xlogy(losses, l)


def _profile_loglik(wins: float, draws: float, losses: float, mu: float) -> float:
    """The largest trinomial log-likelihood among win/draw/loss probabilities with expected score ``mu``."""
    n = wins + draws + losses
    lo, hi = max(0.0, 2.0 * mu - 1.0), mu  # w in [lo, hi]: d = 2(mu - w) >= 0, l = 1 - 2 mu + w >= 0
    a = 1.0 - 2.0 * mu
    # stationary points of the concave function of w solve n w^2 - B w - C = 0
    b = wins * mu - (wins + draws) * a + losses * mu
    c = wins * mu * a
    candidates = [lo, hi]
    disc = b * b + 4.0 * n * c
    if disc >= 0.0:
        root = math.sqrt(disc)
        candidates += [w for w in ((b - root) / (2 * n), (b + root) / (2 * n)) if lo <= w <= hi]
    return max(
        _trinomial_loglik(wins, draws, losses, w, max(0.0, 2.0 * (mu - w)), max(0.0, 1.0 - 2.0 * mu + w))
        for w in candidates
    )


def score_interval(wins: int, draws: int, losses: int, level_chi2: float = CHI2_95) -> tuple[float, float, float]:
    """``(score, low, high)``: the mean score (win 1, draw ½) and its 95% profile-likelihood interval.

    See the module notes. Raises :class:`ArenaError` when there are no games.
    """
    n = wins + draws + losses
    if n <= 0:
        raise ArenaError("no games: a score needs at least one finished game")
    score = (wins + 0.5 * draws) / n
    best = _trinomial_loglik(wins, draws, losses, wins / n, draws / n, losses / n)
    cut = best - level_chi2 / 2.0

    def inside(mu: float) -> bool:
        return _profile_loglik(wins, draws, losses, mu) >= cut

    def boundary(outer: float) -> float:
        if inside(outer):
            return outer
        a, b = score, outer  # a inside, b outside
        for _ in range(200):
            mid = 0.5 * (a + b)
            if inside(mid):
                a = mid
            else:
                b = mid
            if abs(b - a) < 1e-13:
                break
        return a

    return score, boundary(0.0), boundary(1.0)


# --------------------------------------------------------------------------- maximum-likelihood ratings
@dataclass
class Ratings:
    """Maximum-likelihood Elo ratings of ``players``.

    ``elo[i]`` is ``+inf``/``-inf`` for players in a tier above/below the reference tier and
    ``nan`` where the order is undetermined; ``error[i]`` is the 95% half-width (``nan`` where the
    rating is not finite). ``tiers`` lists the players' indices tier by tier, strongest first.
    """

    players: list[str]
    elo: np.ndarray
    error: np.ndarray
    anchor: str
    tiers: list[list[int]]
    reference: int  # index into tiers
    iterations: int
    prior_draws: float = 0.0  # virtual draws added to every pair that met (0: maximum likelihood)

    @property
    def finite(self) -> bool:
        return len(self.tiers) == 1

    @property
    def method(self) -> str:
        return rating_method(self.prior_draws)


def rating_method(prior_draws: float) -> str:
    """How ratings fitted with ``prior_draws`` virtual draws a pair were estimated, in words."""
    if prior_draws:
        return f"maximum a posteriori with {prior_draws:g} virtual draw{'s' * (prior_draws != 1)} a pair"
    return "maximum likelihood"


def _tiers(n_games: np.ndarray, points: np.ndarray) -> list[list[int]]:
    """Strongly connected groups of the graph i -> j "i scored against j", strongest first."""
    n = len(n_games)
    scored = (points > 0) & (n_games > 0)
    # Kosaraju: order by finishing time, then collect on the transposed graph
    seen = [False] * n
    order: list[int] = []
    for root in range(n):
        if seen[root]:
            continue
        stack = [(root, 0)]
        seen[root] = True
        while stack:
            v, k = stack[-1]
            if k < n:
                stack[-1] = (v, k + 1)
                if scored[v, k] and not seen[k]:
                    seen[k] = True
                    stack.append((k, 0))
            else:
                stack.pop()
                order.append(v)
    comp = [-1] * n
    groups: list[list[int]] = []
    for root in reversed(order):
        if comp[root] >= 0:
            continue
        comp[root] = len(groups)
        members = [root]
        stack = [root]
        while stack:
            v = stack.pop()
            for u in range(n):
                if scored[u, v] and comp[u] < 0:
                    comp[u] = comp[root]
                    members.append(u)
                    stack.append(u)
        groups.append(sorted(members))
    # Kosaraju yields components in topological order of the condensation (sources first): the
    # strongest tier, which nobody outside it scored against, comes first.
    return groups


def connected(n_games: np.ndarray) -> bool:
    """Whether every player met every other, directly or through common opponents."""
    n = len(n_games)
    seen = {0}
    stack = [0]
    while stack:
        v = stack.pop()
        for u in range(n):
            if n_games[v, u] > 0 and u not in seen:
                seen.add(u)
                stack.append(u)
    return len(seen) == n


def _loglik(theta: np.ndarray, n_games: np.ndarray, points: np.ndarray) -> float:
    diff = theta[:, None] - theta[None, :]
    # log sigmoid(diff) = -log(1 + exp(-diff)), computed stably
    log_p = -np.logaddexp(0.0, -diff)
    return float(np.sum(points * log_p))


def _ml_theta(n_games: np.ndarray, points: np.ndarray, fixed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """ML strengths (natural logistic scale) with ``theta[fixed] = 0``, the Fisher information, iterations."""
    n = len(n_games)
    theta = np.zeros(n)
    if n == 1:
        return theta, np.zeros((1, 1)), 0
    free = [i for i in range(n) if i != fixed]
    ll = _loglik(theta, n_games, points)
    iterations = 0
    for iterations in range(1, 201):  # noqa: B007
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
        grad = (points - n_games * p).sum(axis=1)
        w = n_games * p * (1.0 - p)
        info = np.diag(w.sum(axis=1)) - w
        sub = info[np.ix_(free, free)]
        step_free = np.linalg.solve(sub, grad[free])
        step = np.zeros(n)
        step[free] = step_free
        scale = 1.0
        while True:
            cand = theta + scale * step
            cand_ll = _loglik(cand, n_games, points)
            if cand_ll >= ll - 1e-12 or scale < 1e-6:
                break
            scale /= 2.0
        theta, ll = cand, cand_ll
        if np.max(np.abs(scale * step)) < 1e-12:
            break
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    w = n_games * p * (1.0 - p)
    info = np.diag(w.sum(axis=1)) - w
    return theta, info, iterations


def fit_elo(
    players: list[str], n_games: np.ndarray, points: np.ndarray, anchor: str = "mean", prior_draws: float = 0.0
) -> Ratings:
    """Elo ratings from pairwise results: maximum likelihood, or maximum a posteriori under a prior.

    ``n_games[i, j]`` is how many games i and j played (symmetric); ``points[i, j]`` is i's score
    against j (a win 1, a draw ½), so ``points + points.T == n_games``. ``anchor`` is ``"mean"``
    (the mean rating of the reference tier is 0) or ``"first"`` (the first player's rating is 0).
    ``prior_draws``: virtual draws added to every pair that met (see the module notes; 0, the
    default, is maximum likelihood).
    """
    n_games = np.asarray(n_games, dtype=float)
    points = np.asarray(points, dtype=float)
    n = len(players)
    if n_games.shape != (n, n) or points.shape != (n, n):
        raise ArenaError(f"ratings need {n}x{n} matrices of games and points")
    if anchor not in ("mean", "first"):
        raise ArenaError(f"anchor must be 'mean' or 'first', not {anchor!r}")
    if np.any(np.abs(n_games - n_games.T) > 1e-9) or np.any(np.abs(points + points.T - n_games) > 1e-9):
        raise ArenaError("inconsistent results: each pair's points must add up to the games they played")
    if not (math.isfinite(prior_draws) and 0.0 <= prior_draws <= MAX_PRIOR_DRAWS):
        raise ArenaError(
            f"prior_draws must be a number of virtual draws from 0 to {MAX_PRIOR_DRAWS:g}, not {prior_draws!r}"
        )
    if n == 0:
        return Ratings([], np.zeros(0), np.zeros(0), anchor, [], 0, 0, prior_draws)
    if not connected(n_games):
        raise ArenaError("some players never met, directly or through common opponents: no common rating scale")
    if prior_draws > 0.0:
        met = n_games > 0
        n_games = n_games + prior_draws * met
        points = points + 0.5 * prior_draws * met

    tiers = _tiers(n_games, points)
    if anchor == "first":
        reference = next(k for k, t in enumerate(tiers) if 0 in t)
    else:
        reference = max(range(len(tiers)), key=lambda k: (len(tiers[k]), -min(tiers[k])))
    members = tiers[reference]

    elo = np.full(n, np.nan)
    error = np.full(n, np.nan)
    # order of the other tiers relative to the reference one: reachability in the condensation
    tier_of = {p: k for k, t in enumerate(tiers) for p in t}
    beats = np.zeros((len(tiers), len(tiers)), dtype=bool)
    for i in range(n):
        for j in range(n):
            if n_games[i, j] > 0 and points[i, j] > 0 and tier_of[i] != tier_of[j]:
                beats[tier_of[i], tier_of[j]] = True
    above = _reach(beats.T, reference)  # tiers that reach the reference: stronger
    below = _reach(beats, reference)
    for k, t in enumerate(tiers):
        for p in t:
            if k in above:
                elo[p] = math.inf
            elif k in below:
                elo[p] = -math.inf

    sub_games = n_games[np.ix_(members, members)]
    sub_points = points[np.ix_(members, members)]
    fixed = 0  # members are sorted, so with anchor "first" player 0 is members[0]
    theta, info, iterations = _ml_theta(sub_games, sub_points, fixed)
    m = len(members)
    if anchor == "mean":
        theta = theta - theta.mean()
        cov = np.linalg.pinv(info) if m > 1 else np.zeros((1, 1))  # null space = constant vector
    else:
        cov = np.zeros((m, m))
        if m > 1:
            cov[1:, 1:] = np.linalg.inv(info[1:, 1:])
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    for k, p in enumerate(members):
        elo[p] = theta[k] * ELO_PER_NAT
        error[p] = Z95 * se[k] * ELO_PER_NAT
    return Ratings(list(players), elo, error, anchor, tiers, reference, iterations, prior_draws)


def _reach(edges: np.ndarray, start: int) -> set[int]:
    found: set[int] = set()
    stack = [start]
    while stack:
        v = stack.pop()
        for u in np.nonzero(edges[v])[0].tolist():
            if u not in found and u != start:
                found.add(u)
                stack.append(u)
    return found
